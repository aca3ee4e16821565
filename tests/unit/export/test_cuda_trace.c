/* Unit tests of the Chrome trace's GPU lanes: slices per device and stream, flows to launches. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/filter.h"
#include "export/chrome_trace.h"
#include "export/export.h"
#include "util/version.h"
#include "cuda_fixture.h"
#include "json_check.h"

static char *render(const struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	if (sb_export_chrome_trace(f, p, &err))
		fail_msg("chrome-trace: %s", err.msg);
	assert_int_equal(fclose(f), 0);
	return out;
}

/* A microsecond value with exactly three decimals, as ns. */
static int64_t jus(const struct jv *o, const char *key)
{
	const struct jv *v = jneed(o, key, J_NUM);
	const char *dot = strchr(v->raw, '.');

	if (!dot || strlen(dot + 1) != 3 || v->raw[0] == '-')
		fail_msg("member \"%s\" = %s is not microseconds with ns precision", key, v->raw);
	return strtoll(v->raw, NULL, 10) * 1000 + strtoll(dot + 1, NULL, 10);
}

static bool is(const struct jv *e, const char *ph)
{
	return !strcmp(jstr(e, "ph"), ph);
}

/* The tid of the thread_name event of pid named name; fails when there is none. */
static int64_t track(const struct jv *events, int64_t pid, const char *name)
{
	const struct jv *e;
	size_t i;

	for (i = 0; i < events->n; i++) {
		e = &events->items[i];
		if (is(e, "M") && !strcmp(jstr(e, "name"), "thread_name") &&
		    jint(e, "pid") == pid && !strcmp(jstr(jneed(e, "args", J_OBJ), "name"), name))
			return jint(e, "tid");
	}
	fail_msg("no track \"%s\" in pid %lld", name, (long long)pid);
	return -1;
}

static int64_t sort_index(const struct jv *events, int64_t pid, int64_t tid)
{
	const struct jv *e;
	size_t i;

	for (i = 0; i < events->n; i++) {
		e = &events->items[i];
		if (is(e, "M") && !strcmp(jstr(e, "name"), "thread_sort_index") &&
		    jint(e, "pid") == pid && jint(e, "tid") == tid)
			return jint(jneed(e, "args", J_OBJ), "sort_index");
	}
	fail_msg("no thread_sort_index for %lld/%lld", (long long)pid, (long long)tid);
	return -1;
}

/* The only complete event named name; fails unless there is exactly one. */
static const struct jv *slice(const struct jv *events, const char *name)
{
	const struct jv *e, *found = NULL;
	size_t i;

	for (i = 0; i < events->n; i++) {
		e = &events->items[i];
		if (!is(e, "X") || strcmp(jstr(e, "name"), name))
			continue;
		if (found)
			fail_msg("two slices named \"%s\"", name);
		found = e;
	}
	if (!found)
		fail_msg("no slice named \"%s\"", name);
	return found;
}

static void expect_on(const struct jv *e, int64_t pid, int64_t tid, int64_t start, int64_t end)
{
	assert_int_equal(jint(e, "pid"), pid);
	assert_int_equal(jint(e, "tid"), tid);
	assert_int_equal(jus(e, "ts"), start - CU_ORIGIN);
	assert_int_equal(jus(e, "dur"), end - start);
}

static void expect_dim3(const struct jv *args, const char *key, int x, int y, int z)
{
	const struct jv *v = jneed(args, key, J_ARR);

	assert_int_equal(v->n, 3);
	assert_int_equal(strtol(v->items[0].raw, NULL, 10), x);
	assert_int_equal(strtol(v->items[1].raw, NULL, 10), y);
	assert_int_equal(strtol(v->items[2].raw, NULL, 10), z);
}

