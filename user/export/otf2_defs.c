/*
 * The OTF2 export's global definitions: clock, system tree, a process per
 * rank, a location per thread, regions with their source (each kind's after
 * them: GPU devices and streams, otf2_cuda.c), MPI_COMM_WORLD and the
 * metrics. Written after the events, whose counts the locations carry.
 */
#ifdef SB_HAVE_OTF2
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/otf2_impl.h"

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

int sb_otf2_str(struct sb_otf2_defs *d, const char *s, OTF2_StringRef *ref)
{
	*ref = d->next++;
	return sb_otf2_check(d->c, OTF2_GlobalDefWriter_WriteString(d->w, *ref, s),
			     "string definition");
}

/* Keep s (which outlives d) as the text of ref, for later uses to share. */
static int remember(struct sb_otf2_defs *d, const char *s, OTF2_StringRef ref, uint64_t h)
{
	const char **t;

	if (ref >= d->cap) {
		t = realloc(d->texts, (ref + 64) * sizeof(*t));
		if (!t)
			return sb_fail(d->c->err, ENOMEM, "out of memory");
		d->texts = t;
		d->cap = ref + 64;
	}
	d->texts[ref] = s;
	return sb_hashmap_put(&d->seen, h, strlen(s), ref) ?
		sb_fail(d->c->err, ENOMEM, "out of memory") : 0;
}

int sb_otf2_str_shared(struct sb_otf2_defs *d, const char *s, OTF2_StringRef *ref)
{
	uint64_t h = fnv1a(s), *hit = sb_hashmap_get(&d->seen, h, strlen(s));
	int r;

	if (hit && !strcmp(d->texts[*hit], s)) {
		*ref = (OTF2_StringRef)*hit;
		return 0;
	}
	r = sb_otf2_str(d, s, ref);
	/* Two strings with one hash: the later one is just not shared. */
	return r || hit ? r : remember(d, s, *ref, h);
}

int sb_otf2_str_fmt(struct sb_otf2_defs *d, OTF2_StringRef *ref, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return sb_otf2_str(d, buf, ref);
}

static int write_clock(struct sb_otf2_defs *d)
{
	const struct sb_meta *m = sb_profile_meta(d->c->p, "clock_realtime_minus_monotonic_start_ns");
	struct sb_otf2 *c = d->c;
	uint64_t realtime = OTF2_UNDEFINED_TIMESTAMP;
	int64_t wall;

	/* CLOCK_MONOTONIC to the epoch: what the recorder read at its start. */
	if (m && m->is_int && !__builtin_add_overflow(c->first, m->i, &wall) && wall >= 0)
		realtime = (uint64_t)wall;
	return sb_otf2_check(c, OTF2_GlobalDefWriter_WriteClockProperties(
				d->w, 1000000000, (uint64_t)c->first,
				(uint64_t)(c->last - c->first), realtime),
			     "clock properties");
}

/* One node (the host), a process per rank under it, then each kind's. */
static int write_system(struct sb_otf2_defs *d)
{
	const struct sb_meta *host = sb_profile_meta(d->c->p, "hostname");
	struct sb_otf2 *c = d->c;
	OTF2_StringRef name, cls;
	size_t i;
	int r;

	r = sb_otf2_str(d, host && !host->is_int && host->s ? host->s : "localhost", &name);
	r = r ? r : sb_otf2_str_shared(d, "node", &cls);
	r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteSystemTreeNode(
					 d->w, 0, name, cls, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
				  "system tree node");
	for (i = 0; i < c->n_ranks && !r; i++) {
		r = sb_otf2_str_fmt(d, &name, "rank %u", c->ranks[i]);
		r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteLocationGroup(
						 d->w, (OTF2_LocationGroupRef)i, name,
						 OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
						 OTF2_UNDEFINED_LOCATION_GROUP),
					  "location group");
	}
	for (i = 0; i < sb_otf2_n_kinds && !r; i++)
		if (sb_otf2_kinds[i]->system)
			r = sb_otf2_kinds[i]->system(d, c->kind_state[i], &c->kind_at[i]);
	return r;
}

