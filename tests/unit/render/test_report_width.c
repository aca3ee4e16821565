/* Unit tests of the 80-column text of `report`: what it leaves out, cuts, and what --wide keeps. */
#include "fixtures.h"

#include "analysis/calltree.h"
#include "render/report.h"

#define DEPTH 12

/* The longest line of text in columns (UTF-8 continuation bytes take none). */
static size_t widest_line(const char *text)
{
	size_t w = 0, max = 0;

	for (; *text; text++) {
		if (*text == '\n') {
			w = 0;
			continue;
		}
		if (((unsigned char)*text & 0xc0) != 0x80 && ++w > max)
			max = w;
	}
	return max;
}

static char names[DEPTH][64];

#define LONG_NAME "solver::level_%02d::smooth_with_gauss_seidel"

/* DEPTH regions, each called once inside the one before, named by name_fmt and the depth. */
static void build_deep(struct sb_profile *p, unsigned columns, const char *name_fmt)
{
	struct fx_call calls[DEPTH];
	int64_t d;

	for (d = 0; d < DEPTH; d++) {
		snprintf(names[d], sizeof(names[d]), name_fmt, (int)d);
		calls[d] = (struct fx_call){ names[d], 10 * d, 100000 - 10 * d, d + 1, d ? d : -1,
					     d };
	}
	fx_call_tree(p, calls, DEPTH, columns);
}

static char *render(const struct sb_profile *p, bool flat, bool wide)
{
	struct sb_ct_opts co = { .flat = flat, .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct report_opts o = { .path = "deep.h5", .rank = -1, .flat = flat, .wide = wide };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(sb_calltree_build(&t, p, &co, &err), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_report_render(f, p, &t, &o), 0);
	assert_int_equal(fclose(f), 0);
	sb_calltree_free(&t);
	return out;
}

static void test_deep_tree_of_long_names_fits_80_columns(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build_deep(&p, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU,
		   LONG_NAME);
	out = render(&p, false, false);
	if (widest_line(out) > 80)
		fail_msg("a line over 80 columns:\n%s", out);
	/* min and max go first; the tree is still drawn, names keep both ends. */
	expect_has(out, "calls    total      avg    %rec      own  off-CPU  region\n");
	expect_has(out, "  0 ns  solver::level..._gauss_seidel\n");
	expect_has(out, "  1 ns  └─ solver::leve...auss_seidel\n");
	expect_has(out, "  4 ns           └─ solver:..._seidel\n");
	/* Past the depth the indent can take, the depth stands for it. */
	expect_has(out, "  5 ns  ┄ [depth 6] solver:..._seidel\n");
	expect_has(out, "  ┄ [depth 12] solver:...seidel\n");
	free(out);
	out = render(&p, false, true);
	assert_true(widest_line(out) > 80);
	expect_has(out, "└─ solver::level_11::smooth_with_gauss_seidel\n");
	expect_has(out, "     min      max");
	free(out);
	sb_profile_free(&p);
}

/* A table that fits keeps every column: short names change nothing. */
static void test_flat_table_that_fits_is_whole(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build_deep(&p, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID, "step_%02d");
	out = render(&p, true, false);
	assert_true(widest_line(out) <= 80);
	expect_has(out, "     min      max");
	expect_has(out, "  step_11\n");
	free(out);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deep_tree_of_long_names_fits_80_columns),
		cmocka_unit_test(test_flat_table_that_fits_is_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
