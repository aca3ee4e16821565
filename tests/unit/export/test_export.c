/* Unit tests of `scope-bpf export`: each format against its own rules, and the command's errors. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/commands.h"
#include "export/export.h"
#include "io/h5write.h"
#include "io/profile_read.h"
#include "fixtures.h"
#include "json_check.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define ORIGIN 50	/* start_time_ns of the synthetic profile */

/* A microsecond value with exactly three decimals, as ns. */
static int64_t jus(const struct jv *o, const char *key)
{
	const struct jv *v = jneed(o, key, J_NUM);
	const char *dot = strchr(v->raw, '.');

	if (!dot || strlen(dot + 1) != 3 || v->raw[0] == '-')
		fail_msg("member \"%s\" = %s is not microseconds with ns precision", key, v->raw);
	return strtoll(v->raw, NULL, 10) * 1000 + strtoll(dot + 1, NULL, 10);
}

static void test_json_checker_rejects_broken_json(void **state)
{
	(void)state;
	assert_true(json_valid("{\"a\": [1, -2.5e3, null, true, \"x\\\"y\\u00e9\"]}\n"));
	assert_false(json_valid("{\"a\": [1, 2,]}"));
	assert_false(json_valid("{\"a\": [1 2]}"));
	assert_false(json_valid("{\"a\" 1}"));
	assert_false(json_valid("[1]]"));
	assert_false(json_valid("[\"a\nb\"]"));
	assert_false(json_valid("[01]"));
	assert_false(json_valid("[1.]"));
	assert_false(json_valid("[\"\xff\"]"));
	assert_false(json_valid("{\"a\":1,}"));
	assert_false(json_valid(""));
}

/* ---- the synthetic profile: 2 ranks, 3 threads, nested calls, off-CPU, tags, metadata ---- */

enum { MAIN, SOLVE, IO };

/* Calls by pair, each pair by start; ranks interleave in the index on purpose. */
static const struct {
	uint32_t region, rank;
	struct sb_event e;
} calls[] = {
	/* rank 0 main; rank 1 main */
	{ MAIN, 0, { 100, 1000, 0, 1, -1, { -1, 135 } } },
	{ MAIN, 1, { 150, 900, 0, 1, -1, { -1, 0 } } },
	/* rank 0 solve: two on thread 0, one on thread 1 */
	{ SOLVE, 0, { 200, 300, 0, 2, 1, { 50, 0 } } },
	{ SOLVE, 0, { 250, 450, 1, 6, -1, { -1, 10 } } },
	{ SOLVE, 0, { 400, 600, 0, 3, 1, { -1, 100 } } },
	/* rank 1 solve: back to back */
	{ SOLVE, 1, { 300, 500, 0, 2, 1, { -1, 20 } } },
	{ SOLVE, 1, { 500, 700, 0, 3, 1, { -1, 0 } } },
	/* rank 0 io inside the first solve, then an instant one where it ends */
	{ IO, 0, { 210, 250, 0, 4, 2, { -1, 5 } } },
	{ IO, 0, { 300, 300, 0, 5, 1, { -1, 0 } } },
	/* rank 1 io: instant, at the start of the second solve */
	{ IO, 1, { 500, 500, 0, 4, 3, { -1, 0 } } },
};

#define N_CALLS (sizeof(calls) / sizeof(calls[0]))
#define N_PAIRS 6

static void build(struct sb_profile *p)
{
	static const struct sb_thread threads[] = {
		{ 0, 0, 4242, 90, 1100, 800, "main" },
		{ 0, 1, 4243, 240, -1, -1, "worker" },
		{ 1, 0, 5252, 140, 950, 700, "rank1" },
	};
	static const struct sb_process procs[] = {
		{ 4242, 1, 0, 50, 1100, 0, "./app --x" },
		{ 5252, 1, 1, 60, -1, -1, "./app --y" },
	};
	size_t i;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	assert_int_equal(sb_profile_add_region(p, "main", "app.c", 10, "[\"app\"]"), MAIN);
	assert_int_equal(sb_profile_add_region(p, "solve", "solver.c", 20, "[\"io\",\"mpi\"]"),
			 SOLVE);
	assert_int_equal(sb_profile_add_region(p, "io,\"w\"", "", -1, "[]"), IO);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 2), 0);
	assert_int_equal(sb_profile_set_int(p, "start_time_ns", ORIGIN), 0);
	assert_int_equal(sb_profile_set_int(p, "finalize_time_ns", 1200), 0);
	assert_int_equal(sb_profile_set_str(p, "label", "unit \"test\""), 0);
	assert_int_equal(sb_profile_set_str(p, "command", "mpirun -n 2 ./app"), 0);
	fx_add_threads(p, threads, 3);
	fx_add_processes(p, procs, 2);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_GPU | SB_COL_OFFCPU;
	for (i = 0; i < N_CALLS; i++)
		fx_add_call(p, calls[i].region, calls[i].rank, &calls[i].e);
	assert_int_equal(p->n_pairs, N_PAIRS);
	p->pairs[0].exclusive_total = 590;
}

/* Run an exporter into memory; the caller frees the text. */
static char *render(int (*fn)(FILE *, const struct sb_profile *, struct sb_error *),
		    const struct sb_profile *p, int expect)
{
	struct sb_error err = { .msg = "" };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	if (fn(f, p, &err) != expect)
		fail_msg("exporter did not return %d: %s", expect, err.msg);
	assert_int_equal(fclose(f), 0);
	return out;
}

/* ---- tags ---- */

static void expect_tags(const char *json, size_t n, const char *const *want)
{
	char **tags;
	size_t got, i;

	assert_int_equal(sb_tags_parse(json, &tags, &got), 0);
	if (got != n)
		fail_msg("'%s': %zu tags, not %zu", json, got, n);
	for (i = 0; i < n; i++)
		assert_string_equal(tags[i], want[i]);
	sb_tags_free(tags, got);
}

