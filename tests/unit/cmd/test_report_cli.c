/* Unit tests of `scope-bpf report`: options, exit codes, and its text, JSON and CSV. */
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
#include <unistd.h>

#include <cmocka.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "render/report.h"
#include "render/report_views.h"
#include "fixtures.h"
#include "json_check.h"
#include "report_text.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int parse(int argc, char **argv, struct report_opts *o, struct sb_error *err)
{
	memset(err->msg, 0, sizeof(err->msg));
	return report_parse_args(argc, argv, o, err);
}

static void expect_error(int argc, char **argv, const char *needle)
{
	struct sb_error err;
	struct report_opts o;

	assert_int_equal(parse(argc, argv, &o, &err), -EINVAL);
	if (!strstr(err.msg, needle))
		fail_msg("error '%s' does not mention '%s'", err.msg, needle);
}

static void test_defaults_with_just_a_file(void **state)
{
	char *argv[] = { "report", "prof.h5" };
	struct sb_error err;
	struct report_opts o;

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv, &o, &err), 0);
	assert_string_equal(o.path, "prof.h5");
	assert_int_equal(o.sort, SB_CT_SORT_TOTAL);
	assert_int_equal(o.format, SB_REPORT_TEXT);
	assert_int_equal(o.rank, -1);
	assert_false(o.flat);
	assert_false(o.help);
	assert_null(o.output);
}

static void test_every_option_long_and_short(void **state)
{
	char *a[] = { "report", "--sort", "calls", "--flat", "-f", "json", "--rank", "3",
		      "-o", "out.json", "prof.h5" };
	char *b[] = { "report", "prof.h5", "--sort=name", "--format=csv", "--output", "x.csv",
		      "--rank=0" };
	char *c[] = { "report", "-s", "start", "--format", "text", "--", "-odd.h5" };
	char *d[] = { "report", "--sort", "avg", "p" };
	struct sb_error err;
	struct report_opts o;

	(void)state;
	assert_int_equal(parse(ARGC(a), a, &o, &err), 0);
	assert_int_equal(o.sort, SB_CT_SORT_CALLS);
	assert_true(o.flat);
	assert_int_equal(o.format, SB_REPORT_JSON);
	assert_int_equal(o.rank, 3);
	assert_string_equal(o.output, "out.json");
	assert_string_equal(o.path, "prof.h5");

	/* Options after FILE work too (GNU getopt reorders). */
	assert_int_equal(parse(ARGC(b), b, &o, &err), 0);
	assert_int_equal(o.sort, SB_CT_SORT_NAME);
	assert_int_equal(o.format, SB_REPORT_CSV);
	assert_string_equal(o.output, "x.csv");
	assert_int_equal(o.rank, 0);
	assert_false(o.flat);
	assert_string_equal(o.path, "prof.h5");

	assert_int_equal(parse(ARGC(c), c, &o, &err), 0);
	assert_int_equal(o.sort, SB_CT_SORT_START);
	assert_int_equal(o.format, SB_REPORT_TEXT);
	assert_string_equal(o.path, "-odd.h5");

	/* A second parse starts afresh. */
	assert_int_equal(parse(ARGC(d), d, &o, &err), 0);
	assert_int_equal(o.sort, SB_CT_SORT_AVG);
	assert_int_equal(o.rank, -1);
	assert_null(o.output);
	assert_string_equal(o.path, "p");
}

static void test_help_needs_no_file(void **state)
{
	char *a[] = { "report", "-h" };
	char *b[] = { "report", "prof.h5", "--help" };
	char *c[] = { "report", "-hf" };
	char *d[] = { "report", "p" };
	struct sb_error err;
	struct report_opts o;

	(void)state;
	assert_int_equal(parse(ARGC(a), a, &o, &err), 0);
	assert_true(o.help);
	assert_int_equal(parse(ARGC(b), b, &o, &err), 0);
	assert_true(o.help);
	/* Help stops mid "-hf"; the next parse must not resume at its "f". */
	assert_int_equal(parse(ARGC(c), c, &o, &err), 0);
	assert_true(o.help);
	assert_int_equal(parse(ARGC(d), d, &o, &err), 0);
	assert_false(o.help);
	assert_int_equal(o.format, SB_REPORT_TEXT);
	assert_string_equal(o.path, "p");
}

