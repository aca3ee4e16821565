/* Unit tests of `scope-bpf inspect`: every section in text and JSON, and the exit codes. */
#include <errno.h>
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

#include "io/h5write.h"
#include "cmd/commands.h"
#include "cmd/inspect.h"
#include "fixtures.h"
#include "json_check.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Two ranks; solve on both, io on rank 0 only; calls of 10, 20, 30 ns from t = 1000. */
static const struct sb_event events[] = {
	{ 1000, 1010, 0, 1, -1, { -1, 2 } },	/* rank 0 solve */
	{ 1020, 1040, 0, 2, -1, { -1, 0 } },
	{ 1011, 1014, 0, 3, 1, { -1, 0 } },	/* rank 0 io, inside the first solve */
	{ 1100, 1130, 0, 1, -1, { -1, 5 } },	/* rank 1 solve */
};

static void build(struct sb_profile *p)
{
	static const struct sb_thread threads[] = {
		{ 0, 0, 4242, 1000, 2000, 900, "main" },
		{ 1, 0, 5252, 1050, -1, -1, "rank1" },
	};
	static const struct sb_process procs[] = {
		{ 4242, 1, 0, 900, 2000, 0, "mpirun -n 2 ./app" },
		{ 5252, 4242, 1, 1050, -1, -1, "./app --rank 1" },
		{ 6000, 4242, -1, 1060, 1070, 256, "sh -c true" },
	};
	static const struct {
		uint32_t region, rank;
		uint64_t offset, count;
	} pairs[] = { { 0, 0, 0, 2 }, { 1, 0, 2, 1 }, { 0, 1, 3, 1 } };
	struct sb_pair *q;
	size_t i;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	assert_int_equal(sb_profile_add_region(p, "solve", "solver.c", 20, "[\"mpi\"]"), 0);
	assert_int_equal(sb_profile_add_region(p, "io", "", -1, NULL), 1);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 2), 0);
	assert_int_equal(sb_profile_set_str(p, "hostname", "node1"), 0);
	assert_int_equal(sb_profile_set_int(p, "start_time_ns", 1000), 0);
	assert_int_equal(sb_profile_set_int(p, "lost_events", 3), 0);
	assert_int_equal(sb_profile_set_str(p, "command", "mpirun -n 2 \"./app\""), 0);
	fx_add_threads(p, threads, 2);
	fx_add_processes(p, procs, 3);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		q = fx_add_pair(p, pairs[i].region, pairs[i].rank, &events[pairs[i].offset],
				pairs[i].count);
		assert_int_equal(q->offset, pairs[i].offset);
	}
	assert_int_equal(p->n_events, sizeof(events) / sizeof(events[0]));
}

static char *render(const struct sb_profile *p, enum sb_report_format fmt)
{
	struct inspect_opts o = { .format = fmt, .path = "prof.h5" };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_inspect_render(f, p, &o), 0);
	assert_int_equal(fclose(f), 0);
	return out;
}

/* Like assert_string_equal, but shows all of a long text when it differs. */
static void expect_text(const char *text, const char *want)
{
	if (!strcmp(text, want))
		return;
	fprintf(stderr, "got:\n%s\nwant:\n%s", text, want);
	fail_msg("the text differs");
}

