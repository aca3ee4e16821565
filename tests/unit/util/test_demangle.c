/* Unit tests of kernel name demangling. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/demangle.h"

static void expect_demangled(const char *mangled, const char *want)
{
	char *s = sb_demangle(mangled);

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void test_demangle_cxx_kernel_names(void **state)
{
	(void)state;
	expect_demangled("_Z6squarePfi", "square(float*, int)");
	/* A template kernel, as nvcc names an instantiation. */
	expect_demangled("_Z10vector_addIfEvPT_S1_S1_i",
			 "void vector_add<float>(float*, float*, float*, int)");
	expect_demangled("_ZN6solver4stepEPKdPdm",
			 "solver::step(double const*, double*, unsigned long)");
}

static void test_demangle_leaves_other_names_alone(void **state)
{
	(void)state;
	/* extern "C" kernels, a bare type code, broken mangling, nothing. */
	assert_null(sb_demangle("vecAdd"));
	assert_null(sb_demangle("i"));
	assert_null(sb_demangle("_Z"));
	assert_null(sb_demangle("_Z6square!!"));
	assert_null(sb_demangle(""));
	assert_null(sb_demangle(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangle_cxx_kernel_names),
		cmocka_unit_test(test_demangle_leaves_other_names_alone),
	};

	return cmocka_run_group_tests_name("demangle", tests, NULL, NULL);
}
