/* Tags of annotation regions (tags.h): a pure function, unit-tested through nvtx/names.c. */
#include <stdio.h>
#include <string.h>

#include "tags.h"

void annot_add_tag(char *out, size_t len, const char *key, const char *value)
{
	size_t at = strlen(out);
	int n = snprintf(out + at, len - at, ",%s:%s", key, value);
	char *c;

	if (n < 0 || (size_t)n >= len - at) {
		out[at] = 0;
		return;
	}
	for (c = out + at + 1 + strlen(key) + 1; *c; c++)
		if (*c == ',')
			*c = ';';
}
