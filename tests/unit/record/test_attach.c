/* Unit tests of what attaching the region probes leaves counted once they are detached. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "record/attach.h"
#include "record/kernel/load.h"

/*
 * The probes are detached before the profile's metadata is written and the
 * recorder says why a profile has no call: what was attached and refused
 * must still be known then.
 */
static void test_counts_outlive_the_probes(void **state)
{
	struct sb_kernel k;
	struct sb_attach a;

	(void)state;
	memset(&k, 0, sizeof(k));
	sb_attach_init(&a, &k, NULL, false);
	a.probe_files = 2;
	a.probes = 5;
	a.fast_files = 1;
	a.failed_files = 1;
	snprintf(a.failure, sizeof(a.failure), "/usr/lib/libx.so: cannot attach probe");
	sb_attach_free(&a);
	assert_int_equal(a.probe_files, 2);
	assert_int_equal(a.probes, 5);
	assert_int_equal(a.fast_files, 1);
	assert_int_equal(a.failed_files, 1);
	assert_string_equal(a.failure, "/usr/lib/libx.so: cannot attach probe");
	/* Freed twice (detached, then the source freed): nothing is released again. */
	sb_attach_free(&a);
	assert_int_equal(a.probe_files, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_outlive_the_probes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
