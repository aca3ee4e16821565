// SPDX-License-Identifier: GPL-2.0
/* Region tracing: per-thread region stacks, per-call records, off-CPU time, process following. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "region.h"
#include "scope_bpf/abi.h"	/* what markers write: site descriptors, the fast path's memory */
#include "task_stack.bpf.h"

#define SIGSTOP 19
#define PF_EXITING 0x00000004	/* include/linux/sched.h: set before sched_process_exit */
#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

/* The register the marker programs' fast entries read the site from (see region_begin). */
#if defined(__TARGET_ARCH_x86)
#define SB_SITE_REG(ctx) ((ctx)->ax)
#else
#define SB_SITE_REG(ctx) PT_REGS_PARM1(ctx)
#endif

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile bool stop_on_sync = false;	/* stop processes at exec/dlopen until attached */
const volatile __u64 wakeup_bytes = SB_RINGBUF_MIN / 8;	/* an eighth of the ring */
const volatile bool sleepable = false;	/* the marker programs were loaded sleepable */
/* The kernel has task local storage (5.11): else traced_tasks is not even created. */
const volatile bool use_task_storage = true;
/* The kernel has bpf_get_current_task_btf (5.11). */
const volatile bool use_task_btf = true;
/* Kernels before 5.12 refuse atomic fetch-and-add even in a branch never taken. */
const volatile bool use_fetch_add = true;
/* The kernel has bpf_get_attach_cookie (5.15): else library calls are known by address. */
const volatile bool use_attach_cookie = true;
const volatile __u32 n_cpus = 1;	/* possible CPUs: the per-CPU call count's stride */
const volatile bool kernel_stacks = false;	/* CPU samples take the kernel stack too */
const volatile bool offcpu_stacks = false;	/* record where traced threads block */
const volatile __u64 offcpu_min_ns = 0;	/* shorter blocks are not worth a stack */
/* record -a: an untraced process that execs may be traced (exe_verdicts says whether). */
const volatile bool trace_all = false;
/*
 * record -a --exe: that file's inode number. A file with another is never held;
 * one with the same (on another file system, perhaps) is judged by user space.
 * Not the device too: stat's and the superblock's differ on some file systems.
 */
const volatile __u64 exe_ino = 0;
/* record -a --comm: only processes with this name are considered ("" = any). */
const volatile char comm_filter[SB_COMM_LEN] = {};
/* Task storage may be created in the scheduler hook (record/kernel/features.c says when). */
const volatile bool mark_at_switch = false;
/* Tests only: enum sb_test_skip's hooks skip every run. */
const volatile __u32 test_skip = 0;

/*
 * Written by user space while the programs run: recording begins when it is set
 * and ends, for every program at one instant, when it is cleared. After that
 * nothing is recorded and no process is stopped, however long detaching takes.
 */
volatile bool recording = false;
/*
 * Written by user space each time it polls, and ahead of time (a lease) before
 * long work: a stale one means nobody would answer a stop.
 */
volatile __u64 heartbeat_ns = 0;

/* Key: tgid. Value: call-id counter and exec generation. Inserted by user space
 * (roots) and on fork; deleted when the process's last thread exits. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct sb_proc);
} procs SEC(".maps");

/*
 * Key: tgid. Value: where its fast-path memory is mapped (0: unknown). Put by
 * user space for a memory it took that no fast_ready announced (-p of a
 * process an earlier recording made it for, or of a launcher whose second
 * rank ran fast_ready before the recorder traced it), and moved into the
 * process's entry by the kernel at its next switch or call: user space never
 * writes procs' entries, whose call ids and generation the kernel updates.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_MAX_PROCS);
	__type(key, __u32);
	__type(value, __u64);
} fast_adopted SEC(".maps");
/* Set by user space with the first entry of fast_adopted: most recordings never look. */
volatile bool fast_adopting = false;

/* Whether proc writes its markers to shared memory, taking what user space adopted for it. */
static __always_inline bool proc_fast(struct sb_proc *proc, __u32 tgid)
{
	__u64 *hdr;

	if (proc->fast || !fast_adopting)
		return proc->fast;
	hdr = bpf_map_lookup_elem(&fast_adopted, &tgid);
	if (!hdr)
		return false;
	proc->fast_hdr = *hdr;
	proc->fast = 1;
	bpf_map_delete_elem(&fast_adopted, &tgid);
	return true;
}

/*
 * When each traced process ended, for the threads still on their way out:
 * the joiner of a thread wakes at exit_mm(), before that thread reaches
 * sched_process_exit, and can end the process first. Honoured for
 * ENDED_GRACE_NS only, so that a reused pid is not taken for it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_MAX_PROCS);
	__type(key, __u32);
	__type(value, __u64);
} ended_procs SEC(".maps");

#define ENDED_GRACE_NS 1000000000ULL

/*
 * Key: tid. Value: open calls and CPU accounting. Inserted at a thread's first
 * event or context switch, never for a thread already exiting; deleted at
 * thread exit. So an entry lives exactly as long as its thread, and the table
 * bounds the threads alive at once, not the threads ever seen.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct sb_thread_state);
} threads SEC(".maps");

/* Key: descriptor address in a process image. Value: the name's hash. LRU, so
 * dead processes' and unloaded objects' sites age out; an evicted site is
 * simply captured again. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_MAX_SITES);
	__type(key, struct sb_site_key);
	__type(value, __u64);
} sites SEC(".maps");

/* All records to user space, in order of reservation. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SB_RINGBUF_MIN);	/* sized by user space before load */
} events SEC(".maps");

/*
 * A record of the events ring. Recent kernels' ring lock is a resilient
 * spinlock that gives up after a timeout where older ones spun, and under
 * emulation the vCPU holding it can be descheduled that long: 7.3 under QEMU
 * refused one record of 800 with the ring nearly empty. A refusal with room
 * left is tried once more; one of a full ring is not, so a flood costs no more.
 */
#define reserve_event(size) ({								\
	void *__e = bpf_ringbuf_reserve(&events, (size), 0);				\
	if (!__e && bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) -			\
			    bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > (size) + 16)	\
		__e = bpf_ringbuf_reserve(&events, (size), 0);				\
	__e;										\
})

