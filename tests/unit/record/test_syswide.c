/* Unit tests of record -a's helpers that need no BPF: -o's %r, DT_NEEDED. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/elf_needed.h"
#include "record/syswide.h"

static void expect_output(const char *tmpl, const char *ranks, const char *want)
{
	char *got = NULL;

	assert_int_equal(sb_syswide_output(tmpl, ranks, &got), 0);
	assert_string_equal(got, want);
	free(got);
}

static void test_output_rank_is_the_list(void **state)
{
	(void)state;
	expect_output("prof.%r.h5", "0-3,7", "prof.0-3,7.h5");
	expect_output("%r%r", "2", "22");
	/* Every other sequence is left for sb_outpath_expand, %% too: "%%r" stays a literal %r. */
	expect_output("p.%h.%p.%%r.%r", "1", "p.%h.%p.%%r.1");
	expect_output("trailing%", "1", "trailing%");
	expect_output("", "1", "");
}

static bool is_cmocka(const char *name)
{
	return !strncmp(name, "libcmocka", 9);
}

static bool is_mpi(const char *name)
{
	return !strncmp(name, "libmpi", 6);
}

static void test_needed_objects(void **state)
{
	(void)state;
	/* This test links cmocka, and no MPI library. */
	assert_true(sb_elf_needs("/proc/self/exe", is_cmocka));
	assert_false(sb_elf_needs("/proc/self/exe", is_mpi));
	/* Not ELF, and no file: not needed, no error. */
	assert_false(sb_elf_needs("/proc/self/status", is_cmocka));
	assert_false(sb_elf_needs("/nonexistent", is_cmocka));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_rank_is_the_list),
		cmocka_unit_test(test_needed_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
