/* record -o: %h, %p, %r, %n and %% expanded; the rank read from a launcher's environment. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/outpath.h"

static void expect_fields(const char *tmpl, const struct sb_outpath_fields *v, const char *want)
{
	struct sb_error err = { .msg = "" };
	char *out;

	if (sb_outpath_expand(tmpl, v, &out, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(out, want);
	free(out);
}

static void expect_expansion(const char *tmpl, int64_t rank, const char *want)
{
	expect_fields(tmpl, &(struct sb_outpath_fields){ .host = "node7.cluster.example",
			.pid = 4242, .rank = rank, .index = -1 }, want);
}

static void test_fields(void **state)
{
	(void)state;
	expect_expansion("prof.%h.h5", -1, "prof.node7.h5");
	expect_expansion("p%p-r%r.h5", 3, "p4242-r3.h5");
	expect_expansion("r%r.h5", -1, "rx.h5");
	expect_expansion("100%%.%h%%", -1, "100%.node7%");
	expect_expansion("plain.h5", 0, "plain.h5");
}

/* --rotate's %n and -a's %r (the --ranks list) in the same one pass: %% stays one %. */
static void test_index_and_rank_list(void **state)
{
	struct sb_outpath_fields v = { .host = "n1", .pid = 9, .rank = 4, .index = 7 };
	struct sb_outpath_fields all = { .host = "n1", .pid = 9, .rank = -1, .ranks = "0-3,7",
					 .index = -1 };

	(void)state;
	expect_fields("run.%n.h5", &v, "run.7.h5");
	expect_fields("%h-%n-%r.h5", &v, "n1-7-4.h5");
	expect_fields("a%%n%n", &v, "a%n7");
	v.index = 12345678901LL;
	expect_fields("run.%n.h5", &v, "run.12345678901.h5");
	expect_fields("prof.%r.h5", &all, "prof.0-3,7.h5");
	expect_fields("%r%r.%p.%%r", &all, "0-3,70-3,7.9.%r");
	/* A list holding a % is not expanded again. */
	all.ranks = "%h";
	expect_fields("r%r", &all, "r%h");
}

static void test_unknown_field_is_refused(void **state)
{
	static const char *const bad[] = { "a%d.h5", "trailing%", "%H", "run.%n.h5" };
	struct sb_outpath_fields v = { .host = "h", .pid = 1, .rank = -1, .index = -1 };
	struct sb_error err = { .msg = "" };
	char *out;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sb_outpath_expand(bad[i], &v, &out, &err), -EINVAL);
		assert_null(out);
		assert_non_null(strstr(err.msg, bad[i]));
		assert_non_null(strstr(err.msg, "only %h, %p, %r and %% are expanded, and %n "
				       "with --rotate"));
	}
	v.index = 0;
	assert_int_equal(sb_outpath_expand("x%q", &v, &out, &err), -EINVAL);
}

/*
 * The kernel closes the exec'ing process's close-on-exec files before it sets
 * up the new stack, so /proc/PID/environ can still read empty just after: wait
 * (a second at most) until it holds something, as every env here does.
 */
static void wait_for_environ(pid_t pid)
{
	char path[64], c;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	for (i = 0; i < 1000; i++) {
		fd = open(path, O_RDONLY);
		if (fd >= 0 && read(fd, &c, 1) == 1) {
			close(fd);
			return;
		}
		if (fd >= 0)
			close(fd);
		usleep(1000);
	}
}

/* A process running with env: its pid, once exec is done; the caller kills it. */
static pid_t spawn_with(char *const env[])
{
	char *const argv[] = { "sleep", "30", NULL };
	int fds[2];
	char c;
	pid_t pid;

	/* The pipe closes on exec: EOF says the new program and its environment are in place. */
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		execve("/bin/sleep", argv, env);
		_exit(127);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 0);
	close(fds[0]);
	wait_for_environ(pid);
	return pid;
}

static int64_t rank_of_env(char *const env[])
{
	pid_t pid = spawn_with(env);
	int64_t rank = sb_outpath_rank_of(pid);

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return rank;
}

static void test_rank_from_environment(void **state)
{
	char *const pmi[] = { "PATH=/bin", "PMI_RANK=5", "PMI_SIZE=8", NULL };
	char *const both[] = { "SLURM_PROCID=9", "OMPI_COMM_WORLD_RANK=2", NULL };
	char *const bad[] = { "PMI_RANK=5x", "PMI_RANKS=4", NULL };
	char *const none[] = { "HOME=/", NULL };

	(void)state;
	assert_int_equal(rank_of_env(pmi), 5);
	/* Open MPI's variable comes before Slurm's, whatever the order in the block. */
	assert_int_equal(rank_of_env(both), 2);
	assert_int_equal(rank_of_env(bad), -1);
	assert_int_equal(rank_of_env(none), -1);
	assert_int_equal(sb_outpath_rank_of(0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_index_and_rank_list),
		cmocka_unit_test(test_unknown_field_is_refused),
		cmocka_unit_test(test_rank_from_environment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
