/* Unit tests of the HTML report: the page, its embedded data, its escaping, and --html. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/commands.h"
#include "io/h5write.h"
#include "render/html.h"
#include "render/report.h"
#include "fixtures.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* main { solve { kernel kernel } io mark } on rank 0; names may be replaced per test. */
static const struct fx_call calls[] = {
	{ "main", 0, 100, 50, -1, 0 },
	{ "solve", 10, 60, 7, 50, 4 },
	{ "kernel", 20, 30, 900, 7, 1 },
	{ "kernel", 35, 55, 3, 7, 2 },
	{ "io", 70, 90, 12, 50, 0 },
	{ "mark", 60, 60, 1 << 30, 50, 0 },
};

#define N_CALLS (sizeof(calls) / sizeof(calls[0]))

/* The calls with "io" renamed to io_name (unless NULL), and the recording's times. */
static void make_profile(struct sb_profile *p, unsigned columns, const char *io_name)
{
	struct fx_call named[N_CALLS];
	size_t i;

	memcpy(named, calls, sizeof(calls));
	for (i = 0; i < N_CALLS; i++)
		if (io_name && !strcmp(named[i].region, "io"))
			named[i].region = io_name;
	fx_call_tree(p, named, N_CALLS, columns);
	assert_int_equal(sb_profile_set_int(p, "start_time_ns", 0), 0);
	assert_int_equal(sb_profile_set_int(p, "finalize_time_ns", 200), 0);
}

#define TREE (SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID)

