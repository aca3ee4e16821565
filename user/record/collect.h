/* The collector: turns ring-buffer records into a profile whose events are spilled to disk. */
#ifndef SB_COLLECT_H
#define SB_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/hashmap.h"
#include "model/model.h"
#include "record/aggregate.h"
#include "record/ctr_store.h"
#include "record/spill.h"

/* What the collector knows of a thread until the thread table is built. */
struct sb_thread_info {
	uint32_t tgid;
	uint32_t tid;
	int64_t first_ns;
	int64_t end_ns;
	int64_t cpu_ns;
	int64_t row;		/* index within its rank, set at finish */
	char name[16];
};

/*
 * Call ids a rank completed: dense in entry order, so a bitmap from the first
 * id completed (a rotated file's begin late: record --rotate); the few below
 * it, calls open when it completed, in a map.
 */
struct sb_bitset {
	uint64_t *words;
	size_t n_words;
	uint64_t first;			/* the id of words[0]'s bit 0, once based */
	bool based;
	struct sb_hashmap below;	/* (id, 0) -> 1 for ids under first */
};

/*
 * Called for a process that exec'd or loaded objects; must attach, then resume
 * it when stop_seq is not 0 (the kernel side stopped it: struct sb_stop).
 */
typedef void (*sb_sync_fn)(void *ctx, pid_t pid, int reason, uint32_t stop_seq);
/*
 * Called when a traced process forked (the child starts with the parent's
 * mappings), or with SB_FORK_LATE_THREAD a thread of child began (parent 0):
 * reason (enum sb_fork_reason) says whether the kernel's fork hook saw it.
 */
typedef void (*sb_fork_fn)(void *ctx, pid_t parent, pid_t child, uint32_t reason);

/*
 * Decides the ranks at finish. tgids lists the n processes that completed a
 * call, in the order of their first completed call; the rule writes the rank
 * of tgids[i] to ranks[i]. Ranks must be distinct and below SB_MAX_RANK.
 * Returns 0 or a negative errno. A source that knows better (MPI) sets one.
 */
typedef int (*sb_rank_rule_fn)(void *ctx, const uint32_t *tgids, size_t n, uint32_t *ranks);

/* The default rule: ranks in order of the first completed call, 0, 1, 2, ... */
int sb_rank_by_first_call(void *ctx, const uint32_t *tgids, size_t n, uint32_t *ranks);

/*
 * Where the last calls of a (name, process, thread) went, so that a loop's
 * next ones skip five hash lookups (a third of the collector's time per call).
 */
#define SB_CALL_MEMO 64

struct sb_call_memo {
	uint64_t name_hash;
	uint32_t tgid;
	uint32_t tid;
	uint32_t region;
	uint32_t slot;		/* process slot */
	uint32_t pair;
	uint32_t thread;	/* index in threads: checked to be alive at each use */
	uint64_t path;		/* the last path hash registered from here */
	bool used;
};

struct sb_call_event;
struct sb_span_log;
struct sb_span_point;

