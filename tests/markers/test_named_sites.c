/*
 * Unit tests of the runtime-named markers' name table (markers/scope_bpf_markers.c):
 * one descriptor per distinct name, shared by every thread and kept through
 * table growth; NULL, empty and overlong names; the cap on distinct names.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "scope_bpf.h"

#define THREADS 8
#define SHARED_NAMES 2000

const struct scope_bpf_site *scope_bpf_impl_named_site(const char *name, size_t len);
const struct scope_bpf_site *scope_bpf_impl_named_site_tagged(const char *name, size_t len,
							      const char *tags);

static const struct scope_bpf_site *site(const char *name)
{
	return scope_bpf_impl_named_site(name, SCOPE_BPF_NAME_MAX);
}

static void test_one_descriptor_per_name(void **state)
{
	const struct scope_bpf_site *a = site("solve"), *b = site("halo");
	char copy[] = "solve";

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_ptr_equal(site(copy), a);
	assert_int_equal(a->magic, SCOPE_BPF_SITE_MAGIC);
	assert_int_equal(a->version, SCOPE_BPF_SITE_VERSION);
	assert_int_equal(a->flags, 0);
	assert_int_equal(a->line, 0);
	assert_null(a->file);
	assert_null(a->tags);
	assert_string_equal(a->name, "solve");
	assert_ptr_not_equal(a->name, copy);
}

static void test_length_and_nul(void **state)
{
	(void)state;
	assert_ptr_equal(scope_bpf_impl_named_site("lenient", 3), site("len"));
	assert_ptr_equal(scope_bpf_impl_named_site("ab\0cd", 5), site("ab"));
	assert_string_equal(scope_bpf_impl_named_site("lenient", 3)->name, "len");
}

/* The first call's tags stay with the name, as the recorder keeps a region's first tags. */
static void test_tags_of_the_first_call(void **state)
{
	const struct scope_bpf_site *a = scope_bpf_impl_named_site_tagged("copy", 4, "kokkos,bytes:8");
	char long_tags[300];

	(void)state;
	assert_non_null(a);
	assert_string_equal(a->name, "copy");
	assert_string_equal(a->tags, "kokkos,bytes:8");
	assert_ptr_equal(scope_bpf_impl_named_site_tagged("copy", 4, "kokkos,bytes:16"), a);
	assert_string_equal(a->tags, "kokkos,bytes:8");
	assert_ptr_equal(site("copy"), a);
	assert_null(scope_bpf_impl_named_site_tagged("plain", 5, "")->tags);
	memset(long_tags, 't', sizeof(long_tags) - 1);
	long_tags[sizeof(long_tags) - 1] = 0;
	assert_int_equal(strlen(scope_bpf_impl_named_site_tagged("long", 4, long_tags)->tags), 127);
}

static void test_null_and_empty_ignored(void **state)
{
	(void)state;
	assert_null(site(NULL));
	assert_null(site(""));
	assert_null(scope_bpf_impl_named_site("solve", 0));
}

static void test_overlong_cut(void **state)
{
	char a[201], b[301], shorter[SCOPE_BPF_NAME_MAX];
	const struct scope_bpf_site *s;

	(void)state;
	memset(a, 'x', sizeof(a));
	a[sizeof(a) - 1] = 0;
	memset(b, 'x', sizeof(b));
	b[sizeof(b) - 1] = 0;
	memset(shorter, 'x', sizeof(shorter));
	shorter[sizeof(shorter) - 1] = 0;
	s = site(a);
	assert_non_null(s);
	assert_int_equal(strlen(s->name), SCOPE_BPF_NAME_MAX);
	assert_ptr_equal(site(b), s);
	assert_ptr_not_equal(site(shorter), s);
}

/* Thousands of names grow the table many times; earlier descriptors stay where they were. */
static void test_growth_keeps_descriptors(void **state)
{
	static const struct scope_bpf_site *first[5000];
	char name[32];
	int i;

	(void)state;
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "grow_%d", i);
		first[i] = site(name);
		assert_non_null(first[i]);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "grow_%d", i);
		assert_ptr_equal(site(name), first[i]);
		assert_string_equal(first[i]->name, name);
	}
}

static const struct scope_bpf_site *seen[THREADS][SHARED_NAMES];
static pthread_barrier_t start;

/* Each thread makes the same new names in its own order, all at once. */
static void *look_up_all(void *arg)
{
	long t = (long)arg;
	char name[32];
	int i, k;

	pthread_barrier_wait(&start);
	for (k = 0; k < SHARED_NAMES; k++) {
		i = (int)((k * 7919L + t * 131) % SHARED_NAMES);
		snprintf(name, sizeof(name), "shared_%d", i);
		seen[t][i] = site(name);
	}
	return NULL;
}

static void test_threads_share_descriptors(void **state)
{
	pthread_t th[THREADS];
	long t;
	int i;

	(void)state;
	pthread_barrier_init(&start, NULL, THREADS);
	for (t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, look_up_all, (void *)t), 0);
	for (t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&start);
	for (i = 0; i < SHARED_NAMES; i++) {
		assert_non_null(seen[0][i]);
		for (t = 1; t < THREADS; t++)
			assert_ptr_equal(seen[t][i], seen[0][i]);
	}
}

/* The probes fire only under a tracer; with the semaphores raised they run their nops. */
static void test_traced_calls_make_descriptors(void **state)
{
	const struct scope_bpf_site *before = site("traced");

	(void)state;
	scope_bpf_region_begin_semaphore = 1;
	scope_bpf_region_end_semaphore = 1;
	scope_bpf_begin_named("traced");
	scope_bpf_end_named_n("traced region", 6);
	scope_bpf_begin_named(NULL);
	scope_bpf_region_begin_semaphore = 0;
	scope_bpf_region_end_semaphore = 0;
	assert_ptr_equal(site("traced"), before);
}

/* Runs last: it fills the table. Past the cap new names share one descriptor; old ones keep theirs. */
static void test_cap_on_names(void **state)
{
	const struct scope_bpf_site *solve = site("solve"), *beyond;
	char name[32];
	int i, made = 0;

	(void)state;
	for (i = 0; i < SCOPE_BPF_NAMED_MAX; i++) {
		snprintf(name, sizeof(name), "fill_%d", i);
		made += strcmp(site(name)->name, name) == 0;
	}
	assert_true(made < SCOPE_BPF_NAMED_MAX);
	assert_true(made > SCOPE_BPF_NAMED_MAX - 8000);
	/* Later new names share one descriptor that says so: their calls are kept, under it. */
	beyond = site("one too many");
	assert_non_null(beyond);
	assert_ptr_equal(site("and another"), beyond);
	assert_string_equal(beyond->name, "(names beyond 65536)");
	assert_ptr_equal(site("solve"), solve);
	assert_ptr_equal(site("fill_0"), site("fill_0"));
	assert_non_null(site("fill_0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_descriptor_per_name),
		cmocka_unit_test(test_length_and_nul),
		cmocka_unit_test(test_tags_of_the_first_call),
		cmocka_unit_test(test_null_and_empty_ignored),
		cmocka_unit_test(test_overlong_cut),
		cmocka_unit_test(test_growth_keeps_descriptors),
		cmocka_unit_test(test_threads_share_descriptors),
		cmocka_unit_test(test_traced_calls_make_descriptors),
		cmocka_unit_test(test_cap_on_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
