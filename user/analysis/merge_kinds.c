/*
 * A merge's kinds of data (model/data_kinds.c), by their columns' roles: each
 * table holds every input's rows, input after input; a time moves to the
 * first input's clock; an id into a table of the kind moves past the earlier
 * inputs' rows, or through a dictionary's merged rows; an index row becomes
 * its merged row. Ranks, thread rows and call ids stay as recorded: no two
 * inputs share a rank (merge.c checks), and thread rows and call ids count
 * within a rank. Then the kind's sort puts the rows in the file's order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"
#include "util/hashmap.h"

/* Where input i's rows of each table went: a first row, or a dictionary's row map. */
struct layout {
	const struct sb_kind *k;
	void *out;
	size_t n;
	size_t **base;		/* [table][input] the merged row of the input's row 0 */
	int64_t ***map;		/* [table][input][row] the merged row, dictionaries only */
	const size_t *at;	/* merged index rows: at[pairs[input] + row] */
	size_t *pairs;		/* [input] the index rows of the inputs before it */
};

static const void *in_data(const struct layout *l, const struct sb_merge_input *in)
{
	return sb_kind_data(l->k, &in->p);
}

static char *copy_str(const char *s)
{
	return strdup(s ? s : "");
}

/* The merged row of dictionary value s, added when new; -ENOMEM. */
static int64_t unify(const struct sb_table *t, void *out, struct sb_hashmap *ids,
		     const char *s)
{
	char **rows = sb_table_rows(t, out);
	size_t *len = sb_table_len(t, out), i;
	uint64_t h = sb_hash_str(s), *v = sb_hashmap_get(ids, h, strlen(s));

	if (v && !strcmp(rows[*v], s))
		return (int64_t)*v;
	/* Two values with one hash: rare enough for a search. */
	for (i = 0; v && i < *len; i++)
		if (!strcmp(rows[i], s))
			return (int64_t)i;
	rows[*len] = strdup(s);
	if (!rows[*len])
		return -ENOMEM;
	if (!v && sb_hashmap_put(ids, h, strlen(s), *len))
		return -ENOMEM;
	return (int64_t)(*len)++;
}

/* Dictionary j: every input's values once, each input's rows mapped to them. */
static int merge_dict(struct layout *l, const struct sb_merge_input *in, size_t j)
{
	const struct sb_table *t = &l->k->tables[j];
	struct sb_hashmap ids;
	const char *const *rows;
	size_t i, r, n;
	int64_t id = 0;

	l->map[j] = calloc(l->n, sizeof(*l->map[j]));
	if (!l->map[j])
		return -ENOMEM;
	sb_hashmap_init(&ids);
	for (i = 0; i < l->n && id >= 0; i++) {
		n = *sb_table_len(t, in_data(l, &in[i]));
		rows = sb_table_rows(t, in_data(l, &in[i]));
		l->map[j][i] = calloc(n ? n : 1, sizeof(**l->map[j]));
		if (!l->map[j][i])
			id = -ENOMEM;
		for (r = 0; r < n && id >= 0; r++) {
			id = unify(t, l->out, &ids, rows[r] ? rows[r] : "");
			l->map[j][i][r] = id;
		}
	}
	sb_hashmap_free(&ids);
	return id < 0 ? (int)id : 0;
}

/* Room for every input's rows of table j, and where each input's begin. */
static int lay_out(struct layout *l, const struct sb_merge_input *in, size_t j)
{
	const struct sb_table *t = &l->k->tables[j];
	size_t i, total = 0;
	void *rows;

	l->base[j] = calloc(l->n, sizeof(*l->base[j]));
	if (!l->base[j])
		return -ENOMEM;
	for (i = 0; i < l->n; i++) {
		l->base[j][i] = total;
		total += *sb_table_len(t, in_data(l, &in[i]));
	}
	rows = calloc(total + 1, t->stride);
	if (!rows)
		return -ENOMEM;
	*(void **)((char *)l->out + t->arr) = rows;
	return t->unique ? merge_dict(l, in, j) : 0;
}

