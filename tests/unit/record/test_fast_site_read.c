/* Unit: reading a fast-path site descriptor from a process, as the recorder does for late names. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/fast/site_read.h"
#include "record/fast/layout.h"

static struct scope_bpf_site good = {
	SCOPE_BPF_SITE_MAGIC, SCOPE_BPF_SITE_VERSION, 0, 42, 0, "solve", "solver.c", "mpi,io"
};

static void test_a_descriptor_is_read_whole(void **state)
{
	struct sb_fast_site s;

	(void)state;
	assert_int_equal(sb_fast_site_read(getpid(), (uint64_t)(uintptr_t)&good, &s), 0);
	assert_string_equal(s.name, "solve");
	assert_string_equal(s.file, "solver.c");
	assert_string_equal(s.tags, "mpi,io");
	assert_int_equal(s.line, 42);
}

static void test_what_is_not_a_descriptor_is_refused(void **state)
{
	struct scope_bpf_site bad = good, noname = good;
	struct sb_fast_site s;

	(void)state;
	bad.magic ^= 1;
	noname.name = NULL;
	assert_int_equal(sb_fast_site_read(getpid(), (uint64_t)(uintptr_t)&bad, &s), -EINVAL);
	assert_int_equal(sb_fast_site_read(getpid(), (uint64_t)(uintptr_t)&noname, &s), -EINVAL);
	/* Unaligned, unmapped, the null page: never followed into a fault. */
	assert_int_equal(sb_fast_site_read(getpid(), (uint64_t)(uintptr_t)&good + 1, &s), -EINVAL);
	assert_true(sb_fast_site_read(getpid(), 8, &s) < 0);
	assert_true(sb_fast_site_read(getpid(), 0x7ffffffff000ull, &s) < 0);
}

/* A name that runs into an unmapped page is cut there; one that ends before it is whole. */
static void test_names_at_the_edge_of_mapped_memory(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct scope_bpf_site d = good;
	struct sb_fast_site s;

	(void)state;
	assert_true(m != MAP_FAILED);
	assert_int_equal(munmap(m + page, page), 0);
	memcpy(m + page - 4, "abc", 4);
	d.name = m + page - 4;
	assert_int_equal(sb_fast_site_read(getpid(), (uint64_t)(uintptr_t)&d, &s), 0);
	assert_string_equal(s.name, "abc");
	memset(m + page - 8, 'x', 8);
	d.name = m + page - 8;
	assert_int_equal(sb_fast_site_read(getpid(), (uint64_t)(uintptr_t)&d, &s), 0);
	assert_string_equal(s.name, "xxxxxxxx");
	/* A name longer than the kernel keeps is cut as the kernel cuts it. */
	memset(m, 'y', 300);
	m[300] = 0;
	d.name = m;
	assert_int_equal(sb_fast_site_read(getpid(), (uint64_t)(uintptr_t)&d, &s), 0);
	assert_int_equal(strlen(s.name), SB_NAME_MAX - 1);
	munmap(m, page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_descriptor_is_read_whole),
		cmocka_unit_test(test_what_is_not_a_descriptor_is_refused),
		cmocka_unit_test(test_names_at_the_edge_of_mapped_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
