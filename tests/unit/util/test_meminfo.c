/* Unit tests of /proc/meminfo parsing. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/meminfo.h"

static void test_fields_in_bytes(void **state)
{
	const char *text = "MemTotal:       24683584 kB\n"
			   "MemFree:        21087916 kB\n"
			   "MemAvailable:   24086568 kB\n"
			   "Buffers:            2612 kB\n";
	struct sb_meminfo m;

	(void)state;
	assert_int_equal(sb_meminfo_parse(text, &m), 0);
	assert_true(m.total == 24683584ull * 1024);
	assert_true(m.available == 24086568ull * 1024);
}

static void test_key_must_match_whole(void **state)
{
	/* "MemAvailableX" is not MemAvailable: the later, real line counts. */
	const char *text = "MemAvailableX: 1 kB\nMemTotal: 8 kB\nMemAvailable: 2 kB\n";
	struct sb_meminfo m;

	(void)state;
	assert_int_equal(sb_meminfo_parse(text, &m), 0);
	assert_true(m.available == 2048);
	assert_true(m.total == 8192);
}

static void test_missing_or_malformed_refused(void **state)
{
	const char *bad[] = {
		"MemTotal: 8 kB\n",				/* no MemAvailable (kernels before 3.14) */
		"MemTotal: 8 kB\nMemAvailable: -2 kB\n",
		"MemTotal: 8 kB\nMemAvailable: x kB\n",
		"MemTotal: 8 kB\nMemAvailable: 2 MB\n",
		"MemTotal: 8 kB\nMemAvailable: 99999999999999999999 kB\n",
		"MemTotal: 8 kB\nMemAvailable: 18014398509481984 kB\n",	/* overflows bytes */
		"",
	};
	struct sb_meminfo m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sb_meminfo_parse(bad[i], &m), -EINVAL);
}

static void test_this_machine(void **state)
{
	struct sb_meminfo m;

	(void)state;
	assert_int_equal(sb_meminfo_read(&m), 0);
	assert_true(m.total > 0);
	assert_true(m.available <= m.total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_in_bytes),
		cmocka_unit_test(test_key_must_match_whole),
		cmocka_unit_test(test_missing_or_malformed_refused),
		cmocka_unit_test(test_this_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