/* Without atomic fetch-and-add: calls numbered per CPU (next_call_id). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} call_seq SEC(".maps");

/* Key: enum sb_counter. Value: per-CPU count, summed by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SB_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * Key: a 64-bit hash of a stack. Value: its instruction pointers (user or
 * kernel). Not a stack-trace map: that one keeps a single stack per bucket and
 * refuses (or, asked to, overwrites) a different stack that hashes to a taken
 * bucket, so a sample silently lost its stack once a few thousand stacks were
 * known. A hash map chains. Preallocated, as the stack-trace map was: one
 * allocated on demand fails in bursts of new stacks (its per-CPU caches are
 * refilled later, from irq_work), which lost stacks at a context switch.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_MAX_STACKS);
	__type(key, __u64);
	__type(value, struct sb_stack_ips);
} stacks SEC(".maps");

/* Room for the stack being taken: too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sb_stack_ips);
} stack_scratch SEC(".maps");

/* Key: (thread, stacks, region path). Value: CPU samples. Read by user space at the end. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_MAX_SAMPLE_KEYS);
	__type(key, struct sb_sample_key);
	__type(value, __u64);
} cpu_samples SEC(".maps");

/* CPU samples one by one (struct sb_sample_event): the profile's timeline. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SB_SAMPLE_RING_MIN);	/* sized by the sampler before load */
} sample_events SEC(".maps");

/* Key: (thread, stacks where it blocked, region path). Value: intervals and time blocked. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_MAX_SAMPLE_KEYS);
	__type(key, struct sb_sample_key);
	__type(value, struct sb_offcpu_value);
} offcpu_samples SEC(".maps");

/* Key: tgid. Value: when and how often the process was stopped at a sync. Inserted
 * here, deleted by user space once it let the process go; what is left when the
 * recorder dies tells its guardian whom to resume. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct sb_stop);
} stops SEC(".maps");

/*
 * record -a. Key: an executable file. Value: enum sb_exe_verdict, written by
 * user space when it first saw a process exec it. A file not in the map is
 * asked about once; LRU: a verdict evicted costs one more stop, never a miss.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_MAX_PROCS);
	__type(key, struct sb_file_key);
	__type(value, __u32);
} exe_verdicts SEC(".maps");

/*
 * record -a. Key: tgid held at a candidate sync. Value: the file it exec'd.
 * User space deletes what it read; LRU, so entries of syncs that were never
 * sent (a full ring) cannot fill it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct sb_file_key);
} exec_files SEC(".maps");

/*
 * The tasks of traced processes, marked when first seen: at their fork, at
 * their first event, or by user space for the threads a recording starts
 * with. The scheduler hook asks the two tasks it is handed before anything
 * else: a task never marked has no storage at all, so an untraced task costs
 * one load of a field of its task_struct, not two hash lookups in cold maps.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} traced_tasks SEC(".maps");

static __always_inline void mark_task(struct task_struct *t)
{
	__u32 *v;

	if (!use_task_storage)
		return;
	v = bpf_task_storage_get(&traced_tasks, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (v)
		*v = 1;
}

/*
 * Through the value, not the pointer: the verifier refuses pointers or'ed
 * together. A task that has no BPF storage at all, of any map (nearly every
 * task), is answered by one load, without the helper's call and locking.
 */
static __always_inline __u32 task_marked(struct task_struct *t)
{
	__u32 *v;

	/* Without task storage every task may be ours: the process table decides. */
	if (!use_task_storage)
		return 1;
	if (!t->bpf_storage)
		return 0;
	v = bpf_task_storage_get(&traced_tasks, t, 0, 0);

	return v ? *v : 0;
}

/* One all-zero thread state to insert from: too big for the BPF stack. Never written. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sb_thread_state);
} zero_thread SEC(".maps");

static __always_inline void count(__u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		*c += n;
}

/* Submissions on this CPU since the ring's fill was last looked at. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} submits SEC(".maps");

#define SB_WAKEUP_EVERY 16	/* records between two looks at the ring's fill, per CPU */

/*
 * Batch wake-ups: only wake the collector once enough data waits; it also
 * polls. The fill is read from the ring's positions, which the collector
 * writes from another CPU: looked at once every SB_WAKEUP_EVERY records, so
 * most submissions touch no line the collector owns.
 */
