/*
 * An annotation library's open regions on one thread (stack.h): the pure
 * bookkeeping, with no probe of its own; ends go through the caller's end().
 */
#include <string.h>

#include "stack.h"

void annot_stack_init(struct annot_stack *s, uint64_t id_base)
{
	memset(s, 0, sizeof(*s));
	s->id_base = id_base;
	pthread_mutex_init(&s->lock, NULL);
}

uint64_t annot_stack_id(struct annot_stack *s)
{
	return s->id_base + ++s->next_id;
}

bool annot_open(struct annot_stack *s, struct scope_bpf_site *site, uint64_t key, uint64_t id)
{
	if (s->beyond || s->depth == ANNOT_DEPTH) {
		s->beyond++;
		return false;
	}
	s->frames[s->depth++] = (struct annot_frame){ .site = site, .key = key, .id = id };
	return true;
}

/* End the innermost frames that have ended: the recorder pairs an end with the innermost open begin. */
static void unwind(struct annot_stack *s, annot_end_fn end)
{
	while (s->depth && s->frames[s->depth - 1].ended) {
		s->depth--;
		if (s->frames[s->depth].site)
			end(s->frames[s->depth].site);
	}
}

static void close_at(struct annot_stack *s, unsigned i, annot_end_fn end)
{
	s->frames[i].ended = true;
	unwind(s, end);
}

bool annot_close_key(struct annot_stack *s, uint64_t key, annot_end_fn end)
{
	unsigned i;

	/* Opens past the depth limit were the latest: their ends come first. */
	if (s->beyond) {
		s->beyond--;
		return true;
	}
	for (i = s->depth; i--;) {
		if (!s->frames[i].ended && !s->frames[i].id && s->frames[i].key == key) {
			close_at(s, i, end);
			return true;
		}
	}
	return false;
}

bool annot_close_id(struct annot_stack *s, uint64_t id, annot_end_fn end)
{
	unsigned i;

	for (i = s->depth; id && i--;) {
		if (!s->frames[i].ended && s->frames[i].id == id) {
			close_at(s, i, end);
			return true;
		}
	}
	return false;
}

bool annot_post(struct annot_stack *s, uint64_t id)
{
	unsigned n;
	bool ok;

	pthread_mutex_lock(&s->lock);
	n = atomic_load_explicit(&s->posted, memory_order_relaxed);
	ok = n < ANNOT_POSTS;
	if (ok) {
		s->posts[n] = id;
		atomic_store_explicit(&s->posted, n + 1, memory_order_release);
	}
	pthread_mutex_unlock(&s->lock);
	return ok;
}

void annot_take_posts(struct annot_stack *s, annot_end_fn end)
{
	unsigned i, n;

	if (__builtin_expect(!atomic_load_explicit(&s->posted, memory_order_acquire), 1))
		return;
	pthread_mutex_lock(&s->lock);
	n = atomic_load_explicit(&s->posted, memory_order_relaxed);
	for (i = 0; i < n; i++)
		annot_close_id(s, s->posts[i], end);
	atomic_store_explicit(&s->posted, 0, memory_order_relaxed);
	pthread_mutex_unlock(&s->lock);
}
