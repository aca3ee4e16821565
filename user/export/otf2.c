/*
 * OTF2 export (docs/EXPORTS.md): the calls as enter and leave events of one
 * location per thread, MPI messages and collectives, counters and off-CPU time
 * as metrics, then each kind of data's part (otf2_kinds.c: GPU work on a
 * location per stream, otf2_cuda.c), through libotf2. Events stream: each
 * rank is walked once in nesting order, and libotf2 flushes each location's
 * buffer to disk as it fills.
 */
#include <errno.h>

#include "export/export.h"

#ifndef SB_HAVE_OTF2
int sb_export_otf2(const char *dir, const struct sb_profile *p, struct sb_error *err)
{
	(void)dir;
	(void)p;
	return sb_fail(err, ENOTSUP, "this scope-bpf was built without OTF2: install "
		       "libotf2-trace-dev (tools/install-deps.sh) and rebuild");
}
#else
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/otf2_impl.h"
#include "util/version.h"

/* The archive's name in dir: dir/traces.otf2, as Score-P names its own. */
#define ARCHIVE_NAME "traces"

/* libotf2's own message of the failure, kept for the error (it prints nothing itself then). */
static char lib_msg[256];

static OTF2_ErrorCode on_lib_error(void *data, const char *file, uint64_t line,
				   const char *function, OTF2_ErrorCode code, const char *fmt,
				   va_list ap)
{
	(void)data;
	(void)file;
	(void)line;
	(void)function;
	if (!lib_msg[0] && fmt)
		vsnprintf(lib_msg, sizeof(lib_msg), fmt, ap);
	return code;
}

int sb_otf2_check(struct sb_otf2 *c, OTF2_ErrorCode r, const char *what)
{
	if (r == OTF2_SUCCESS)
		return 0;
	return sb_fail(c->err, EIO, "writing the OTF2 %s: %s", what,
		       lib_msg[0] ? lib_msg : OTF2_Error_GetDescription(r));
}

static OTF2_FlushType pre_flush(void *data, OTF2_FileType type, OTF2_LocationRef loc,
				void *caller, bool final)
{
	(void)data;
	(void)type;
	(void)loc;
	(void)caller;
	(void)final;
	return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = pre_flush };

/*
 * Chunks an event writer holds before libotf2 writes them to its file: its
 * own pool holds 128 MiB a writer, which for a rank of many threads is more
 * than the profile. Definitions (O(threads + regions)) are not limited.
 */
#define WRITER_CHUNKS 8

struct chunk_pool {
	size_t n, cap;
	void **chunk;
};

/* A chunk for one writer; NULL for an event writer that holds WRITER_CHUNKS: libotf2 flushes. */
static void *alloc_chunk(void *data, OTF2_FileType type, OTF2_LocationRef loc, void **pool,
			 uint64_t size)
{
	struct chunk_pool *pl = *pool;
	void **grown, *m;

	(void)data;
	(void)loc;
	if (!pl && !(pl = *pool = calloc(1, sizeof(*pl))))
		return NULL;
	if (type == OTF2_FILETYPE_EVENTS && pl->n == WRITER_CHUNKS)
		return NULL;
	if (pl->n == pl->cap) {
		grown = realloc(pl->chunk, (pl->cap ? 2 * pl->cap : WRITER_CHUNKS) * sizeof(*grown));
		if (!grown)
			return NULL;
		pl->chunk = grown;
		pl->cap = pl->cap ? 2 * pl->cap : WRITER_CHUNKS;
	}
	m = malloc(size);
	if (m)
		pl->chunk[pl->n++] = m;
	return m;
}

/* After a flush, or for good when the writer closes (final). */
static void free_chunks(void *data, OTF2_FileType type, OTF2_LocationRef loc, void **pool,
			bool final)
{
	struct chunk_pool *pl = *pool;

	(void)data;
	(void)type;
	(void)loc;
	if (!pl)
		return;
	while (pl->n)
		free(pl->chunk[--pl->n]);
	if (final) {
		free(pl->chunk);
		free(pl);
		*pool = NULL;
	}
}

static const OTF2_MemoryCallbacks memory_callbacks = { .otf2_allocate = alloc_chunk,
						       .otf2_free_all = free_chunks };

