/*
 * `export pstats` of a recorded MPI run, read by Python's pstats: every
 * function's calls, own and cumulative time are report's for its path.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "harness.h"
#include "unit/json_check.h"

static const char script[] =
	"import pstats, sys\n"
	"s = pstats.Stats(sys.argv[1])\n"
	"print('total', s.total_calls)\n"
	"for (f, l, n), (cc, nc, tt, ct, callers) in s.stats.items():\n"
	"    print(n, nc, round(tt * 1e9), round(ct * 1e9))\n";

/* Whether python3 is there; under CI=true a missing python3 fails instead of skipping. */
static void require_python(void)
{
	if (in_path("python3"))
		return;
	if (!strcmp(env_or("CI", ""), "true"))
		fail_msg("python3 not found and CI=true forbids skipping");
	fprintf(stderr, "skipping: python3 not found\n");
	skip();
}

static char *read_all(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = strdup("");
	}
	fclose(f);
	return text;
}

/* The line python printed for function name: its calls, own and cumulative ns. */
static void python_row(const char *out, const char *name, int64_t v[3])
{
	char want[300];
	const char *at;

	snprintf(want, sizeof(want), "\n%s ", name);
	at = strstr(out, want);
	if (!at || sscanf(at + strlen(want), "%" SCNd64 " %" SCNd64 " %" SCNd64, &v[0], &v[1],
			  &v[2]) != 3)
		fail_msg("pstats has no function %s:\n%s", name, out);
}

static void test_pstats_matches_report(void **state)
{
	char h5[300], prof[300], rep[300], py[300], out[300], app[512], cmd[1400], total[64];
	char *rec[] = { (char *)scope_bin(), "record", "-q", "-o", h5, "--",
			(char *)mpiexec_mpich(), "-n", "2",
			(char *)app_path("mpi_scaling", app, sizeof(app)), NULL };
	char *report[] = { (char *)scope_bin(), "report", "-f", "json", "-o", rep, h5, NULL };
	char *export[] = { (char *)scope_bin(), "export", "pstats", "-o", prof, h5, NULL };
	const struct jv *rows, *path;
	char *text, *json;
	int64_t v[3];
	struct jv j;
	size_t i;
	FILE *f;

	(void)state;
	require_bpf();
	require_python();
	tmp_file("run.h5", h5, sizeof(h5));
	tmp_file("run.prof", prof, sizeof(prof));
	tmp_file("report.json", rep, sizeof(rep));
	assert_int_equal(run(rec), 0);
	assert_int_equal(run(report), 0);
	assert_int_equal(run(export), 0);
	f = fopen(tmp_file("check.py", py, sizeof(py)), "w");
	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' > '%s'", py, prof,
		 tmp_file("out.txt", out, sizeof(out)));
	assert_int_equal(system(cmd), 0);
	text = read_all(out);
	fprintf(stderr, "%s", text);
	json = read_all(rep);
	json_parse(json, &j);
	/* Every region name is on one path here: pstats names each function by it. */
	rows = jneed(&j, "rows", J_ARR);
	assert_true(rows->n >= 5);
	for (i = 0; i < rows->n; i++) {
		path = jneed(&rows->items[i], "path", J_ARR);
		python_row(text, path->items[path->n - 1].str, v);
		assert_int_equal(v[0], jint(&rows->items[i], "calls"));
		assert_true(llabs(v[1] - jint(&rows->items[i], "own_ns")) <= 1);
		assert_true(llabs(v[2] - jint(&rows->items[i], "total_ns")) <= 1);
	}
	snprintf(total, sizeof(total), "total %" PRId64 "\n",
		 jint(jneed(&j, "header", J_OBJ), "calls"));
	if (strncmp(text, total, strlen(total)))
		fail_msg("pstats counts other calls than report (%s):\n%s", total, text);
	jv_free(&j);
	free(json);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pstats_matches_report, setup_tmp, teardown_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
