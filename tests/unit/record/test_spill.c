/* Tests for the external sort: complete, ordered output and memory that stays within its budget. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/spill.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#define TMPDIR "/tmp"
#define KiB 1024UL
#define MiB (1024UL * KiB)
/* A budget that holds as many records as b held when records had one metric slot (48 bytes). */
#define RECS_OF(b) ((b) / 48 * sizeof(struct sb_spill_rec))

/* An order-independent fingerprint of a multiset of records. */
struct digest {
	uint64_t count;
	uint64_t sum;
	uint64_t xor;
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void digest_add(struct digest *d, const struct sb_spill_rec *r)
{
	uint64_t h = mix(((uint64_t)r->pair << 32) | r->thread);

	h = mix(h ^ (uint64_t)r->start);
	h = mix(h ^ (uint64_t)r->end);
	h = mix(h ^ (uint64_t)r->call_id);
	h = mix(h ^ (uint64_t)r->parent_id);
	h = mix(h ^ (uint64_t)r->metric[0]);
	d->count++;
	d->sum += h;
	d->xor ^= h;
}

/* Record i of a reproducible random trace: n_pairs pairs, starts in [0, start_range). */
static struct sb_spill_rec gen(uint64_t seed, uint64_t i, uint32_t n_pairs, uint64_t start_range)
{
	uint64_t h = mix(seed ^ mix(i));
	int64_t start = (int64_t)(h % start_range);

	return (struct sb_spill_rec){
		.pair = (uint32_t)(mix(h) % n_pairs),
		.thread = (uint32_t)(h >> 40),
		.start = start,
		.end = start + (int64_t)(h >> 50),
		.call_id = (int64_t)i,
		.parent_id = i % 3 ? (int64_t)i - 1 : -1,
		.metric = { (int64_t)(h & 0xff) },
	};
}

static int fill(struct sb_spill *s, uint64_t seed, uint64_t n, uint32_t n_pairs,
		uint64_t start_range, struct digest *d)
{
	for (uint64_t i = 0; i < n; i++) {
		struct sb_spill_rec r = gen(seed, i, n_pairs, start_range);
		int err = sb_spill_add(s, &r);

		if (err)
			return err;
		digest_add(d, &r);
	}
	return 0;
}

static int key_cmp(const struct sb_spill_rec *a, const struct sb_spill_rec *b)
{
	if (a->pair != b->pair)
		return a->pair < b->pair ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->call_id != b->call_id)
		return a->call_id < b->call_id ? -1 : 1;
	return 0;
}

/* Read everything, batch sizes cycling through batches[], checking order and the digest. */
static void drain_and_check(struct sb_spill *s, const size_t *batches, size_t n_batches,
			    const struct digest *want)
{
	struct sb_spill_rec *out = malloc(4096 * sizeof(*out));
	struct sb_spill_rec prev = { 0 };
	struct digest got = { 0 };
	ssize_t n;
	size_t b = 0;

	assert_non_null(out);
	for (;;) {
		size_t max = batches[b++ % n_batches];

		assert_true(max <= 4096);
		n = sb_spill_read(s, out, max);
		assert_true(n >= 0);
		assert_true((size_t)n <= max);
		if (!n)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (got.count)
				assert_true(key_cmp(&prev, &out[i]) <= 0);
			digest_add(&got, &out[i]);
			prev = out[i];
		}
	}
	/* The end stays the end. */
	assert_int_equal(sb_spill_read(s, out, 4096), 0);
	assert_int_equal(got.count, want->count);
	assert_int_equal(got.sum, want->sum);
	assert_int_equal(got.xor, want->xor);
	free(out);
}

static const size_t big_batch[] = { 4096 };

static void test_empty_input_reads_nothing(void **state)
{
	struct sb_spill *s = sb_spill_new(TMPDIR, 1 * MiB);
	struct sb_spill_rec r;

	(void)state;
	assert_non_null(s);
	assert_int_equal(sb_spill_sort(s), 0);
	assert_int_equal(sb_spill_count(s), 0);
	assert_int_equal(sb_spill_read(s, &r, 1), 0);
	assert_int_equal(sb_spill_runs(s), 0);
	sb_spill_free(s);
}

