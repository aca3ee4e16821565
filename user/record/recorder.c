/*
 * The recorder: load the BPF programs, follow the targets, run the data
 * sources (record/sources/) through their life cycle, write the profile.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "io/h5write.h"
#include "model/health.h"
#include "record/collect.h"
#include "record/command_env.h"
#include "record/detach.h"
#include "record/guardian.h"
#include "record/held.h"
#include "record/kernel/access.h"
#include "record/kernel/load.h"
#include "record/launch.h"
#include "record/loop_wait.h"
#include "record/outpath.h"
#include "record/recorder.h"
#include "record/transport/kernel_ring.h"
#include "record/rotate.h"
#include "record/spill.h"
#include "record/source.h"
#include "record/sources/cuda_host_source.h"
#include "record/sources/regions.h"
#include "record/sources/sources.h"
#include "record/stdout_profile.h"
#include "record/stop_signal.h"
#include "record/stops_shared.h"
#include "record/syswide.h"
#include "record/sysinfo.h"
#include "region.h"
#include "region.skel.h"
#include "util/text_format.h"

#define SPILL_BUDGET (24u << 20)
/*
 * The loop sleeps this long at most while nothing wakes it (loop_wait.h):
 * records batched in the kernel's ring wait that long, and the heartbeat is a
 * lease for that long. Where the target's exit cannot wake it, POLL_MS.
 */
#define IDLE_WAIT_NS 1000000000LL
#define POLL_MS 20
#define STATUS_NS 1000000000LL		/* status line rewritten in place */
#define STATUS_SHARED_NS 10000000000LL	/* status as whole lines, beside the target's output */
/* Programs that read the recording flag before it was cleared are done within this. */
#define SETTLE_US 5000
/*
 * How long the last read waits for a record reserved and not yet submitted
 * (microseconds, unless a program never finishes it; a preempted vCPU under
 * emulation held one for tens of milliseconds).
 */
#define RING_DRAIN_NS 1000000000LL
/*
 * How long one read of the ring may go on. libbpf reads while records come,
 * and a process answered at each sync writes its next one at once (a dlopen
 * storm): a read without an end never let the loop see a signal or the deadline.
 */
#define READ_BUDGET_NS 50000000LL
/*
 * A record held this long was never finished (a program holds one for
 * microseconds); held past HELD_PAUSE_NS, the loop pauses instead of polling
 * a ring that is always ready and never readable.
 */
#define RING_STALL_NS 2000000000LL
#define HELD_PAUSE_NS 1000000L
#define READ_BUDGET_EVERY 16
#define READ_YIELD (-EAGAIN)

struct recorder {
	struct record_opts o;
	struct ring_buffer *rb;
	struct sb_ring_reader ring;	/* reads rb up to a point */
	struct sb_loop_wait wait;	/* the recording loop's sleep */
	uint64_t records_read;	/* from the ring: a heartbeat every HEARTBEAT_EVERY */
	int64_t read_until_ns;	/* this read of the ring yields then (READ_BUDGET_NS) */
	struct sb_collector coll;
	struct sb_sources sources;
	struct sb_source_env env;	/* what the sources see; env.skel is the BPF object */
	struct sb_kernel kernel;	/* the BPF object's loader, the only holder of its pointers */
	struct sb_child child;
	pid_t root;
	int root_pidfd;		/* -p: readable once the process has exited, reaped or not */
	char root_name[64];	/* -p: its name when record began */
	bool root_gone;		/* -p: it exited before anything could be attached */
	struct sb_guardian guardian;	/* resumes held processes if this one dies */
	struct sb_detach access_probe;	/* the kernel layer's test uprobe (kernel/access.h) */
	struct sb_stdout_profile to_stdout;	/* -o -: written here, then copied out */
	struct sb_syswide sys;	/* -a: which processes are traced */
	struct sb_stops_shared shared;	/* other recorders that may hold our processes */
	uint64_t ring_stalls;	/* times the ring stood at a record never finished */
	bool ring_stalled;	/* it stands at one now */
	bool stopping;		/* recording ended: syncs are only answered, not attached */
	bool shared_tty;	/* the target may write to our terminal */
	bool root_exited;
	int root_status;
	int64_t start_ns;
	/* CLOCK_REALTIME - CLOCK_MONOTONIC at start and end: merge aligns nodes by them. */
	int64_t clock_offset_start;
	int64_t clock_offset_end;
	int failed;		/* a collector error: stop, still write */
	char *tmp_dir;		/* the output's folder: the collector's and sources' temporary files */
	/* record --rotate: o.output is the current file's path, out_tmpl -o as given (%n). */
	struct sb_rotation rot;
	const char *out_tmpl;
	uint64_t rotated_calls;		/* calls in the files already written */
	uint64_t rotated_over_max;	/* and calls over --max-size in them */
	char *rot_path;			/* the current file's path, o.output */
	bool *rot_region_used;		/* by the collector's region number: called in some file */
	size_t rot_regions;		/* its length */
};

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Read back to back, the monotonic clock between two real-time readings, halving the error. */
static int64_t realtime_offset(void)
{
	int64_t rt0 = clock_ns(CLOCK_REALTIME), mono = clock_ns(CLOCK_MONOTONIC);
	int64_t rt1 = clock_ns(CLOCK_REALTIME);

	return rt0 + (rt1 - rt0) / 2 - mono;
}

void record_say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "scope-bpf record: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Catch what the kernel would reject before loading, so the message says why. 0 or 1. */
static int check_system(void)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		record_say("this kernel has no BTF (/sys/kernel/btf/vmlinux is missing): scope-bpf "
			   "needs Linux >= 5.10 built with CONFIG_DEBUG_INFO_BTF=y");
		return 1;
	}
	return 0;
}

/* 1 MiB per CPU, a power of two (as ring buffers must be) within the bounds. */
static void size_ring_buffer(struct region_bpf *skel)
{
	int ncpu = libbpf_num_possible_cpus();
	__u32 bytes = SB_RINGBUF_MIN;

	while (bytes < SB_RINGBUF_MAX && ncpu > 0 && bytes < ((__u32)ncpu << 20))
		bytes <<= 1;
	bpf_map__set_max_entries(skel->maps.events, bytes);
	skel->rodata->wakeup_bytes = bytes / 8;
}

/* The recorder's own part of the object's configuration: replayed by the kernel layer. */
static int configure_base(struct region_bpf *skel, void *ctx)
{
	struct recorder *r = ctx;

	skel->rodata->stop_on_sync = true;
	sb_syswide_configure(&r->o, skel);
	size_ring_buffer(skel);
	return 0;
}

