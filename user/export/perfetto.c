/* Perfetto's native trace: ranks as process tracks, threads as thread tracks, calls as nested slices, samples on them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/chrome_trace.h"
#include "export/perfetto.h"
#include "export/proto_export.h"

#define PF_MAX_METRICS (1 + SB_COUNTER_SLOTS)

/*
 * A per-call metric shown as a counter track per thread. Off-CPU time: the
 * share of the innermost open call, as the Chrome trace's off-CPU counter
 * shows it. A counted event (record -e): the thread's count so far, which
 * takes each call's count where the call ends (the profile knows how much a
 * call counted, not when within it), so that over any call the track rises
 * by the call's count, where a rate in whole events per microsecond would
 * round software events, a few per millisecond, to 0. Perfetto's UI shows
 * such a track as a rate or as deltas too.
 */
struct pf_metric {
	unsigned id;		/* column */
	char name[80];
};

struct pf_thread {
	struct pf_seq seq;
	uint64_t uuid;
	uint64_t counters[PF_MAX_METRICS];	/* the metrics' counter tracks */
	int64_t *ends;		/* the open calls' ends, outermost first */
	int64_t *vals;		/* and their metric values, n_metrics a call */
	size_t depth;
	size_t cap;
	int64_t count[PF_MAX_METRICS];	/* counted events: the thread's count so far */
	int64_t shown[PF_MAX_METRICS];	/* the values last written */
};

struct pf {
	struct pf_out w;
	const struct sb_profile *p;
	struct sb_xthreads threads;
	struct pf_thread *t;	/* parallel to threads.v */
	int32_t *tids;		/* the tid each thread's track shows, parallel to threads.v */
	uint64_t *rank_uuid;	/* the process track of each rank below n_ranks */
	uint32_t n_ranks;
	struct pf_metric metrics[PF_MAX_METRICS];
	unsigned n_metrics;
	struct sb_walk walk;
	uint64_t skipped;
};