static void test_chrome_trace_gpu_lanes_hold_kernels_copies_memsets(void **state)
{
	const struct jv *events, *e, *args;
	int64_t r0s7, r0s9, r0g1, r1s7;
	struct sb_profile p;
	struct jv doc;
	char *out;

	(void)state;
	cu_build(&p, true);
	out = render(&p);
	json_parse(out, &doc);
	events = jneed(&doc, "traceEvents", J_ARR);

	/* One lane per (rank, device, stream) with GPU work, none for API-only streams. */
	r0s7 = track(events, 1, "GPU 0 stream 7");
	r0s9 = track(events, 1, "GPU 0 stream 9");
	r0g1 = track(events, 1, "GPU 1 stream 7");
	r1s7 = track(events, 2, "GPU 0 stream 7");
	assert_int_equal(r0s7, SB_TRACE_GPU_TID);
	assert_true(r0s9 != r0s7 && r0g1 != r0s7 && r0g1 != r0s9);
	assert_true(r0s7 > 4243 && r1s7 > 5252);
	/* Below the host threads. */
	assert_true(sort_index(events, 1, r0s7) > sort_index(events, 1, 4243));

	e = slice(events, "square(float*, int)");
	expect_on(e, 1, r0s7, 260, 400);
	assert_string_equal(jstr(e, "cat"), "kernel");
	args = jneed(e, "args", J_OBJ);
	expect_dim3(args, "grid", 4, 1, 1);
	expect_dim3(args, "block", 256, 1, 1);
	assert_int_equal(jint(jneed(e, "call", J_OBJ), "correlation"), 7);
	assert_int_equal(jint(args, "device"), 0);
	assert_int_equal(jint(args, "stream"), 7);
	assert_string_equal(jstr(args, "region"), "solve");
	/* Per-call values outside args, so a kernel's launches aggregate in speedscope. */
	assert_int_equal(jint(jneed(e, "call", J_OBJ), "call_id"), 2);
	assert_null(jget(args, "call_id"));
	assert_null(jget(args, "correlation"));
	assert_null(jget(args, "bytes"));

	e = slice(events, "memcpy HtoD 4 MiB");
	expect_on(e, 1, r0s9, 300, 500);
	assert_string_equal(jstr(e, "cat"), "memcpy");
	args = jneed(e, "args", J_OBJ);
	assert_int_equal(jint(args, "bytes"), CU_MIB4);
	assert_string_equal(jstr(args, "copy"), "HtoD");
	assert_int_equal(jint(jneed(e, "call", J_OBJ), "call_id"), 3);
	assert_null(jget(args, "grid"));

	/* A memset outside every region: no region, no call. */
	e = slice(events, "memset 512 B");
	expect_on(e, 1, r0g1, 600, 650);
	args = jneed(e, "args", J_OBJ);
	assert_int_equal(jint(args, "bytes"), 512);
	assert_int_equal(jint(args, "value"), 0);
	assert_null(jget(args, "region"));
	assert_null(jget(jneed(e, "call", J_OBJ), "call_id"));

	/* An extern "C" name stays as it is. */
	e = slice(events, "plain_kernel");
	expect_on(e, 2, r1s7, 350, 800);
	assert_string_equal(jstr(jneed(e, "args", J_OBJ), "region"), "main");
	jv_free(&doc);
	free(out);
	sb_profile_free(&p);
}

struct flow {
	int64_t id, pid, tid, ts;
	bool bp_e;
};

/* The innermost X slice on (pid, tid) that holds ts, or NULL. */
static const struct jv *slice_at(const struct jv *events, int64_t pid, int64_t tid, int64_t ts)
{
	const struct jv *e, *in = NULL;
	size_t i;

	for (i = 0; i < events->n; i++) {
		e = &events->items[i];
		if (is(e, "X") && jint(e, "pid") == pid && jint(e, "tid") == tid &&
		    jus(e, "ts") <= ts && ts <= jus(e, "ts") + jus(e, "dur") &&
		    (!in || jus(e, "dur") < jus(in, "dur")))
			in = e;
	}
	return in;
}

static size_t flows(const struct jv *events, const char *ph, struct flow *f, size_t cap)
{
	const struct jv *e;
	size_t i, n = 0;

	for (i = 0; i < events->n; i++) {
		e = &events->items[i];
		if (!is(e, ph))
			continue;
		assert_true(n < cap);
		assert_string_equal(jstr(e, "cat"), "cuda");
		assert_string_equal(jstr(e, "name"), "launch");
		f[n++] = (struct flow){ jint(e, "id"), jint(e, "pid"), jint(e, "tid"),
					jus(e, "ts"), jget(e, "bp") && !strcmp(jstr(e, "bp"), "e") };
	}
	return n;
}

