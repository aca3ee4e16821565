/* Event layouts, map keys and limits shared by region.bpf.c and the collector. */
#ifndef SB_REGION_H
#define SB_REGION_H

/* Frames kept per thread; deeper calls are counted, never stored (power of two: masking). */
#define SB_MAX_DEPTH 64
#define SB_NAME_MAX 128
#define SB_FILE_MAX 256
#define SB_TAGS_MAX 128
#define SB_COMM_LEN 16
#define SB_MAX_PROCS 4096
#define SB_MAX_THREADS 8192
#define SB_MAX_SITES 65536
/* Ring buffer: 1 MiB per CPU within these bounds; libbpf maps it twice, so RSS counts it double. */
#define SB_RINGBUF_MIN (4u << 20)
#define SB_RINGBUF_MAX (64u << 20)
#define SB_MAX_STACK_DEPTH 127	/* the kernel's PERF_MAX_STACK_DEPTH */

/* Value of the stacks map: instruction pointers, zero after the last. */
struct sb_stack_ips {
	__u64 ip[SB_MAX_STACK_DEPTH];
};
#define SB_MAX_STACKS 16384
#define SB_MAX_SAMPLE_KEYS 65536
#define SB_PATH_SEED 0x9e3779b97f4a7c15ULL	/* path hash of "outside every region" is 0 */
/* A process held at exec/dlopen longer than this is let go unattached: see docs/DESIGN.md. */
#define SB_STOP_TIMEOUT_NS 2000000000ULL
/* No process is stopped while the recorder has not polled for this long (stopped, starved). */
#define SB_HEARTBEAT_STALE_NS 1000000000ULL

enum sb_event_type {
	SB_EV_CALL = 1,		/* one completed region call */
	SB_EV_SITE,		/* a call site's descriptor, first use per process image */
	SB_EV_THREAD_EXIT,	/* a traced thread ended */
	SB_EV_PROC_FORK,	/* a traced process created a process */
	SB_EV_PROC_EXIT,	/* the last thread of a traced process ended */
	SB_EV_SYNC,		/* a traced process exec'd or loaded objects: attach, then SIGCONT */
	SB_EV_UNMATCHED,	/* a region end without its begin: the call was open when tracing began */
	SB_EV_MPI,		/* an MPI call's operation and arguments, first use of their hash */
	SB_EV_MPI_RANK,		/* a process learned its rank or size in MPI_COMM_WORLD */
	SB_EV_OMP,		/* an OpenMP region kind, first use (bpf/omp.h) */
	SB_EV_FAST_READY,	/* a process made its fast-path memory (include/scope_bpf/abi.h) */
	SB_EV_FAST_SITE,	/* a fast-path marker's site and its name's hash, once per recording */
	SB_EV_OFFCPU,		/* a thread of a fast-path process was off-CPU from start to end */
	SB_EV_SITE_PENDING,	/* a site the kernel could not read: user space names it (below) */
	SB_EV_KBEGIN,		/* a kernel-path call of a fast-path process began (below) */
	SB_EV_CTR_THREAD = 100,	/* counters: a thread appeared or ended (bpf/counters.bpf.h) */
	SB_EV_CUDA = 110,	/* CUDA activity from the CUPTI library (bpf/cuda.bpf.h) */
	SB_EV_CUDA_HOST = 111,	/* a CUDA runtime call's operation and arguments (bpf/cuda_host.h) */
};

/* Why a fork record came (struct sb_proc_event's reason). */
enum sb_fork_reason {
	SB_FORK_SEEN = 0,	/* the fork hook saw it */
	SB_FORK_LATE,		/* the fork hook missed it: found at the child's first switch */
	SB_FORK_LATE_THREAD,	/* a thread of tgid, likewise: not a process (ppid 0) */
};

enum sb_sync_reason {
	SB_SYNC_EXEC = 1,
	SB_SYNC_DLOPEN,
	SB_SYNC_CANDIDATE,	/* record -a: an untraced process exec'd a file that may be traced */
};

/* Key of the exe_verdicts and exec_files maps (record -a): a file as the kernel names it. */
struct sb_file_key {
	__u64 dev;		/* the superblock's s_dev, the kernel's encoding */
	__u64 ino;
};

/* Value of the exe_verdicts map: what record -a does when a process execs that file. */
enum sb_exe_verdict {
	SB_EXE_NEVER = 1,	/* not traced, never stopped for again */
	SB_EXE_ASK,		/* stop and ask the recorder each time: whether may depend on the process */
};

