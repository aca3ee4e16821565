/*
 * The recorder against its disk: a full disk stops the recording at once with
 * one clear message, keeps the old profile, and leaves the target running.
 * The readers against hostile profiles: report and merge exit 2 with one line
 * naming the file and the cause, and leave what -o names as it was.
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "harness.h"
#include "io/h5guard.h"

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
	fail_msg("scope-bpf still ran after %d s", limit);
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

/* ---- hostile profiles ---- */

#define CORPUS "tests/fuzz/corpus/"
#define GOOD_PROFILE CORPUS "hdf5/scope-bpf-full.h5"
/* Segfaults inside libhdf5 1.10 (tests/fuzz/hdf5_crashers.txt). */
#define CRASHER CORPUS "hdf5-internal/crash-331336a3d16fdf32bd4cefe0a8568f6c7506e038"

static void copy_file(const char *from, const char *to)
{
	char cmd[800];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
}

/* /metadata of the profile at path as an external link into a FIFO: libhdf5 waits on it. */
static void link_to_fifo(const char *path, const char *fifo)
{
	hid_t f;

	assert_int_equal(mkfifo(fifo, 0600), 0);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_true(H5Ldelete(f, "metadata", H5P_DEFAULT) >= 0);
	assert_true(H5Lcreate_external(fifo, "/", f, "metadata", H5P_DEFAULT, H5P_DEFAULT) >= 0);
	H5Fclose(f);
}

/* The index of the profile at path as 2^24 rows of deflated zeros: well under a MiB on disk. */
static void inflate_index(const char *path)
{
	static const char *const cols[] = { "region_ids", "ranks", "event_offsets",
					    "event_counts" };
	hsize_t n = 1ull << 24, chunk = 1u << 20;
	hid_t f, s, d, dcpl;
	int64_t zero = 0;
	char name[64];
	size_t i;

	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	assert_true(H5Pset_chunk(dcpl, 1, &chunk) >= 0 && H5Pset_deflate(dcpl, 9) >= 0);
	assert_true(H5Pset_fill_value(dcpl, H5T_NATIVE_INT64, &zero) >= 0);
	assert_true(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0);
	assert_true(H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC) >= 0);
	s = H5Screate_simple(1, &n, NULL);
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		snprintf(name, sizeof(name), "rank_region_index/%s", cols[i]);
		assert_true(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
		d = H5Dcreate2(f, name, H5T_STD_I64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
		assert_true(d >= 0);
		H5Dclose(d);
	}
	H5Sclose(s);
	H5Pclose(dcpl);
	H5Fclose(f);
}

/* One hostile input: how it is made, and what the message must say. */
struct hostile {
	const char *name;
	const char *abort_stage;	/* the test hook's "STAGE:" (h5guard.h), NULL: not used */
	const char *cause;
};

static const struct hostile hostile[] = {
	{ "crash.h5", NULL, "corrupt HDF5 file (the HDF5 library crashed reading it: " },
	{ "fifo-link.h5", NULL,
	  "corrupt HDF5 file (the HDF5 library was still reading it after 5 s)" },
	{ "inflating.h5", NULL, "more than a profile of its size can)" },
	{ "aborts.h5", "read", "corrupt HDF5 file (the HDF5 library crashed reading it: Aborted)" },
};

static void make_hostile(const struct hostile *h, const char *path)
{
	char fifo[300];

	copy_file(strcmp(h->name, "crash.h5") ? GOOD_PROFILE : CRASHER, path);
	if (!strcmp(h->name, "fifo-link.h5"))
		link_to_fifo(path, tmp_file("fifo", fifo, sizeof(fifo)));
	else if (!strcmp(h->name, "inflating.h5"))
		inflate_index(path);
}

/* scope-bpf argv, ended after 30 s at the latest; the test hook at STAGE:path when stage. */
static int run_hooked(char *const argv[], const char *stage, const char *path, char *text,
		      size_t size)
{
	char err[300], hook[400];
	pid_t pid;

	snprintf(hook, sizeof(hook), "%s:%s", stage ? stage : "", path);
	if (stage)
		assert_int_equal(setenv(SB_H5_TEST_ABORT_ENV, hook, 1), 0);
	pid = spawn(argv, tmp_file("stderr.txt", err, sizeof(err)), NULL);
	unsetenv(SB_H5_TEST_ABORT_ENV);
	assert_true(pid > 0);
	pid = wait_bounded(pid, 30);
	read_stderr(text, size);
	return pid;
}

/* Exit 2, and one line naming path and cause. */
static void expect_refused(int st, const char *text, const char *path, const char *cause)
{
	print_message("  exit %d: %s", st, text);
	assert_int_equal(st, 2);
	assert_non_null(strstr(text, path));
	assert_non_null(strstr(text, cause));
	assert_int_equal(count_of(text, "\n"), 1);
}

/* The -o files hold what they held, and nothing else was left beside them. */
static void expect_kept(const char *out, const char *report, const char *out_dir)
{
	char text[8192];

	read_file(out, text, sizeof(text));
	assert_string_equal(text, OLD_PROFILE);
	read_file(report, text, sizeof(text));
	assert_string_equal(text, OLD_PROFILE);
	/* report.txt is the one other file: no temporary one was left. */
	assert_int_equal(others_in(out_dir, "merged.h5"), 1);
}

