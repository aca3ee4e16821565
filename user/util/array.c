/* Array growth shared by the tables that are filled one element at a time. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/array.h"

int sb_array_reserve(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*arr, n * size);
	if (!q)
		return -ENOMEM;
	*arr = q;
	*cap = n;
	return 0;
}