/* Indexes of the per-CPU counters map. */
enum sb_counter {
	SB_CNT_LOST_CALLS,	/* call records the ring buffer had no room for */
	SB_CNT_LOST_OTHER,	/* site, thread, process, call-begin records the ring had no room for */
	SB_CNT_DEPTH_OVERFLOW,	/* calls deeper than SB_MAX_DEPTH, not recorded */
	SB_CNT_UNMATCHED_END,	/* ends without a begin (attached mid-region) */
	SB_CNT_OPEN_DROPPED,	/* calls still open at thread exit, exec, or unwound by a mismatched end */
	SB_CNT_BAD_SITE,	/* calls whose begin descriptor could not be read or was invalid */
	SB_CNT_THREADS_FULL,	/* calls not recorded: the thread table had no slot for their thread */
	SB_CNT_LOST_SAMPLES,	/* samples or off-CPU intervals the aggregation maps had no room for */
	SB_CNT_MPI_UNMATCHED,	/* MPI returns without their entry (tracing began inside the call) */
	SB_CNT_LOST_STACKS,	/* stacks the stack table had no room for (their samples are kept) */
	SB_CNT_CUDA_LOST,	/* CUDA activity records the ring buffer had no room for, or unreadable */
	/*
	 * Site descriptions the ring buffer had no room for: not calls lost. The
	 * recorder names those sites itself (a held process, or the fast path's
	 * records); calls it cannot name are counted where they are dropped.
	 */
	SB_CNT_SITES_UNSENT,
	SB_CNT_OFFCPU_LOST,	/* fast-path threads' off-CPU intervals not sent: not calls */
	SB_CNT_TIMELINE_LOST,	/* timed samples the sample ring had no room for (still summed) */
	SB_CNT_FORKS_LATE,	/* traced forks the fork hook missed, found at the child's first switch */
	SB_CNT_EXITS_LATE,	/* traced threads' exits the exit hook missed, found at their last switch */
	SB_CNT_UNSEEN,		/* marker calls and fast-path memories of untraced children of traced processes */
	SB_CNT_MAX,
};

/*
 * Tests only (SCOPE_BPF_KERNEL_SKIP): hooks that skip every run, as the
 * kernel skips a run it cannot make, so that what stands in for them is
 * tested on any kernel.
 */
enum sb_test_skip {
	SB_SKIP_FORK = 1,	/* on_fork */
	SB_SKIP_EXIT = 2,	/* on_exit */
};

/* Key of the sites map: a descriptor address in one process image. */
struct sb_site_key {
	__u32 tgid;
	__u32 gen;		/* bumped at exec and link-map changes: the same address may mean another site */
	__u64 site;
};

struct sb_call_event {
	__u32 type;
	__u32 tgid;
	__u32 tid;
	__u32 depth;		/* 0 = outermost open call of the thread */
	__u64 site;		/* descriptor address of the begin marker */
	__u64 start;
	__u64 end;
	__s64 call_id;		/* unique within the process; in entry order with fetch-and-add */
	__s64 parent_id;	/* -1 = no enclosing call */
	__u64 child_ns;		/* time spent in direct children */
	__u64 offcpu_ns;	/* off-CPU time inside the call, children included */
	__u64 path_hash;	/* the call's region path, as samples name it */
	__u64 parent_path;	/* the enclosing path's hash, 0 at top level */
	__u64 name_hash;
};

/*
 * SB_EV_KBEGIN: a kernel-path call (OpenMP, MPI, CUDA host, an older
 * header's marker) of a fast-path process began. The fast path's records
 * never pass the kernel, and the call's own record comes at its end: without
 * this, user space could not nest under it the marker calls made inside it.
 */
struct sb_kbegin_event {
	__u32 type;
	__u32 tgid;
	__u32 tid;
	__u32 depth;		/* as its SB_EV_CALL's */
	__u64 start;
	__s64 call_id;
	__s64 parent_id;
	__u64 name_hash;
};

/*
 * Counters (record -e/-g, bpf/counters.bpf.h): events per recording, each
 * read at every region entry and exit; a thread's counters sit in perf-event
 * array slots [slot * SB_CTR_MAX, slot * SB_CTR_MAX + SB_CTR_MAX).
 */
#define SB_CTR_MAX 8
#define SB_CTR_MAX_THREADS 1024	/* threads counted at once */
#define SB_CTR_UNKNOWN (-1LL)	/* the call began before its thread had counters */