static void test_bad_values_name_their_option(void **state)
{
	char *sort[] = { "report", "--sort", "size", "p" };
	char *sort_s[] = { "report", "-s", "TOTAL", "p" };
	char *fmt[] = { "report", "-f", "xml", "p" };
	char *rank_neg[] = { "report", "--rank", "-1", "p" };
	char *rank_txt[] = { "report", "--rank", "two", "p" };
	char *rank_tail[] = { "report", "--rank", "1x", "p" };
	char *rank_big[] = { "report", "--rank", "99999999999", "p" };
	char *rank_empty[] = { "report", "--rank=", "p" };

	(void)state;
	expect_error(ARGC(sort), sort, "--sort: 'size'");
	expect_error(ARGC(sort_s), sort_s, "--sort: 'TOTAL'");
	expect_error(ARGC(fmt), fmt, "--format: 'xml'");
	expect_error(ARGC(rank_neg), rank_neg, "--rank: '-1'");
	expect_error(ARGC(rank_txt), rank_txt, "--rank: 'two'");
	expect_error(ARGC(rank_tail), rank_tail, "--rank: '1x'");
	expect_error(ARGC(rank_big), rank_big, "--rank: '99999999999'");
	expect_error(ARGC(rank_empty), rank_empty, "--rank: ''");
}

static void test_usage_errors_say_what_is_wrong(void **state)
{
	char *none[] = { "report" };
	char *only_opts[] = { "report", "--flat" };
	char *two[] = { "report", "a.h5", "b.h5" };
	char *unknown_long[] = { "report", "--bogus", "p" };
	char *unknown_short[] = { "report", "-z", "p" };
	char *no_arg[] = { "report", "p", "--sort" };
	char *no_arg_short[] = { "report", "p", "-o" };

	(void)state;
	expect_error(ARGC(none), none, "missing FILE");
	expect_error(ARGC(only_opts), only_opts, "missing FILE");
	expect_error(ARGC(two), two, "'b.h5'");
	expect_error(ARGC(unknown_long), unknown_long, "--bogus: unknown option");
	expect_error(ARGC(unknown_short), unknown_short, "-z: unknown option");
	expect_error(ARGC(no_arg), no_arg, "--sort: needs an argument");
	expect_error(ARGC(no_arg_short), no_arg_short, "-o: needs an argument");
}

/* --per-rank and --durations: views of their own, --per-rank of every rank shown. */
static void test_per_rank_and_durations_options(void **state)
{
	char *per_rank[] = { "report", "--per-rank", "--ranks", "0-1", "p" };
	char *durations[] = { "report", "--durations", "--rank", "1", "--top", "3", "p" };
	char *with_html[] = { "report", "--per-rank", "--html", "x.html", "p" };
	char *with_mpi[] = { "report", "--durations", "--mpi", "p" };
	char *both[] = { "report", "--per-rank", "--durations", "p" };
	char *one_rank[] = { "report", "--per-rank", "--rank", "1", "p" };
	char *relative[] = { "report", "--per-rank=relative", "p" };
	char *bad_kind[] = { "report", "--per-rank=mean", "p" };
	struct sb_error err;
	struct report_opts o;

	(void)state;
	assert_int_equal(parse(ARGC(per_rank), per_rank, &o, &err), 0);
	assert_true(o.per_rank);
	assert_false(o.durations);
	assert_int_equal(o.rank_value, SB_RANK_TIME);
	sb_filter_free(&o.filter);
	assert_int_equal(parse(ARGC(relative), relative, &o, &err), 0);
	assert_int_equal(o.rank_value, SB_RANK_RELATIVE);
	expect_error(ARGC(bad_kind), bad_kind, "--per-rank: 'mean' is not one of time, own, relative");
	assert_int_equal(parse(ARGC(durations), durations, &o, &err), 0);
	assert_true(o.durations);
	assert_int_equal(o.rank, 1);
	assert_int_equal(o.top, 3);
	expect_error(ARGC(with_html), with_html, "--per-rank: not available with --html");
	expect_error(ARGC(with_mpi), with_mpi, "--durations: not available with --mpi");
	expect_error(ARGC(both), both, "--per-rank: not available with --durations");
	expect_error(ARGC(one_rank), one_rank, "--rank: --per-rank takes its ranks from --ranks");
}

