/* Scaling studies: rows as a tree in pre-order, and the rows where efficiency is lost. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scaling_impl.h"

/* A row's place among its siblings: the first run that has it says how long it took. */
static int64_t row_key(const struct sb_scaling *s, uint32_t i)
{
	size_t k;

	for (k = 0; k < s->n_runs; k++)
		if (s->rows[i].cells[k].present)
			return s->rows[i].cells[k].max;
	return 0;
}

static int cmp_siblings(const void *pa, const void *pb, void *arg)
{
	const struct sb_scaling *s = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int64_t ka = row_key(s, a), kb = row_key(s, b);

	if (ka != kb)
		return ka > kb ? -1 : 1;
	return strcmp(s->rows[a].name, s->rows[b].name);
}

/*
 * Pre-order of the rows into pre[]: each row's children linked in sibling
 * order (sorted[]), then walked without a stack through parents.
 */
static int preorder(const struct sb_scaling *s, const uint32_t *sorted, uint32_t *pre)
{
	uint32_t *head, *next, i;
	size_t k, out = 0;

	/* head[p + 1]: the first child of row p; head[0]: the first top-level row. */
	head = malloc((s->n_rows + 1) * sizeof(*head));
	next = malloc(s->n_rows * sizeof(*next));
	if (!head || !next) {
		free(head);
		free(next);
		return -ENOMEM;
	}
	for (k = 0; k <= s->n_rows; k++)
		head[k] = SB_SCALING_NONE;
	for (k = s->n_rows; k-- > 0;) {
		i = sorted[k];
		next[i] = head[s->rows[i].parent + 1];
		head[s->rows[i].parent + 1] = i;
	}
	for (i = head[0]; i != SB_SCALING_NONE;) {
		pre[out++] = i;
		if (head[i + 1] != SB_SCALING_NONE) {
			i = head[i + 1];
			continue;
		}
		while (i != SB_SCALING_NONE && next[i] == SB_SCALING_NONE)
			i = s->rows[i].parent;
		if (i != SB_SCALING_NONE)
			i = next[i];
	}
	free(head);
	free(next);
	return 0;
}

/* Move the rows into the order pre[] gives, parents renumbered. */
static int permute(struct sb_scaling *s, const uint32_t *pre)
{
	struct sb_scaling_row *rows;
	uint32_t *at;
	size_t k;

	rows = malloc(s->n_rows * sizeof(*rows));
	at = malloc(s->n_rows * sizeof(*at));
	if (!rows || !at) {
		free(rows);
		free(at);
		return -ENOMEM;
	}
	for (k = 0; k < s->n_rows; k++) {
		rows[k] = s->rows[pre[k]];
		at[pre[k]] = (uint32_t)k;
	}
	for (k = 0; k < s->n_rows; k++)
		if (rows[k].parent != SB_SCALING_NONE)
			rows[k].parent = at[rows[k].parent];
	free(s->rows);
	s->rows = rows;
	free(at);
	return 0;
}

static int cmp_growth(const void *pa, const void *pb, void *arg)
{
	const struct sb_scaling *s = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	double ga = s->rows[a].growth, gb = s->rows[b].growth;

	if (ga != gb)
		return ga > gb ? -1 : 1;
	return (a > b) - (a < b);
}

/* The rows whose share of the run grew from the first run to the last, most first. */
static int lost_rows(struct sb_scaling *s)
{
	size_t i;

	s->lost = malloc((s->n_rows ? s->n_rows : 1) * sizeof(*s->lost));
	if (!s->lost)
		return -ENOMEM;
	for (i = 0; i < s->n_rows; i++)
		if (s->rows[i].growth > 0)
			s->lost[s->n_lost++] = (uint32_t)i;
	qsort_r(s->lost, s->n_lost, sizeof(*s->lost), cmp_growth, s);
	return 0;
}

int sb_scaling_order(struct sb_scaling *s, struct sb_error *err)
{
	uint32_t *sorted, *pre;
	size_t k;
	int r;

	sorted = malloc((s->n_rows ? s->n_rows : 1) * sizeof(*sorted));
	pre = malloc((s->n_rows ? s->n_rows : 1) * sizeof(*pre));
	r = sorted && pre ? 0 : -ENOMEM;
	for (k = 0; !r && k < s->n_rows; k++)
		sorted[k] = (uint32_t)k;
	if (!r) {
		qsort_r(sorted, s->n_rows, sizeof(*sorted), cmp_siblings, s);
		r = preorder(s, sorted, pre);
	}
	if (!r)
		r = permute(s, pre);
	if (!r)
		r = lost_rows(s);
	free(sorted);
	free(pre);
	return r ? sb_fail(err, ENOMEM, "scaling: out of memory") : 0;
}