/* 0, or after saying why 1 (2: a SCOPE_BPF_KERNEL_OFF naming no feature). */
static int load_bpf(struct recorder *r)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	struct sb_error e = { { 0 } };
	int err;

	/* Kernels before 5.11 charge BPF maps to RLIMIT_MEMLOCK. */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	sb_launch_raise_files();
	r->env.kernel = &r->kernel;
	r->kernel.verbose = r->o.verbose;
	err = sb_kernel_load(&r->kernel, &r->sources, configure_base, r, &e);
	r->env.skel = r->kernel.skel;
	if (err == -EPERM || err == -EACCES) {
		record_say("loading BPF programs needs root: run with sudo (docs/PRIVILEGES.md)");
		return 1;
	}
	/* Loaded, yet every probe would be refused: said now, not after the whole run. */
	if (!err && sb_kernel_uprobe_access(&r->access_probe, &e)) {
		record_say("%s (docs/PRIVILEGES.md)", e.msg);
		return 1;
	}
	if (err) {
		record_say("%s", e.msg);
		return err == -EINVAL && strstr(e.msg, SB_KERNEL_OFF_ENV) ? SB_EXIT_USAGE : 1;
	}
	if (r->o.verbose)
		sb_kernel_report(&r->kernel, "scope-bpf record: ");
	/* Before anything is attached that could stop a process. */
	if (sb_guardian_start(&r->guardian, r->env.skel, &e)) {
		record_say("%s", e.msg);
		return 1;
	}
	err = region_bpf__attach(r->env.skel);
	if (err) {
		record_say("attaching the scheduler tracepoints failed: %s", strerror(-err));
		return 1;
	}
	if (sb_sources_start(&r->sources, &e)) {
		record_say("%s", e.msg);
		return 1;
	}
	return 0;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* Linux 6.9: a pidfd for a thread, not only a leader */
#endif

/*
 * Mark the threads pid has now as traced for the scheduler hook (the kernel
 * side's traced_tasks, keyed by pidfd). Best effort: a thread this misses,
 * or a kernel without thread pidfds, is marked at its first event instead.
 */
static void mark_threads(struct recorder *r, pid_t pid)
{
	int map = bpf_map__fd(r->env.skel->maps.traced_tasks), fd;
	struct dirent *d;
	char path[64];
	__u32 one = 1;
	DIR *dir;

	if (!r->kernel.feat.has[SB_KF_TASK_STORAGE])
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		fd = r->kernel.feat.has[SB_KF_PIDFD_THREAD] ?
		     (int)syscall(SYS_pidfd_open, atoi(d->d_name), PIDFD_THREAD) : -1;
		if (fd < 0 && atoi(d->d_name) == pid)
			fd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (fd < 0)
			continue;
		bpf_map_update_elem(map, &fd, &one, BPF_ANY);
		close(fd);
	}
	closedir(dir);
}

static int trace_process(struct recorder *r, pid_t pid, pid_t ppid)
{
	struct sb_proc fresh = { 0 };
	__u32 key = (__u32)pid;

	if (bpf_map_update_elem(bpf_map__fd(r->env.skel->maps.procs), &key, &fresh, BPF_NOEXIST) &&
	    errno != EEXIST)
		return -errno;
	mark_threads(r, pid);
	return sb_collector_add_process(&r->coll, pid, ppid, now_ns());
}

/*
 * Under scope-bpfd, whether a process of the target's tree is still the
 * user's: one that exec'd a setuid program, or was one, is not followed.
 */
static bool may_follow(const struct recorder *r, pid_t pid)
{
	const struct sb_daemon_target *t = r->o.daemon_target;

	return !t || !t->may_trace || t->may_trace(pid, t->uid);
}

static void let_go(struct recorder *r, pid_t pid)
{
	__u32 key = (__u32)pid;

	bpf_map_delete_elem(bpf_map__fd(r->env.skel->maps.procs), &key);
	record_say("process %d: runs with rights other than yours (a setuid program?): not "
		   "recorded", (int)pid);
}

/* -a: an untraced process exec'd and is held: whether it is one of ours, and if so trace it. */
static bool candidate_traced(struct recorder *r, pid_t pid)
{
	int ret;

	if (!sb_syswide_exec(&r->sys, pid)) {
		if (r->o.verbose)
			record_say("process %d: held at its exec, not traced", (int)pid);
		return false;
	}
	ret = trace_process(r, pid, 0);
	if (ret) {
		if (r->o.verbose)
			record_say("process %d: cannot trace it: %s", (int)pid, strerror(-ret));
		return false;
	}
	sb_syswide_traced(&r->sys);
	if (r->o.verbose)
		record_say("process %d: traced", (int)pid);
	return true;
}

/* A traced process exec'd or loaded objects and may be stopped: attach, then let it go. */
static void on_sync(void *ctx, pid_t pid, int reason, uint32_t stop_seq)
{
	struct sb_proc_change ch = { .what = SB_PROC_SYNC, .pid = pid };
	struct recorder *r = ctx;
	struct sb_error err = { { 0 } };
	bool ours = reason != SB_SYNC_CANDIDATE;

	/* Once recording has ended a queued sync is only answered: the probes are going. */
	if (!r->stopping) {
		if (!ours)
			ours = candidate_traced(r, pid);
		if (ours && !may_follow(r, pid)) {
			let_go(r, pid);
			ours = false;
		}
		if (ours && sb_sources_process(&r->sources, &ch, &err) < 0 && r->o.verbose)
			record_say("%s", err.msg);
		sb_guardian_heartbeat(r->env.skel);
	}
	if (stop_seq)
		sb_stops_resume(&r->shared, pid, stop_seq);
}

static void resume_held(struct sb_source_env *env, pid_t pid, uint32_t stop_seq)
{
	struct recorder *r = env->resume_ctx;

	sb_stops_resume(&r->shared, pid, stop_seq);
}

/*
 * A fork the kernel's fork hook missed was found at the child's first switch,
 * where its task storage cannot be made: its threads are marked here instead.
 */
static void on_fork(void *ctx, pid_t parent, pid_t child, uint32_t reason)
{
	struct sb_proc_change ch = { .what = SB_PROC_FORK, .pid = child, .parent = parent };
	struct recorder *r = ctx;
	struct sb_error err = { { 0 } };

	if (reason != SB_FORK_SEEN)
		mark_threads(r, child);
	if (reason != SB_FORK_LATE_THREAD)
		sb_sources_process(&r->sources, &ch, &err);
}

/* The first error that stops recording is said once; the command runs on. */
static void note_failure(struct recorder *r, int ret)
{
	if (ret && !r->failed) {
		r->failed = ret;
		record_say("recording stopped: %s; the command runs on, untraced", strerror(-ret));
	}
}

/*
 * The heartbeat goes on while one poll reads a long backlog: processes are
 * held at a sync only while the recorder is heard from (SB_HEARTBEAT_STALE_NS),
 * and a backlog of adoptions took over a second, letting later ones run on
 * unheld and exit with their records.
 */
#define HEARTBEAT_EVERY 64

/* A read that has had its budget yields; the next one, here or in the drain, has a new one. */
static bool read_budget_spent(struct recorder *r)
{
	int64_t now;

	if (r->records_read % READ_BUDGET_EVERY)
		return false;
	now = now_ns();
	if (now < r->read_until_ns)
		return false;
	r->read_until_ns = now + READ_BUDGET_NS;
	return true;
}

/* The record is consumed whatever this returns; READ_YIELD only ends this read. */
static int on_record(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;
	int ret;

	if (!(++r->records_read % HEARTBEAT_EVERY))
		sb_guardian_heartbeat(r->env.skel);
	ret = sb_sources_record(&r->sources, data, size);

	if (ret > 0)
		ret = sb_collector_record(&r->coll, data, size);
	note_failure(r, ret);
	return read_budget_spent(r) ? READ_YIELD : 0;
}

