/*
 * The kinds of data a profile holds besides its calls, each described as
 * tables (model/table.h). A new kind is registered here, once: its place in
 * this list is its place in the file.
 */
#include <stdlib.h>

#include "model/model.h"
#include "model/table.h"

const struct sb_kind *const sb_kinds[] = {
	&sb_samples_kind,
	&sb_cuda_kind,
};

const size_t sb_n_kinds = sizeof(sb_kinds) / sizeof(sb_kinds[0]);

void *sb_kind_data(const struct sb_kind *k, const struct sb_profile *p)
{
	return (char *)p + k->in_profile;
}

void sb_kind_free(const struct sb_kind *k, void *d)
{
	const struct sb_table *t;
	size_t j, r, c, n;
	char *rows;

	for (j = 0; j < k->n_tables; j++) {
		t = &k->tables[j];
		rows = sb_table_rows(t, d);
		n = rows ? *sb_table_len(t, d) : 0;
		for (r = 0; r < n; r++)
			for (c = 0; c < t->n_cols; c++)
				if (t->cols[c].type == SB_COL_STR)
					free(*(char **)(rows + r * t->stride + t->cols[c].off));
		free(rows);
		*(void **)((char *)d + t->arr) = NULL;
		*sb_table_len(t, d) = 0;
	}
}

bool sb_kind_recorded(const struct sb_kind *k, const struct sb_profile *p)
{
	return *(const size_t *)((const char *)sb_kind_data(k, p) + k->gate) != 0;
}

int sb_kind_check(const struct sb_kind *k, const struct sb_profile *p, char *why, size_t len)
{
	int ret = sb_table_check_refs(k, sb_kind_data(k, p), p, why, len);

	return ret ? ret : k->check(p, why, len);
}

int sb_kinds_check(const struct sb_profile *p, char *why, size_t len)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < sb_n_kinds && !ret; i++)
		ret = sb_kind_check(sb_kinds[i], p, why, len);
	return ret;
}
