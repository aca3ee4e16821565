/*
 * The OTF2 export's GPU work in OTF2 3.0's layout for accelerators: a
 * location of type accelerator stream per (rank, device, stream), in an
 * accelerator location group per (rank, device) that its rank's process
 * created, and kernels, copies and memsets as enter and leave of regions of
 * paradigm CUDA.
 */
#ifdef SB_HAVE_OTF2
#include <errno.h>
#include <stdlib.h>

#include "export/otf2_impl.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static long lane_of(const struct sb_otf2_gpu *g, const struct sb_cuda_activity *a)
{
	return sb_gpu_lane_of(&g->lanes, a);
}

size_t sb_otf2_gpu_region(const struct sb_otf2 *c, const struct sb_cuda_activity *a)
{
	size_t names = c->p->cuda.n_names;

	if (a->kind == SB_CUDA_ACT_MEMCPY)
		return names + (a->copy_kind > 0 && a->copy_kind < SB_OTF2_COPY_KINDS ?
				(size_t)a->copy_kind : 0);
	if (a->kind == SB_CUDA_ACT_MEMSET)
		return names + SB_OTF2_MEMSET;
	return a->name >= 0 && (size_t)a->name < names ? (size_t)a->name : names + SB_OTF2_KERNEL;
}

/* GPU work of a rank that has a process in the archive: only such a rank can own a device. */
static bool placed(const struct sb_otf2 *c, const struct sb_cuda_activity *a)
{
	return sb_cuda_on_gpu(a->kind) &&
	       sb_otf2_rank_index(c, a->rank) != OTF2_UNDEFINED_UINT32;
}

/* One lane per (rank, device, stream), and the devices, each once, sorted. */
static int find_lanes(struct sb_otf2 *c)
{
	const struct sb_cuda_data *d = &c->p->cuda;
	struct sb_otf2_gpu *g = &c->gpu;
	size_t i, n = 0;

	g->devices = calloc(d->n_acts ? d->n_acts : 1, sizeof(*g->devices));
	if (!g->devices)
		return -ENOMEM;
	for (i = 0; i < d->n_acts; i++) {
		if (!placed(c, &d->acts[i]))
			continue;
		if (sb_gpu_lanes_add(&g->lanes, &d->acts[i]))
			return -ENOMEM;
		g->devices[n++] = d->acts[i].device;
	}
	qsort(g->devices, n, sizeof(*g->devices), cmp_i64);
	for (i = 0; i < n; i++)
		if (!g->n_devices || g->devices[i] != g->devices[g->n_devices - 1])
			g->devices[g->n_devices++] = g->devices[i];
	g->lane = calloc(g->lanes.n ? g->lanes.n : 1, sizeof(*g->lane));
	return g->lane ? 0 : -ENOMEM;
}

/* Each lane's location group (consecutive lanes of one rank and device share it) and node. */
static void group_lanes(struct sb_otf2_gpu *g)
{
	const struct sb_gpu_lane *l;
	int64_t *dev;
	size_t i;

	for (i = 0; i < g->lanes.n; i++) {
		l = &g->lanes.at[i];
		if (i && (l->rank != l[-1].rank || l->device != l[-1].device))
			g->n_groups++;
		g->lane[i].group = g->n_groups;
		dev = bsearch(&l->device, g->devices, g->n_devices, sizeof(*dev), cmp_i64);
		g->lane[i].node = (uint32_t)(dev - g->devices);
	}
	g->n_groups += g->lanes.n > 0;
}

static const struct sb_cuda_activity *work_act(const struct sb_otf2 *c, size_t i)
{
	return &c->p->cuda.acts[c->gpu.work[i]];
}

