/*
 * The Chrome trace and speedscope exports read back the way speedscope's
 * importers read them: the same double arithmetic, in the same order.
 *
 * speedscope's trace-event importer (src/import/trace-event.ts) splits the
 * events by (pid, tid); per thread it subtracts the smallest ts from every
 * ts, turns an X event into a begin at ts and an end at ts + dur, sorts the
 * X events by ts (longer first, else file order), then the begins and the
 * ends each by ts (file order on ties), and walks both queues: the earlier
 * first; on a tie the begin when it has the front end's key (a zero-length
 * call), else the end, preferring among the ends of that instant one whose
 * key, then name, is the open frame's. An end whose name is not the open
 * frame's is dropped with a warning, and the frame stays open. Its
 * file-format importer takes an evented profile's "at" minus "startValue".
 * All of it in IEEE doubles, as JavaScript computes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "export/export.h"
#include "fixtures.h"
#include "json_check.h"

/* ---- a profile like an OpenMP run's: joins end with their parallel region ---- */

enum { SOLVE, PARALLEL, JOIN, N_REGIONS };
#define N_THREADS 2
#define N_ITER 400
#define N_OMP (N_THREADS * N_ITER)
#define BASE 14000000000000LL	/* CLOCK_MONOTONIC after four hours up */

static uint64_t rnd_state;

static int64_t rnd(int64_t below)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int64_t)((rnd_state >> 33) % (uint64_t)below);
}

static struct sb_event call(int64_t start, int64_t end, size_t thread, int64_t id,
			    int64_t parent)
{
	return (struct sb_event){ start, end, (int64_t)thread, id, parent, { -1, -1 } };
}

