/* Sampled stacks in the model (scope-bpf extension, /scope_bpf/): which code ran or blocked in which region path. */
#ifndef SB_SAMPLES_H
#define SB_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/table.h"

/* One symbolized frame; an inlined call is a frame of its own, marked inlined. */
struct sb_frame_sym {
	char *function;		/* "" when unknown */
	char *file;		/* source file, "" when unknown */
	int64_t line;		/* -1 when unknown */
	char *module;		/* ELF object path, or "[kernel]" */
	uint64_t offset;	/* address within the module (kernel: the address) */
	bool inlined;		/* inlined into the next, outer frame */
};

/* A stack: stack_frames[first .. first + depth), leaf first. */
struct sb_stack {
	uint64_t first;
	uint32_t depth;
};

/* A region path: the region's name under its parent path (-1: top level). */
struct sb_region_path {
	int64_t parent;
	char *name;
};

enum sb_sample_kind {
	SB_SAMPLE_CPU = 0,	/* count = samples taken while running */
	SB_SAMPLE_OFFCPU = 1,	/* count = blocking intervals, ns = time blocked */
};

/* One aggregate: how often (or how long) a thread was in this stack and region path. */
struct sb_sample {
	uint32_t kind;
	uint32_t rank;
	int64_t thread;		/* row index within the rank's threads, -1 unknown */
	int64_t path;		/* region path id, -1 outside every region */
	int64_t ustack;		/* user stack id, -1 none */
	int64_t kstack;		/* kernel stack id, -1 none */
	uint64_t count;
	uint64_t ns;
};

/*
 * One CPU sample on its own, which its aggregate row also counts: when it was
 * taken, on which CPU, and what ran. Optional: recordings that kept only the
 * aggregates have none.
 */
struct sb_timed_sample {
	int64_t time;		/* ns on the events' clock */
	uint32_t rank;
	uint32_t cpu;
	int64_t thread;		/* row index within the rank's threads, -1 unknown */
	int64_t path;		/* region path id, -1 outside every region */
	int64_t ustack;		/* user stack id, -1 none */
	int64_t kstack;		/* kernel stack id, -1 none */
};

struct sb_samples {
	struct sb_frame_sym *frames;
	size_t n_frames;
	uint32_t *stack_frames;		/* frame ids */
	size_t n_stack_frames;
	struct sb_stack *stacks;
	size_t n_stacks;
	struct sb_region_path *paths;
	size_t n_paths;
	struct sb_sample *samples;
	size_t n_samples;
	struct sb_timed_sample *timeline;	/* by rank, then time */
	size_t n_timeline;
};

void sb_samples_free(struct sb_samples *s);

/* struct sb_samples as tables with column roles (model/samples_table.c). */
extern const struct sb_kind sb_samples_kind;

/*
 * One CPU sample whose region path by time (the innermost call holding it)
 * is not the one its stack read gave at sample time.
 */
struct sb_sample_move {
	uint32_t rank;
	int64_t thread;
	int64_t ustack;
	int64_t kstack;
	int64_t from;		/* the path its aggregate counted it in */
	int64_t to;
};

/*
 * Move one count per move from the CPU aggregate (rank, thread, from, stacks)
 * to (rank, thread, to, stacks), made if missing; aggregates left empty go.
 * The aggregates come out sorted by kind, rank, thread, path, then stacks.
 * A move from an aggregate that has no count left is not made (counted in
 * *refused). 0 or -ENOMEM (nothing changed).
 */
int sb_samples_move_cpu(struct sb_samples *s, const struct sb_sample_move *m, size_t n,
			uint64_t *refused);

/* Sort the timeline as files keep it: by rank, then time; ties by thread, then CPU. */
void sb_samples_sort_timeline(struct sb_samples *s);

#endif
