/* Tests for the fast path queue's memory budget: --buffer, the machine's memory, the bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "record/fast/budget.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static void test_a_quarter_of_what_is_available(void **state)
{
	struct sb_meminfo m = { .total = 16 * GiB, .available = 8 * GiB };
	struct sb_fast_budget b;

	(void)state;
	sb_fast_budget(0, true, &m, &b);
	assert_true(b.max_bytes == 2 * GiB);
	assert_true(b.warm_bytes == 128 * MiB);
	/* Growth stops while less than a tenth of the memory is available. */
	assert_true(b.reserve_bytes == 16 * GiB / 10);
}

static void test_bounds_of_the_default(void **state)
{
	struct sb_meminfo big = { .total = 1024 * GiB, .available = 900 * GiB };
	struct sb_meminfo small = { .total = 1 * GiB, .available = 200 * MiB };
	struct sb_fast_budget b;

	(void)state;
	sb_fast_budget(0, true, &big, &b);
	assert_true(b.max_bytes == 4 * GiB);
	assert_true(b.warm_bytes == 256 * MiB);
	sb_fast_budget(0, true, &small, &b);
	assert_true(b.max_bytes == 128 * MiB);
	assert_true(b.warm_bytes == 64 * MiB);
	/* Unknown memory: the smallest budget, and no reserve to watch. */
	sb_fast_budget(0, true, NULL, &b);
	assert_true(b.max_bytes == 128 * MiB);
	assert_true(b.reserve_bytes == 0);
}

static void test_buffer_option_wins(void **state)
{
	struct sb_meminfo m = { .total = 16 * GiB, .available = 8 * GiB };
	struct sb_fast_budget b;

	(void)state;
	sb_fast_budget(32 * GiB, true, &m, &b);
	assert_true(b.max_bytes == 32 * GiB);
	assert_true(b.warm_bytes == 256 * MiB);
	/* A buffer smaller than the warm minimum is warmed whole, never beyond. */
	sb_fast_budget(16 * MiB, true, &m, &b);
	assert_true(b.max_bytes == 16 * MiB);
	assert_true(b.warm_bytes == 16 * MiB);
}

static void test_nothing_warmed_without_the_fast_path(void **state)
{
	struct sb_meminfo m = { .total = 16 * GiB, .available = 8 * GiB };
	struct sb_fast_budget b;

	(void)state;
	sb_fast_budget(0, false, &m, &b);
	assert_true(b.warm_bytes == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_quarter_of_what_is_available),
		cmocka_unit_test(test_bounds_of_the_default),
		cmocka_unit_test(test_buffer_option_wins),
		cmocka_unit_test(test_nothing_warmed_without_the_fast_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
