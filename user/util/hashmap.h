/* A small open-addressing hash map from a pair of u64 keys to a u64 value. */
#ifndef SB_HASHMAP_H
#define SB_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_hash_slot {
	uint64_t a;
	uint64_t b;
	uint64_t value;
	bool used;
};

struct sb_hashmap {
	struct sb_hash_slot *slots;
	size_t cap;		/* power of two */
	size_t len;
};

void sb_hashmap_init(struct sb_hashmap *m);
void sb_hashmap_free(struct sb_hashmap *m);
/* Pointer to the value of (a, b), or NULL. Valid until the next insert. */
uint64_t *sb_hashmap_get(const struct sb_hashmap *m, uint64_t a, uint64_t b);
/* Insert or overwrite; 0 or -ENOMEM. */
int sb_hashmap_put(struct sb_hashmap *m, uint64_t a, uint64_t b, uint64_t value);

/* FNV-1a of a string: a key for the strings a map finds (compare them: two may share it). */
uint64_t sb_hash_str(const char *s);

#endif
