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
				    int64_t *counters, size_t max)
{
	struct sb_array_stream *s = (struct sb_array_stream *)base;
	size_t n = s->p->n_events - s->next;
	size_t stride = sb_counter_stride(sb_profile_counter_slots(s->p)), i;

	if (n > max)
		n = max;
	memcpy(rows, s->p->events + s->next, n * sizeof(*rows));
	for (i = 0; counters && i < n * stride; i++)
		counters[i] = s->p->counters ? s->p->counters[s->next * stride + i] : -1;
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