/* The common small case: no file is ever created, so even a missing dir is fine. */
static void test_small_input_stays_in_memory(void **state)
{
	struct sb_spill *s = sb_spill_new("/nonexistent/scope-bpf", 1 * MiB);
	size_t cap = 1 * MiB / 2 / sizeof(struct sb_spill_rec);
	struct digest d = { 0 };

	(void)state;
	assert_non_null(s);
	/* Exactly one full buffer still stays in memory. */
	assert_int_equal(fill(s, 1, cap, 5, 1000000, &d), 0);
	assert_int_equal(sb_spill_sort(s), 0);
	assert_int_equal(sb_spill_runs(s), 0);
	assert_int_equal(sb_spill_count(s), cap);
	drain_and_check(s, big_batch, 1, &d);
	sb_spill_free(s);
}

static void test_unusable_dir_reports_errno(void **state)
{
	struct sb_spill *s = sb_spill_new("/nonexistent/scope-bpf", 64 * KiB);
	struct digest d = { 0 };

	(void)state;
	assert_non_null(s);
	assert_int_equal(fill(s, 2, 10000, 5, 1000000, &d), -ENOENT);
	sb_spill_free(s);
}

static void test_many_runs_merge_in_one_pass(void **state)
{
	struct sb_spill *s = sb_spill_new(TMPDIR, RECS_OF(256 * KiB));
	struct digest d = { 0 };

	(void)state;
	assert_non_null(s);
	assert_int_equal(fill(s, 3, 100000, 50, 1ULL << 40, &d), 0);
	assert_int_equal(sb_spill_sort(s), 0);
	assert_true(sb_spill_runs(s) > 10);
	assert_int_equal(sb_spill_merge_passes(s), 0);
	assert_int_equal(sb_spill_count(s), 100000);
	drain_and_check(s, big_batch, 1, &d);
	sb_spill_free(s);
}

/*
 * Under a large budget a run is still 3 MiB at most: the recorder's thread sorts and
 * writes it while the kernel's ring buffer waits.
 */
static void test_runs_stay_short_under_a_large_budget(void **state)
{
	const size_t run = (3 * MiB) / sizeof(struct sb_spill_rec);
	struct sb_spill *s = sb_spill_new(TMPDIR, 64 * MiB);
	struct digest d = { 0 };

	(void)state;
	assert_non_null(s);
	assert_int_equal(fill(s, 7, 4 * run + 1, 20, 1ULL << 40, &d), 0);
	assert_int_equal(sb_spill_sort(s), 0);
	/* Four full runs on disk, the last record in memory; one merge, no extra pass. */
	assert_int_equal(sb_spill_runs(s), 4);
	assert_int_equal(sb_spill_merge_passes(s), 0);
	assert_int_equal(sb_spill_count(s), 4 * run + 1);
	drain_and_check(s, big_batch, 1, &d);
	sb_spill_free(s);
}

/* A second pass (the GPU attribution's) reads the same records again, from disk and from memory. */
static void test_rewind_reads_everything_again(void **state)
{
	struct sb_spill *disk = sb_spill_new(TMPDIR, RECS_OF(256 * KiB));
	struct sb_spill *mem = sb_spill_new(TMPDIR, RECS_OF(256 * KiB));
	struct digest d = { 0 }, m = { 0 };
	static const size_t odd[] = { 7, 300 };

	(void)state;
	assert_non_null(disk);
	assert_non_null(mem);
	assert_int_equal(sb_spill_rewind(disk), -EINVAL);
	assert_int_equal(fill(disk, 5, 50000, 20, 1ULL << 40, &d), 0);
	assert_int_equal(fill(mem, 6, 100, 4, 1000, &m), 0);
	assert_int_equal(sb_spill_sort(disk), 0);
	assert_int_equal(sb_spill_sort(mem), 0);
	assert_true(sb_spill_runs(disk) > 1);
	assert_int_equal(sb_spill_runs(mem), 0);
	drain_and_check(disk, odd, 2, &d);
	assert_int_equal(sb_spill_rewind(disk), 0);
	drain_and_check(disk, big_batch, 1, &d);
	drain_and_check(mem, big_batch, 1, &m);
	assert_int_equal(sb_spill_rewind(mem), 0);
	drain_and_check(mem, odd, 2, &m);
	sb_spill_free(disk);
	sb_spill_free(mem);
}