static __always_inline __u64 submit_flags(void)
{
	__u32 zero = 0, *n = bpf_map_lookup_elem(&submits, &zero);

	if (n && ++*n < SB_WAKEUP_EVERY)
		return BPF_RB_NO_WAKEUP;
	if (n)
		*n = 0;
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

#include "counters.bpf.h"

/* The thread's state, created when missing (now 0: read the clock then); NULL when the table is full. */
static __always_inline struct sb_thread_state *thread_get(__u32 tid, __u32 tgid, __u64 now)
{
	struct sb_thread_state *th = bpf_map_lookup_elem(&threads, &tid);
	__u32 zero = 0;
	void *blank;

	if (th)
		return th;
	blank = bpf_map_lookup_elem(&zero_thread, &zero);
	if (!blank)
		return NULL;
	if (bpf_map_update_elem(&threads, &tid, blank, BPF_NOEXIST) && !bpf_map_lookup_elem(&threads, &tid))
		return NULL;
	th = bpf_map_lookup_elem(&threads, &tid);
	if (th && !th->first_ns) {
		th->tgid = tgid;
		th->first_ns = now ? now : bpf_ktime_get_ns();
		ctr_thread_note(tgid, tid, 0);
		/* An event of the thread itself (a probe): from now on its switches count. */
		if (use_task_btf && tid == (__u32)bpf_get_current_pid_tgid())
			mark_task(bpf_get_current_task_btf());
	}
	return th;
}

static __always_inline __u64 hash_name(const char *name)
{
	__u64 h = FNV_OFFSET;
	int i;

	for (i = 0; i < SB_NAME_MAX; i++) {
		if (!name[i])
			break;
		h = (h ^ (__u8)name[i]) * FNV_PRIME;
	}
	return h;
}

/*
 * Marker strings sit in pages the process may never have touched (it only
 * passes their address), and a non-sleeping read cannot fault them in. The
 * marker programs are sleepable where the kernel allows it: there a one-byte
 * bpf_copy_from_user() faults in each page the string may span, before the
 * ring record is reserved, and the string is read into the record without
 * sleeping. A program never sleeps holding a reservation: the ring's reader
 * stops at a record still being written, so every CPU's records would wait
 * on that page (a binary on NFS); and on 7.3 under emulation the kernel
 * oopsed twice in the commit of a record held across such a fault, and a
 * recording once stalled behind one (docs/KERNELS.md).
 */
static __always_inline void fault_in_str(__u64 addr, __u32 size)
{
	char byte;

	if (!sleepable || !addr)
		return;
	bpf_copy_from_user(&byte, 1, (void *)addr);
	if ((addr & 4095) + size > 4096)
		bpf_copy_from_user(&byte, 1, (void *)((addr | 4095) + 1));
}

static __always_inline long read_user_str(char *dst, __u32 size, __u64 addr)
{
	return bpf_probe_read_user_str(dst, size, (void *)addr);
}

/*
 * The descriptor itself is data the process never reads (it only passes its
 * address), so its page may not be mapped yet either: fault it in where the
 * program may sleep.
 */
static __always_inline long read_user(void *dst, __u32 size, __u64 addr)
{
	if (sleepable)
		return bpf_copy_from_user(dst, size, (void *)addr);
	return bpf_probe_read_user(dst, size, (void *)addr);
}

/*
 * A site this program cannot read: its calls are kept under a stand-in hash,
 * never 0, that user space names (struct sb_site_pending_event) while the
 * process waits. Remembered in sites: one record per site and image.
 */
static __always_inline __u32 hold_current(__u32 tgid);
/* The calling process untraced though its parent is: counted (defined below). */
static __always_inline struct sb_proc *proc_unseen(void);

static __always_inline __u64 pending_site(struct sb_site_key *key)
{
	struct sb_site_pending_event *e;
	__u64 h = FNV_OFFSET;

	h = (h ^ key->site) * FNV_PRIME;
	h = (h ^ ((__u64)key->gen << 32 | key->tgid)) * FNV_PRIME;
	h = h ?: 1;
	e = reserve_event(sizeof(*e));
	if (!e) {
		count(SB_CNT_LOST_OTHER, 1);
		return 0;
	}
	e->type = SB_EV_SITE_PENDING;
	e->tgid = key->tgid;
	e->gen = key->gen;
	e->site = key->site;
	e->name_hash = h;
	e->time = bpf_ktime_get_ns();
	e->stop_seq = hold_current(key->tgid);
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	bpf_map_update_elem(&sites, key, &h, BPF_ANY);
	return h;
}

/*
 * Copy a site's descriptor out of the traced process and send it to user space.
 * Returns the name hash; when a page could not be read or the record could not
 * be sent, a stand-in (pending_site) if pend, else SB_SITE_UNREAD (the site is
 * tried again next time); 0 when the descriptor is invalid. An invalid descriptor is
 * counted at begins only: the call it would have opened is the one not
 * recorded, and its end must not count it again.
 */
/* Not a name: the site could not be read or sent now (never a hash, all bits set). */
#define SB_SITE_UNREAD ((__u64)-1)

static __always_inline __u64 capture_site(struct sb_site_key *key, bool begin, bool pend)
{
	struct sb_site_event *e;
	struct scope_bpf_site us;
	__u64 h;

	if (read_user(&us, sizeof(us), key->site))
		return pend ? pending_site(key) : SB_SITE_UNREAD;
	if (us.magic != SCOPE_BPF_SITE_MAGIC || us.version != SCOPE_BPF_SITE_VERSION || !us.name) {
		if (begin)
			count(SB_CNT_BAD_SITE, 1);
		return 0;
	}
	fault_in_str((__u64)us.name, sizeof(e->name));
	fault_in_str((__u64)us.file, sizeof(e->file));
	fault_in_str((__u64)us.tags, sizeof(e->tags));
	e = reserve_event(sizeof(*e));
	if (!e) {
		/* The small record that has the recorder read it, with the process held. */
		count(SB_CNT_SITES_UNSENT, 1);
		return pend ? pending_site(key) : SB_SITE_UNREAD;
	}
	e->type = SB_EV_SITE;
	e->tgid = key->tgid;
	e->site = key->site;
	e->line = us.line;
	e->pad = 0;
	e->file[0] = 0;
	e->tags[0] = 0;
	if (read_user_str(e->name, sizeof(e->name), (__u64)us.name) < 0 ||
	    (us.file && read_user_str(e->file, sizeof(e->file), (__u64)us.file) < 0) ||
	    (us.tags && read_user_str(e->tags, sizeof(e->tags), (__u64)us.tags) < 0)) {
		bpf_ringbuf_discard(e, 0);
		return pend ? pending_site(key) : SB_SITE_UNREAD;
	}
	if (!e->name[0]) {
		bpf_ringbuf_discard(e, 0);
		if (begin)
			count(SB_CNT_BAD_SITE, 1);
		return 0;
	}
	h = hash_name(e->name);
	bpf_ringbuf_submit(e, submit_flags());
	bpf_map_update_elem(&sites, key, &h, BPF_ANY);
	return h;
}

/* pend: a site that cannot be read is named by user space (the marker programs). */
static __always_inline __u64 site_name_hash(__u32 tgid, struct sb_proc *proc, __u64 site,
					    bool begin, bool pend)
{
	struct sb_site_key key = { .tgid = tgid, .gen = proc->gen, .site = site };
	__u64 *h = bpf_map_lookup_elem(&sites, &key);

	return h ? *h : capture_site(&key, begin, pend);
}

/*
 * Open a call named h on the thread's stack: false when it is not recorded
 * (no thread slot, or beyond the stack: its end only unwinds the overflow).
 */
static __noinline __u64 fast_extend(struct sb_proc *proc, __u32 tid, __u64 path, __u32 from,
				    __u32 *depth);

/*
 * Frame f at depth d of a fast-path process's thread: its path among the
 * marker calls open around it, as user space nests them (under the fast
 * frames begun since its kernel parent), for the samples taken in it.
 */
static __always_inline void merged_path(struct sb_thread_state *th, struct sb_proc *proc, __u32 tid,
					struct sb_frame *f, __u32 d)
{
	struct sb_frame *up = d ? &th->frames[(d - 1) & (SB_MAX_DEPTH - 1)] : NULL;
	__u64 base = up ? up->mpath : SB_PATH_SEED, ext;
	__u32 from = up ? up->fast_depth : 0, depth;

	ext = fast_extend(proc, tid, base, from, &depth);
	f->mpath = ((ext ? ext : base) ^ f->name_hash) * FNV_PRIME;
	f->fast_depth = depth;
}

/* Frame d of a fast-path process's thread began: user space nests marker calls under it. */
static __noinline void send_kbegin(struct sb_thread_state *th, __u32 tid, __u32 d)
{
	struct sb_kbegin_event *e;
	struct sb_frame *f;

	if (d >= SB_MAX_DEPTH)
		return;
	e = reserve_event(sizeof(*e));
	if (!e) {
		count(SB_CNT_LOST_OTHER, 1);
		return;
	}
	f = &th->frames[d & (SB_MAX_DEPTH - 1)];
	e->type = SB_EV_KBEGIN;
	e->tgid = th->tgid;
	e->tid = tid;
	e->depth = d;
	e->start = f->start;
	e->call_id = f->call_id;
	e->parent_id = d > 0 ? th->frames[(d - 1) & (SB_MAX_DEPTH - 1)].call_id : -1;
	e->name_hash = f->name_hash;
	bpf_ringbuf_submit(e, submit_flags());
}

/*
 * A call id unique in its process. Without atomic fetch-and-add (before 5.12)
 * each CPU counts its own and the ids interleave: CPU c's n-th is
 * n * n_cpus + c. Those kernels run a uprobe's program with preemption off and
 * never sleepable (load.c turns that off too), so no other program of this
 * CPU runs between the count's read and its write.
 */
static __always_inline __s64 next_call_id(struct sb_proc *proc)
{
	__u32 zero = 0;
	__u64 *seq;

	if (use_fetch_add)
		return (__s64)__sync_fetch_and_add(&proc->next_call_id, 1);
	seq = bpf_map_lookup_elem(&call_seq, &zero);
	if (!seq)
		return -1;
	return (__s64)((*seq)++ * n_cpus + bpf_get_smp_processor_id());
}

static __always_inline bool push_frame_on(struct sb_thread_state *th, struct sb_proc *proc,
					  __u32 tid, __u64 h, __u64 site, bool ctr)
{
	struct sb_frame *f;
	__u32 d;

	d = th->depth;
	if (d >= SB_MAX_DEPTH || th->overflow) {
		th->overflow++;
		count(SB_CNT_DEPTH_OVERFLOW, 1);
		return false;
	}
	f = &th->frames[d & (SB_MAX_DEPTH - 1)];
	f->name_hash = h;
	f->path_hash = ((d ? th->frames[(d - 1) & (SB_MAX_DEPTH - 1)].path_hash : SB_PATH_SEED) ^ h) *
		       FNV_PRIME;
	f->site = site;
	f->call_id = next_call_id(proc);
	f->child_ns = 0;
	f->offcpu_ns = 0;
	th->depth = d + 1;
	if (ctr && n_counters)
		ctr_push_frame(tid, d);
	if (proc_fast(proc, th->tgid)) {
		merged_path(th, proc, tid, f, d);
	} else {
		f->mpath = f->path_hash;
		f->fast_depth = 0;
	}
	/* Last, so the time spent above is not charged to the region. */
	f->start = bpf_ktime_get_ns();
	if (proc->fast)
		send_kbegin(th, tid, d);
	return true;
}

static __always_inline bool push_frame(struct sb_proc *proc, __u32 tgid, __u32 tid, __u64 h,
				       __u64 site, __u64 now)
{
	struct sb_thread_state *th = thread_get(tid, tgid, now);

	if (!th) {
		count(SB_CNT_THREADS_FULL, 1);
		return false;
	}
	return push_frame_on(th, proc, tid, h, site, true);
}

/*
 * The name hash of the site a begin marker passes. A loop begins the same
 * region over and over: the thread remembers its last site (in this image of
 * the process), so most begins need no lookup in the shared sites table.
 */
static __always_inline __u64 begin_name_hash(struct sb_thread_state *th, __u32 tgid,
					     struct sb_proc *proc, __u64 site)
{
	__u32 gen = proc->gen;
	__u64 h;

	if (th->last_site == site && th->last_gen == gen && th->last_hash)
		return th->last_hash;
	h = site_name_hash(tgid, proc, site, true, true);
	if (h) {
		th->last_site = site;
		th->last_gen = gen;
		th->last_hash = h;
	}
	return h;
}

/*
 * The current thread's ids: two loads from its task where the kernel hands
 * the task out (cheaper than the helper, which is not inlined), else the helper.
 */
static __always_inline void current_ids(__u32 *tgid, __u32 *tid)
{
	struct task_struct *cur;
	__u64 id;

	if (use_task_btf) {
		cur = bpf_get_current_task_btf();
		*tgid = cur->tgid;
		*tid = cur->pid;
		return;
	}
	id = bpf_get_current_pid_tgid();
	*tgid = id >> 32;
	*tid = (__u32)id;
}

/*
 * One clock read: the call's start, taken last (a new thread's state reads its
 * own). ctr: the counting variant, which reads the thread's counters.
 */
static __always_inline int region_begin_at(__u64 site, bool ctr)
{
	__u32 tgid, tid;
	__u64 h;
	struct sb_thread_state *th;
	struct sb_proc *proc;

	if (!recording)
		return 0;
	current_ids(&tgid, &tid);
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc && !(proc = proc_unseen()))
		return 0;
	th = thread_get(tid, tgid, 0);
	if (!th) {
		count(SB_CNT_THREADS_FULL, 1);
		return 0;
	}
	h = begin_name_hash(th, tgid, proc, site);
	if (h)
		push_frame_on(th, proc, tid, h, site, ctr);
	return 0;
}

