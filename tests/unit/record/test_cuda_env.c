/* Unit: where record --cuda looks for the CUPTI library, and what it says when it is not there. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/cuda_env.h"

static char root[64];

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fclose(f);
}

static int make_tree(void **state)
{
	char path[PATH_MAX];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/sb-cuda-env.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(path, sizeof(path), "%s/build", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bin", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/lib", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/lib/scope-bpf", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/other", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/other/empty", root);
	mkdir(path, 0755);
	return 0;
}

static int remove_tree(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) ? -1 : 0;
}

static void test_beside_the_binary_first(void **state)
{
	char exe[PATH_MAX], lib[PATH_MAX], want[PATH_MAX];
	struct sb_error err = { { 0 } };

	(void)state;
	snprintf(want, sizeof(want), "%s/build/" SB_CUPTI_LIB, root);
	touch(want);
	snprintf(exe, sizeof(exe), "%s/build/scope-bpf", root);
	assert_int_equal(sb_cuda_find_library(exe, lib, sizeof(lib), &err), 0);
	assert_string_equal(lib, want);
}

static void test_installed_under_lib(void **state)
{
	char exe[PATH_MAX], lib[PATH_MAX], want[PATH_MAX];
	struct sb_error err = { { 0 } };

	(void)state;
	snprintf(want, sizeof(want), "%s/lib/scope-bpf/" SB_CUPTI_LIB, root);
	touch(want);
	snprintf(exe, sizeof(exe), "%s/bin/scope-bpf", root);
	assert_int_equal(sb_cuda_find_library(exe, lib, sizeof(lib), &err), 0);
	snprintf(want, sizeof(want), "%s/bin/../lib/scope-bpf/" SB_CUPTI_LIB, root);
	assert_string_equal(lib, want);
}

static void test_missing_names_the_library_and_where(void **state)
{
	char exe[PATH_MAX], lib[PATH_MAX];
	struct sb_error err = { { 0 } };

	(void)state;
	/* Neither other/empty/ nor other/lib/scope-bpf/ has it. */
	snprintf(exe, sizeof(exe), "%s/other/empty/scope-bpf", root);
	assert_int_equal(sb_cuda_find_library(exe, lib, sizeof(lib), &err), -ENOENT);
	assert_non_null(strstr(err.msg, SB_CUPTI_LIB));
	assert_non_null(strstr(err.msg, "/empty"));
	assert_non_null(strstr(err.msg, "CUDA toolkit"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_beside_the_binary_first),
		cmocka_unit_test(test_installed_under_lib),
		cmocka_unit_test(test_missing_names_the_library_and_where),
	};

	return cmocka_run_group_tests_name("cuda_env", tests, make_tree, remove_tree);
}
