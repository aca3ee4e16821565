/*
 * The stack table: stacks the kernel aggregated (CPU samples, off-CPU blocks)
 * symbolized into the model's frames and stacks, shared by the sources that
 * take stacks. As a source of its own it keeps each process's mappings while
 * it lives, so that its stacks can be symbolized after it is gone.
 */
#ifndef SB_STACKS_H
#define SB_STACKS_H

#include <stdint.h>

#include "record/source.h"
#include "util/hashmap.h"

struct sb_sample_log;
struct sb_symbolizer;

struct sb_span_point;

struct sb_stacks {
	struct sb_symbolizer *sym;
	struct sb_hashmap frame_of;	/* (content hash, 0) -> frame id */
	struct sb_hashmap stack_of;	/* (tgid or KERNEL_TGID, stack id) -> model stack id */
	uint64_t outside;		/* samples of processes that are not ranks */
	uint64_t moved;			/* timed samples whose path by time was not their stack read's */
	uint64_t refused;		/* of those, moves their aggregate had no count for */
};

/*
 * After sb_collector_finish: read one aggregation map (struct sb_sample_key ->
 * a count, or struct sb_offcpu_value) into sample rows of this kind. Processes
 * that are not ranks (they completed no region call) are left out and counted.
 * 0 or -ENOMEM.
 */
int sb_stacks_read(struct sb_stacks *st, struct sb_source_env *env, int map_fd,
		   enum sb_sample_kind kind);

/*
 * After the CPU aggregates were read: the samples of log as the profile's
 * timeline, sorted by rank, then time; each row names its thread, path and
 * stacks as its aggregate does. Samples of processes that are not ranks are
 * left out, as their aggregates are. 0, or -errno with no timeline (memory,
 * or the log could not be read back).
 */
int sb_stacks_timeline(struct sb_stacks *st, struct sb_source_env *env, struct sb_sample_log *log);

/*
 * The timeline's samples take the region path of the innermost call holding
 * each (places[i] is timeline row i's thread and time), and their CPU
 * aggregates follow them; a sample no kept call holds keeps the path its
 * stack read gave (its call was lost, or still open at the end). Reorders
 * places. 0 or -errno (the caller then keeps no timeline).
 */
int sb_stacks_place_by_time(struct sb_stacks *st, struct sb_collector *c, struct sb_samples *o,
			    struct sb_span_point *places);

#endif