/*
 * A reading of an event the kernel multiplexed (it ran for running of the
 * enabled ns), scaled to the whole time: 16-bit fixed point, as the BPF side
 * has no floating point. running >= enabled: the count as is.
 */
static inline __u64 sb_ctr_scale(__u64 counter, __u64 enabled, __u64 running)
{
	__u64 ratio;

	if (running >= enabled || !running)
		return counter;
	ratio = (enabled << 16) / running;
	return (counter >> 16) * ratio + (((counter & 0xffff) * ratio) >> 16);
}

/* A call's count from its entry and exit readings: scaled readings may step back, never below 0. */
static inline __u64 sb_ctr_delta(__u64 start, __u64 end)
{
	return end > start ? end - start : 0;
}

/* A call's own count: its inclusive count less its direct children's, never below 0. */
static inline __u64 sb_ctr_exclusive(__u64 inclusive, __u64 children)
{
	return inclusive > children ? inclusive - children : 0;
}

/*
 * record --memory: counter slots that hold a value of the task read in the
 * kernel (no perf event) at every region entry and exit. Which value a slot
 * reads: the process's resident bytes (mm's file, anon and shmem pages), its
 * peak resident bytes so far (max of mm's high-water mark and the resident
 * bytes), and the thread's page faults (minor and major).
 */
enum sb_mem_value {
	SB_MEM_RSS,
	SB_MEM_PEAK,
	SB_MEM_FAULTS,
	SB_MEM_VALUES,
};

/* A call record when counters are on: the deltas follow the call. */
struct sb_call_ctr_event {
	struct sb_call_event call;
	__s64 incl[SB_CTR_MAX];	/* the call's counts, children included; SB_CTR_UNKNOWN */
	__s64 excl[SB_CTR_MAX];	/* the same less the direct children's inclusive counts */
};

/* Value of the ctr_threads map (key: tid): a thread's slot and its open frames' readings. */
struct sb_ctr_thread {
	__u32 slot;		/* set by user space when it opened the thread's events */
	__u32 pad;
	__u8 known[SB_MAX_DEPTH];	/* of frame d: bit k = event k was read at its entry */
	__u64 start[SB_MAX_DEPTH][SB_CTR_MAX];
	__u64 child[SB_MAX_DEPTH][SB_CTR_MAX];
	__s64 last_incl[SB_CTR_MAX];	/* the last popped call's counts, for its record */
	__s64 last_excl[SB_CTR_MAX];
};

/* SB_EV_CTR_THREAD: user space opens (or, at exit, closes) the thread's counters. */
struct sb_ctr_thread_event {
	__u32 type;
	__u32 tgid;
	__u32 tid;
	__u32 exited;
};

/* An end whose begin this thread's stack does not hold: attached (or forked) inside the region. */
struct sb_unmatched_event {
	__u32 type;
	__u32 tgid;
	__u32 tid;
	__u32 pad;
	__u64 site;		/* descriptor address of the end marker */
	__u64 name_hash;
};

struct sb_site_event {
	__u32 type;
	__u32 tgid;
	__u64 site;
	__s32 line;
	__u32 pad;
	char name[SB_NAME_MAX];
	char file[SB_FILE_MAX];
	char tags[SB_TAGS_MAX];
};

/*
 * A call site whose descriptor or strings the marker program could not read
 * (a page the process never touched, and a program that may not fault it
 * in). Its calls are kept under name_hash, a stand-in; user space reads the
 * descriptor (which faults the page in), names the stand-in and puts the
 * name's real hash in the sites map for the calls that follow. The process
 * is held meanwhile, as at exec, so one that exits at once is still read.
 */
struct sb_site_pending_event {
	__u32 type;
	__u32 tgid;
	__u32 gen;
	__u32 stop_seq;		/* the process waits, stopped, until it is named (0: not held) */
	__u64 site;
	__u64 name_hash;
	__u64 time;		/* when it was asked for: a fast-path site is named from then */
};

struct sb_thread_event {
	__u32 type;
	__u32 tgid;
	__u32 tid;
	__u32 open_calls;	/* calls still open at exit, dropped */
	__u64 time;
	__u64 first_ns;
	__u64 cpu_ns;
	__u64 offcpu_ns;
	char comm[SB_COMM_LEN];
};

struct sb_proc_event {
	__u32 type;
	__u32 tgid;
	__u32 ppid;		/* fork: the parent */
	__u32 reason;		/* sync: enum sb_sync_reason */
	__u64 time;
	__s32 exit_code;	/* exit: the kernel's wait status */
	__u32 stop_seq;		/* sync: the stop it answers (struct sb_stop.seq), 0 = not stopped */
	char comm[SB_COMM_LEN];
};

