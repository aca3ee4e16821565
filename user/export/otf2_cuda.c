/*
 * The OTF2 export's GPU work in OTF2 3.0's layout for accelerators: a
 * location of type accelerator stream per (rank, device, stream), in an
 * accelerator location group per (rank, device) that its rank's process
 * created, and kernels, copies and memsets as enter and leave of regions of
 * paradigm CUDA.
 */
#ifdef SB_HAVE_OTF2
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "export/otf2_impl.h"
#include "model/gpu_lanes.h"
#include "util/demangle.h"

/*
 * GPU regions past the kernel names: copies by CUpti_ActivityMemcpyKind (0:
 * unknown), memsets, unnamed kernels.
 */
#define SB_OTF2_COPY_KINDS 11
#define SB_OTF2_MEMSET SB_OTF2_COPY_KINDS
#define SB_OTF2_KERNEL (SB_OTF2_COPY_KINDS + 1)
#define SB_OTF2_GPU_FIXED (SB_OTF2_COPY_KINDS + 2)

/* What the archive keeps of one GPU lane (model/gpu_lanes.h), a location after the threads. */
struct sb_otf2_lane {
	uint32_t group;		/* its accelerator location group: one per (rank, device) */
	uint32_t node;		/* its device's system tree node */
	uint64_t n_events;
};