/* Work by lane, then start: a lane's events go out in time order, whatever the file's order. */
static int cmp_work(const void *a, const void *b, void *ctx)
{
	const struct sb_otf2 *c = ctx;
	const struct sb_cuda_activity *x = &c->p->cuda.acts[*(const size_t *)a];
	const struct sb_cuda_activity *y = &c->p->cuda.acts[*(const size_t *)b];
	long lx = lane_of(&c->gpu, x), ly = lane_of(&c->gpu, y);

	if (lx != ly)
		return lx < ly ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/*
 * The work that fits its lane: what ends before it starts, or starts before
 * the lane's previous work ended (a stream runs one thing at a time, so
 * neither is real), is left out and counted.
 */
static void order_work(struct sb_otf2 *c)
{
	const struct sb_cuda_data *d = &c->p->cuda;
	struct sb_otf2_gpu *g = &c->gpu;
	const struct sb_cuda_activity *a;
	long lane = -1;
	int64_t busy = INT64_MIN;
	size_t i, n = 0;

	for (i = 0; i < d->n_acts; i++)
		if (placed(c, &d->acts[i]))
			g->work[n++] = i;
	qsort_r(g->work, n, sizeof(*g->work), cmp_work, c);
	for (i = 0; i < n; i++) {
		a = &d->acts[g->work[i]];
		if (lane_of(g, a) != lane) {
			lane = lane_of(g, a);
			busy = INT64_MIN;
		}
		if (a->end < a->start || a->start < busy) {
			c->skipped++;
			continue;
		}
		busy = a->end;
		g->work[g->n_work++] = g->work[i];
	}
}

/*
 * Region refs after the profile's, for the GPU regions the work uses, in the
 * order of sb_otf2_gpu_region: definitions must come in the order of refs.
 */
static int map_gpu_regions(struct sb_otf2 *c)
{
	struct sb_otf2_gpu *g = &c->gpu;
	const struct sb_cuda_activity *a;
	size_t i, k;

	g->n_refs = c->p->cuda.n_names + SB_OTF2_GPU_FIXED;
	g->refs = malloc(g->n_refs * sizeof(*g->refs));
	if (!g->refs)
		return -ENOMEM;
	for (k = 0; k < g->n_refs; k++)
		g->refs[k] = OTF2_UNDEFINED_REGION;
	for (i = 0; i < g->n_work; i++) {
		a = work_act(c, i);
		g->refs[sb_otf2_gpu_region(c, a)] = 0;
		if (a->kind != SB_CUDA_ACT_KERNEL && a->bytes >= 0)
			g->bytes = true;
		if (a->start < c->first)
			c->first = a->start;
		if (a->end > c->last)
			c->last = a->end;
	}
	for (k = 0; k < g->n_refs; k++)
		if (g->refs[k] != OTF2_UNDEFINED_REGION)
			g->refs[k] = c->n_region_refs++;
	return 0;
}

int sb_otf2_gpu_map(struct sb_otf2 *c)
{
	const struct sb_cuda_data *d = &c->p->cuda;
	size_t placed_acts = 0, i;
	int r;

	for (i = 0; i < d->n_acts; i++)
		placed_acts += placed(c, &d->acts[i]);
	/* GPU work of a rank without a host location has no process to belong to. */
	for (i = 0; i < d->n_acts; i++)
		c->skipped += sb_cuda_on_gpu(d->acts[i].kind) && !placed(c, &d->acts[i]);
	if (!placed_acts)
		return 0;
	r = find_lanes(c);
	if (r)
		return r;
	group_lanes(&c->gpu);
	c->gpu.work = malloc(placed_acts * sizeof(*c->gpu.work));
	if (!c->gpu.work)
		return -ENOMEM;
	order_work(c);
	return map_gpu_regions(c);
}

/* Enter and leave of a's region; a copy's or memset's size as the enter's attribute. */
static int write_work(struct sb_otf2 *c, OTF2_EvtWriter *w, OTF2_AttributeList *attrs,
		      const struct sb_cuda_activity *a)
{
	OTF2_RegionRef ref = c->gpu.refs[sb_otf2_gpu_region(c, a)];
	OTF2_AttributeList *with = NULL;
	int r = 0;

	if (a->kind != SB_CUDA_ACT_KERNEL && a->bytes >= 0) {
		with = attrs;
		r = sb_otf2_check(c, OTF2_AttributeList_AddUint64(attrs, SB_OTF2_BYTES,
								 (uint64_t)a->bytes), "attribute");
	}
	r = r ? r : sb_otf2_check(c, OTF2_EvtWriter_Enter(w, with, (uint64_t)a->start, ref),
				  "enter event");
	return r ? r : sb_otf2_check(c, OTF2_EvtWriter_Leave(w, NULL, (uint64_t)a->end, ref),
				     "leave event");
}

/* Lane i's work, from work[*at] on; *at moves past it. */
static int write_lane(struct sb_otf2 *c, OTF2_AttributeList *attrs, size_t i, size_t *at)
{
	struct sb_otf2_lane *l = &c->gpu.lane[i];
	OTF2_EvtWriter *w;
	int r;

	w = OTF2_Archive_GetEvtWriter(c->archive, (OTF2_LocationRef)(c->threads.n + i));
	if (!w)
		return sb_otf2_check(c, OTF2_ERROR_INVALID, "event writer");
	r = 0;
	for (; *at < c->gpu.n_work && lane_of(&c->gpu, work_act(c, *at)) == (long)i && !r; (*at)++)
		r = write_work(c, w, attrs, work_act(c, *at));
	r = r ? r : sb_otf2_check(c, OTF2_EvtWriter_GetNumberOfEvents(w, &l->n_events),
				  "event count");
	return r ? r : sb_otf2_check(c, OTF2_Archive_CloseEvtWriter(c->archive, w), "event file");
}

int sb_otf2_gpu_write(struct sb_otf2 *c)
{
	OTF2_AttributeList *attrs;
	size_t i, at = 0;
	int r = 0;

	if (!c->gpu.lanes.n)
		return 0;
	attrs = OTF2_AttributeList_New();
	if (!attrs)
		return sb_fail(c->err, ENOMEM, "out of memory");
	for (i = 0; i < c->gpu.lanes.n && !r; i++)
		r = write_lane(c, attrs, i, &at);
	OTF2_AttributeList_Delete(attrs);
	return r;
}

void sb_otf2_gpu_free(struct sb_otf2_gpu *g)
{
	sb_gpu_lanes_free(&g->lanes);
	free(g->lane);
	free(g->devices);
	free(g->work);
	free(g->refs);
}
#endif
