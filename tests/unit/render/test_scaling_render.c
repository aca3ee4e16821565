/* Unit tests of `scope-bpf scaling`'s output (text, JSON, CSV, HTML) and of the command. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/scaling.h"
#include "cmd/commands.h"
#include "render/scaling.h"
#include "util/text_format.h"
#include "fixtures.h"
#include "json_check.h"
#include "scaling_fixture.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define MS 1000000LL

/* Runs at 1, 2 and 4 ranks of even work with a growing barrier; a region name that needs escaping. */
static void build_study(struct sb_scaling *s, struct sb_profile *p, bool long_name)
{
	static const char *const names[] = { "r1.h5", "r2.h5", "r4.h5" };
	struct sb_scaling_input in[3];
	struct sb_error err = { .msg = "" };
	static const uint32_t ranks[] = { 1, 2, 4 };
	size_t i;

	for (i = 0; i < 3; i++) {
		sc_even(&p[i], ranks[i], 800 * MS, 10 * MS * ranks[i]);
		if (long_name)
			sc_call(&p[i], "<io> & a region name far too long for eighty columns of text",
				0, 900 * MS, 901 * MS, -1);
		in[i] = (struct sb_scaling_input){ .path = names[i], .p = &p[i] };
	}
	if (sb_scaling_build(s, in, 3, false, &err))
		fail_msg("%s", err.msg);
}

static void free_study(struct sb_scaling *s, struct sb_profile *p)
{
	size_t i;

	sb_scaling_free(s);
	for (i = 0; i < 3; i++)
		sb_profile_free(&p[i]);
}

/* What render writes, NUL-terminated; the caller frees it. */
static char *render(const struct sb_scaling *s, enum sb_report_format fmt, bool wide)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(sb_scaling_render(f, s, fmt, wide), 0);
	fclose(f);
	return buf;
}

static size_t widest_line(const char *text)
{
	size_t w = 0, n;
	char *copy = strdup(text), *line, *save = NULL;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		n = format_width(line);
		w = n > w ? n : w;
	}
	free(copy);
	return w;
}

static void test_text_fits_80_columns_and_wide_does_not_cut(void **state)
{
	struct sb_profile p[3];
	struct sb_scaling s;
	char *out;

	(void)state;
	build_study(&s, p, true);
	out = render(&s, SB_REPORT_TEXT, false);
	assert_true(widest_line(out) <= 80);
	expect_has(out, "scaling  strong, 3 runs of solver, against 1 rank\n");
	expect_has(out, "  ranks        time  speedup     eff  file\n");
	/* work: 800, 400, 200 ms; at 4 ranks speedup 4, efficiency 100%. */
	expect_has(out, " 1 rank  2 ranks  4 ranks  speedup@4   eff@4  region\n");
	expect_has(out, " 800 ms   400 ms   200 ms       4.00  100.0%    work\n");
	expect_has(out, "where efficiency is lost: regions whose share of the run grew from 1 to "
			"4 ranks\n");
	expect_has(out, "solve;mpi:barrier\n");
	expect_has(out, "...");
	free(out);
	out = render(&s, SB_REPORT_TEXT, true);
	expect_has(out, "speedup@2   eff@2  speedup@4   eff@4  region\n");
	expect_has(out, "<io> & a region name far too long for eighty columns of text\n");
	expect_has(out, "share@1  share@2  share@4  imbal@1  imbal@2  imbal@4");
	free(out);
	free_study(&s, p);
}

static const struct jv *region_named(const struct jv *regions, const char *leaf)
{
	const struct jv *path;
	size_t i;

	for (i = 0; i < regions->n; i++) {
		path = jneed(&regions->items[i], "path", J_ARR);
		if (!strcmp(path->items[path->n - 1].str, leaf))
			return &regions->items[i];
	}
	fail_msg("no region %s", leaf);
	return NULL;
}

static void test_json_holds_every_run_and_region(void **state)
{
	const struct jv *runs, *regions, *work, *cells;
	struct sb_profile p[3];
	struct sb_scaling s;
	struct jv v;
	char *out;

	(void)state;
	build_study(&s, p, false);
	out = render(&s, SB_REPORT_JSON, false);
	json_parse(out, &v);
	assert_string_equal(jstr(&v, "scaling"), "strong");
	assert_string_equal(jstr(&v, "unit"), "ranks");
	assert_string_equal(jstr(&v, "program"), "solver");
	runs = jneed(&v, "runs", J_ARR);
	assert_int_equal(runs->n, 3);
	assert_int_equal(jint(&runs->items[2], "n"), 4);
	assert_string_equal(jstr(&runs->items[2], "file"), "r4.h5");
	regions = jneed(&v, "regions", J_ARR);
	assert_int_equal(regions->n, 3);
	work = region_named(regions, "work");
	assert_int_equal(jint(work, "depth"), 2);
	assert_string_equal(jneed(work, "path", J_ARR)->items[0].str, "solve");
	cells = jneed(work, "runs", J_ARR);
	assert_int_equal(jint(&cells->items[2], "max_ns"), 200 * MS);
	assert_true(fabs(jneed(&cells->items[2], "speedup", J_NUM)->num - 4) < 1e-6);
	assert_true(fabs(jneed(&cells->items[2], "imbalance", J_NUM)->num - 1) < 1e-6);
	/* No off-CPU column: unknown, not 0. */
	assert_int_equal(jget(&cells->items[2], "offcpu_share")->t, J_NULL);
	assert_true(jneed(&v, "lost", J_ARR)->n >= 1);
	jv_free(&v);
	free(out);
	free_study(&s, p);
}

