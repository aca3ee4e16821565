/* The Perfetto export's GPU part: a track per rank, device and stream, its work as slices. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/chrome_trace.h"
#include "export/perfetto.h"
#include "util/demangle.h"

/* Names after the kernel names' iids (1..n_names): memcpy by CUpti_ActivityMemcpyKind, memset. */
#define PF_COPY_KINDS 11
#define PF_MEMSET (PF_COPY_KINDS + 1)

struct pf_lane {
	struct pf_seq seq;
	int64_t busy_until;	/* the end of its latest slice */
};

struct pf_gpu {
	struct pf_out *w;
	const struct sb_profile *p;
	struct sb_cuda_trace trace;	/* its lanes: sorted (rank, device, stream) */
	struct pf_lane *l;		/* parallel to trace.lanes */
	uint64_t skipped;
};

static struct pf_lane *lane_of(struct pf_gpu *g, const struct sb_cuda_activity *a)
{
	long at = sb_gpu_lane_of(&g->trace.lanes, a);

	return at < 0 ? NULL : &g->l[at];
}

/* "memcpy HtoD"; "memcpy" when the direction is unknown. */
static void copy_name(char *buf, size_t n, int64_t kind)
{
	const char *d = sb_cuda_copy_kind(kind);

	snprintf(buf, n, "memcpy%s%s", d ? " " : "", d ? d : "");
}

/* The name iid of a's slice, interned on its lane's sequence when new. */
static uint64_t name_iid(struct pf_gpu *g, struct pf_lane *l, const struct sb_cuda_activity *a)
{
	const struct sb_cuda_data *d = &g->p->cuda;
	uint64_t base = d->n_names, ck;
	char *s, copy[32];

	if (a->kind == SB_CUDA_ACT_KERNEL && a->name >= 0 && (size_t)a->name < d->n_names) {
		if (!l->seq.interned[a->name + 1]) {
			s = sb_demangle(d->names[a->name]);
			pf_intern(g->w, &l->seq, (uint64_t)a->name + 1,
				  s ? s : d->names[a->name] ? d->names[a->name] : "kernel");
			free(s);
		}
		return (uint64_t)a->name + 1;
	}
	if (a->kind == SB_CUDA_ACT_MEMCPY) {
		ck = a->copy_kind > 0 && a->copy_kind < PF_COPY_KINDS ? (uint64_t)a->copy_kind : 0;
		copy_name(copy, sizeof(copy), (int64_t)ck);
		pf_intern(g->w, &l->seq, base + 1 + ck, copy);
		return base + 1 + ck;
	}
	pf_intern(g->w, &l->seq, base + 1 + PF_MEMSET,
		  a->kind == SB_CUDA_ACT_MEMSET ? "memset" : "kernel");
	return base + 1 + PF_MEMSET;
}

static int put_lanes(struct pf_gpu *g, const uint64_t *rank_uuid, uint32_t n_ranks)
{
	Perfetto__Protos__TrackDescriptor d;
	const struct sb_gpu_lane *ln;
	char name[64];
	uint64_t uuid;
	size_t i;
	int r;

	for (i = 0; i < g->trace.lanes.n; i++) {
		ln = &g->trace.lanes.at[i];
		snprintf(name, sizeof(name), "GPU %lld stream %lld", (long long)ln->device,
			 (long long)ln->stream);
		d = (Perfetto__Protos__TrackDescriptor)PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		d.has_parent_uuid = ln->rank < n_ranks;
		d.parent_uuid = d.has_parent_uuid ? rank_uuid[ln->rank] : 0;
		d.name = name;
		uuid = pf_track(g->w, &d);
		g->l[i].busy_until = INT64_MIN;
		r = pf_seq_start(g->w, &g->l[i].seq, uuid, NULL, 0,
				 g->p->cuda.n_names + 1 + PF_MEMSET);
		if (r)
			return r;
	}
	return 0;
}

/* GPU work in the profile's order (by rank, then start); work that overlaps its lane's is left out. */
static void put_work(struct pf_gpu *g)
{
	const struct sb_cuda_activity *a;
	struct pf_lane *l;
	uint64_t iid;
	size_t i;

	for (i = 0; i < g->p->cuda.n_acts; i++) {
		a = &g->p->cuda.acts[i];
		if (!sb_cuda_on_gpu(a->kind))
			continue;
		l = lane_of(g, a);
		if (!l || a->end < a->start || a->start < l->busy_until ||
		    a->start < g->w->origin) {
			g->skipped++;
			continue;
		}
		iid = name_iid(g, l, a);
		pf_event(g->w, &l->seq, a->start, PF_SLICE_BEGIN, iid, NULL, 0);
		pf_event(g->w, &l->seq, a->end, PF_SLICE_END, 0, NULL, 0);
		l->busy_until = a->end;
	}
}

int pf_gpu_export(const struct pf_kind_ctx *c)
{
	struct pf_gpu g = { .w = c->w, .p = c->p };
	size_t i;
	int r;

	if (!c->p->cuda.n_acts)
		return 0;
	r = sb_cuda_trace_init(&g.trace, c->p);
	g.l = r ? NULL : calloc(g.trace.lanes.n ? g.trace.lanes.n : 1, sizeof(*g.l));
	if (!g.l)
		r = -ENOMEM;
	if (!r)
		r = put_lanes(&g, c->rank_uuid, c->n_ranks);
	if (!r)
		put_work(&g);
	for (i = 0; g.l && i < g.trace.lanes.n; i++)
		pf_seq_free(&g.l[i].seq);
	free(g.l);
	sb_cuda_trace_free(&g.trace);
	*c->skipped += g.skipped;
	return r ? r : c->w->err;
}