/*
 * Two views of kinds at once: the later in the table is refused naming the
 * earlier, in whichever order they were given; none goes with --html.
 */
static void test_two_views_are_refused_by_the_table(void **state)
{
	char a[64], b[64], msg[160];
	char *both[] = { "report", a, b, "p" }, *html[] = { "report", a, "--html", "x.html", "p" };
	const struct sb_report_view *vi, *vj;
	size_t i, j;

	(void)state;
	for (j = 0; j < sb_report_n_views; j++) {
		vj = sb_report_views[j];
		snprintf(a, sizeof(a), "--%s", vj->option);
		snprintf(msg, sizeof(msg), "--%s: not available with --html%s", vj->option,
			 vj->html_note);
		expect_error(ARGC(html), html, msg);
		for (i = 0; i < j; i++) {
			vi = sb_report_views[i];
			snprintf(msg, sizeof(msg), "--%s: not available with --%s", vj->option,
				 vi->option);
			snprintf(a, sizeof(a), "--%s", vi->option);
			snprintf(b, sizeof(b), "--%s", vj->option);
			expect_error(ARGC(both), both, msg);
			snprintf(a, sizeof(a), "--%s", vj->option);
			snprintf(b, sizeof(b), "--%s", vi->option);
			expect_error(ARGC(both), both, msg);
		}
	}
	/* The MPI page's note, as it always read. */
	expect_error(ARGC(html), (char *[]){ "report", "--mpi", "--html", "x.html", "p" },
		     "--mpi: not available with --html (the page has the matrix)");
}

static void test_command_exit_codes(void **state)
{
	char *help[] = { "report", "--help" };
	char *bad[] = { "report", "--sort", "size", "p" };
	char *missing[] = { "report" };
	char *absent[] = { "report", "/nonexistent/scope-bpf-test.h5" };

	(void)state;
	assert_int_equal(cmd_report(ARGC(help), help), 0);
	assert_int_equal(cmd_report(ARGC(bad), bad), 2);
	assert_int_equal(cmd_report(ARGC(missing), missing), 2);
	assert_int_equal(cmd_report(ARGC(absent), absent), 2);
}

/* main { solve { kernel kernel } io,"w" mark } on rank 0, ids sparse. */
static const struct fx_call calls[] = {
	{ "main", 0, 100, 50, -1, 0 },
	{ "solve", 10, 60, 7, 50, 4 },
	{ "kernel", 20, 30, 900, 7, 1 },
	{ "kernel", 35, 55, 3, 7, 2 },
	{ "io,\"w\"", 70, 90, 12, 50, 0 },
	{ "mark", 60, 60, 1 << 30, 50, 0 },
};

static void make_profile(struct sb_profile *p, unsigned columns, bool meta)
{
	fx_call_tree(p, calls, sizeof(calls) / sizeof(calls[0]), columns);
	if (!meta)
		return;
	assert_int_equal(sb_profile_set_int(p, "start_time_ns", 0), 0);
	assert_int_equal(sb_profile_set_int(p, "finalize_time_ns", 200), 0);
	assert_int_equal(sb_profile_set_int(p, "lost_events", 0), 0);
	assert_int_equal(sb_profile_set_int(p, "open_calls_dropped", 2), 0);
}