/* Recording starts here, for every probe at the same instant. */
static void begin_recording(struct recorder *r)
{
	r->clock_offset_start = realtime_offset();
	r->start_ns = now_ns();
	r->env.start_ns = r->start_ns;
	r->rot.start_ns = r->start_ns;
	sb_sources_begin(&r->sources);
	/* Windows count from here: the first covers the recording's first WINDOW. */
	if (r->o.aggregate)
		sb_collector_set_aggregate(&r->coll, r->o.aggregate_window_ns, r->start_ns);
	/* Its user, folder and SLURM_* while the target lives: a command has exited by the end. */
	(void)sb_sysinfo_process(&r->coll.prof, r->root, NULL);
	sb_guardian_heartbeat(r->env.skel);
	r->env.skel->bss->recording = true;
	if (r->o.verbose)
		record_say("recording");
}

/* Trace and attach -p's process tree as it is now. <0 when its root could not be attached. */
static int attach_tree(struct recorder *r, struct sb_error *err)
{
	size_t n, i;
	pid_t *tree;
	int ret = 0;

	tree = sb_process_tree(r->o.pid, &n);
	if (!tree)
		return sb_fail(err, ENOMEM, "cannot list its children: out of memory");
	for (i = 0; i < n; i++) {
		struct sb_proc_change ch = { .what = SB_PROC_START, .pid = tree[i] };

		/* The root was checked by scope-bpfd; a descendant may be a setuid program. */
		if (i && !may_follow(r, tree[i]))
			continue;
		ret = trace_process(r, tree[i], 0);
		if (!ret)
			ret = sb_sources_process(&r->sources, &ch, err);
		if (ret < 0 && i == 0)
			break;
		ret = 0;
	}
	free(tree);
	return ret;
}

static bool root_pidfd_readable(const struct recorder *r);

static int start_pid(struct recorder *r)
{
	struct sb_error err = { { 0 } };
	char name[64];
	int ret;

	r->root = r->o.pid;
	/*
	 * It was there when record began (sb_record opened its pidfd) and ended
	 * while the programs loaded: the profile says so, with nothing in it.
	 */
	if (sb_process_gone(r->o.pid) || root_pidfd_readable(r)) {
		record_say("process %d (%s): exited while scope-bpf was loading its programs; the "
			   "profile has no calls", (int)r->o.pid, r->root_name);
		r->root_gone = true;
		begin_recording(r);
		return 0;
	}
	snprintf(name, sizeof(name), "%s", r->root_name);
	ret = attach_tree(r, &err);
	if (ret < 0) {
		if (kill(r->o.pid, 0) && errno == ESRCH)
			record_say("process %d (%s): exited while attaching", (int)r->o.pid, name);
		else
			record_say("process %d (%s): %s", (int)r->o.pid, name,
				   err.msg[0] ? err.msg : strerror(-ret));
		return ret == -ENOMEM ? 1 : SB_EXIT_USAGE;
	}
	if (!sb_regions_probe_files(&r->sources) && !sb_cuda_host_runtimes(&r->sources)) {
		record_say("process %d (%s): no scope_bpf probes in its executable or the libraries it "
		    "maps, and no CUDA runtime; mark regions with include/scope_bpf.h (see "
		    "docs/MARKERS.md)",
		    (int)r->o.pid, name);
		return SB_EXIT_USAGE;
	}
	/*
	 * Recording starts for every probe at once, now that all are attached;
	 * then what was forked or loaded meanwhile is picked up (later ones sync).
	 */
	begin_recording(r);
	attach_tree(r, &err);
	return 0;
}

/* -a: trace what runs now and qualifies; every pid is looked at again once recording. */
static void attach_running(struct recorder *r)
{
	struct sb_error err = { { 0 } };
	size_t n, i;
	pid_t *pids = sb_syswide_scan(&r->sys, &n);

	for (i = 0; pids && i < n; i++) {
		struct sb_proc_change ch = { .what = SB_PROC_START, .pid = pids[i] };
		__u32 key = (__u32)pids[i];
		struct sb_proc known;

		/* Traced at the first look, or forked by a traced process since. */
		if (!bpf_map_lookup_elem(bpf_map__fd(r->env.skel->maps.procs), &key, &known) ||
		    trace_process(r, pids[i], 0))
			continue;
		sb_syswide_traced(&r->sys);
		if (sb_sources_process(&r->sources, &ch, &err) < 0 && r->o.verbose)
			record_say("%s", err.msg);
	}
	free(pids);
}

/*
 * -a: the running processes, then recording for every probe at once; what
 * exec'd meanwhile is found by a second look, what execs later is held at
 * its exec. The line on stderr says the recorder is ready (scripts wait for it).
 */
static int start_all(struct recorder *r)
{
	struct sb_error err = { { 0 } };

	if (sb_syswide_init(&r->sys, &r->o, r->env.skel, &err)) {
		record_say("%s", err.msg);
		return SB_EXIT_USAGE;
	}
	r->root = getpid();
	attach_running(r);
	begin_recording(r);
	attach_running(r);
	if (!r->o.quiet)
		fprintf(stderr, "scope-bpf: recording system-wide, %d processes traced so far\n",
			r->sys.traced);
	return 0;
}

/*
 * scope-bpfd's -- CMD: the client forked the command and holds it at the door
 * as sb_launch_prepare() would; it is not our child, its pidfd says when it ends.
 */
static bool launched_by_client(const struct recorder *r)
{
	return r->o.cmd && r->o.daemon_target;
}

