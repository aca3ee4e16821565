/*
 * Unit: record --annotations: the list it takes, and what the default and a
 * chosen list do where the libraries are not (this test's own directory).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "record/annot_env.h"

static void test_parse(void **state)
{
	struct sb_error err = { { 0 } };
	unsigned mask = 99;

	(void)state;
	assert_int_equal(sb_annot_parse("all", &mask, &err), 0);
	assert_int_equal(mask, SB_ANNOT_ALL);
	assert_int_equal(sb_annot_parse("none", &mask, &err), 0);
	assert_int_equal(mask, 0);
	assert_int_equal(sb_annot_parse("kokkos", &mask, &err), 0);
	assert_int_equal(mask, SB_ANNOT_KOKKOS);
	assert_int_equal(sb_annot_parse("itt,nvtx", &mask, &err), 0);
	assert_int_equal(mask, SB_ANNOT_ITT | SB_ANNOT_NVTX);
}

static void test_parse_refuses_unknown_words(void **state)
{
	struct sb_error err = { { 0 } };
	unsigned mask;

	(void)state;
	assert_int_equal(sb_annot_parse("nvtx,omp", &mask, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'omp'"));
	assert_int_equal(sb_annot_parse("nvtx,", &mask, &err), -EINVAL);
	assert_int_equal(sb_annot_parse("", &mask, &err), -EINVAL);
	assert_int_equal(sb_annot_parse("all,nvtx", &mask, &err), -EINVAL);
	assert_int_equal(sb_annot_parse("nvtxx", &mask, &err), -EINVAL);
}

/* The default leaves out a library not built, silently, and sets nothing. */
static void test_default_without_libraries(void **state)
{
	struct sb_error err = { { 0 } };

	(void)state;
	unsetenv("KOKKOS_TOOLS_LIBS");
	assert_int_equal(sb_annot_env_setup(SB_ANNOT_ALL, false, &err), 0);
	assert_null(getenv("KOKKOS_TOOLS_LIBS"));
}

/* A chosen library that is not there is an error that names it and where it was looked for. */
static void test_chosen_without_library(void **state)
{
	struct sb_error err = { { 0 } };

	(void)state;
	assert_int_equal(sb_annot_env_setup(SB_ANNOT_KOKKOS, true, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "--annotations=kokkos"));
	assert_non_null(strstr(err.msg, "libscope_bpf_kokkos.so"));
	assert_non_null(strstr(err.msg, "lib/scope-bpf"));
	assert_null(getenv("KOKKOS_TOOLS_LIBS"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_refuses_unknown_words),
		cmocka_unit_test(test_default_without_libraries),
		cmocka_unit_test(test_chosen_without_library),
	};

	return cmocka_run_group_tests_name("annot_env", tests, NULL, NULL);
}
