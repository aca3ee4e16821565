/* Unit tests of LIKWID formulas: numbers as LIKWID writes them, precedence, errors, NaN cases. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "counters/likwid_expr.h"

static char *names[] = { "FIXC0", "FIXC1", "PMC3:EDGEDETECT", "PMC1:MATCH0=0x0081", "MBOX0C1" };
static const double counts[] = { 1000, 3000, 20, 7, 0 };

/* names[0..4), MBOX0C1 listed but not counted */
static double eval(const char *text)
{
	struct sb_error err = { "" };
	struct sb_likwid_expr *e = sb_likwid_expr_compile(text, names, 5, 4, &err);
	double v;

	if (!e)
		fail_msg("%s: %s", text, err.msg);
	v = sb_likwid_expr_eval(e, counts, 0.5, 1e-9);
	sb_likwid_expr_free(e);
	return v;
}

static void expect_error(const char *text, const char *want)
{
	struct sb_error err = { "" };

	assert_null(sb_likwid_expr_compile(text, names, 5, 4, &err));
	if (!strstr(err.msg, want))
		fail_msg("'%s': got '%s', want '%s'", text, err.msg, want);
}

static void test_numbers_as_likwid_writes_them(void **state)
{
	(void)state;
	assert_float_equal(eval("1.E-06*FIXC0"), 1e-3, 1e-15);
	assert_float_equal(eval("1.0E-06*FIXC0"), 1e-3, 1e-15);
	assert_float_equal(eval("1E-6*FIXC0"), 1e-3, 1e-15);
	assert_float_equal(eval("64.0*2"), 128, 0);
	assert_float_equal(eval(".5"), 0.5, 0);
}

static void test_precedence_parentheses_and_sign(void **state)
{
	(void)state;
	assert_float_equal(eval("1+2*3"), 7, 0);
	assert_float_equal(eval("(1+2)*3"), 9, 0);
	assert_float_equal(eval("8/4/2"), 1, 0);		/* left to right */
	assert_float_equal(eval("10-4-3"), 3, 0);
	assert_float_equal(eval("-FIXC0+FIXC1"), 2000, 0);
	assert_float_equal(eval("2*-3"), -6, 0);
	assert_float_equal(eval("((FIXC1)-(FIXC0))/FIXC0"), 2, 0);
	assert_float_equal(eval(" FIXC1 / FIXC0 "), 3, 0);	/* spaces inside a formula */
}

static void test_time_and_inverse_clock(void **state)
{
	(void)state;
	assert_float_equal(eval("time"), 0.5, 0);
	assert_float_equal(eval("FIXC1*inverseClock"), 3e-6, 1e-18);
	/* Clock [MHz] as every Intel group writes it: 1e-6 * ratio * frequency */
	assert_float_equal(eval("1.E-06*(FIXC1/FIXC0)/inverseClock"), 3000, 1e-9);
}

static void test_counter_names_with_options(void **state)
{
	(void)state;
	assert_float_equal(eval("FIXC1/PMC3:EDGEDETECT"), 150, 0);
	/* the EVENTSET's options may be left out where the formula names the counter */
	assert_float_equal(eval("PMC1+PMC1:MATCH0=0x0081"), 14, 0);
}

static void test_division_by_zero_and_uncounted_counters_are_nan(void **state)
{
	struct sb_error err = { "" };
	struct sb_likwid_expr *e;

	(void)state;
	assert_true(isnan(eval("FIXC0/(FIXC0-FIXC0)")));
	e = sb_likwid_expr_compile("FIXC0+MBOX0C1", names, 5, 4, &err);
	assert_non_null(e);
	assert_true(sb_likwid_expr_uncounted(e));
	assert_true(isnan(sb_likwid_expr_eval(e, counts, 1, 1)));
	sb_likwid_expr_free(e);
	e = sb_likwid_expr_compile("FIXC0", names, 5, 4, &err);
	assert_false(sb_likwid_expr_uncounted(e));
	sb_likwid_expr_free(e);
	/* zen2's data-fabric metrics scale by topology LIKWID knows and a thread does not */
	assert_true(isnan(eval("FIXC0*(4.0/(num_numadomains/num_sockets))")));
}

static void test_errors_say_what_and_where(void **state)
{
	(void)state;
	expect_error("(FIXC0+FIXC1", "column 13: unbalanced parenthesis: '(' not closed");
	expect_error("FIXC0+FIXC1)", "column 12: unbalanced parenthesis: ')' without '('");
	expect_error("FIXC0/PMC7", "column 7: unknown counter PMC7");
	expect_error("FIXC0*", "formula ends early");
	expect_error("FIXC0 FIXC1", "column 7: unexpected character");
	expect_error("FIXC0%2", "unexpected character");
	expect_error("", "formula ends early");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers_as_likwid_writes_them),
		cmocka_unit_test(test_precedence_parentheses_and_sign),
		cmocka_unit_test(test_time_and_inverse_clock),
		cmocka_unit_test(test_counter_names_with_options),
		cmocka_unit_test(test_division_by_zero_and_uncounted_counters_are_nan),
		cmocka_unit_test(test_errors_say_what_and_where),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
