/* The kernel name table: open addressing on a 64-bit FNV-1a hash of the name. */
#include <stdlib.h>
#include <string.h>

#include "names.h"

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static struct sb_cuda_name_slot *find_slot(struct sb_cuda_name_slot *slots, size_t cap,
					   const char *name, uint64_t hash)
{
	size_t i = hash & (cap - 1);

	while (slots[i].name &&
	       (slots[i].hash != hash || strcmp(slots[i].name, name) != 0))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

/* Keep the table at most half full, so probes stay short. */
static int grow(struct sb_cuda_names *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	struct sb_cuda_name_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		struct sb_cuda_name_slot *old = &t->slots[i];

		if (old->name)
			*find_slot(slots, cap, old->name, old->hash) = *old;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

uint32_t sb_cuda_names_id(struct sb_cuda_names *t, const char *name, bool *is_new)
{
	uint64_t hash = name_hash(name);
	struct sb_cuda_name_slot *slot;

	*is_new = false;
	if ((t->count + 1) * 2 > t->cap && grow(t))
		return 0;
	slot = find_slot(t->slots, t->cap, name, hash);
	if (slot->name)
		return slot->id;
	slot->name = strdup(name);
	if (!slot->name)
		return 0;
	slot->hash = hash;
	slot->id = (uint32_t)++t->count;
	*is_new = true;
	return slot->id;
}

void sb_cuda_names_free(struct sb_cuda_names *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i].name);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
