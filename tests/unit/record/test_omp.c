/*
 * OpenMP regions, the parts that need no kernel: which symbols are gcc's
 * outlined bodies, which libgomp functions are probed as what, the region
 * names, and the symbol look-up (one probe per address) on the installed
 * libgomp and on this test's own outlined-looking functions.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/sources/omp_lib.h"
#include "record/sources/omp_names.h"

#if defined(__aarch64__)
#define LIBGOMP "/usr/lib/aarch64-linux-gnu/libgomp.so.1"
#else
#define LIBGOMP "/usr/lib/x86_64-linux-gnu/libgomp.so.1"
#endif

/* Named as gcc names a parallel body, a cold fragment and a task copy function. */
__attribute__((used, noinline)) static void fake_body(void *data) __asm__("fake._omp_fn.3");
__attribute__((used, noinline)) static void fake_cold(void *data) __asm__("fake._omp_fn.4.cold");
__attribute__((used, noinline)) static void fake_cpyfn(void *data) __asm__("fake._omp_cpyfn.5");

static void fake_body(void *data)
{
	*(volatile int *)data = 3;
}

static void fake_cold(void *data)
{
	*(volatile int *)data = 4;
}

static void fake_cpyfn(void *data)
{
	*(volatile int *)data = 5;
}

static void test_body_symbols(void **state)
{
	(void)state;
	assert_true(sb_omp_body_symbol("main._omp_fn.0"));
	assert_true(sb_omp_body_symbol("solve._omp_fn.12"));
	assert_true(sb_omp_body_symbol("ns::f(int)._omp_fn.1"));
	assert_false(sb_omp_body_symbol("._omp_fn.0"));		/* no enclosing function */
	assert_false(sb_omp_body_symbol("main._omp_fn."));		/* no number */
	assert_false(sb_omp_body_symbol("main._omp_fn.0.cold"));	/* a fragment, no entry */
	assert_false(sb_omp_body_symbol("main._omp_fn.0.constprop.0"));
	assert_false(sb_omp_body_symbol("main._omp_cpyfn.1"));
	assert_false(sb_omp_body_symbol(".omp_outlined."));		/* clang, for libomp */
	assert_false(sb_omp_body_symbol("main"));
	assert_false(sb_omp_body_symbol(""));
}

static void test_entry_points(void **state)
{
	(void)state;
	assert_int_equal(sb_omp_entry_point("GOMP_parallel"), SB_OMP_PARALLEL);
	assert_int_equal(sb_omp_entry_point("GOMP_parallel_loop_dynamic"), SB_OMP_PARALLEL);
	assert_int_equal(sb_omp_entry_point("GOMP_parallel_sections"), SB_OMP_PARALLEL);
	assert_int_equal(sb_omp_entry_point("GOMP_teams_reg"), SB_OMP_TEAMS);
	assert_int_equal(sb_omp_entry_point("GOMP_barrier"), SB_OMP_BARRIER);
	assert_int_equal(sb_omp_entry_point("GOMP_loop_end"), SB_OMP_BARRIER);
	assert_int_equal(sb_omp_entry_point("GOMP_sections_end"), SB_OMP_BARRIER);
	assert_int_equal(sb_omp_entry_point("GOMP_taskwait"), SB_OMP_TASKWAIT);
	assert_int_equal(sb_omp_entry_point("GOMP_critical_start"), SB_OMP_CRITICAL);
	assert_int_equal(sb_omp_entry_point("GOMP_task"), SB_OMP_SPAWN);
	/* No wait in them, or the old fork/join pair: not probed. */
	assert_int_equal(sb_omp_entry_point("GOMP_loop_end_nowait"), -1);
	assert_int_equal(sb_omp_entry_point("GOMP_critical_end"), -1);
	assert_int_equal(sb_omp_entry_point("GOMP_parallel_start"), -1);
	assert_int_equal(sb_omp_entry_point("GOMP_parallel_end"), -1);
	assert_int_equal(sb_omp_entry_point("omp_get_thread_num"), -1);
}

static void test_region_names(void **state)
{
	unsigned int a, b;

	(void)state;
	assert_string_equal(sb_omp_region_name(SB_OMP_PARALLEL), "omp:parallel");
	assert_string_equal(sb_omp_region_name(SB_OMP_IMPLICIT_TASK), "omp:implicit_task");
	assert_string_equal(sb_omp_region_name(SB_OMP_JOIN), "omp:join");
	assert_string_equal(sb_omp_region_name(SB_OMP_BARRIER), "omp:barrier");
	assert_string_equal(sb_omp_region_tags(SB_OMP_BARRIER), "omp,omp.kind:barrier");
	for (a = 0; a < SB_OMP_N_REGIONS; a++) {
		assert_non_null(sb_omp_region_name(a));
		assert_memory_equal(sb_omp_region_name(a), "omp:", 4);
		assert_memory_equal(sb_omp_region_tags(a), "omp,omp.kind:", 13);
		for (b = 0; b < a; b++) {
			assert_string_not_equal(sb_omp_region_name(a), sb_omp_region_name(b));
			assert_true(sb_omp_name_hash(a) != sb_omp_name_hash(b));
		}
	}
	/* Probe kinds are no regions: a record naming one is refused. */
	assert_null(sb_omp_region_name(SB_OMP_SPAWN));
	assert_null(sb_omp_region_name(SB_OMP_BODY));
}

struct seen {
	struct sb_omp_probe p[64];
	int n;
};