/* Render p as the options say; the caller frees the text. */
static char *render(const struct sb_profile *p, enum sb_report_format fmt, bool flat,
		    enum sb_ct_sort sort)
{
	struct sb_ct_opts co = { .flat = flat, .rank = -1, .sort = sort };
	struct report_opts o = { .path = "prof.h5", .rank = -1, .format = fmt, .flat = flat };

	return report_text(p, &co, &o);
}

static void test_text_is_an_aligned_tree(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	make_profile(&p, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID, true);
	out = render(&p, SB_REPORT_TEXT, false, SB_CT_SORT_TOTAL);
	assert_string_equal(out,
		"file      prof.h5 (synthetic)\n"
		"recording 200 ns, 1 rank, 1 thread, 6 calls, lost_events 0, open_calls_dropped 2\n"
		"warning: 2 open calls were dropped (open_calls_dropped): calls still open when "
		"their thread exited or exec'd, when recording stopped, or unwound by an end marker "
		"of another region have no end time\n"
		"\n"
		"calls   total     avg     min     max   %rec    own  off-CPU  region\n"
		"    1  100 ns  100 ns  100 ns  100 ns  50.0%  30 ns        -  main\n"
		"    1   50 ns   50 ns   50 ns   50 ns  25.0%  20 ns        -  ├─ solve\n"
		"    2   30 ns   15 ns   10 ns   20 ns  15.0%  30 ns        -  │  └─ kernel\n"
		"    1   20 ns   20 ns   20 ns   20 ns  10.0%  20 ns        -  ├─ io,\"w\"\n"
		"    1    0 ns    0 ns    0 ns    0 ns   0.0%   0 ns        -  └─ mark\n");
	free(out);
	sb_profile_free(&p);
}

static void test_text_flat_and_offcpu_and_span_from_calls(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	make_profile(&p, SB_COL_THREAD | SB_COL_OFFCPU, false);
	out = render(&p, SB_REPORT_TEXT, true, SB_CT_SORT_NAME);
	/* No metadata: the span is first start to last end, 100 ns. */
	expect_has(out, "recording 100 ns, 1 rank, 1 thread, 6 calls\n");
	assert_null(strstr(out, "lost_events"));
	assert_null(strstr(out, "─"));
	expect_has(out, "    1   50 ns   50 ns   50 ns   50 ns   50.0%  20 ns     4 ns  solve\n");
	expect_has(out, "    2   30 ns   15 ns   10 ns   20 ns   30.0%  30 ns     3 ns  kernel\n");
	expect_has(out, "  100.0%");
	/* Name order: io,"w" < kernel < main < mark < solve. */
	assert_true(strstr(out, "io,") < strstr(out, "kernel"));
	assert_true(strstr(out, "main") < strstr(out, "mark"));
	assert_true(strstr(out, "mark") < strstr(out, "solve"));
	free(out);
	sb_profile_free(&p);
}

/* What perf users sort by first: own time and off-CPU time, largest first. */
static void test_sort_by_own_and_offcpu(void **state)
{
	char *own[] = { "report", "--sort", "own", "p" };
	char *offcpu[] = { "report", "-s", "offcpu", "p" };
	struct sb_error err;
	struct report_opts o;
	struct sb_profile p;
	char *out;

	(void)state;
	assert_int_equal(parse(ARGC(own), own, &o, &err), 0);
	assert_int_equal(o.sort, SB_CT_SORT_OWN);
	assert_int_equal(parse(ARGC(offcpu), offcpu, &o, &err), 0);
	assert_int_equal(o.sort, SB_CT_SORT_OFFCPU);

	make_profile(&p, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU, true);
	/* By total solve (50 ns) leads; by own io ties it at 20 ns and goes first by name. */
	out = render(&p, SB_REPORT_TEXT, false, SB_CT_SORT_OWN);
	assert_true(strstr(out, "├─ io,") < strstr(out, "├─ solve"));
	assert_true(strstr(out, "├─ solve") < strstr(out, "└─ mark"));
	free(out);
	/* Flat by off-CPU: solve 4 ns, kernel 3 ns, then the 0 ns regions by name. */
	out = render(&p, SB_REPORT_TEXT, true, SB_CT_SORT_OFFCPU);
	assert_true(strstr(out, "solve\n") < strstr(out, "kernel\n"));
	assert_true(strstr(out, "kernel\n") < strstr(out, "io,"));
	assert_true(strstr(out, "io,") < strstr(out, "main\n"));
	free(out);
	sb_profile_free(&p);
}

