/* In-memory profile: what readers fill, and what writers, reports and exports read. */
#ifndef SB_MODEL_H
#define SB_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/aggregate.h"
#include "model/columns.h"
#include "model/cuda.h"
#include "model/samples.h"
#include "model/stats.h"

/* One region: identity is the name; the first source location seen is kept. */
struct sb_region {
	char *name;
	char *source_file;	/* "" when unknown */
	int64_t source_line;	/* -1 when unknown */
	char *source_text;	/* "" when unknown */
	char *tags;		/* JSON list as a string, "[]" when none */
};

#define SB_MAX_RANK (1u << 20)	/* higher ranks are treated as corrupt */

/* One row of /rank_region_index: the calls of one region on one rank. */
struct sb_pair {
	uint32_t region;
	uint32_t rank;
	uint64_t offset;	/* first event of the pair in the event columns */
	uint64_t count;
	int64_t exclusive_total;	/* -1 when not computed */
	struct sb_stats stats;
};

/* One row of /thread_table. */
struct sb_thread {
	uint32_t rank;
	int64_t index;		/* 0..T-1 within the rank */
	int64_t tid;
	int64_t start_ns;
	int64_t end_ns;		/* -1 when alive at the end */
	int64_t cpu_ns;		/* -1 when unknown */
	char *name;
};

/* Which optional event columns exist: all rows or none (FORMAT.md). */
enum sb_column {
	SB_COL_THREAD = 1 << 0,
	SB_COL_CALL_ID = 1 << 1,
	SB_COL_PARENT_ID = 1 << 2,
	/* the metric columns (model/columns.h): SB_COL_METRIC(id) */
	SB_COL_GPU = SB_COL_METRIC(SB_METRIC_GPU),
	SB_COL_OFFCPU = SB_COL_METRIC(SB_METRIC_OFFCPU),
	/* start and end, which every file has: named only to ask a streaming reader for them */
	SB_COL_TIMES = 1 << 30,
};

/* One event row; id columns a file lacks read as -1, metric columns as their missing value. */
struct sb_event {
	int64_t start;
	int64_t end;
	int64_t thread;
	int64_t call_id;
	int64_t parent_id;
	int64_t metric[SB_N_ROW_METRICS];	/* by column id below SB_N_ROW_METRICS */
};

/* An event with nothing recorded: times 0, ids -1, metrics missing. */
void sb_event_blank(struct sb_event *e);

struct sb_profile;

/*
 * Counter values live out of line (docs/COUNTERS.md), so that a profile
 * without counters holds rows of 56 bytes: a profile with n counter slots
 * (SB_COL_METRIC(SB_METRIC_COUNTER + i) for i < n, each with its exclusive
 * column) holds n_events rows of 2n int64 values, the inclusive slots then
 * the exclusive ones, row i for event i.
 */

/* How many counter slots the profile's columns have (0..SB_COUNTER_SLOTS). */
unsigned sb_profile_counter_slots(const struct sb_profile *p);

/* Values per counter row: 2 * slots. */
static inline size_t sb_counter_stride(unsigned slots)
{
	return 2 * (size_t)slots;
}

/* Where column id (a counter column) sits in a counter row of a profile with slots slots. */
unsigned sb_counter_pos(unsigned slots, unsigned id);

/* The counter rows for the profile's events, all unknown (-1); 0 or -ENOMEM. */
int sb_profile_alloc_counters(struct sb_profile *p);

/*
 * The value of column id for event e, which lies in p->events when id is a
 * counter column; the column's missing value when the profile lacks it.
 */
int64_t sb_event_metric(const struct sb_profile *p, const struct sb_event *e, unsigned id);

/* Set the value of column id for event i; a counter column needs the counter rows. */
void sb_event_set_metric(struct sb_profile *p, size_t i, unsigned id, int64_t v);

/* One traced process (scope-bpf extension, /scope_bpf/processes). */
struct sb_process {
	int64_t pid;
	int64_t ppid;
	int64_t rank;		/* -1 when it recorded no region call */
	int64_t start_ns;	/* first seen */
	int64_t end_ns;		/* exit time, -1 if alive at the end */
	int64_t exit_code;	/* wait status as the kernel reports it, -1 unknown */
	char *command;
};

/* A metadata attribute: an int64 or a string. */
struct sb_meta {
	char *key;
	bool is_int;
	int64_t i;
	char *s;
};