/* ---- metrics ---- */

/* Whether call e has every value of class k. */
static bool has_class(const struct sb_otf2 *c, unsigned k, const struct sb_event *e)
{
	const struct sb_otf2_class *cl = &c->classes[k];
	unsigned i;

	for (i = 0; i < cl->n; i++)
		if (sb_event_metric(c->p, e, cl->col[i]) < 0)
			return false;
	return cl->n > 0;
}

static int write_metric(struct sb_otf2 *c, struct sb_otf2_loc *l, unsigned k, uint64_t t)
{
	const struct sb_otf2_class *cl = &c->classes[k];
	OTF2_MetricValue v[SB_OTF2_MAX_MEMBERS];
	OTF2_Type types[SB_OTF2_MAX_MEMBERS];
	unsigned i;

	for (i = 0; i < cl->n; i++) {
		types[i] = OTF2_TYPE_UINT64;
		v[i].unsigned_int = l->value[k][i];
	}
	return sb_otf2_check(c, OTF2_EvtWriter_Metric(l->w, NULL, t, cl->ref, (uint8_t)cl->n,
						      types, v), "metric event");
}

/*
 * At a leave: the thread's running value becomes the value at the enter plus
 * the call's inclusive one, never less than what its children brought, so
 * it only grows (children that count more than their parent are corrupt).
 */
static void accumulate(struct sb_otf2 *c, struct sb_otf2_loc *l, unsigned k,
		       const struct sb_otf2_frame *f)
{
	const struct sb_otf2_class *cl = &c->classes[k];
	uint64_t to;
	unsigned i;

	for (i = 0; i < cl->n; i++) {
		to = f->at_enter[k][i] + (uint64_t)sb_event_metric(c->p, f->e, cl->col[i]);
		if (to > l->value[k][i])
			l->value[k][i] = to;
	}
}

/* ---- one call ---- */

/* The bytes a collective sent and received on this rank, by the way it moves them. */
static void collective_sizes(const struct sb_otf2_region *r, uint32_t rank, uint64_t *sent,
			     uint64_t *received)
{
	bool root = r->root_rank == (int64_t)rank;

	*sent = r->flow == SB_OTF2_ONE2ALL && !root ? 0 : r->bytes;
	*received = (r->flow == SB_OTF2_ONE2ALL && root) ||
		    (r->flow == SB_OTF2_ALL2ONE && !root) ? 0 : r->bytes;
}

static int enter(struct sb_otf2 *c, struct sb_otf2_loc *l, struct sb_otf2_frame *f)
{
	const struct sb_otf2_region *r = &c->regions[f->region];
	uint64_t t = (uint64_t)f->e->start;
	unsigned k;
	int e = 0;

	for (k = 0; k < SB_OTF2_N_CLASSES && !e; k++) {
		memcpy(f->at_enter[k], l->value[k], sizeof(f->at_enter[k]));
		if (has_class(c, k, f->e))
			e = write_metric(c, l, k, t);
	}
	e = e ? e : sb_otf2_check(c, OTF2_EvtWriter_Enter(l->w, NULL, t, r->ref), "enter event");
	if (!e && r->mpi == SB_OTF2_SEND)
		e = sb_otf2_check(c, OTF2_EvtWriter_MpiSend(l->w, NULL, t, r->peer, SB_OTF2_WORLD,
							    r->tag, r->bytes), "MPI send event");
	if (!e && r->mpi == SB_OTF2_COLLECTIVE)
		e = sb_otf2_check(c, OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, t),
				  "MPI collective event");
	return e;
}