static void test_text_warns_about_lost_events(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	make_profile(&p, SB_COL_THREAD, true);
	assert_int_equal(sb_profile_set_int(&p, "lost_events", 12), 0);
	out = render(&p, SB_REPORT_TEXT, false, SB_CT_SORT_TOTAL);
	expect_has(out, "lost_events 12");
	expect_has(out, "warning: 12 events were lost");
	free(out);
	sb_profile_free(&p);
}

static void test_text_explains_every_unrecorded_call(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	make_profile(&p, SB_COL_THREAD, true);
	assert_int_equal(sb_profile_set_int(&p, "open_calls_dropped", 0), 0);
	assert_int_equal(sb_profile_set_int(&p, "depth_overflow_calls", 0), 0);
	assert_int_equal(sb_profile_set_int(&p, "unmatched_region_ends", 0), 0);
	out = render(&p, SB_REPORT_TEXT, false, SB_CT_SORT_TOTAL);
	/* All zero: the header line and then the table, nothing else. */
	expect_has(out, "open_calls_dropped 0\n\ncalls ");
	assert_null(strstr(out, "warning"));
	free(out);

	assert_int_equal(sb_profile_set_int(&p, "depth_overflow_calls", 9807), 0);
	assert_int_equal(sb_profile_set_int(&p, "unmatched_region_ends", 4), 0);
	out = render(&p, SB_REPORT_TEXT, true, SB_CT_SORT_TOTAL);
	expect_has(out, "warning: 9807 calls were too deep to record (depth_overflow_calls): "
			"calls nested deeper than 64 regions (runaway recursion?)");
	expect_has(out, "warning: 4 region ends had no start (unmatched_region_ends): "
			"regions already open when recording attached to their process "
			"(record -p, -a)");
	free(out);
	out = render(&p, SB_REPORT_JSON, false, SB_CT_SORT_TOTAL);
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "\"open_calls_dropped\": 0, \"depth_overflow_calls\": 9807, "
			"\"unmatched_region_ends\": 4},\n");
	free(out);
	sb_profile_free(&p);
}

/* 4 ranks, each in main the whole 100 ns recording, and in solve for half of it. */
static void make_four_ranks(struct sb_profile *p)
{
	struct sb_event main_call = { 0, 100, 0, 0, -1, { -1, -1 } };
	struct sb_event solve_call = { 10, 60, 0, 1, 0, { -1, -1 } };
	uint32_t r;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	assert_int_equal(sb_profile_add_region(p, "main", "", -1, NULL), 0);
	assert_int_equal(sb_profile_add_region(p, "solve", "", -1, NULL), 1);
	assert_int_equal(sb_profile_set_int(p, "start_time_ns", 0), 0);
	assert_int_equal(sb_profile_set_int(p, "finalize_time_ns", 100), 0);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 4), 0);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (r = 0; r < 4; r++)
		fx_add_call(p, 0, r, &main_call);
	for (r = 0; r < 4; r++)
		fx_add_call(p, 1, r, &solve_call);
}

