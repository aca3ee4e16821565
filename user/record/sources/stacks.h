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

struct sb_stacks {
	struct sb_symbolizer *sym;
	struct sb_hashmap frame_of;	/* (content hash, 0) -> frame id */
	struct sb_hashmap stack_of;	/* (tgid or KERNEL_TGID, stack id) -> model stack id */
	uint64_t outside;		/* samples of processes that are not ranks */
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

#endif