static int leave(struct sb_otf2 *c, struct sb_otf2_loc *l, const struct sb_otf2_frame *f)
{
	const struct sb_otf2_region *r = &c->regions[f->region];
	uint64_t t = (uint64_t)f->e->end, sent, received;
	unsigned k;
	int e = 0;

	if (r->mpi == SB_OTF2_RECV)
		e = sb_otf2_check(c, OTF2_EvtWriter_MpiRecv(l->w, NULL, t, r->peer, SB_OTF2_WORLD,
							    r->tag, r->bytes), "MPI receive event");
	if (!e && r->mpi == SB_OTF2_COLLECTIVE) {
		collective_sizes(r, l->x->rank, &sent, &received);
		e = sb_otf2_check(c, OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, t, r->op,
								     SB_OTF2_WORLD, r->root,
								     sent, received),
				  "MPI collective event");
	}
	for (k = 0; k < SB_OTF2_N_CLASSES && !e; k++) {
		if (!has_class(c, k, f->e))
			continue;
		accumulate(c, l, k, f);
		e = write_metric(c, l, k, t);
	}
	return e ? e : sb_otf2_check(c, OTF2_EvtWriter_Leave(l->w, NULL, t, r->ref),
				     "leave event");
}

/* Leave every open call of l that ended by t, innermost first. */
static int leave_until(struct sb_otf2 *c, struct sb_otf2_loc *l, int64_t t)
{
	int r = 0;

	while (l->depth && l->stack[l->depth - 1].e->end <= t && !r)
		r = leave(c, l, &l->stack[--l->depth]);
	return r;
}

/*
 * A call of l in nesting order. One that overlaps the call open around it
 * without nesting in it, or ends before it starts (corrupt input), would
 * break every reader's stack of regions: it is left out and counted.
 */
static int on_call(struct sb_otf2 *c, struct sb_otf2_loc *l, const struct sb_event *e,
		   uint32_t region)
{
	struct sb_otf2_frame *f;
	int r = leave_until(c, l, e->start);

	if (r)
		return r;
	if (e->end < e->start || (l->depth && e->end > l->stack[l->depth - 1].e->end)) {
		c->skipped++;
		return 0;
	}
	if (l->depth == l->cap) {
		f = realloc(l->stack, (l->cap ? 2 * l->cap : 16) * sizeof(*f));
		if (!f)
			return sb_fail(c->err, ENOMEM, "out of memory");
		l->stack = f;
		l->cap = l->cap ? 2 * l->cap : 16;
	}
	f = &l->stack[l->depth++];
	f->e = e;
	f->region = region;
	return enter(c, l, f);
}

/* ---- the walk ---- */

/* The location of the thread e ran on, among the rank's [lo, hi). */
static struct sb_otf2_loc *loc_of(struct sb_otf2 *c, size_t lo, size_t hi,
				  const struct sb_event *e)
{
	int64_t thread = sb_event_thread(c->p, e);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->threads.v[mid].thread < thread)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &c->locs[lo];
}

/* The locations [lo, hi) of one rank: writers open while its calls are walked. */
static int write_rank(struct sb_otf2 *c, struct sb_walk *w, size_t lo, size_t hi)
{
	const struct sb_event *e;
	struct sb_otf2_loc *l;
	uint32_t pair;
	size_t i;
	int r = 0;

	for (i = lo; i < hi && !r; i++) {
		c->locs[i].w = OTF2_Archive_GetEvtWriter(c->archive, (OTF2_LocationRef)i);
		if (!c->locs[i].w)
			r = sb_otf2_check(c, OTF2_ERROR_INVALID, "event writer");
	}
	sb_walk_start(w, c->threads.v[lo].rank, SB_WALK_ALL);
	while (!r && (e = sb_walk_next(w, &pair))) {
		l = loc_of(c, lo, hi, e);
		r = on_call(c, l, e, c->p->pairs[pair].region);
	}
	for (i = lo; i < hi; i++) {
		l = &c->locs[i];
		if (!r)
			r = leave_until(c, l, INT64_MAX);
		if (!l->w)
			continue;
		if (!r)
			r = sb_otf2_check(c, OTF2_EvtWriter_GetNumberOfEvents(l->w, &l->n_events),
					  "event count");
		if (!r)
			r = sb_otf2_check(c, OTF2_Archive_CloseEvtWriter(c->archive, l->w),
					  "event file");
		l->w = NULL;
	}
	return r;
}