static void test_chrome_trace_flows_tie_each_launch_to_its_gpu_work(void **state)
{
	struct flow s[8], f[8];
	const struct jv *events, *gpu, *api;
	size_t ns, nf, i, j;
	struct sb_profile p;
	struct jv doc;
	char *out;

	(void)state;
	cu_build(&p, true);
	out = render(&p);
	json_parse(out, &doc);
	events = jneed(&doc, "traceEvents", J_ARR);
	ns = flows(events, "s", s, 8);
	nf = flows(events, "f", f, 8);
	/* The kernels and the copy; the memset's launch is unknown. */
	assert_int_equal(ns, 3);
	assert_int_equal(nf, 3);
	for (i = 0; i < ns; i++) {
		for (j = 0; j < i; j++)
			assert_true(s[j].id != s[i].id);
		for (j = 0; j < nf && f[j].id != s[i].id; j++)
			;
		if (j == nf)
			fail_msg("flow %lld starts and never ends", (long long)s[i].id);
		assert_true(f[j].bp_e);
		assert_int_equal(f[j].pid, s[i].pid);
		/* It ends inside a GPU slice, on a GPU lane. */
		gpu = slice_at(events, f[j].pid, f[j].tid, f[j].ts);
		assert_non_null(gpu);
		assert_true(f[j].tid >= SB_TRACE_GPU_TID);
		assert_true(f[j].ts > jus(gpu, "ts") && f[j].ts < jus(gpu, "ts") + jus(gpu, "dur"));
		/* It starts inside the launching API call, on the launching host thread. */
		api = slice_at(events, s[i].pid, s[i].tid, s[i].ts);
		assert_non_null(api);
		assert_true(s[i].tid < SB_TRACE_GPU_TID);
		assert_int_equal(jint(jneed(api, "call", J_OBJ), "correlation"),
				 jint(jneed(gpu, "call", J_OBJ), "correlation"));
	}
	/* The copy was launched by the worker thread. */
	for (i = 0; i < ns && s[i].tid != 4243; i++)
		;
	assert_true(i < ns);
	assert_int_equal(s[i].ts, 275 - CU_ORIGIN);
	jv_free(&doc);
	free(out);
	sb_profile_free(&p);
}

/* Slices of one track either nest or are apart: what viewers need to stack them. */
static void check_proper_nesting(const struct jv *events)
{
	const struct jv *a, *b;
	int64_t a0, a1, b0, b1;
	size_t i, j;

	for (i = 0; i < events->n; i++) {
		a = &events->items[i];
		if (!is(a, "X"))
			continue;
		a0 = jus(a, "ts"), a1 = a0 + jus(a, "dur");
		for (j = 0; j < events->n; j++) {
			b = &events->items[j];
			if (j == i || !is(b, "X") || jint(b, "pid") != jint(a, "pid") ||
			    jint(b, "tid") != jint(a, "tid"))
				continue;
			b0 = jus(b, "ts"), b1 = b0 + jus(b, "dur");
			if (a0 < b0 && b0 < a1 && a1 < b1)
				fail_msg("\"%s\" and \"%s\" overlap", jstr(a, "name"), jstr(b, "name"));
		}
	}
}

static void test_chrome_trace_cuda_calls_on_their_host_threads(void **state)
{
	const struct jv *events, *e;
	struct sb_profile p;
	struct jv doc;
	char *out;

	(void)state;
	cu_build(&p, true);
	out = render(&p);
	json_parse(out, &doc);
	events = jneed(&doc, "traceEvents", J_ARR);
	check_proper_nesting(events);
	e = slice(events, "cudaMemcpyAsync");
	expect_on(e, 1, 4243, 270, 280);
	assert_string_equal(jstr(e, "cat"), "cuda");
	assert_int_equal(jint(jneed(e, "args", J_OBJ), "cbid"), 41);
	e = slice(events, "synchronize stream");
	expect_on(e, 1, 4242, 700, 800);
	assert_int_equal(jint(jneed(e, "args", J_OBJ), "stream"), 7);
	/* Both ranks launched a kernel. */
	expect_has(out, "\"pid\":1,\"tid\":4242,\"ts\":0.170,\"dur\":0.010,"
			"\"name\":\"cudaLaunchKernel\",\"cat\":\"cuda\"");
	expect_has(out, "\"pid\":2,\"tid\":5252,\"ts\":0.250,\"dur\":0.010,"
			"\"name\":\"cudaLaunchKernel\",\"cat\":\"cuda\"");
	jv_free(&doc);
	free(out);
	sb_profile_free(&p);
}

static void test_chrome_trace_names_what_it_cannot_name_plainly(void **state)
{
	const struct jv *events;
	struct sb_profile p;
	struct jv doc;
	char *out;

	(void)state;
	cu_build(&p, true);
	p.cuda.acts[1].name = -1;		/* a kernel without a name */
	p.cuda.acts[2].detail = 9999;		/* a runtime call outside the table */
	p.cuda.acts[3].copy_kind = 42;		/* a copy of unknown kind and size */
	p.cuda.acts[3].bytes = -1;
	p.cuda.acts[4].bytes = 3 << 29;		/* 1.5 GiB */
	p.cuda.acts[6].kind = SB_CUDA_ACT_DRIVER;
	out = render(&p);
	json_parse(out, &doc);
	events = jneed(&doc, "traceEvents", J_ARR);
	expect_on(slice(events, "kernel"), 1, SB_TRACE_GPU_TID, 260, 400);
	expect_on(slice(events, "CUDA runtime call"), 1, 4243, 270, 280);
	expect_on(slice(events, "CUDA driver call"), 2, 5252, 300, 310);
	assert_null(jget(jneed(slice(events, "memcpy"), "args", J_OBJ), "copy"));
	slice(events, "memset 1.5 GiB");
	jv_free(&doc);
	free(out);
	sb_profile_free(&p);
}