/* The page for p; the caller frees it. */
static char *render(const struct sb_profile *p, const struct sb_html_opts *o)
{
	static const struct sb_html_opts defaults = { .title = "prof.h5", .rank = -1 };
	struct sb_ct_opts co = { .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(sb_calltree_build(&t, p, &co, &err), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_report_html(f, p, &t, o ? o : &defaults, &err), 0);
	assert_int_equal(fclose(f), 0);
	sb_calltree_free(&t);
	return out;
}

/* The data element's text, up to the first "</script>" after it; the caller frees it. */
static char *data_of(const char *page)
{
	const char *start = strstr(page, "<script type=\"application/json\" id=\"data\">"), *end;

	assert_non_null(start);
	start = strchr(start, '>') + 1;
	end = strstr(start, "</script>");
	assert_non_null(end);
	return strndup(start, (size_t)(end - start));
}

static void test_percent_base_is_rank_seconds(void **state)
{
	struct sb_html_opts one = { .title = "x", .rank = 0 };
	struct sb_profile p;
	char *page, *data;
	uint32_t r;

	(void)state;
	make_profile(&p, TREE, NULL);
	page = render(&p, NULL);
	data = data_of(page);
	expect_has(data, "\"recording_ns\": 200, \"pct_base_ns\": 200,");
	free(data);
	free(page);
	/* Three ranks of 200 ns each: % rec is of 600 ns, so no region passes 100%. */
	for (r = 1; r < 3; r++)
		fx_add_threads(&p, &(struct sb_thread){ .rank = r, .tid = 100 + r, .end_ns = -1,
							.cpu_ns = -1, .name = "app" }, 1);
	page = render(&p, NULL);
	data = data_of(page);
	expect_has(data, "\"recording_ns\": 200, \"pct_base_ns\": 600,");
	expect_has(page, "n.pct = pct(n.total, D.pct_base_ns);");
	free(data);
	free(page);
	/* One rank shown: its own 200 ns. */
	page = render(&p, &one);
	data = data_of(page);
	expect_has(data, "\"pct_base_ns\": 200,");
	free(data);
	free(page);
	sb_profile_free(&p);
}

static void test_page_notes_every_unrecorded_call(void **state)
{
	struct sb_profile p;
	char *page, *data;

	(void)state;
	make_profile(&p, TREE, NULL);
	assert_int_equal(sb_profile_set_int(&p, "lost_events", 0), 0);
	page = render(&p, NULL);
	data = data_of(page);
	expect_has(data, "\"health\": []");
	free(data);
	free(page);
	assert_int_equal(sb_profile_set_int(&p, "depth_overflow_calls", 9807), 0);
	page = render(&p, NULL);
	data = data_of(page);
	expect_has(data, "\"health\": [{\"key\": \"depth_overflow_calls\", \"count\": 9807, "
			 "\"label\": \"calls were too deep to record\", \"hint\": \"calls nested "
			 "deeper than 64 regions (runaway recursion?) were counted, not recorded\"}]");
	expect_has(page, "(D.health || []).forEach(");
	free(data);
	free(page);
	sb_profile_free(&p);
}

static void test_page_embeds_the_tree_and_names(void **state)
{
	struct sb_profile p;
	char *page, *data;

	(void)state;
	make_profile(&p, TREE, NULL);
	page = render(&p, NULL);
	assert_memory_equal(page, "<!DOCTYPE html>", 15);
	expect_has(page, "<title>prof.h5 - scope-bpf report</title>");
	data = data_of(page);
	/* The whole object made it into the element: it ends where the writer ended it. */
	assert_int_equal(data[0], '{');
	assert_string_equal(data + strlen(data) - 2, "}\n");
	expect_has(data, "\"name\": \"main\"");
	expect_has(data, "\"name\": \"kernel\"");
	expect_has(data, "\"recording_ns\": 200");
	/* Pre-order rows: main, then solve under it, kernel under solve. */
	expect_has(data, "\"nodes\": [\n [0, -1, 1, 1, 100, 100, 100, 30, null],\n"
		   " [1, 0, 2, 1, 50, 50, 50, 20, null],\n [2, 1, 3, 2, 30, 10, 20, 30, null]");
	expect_has(data, "\"lanes\": [{\"rank\": 0, \"thread\": 0, \"tid\": 42, \"name\": \"app\"}]");
	expect_has(data, "\"dur\": [100,50,10,20,20,0]");
	/* kernel: 10 and 20 ns; nearest-rank quantiles. */
	expect_has(data, "{\"region\": 2, \"n\": 2, \"q\": [10, 10, 20, 20, 20, 20, 20]");
	/* No off-CPU column: no off-CPU data, and no samples section. */
	expect_has(data, "\"offcpu\": false");
	assert_null(strstr(data, "\"offcpu\": ["));
	assert_null(strstr(data, "\"samples\""));
	free(data);
	free(page);
	sb_profile_free(&p);
}

static void test_script_end_in_a_name_is_escaped(void **state)
{
	const char *evil = "x</script><script>alert(1)</script><!--";
	struct sb_html_opts o = { .title = "a<b&\"c</title>", .rank = -1 };
	struct sb_profile p;
	char *page, *data;

	(void)state;
	make_profile(&p, TREE, evil);
	page = render(&p, &o);
	data = data_of(page);
	assert_string_equal(data + strlen(data) - 2, "}\n");
	expect_has(data, "\"name\": \"x<\\/script><script>alert(1)<\\/script>\\u003c!--\"");
	assert_null(strstr(data, "</"));
	assert_null(strstr(data, "<!"));
	expect_has(page, "<title>a&lt;b&amp;&quot;c&lt;/title&gt; - scope-bpf report</title>");
	free(data);
	free(page);
	sb_profile_free(&p);
}

static void test_page_is_self_contained(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	make_profile(&p, TREE, NULL);
	page = render(&p, NULL);
	assert_null(strstr(page, "http://"));
	assert_null(strstr(page, "https://"));
	assert_null(strstr(page, " src="));
	assert_null(strstr(page, "<link"));
	assert_null(strstr(page, "@import"));
	assert_null(strstr(page, "@SB_"));
	expect_has(page, "id=\"errors\"");
	expect_has(page, "data-ready");
	free(page);
	sb_profile_free(&p);
}

static void test_timeline_keeps_the_longest_calls(void **state)
{
	struct sb_html_opts o = { .title = "t", .rank = -1, .max_calls = 3 };
	struct sb_profile p;
	char *page;

	(void)state;
	make_profile(&p, TREE | SB_COL_OFFCPU, NULL);
	page = render(&p, &o);
	expect_has(page, "\"total\": 6, \"shown\": 3, \"truncated\": true, \"t0\": 0, \"span\": 100");
	/* 100, 50, then the first of the two 20 ns calls in file order: kernel, not io. */
	expect_has(page, "\"dur\": [100,50,20]");
	expect_has(page, "\"region\": [0,1,2]");
	expect_has(page, "\"offcpu\": [0,4,2]");
	/* Durations still count every call. */
	expect_has(page, "{\"region\": 2, \"n\": 2,");
	free(page);
	sb_profile_free(&p);
}

static void test_rank_filter_leaves_other_ranks_out(void **state)
{
	struct sb_html_opts o = { .title = "t", .rank = 1 };
	struct sb_profile p;
	char *page;

	(void)state;
	make_profile(&p, TREE, NULL);
	page = render(&p, &o);
	expect_has(page, "\"rank\": 1,");
	expect_has(page, "\"total\": 0, \"shown\": 0, \"truncated\": false");
	expect_has(page, "\"durations\": []");
	free(page);
	sb_profile_free(&p);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	return d;
}

/* Two CPU samples in solve (leaf "spin"), one off-CPU block outside regions (leaf "poll"). */
static void add_samples(struct sb_profile *p)
{
	struct sb_samples *s = &p->samples;

	s->frames = calloc(2, sizeof(*s->frames));
	s->stack_frames = calloc(2, sizeof(*s->stack_frames));
	s->stacks = calloc(2, sizeof(*s->stacks));
	s->paths = calloc(2, sizeof(*s->paths));
	s->samples = calloc(3, sizeof(*s->samples));
	assert_true(s->frames && s->stack_frames && s->stacks && s->paths && s->samples);
	s->frames[0] = (struct sb_frame_sym){ xstrdup("spin"), xstrdup(""), -1, xstrdup("app"), 0, false };
	s->frames[1] = (struct sb_frame_sym){ xstrdup("poll"), xstrdup(""), -1, xstrdup("libc"), 0, false };
	s->n_frames = 2;
	s->stack_frames[0] = 0;
	s->stack_frames[1] = 1;
	s->n_stack_frames = 2;
	s->stacks[0] = (struct sb_stack){ .first = 0, .depth = 1 };
	s->stacks[1] = (struct sb_stack){ .first = 1, .depth = 1 };
	s->n_stacks = 2;
	s->paths[0] = (struct sb_region_path){ -1, xstrdup("main") };
	s->paths[1] = (struct sb_region_path){ 0, xstrdup("solve") };
	s->n_paths = 2;
	s->samples[0] = (struct sb_sample){ .kind = SB_SAMPLE_CPU, .thread = 0, .path = 1,
					    .ustack = 0, .kstack = -1, .count = 5 };
	s->samples[1] = (struct sb_sample){ .kind = SB_SAMPLE_CPU, .thread = 0, .path = 1,
					    .ustack = 0, .kstack = -1, .count = 2 };
	s->samples[2] = (struct sb_sample){ .kind = SB_SAMPLE_OFFCPU, .thread = 0, .path = -1,
					    .ustack = 1, .kstack = -1, .count = 1, .ns = 900 };
	s->n_samples = 3;
}

static void test_samples_section_only_with_samples(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	make_profile(&p, TREE, NULL);
	add_samples(&p);
	page = render(&p, NULL);
	expect_has(page, "\"samples\": {\"cpu_samples\": 7, \"offcpu_ns\": 900, \"total_rows\": 2");
	expect_has(page, "[\"main \xe2\x80\xba solve\", \"spin\", 7, 0]");
	expect_has(page, "[\"(outside regions)\", \"poll\", 0, 900]");
	free(page);
	sb_profile_free(&p);
}

/*
 * The hottest functions read as in the other stack outputs: demangled, and a
 * marker helper's sample counted for its caller (the helper is the leaf).
 */
static void test_samples_names_demangled_helpers_folded(void **state)
{
	struct sb_samples *s;
	struct sb_profile p;
	char *page;

	(void)state;
	make_profile(&p, TREE, NULL);
	add_samples(&p);
	s = &p.samples;
	free(s->frames[0].function);
	s->frames[0].function = xstrdup("_ZN6solver4spinEv");
	free(s->frames[1].function);
	s->frames[1].function = xstrdup("scope_bpf_impl_end");
	/* The off-CPU stack: the helper, then spin, its caller. */
	s->stack_frames = realloc(s->stack_frames, 3 * sizeof(*s->stack_frames));
	assert_non_null(s->stack_frames);
	s->stack_frames[2] = 0;
	s->n_stack_frames = 3;
	s->stacks[1].depth = 2;
	page = render(&p, NULL);
	expect_has(page, "[\"main \xe2\x80\xba solve\", \"solver::spin()\", 7, 0]");
	expect_has(page, "[\"(outside regions)\", \"solver::spin()\", 0, 900]");
	assert_null(strstr(page, "scope_bpf_impl_end"));
	free(page);
	sb_profile_free(&p);
}

/* The heat map's data only when the profile has MPI call regions; without, the page is as before. */
static void test_communication_matrix_only_with_mpi_calls(void **state)
{
	struct sb_profile p;
	char *page, *data;

	(void)state;
	make_profile(&p, TREE, NULL);
	page = render(&p, NULL);
	data = data_of(page);
	assert_null(strstr(data, "\"mpi\""));
	free(data);
	free(page);
	sb_profile_free(&p);
	make_profile(&p, TREE,
		     "mpi:send kind=point-to-point bytes=800 peer=1 root=-1 tag=7 comm=0");
	assert_int_equal(sb_profile_set_int(&p, "mpi_size", 2), 0);
	page = render(&p, NULL);
	data = data_of(page);
	expect_has(data, "\"mpi\": {\"ranks\": 2, \"calls\": 1, \"bytes\": [[0, 800], [0, 0]], "
		   "\"messages\": [[0, 1], [0, 0]], \"rank_time_ns\": [20, 0]}");
	expect_has(page, "id=\"comm-table\"");
	free(data);
	free(page);
	sb_profile_free(&p);
}

static int parse(int argc, char **argv, struct report_opts *o, struct sb_error *err)
{
	memset(err->msg, 0, sizeof(err->msg));
	return report_parse_args(argc, argv, o, err);
}

static void test_html_option(void **state)
{
	char *a[] = { "report", "--html", "out.html", "prof.h5" };
	char *b[] = { "report", "prof.h5", "--html=x.html", "--rank", "0", "--flat" };
	char *c[] = { "report", "prof.h5" };
	char *d[] = { "report", "prof.h5", "--html" };
	char *e[] = { "report", "--html", "x.html", "-o", "y.txt", "prof.h5" };
	struct sb_error err;
	struct report_opts o;

	(void)state;
	assert_int_equal(parse(ARGC(a), a, &o, &err), 0);
	assert_string_equal(o.html, "out.html");
	assert_string_equal(o.path, "prof.h5");
	assert_int_equal(parse(ARGC(b), b, &o, &err), 0);
	assert_string_equal(o.html, "x.html");
	assert_int_equal(o.rank, 0);
	assert_true(o.flat);
	assert_int_equal(parse(ARGC(c), c, &o, &err), 0);
	assert_null(o.html);
	assert_int_equal(parse(ARGC(d), d, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--html: needs an argument"));
	assert_int_equal(parse(ARGC(e), e, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--html"));
}

static size_t files_in(const char *dir)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_command_writes_the_page_atomically(void **state)
{
	char dir[] = "/tmp/scope-bpf-html.XXXXXX", h5[64], html[64], cmd[128];
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	struct stat st;
	char *page = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(h5, sizeof(h5), "%s/p.h5", dir);
	snprintf(html, sizeof(html), "%s/p.html", dir);
	make_profile(&p, TREE | SB_COL_OFFCPU, NULL);
	assert_int_equal(fx_write_h5(h5, &p, &err), 0);
	sb_profile_free(&p);
	{
		char *argv[] = { "report", "--html", html, h5 };
		char *bad[] = { "report", "--html", "/nonexistent-dir/p.html", h5 };

		assert_int_equal(cmd_report(ARGC(argv), argv), 0);
		assert_int_equal(cmd_report(ARGC(bad), bad), 1);
	}
	assert_int_equal(stat(html, &st), 0);
	assert_true(st.st_mode & S_IRUSR);
	/* Only the profile and the page: no temporary file left behind. */
	assert_int_equal(files_in(dir), 2);
	f = fopen(html, "r");
	assert_non_null(f);
	assert_int_equal(getdelim(&page, &len, '\0', f) > 0, 1);
	fclose(f);
	expect_has(page, "\"name\": \"solve\"");
	expect_has(page, "\"offcpu\": true");
	free(page);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * MPI calls by function: scope-profiler names a region per peer, bytes and tag,
 * and a colour each filled the legend (48 for 13 functions). Every call region
 * of a function has the function's colour, the table a row per function with
 * the regions folded below it, the durations a row per function.
 */
static void test_mpi_calls_by_function(void **state)
{
#define RECV_FROM(peer) "mpi:recv kind=point-to-point bytes=800 peer=" peer " root=-1 tag=7 " \
			"comm=1140850688"
	static const struct fx_call mpi[] = {
		{ "main", 0, 100, 1, -1, 0 },
		{ RECV_FROM("1"), 10, 20, 2, 1, 0 },
		{ RECV_FROM("1"), 30, 35, 3, 1, 0 },
		{ RECV_FROM("2"), 40, 70, 4, 1, 0 },
		{ "mpi:send kind=point-to-point bytes=8 peer=1 root=-1 tag=0 comm=1140850688", 80, 90,
		  5, 1, 0 },
	};
	char dir[] = "/tmp/scope-bpf-html.XXXXXX", h5[64], html[64], cmd[128];
	char *argv[] = { "report", "--html", html, h5 };
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *page, *data;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(h5, sizeof(h5), "%s/p.h5", dir);
	snprintf(html, sizeof(html), "%s/p.html", dir);
	fx_call_tree(&p, mpi, sizeof(mpi) / sizeof(mpi[0]), TREE);
	assert_int_equal(fx_write_h5(h5, &p, &err), 0);
	sb_profile_free(&p);
	assert_int_equal(cmd_report(ARGC(argv), argv), 0);
	page = slurp(html);
	data = data_of(page);
	/* Both receive regions take region 1's colour: one legend entry, named by the function. */
	expect_has(data, "\"name\": \"" RECV_FROM("1") "\", \"file\": \"\", \"line\": -1, "
		   "\"tags\": \"[]\", \"fn\": \"mpi:recv\", \"detail\": \"peer=1 bytes=800 tag=7\", "
		   "\"colour\": 1}");
	expect_has(data, "\"fn\": \"mpi:recv\", \"detail\": \"peer=2 bytes=800 tag=7\", "
		   "\"colour\": 1}");
	expect_has(data, "\"fn\": \"mpi:send\", \"detail\": \"peer=1 bytes=8 tag=0\", "
		   "\"colour\": 3}");
	expect_has(page, "function colourOf(r)");
	expect_has(page, "var r = colourOf(n.region);");
	/*
	 * The table: main, mpi:recv (its function row, flagged 1; its own time is
	 * its regions'), its regions, mpi:send, ...
	 */
	expect_has(data, "\"nodes\": [\n [0, -1, 1, 1, 100, 100, 100, 45, null],\n"
		   " [1, 0, 2, 3, 45, 5, 30, 0, null, \"mpi:recv\", 1],\n"
		   " [2, 1, 3, 1, 30, 30, 30, 30, null, \"peer=2 bytes=800 tag=7\"],\n"
		   " [1, 1, 3, 2, 15, 5, 10, 15, null, \"peer=1 bytes=800 tag=7\"],\n"
		   " [3, 0, 2, 1, 10, 10, 10, 0, null, \"mpi:send\", 1],\n");
	/* Durations: one row for the three receive calls, named by the function. */
	expect_has(data, "{\"region\": 1, \"name\": \"mpi:recv\", \"n\": 3, \"q\": [5, 10, 10, "
		   "30, 30, 30, 30]");
	assert_null(strstr(data, "{\"region\": 2, "));
	free(data);
	free(page);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
#undef RECV_FROM
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_embeds_the_tree_and_names),
		cmocka_unit_test(test_percent_base_is_rank_seconds),
		cmocka_unit_test(test_page_notes_every_unrecorded_call),
		cmocka_unit_test(test_script_end_in_a_name_is_escaped),
		cmocka_unit_test(test_page_is_self_contained),
		cmocka_unit_test(test_timeline_keeps_the_longest_calls),
		cmocka_unit_test(test_rank_filter_leaves_other_ranks_out),
		cmocka_unit_test(test_samples_section_only_with_samples),
		cmocka_unit_test(test_samples_names_demangled_helpers_folded),
		cmocka_unit_test(test_communication_matrix_only_with_mpi_calls),
		cmocka_unit_test(test_html_option),
		cmocka_unit_test(test_command_writes_the_page_atomically),
		cmocka_unit_test(test_mpi_calls_by_function),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