static void test_tags_parse_json_lists_and_keep_anything_else(void **state)
{
	static const char *const two[] = { "io", "mpi" };
	static const char *const esc[] = { "a\"b\\c/\n", "\xc3\xbc", "\xf0\x9f\x98\x80",
					   "\xef\xbf\xbd" };
	static const char *const raw[] = { "not json" };
	static const char *const trail[] = { "[\"a\"] x" };

	(void)state;
	expect_tags("[]", 0, NULL);
	expect_tags(" [ ] ", 0, NULL);
	expect_tags("", 0, NULL);
	expect_tags(NULL, 0, NULL);
	expect_tags("[\"io\",\"mpi\"]", 2, two);
	expect_tags(" [ \"io\" , \"mpi\" ] ", 2, two);
	/* Escapes, a BMP code point, a surrogate pair, and a NUL made harmless. */
	expect_tags("[\"a\\\"b\\\\c\\/\\n\",\"\\u00fc\",\"\\ud83d\\ude00\",\"\\u0000\"]", 4, esc);
	expect_tags("not json", 1, raw);
	expect_tags("[\"a\"] x", 1, trail);
}

/* ---- chrome-trace ---- */

struct slice {
	int64_t pid, tid, ts, dur;
};

/* Per (pid, tid), in file order: by start, outer first, each inside or after the one before. */
static void check_nesting(const struct slice *s, size_t n)
{
	size_t i, j, depth;
	int64_t stack[64];

	for (i = 0; i < n; i++) {
		depth = 0;
		for (j = 0; j < n; j++) {
			if (s[j].pid != s[i].pid || s[j].tid != s[i].tid)
				continue;
			/* Each (pid, tid) is checked once, from its first slice. */
			if (j < i)
				break;
			while (depth && stack[depth - 1] <= s[j].ts)
				depth--;
			if (depth && s[j].ts + s[j].dur > stack[depth - 1])
				fail_msg("slice at %lld on %lld/%lld overlaps its parent",
					 (long long)s[j].ts, (long long)s[j].pid,
					 (long long)s[j].tid);
			assert_true(depth < 64);
			stack[depth++] = s[j].ts + s[j].dur;
		}
	}
	for (i = 1; i < n; i++)
		for (j = 0; j < i; j++)
			if (s[j].pid == s[i].pid && s[j].tid == s[i].tid &&
			    (s[j].ts > s[i].ts || (s[j].ts == s[i].ts && s[j].dur < s[i].dur)))
				fail_msg("slices on %lld/%lld out of order", (long long)s[i].pid,
					 (long long)s[i].tid);
}

static const struct jv *find_meta(const struct jv *events, const char *name, int64_t pid,
				  int64_t tid)
{
	const struct jv *e;
	size_t i;

	for (i = 0; i < events->n; i++) {
		e = &events->items[i];
		if (!strcmp(jstr(e, "ph"), "M") && !strcmp(jstr(e, "name"), name) &&
		    jint(e, "pid") == pid && (tid < 0 || jint(e, "tid") == tid))
			return jneed(e, "args", J_OBJ);
	}
	fail_msg("no %s event for pid %lld", name, (long long)pid);
	return NULL;
}

/* The per-call values are in "call"; "args" holds only the region's source. */
static void check_slice_args(const struct jv *e, int64_t ts, int64_t dur)
{
	const struct jv *args = jneed(e, "call", J_OBJ);
	size_t i;

	for (i = 0; i < N_CALLS; i++) {
		if (calls[i].e.start - ORIGIN != ts ||
		    (int64_t)calls[i].rank + 1 != jint(e, "pid") ||
		    calls[i].e.call_id != jint(args, "call_id"))
			continue;
		assert_int_equal(dur, calls[i].e.end - calls[i].e.start);
		assert_int_equal(jint(args, "parent_id"), calls[i].e.parent_id);
		assert_int_equal(jint(args, "offcpu_ns"), calls[i].e.metric[SB_METRIC_OFFCPU]);
		return;
	}
	fail_msg("slice at %lld matches no call", (long long)ts);
}

/* Whether two events have the same member key, written alike. */
static bool same_member(const struct jv *a, const struct jv *b, const char *key)
{
	const struct jv *x = jget(a, key), *y = jget(b, key);
	size_t i;

	if (!x || !y || x->t != y->t || x->n != y->n)
		return !x && !y;
	if (x->t == J_STR)
		return !strcmp(x->str, y->str);
	for (i = 0; i < x->n; i++)
		if (strcmp(x->keys[i], y->keys[i]) || !same_member(x, y, x->keys[i]))
			return false;
	return true;
}

/*
 * The calls as slices, in the order of their begins: a begin ("B") and the
 * end ("E") that closes the innermost open begin of its track, with the
 * same name and args, an instant on its thread ("i", zero-length calls) or
 * a complete event ("X"). *begin[i] is slice i's first event.
 */
static size_t collect_slices(const struct jv *events, struct slice *s, const struct jv **begin,
			     size_t max)
{
	size_t i, k, n = 0, open[16], depth = 0;
	const struct jv *e;
	const char *ph;

	for (i = 0; i < events->n; i++) {
		e = &events->items[i];
		ph = jstr(e, "ph");
		if (strcmp(ph, "B") && strcmp(ph, "E") && strcmp(ph, "X") && strcmp(ph, "i"))
			continue;
		if (*ph == 'i')
			assert_string_equal(jstr(e, "s"), "t");
		if (strcmp(ph, "E")) {
			assert_true(n < max && depth < 16);
			s[n] = (struct slice){ jint(e, "pid"), jint(e, "tid"), jus(e, "ts"),
					       *ph == 'X' ? jus(e, "dur") : *ph == 'i' ? 0 : -1 };
			begin[n] = e;
			if (*ph == 'B')
				open[depth++] = n;
			n++;
			continue;
		}
		for (k = depth; k-- > 0;)
			if (s[open[k]].pid == jint(e, "pid") && s[open[k]].tid == jint(e, "tid"))
				break;
		if (k == SIZE_MAX)
			fail_msg("an end at %lld closes nothing", (long long)jus(e, "ts"));
		if (!same_member(begin[open[k]], e, "name") ||
		    !same_member(begin[open[k]], e, "args"))
			fail_msg("the end at %lld is not the open %s's", (long long)jus(e, "ts"),
				 jstr(begin[open[k]], "name"));
		s[open[k]].dur = jus(e, "ts") - s[open[k]].ts;
		memmove(&open[k], &open[k + 1], (depth - k - 1) * sizeof(open[0]));
		depth--;
	}
	assert_int_equal(depth, 0);
	return n;
}