static void test_chrome_trace_origin_moves_back_to_early_gpu_work(void **state)
{
	struct sb_profile p;
	struct jv doc;
	char *out;

	(void)state;
	cu_build(&p, true);
	/* Rank 1's kernel was launched before the recording's start time. */
	p.cuda.acts[6].start = p.cuda.acts[7].launch_start = 30;
	p.cuda.acts[6].end = p.cuda.acts[7].launch_end = 35;
	p.cuda.acts[7].start = 40;
	out = render(&p);
	json_parse(out, &doc);
	assert_int_equal(jint(jneed(&doc, "metadata", J_OBJ), "ts_origin_ns"), 30);
	expect_has(out, "\"ts\":0.000,\"dur\":0.005,\"name\":\"cudaLaunchKernel\"");
	expect_has(out, "\"ts\":0.010,\"dur\":0.760,\"name\":\"plain_kernel\"");
	jv_free(&doc);
	free(out);
	sb_profile_free(&p);
}

static void test_chrome_trace_without_cuda_is_unchanged(void **state)
{
	static const char want[] =
		"{\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\","
		"\"args\":{\"name\":\"rank 0\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_sort_index\","
		"\"args\":{\"sort_index\":0}},\n"
		"{\"ph\":\"M\",\"pid\":2,\"tid\":0,\"name\":\"process_name\","
		"\"args\":{\"name\":\"rank 1\"}},\n"
		"{\"ph\":\"M\",\"pid\":2,\"tid\":0,\"name\":\"process_sort_index\","
		"\"args\":{\"sort_index\":1}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":4242,\"name\":\"thread_name\","
		"\"args\":{\"name\":\"main\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":4242,\"name\":\"thread_sort_index\","
		"\"args\":{\"sort_index\":0}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":4243,\"name\":\"thread_name\","
		"\"args\":{\"name\":\"worker\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":4243,\"name\":\"thread_sort_index\","
		"\"args\":{\"sort_index\":1}},\n"
		"{\"ph\":\"M\",\"pid\":2,\"tid\":5252,\"name\":\"thread_name\","
		"\"args\":{\"name\":\"rank1\"}},\n"
		"{\"ph\":\"M\",\"pid\":2,\"tid\":5252,\"name\":\"thread_sort_index\","
		"\"args\":{\"sort_index\":0}},\n"
		"{\"ph\":\"B\",\"pid\":1,\"tid\":4242,\"ts\":0.050,\"name\":\"main\","
		"\"cat\":\"region\",\"args\":{\"source\":\"app.cu:10\"},"
		"\"call\":{\"call_id\":1,\"parent_id\":-1}},\n"
		"{\"ph\":\"B\",\"pid\":1,\"tid\":4242,\"ts\":0.150,\"name\":\"solve\","
		"\"cat\":\"region\",\"args\":{\"source\":\"app.cu:20\"},"
		"\"call\":{\"call_id\":2,\"parent_id\":1}},\n"
		"{\"ph\":\"B\",\"pid\":1,\"tid\":4243,\"ts\":0.200,\"name\":\"solve\","
		"\"cat\":\"region\",\"args\":{\"source\":\"app.cu:20\"},"
		"\"call\":{\"call_id\":3,\"parent_id\":-1}},\n"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":4242,\"ts\":0.250,\"name\":\"solve\","
		"\"args\":{\"source\":\"app.cu:20\"}},\n"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":4242,\"ts\":0.950,\"name\":\"main\","
		"\"args\":{\"source\":\"app.cu:10\"}},\n"
		"{\"ph\":\"E\",\"pid\":1,\"tid\":4243,\"ts\":0.400,\"name\":\"solve\","
		"\"args\":{\"source\":\"app.cu:20\"}},\n"
		"{\"ph\":\"B\",\"pid\":2,\"tid\":5252,\"ts\":0.100,\"name\":\"main\","
		"\"cat\":\"region\",\"args\":{\"source\":\"app.cu:10\"},"
		"\"call\":{\"call_id\":1,\"parent_id\":-1}},\n"
		"{\"ph\":\"E\",\"pid\":2,\"tid\":5252,\"ts\":0.850,\"name\":\"main\","
		"\"args\":{\"source\":\"app.cu:10\"}}\n"
		"],\n\"displayTimeUnit\":\"ns\",\n\"metadata\":{\"exporter\":\"scope-bpf@"
		SCOPE_BPF_VERSION "\",\"clock\":\"CLOCK_MONOTONIC\",\"ts_origin_ns\":50,"
		"\"source_format\":\"synthetic\",\"profile\":{\"mpi_size\":2,\"start_time_ns\":50}}}\n";
	struct sb_profile p;
	char *out;

	(void)state;
	/* The text of the trace without GPU lanes, byte for byte. */
	cu_build(&p, false);
	out = render(&p);
	if (strcmp(out, want))
		fail_msg("the trace changed:\n%s", out);
	free(out);
	/* Kernel names alone (no activity) change nothing either. */
	cu_add_activity(&p);
	free(p.cuda.acts);
	p.cuda.acts = NULL;
	p.cuda.n_acts = 0;
	out = render(&p);
	assert_string_equal(out, want);
	free(out);
	sb_profile_free(&p);
}