static void test_percent_of_many_ranks_is_of_rank_seconds(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	make_four_ranks(&p);
	out = render(&p, SB_REPORT_TEXT, false, SB_CT_SORT_TOTAL);
	/* 100.0%, not the 400% of four ranks against one wall-clock span. */
	expect_has(out, "%rec      of 400 ns rank-seconds (the recording times 4 ranks)\n");
	expect_has(out, "    4  400 ns  100 ns  100 ns  100 ns  100.0%  200 ns        -  main\n");
	expect_has(out, "    4  200 ns   50 ns   50 ns   50 ns   50.0%  200 ns        -  └─ solve\n");
	free(out);
	out = render(&p, SB_REPORT_JSON, true, SB_CT_SORT_TOTAL);
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "\"recording_ns\": 100, \"percent_of\": \"rank_seconds\", "
			"\"rank_seconds_ns\": 400, ");
	expect_has(out, "\"total_ns\": 400, \"avg_ns\": 100, \"min_ns\": 100, \"max_ns\": 100, "
			"\"percent\": 100.0");
	free(out);
	out = render(&p, SB_REPORT_CSV, false, SB_CT_SORT_TOTAL);
	expect_has(out, "\nmain,1,4,400,100,100,100,100.0,200,,0\n");
	free(out);
	sb_profile_free(&p);
}

/*
 * record -p of one rank of a 4-rank job: the world is 4 (mpi_size), one rank
 * was recorded. Its main runs the whole recording: 100%, not 25%.
 */
static void test_percent_of_one_rank_recorded_is_of_that_rank(void **state)
{
	struct sb_event main_call = { 0, 100, 0, 0, -1, { -1, -1 } };
	struct sb_event solve_call = { 10, 60, 0, 1, 0, { -1, -1 } };
	struct sb_thread th = { .rank = 2, .index = 0, .tid = 7, .end_ns = -1, .cpu_ns = -1,
				.name = "app" };
	struct sb_profile p;
	char *out;

	(void)state;
	sb_profile_init(&p);
	p.format = strdup("synthetic");
	assert_int_equal(sb_profile_add_region(&p, "main", "", -1, NULL), 0);
	assert_int_equal(sb_profile_add_region(&p, "solve", "", -1, NULL), 1);
	assert_int_equal(sb_profile_set_int(&p, "start_time_ns", 0), 0);
	assert_int_equal(sb_profile_set_int(&p, "finalize_time_ns", 100), 0);
	assert_int_equal(sb_profile_set_int(&p, "mpi_size", 4), 0);
	p.columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	fx_add_call(&p, 0, 2, &main_call);
	fx_add_call(&p, 1, 2, &solve_call);
	fx_add_threads(&p, &th, 1);
	out = render(&p, SB_REPORT_TEXT, false, SB_CT_SORT_TOTAL);
	expect_has(out, "recording 100 ns, 1 of 4 ranks, 1 thread, 2 calls\n");
	assert_null(strstr(out, "rank-seconds"));
	expect_has(out, "100 ns  100.0%");
	expect_has(out, "50 ns   50.0%");
	free(out);
	out = render(&p, SB_REPORT_JSON, false, SB_CT_SORT_TOTAL);
	expect_has(out, "\"ranks\": 4, \"ranks_recorded\": 1, ");
	expect_has(out, "\"percent\": 100.0");
	free(out);
	sb_profile_free(&p);
}

static void test_json_checker_rejects_broken_json(void **state)
{
	(void)state;
	assert_true(json_valid("{\"a\": [1, -2.5, null, \"x\\\"y\"]}\n"));
	assert_false(json_valid("{\"a\": [1, 2,]}"));
	assert_false(json_valid("{\"a\": [1 2]}"));
	assert_false(json_valid("{\"a\" 1}"));
	assert_false(json_valid("[1]]"));
	assert_false(json_valid("[\"a\nb\"]"));
	assert_false(json_valid("[01.]"));
}

static void test_json_is_valid_with_header_and_paths(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	make_profile(&p, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID, true);
	out = render(&p, SB_REPORT_JSON, false, SB_CT_SORT_TOTAL);
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "{\"header\": {\"file\": \"prof.h5\", \"format\": \"synthetic\", "
			"\"schema\": 2, \"mode\": \"tree\", \"rank\": null, \"recording_ns\": 200, "
			"\"ranks\": 1, \"ranks_recorded\": 1, \"threads\": 1, \"calls\": 6, "
			"\"lost_events\": 0, \"open_calls_dropped\": 2},\n");
	expect_has(out, "{\"path\": [\"main\", \"solve\", \"kernel\"], \"depth\": 3, \"calls\": 2, "
			"\"total_ns\": 30, \"avg_ns\": 15, \"min_ns\": 10, \"max_ns\": 20, "
			"\"percent\": 15.0, \"own_ns\": 30, \"offcpu_ns\": null, "
			"\"first_start_ns\": 20}");
	expect_has(out, "\"path\": [\"main\", \"io,\\\"w\\\"\"]");
	free(out);
	sb_profile_free(&p);
}

