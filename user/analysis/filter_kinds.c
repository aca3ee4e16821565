/*
 * --ranks, --include and --exclude on every kind of data (model/data_kinds.c),
 * by its columns' roles: rows of the ranks that go go; rows that point at an
 * index row follow it (renumbered, or pointing at no call when it went, or
 * gone with it when the table's rows belong to their call); region paths skip
 * the filtered-out names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "util/hashmap.h"

/* The strings of a row that goes: the kind's free sees only the rows kept. */
static void drop_row(const struct sb_table *t, char *row)
{
	size_t i;

	for (i = 0; i < t->n_cols; i++)
		if (t->cols[i].type == SB_COL_STR)
			free(*(char **)(row + t->cols[i].off));
}

/* Table t's rows of the ranks kept, by its column of role rank c. */
static void keep_table_ranks(const struct sb_filter *f, const struct sb_table *t,
			     const struct sb_table_col *c, void *d)
{
	size_t r, k, *n = sb_table_len(t, d), size = t->stride;
	char *rows = sb_table_rows(t, d);

	for (r = k = 0; r < *n; r++) {
		if (!sb_filter_rank(f, (uint32_t)sb_table_int(c, rows, size, r))) {
			drop_row(t, rows + r * size);
			continue;
		}
		if (k != r)
			memcpy(rows + k * size, rows + r * size, size);
		k++;
	}
	*n = k;
}

/* Table t's column of role REGION that holds index rows, or NULL. */
static const struct sb_table_col *index_row_col(const struct sb_table *t)
{
	size_t i;

	for (i = 0; i < t->n_cols; i++)
		if (t->cols[i].role == SB_ROLE_REGION && t->cols[i].ref == SB_REF_INDEX_ROWS)
			return &t->cols[i];
	return NULL;
}

/*
 * Table t's rows after the index rows moved (to[i]: row i's new number, -1
 * gone). A row whose index row went points at no call, or goes with it when
 * t->follows_call says its time is the call's (GPU work: its GPU time leaves
 * the call tree with it); with --include or --exclude such a row outside
 * every region goes too, since no region the filter keeps holds it.
 */
static void follow_calls(const struct sb_filter *f, const struct sb_table *t,
			 const struct sb_table_col *rc, void *d, const int64_t *to, size_t n_to)
{
	const struct sb_table_col *cc = sb_table_role(t, SB_ROLE_CALL_ID);
	bool regions = f->has_include || f->has_exclude;
	size_t r, k, *n = sb_table_len(t, d), size = t->stride;
	char *rows = sb_table_rows(t, d);
	int64_t was, now;

	for (r = k = 0; r < *n; r++) {
		was = sb_table_int(rc, rows, size, r);
		now = was >= 0 && (uint64_t)was < n_to ? to[was] : was;
		if (now < 0 && t->follows_call && t->follows_call(rows + r * size) &&
		    (was >= 0 || regions)) {
			drop_row(t, rows + r * size);
			continue;
		}
		if (k != r)
			memcpy(rows + k * size, rows + r * size, size);
		sb_table_set_int(rc, rows, size, k, now);
		if (now < 0 && cc)
			sb_table_set_int(cc, rows, size, k, -1);
		k++;
	}
	*n = k;
}

/* The STR column of a region path table: the path's last name. */
static const struct sb_table_col *name_col(const struct sb_table *t)
{
	size_t i;

	for (i = 0; i < t->n_cols; i++)
		if (t->cols[i].type == SB_COL_STR)
			return &t->cols[i];
	return NULL;
}

/* The column of region path table j (of kind k) that holds each path's parent path. */
static const struct sb_table_col *parent_col(const struct sb_kind *k, size_t j)
{
	const struct sb_table *t = &k->tables[j];
	size_t i;

	for (i = 0; i < t->n_cols; i++)
		if (t->cols[i].role == SB_ROLE_ID && t->cols[i].ref == (int)j)
			return &t->cols[i];
	return NULL;
}

/*
 * eff[i]: region path i of table j once the filtered-out names are skipped: a
 * path's parent becomes its nearest kept ancestor, and two paths that then
 * read the same become one. Parents come before their children. -ENOMEM.
 */