/* "thread 1 worker (tid 4243)": index, name and tid, where known; then each kind's. */
static int write_locations(struct sb_otf2_defs *d)
{
	struct sb_otf2 *c = d->c;
	OTF2_StringRef name;
	size_t i;
	int r = 0;

	for (i = 0; i < c->threads.n && !r; i++) {
		const struct sb_xthread *x = c->locs[i].x;
		char tid[32] = "";

		if (x->tid > 0)
			snprintf(tid, sizeof(tid), " (tid %lld)", (long long)x->tid);
		r = sb_otf2_str_fmt(d, &name, "thread %lld%s%s%s", (long long)x->thread,
			    *x->name ? " " : "", x->name, tid);
		r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteLocation(
						 d->w, (OTF2_LocationRef)i, name,
						 OTF2_LOCATION_TYPE_CPU_THREAD, c->locs[i].n_events,
						 (OTF2_LocationGroupRef)sb_otf2_rank_index(c, x->rank)),
					  "location");
	}
	for (i = 0; i < sb_otf2_n_kinds && !r; i++)
		if (sb_otf2_kinds[i]->locations)
			r = sb_otf2_kinds[i]->locations(d, c->kind_state[i], &c->kind_at[i]);
	return r;
}

/* Each region ref once, at the first profile region that has it; then each kind's. */
static int write_regions(struct sb_otf2_defs *d)
{
	const struct sb_profile *p = d->c->p;
	struct sb_otf2 *c = d->c;
	OTF2_StringRef name, file, none;
	OTF2_RegionRef next = 0;
	const struct sb_otf2_region *r;
	const struct sb_region *g;
	uint32_t line;
	size_t i;
	int e;

	e = sb_otf2_str_shared(d, "", &none);
	for (i = 0; i < p->n_regions && !e; i++) {
		r = &c->regions[i];
		g = &p->regions[i];
		if (r->ref != next)
			continue;
		next++;
		line = g->source_line > 0 && g->source_line <= UINT32_MAX ? (uint32_t)g->source_line : 0;
		e = sb_otf2_str(d, r->mpi_name >= 0 ? c->mpi_names[r->mpi_name] : g->name, &name);
		e = e ? e : sb_otf2_str_shared(d, r->mpi_name >= 0 ? "" : g->source_file, &file);
		e = e ? e : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteRegion(
						 d->w, r->ref, name, name, none, r->role,
						 r->mpi_name >= 0 ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
						 OTF2_REGION_FLAG_NONE, file, line, line),
					  "region");
	}
	for (i = 0; i < sb_otf2_n_kinds && !e; i++)
		if (sb_otf2_kinds[i]->regions)
			e = sb_otf2_kinds[i]->regions(d, c->kind_state[i]);
	return e;
}

/*
 * MPI_COMM_WORLD as the file knows it: the ranks with a location, each by its
 * first thread's location (the one MPI events of that rank name).
 */
static int write_world(struct sb_otf2_defs *d)
{
	struct sb_otf2 *c = d->c;
	uint64_t *locs = NULL, *members;
	OTF2_StringRef name, none;
	size_t i, k = 0;
	int r;

	if (!c->world)
		return 0;
	locs = malloc(2 * c->n_ranks * sizeof(*locs));
	if (!locs)
		return sb_fail(c->err, ENOMEM, "out of memory");
	members = locs + c->n_ranks;
	for (i = 0; i < c->threads.n; i++)
		if (!i || c->threads.v[i].rank != c->threads.v[i - 1].rank)
			locs[k++] = i;
	for (i = 0; i < c->n_ranks; i++)
		members[i] = i;
	r = sb_otf2_str_shared(d, "", &none);
	r = r ? r : sb_otf2_str(d, "MPI_COMM_WORLD", &name);
	r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteGroup(
					 d->w, 0, none, OTF2_GROUP_TYPE_COMM_LOCATIONS,
					 OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
					 (uint32_t)c->n_ranks, locs), "group");
	r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteGroup(
					 d->w, 1, none, OTF2_GROUP_TYPE_COMM_GROUP,
					 OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
					 (uint32_t)c->n_ranks, members), "group");
	r = r ? r : sb_otf2_check(c, OTF2_GlobalDefWriter_WriteComm(
					 d->w, SB_OTF2_WORLD, name, 1, OTF2_UNDEFINED_COMM,
					 OTF2_COMM_FLAG_NONE), "communicator");
	free(locs);
	return r;
}

