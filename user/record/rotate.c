/*
 * record --rotate: which file comes next and which one goes. The recorder
 * (record/recorder.c) closes a file at each interval; a file number that only
 * grows keeps every name distinct, so a deleted file is never one still wanted.
 */
#include "record/rotate.h"

bool sb_rotate_on(const struct sb_rotation *r)
{
	return r->interval_ns > 0 || r->max_calls;
}

bool sb_rotate_due(const struct sb_rotation *r, int64_t now, uint64_t calls)
{
	return (r->interval_ns > 0 && now - r->start_ns >= r->interval_ns) ||
	       (r->max_calls && calls >= r->max_calls);
}

int64_t sb_rotate_expired(const struct sb_rotation *r)
{
	if (!r->keep || r->index < r->keep)
		return -1;
	return (int64_t)(r->index - r->keep);
}