/*
 * record --max-size on that 2 MiB disk: the first calls that fit 1 MiB are
 * kept, every later one is counted, the target runs to its end, the file is
 * written, and the run exits 3 saying how many calls are not in it.
 */
static void test_max_size_keeps_the_first_calls_and_counts_the_rest(void **state)
{
	char out[400], app[512], err[300], mode_arg[32], text[8192];
	const char *mode = getenv("SCOPE_BPF_TEST_MODE");
	char *argv[16] = { (char *)scope_bin(), "record", "--max-size", "1M", "-o", out };
	int64_t kept, over, made = atoll(CALLS) + 1;	/* count's ticks and its "all" */
	struct sb_profile p;
	int n = 6, st;
	pid_t rec;

	(void)state;
	require_bpf();
	if (mode) {
		snprintf(mode_arg, sizeof(mode_arg), "--mode=%s", mode);
		argv[n++] = mode_arg;
	}
	argv[n++] = "--";
	argv[n++] = (char *)app_path("count", app, sizeof(app));
	argv[n++] = CALLS;
	snprintf(out, sizeof(out), "%s/capped.h5", full_dir);
	rec = spawn(argv, tmp_file("capped.txt", err, sizeof(err)), NULL);
	assert_true(rec > 0);
	st = wait_bounded(rec, 120);
	read_file(err, text, sizeof(text));
	print_message("record --max-size 1M of %lld calls: exit %d\n", (long long)made, st);
	assert_int_equal(st, 3);
	assert_non_null(strstr(text, "calls_over_max_size"));
	load_profile(out, &p);
	kept = (int64_t)p.n_events;
	over = meta_int(&p, "calls_over_max_size");
	/* 56 bytes a call as the recorder holds them: struct sb_spill_rec. */
	assert_int_equal(kept, (1 << 20) / 56);
	assert_int_equal(kept + over, made);
	assert_int_equal((int64_t)must_pair(&p, "tick", 0)->count, kept);
	sb_profile_free(&p);
	unlink(out);
}

static void test_hostile_profiles_exit_2_and_keep_the_output(void **state)
{
	char good[300], path[300], out_dir[300], out[350], report[350], text[8192];
	char *merge[] = { (char *)scope_bin(), "merge", "-q", "-o", out, good, path, NULL };
	char *rep[] = { (char *)scope_bin(), "report", "-o", report, path, NULL };
	size_t i;

	(void)state;
	if (access(CRASHER, R_OK)) {
		print_message("%s not found (run from the repository root): skipped\n", CRASHER);
		skip();
	}
	copy_file(GOOD_PROFILE, tmp_file("good.h5", good, sizeof(good)));
	tmp_file("out", out_dir, sizeof(out_dir));
	assert_int_equal(mkdir(out_dir, 0755), 0);
	snprintf(out, sizeof(out), "%s/merged.h5", out_dir);
	snprintf(report, sizeof(report), "%s/report.txt", out_dir);
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		print_message("%s\n", hostile[i].name);
		make_hostile(&hostile[i], tmp_file(hostile[i].name, path, sizeof(path)));
		write_text(out, OLD_PROFILE);
		write_text(report, OLD_PROFILE);
		expect_refused(run_hooked(merge, hostile[i].abort_stage, path, text, sizeof(text)),
			       text, path, hostile[i].cause);
		expect_refused(run_hooked(rep, hostile[i].abort_stage, path, text, sizeof(text)),
			       text, path, hostile[i].cause);
		expect_kept(out, report, out_dir);
	}
}

/*
 * A reader child that dies while merge streams the calls into the new file:
 * the temporary file goes, the old one stays. (The hook aborts only the
 * passes: the first, lean read of the file succeeds.)
 */
static void test_reader_dying_mid_merge_keeps_the_output(void **state)
{
	char good[300], out_dir[300], out[350], report[350], text[8192];
	char *merge[] = { (char *)scope_bin(), "merge", "-q", "-o", out, good, NULL };
	char *rep[] = { (char *)scope_bin(), "report", "-o", report, good, NULL };

	(void)state;
	copy_file(GOOD_PROFILE, tmp_file("good.h5", good, sizeof(good)));
	tmp_file("out-mid", out_dir, sizeof(out_dir));
	assert_int_equal(mkdir(out_dir, 0755), 0);
	snprintf(out, sizeof(out), "%s/merged.h5", out_dir);
	snprintf(report, sizeof(report), "%s/report.txt", out_dir);
	write_text(out, OLD_PROFILE);
	write_text(report, OLD_PROFILE);
	expect_refused(run_hooked(merge, "pass", good, text, sizeof(text)), text, good,
		       "crashed reading it: Aborted)");
	expect_kept(out, report, out_dir);
	/* report reads the file whole when a pass fails: the parent went on unharmed. */
	assert_int_equal(run_hooked(rep, "pass", good, text, sizeof(text)), 0);
	read_file(report, text, sizeof(text));
	assert_non_null(strstr(text, "solve"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_disk_stops_at_once_and_keeps_the_old_file),
		cmocka_unit_test(test_max_size_keeps_the_first_calls_and_counts_the_rest),
		cmocka_unit_test(test_hostile_profiles_exit_2_and_keep_the_output),
		cmocka_unit_test(test_reader_dying_mid_merge_keeps_the_output),
	};

	return cmocka_run_group_tests_name("io_faults", tests, mount_tiny, unmount_tiny);
}