/* Value of the stops map: a process the kernel side stopped until its probes are attached. */
struct sb_stop {
	__u64 time;		/* when it was last stopped */
	__u32 seq;		/* bumped at each stop */
	__u32 pad;
};

/* Value of the procs map: one traced process. */
struct sb_proc {
	__u64 next_call_id;
	__u32 gen;		/* site generation: see struct sb_site_key */
	__u32 fast;		/* its markers write to shared memory: off-CPU intervals are sent */
	__u64 fast_hdr;		/* where the image's fast-path memory is mapped; 0: unknown */
};

/* The fast-path events: the collector's user-space side nests these records (record/fast/). */
struct sb_fast_ready_event {
	__u32 type;
	__u32 tgid;
	__u32 tid;
	__s32 fd;		/* the memfd's number in the process */
	__u64 hdr;		/* where the process mapped it */
	__u32 stop_seq;		/* held until the recorder has taken the memory (struct sb_stop) */
	__u32 pad;
};

struct sb_fast_site_event {
	__u32 type;
	__u32 tgid;
	__u64 site;
	__u64 name_hash;	/* 0: the descriptor was invalid or unreadable */
	__u64 time;		/* of the announcement: names the site's records from then on */
};

struct sb_offcpu_event {
	__u32 type;
	__u32 tgid;
	__u32 tid;
	__u32 pad;
	__u64 start;
	__u64 end;
};

struct sb_frame {
	__u64 name_hash;	/* region identity is the name: ends match begins by it */
	__u64 path_hash;	/* hash of the names of this frame and all below it */
	__u64 site;
	__u64 start;
	__s64 call_id;
	__u64 child_ns;
	__u64 offcpu_ns;
	/*
	 * Fast-path processes: the path with the marker calls open around it
	 * (as user space nests them), what samples inside it name, and how many
	 * of the thread's fast-path frames were open when it began.
	 */
	__u64 mpath;
	__u32 fast_depth;
	__u32 pad;
};

/* Value of the threads map: one traced thread's open calls and CPU accounting. */
struct sb_thread_state {
	__u32 tgid;
	__u32 depth;		/* frames in use */
	__u32 overflow;		/* open calls beyond SB_MAX_DEPTH */
	__u32 pad;
	__u64 first_ns;
	__u64 on_since;		/* 0 while off-CPU */
	__u64 off_since;	/* 0 while on-CPU */
	__u64 cpu_ns;
	__u64 offcpu_ns;
	__u64 off_ustack;	/* where it blocked, for off-CPU stacks (stacks map keys) */
	__u64 off_kstack;
	__u64 off_path;
	__u64 last_site;	/* the site of the thread's last begin, and its name hash */
	__u64 last_hash;
	__u32 last_gen;		/* in this image of the process (sb_proc.gen) */
	__u32 pad2;
	char comm[16];		/* its name at its last switch-out (TASK_COMM_LEN) */
	struct sb_frame frames[SB_MAX_DEPTH];
};

/* Key of the sample aggregation maps: who, where in the code, in which region path. */
struct sb_sample_key {
	__u32 tgid;
	__u32 tid;
	__u64 ustack;		/* stacks map key, 0 when none */
	__u64 kstack;
	__u64 path;		/* path hash of the innermost open region, 0 outside */
};

struct sb_offcpu_value {
	__u64 count;
	__u64 ns;
};

/*
 * One CPU sample on its own, through the sample ring (not the events ring: a
 * sample flood must not crowd out the calls), for the profile's timeline.
 * Sent only for a sample its aggregate counted, so the timeline never holds
 * one the sums lack.
 */
struct sb_sample_event {
	struct sb_sample_key key;
	__u64 time;
	__u32 cpu;
	__u32 pad;
};

/*
 * The sample ring: SB_SAMPLE_RING_SECONDS of samples at the recording's rate
 * on every CPU, a power of two within these bounds. User space reads it each
 * turn of its loop (no wake-ups), so it must hold the turns a slow sync takes.
 */
#define SB_SAMPLE_RING_MIN (256u << 10)
#define SB_SAMPLE_RING_MAX SB_RINGBUF_MAX
#define SB_SAMPLE_RING_SECONDS 4