/* Metadata counter_events' i-th name into buf, counter_<i> where it has none. */
static const char *counter_name(const struct sb_profile *p, unsigned i, char *buf, size_t len)
{
	const struct sb_meta *m = sb_profile_meta(p, "counter_events");
	const char *s = m && !m->is_int && m->s ? m->s : "", *end;

	for (; i && *s; i--)
		s = (end = strchr(s, ',')) ? end + 1 : "";
	end = strchrnul(s, ',');
	if (end == s)
		snprintf(buf, len, "counter_%u", i);
	else
		snprintf(buf, len, "%.*s", (int)(end - s), s);
	return buf;
}

static int write_member(struct sb_otf2_defs *d, OTF2_MetricMemberRef ref, const char *name,
			const char *desc, const char *unit, int64_t exponent)
{
	OTF2_StringRef n, ds, u;
	int r;

	r = sb_otf2_str(d, name, &n);
	r = r ? r : sb_otf2_str_shared(d, desc, &ds);
	r = r ? r : sb_otf2_str_shared(d, unit, &u);
	return r ? r : sb_otf2_check(d->c, OTF2_GlobalDefWriter_WriteMetricMember(
					    d->w, ref, n, ds, OTF2_METRIC_TYPE_OTHER,
					    OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
					    OTF2_BASE_DECIMAL, exponent, u), "metric member");
}

/*
 * Values accumulated per thread, written at the enter and the leave of each
 * call that has them: leave minus enter is the call's inclusive value.
 */
static int write_metrics(struct sb_otf2_defs *d)
{
	struct sb_otf2 *c = d->c;
	OTF2_MetricMemberRef member = 0, refs[SB_OTF2_MAX_MEMBERS];
	char name[128];
	unsigned k, i;
	int r = 0;

	for (k = 0; k < SB_OTF2_N_CLASSES && !r; k++) {
		struct sb_otf2_class *cl = &c->classes[k];

		for (i = 0; i < cl->n && !r; i++) {
			refs[i] = member++;
			if (k == SB_OTF2_OFFCPU)
				r = write_member(d, refs[i], "off-CPU time",
						 "time the thread was off the CPU (blocked or "
						 "preempted) since it started", "s", -9);
			else
				r = write_member(d, refs[i], counter_name(c->p, i, name, sizeof(name)),
						 "events the thread counted since it started "
						 "(scope-bpf record -e)", "#", 0);
		}
		if (!cl->n || r)
			continue;
		r = sb_otf2_check(c, OTF2_GlobalDefWriter_WriteMetricClass(
					 d->w, cl->ref, (uint8_t)cl->n, refs, OTF2_METRIC_SYNCHRONOUS,
					 OTF2_RECORDER_KIND_CPU), "metric class");
	}
	return r;
}

int sb_otf2_write_defs(struct sb_otf2 *c)
{
	struct sb_otf2_defs d = { .c = c };
	int r;

	sb_hashmap_init(&d.seen);
	d.w = OTF2_Archive_GetGlobalDefWriter(c->archive);
	r = d.w ? 0 : sb_otf2_check(c, OTF2_ERROR_INVALID, "global definitions");
	r = r ? r : write_clock(&d);
	r = r ? r : write_system(&d);
	r = r ? r : write_locations(&d);
	r = r ? r : write_regions(&d);
	r = r ? r : write_world(&d);
	r = r ? r : write_metrics(&d);
	if (d.w && !r)
		r = sb_otf2_check(c, OTF2_Archive_CloseGlobalDefWriter(c->archive, d.w),
				  "global definitions");
	free(d.texts);
	sb_hashmap_free(&d.seen);
	return r;
}
#endif
