/* Unit tests of hostile names in every text printer: report, inspect, diff, CSV; none reaches a terminal raw. */
#include "fixtures.h"
#include "inert_text.h"
#include "report_text.h"

#include "analysis/calltree.h"
#include "analysis/diff.h"
#include "cmd/diff.h"
#include "cmd/inspect.h"
#include "export/export.h"
#include "render/report.h"

/* main { HOSTILE GENTLE } on rank 0, HOSTILE's calls taking dur. */
static void build(struct sb_profile *p, int64_t dur)
{
	const struct fx_call calls[] = {
		{ "main", 0, 100, 0, -1, 0 },
		{ HOSTILE, 10, 10 + dur, 1, 0, 0 },
		{ GENTLE, 60, 90, 2, 0, 0 },
	};
	const struct sb_process proc = { .pid = 7, .ppid = 1, .rank = 0, .start_ns = 0,
					 .end_ns = 100, .exit_code = 0, .command = HOSTILE };

	fx_call_tree(p, calls, 3, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID);
	free(p->format);
	p->format = strdup(HOSTILE);
	free(p->threads[0].name);
	p->threads[0].name = strdup(HOSTILE);
	free(p->regions[1].source_file);
	p->regions[1].source_file = strdup(HOSTILE);
	free(p->regions[1].tags);
	p->regions[1].tags = strdup("[\"" HOSTILE "\"]");
	assert_non_null(p->format);
	assert_non_null(p->threads[0].name);
	assert_non_null(p->regions[1].source_file);
	assert_non_null(p->regions[1].tags);
	fx_add_processes(p, &proc, 1);
	assert_int_equal(sb_profile_set_str(p, "command", HOSTILE), 0);
	assert_int_equal(sb_profile_set_str(p, "regions_open_at_start", HOSTILE), 0);
	assert_int_equal(sb_profile_set_str(p, "sources_disabled", HOSTILE), 0);
	assert_int_equal(sb_profile_set_str(p, HOSTILE, HOSTILE), 0);
	assert_int_equal(sb_profile_set_int(p, "open_calls_dropped", 1), 0);
}

static char *report(const struct sb_profile *p, enum sb_report_format fmt, bool flat, bool wide)
{
	struct sb_ct_opts co = { .flat = flat, .rank = -1, .sort = SB_CT_SORT_START };
	struct report_opts o = { .path = HOSTILE, .rank = -1, .flat = flat, .wide = wide,
				 .format = fmt };

	return report_text(p, &co, &o);
}

static void test_report_text_shows_names_escaped_on_their_own_row(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, 40);
	out = report(&p, SB_REPORT_TEXT, false, true);
	expect_inert(out);
	expect_has(out, "file      " HOSTILE_SHOWN " (" HOSTILE_SHOWN ")\n");
	expect_has(out, "regions open at start: " HOSTILE_SHOWN "\n");
	expect_has(out, "(sources_disabled): " HOSTILE_SHOWN "\n");
	expect_has(out, "├─ " HOSTILE_SHOWN "\n");
	expect_has(out, "└─ " GENTLE "\n");
	free(out);
	/* Cut to 80 columns, and flat: still one row a name, still inert. */
	out = report(&p, SB_REPORT_TEXT, false, false);
	expect_inert(out);
	expect_has(out, "└─ " GENTLE "\n");
	free(out);
	out = report(&p, SB_REPORT_TEXT, true, true);
	expect_inert(out);
	expect_has(out, "  " HOSTILE_SHOWN "\n");
	free(out);
	sb_profile_free(&p);
}

static void test_report_csv_and_json_keep_one_row_a_call_path(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, 40);
	out = report(&p, SB_REPORT_CSV, false, false);
	expect_inert(out);
	assert_int_equal(count_lines(out), 1 + 3);
	expect_has(out, "\nmain;" HOSTILE_SHOWN ",2,");
	expect_has(out, "\nmain;" GENTLE ",2,");
	free(out);
	out = report(&p, SB_REPORT_JSON, false, false);
	expect_inert(out);
	expect_has(out, "\"a\\u001b[6n\\rb\\nc\\u0007d\\u007f\\ufffde\\u009bf\\ufffd\"");
	free(out);
	sb_profile_free(&p);
}