static int keep(const struct sb_omp_probe *p, void *ctx)
{
	struct seen *s = ctx;

	assert_true(s->n < 64);
	s->p[s->n] = *p;
	s->p[s->n].name = NULL;	/* valid only during the walk */
	if (!strcmp(p->name, "GOMP_parallel") || !strcmp(p->name, "fake._omp_fn.3"))
		s->p[s->n].name = "wanted";
	s->n++;
	return 0;
}

static int stop_at_second(const struct sb_omp_probe *p, void *ctx)
{
	int *n = ctx;

	(void)p;
	return ++*n == 2 ? -ECANCELED : 0;
}

/* The installed libgomp: its entry points, one probe per address (aliases once), no bodies. */
static void test_libgomp_entry_points(void **state)
{
	struct seen s = { .n = 0 };
	int i, j, wanted = 0, calls = 0;

	(void)state;
	assert_int_equal(sb_omp_read(LIBGOMP, true, keep, &s), 0);
	/* 27 names, of which Debian 12's libgomp has 4 pairs of aliases. */
	assert_true(s.n >= 16);
	assert_true(s.n <= 27);
	for (i = 0; i < s.n; i++) {
		assert_true(s.p[i].offset > 0);
		assert_true((s.p[i].cookie & SB_OMP_OP_MASK) <= SB_OMP_SPAWN);
		assert_int_equal(s.p[i].cookie >> SB_OMP_OFFSET_SHIFT, 0);
		if (s.p[i].name) {
			wanted++;
			assert_int_equal(s.p[i].cookie, SB_OMP_PARALLEL);
		}
		for (j = 0; j < i; j++)
			assert_true(s.p[i].offset != s.p[j].offset);
	}
	assert_int_equal(wanted, 1);
	/* Stripped, as distributions ship it: no .symtab, no bodies. */
	s.n = 0;
	assert_int_equal(sb_omp_read(LIBGOMP, false, keep, &s), 0);
	assert_int_equal(s.n, 0);
	/* The callback's error ends the walk and is returned. */
	assert_int_equal(sb_omp_read(LIBGOMP, true, stop_at_second, &calls), -ECANCELED);
	assert_int_equal(calls, 2);
}

/* This test's own executable: the one body, by its file offset; not the fragment or copy fn. */
static void test_outlined_bodies(void **state)
{
	struct seen s = { .n = 0 };
	int v = 0;

	(void)state;
	fake_body(&v);
	fake_cold(&v);
	fake_cpyfn(&v);
	assert_int_equal(v, 5);
	assert_int_equal(sb_omp_read("/proc/self/exe", false, keep, &s), 0);
	assert_int_equal(s.n, 1);
	assert_non_null(s.p[0].name);
	assert_int_equal(s.p[0].cookie, SB_OMP_BODY | s.p[0].offset << SB_OMP_OFFSET_SHIFT);
}

static void test_unreadable_file(void **state)
{
	struct seen s = { .n = 0 };

	(void)state;
	assert_int_equal(sb_omp_read("/nonexistent/libgomp.so.1", true, keep, &s), -ENOENT);
	assert_int_equal(s.n, 0);
}

/* This test does not link libgomp; a missing file needs nothing. */
static void test_needs_libgomp(void **state)
{
	(void)state;
	assert_false(sb_omp_needs_libgomp("/proc/self/exe"));
	assert_false(sb_omp_needs_libgomp("/nonexistent/app"));
	assert_false(sb_omp_needs_libgomp(LIBGOMP));
}

/* A name with a slash as it is; else the first executable match in $PATH, "" being ".". */
static void test_program_path(void **state)
{
	char dir[] = "/tmp/test_omp.XXXXXX", prog[64], path[128], *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	fd = open(prog, O_WRONLY | O_CREAT, 0755);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chdir(dir), 0);
	assert_true(sb_omp_program_path("./anything", path, sizeof(path)));
	assert_string_equal(path, "./anything");
	setenv("PATH", "/nonexistent::/also-not", 1);
	assert_true(sb_omp_program_path("prog", path, sizeof(path)));
	assert_string_equal(path, "./prog");
	assert_false(sb_omp_program_path("missing", path, sizeof(path)));
	snprintf(path, sizeof(path), "/nonexistent:%s", dir);
	setenv("PATH", path, 1);
	assert_true(sb_omp_program_path("prog", path, sizeof(path)));
	assert_string_equal(path, prog);
	/* Too long for the buffer: not found rather than cut. */
	assert_false(sb_omp_program_path("prog", path, 8));
	unsetenv("PATH");
	assert_false(sb_omp_program_path("prog", path, sizeof(path)));
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	unlink(prog);
	assert_int_equal(chdir("/"), 0);
	rmdir(dir);
}

static void test_library_names(void **state)
{
	(void)state;
	assert_true(sb_omp_lib_name("/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0"));
	assert_true(sb_omp_lib_name("libgomp.so"));
	assert_false(sb_omp_lib_name("/usr/lib/x86_64-linux-gnu/libgomp-plugin-nvptx.so.1"));
	assert_false(sb_omp_lib_name("/usr/lib/llvm-14/lib/libomp.so.5"));
	assert_false(sb_omp_lib_name("/opt/libgomp.so.1/app"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body_symbols),
		cmocka_unit_test(test_entry_points),
		cmocka_unit_test(test_region_names),
		cmocka_unit_test(test_libgomp_entry_points),
		cmocka_unit_test(test_outlined_bodies),
		cmocka_unit_test(test_unreadable_file),
		cmocka_unit_test(test_needs_libgomp),
		cmocka_unit_test(test_program_path),
		cmocka_unit_test(test_library_names),
	};

	return cmocka_run_group_tests_name("omp", tests, NULL, NULL);
}