/*
 * Two ways into each marker program. libbpf's argument fetch (BPF_USDT) reads
 * the site wherever the probe's note says it is: a call, a map lookup and a
 * kernel read, a quarter of the program's time. The header puts the site in
 * %rax on x86-64; for objects whose every note says it is in the register
 * SB_SITE_REG reads (SB_SITE_ARG of user/record/probes.h), the recorder
 * attaches the _site_reg programs, which load it from the saved registers.
 * Other objects (older headers, other compilers) get the fetch.
 *
 * Each comes twice: plain, sleepable where the kernel allows it, and the
 * counting variant (_ctr, record -e/-g), never sleepable since it reads a
 * perf-event array. The counting variant keeps its task's stack
 * (task_stack.bpf.h): where the kernel has private stacks it is the one
 * loaded, counters or not. The kernel layer loads the pair the recording uses.
 */
SEC("?usdt")
int BPF_USDT(region_begin, void *site)
{
	return region_begin_at((__u64)site, false);
}

SEC("?usdt")
int begin_site_reg(struct pt_regs *ctx)
{
	return region_begin_at(SB_SITE_REG(ctx), false);
}

SEC("?usdt")
int BPF_USDT(region_begin_ctr, void *site)
{
	KEEP_TASK_STACK(ctx);
	return region_begin_at((__u64)site, true);
}

SEC("?usdt")
int begin_site_reg_ctr(struct pt_regs *ctx)
{
	KEEP_TASK_STACK(ctx);
	return region_begin_at(SB_SITE_REG(ctx), true);
}

/*
 * Index of the innermost open frame of thread tid named h, or -1. A global
 * function, verified once on its own: inlined, its loop was walked again on
 * every path of every program that ends a call by name (a third of the
 * verifier's work at start).
 */
