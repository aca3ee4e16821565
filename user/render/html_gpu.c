/* The HTML report's GPU data: GPU time per call path; kernels, copies and memsets per lane. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/cuda.h"
#include "render/html_gpu.h"
#include "util/demangle.h"
#include "util/text_format.h"

void sb_html_gpu_nodes(FILE *j, const struct sb_profile *p, const struct sb_calltree *t)
{
	const struct sb_ct_node *n;
	bool first = true;
	uint32_t i;

	if (!sb_profile_has_gpu_times(p))
		return;
	fputs(",\n\"gpu_nodes\": [", j);
	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE; i = sb_calltree_next(t, i)) {
		n = &t->nodes[i];
		fputs(first ? "" : ",", j);
		if (n->gpu == SB_CT_UNKNOWN)
			fputs("null", j);
		else
			fprintf(j, "%" PRId64, n->gpu);
		first = false;
	}
	fputc(']', j);
}

/* Walks the kept activities in profile order. */
struct gwalk {
	const struct sb_html_gpu *g;
	size_t i;
	int64_t shorter;
	size_t ties;
};

static bool wanted(const struct sb_html_gpu *g, const struct sb_cuda_activity *a)
{
	return sb_cuda_on_gpu(a->kind) && (g->rank < 0 || (int64_t)a->rank == g->rank);
}

static int64_t dur(const struct sb_cuda_activity *a)
{
	return a->end > a->start ? a->end - a->start : 0;
}

static const struct sb_cuda_activity *gwalk_next(struct gwalk *w)
{
	const struct sb_cuda_data *d = &w->g->p->cuda;
	const struct sb_cuda_activity *a;

	while (w->i < d->n_acts) {
		a = &d->acts[w->i++];
		if (!wanted(w->g, a) || dur(a) < w->shorter || (dur(a) == w->shorter && !w->ties))
			continue;
		if (dur(a) == w->shorter)
			w->ties--;
		return a;
	}
	return NULL;
}

static void gwalk_init(struct gwalk *w, const struct sb_html_gpu *g)
{
	*w = (struct gwalk){ .g = g, .shorter = g->shorter, .ties = g->ties };
}

static int cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

/* Over cap: the duration of the cap-th longest, and how many that long make the cut. */
static int find_cut(struct sb_html_gpu *g, size_t cap)
{
	const struct sb_cuda_activity *a;
	struct gwalk w;
	size_t n = 0, i;
	int64_t *d = malloc(g->total * sizeof(*d));

	if (!d)
		return -ENOMEM;
	gwalk_init(&w, g);
	while ((a = gwalk_next(&w)))
		d[n++] = dur(a);
	qsort(d, n, sizeof(*d), cmp_desc);
	g->shorter = d[cap - 1];
	for (i = cap; i > 0 && d[i - 1] == g->shorter; i--)
		g->ties++;
	free(d);
	return 0;
}

static int pick(struct sb_html_gpu *g, const struct sb_profile *p, int64_t rank, size_t cap)
{
	const struct sb_cuda_activity *a;
	struct gwalk w;
	size_t i;

	*g = (struct sb_html_gpu){ .p = p, .rank = rank, .shorter = INT64_MIN,
				   .t0 = INT64_MAX, .t1 = INT64_MIN };
	for (i = 0; i < p->cuda.n_acts; i++)
		g->total += wanted(g, &p->cuda.acts[i]);
	if (g->total > cap && find_cut(g, cap))
		return -ENOMEM;
	gwalk_init(&w, g);
	while ((a = gwalk_next(&w))) {
		g->shown++;
		g->t0 = a->start < g->t0 ? a->start : g->t0;
		g->t1 = a->end > g->t1 ? a->end : g->t1;
		if (sb_gpu_lanes_add(&g->lanes, a))
			return -ENOMEM;
	}
	return 0;
}