static void test_tiny_budget_needs_merge_passes(void **state)
{
	struct sb_spill *s = sb_spill_new(TMPDIR, 64 * KiB);
	struct digest d = { 0 };

	(void)state;
	assert_non_null(s);
	assert_int_equal(fill(s, 4, 200000, 50, 1ULL << 40, &d), 0);
	assert_int_equal(sb_spill_sort(s), 0);
	assert_true(sb_spill_runs(s) > 100);
	assert_true(sb_spill_merge_passes(s) >= 1);
	drain_and_check(s, big_batch, 1, &d);
	sb_spill_free(s);
}

/* A budget below the floor still works, with the floor's buffers. */
static void test_budget_below_floor_still_sorts(void **state)
{
	struct sb_spill *s = sb_spill_new(TMPDIR, 0);
	struct digest d = { 0 };

	(void)state;
	assert_non_null(s);
	assert_int_equal(fill(s, 5, 50000, 7, 1000, &d), 0);
	assert_int_equal(sb_spill_sort(s), 0);
	assert_true(sb_spill_merge_passes(s) >= 2);
	drain_and_check(s, big_batch, 1, &d);
	sb_spill_free(s);
}

/* Many calls share a start (coarse clocks); call_id then decides, and nothing is lost. */
static void test_duplicate_starts_ordered_by_call_id(void **state)
{
	struct sb_spill *s = sb_spill_new(TMPDIR, 64 * KiB);
	struct digest d = { 0 };

	(void)state;
	assert_non_null(s);
	assert_int_equal(fill(s, 6, 30000, 3, 4, &d), 0);
	/* Identical keys too: the same records twice. */
	assert_int_equal(fill(s, 6, 30000, 3, 4, &d), 0);
	assert_int_equal(sb_spill_sort(s), 0);
	assert_true(sb_spill_runs(s) > 1);
	drain_and_check(s, big_batch, 1, &d);
	sb_spill_free(s);
}

static void test_sorted_and_reversed_input(void **state)
{
	struct sb_spill *s = sb_spill_new(TMPDIR, 128 * KiB);
	struct digest d = { 0 };

	(void)state;
	assert_non_null(s);
	for (int64_t i = 0; i < 40000; i++) {
		struct sb_spill_rec r = { .pair = 1, .start = i, .call_id = i };

		if (i >= 20000)
			r.start = 40000 - i;
		assert_int_equal(sb_spill_add(s, &r), 0);
		digest_add(&d, &r);
	}
	assert_int_equal(sb_spill_sort(s), 0);
	drain_and_check(s, big_batch, 1, &d);
	sb_spill_free(s);
}

/*
 * Sorted input but for one record now and then, earlier than the one before
 * it: at a run's start, within it, at its end, and last of all (the buffer
 * read from memory). Each run with one is sorted whole.
 */
static void test_one_record_out_of_place_is_sorted(void **state)
{
	struct sb_spill *s = sb_spill_new(TMPDIR, 128 * KiB);
	size_t cap = 64 * KiB / sizeof(struct sb_spill_rec);
	struct digest d = { 0 };
	int64_t n = 10 * (int64_t)cap + 5, i;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < n; i++) {
		struct sb_spill_rec r = { .pair = 2, .start = 1000000 + i, .call_id = i };

		if (i % 997 == 5 || i % (int64_t)cap == 0 || i % (int64_t)cap == (int64_t)cap - 1 ||
		    i == n - 1)
			r.start -= 500;
		assert_int_equal(sb_spill_add(s, &r), 0);
		digest_add(&d, &r);
	}
	assert_int_equal(sb_spill_sort(s), 0);
	assert_true(sb_spill_runs(s) >= 10);
	drain_and_check(s, big_batch, 1, &d);
	sb_spill_free(s);
}

static int rec_cmp(const void *a, const void *b)
{
	return key_cmp(a, b);
}

/*
 * Runs packed where every record fits 32 bytes and whole where one does not
 * (a start 2^32 past the run's least, a parent id above the call's, a metric
 * past 2^32 - 2), values at the packed form's edges among them: every field
 * of every record reads back as it was added, through one merge pass too.
 */