static int take_held(struct recorder *r)
{
	r->child = r->o.daemon_target->child;
	r->root_pidfd = fcntl(r->o.daemon_target->pidfd, F_DUPFD_CLOEXEC, 3);
	if (r->root_pidfd < 0) {
		record_say("the command's pidfd: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/* Fork -- CMD held at the door, as whom it runs as. 0, or the exit status after saying why. */
static int launch_here(struct recorder *r)
{
	struct sb_error err = { { 0 } };
	struct sb_runas who;
	int ret;

	if (sb_runas_resolve(&who, r->o.user, r->o.as_root, &err)) {
		record_say("%s", err.msg);
		return SB_EXIT_USAGE;
	}
	/* The child has its own copy of who from here on. */
	ret = sb_launch_prepare(&r->child, r->o.cmd, &who, &err);
	sb_runas_free(&who);
	if (ret) {
		record_say("%s", err.msg);
		return 1;
	}
	return 0;
}

/* Launch -- CMD held at the door, trace it, let it exec. 0, or the exit status after saying why. */
static int start_cmd(struct recorder *r)
{
	int ret = launched_by_client(r) ? take_held(r) : launch_here(r);

	if (ret)
		return ret;
	r->root = r->child.pid;
	ret = trace_process(r, r->child.pid, launched_by_client(r) ? 0 : getpid());
	/* The client's child still lives: the pid traced is still its own. */
	if (!ret && launched_by_client(r) && root_pidfd_readable(r))
		ret = -ESRCH;
	if (ret) {
		/* The client's child exits at the go pipe's end instead. */
		if (!launched_by_client(r)) {
			kill(r->child.pid, SIGKILL);
			waitpid(r->child.pid, NULL, 0);
		}
		record_say("cannot trace the command: %s", strerror(-ret));
		return 1;
	}
	/* From its exec on, everything the command does is recorded and followed. */
	begin_recording(r);
	ret = sb_launch_go(&r->child);
	if (ret) {
		waitpid(r->child.pid, NULL, 0);
		if (ret == -ENOENT) {
			record_say("%s: command not found", r->o.cmd[0]);
			return 127;
		}
		record_say("%s: cannot run: %s", r->o.cmd[0], strerror(-ret));
		return 126;
	}
	return 0;
}

static uint64_t calls_so_far(struct recorder *r)
{
	return r->rotated_calls + r->coll.calls;
}

static void read_counters(struct recorder *r)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(r->env.skel->maps.counters), c;
	__u64 *vals = calloc(ncpu > 0 ? ncpu : 1, sizeof(*vals));
	__u32 k;

	if (!vals)
		return;
	for (k = 0; k < SB_CNT_MAX; k++) {
		r->env.counters[k] = 0;
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (c = 0; c < ncpu; c++)
			r->env.counters[k] += vals[c];
	}
	free(vals);
}

/*
 * The live status line. Where the target may write to the same terminal, a
 * line rewritten in place would run into its output: there it is a whole line,
 * printed less often.
 */
static void status_line(struct recorder *r, int64_t now, uint64_t *last_calls, int64_t *last_t)
{
	double dt = (double)(now - *last_t) / 1e9;
	uint64_t calls = calls_so_far(r);

	read_counters(r);
	fprintf(stderr, "%sscope-bpf: recording %.0f s, %.0f calls/s, %llu calls, %llu lost%s",
		r->shared_tty ? "" : "\r\033[K", (double)(now - r->start_ns) / 1e9,
		dt > 0 ? (double)(calls - *last_calls) / dt : 0.0, (unsigned long long)calls,
		(unsigned long long)sb_regions_lost_events(&r->env), r->shared_tty ? "\n" : "");
	*last_calls = calls;
	*last_t = now;
}

/* Whether fd of process pid is the terminal our stderr is. */
static bool same_tty(pid_t pid, int fd, const char *tty)
{
	char path[64], target[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = 0;
	return !strcmp(target, tty);
}

/* A launched command writes where we do; a -p target may write to our terminal too. */
static bool target_shares_tty(struct recorder *r)
{
	const char *tty = ttyname(STDERR_FILENO);

	if (!tty)
		return false;
	if (r->o.cmd)
		return true;
	return same_tty(r->o.pid, STDOUT_FILENO, tty) || same_tty(r->o.pid, STDERR_FILENO, tty);
}

static bool root_pidfd_readable(const struct recorder *r)
{
	struct pollfd p = { .fd = r->root_pidfd, .events = POLLIN };

	return r->root_pidfd >= 0 && poll(&p, 1, 0) > 0;
}

static bool root_done(struct recorder *r)
{
	int status;

	if (r->o.all)
		return r->o.until_idle && sb_syswide_idle(&r->sys);
	if (r->o.cmd && !launched_by_client(r)) {
		if (waitpid(r->child.pid, &status, WNOHANG) == r->child.pid) {
			r->root_exited = true;
			r->root_status = status;
		}
		return r->root_exited;
	}
	if (root_pidfd_readable(r))
		return true;
	return sb_collector_process_ended(&r->coll, r->root) || (kill(r->root, 0) && errno == ESRCH);
}

/* First SIGINT/SIGTERM: stop (a launched command is asked to end first). */
static bool handle_signal(struct recorder *r, int *forwarded)
{
	if (!sb_stop_signal)
		return false;
	if (r->o.cmd && !launched_by_client(r) && !r->root_exited && !*forwarded) {
		*forwarded = sb_stop_signal;
		if (!sb_stop_from_terminal)
			kill(r->child.pid, sb_stop_signal);
		sb_stop_signal = 0;
		return false;
	}
	return true;
}

static int rotate_file(struct recorder *r, int64_t now);

/*
 * A record the kernel wrote past but never committed holds every record
 * behind it, a process's sync among them (that process would stay stopped),
 * and the ring polls ready all the while: pause instead of spinning, and
 * after RING_STALL_NS say so once, count it and let held processes go.
 */
static void watch_held_record(struct recorder *r, int64_t now)
{
	struct timespec pause = { 0, HELD_PAUSE_NS };
	int64_t held = sb_ring_held_ns(&r->ring, now);
	int freed;

	if (!held) {
		r->ring_stalled = false;
		return;
	}
	if (held >= RING_STALL_NS && !r->ring_stalled) {
		r->ring_stalled = true;
		r->ring_stalls++;
		freed = sb_stops_release(bpf_map__fd(r->env.skel->maps.stops), 0);
		record_say("the kernel's ring has stood at a record never finished for %lld s: the "
			   "records behind it wait; %d held process(es) let go (kernel_ring_stalls)",
			   (long long)(held / 1000000000LL), freed > 0 ? freed : 0);
	}
	if (held >= HELD_PAUSE_NS)
		nanosleep(&pause, NULL);
}

/*
 * How long the loop may sleep: until the next thing due (the status line,
 * -d, a --rotate interval), at most IDLE_WAIT_NS while nothing wakes it; not
 * at all while a source has work left. Short when the target's exit could
 * not be watched (no pidfd): then only a look at it sees it end; under
 * --rotate-size, whose files pass the size by what one turn reads at most;
 * and while off-CPU intervals of fast-path threads come fast (sources/fast.c, FLOW_RATE).
 */
static int64_t loop_sleep_ns(const struct recorder *r, int64_t now, int64_t deadline,
			     int64_t status_due)
{
	int64_t ns = IDLE_WAIT_NS;

	if (r->env.busy)
		return 0;
	if (r->wait.epfd < 0 || !r->wait.sees_exit || r->rot.max_calls || r->env.flowing)
		ns = POLL_MS * 1000000LL;
	if (deadline && deadline - now < ns)
		ns = deadline - now;
	if (status_due - now < ns)
		ns = status_due - now;
	if (r->rot.interval_ns > 0 && r->rot.start_ns + r->rot.interval_ns - now < ns)
		ns = r->rot.start_ns + r->rot.interval_ns - now;
	return ns > 0 ? ns : 0;
}

/*
 * What ends the loop's sleeps: the kernel's ring, and the target's exit
 * (a launched command's pidfd, -p's, or scope-bpfd's; -a hears of exits in
 * the ring). Returns the pidfd opened here for a launched command, or -1.
 */
static int watch_for_the_loop(struct recorder *r)
{
	int fd = -1;

	if (sb_loop_wait_watch(&r->wait, bpf_map__fd(r->env.skel->maps.events)))
		return -1;
	if (r->o.all) {
		r->wait.sees_exit = true;
	} else if (r->o.cmd && !launched_by_client(r)) {
		fd = (int)syscall(SYS_pidfd_open, r->child.pid, 0);
		if (!sb_loop_wait_exit(&r->wait, fd) && fd >= 0) {
			close(fd);
			fd = -1;
		}
	} else {
		sb_loop_wait_exit(&r->wait, r->root_pidfd);
	}
	return fd;
}

static void record_loop(struct recorder *r)
{
	int64_t deadline = r->o.duration > 0 ? r->start_ns + (int64_t)(r->o.duration * 1e9) : 0;
	int64_t last_t = r->start_ns, now, every, sleep_ns;
	bool live = !r->o.quiet && isatty(STDERR_FILENO);
	uint64_t last_calls = 0;
	int forwarded = 0, child_fd;
	bool done;

	r->shared_tty = live && target_shares_tty(r);
	every = r->shared_tty ? STATUS_SHARED_NS : STATUS_NS;
	child_fd = watch_for_the_loop(r);

	for (;;) {
		r->read_until_ns = now_ns() + READ_BUDGET_NS;
		/* Records submitted without a wake-up are only seen by consuming. */
		ring_buffer__consume(r->rb);
		note_failure(r, sb_sources_tick(&r->sources));
		now = now_ns();
		watch_held_record(r, now);
		if (live && now - last_t >= every)
			status_line(r, now, &last_calls, &last_t);
		done = r->failed || root_done(r) || handle_signal(r, &forwarded) ||
		       (deadline && now >= deadline);
		/*
		 * Once the command has ended, no file is cut by time: it would hold
		 * only the moments until the recorder saw the end, and the command's
		 * last calls would sit in the file before the last. By count still.
		 */
		if (sb_rotate_due(&r->rot, done ? r->rot.start_ns : now, r->coll.calls))
			note_failure(r, rotate_file(r, now));
		if (done)
			break;
		sleep_ns = loop_sleep_ns(r, now, deadline, live ? last_t + every : INT64_MAX);
		/* We answer stops while asleep too: the ring wakes us. See SB_HEARTBEAT_STALE_NS. */
		sb_guardian_busy(r->env.skel, (uint64_t)sleep_ns);
		sb_loop_wait(&r->wait, sleep_ns);
	}
	if (child_fd >= 0)
		close(child_fd);
	if (live && !r->shared_tty)
		fprintf(stderr, "\r\033[K");
}

/* Regions still open name the paths samples were taken in, though no call completed. */
static void register_open_paths(struct recorder *r, const struct sb_thread_state *st)
{
	__u32 i;

	for (i = 0; i < st->depth && i < SB_MAX_DEPTH; i++)
		sb_collector_path(&r->coll, st->frames[i].path_hash,
				  i ? st->frames[i - 1].path_hash : 0, st->frames[i].name_hash);
}

/* Threads still alive own open calls (dropped) and their CPU time so far. */
static uint64_t collect_live_threads(struct recorder *r, int64_t now)
{
	int fd = bpf_map__fd(r->env.skel->maps.threads);
	struct sb_thread_state *st = malloc(sizeof(*st));
	__u32 key, next, *prev = NULL;
	uint64_t open = 0;
	int64_t cpu;

	if (!st)
		return 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, st))
			continue;
		cpu = (int64_t)st->cpu_ns + (st->on_since ? now - (int64_t)st->on_since : 0);
		if (sb_collector_thread_alive(&r->coll, st->tgid, key, st->comm, (int64_t)st->first_ns,
					      cpu) <= 0)
			continue;
		/* Calls beyond the stack were counted as depth overflow already. */
		open += st->depth;
		register_open_paths(r, st);
	}
	free(st);
	return open;
}

