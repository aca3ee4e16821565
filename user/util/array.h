/* Growing a malloc'd array by doubling. */
#ifndef SB_ARRAY_H
#define SB_ARRAY_H

#include <stddef.h>

/* Make room for need elements of size bytes in *arr (capacity *cap); 0 or -ENOMEM. */
int sb_array_reserve(void **arr, size_t *cap, size_t need, size_t size);

#endif
