/* Unit tests of record --rotate's %n, due times and --rotate-keep's choice. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "record/outpath.h"
#include "record/rotate.h"

/* Whether -o asks for %n; the names themselves are record/outpath.c's (test_outpath). */
static void test_wants_index(void **state)
{
	(void)state;
	assert_true(sb_outpath_wants("x.%n.h5", 'n'));
	assert_false(sb_outpath_wants("x.%%n.h5", 'n'));
	assert_false(sb_outpath_wants("x.h5%", 'n'));
	assert_true(sb_outpath_wants("%%%n", 'n'));
}

/* A file closes at its interval's end, or once it holds max_calls, whichever comes first. */
static void test_due(void **state)
{
	struct sb_rotation r = { .interval_ns = 100, .start_ns = 1000 };
	struct sb_rotation both = { .interval_ns = 100, .max_calls = 10, .start_ns = 1000 };
	struct sb_rotation size = { .max_calls = 10 };
	struct sb_rotation off = { .start_ns = 0 };

	(void)state;
	assert_false(sb_rotate_due(&r, 1099, 1ULL << 40));
	assert_true(sb_rotate_due(&r, 1100, 0));
	assert_false(sb_rotate_due(&both, 1099, 9));
	assert_true(sb_rotate_due(&both, 1099, 10));
	assert_true(sb_rotate_due(&both, 1100, 0));
	assert_false(sb_rotate_due(&size, 1LL << 60, 9));
	assert_true(sb_rotate_due(&size, 0, 10));
	assert_true(sb_rotate_on(&size) && sb_rotate_on(&r));
	assert_false(sb_rotate_due(&off, 1LL << 60, 1ULL << 40));
	assert_false(sb_rotate_on(&off));
}

/* With keep N, writing file i expires file i - N: exactly N stay. */
static void test_expired(void **state)
{
	struct sb_rotation r = { .interval_ns = 1, .keep = 3 };

	(void)state;
	for (r.index = 0; r.index < 3; r.index++)
		assert_int_equal(sb_rotate_expired(&r), -1);
	assert_int_equal(sb_rotate_expired(&r), 0);
	r.index = 10;
	assert_int_equal(sb_rotate_expired(&r), 7);
	r.keep = 0;
	assert_int_equal(sb_rotate_expired(&r), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wants_index),
		cmocka_unit_test(test_due),
		cmocka_unit_test(test_expired),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