/* The profile's GPU work as the archive has it: the kind's state. */
struct sb_otf2_gpu {
	struct sb_otf2 *c;
	struct sb_gpu_lanes lanes;	/* of the work placed in the archive */
	struct sb_otf2_lane *lane;	/* parallel to lanes.at */
	uint32_t n_groups;
	int64_t *devices;		/* the device ids, ascending: a system tree node each */
	uint32_t n_devices;
	size_t *work;			/* GPU activities written: by lane, then start */
	size_t n_work;
	OTF2_RegionRef *refs;		/* by kernel name, then SB_OTF2_GPU_FIXED; undefined: unused */
	size_t n_refs;
	bool bytes;			/* some work carries the bytes attribute */
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static long lane_of(const struct sb_otf2_gpu *g, const struct sb_cuda_activity *a)
{
	return sb_gpu_lane_of(&g->lanes, a);
}

/* The GPU region of activity a: an index into refs. */
static size_t gpu_region(const struct sb_otf2 *c, const struct sb_cuda_activity *a)
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
static int find_lanes(struct sb_otf2_gpu *g)
{
	const struct sb_otf2 *c = g->c;
	const struct sb_cuda_data *d = &c->p->cuda;
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

static const struct sb_cuda_activity *work_act(const struct sb_otf2_gpu *g, size_t i)
{
	return &g->c->p->cuda.acts[g->work[i]];
}

/* Work by lane, then start: a lane's events go out in time order, whatever the file's order. */
static int cmp_work(const void *a, const void *b, void *ctx)
{
	const struct sb_otf2_gpu *g = ctx;
	const struct sb_cuda_activity *x = &g->c->p->cuda.acts[*(const size_t *)a];
	const struct sb_cuda_activity *y = &g->c->p->cuda.acts[*(const size_t *)b];
	long lx = lane_of(g, x), ly = lane_of(g, y);

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
static void order_work(struct sb_otf2_gpu *g)
{
	struct sb_otf2 *c = g->c;
	const struct sb_cuda_data *d = &c->p->cuda;
	const struct sb_cuda_activity *a;
	long lane = -1;
	int64_t busy = INT64_MIN;
	size_t i, n = 0;

	for (i = 0; i < d->n_acts; i++)
		if (placed(c, &d->acts[i]))
			g->work[n++] = i;
	qsort_r(g->work, n, sizeof(*g->work), cmp_work, g);
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
 * order of gpu_region: definitions must come in the order of refs.
 */
static int map_gpu_regions(struct sb_otf2_gpu *g)
{
	struct sb_otf2 *c = g->c;
	const struct sb_cuda_activity *a;
	size_t i, k;

	g->n_refs = c->p->cuda.n_names + SB_OTF2_GPU_FIXED;
	g->refs = malloc(g->n_refs * sizeof(*g->refs));
	if (!g->refs)
		return -ENOMEM;
	for (k = 0; k < g->n_refs; k++)
		g->refs[k] = OTF2_UNDEFINED_REGION;
	for (i = 0; i < g->n_work; i++) {
		a = work_act(g, i);
		g->refs[gpu_region(c, a)] = 0;
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

/*
 * The lanes, the work in the order it is written, its regions' refs after
 * the profile's; c->first and c->last widened to it.
 */
static int gpu_map(struct sb_otf2 *c, void **state, struct sb_otf2_base *n)
{
	const struct sb_cuda_data *d = &c->p->cuda;
	size_t placed_acts = 0, i;
	struct sb_otf2_gpu *g;
	int r;

	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->c = c;
	*state = g;
	for (i = 0; i < d->n_acts; i++)
		placed_acts += placed(c, &d->acts[i]);
	/* GPU work of a rank without a host location has no process to belong to. */
	for (i = 0; i < d->n_acts; i++)
		c->skipped += sb_cuda_on_gpu(d->acts[i].kind) && !placed(c, &d->acts[i]);
	if (!placed_acts)
		return 0;
	r = find_lanes(g);
	if (r)
		return r;
	group_lanes(g);
	g->work = malloc(placed_acts * sizeof(*g->work));
	if (!g->work)
		return -ENOMEM;
	order_work(g);
	r = map_gpu_regions(g);
	*n = (struct sb_otf2_base){ .loc = (uint32_t)g->lanes.n, .group = g->n_groups,
				    .node = g->n_devices };
	return r;
}

/* Enter and leave of a's region; a copy's or memset's size as the enter's attribute. */
static int write_work(struct sb_otf2_gpu *g, OTF2_EvtWriter *w, OTF2_AttributeList *attrs,
		      const struct sb_cuda_activity *a)
{
	struct sb_otf2 *c = g->c;
	OTF2_RegionRef ref = g->refs[gpu_region(c, a)];
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

/* Lane i's work, from work[*at] on, on location loc; *at moves past it. */
static int write_lane(struct sb_otf2_gpu *g, OTF2_AttributeList *attrs, size_t i,
		      OTF2_LocationRef loc, size_t *at)
{
	struct sb_otf2_lane *l = &g->lane[i];
	struct sb_otf2 *c = g->c;
	OTF2_EvtWriter *w;
	int r;

	w = OTF2_Archive_GetEvtWriter(c->archive, loc);
	if (!w)
		return sb_otf2_check(c, OTF2_ERROR_INVALID, "event writer");
	r = 0;
	for (; *at < g->n_work && lane_of(g, work_act(g, *at)) == (long)i && !r; (*at)++)
		r = write_work(g, w, attrs, work_act(g, *at));
	r = r ? r : sb_otf2_check(c, OTF2_EvtWriter_GetNumberOfEvents(w, &l->n_events),
				  "event count");
	return r ? r : sb_otf2_check(c, OTF2_Archive_CloseEvtWriter(c->archive, w), "event file");
}

/* Each lane's events, one writer at a time. */
static int gpu_events(struct sb_otf2 *c, void *state, const struct sb_otf2_base *base)
{
	struct sb_otf2_gpu *g = state;
	OTF2_AttributeList *attrs;
	size_t i, at = 0;
	int r = 0;

	if (!g->lanes.n)
		return 0;
	attrs = OTF2_AttributeList_New();
	if (!attrs)
		return sb_fail(c->err, ENOMEM, "out of memory");
	for (i = 0; i < g->lanes.n && !r; i++)
		r = write_lane(g, attrs, i, (OTF2_LocationRef)(base->loc + i), &at);
	OTF2_AttributeList_Delete(attrs);
	return r;
}

/* ---- global definitions ---- */

/*
 * A node per GPU device under the host (from base's node on), and per rank and
 * device an accelerator location group that the rank's process created.
 */
static int gpu_system(struct sb_otf2_defs *d, const void *state,
		      const struct sb_otf2_base *base)
{
	const struct sb_otf2_gpu *g = state;
	struct sb_otf2 *c = d->c;
	const struct sb_gpu_lane *l;
	const struct sb_otf2_lane *at;
	OTF2_StringRef name, cls;
	size_t i;
	int r = 0;

	for (i = 0; i < g->n_devices && !r; i++) {
		r = sb_otf2_str_fmt(d, &name, "GPU %lld", (long long)g->devices[i]);
		r = r ? r : sb_otf2_str_shared(d, "accelerator", &cls);
		r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteSystemTreeNode(
						 d->w, (OTF2_SystemTreeNodeRef)(base->node + i), name,
						 cls, 0),
					  "system tree node");
		r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
						 d->w, (OTF2_SystemTreeNodeRef)(base->node + i),
						 OTF2_SYSTEM_TREE_DOMAIN_ACCELERATOR_DEVICE),
					  "system tree node");
	}
	for (i = 0; i < g->lanes.n && !r; i++) {
		l = &g->lanes.at[i];
		at = &g->lane[i];
		if (i && at->group == at[-1].group)
			continue;
		r = sb_otf2_str_fmt(d, &name, "rank %u GPU %lld", l->rank, (long long)l->device);
		r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteLocationGroup(
						 d->w, (OTF2_LocationGroupRef)(base->group + at->group),
						 name, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR,
						 (OTF2_SystemTreeNodeRef)(base->node + at->node),
						 (OTF2_LocationGroupRef)sb_otf2_rank_index(c, l->rank)),
					  "location group");
	}
	return r;
}

/* A location per lane: "GPU 0 stream 7", of type accelerator stream. */
static int gpu_locations(struct sb_otf2_defs *d, const void *state,
			 const struct sb_otf2_base *base)
{
	const struct sb_otf2_gpu *g = state;
	struct sb_otf2 *c = d->c;
	OTF2_StringRef name;
	size_t i;
	int r = 0;

	for (i = 0; i < g->lanes.n && !r; i++) {
		const struct sb_gpu_lane *l = &g->lanes.at[i];
		const struct sb_otf2_lane *at = &g->lane[i];

		r = sb_otf2_str_fmt(d, &name, "GPU %lld stream %lld", (long long)l->device,
				    (long long)l->stream);
		r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteLocation(
						 d->w, (OTF2_LocationRef)(base->loc + i), name,
						 OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, at->n_events,
						 (OTF2_LocationGroupRef)(base->group + at->group)),
					  "location");
	}
	return r;
}

/* GPU region k (gpu_region) as readers name it: kernels demangled, copies by direction. */
static int gpu_region_names(struct sb_otf2_defs *d, size_t k, OTF2_StringRef *name,
			    OTF2_StringRef *canonical)
{
	const struct sb_cuda_data *cu = &d->c->p->cuda;
	const char *mangled, *dir;
	char *s;
	int r;

	if (k < cu->n_names) {
		mangled = cu->names[k] ? cu->names[k] : "";
		s = sb_demangle(mangled);
		r = sb_otf2_str(d, s ? s : *mangled ? mangled : "kernel", name);
		free(s);
		return r ? r : sb_otf2_str(d, *mangled ? mangled : "kernel", canonical);
	}
	k -= cu->n_names;
	dir = sb_cuda_copy_kind((int64_t)k);
	if (k == SB_OTF2_MEMSET)
		r = sb_otf2_str(d, "memset", name);
	else if (k == SB_OTF2_KERNEL)
		r = sb_otf2_str(d, "kernel", name);
	else
		r = sb_otf2_str_fmt(d, name, "memcpy%s%s", dir ? " " : "", dir ? dir : "");
	*canonical = *name;
	return r;
}

/* The regions of GPU work: paradigm CUDA; copies are data transfers. */
static int gpu_regions(struct sb_otf2_defs *d, const void *state)
{
	const struct sb_otf2_gpu *g = state;
	struct sb_otf2 *c = d->c;
	OTF2_StringRef name, canonical, none;
	size_t names = c->p->cuda.n_names, k;
	bool copy;
	int r = sb_otf2_str_shared(d, "", &none);

	for (k = 0; k < g->n_refs && !r; k++) {
		if (g->refs[k] == OTF2_UNDEFINED_REGION)
			continue;
		copy = k >= names && k - names < SB_OTF2_COPY_KINDS;
		r = gpu_region_names(d, k, &name, &canonical);
		r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteRegion(
						 d->w, g->refs[k], name, canonical, none,
						 copy ? OTF2_REGION_ROLE_DATA_TRANSFER :
							OTF2_REGION_ROLE_FUNCTION,
						 OTF2_PARADIGM_CUDA, OTF2_REGION_FLAG_NONE, none, 0, 0),
					  "region");
	}
	if (!r && g->bytes) {
		r = sb_otf2_str(d, "bytes", &name);
		r = r ? r : sb_otf2_str(d, "bytes the copy or memset wrote", &canonical);
		r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteAttribute(
						 d->w, SB_OTF2_BYTES, name, canonical,
						 OTF2_TYPE_UINT64), "attribute");
	}
	return r;
}

static void gpu_release(void *state)
{
	struct sb_otf2_gpu *g = state;

	if (!g)
		return;
	sb_gpu_lanes_free(&g->lanes);
	free(g->lane);
	free(g->devices);
	free(g->work);
	free(g->refs);
	free(g);
}

const struct sb_otf2_kind sb_otf2_cuda_kind = {
	.kind = &sb_cuda_kind,
	.map = gpu_map,
	.events = gpu_events,
	.system = gpu_system,
	.locations = gpu_locations,
	.regions = gpu_regions,
	.release = gpu_release,
};
#endif
