/*
 * record --rotate: paced runs one "outer" call for 2.6 s with 100 "tick"
 * calls inside it every 10 ms, cut into files of 500 ms. Each file is a whole
 * profile that report opens alone, numbered and timed in its metadata; the
 * ticks of all files are the ticks paced made, "outer" is in the file in
 * which it ends. --rotate-keep deletes the oldest files and says how many.
 */
#include <sys/stat.h>

#include "harness.h"

#define SECONDS "2.6"
#define INTERVAL "--rotate=500ms"

/*
 * record ROTATE [KEEP] -o tmp/NAME.%n.h5 -- paced SECONDS: its exit status;
 * *ticks from paced's stdout.
 */
static int record_paced(const char *name, const char *rotate, const char *keep,
			const char *seconds, long *ticks)
{
	const char *mode = getenv("SCOPE_BPF_TEST_MODE");
	char out[300], err[300], app[512], mode_arg[32], line[128] = "";
	char *argv[16] = { (char *)scope_bin(), "record", (char *)rotate, "-o", out };
	int n = 5, fd = -1, st;
	ssize_t got;
	pid_t rec;

	snprintf(out, sizeof(out), "%s/%s.%%n.h5", tmp_dir, name);
	if (keep)
		argv[n++] = (char *)keep;
	if (mode) {
		snprintf(mode_arg, sizeof(mode_arg), "--mode=%s", mode);
		argv[n++] = mode_arg;
	}
	argv[n++] = "--";
	argv[n++] = (char *)app_path("paced", app, sizeof(app));
	argv[n++] = (char *)seconds;
	rec = spawn(argv, tmp_file("stderr.txt", err, sizeof(err)), &fd);
	assert_true(rec > 0);
	got = read(fd, line, sizeof(line) - 1);
	close(fd);
	st = wait_status(rec);
	if (st)
		echo_stderr(err, st);
	line[got > 0 ? got : 0] = 0;
	assert_int_equal(sscanf(line, "ticks %ld", ticks), 1);
	return st;
}

static const char *piece(const char *name, int i, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s.%d.h5", tmp_dir, name, i);
	return buf;
}

/* How many files NAME.0.h5, NAME.1.h5, ... there are, counting up to the first missing one. */
static int pieces(const char *name, int from)
{
	char path[300];
	int i = from;

	while (!access(piece(name, i, path, sizeof(path)), F_OK))
		i++;
	return i - from;
}

static int64_t count_of(const struct sb_profile *p, const char *region)
{
	const struct sb_pair *pair = find_pair(p, region, 0);

	return pair ? (int64_t)pair->count : 0;
}

/* The ticks of a file whose "outer" ended later are at its top level; in outer's file, under it. */
static void check_nesting(const struct sb_profile *p, bool has_outer)
{
	const struct sb_pair *tick = find_pair(p, "tick", 0);
	const char *parent;
	size_t j;

	for (j = 0; tick && j < tick->count; j++) {
		parent = parent_region(p, 0, &p->events[tick->offset + j]);
		if (has_outer)
			assert_string_equal(parent ? parent : "(top)", "outer");
		else
			assert_null(parent);
	}
}

/*
 * merge of every file: one recording's counts, and every tick under "outer"
 * again, as if it had not been cut.
 */
static void check_merged(const char *name, int files, long ticks)
{
	char out[300], paths[8][300];
	char *argv[16] = { (char *)scope_bin(), "merge", "-q", "-o", out };
	const struct sb_pair *outer;
	struct sb_profile p;
	int i, n = 5;

	assert_true(files <= 8);
	for (i = files - 1; i >= 0; i--)
		argv[n++] = (char *)piece(name, i, paths[i], sizeof(paths[i]));
	argv[n] = NULL;
	tmp_file("merged.h5", out, sizeof(out));
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	assert_int_equal(meta_int(&p, "rotate_files_joined"), files);
	assert_int_equal(count_of(&p, "tick"), ticks);
	outer = must_pair(&p, "outer", 0);
	assert_int_equal(outer->count, 1);
	assert_int_equal(p.n_events, ticks + 1);
	check_nesting(&p, true);
	sb_profile_free(&p);
}

