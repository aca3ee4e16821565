/* Each region's and MPI function's inclusive and own time per rank, from the index rows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rank_matrix.h"

/* Past this many cells the page and the text would be unreadable anyway: 32 Mi, 768 MiB. */
#define MAX_CELLS (1ull << 25)

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The ranks with an index row or a thread, ascending: a file's mpi_size alone adds no column. */
static int collect_ranks(struct sb_rank_matrix *m, const struct sb_profile *p)
{
	size_t i, n = 0, u = 0;

	m->ranks = malloc((p->n_pairs + p->n_threads + 1) * sizeof(*m->ranks));
	if (!m->ranks)
		return -ENOMEM;
	for (i = 0; i < p->n_pairs; i++)
		m->ranks[n++] = p->pairs[i].rank;
	for (i = 0; i < p->n_threads; i++)
		m->ranks[n++] = p->threads[i].rank;
	qsort(m->ranks, n, sizeof(*m->ranks), cmp_u32);
	for (i = 0; i < n; i++)
		if (!u || m->ranks[i] != m->ranks[u - 1])
			m->ranks[u++] = m->ranks[i];
	m->n_ranks = (uint32_t)u;
	return 0;
}

static uint32_t column_of(const struct sb_rank_matrix *m, uint32_t rank)
{
	const uint32_t *at = bsearch(&rank, m->ranks, m->n_ranks, sizeof(rank), cmp_u32);

	return (uint32_t)(at - m->ranks);
}

/* a + b for b >= 0, held at INT64_MAX; *clamped counts the times it was. */
static int64_t add_held(int64_t a, int64_t b, uint64_t *clamped)
{
	int64_t s;

	if (!__builtin_add_overflow(a, b, &s))
		return s;
	(*clamped)++;
	return INT64_MAX;
}

/* Rows in order of first appearance; row_of[key] is SIZE_MAX for keys without calls. */
static int assign_rows(struct sb_rank_matrix *m, const struct sb_profile *p, size_t **row_of)
{
	size_t keys = p->n_regions + m->fns.n, i, k;

	*row_of = malloc((keys + 1) * sizeof(**row_of));
	m->rows = calloc(keys + 1, sizeof(*m->rows));
	if (!*row_of || !m->rows)
		return -ENOMEM;
	memset(*row_of, 0xff, (keys + 1) * sizeof(**row_of));
	for (i = 0; i < p->n_pairs; i++) {
		k = sb_mpi_fns_key(&m->fns, p->pairs[i].region);
		if (!p->pairs[i].count || (*row_of)[k] != SIZE_MAX)
			continue;
		(*row_of)[k] = m->n_rows;
		m->rows[m->n_rows++] = (struct sb_rank_row){
			.region = k < p->n_regions ? (uint32_t)k : m->fns.first[k - p->n_regions],
			.fn = k < p->n_regions ? -1 : (int32_t)(k - p->n_regions),
		};
	}
	return 0;
}

static int alloc_cells(struct sb_rank_matrix *m, struct sb_error *err)
{
	size_t cells = m->n_rows * m->n_ranks;

	if (m->n_ranks && m->n_rows > MAX_CELLS / m->n_ranks)
		return sb_fail(err, EFBIG, "rank heat map: %zu regions x %u ranks is more than %llu "
			       "cells", m->n_rows, m->n_ranks, MAX_CELLS);
	m->time = calloc(cells + 1, sizeof(*m->time));
	m->own = calloc(cells + 1, sizeof(*m->own));
	m->calls = calloc(cells + 1, sizeof(*m->calls));
	return m->time && m->own && m->calls ? 0 : -ENOMEM;
}

static void add_pair(struct sb_rank_matrix *m, const struct sb_pair *pr, size_t row)
{
	size_t c = row * m->n_ranks + column_of(m, pr->rank);
	int64_t t = pr->stats.total;

	/* A negative total is a broken file's: it adds nothing rather than subtract. */
	if (t < 0) {
		m->clamped++;
		t = 0;
	}
	m->time[c] = add_held(m->time[c], t, &m->clamped);
	m->calls[c] += pr->count;
	if (m->own[c] >= 0)
		m->own[c] = pr->exclusive_total < 0 ? -1 :
			    add_held(m->own[c], pr->exclusive_total, &m->clamped);
}

