/*
 * Attach cookies by address (record/sources/call_addrs.c), the part that
 * needs no kernel: which probed functions a process's mappings hold, and
 * where they run.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/maps.h"
#include "record/sources/call_addrs.h"

/* Never used for a system call by sb_call_addrs_of: only "not < 0" counts. */
#define SOME_FD 1000

static const uint64_t offsets[] = { 0x800, 0x1500, 0x2ff0, 0x3000 };
static const uint64_t cookies[] = { 10, 11, 12, 13 };

static void probe_self(struct sb_call_addrs *ca, struct stat *st)
{
	sb_call_addrs_init(ca, SOME_FD);
	assert_int_equal(stat("/proc/self/exe", st), 0);
	assert_int_equal(sb_call_addrs_file(ca, "/proc/self/exe", offsets, cookies, 4), 0);
}

/* A function is where its file offset is mapped executable; the list is sorted by address. */
static void test_functions_where_their_offsets_are_mapped(void **state)
{
	struct sb_call_addrs ca;
	struct stat st;
	char path[] = "/probed";
	struct sb_map maps[3];
	struct sb_call_entry *e;
	size_t n;

	(void)state;
	probe_self(&ca, &st);
	maps[0] = (struct sb_map){ .start = 0x500000, .end = 0x501000, .pgoff = 0x3000,
				   .dev = st.st_dev, .inode = st.st_ino, .path = path,
				   .exec = true };
	maps[1] = (struct sb_map){ .start = 0x400000, .end = 0x402000, .pgoff = 0x1000,
				   .dev = st.st_dev, .inode = st.st_ino, .path = path,
				   .exec = true };
	/* Data: never a function. */
	maps[2] = (struct sb_map){ .start = 0x600000, .end = 0x604000, .pgoff = 0,
				   .dev = st.st_dev, .inode = st.st_ino, .path = path };
	assert_int_equal(sb_call_addrs_of(&ca, getpid(), maps, 3, &e, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(e[0].addr, 0x400500);
	assert_int_equal(e[0].cookie, 11);
	assert_int_equal(e[1].addr, 0x401ff0);
	assert_int_equal(e[1].cookie, 12);
	assert_int_equal(e[2].addr, 0x500000);
	assert_int_equal(e[2].cookie, 13);
	free(e);
	sb_call_addrs_free(&ca);
}

/*
 * The maps may name a file by another device and inode than stat (a 9p
 * root): it is found by its path; a file nobody probed gives nothing.
 */
static void test_a_file_the_maps_name_otherwise_is_found_by_stat(void **state)
{
	struct sb_call_addrs ca;
	struct stat st;
	char exe[PATH_MAX], null[] = "/dev/null";
	struct sb_map maps[2];
	struct sb_call_entry *e;
	ssize_t len;
	size_t n;

	(void)state;
	probe_self(&ca, &st);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(len > 0);
	exe[len] = 0;
	maps[0] = (struct sb_map){ .start = 0x400000, .end = 0x402000, .pgoff = 0x1000, .dev = 1,
				   .inode = 2, .path = exe, .exec = true };
	maps[1] = (struct sb_map){ .start = 0x700000, .end = 0x704000, .pgoff = 0, .dev = 3,
				   .inode = 4, .path = null, .exec = true };
	/* Twice: the second time from what the first learned. */
	assert_int_equal(sb_call_addrs_of(&ca, getpid(), maps, 2, &e, &n), 0);
	assert_int_equal(n, 2);
	free(e);
	assert_int_equal(sb_call_addrs_of(&ca, getpid(), maps, 2, &e, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(e[0].addr, 0x400500);
	assert_int_equal(e[1].addr, 0x401ff0);
	free(e);
	sb_call_addrs_free(&ca);
}

/* With attach cookies there is nothing to keep. */
static void test_nothing_kept_with_attach_cookies(void **state)
{
	struct sb_call_addrs ca;

	(void)state;
	sb_call_addrs_init(&ca, -1);
	assert_int_equal(sb_call_addrs_file(&ca, "/proc/self/exe", offsets, cookies, 4), 0);
	assert_int_equal(ca.n_files, 0);
	assert_int_equal(sb_call_addrs_process(&ca, getpid()), 0);
	sb_call_addrs_free(&ca);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_functions_where_their_offsets_are_mapped),
		cmocka_unit_test(test_a_file_the_maps_name_otherwise_is_found_by_stat),
		cmocka_unit_test(test_nothing_kept_with_attach_cookies),
	};

	return cmocka_run_group_tests_name("call_addrs", tests, NULL, NULL);
}