static void test_packed_and_whole_runs_read_back_exactly(void **state)
{
	size_t budgets[] = { 1 * MiB, 16 * KiB }, n = 40000, i, b;
	struct sb_spill_rec *want = calloc(n, sizeof(*want)), got;
	struct sb_spill *s;

	(void)state;
	assert_non_null(want);
	for (i = 0; i < n; i++) {
		uint64_t h = mix(i);
		struct sb_spill_rec *r = &want[i];

		*r = (struct sb_spill_rec){ .pair = (uint32_t)(h % 5), .thread = (uint32_t)(h >> 60),
					    .start = 5000000000LL + (int64_t)(h % 100000),
					    .call_id = 1000 + (int64_t)i, .parent_id = -1,
					    .metric = { (int64_t)(h >> 40 & 0xff), -1 } };
		r->end = r->start + (int64_t)(h >> 48);
		if (i % 7 == 1)
			r->parent_id = r->call_id - 1 - (int64_t)(h >> 50);
		if (i % 1001 == 3) {
			r->end = r->start + UINT32_MAX;
			r->metric[0] = UINT32_MAX - 1;
			r->parent_id = r->call_id - UINT32_MAX;
		}
		/* Records no run of theirs can pack, between 20 000 and 26 000 only. */
		if (i == 20008)
			r->start -= 1LL << 32;
		if (i == 22000)
			r->parent_id = r->call_id + 1;
		if (i == 24000)
			r->metric[1] = UINT32_MAX;
		if (i == 26000)
			r->metric[0] = -2;
	}
	for (b = 0; b < 2; b++) {
		s = sb_spill_new(TMPDIR, budgets[b]);
		assert_non_null(s);
		for (i = 0; i < n; i++)
			assert_int_equal(sb_spill_add(s, &want[i]), 0);
		assert_int_equal(sb_spill_sort(s), 0);
		assert_true(sb_spill_runs_packed(s) > 0);
		assert_true(sb_spill_runs_packed(s) < sb_spill_runs(s));
		assert_true(b ? sb_spill_merge_passes(s) > 0 : sb_spill_merge_passes(s) == 0);
		if (!b)
			qsort(want, n, sizeof(*want), rec_cmp);
		for (i = 0; i < n; i++) {
			assert_int_equal(sb_spill_read(s, &got, 1), 1);
			assert_memory_equal(&got, &want[i], sizeof(got));
		}
		assert_int_equal(sb_spill_read(s, &got, 1), 0);
		sb_spill_free(s);
	}
	free(want);
}

static void test_odd_batches_from_memory_and_disk(void **state)
{
	static const size_t odd[] = { 1, 7, 1000 };
	size_t budgets[] = { RECS_OF(4 * MiB), RECS_OF(64 * KiB) };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct sb_spill *s = sb_spill_new(TMPDIR, budgets[i]);
		struct digest d = { 0 };

		assert_non_null(s);
		assert_int_equal(fill(s, 7 + i, 20000, 11, 1ULL << 20, &d), 0);
		assert_int_equal(sb_spill_sort(s), 0);
		assert_true(i ? sb_spill_runs(s) > 0 : sb_spill_runs(s) == 0);
		drain_and_check(s, odd, 3, &d);
		sb_spill_free(s);
	}
}