static int cmp_start(const void *a, const void *b)
{
	const struct sb_event *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/*
 * Per thread and iteration a solve, an omp:parallel inside it (ending with
 * it one time in three) and an omp:join that ends at the same nanosecond
 * as the parallel region; iterations a few ms apart, at jittered ns.
 */
static void build_omp(struct sb_profile *p)
{
	static const char *const names[N_REGIONS] = { "solve", "omp:parallel", "omp:join" };
	static struct sb_event ev[N_REGIONS][N_OMP];
	struct sb_thread th = { .rank = 0, .end_ns = -1, .cpu_ns = -1 };
	char name[16];
	int64_t s, len, end, id;
	size_t i, k, n = 0, r;

	rnd_state = 27;
	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (i = 0; i < N_ITER; i++) {
		for (k = 0; k < N_THREADS; k++, n++) {
			s = BASE + (int64_t)i * 3000000 + (int64_t)k * 7 + rnd(1000);
			len = 1000000 + rnd(1000000);
			end = rnd(3) ? s + len - 1 - rnd(5000) : s + len;
			id = (int64_t)n * 3 + 1;
			ev[SOLVE][n] = call(s, s + len, k, id, -1);
			ev[PARALLEL][n] = call(s + 1 + rnd(2000), end, k, id + 1, id);
			ev[JOIN][n] = call(end - 1 - rnd(3000), end, k, id + 2, id + 1);
		}
	}
	for (r = 0; r < N_REGIONS; r++) {
		assert_int_equal(sb_profile_add_region(p, names[r], "omp.c", 10 + (int64_t)r, "[]"),
				 r);
		qsort(ev[r], N_OMP, sizeof(ev[r][0]), cmp_start);
		fx_add_pair(p, (uint32_t)r, 0, ev[r], N_OMP);
	}
	for (k = 0; k < N_THREADS; k++) {
		snprintf(name, sizeof(name), "omp-%zu", k);
		th.index = (int64_t)k;
		th.tid = 100 + (int64_t)k;
		th.name = name;
		assert_true(sb_profile_add_thread(p, &th) >= 0);
	}
}

static char *render(int (*fn)(FILE *, const struct sb_profile *, struct sb_error *),
		    const struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	if (fn(f, p, &err))
		fail_msg("export failed: %s", err.msg);
	assert_int_equal(fclose(f), 0);
	return out;
}

/* ---- what speedscope rebuilds: frames with their parent, start and end ---- */

struct frame {
	const char *name;
	double start, end;
	long parent;		/* frame index, -1 at the top */
	int64_t call_id, parent_id;	/* from the call's "call" member, -1 without */
};

struct rebuilt {
	struct frame *f;
	size_t n;
	long stack[64];
	size_t depth;
	double last;		/* the builder refuses values that go back */
};

static void enter(struct rebuilt *b, const char *name, double at, int64_t call_id,
		  int64_t parent_id)
{
	if (at < b->last)
		fail_msg("%s opens at %.17g, before the last value %.17g", name, at, b->last);
	assert_true(b->depth < 64);
	b->f = realloc(b->f, (b->n + 1) * sizeof(*b->f));
	assert_non_null(b->f);
	b->f[b->n] = (struct frame){ name, at, at, b->depth ? b->stack[b->depth - 1] : -1,
				     call_id, parent_id };
	b->stack[b->depth++] = (long)b->n++;
	b->last = at;
}

static void leave(struct rebuilt *b, double at)
{
	assert_true(b->depth > 0);
	if (at < b->last)
		fail_msg("%s closes at %.17g, before the last value %.17g",
			 b->f[b->stack[b->depth - 1]].name, at, b->last);
	b->f[b->stack[--b->depth]].end = at;
	b->last = at;
}

/*
 * Every frame lies inside its parent in the consumer's own numbers, and
 * is the child of the call the profile says (parent ids, where known).
 */
static void check_tree(const struct rebuilt *b, size_t want)
{
	const struct frame *f, *up;
	size_t i;

	assert_int_equal(b->depth, 0);
	assert_int_equal(b->n, want);
	for (i = 0; i < b->n; i++) {
		f = &b->f[i];
		up = f->parent >= 0 ? &b->f[f->parent] : NULL;
		if (up && (f->end > up->end || f->start < up->start))
			fail_msg("%s [%.17g, %.17g] is not inside its parent %s [%.17g, %.17g]",
				 f->name, f->start, f->end, up->name, up->start, up->end);
		if (f->call_id >= 0 && f->parent_id != (up ? up->call_id : -1))
			fail_msg("call %lld (%s) is under call %lld, not %lld",
				 (long long)f->call_id, f->name, (long long)(up ? up->call_id : -1),
				 (long long)f->parent_id);
	}
}

/* ---- speedscope's trace-event importer ---- */

struct tev {
	char ph;		/* 'B' or 'E' once X events are split */
	double ts, dur;
	const char *name;
	char *key;		/* name, a space, the args as JSON.stringify writes them */
	int64_t call_id, parent_id;
	size_t order;		/* file order, for stable sorts */
};

/* JSON.stringify of a parsed value: keys in order, no spaces (our args hold strings and ints). */
static void stringify(const struct jv *v, char **out, size_t *len)
{
	FILE *f = open_memstream(out, len);
	size_t i;

	assert_non_null(f);
	if (v->t == J_STR) {
		fprintf(f, "\"%s\"", v->str);
	} else if (v->t == J_NUM) {
		fprintf(f, "%s", v->raw);
	} else {
		assert_int_equal(v->t, J_OBJ);
		fputc('{', f);
		for (i = 0; i < v->n; i++) {
			char *s;
			size_t n;

			stringify(&v->items[i], &s, &n);
			fprintf(f, "%s\"%s\":%s", i ? "," : "", v->keys[i], s);
			free(s);
		}
		fputc('}', f);
	}
	assert_int_equal(fclose(f), 0);
}

static char *event_key(const struct jv *e)
{
	const struct jv *args = jget(e, "args");
	char *a = NULL, *key;
	size_t n;

	if (!args)
		return strdup(jstr(e, "name"));
	stringify(args, &a, &n);
	assert_true(asprintf(&key, "%s %s", jstr(e, "name"), a) > 0);
	free(a);
	return key;
}

static int64_t call_member(const struct jv *e, const char *key)
{
	const struct jv *call = jget(e, "call");

	return call && jget(call, key) ? jint(call, key) : -1;
}

static int cmp_ts(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* X events: by ts, the longer first, else in file order. */
static int cmp_x(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

struct queues {
	struct tev *b, *e, *x;
	size_t nb, ne, nx;
};

static void push(struct tev **v, size_t *n, const struct tev *t)
{
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	assert_non_null(*v);
	(*v)[(*n)++] = *t;
}

static void rebase(struct tev *v, size_t n, double first)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i].ts -= first;
}

static void sort_events(struct tev *v, size_t n, int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(v, n, sizeof(*v), cmp);
}

/* One thread's B, E and X events, rebased on its smallest ts, X split in two. */
static void thread_queues(const struct jv *events, int64_t pid, int64_t tid, struct queues *q)
{
	double first = 9007199254740991.0;	/* Number.MAX_SAFE_INTEGER */
	const struct jv *e;
	struct tev t;
	size_t i;

	memset(q, 0, sizeof(*q));
	for (i = 0; i < events->n; i++) {
		e = &events->items[i];
		if (!strchr("BEX", jstr(e, "ph")[0]) || jint(e, "pid") != pid ||
		    jint(e, "tid") != tid)
			continue;
		t = (struct tev){ jstr(e, "ph")[0], jneed(e, "ts", J_NUM)->num, 0, jstr(e, "name"),
				  event_key(e), call_member(e, "call_id"),
				  call_member(e, "parent_id"), i };
		if (t.ph == 'X')
			t.dur = jneed(e, "dur", J_NUM)->num;
		if (t.ts < first)
			first = t.ts;
		push(t.ph == 'B' ? &q->b : t.ph == 'E' ? &q->e : &q->x,
		     t.ph == 'B' ? &q->nb : t.ph == 'E' ? &q->ne : &q->nx, &t);
	}
	rebase(q->b, q->nb, first);
	rebase(q->e, q->ne, first);
	rebase(q->x, q->nx, first);
	sort_events(q->x, q->nx, cmp_x);
	for (i = 0; i < q->nx; i++) {
		t = q->x[i];
		t.ph = 'B';
		t.order = events->n + i;
		push(&q->b, &q->nb, &t);
		t.ph = 'E';
		t.ts = q->x[i].ts + q->x[i].dur;
		t.key = strdup(t.key);
		t.call_id = t.parent_id = -1;
		push(&q->e, &q->ne, &t);
	}
	sort_events(q->b, q->nb, cmp_ts);
	sort_events(q->e, q->ne, cmp_ts);
}

static void free_queues(struct queues *q)
{
	size_t i;

	for (i = 0; i < q->nb; i++)
		free(q->b[i].key);
	for (i = 0; i < q->ne; i++)
		free(q->e[i].key);
	free(q->b);
	free(q->e);
	free(q->x);
}

/* Among the ends of the front's instant, bring one matching the open frame to the front. */
static void match_end(struct tev *e, size_t n, const struct tev *open)
{
	struct tev tmp;
	size_t i, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 1; i < n && e[i].ts <= e[0].ts; i++)
			if (!strcmp(pass ? e[i].name : e[i].key, pass ? open->name : open->key)) {
				tmp = e[0];
				e[0] = e[i];
				e[i] = tmp;
				return;
			}
}