int sb_html_gpu_pick(struct sb_html_layer *l, const struct sb_profile *p, int64_t rank,
		     size_t cap)
{
	struct sb_html_gpu *g = calloc(1, sizeof(*g));
	int r;

	l->state = g;
	if (!g)
		return -ENOMEM;
	r = pick(g, p, rank, cap);
	l->shown = g->shown;
	l->t0 = g->t0;
	l->t1 = g->t1;
	return r;
}

void sb_html_gpu_release(struct sb_html_layer *l)
{
	struct sb_html_gpu *g = l->state;

	if (g)
		sb_gpu_lanes_free(&g->lanes);
	free(g);
	l->state = NULL;
}

static void write_lanes(FILE *j, const struct sb_html_gpu *g)
{
	size_t i;

	fputs("\"lanes\": [", j);
	for (i = 0; i < g->lanes.n; i++)
		fprintf(j, "%s{\"rank\": %u, \"device\": %" PRId64 ", \"stream\": %" PRId64 "}",
			i ? ", " : "", g->lanes.at[i].rank, g->lanes.at[i].device,
			g->lanes.at[i].stream);
	fputc(']', j);
}

/* Kernel names as people read them: demangled where they are C++. */
static void write_names(FILE *j, const struct sb_cuda_data *d)
{
	size_t i;
	char *s;

	fputs(",\n  \"names\": [", j);
	for (i = 0; i < d->n_names; i++) {
		s = sb_demangle(d->names[i]);
		fputs(i ? ", " : "", j);
		format_json_string(j, s ? s : d->names[i] ? d->names[i] : "");
		free(s);
	}
	fputc(']', j);
}

enum gcol { G_LANE, G_KIND, G_START, G_DUR, G_NAME, G_BYTES, G_COPY, G_REGION };

static const char *const gcol_names[] = {
	"lane", "kind", "start", "dur", "name", "bytes", "copy", "region",
};

static int64_t column_value(const struct sb_html_gpu *g, const struct sb_cuda_activity *a,
			    enum gcol c, int64_t t0)
{
	const struct sb_profile *p = g->p;

	switch (c) {
	case G_LANE:
		return (int64_t)sb_gpu_lane_of(&g->lanes, a);
	case G_KIND:
		return a->kind;
	case G_START:
		return a->start - t0;
	case G_DUR:
		return dur(a);
	case G_NAME:
		return a->name >= 0 && (size_t)a->name < p->cuda.n_names ? a->name : -1;
	case G_BYTES:
		return a->bytes;
	case G_COPY:
		return a->copy_kind;
	case G_REGION:
		if (a->pair < 0 || (uint64_t)a->pair >= p->n_pairs)
			return -1;
		return p->pairs[a->pair].region;
	}
	return -1;
}

int sb_html_gpu_write(FILE *j, const struct sb_html_layer *l, int64_t t0, const uint64_t *lanes,
		      size_t n_lanes)
{
	const struct sb_html_gpu *g = l->state;
	const struct sb_cuda_activity *a;
	struct gwalk w;
	unsigned c;
	bool first;

	/* The GPU lanes are its own: the host's are not its. */
	(void)lanes;
	(void)n_lanes;
	if (!g->shown)
		return 0;
	fprintf(j, ",\n \"gpu\": {\"total\": %zu, \"shown\": %zu, \"truncated\": %s, ", g->total,
		g->shown, g->shown < g->total ? "true" : "false");
	write_lanes(j, g);
	write_names(j, &g->p->cuda);
	for (c = 0; c < sizeof(gcol_names) / sizeof(gcol_names[0]); c++) {
		fprintf(j, ",\n  \"%s\": [", gcol_names[c]);
		first = true;
		gwalk_init(&w, g);
		while ((a = gwalk_next(&w))) {
			fprintf(j, first ? "%" PRId64 : ",%" PRId64,
				column_value(g, a, (enum gcol)c, t0));
			first = false;
		}
		fputc(']', j);
	}
	fputc('}', j);
	return 0;
}
