/*
 * The kinds of data as the stages that handle any kind read them: every id
 * points into a table that exists, dictionaries are what a merge can unify,
 * region paths can be filtered, and every kind has its view in the page, in
 * the Perfetto trace and in `report` (and at most one in the Chrome trace, in
 * speedscope's file, where samples have theirs, and in OTF2's archive, where
 * CUDA activity has its). A kind added with a slip
 * fails here, not in a merge.
 */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "export/chrome_trace.h"
#ifdef SB_HAVE_OTF2
#include "export/otf2_impl.h"
#endif
#include "export/perfetto.h"
#include "export/speedscope_kinds.h"
#include "model/model.h"
#include "model/table.h"
#include "render/html.h"
#include "render/report_views.h"

static size_t str_cols(const struct sb_table *t)
{
	size_t c, n = 0;

	for (c = 0; c < t->n_cols; c++)
		n += t->cols[c].type == SB_COL_STR;
	return n;
}

/* An ID or REGION column's table: one of the kind's, or (REGION only) the index rows. */
static void assert_ref(const struct sb_kind *k, const struct sb_table_col *c)
{
	const struct sb_table *to;

	if (c->role != SB_ROLE_ID && c->role != SB_ROLE_REGION)
		return;
	assert_int_equal(c->width, 1);
	assert_true(c->type != SB_COL_STR && c->type != SB_COL_BOOL);
	if (c->ref == SB_REF_INDEX_ROWS) {
		assert_int_equal(c->role, SB_ROLE_REGION);
		return;
	}
	assert_true(c->ref >= 0 && (size_t)c->ref < k->n_tables);
	to = &k->tables[c->ref];
	/* A region path table: its parent ids and its names, which --include matches. */
	if (c->role == SB_ROLE_REGION) {
		assert_int_equal(str_cols(to), 1);
		assert_non_null(sb_table_role(to, SB_ROLE_ID));
		assert_int_equal(sb_table_role(to, SB_ROLE_ID)->ref, c->ref);
	}
}

static void test_ids_point_into_tables_that_exist(void **state)
{
	const struct sb_table *t;
	size_t k, j, c;

	(void)state;
	assert_true(sb_n_kinds >= 2);
	for (k = 0; k < sb_n_kinds; k++)
		for (j = 0; j < sb_kinds[k]->n_tables; j++) {
			t = &sb_kinds[k]->tables[j];
			for (c = 0; c < t->n_cols; c++)
				assert_ref(sb_kinds[k], &t->cols[c]);
		}
}

/* A merge unifies a dictionary's rows by their one string: nothing else may be in them. */
static void test_dictionaries_are_one_string_column(void **state)
{
	const struct sb_table *t;
	size_t k, j, dicts = 0;

	(void)state;
	for (k = 0; k < sb_n_kinds; k++)
		for (j = 0; j < sb_kinds[k]->n_tables; j++) {
			t = &sb_kinds[k]->tables[j];
			if (!t->unique)
				continue;
			dicts++;
			assert_int_equal(t->n_cols, 1);
			assert_int_equal(t->cols[0].type, SB_COL_STR);
			assert_int_equal(t->stride, sizeof(char *));
			assert_null(t->follows_call);
		}
	/* The kernel names. */
	assert_int_equal(dicts, 1);
}

/* Only a table whose rows point at index rows can follow their calls. */
static void test_rows_follow_calls_only_through_index_rows(void **state)
{
	const struct sb_table *t;
	size_t k, j, c, follow = 0;
	bool points;

	(void)state;
	for (k = 0; k < sb_n_kinds; k++)
		for (j = 0; j < sb_kinds[k]->n_tables; j++) {
			t = &sb_kinds[k]->tables[j];
			points = false;
			for (c = 0; c < t->n_cols; c++)
				points |= t->cols[c].role == SB_ROLE_REGION &&
					  t->cols[c].ref == SB_REF_INDEX_ROWS;
			if (t->follows_call) {
				assert_true(points);
				follow++;
			}
		}
	/* CUDA activity: its GPU work. */
	assert_int_equal(follow, 1);
}

static void test_every_kind_has_one_view_in_each_output(void **state)
{
	size_t k, v, html, pf;

	(void)state;
	for (k = 0; k < sb_n_kinds; k++) {
		html = pf = 0;
		for (v = 0; v < sb_html_n_kind_views; v++)
			html += sb_html_kind_views[v].kind == sb_kinds[k];
		for (v = 0; v < pf_n_kind_views; v++)
			pf += pf_kind_views[v].kind == sb_kinds[k];
		assert_int_equal(html, 1);
		assert_int_equal(pf, 1);
	}
	assert_int_equal(sb_html_n_kind_views, sb_n_kinds);
	assert_int_equal(pf_n_kind_views, sb_n_kinds);
}