/* The begin first when it is earlier, or at one instant when it has the end's key. */
static bool begin_first(const struct tev *be, const struct tev *ee)
{
	if (!be || !ee)
		return be;
	return be->ts < ee->ts || (be->ts == ee->ts && !strcmp(be->key, ee->key));
}

static void replay_thread(struct queues *q, struct rebuilt *b)
{
	const struct tev *open[64], *top;
	size_t ib = 0, ie = 0, depth = 0;
	struct tev *be, *ee;

	while (ib < q->nb || ie < q->ne) {
		be = ib < q->nb ? &q->b[ib] : NULL;
		ee = ie < q->ne ? &q->e[ie] : NULL;
		if (begin_first(be, ee)) {
			assert_true(depth < 64);
			open[depth++] = be;
			enter(b, be->name, be->ts, be->call_id, be->parent_id);
			ib++;
			continue;
		}
		if (!depth)
			fail_msg("ts=%.17g: tried to end \"%s\" with nothing open", ee->ts,
				 ee->key);
		top = open[depth - 1];
		match_end(ee, q->ne - ie, top);
		if (strcmp(ee->name, top->name) || strcmp(ee->key, top->key))
			fail_msg("ts=%.17g: tried to end \"%s\" when \"%s\" was on the top of the "
				 "stack", ee->ts, ee->key, top->key);
		depth--;
		leave(b, ee->ts);
		ie++;
	}
	if (depth)
		fail_msg("\"%s\" was still open at the end of the profile", open[depth - 1]->key);
}