static void test_csv_has_a_line_per_region_and_run(void **state)
{
	struct sb_profile p[3];
	struct sb_scaling s;
	size_t lines = 0;
	char *out, *c;

	(void)state;
	build_study(&s, p, false);
	out = render(&s, SB_REPORT_CSV, false);
	for (c = out; (c = strchr(c, '\n')); c++)
		lines++;
	assert_int_equal(lines, 1 + 3 * 3);
	expect_has(out, "path,depth,n,present,calls,max_ns,mean_ns,speedup,efficiency,imbalance,"
			"share,mpi_share,offcpu_share,share_growth\n");
	expect_has(out, "\nsolve;work,2,4,1,4,200000000,200000000,4.000000,1.000000,1.000000,");
	/* The barrier is MPI through and through. */
	expect_has(out, "\nsolve;mpi:barrier,2,4,1,4,40000000,40000000,");
	free(out);
	free_study(&s, p);
}

static void test_html_is_one_page_with_plots_and_escaped_names(void **state)
{
	struct sb_profile p[3];
	struct sb_scaling s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	build_study(&s, p, true);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(sb_scaling_html(f, &s), 0);
	fclose(f);
	expect_has(buf, "<svg id=\"speedup\"");
	expect_has(buf, "<svg id=\"efficiency\"");
	expect_has(buf, "<svg id=\"times\"");
	expect_has(buf, "<line class=\"ideal\"");
	expect_has(buf, "&lt;io&gt; &amp; a region name");
	assert_null(strstr(buf, "<io>"));
	/* Self-contained: nothing to fetch. */
	assert_null(strstr(buf, "src="));
	assert_null(strstr(buf, "href="));
	assert_null(strstr(buf, "@import"));
	free(buf);
	free_study(&s, p);
}

static void write_runs(void)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	static const uint32_t ranks[] = { 1, 2 };
	static const char *const names[] = { "r1.h5", "r2.h5" };
	size_t i;

	for (i = 0; i < 2; i++) {
		sc_even(&p, ranks[i], 800 * MS, MS);
		if (fx_write_h5(tmp_path(names[i]), &p, &err))
			fail_msg("%s", err.msg);
		sb_profile_free(&p);
	}
}

static void test_command_writes_json_and_refuses_bad_input(void **state)
{
	char *json[] = { "scaling", "-f", "json", "-o", NULL, NULL, NULL };
	char *one[] = { "scaling", NULL };
	char *dup[] = { "scaling", NULL, NULL };
	char *bad[] = { "scaling", NULL, NULL };
	char *out;
	FILE *f;

	(void)state;
	write_runs();
	json[4] = tmp_path("s.json");
	json[5] = tmp_path("r2.h5");
	json[6] = tmp_path("r1.h5");
	assert_int_equal(cmd_scaling(ARGC(json), json), 0);
	out = slurp(tmp_path("s.json"));
	assert_true(json_valid(out));
	expect_has(out, "\"speedup\": 2.0");
	free(out);
	one[1] = tmp_path("r1.h5");
	assert_int_equal(cmd_scaling(ARGC(one), one), 2);
	dup[1] = tmp_path("r1.h5");
	dup[2] = tmp_path("r1.h5");
	assert_int_equal(cmd_scaling(ARGC(dup), dup), 2);
	f = fopen(tmp_path("junk.h5"), "w");
	assert_non_null(f);
	fputs("not a profile\n", f);
	fclose(f);
	bad[1] = tmp_path("r1.h5");
	bad[2] = tmp_path("junk.h5");
	assert_int_equal(cmd_scaling(ARGC(bad), bad), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_fits_80_columns_and_wide_does_not_cut),
		cmocka_unit_test(test_json_holds_every_run_and_region),
		cmocka_unit_test(test_csv_has_a_line_per_region_and_run),
		cmocka_unit_test(test_html_is_one_page_with_plots_and_escaped_names),
		cmocka_unit_test(test_command_writes_json_and_refuses_bad_input),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