/* The X slices named name. */
static size_t slices(const struct jv *events, const char *name)
{
	size_t i, n = 0;

	for (i = 0; i < events->n; i++)
		n += is(&events->items[i], "X") && !strcmp(jstr(&events->items[i], "name"), name);
	return n;
}

/* The trace of cu_build() filtered as export --ranks/--include does it. */
static char *render_filtered(const char *ranks, const char *include, struct jv *doc)
{
	struct sb_error err = { .msg = "" };
	struct sb_filter f = { 0 };
	struct sb_profile p;
	char *out;

	cu_build(&p, true);
	if (ranks)
		assert_int_equal(sb_filter_set_ranks(&f, ranks, &err), 0);
	if (include)
		assert_int_equal(sb_filter_set_include(&f, include, &err), 0);
	assert_int_equal(sb_filter_apply(&f, &p, &err), 0);
	out = render(&p);
	json_parse(out, doc);
	sb_filter_free(&f);
	sb_profile_free(&p);
	return out;
}

/*
 * Filtered, the lanes hold what stays and name the launching region through
 * the renumbered rows: rank 1's main is row 0 after --ranks 1, rank 0's
 * solve row 0 after --include solve, where main's kernel and the memset no
 * region launched are gone, and so are their flows.
 */
static void test_chrome_trace_of_a_filtered_profile(void **state)
{
	struct flow s[8];
	const struct jv *events;
	struct jv doc;
	char *out;

	(void)state;
	out = render_filtered("1", NULL, &doc);
	events = jneed(&doc, "traceEvents", J_ARR);
	assert_string_equal(jstr(jneed(slice(events, "plain_kernel"), "args", J_OBJ), "region"),
			    "main");
	assert_int_equal(slices(events, "square(float*, int)"), 0);
	assert_int_equal(flows(events, "s", s, 8), 1);
	jv_free(&doc);
	free(out);
	out = render_filtered(NULL, "solve", &doc);
	events = jneed(&doc, "traceEvents", J_ARR);
	assert_string_equal(jstr(jneed(slice(events, "square(float*, int)"), "args", J_OBJ),
				 "region"), "solve");
	assert_string_equal(jstr(jneed(slice(events, "memcpy HtoD 4 MiB"), "args", J_OBJ),
				 "region"), "solve");
	assert_int_equal(slices(events, "plain_kernel"), 0);
	assert_int_equal(slices(events, "memset 512 B"), 0);
	assert_int_equal(flows(events, "s", s, 8), 2);
	assert_int_equal(flows(events, "f", s, 8), 2);
	jv_free(&doc);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chrome_trace_gpu_lanes_hold_kernels_copies_memsets),
		cmocka_unit_test(test_chrome_trace_flows_tie_each_launch_to_its_gpu_work),
		cmocka_unit_test(test_chrome_trace_cuda_calls_on_their_host_threads),
		cmocka_unit_test(test_chrome_trace_names_what_it_cannot_name_plainly),
		cmocka_unit_test(test_chrome_trace_origin_moves_back_to_early_gpu_work),
		cmocka_unit_test(test_chrome_trace_without_cuda_is_unchanged),
		cmocka_unit_test(test_chrome_trace_of_a_filtered_profile),
	};

	return cmocka_run_group_tests_name("cuda_trace", tests, NULL, NULL);
}
