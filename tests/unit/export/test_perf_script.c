/*
 * Unit tests of `export perf-script`: each timed CPU sample as perf script
 * prints it, read from a file whose timeline HDF5 itself wrote.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "timeline_fixture.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Run cmd_export with its stderr in err; returns its status. */
static int run(int argc, char **argv, char *err, size_t len)
{
	int saved = dup(2), fd, r;
	ssize_t n;

	fflush(stderr);
	fd = open(tmp_path("stderr.txt"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	dup2(fd, 2);
	r = cmd_export(argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, err, len - 1, 0);
	err[n > 0 ? n : 0] = 0;
	close(fd);
	return r;
}

/*
 * What perf script -F +pid --ns prints, in time order across the ranks: comm,
 * pid/tid, [cpu], seconds with 9 decimals, the event; then each frame,
 * innermost first, with its address (here: within its module), function and
 * module in parentheses, the kernel's as perf names it; the region path last,
 * as frames of "[region]"; an empty line after each sample.
 */
static const char expected[] =
	"main 4243/4243 [002] 12.000000250: cpu-clock:\n"
	"\t            1140 compute (/app)\n"
	"\t            1180 main (/app)\n"
	"\t               0 step ([region])\n"
	"\t               0 solve ([region])\n"
	"\n"
	"rank1 5252/5252 [005] 12.000000300: cpu-clock:\n"
	"\t            1180 main (/app)\n"
	"\n"
	"worker 4243/4244 [003] 12.000000500: cpu-clock:\n"
	"\tffffffff81000010 do_syscall_64 ([kernel.kallsyms])\n"
	"\t            1180 main (/app)\n"
	"\t               0 solve ([region])\n"
	"\n"
	"main 4243/4243 [002] 12.000001000: cpu-clock:\n"
	"\t            1140 compute (/app)\n"
	"\t            1180 main (/app)\n"
	"\t               0 step ([region])\n"
	"\t               0 solve ([region])\n"
	"\n";

static void test_each_sample_as_perf_script_prints_it(void **state)
{
	char h5[512], out[512], err[1024], *text;
	char *argv[] = { "export", "perf-script", h5, "-o", out };

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tmp_path("run.h5"));
	snprintf(out, sizeof(out), "%s", tmp_path("run.perf.txt"));
	tl_write(h5);
	if (run(ARGC(argv), argv, err, sizeof(err)))
		fail_msg("export perf-script failed: %s", err);
	text = slurp(out);
	assert_string_equal(text, expected);
	free(text);
}

/* --ranks keeps a rank's samples only, and the default output is FILE.perf.txt. */
static void test_ranks_filter_and_default_name(void **state)
{
	char h5[512], err[1024], *text;
	char *argv[] = { "export", "perf-script", h5, "--ranks", "1" };

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tmp_path("one.h5"));
	tl_write(h5);
	if (run(ARGC(argv), argv, err, sizeof(err)))
		fail_msg("export perf-script failed: %s", err);
	text = slurp(tmp_path("one.perf.txt"));
	assert_string_equal(text, "rank1 5252/5252 [005] 12.000000300: cpu-clock:\n"
				  "\t            1180 main (/app)\n\n");
	free(text);
}

/* Samples summed per stack have no time to list: exit 2, saying so, and no file. */
static void test_without_times_says_why(void **state)
{
	char h5[512], out[512], err[1024];
	char *argv[] = { "export", "perf-script", h5, "-o", out };

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tmp_path("summed.h5"));
	snprintf(out, sizeof(out), "%s", tmp_path("summed.txt"));
	fx_write_built(h5, tl_build);
	assert_int_equal(run(ARGC(argv), argv, err, sizeof(err)), 2);
	expect_has(err, "without the time of each");
	assert_int_equal(access(out, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_sample_as_perf_script_prints_it),
		cmocka_unit_test(test_ranks_filter_and_default_name),
		cmocka_unit_test(test_without_times_says_why),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