static void test_text_shows_every_section(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p);
	out = render(&p, SB_REPORT_TEXT);
	expect_text(out,
		"file               prof.h5\n"
		"format             synthetic\n"
		"schema             2\n"
		"events             4\n"
		"optional columns   thread_ids, call_ids, parent_ids, offcpu_ns\n"
		"lost_events        3\n"
		"open_calls_dropped not recorded\n"
		"\n"
		"metadata: 5 attributes\n"
		"  command        mpirun -n 2 \"./app\"\n"
		"  hostname       node1\n"
		"  lost_events    3\n"
		"  mpi_size       2\n"
		"  start_time_ns  1000\n"
		"\n"
		"ranks: 2\n"
		"  rank  threads  calls  pid   command\n"
		"     0        1      3  4242  mpirun -n 2 ./app\n"
		"     1        1      1  5252  ./app --rank 1\n"
		"\n"
		"processes: 3\n"
		"   pid  ppid  rank    start       end  exit  command\n"
		"  4242     1     0  -100 ns  +1.00 us     0  mpirun -n 2 ./app\n"
		"  5252  4242     1   +50 ns     alive     -  ./app --rank 1\n"
		"  6000  4242     -   +60 ns    +70 ns   256  sh -c true\n"
		"\n"
		"threads: 2\n"
		"  rank  index   tid   start       end     cpu  name\n"
		"     0      0  4242   +0 ns  +1.00 us  900 ns  main\n"
		"     1      0  5252  +50 ns     alive       -  rank1\n"
		"\n"
		"regions: 2\n"
		"  region    source       tags     calls  total\n"
		"  solve     solver.c:20  [\"mpi\"]      3  60 ns\n"
		"    rank 0                            2  30 ns\n"
		"    rank 1                            1  30 ns\n"
		"  io        -            -            1   3 ns\n"
		"    rank 0                            1   3 ns\n");
	free(out);
	sb_profile_free(&p);
}

static void test_json_is_valid_and_complete(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p);
	out = render(&p, SB_REPORT_JSON);
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "{\"file\": \"prof.h5\", \"format\": \"synthetic\", \"schema\": 2,\n"
			" \"events\": 4, \"columns\": [\"thread_ids\", \"call_ids\", "
			"\"parent_ids\", \"offcpu_ns\"],\n \"lost_events\": 3,\n "
			"\"open_calls_dropped\": null");
	expect_has(out, "\"metadata\": {\n  \"command\": \"mpirun -n 2 \\\"./app\\\"\",\n"
			"  \"hostname\": \"node1\",\n  \"lost_events\": 3,\n  \"mpi_size\": 2,\n"
			"  \"start_time_ns\": 1000\n }");
	expect_has(out, "{\"rank\": 0, \"threads\": 1, \"calls\": 3, \"pids\": [4242], "
			"\"command\": \"mpirun -n 2 ./app\"}");
	expect_has(out, "{\"pid\": 6000, \"ppid\": 4242, \"rank\": null, \"start_ns\": 1060, "
			"\"end_ns\": 1070, \"exit_code\": 256, \"command\": \"sh -c true\"}");
	expect_has(out, "{\"rank\": 1, \"index\": 0, \"tid\": 5252, \"name\": \"rank1\", "
			"\"start_ns\": 1050, \"end_ns\": null, \"cpu_ns\": null}");
	expect_has(out, "{\"id\": 0, \"name\": \"solve\", \"source_file\": \"solver.c\", "
			"\"source_line\": 20, \"tags\": \"[\\\"mpi\\\"]\", \"calls\": 3, "
			"\"total_ns\": 60, \"ranks\": [{\"rank\": 0, \"calls\": 2, "
			"\"total_ns\": 30}, "
			"{\"rank\": 1, \"calls\": 1, \"total_ns\": 30}]}");
	expect_has(out, "{\"id\": 1, \"name\": \"io\", \"source_file\": null, "
			"\"source_line\": null, \"tags\": \"[]\"");
	free(out);
	sb_profile_free(&p);
}

static void test_empty_profile_says_so(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	sb_profile_init(&p);
	out = render(&p, SB_REPORT_TEXT);
	expect_has(out, "format             unknown\n");
	expect_has(out, "optional columns   none\n");
	expect_has(out, "lost_events        not recorded\n");
	expect_has(out, "\nmetadata: 0 attributes\n\nranks: 0\n\nthreads: 0\n\nregions: 0\n");
	assert_null(strstr(out, "processes"));
	free(out);
	out = render(&p, SB_REPORT_JSON);
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "\"columns\": []");
	expect_has(out, "\"metadata\": {}");
	expect_has(out, "\"regions\": []}\n");
	free(out);
	sb_profile_free(&p);
}