struct sb_collector {
	struct sb_profile prof;		/* regions, pairs, processes; events live in spill */
	struct sb_spill *spill;
	int64_t blank_metric[SB_N_METRICS];	/* each column's missing value */
	struct sb_hashmap region_of;	/* (name hash, 0) -> region: calls carry their name's hash */
	struct sb_hashmap region_named;	/* (hash of the region's name, 0) -> region */
	size_t regions_named;		/* regions in region_named: any source may add one */
	/*
	 * Calls are kept by process until finish, when the rank rule numbers the
	 * processes: a rank is a label on the pairs, never part of the spill's key.
	 */
	struct sb_hashmap proc_slot;	/* (tgid, 0) -> process slot, in order of first call */
	struct sb_hashmap ranks;	/* (tgid, 0) -> rank, filled at finish */
	struct sb_hashmap pair_of;	/* (process slot, region) -> pair */
	struct sb_hashmap thread_of;	/* (tgid, tid) -> index in threads */
	struct sb_hashmap proc_of;	/* (tgid, 0) -> index in prof.processes */
	struct sb_thread_info *threads;
	size_t n_threads;
	uint32_t *slot_tgid;		/* process slot -> tgid */
	uint32_t *slot_rank;		/* process slot -> rank, filled at finish */
	struct sb_bitset *called;	/* process slot -> call ids recorded */
	uint32_t n_ranks;		/* process slots: processes that completed a call */
	sb_rank_rule_fn rank_rule;	/* sb_rank_by_first_call unless a source sets one */
	void *rank_rule_ctx;
	int rank_rule_error;		/* why the rule's numbering was refused, 0 if it was not */
	unsigned n_counters;		/* events each call record counts (record -e): their columns */
	struct sb_ctr_store counts;	/* the calls' counter values; spilled calls hold an index */
	uint64_t calls;
	uint64_t dropped_calls;		/* records without a known name, or invalid */
	/* record --max-size: calls kept at most (0: all), and those made after, counted only. */
	uint64_t max_calls;
	uint64_t over_max_size;
	/* Ends without a begin: calls already open when their thread's tracing began. */
	uint64_t open_at_start;
	struct sb_hashmap open_name_seen;	/* (name index, 0) -> 1 */
	size_t *open_names;		/* indexes in names, in order of first end */
	size_t n_open_names;
	int64_t *exclusive;		/* pair -> sum of exclusive time */
	uint32_t *pair_slot;		/* pair -> process slot */
	/* Region paths as samples name them: by hash, resolved to names at the end. */
	struct sb_hashmap path_parent;	/* (path hash, 0) -> parent path hash */
	struct sb_hashmap path_name;	/* (path hash, 0) -> name hash */
	struct sb_hashmap name_of;	/* (name hash, 0) -> index in names */
	struct sb_hashmap path_of;	/* (path hash, 0) -> model path id */
	char **names;
	size_t n_names;
	sb_sync_fn on_sync;
	sb_fork_fn on_fork;
	void *sync_ctx;
	/* GPU time of the calls that launched GPU work (collect_gpu.c), once attributed. */
	struct sb_hashmap gpu_of;	/* (pair, call id) -> GPU ns */
	bool *gpu_pair;			/* pair -> its calls carry GPU times (all of them) */
	struct sb_call_memo memo[SB_CALL_MEMO];
	/* record --aggregate: calls are summed (collect_agg.c), the spill stays empty. */
	bool aggregate;
	bool agg_ready;			/* agg set up, at the first call: counters are known */
	int64_t agg_window_ns;
	int64_t agg_origin_ns;
	unsigned agg_ids[SB_AGG_MAX_VALUES];	/* the metric column of each summed value */
	struct sb_aggregator agg;
	/*
	 * record --sample: each kept call's thread, span and path hash, so that
	 * timed samples are placed by time (collect_samples.c). NULL when off.
	 */
	struct sb_span_log *call_paths;
	char *call_paths_dir;
	size_t call_paths_mem;
	uint64_t call_paths_lost;	/* calls the log refused: their samples keep their read path */
};

int sb_collector_init(struct sb_collector *c, const char *spill_dir, size_t mem_budget);

/*
 * record --aggregate: from now on calls are summed per (thread, region path,
 * window of window_ns from origin_ns; 0 = one window), not kept.
 */
void sb_collector_set_aggregate(struct sb_collector *c, int64_t window_ns, int64_t origin_ns);
/* The aggregator, for the n metric columns ids each call carries. 0 or -errno. */
int sb_collector_aggregate_start(struct sb_collector *c, const unsigned *ids, unsigned n);
/* At finish, once ranks and thread rows are known: the sums into c->prof.agg. 0 or -ENOMEM. */
int sb_collector_aggregate_finish(struct sb_collector *c);
void sb_collector_free(struct sb_collector *c);

/*
 * Keep each call's span and path hash beside the calls, for
 * sb_collector_place_samples(): appended in arrival order to a private
 * temporary file in dir, past a buffer of mem bytes. 0 or -errno.
 */
int sb_collector_keep_call_paths(struct sb_collector *c, const char *dir, size_t mem);
/* Log a kept call's span and path (nothing when not keeping them). 0, or -EIO: not logged. */
int sb_collector_log_span(struct sb_collector *c, uint32_t thread, const struct sb_call_event *e);
void sb_collector_free_call_paths(struct sb_collector *c);

/*
 * After finish: each timed sample s[k] (its thread and time; k's index .i)
 * to the innermost call of its thread holding its time (span_claim.h):
 * path[.i] is that call's path hash, 0 where no call holds it or no call
 * paths were kept. Sorts s. 0 or -errno.
 */
int sb_collector_place_samples(struct sb_collector *c, struct sb_span_point *s, size_t n,
			       uint64_t *path);

/* One ring-buffer record; untrusted size and content are checked. 0 or -errno. */
int sb_collector_record(struct sb_collector *c, const void *data, size_t size);
/*
 * One completed call without counters, as sb_collector_record() takes an
 * SB_EV_CALL record of its size, but not copied first: the fast path's
 * nester makes one a call. Its content is checked the same.
 */
int sb_collector_call(struct sb_collector *c, const struct sb_call_event *e);