static void test_json_of_an_empty_tree_is_valid(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	sb_profile_init(&p);
	out = render(&p, SB_REPORT_JSON, false, SB_CT_SORT_TOTAL);
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "\"rows\": []");
	expect_has(out, "\"recording_ns\": null");
	free(out);
	out = render(&p, SB_REPORT_TEXT, false, SB_CT_SORT_TOTAL);
	expect_has(out, "no completed calls\n");
	free(out);
	sb_profile_free(&p);
}

static void test_csv_rows_with_joined_quoted_paths(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	make_profile(&p, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU, true);
	out = render(&p, SB_REPORT_CSV, false, SB_CT_SORT_START);
	assert_string_equal(out,
		"path,depth,calls,total_ns,avg_ns,min_ns,max_ns,percent,own_ns,offcpu_ns,"
		"first_start_ns\n"
		"main,1,1,100,100,100,100,50.0,30,0,0\n"
		"main;solve,2,1,50,50,50,50,25.0,20,4,10\n"
		"main;solve;kernel,3,2,30,15,10,20,15.0,30,3,20\n"
		"main;mark,2,1,0,0,0,0,0.0,0,0,60\n"
		"\"main;io,\"\"w\"\"\",2,1,20,20,20,20,10.0,20,0,70\n");
	free(out);
	sb_profile_free(&p);
}

static void test_csv_leaves_unknown_values_empty(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	make_profile(&p, SB_COL_THREAD, true);
	free(p.events);
	p.events = NULL;
	out = render(&p, SB_REPORT_CSV, true, SB_CT_SORT_TOTAL);
	expect_has(out, "\nmain,1,1,100,100,100,100,50.0,,,0\n");
	free(out);
	sb_profile_free(&p);
}

static void test_format_names_parse(void **state)
{
	enum sb_report_format f = SB_REPORT_TEXT;

	(void)state;
	assert_int_equal(sb_report_format_parse("csv", &f), 0);
	assert_int_equal(f, SB_REPORT_CSV);
	assert_int_equal(sb_report_format_parse("json", &f), 0);
	assert_int_equal(f, SB_REPORT_JSON);
	assert_int_equal(sb_report_format_parse("JSON", &f), -EINVAL);
	assert_int_equal(f, SB_REPORT_JSON);
}

/* ---- "-o -": standard output for every command ---- */

static void build_for_file(struct sb_profile *p)
{
	make_profile(p, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID, true);
}