static char *inspect(const struct sb_profile *p)
{
	struct inspect_opts o = { .format = SB_REPORT_TEXT, .path = HOSTILE };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_inspect_render(f, p, &o), 0);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void test_inspect_escapes_metadata_threads_processes_and_sources(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, 40);
	out = inspect(&p);
	expect_inert(out);
	expect_has(out, "file               " HOSTILE_SHOWN "\n");
	expect_has(out, "format             " HOSTILE_SHOWN "\n");
	/* Key and value of the metadata; the argv of a genuine recording is text like any other. */
	expect_has(out, "\n  " HOSTILE_SHOWN "  " HOSTILE_SHOWN "\n");
	expect_has(out, "  7    " HOSTILE_SHOWN "\n");
	expect_has(out, "+100 ns     0  " HOSTILE_SHOWN "\n");
	expect_has(out, "alive    -  " HOSTILE_SHOWN "\n");
	expect_has(out, HOSTILE_SHOWN "  " HOSTILE_SHOWN "  [\"" HOSTILE_SHOWN "\"]");
	expect_has(out, GENTLE);
	free(out);
	sb_profile_free(&p);
}

static char *diff(const struct sb_diff *d, const struct sb_profile *a,
		  const struct sb_profile *b, bool wide)
{
	struct diff_opts o = { .metric = SB_DIFF_TOTAL, .max_regression = 10 * SB_DIFF_PCT_SCALE,
			       .format = SB_REPORT_TEXT, .wide = wide, .path_a = HOSTILE,
			       .path_b = "b.h5" };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_diff_render(f, d, a, b, &o), 0);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void test_diff_escapes_names_in_rows_and_regressions(void **state)
{
	struct sb_profile a, b;
	struct sb_diff d;
	char *out;

	(void)state;
	build(&a, 40);
	build(&b, 80);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_TOTAL, 10 * SB_DIFF_PCT_SCALE), 0);
	assert_int_equal(d.n_regressions, 1);
	out = diff(&d, &a, &b, true);
	expect_inert(out);
	expect_has(out, "A  " HOSTILE_SHOWN " (" HOSTILE_SHOWN ")\n");
	expect_has(out, "  " HOSTILE_SHOWN "\n");
	expect_has(out, "  " HOSTILE_SHOWN "  +100.0%");
	free(out);
	out = diff(&d, &a, &b, false);
	expect_inert(out);
	free(out);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_export_csv_escapes_and_keeps_its_quoting(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	build(&p, 40);
	/* A comma and a quote too: the field is quoted, the quote doubled, nothing else. */
	free(p.regions[2].name);
	p.regions[2].name = strdup("x,\"" HOSTILE);
	assert_non_null(p.regions[2].name);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_export_csv(f, &p, &err), 0);
	assert_int_equal(fclose(f), 0);
	expect_inert(out);
	/* The header, a summary row per region, a row per call. */
	assert_int_equal(count_lines(out), 1 + 3 + 3);
	expect_has(out, "\nregion,0,,," HOSTILE_SHOWN ",");
	expect_has(out, "\ncall,0,0,42," HOSTILE_SHOWN ",10,50,");
	expect_has(out, "\nregion,0,,,\"x,\"\"" HOSTILE_SHOWN "\",");
	expect_has(out, "," HOSTILE_SHOWN ",\n");
	free(out);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_text_shows_names_escaped_on_their_own_row),
		cmocka_unit_test(test_report_csv_and_json_keep_one_row_a_call_path),
		cmocka_unit_test(test_inspect_escapes_metadata_threads_processes_and_sources),
		cmocka_unit_test(test_diff_escapes_names_in_rows_and_regressions),
		cmocka_unit_test(test_export_csv_escapes_and_keeps_its_quoting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
