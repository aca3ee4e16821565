/*
 * Integration: record regions named at run time through libscope_bpf_markers
 * from C (tests/apps/named_markers.c), Fortran (tests/apps/fortran_markers.f90,
 * the scope_bpf module) and Python (tests/apps/py_markers.py, scope_bpf.py
 * through ctypes), and check each region's name, call count, parent and
 * threads in the file, and that no other region was recorded.
 */
#include <libgen.h>
#include <linux/types.h>

#include "harness.h"
#include "region.h"
#include "scope_bpf.h"

/* The library cuts names where the recorder does, so a cut name is one descriptor. */
_Static_assert(SCOPE_BPF_NAME_MAX == SB_NAME_MAX - 1, "SCOPE_BPF_NAME_MAX is not the recorder's");

/*
 * The calls of name on rank 0: count of them, each directly inside a region
 * whose name starts with parent (NULL: at top level). Returns how many threads
 * made them.
 */
static int expect_calls(const struct sb_profile *p, const char *name, uint64_t count,
			const char *parent)
{
	const struct sb_pair *pair = must_pair(p, name, 0);
	bool thread_seen[64] = { false };
	int threads = 0;
	const char *got;
	size_t i;

	if (pair->count != count)
		fail_msg("region '%s': %llu calls, expected %llu", name,
			 (unsigned long long)pair->count, (unsigned long long)count);
	for (i = pair->offset; i < pair->offset + pair->count; i++) {
		got = parent_region(p, 0, &p->events[i]);
		if (parent ? !got || strncmp(got, parent, strlen(parent)) : got != NULL)
			fail_msg("a call of '%s' is inside '%s', expected '%s'", name,
				 got ? got : "(top level)", parent ? parent : "(top level)");
		assert_true(p->events[i].thread >= 0 && p->events[i].thread < 64);
		if (!thread_seen[p->events[i].thread])
			threads++;
		thread_seen[p->events[i].thread] = true;
	}
	return threads;
}

/* Exactly n regions have calls; the list goes to stderr if not. */
static void expect_regions(const struct sb_profile *p, size_t n)
{
	size_t i;

	for (i = 0; p->n_pairs != n && i < p->n_pairs; i++)
		fprintf(stderr, "  region '%s': %llu calls\n", p->regions[p->pairs[i].region].name,
			(unsigned long long)p->pairs[i].count);
	assert_int_equal(p->n_pairs, n);
}

static void test_c_named(void **state)
{
	char out[300], longest[SCOPE_BPF_NAME_MAX + 1];
	struct sb_profile p;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("c.h5", out, sizeof(out)), "named_markers", NULL), 0);
	load_profile(out, &p);
	expect_calls(&p, "outer", 2, NULL);
	expect_calls(&p, "phase_0", 2, "outer");
	expect_calls(&p, "phase_1", 2, "outer");
	expect_calls(&p, "phase_2", 2, "outer");
	expect_calls(&p, "len", 6, "phase_");
	memset(longest, 'x', SCOPE_BPF_NAME_MAX);
	longest[SCOPE_BPF_NAME_MAX] = 0;
	expect_calls(&p, longest, 1, NULL);
	assert_int_equal(expect_calls(&p, "worker", 4 * 50, NULL), 4);
	expect_regions(&p, 7);
	sb_profile_free(&p);
}

/* A burst of 40 000 new names: each one named, none of their calls lost or unnamed. */
static void test_many_names_are_all_kept(void **state)
{
	struct sb_profile p;
	uint64_t calls = 0;
	char out[300];
	size_t i;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("many.h5", out, sizeof(out)), "named_markers", "40000",
				    NULL), 0);
	load_profile(out, &p);
	for (i = 0; i < p.n_pairs; i++)
		calls += p.pairs[i].count;
	if (p.n_regions != 40000 || calls != 80000)
		print_losses(&p);
	assert_int_equal(p.n_regions, 40000);
	assert_int_equal(calls, 80000);
	assert_int_equal(meta_int(&p, "lost_events"), 0);
	assert_int_equal(meta_int(&p, "invalid_sites"), 0);
	sb_profile_free(&p);
}

static void test_fortran(void **state)
{
	char out[300];
	struct sb_profile p;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("f.h5", out, sizeof(out)), "fortran_markers", NULL), 0);
	load_profile(out, &p);
	expect_calls(&p, "solve", 3, NULL);
	expect_calls(&p, "step", 12, "solve");
	expect_calls(&p, "halo", 12, "step");
	expect_regions(&p, 3);
	sb_profile_free(&p);
}

/* The directory of $SCOPE_BPF, where the library is built. */
static const char *build_dir(char *buf, size_t size)
{
	snprintf(buf, size, "%s", scope_bin());
	return dirname(buf);
}

static void test_python(void **state)
{
	char out[300], bin[300], lib[600];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o", out, "--",
			 (char *)env_or("PYTHON", "/usr/bin/python3"), "tests/apps/py_markers.py", NULL };
	struct sb_profile p;

	(void)state;
	require_bpf();
	tmp_file("py.h5", out, sizeof(out));
	snprintf(lib, sizeof(lib), "%s/libscope_bpf_markers.so.0", build_dir(bin, sizeof(bin)));
	setenv("SCOPE_BPF_MARKERS_LIB", lib, 1);
	setenv("PYTHONPATH", "markers", 1);
	setenv("PYTHONDONTWRITEBYTECODE", "1", 1);	/* no __pycache__ in markers/ */
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	expect_calls(&p, "solve", 3, NULL);
	expect_calls(&p, "kernel", 6, "solve");
	expect_regions(&p, 2);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_c_named, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_many_names_are_all_kept, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_fortran, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_python, setup_tmp, teardown_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