static int write_events(struct sb_otf2 *c)
{
	struct sb_walk w;
	size_t lo, hi;
	int r;

	if (sb_walk_init(&w, c->p))
		return sb_fail(c->err, ENOMEM, "out of memory");
	r = sb_otf2_check(c, OTF2_Archive_OpenEvtFiles(c->archive), "event files");
	for (lo = 0; lo < c->threads.n && !r; lo = hi) {
		for (hi = lo + 1; hi < c->threads.n && c->threads.v[hi].rank == c->threads.v[lo].rank;)
			hi++;
		r = write_rank(c, &w, lo, hi);
	}
	sb_walk_free(&w);
	for (lo = 0; lo < sb_otf2_n_kinds && !r; lo++)
		if (sb_otf2_kinds[lo]->events)
			r = sb_otf2_kinds[lo]->events(c, c->kind_state[lo], &c->kind_at[lo]);
	return r ? r : sb_otf2_check(c, OTF2_Archive_CloseEvtFiles(c->archive), "event files");
}

/* Every location's local definitions: none, but readers expect the files. */
static int write_local_defs(struct sb_otf2 *c)
{
	OTF2_DefWriter *d;
	size_t i;
	int r = sb_otf2_check(c, OTF2_Archive_OpenDefFiles(c->archive), "definition files");

	for (i = 0; i < c->kind_at[sb_otf2_n_kinds].loc && !r; i++) {
		d = OTF2_Archive_GetDefWriter(c->archive, (OTF2_LocationRef)i);
		r = d ? sb_otf2_check(c, OTF2_Archive_CloseDefWriter(c->archive, d),
				      "definition file") :
			sb_otf2_check(c, OTF2_ERROR_INVALID, "definition file");
	}
	return r ? r : sb_otf2_check(c, OTF2_Archive_CloseDefFiles(c->archive),
				     "definition files");
}

/* ---- set-up ---- */

/*
 * Each kind's part: its state, and where its locations, location groups and
 * system tree nodes start (the host's node is 0). 0 or -ENOMEM.
 */
static int map_kinds(struct sb_otf2 *c)
{
	struct sb_otf2_base n, *at;
	size_t k;
	int r = 0;

	c->kind_state = calloc(sb_otf2_n_kinds + 1, sizeof(*c->kind_state));
	c->kind_at = calloc(sb_otf2_n_kinds + 1, sizeof(*c->kind_at));
	if (!c->kind_state || !c->kind_at)
		return -ENOMEM;
	c->kind_at[0] = (struct sb_otf2_base){ .loc = (uint32_t)c->threads.n,
					       .group = (uint32_t)c->n_ranks, .node = 1 };
	for (k = 0; k < sb_otf2_n_kinds && !r; k++) {
		n = (struct sb_otf2_base){ 0 };
		r = sb_otf2_kinds[k]->map(c, &c->kind_state[k], &n);
		at = &c->kind_at[k];
		at[1] = (struct sb_otf2_base){ .loc = at->loc + n.loc, .group = at->group + n.group,
					       .node = at->node + n.node };
	}
	return r;
}

/* Locations, ranks, each kind's part, metric classes and the clock's range. */
static int prepare(struct sb_otf2 *c)
{
	const struct sb_profile *p = c->p;
	size_t i;

	if (sb_xthreads_build(&c->threads, p))
		return sb_fail(c->err, ENOMEM, "out of memory");
	if (!c->threads.n)
		return sb_fail(c->err, EINVAL, "the profile has no thread and no call: an OTF2 "
			       "archive needs one");
	c->locs = calloc(c->threads.n, sizeof(*c->locs));
	c->ranks = calloc(c->threads.n, sizeof(*c->ranks));
	if (!c->locs || !c->ranks)
		return sb_fail(c->err, ENOMEM, "out of memory");
	c->first = INT64_MAX;
	c->last = INT64_MIN;
	for (i = 0; i < c->threads.n; i++) {
		const struct sb_xthread *x = &c->threads.v[i];

		c->locs[i].x = x;
		if (!i || x->rank != c->threads.v[i - 1].rank)
			c->ranks[c->n_ranks++] = x->rank;
		if (x->calls && x->first_start < c->first)
			c->first = x->first_start;
		if (x->calls && x->last_end > c->last)
			c->last = x->last_end;
	}
	if (sb_otf2_map_regions(c) || map_kinds(c))
		return sb_fail(c->err, ENOMEM, "out of memory");
	if (c->first > c->last)	/* threads without calls, and no GPU work */
		c->first = c->last = 0;
	if (c->first < 0)
		return sb_fail(c->err, EINVAL, "a call or GPU work starts at %lld ns: OTF2 has no "
			       "negative times", (long long)c->first);
	c->classes[SB_OTF2_COUNTERS].n = sb_profile_counter_slots(p);
	for (i = 0; i < c->classes[SB_OTF2_COUNTERS].n; i++)
		c->classes[SB_OTF2_COUNTERS].col[i] = SB_METRIC_COUNTER + i;
	if (p->columns & SB_COL_OFFCPU) {
		c->classes[SB_OTF2_OFFCPU].n = 1;
		c->classes[SB_OTF2_OFFCPU].col[0] = SB_METRIC_OFFCPU;
	}
	c->classes[SB_OTF2_OFFCPU].ref = c->classes[SB_OTF2_COUNTERS].n ? 1 : 0;
	return 0;
}

