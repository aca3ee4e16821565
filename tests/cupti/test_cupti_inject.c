/*
 * The built libscope_bpf_cupti.so, loaded as the CUDA driver would load it.
 * No GPU here and libcuda is a stub, so CUPTI refuses: InitializeInjection()
 * must return, say so in one line on stderr, and stay quiet when called again.
 * Where CUPTI accepts (a machine with a driver) it must say nothing.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

typedef int (*init_fn)(void);

/* Call fn with stderr going to a file; return what it wrote (caller frees). */
static char *stderr_of(init_fn fn, int *ret)
{
	FILE *tmp = tmpfile();
	char *out = calloc(1, 4096);
	int saved = dup(STDERR_FILENO);

	assert_non_null(tmp);
	assert_non_null(out);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	*ret = fn();
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	assert_true(fread(out, 1, 4095, tmp) < 4095);
	fclose(tmp);
	return out;
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_initialize_injection(void **state)
{
	void *lib = dlopen(CUPTI_LIB, RTLD_NOW | RTLD_LOCAL);
	init_fn init;
	char *first, *second;
	int ret1, ret2;

	(void)state;
	assert_non_null(lib);
	init = (init_fn)(uintptr_t)dlsym(lib, "InitializeInjection");
	assert_non_null(init);
	first = stderr_of(init, &ret1);
	second = stderr_of(init, &ret2);
	printf("# InitializeInjection() = %d, stderr: %s", ret1, *first ? first : "(nothing)\n");
	if (ret1) {
		assert_string_equal(first, "");
	} else {
		assert_int_equal(lines(first), 1);
		assert_non_null(strstr(first, "scope-bpf: CUPTI "));
		assert_non_null(strstr(first, "CUDA activity is not recorded"));
	}
	assert_int_equal(ret2, ret1);
	assert_string_equal(second, "");
	free(first);
	free(second);
	/* Not dlclose()d: its atexit handler runs at exit, as in a CUDA program. */
}

/* The probes a recorder attaches to, with their semaphores and two arguments. */
static void test_probe_notes(void **state)
{
	char cmd[4096], line[512];
	int batch = 0, name = 0, provider = 0, args = 0, sems = 0;
	FILE *p;

	(void)state;
	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", CUPTI_LIB);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		batch += strstr(line, "Name: batch") != NULL;
		name += strstr(line, "Name: name") != NULL;
		provider += strstr(line, "Provider: scope_bpf_cuda") != NULL;
		args += strstr(line, "Arguments: 8@%") && strstr(line, " 8@%");
		sems += strstr(line, "Semaphore: 0x") && !strstr(line, "Semaphore: 0x0000000000000000");
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(batch, 1);
	assert_int_equal(name, 1);
	assert_int_equal(provider, 2);
	assert_int_equal(args, 2);
	assert_int_equal(sems, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_initialize_injection),
		cmocka_unit_test(test_probe_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