__noinline int find_frame(__u32 tid, __u64 h)
{
	struct sb_thread_state *th = bpf_map_lookup_elem(&threads, &tid);
	__u32 d, n, i;

	if (!th)
		return -1;
	d = th->depth;
	/*
	 * From the top down, leaving at the bottom: each turn ends one way or
	 * goes on, so 6.1's verifier walks 64 turns, not every depth's own path.
	 */
	for (n = 0; n < SB_MAX_DEPTH; n++) {
		if (n >= d)
			break;
		i = (d - 1 - n) & (SB_MAX_DEPTH - 1);
		if (th->frames[i].name_hash == h)
			return (int)i;
	}
	return -1;
}

static __always_inline void emit_call(struct sb_thread_state *th, __u32 tgid, __u32 tid,
				      int i, __u64 now, bool ctr)
{
	struct sb_frame *f = &th->frames[i & (SB_MAX_DEPTH - 1)];
	struct sb_call_event *e;
	int counted = 0;

	if (ctr && n_counters)
		counted = ctr_pop_frame(tid, i);
	if (ctr && n_counters)
		e = reserve_event(sizeof(struct sb_call_ctr_event));
	else
		e = reserve_event(sizeof(*e));
	if (!e) {
		count(SB_CNT_LOST_CALLS, 1);
		return;
	}
	e->type = SB_EV_CALL;
	e->tgid = tgid;
	e->tid = tid;
	e->depth = i;
	e->site = f->site;
	e->start = f->start;
	e->end = now;
	e->call_id = f->call_id;
	e->parent_id = i > 0 ? th->frames[(i - 1) & (SB_MAX_DEPTH - 1)].call_id : -1;
	e->child_ns = f->child_ns;
	e->offcpu_ns = f->offcpu_ns;
	e->path_hash = f->path_hash;
	e->parent_path = i > 0 ? th->frames[(i - 1) & (SB_MAX_DEPTH - 1)].path_hash : 0;
	e->name_hash = f->name_hash;
	if (ctr && n_counters)
		ctr_fill((struct sb_call_ctr_event *)e, tid, counted);
	bpf_ringbuf_submit(e, submit_flags());
}

/* Close frame i: its call is sent, its time passes to its parent, frames above are dropped. */
static __always_inline void pop_frame_on(struct sb_thread_state *th, __u32 tgid, __u32 tid, int i,
					 __u64 now, bool ctr)
{
	struct sb_frame *f, *parent;

	/* Frames above the match lost their end (a jump out of a region): drop them. */
	if ((__u32)i + 1 < th->depth)
		count(SB_CNT_OPEN_DROPPED, th->depth - i - 1);
	emit_call(th, tgid, tid, i, now, ctr);
	f = &th->frames[i & (SB_MAX_DEPTH - 1)];
	if (i > 0) {
		parent = &th->frames[(i - 1) & (SB_MAX_DEPTH - 1)];
		parent->child_ns += now - f->start;
		parent->offcpu_ns += f->offcpu_ns;
	}
	th->depth = i;
}

/* pop_frame_on for the library programs (MPI, OpenMP, CUDA host): never sleepable, they count. */
static __always_inline void pop_frame(struct sb_thread_state *th, __u32 tgid, __u32 tid, int i,
				      __u64 now)
{
	pop_frame_on(th, tgid, tid, i, now, true);
}

/* User space names the regions that were already open when tracing began. */
static __always_inline void emit_unmatched(__u32 tgid, __u32 tid, __u64 site, __u64 h)
{
	struct sb_unmatched_event *e;

	count(SB_CNT_UNMATCHED_END, 1);
	e = reserve_event(sizeof(*e));
	if (!e) {
		count(SB_CNT_LOST_OTHER, 1);
		return;
	}
	e->type = SB_EV_UNMATCHED;
	e->tgid = tgid;
	e->tid = tid;
	e->pad = 0;
	e->site = site;
	e->name_hash = h;
	bpf_ringbuf_submit(e, submit_flags());
}

static __always_inline int region_end_at(__u64 site, bool ctr)
{
	__u64 now = bpf_ktime_get_ns(), h;
	__u32 tgid, tid;
	struct sb_thread_state *th;
	struct sb_proc *proc;
	__u32 d;
	int i;

	if (!recording)
		return 0;
	current_ids(&tgid, &tid);
	/*
	 * Fast path. A thread has state only while it lives in a traced process,
	 * so the common end, at the top frame's site, needs no lookup of its process.
	 */
	th = bpf_map_lookup_elem(&threads, &tid);
	if (th && th->tgid == tgid && !th->overflow) {
		d = th->depth;
		if (d > 0 && d <= SB_MAX_DEPTH &&
		    th->frames[(d - 1) & (SB_MAX_DEPTH - 1)].site == site) {
			pop_frame_on(th, tgid, tid, (int)d - 1, now, ctr);
			return 0;
		}
	}
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc)
		return 0;
	if (!th) {
		/*
		 * A thread traced mid-region may end it before its first context
		 * switch: that end is unmatched. No slot: its begin was counted.
		 */
		if (!thread_get(tid, tgid, now))
			return 0;
		h = site_name_hash(tgid, proc, site, false, true);
		if (h)
			emit_unmatched(tgid, tid, site, h);
		return 0;
	}
	if (th->overflow) {
		th->overflow--;
		return 0;
	}
	d = th->depth;
	/*
	 * A scoped region ends at the site it began with (the check above, unless
	 * the state's process differed). One address in one process image always
	 * names the same region (frames are cleared at exec, and an object cannot
	 * be unloaded while its scoped region runs), so this is the frame the name
	 * match would find.
	 */
	if (d > 0 && d <= SB_MAX_DEPTH && th->frames[(d - 1) & (SB_MAX_DEPTH - 1)].site == site) {
		i = (int)d - 1;
	} else {
		/* 0: an invalid descriptor (its begin counted it) or a lost site record. */
		h = site_name_hash(tgid, proc, site, false, true);
		if (!h)
			return 0;
		i = find_frame(tid, h);
		if (i < 0) {
			emit_unmatched(tgid, tid, site, h);
			return 0;
		}
	}
	pop_frame_on(th, tgid, tid, i, now, ctr);
	return 0;
}

SEC("?usdt")
int BPF_USDT(region_end, void *site)
{
	return region_end_at((__u64)site, false);
}

SEC("?usdt")
int end_site_reg(struct pt_regs *ctx)
{
	return region_end_at(SB_SITE_REG(ctx), false);
}

SEC("?usdt")
int BPF_USDT(region_end_ctr, void *site)
{
	KEEP_TASK_STACK(ctx);
	return region_end_at((__u64)site, true);
}

SEC("?usdt")
int end_site_reg_ctr(struct pt_regs *ctx)
{
	KEEP_TASK_STACK(ctx);
	return region_end_at(SB_SITE_REG(ctx), true);
}

