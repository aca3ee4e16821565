/* Unit tests of `scope-bpf record` option parsing. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/record_opts.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static void test_command_after_double_dash(void **state)
{
	char *argv[] = { "record", "-o", "x.h5", "-d", "2.5", "-q", "--", "./app", "-v", "3", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_string_equal(o.output, "x.h5");
	assert_true(o.duration > 2.49 && o.duration < 2.51);
	assert_true(o.quiet);
	assert_false(o.verbose);
	assert_string_equal(o.cmd[0], "./app");
	/* The command's own options are not ours. */
	assert_string_equal(o.cmd[1], "-v");
	assert_null(o.cmd[3]);
}

static void test_command_without_double_dash_and_defaults(void **state)
{
	char *argv[] = { "record", "./app", "-p", "1", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_string_equal(o.output, "scope-bpf.h5");
	assert_int_equal(o.pid, 0);
	assert_string_equal(o.cmd[1], "-p");
}

static void test_pid_long_options(void **state)
{
	char *argv[] = { "record", "--pid", "4242", "--duration", "10", "--verbose", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_int_equal(o.pid, 4242);
	assert_null(o.cmd);
	assert_true(o.verbose);
}

static void expect_error(char **argv, int argc, const char *msg)
{
	struct sb_error err = { { 0 } };
	struct record_opts o;

	assert_int_equal(record_parse_args(argc, argv, &o, &err), -EINVAL);
	if (!strstr(err.msg, msg))
		fail_msg("error '%s' does not say '%s'", err.msg, msg);
}

static void test_bad_input(void **state)
{
	char *bad_pid[] = { "record", "-p", "12x", NULL };
	char *neg_pid[] = { "record", "-p", "-5", NULL };
	char *bad_dur[] = { "record", "-d", "soon", "--", "ls", NULL };
	char *zero_dur[] = { "record", "-d", "0", "--", "ls", NULL };
	char *both[] = { "record", "-p", "3", "--", "ls", NULL };
	char *none[] = { "record", "-q", NULL };
	char *unknown[] = { "record", "--frobnicate", "--", "ls", NULL };
	char *missing[] = { "record", "-o", NULL };
	char *empty[] = { "record", "-o", "", "--", "ls", NULL };

	(void)state;
	expect_error(bad_pid, ARGC(bad_pid), "-p 12x: not a process id");
	expect_error(neg_pid, ARGC(neg_pid), "not a process id");
	expect_error(bad_dur, ARGC(bad_dur), "-d soon");
	expect_error(zero_dur, ARGC(zero_dur), "positive");
	expect_error(both, ARGC(both), "not both");
	expect_error(none, ARGC(none), "nothing to record");
	expect_error(unknown, ARGC(unknown), "--frobnicate: unknown option");
	expect_error(missing, ARGC(missing), "needs a value");
	expect_error(empty, ARGC(empty), "empty file name");
}

static void test_sampling_options(void **state)
{
	char *dflt[] = { "record", "--sample", "--offcpu-stacks", "--", "./app", NULL };
	char *hz[] = { "record", "--sample=999", "--kernel-stacks", "--offcpu-min-us", "50", "-p", "9", NULL };
	char *bad_hz[] = { "record", "--sample=0", "-p", "9", NULL };
	char *kernel_alone[] = { "record", "--kernel-stacks", "-p", "9", NULL };
	char *bad_min[] = { "record", "--offcpu-min-us", "-3", "-p", "9", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(dflt), dflt, &o, &err), 0);
	assert_int_equal(o.sample_hz, 99);
	assert_true(o.offcpu_stacks);
	assert_false(o.kernel_stacks);
	assert_int_equal(o.offcpu_min_ns, 0);
	assert_int_equal(record_parse_args(ARGC(hz), hz, &o, &err), 0);
	assert_int_equal(o.sample_hz, 999);
	assert_true(o.kernel_stacks);
	assert_int_equal(o.offcpu_min_ns, 50000);
	expect_error(bad_hz, ARGC(bad_hz), "--sample=0: not a frequency");
	expect_error(kernel_alone, ARGC(kernel_alone), "needs --sample");
	expect_error(bad_min, ARGC(bad_min), "--offcpu-min-us -3");
}

static void test_identity_options(void **state)
{
	char *user[] = { "record", "--user", "nobody", "--", "id", "-u", NULL };
	char *root[] = { "record", "--as-root", "--", "id", NULL };
	char *plain[] = { "record", "--", "id", NULL };
	char *both[] = { "record", "--user", "nobody", "--as-root", "--", "id", NULL };
	char *with_pid[] = { "record", "--user", "nobody", "-p", "9", NULL };
	char *root_pid[] = { "record", "--as-root", "-p", "9", NULL };
	char *empty[] = { "record", "--user", "", "--", "id", NULL };
	char *missing[] = { "record", "--", "id", "--user", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(user), user, &o, &err), 0);
	assert_string_equal(o.user, "nobody");
	assert_false(o.as_root);
	assert_string_equal(o.cmd[0], "id");
	assert_int_equal(record_parse_args(ARGC(root), root, &o, &err), 0);
	assert_null(o.user);
	assert_true(o.as_root);
	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), 0);
	assert_null(o.user);
	assert_false(o.as_root);
	expect_error(both, ARGC(both), "either --user NAME or --as-root");
	expect_error(with_pid, ARGC(with_pid), "--user: only for a command");
	expect_error(root_pid, ARGC(root_pid), "--as-root: only for a command");
	expect_error(empty, ARGC(empty), "--user: empty user name");
	/* After the command, --user is the command's own argument. */
	assert_int_equal(record_parse_args(ARGC(missing), missing, &o, &err), 0);
	assert_null(o.user);
	assert_string_equal(o.cmd[1], "--user");
}