static char *join_command(char **cmd)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; cmd[i]; i++)
		len += strlen(cmd[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 0; cmd[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, cmd[i]);
	}
	return s;
}

/* The recorder's own CPU time, all its threads: what recording cost beside the program. */
static int64_t recorder_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

/* What was recorded where and when: between the sources' contributions and their losses. */
static int add_metadata(struct recorder *r, struct sb_collector *c, int64_t end_ns)
{
	struct sb_profile *p = &c->prof;
	char *cmd = r->o.cmd ? join_command(r->o.cmd) : NULL;
	const char *label;
	int ret = 0;

	ret |= sb_sysinfo_host(p);
	ret |= sb_sysinfo_process(p, r->root, cmd ? cmd : (p->n_processes ? p->processes[0].command : NULL));
	label = r->o.cmd ? r->o.cmd[0] : (p->n_processes ? p->processes[0].command : "");
	ret |= sb_profile_set_str(p, "label", label);
	ret |= sb_profile_set_int(p, "start_time_ns", r->start_ns);
	ret |= sb_profile_set_int(p, "finalize_time_ns", end_ns);
	ret |= sb_profile_set_int(p, "clock_realtime_minus_monotonic_start_ns",
				  r->clock_offset_start);
	ret |= sb_profile_set_int(p, "clock_realtime_minus_monotonic_end_ns", r->clock_offset_end);
	ret |= sb_profile_set_int(p, "recorder_cpu_ns", recorder_cpu_ns());
	ret |= sb_profile_set_int(p, "kernel_ring_stalls", (int64_t)r->ring_stalls);
	ret |= sb_profile_set_str(p, SB_META_RECORD_SCOPE, r->o.all ? "system-wide" :
				  r->o.cmd ? SB_RECORD_SCOPE_COMMAND : "attached");
	if (r->o.ranks_arg)
		ret |= sb_profile_set_str(p, "record_ranks", r->o.ranks_arg);
	/* A source that knows the world size (MPI) has said it; else every rank is one process. */
	if (!sb_profile_meta(p, "mpi_size"))
		ret |= sb_profile_set_int(p, "mpi_size", c->n_ranks ? c->n_ranks : 1);
	ret |= sb_kernel_metadata(&r->kernel, p);
	if (r->root_gone)
		ret |= sb_profile_set_int(p, "target_exited_before_recording", 1);
	free(cmd);
	return ret ? -ENOMEM : 0;
}

/*
 * Recording ends here for every probe at one instant; what the kernel queued
 * before it is drained, every process still held is let go, and only then are
 * the probes detached. The sources then find the final counters and the calls
 * still open at the end in their environment.
 */
static void end_recording(struct recorder *r, int64_t *end_ns)
{
	r->env.skel->bss->recording = false;
	*end_ns = now_ns();
	r->env.end_ns = *end_ns;
	r->clock_offset_end = realtime_offset();
	r->stopping = true;
	usleep(SETTLE_US);
	sb_sources_stop(&r->sources);
	note_failure(r, r->env.error);
	/* The records behind one never finished are lost: counted, as a stall. */
	if (sb_ring_read_written(&r->ring, RING_DRAIN_NS) == -ETIME) {
		r->ring_stalls += !r->ring_stalled;
		record_say("the kernel's ring still stood at a record being written after %d ms: "
			   "the records behind it are lost (kernel_ring_stalls)",
			   (int)(RING_DRAIN_NS / 1000000));
	}
	/* No process is held from now on: the guardian need not keep stderr (guardian.h). */
	sb_guardian_done(&r->guardian, r->env.skel);
	sb_stops_release(bpf_map__fd(r->env.skel->maps.stops), 0);
	read_counters(r);
	sb_kernel_skips_read(&r->kernel);
	r->env.open_at_end = collect_live_threads(r, *end_ns);
	sb_sources_detach(&r->sources);
	sb_detach_release(&r->access_probe, &r->guardian);
}

/*
 * record --rotate: which file this is, the time it covers, and how many older
 * ones were deleted once it is written (docs/FORMAT.md, "Rotation").
 */