/*
 * MPI calls (docs/MPI.md). An entry probe's attach cookie is the operation
 * (enum sb_mpi_op) | the library's handle encoding (SB_MPI_ABI_*). The
 * operations' order is their names' in user/record/sources/mpi_names.c.
 */
enum sb_mpi_op {
	SB_MPI_SEND,
	SB_MPI_SSEND,
	SB_MPI_BSEND,
	SB_MPI_RSEND,
	SB_MPI_RECV,
	SB_MPI_SENDRECV,
	SB_MPI_PROBE,
	SB_MPI_BARRIER,
	SB_MPI_BCAST,
	SB_MPI_REDUCE,
	SB_MPI_ALLREDUCE,
	SB_MPI_GATHER,
	SB_MPI_GATHERV,
	SB_MPI_SCATTER,
	SB_MPI_SCATTERV,
	SB_MPI_ALLGATHER,
	SB_MPI_ALLGATHERV,
	SB_MPI_ALLTOALL,
	SB_MPI_ALLTOALLV,
	SB_MPI_REDUCE_SCATTER,
	SB_MPI_REDUCE_SCATTER_BLOCK,
	SB_MPI_SCAN,
	SB_MPI_EXSCAN,
	SB_MPI_INIT,
	SB_MPI_INIT_THREAD,
	SB_MPI_FINALIZE,
	SB_MPI_WIN_CREATE,
	SB_MPI_WIN_ALLOCATE,
	SB_MPI_WIN_FREE,
	SB_MPI_PUT,
	SB_MPI_GET,
	SB_MPI_ACCUMULATE,
	SB_MPI_WIN_FENCE,
	SB_MPI_WIN_LOCK,
	SB_MPI_WIN_UNLOCK,
	SB_MPI_WIN_LOCK_ALL,
	SB_MPI_WIN_UNLOCK_ALL,
	SB_MPI_WIN_FLUSH,
	SB_MPI_WIN_FLUSH_ALL,
	SB_MPI_FILE_OPEN,
	SB_MPI_FILE_CLOSE,
	SB_MPI_FILE_READ,
	SB_MPI_FILE_WRITE,
	SB_MPI_FILE_READ_AT,
	SB_MPI_FILE_WRITE_AT,
	SB_MPI_FILE_READ_ALL,
	SB_MPI_FILE_WRITE_ALL,
	SB_MPI_FILE_READ_AT_ALL,
	SB_MPI_FILE_WRITE_AT_ALL,
	SB_MPI_ISEND,		/* from here to SB_MPI_IALLTOALL: calls that start a request */
	SB_MPI_ISSEND,
	SB_MPI_IBSEND,
	SB_MPI_IRSEND,
	SB_MPI_IRECV,
	SB_MPI_IBARRIER,
	SB_MPI_IBCAST,
	SB_MPI_IREDUCE,
	SB_MPI_IALLREDUCE,
	SB_MPI_IGATHER,
	SB_MPI_ISCATTER,
	SB_MPI_IALLGATHER,
	SB_MPI_IALLTOALL,
	SB_MPI_WAIT,
	SB_MPI_WAITALL,
	SB_MPI_WAITANY,
	SB_MPI_WAITSOME,
	SB_MPI_COMM_RANK,	/* no region: the rank (and size) the process learns */
	SB_MPI_COMM_SIZE,
	SB_MPI_TEST,		/* from here: polling calls, probed only with --mpi=all */
	SB_MPI_TESTALL,
	SB_MPI_TESTANY,
	SB_MPI_TESTSOME,
	SB_MPI_IPROBE,
	SB_MPI_WTIME,
	SB_MPI_N_OPS,
};

#define SB_MPI_OP_MASK 0xffu
#define SB_MPI_ABI_MPICH 0x100u	/* int handles; builtin datatypes encode their size */
#define SB_MPI_ABI_OMPI 0x200u	/* Open MPI: pointer handles, MPI_IN_PLACE is (void *)1 */
/*
 * Open MPI: where in a datatype object its size (bytes, a size_t) is, bits
 * 16-23 of the encoding; 0: sizes unknown. user/record/sources/mpi_lib.c
 * finds it in the library's own predefined datatypes.
 */
