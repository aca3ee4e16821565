/*
 * A data source: one kind of thing the recorder measures (region calls,
 * off-CPU time, stack samples, ...), with the same small life cycle for
 * each, in the spirit of Caliper's services and perf's bpf_counter_ops.
 * The recorder calls the hooks of every wanted source in table order
 * (record/sources/sources.c); a hook a source does not need is NULL.
 */
#ifndef SB_SOURCE_H
#define SB_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "cmd/record_opts.h"
#include "record/collect.h"
#include "record/kernel/load.h"
#include "record/transport/transport.h"
#include "util/error.h"
#include "region.h"

struct region_bpf;
struct sb_guardian;
struct sb_ring_reader;
struct sb_stacks;

/* What every hook may read; the recorder fills it in as the recording goes on. */
struct sb_source_env {
	const struct record_opts *opts;
	struct region_bpf *skel;	/* opened at configure, loaded from start on */
	struct sb_kernel *kernel;	/* what the kernel offers; programs by name (load.h) */
	struct sb_collector *coll;
	struct sb_guardian *guardian;	/* resumes held processes if the recorder dies */
	struct sb_stacks *stacks;	/* the stack table, when a source takes stacks */
	const char *tmp_dir;		/* temporary files go there: the output's folder */
	uint64_t counters[SB_CNT_MAX];	/* the kernel's, summed over CPUs; final after stop */
	uint64_t open_at_end;		/* calls open in live threads when recording ended */
	int error;			/* what stopped a source's stop hook (it returns nothing) */
	int64_t start_ns;		/* recording began (CLOCK_MONOTONIC); INT64_MAX before */
	int64_t end_ns;			/* recording ended (CLOCK_MONOTONIC); INT64_MAX before */
	int fast_unwaking;		/* objects whose fast-path writers never wake the drainer */
	bool busy;			/* a source has work left: the loop does not wait for records */
	bool flowing;			/* fast-path threads block often: the loop looks often (fast.c) */
	int wake_fd;			/* an eventfd: written, it ends the loop's sleep (-1: none) */
	struct sb_transport_losses fast;	/* the fast path's rings' (sources/fast.c, at detach) */
	struct sb_ring_reader *ring;	/* the kernel's records, for a source that must read them first */
	/* Probes a source could not put on a live process or a file: source_attach_failures. */
	uint64_t attach_failures;
	char attach_failure[512];	/* the first, "source: cause" */
	/* Let go a process the kernel side stopped (stop_seq of its record), once done with it. */
	void (*resume)(struct sb_source_env *env, pid_t pid, uint32_t stop_seq);
	void *resume_ctx;
};

/* What happened to a traced process. */
enum sb_proc_kind {
	SB_PROC_START,		/* traced from the start of the recording (-p and its tree) */
	SB_PROC_FORK,		/* created by a traced process: pid is the child */
	SB_PROC_SYNC,		/* exec'd or loaded objects; may be held until the hooks return */
};

struct sb_proc_change {
	enum sb_proc_kind what;
	pid_t pid;
	pid_t parent;		/* SB_PROC_FORK only */
};

/* The hooks that need nothing but the state and the environment: with a result, and without. */
typedef int (*sb_source_fn)(void *state, struct sb_source_env *env);
typedef void (*sb_source_hook_fn)(void *state, struct sb_source_env *env);

struct sb_source_ops {
	const char *name;
	size_t state_size;	/* the source's own state, zeroed, handed to every hook */
	/*
	 * Its programs are asked for only once a library it probes appears in a
	 * traced process: they are verified then, in an object of their own, not
	 * at every recording's start (record/kernel/load.h).
	 */
	bool on_demand;
	bool (*wanted)(const struct record_opts *o);
	/*
	 * Before the BPF object is loaded: .rodata switches, programs to load, map
	 * sizes. Replayable: the kernel layer calls it again on a fresh object
	 * (a kernel that refused sleepable programs), so it keeps no pointer
	 * into the object and sets up its own state only once. The programs it
	 * turns on are its own: they load with the first sb_kernel_prog of one.
	 */
	sb_source_fn configure;
	/* Loaded and the scheduler tracepoints attached: open events, attach programs. */
	int (*start)(void *state, struct sb_source_env *env, struct sb_error *err);
	/* A process event; an error is the source's failure on that process only. */
	int (*process)(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
		       struct sb_error *err);
	/*
	 * Sees every ring-buffer record first: 1 passes it on (to record or the
	 * collector), 0 keeps it, <0 is an error.
	 */
	int (*intercept)(void *state, struct sb_source_env *env, const void *data, size_t size);
	/* Each turn of the recording loop, after the ring buffer was read. */
	sb_source_fn tick;
	/* Ring-buffer records whose first __u32 is record_type go to record, not the collector. */
	uint32_t record_type;
	int (*record)(void *state, struct sb_source_env *env, const void *data, size_t size);
	/*
	 * Recording begins now (env->start_ns): what a source counted before,
	 * while it attached, is not this recording's.
	 */
	sb_source_hook_fn begin;
	/* Recording has ended; before the final drain: stop producing. */
	sb_source_hook_fn stop;
	/* After the final drain, with every held process let go: take the probes off. */
	sb_source_hook_fn detach;
	/* After sb_collector_finish: tables and the metadata that describes them. */
	sb_source_fn contribute;
	/* After every contribution and the recording's own metadata: what could not be kept. */
	sb_source_fn losses;
	void (*free)(void *state);
};

/* The wanted sources of one recording, each with its state. */
struct sb_sources {
	const struct sb_source_ops **ops;
	void **state;
	size_t n;
	struct sb_source_env *env;
};

/*
 * Take the sources of table[0..n) that want this recording, in table order.
 * 0 or -ENOMEM.
 */
int sb_sources_open(struct sb_sources *set, const struct sb_source_ops *const *table, size_t n,
		    struct sb_source_env *env);
int sb_sources_configure(struct sb_sources *set);
int sb_sources_start(struct sb_sources *set, struct sb_error *err);
/*
 * A source could not attach its probes to a process or a file, so calls asked
 * for are missing: counted, the first cause kept, both in the profile
 * (source_attach_failures, source_attach_failure) and the exit status 3.
 */
void sb_source_attach_failed(struct sb_source_env *env, const char *source, const char *why);

/*
 * Every source hears of the change; the first failure is returned, with its
 * cause in err. Each failure on a process still alive is an attach failure.
 */
int sb_sources_process(struct sb_sources *set, const struct sb_proc_change *ch,
		       struct sb_error *err);
/* 0 or -errno when a source took the record, 1 when none did (the collector's). */
int sb_sources_record(struct sb_sources *set, const void *data, size_t size);
/* The first error of the sources' ticks. */
int sb_sources_tick(struct sb_sources *set);
void sb_sources_begin(struct sb_sources *set);
void sb_sources_stop(struct sb_sources *set);
void sb_sources_detach(struct sb_sources *set);
int sb_sources_contribute(struct sb_sources *set);
/* Each source's losses, then the attach failures of all. */
int sb_sources_losses(struct sb_sources *set);
/* The state of the source with these ops, NULL when it is not in the set. */
void *sb_sources_state(const struct sb_sources *set, const struct sb_source_ops *ops);
void sb_sources_free(struct sb_sources *set);

#endif
