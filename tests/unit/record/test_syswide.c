/* Unit tests of record -a's helpers that need no BPF: DT_NEEDED. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/elf_needed.h"
#include "record/syswide.h"

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
		cmocka_unit_test(test_needed_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
