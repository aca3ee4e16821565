/* Site names over time: a reused address names each record after the library that wrote it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/fast/sites.h"

#define SITE 0x7f0000001000ull
#define MS 1000000LL

static uint64_t name_at(struct sb_fast_sites *s, uint64_t site, int64_t t)
{
	uint64_t h = 0;

	assert_true(sb_fast_sites_at(s, site, t, &h));
	return h;
}

static void test_unknown_site(void **state)
{
	struct sb_fast_sites s;
	uint64_t h;

	(void)state;
	sb_fast_sites_init(&s);
	assert_false(sb_fast_sites_at(&s, SITE, 5 * MS, &h));
	assert_int_equal(sb_fast_sites_name(&s, SITE, 11, 1 * MS), 0);
	assert_false(sb_fast_sites_at(&s, SITE + 8, 5 * MS, &h));
	sb_fast_sites_free(&s);
}

/* Plugin a's records, nested after plugin b was announced at the same address, stay a's. */
static void test_reused_address_keeps_each_name(void **state)
{
	struct sb_fast_sites s;

	(void)state;
	sb_fast_sites_init(&s);
	assert_int_equal(sb_fast_sites_name(&s, SITE, 0xa, 1 * MS), 0);
	assert_int_equal(sb_fast_sites_name(&s, SITE, 0xb, 3 * MS), 0);
	assert_int_equal(name_at(&s, SITE, 2 * MS), 0xa);
	assert_int_equal(name_at(&s, SITE, 3 * MS), 0xb);
	assert_int_equal(name_at(&s, SITE, 9 * MS), 0xb);
	/* Written a little before its announcement as the clocks convert it: still b's. */
	assert_int_equal(name_at(&s, SITE, 3 * MS - SB_FAST_SITE_SLACK_NS / 2), 0xb);
	/* Before the first announcement (a record read early): the oldest name. */
	assert_int_equal(name_at(&s, SITE, 0), 0xa);
	sb_fast_sites_free(&s);
}

/* A name read late (no announcement) holds from the start; invalid ones are 0. */
static void test_late_and_invalid_names(void **state)
{
	struct sb_fast_sites s;

	(void)state;
	sb_fast_sites_init(&s);
	assert_int_equal(sb_fast_sites_name(&s, SITE, 0, 0), 0);
	assert_int_equal(name_at(&s, SITE, 1 * MS), 0);
	assert_int_equal(sb_fast_sites_name(&s, SITE, 0xc, 2 * MS), 0);
	assert_int_equal(name_at(&s, SITE, 1 * MS), 0);
	assert_int_equal(name_at(&s, SITE, 2 * MS), 0xc);
	sb_fast_sites_free(&s);
}

/*
 * A name remembered for the next records of its site (a loop's) gives way to
 * a new announcement at once, and never answers for a time before it held.
 */
static void test_remembered_names_follow_announcements(void **state)
{
	struct sb_fast_sites s;
	int k;

	(void)state;
	sb_fast_sites_init(&s);
	assert_int_equal(sb_fast_sites_name(&s, SITE, 0xa, 1 * MS), 0);
	for (k = 0; k < 3; k++)
		assert_int_equal(name_at(&s, SITE, 2 * MS + k), 0xa);
	assert_int_equal(name_at(&s, SITE, 0), 0xa);	/* before it: the oldest, not remembered */
	assert_int_equal(sb_fast_sites_name(&s, SITE, 0xb, 5 * MS), 0);
	assert_int_equal(name_at(&s, SITE, 6 * MS), 0xb);
	assert_int_equal(name_at(&s, SITE, 6 * MS + 1), 0xb);
	assert_int_equal(name_at(&s, SITE, 4 * MS), 0xa);
	assert_int_equal(name_at(&s, SITE, 7 * MS), 0xb);
	/* Another site in the same memo entry, and an unknown one, are their own. */
	for (k = 1; k < 200; k++)
		assert_int_equal(sb_fast_sites_name(&s, SITE + 8 * (uint64_t)k, 0x100 + k, 1 * MS), 0);
	for (k = 1; k < 200; k++)
		assert_int_equal(name_at(&s, SITE + 8 * (uint64_t)k, 8 * MS), 0x100 + k);
	assert_int_equal(name_at(&s, SITE, 8 * MS), 0xb);
	sb_fast_sites_free(&s);
}

/* Reloaded more often than generations are kept: the newest are exact, older ones the oldest kept. */
static void test_many_reloads(void **state)
{
	struct sb_fast_sites s;
	int64_t k, n = 3 * SB_FAST_SITE_GENERATIONS;

	(void)state;
	sb_fast_sites_init(&s);
	for (k = 0; k < n; k++)
		assert_int_equal(sb_fast_sites_name(&s, SITE, (uint64_t)(100 + k), (k + 1) * MS), 0);
	for (k = n - SB_FAST_SITE_GENERATIONS; k < n; k++)
		assert_int_equal(name_at(&s, SITE, (k + 1) * MS + MS / 2), 100 + k);
	assert_int_equal(name_at(&s, SITE, MS), 100 + n - SB_FAST_SITE_GENERATIONS);
	sb_fast_sites_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_site),
		cmocka_unit_test(test_reused_address_keeps_each_name),
		cmocka_unit_test(test_late_and_invalid_names),
		cmocka_unit_test(test_remembered_names_follow_announcements),
		cmocka_unit_test(test_many_reloads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