/* Value v of column c of input i, moved as its role says; false when a time overflows. */
static bool move(const struct layout *l, const struct sb_merge_input *in, size_t i,
		 const struct sb_table_col *c, int64_t *v)
{
	if (*v < 0 && (*v == -1 || c->role != SB_ROLE_TIME))
		return true;
	switch (c->role) {
	case SB_ROLE_TIME:
		return !__builtin_add_overflow(*v, in->shift, v);
	case SB_ROLE_ID:
	case SB_ROLE_REGION:
		if (c->ref == SB_REF_INDEX_ROWS)
			*v = (int64_t)l->at[l->pairs[i] + (size_t)*v];
		else if (l->k->tables[c->ref].unique)
			*v = l->map[c->ref][i][*v];
		else
			*v += (int64_t)l->base[c->ref][i];
		return true;
	default:
		return true;
	}
}

/* Row r of input i's table t, appended to the merged table with its values moved. */
static int append_row(const struct layout *l, const struct sb_merge_input *in, size_t i,
		      const struct sb_table *t, size_t r, struct sb_error *err)
{
	const char *from = (const char *)sb_table_rows(t, in_data(l, in)) + r * t->stride;
	size_t *len = sb_table_len(t, l->out), c;
	char *rows = sb_table_rows(t, l->out), *to = rows + *len * t->stride;
	const struct sb_table_col *col;
	int64_t v;

	memcpy(to, from, t->stride);
	(*len)++;
	for (c = 0; c < t->n_cols; c++) {
		col = &t->cols[c];
		if (col->type == SB_COL_STR) {
			*(char **)(to + col->off) = copy_str(*(char *const *)(from + col->off));
			if (!*(char **)(to + col->off))
				return -ENOMEM;
			continue;
		}
		if (col->width != 1)
			continue;
		v = sb_table_int(col, rows, t->stride, *len - 1);
		if (!move(l, in, i, col, &v))
			return sb_fail(err, ERANGE, "%s: a %s's time overflows when moved to the "
				       "first file's clock", in->path, t->row ? t->row : l->k->what);
		sb_table_set_int(col, rows, t->stride, *len - 1, v);
	}
	return 0;
}

static int append_all(const struct layout *l, const struct sb_merge_input *in,
		      struct sb_error *err)
{
	const struct sb_table *t;
	size_t i, j, r, n;
	int ret = 0;

	for (j = 0; j < l->k->n_tables; j++) {
		t = &l->k->tables[j];
		for (i = 0; i < l->n && !t->unique; i++) {
			n = *sb_table_len(t, in_data(l, &in[i]));
			for (r = 0; r < n && !ret; r++)
				ret = append_row(l, &in[i], i, t, r, err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static bool any_rows(const struct sb_kind *k, const struct sb_merge_input *in, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < k->n_tables; j++)
			if (*sb_table_len(&k->tables[j], sb_kind_data(k, &in[i].p)))
				return true;
	return false;
}

static int merge_kind(struct layout *l, const struct sb_merge_input *in, struct sb_error *err)
{
	size_t j;
	int ret = 0;

	if (!any_rows(l->k, in, l->n))
		return 0;
	for (j = 0; j < l->k->n_tables && !ret; j++)
		ret = lay_out(l, in, j);
	if (!ret)
		ret = append_all(l, in, err);
	/* Inputs may hold ranks 0 and 2, and 1 and 3: the ranks interleave. */
	if (!ret && l->k->sort)
		l->k->sort(l->out);
	return ret;
}

static void free_layout(struct layout *l)
{
	size_t i, j;

	for (j = 0; l->base && l->map && j < l->k->n_tables; j++) {
		free(l->base[j]);
		for (i = 0; l->map[j] && i < l->n; i++)
			free(l->map[j][i]);
		free(l->map[j]);
	}
	free(l->base);
	free(l->map);
}

int sb_merge_kinds(struct sb_profile *out, const struct sb_merge_input *in, size_t n,
		   const size_t *at, struct sb_error *err)
{
	struct layout l = { .n = n, .at = at };
	size_t i, k;
	int ret = 0;

	l.pairs = calloc(n ? n : 1, sizeof(*l.pairs));
	if (!l.pairs)
		return -ENOMEM;
	for (i = 1; i < n; i++)
		l.pairs[i] = l.pairs[i - 1] + in[i - 1].p.n_pairs;
	for (k = 0; k < sb_n_kinds && !ret; k++) {
		l.k = sb_kinds[k];
		l.out = sb_kind_data(l.k, out);
		l.base = calloc(l.k->n_tables, sizeof(*l.base));
		l.map = calloc(l.k->n_tables, sizeof(*l.map));
		ret = l.base && l.map ? merge_kind(&l, in, err) : -ENOMEM;
		free_layout(&l);
	}
	free(l.pairs);
	return ret;
}
