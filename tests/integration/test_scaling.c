/*
 * `scope-bpf scaling` on recorded MPI runs of tests/apps/mpi_scaling at 1, 2
 * and 4 ranks: its work sleeps, so the speedups hold on a busy 2-CPU machine.
 */
#include <math.h>

#include "harness.h"
#include "unit/json_check.h"

/* Within this of the ideal: sleeps overrun, and four ranks share two CPUs. */
#define SPEEDUP_SLACK 0.3

/* record -q -o tmp/NAME -- mpiexec.mpich -n N mpi_scaling [weak]; OUT gets the path. */
static void record_run(const char *name, const char *n, bool weak, char *out, size_t size)
{
	char app[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o", out, "--",
			 (char *)mpiexec_mpich(), "-n", (char *)n,
			 (char *)app_path("mpi_scaling", app, sizeof(app)), weak ? "weak" : NULL,
			 NULL };

	tmp_file(name, out, size);
	assert_int_equal(run(argv), 0);
}

static char r1[300], r2[300], r4[300];

/* The three strong-scaling runs, recorded once for every test here. */
static int record_runs(void **state)
{
	if (setup_tmp(state))
		return -1;
	if (geteuid() != 0)
		return 0;
	record_run("r1.h5", "1", false, r1, sizeof(r1));
	record_run("r2.h5", "2", false, r2, sizeof(r2));
	record_run("r4.h5", "4", false, r4, sizeof(r4));
	return 0;
}