/* --help tells who the command runs as. */
static void test_usage_names_the_identity_options(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	record_usage(f);
	fclose(f);
	assert_non_null(strstr(text, "--user NAME"));
	assert_non_null(strstr(text, "--as-root"));
	assert_non_null(strstr(text, "Under sudo the command runs as the user who ran sudo"));
	free(text);
}

static void test_mpi_options(void **state)
{
	char *all[] = { "record", "--mpi=all", "./app", NULL };
	char *plain[] = { "record", "--mpi", "./app", NULL };
	char *off[] = { "record", "--no-mpi", "./app", NULL };
	char *bad[] = { "record", "--mpi=some", "./app", NULL };
	char *both[] = { "record", "--mpi", "--no-mpi", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(all), all, &o, &err), 0);
	assert_true(o.mpi_all);
	assert_false(o.no_mpi);
	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), 0);
	assert_false(o.mpi_all);
	assert_false(o.no_mpi);
	assert_int_equal(record_parse_args(ARGC(off), off, &o, &err), 0);
	assert_true(o.no_mpi);
	assert_int_equal(record_parse_args(ARGC(bad), bad, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--mpi=some"));
	assert_int_equal(record_parse_args(ARGC(both), both, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--no-mpi"));
}

static void test_help(void **state)
{
	char *argv[] = { "record", "--help", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_true(o.help);
}

/* The lists need no command: they record nothing. */
static void test_list_events_and_groups_need_no_command(void **state)
{
	char *events[] = { "record", "--list-events", NULL };
	char *groups[] = { "record", "-q", "--list-groups", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(events), events, &o, &err), 0);
	assert_true(o.list_events);
	assert_false(o.list_groups);
	assert_int_equal(record_parse_args(ARGC(groups), groups, &o, &err), 0);
	assert_true(o.list_groups);
	assert_false(o.list_events);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_after_double_dash),
		cmocka_unit_test(test_command_without_double_dash_and_defaults),
		cmocka_unit_test(test_pid_long_options),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_sampling_options),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_list_events_and_groups_need_no_command),
		cmocka_unit_test(test_mpi_options),
		cmocka_unit_test(test_identity_options),
		cmocka_unit_test(test_usage_names_the_identity_options),
	};

	return cmocka_run_group_tests_name("record_opts", tests, NULL, NULL);
}
