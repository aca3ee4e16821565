/* Event chunks compressed on worker threads (io/h5chunks.c): what HDF5's filters store. */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "fixtures.h"
#include "io/h5chunks.h"

#define ROWS 4096

/* Sorted times with noise in their low bytes, as a recording's starts look. */
static void fill(int64_t *v, size_t n, int64_t base)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = base + (int64_t)i * 97 + (int64_t)((i * 2654435761u) % 13);
}

static void test_shuffle_groups_each_byte(void **state)
{
	const int64_t in[2] = { 0x0807060504030201, 0x1817161514131211 };
	uint8_t out[16];
	unsigned b;

	(void)state;
	sb_h5_shuffle8(in, 2, out);
	for (b = 0; b < 8; b++) {
		assert_int_equal(out[2 * b], b + 1);
		assert_int_equal(out[2 * b + 1], 0x11 + b);
	}
}

/* Blocks of eight and the tail after them: byte b of value i at b * n + i. */
static void test_shuffle_of_any_length(void **state)
{
	const size_t n = 1003;
	int64_t *v = malloc(n * sizeof(*v));
	uint8_t *out = malloc(n * 8);
	size_t i;
	unsigned b;

	(void)state;
	assert_non_null(v);
	assert_non_null(out);
	for (i = 0; i < n; i++)
		v[i] = (int64_t)(0x0123456789abcdefull * (i + 1));
	sb_h5_shuffle8(v, n, out);
	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			if (out[b * n + i] != (uint8_t)((uint64_t)v[i] >> (8 * b)))
				fail_msg("value %zu byte %u misplaced", i, b);
	free(v);
	free(out);
}

/* A chunked, shuffled and deflated column as create_event_column makes it. */
static hid_t filtered_column(hid_t f, const char *name, hsize_t n)
{
	hsize_t chunk = ROWS;
	hid_t s = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), d;

	assert_true(H5Pset_chunk(dcpl, 1, &chunk) >= 0);
	assert_true(H5Pset_shuffle(dcpl) >= 0);
	assert_true(H5Pset_deflate(dcpl, 1) >= 0);
	d = H5Dcreate2(f, name, H5T_STD_I64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	assert_true(d >= 0);
	H5Pclose(dcpl);
	H5Sclose(s);
	return d;
}

/* The bytes stored for chunk first of d. */
static void *stored_chunk(hid_t d, hsize_t first, hsize_t *len)
{
	uint32_t mask = 0;
	void *buf;

	assert_true(H5Dget_chunk_storage_size(d, &first, len) >= 0);
	buf = malloc(*len);
	assert_non_null(buf);
	assert_true(H5Dread_chunk(d, H5P_DEFAULT, &first, &mask, buf) >= 0);
	assert_int_equal(mask, 0);
	return buf;
}

/*
 * Three columns of 2.5 chunks: the chunks written whole are the bytes
 * libhdf5's own filters store for the same values (the last chunk too, its
 * rows past the end the fill value), and read back through them.
 */
