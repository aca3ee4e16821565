/*
 * The counter values of the calls (record -e/-g), kept apart from the spill:
 * a spilled call carries only the index of its values here, so recordings
 * without counters sort and write no bigger records. Values are appended in
 * the order calls arrive, in memory up to a buffer, then on an unlinked file
 * in the spill's folder, read back through a mapping.
 */
#ifndef SB_CTR_STORE_H
#define SB_CTR_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "model/columns.h"

#define SB_CTR_VALUES (2 * SB_COUNTER_SLOTS)	/* most values a call has: 8 incl., 8 excl. */
#define SB_CTR_STORE_BUF 512			/* calls buffered before a write */

struct sb_ctr_store {
	char *dir;		/* the spill's folder, for the file */
	int fd;			/* -1 until the buffer first overflows */
	int64_t buf[SB_CTR_STORE_BUF * SB_CTR_VALUES];
	size_t width;		/* values per call, set by the first add; 0 before */
	size_t n_buf;
	uint64_t n;		/* calls stored */
	int error;		/* sticky: a write failed */
	const int64_t *map;	/* after finish: every call's values */
	size_t map_len;		/* bytes mapped, 0 when the values stayed in buf */
};

/* 0 or -ENOMEM. */
int sb_ctr_store_init(struct sb_ctr_store *s, const char *dir);

/*
 * Append one call's width values (1..SB_CTR_VALUES, what the recording counts:
 * every call the same); its index in *index. 0 or a negative errno (ENOSPC,
 * EINVAL for a width not the first call's).
 */
int sb_ctr_store_add(struct sb_ctr_store *s, const int64_t *values, size_t width,
		     int64_t *index);

/* Done adding: the values become readable. 0 or a negative errno. */
int sb_ctr_store_finish(struct sb_ctr_store *s);

/* After finish: the width values of call index, NULL when there is no such call. */
const int64_t *sb_ctr_store_get(const struct sb_ctr_store *s, int64_t index);

void sb_ctr_store_free(struct sb_ctr_store *s);

#endif
