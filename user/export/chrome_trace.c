/* Chrome Trace Event Format export: ranks as processes, threads as tracks, calls as slices. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/chrome_trace.h"
#include "export/export.h"
#include "util/version.h"

/* One open call on a thread's stack. */
struct frame {
	int64_t end;
	uint32_t region;
	bool has_end;		/* written as a begin: its end event is still to come */
	int share;		/* off-CPU share of the call in tenths of a percent */
};

/* Per (rank, thread): its track id, its open calls and its off-CPU counter state. */
struct track {
	int64_t tid;
	char *counter;		/* quoted counter name */
	struct frame *stack;
	size_t depth;
	size_t cap;
	int64_t last_start;	/* of the thread's latest call written */
	int shown;		/* last counter value written; -1 before the first */
};

struct chrome {
	struct sb_trace_out t;
	const struct sb_profile *p;
	struct sb_xthreads threads;
	struct track *tracks;	/* parallel to threads.v */
	char **names;		/* per region: quoted name, category, source */
	char **cats;
	char **sources;
	struct sb_walk walk;
	void **kinds;		/* each kind's view's state, parallel to sb_trace_kind_views */
	bool offcpu;
	/* The metric columns the profile has, in export order, with their argument keys. */
	struct {
		unsigned id;
		char key[64];	/* "short_name": */
	} metrics[SB_N_METRICS];
	unsigned n_metrics;
};

/* Looked up once: each call's arguments then only copy the keys. */
static void metric_keys(struct chrome *c)
{
	unsigned k, id;

	for (k = 0; k < SB_N_METRICS; k++) {
		id = sb_column_export_id(k);
		if (!(c->p->columns & SB_COL_METRIC(id)))
			continue;
		c->metrics[c->n_metrics].id = id;
		snprintf(c->metrics[c->n_metrics].key, sizeof(c->metrics[0].key), "\"%s\":",
			 sb_column(id)->short_name);
		c->n_metrics++;
	}
}

void sb_trace_ts(struct sb_trace_out *t, int64_t ns)
{
	/* The origin is at or before every start, so the difference fits unsigned. */
	sb_out_us(&t->o, (uint64_t)ns - (uint64_t)t->origin);
}

