/* record --rotate: one file per interval, named by -o's %n, the newest --rotate-keep kept. */
#ifndef SB_ROTATE_H
#define SB_ROTATE_H

#include <stdbool.h>
#include <stdint.h>

struct sb_rotation {
	int64_t interval_ns;	/* a file per interval; 0: none */
	uint64_t max_calls;	/* a file once it holds this many calls; 0: no cap */
	unsigned keep;		/* the newest files kept, 0 = all */
	uint64_t index;		/* the file being recorded, from 0 */
	uint64_t deleted;	/* older files deleted to keep only the newest */
	int64_t start_ns;	/* when the current file began */
};

/* Whether the recording is cut into files at all. */
bool sb_rotate_on(const struct sb_rotation *r);

/* Whether the file begun at r->start_ns, holding calls so far, is due to close at now. */
bool sb_rotate_due(const struct sb_rotation *r, int64_t now, uint64_t calls);

/*
 * After file r->index was written: the index of the file to delete so that
 * only the newest r->keep remain, or -1 when none is.
 */
int64_t sb_rotate_expired(const struct sb_rotation *r);

#endif