static void test_chrome_trace_ranks_threads_slices_counters(void **state)
{
	struct slice s[N_CALLS];
	const struct jv *events, *e, *meta, *v, *begin[N_CALLS];
	size_t i, n, counters = 0;
	struct sb_profile p;
	struct jv doc;
	char *out;

	(void)state;
	build(&p);
	out = render(sb_export_chrome_trace, &p, 0);
	json_parse(out, &doc);
	events = jneed(&doc, "traceEvents", J_ARR);
	assert_string_equal(jstr(&doc, "displayTimeUnit"), "ns");
	meta = jneed(&doc, "metadata", J_OBJ);
	assert_int_equal(jint(meta, "ts_origin_ns"), ORIGIN);
	assert_string_equal(jstr(jneed(meta, "profile", J_OBJ), "label"), "unit \"test\"");

	/* pid = rank + 1, named after the rank and its command; tracks named from the table. */
	assert_string_equal(jstr(find_meta(events, "process_name", 1, -1), "name"),
			    "rank 0 (./app --x)");
	assert_string_equal(jstr(find_meta(events, "process_name", 2, -1), "name"),
			    "rank 1 (./app --y)");
	assert_string_equal(jstr(find_meta(events, "thread_name", 1, 4242), "name"), "main");
	assert_string_equal(jstr(find_meta(events, "thread_name", 1, 4243), "name"), "worker");
	assert_string_equal(jstr(find_meta(events, "thread_name", 2, 5252), "name"), "rank1");

	for (i = 0; i < events->n; i++) {
		e = &events->items[i];
		jint(e, "pid");
		jint(e, "tid");
		if (strcmp(jstr(e, "ph"), "C"))
			continue;
		v = jneed(jneed(e, "args", J_OBJ), "%", J_NUM);
		assert_true(v->num >= 0 && v->num <= 100);
		jus(e, "ts");
		counters++;
	}
	n = collect_slices(events, s, begin, N_CALLS);
	for (i = 0; i < n; i++) {
		check_slice_args(begin[i], s[i].ts, s[i].dur);
		jstr(begin[i], "cat");
	}
	assert_int_equal(n, N_CALLS);
	check_nesting(s, n);
	assert_true(counters > 0);

	/* Units: rank 0's main starts 50 ns after the origin and lasts 900 ns. */
	expect_has(out, "{\"ph\":\"B\",\"pid\":1,\"tid\":4242,\"ts\":0.050,\"name\":\"main\","
			"\"cat\":\"app\"");
	expect_has(out, "{\"ph\":\"E\",\"pid\":1,\"tid\":4242,\"ts\":0.950,\"name\":\"main\","
			"\"args\":{\"source\":\"app.c:10\"}}");
	/* A zero-length call is an instant on its thread. */
	expect_has(out, "{\"ph\":\"i\",\"pid\":1,\"tid\":4242,\"ts\":0.250,\"s\":\"t\","
			"\"name\":\"io,\\\"w\\\"\",");
	expect_has(out, "\"name\":\"solve\",\"cat\":\"io,mpi\"");
	expect_has(out, "\"name\":\"io,\\\"w\\\"\",\"cat\":\"region\"");
	expect_has(out, "\"source\":\"app.c:10\"");
	expect_has(out, "\"gpu_ns\":50");
	/* The second solve of rank 0 is off-CPU half of its 200 ns; main 135 of 900 ns. */
	expect_has(out, "\"ts\":0.350,\"name\":\"off-CPU main (tid 4242)\",\"args\":{\"%\":50.0}");
	expect_has(out, "\"ts\":0.050,\"name\":\"off-CPU main (tid 4242)\",\"args\":{\"%\":15.0}");
	/* When it ends, the counter falls back to main's share. */
	expect_has(out, "\"ts\":0.550,\"name\":\"off-CPU main (tid 4242)\",\"args\":{\"%\":15.0}");
	jv_free(&doc);
	free(out);
	sb_profile_free(&p);
}

/*
 * speedscope's trace importer keys a frame by name plus the text of "args":
 * every call of a region must give the same key, at its begin and at its
 * end, or each call is a frame of its own and nothing aggregates (or an end
 * does not close its begin). Each event is one line.
 */