/* pid is rank + 1: Perfetto takes pid 0 for the kernel's idle process and treats it apart. */
void sb_trace_begin(struct sb_trace_out *t, char ph, uint32_t rank, int64_t tid)
{
	sb_out_str(&t->o, t->started ? ",\n{\"ph\":\"" : "{\"ph\":\"");
	t->started = true;
	sb_out_char(&t->o, ph);
	sb_out_str(&t->o, "\",\"pid\":");
	sb_out_i64(&t->o, (int64_t)rank + 1);
	sb_out_str(&t->o, ",\"tid\":");
	sb_out_i64(&t->o, tid);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Threads show under their OS tid, which users know from other tools; a rank
 * with an unknown or repeated tid (reused after an exit) numbers all of its
 * threads by index + 1 instead, so two threads never share a track.
 */
static int assign_tids(struct chrome *c)
{
	size_t i = 0, j, k, n = c->threads.n;
	int64_t *tids = malloc((n ? n : 1) * sizeof(*tids));
	bool ok;

	if (!tids)
		return -ENOMEM;
	while (i < n) {
		for (j = i; j < n && c->threads.v[j].rank == c->threads.v[i].rank; j++)
			tids[j - i] = c->threads.v[j].tid;
		qsort(tids, j - i, sizeof(*tids), cmp_i64);
		ok = tids[0] > 0;
		for (k = 1; k < j - i && ok; k++)
			ok = tids[k] != tids[k - 1];
		for (k = i; k < j; k++)
			c->tracks[k].tid = ok ? c->threads.v[k].tid : c->threads.v[k].thread + 1;
		i = j;
	}
	free(tids);
	return 0;
}

/* "name (tid N)" when the name is known, else "thread N". */
static char *thread_label(const struct sb_xthread *x, int64_t tid)
{
	char *s;
	int r;

	if (x->name[0])
		r = asprintf(&s, "%s (tid %lld)", x->name, (long long)tid);
	else
		r = asprintf(&s, "thread %lld", (long long)tid);
	return r < 0 ? NULL : s;
}

static int counter_name(struct track *t, const struct sb_xthread *x)
{
	char *label = thread_label(x, t->tid), *s;
	int r;

	if (!label)
		return -ENOMEM;
	r = asprintf(&s, "off-CPU %s", label);
	free(label);
	if (r < 0)
		return -ENOMEM;
	t->counter = sb_json_quote(s);
	free(s);
	return t->counter ? 0 : -ENOMEM;
}

/* "[\"a\",\"b\"]" -> "a,b", the comma list trace viewers filter by; "region" when none. */
static char *category(const char *tags_json)
{
	char **tags, *joined = NULL, *q;
	size_t n, i, len = 0;

	if (sb_tags_parse(tags_json, &tags, &n))
		return NULL;
	for (i = 0; i < n; i++)
		len += strlen(tags[i]) + 1;
	joined = malloc(len ? len : sizeof("region"));
	if (joined) {
		strcpy(joined, n ? "" : "region");
		for (i = 0, q = joined; i < n; i++)
			q += sprintf(q, "%s%s", i ? "," : "", tags[i]);
	}
	sb_tags_free(tags, n);
	q = joined ? sb_json_quote(joined) : NULL;
	free(joined);
	return q;
}

/* "file:line", "file", or NULL (no source) in *out; -ENOMEM on failure. */
static int source(const struct sb_region *r, char **out)
{
	char *s;

	*out = NULL;
	if (!r->source_file[0])
		return 0;
	if (r->source_line >= 0 ? asprintf(&s, "%s:%lld", r->source_file,
					   (long long)r->source_line) < 0 :
				  !(s = strdup(r->source_file)))
		return -ENOMEM;
	*out = sb_json_quote(s);
	free(s);
	return *out ? 0 : -ENOMEM;
}

static int region_strings(struct chrome *c)
{
	size_t n = c->p->n_regions ? c->p->n_regions : 1, i;
	const struct sb_region *r;

	c->names = calloc(n, sizeof(*c->names));
	c->cats = calloc(n, sizeof(*c->cats));
	c->sources = calloc(n, sizeof(*c->sources));
	if (!c->names || !c->cats || !c->sources)
		return -ENOMEM;
	for (i = 0; i < c->p->n_regions; i++) {
		r = &c->p->regions[i];
		c->names[i] = sb_json_quote(r->name);
		c->cats[i] = category(r->tags);
		if (!c->names[i] || !c->cats[i] || source(r, &c->sources[i]))
			return -ENOMEM;
	}
	return 0;
}

static void chrome_free(struct chrome *c)
{
	size_t i;

	for (i = 0; c->tracks && i < c->threads.n; i++) {
		free(c->tracks[i].counter);
		free(c->tracks[i].stack);
	}
	for (i = 0; i < c->p->n_regions; i++) {
		free(c->names ? c->names[i] : NULL);
		free(c->cats ? c->cats[i] : NULL);
		free(c->sources ? c->sources[i] : NULL);
	}
	free(c->names);
	free(c->cats);
	free(c->sources);
	free(c->tracks);
	for (i = 0; c->kinds && i < sb_trace_n_kind_views; i++)
		if (sb_trace_kind_views[i]->release)
			sb_trace_kind_views[i]->release(c->kinds[i]);
	free(c->kinds);
	sb_xthreads_free(&c->threads);
	sb_walk_free(&c->walk);
}

static int init_kinds(struct chrome *c)
{
	const struct sb_trace_kind_view *v;
	size_t i;
	int r = 0;

	c->kinds = calloc(sb_trace_n_kind_views + 1, sizeof(*c->kinds));
	if (!c->kinds)
		return -ENOMEM;
	for (i = 0; i < sb_trace_n_kind_views && !r; i++) {
		v = sb_trace_kind_views[i];
		if (v->init)
			r = v->init(&c->kinds[i], c->p);
	}
	return r;
}

static int chrome_init(struct chrome *c)
{
	size_t i;
	int r;

	c->t.origin = sb_trace_origin(c->p);
	c->offcpu = c->p->columns & SB_COL_OFFCPU;
	metric_keys(c);
	if (sb_xthreads_build(&c->threads, c->p) || sb_walk_init(&c->walk, c->p))
		return -ENOMEM;
	c->tracks = calloc(c->threads.n ? c->threads.n : 1, sizeof(*c->tracks));
	if (!c->tracks || assign_tids(c))
		return -ENOMEM;
	for (i = 0; i < c->threads.n; i++) {
		c->tracks[i].shown = -1;
		c->tracks[i].last_start = INT64_MIN;
		if (c->offcpu) {
			r = counter_name(&c->tracks[i], &c->threads.v[i]);
			if (r)
				return r;
		}
	}
	r = region_strings(c);
	return r ? r : init_kinds(c);
}

void sb_trace_meta(struct sb_trace_out *t, const char *name, uint32_t rank, int64_t tid,
		   const char *key)
{
	sb_trace_begin(t, 'M', rank, tid);
	sb_out_str(&t->o, ",\"name\":\"");
	sb_out_str(&t->o, name);
	sb_out_str(&t->o, "\",\"args\":{\"");
	sb_out_str(&t->o, key);
	sb_out_str(&t->o, "\":");
}

/* "rank N (command)" per process, the thread table's names per track, in rank order. */
static int put_names(struct chrome *c)
{
	uint32_t rank, n = sb_profile_rank_count(c->p);
	const struct sb_xthread *x;
	const char *cmd;
	char *label;
	size_t i;
	int r;

	for (rank = 0; rank < n; rank++) {
		cmd = sb_export_rank_command(c->p, rank);
		if (cmd[0])
			r = asprintf(&label, "rank %u (%s)", rank, cmd);
		else
			r = asprintf(&label, "rank %u", rank);
		if (r < 0)
			return -ENOMEM;
		sb_trace_meta(&c->t, "process_name", rank, 0, "name");
		sb_out_json(&c->t.o, label);
		free(label);
		sb_out_str(&c->t.o, "}}");
		sb_trace_meta(&c->t, "process_sort_index", rank, 0, "sort_index");
		sb_out_i64(&c->t.o, rank);
		sb_out_str(&c->t.o, "}}");
	}
	for (i = 0; i < c->threads.n; i++) {
		x = &c->threads.v[i];
		sb_trace_meta(&c->t, "thread_name", x->rank, c->tracks[i].tid, "name");
		if (x->name[0]) {
			sb_out_json(&c->t.o, x->name);
		} else {
			sb_out_str(&c->t.o, "\"thread ");
			sb_out_i64(&c->t.o, x->thread);
			sb_out_char(&c->t.o, '"');
		}
		sb_out_str(&c->t.o, "}}");
		sb_trace_meta(&c->t, "thread_sort_index", x->rank, c->tracks[i].tid, "sort_index");
		sb_out_i64(&c->t.o, x->thread);
		sb_out_str(&c->t.o, "}}");
	}
	for (i = 0; i < sb_trace_n_kind_views; i++)
		if (sb_trace_kind_views[i]->names)
			sb_trace_kind_views[i]->names(c->kinds[i], &c->t);
	return 0;
}

static int64_t host_tid(void *ctx, uint32_t rank, int64_t thread)
{
	struct chrome *c = ctx;
	const struct sb_xthread *x = sb_xthreads_find(&c->threads, rank, thread);

	return x ? c->tracks[x - c->threads.v].tid : -1;
}

static void put_counter(struct chrome *c, const struct sb_xthread *x, struct track *t,
			int64_t ts, int share)
{
	if (share == t->shown)
		return;
	t->shown = share;
	sb_trace_begin(&c->t, 'C', x->rank, t->tid);
	sb_out_str(&c->t.o, ",\"ts\":");
	sb_trace_ts(&c->t, ts);
	sb_out_str(&c->t.o, ",\"name\":");
	sb_out_str(&c->t.o, t->counter);
	sb_out_str(&c->t.o, ",\"args\":{\"%\":");
	sb_out_i64(&c->t.o, share / 10);
	sb_out_char(&c->t.o, '.');
	sb_out_char(&c->t.o, (char)('0' + share % 10));
	sb_out_str(&c->t.o, "}}");
}

static int share_of(const struct sb_event *e)
{
	int64_t dur = e->end - e->start, off = e->metric[SB_METRIC_OFFCPU];

	if (dur <= 0 || off <= 0)
		return 0;
	if (off >= dur)
		return 1000;
	return (int)((off * 1000 + dur / 2) / dur);
}

static void put_name(struct chrome *c, uint32_t region)
{
	sb_out_str(&c->t.o, ",\"name\":");
	sb_out_str(&c->t.o, c->names[region]);
}

static void put_args(struct chrome *c, uint32_t region)
{
	sb_out_str(&c->t.o, ",\"args\":{");
	if (c->sources[region]) {
		sb_out_str(&c->t.o, "\"source\":");
		sb_out_str(&c->t.o, c->sources[region]);
	}
	sb_out_char(&c->t.o, '}');
}

/*
 * The end of a call: name and args as at its begin, so that speedscope,
 * which keys a frame by both, closes the frame it opened.
 */
static void put_end(struct chrome *c, const struct sb_xthread *x, const struct track *t,
		    const struct frame *f)
{
	sb_trace_begin(&c->t, 'E', x->rank, t->tid);
	sb_out_str(&c->t.o, ",\"ts\":");
	sb_trace_ts(&c->t, f->end);
	put_name(c, f->region);
	put_args(c, f->region);
	sb_out_char(&c->t.o, '}');
}

/* Close the calls that ended by time `until`; the counter falls back to the caller's share. */
static void pop_until(struct chrome *c, const struct sb_xthread *x, struct track *t,
		      int64_t until)
{
	const struct frame *f;

	while (t->depth && t->stack[t->depth - 1].end <= until) {
		f = &t->stack[--t->depth];
		if (f->has_end)
			put_end(c, x, t, f);
		if (c->offcpu)
			put_counter(c, x, t, f->end, t->depth ? t->stack[t->depth - 1].share : 0);
	}
}

static int push(struct track *t, const struct sb_event *e, uint32_t region)
{
	struct frame *q;

	if (t->depth == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		q = realloc(t->stack, t->cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		t->stack = q;
	}
	t->stack[t->depth++] = (struct frame){ e->end, region, e->end > e->start, share_of(e) };
	return 0;
}

/*
 * speedscope names a frame by its name and its whole "args" object, so args
 * holds only what is the same for every call of a region (its source); the
 * per-call values go in "call", a member trace viewers pass over, and a
 * region's calls aggregate into one frame there.
 */
static void put_call_values(struct chrome *c, const struct sb_event *e)
{
	unsigned cols = c->p->columns, k, id;
	static const char open[] = ",\"call\":{";
	const char *sep = open;
	int64_t v;

	if (cols & SB_COL_CALL_ID) {
		sb_out_str(&c->t.o, sep);
		sb_out_str(&c->t.o, "\"call_id\":");
		sb_out_i64(&c->t.o, e->call_id);
		sep = ",";
	}
	if (cols & SB_COL_PARENT_ID) {
		sb_out_str(&c->t.o, sep);
		sb_out_str(&c->t.o, "\"parent_id\":");
		sb_out_i64(&c->t.o, e->parent_id);
		sep = ",";
	}
	for (k = 0; k < c->n_metrics; k++) {
		id = c->metrics[k].id;
		v = sb_event_metric(c->p, e, id);
		if (v < 0 && sb_column(id)->sparse)
			continue;
		sb_out_str(&c->t.o, sep);
		sb_out_str(&c->t.o, c->metrics[k].key);
		sb_out_i64(&c->t.o, v);
		sep = ",";
	}
	if (sep != open)
		sb_out_char(&c->t.o, '}');
}

/*
 * A call as a begin event; its end event follows when it closes. A consumer
 * reads an end as the number written, so a child that ends with its parent
 * ends at the parent's instant, where an X event's end is ts + dur in the
 * consumer's doubles and can land after the parent's (speedscope then
 * closes the wrong frame). A zero-length call is an instant event: its
 * begin and end could be read in either order at their one instant (as
 * speedscope does when the instant is its caller's start). A call that
 * does not nest (complete) is a complete event, which no stack of begins
 * can hold.
 */
static void put_call(struct chrome *c, const struct sb_event *e, uint32_t pair, int64_t tid,
		     bool complete)
{
	const struct sb_pair *q = &c->p->pairs[pair];
	char ph = complete ? 'X' : e->end <= e->start ? 'i' : 'B';

	sb_trace_begin(&c->t, ph, q->rank, tid);
	sb_out_str(&c->t.o, ",\"ts\":");
	sb_trace_ts(&c->t, e->start);
	if (ph == 'X') {
		sb_out_str(&c->t.o, ",\"dur\":");
		sb_out_us(&c->t.o, e->end > e->start ? (uint64_t)e->end - (uint64_t)e->start : 0);
	} else if (ph == 'i') {
		sb_out_str(&c->t.o, ",\"s\":\"t\"");	/* on its thread's track */
	}
	put_name(c, q->region);
	sb_out_str(&c->t.o, ",\"cat\":");
	sb_out_str(&c->t.o, c->cats[q->region]);
	put_args(c, q->region);
	put_call_values(c, e);
	sb_out_char(&c->t.o, '}');
}

/*
 * Calls nest on their thread's stack. One that overlaps its caller without
 * nesting, or starts before the thread's previous call (a consistent
 * profile has neither; the threads of a profile without a thread column
 * share one stack), is kept as a complete event, outside the stack, and
 * leaves the counter alone.
 */
static int put_thread_call(struct chrome *c, const struct sb_xthread *x, struct track *t,
			   const struct sb_event *e, uint32_t pair)
{
	int r;

	pop_until(c, x, t, e->start);
	if (e->start < t->last_start || (t->depth && e->end > t->stack[t->depth - 1].end)) {
		put_call(c, e, pair, t->tid, true);
		return 0;
	}
	t->last_start = e->start;
	r = push(t, e, c->p->pairs[pair].region);
	if (r)
		return r;
	put_call(c, e, pair, t->tid, false);
	if (c->offcpu)
		put_counter(c, x, t, e->start, t->stack[t->depth - 1].share);
	return 0;
}

/* One rank's calls in start order (threads interleaved, each in nesting order). */
static int put_rank(struct chrome *c, uint32_t rank)
{
	const struct sb_xthread *x, *last = NULL;
	const struct sb_event *e;
	struct track *t = NULL;
	uint32_t pair;
	size_t i;
	int r;

	sb_walk_start(&c->walk, rank, SB_WALK_ALL);
	while ((e = sb_walk_next(&c->walk, &pair))) {
		if (!last || last->thread != sb_event_thread(c->p, e)) {
			last = sb_xthreads_find(&c->threads, rank, sb_event_thread(c->p, e));
			if (!last)
				return -EINVAL;	/* every thread with calls is listed */
			t = &c->tracks[last - c->threads.v];
		}
		r = put_thread_call(c, last, t, e, pair);
		if (r)
			return r;
	}
	for (i = 0; i < c->threads.n; i++) {
		x = &c->threads.v[i];
		if (x->rank == rank)
			pop_until(c, x, &c->tracks[i], INT64_MAX);
	}
	return 0;
}

static void put_metadata(struct chrome *c)
{
	sb_out_str(&c->t.o, "\n],\n\"displayTimeUnit\":\"ns\",\n\"metadata\":{"
		   "\"exporter\":\"scope-bpf@" SCOPE_BPF_VERSION "\","
		   "\"clock\":\"CLOCK_MONOTONIC\",\"ts_origin_ns\":");
	sb_out_i64(&c->t.o, c->t.origin);
	sb_out_str(&c->t.o, ",\"source_format\":");
	sb_out_json(&c->t.o, c->p->format ? c->p->format : "");
	sb_out_str(&c->t.o, ",\"profile\":{");
	sb_out_meta_members(&c->t.o, c->p, true);
	sb_out_str(&c->t.o, "}}}\n");
}

int sb_export_chrome_trace(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	struct chrome c = { .p = p };
	uint32_t rank, n = sb_profile_rank_count(p);
	size_t i;
	int r;

	r = sb_export_need_events(p, err);
	if (r)
		return r;
	r = chrome_init(&c);
	if (r) {
		chrome_free(&c);
		return sb_fail(err, r, "chrome-trace: out of memory");
	}
	sb_out_init(&c.t.o, f);
	sb_out_str(&c.t.o, "{\"traceEvents\":[\n");
	r = put_names(&c);
	for (rank = 0; rank < n && !r; rank++)
		r = put_rank(&c, rank);
	for (i = 0; i < sb_trace_n_kind_views && !r; i++)
		if (sb_trace_kind_views[i]->events)
			sb_trace_kind_views[i]->events(c.kinds[i], &c.t, host_tid, &c);
	if (!r)
		put_metadata(&c);
	sb_out_flush(&c.t.o);
	chrome_free(&c);
	if (r == -ENOMEM)
		return sb_fail(err, r, "chrome-trace: out of memory");
	if (r)
		return sb_fail(err, r, "chrome-trace: a call's thread is not in the thread list");
	return 0;
}