static int rotate_metadata(struct recorder *r, struct sb_profile *p, int64_t end_ns, bool last)
{
	int64_t expired = sb_rotate_expired(&r->rot);
	int ret = 0;

	if (!sb_rotate_on(&r->rot))
		return 0;
	ret |= sb_profile_set_int(p, "rotate_index", (int64_t)r->rot.index);
	ret |= sb_profile_set_int(p, "rotate_start_ns", r->rot.start_ns);
	ret |= sb_profile_set_int(p, "rotate_end_ns", end_ns);
	ret |= sb_profile_set_int(p, "rotate_interval_ns", r->rot.interval_ns);
	ret |= sb_profile_set_int(p, "rotate_max_calls", (int64_t)r->rot.max_calls);
	ret |= sb_profile_set_int(p, "rotate_keep", r->rot.keep);
	ret |= sb_profile_set_int(p, "rotate_last", last);
	ret |= sb_profile_set_int(p, "rotate_files_deleted",
				  (int64_t)r->rot.deleted + (expired >= 0));
	ret |= sb_profile_set_int(p, "rotate_oldest_kept", expired + 1);
	return ret ? -ENOMEM : 0;
}

/*
 * The collector's tables, each source's, the recording's own metadata, then
 * what was lost. The sources write into the profile of c: the recording's
 * collector, or a rotated file's.
 */
static int build_profile(struct recorder *r, struct sb_collector *c, int64_t end_ns, bool last)
{
	int ret = sb_collector_finish(c);

	r->env.coll = c;
	if (!ret)
		ret = sb_sources_contribute(&r->sources);
	if (!ret)
		ret = add_metadata(r, c, end_ns);
	if (!ret)
		ret = sb_sources_losses(&r->sources);
	if (!ret)
		ret = rotate_metadata(r, &c->prof, end_ns, last);
	r->env.coll = &r->coll;
	return ret;
}

static int expand_output(struct recorder *r, const char *tmpl, uint64_t index, char **path,
			 struct sb_error *err);

/*
 * record --rotate: the regions a file's calls use, before finishing it drops
 * the others, in the numbering every file's collector shares; for the summary.
 */
static int note_regions(struct recorder *r, const struct sb_collector *c)
{
	size_t n = c->prof.n_regions, i;
	bool *used;

	if (n > r->rot_regions) {
		used = realloc(r->rot_region_used, n * sizeof(*used));
		if (!used)
			return -ENOMEM;
		memset(used + r->rot_regions, 0, (n - r->rot_regions) * sizeof(*used));
		r->rot_region_used = used;
		r->rot_regions = n;
	}
	for (i = 0; i < c->prof.n_pairs; i++)
		r->rot_region_used[c->prof.pairs[i].region] = true;
	return 0;
}

static size_t regions_used(const struct recorder *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->rot_regions; i++)
		n += r->rot_region_used[i];
	return n;
}

/* record --rotate: once file r->rot.index is written, the one that makes too many goes. */
static void rotate_expire(struct recorder *r)
{
	struct sb_error err = { { 0 } };
	int64_t expired = sb_rotate_expired(&r->rot);
	char *path;

	if (expired < 0)
		return;
	if (expand_output(r, r->out_tmpl, (uint64_t)expired, &path, &err)) {
		record_say("--rotate-keep: %s", err.msg[0] ? err.msg : strerror(ENOMEM));
		return;
	}
	/* Counted as deleted once gone, whoever removed it: the disk is what is bounded. */
	if (unlink(path) && errno != ENOENT)
		record_say("--rotate-keep: %s: cannot delete: %s", path, strerror(errno));
	else
		r->rot.deleted++;
	if (r->o.verbose)
		record_say("--rotate-keep: deleted %s, keeping the newest %u files", path,
			   r->rot.keep);
	free(path);
}

/*
 * record --rotate: the interval that ends now is written as one file, whose
 * calls and their index are then freed; the next file's calls go to a new
 * collector. Calls still open now are in the file in which they end.
 */
static int rotate_file(struct recorder *r, int64_t now)
{
	struct sb_collector *piece = malloc(sizeof(*piece));
	struct sb_collect_stream stream;
	struct sb_error err = { { 0 } };
	char *next = NULL;
	int ret;

	if (!piece)
		return -ENOMEM;
	ret = sb_collector_rotate(&r->coll, piece, r->tmp_dir, SPILL_BUDGET);
	if (ret) {
		free(piece);
		return ret;
	}
	ret = note_regions(r, piece);
	ret = ret ?: build_profile(r, piece, now, false);
	if (!ret) {
		sb_collector_stream(piece, &stream);
		/* The command runs on: its CPUs are its own, the file compresses on ours. */
		ret = sb_h5_write_with(r->o.output, &piece->prof, &stream.base, 1, &err);
		if (ret)
			record_say("%s", err.msg);
	}
	r->rotated_calls += piece->calls;
	r->rotated_over_max += piece->over_max_size;
	sb_collector_free(piece);
	free(piece);
	if (ret)
		return ret;
	rotate_expire(r);
	ret = expand_output(r, r->out_tmpl, r->rot.index + 1, &next, &err);
	if (ret) {
		record_say("%s", err.msg[0] ? err.msg : strerror(ENOMEM));
		return ret;
	}
	free(r->rot_path);
	r->rot_path = next;
	r->o.output = next;
	r->rot.index++;
	r->rot.start_ns = now;
	return 0;
}

/* record --rotate: how many files, and how many of them were deleted to keep the newest. */
static void rotate_summary(struct recorder *r)
{
	uint64_t files = r->rot.index + 1;

	fprintf(stderr, "scope-bpf: rotation: %llu %s written (%%n 0 to %llu)",
		(unsigned long long)files, format_plural(files, "file", "files"),
		(unsigned long long)r->rot.index);
	if (r->rot.keep)
		fprintf(stderr, ", %llu oldest deleted to keep the newest %u (rotate_files_deleted)",
			(unsigned long long)r->rot.deleted, r->rot.keep);
	if (r->rotated_over_max)
		fprintf(stderr, ", %llu calls over --max-size in the earlier files",
			(unsigned long long)r->rotated_over_max);
	fputc('\n', stderr);
}

/* One line: what was recorded, every kind of loss, where it went; then the causes of any loss. */
static void summary_line(struct recorder *r)
{
	const struct sb_profile *p = &r->coll.prof;
	size_t regions = sb_rotate_on(&r->rot) ? regions_used(r) : p->n_regions;
	char health[512];

	sb_health_summary(p, health, sizeof(health));
	fprintf(stderr, "scope-bpf: %zu %s, %llu %s, %zu %s (%u %s), %zu %s, %s -> %s\n",
		regions, format_plural(regions, "region", "regions"),
		(unsigned long long)calls_so_far(r), format_plural(calls_so_far(r), "call", "calls"),
		p->n_processes, format_plural(p->n_processes, "process", "processes"),
		r->coll.n_ranks, format_plural(r->coll.n_ranks, "rank", "ranks"),
		p->n_threads, format_plural(p->n_threads, "thread", "threads"), health,
		r->o.daemon_target ? r->o.daemon_target->output_name :
		r->to_stdout.path ? "standard output" : r->o.output);
	sb_health_print(stderr, p, "scope-bpf: ");
	sb_kernel_report(&r->kernel, "scope-bpf: ");
	if (sb_rotate_on(&r->rot))
		rotate_summary(r);
}

/* Write the profile. 0, or 1 after saying why. */
/* What to do about a refused attach, where the cause says it. */
static const char *attach_hint(const char *failure)
{
	if (strstr(failure, strerror(EACCES)) || strstr(failure, strerror(EPERM)))
		return " (this kernel lets only root or CAP_SYS_ADMIN create uprobes: run with sudo)";
	return "";
}