/* The trace as speedscope's trace-event importer rebuilds it, checked per thread. */
static void check_trace_import(const char *json, const int64_t (*threads)[2], size_t n_threads,
			       size_t want_calls)
{
	struct rebuilt b = { 0 };
	struct queues q;
	struct jv doc;
	size_t i;

	json_parse(json, &doc);
	for (i = 0; i < n_threads; i++) {
		thread_queues(jneed(&doc, "traceEvents", J_ARR), threads[i][0], threads[i][1], &q);
		b.last = 0;
		replay_thread(&q, &b);
		free_queues(&q);
	}
	check_tree(&b, want_calls);
	free(b.f);
	jv_free(&doc);
}

static void test_chrome_trace_nests_in_speedscope_at_large_timestamps(void **state)
{
	static const int64_t threads[N_THREADS][2] = { { 1, 100 }, { 1, 101 } };
	struct sb_profile p;
	char *out;

	(void)state;
	build_omp(&p);
	out = render(sb_export_chrome_trace, &p);
	check_trace_import(out, threads, N_THREADS, N_REGIONS * N_OMP);
	free(out);
	sb_profile_free(&p);
}

/* ---- speedscope's own file format ---- */

/* Each evented profile: "at" - "startValue" per event, each close for the open frame. */
static void check_evented_import(const char *json, size_t want_calls)
{
	const struct jv *frames, *profiles, *prof, *events, *e;
	struct rebuilt b = { 0 };
	int64_t open[64], frame;
	size_t i, k, depth;
	double start;
	struct jv doc;

	json_parse(json, &doc);
	frames = jneed(jneed(&doc, "shared", J_OBJ), "frames", J_ARR);
	profiles = jneed(&doc, "profiles", J_ARR);
	for (k = 0; k < profiles->n; k++) {
		prof = &profiles->items[k];
		if (strcmp(jstr(prof, "type"), "evented"))
			continue;
		start = jneed(prof, "startValue", J_NUM)->num;
		events = jneed(prof, "events", J_ARR);
		b.last = 0;
		for (i = 0, depth = 0; i < events->n; i++) {
			e = &events->items[i];
			frame = jint(e, "frame");
			assert_true(frame >= 0 && (size_t)frame < frames->n);
			if (!strcmp(jstr(e, "type"), "O")) {
				assert_true(depth < 64);
				open[depth++] = frame;
				enter(&b, jstr(&frames->items[frame], "name"),
				      jneed(e, "at", J_NUM)->num - start, -1, -1);
				continue;
			}
			if (!depth || open[depth - 1] != frame)
				fail_msg("profile %zu: closes frame %lld, not the open one", k,
					 (long long)frame);
			depth--;
			leave(&b, jneed(e, "at", J_NUM)->num - start);
		}
		assert_int_equal(depth, 0);
	}
	check_tree(&b, want_calls);
	free(b.f);
	jv_free(&doc);
}

static void test_speedscope_nests_at_large_timestamps(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build_omp(&p);
	out = render(sb_export_speedscope, &p);
	check_evented_import(out, N_REGIONS * N_OMP);
	free(out);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chrome_trace_nests_in_speedscope_at_large_timestamps),
		cmocka_unit_test(test_speedscope_nests_at_large_timestamps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