static void test_chrome_trace_calls_of_a_region_share_one_frame_key(void **state)
{
	char *keys[3 * N_CALLS], *line, *save = NULL, *name, *args, *end;
	size_t i, j, n = 0, begins = 0, distinct = 0, names = 0, len;
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p);
	out = render(sb_export_chrome_trace, &p, 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "{\"ph\":", 6) || !strchr("BEXi", line[7]))
			continue;
		name = strstr(line, "\"name\":");
		args = strstr(line, "\"args\":{");
		assert_non_null(name);
		assert_non_null(args);
		end = strchr(args, '}');
		assert_non_null(end);
		/* The name runs to the next member: "cat" (B, X, i) or "args" (E). */
		len = strcspn(name + 7, ",") + 7;
		while (name[len] && strncmp(name + len, ",\"cat\":", 7) &&
		       strncmp(name + len, ",\"args\":", 8))
			len += strcspn(name + len + 1, ",") + 1;
		assert_true(n < 3 * N_CALLS);
		assert_true(asprintf(&keys[n++], "%.*s %.*s", (int)len, name, (int)(end + 1 - args),
				     args) > 0);
		if (line[7] == 'E')
			continue;
		/* The per-call values are still there, outside args. */
		assert_non_null(strstr(end, "\"call\":{\"call_id\":"));
		begins++;
	}
	assert_int_equal(begins, N_CALLS);
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(keys[j], keys[i]); j++)
			;
		distinct += j == i;
		/* The name part alone: the key up to the space before "args". */
		for (j = 0; j < i && strncmp(keys[j], keys[i], strcspn(keys[i], " ") + 1); j++)
			;
		names += j == i;
	}
	/* One key per region (main, solve, io), not one per call. */
	assert_int_equal(names, 3);
	assert_int_equal(distinct, names);
	for (i = 0; i < n; i++)
		free(keys[i]);
	free(out);
	sb_profile_free(&p);
}

static void test_chrome_trace_without_optional_columns(void **state)
{
	struct sb_profile p;
	struct jv doc;
	char *out;

	(void)state;
	build(&p);
	p.columns = 0;
	out = render(sb_export_chrome_trace, &p, 0);
	json_parse(out, &doc);
	/* No off-CPU column, no counters, no args it cannot fill; threads merge into one. */
	assert_null(strstr(out, "\"ph\":\"C\""));
	assert_null(strstr(out, "offcpu_ns"));
	assert_null(strstr(out, "call_id"));
	assert_null(strstr(out, "\"call\""));
	expect_has(out, "\"args\":{\"source\":\"app.c:10\"}}");
	jv_free(&doc);
	free(out);
	sb_profile_free(&p);
}

static void test_chrome_trace_numbers_threads_by_index_when_tids_repeat(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p);
	p.threads[1].tid = p.threads[0].tid;
	out = render(sb_export_chrome_trace, &p, 0);
	assert_true(json_valid(out));
	expect_has(out, "\"name\":\"thread_name\",\"args\":{\"name\":\"main\"}");
	expect_has(out, "\"pid\":1,\"tid\":1,\"ts\":0.050,\"name\":\"main\"");
	expect_has(out, "\"pid\":1,\"tid\":1,\"ts\":0.950,\"name\":\"main\"");
	expect_has(out, "\"pid\":1,\"tid\":2,\"ts\":0.200,\"name\":\"solve\"");
	expect_has(out, "\"pid\":1,\"tid\":2,\"ts\":0.400,\"name\":\"solve\"");
	/* Rank 1 keeps its OS tid. */
	expect_has(out, "\"pid\":2,\"tid\":5252,");
	free(out);
	sb_profile_free(&p);
}

/* ---- speedscope ---- */

/* O/C events balanced, each C closing the innermost open frame, times never going back. */
static size_t check_evented(const struct jv *prof, size_t n_frames)
{
	const struct jv *events = jneed(prof, "events", J_ARR), *e;
	int64_t stack[64], at, last = INT64_MIN;
	size_t i, depth = 0, opens = 0;
	int64_t frame;

	assert_string_equal(jstr(prof, "type"), "evented");
	assert_string_equal(jstr(prof, "unit"), "nanoseconds");
	for (i = 0; i < events->n; i++) {
		e = &events->items[i];
		frame = jint(e, "frame");
		at = jint(e, "at");
		assert_true(frame >= 0 && (size_t)frame < n_frames);
		assert_true(at >= last);
		assert_true(at >= jint(prof, "startValue") && at <= jint(prof, "endValue"));
		last = at;
		if (!strcmp(jstr(e, "type"), "O")) {
			assert_true(depth < 64);
			stack[depth++] = frame;
			opens++;
		} else {
			assert_string_equal(jstr(e, "type"), "C");
			assert_true(depth > 0);
			assert_int_equal(stack[--depth], frame);
		}
	}
	assert_int_equal(depth, 0);
	return opens;
}

static void test_speedscope_profiles_per_thread_balanced(void **state)
{
	static const char *const names[] = { "rank 0: main (tid 4242)", "rank 0: worker (tid 4243)",
					      "rank 1: rank1 (tid 5252)" };
	static const size_t opens[] = { 5, 1, 4 };
	const struct jv *frames, *profiles, *f;
	struct sb_profile p;
	struct jv doc;
	size_t i;
	char *out;

	(void)state;
	build(&p);
	out = render(sb_export_speedscope, &p, 0);
	json_parse(out, &doc);
	assert_string_equal(jstr(&doc, "$schema"),
			    "https://www.speedscope.app/file-format-schema.json");
	assert_string_equal(jstr(&doc, "name"), "unit \"test\"");
	frames = jneed(jneed(&doc, "shared", J_OBJ), "frames", J_ARR);
	assert_int_equal(frames->n, p.n_regions);
	for (i = 0; i < p.n_regions; i++)
		assert_string_equal(jstr(&frames->items[i], "name"), p.regions[i].name);
	f = &frames->items[SOLVE];
	assert_string_equal(jstr(f, "file"), "solver.c");
	assert_int_equal(jint(f, "line"), 20);
	assert_null(jget(&frames->items[IO], "file"));
	assert_null(jget(&frames->items[IO], "line"));

	profiles = jneed(&doc, "profiles", J_ARR);
	assert_int_equal(profiles->n, 3);
	for (i = 0; i < 3; i++) {
		assert_string_equal(jstr(&profiles->items[i], "name"), names[i]);
		assert_int_equal(check_evented(&profiles->items[i], frames->n), opens[i]);
	}
	/* Times in ns from the origin: rank 0's main opens at 50, closes at 950. */
	assert_int_equal(jint(&profiles->items[0], "startValue"), 100 - ORIGIN);
	assert_int_equal(jint(&profiles->items[0], "endValue"), 1000 - ORIGIN);
	expect_has(out, "{\"type\":\"O\",\"frame\":0,\"at\":50}");
	expect_has(out, "{\"type\":\"C\",\"frame\":0,\"at\":950}");
	/* Rank 1: solve closes at 450 before the next opens there, io nests in the second. */
	expect_has(out, "{\"type\":\"C\",\"frame\":1,\"at\":450},\n"
			"{\"type\":\"O\",\"frame\":1,\"at\":450},\n"
			"{\"type\":\"O\",\"frame\":2,\"at\":450},\n"
			"{\"type\":\"C\",\"frame\":2,\"at\":450}");
	jv_free(&doc);
	free(out);
	sb_profile_free(&p);
}

