/* Kernel names to small ids, so each name crosses to the recorder once. */
#ifndef SB_CUPTI_NAMES_H
#define SB_CUPTI_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_cuda_name_slot {
	char *name;		/* owned copy; NULL: free slot */
	uint64_t hash;
	uint32_t id;
};

struct sb_cuda_names {
	struct sb_cuda_name_slot *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t count;
};

/*
 * The id (1, 2, ...) of name, given the first time it is seen; *is_new says
 * whether this was that time. 0 when memory runs out.
 */
uint32_t sb_cuda_names_id(struct sb_cuda_names *t, const char *name, bool *is_new);
void sb_cuda_names_free(struct sb_cuda_names *t);

#endif /* SB_CUPTI_NAMES_H */