/* Note the stop in the stops map; returns its sequence number for the sync record. */
static __always_inline __u32 note_stop(__u32 tgid)
{
	struct sb_stop *st = bpf_map_lookup_elem(&stops, &tgid), fresh = { 0 };

	fresh.time = bpf_ktime_get_ns();
	fresh.seq = st ? st->seq + 1 : 1;
	if (!fresh.seq)
		fresh.seq = 1;
	if (bpf_map_update_elem(&stops, &tgid, &fresh, BPF_ANY))
		return 0;
	return fresh.seq;
}

/*
 * Stop the current process until user space answers the record that carries
 * the returned sequence number (0: not stopped). Never while the recorder is
 * not answering: a stop nobody hears of would never be undone.
 */
static __always_inline __u32 hold_current(__u32 tgid)
{
	__u32 seq;

	if (!stop_on_sync || (__s64)(bpf_ktime_get_ns() - heartbeat_ns) >= (__s64)SB_HEARTBEAT_STALE_NS)
		return 0;
	seq = note_stop(tgid);
	if (seq)
		bpf_send_signal(SIGSTOP);
	return seq;
}

#include "fast.bpf.h"
#include "call_frames.bpf.h"
#include "mpi.bpf.h"
#include "omp.bpf.h"
#include "cuda.bpf.h"
#include "cuda_host.bpf.h"

/*
 * The region path a sample or an off-CPU interval of the thread names: its
 * innermost kernel frame's and, in a fast-path process, the marker calls
 * begun since (or, without kernel frames, the marker calls alone).
 */
static __always_inline __u64 sample_path(struct sb_thread_state *th, struct sb_proc *proc,
					 __u32 tid)
{
	__u32 d = th ? th->depth : 0, depth;
	struct sb_frame *f;
	__u64 path;

	if (d > SB_MAX_DEPTH)
		return 0;
	if (!proc->fast)
		return d ? th->frames[(d - 1) & (SB_MAX_DEPTH - 1)].path_hash : 0;
	if (!d)
		return fast_path(proc, tid);
	f = &th->frames[(d - 1) & (SB_MAX_DEPTH - 1)];
	path = fast_extend(proc, tid, f->mpath, f->fast_depth, &depth);
	return path ? path : f->mpath;
}

static __always_inline void add_offcpu(struct sb_thread_state *th, __u32 tgid, __u32 tid, __u64 ns)
{
	struct sb_sample_key key = { .tgid = tgid, .tid = tid, .ustack = th->off_ustack,
				     .kstack = th->off_kstack, .path = th->off_path };
	struct sb_offcpu_value *v = bpf_map_lookup_elem(&offcpu_samples, &key), one = { 1, ns };

	if (v) {
		__sync_fetch_and_add(&v->count, 1);
		__sync_fetch_and_add(&v->ns, ns);
		return;
	}
	if (bpf_map_update_elem(&offcpu_samples, &key, &one, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&offcpu_samples, &key))
		count(SB_CNT_LOST_SAMPLES, 1);
}

/*
 * The current user (BPF_F_USER_STACK) or kernel stack, kept in the stacks map;
 * returns its key, 0 when there is none or no room (counted).
 */
static __always_inline __u64 take_stack(void *ctx, __u64 flags)
{
	__u64 h = 0xcbf29ce484222325ULL ^ flags;	/* FNV-1a; user and kernel stacks apart */
	struct sb_stack_ips *s;
	__u32 zero = 0;
	long n;
	int i;

	s = bpf_map_lookup_elem(&stack_scratch, &zero);
	if (!s)
		return 0;
	/* The kernel zeroes what it does not fill: the hash reads up to the first 0. */
	n = bpf_get_stack(ctx, s->ip, sizeof(s->ip), flags);
	if (n <= 0)
		return 0;
	for (i = 0; i < SB_MAX_STACK_DEPTH && s->ip[i]; i++)
		h = (h ^ s->ip[i]) * 0x100000001b3ULL;
	h = h ?: 1;
	if (bpf_map_lookup_elem(&stacks, &h))
		return h;
	if (bpf_map_update_elem(&stacks, &h, s, BPF_NOEXIST) && !bpf_map_lookup_elem(&stacks, &h)) {
		count(SB_CNT_LOST_STACKS, 1);
		return 0;
	}
	return h;
}

/* Count one sample under key; false when the map has no room for it (counted as lost). */
static __always_inline bool sum_sample(const struct sb_sample_key *key)
{
	__u64 one = 1, *n = bpf_map_lookup_elem(&cpu_samples, key);

	if (n) {
		__sync_fetch_and_add(n, 1);
		return true;
	}
	if (!bpf_map_update_elem(&cpu_samples, key, &one, BPF_NOEXIST))
		return true;
	/* Another CPU inserted the key first. */
	n = bpf_map_lookup_elem(&cpu_samples, key);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return true;
	}
	count(SB_CNT_LOST_SAMPLES, 1);
	return false;
}

/*
 * The sample on its own, for the timeline. No wake-up: the recorder reads the
 * ring every turn of its loop anyway, and a wake-up per sample would cost
 * more than the sample.
 */
static __always_inline void send_sample(const struct sb_sample_key *key, __u64 now)
{
	struct sb_sample_event *e = bpf_ringbuf_reserve(&sample_events, sizeof(*e), 0);

	if (!e) {
		count(SB_CNT_TIMELINE_LOST, 1);
		return;
	}
	e->key = *key;
	e->time = now;
	e->cpu = bpf_get_smp_processor_id();
	e->pad = 0;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/* A CPU sample: counted per (thread, stacks, region path) in the kernel, and sent for its time. */
SEC("?perf_event")	/* loaded only when the sampler asks for it */
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct sb_thread_state *th;
	struct sb_sample_key key;
	struct sb_proc *proc;

	if (!recording)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc)
		return 0;
	now = bpf_ktime_get_ns();
	th = bpf_map_lookup_elem(&threads, &tid);
	key.tgid = tgid;
	key.tid = tid;
	key.path = sample_path(th, proc, tid);
	key.ustack = take_stack(ctx, BPF_F_USER_STACK);
	key.kstack = kernel_stacks ? take_stack(ctx, 0) : 0;
	if (sum_sample(&key))
		send_sample(&key, now);
	return 0;
}

/*
 * A switching task's state. An exiting task still switches after
 * sched_process_exit deleted its state (its last switch out, at the least):
 * recreating it there would leak one entry per thread ended until the table is
 * full. One load of a field beside the tgid just read.
 */
static __always_inline struct sb_thread_state *switch_thread(struct task_struct *t, __u32 tgid,
							     __u64 now)
{
	__u32 tid = t->pid;

	if (t->flags & PF_EXITING)
		return bpf_map_lookup_elem(&threads, &tid);
	return thread_get(tid, tgid, now);
}

