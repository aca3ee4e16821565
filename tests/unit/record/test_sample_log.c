/* Unit: timed samples kept in bounded memory come back whole and in order; what is not kept is counted. */
#include <dirent.h>
#include <errno.h>
#include <linux/types.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/sources/sample_log.h"
#include "region.h"

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sample-log.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	return rmdir(dir);
}

static void add(struct sb_sample_log *l, uint64_t from, uint64_t to)
{
	struct sb_sample_event e;
	uint64_t i;

	for (i = from; i < to; i++) {
		memset(&e, 0, sizeof(e));
		e.time = 1000 + i;
		e.key.tid = (__u32)i;
		e.cpu = (__u32)(i % 3);
		sb_sample_log_add(l, &e);
	}
}

struct seen {
	uint64_t n;
	uint64_t stop_at;	/* return -EINTR on this record; 0 never */
};

/* Records must come back as they were added: times 1000, 1001, ... */
static int check_next(void *ctx, const struct sb_sample_event *e)
{
	struct seen *s = ctx;

	assert_int_equal(e->time, 1000 + s->n);
	assert_int_equal(e->key.tid, s->n);
	assert_int_equal(e->cpu, s->n % 3);
	if (++s->n == s->stop_at)
		return -EINTR;
	return 0;
}

/* Whether dir holds anything: the log's file has no name. */
static bool dir_empty(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return !n;
}

static void test_records_come_back_in_order_from_memory_and_disk(void **state)
{
	struct sb_sample_log l;
	struct seen s = { 0 };

	(void)state;
	assert_int_equal(sb_sample_log_init(&l, dir, 1000, 4), 0);
	add(&l, 0, 3);
	assert_null(l.file);	/* a short recording never writes */
	add(&l, 3, 11);
	assert_non_null(l.file);
	assert_true(dir_empty());
	assert_int_equal(sb_sample_log_count(&l), 11);
	assert_int_equal(sb_sample_log_each(&l, check_next, &s), 0);
	assert_int_equal(s.n, 11);
	/* Read again, and after more records: the file is appended to, not overwritten. */
	add(&l, 11, 20);
	s.n = 0;
	assert_int_equal(sb_sample_log_each(&l, check_next, &s), 0);
	assert_int_equal(s.n, 20);
	assert_int_equal(l.dropped, 0);
	sb_sample_log_free(&l);
}

static void test_records_beyond_the_limit_are_counted_not_kept(void **state)
{
	struct sb_sample_log l;
	struct seen s = { 0 };

	(void)state;
	assert_int_equal(sb_sample_log_init(&l, dir, 10, 4), 0);
	add(&l, 0, 25);
	assert_int_equal(sb_sample_log_count(&l), 10);
	assert_int_equal(l.dropped, 15);
	assert_int_equal(sb_sample_log_each(&l, check_next, &s), 0);
	assert_int_equal(s.n, 10);
	sb_sample_log_free(&l);
}

/* A folder that cannot take the file: what overflows the buffer is lost, counted; the rest kept. */
static void test_without_a_file_overflowing_records_are_counted(void **state)
{
	struct sb_sample_log l;
	struct seen s = { 0 };
	char gone[96];

	(void)state;
	snprintf(gone, sizeof(gone), "%s/missing", dir);
	assert_int_equal(sb_sample_log_init(&l, gone, 1000, 4), 0);
	add(&l, 0, 10);
	assert_int_equal(l.error, -ENOENT);
	assert_int_equal(l.dropped, 8);		/* two full buffers */
	assert_int_equal(sb_sample_log_count(&l), 2);
	s.n = 8;				/* the last two remain */
	assert_int_equal(sb_sample_log_each(&l, check_next, &s), 0);
	assert_int_equal(s.n, 10);
	sb_sample_log_free(&l);
}

static void test_a_callback_error_stops_the_walk(void **state)
{
	struct sb_sample_log l;
	struct seen s = { .stop_at = 6 };

	(void)state;
	assert_int_equal(sb_sample_log_init(&l, dir, 1000, 4), 0);
	add(&l, 0, 10);
	assert_int_equal(sb_sample_log_each(&l, check_next, &s), -EINTR);
	assert_int_equal(s.n, 6);
	sb_sample_log_free(&l);
}

static bool power_of_two(__u32 x)
{
	return x && !(x & (x - 1));
}

/* The ring holds SB_SAMPLE_RING_SECONDS of samples from every CPU, within its bounds. */
static void test_the_sample_ring_grows_with_the_rate_within_bounds(void **state)
{
	__u32 slow = sb_sample_ring_bytes(99, 2), fast = sb_sample_ring_bytes(999, 128);
	uint64_t record = sizeof(struct sb_sample_event) + 8;

	(void)state;
	assert_int_equal(slow, SB_SAMPLE_RING_MIN);
	assert_true(power_of_two(fast));
	assert_true(fast >= 999 * 128 * record * SB_SAMPLE_RING_SECONDS);
	assert_true(fast < 2 * 999 * 128 * record * SB_SAMPLE_RING_SECONDS);
	assert_int_equal(sb_sample_ring_bytes(100000, 4096), SB_SAMPLE_RING_MAX);
	assert_int_equal(sb_sample_ring_bytes(99, 0), SB_SAMPLE_RING_MIN);
}

#define T(t) cmocka_unit_test_setup_teardown(t, make_dir, remove_dir)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_records_come_back_in_order_from_memory_and_disk),
		T(test_records_beyond_the_limit_are_counted_not_kept),
		T(test_without_a_file_overflowing_records_are_counted),
		T(test_a_callback_error_stops_the_walk),
		T(test_the_sample_ring_grows_with_the_rate_within_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