/*
 * The arrays below grow by doubling in the add helpers: each has room for the
 * next power of two at or above its count (8 at least). Code that fills one
 * directly and later calls an add helper must allocate it that way.
 */
struct sb_profile {
	int schema;			/* scope-profiler schema the data came from */
	char *format;			/* human name of the source format */
	struct sb_region *regions;
	size_t n_regions;
	struct sb_pair *pairs;		/* in file order: offsets ascending */
	size_t n_pairs;
	struct sb_thread *threads;
	size_t n_threads;
	unsigned columns;		/* enum sb_column bits */
	struct sb_event *events;	/* NULL when streamed, not held */
	size_t n_events;
	int64_t *counters;		/* counter rows (above): events held and counted */
	struct sb_process *processes;
	size_t n_processes;
	struct sb_meta *meta;
	size_t n_meta;
	struct sb_samples samples;	/* empty unless sampling was on */
	struct sb_cuda_data cuda;	/* empty unless CUDA activity was recorded */
	struct sb_aggregate agg;	/* record --aggregate: its rows; then no events */
};

/*
 * Events delivered in file order (pair after pair, each pair's calls by start),
 * so a writer never needs the whole trace in memory. read() returns the number
 * of rows stored in rows (0 at the end) or a negative errno.
 */
struct sb_event_stream {
	/*
	 * counters, unless NULL, receives the rows' counter values: max counter
	 * rows of the profile's stride (above), all -1 where the source has none.
	 */
	ssize_t (*read)(struct sb_event_stream *s, struct sb_event *rows, int64_t *counters,
			size_t max);
};

struct sb_error;

/* A profile's events, read again from where they lie, one pass at a time. */
struct sb_event_source {
	/*
	 * Start a pass over all events in file order, filling at least the
	 * columns in mask (enum sb_column bits, SB_COL_TIMES for start and
	 * end). Returns 0, or a negative errno with err set.
	 */
	int (*open)(struct sb_event_source *src, unsigned mask, struct sb_event_stream **s,
		    struct sb_error *err);
	void (*close)(struct sb_event_source *src, struct sb_event_stream *s);
};

/* Calls in nesting order: by rank, then start, the longer of two with one start first. */
struct sb_ordered_calls {
	/* The next call and its index row: 1, 0 at the end, or a negative errno with err set. */
	int (*next)(struct sb_ordered_calls *s, struct sb_event *ev, size_t *pair,
		    struct sb_error *err);
};


void sb_profile_init(struct sb_profile *p);
void sb_profile_free(struct sb_profile *p);

/* Append helpers; each returns the new element's index or -ENOMEM. */
ssize_t sb_profile_add_region(struct sb_profile *p, const char *name, const char *file,
			      int64_t line, const char *tags_json);
ssize_t sb_profile_find_region(const struct sb_profile *p, const char *name);
ssize_t sb_profile_add_thread(struct sb_profile *p, const struct sb_thread *t);
ssize_t sb_profile_add_process(struct sb_profile *p, const struct sb_process *proc);
int sb_profile_set_int(struct sb_profile *p, const char *key, int64_t value);
int sb_profile_set_str(struct sb_profile *p, const char *key, const char *value);
const struct sb_meta *sb_profile_meta(const struct sb_profile *p, const char *key);

/*
 * (rank << 32 | index) of every thread row, sorted: which (rank, thread row)
 * pairs exist, for checking rows that point at threads. NULL when out of memory.
 */
uint64_t *sb_profile_thread_keys(const struct sb_profile *p, size_t *n);
/* Whether keys (sb_profile_thread_keys) hold thread row index of rank. */
bool sb_thread_keys_have(const uint64_t *keys, size_t n, uint32_t rank, uint64_t index);

/* Rank count: max(mpi_size, highest rank + 1). */
uint32_t sb_profile_rank_count(const struct sb_profile *p);

/*
 * The ranks with anything recorded (calls, threads, processes): fewer than the
 * rank count when record -p took one rank of a job, whose mpi_size is the job's.
 */
uint32_t sb_profile_ranks_recorded(const struct sb_profile *p);

/*
 * Whether some call has a GPU time (record --cuda, or a scope-profiler file
 * with GPU times): where none has, GPU columns would be all dashes.
 */
bool sb_profile_has_gpu_times(const struct sb_profile *p);

#endif