/* TASK_STOPPED and TASK_DEAD of include/linux/sched.h: vmlinux.h has no macros. */
#define SB_TASK_STOPPED 0x4
#define SB_TASK_DEAD 0x80

/* The task's state field, named state before 5.14. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline long task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/*
 * A thread stopping while a sync of ours holds its process (the stops entry
 * lives from sync_process until user space lets the process go): the
 * recorder holding it while probes attach, at exec or dlopen, is not time the
 * program waited, so its off-CPU clock does not start.
 */
static __always_inline bool held_by_us(struct task_struct *t, __u32 tgid)
{
	return (task_state(t) & SB_TASK_STOPPED) && bpf_map_lookup_elem(&stops, &tgid);
}

static __always_inline struct sb_proc_event *reserve_proc(__u32 type, __u32 tgid, __u32 ppid,
							   __u32 reason, __s32 exit_code)
{
	struct sb_proc_event *e = reserve_event(sizeof(*e));

	if (!e) {
		count(SB_CNT_LOST_OTHER, 1);
		return NULL;
	}
	e->type = type;
	e->tgid = tgid;
	e->ppid = ppid;
	e->reason = reason;
	e->time = bpf_ktime_get_ns();
	e->exit_code = exit_code;
	e->stop_seq = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

static __always_inline void emit_proc(__u32 type, __u32 tgid, __u32 ppid, __u32 reason,
				      __s32 exit_code)
{
	struct sb_proc_event *e = reserve_proc(type, tgid, ppid, reason, exit_code);

	/* Process events are rare and the collector may be waiting on them: wake it. */
	if (e)
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

static __always_inline void emit_thread_exit(struct sb_thread_state *th, __u32 tid, __u64 now)
{
	struct sb_thread_event *e = reserve_event(sizeof(*e));

	if (!e) {
		count(SB_CNT_LOST_OTHER, 1);
		return;
	}
	e->type = SB_EV_THREAD_EXIT;
	e->tgid = th->tgid;
	e->tid = tid;
	e->open_calls = th->depth + th->overflow;
	e->time = now;
	e->first_ns = th->first_ns;
	e->cpu_ns = th->cpu_ns + (th->on_since ? now - th->on_since : 0);
	e->offcpu_ns = th->offcpu_ns;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, submit_flags());
}

/*
 * A thread's end: its record, its state gone, and with its process's last
 * thread the process's. Only one of the threads ending together ends the
 * process: the one whose delete took it out of procs.
 */
static __always_inline void thread_ended(struct task_struct *p, __u32 tgid, __u32 tid,
					 struct sb_thread_state *th, bool traced, __u64 now)
{
	if (th) {
		/* Calls beyond the stack were counted as depth overflow already. */
		if (th->depth)
			count(SB_CNT_OPEN_DROPPED, th->depth);
		emit_thread_exit(th, tid, now);
		bpf_map_delete_elem(&threads, &tid);
	}
	ctr_thread_note(tgid, tid, 1);
	bpf_map_delete_elem(&mpi_pending, &tid);
	if (traced && BPF_CORE_READ(p, signal, live.counter) == 0 &&
	    !bpf_map_delete_elem(&procs, &tgid)) {
		emit_proc(SB_EV_PROC_EXIT, tgid, 0, 0, BPF_CORE_READ(p, exit_code));
		bpf_map_update_elem(&ended_procs, &tgid, &now, BPF_ANY);
		if (fast_adopting)
			bpf_map_delete_elem(&fast_adopted, &tgid);
	}
}

/*
 * A task first switched in (it has not run a nanosecond) that no fork hook
 * marked: a process of a traced parent gets its procs entry and a fork
 * record, a thread of a traced process is marked. Creating task storage here,
 * under the run queue's lock, must not allocate from the slab: where it might
 * (mark_at_switch false), the record says the task and user space marks it
 * through a pidfd. 1 when the task is marked now.
 */
static __always_inline __u32 fork_unseen(struct task_struct *t)
{
	__u32 tgid = t->tgid, ptgid = 0;
	bool thread = (__u32)t->pid != tgid;
	struct sb_proc fresh = {};
	struct sb_proc_event *e;

	if (t->se.sum_exec_runtime || (t->flags & PF_KTHREAD))
		return 0;
	if (thread) {
		if (!bpf_map_lookup_elem(&procs, &tgid))
			return 0;
	} else {
		ptgid = BPF_CORE_READ(t, real_parent, tgid);
		if (!bpf_map_lookup_elem(&procs, &ptgid) ||
		    bpf_map_update_elem(&procs, &tgid, &fresh, BPF_NOEXIST))
			return 0;
	}
	count(SB_CNT_FORKS_LATE, 1);
	if (mark_at_switch)
		mark_task(t);
	if (thread && mark_at_switch)
		return 1;
	e = reserve_proc(SB_EV_PROC_FORK, tgid, ptgid, thread ? SB_FORK_LATE_THREAD : SB_FORK_LATE, 0);
	if (e) {
		/* The parent's name, as on_fork's: the child's is its parent's until it execs. */
		__builtin_memcpy(e->comm, t->comm, sizeof(e->comm));
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	}
	return mark_at_switch;
}

/*
 * The calling process, untraced at a marker (or its fast-path memory) though
 * its parent is traced: no hook saw it begin. Natively, with the fork hook
 * skipped on every run (SCOPE_BPF_KERNEL_SKIP), 3 children in 4 000 ran their
 * first slice with no run of the scheduler hook for that switch in, and none
 * counted skipped (cause not found; docs/KERNELS.md). Tracing it here let the
 * 7.3 guest hang on a child held and never answered, so its calls are
 * counted lost instead, never silently: once per call (kernel path) or per
 * memory (fast path).
 */
static __always_inline struct sb_proc *proc_unseen(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u32 ptgid = BPF_CORE_READ(t, real_parent, tgid);

	if (recording && bpf_map_lookup_elem(&procs, &ptgid))
		count(SB_CNT_UNSEEN, 1);
	return NULL;
}

/* A traced task's last switch out: state still here means the exit hook missed its exit. */
static __always_inline void exit_unseen(struct task_struct *t, __u32 tgid, bool traced, __u64 now)
{
	__u32 tid = t->pid;
	struct sb_thread_state *th = bpf_map_lookup_elem(&threads, &tid);

	if (!th)
		return;
	count(SB_CNT_EXITS_LATE, 1);
	thread_ended(t, tgid, tid, th, traced, now);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 prev_ours = task_marked(prev), next_ours = task_marked(next);
	__u32 prev_tgid, next_tgid, d;
	struct sb_thread_state *th;
	struct sb_proc *proc;
	__u64 now, delta;

	if (!recording)
		return 0;
	if (!next_ours)
		next_ours = fork_unseen(next);
	if (!prev_ours && !next_ours)
		return 0;
	prev_tgid = prev->tgid;
	next_tgid = next->tgid;
	now = bpf_ktime_get_ns();
	proc = prev_ours ? bpf_map_lookup_elem(&procs, &prev_tgid) : NULL;
	if (prev_ours && (task_state(prev) & SB_TASK_DEAD)) {
		exit_unseen(prev, prev_tgid, proc, now);
	} else if (proc) {
		th = switch_thread(prev, prev_tgid, now);
		if (th) {
			/*
			 * The name the recorder gives a thread still in the map at the
			 * end that /proc no longer shows (its exit record never came:
			 * seen under emulation on 7.3).
			 */
			__builtin_memcpy(th->comm, prev->comm, sizeof(th->comm));
			th->off_since = held_by_us(prev, prev_tgid) ? 0 : now;
			if (th->on_since)
				th->cpu_ns += now - th->on_since;
			th->on_since = 0;
			if (offcpu_stacks && th->off_since) {
				/* prev is still current here: these are its stacks. */
				th->off_ustack = take_stack(ctx, BPF_F_USER_STACK);
				th->off_kstack = take_stack(ctx, 0);
				th->off_path = sample_path(th, proc, prev->pid);
			}
		}
	}
	if (!next_ours)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &next_tgid);
	if (!proc)
		return 0;
	th = switch_thread(next, next_tgid, now);
	if (!th)
		return 0;
	th->on_since = now;
	if (!th->off_since)
		return 0;
	delta = now - th->off_since;
	if (proc_fast(proc, next_tgid))
		fast_offcpu(next_tgid, next->pid, th->off_since, now);
	th->off_since = 0;
	th->offcpu_ns += delta;
	if (offcpu_stacks && delta >= offcpu_min_ns)
		add_offcpu(th, next_tgid, next->pid, delta);
	d = th->depth;
	if (d > 0 && d <= SB_MAX_DEPTH)
		th->frames[(d - 1) & (SB_MAX_DEPTH - 1)].offcpu_ns += delta;
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct sb_proc fresh = {};

	if (test_skip & SB_SKIP_FORK)
		return 0;
	if (!recording || !bpf_map_lookup_elem(&procs, &ptgid))
		return 0;
	/* A thread or a process: the scheduler hook follows it from its first switch. */
	mark_task(child);
	if (child->pid != child->tgid)
		return 0;
	bpf_map_update_elem(&procs, &ctgid, &fresh, BPF_NOEXIST);
	emit_proc(SB_EV_PROC_FORK, ctgid, ptgid, 0, 0);
	return 0;
}

