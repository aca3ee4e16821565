/* Host time per CUDA API function (cuda_api_sum.h): calls grouped by function, then summed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cuda_api_sum.h"
#include "model/cuda.h"

/* One API call, keyed for grouping; sorted by key, then duration, for the median. */
struct call {
	int32_t kind;
	const char *fn;		/* the function's name; NULL when its callback id is not known */
	int64_t cbid;
	int64_t ns;
};

/* Calls of one function together: the versions of a function are one (model/cuda_api.c). */
static int cmp_fn(const struct call *x, const struct call *y)
{
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->fn && y->fn)
		return strcmp(x->fn, y->fn);
	if (x->fn || y->fn)
		return x->fn ? -1 : 1;
	return (x->cbid > y->cbid) - (x->cbid < y->cbid);
}

static int cmp_call(const void *a, const void *b)
{
	const struct call *x = a, *y = b;
	int r = cmp_fn(x, y);

	return r ? r : (x->ns > y->ns) - (x->ns < y->ns);
}

static bool is_api(int32_t kind)
{
	return kind == SB_CUDA_ACT_RUNTIME || kind == SB_CUDA_ACT_DRIVER;
}

static struct call *collect(const struct sb_profile *p, int64_t rank, size_t *n)
{
	const struct sb_cuda_activity *a;
	struct call *c;
	size_t i;

	*n = 0;
	c = malloc((p->cuda.n_acts ? p->cuda.n_acts : 1) * sizeof(*c));
	if (!c)
		return NULL;
	for (i = 0; i < p->cuda.n_acts; i++) {
		a = &p->cuda.acts[i];
		if (!is_api(a->kind) || (rank >= 0 && (int64_t)a->rank != rank))
			continue;
		c[(*n)++] = (struct call){ .kind = a->kind, .cbid = a->detail,
					   .fn = sb_cuda_api_name(a->kind, a->detail),
					   .ns = a->end > a->start ? a->end - a->start : 0 };
	}
	return c;
}

/* The row of the sorted calls c[0 .. n-1], all of one function. */
static void fill_row(struct sb_cuda_api_row *r, const struct call *c, size_t n)
{
	const char *api = c[0].kind == SB_CUDA_ACT_RUNTIME ? "runtime" : "driver";
	double mean, sq = 0;
	size_t i;

	*r = (struct sb_cuda_api_row){ .kind = c[0].kind, .calls = n, .min = c[0].ns,
				       .max = c[n - 1].ns };
	if (c[0].fn)
		snprintf(r->name, sizeof(r->name), "%s", c[0].fn);
	else if (c[0].cbid >= 0)
		snprintf(r->name, sizeof(r->name), "%s callback %lld", api, (long long)c[0].cbid);
	else
		snprintf(r->name, sizeof(r->name), "%s call", api);
	for (i = 0; i < n; i++)
		r->total += c[i].ns;
	r->avg = r->total / (int64_t)n;
	r->median = n % 2 ? c[n / 2].ns : c[n / 2 - 1].ns + (c[n / 2].ns - c[n / 2 - 1].ns) / 2;
	mean = (double)r->total / (double)n;
	for (i = 0; i < n; i++)
		sq += ((double)c[i].ns - mean) * ((double)c[i].ns - mean);
	r->stddev = n > 1 ? llround(sqrt(sq / (double)(n - 1))) : 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct sb_cuda_api_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

int sb_cuda_api_sum_build(struct sb_cuda_api_sum *s, const struct sb_profile *p, int64_t rank)
{
	size_t n, i, first, rows = 0;
	struct call *c;

	memset(s, 0, sizeof(*s));
	c = collect(p, rank, &n);
	if (!c)
		return -ENOMEM;
	qsort(c, n, sizeof(*c), cmp_call);
	for (i = 0; i < n; i++)
		rows += !i || cmp_fn(&c[i - 1], &c[i]);
	s->rows = calloc(rows ? rows : 1, sizeof(*s->rows));
	if (!s->rows) {
		free(c);
		return -ENOMEM;
	}
	for (first = 0, i = 1; i <= n; i++) {
		if (i < n && !cmp_fn(&c[first], &c[i]))
			continue;
		fill_row(&s->rows[s->n_rows], &c[first], i - first);
		s->total += s->rows[s->n_rows++].total;
		first = i;
	}
	free(c);
	qsort(s->rows, s->n_rows, sizeof(*s->rows), cmp_row);
	return 0;
}

void sb_cuda_api_sum_free(struct sb_cuda_api_sum *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}
