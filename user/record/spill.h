/* Bounded-memory external sort of per-call records, so a collector can hold any number of calls. */
#ifndef SB_SPILL_H
#define SB_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Metric slots of a spilled call: one per column the kernel's call record
 * measures (the collector's call_columns), then the index of its counter
 * values (record/ctr_store.h), not one per registered column, so the records
 * stay as small as what a recording can fill.
 */
#define SB_SPILL_METRICS 2

/* What the collector knows per completed call, written to disk as is. */
struct sb_spill_rec {
	uint32_t pair;		/* index of the (process, region) pair: ranks come later */
	uint32_t thread;	/* the collector's thread entry: a reused tid is another thread */
	int64_t start;
	int64_t end;
	int64_t call_id;
	int64_t parent_id;	/* -1 = top level */
	int64_t metric[SB_SPILL_METRICS];	/* by slot of the collector's call_columns */
};

struct sb_spill;

/*
 * Temporary files go to dir, created only once the records outgrow memory and
 * unlinked at once, so nothing is left behind even on a crash. Buffers stay
 * within mem_budget bytes (a few KiB at the least). NULL when out of memory.
 */
struct sb_spill *sb_spill_new(const char *dir, size_t mem_budget);

/*
 * Append one record; 0 or a negative errno (ENOSPC, EIO, ...). After the first
 * failure every call fails at once with the same errno: the records added
 * before it are kept and can still be sorted and read.
 */
int sb_spill_add(struct sb_spill *s, const struct sb_spill_rec *r);

/*
 * Make room for one record: 0 when the next sb_spill_add() will take it, else
 * the error it would return. For callers that must know before they index a record.
 */
int sb_spill_reserve(struct sb_spill *s);

uint64_t sb_spill_count(const struct sb_spill *s);

/* Finish adding and prepare reading; 0 or a negative errno. */
int sb_spill_sort(struct sb_spill *s);

/*
 * After sb_spill_sort(): the records in ascending (pair, start, call_id) order.
 * Returns the number stored in out (0 at the end) or a negative errno.
 */
ssize_t sb_spill_read(struct sb_spill *s, struct sb_spill_rec *out, size_t max);

/* After sb_spill_sort(): read from the first record again. 0 or a negative errno. */
int sb_spill_rewind(struct sb_spill *s);

void sb_spill_free(struct sb_spill *s);

/* For tests and diagnostics: sorted runs written to disk, and merge passes made over them. */
unsigned int sb_spill_runs(const struct sb_spill *s);
/* Of those, the runs written packed (32 bytes a record: spill.c). */
unsigned int sb_spill_runs_packed(const struct sb_spill *s);
unsigned int sb_spill_merge_passes(const struct sb_spill *s);

#endif
