/* The text call tree of a very deep recursion stays linear in size: the indent stops growing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/calltree.h"
#include "render/report.h"
#include "fixtures.h"

#define DEPTH 3000

static void test_deep_recursion_prints_linear_text(void **state)
{
	struct report_opts o = { .path = "x", .rank = -1, .format = SB_REPORT_TEXT };
	struct sb_ct_opts ct = { .rank = -1 };
	struct sb_error err = { { 0 } };
	struct fx_call *calls = calloc(DEPTH, sizeof(*calls));
	struct sb_calltree t;
	struct sb_profile p;
	char *buf = NULL, *last;
	size_t len = 0, i;
	FILE *m;

	(void)state;
	assert_non_null(calls);
	for (i = 0; i < DEPTH; i++)
		calls[i] = (struct fx_call){ "r", (int64_t)i, 2 * DEPTH - (int64_t)i, (int64_t)i,
					     (int64_t)i - 1, 0 };
	fx_call_tree(&p, calls, DEPTH, 0);
	assert_int_equal(sb_calltree_build(&t, &p, &ct, &err), 0);
	m = open_memstream(&buf, &len);
	assert_int_equal(sb_report_render(m, &p, &t, &o), 0);
	fclose(m);
	/* Drawn in full, the last line alone would hold 3 x 3000 indent bytes. */
	assert_true(len < (size_t)DEPTH * 200);
	last = strstr(buf, "[depth 3000]");
	assert_non_null(last);
	assert_non_null(strstr(buf, "[depth 32]"));
	free(buf);
	sb_calltree_free(&t);
	sb_profile_free(&p);
	free(calls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deep_recursion_prints_linear_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
