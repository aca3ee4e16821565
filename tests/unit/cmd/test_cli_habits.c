/* Unit tests of the command line's habits: "did you mean", and usage errors in two lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/commands.h"
#include "cmd/suggest.h"
#include "fixtures.h"
#include "util/error.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* What fn(argc, argv) said on stderr, into buf; returns its exit status. */
static int run_stderr(int (*fn)(int, char **), int argc, char **argv, char *buf, size_t n)
{
	FILE *tmp = tmpfile();
	int saved, r;
	size_t len;

	assert_non_null(tmp);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	r = fn(argc, argv);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	len = fread(buf, 1, n - 1, tmp);
	buf[len] = '\0';
	fclose(tmp);
	return r;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_suggest_finds_typos_only(void **state)
{
	const char *names[] = { "record", "report", "inspect", "diff", "export", "merge" };

	(void)state;
	assert_string_equal(sb_suggest("reprot", names, 6), "report");	/* a swap */
	assert_string_equal(sb_suggest("recod", names, 6), "record");	/* a deletion */
	assert_string_equal(sb_suggest("exportt", names, 6), "export");	/* an insertion */
	assert_string_equal(sb_suggest("dif", names, 6), "diff");
	assert_null(sb_suggest("frobnicate", names, 6));
	/* Two letters are not enough to guess from. */
	assert_null(sb_suggest("xy", names, 6));
	assert_null(sb_suggest("", names, 6));
}

static void test_unknown_option_names_the_nearest(void **state)
{
	static const struct option longs[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct sb_error err = { .msg = "" };

	(void)state;
	sb_unknown_option("--sortt=calls", longs, &err);
	assert_string_equal(err.msg, "--sortt: unknown option; did you mean --sort?");
	sb_unknown_option("--fromat", longs, &err);
	assert_string_equal(err.msg, "--fromat: unknown option; did you mean --format?");
	sb_unknown_option("--wobble", longs, &err);
	assert_string_equal(err.msg, "--wobble: unknown option");
}

/* Each command, given a misspelt long option of its own, says the right one in two lines. */
static void expect_suggestion(int (*fn)(int, char **), char **argv, int argc, const char *want)
{
	char out[4096];

	assert_int_equal(run_stderr(fn, argc, argv, out, sizeof(out)), SB_EXIT_USAGE);
	if (!strstr(out, want))
		fail_msg("'%s' does not suggest '%s':\n%s", argv[0], want, out);
	assert_int_equal(count_lines(out), 2);
}

static void test_every_command_suggests_its_options(void **state)
{
	char *record[] = { "record", "--duraton", "3", "--", "true" };
	char *report[] = { "report", "--flta", "p.h5" };
	char *inspect[] = { "inspect", "--fromat", "json", "p.h5" };
	char *diff[] = { "diff", "--max-regresion", "5", "a.h5", "b.h5" };
	char *export[] = { "export", "--ouptut", "x", "json", "p.h5" };
	char *merge[] = { "merge", "--quite", "-o", "x.h5", "a.h5" };

	(void)state;
	expect_suggestion(cmd_record, record, ARGC(record), "did you mean --duration?");
	expect_suggestion(cmd_report, report, ARGC(report), "did you mean --flat?");
	expect_suggestion(cmd_inspect, inspect, ARGC(inspect), "did you mean --format?");
	expect_suggestion(cmd_diff, diff, ARGC(diff), "did you mean --max-regression?");
	expect_suggestion(cmd_export, export, ARGC(export), "did you mean --output?");
	expect_suggestion(cmd_merge, merge, ARGC(merge), "did you mean --quiet?");
}

/* Every way record's command line can be wrong: one line, one hint, never the usage text. */
static void test_record_errors_are_two_lines(void **state)
{
	char *cases[][8] = {
		{ "record", NULL },
		{ "record", "-p", "x", NULL },
		{ "record", "-d", "-1", "--", "true", NULL },
		{ "record", "--sample=0", "--", "true", NULL },
		{ "record", "--offcpu-min-us", "x", "--", "true", NULL },
		{ "record", "--exe", "/no/such/file", "-a", NULL },
		{ "record", "--comm", "", "-a", NULL },
		{ "record", "--ranks", "x", "-a", NULL },
		{ "record", "--exe", "/bin/sh", "--", "true", NULL },
		{ "record", "-a", "-p", "1", NULL },
		{ "record", "-a", "--", "true", NULL },
		{ "record", "-a", "--as-root", NULL },
		{ "record", "-a", "-o", "%r.h5", NULL },
		{ "record", "-p", "1", "--", "true", NULL },
		{ "record", "--mpi", "--no-mpi", "--", "true", NULL },
		{ "record", "--mpi=some", "--", "true", NULL },
		{ "record", "--user", "x", "--as-root", "--", "true", NULL },
		{ "record", "-p", "1", "--as-root", NULL },
		{ "record", "--cuda", "-p", "1", NULL },
		{ "record", "--kernel-stacks", "--", "true", NULL },
		{ "record", "-o", "", "--", "true", NULL },
		{ "record", "--user", "", "--", "true", NULL },
		{ "record", "-e", "no-such-event", "--", "true", NULL },
		{ "record", "-e", "page-faults", "-g", "MEM", "--", "true", NULL },
		{ "record", "-z", "--", "true", NULL },
		{ "record", "-o", NULL },
	};
	char out[4096];
	size_t i;
	int argc;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (argc = 0; cases[i][argc]; argc++)
			;
		assert_int_equal(run_stderr(cmd_record, argc, cases[i], out, sizeof(out)),
				 SB_EXIT_USAGE);
		if (count_lines(out) != 2 || strncmp(out, "scope-bpf record: ", 18) ||
		    !strstr(out, "\nTry 'scope-bpf record --help'.\n"))
			fail_msg("case %zu (%s): not one line and a hint:\n%s", i, cases[i][1],
				 out);
	}
}

/* Two calls: no samples, MPI calls, CUDA activity or counters. */
static void build_plain(struct sb_profile *p)
{
	static const struct fx_call calls[] = {
		{ "main", 0, 100, 1, -1, 0 },
		{ "step", 10, 20, 2, 1, 0 },
	};

	fx_call_tree(p, calls, 2, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID);
}

/*
 * A view of data the profile has none of is bad input in every command that
 * has such views: one line naming the file and what to record, exit 2, and
 * no output file.
 */
static void test_a_view_without_its_data_is_bad_input(void **state)
{
	static const char *const cases[][3] = {
		{ "report", "--samples", "record with --sample" },
		{ "report", "--offcpu", "record with --offcpu-stacks" },
		{ "report", "--mpi", "no MPI calls" },
		{ "report", "--gpu", "record with --cuda" },
		{ "report", "--counters", "record with -e" },
		{ "export", "pprof", "record with --sample" },
		{ "export", "folded", "record with --sample" },
	};
	char *file = tmp_path("plain.h5"), *out = tmp_path("view.out"), msg[4096];
	char *argv[5];
	size_t i;

	(void)state;
	fx_write_built(file, build_plain);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		argv[0] = (char *)cases[i][0];
		argv[1] = (char *)cases[i][1];
		argv[2] = "-o";
		argv[3] = out;
		argv[4] = file;
		assert_int_equal(run_stderr(strcmp(argv[0], "report") ? cmd_export : cmd_report, 5,
					    argv, msg, sizeof(msg)), SB_EXIT_USAGE);
		if (count_lines(msg) != 1 || !strstr(msg, file) || !strstr(msg, cases[i][2]))
			fail_msg("%s %s: not one line naming the file and '%s':\n%s", argv[0],
				 argv[1], cases[i][2], msg);
		if (!access(out, F_OK))
			fail_msg("%s %s: wrote %s", argv[0], argv[1], out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suggest_finds_typos_only),
		cmocka_unit_test(test_unknown_option_names_the_nearest),
		cmocka_unit_test(test_every_command_suggests_its_options),
		cmocka_unit_test(test_record_errors_are_two_lines),
		cmocka_unit_test_setup_teardown(test_a_view_without_its_data_is_bad_input,
						tmp_setup, tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
