/*
 * The recorder against its disk: a full disk stops the recording at once with
 * one clear message, keeps the old profile, and leaves the target running.
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include "harness.h"

#define OLD_PROFILE "an old profile the user still needs\n"
#define CALLS "2000000"		/* 96 MB of calls: the spill's first run cannot fit 2 MiB */

static char full_dir[300];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int mount_tiny(void **state)
{
	if (setup_tmp(state))
		return -1;
	if (geteuid())
		return 0;
	snprintf(full_dir, sizeof(full_dir), "%s/full", tmp_dir);
	if (mkdir(full_dir, 0755) || mount("tmpfs", full_dir, "tmpfs", 0, "size=2m"))
		return -1;
	return 0;
}

static int unmount_tiny(void **state)
{
	if (full_dir[0])
		umount2(full_dir, MNT_DETACH);
	return teardown_tmp(state);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static size_t read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size - 1 && (r = read(fd, buf + n, size - 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	return n;
}

static int count_of(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Files in dir other than keep: a leftover temporary file would be one. */
static int others_in(const char *dir, const char *keep)
{
	char cmd[700];
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -vx '%s' | wc -l", dir, keep);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &n), 1);
	pclose(f);
	return n;
}

/* wait_status(), but a recorder still busy after limit seconds is killed: a failure, not a hang. */
static int wait_bounded(pid_t pid, int limit)
{
	for (int i = 0; i < limit * 10; i++) {
		int st;

		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		sleep_ms(100);
	}
	kill(pid, SIGKILL);
	wait_status(pid);
	fail_msg("the recorder still ran after %d s", limit);
	return -1;
}

static void read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	read_all(fd, buf, size);
	close(fd);
}

static void test_full_disk_stops_at_once_and_keeps_the_old_file(void **state)
{
	char out[400], app[512], script[700], err[300], text[8192];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o", out, "--", "/bin/sh", "-c",
			 script, NULL };
	int out_fd = -1, st;
	double elapsed;
	pid_t rec;

	(void)state;
	require_bpf();
	snprintf(out, sizeof(out), "%s/x.h5", full_dir);
	write_text(out, OLD_PROFILE);
	snprintf(script, sizeof(script), "%s %s && echo target-done",
		 app_path("count", app, sizeof(app)), CALLS);
	elapsed = now_s();
	rec = spawn(argv, tmp_file("stderr.txt", err, sizeof(err)), &out_fd);
	assert_true(rec > 0);
	st = wait_bounded(rec, 60);
	elapsed = now_s() - elapsed;
	/* The recorder waited for the command: its few bytes of output are all in the pipe. */
	read_all(out_fd, text, sizeof(text));
	close(out_fd);
	print_message("record on a full 2 MiB tmpfs: exit %d after %.2f s\n", st, elapsed);
	/* The target ran to its end, untraced once recording stopped, with its own output. */
	assert_string_equal(text, "target-done\n");
	assert_int_equal(st, 1);
	assert_true(elapsed < 10.0);
	/* Said once, when it happened; then the file that could not be written. */
	read_stderr(text, sizeof(text));
	print_message("%s", text);
	assert_int_equal(count_of(text, "recording stopped: No space left on device"), 1);
	assert_int_equal(count_of(text, "x.h5.tmp."), 1);
	assert_int_equal(count_of(text, "\n"), 2);
	read_file(out, text, sizeof(text));
	assert_string_equal(text, OLD_PROFILE);
	assert_int_equal(others_in(full_dir, "x.h5"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_disk_stops_at_once_and_keeps_the_old_file),
	};

	return cmocka_run_group_tests_name("io_faults", tests, mount_tiny, unmount_tiny);
}
