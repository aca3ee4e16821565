/* The ordered merge over the transports (merge.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/transport/merge.h"

struct sb_merge_rec {
	struct sb_merge_rec *next;
	int64_t time;
	size_t size;
	unsigned char data[];
};

void sb_merge_init(struct sb_merge *m)
{
	memset(m, 0, sizeof(*m));
}

int sb_merge_add(struct sb_merge *m, struct sb_transport *t)
{
	if (m->n_backends == SB_MERGE_BACKENDS)
		return -ENOSPC;
	m->backends[m->n_backends++] = t;
	return 0;
}

int sb_merge_deliver(struct sb_merge *m)
{
	int ret = 0, err;
	size_t i;

	for (i = 0; i < m->n_backends; i++) {
		err = m->backends[i]->deliver(m->backends[i]);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

int64_t sb_merge_watermark(const struct sb_merge *m)
{
	int64_t least = INT64_MAX, w;
	size_t i;

	for (i = 0; i < m->n_backends; i++) {
		w = m->backends[i]->watermark_ns(m->backends[i]);
		if (w < least)
			least = w;
	}
	return least;
}

int sb_merge_hold(struct sb_merge *m, int64_t time, const void *rec, size_t size)
{
	struct sb_merge_rec *r = malloc(sizeof(*r) + size), **at;

	if (!r)
		return -ENOMEM;
	r->time = time;
	r->size = size;
	memcpy(r->data, rec, size);
	/* Records come nearly in time order: after the last is where most go. */
	if (!m->last || m->last->time <= time)
		at = m->last ? &m->last->next : &m->held;
	else
		for (at = &m->held; (*at)->time <= time; at = &(*at)->next)
			;
	r->next = *at;
	*at = r;
	if (!r->next)
		m->last = r;
	m->n_held++;
	return 0;
}

int sb_merge_release(struct sb_merge *m, int64_t before, sb_merge_fn fn, void *ctx)
{
	struct sb_merge_rec *r;
	int ret = 0;

	while (!ret && (r = m->held) && (before == INT64_MAX || r->time < before)) {
		m->held = r->next;
		if (!m->held)
			m->last = NULL;
		m->n_held--;
		ret = fn(ctx, r->data, r->size);
		free(r);
		if (ret > 0)
			ret = 0;
	}
	return ret;
}

void sb_merge_free(struct sb_merge *m)
{
	struct sb_merge_rec *r;

	while ((r = m->held)) {
		m->held = r->next;
		free(r);
	}
	sb_merge_init(m);
}