static void test_misuse_is_rejected(void **state)
{
	struct sb_spill *s = sb_spill_new(TMPDIR, 64 * KiB);
	struct sb_spill_rec r = { 0 };

	(void)state;
	assert_non_null(s);
	assert_int_equal(sb_spill_read(s, &r, 1), -EINVAL);
	assert_int_equal(sb_spill_sort(s), 0);
	assert_int_equal(sb_spill_add(s, &r), -EINVAL);
	assert_int_equal(sb_spill_sort(s), -EINVAL);
	sb_spill_free(s);
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A full disk, made here with a file size limit (EFBIG), fails the first spill.
 * From then on every record is refused at once: no re-sort of the records in
 * the full buffer (a run's 3 MiB under the recorder's budget) per record
 * (minutes of CPU once), no retry even when space is back; what was kept
 * before the error still sorts and reads.
 */
/* A run that failed to be written stays in memory whole: packed (close starts) or not. */
static void write_error_is_sticky(uint64_t start_range)
{
	size_t cap = 3 * MiB / sizeof(struct sb_spill_rec);
	struct sb_spill *s = sb_spill_new(TMPDIR, 24 * MiB);
	struct rlimit old, small;
	struct digest d = { 0 };
	struct sb_spill_rec r;
	double cpu;

	assert_non_null(s);
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(fill(s, 10, cap, 50, start_range, &d), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = (struct rlimit){ .rlim_cur = 1 * MiB, .rlim_max = old.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	r = gen(10, cap, 50, start_range);
	assert_int_equal(sb_spill_add(s, &r), -EFBIG);
	cpu = cpu_seconds();
	for (int i = 0; i < 200; i++)
		assert_int_equal(sb_spill_add(s, &r), -EFBIG);
	cpu = cpu_seconds() - cpu;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	print_message("200 records refused after the error in %.3f ms of CPU\n", cpu * 1e3);
	assert_true(cpu < 0.05);
	assert_int_equal(sb_spill_add(s, &r), -EFBIG);
	assert_int_equal(sb_spill_count(s), cap);
	assert_int_equal(sb_spill_sort(s), 0);
	drain_and_check(s, big_batch, 1, &d);
	sb_spill_free(s);
}

static void test_write_error_is_sticky_and_never_resorts(void **state)
{
	(void)state;
	write_error_is_sticky(1ULL << 40);
}

static void test_write_error_of_a_packed_run_keeps_it_whole(void **state)
{
	(void)state;
	write_error_is_sticky(1ULL << 20);
}

/* kB value of a /proc/self/status line, or -1. */
static long status_kb(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long kb = -1;
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, len) && line[len] == ':') {
			kb = strtol(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

/* Restart the peak so earlier tests' allocations do not hide this one's. */
static void reset_peak_rss(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (!f)
		return;
	fputs("5", f);
	fclose(f);
}

/* 2 M records (96 MiB) through a 16 MiB budget: the peak grows by the budget, not the data. */
static void test_peak_rss_follows_budget_not_data(void **state)
{
	struct sb_spill *s;
	struct digest d = { 0 };
	long before, after;

	(void)state;
#ifdef UNDER_ASAN
	skip();
#endif
	reset_peak_rss();
	before = status_kb("VmHWM");
	if (before < 0)
		skip();
	s = sb_spill_new(TMPDIR, 16 * MiB);
	assert_non_null(s);
	assert_int_equal(fill(s, 9, 2000000, 1000, 1ULL << 40, &d), 0);
	assert_int_equal(sb_spill_sort(s), 0);
	drain_and_check(s, big_batch, 1, &d);
	after = status_kb("VmHWM");
	sb_spill_free(s);
	print_message("peak RSS growth %ld KiB for 2M records, 16 MiB budget\n", after - before);
	assert_true(after - before < (long)(40 * MiB / KiB));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peak_rss_follows_budget_not_data),
		cmocka_unit_test(test_empty_input_reads_nothing),
		cmocka_unit_test(test_small_input_stays_in_memory),
		cmocka_unit_test(test_unusable_dir_reports_errno),
		cmocka_unit_test(test_many_runs_merge_in_one_pass),
		cmocka_unit_test(test_tiny_budget_needs_merge_passes),
		cmocka_unit_test(test_runs_stay_short_under_a_large_budget),
		cmocka_unit_test(test_rewind_reads_everything_again),
		cmocka_unit_test(test_budget_below_floor_still_sorts),
		cmocka_unit_test(test_duplicate_starts_ordered_by_call_id),
		cmocka_unit_test(test_sorted_and_reversed_input),
		cmocka_unit_test(test_one_record_out_of_place_is_sorted),
		cmocka_unit_test(test_packed_and_whole_runs_read_back_exactly),
		cmocka_unit_test(test_odd_batches_from_memory_and_disk),
		cmocka_unit_test(test_misuse_is_rejected),
		cmocka_unit_test(test_write_error_is_sticky_and_never_resorts),
		cmocka_unit_test(test_write_error_of_a_packed_run_keeps_it_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