/* scaling ARGS... -o tmp/out; returns the exit status, the output in *text (caller frees). */
static int scaling(char **text, const char *out, char *a, char *b, char *c, char *d, char *e)
{
	char path[300];
	char *argv[] = { (char *)scope_bin(), "scaling", "-o",
			 (char *)tmp_file(out, path, sizeof(path)), a, b, c, d, e, NULL };
	char *buf = NULL;
	size_t len = 0;
	int status;
	FILE *f;

	status = run(argv);
	f = fopen(path, "r");
	if (f && getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	*text = buf ? buf : strdup("");
	return status;
}

static const struct jv *region(const struct jv *regions, const char *a, const char *b)
{
	const struct jv *path;
	size_t i;

	for (i = 0; i < regions->n; i++) {
		path = jneed(&regions->items[i], "path", J_ARR);
		if (path->n == (b ? 2u : 1u) && !strcmp(path->items[0].str, a) &&
		    (!b || !strcmp(path->items[1].str, b)))
			return &regions->items[i];
	}
	fail_msg("no region %s;%s", a, b ? b : "");
	return NULL;
}

static double num(const struct jv *regions, const char *a, const char *b, size_t run,
		  const char *key)
{
	const struct jv *v = jneed(jneed(region(regions, a, b), "runs", J_ARR)->items + run, key,
				   J_NUM);

	fprintf(stderr, "  %s;%s run %zu %s = %.3f\n", a, b ? b : "", run, key, v->num);
	return v->num;
}

static void test_strong_scaling_of_recorded_mpi_runs(void **state)
{
	const struct jv *runs, *regions, *lost;
	char *text;
	struct jv v;

	(void)state;
	require_bpf();
	/* Given out of order: the runs are ordered by their rank counts. */
	assert_int_equal(scaling(&text, "s.json", "-f", "json", r4, r1, r2), 0);
	json_parse(text, &v);
	assert_string_equal(jstr(&v, "program"), "mpi_scaling");
	assert_string_equal(jstr(&v, "unit"), "ranks");
	runs = jneed(&v, "runs", J_ARR);
	assert_int_equal(runs->n, 3);
	assert_int_equal(jint(&runs->items[0], "n"), 1);
	assert_int_equal(jint(&runs->items[1], "n"), 2);
	assert_int_equal(jint(&runs->items[2], "n"), 4);
	regions = jneed(&v, "regions", J_ARR);
	/* compute: 800 ms of sleep split over the ranks. */
	assert_true(fabs(num(regions, "step", "compute", 1, "speedup") - 2) < 2 * SPEEDUP_SLACK);
	assert_true(fabs(num(regions, "step", "compute", 2, "speedup") - 4) < 4 * SPEEDUP_SLACK);
	assert_true(num(regions, "step", "compute", 2, "imbalance") < 1.3);
	/* serial_io: rank 0 only, the same time at every count: max / mean is the rank count. */
	assert_true(fabs(num(regions, "step", "serial_io", 2, "imbalance") - 4) < 1e-6);
	assert_true(fabs(num(regions, "step", "serial_io", 2, "speedup") - 1) < 0.5);
	/* exchange is a barrier: all of it MPI, and it grows as the ranks wait for rank 0. */
	assert_true(num(regions, "step", "exchange", 2, "mpi_share") > 0.95);
	lost = jneed(&v, "lost", J_ARR);
	assert_true(lost->n >= 1);
	jv_free(&v);
	free(text);
}

static void test_text_fits_80_columns(void **state)
{
	char *text, *line, *save = NULL;

	(void)state;
	require_bpf();
	assert_int_equal(scaling(&text, "s.txt", r1, r2, r4, NULL, NULL), 0);
	if (!strstr(text, "    compute\n") || !strstr(text, "where efficiency is lost"))
		fail_msg("unexpected text:\n%s", text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strlen(line) > 80)
			fail_msg("line over 80 columns: %s", line);
	free(text);
}

/* The page's structure: three plots, a point per run on speedup and efficiency, no fetches. */
static void test_html_page(void **state)
{
	char path[300], *text, *at;
	char *argv[] = { (char *)scope_bin(), "scaling", "--html",
			 (char *)tmp_file("s.html", path, sizeof(path)), r1, r2, r4, NULL };
	size_t points = 0, len = 0;
	FILE *f;

	(void)state;
	require_bpf();
	/* The page goes to its own file: not with -o too. */
	assert_int_equal(scaling(&text, "unused", "--html", path, r1, r2, r4), 2);
	free(text);
	assert_int_equal(run(argv), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	text = NULL;
	assert_true(getdelim(&text, &len, '\0', f) > 0);
	fclose(f);
	for (at = text; (at = strstr(at, "class=\"point\"")); at++)
		points++;
	assert_int_equal(points, 6);
	assert_non_null(strstr(text, "<svg id=\"times\""));
	assert_non_null(strstr(text, "mpi_scaling</h1>"));
	assert_null(strstr(text, "src="));
	free(text);
}

static void test_weak_scaling(void **state)
{
	char w1[300], w2[300], *text;
	const struct jv *regions;
	struct jv v;

	(void)state;
	require_bpf();
	record_run("w1.h5", "1", true, w1, sizeof(w1));
	record_run("w2.h5", "2", true, w2, sizeof(w2));
	assert_int_equal(scaling(&text, "w.json", "--weak", "-f", "json", w1, w2), 0);
	json_parse(text, &v);
	assert_string_equal(jstr(&v, "scaling"), "weak");
	regions = jneed(&v, "regions", J_ARR);
	/* The same 100 ms per step on each rank: efficiency 1, scaled speedup 2. */
	assert_true(fabs(num(regions, "step", "compute", 1, "efficiency") - 1) < SPEEDUP_SLACK);
	assert_true(fabs(num(regions, "step", "compute", 1, "speedup") - 2) < 2 * SPEEDUP_SLACK);
	jv_free(&v);
	free(text);
}

/* Bad input: exit 2, and stderr names the file and the cause. */
static void expect_bad(const char *file, const char *cause, char *a, char *b)
{
	char err[1024], *text;

	assert_int_equal(scaling(&text, "bad.txt", a, b, NULL, NULL, NULL), 2);
	free(text);
	read_stderr(err, sizeof(err));
	if (!strstr(err, file) || !strstr(err, cause))
		fail_msg("stderr lacks '%s' and '%s':\n%s", file, cause, err);
}

/* A run of another program, mpi_ranks, at 2 ranks. */
static void record_other(char *out, size_t size)
{
	char app[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o",
			 (char *)tmp_file("other.h5", out, size), "--", (char *)mpiexec_mpich(),
			 "-n", "2", (char *)app_path("mpi_ranks", app, sizeof(app)), NULL };

	assert_int_equal(run(argv), 0);
}

static void test_bad_input_is_refused(void **state)
{
	char other[300], junk[300];
	FILE *f;

	(void)state;
	require_bpf();
	expect_bad(r2, "2 ranks, as", r2, r2);
	expect_bad(r1, "two runs or more", r1, NULL);
	f = fopen(tmp_file("junk.h5", junk, sizeof(junk)), "w");
	assert_non_null(f);
	fputs("no profile\n", f);
	fclose(f);
	expect_bad(junk, "unknown format", r1, junk);
	record_other(other, sizeof(other));
	expect_bad(other, "a run of 'mpi_ranks', not of 'mpi_scaling'", r1, other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strong_scaling_of_recorded_mpi_runs),
		cmocka_unit_test(test_text_fits_80_columns),
		cmocka_unit_test(test_html_page),
		cmocka_unit_test(test_weak_scaling),
		cmocka_unit_test(test_bad_input_is_refused),
	};

	return cmocka_run_group_tests(tests, record_runs, teardown_tmp);
}