static void test_chunks_are_what_hdf5_stores(void **state)
{
	const size_t n = 2 * ROWS + ROWS / 2, cols = 3;
	struct sb_h5_chunker *z = sb_h5_chunker_new(cols, ROWS, 2);
	int64_t *v = malloc(n * sizeof(*v)), *back = malloc(n * sizeof(*back));
	hid_t f, ours, theirs;
	hsize_t first, la, lb;
	size_t c, m;
	void *a, *b;

	(void)state;
	assert_non_null(z);
	assert_non_null(v);
	assert_non_null(back);
	f = H5Fcreate(tmp_path("chunks.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(f >= 0);
	ours = filtered_column(f, "ours", n);
	theirs = filtered_column(f, "theirs", n);
	fill(v, n, 1000000007);
	assert_true(H5Dwrite(theirs, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	for (first = 0; first < n; first += ROWS) {
		m = n - first < ROWS ? n - first : ROWS;
		for (c = 0; c < cols; c++) {
			memcpy(sb_h5_chunker_job(z, c)->values, v + first, m * sizeof(*v));
			sb_h5_chunker_job(z, c)->n = m;
		}
		assert_int_equal(sb_h5_chunker_run(z, cols), 0);
		assert_int_equal(sb_h5_chunk_write(ours, first, sb_h5_chunker_job(z, cols - 1)), 0);
		a = stored_chunk(ours, first, &la);
		b = stored_chunk(theirs, first, &lb);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
		free(a);
		free(b);
	}
	assert_true(H5Dread(ours, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
	assert_memory_equal(back, v, n * sizeof(*v));
	H5Dclose(ours);
	H5Dclose(theirs);
	H5Fclose(f);
	sb_h5_chunker_free(z);
	free(v);
	free(back);
}

/* Every job of a round is done when run returns, each from its own values. */
static void test_every_job_is_compressed(void **state)
{
	const size_t cols = 7;
	struct sb_h5_chunker *z = sb_h5_chunker_new(cols, ROWS, 3);
	uint8_t *raw = malloc(ROWS * 8);
	int64_t *want = malloc(ROWS * 8);
	uLongf len;
	size_t c, round;

	(void)state;
	assert_non_null(z);
	assert_null(sb_h5_chunker_job(z, cols));
	for (round = 0; round < 5; round++) {
		for (c = 0; c < cols; c++) {
			fill(sb_h5_chunker_job(z, c)->values, ROWS, (int64_t)(round * 100 + c));
			sb_h5_chunker_job(z, c)->n = ROWS;
		}
		assert_int_equal(sb_h5_chunker_run(z, cols), 0);
		for (c = 0; c < cols; c++) {
			len = ROWS * 8;
			assert_int_equal(uncompress(raw, &len, sb_h5_chunker_job(z, c)->packed,
						    sb_h5_chunker_job(z, c)->packed_len), Z_OK);
			assert_int_equal(len, ROWS * 8);
			fill(want, ROWS, (int64_t)(round * 100 + c));
			sb_h5_shuffle8(want, ROWS, (uint8_t *)sb_h5_chunker_job(z, c)->values);
			assert_memory_equal(raw, sb_h5_chunker_job(z, c)->values, ROWS * 8);
		}
	}
	assert_int_equal(sb_h5_chunker_run(z, cols + 1), -EINVAL);
	sb_h5_chunker_free(z);
	free(raw);
	free(want);
}

/* What HDF5's filters store for a chunk of values: shuffled, then compress2 at level 1. */
static void *filtered(const int64_t *v, size_t n, uLongf *len)
{
	uint8_t *shuffled = malloc(n * 8);
	void *out = malloc(compressBound(n * 8));

	assert_non_null(shuffled);
	assert_non_null(out);
	sb_h5_shuffle8(v, n, shuffled);
	*len = compressBound(n * 8);
	assert_int_equal(compress2(out, len, shuffled, n * 8, 1), Z_OK);
	free(shuffled);
	return out;
}

/*
 * Chunks of one value, which a worker deflates once and then remembers, are
 * still what the filters store: for more values than it keeps, over rounds,
 * a partial chunk of one (its rows past the end are zeros) and a chunk that
 * differs from one value in its last row only.
 */
static void test_chunks_of_one_value_are_what_the_filters_store(void **state)
{
	static const int64_t values[] = { 0, -1, 7, 42, 99, -1, 0, 5 };
	const size_t cols = sizeof(values) / sizeof(values[0]);
	struct sb_h5_chunker *z = sb_h5_chunker_new(cols + 2, ROWS, 1);
	int64_t *want = malloc(ROWS * 8);
	struct sb_h5_chunk_job *job;
	size_t c, round, i;
	uLongf len;
	void *expect;

	(void)state;
	assert_non_null(z);
	assert_non_null(want);
	for (round = 0; round < 3; round++) {
		for (c = 0; c < cols + 2; c++) {
			job = sb_h5_chunker_job(z, c);
			for (i = 0; i < ROWS; i++)
				job->values[i] = values[(c + round) % cols];
			job->n = ROWS;
		}
		sb_h5_chunker_job(z, cols)->n = ROWS / 3;
		sb_h5_chunker_job(z, cols + 1)->values[ROWS - 1] = 3;
		assert_int_equal(sb_h5_chunker_run(z, cols + 2), 0);
		for (c = 0; c < cols + 2; c++) {
			for (i = 0; i < ROWS; i++)
				want[i] = values[(c + round) % cols];
			if (c == cols)
				memset(want + ROWS / 3, 0, (ROWS - ROWS / 3) * 8);
			if (c == cols + 1)
				want[ROWS - 1] = 3;
			expect = filtered(want, ROWS, &len);
			job = sb_h5_chunker_job(z, c);
			assert_int_equal(job->packed_len, len);
			assert_memory_equal(job->packed, expect, len);
			free(expect);
		}
	}
	sb_h5_chunker_free(z);
	free(want);
}

/*
 * Mallocs of every size class, more than a thread's cache holds of each: they
 * hang when the child was forked while a worker held an allocator lock.
 */
static void allocate_everything(void)
{
	void *held[64];
	size_t size;
	int i;

	for (size = 16; size < (256 << 10); size += size / 8) {
		for (i = 0; i < 64; i++)
			held[i] = malloc(size);
		for (i = 0; i < 64; i++)
			free(held[i]);
	}
}

static bool child_allocates_in_time(void)
{
	const struct timespec tick = { 0, 1000000 };
	int i, status = 0;
	pid_t pid = fork(), w = 0;

	assert_true(pid >= 0);
	if (!pid) {
		allocate_everything();
		_exit(0);
	}
	for (i = 0; i < 5000 && !w; i++) {
		w = waitpid(pid, &status, WNOHANG);
		if (!w)
			nanosleep(&tick, NULL);
	}
	if (!w) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return false;
	}
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

/*
 * A writer forks readers of its inputs right after making its chunker
 * (h5guard.c). glibc's malloc resets its locks in a child; ASan's does not,
 * so the sanitizer build of this test is the one that catches a worker
 * still starting at fork.
 */
static void test_fork_after_new_finds_workers_parked(void **state)
{
	struct sb_h5_chunker *z;
	int round;

	(void)state;
	for (round = 0; round < 40; round++) {
		z = sb_h5_chunker_new(2, ROWS, 8);
		assert_non_null(z);
		assert_true(child_allocates_in_time());
		sb_h5_chunker_free(z);
	}
}

static void test_thread_count_is_bounded(void **state)
{
	(void)state;
	assert_int_equal(sb_h5_chunk_threads(0), 1);
	assert_int_equal(sb_h5_chunk_threads(1), 1);
	assert_true(sb_h5_chunk_threads(1000) <= 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shuffle_groups_each_byte),
		cmocka_unit_test(test_shuffle_of_any_length),
		cmocka_unit_test(test_chunks_are_what_hdf5_stores),
		cmocka_unit_test(test_every_job_is_compressed),
		cmocka_unit_test(test_chunks_of_one_value_are_what_the_filters_store),
		cmocka_unit_test(test_fork_after_new_finds_workers_parked),
		cmocka_unit_test(test_thread_count_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
