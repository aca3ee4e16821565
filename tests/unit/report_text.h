/* The unit tests' one way to render a profile's call-tree report into a string. */
#ifndef SB_TEST_REPORT_TEXT_H
#define SB_TEST_REPORT_TEXT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "analysis/calltree.h"
#include "render/report.h"

/* The report of p built with co and written with o; malloc'd, the caller frees it. */
static inline char *report_text(const struct sb_profile *p, const struct sb_ct_opts *co,
				const struct report_opts *o)
{
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(sb_calltree_build(&t, p, co, &err), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_report_render(f, p, &t, o), 0);
	assert_int_equal(fclose(f), 0);
	sb_calltree_free(&t);
	return out;
}

#endif