/*
 * A new image or new objects: the collector attaches their probes while the
 * process waits. The process is stopped only once its sync record is reserved
 * and its stop noted: a stop nobody hears of would never be undone.
 */
static __always_inline void sync_process(__u32 tgid, __u32 reason)
{
	struct sb_proc_event *e;

	if (!recording)
		return;
	e = reserve_proc(SB_EV_SYNC, tgid, 0, reason, 0);
	if (!e)
		return;
	e->stop_seq = hold_current(tgid);
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

static __always_inline bool comm_wanted(struct task_struct *p)
{
	char comm[SB_COMM_LEN];
	int i;

	if (!comm_filter[0])
		return true;
	if (bpf_probe_read_kernel(comm, sizeof(comm), p->comm))
		return false;
	for (i = 0; i < SB_COMM_LEN; i++) {
		if (comm[i] != comm_filter[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/*
 * record -a: an untraced process exec'd. A file user space said never to
 * trace costs a lookup; any other holds the process at a candidate sync, the
 * file it runs noted for user space, which decides (and traces it) before it
 * runs a single instruction of the new image.
 */
static __always_inline void exec_candidate(struct task_struct *p, struct linux_binprm *bprm,
					   __u32 tgid)
{
	struct sb_file_key key = {};
	__u32 *verdict;

	if (!comm_wanted(p))
		return;
	key.dev = BPF_CORE_READ(bprm, file, f_inode, i_sb, s_dev);
	key.ino = BPF_CORE_READ(bprm, file, f_inode, i_ino);
	verdict = bpf_map_lookup_elem(&exe_verdicts, &key);
	if (verdict ? *verdict == SB_EXE_NEVER : exe_ino && key.ino != exe_ino)
		return;
	if (bpf_map_update_elem(&exec_files, &tgid, &key, BPF_ANY))
		return;
	sync_process(tgid, SB_SYNC_CANDIDATE);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid, tid = p->pid;
	struct sb_thread_state *th;
	struct sb_proc *proc;

	if (!recording)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc) {
		if (trace_all)
			exec_candidate(p, bprm, tgid);
		return 0;
	}
	proc->gen++;
	proc->fast_hdr = 0;	/* the new image makes memory of its own */
	if (fast_adopting)
		bpf_map_delete_elem(&fast_adopted, &tgid);
	th = bpf_map_lookup_elem(&threads, &tid);
	if (th && th->depth) {
		count(SB_CNT_OPEN_DROPPED, th->depth);
		th->depth = 0;
		th->overflow = 0;
	}
	sync_process(tgid, SB_SYNC_EXEC);
	return 0;
}

/*
 * Attached to the dynamic loader's _dl_debug_state: called whenever the link map
 * changes (before and after each load or unload). A new site generation, since
 * an object loaded where an unloaded one was reuses its descriptor addresses.
 */
SEC("uprobe")
int on_dl_state(struct pt_regs *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct sb_proc *proc = bpf_map_lookup_elem(&procs, &tgid);

	if (!proc)
		return 0;
	__sync_fetch_and_add(&proc->gen, 1);
	sync_process(tgid, SB_SYNC_DLOPEN);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid, tid = p->pid;
	__u64 now = bpf_ktime_get_ns();
	struct sb_thread_state *th;
	__u64 *ended;
	bool traced;

	if (!recording || (test_skip & SB_SKIP_EXIT))
		return 0;
	traced = bpf_map_lookup_elem(&procs, &tgid);
	ended = traced ? NULL : bpf_map_lookup_elem(&ended_procs, &tgid);
	/*
	 * A thread whose process has ended already (ended_procs): it still says
	 * it ended, and its name, whether it had state (calls) or not (a
	 * fast-path thread).
	 */
	if (!traced && (!ended || now - *ended > ENDED_GRACE_NS))
		return 0;
	th = thread_get(tid, tgid, now);
	thread_ended(p, tgid, tid, th, traced, now);
	return 0;
}