/* The Chrome trace draws calls: a kind may have no view there, but at most one. */
static void test_chrome_views_are_of_registered_kinds(void **state)
{
	size_t k, v, views;

	(void)state;
	for (v = 0; v < sb_trace_n_kind_views; v++) {
		views = 0;
		for (k = 0; k < sb_n_kinds; k++)
			views += sb_trace_kind_views[v]->kind == sb_kinds[k];
		assert_int_equal(views, 1);
		for (k = 0; k < v; k++)
			assert_ptr_not_equal(sb_trace_kind_views[k]->kind,
					     sb_trace_kind_views[v]->kind);
	}
	assert_int_equal(sb_trace_n_kind_views, 1);
}

/*
 * speedscope's file draws one timeline a thread: a kind may have no view
 * there, but at most one, and the sampled stacks have theirs (their sampled
 * profiles would be gone without it).
 */
static void test_speedscope_views_are_of_registered_kinds(void **state)
{
	size_t k, v, views, samples = 0;

	(void)state;
	for (v = 0; v < sb_ss_n_kind_views; v++) {
		views = 0;
		for (k = 0; k < sb_n_kinds; k++)
			views += sb_ss_kind_views[v]->kind == sb_kinds[k];
		assert_int_equal(views, 1);
		for (k = 0; k < v; k++)
			assert_ptr_not_equal(sb_ss_kind_views[k]->kind, sb_ss_kind_views[v]->kind);
		samples += sb_ss_kind_views[v]->kind == &sb_samples_kind;
		assert_non_null(sb_ss_kind_views[v]->profiles);
	}
	assert_int_equal(samples, 1);
}

/*
 * The OTF2 archive: a kind may have no part there, but at most one, and CUDA
 * activity has its own (its GPU locations would be gone without it).
 */
static void test_otf2_parts_are_of_registered_kinds(void **state)
{
#ifdef SB_HAVE_OTF2
	size_t k, v, parts, cuda = 0;

	(void)state;
	for (v = 0; v < sb_otf2_n_kinds; v++) {
		parts = 0;
		for (k = 0; k < sb_n_kinds; k++)
			parts += sb_otf2_kinds[v]->kind == sb_kinds[k];
		assert_int_equal(parts, 1);
		for (k = 0; k < v; k++)
			assert_ptr_not_equal(sb_otf2_kinds[k]->kind, sb_otf2_kinds[v]->kind);
		assert_non_null(sb_otf2_kinds[v]->map);
		cuda += sb_otf2_kinds[v]->kind == &sb_cuda_kind;
	}
	assert_int_equal(cuda, 1);
#else
	(void)state;
	skip();
#endif
}

/*
 * `report`'s views: each table kind has one, and so have the kinds not yet
 * described as tables (their option names below); each is whole, its option
 * its own, and the command takes it.
 */
static void test_every_kind_has_one_report_view(void **state)
{
	static const char *const not_tables[] = { "mpi", "counters", "memory" };
	const struct sb_report_view *v;
	struct sb_error err = { .msg = "" };
	struct report_opts o;
	char opt[64], *argv[] = { "report", opt, "p.h5" };
	size_t k, i, j, views;

	(void)state;
	assert_true(sb_report_n_views <= SB_REPORT_MAX_VIEWS);
	for (k = 0; k < sb_n_kinds; k++) {
		views = 0;
		for (i = 0; i < sb_report_n_views; i++)
			views += sb_report_views[i]->kind == sb_kinds[k];
		assert_int_equal(views, 1);
	}
	for (j = 0; j < sizeof(not_tables) / sizeof(not_tables[0]); j++) {
		views = 0;
		for (i = 0; i < sb_report_n_views; i++)
			views += !strcmp(sb_report_views[i]->option, not_tables[j]);
		assert_int_equal(views, 1);
	}
	for (i = 0; i < sb_report_n_views; i++) {
		v = sb_report_views[i];
		assert_non_null(v->option);
		assert_non_null(v->help);
		assert_non_null(v->html_note);
		assert_non_null(v->require);
		assert_non_null(v->render);
		assert_true(v->has_arg == no_argument || v->parse);
		assert_true(!v->build == !v->release);
		for (j = 0; j < i; j++)
			assert_string_not_equal(sb_report_views[j]->option, v->option);
		snprintf(opt, sizeof(opt), "--%s", v->option);
		assert_non_null(strstr(v->help, opt));
		assert_int_equal(report_parse_args(3, argv, &o, &err), 0);
		assert_ptr_equal(o.view, v);
		sb_filter_free(&o.filter);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_point_into_tables_that_exist),
		cmocka_unit_test(test_dictionaries_are_one_string_column),
		cmocka_unit_test(test_rows_follow_calls_only_through_index_rows),
		cmocka_unit_test(test_every_kind_has_one_view_in_each_output),
		cmocka_unit_test(test_chrome_views_are_of_registered_kinds),
		cmocka_unit_test(test_speedscope_views_are_of_registered_kinds),
		cmocka_unit_test(test_every_kind_has_one_report_view),
		cmocka_unit_test(test_otf2_parts_are_of_registered_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