static void test_speedscope_skips_calls_that_do_not_nest(void **state)
{
	const struct jv *profiles;
	struct sb_profile p;
	struct jv doc;
	char *out;

	(void)state;
	build(&p);
	/* Rank 1's second solve now outlives main, which encloses its start. */
	p.events[6].end = 950;
	out = render(sb_export_speedscope, &p, 1);
	json_parse(out, &doc);
	profiles = jneed(&doc, "profiles", J_ARR);
	assert_int_equal(check_evented(&profiles->items[2], p.n_regions), 3);
	jv_free(&doc);
	free(out);
	/* The trace keeps the call; only the counter ignores it. */
	out = render(sb_export_chrome_trace, &p, 0);
	assert_true(json_valid(out));
	free(out);
	sb_profile_free(&p);
}

/* ---- scope-profiler JSON v1 ---- */

static void check_times(const struct jv *list, const struct sb_profile *p,
			const struct sb_pair *q, bool ends)
{
	uint64_t i;

	assert_int_equal(list->t, J_ARR);
	assert_int_equal(list->n, q->count);
	for (i = 0; i < q->count; i++) {
		const struct sb_event *e = &p->events[q->offset + i];

		assert_int_equal(list->items[i].t, J_NUM);
		assert_int_equal(strtoll(list->items[i].raw, NULL, 10), ends ? e->end : e->start);
	}
}

static void test_json_v1_matches_the_model(void **state)
{
	const struct jv *meta, *regions, *r, *tags, *threads;
	const struct sb_region *reg;
	const struct sb_meta *m;
	struct sb_profile p;
	struct jv doc;
	size_t i;
	char *out;

	(void)state;
	build(&p);
	out = render(sb_export_json_v1, &p, 0);
	json_parse(out, &doc);
	assert_string_equal(jstr(&doc, "format"), "scope-profiler-profile");
	assert_int_equal(jint(&doc, "format_version"), 1);
	assert_string_equal(jstr(&doc, "time_unit"), "nanoseconds");
	assert_int_equal(jint(&doc, "num_ranks"), 2);
	meta = jneed(&doc, "metadata", J_OBJ);
	assert_int_equal(meta->n, p.n_meta);
	for (i = 0; i < p.n_meta; i++) {
		m = &p.meta[i];
		if (m->is_int)
			assert_int_equal(jint(meta, m->key), m->i);
		else
			assert_string_equal(jstr(meta, m->key), m->s);
	}
	regions = jneed(&doc, "regions", J_ARR);
	assert_int_equal(regions->n, p.n_pairs);
	for (i = 0; i < p.n_pairs; i++) {
		r = &regions->items[i];
		reg = &p.regions[p.pairs[i].region];
		assert_string_equal(jstr(r, "name"), reg->name);
		assert_int_equal(jint(r, "rank"), p.pairs[i].rank);
		if (reg->source_file[0])
			assert_string_equal(jstr(r, "source_file"), reg->source_file);
		else
			jneed(r, "source_file", J_NULL);
		if (reg->source_line >= 0)
			assert_int_equal(jint(r, "source_lineno"), reg->source_line);
		else
			jneed(r, "source_lineno", J_NULL);
		tags = jneed(r, "tags", J_ARR);
		if (p.pairs[i].region == SOLVE) {
			assert_int_equal(tags->n, 2);
			assert_string_equal(tags->items[0].str, "io");
			assert_string_equal(tags->items[1].str, "mpi");
		} else {
			assert_int_equal(tags->n, p.pairs[i].region == MAIN);
		}
		check_times(jneed(r, "start_times_ns", J_ARR), &p, &p.pairs[i], false);
		check_times(jneed(r, "end_times_ns", J_ARR), &p, &p.pairs[i], true);
		assert_int_equal(jneed(r, "offcpu_ns", J_ARR)->n, p.pairs[i].count);
		assert_int_equal(jneed(r, "thread_ids", J_ARR)->n, p.pairs[i].count);
	}
	assert_int_equal(jint(&regions->items[0], "exclusive_total_ns"), 590);
	assert_null(jget(&regions->items[1], "exclusive_total_ns"));
	threads = jneed(&doc, "threads", J_OBJ);
	assert_int_equal(jneed(threads, "0", J_ARR)->n, 2);
	assert_int_equal(jint(&jneed(threads, "1", J_ARR)->items[0], "native_id"), 5252);
	jv_free(&doc);
	free(out);
	sb_profile_free(&p);
}

