/* Open addressing with linear probing; the collector never deletes, so no tombstones. */
#include <errno.h>
#include <stdlib.h>

#include "util/hashmap.h"

void sb_hashmap_init(struct sb_hashmap *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->len = 0;
}

void sb_hashmap_free(struct sb_hashmap *m)
{
	free(m->slots);
	sb_hashmap_init(m);
}

static size_t slot_of(uint64_t a, uint64_t b, size_t cap)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;

	h ^= h >> 31;
	return (size_t)h & (cap - 1);
}

uint64_t *sb_hashmap_get(const struct sb_hashmap *m, uint64_t a, uint64_t b)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(a, b, m->cap); m->slots[i].used; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].a == a && m->slots[i].b == b)
			return &m->slots[i].value;
	return NULL;
}

static void place(struct sb_hash_slot *slots, size_t cap, const struct sb_hash_slot *s)
{
	size_t i = slot_of(s->a, s->b, cap);

	while (slots[i].used)
		i = (i + 1) & (cap - 1);
	slots[i] = *s;
}

static int grow(struct sb_hashmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	struct sb_hash_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			place(slots, cap, &m->slots[i]);
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int sb_hashmap_put(struct sb_hashmap *m, uint64_t a, uint64_t b, uint64_t value)
{
	struct sb_hash_slot s = { .a = a, .b = b, .value = value, .used = true };
	uint64_t *v = sb_hashmap_get(m, a, b);

	if (v) {
		*v = value;
		return 0;
	}
	/* Keep the load under 1/2 so probe sequences stay short. */
	if ((m->len + 1) * 2 > m->cap && grow(m))
		return -ENOMEM;
	place(m->slots, m->cap, &s);
	m->len++;
	return 0;
}

uint64_t sb_hash_str(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}