/* A process traced from the start (the launched command, or the -p targets). */
int sb_collector_add_process(struct sb_collector *c, pid_t pid, pid_t ppid, int64_t now);

/*
 * A thread still alive when recording stopped, as the kernel's thread map saw it.
 * 1 when taken; 0 when the thread's exit was already reported (its exit record
 * has the final numbers, a later read of the map can only be stale); or -errno.
 * A thread first seen after that exit is a new thread that was given the tid again.
 * Its name is read from /proc, else comm (the kernel side's last view of it).
 */
int sb_collector_thread_alive(struct sb_collector *c, uint32_t tgid, uint32_t tid, const char *comm,
			      int64_t first_ns, int64_t cpu_ns);

/* A region path seen in the kernel's open frames or calls. */
int sb_collector_path(struct sb_collector *c, uint64_t path, uint64_t parent, uint64_t name_hash);
/* The model's path id of a path hash (adding it and its parents), -1 for 0/unknown. */
int64_t sb_collector_path_id(struct sb_collector *c, uint64_t path);
/* Whether the kernel reported the process's exit (it may linger as a zombie). */
bool sb_collector_process_ended(struct sb_collector *c, pid_t pid);
/* The rank of a process (after finish), -1 when it recorded no call. */
int64_t sb_collector_rank(struct sb_collector *c, uint32_t tgid);
/* The thread table row of a thread within its rank, -1 when unknown (after finish). */
int64_t sb_collector_thread_row(struct sb_collector *c, uint32_t tgid, uint32_t tid);
/*
 * A region the kernel names by hash: calls carrying that name hash are its
 * calls. name and file are made valid UTF-8 in place; tags are comma-separated.
 * A hash or name seen before adds nothing new. 0 or -ENOMEM.
 */
int sb_collector_add_region(struct sb_collector *c, uint64_t hash, char *name, char *file,
			    int line, const char *tags);
/*
 * Calls under alias (a stand-in the kernel gave a site it could not read) are
 * calls of the region already named by hash. 0, -ENOENT (hash unknown), -ENOMEM.
 */
int sb_collector_alias(struct sb_collector *c, uint64_t alias, uint64_t hash);
/* The FNV-1a hash the kernel gives a region name. */
uint64_t sb_name_hash(const char *name);

/*
 * record --rotate (collect_rotate.c): the calls collected so far move to
 * *piece, to be finished, written and freed; c goes on with a new spill and
 * what the next file needs of the old one (regions, names, region paths,
 * processes, threads, process slots, metadata), so that each file has the
 * same ranks and thread rows. 0, or -errno with c as it was.
 */
int sb_collector_rotate(struct sb_collector *c, struct sb_collector *piece, const char *spill_dir,
			size_t mem_budget);

/* The collector's metadata: calls_open_at_start, regions_open_at_start. 0 or -ENOMEM. */
int sb_collector_metadata(struct sb_collector *c);

/*
 * Close the profile: decide the ranks by the rank rule (one that fails or
 * numbers two processes alike is set aside for the default, with its error
 * in rank_rule_error), drop regions without calls, lay out the pairs, build
 * the thread table, sort the spilled calls. Afterwards c->prof describes the file
 * and sb_collector_stream() delivers its events in order.
 */
int sb_collector_finish(struct sb_collector *c);

struct sb_collect_stream {
	struct sb_event_stream base;
	struct sb_collector *c;
};

void sb_collector_stream(struct sb_collector *c, struct sb_collect_stream *s);

/* GPU work launched by one host API call (record/sources/cuda.c). */
struct sb_gpu_launch {
	uint32_t tgid;
	uint32_t tid;
	int64_t time;		/* when the launching call began */
	int64_t gpu_ns;		/* GPU time of what it launched */
	/* Set by sb_collector_attribute_gpu(): the innermost call open then, -1 when none. */
	int64_t pair;
	int64_t call_id;
	int64_t thread_row;	/* the thread's row in its rank, -1 when unknown */
};

/*
 * After sb_collector_finish(), before the events are streamed: give each
 * launch to the innermost call open on its thread at its time (one pass over
 * the calls), and each call the GPU time of what it launched. A pair with any
 * such call then has a GPU time on every call, 0 where it launched nothing
 * (FORMAT.md: all or nothing per index row), and its gpu_count/gpu_total.
 * 0 or -errno.
 */
int sb_collector_attribute_gpu(struct sb_collector *c, struct sb_gpu_launch *l, size_t n);

/* The GPU time of a call after attribution; -1 when its pair has none. */
int64_t sb_collector_gpu_ns(const struct sb_collector *c, uint32_t pair, int64_t call_id);

#endif