static void test_json_v1_writes_regions_in_region_table_order(void **state)
{
	static const struct sb_event ev[] = {
		{ 10, 20, 0, 1, -1, { -1, -1 } }, { 30, 40, 0, 2, -1, { -1, -1 } },
		{ 50, 60, 0, 3, -1, { -1, -1 } }, { 0, 100, 0, 0, -1, { -1, -1 } },
	};
	const struct jv *regions;
	struct sb_profile p;
	struct jv doc;
	char *out;

	(void)state;
	sb_profile_init(&p);
	assert_int_equal(sb_profile_add_region(&p, "main", "", -1, NULL), 0);
	assert_int_equal(sb_profile_add_region(&p, "solve", "", -1, NULL), 1);
	p.columns = SB_COL_THREAD | SB_COL_CALL_ID;
	/* In event order solve's rows come first, rank 1 before rank 0. */
	fx_add_call(&p, 1, 1, &ev[0]);
	fx_add_call(&p, 1, 0, &ev[1]);
	fx_add_call(&p, 0, 1, &ev[2]);
	fx_add_call(&p, 0, 0, &ev[3]);
	out = render(sb_export_json_v1, &p, 0);
	json_parse(out, &doc);
	regions = jneed(&doc, "regions", J_ARR);
	assert_int_equal(regions->n, 4);
	assert_string_equal(jstr(&regions->items[0], "name"), "main");
	assert_int_equal(jint(&regions->items[0], "rank"), 0);
	assert_int_equal(jneed(&regions->items[0], "start_times_ns", J_ARR)->items[0].num, 0);
	assert_string_equal(jstr(&regions->items[1], "name"), "main");
	assert_int_equal(jint(&regions->items[1], "rank"), 1);
	assert_string_equal(jstr(&regions->items[2], "name"), "solve");
	assert_int_equal(jint(&regions->items[2], "rank"), 0);
	assert_int_equal(jneed(&regions->items[2], "start_times_ns", J_ARR)->items[0].num, 30);
	assert_string_equal(jstr(&regions->items[3], "name"), "solve");
	assert_int_equal(jint(&regions->items[3], "rank"), 1);
	jv_free(&doc);
	free(out);
	sb_profile_free(&p);
}

/* ---- CSV ---- */

/* Split one RFC 4180 record at s into fields; returns the start of the next record. */
static const char *csv_record(const char *s, char fields[][64], size_t *n)
{
	size_t k;

	*n = 0;
	for (;;) {
		k = 0;
		if (*s == '"') {
			for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
				if (*s == '"')
					s++;
				fields[*n][k++] = *s;
			}
			assert_true(*s == '"');
			s++;
		} else {
			while (*s && *s != ',' && *s != '\n') {
				assert_true(*s != '"');
				fields[*n][k++] = *s++;
			}
		}
		fields[(*n)++][k] = '\0';
		if (*s == ',') {
			s++;
			continue;
		}
		assert_true(*s == '\n');
		return s + 1;
	}
}

static void test_csv_rows_fields_and_quoting(void **state)
{
	char f[32][64];
	size_t n, rows = 0, regions = 0, calls_seen = 0;
	struct sb_profile p;
	const char *s;
	char *out;

	(void)state;
	build(&p);
	out = render(sb_export_csv, &p, 0);
	s = csv_record(out, f, &n);
	assert_int_equal(n, 20);
	assert_string_equal(f[0], "kind");
	assert_string_equal(f[4], "region");
	while (*s) {
		s = csv_record(s, f, &n);
		assert_int_equal(n, 20);
		rows++;
		if (!strcmp(f[0], "region"))
			regions++;
		else if (!strcmp(f[0], "call"))
			calls_seen++;
		else
			fail_msg("row kind '%s'", f[0]);
	}
	assert_int_equal(rows, N_CALLS + N_PAIRS);
	assert_int_equal(regions, N_PAIRS);
	assert_int_equal(calls_seen, N_CALLS);
	/* A name with a comma and a quote is quoted, its quote doubled. */
	expect_has(out, "\nregion,0,,,\"io,\"\"w\"\"\",,,,,,5,0,2,40,0,40,20,,,\n");
	expect_has(out, "\nregion,0,,,main,,,,,,135,0,1,900,900,900,900,590,app.c,10\n");
	expect_has(out, "\ncall,0,0,4242,solve,200,300,100,2,1,0,50,,,,,,,,\n");
	expect_has(out, "\ncall,0,1,4243,solve,250,450,200,6,-1,10,,,,,,,,,\n");
	expect_has(out, "\ncall,1,0,5252,\"io,\"\"w\"\"\",500,500,0,4,3,0,,,,,,,,,\n");
	free(out);
	sb_profile_free(&p);
}

static void test_csv_region_names_never_run_as_formulas(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p);
	free(p.regions[MAIN].name);
	p.regions[MAIN].name = strdup("=HYPERLINK(\"http://x\")");
	free(p.regions[SOLVE].source_file);
	p.regions[SOLVE].source_file = strdup("@evil.c");
	out = render(sb_export_csv, &p, 0);
	expect_has(out, "\nregion,0,,,\"'=HYPERLINK(\"\"http://x\"\")\",,,,,,135,");
	expect_has(out, ",\"'@evil.c\",20\n");
	assert_null(strstr(out, ",=HYPERLINK"));
	free(out);
	sb_profile_free(&p);
}

static void test_empty_profile_exports_are_valid(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	sb_profile_init(&p);
	out = render(sb_export_chrome_trace, &p, 0);
	assert_true(json_valid(out));
	free(out);
	out = render(sb_export_speedscope, &p, 0);
	assert_true(json_valid(out));
	free(out);
	out = render(sb_export_json_v1, &p, 0);
	assert_true(json_valid(out));
	free(out);
	out = render(sb_export_csv, &p, 0);
	assert_non_null(strchr(out, '\n'));
	assert_null(strchr(strchr(out, '\n') + 1, '\n'));
	free(out);
	sb_profile_free(&p);
}