/* Whether any loss counter of the profile is not 0: its warnings were printed. */
static bool any_loss(const struct sb_profile *p)
{
	size_t i;

	for (i = 0; i < sb_health_n_keys; i++)
		if (sb_health_value(p, sb_health_keys[i].key))
			return true;
	return false;
}

/*
 * A profile without calls: no probes, or probes that fired and whose calls
 * were all lost (the loss counters say how), or probes no call went through
 * while recording. files: the objects whose probes were attached.
 */
static void say_no_calls(struct recorder *r, int files)
{
	const char *where = r->o.cmd ? "the command or its children" : "the traced processes";

	if (!files) {
		record_say("no scope_bpf probes were found in %s; mark regions with "
			   "include/scope_bpf.h (see docs/MARKERS.md)", where);
		return;
	}
	record_say("the probes of %d object%s in %s were attached, but no call was recorded: %s",
		   files, files == 1 ? "" : "s", where,
		   any_loss(&r->coll.prof) ? "the warnings above say what was lost" :
		   "no marked region was both entered and left while recording");
}

/*
 * Threads to compress the file with: every CPU once the traced command has
 * ended (it needs none), one while it runs on (-p or -d stopped first, -a).
 */
static unsigned write_threads(const struct recorder *r)
{
	if (r->o.all)
		return 1;
	if (r->o.cmd)
		return r->root_exited ? 0 : 1;
	return root_pidfd_readable(r) ? 0 : 1;
}

static int finish(struct recorder *r)
{
	struct sb_collect_stream stream;
	struct sb_error err = { { 0 } };
	const char *failure;
	int64_t end_ns;
	int ret, failed, files;

	failure = sb_regions_attach_failure(&r->sources, &failed);
	files = sb_regions_probe_files(&r->sources);
	end_recording(r, &end_ns);
	ret = sb_rotate_on(&r->rot) ? note_regions(r, &r->coll) : 0;
	ret = ret ?: build_profile(r, &r->coll, end_ns, true);
	if (ret) {
		record_say("finishing the profile: %s", strerror(-ret));
		return 1;
	}
	sb_collector_stream(&r->coll, &stream);
	/* An aggregate's calls were summed as they came: there is nothing to stream. */
	if (sb_h5_write_with(r->o.output, &r->coll.prof, r->o.aggregate ? NULL : &stream.base,
			     write_threads(r), &err) ||
	    (r->to_stdout.path && sb_stdout_profile_emit(&r->to_stdout, &err))) {
		record_say("%s", err.msg);
		return 1;
	}
	rotate_expire(r);
	/* -q silences the summary, never what was lost: a batch job must learn why it exited 3. */
	if (!r->o.quiet) {
		summary_line(r);
	} else {
		sb_health_print(stderr, &r->coll.prof, "scope-bpf: ");
		if (sb_kernel_incomplete(&r->kernel))
			sb_kernel_report(&r->kernel, "scope-bpf: ");
	}
	/* Where the bounded-memory sort spent its time, for -v. */
	if (r->o.verbose)
		record_say("spill: %llu calls sorted in %u runs, %u merge passes",
			   (unsigned long long)sb_spill_count(r->coll.spill),
			   sb_spill_runs(r->coll.spill), sb_spill_merge_passes(r->coll.spill));
	if (r->o.all && !r->sys.traced && !r->o.quiet)
		record_say("no process was traced: none ran a file with scope_bpf probes or an MPI "
			   "library%s", r->o.exe || r->o.comm || r->o.ranks ? " and matched the filters" :
			   "");
	else if (failure)
		record_say("the probes of %d object%s were not attached, their calls are missing: %s%s",
			   failed, failed == 1 ? "" : "s", failure, attach_hint(failure));
	else if (!calls_so_far(r) && !r->o.quiet)
		say_no_calls(r, files);
	return 0;
}

static void install_signals(void)
{
	/* A signal interrupts the poll, so recording stops at once. */
	sb_stop_signals_install();
	/* A file size limit then fails a write with EFBIG, as a full disk does, instead of killing us. */
	signal(SIGXFSZ, SIG_IGN);
}

/*
 * The verifier gives up on a pending signal: hold stop requests until the
 * programs are loaded, then let the handler note them.
 */
