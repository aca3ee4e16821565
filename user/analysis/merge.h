/* Many profiles into one: the recordings of one job's nodes, each keeping its ranks. */
#ifndef SB_MERGE_H
#define SB_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/merge_clock.h"
#include "util/error.h"
#include "model/model.h"

/*
 * Merge the HDF5 profiles inputs[0..n) into one written atomically at output:
 * regions unified by name, every input's index rows, events, threads,
 * processes and kinds of data (samples, CUDA activity) kept, ranks as the
 * inputs numbered them. Every input is put on the first one's clock
 * (sb_merge_clock_shift()), every kind's times included (sb_merge_kinds()). Events are
 * streamed input after input in bounded chunks: memory grows with index rows,
 * threads and samples, never with calls, but for the files of one rotated
 * recording, joined in memory first (sb_merge_join_rotated()). Notes on what was adjusted go to
 * note (NULL: none). Returns 0; -EINVAL with "path: cause" in err for an
 * unreadable input or a rank two inputs hold; another -errno when writing
 * failed.
 */
int sb_merge(const char *const *inputs, size_t n, const char *output, FILE *note,
	     struct sb_error *err);

/* One input as the merge sees it. */
struct sb_merge_input {
	const char *path;
	struct sb_profile p;	/* read lean: events left on disk */
	int64_t shift;		/* added to every timestamp: the first input's clock */
	const char *clock;	/* how shift was found, for the metadata */
	int64_t estimate;	/* the realtime offsets' shift, before refinement */
	struct sb_shift_bounds bounds;	/* what its collectives allow */
	bool contradicts;	/* the bounds contradicted each other: not refined */
};

/*
 * The files of one rotated recording (record --rotate: the same start, metadata
 * rotate_index) among in[0..*n) become one input, at the place of the first,
 * its calls held in memory (analysis/merge_rotated.c); *n shrinks. 0, -ENOMEM,
 * or -EINVAL with err naming a file (one file number twice, other columns).
 */
int sb_merge_join_rotated(struct sb_merge_input *in, size_t *n, struct sb_error *err);

/*
 * Every kind of data (model/data_kinds.c: samples, CUDA activity) of the
 * inputs into out, once out's index rows are merged, by the columns' roles:
 * rows appended input after input; dictionaries (kernel names) unified by
 * content; ids into a table of the kind moved past the earlier inputs' rows;
 * index rows renumbered through at (input i's row k is merged row at[the
 * rows of inputs before i + k]); times moved by the input's shift (-1, no
 * time, stays); ranks, thread rows and call ids kept (ranks do not meet
 * across inputs); then the kind's sort. 0, -ENOMEM, or -ERANGE with err
 * naming the input whose times overflow on the first one's clock.
 */
int sb_merge_kinds(struct sb_profile *out, const struct sb_merge_input *in, size_t n,
		   const size_t *at, struct sb_error *err);

/*
 * out->agg from the inputs when they are aggregates (record --aggregate): all
 * of them or none, of one window length and the same summed columns, else
 * -EINVAL with err naming them; rows kept, paths appended, windows put on the
 * earliest origin on the first input's clock. 0 or -errno.
 */
int sb_merge_aggregate(struct sb_profile *out, const struct sb_merge_input *in, size_t n,
		       struct sb_error *err);

/* The metadata keys a recording writes for this (record/recorder.c). */
#define SB_META_CLOCK_START "clock_realtime_minus_monotonic_start_ns"
#define SB_META_CLOCK_END "clock_realtime_minus_monotonic_end_ns"
#define SB_META_BOOT_ID "boot_id"

/*
 * The shift that puts q's CLOCK_MONOTONIC times on ref's, into q->shift and
 * q->clock: 0 when both come from the same boot of one machine (one clock);
 * else the difference of their CLOCK_REALTIME - CLOCK_MONOTONIC offsets, each
 * the mean of its start and end readings (none when either lacks them),
 * refined by the blocking collectives both files saw (sb_shift_refine()).
 * -EINVAL with err set when the offsets or the collectives' times are out of
 * range, -ENOMEM.
 */
int sb_merge_clock_shift(const struct sb_merge_input *ref, struct sb_merge_input *q,
			 struct sb_error *err);

/*
 * out's metadata from the inputs: the first input's, with start and end
 * spanning all (shifted), mpi_size the largest (at least out's rank count),
 * num_nodes the distinct host names, loss counters summed, mpi_rank_times
 * of every rank (when an input has it), and a record of
 * the inputs: merge_inputs (JSON list: file, host, ranks, clock method,
 * estimate, bounds, shift), merge_clock_shift_ns_<i> and merge_clock_method.
 * 0 or -ENOMEM.
 */
int sb_merge_metadata(struct sb_profile *out, const struct sb_merge_input *in, size_t n);

#endif
