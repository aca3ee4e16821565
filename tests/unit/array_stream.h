/* Tests write profiles they hold in memory: an event stream over p->events for sb_h5_write. */
#ifndef SB_TEST_ARRAY_STREAM_H
#define SB_TEST_ARRAY_STREAM_H

#include <string.h>
#include <sys/types.h>

#include "model/model.h"

struct sb_array_stream {
	struct sb_event_stream base;
	const struct sb_profile *p;
	size_t next;
};

static inline ssize_t sb_array_read(struct sb_event_stream *base, struct sb_event *rows,
				    size_t max)
{
	struct sb_array_stream *s = (struct sb_array_stream *)base;
	size_t n = s->p->n_events - s->next;

	if (n > max)
		n = max;
	memcpy(rows, s->p->events + s->next, n * sizeof(*rows));
	s->next += n;
	return (ssize_t)n;
}

static inline void sb_array_stream_init(struct sb_array_stream *s, const struct sb_profile *p)
{
	s->base.read = sb_array_read;
	s->p = p;
	s->next = 0;
}

#endif
