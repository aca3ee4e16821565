/* The fuzz corpus through sb_profile_read and merge: an error naming the file, never a crash. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
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
#include "io/profile_read.h"
#include "model/index_rules.h"

#define MAX_SKIPS 256

/* Inputs that crash, hang or leak inside libhdf5 itself (tests/fuzz/hdf5_crashers.txt). */
static char *skips[MAX_SKIPS];
static size_t n_skips;

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *corpus_dir(void)
{
	const char *env = getenv("SB_FUZZ_CORPUS");

	if (env && is_dir(env))
		return env;
	return is_dir("tests/fuzz/corpus") ? "tests/fuzz/corpus" : NULL;
}

/* One path relative to the corpus per line; '#' starts a comment. */
static void load_skips(const char *corpus)
{
	char path[512], line[512], *c;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/../hdf5_crashers.txt", corpus);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n_skips < MAX_SKIPS) {
		c = strchr(line, '#');
		if (c)
			*c = '\0';
		n = strcspn(line, " \t\r\n");
		line[n] = '\0';
		if (n)
			skips[n_skips++] = strdup(line);
	}
	fclose(f);
}

static bool skipped(const char *rel)
{
	size_t i;

	for (i = 0; i < n_skips; i++)
		if (!strcmp(skips[i], rel))
			return true;
	return false;
}

/* What fuzz.h checks after each run, as a test: the readers' promises. */
static void check_result(const char *path, int ret, const struct sb_profile *p,
			 const struct sb_error *err)
{
	size_t i, n = strlen(path);
	const struct sb_pair *q;
	char why[256];
	uint64_t k;

	if (ret) {
		if (ret >= 0 || strncmp(err->msg, path, n) || strncmp(err->msg + n, ": ", 2) ||
		    strchr(err->msg, '\n'))
			fail_msg("%s: returned %d with message '%s'", path, ret, err->msg);
		assert_int_equal(p->n_pairs, 0);
		assert_null(p->events);
		return;
	}
	if (sb_profile_check_index(p, why, sizeof(why)))
		fail_msg("%s: read, but its index is broken: %s", path, why);
	for (i = 0; i < p->n_pairs; i++) {
		q = &p->pairs[i];
		/* An aggregate's rows count calls it summed: there are no events to check. */
		for (k = 1; k < q->count && !p->agg.on; k++)
			if (p->events[q->offset + k].start < p->events[q->offset + k - 1].start)
				fail_msg("%s: pair %zu is not sorted by start", path, i);
	}
}

static size_t replay_dir(const char *corpus, const char *sub)
{
	char path[1024], rel[512];
	struct sb_error err;
	struct sb_profile p;
	struct dirent *d;
	size_t n = 0;
	DIR *dp;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", corpus, sub);
	dp = opendir(path);
	assert_non_null(dp);
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", sub, d->d_name);
		if (skipped(rel))
			continue;
		snprintf(path, sizeof(path), "%s/%s", corpus, rel);
		memset(&err, 0, sizeof(err));
		ret = sb_profile_read(path, &p, &err);
		check_result(path, ret, &p, &err);
		sb_profile_free(&p);
		n++;
	}
	closedir(dp);
	return n;
}

static void test_corpus_reads_or_fails_cleanly(void **state)
{
	const char *corpus = corpus_dir();
	char path[1024];
	struct dirent *d;
	size_t n = 0, i;
	DIR *dp;

	(void)state;
	if (!corpus) {
		print_message("tests/fuzz/corpus not found (run from the repository root): "
			      "skipped\n");
		skip();
	}
	load_skips(corpus);
	dp = opendir(corpus);
	assert_non_null(dp);
	while ((d = readdir(dp))) {
		snprintf(path, sizeof(path), "%s/%s", corpus, d->d_name);
		if (d->d_name[0] != '.' && is_dir(path))
			n += replay_dir(corpus, d->d_name);
	}
	closedir(dp);
	print_message("%zu corpus files replayed, %zu known libhdf5 failures skipped\n", n,
		      n_skips);
	assert_true(n > 0);
	for (i = 0; i < n_skips; i++)
		free(skips[i]);
}

/*
 * An input that makes libhdf5 itself crash is read in a child
 * (io/h5guard.c): this process gets the one-line error and goes on.
 */
static void test_library_crash_is_an_error_not_a_signal(void **state)
{
	const char *rel = "hdf5-internal/crash-331336a3d16fdf32bd4cefe0a8568f6c7506e038";
	const char *corpus = corpus_dir();
	struct sb_error err = { { 0 } };
	struct sb_profile p;
	char path[PATH_MAX];
	int ret;

	(void)state;
	if (!corpus)
		skip();
	snprintf(path, sizeof(path), "%s/%s", corpus, rel);
	ret = sb_profile_read(path, &p, &err);
	check_result(path, ret, &p, &err);
	assert_int_equal(ret, -EINVAL);
	sb_profile_free(&p);
}

/* scope-bpf merge on one file, in a child with stderr silenced: its wait status. */
static int merge_status(const char *path, const char *out)
{
	char *argv[] = { "merge", "-q", "-o", (char *)out, (char *)path, NULL };
	int status, fd;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, STDERR_FILENO);
		/* A hang is a failure, not a stuck test run. */
		alarm(30);
		optind = 1;
		_exit(cmd_merge(5, argv));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static size_t merge_dir(const char *corpus, const char *sub, const char *out)
{
	char path[1024];
	struct dirent *d;
	size_t n = 0;
	int status;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/%s", corpus, sub);
	dp = opendir(path);
	assert_non_null(dp);
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", corpus, sub, d->d_name);
		status = merge_status(path, out);
		if (WIFSIGNALED(status))
			fail_msg("merge %s: %s", path, strsignal(WTERMSIG(status)));
		if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 2)
			fail_msg("merge %s: exit %d", path, WEXITSTATUS(status));
		n++;
	}
	closedir(dp);
	return n;
}

/*
 * merge reads its inputs in children too: on every HDF5 file of the corpus,
 * libhdf5's own crashers, endless loop and 4 GiB malloc included, it exits 0
 * or 2, never on a signal, never hung.
 */
static void test_merge_of_any_corpus_file_exits_0_or_2(void **state)
{
	const char *corpus = corpus_dir();
	char dir[] = "/tmp/test_fuzz_corpus.XXXXXX", out[64];
	size_t n;

	(void)state;
	if (!corpus)
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/merged.h5", dir);
	n = merge_dir(corpus, "hdf5", out) + merge_dir(corpus, "hdf5-internal", out);
	print_message("%zu corpus files merged or refused\n", n);
	unlink(out);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus_reads_or_fails_cleanly),
		cmocka_unit_test(test_library_crash_is_an_error_not_a_signal),
		cmocka_unit_test(test_merge_of_any_corpus_file_exits_0_or_2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