/* Run cmd in the scratch directory with stdout captured; returns what it printed. */
static char *run_to_stdout(int (*cmd)(int, char **), int argc, char **argv)
{
	int saved_out = dup(1), saved_cwd = open(".", O_RDONLY | O_DIRECTORY), fd;
	char *out;

	assert_true(saved_out >= 0 && saved_cwd >= 0);
	assert_int_equal(chdir(tmp_dir), 0);
	fflush(stdout);
	fd = open("stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(cmd(argc, argv), 0);
	fflush(stdout);
	dup2(saved_out, 1);
	close(saved_out);
	/* Nothing may be named "-". */
	assert_int_equal(access("-", F_OK), -1);
	out = slurp("stdout.txt");
	unlink("stdout.txt");
	assert_int_equal(fchdir(saved_cwd), 0);
	close(saved_cwd);
	return out;
}

static void test_dash_output_is_standard_output_everywhere(void **state)
{
	char *report[] = { "report", "-o", "-", "prof.h5" };
	char *html[] = { "report", "--html", "-", "prof.h5" };
	char *inspect[] = { "inspect", "-o", "-", "prof.h5" };
	char *diff[] = { "diff", "-o", "-", "prof.h5", "prof.h5" };
	char *export[] = { "export", "json", "-o", "-", "prof.h5" };
	struct sb_output o;
	struct sb_error err;
	char *out;

	(void)state;
	assert_int_equal(sb_output_open(&o, "-", &err), 0);
	assert_ptr_equal(o.f, stdout);
	assert_null(o.path);
	assert_string_equal(sb_output_name(&o), "standard output");
	assert_int_equal(sb_output_commit(&o, &err), 0);

	fx_write_built(tmp_path("prof.h5"), build_for_file);
	out = run_to_stdout(cmd_report, ARGC(report), report);
	expect_has(out, "  └─ kernel\n");
	free(out);
	out = run_to_stdout(cmd_report, ARGC(html), html);
	expect_has(out, "<!DOCTYPE html>");
	free(out);
	out = run_to_stdout(cmd_inspect, ARGC(inspect), inspect);
	expect_has(out, "\nregions: 5\n");
	free(out);
	out = run_to_stdout(cmd_diff, ARGC(diff), diff);
	expect_has(out, "kernel");
	free(out);
	out = run_to_stdout(cmd_export, ARGC(export), export);
	expect_has(out, "\"kernel\"");
	free(out);
}

/* The roofline's ceilings: numbers above 0, and only for the HTML page that draws them. */
static void test_peak_options(void **state)
{
	char *ok[] = { "report", "--html", "p.html", "--peak-gflops", "1.5e3", "--peak-gbs", "204.8",
		       "prof.h5" };
	char *zero[] = { "report", "--html", "p.html", "--peak-gbs", "0", "prof.h5" };
	char *word[] = { "report", "--html", "p.html", "--peak-gflops", "fast", "prof.h5" };
	char *text[] = { "report", "--peak-gflops", "100", "prof.h5" };
	struct sb_error err;
	struct report_opts o;

	(void)state;
	assert_int_equal(parse(ARGC(ok), ok, &o, &err), 0);
	assert_true(o.peak_gflops == 1500 && o.peak_gbs == 204.8);
	expect_error(ARGC(zero), zero, "--peak-gbs: '0' is not a number above 0");
	expect_error(ARGC(word), word, "--peak-gflops: 'fast'");
	expect_error(ARGC(text), text, "--peak-gflops: only for the roofline of --html");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_with_just_a_file),
		cmocka_unit_test(test_every_option_long_and_short),
		cmocka_unit_test(test_help_needs_no_file),
		cmocka_unit_test(test_bad_values_name_their_option),
		cmocka_unit_test(test_usage_errors_say_what_is_wrong),
		cmocka_unit_test(test_per_rank_and_durations_options),
		cmocka_unit_test(test_two_views_are_refused_by_the_table),
		cmocka_unit_test(test_command_exit_codes),
		cmocka_unit_test(test_text_is_an_aligned_tree),
		cmocka_unit_test(test_text_flat_and_offcpu_and_span_from_calls),
		cmocka_unit_test(test_sort_by_own_and_offcpu),
		cmocka_unit_test(test_text_warns_about_lost_events),
		cmocka_unit_test(test_text_explains_every_unrecorded_call),
		cmocka_unit_test(test_percent_of_many_ranks_is_of_rank_seconds),
		cmocka_unit_test(test_percent_of_one_rank_recorded_is_of_that_rank),
		cmocka_unit_test(test_json_checker_rejects_broken_json),
		cmocka_unit_test(test_json_is_valid_with_header_and_paths),
		cmocka_unit_test(test_json_of_an_empty_tree_is_valid),
		cmocka_unit_test(test_csv_rows_with_joined_quoted_paths),
		cmocka_unit_test(test_csv_leaves_unknown_values_empty),
		cmocka_unit_test(test_format_names_parse),
		cmocka_unit_test(test_dash_output_is_standard_output_everywhere),
		cmocka_unit_test(test_peak_options),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