/* Slot i's event name from metadata counter_events ("a,b,c"), else its column's name. */
static void counter_name(const struct sb_profile *p, unsigned i, char *buf, size_t len)
{
	const struct sb_meta *m = sb_profile_meta(p, "counter_events");
	const char *s = m && !m->is_int && m->s ? m->s : "", *end;
	unsigned k;

	for (k = 0; k < i && s; k++) {
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	if (!s || !*s || *s == ',') {
		snprintf(buf, len, "%s", sb_column(SB_METRIC_COUNTER + i)->short_name);
		return;
	}
	end = strchrnul(s, ',');
	snprintf(buf, len, "%.*s", (int)(end - s), s);
}

static void find_metrics(struct pf *x)
{
	unsigned i, slots = sb_profile_counter_slots(x->p);

	if (x->p->columns & SB_COL_OFFCPU) {
		x->metrics[x->n_metrics].id = SB_METRIC_OFFCPU;
		snprintf(x->metrics[x->n_metrics++].name, sizeof(x->metrics[0].name), "off-CPU %%");
	}
	for (i = 0; i < slots; i++) {
		counter_name(x->p, i, x->metrics[x->n_metrics].name, sizeof(x->metrics[0].name));
		x->metrics[x->n_metrics++].id = SB_METRIC_COUNTER + i;
	}
}

static bool is_count(const struct pf *x, unsigned k)
{
	return x->metrics[k].id != SB_METRIC_OFFCPU;
}

/*
 * Metric k of call e as its open call keeps it: the off-CPU percent of its
 * time (0 unknown); for a counted event, the thread's count once e has ended.
 */
static int64_t metric_value(const struct pf *x, const struct pf_thread *t, unsigned k,
			    const struct sb_event *e)
{
	int64_t v = sb_event_metric(x->p, e, x->metrics[k].id), dur = e->end - e->start;

	if (is_count(x, k)) {
		if (v <= 0)
			return t->count[k];
		return v > INT64_MAX - t->count[k] ? INT64_MAX : t->count[k] + v;
	}
	if (v <= 0 || dur <= 0)
		return 0;
	return v >= dur ? 100 : (v * 100 + dur / 2) / dur;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The tid a thread's track shows: its OS tid, unless its rank has an
 * unknown or repeated one (reused after an exit): then every thread of the
 * rank is numbered by its index + 1, as in the Chrome trace, since trace
 * processor takes two tracks of one tid for one thread.
 */
static int32_t *track_tids(const struct sb_xthreads *th)
{
	int32_t *out = malloc((th->n ? th->n : 1) * sizeof(*out));
	int64_t *tids = malloc((th->n ? th->n : 1) * sizeof(*tids));
	size_t i = 0, j, k;
	bool ok;

	while (out && tids && i < th->n) {
		for (j = i; j < th->n && th->v[j].rank == th->v[i].rank; j++)
			tids[j - i] = th->v[j].tid;
		qsort(tids, j - i, sizeof(*tids), cmp_i64);
		ok = tids[0] > 0 && tids[j - i - 1] <= INT32_MAX;
		for (k = 1; k < j - i && ok; k++)
			ok = tids[k] != tids[k - 1];
		for (k = i; k < j; k++)
			out[k] = (int32_t)(ok ? th->v[k].tid : th->v[k].thread + 1);
		i = j;
	}
	free(tids);
	return out;
}

/* "rank N (command)" per process track, pid rank + 1 as in the Chrome trace (0 is the kernel's). */
static int put_ranks(struct pf *x, uint32_t n)
{
	Perfetto__Protos__TrackDescriptor d;
	Perfetto__Protos__ProcessDescriptor pd;
	const char *cmd;
	char *label;
	uint32_t rank;
	int r;

	for (rank = 0; rank < n; rank++) {
		cmd = sb_export_rank_command(x->p, rank);
		r = cmd[0] ? asprintf(&label, "rank %u (%s)", rank, cmd) :
			     asprintf(&label, "rank %u", rank);
		if (r < 0)
			return -ENOMEM;
		d = (Perfetto__Protos__TrackDescriptor)PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		pd = (Perfetto__Protos__ProcessDescriptor)PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
		pd.has_pid = true;
		pd.pid = (int32_t)rank + 1;
		pd.process_name = label;
		d.process = &pd;
		x->rank_uuid[rank] = pf_track(&x->w, &d);
		free(label);
	}
	return 0;
}

static int put_counters(struct pf *x, struct pf_thread *t, const char *thread)
{
	Perfetto__Protos__TrackDescriptor d;
	Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
	char *name;
	unsigned k;

	/* Set for the counted events only. */
	cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_COUNT;
	for (k = 0; k < x->n_metrics; k++) {
		if (asprintf(&name, "%s %s", x->metrics[k].name, thread) < 0)
			return -ENOMEM;
		cd.has_unit = is_count(x, k);
		d = (Perfetto__Protos__TrackDescriptor)PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		d.has_parent_uuid = true;
		d.parent_uuid = t->uuid;
		d.name = name;
		d.counter = &cd;
		t->counters[k] = pf_track(&x->w, &d);
		free(name);
	}
	return 0;
}

/* "name (tid N)" when the thread table names it, else "thread N"; NULL without memory. */
static char *thread_label(const struct sb_xthread *th, int32_t tid)
{
	char *s;

	if (th->name[0] ? asprintf(&s, "%s (tid %d)", th->name, tid) < 0 :
			  asprintf(&s, "thread %lld", (long long)th->thread) < 0)
		return NULL;
	return s;
}

/* A thread track per thread under its rank's process, with its counter tracks. */
static int put_threads(struct pf *x)
{
	Perfetto__Protos__TrackDescriptor d;
	Perfetto__Protos__ThreadDescriptor td;
	const struct sb_xthread *th;
	int32_t *tids = x->tids = track_tids(&x->threads);
	char *label;
	size_t i;
	int r = tids ? 0 : -ENOMEM;

	for (i = 0; i < x->threads.n && !r; i++) {
		th = &x->threads.v[i];
		label = thread_label(th, tids[i]);
		if (!label) {
			r = -ENOMEM;
			break;
		}
		d = (Perfetto__Protos__TrackDescriptor)PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		td = (Perfetto__Protos__ThreadDescriptor)PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
		td.has_pid = td.has_tid = true;
		td.pid = (int32_t)th->rank + 1;
		td.tid = tids[i];
		td.thread_name = th->name[0] ? (char *)th->name : label;
		/* The thread table may list a rank above every rank with calls. */
		d.has_parent_uuid = th->rank < x->n_ranks;
		d.parent_uuid = d.has_parent_uuid ? x->rank_uuid[th->rank] : 0;
		d.thread = &td;
		x->t[i].uuid = pf_track(&x->w, &d);
		r = put_counters(x, &x->t[i], label);
		free(label);
	}
	return r ? r : x->w.err;
}

/* A slice begin or end on t, with the metrics' values where any of them changed. */
static void put_event(struct pf *x, struct pf_thread *t, int64_t ts, unsigned type,
		      uint64_t name_iid, const int64_t *vals)
{
	size_t len = x->n_metrics * sizeof(*vals);

	if (!len || !memcmp(t->shown, vals, len)) {
		pf_event(&x->w, &t->seq, ts, type, name_iid, NULL, 0);
		return;
	}
	memcpy(t->shown, vals, len);
	pf_event(&x->w, &t->seq, ts, type, name_iid, t->shown, x->n_metrics);
}

/*
 * The end of the innermost open call: the off-CPU share falls back to the
 * caller's, a counted event's track takes the call's count.
 */
static void pop(struct pf *x, struct pf_thread *t)
{
	int64_t end = t->ends[--t->depth], vals[PF_MAX_METRICS];
	const int64_t *call = &t->vals[t->depth * x->n_metrics];
	const int64_t *caller = t->depth ? call - x->n_metrics : NULL;
	unsigned k;

	for (k = 0; k < x->n_metrics; k++) {
		if (is_count(x, k)) {
			/* Never back: children that counted more than their caller keep it. */
			if (call[k] > t->count[k])
				t->count[k] = call[k];
			vals[k] = t->count[k];
		} else {
			vals[k] = caller ? caller[k] : 0;
		}
	}
	put_event(x, t, end, PF_SLICE_END, 0, vals);
}

static void pop_until(struct pf *x, struct pf_thread *t, int64_t until)
{
	while (t->depth && t->ends[t->depth - 1] <= until)
		pop(x, t);
}

static int grow(struct pf *x, struct pf_thread *t)
{
	size_t cap = t->cap ? t->cap * 2 : 16;
	int64_t *e = realloc(t->ends, cap * sizeof(*e)), *v;

	if (!e)
		return -ENOMEM;
	t->ends = e;
	v = realloc(t->vals, cap * (x->n_metrics ? x->n_metrics : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->vals = v;
	t->cap = cap;
	return 0;
}

/* Region r's name is iid r + 1 on every thread's sequence. */
static int put_call(struct pf *x, struct pf_thread *t, const struct sb_event *e, uint32_t pair)
{
	uint32_t region = x->p->pairs[pair].region;
	int64_t *call, vals[PF_MAX_METRICS];
	unsigned k;

	pop_until(x, t, e->start);
	if (t->depth && e->end > t->ends[t->depth - 1]) {
		x->skipped++;	/* overlaps its caller without nesting: no slice can show it */
		return 0;
	}
	if (t->depth == t->cap && grow(x, t))
		return -ENOMEM;
	t->ends[t->depth] = e->end;
	call = &t->vals[t->depth++ * x->n_metrics];
	for (k = 0; k < x->n_metrics; k++) {
		call[k] = metric_value(x, t, k, e);
		vals[k] = is_count(x, k) ? t->count[k] : call[k];
	}
	pf_intern(&x->w, &t->seq, region + 1, x->p->regions[region].name);
	put_event(x, t, e->start, PF_SLICE_BEGIN, region + 1, vals);
	return 0;
}

/* One rank's calls in nesting order, each thread on its own sequence. */
static int put_rank(struct pf *x, uint32_t rank)
{
	const struct sb_xthread *th = NULL;
	struct pf_thread *t = NULL;
	const struct sb_event *e;
	uint32_t pair;
	size_t i;
	int r;

	sb_walk_start(&x->walk, rank, SB_WALK_ALL);
	while ((e = sb_walk_next(&x->walk, &pair))) {
		if (!th || th->thread != sb_event_thread(x->p, e)) {
			th = sb_xthreads_find(&x->threads, rank, sb_event_thread(x->p, e));
			if (!th)
				return -EINVAL;	/* every thread with calls is listed */
			t = &x->t[th - x->threads.v];
		}
		r = put_call(x, t, e, pair);
		if (r)
			return r;
	}
	for (i = 0; i < x->threads.n; i++)
		if (x->threads.v[i].rank == rank)
			pop_until(x, &x->t[i], INT64_MAX);
	return x->w.err;
}

static int start_sequences(struct pf *x)
{
	struct pf_thread *t;
	unsigned k;
	size_t i;
	int r;

	for (i = 0; i < x->threads.n; i++) {
		t = &x->t[i];
		if (!x->threads.v[i].calls)
			continue;
		/* A counted event's track starts at 0 with the thread's first call. */
		for (k = 0; k < x->n_metrics; k++)
			t->shown[k] = is_count(x, k) ? -1 : 0;
		r = pf_seq_start(&x->w, &t->seq, t->uuid, t->counters, x->n_metrics,
				 x->p->n_regions);
		if (r)
			return r;
	}
	return 0;
}

static void pf_free(struct pf *x)
{
	size_t i;

	for (i = 0; x->t && i < x->threads.n; i++) {
		pf_seq_free(&x->t[i].seq);
		free(x->t[i].ends);
		free(x->t[i].vals);
	}
	free(x->t);
	free(x->tids);
	free(x->rank_uuid);
	sb_xthreads_free(&x->threads);
	sb_walk_free(&x->walk);
}

static int pf_write(struct pf *x)
{
	uint32_t rank, n = sb_profile_rank_count(x->p);
	struct pf_kind_ctx c = { &x->w, x->p, NULL, n, &x->threads, NULL, &x->skipped };
	struct pf_seq desc = { 0 };
	size_t i;
	int r;

	x->n_ranks = n;
	find_metrics(x);
	if (sb_xthreads_build(&x->threads, x->p) || sb_walk_init(&x->walk, x->p))
		return -ENOMEM;
	x->t = calloc(x->threads.n ? x->threads.n : 1, sizeof(*x->t));
	x->rank_uuid = calloc(n ? n : 1, sizeof(*x->rank_uuid));
	if (!x->t || !x->rank_uuid)
		return -ENOMEM;
	r = pf_seq_start(&x->w, &desc, 0, NULL, 0, 0);
	pf_seq_free(&desc);
	if (!r)
		r = put_ranks(x, n);
	if (!r)
		r = put_threads(x);
	if (!r)
		r = start_sequences(x);
	for (rank = 0; rank < n && !r; rank++)
		r = put_rank(x, rank);
	c.rank_uuid = x->rank_uuid;
	c.tids = x->tids;
	for (i = 0; i < pf_n_kind_views && !r; i++)
		r = pf_kind_views[i].tracks(&c);
	return r ? r : x->w.err;
}

int sb_export_perfetto(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	struct pf x = { .p = p };
	int r;

	r = sb_export_need_events(p, err);
	if (r)
		return r;
	x.w.origin = sb_trace_origin(p);
	x.w.next_seq = PF_SEQ_DESCRIPTORS;
	x.w.next_uuid = 1;
	sb_out_init(&x.w.o, f);
	r = pf_write(&x);
	sb_out_flush(&x.w.o);
	pf_free(&x);
	if (r == -ENOMEM)
		return sb_fail(err, r, "perfetto: out of memory");
	if (r)
		return sb_fail(err, r, "perfetto: a call's thread is not in the thread list");
	if (ferror(f))
		return sb_fail(err, EIO, "perfetto: write error");
	return x.skipped > INT32_MAX ? INT32_MAX : (int)x.skipped;
}