static int repath(const struct sb_filter *f, const struct sb_kind *k, size_t j, void *d,
		  int64_t *eff)
{
	const struct sb_table *t = &k->tables[j];
	const struct sb_table_col *pc = parent_col(k, j), *nc = name_col(t);
	size_t i, n = *sb_table_len(t, d);
	char *rows = sb_table_rows(t, d);
	struct sb_hashmap seen;
	int64_t parent, own;
	const char *name;
	uint64_t *was;
	int r = 0;

	sb_hashmap_init(&seen);
	for (i = 0; i < n && !r; i++) {
		own = sb_table_int(pc, rows, t->stride, i);
		parent = own >= 0 ? eff[own] : -1;
		name = *(char **)(rows + i * t->stride + nc->off);
		if (!sb_filter_region(f, name)) {
			eff[i] = parent;
			continue;
		}
		sb_table_set_int(pc, rows, t->stride, i, parent);
		was = sb_hashmap_get(&seen, (uint64_t)(parent + 1), sb_hash_str(name));
		if (was && !strcmp(*(char **)(rows + *was * t->stride + nc->off), name)) {
			eff[i] = (int64_t)*was;
			continue;
		}
		eff[i] = (int64_t)i;
		r = sb_hashmap_put(&seen, (uint64_t)(parent + 1), sb_hash_str(name), i);
	}
	sb_hashmap_free(&seen);
	return r;
}

/* Every REGION column of kind k that holds paths of table j, through eff. */
static void move_paths(const struct sb_kind *k, size_t j, void *d, const int64_t *eff)
{
	const struct sb_table_col *c;
	const struct sb_table *t;
	size_t i, ci, r, n;
	int64_t v;

	for (i = 0; i < k->n_tables; i++) {
		t = &k->tables[i];
		n = *sb_table_len(t, d);
		for (ci = 0; ci < t->n_cols; ci++) {
			c = &t->cols[ci];
			if (c->role != SB_ROLE_REGION || c->ref != (int)j)
				continue;
			for (r = 0; r < n; r++) {
				v = sb_table_int(c, sb_table_rows(t, d), t->stride, r);
				if (v >= 0)
					sb_table_set_int(c, sb_table_rows(t, d), t->stride, r, eff[v]);
			}
		}
	}
}

/* Whether a REGION column of kind k holds paths of table j: j is a region path table. */
static bool holds_paths(const struct sb_kind *k, size_t j)
{
	size_t i, c;

	for (i = 0; i < k->n_tables; i++)
		for (c = 0; c < k->tables[i].n_cols; c++)
			if (k->tables[i].cols[c].role == SB_ROLE_REGION &&
			    k->tables[i].cols[c].ref == (int)j)
				return true;
	return false;
}

static int repath_kind(const struct sb_filter *f, const struct sb_kind *k, void *d)
{
	size_t j, n;
	int64_t *eff;
	int r = 0;

	for (j = 0; j < k->n_tables && !r; j++) {
		if (!holds_paths(k, j) || !parent_col(k, j) || !name_col(&k->tables[j]))
			continue;
		n = *sb_table_len(&k->tables[j], d);
		eff = malloc((n ? n : 1) * sizeof(*eff));
		if (!eff)
			return -ENOMEM;
		r = repath(f, k, j, d, eff);
		if (!r)
			move_paths(k, j, d, eff);
		free(eff);
	}
	return r;
}

static int filter_kind(const struct sb_filter *f, const struct sb_kind *k, void *d,
		       const int64_t *to, size_t n_to)
{
	const struct sb_table_col *c;
	const struct sb_table *t;
	size_t j;

	for (j = 0; j < k->n_tables; j++) {
		t = &k->tables[j];
		c = sb_table_role(t, SB_ROLE_RANK);
		if (c)
			keep_table_ranks(f, t, c, d);
		c = index_row_col(t);
		if (c)
			follow_calls(f, t, c, d, to, n_to);
	}
	/* Paths of merged inputs that read the same become one, also under --ranks alone. */
	return repath_kind(f, k, d);
}

int sb_filter_kinds(const struct sb_filter *f, struct sb_profile *p, const int64_t *to,
		    size_t n_to, struct sb_error *err)
{
	size_t i;
	int r;

	for (i = 0; i < sb_n_kinds; i++) {
		r = filter_kind(f, sb_kinds[i], sb_kind_data(sb_kinds[i], p), to, n_to);
		if (r)
			return sb_fail(err, -r, "filtering the %s: %s", sb_kinds[i]->what,
				       strerror(-r));
	}
	return 0;
}