static void test_one_rank_has_no_per_rank_rows(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p);
	/* Drop rank 1: its pair is last, its thread is last. */
	p.n_pairs = 2;
	p.n_events = 3;
	assert_int_equal(sb_profile_set_int(&p, "mpi_size", 1), 0);
	out = render(&p, SB_REPORT_TEXT);
	expect_has(out, "\nranks: 1\n");
	expect_has(out, "  solve   solver.c:20  [\"mpi\"]      2  30 ns\n");
	assert_null(strstr(out, "rank 0  "));
	free(out);
	sb_profile_free(&p);
}

/* ---- the command, through files ---- */

static void test_command_reads_a_written_file(void **state)
{
	char *text[] = { "inspect", "-o", NULL, NULL };
	char *json[] = { "inspect", "--format", "json", "--output", NULL, NULL };
	char *out;

	(void)state;
	fx_write_built(tmp_path("prof.h5"), build);

	text[2] = tmp_path("out.txt");
	text[3] = tmp_path("prof.h5");
	assert_int_equal(cmd_inspect(ARGC(text), text), 0);
	out = slurp(tmp_path("out.txt"));
	expect_has(out, "format             scope-profiler HDF5 (schema 2)\n");
	expect_has(out, "\nregions: 2\n");
	expect_has(out, "  solve     solver.c:20  [\"mpi\"]      3  60 ns\n");
	expect_has(out, "  io        -            -            1   3 ns\n");
	expect_has(out, "  hostname       node1\n");
	expect_has(out, "  6000  4242     -   +60 ns    +70 ns   256  sh -c true\n");
	free(out);

	json[4] = tmp_path("out.json");
	json[5] = tmp_path("prof.h5");
	assert_int_equal(cmd_inspect(ARGC(json), json), 0);
	out = slurp(tmp_path("out.json"));
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "\"lost_events\": 3,\n \"open_calls_dropped\": null");
	free(out);
}

static void test_command_exit_codes(void **state)
{
	char *help[] = { "inspect", "--help" };
	char *none[] = { "inspect" };
	char *two[] = { "inspect", "a.h5", "b.h5" };
	char *fmt[] = { "inspect", "--format", "csv", "a.h5" };
	char *bogus[] = { "inspect", "--bogus", "a.h5" };
	char *absent[] = { "inspect", "/nonexistent/scope-bpf-test.h5" };
	char *junk[] = { "inspect", NULL };
	struct sb_error err;
	struct inspect_opts o;
	FILE *f;

	(void)state;
	assert_int_equal(cmd_inspect(ARGC(help), help), 0);
	assert_int_equal(inspect_parse_args(ARGC(none), none, &o, &err), -EINVAL);
	expect_has(err.msg, "missing FILE");
	assert_int_equal(inspect_parse_args(ARGC(two), two, &o, &err), -EINVAL);
	expect_has(err.msg, "'b.h5': only one FILE");
	assert_int_equal(inspect_parse_args(ARGC(fmt), fmt, &o, &err), -EINVAL);
	expect_has(err.msg, "--format: 'csv'");
	assert_int_equal(inspect_parse_args(ARGC(bogus), bogus, &o, &err), -EINVAL);
	expect_has(err.msg, "--bogus: unknown option");
	assert_int_equal(cmd_inspect(ARGC(none), none), 2);
	assert_int_equal(cmd_inspect(ARGC(fmt), fmt), 2);
	assert_int_equal(cmd_inspect(ARGC(absent), absent), 2);
	f = fopen(tmp_path("junk.h5"), "w");
	assert_non_null(f);
	fputs("not a profile\n", f);
	fclose(f);
	junk[1] = tmp_path("junk.h5");
	assert_int_equal(cmd_inspect(ARGC(junk), junk), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_shows_every_section),
		cmocka_unit_test(test_json_is_valid_and_complete),
		cmocka_unit_test(test_empty_profile_says_so),
		cmocka_unit_test(test_one_rank_has_no_per_rank_rows),
		cmocka_unit_test(test_command_reads_a_written_file),
		cmocka_unit_test(test_command_exit_codes),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