static void test_exporters_need_the_calls(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	struct sb_event *ev;
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	build(&p);
	ev = p.events;
	p.events = NULL;
	assert_int_equal(sb_export_chrome_trace(f, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not loaded"));
	assert_int_equal(sb_export_speedscope(f, &p, &err), -EINVAL);
	assert_int_equal(sb_export_json_v1(f, &p, &err), -EINVAL);
	assert_int_equal(sb_export_csv(f, &p, &err), -EINVAL);
	p.events = ev;
	fclose(f);
	sb_profile_free(&p);
}

/* ---- the command ---- */

/* Run cmd_export with stderr captured into err (and stdout quieted); returns its status. */
static int run(int argc, char **argv, char *err, size_t len)
{
	int saved_err = dup(2), saved_out = dup(1), fd, r;
	char path[512];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/output.txt", tmp_dir);
	fflush(stderr);
	fflush(stdout);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	dup2(fd, 2);
	dup2(fd, 1);
	r = cmd_export(argc, argv);
	fflush(stderr);
	fflush(stdout);
	dup2(saved_err, 2);
	dup2(saved_out, 1);
	close(saved_err);
	close(saved_out);
	n = pread(fd, err, len - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return r;
}

static void expect_status(int argc, char **argv, int status, const char *needle)
{
	char err[2048];
	int r = run(argc, argv, err, sizeof(err));

	if (r != status)
		fail_msg("exit %d, not %d: %s", r, status, err);
	if (needle && !strstr(err, needle))
		fail_msg("output '%s' does not mention '%s'", err, needle);
}

static void test_command_usage_errors_exit_2(void **state)
{
	char *none[] = { "export" };
	char *no_file[] = { "export", "json" };
	char *kind[] = { "export", "xml", "p.h5" };
	char *opt[] = { "export", "--bogus", "json", "p.h5" };
	char *short_opt[] = { "export", "-z", "json", "p.h5" };
	char *no_arg[] = { "export", "json", "p.h5", "-o" };
	char *empty_out[] = { "export", "json", "p.h5", "--output=" };
	char *two[] = { "export", "json", "a.h5", "b.h5" };
	char *help[] = { "export", "--help" };
	char *absent[] = { "export", "csv", "/nonexistent/scope-bpf-test.h5" };

	(void)state;
	expect_status(ARGC(none), none, 2, "missing KIND");
	expect_status(ARGC(no_file), no_file, 2, "missing FILE");
	expect_status(ARGC(kind), kind, 2, "'xml' is not a KIND");
	expect_status(ARGC(opt), opt, 2, "--bogus: unknown option");
	expect_status(ARGC(short_opt), short_opt, 2, "-z: unknown option");
	expect_status(ARGC(no_arg), no_arg, 2, "-o: needs an argument");
	expect_status(ARGC(empty_out), empty_out, 2, "--output");
	expect_status(ARGC(two), two, 2, "'b.h5'");
	expect_status(ARGC(help), help, 0, "chrome-trace");
	expect_status(ARGC(absent), absent, 2,
		      "scope-bpf export: /nonexistent/scope-bpf-test.h5: ");
}

/* Usage and errors are made from sb_export_kinds: every kind, its suffix, wrapped as written before. */
static void test_command_texts_list_every_kind_of_the_table(void **state)
{
	char *help[] = { "export", "--help" };
	char *kind[] = { "export", "xml", "p.h5" };
	char *offcpu[] = { "export", "--offcpu", "csv", "p.h5" };
	char out[4096], needle[128];
	size_t i;

	(void)state;
	assert_int_equal(run(ARGC(help), help, out, sizeof(out)), 0);
	for (i = 0; i < sb_export_n_kinds; i++) {
		snprintf(needle, sizeof(needle), "\n  %-15s", sb_export_kinds[i].name);
		if (!strstr(out, needle))
			fail_msg("--help does not list '%s'", sb_export_kinds[i].name);
		assert_non_null(strstr(out, sb_export_kinds[i].suffix));
	}
	assert_non_null(strstr(out, "\n  chrome-trace   Trace Event JSON for ui.perfetto.dev and "
				    "chrome://tracing:\n                 one process per rank,"));
	assert_non_null(strstr(out, "with its\n                     extension replaced by "
				    ".trace.json, .speedscope.json,\n                     "
				    ".json, .csv, .prof, .folded, .svg, .pftrace, .pb.gz,\n"
				    "                     .perf.txt or -otf2\n"));
	assert_non_null(strstr(out, "\n      --offcpu       folded, flamegraph: off-CPU time"));
	expect_status(ARGC(kind), kind, 2, "'xml' is not a KIND; use one of chrome-trace, "
		      "speedscope, json, csv, pstats, folded, flamegraph, perfetto, pprof, "
		      "perf-script, otf2\n");
	expect_status(ARGC(offcpu), offcpu, 2, "--offcpu: only folded and flamegraph have it");
}

static void write_h5(const char *path)
{
	fx_write_built(path, build);
}

static void test_command_writes_each_kind_beside_the_profile(void **state)
{
	static const char *const kinds[] = { "chrome-trace", "speedscope", "json", "csv" };
	static const char *const outs[] = { "prof.trace.json", "prof.speedscope.json",
					    "prof.json", "prof.csv" };
	char h5[512], *text;
	char *argv[3] = { "export", NULL, h5 };
	size_t i;

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tmp_path("prof.h5"));
	write_h5(h5);
	for (i = 0; i < 4; i++) {
		argv[1] = (char *)kinds[i];
		expect_status(ARGC(argv), argv, 0, outs[i]);
		text = slurp(tmp_path(outs[i]));
		if (i < 3 && !json_valid(text))
			fail_msg("%s is not valid JSON", outs[i]);
		if (i == 3)
			assert_int_equal(strncmp(text, "kind,rank,", 10), 0);
		free(text);
	}
	assert_int_equal(count_tmp_files(), 0);
}

static void test_command_json_round_trips_through_our_reader(void **state)
{
	char *h5 = tmp_path("rt.h5"), *json = tmp_path("rt-out.json");
	char *argv[] = { "export", "json", h5, "-o", json };
	char *again[] = { "export", "json", json };
	struct sb_error err = { .msg = "" };
	struct sb_profile a, b;
	size_t i, k;
	ssize_t r;

	(void)state;
	write_h5(h5);
	expect_status(ARGC(argv), argv, 0, NULL);
	assert_int_equal(sb_profile_read(json, &b, &err), 0);
	build(&a);
	assert_int_equal(b.n_pairs, a.n_pairs);
	assert_int_equal(sb_profile_rank_count(&b), 2);
	for (i = 0; i < a.n_pairs; i++) {
		const struct sb_region *want = &a.regions[a.pairs[i].region];
		const struct sb_pair *q = NULL;

		r = sb_profile_find_region(&b, want->name);
		assert_true(r >= 0);
		assert_string_equal(b.regions[r].source_file, want->source_file);
		assert_int_equal(b.regions[r].source_line, want->source_line);
		assert_string_equal(b.regions[r].tags, want->tags);
		for (k = 0; k < b.n_pairs && !q; k++)
			if (b.pairs[k].region == (uint32_t)r && b.pairs[k].rank == a.pairs[i].rank)
				q = &b.pairs[k];
		assert_non_null(q);
		assert_int_equal(q->count, a.pairs[i].count);
		assert_int_equal(b.events[q->offset].start, a.events[a.pairs[i].offset].start);
		assert_int_equal(q->stats.total, a.pairs[i].stats.total);
	}
	sb_profile_free(&a);
	sb_profile_free(&b);
	/* Exporting the JSON as JSON would write over it: refused. */
	expect_status(ARGC(again), again, 2, "is the profile itself");
}

static void test_command_sample_exports_of_a_profile_without_samples(void **state)
{
	char *h5 = tmp_path("nosamples.h5");
	char *folded[] = { "export", "folded", h5 };
	char *offcpu[] = { "export", "folded", "--offcpu", h5, "-o", tmp_path("off.folded") };
	char *svg[] = { "export", "flamegraph", h5 };

	(void)state;
	write_h5(h5);
	/* One answer for both: exit 2, what is missing and how to get it, no file. */
	expect_status(ARGC(folded), folded, 2,
		      "nosamples.h5: the profile has no CPU samples: record with --sample\n");
	assert_int_equal(access(tmp_path("nosamples.folded"), F_OK), -1);
	expect_status(ARGC(offcpu), offcpu, 2,
		      "no off-CPU samples: record with --offcpu-stacks");
	assert_int_equal(access(tmp_path("off.folded"), F_OK), -1);
	expect_status(ARGC(svg), svg, 2, "nosamples.h5: the profile has no CPU or off-CPU "
		      "samples: record with --sample or --offcpu-stacks\n");
	assert_int_equal(access(tmp_path("nosamples.svg"), F_OK), -1);
	assert_int_equal(count_tmp_files(), 0);
}

static void test_command_refuses_what_it_cannot_write(void **state)
{
	char *h5 = tmp_path("w.h5");
	char *argv[] = { "export", "csv", h5, "-o", "/nonexistent/dir/out.csv" };
	char *junk = tmp_path("junk.h5");
	char *bad[] = { "export", "csv", junk };
	FILE *f;

	(void)state;
	write_h5(h5);
	expect_status(ARGC(argv), argv, 1, "/nonexistent/dir/out.csv");
	f = fopen(junk, "w");
	assert_non_null(f);
	fputs("not a profile\n", f);
	fclose(f);
	expect_status(ARGC(bad), bad, 2, junk);
	assert_int_equal(count_tmp_files(), 0);
}

/* A FIFO (or device) given as OUT is written in place, not replaced by a renamed file. */
static void test_command_writes_into_a_fifo_in_place(void **state)
{
	char h5[512], fifo[512], copy[512], *text;
	char *argv[] = { "export", "speedscope", h5, "-o", fifo };
	struct stat st;
	int status, in, out;
	ssize_t n;
	pid_t pid;
	char buf[4096];

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tmp_path("fifo.h5"));
	snprintf(fifo, sizeof(fifo), "%s", tmp_path("fifo"));
	snprintf(copy, sizeof(copy), "%s", tmp_path("fifo.copy"));
	write_h5(h5);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		in = open(fifo, O_RDONLY);
		out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				_exit(1);
		_exit(in < 0 || out < 0);
	}
	expect_status(ARGC(argv), argv, 0, NULL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(stat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	text = slurp(copy);
	assert_true(json_valid(text));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_checker_rejects_broken_json),
		cmocka_unit_test(test_tags_parse_json_lists_and_keep_anything_else),
		cmocka_unit_test(test_chrome_trace_ranks_threads_slices_counters),
		cmocka_unit_test(test_chrome_trace_calls_of_a_region_share_one_frame_key),
		cmocka_unit_test(test_chrome_trace_without_optional_columns),
		cmocka_unit_test(test_chrome_trace_numbers_threads_by_index_when_tids_repeat),
		cmocka_unit_test(test_speedscope_profiles_per_thread_balanced),
		cmocka_unit_test(test_speedscope_skips_calls_that_do_not_nest),
		cmocka_unit_test(test_json_v1_matches_the_model),
		cmocka_unit_test(test_json_v1_writes_regions_in_region_table_order),
		cmocka_unit_test(test_csv_rows_fields_and_quoting),
		cmocka_unit_test(test_csv_region_names_never_run_as_formulas),
		cmocka_unit_test(test_empty_profile_exports_are_valid),
		cmocka_unit_test(test_exporters_need_the_calls),
		cmocka_unit_test(test_command_usage_errors_exit_2),
		cmocka_unit_test(test_command_texts_list_every_kind_of_the_table),
		cmocka_unit_test(test_command_writes_each_kind_beside_the_profile),
		cmocka_unit_test(test_command_json_round_trips_through_our_reader),
		cmocka_unit_test(test_command_sample_exports_of_a_profile_without_samples),
		cmocka_unit_test(test_command_refuses_what_it_cannot_write),
		cmocka_unit_test(test_command_writes_into_a_fifo_in_place),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