static void test_each_file_is_a_whole_profile(void **state)
{
	char path[300], text[300];
	char *rep[] = { (char *)scope_bin(), "report", "-o", text, path, NULL };
	int64_t ticks_seen = 0, outers = 0, prev_end = -1, outer_in = -1;
	struct sb_profile p;
	int files, i, st;
	long ticks;

	(void)state;
	require_bpf();
	tmp_file("report.txt", text, sizeof(text));
	st = record_paced("run", INTERVAL, NULL, SECONDS, &ticks);
	assert_int_equal(st, 0);
	files = pieces("run", 0);
	print_message("paced %s s, %ld ticks: %d files\n", SECONDS, ticks, files);
	assert_true(files >= 4 && files <= 8);
	for (i = 0; i < files; i++) {
		load_profile(piece("run", i, path, sizeof(path)), &p);
		assert_int_equal(meta_int(&p, "rotate_index"), i);
		assert_int_equal(meta_int(&p, "rotate_last"), i == files - 1);
		assert_int_equal(meta_int(&p, "rotate_interval_ns"), 500000000);
		assert_int_equal(meta_int(&p, "rotate_files_deleted"), 0);
		assert_true(meta_int(&p, "rotate_start_ns") < meta_int(&p, "rotate_end_ns"));
		if (prev_end >= 0)
			assert_int_equal(meta_int(&p, "rotate_start_ns"), prev_end);
		prev_end = meta_int(&p, "rotate_end_ns");
		ticks_seen += count_of(&p, "tick");
		outers += count_of(&p, "outer");
		if (count_of(&p, "outer"))
			outer_in = i;
		check_nesting(&p, count_of(&p, "outer") > 0);
		assert_int_equal(meta_int(&p, "lost_events"), 0);
		sb_profile_free(&p);
		assert_int_equal(run(rep), 0);
	}
	assert_int_equal(ticks_seen, ticks);
	assert_int_equal(outers, 1);
	assert_int_equal(outer_in, files - 1);
	check_merged("run", files, ticks);
}

/* --rotate-keep=2: only the two newest files stay; the summary and the metadata count the rest. */
static void test_keep_deletes_the_oldest(void **state)
{
	char path[300], text[4096];
	struct sb_profile p;
	int last, st;
	long ticks;

	(void)state;
	require_bpf();
	st = record_paced("kept", INTERVAL, "--rotate-keep=2", SECONDS, &ticks);
	assert_int_equal(st, 0);
	/* The newest two, counted from the first one left. */
	for (last = 0; access(piece("kept", last, path, sizeof(path)), F_OK) && last < 20; last++)
		;
	assert_int_equal(pieces("kept", last), 2);
	last++;
	print_message("--rotate-keep=2: files %d and %d kept\n", last - 1, last);
	assert_true(last >= 3);
	load_profile(piece("kept", last, path, sizeof(path)), &p);
	assert_int_equal(meta_int(&p, "rotate_index"), last);
	assert_int_equal(meta_int(&p, "rotate_keep"), 2);
	assert_int_equal(meta_int(&p, "rotate_files_deleted"), last - 1);
	assert_int_equal(meta_int(&p, "rotate_oldest_kept"), last - 1);
	assert_int_equal(count_of(&p, "outer"), 1);
	sb_profile_free(&p);
	read_stderr(text, sizeof(text));
	snprintf(path, sizeof(path), "%d oldest deleted to keep the newest 2", last - 1);
	if (!strstr(text, path))
		fail_msg("the summary does not say '%s':\n%s", path, text);
}

/*
 * --rotate-size=1M: a new file once the calls take 1 MiB as the recorder holds
 * them (56 bytes each), none dropped; a file passes it by one read of the rings
 * at most (paced makes 100 calls each 10 ms).
 */
static void test_size_cuts_files_of_bounded_calls(void **state)
{
	char path[300];
	int64_t seen = 0, cap = (1 << 20) / 56;
	struct sb_profile p;
	int files, i;
	long ticks;

	(void)state;
	require_bpf();
	assert_int_equal(record_paced("sized", "--rotate-size=1M", NULL, "4.5", &ticks), 0);
	files = pieces("sized", 0);
	print_message("paced 4.5 s, %ld ticks: %d files of at most %lld calls\n", ticks, files,
		      (long long)cap);
	assert_true(files >= 2);
	for (i = 0; i < files; i++) {
		load_profile(piece("sized", i, path, sizeof(path)), &p);
		assert_int_equal(meta_int(&p, "rotate_max_calls"), cap);
		assert_int_equal(meta_int(&p, "rotate_interval_ns"), 0);
		assert_int_equal(meta_int(&p, "calls_over_max_size"), 0);
		assert_true((int64_t)p.n_events < cap + 5000);
		if (i < files - 1)
			assert_true((int64_t)p.n_events >= cap);
		seen += (int64_t)p.n_events;
		sb_profile_free(&p);
	}
	assert_int_equal(seen, ticks + 1);
}

/* Without %n every file would have one name: refused before anything runs. */
static void test_rotate_needs_a_file_number(void **state)
{
	char out[300], text[4096];
	char *argv[] = { (char *)scope_bin(), "record", INTERVAL, "-o", out, "--", "/bin/true",
			 NULL };

	(void)state;
	tmp_file("one.h5", out, sizeof(out));
	assert_int_equal(run(argv), 2);
	read_stderr(text, sizeof(text));
	assert_non_null(strstr(text, "--rotate: -o"));
	assert_non_null(strstr(text, "has no %n in its file name"));
	assert_int_equal(access(out, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_file_is_a_whole_profile),
		cmocka_unit_test(test_keep_deletes_the_oldest),
		cmocka_unit_test(test_size_cuts_files_of_bounded_calls),
		cmocka_unit_test(test_rotate_needs_a_file_number),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
