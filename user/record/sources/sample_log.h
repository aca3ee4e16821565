/*
 * CPU samples one by one, as the sample ring delivers them (struct
 * sb_sample_event), kept until the recording ends and then read back into
 * the profile's timeline. Past a buffer they go to a private temporary file,
 * so the recorder's memory does not grow with the recording's length while
 * the job runs beside it.
 */
#ifndef SB_SAMPLE_LOG_H
#define SB_SAMPLE_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "region.h"

/* Samples a profile's timeline holds at most (48 bytes each in memory and in the file). */
#define SB_TIMELINE_MAX (16u << 20)
/* Samples buffered in memory before the first write to disk, and per write. */
#define SB_SAMPLE_LOG_MEM 65536

struct sb_sample_log {
	char *dir;			/* where the temporary file goes */
	FILE *file;			/* NULL until the buffer first fills */
	struct sb_sample_event *buf;
	size_t n_buf, mem;		/* records in buf, and its room */
	uint64_t n_file;		/* records written to file */
	uint64_t max;			/* records kept at most */
	uint64_t dropped;		/* beyond max, or not written (disk full) */
	int error;			/* the first write error: -errno */
};

/* Keep up to max records, mem of them in memory. 0 or -ENOMEM. */
int sb_sample_log_init(struct sb_sample_log *l, const char *dir, uint64_t max, size_t mem);

/* One record; one that cannot be kept is counted in dropped, and the log goes on. */
void sb_sample_log_add(struct sb_sample_log *l, const struct sb_sample_event *e);

/* Records kept. */
uint64_t sb_sample_log_count(const struct sb_sample_log *l);

/*
 * Hand each record kept to fn, in the order they were added; stops at fn's
 * first error and returns it. 0, fn's error, or -errno when the file cannot
 * be read back.
 */
int sb_sample_log_each(struct sb_sample_log *l,
		       int (*fn)(void *ctx, const struct sb_sample_event *e), void *ctx);

void sb_sample_log_free(struct sb_sample_log *l);

/* Bytes of the sample ring for hz samples a second on ncpu CPUs (region.h's bounds). */
__u32 sb_sample_ring_bytes(int hz, int ncpu);

#endif