#define SB_MPI_ABI_TYPE_SIZE_SHIFT 16
#define SB_MPI_ABI_TYPE_SIZE_MAX 0xffu
#define SB_MPI_SITE 1		/* the site of an MPI call's frame: never a descriptor address */
#define SB_MPI_SEED 0x6d70692d63616c6cULL	/* "mpi-call": MPI name hashes */
#define SB_MPI_MAX_REQUESTS 65536	/* open non-blocking requests remembered, all processes */
#define SB_MPI_WAITALL_MAX 16		/* requests of one MPI_Waitall looked up */
#define SB_MPI_COUNTS_MAX 64		/* counts of a v collective summed: larger comms are -1 */
#define SB_MPI_MAX_COMMS 65536		/* communicators whose rank or size a process asked */

/*
 * Key of the call_addrs map (bpf/call_frames.bpf.h), which stands in for attach
 * cookies where the kernel has none (before 5.15): a probed library function's
 * run-time address in one process. Value: that probe's cookie (__u64).
 */
struct sb_call_addr_key {
	__u32 tgid;
	__u32 pad;
	__u64 addr;
};

#define SB_CALL_MAX_ADDRS 65536	/* probed functions' addresses, all processes together */

/* The first call of an operation with these arguments; later ones carry only name_hash. */
struct sb_mpi_event {
	__u32 type;
	__u32 op;		/* enum sb_mpi_op */
	__s64 bytes;		/* count x datatype size, -1 unknown */
	__s32 peer;		/* rank in comm, -1 none or unknown */
	__s32 root;
	__s32 tag;
	__s32 comm;		/* the communicator's Fortran handle, -1 unknown */
	__s32 request;		/* waits: the operation that started the request, -1 unknown */
	__u32 pad;
	__u64 name_hash;
};

/*
 * Key of the open requests map: where a request handle is kept in one process
 * (the MPI_Request * of MPI_Isend, then of the wait). Not the handle: MPICH
 * gives every send that completed at once the same handle.
 */
struct sb_mpi_request_key {
	__u32 tgid;
	__u32 pad;
	__u64 addr;
};

/* What a process learned of a communicator from MPI_Comm_rank and MPI_Comm_size; -1 not yet. */
struct sb_mpi_comm_key {
	__u32 tgid;
	__s32 comm;
};

struct sb_mpi_comm_info {
	__s32 rank;
	__s32 size;
};

/* Sent when a process's rank or size in MPI_COMM_WORLD is new or changed. */
struct sb_mpi_rank_event {
	__u32 type;
	__u32 tgid;
	__s32 rank;		/* -1 until MPI_Comm_rank returned */
	__s32 size;		/* -1 until MPI_Comm_size returned */
};

/*
 * MPICH's builtin datatype handles (mpi.h: MPI_INT 0x4c000405, MPI_DOUBLE
 * 0x4c00080b) are kind "builtin" (bits 30-31 = 01), object "datatype" (bits
 * 26-29 = 0011), and carry their size in bytes in bits 8-15. Anything else
 * (derived, pair types such as MPI_DOUBLE_INT, MPI_DATATYPE_NULL): -1.
 */
static inline __s64 sb_mpich_type_size(__u32 type)
{
	if ((type & 0xfc000000u) != 0x4c000000u)
		return -1;
	return (type >> 8) & 0xff;
}

/* Where the requests of a wait differ, the wait's value is -1 (unknown). */
static inline __attribute__((always_inline)) __s64 sb_mpi_same(__s64 a, __s64 b)
{
	return a == b ? a : -1;
}

/*
 * A wait is described by the calls that started its requests (r, one of
 * them): all of r's values for the first (first), then bytes summed where it
 * completes them all (sum), else kept, like the rest, only where they agree.
 * The kernel side (bpf/mpi.bpf.h) and the PMPI library (mpi/) both use it.
 */
static inline __attribute__((always_inline)) void
sb_mpi_add_request(struct sb_mpi_event *e, const struct sb_mpi_event *r, int first, int sum)
{
	if (first) {
		e->bytes = r->bytes;
		e->peer = r->peer;
		e->root = r->root;
		e->tag = r->tag;
		e->comm = r->comm;
		e->request = (__s32)r->op;
		return;
	}
	if (!sum)
		e->bytes = sb_mpi_same(e->bytes, r->bytes);
	else
		e->bytes = e->bytes < 0 || r->bytes < 0 ? -1 : e->bytes + r->bytes;
	e->peer = (__s32)sb_mpi_same(e->peer, r->peer);
	e->root = (__s32)sb_mpi_same(e->root, r->root);
	e->tag = (__s32)sb_mpi_same(e->tag, r->tag);
	e->comm = (__s32)sb_mpi_same(e->comm, r->comm);
	e->request = (__s32)sb_mpi_same(e->request, (__s32)r->op);
}

#endif