static int load_bpf_uninterrupted(struct recorder *r)
{
	sigset_t stops, old;
	int ret;

	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigprocmask(SIG_BLOCK, &stops, &old);
	ret = load_bpf(r);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static char *spill_dir(const char *output)
{
	char *copy = strdup(output), *dir;

	if (!copy)
		return NULL;
	dir = strdup(dirname(copy));
	free(copy);
	return dir;
}

/* Nothing of ours stays loaded: no probe, no program, nothing that could stop a process. */
static void recorder_close(struct recorder *r)
{
	if (r->env.skel && r->env.skel->bss->recording) {
		r->env.skel->bss->recording = false;
		usleep(SETTLE_US);
		sb_stops_release(bpf_map__fd(r->env.skel->maps.stops), 0);
	}
	sb_sources_free(&r->sources);
	sb_ring_reader_free(&r->ring);
	ring_buffer__free(r->rb);
	r->rb = NULL;
	sb_kernel_close(&r->kernel);
	sb_detach_release(&r->access_probe, NULL);
	r->env.skel = NULL;
	if (r->root_pidfd >= 0)
		close(r->root_pidfd);
	r->root_pidfd = -1;
}

/*
 * -p, before loading (which takes a while): the process must exist now, and
 * its pidfd sees it end even if its parent never reaps it. 0, or 1 after saying why.
 */
static int open_target(struct recorder *r)
{
	/* Under scope-bpfd, the process it checked, not whichever has its pid now. */
	r->root_pidfd = r->o.daemon_target ? fcntl(r->o.daemon_target->pidfd, F_DUPFD_CLOEXEC, 3) :
			(int)syscall(SYS_pidfd_open, r->o.pid, 0);
	if (r->root_pidfd < 0 && errno == ESRCH) {
		record_say("process %d: no such process", (int)r->o.pid);
		return 1;
	}
	/* Its maps are empty: it would read as a process without markers. */
	if (sb_process_state(r->o.pid) == 'Z') {
		record_say("process %d: has exited (a zombie its parent has not reaped)",
			   (int)r->o.pid);
		return 1;
	}
	sb_process_name(r->o.pid, r->root_name, sizeof(r->root_name));
	if (r->o.verbose)
		record_say("process %d (%s): loading the BPF programs", (int)r->o.pid, r->root_name);
	return 0;
}

/* Before the sources' hooks, which may set the collector's rank rule. 0, or 1 after saying why. */
static int init_collector(struct recorder *r)
{
	r->tmp_dir = spill_dir(r->o.output);
	r->env.tmp_dir = r->tmp_dir;
	if (!r->tmp_dir || sb_collector_init(&r->coll, r->tmp_dir, SPILL_BUDGET)) {
		record_say("%s: cannot use this folder for temporary data: %s",
			   r->tmp_dir ? r->tmp_dir : "?", strerror(errno));
		return 1;
	}
	r->coll.max_calls = r->o.max_size / sizeof(struct sb_spill_rec);
	return 0;
}

/* Returns the exit status: the command's, or 0/1/2 for our own outcome. */
static int run(struct recorder *r)
{
	bool incomplete;
	int ret, status, failed;

	r->coll.on_sync = on_sync;
	r->coll.on_fork = on_fork;
	r->coll.sync_ctx = r;
	sb_stops_shared_init(&r->shared, bpf_map__fd(r->env.skel->maps.stops));
	r->rb = ring_buffer__new(bpf_map__fd(r->env.skel->maps.events), on_record, r, NULL);
	if (!r->rb) {
		record_say("cannot open the ring buffer: %s", strerror(errno));
		return 1;
	}
	sb_ring_reader_init(&r->ring, r->rb, bpf_map__fd(r->env.skel->maps.events));
	r->env.ring = &r->ring;
	r->env.start_ns = INT64_MAX;
	r->env.end_ns = INT64_MAX;
	r->env.resume = resume_held;
	r->env.resume_ctx = r;
	/* A command the user interrupted while we loaded is not started at all. */
	if (r->o.cmd && sb_stop_signal) {
		record_say("interrupted before the command started");
		return 128 + sb_stop_signal;
	}
	ret = r->o.cmd ? start_cmd(r) : r->o.all ? start_all(r) : start_pid(r);
	if (ret)
		return ret;
	record_loop(r);
	ret = finish(r);
	incomplete = sb_kernel_incomplete(&r->kernel) || sb_regions_unresolved(&r->sources) ||
		     sb_regions_attach_failure(&r->sources, &failed) || r->root_gone ||
		     sb_health_value(&r->coll.prof, "lost_events") > 0 || r->ring_stalls ||
		     sb_health_value(&r->coll.prof, "calls_over_max_size") > 0 || r->rotated_over_max ||
		     sb_health_value(&r->coll.prof, "lost_timed_samples") > 0 ||
		     sb_health_value(&r->coll.prof, "fast_memories_refused") > 0 ||
		     sb_health_value(&r->coll.prof, "unseen_children_events") > 0 ||
		     sb_health_value(&r->coll.prof, "source_attach_failures") > 0;
	recorder_close(r);
	/* The client reaps its command and weighs its status against ours. */
	if (!r->o.cmd || launched_by_client(r))
		return ret ? ret : incomplete ? SB_EXIT_INCOMPLETE : 0;
	if (!r->root_exited) {
		/* Recording stopped first (duration, an error): the command runs on, untraced. */
		while (waitpid(r->child.pid, &status, 0) < 0 && errno == EINTR)
			;
		r->root_status = status;
	}
	/* The command's own failure says more than ours; a clean run with data missing does not. */
	if (ret || sb_exit_status(r->root_status))
		return ret ? ret : sb_exit_status(r->root_status);
	return incomplete ? SB_EXIT_INCOMPLETE : 0;
}

/*
 * -o's fields: one recorder per node or rank names its own file, and each of
 * --rotate's files its number. The rank is -p's process's, or for a launched
 * command the launcher's variables in our own environment, which the command
 * inherits; under -a, %r is the --ranks list (record_opts.c refuses %r
 * without it).
 */
static int expand_output(struct recorder *r, const char *output, uint64_t index, char **path,
			 struct sb_error *err)
{
	struct sb_outpath_fields v = {
		.pid = getpid(),
		.rank = sb_outpath_rank_of(r->o.pid ? r->o.pid : getpid()),
		.ranks = r->o.all ? r->o.ranks_arg : NULL,
		.index = sb_rotate_on(&r->rot) ? (int64_t)index : -1,
	};
	struct utsname u;

	if (uname(&u))
		snprintf(u.nodename, sizeof(u.nodename), "localhost");
	v.host = u.nodename;
	return sb_outpath_expand(output, &v, path, err);
}

int sb_record(const struct record_opts *o)
{
	struct recorder r;
	struct sb_error err = { { 0 } };
	char *output = NULL;
	int ret;

	memset(&r, 0, sizeof(r));
	r.o = *o;
	r.guardian.sock = -1;
	r.root_pidfd = -1;
	r.to_stdout.out_fd = -1;
	r.env = (struct sb_source_env){ .opts = &r.o, .coll = &r.coll, .guardian = &r.guardian,
					.wake_fd = -1 };
	r.wait.epfd = -1;
	r.wait.wake_fd = -1;
	if (sb_sources_open(&r.sources, sb_source_table, sb_source_table_len, &r.env)) {
		record_say("cannot set up the data sources: %s", strerror(ENOMEM));
		return 1;
	}
	/* Our own messages say what failed; libbpf's detail is for -v. */
	sb_kernel_log_init(r.o.verbose);
	/* From here a stop request is remembered: loading can take a while. */
	install_signals();
	/* Before the sources' configure: the fast path's drainer wakes the loop through it. */
	if (sb_loop_wait_init(&r.wait) && r.o.verbose)
		record_say("the recording loop cannot sleep until woken: it looks every %d ms", POLL_MS);
	r.env.wake_fd = r.wait.wake_fd;
	r.rot = (struct sb_rotation){ .interval_ns = o->rotate_ns, .keep = o->rotate_keep,
				      .max_calls = o->rotate_size / sizeof(struct sb_spill_rec) };
	r.out_tmpl = o->output;
	if (strcmp(r.o.output, "-") && expand_output(&r, r.out_tmpl, 0, &output, &err)) {
		record_say("%s", err.msg[0] ? err.msg : strerror(ENOMEM));
		ret = SB_EXIT_USAGE;
		goto out;
	}
	if (output)
		r.o.output = output;
	/*
	 * scope-bpfd's client set its command's environment as we would have, and
	 * sent the MPI path it took as --mpi=pmpi or --mpi=uprobes.
	 */
	if (launched_by_client(&r)) {
		r.o.mpi_pmpi = r.o.mpi_path == SB_MPI_PATH_PMPI;
	} else if (sb_command_env_setup(&r.o, &err)) {
		record_say("%s", err.msg);
		ret = SB_EXIT_USAGE;
		goto out;
	}
	if (!strcmp(r.o.output, "-")) {
		if (sb_stdout_profile_begin(&r.to_stdout, &err)) {
			record_say("%s", err.msg);
			ret = SB_EXIT_USAGE;
			goto out;
		}
		r.o.output = r.to_stdout.path;
	}
	if (r.o.pid && !r.o.all && open_target(&r)) {
		ret = SB_EXIT_USAGE;
	} else if (check_system() || init_collector(&r)) {
		ret = 1;
	} else if ((ret = load_bpf_uninterrupted(&r))) {
		/* 1, or 2 for a SCOPE_BPF_KERNEL_OFF that names no feature. */
	} else if (sb_h5_check_target(r.o.output, &err)) {
		/* Before recording for hours: the file must be writable at the end. */
		record_say("%s", err.msg);
		ret = SB_EXIT_USAGE;
	} else {
		ret = run(&r);
	}
out:
	recorder_close(&r);
	sb_loop_wait_free(&r.wait);
	sb_syswide_free(&r.sys);
	sb_stops_shared_free(&r.shared);
	sb_collector_free(&r.coll);
	sb_stdout_profile_end(&r.to_stdout);
	free(r.tmp_dir);
	free(r.rot_path);
	free(r.rot_region_used);
	free(output);
	return ret;
}