/* max, slowest, mean and ratio of row r from its cells. */
static void row_stats(struct sb_rank_matrix *m, size_t r)
{
	struct sb_rank_row *row = &m->rows[r];
	const int64_t *t = &m->time[r * m->n_ranks];
	const uint64_t *n = &m->calls[r * m->n_ranks];
	uint64_t ignored = 0;
	double sum = 0;
	uint32_t c;

	row->max = -1;
	for (c = 0; c < m->n_ranks; c++) {
		sum += (double)t[c];
		row->total = add_held(row->total, t[c], &ignored);
		row->calls += n[c];
		if (t[c] > row->max) {
			row->max = t[c];
			row->slowest = m->ranks[c];
		}
	}
	row->mean = sum / m->n_ranks;
	row->ratio = sum > 0 ? (double)row->max / row->mean : 0;
}

static int cmp_rows(const void *x, const void *y, void *ctx)
{
	const struct sb_rank_row *rows = ctx, *a = &rows[*(const size_t *)x],
				 *b = &rows[*(const size_t *)y];

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	return (a->region > b->region) - (a->region < b->region);
}

/* A copy of n rows of size bytes each, row i being rows[order[i]]; NULL on -ENOMEM. */
static void *permuted(const void *rows, const size_t *order, size_t n, size_t size)
{
	char *to = malloc(n * size + 1);
	size_t i;

	for (i = 0; to && i < n; i++)
		memcpy(to + i * size, (const char *)rows + order[i] * size, size);
	return to;
}

/* Put the rows and their cells in order of total time, most first. */
static int sort_rows(struct sb_rank_matrix *m)
{
	size_t *order = malloc((m->n_rows + 1) * sizeof(*order)), i, n = m->n_rows;
	size_t row = m->n_ranks * sizeof(*m->time);
	void *rows, *time, *own, *calls;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_rows, m->rows);
	rows = permuted(m->rows, order, n, sizeof(*m->rows));
	time = permuted(m->time, order, n, row);
	own = permuted(m->own, order, n, row);
	calls = permuted(m->calls, order, n, row);
	free(order);
	if (!rows || !time || !own || !calls) {
		free(rows);
		free(time);
		free(own);
		free(calls);
		return -ENOMEM;
	}
	free(m->rows);
	free(m->time);
	free(m->own);
	free(m->calls);
	m->rows = rows;
	m->time = time;
	m->own = own;
	m->calls = calls;
	return 0;
}

static int fill(struct sb_rank_matrix *m, const struct sb_profile *p, struct sb_error *err)
{
	size_t *row_of = NULL, i;
	int r;

	r = collect_ranks(m, p);
	r = r ? r : sb_mpi_fns_build(&m->fns, p);
	r = r ? r : assign_rows(m, p, &row_of);
	r = r ? r : alloc_cells(m, err);
	if (r) {
		free(row_of);
		return r;
	}
	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].count)
			add_pair(m, &p->pairs[i], row_of[sb_mpi_fns_key(&m->fns, p->pairs[i].region)]);
	free(row_of);
	for (i = 0; i < m->n_rows; i++)
		row_stats(m, i);
	return sort_rows(m);
}

int sb_rank_matrix_build(struct sb_rank_matrix *m, const struct sb_profile *p,
			 struct sb_error *err)
{
	int r;

	*m = (struct sb_rank_matrix){ 0 };
	r = fill(m, p, err);
	if (r == -ENOMEM)
		sb_fail(err, ENOMEM, "rank heat map: out of memory");
	if (r)
		sb_rank_matrix_free(m);
	return r;
}

void sb_rank_matrix_free(struct sb_rank_matrix *m)
{
	free(m->ranks);
	sb_mpi_fns_free(&m->fns);
	free(m->rows);
	free(m->time);
	free(m->own);
	free(m->calls);
	*m = (struct sb_rank_matrix){ 0 };
}

const char *sb_rank_row_name(const struct sb_rank_matrix *m, const struct sb_profile *p,
			     const struct sb_rank_row *r)
{
	return r->fn >= 0 ? m->fns.name[r->fn] : p->regions[r->region].name;
}

double sb_rank_cell_relative(const struct sb_rank_matrix *m, size_t row, uint32_t column)
{
	const struct sb_rank_row *r = &m->rows[row];

	return r->mean > 0 ? (double)m->time[row * m->n_ranks + column] / r->mean : 0;
}