/* The definition chunk must hold the largest definition: a group of every location. */
static uint64_t def_chunk(const struct sb_otf2 *c)
{
	uint64_t need = 16 * (uint64_t)c->threads.n + 4096;

	if (need < OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT)
		return OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT;
	return need < OTF2_CHUNK_SIZE_MAX ? need : OTF2_CHUNK_SIZE_MAX;
}

static int open_archive(struct sb_otf2 *c, const char *dir)
{
	const struct sb_meta *host = sb_profile_meta(c->p, "hostname");
	int r;

	c->archive = OTF2_Archive_Open(dir, ARCHIVE_NAME, OTF2_FILEMODE_WRITE,
				       OTF2_CHUNK_SIZE_EVENTS_DEFAULT, def_chunk(c),
				       OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!c->archive)
		return sb_otf2_check(c, OTF2_ERROR_INVALID, "archive");
	r = sb_otf2_check(c, OTF2_Archive_SetFlushCallbacks(c->archive, &flush_callbacks, NULL),
			  "archive");
	r = r ? r : sb_otf2_check(c, OTF2_Archive_SetMemoryCallbacks(c->archive,
								      &memory_callbacks, NULL),
				  "archive");
	r = r ? r : sb_otf2_check(c, OTF2_Archive_SetSerialCollectiveCallbacks(c->archive),
				  "archive");
	r = r ? r : sb_otf2_check(c, OTF2_Archive_SetCreator(c->archive,
							      "scope-bpf " SCOPE_BPF_VERSION),
				  "archive");
	if (!r && host && !host->is_int && host->s)
		r = sb_otf2_check(c, OTF2_Archive_SetMachineName(c->archive, host->s), "archive");
	return r;
}

static void release(struct sb_otf2 *c)
{
	size_t i;

	for (i = 0; c->locs && i < c->threads.n; i++)
		free(c->locs[i].stack);
	free(c->locs);
	free(c->ranks);
	free(c->regions);
	free(c->mpi_names);
	for (i = 0; c->kind_state && i < sb_otf2_n_kinds; i++)
		if (sb_otf2_kinds[i]->release)
			sb_otf2_kinds[i]->release(c->kind_state[i]);
	free(c->kind_state);
	free(c->kind_at);
	sb_xthreads_free(&c->threads);
}

int sb_export_otf2(const char *dir, const struct sb_profile *p, struct sb_error *err)
{
	struct sb_otf2 c = { .p = p, .err = err };
	OTF2_ErrorCallback saved;
	int r;

	r = sb_export_need_events(p, err);
	if (r)
		return r;
	lib_msg[0] = 0;
	saved = OTF2_Error_RegisterCallback(on_lib_error, NULL);
	r = prepare(&c);
	r = r ? r : open_archive(&c, dir);
	r = r ? r : write_events(&c);
	r = r ? r : write_local_defs(&c);
	r = r ? r : sb_otf2_write_defs(&c);
	if (c.archive && OTF2_Archive_Close(c.archive) != OTF2_SUCCESS && !r)
		r = sb_otf2_check(&c, OTF2_ERROR_INVALID, "archive");
	OTF2_Error_RegisterCallback(saved, NULL);
	release(&c);
	if (r)
		return r;
	return c.skipped > INT32_MAX ? INT32_MAX : (int)c.skipped;
}
#endif
