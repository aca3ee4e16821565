/* HDF5 writer and reader: round trips, atomic replacement, scope-profiler files, corrupt input. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "io/h5read.h"
#include "io/h5write.h"
#include "fixtures.h"

static bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* ---- a synthetic profile: 2 ranks, 3 regions, nested calls, threads, processes ---- */

static const struct sb_event events[] = {
	/* rank 0, main */
	{ 100, 1000, 0, 1, -1, { -1, 30 } },
	/* rank 0, solve: by start; the second on another thread */
	{ 200, 300, 0, 2, 1, { 50, 0 } },
	{ 250, 450, 1, 6, -1, { -1, 10 } },
	{ 400, 600, 0, 3, 1, { -1, 0 } },
	/* rank 0, io inside the first solve */
	{ 210, 250, 0, 4, 2, { -1, 5 } },
	/* rank 1, main and solve */
	{ 150, 900, 0, 1, -1, { -1, 0 } },
	{ 300, 500, 0, 2, 1, { 70, 20 } },
};

static const struct {
	uint32_t region, rank;
	uint64_t offset, count;
	int64_t exclusive;
} pairs[] = {
	{ 0, 0, 0, 1, 590 }, { 1, 0, 1, 3, 460 }, { 2, 0, 4, 1, 40 }, { 0, 1, 5, 1, 550 },
	{ 1, 1, 6, 1, 200 },
};

static void build(struct sb_profile *p)
{
	static const struct sb_thread threads[] = {
		{ 0, 0, 4242, 90, 1100, 800, "main" },
		{ 0, 1, 4243, 240, -1, -1, "worker\xff" },	/* raw comm bytes */
		{ 1, 0, 5252, 140, 950, 700, "rank1" },
	};
	static const struct sb_process procs[] = {
		{ 4242, 1, 0, 50, 1100, 0, "mpirun -n 2 ./app" },
		{ 5252, 4242, 1, 60, -1, -1, "./app --name=\xc3\xbc" },
	};
	size_t i;

	sb_profile_init(p);
	assert_int_equal(sb_profile_add_region(p, "main", "app.c", 10, "[\"app\"]"), 0);
	assert_int_equal(sb_profile_add_region(p, "solve", "solver.c", 20, "[\"io\",\"mpi\"]"), 1);
	assert_int_equal(sb_profile_add_region(p, "io", "", -1, NULL), 2);
	free(p->regions[1].source_text);
	p->regions[1].source_text = strdup("with scope(\"solve\"):");
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 2), 0);
	assert_int_equal(sb_profile_set_int(p, "lost_events", -7), 0);
	assert_int_equal(sb_profile_set_str(p, "source", "scope-bpf"), 0);
	assert_int_equal(sb_profile_set_str(p, "label", "unit test \xe2\x9c\x93"), 0);
	fx_add_threads(p, threads, 3);
	fx_add_processes(p, procs, 2);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_GPU | SB_COL_OFFCPU;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct sb_pair *q = fx_add_pair(p, pairs[i].region, pairs[i].rank,
						&events[pairs[i].offset], pairs[i].count);

		assert_int_equal(q->offset, pairs[i].offset);
		q->exclusive_total = pairs[i].exclusive;
	}
	assert_int_equal(p->n_events, sizeof(events) / sizeof(events[0]));
}

static void write_good(const char *path)
{
	fx_write_built(path, build);
}

static void assert_stats_equal(const struct sb_stats *a, const struct sb_stats *b)
{
	assert_int_equal(a->total, b->total);
	assert_int_equal(a->minimum, b->minimum);
	assert_int_equal(a->maximum, b->maximum);
	assert_int_equal(a->first, b->first);
	assert_int_equal(a->last, b->last);
	assert_int_equal(a->start_minimum, b->start_minimum);
	assert_int_equal(a->end_maximum, b->end_maximum);
	assert_int_equal(a->gpu_count, b->gpu_count);
	assert_int_equal(a->gpu_total, b->gpu_total);
	assert_true(a->mean == b->mean);
	assert_true(a->m2 == b->m2);
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->first_start, b->first_start);
	assert_int_equal(a->last_start, b->last_start);
}

static void assert_same_profile(const struct sb_profile *a, const struct sb_profile *b)
{
	size_t i;

	assert_int_equal(b->n_regions, a->n_regions);
	for (i = 0; i < a->n_regions; i++) {
		assert_string_equal(b->regions[i].name, a->regions[i].name);
		assert_string_equal(b->regions[i].source_file, a->regions[i].source_file);
		assert_int_equal(b->regions[i].source_line, a->regions[i].source_line);
		assert_string_equal(b->regions[i].source_text, a->regions[i].source_text);
		assert_string_equal(b->regions[i].tags, a->regions[i].tags);
	}
	assert_int_equal(b->n_pairs, a->n_pairs);
	for (i = 0; i < a->n_pairs; i++) {
		assert_int_equal(b->pairs[i].region, a->pairs[i].region);
		assert_int_equal(b->pairs[i].rank, a->pairs[i].rank);
		assert_int_equal(b->pairs[i].offset, a->pairs[i].offset);
		assert_int_equal(b->pairs[i].count, a->pairs[i].count);
		assert_int_equal(b->pairs[i].exclusive_total, a->pairs[i].exclusive_total);
		assert_stats_equal(&b->pairs[i].stats, &a->pairs[i].stats);
	}
	assert_int_equal(b->columns, a->columns);
	assert_int_equal(b->n_events, a->n_events);
	assert_memory_equal(b->events, a->events, a->n_events * sizeof(*a->events));
}

static void test_round_trip_keeps_every_value(void **state)
{
	const char *path = tmp_path("round.h5");
	struct sb_error err = { { 0 } };
	struct sb_profile a, b;
	const struct sb_meta *m;
	size_t i;

	(void)state;
	build(&a);
	if (fx_write_h5(path, &a, &err))
		fail_msg("%s", err.msg);
	if (sb_h5_read(path, &b, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(b.schema, 2);
	assert_string_equal(b.format, "scope-bpf HDF5 (schema 2)");
	assert_same_profile(&a, &b);

	assert_int_equal(b.n_threads, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(b.threads[i].rank, a.threads[i].rank);
		assert_int_equal(b.threads[i].index, a.threads[i].index);
		assert_int_equal(b.threads[i].tid, a.threads[i].tid);
		assert_int_equal(b.threads[i].start_ns, a.threads[i].start_ns);
		assert_int_equal(b.threads[i].end_ns, a.threads[i].end_ns);
		assert_int_equal(b.threads[i].cpu_ns, a.threads[i].cpu_ns);
	}
	assert_string_equal(b.threads[0].name, "main");
	/* Not UTF-8 on the way in: replaced, not lost. */
	assert_string_equal(b.threads[1].name, "worker\xef\xbf\xbd");

	assert_int_equal(b.n_processes, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(b.processes[i].pid, a.processes[i].pid);
		assert_int_equal(b.processes[i].ppid, a.processes[i].ppid);
		assert_int_equal(b.processes[i].rank, a.processes[i].rank);
		assert_int_equal(b.processes[i].start_ns, a.processes[i].start_ns);
		assert_int_equal(b.processes[i].end_ns, a.processes[i].end_ns);
		assert_int_equal(b.processes[i].exit_code, a.processes[i].exit_code);
		assert_string_equal(b.processes[i].command, a.processes[i].command);
	}

	assert_int_equal(b.n_meta, a.n_meta);
	for (i = 0; i < a.n_meta; i++) {
		m = sb_profile_meta(&b, a.meta[i].key);
		assert_non_null(m);
		assert_int_equal(m->is_int, a.meta[i].is_int);
		if (m->is_int)
			assert_int_equal(m->i, a.meta[i].i);
		else
			assert_string_equal(m->s, a.meta[i].s);
	}
	assert_int_equal(count_tmp_files(), 0);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

/* Absent optional columns stay absent and read as -1; mpi_size is always written. */
static void test_absent_columns_are_not_written(void **state)
{
	const char *path = tmp_path("bare.h5");
	struct sb_error err = { { 0 } };
	struct sb_profile a, b;
	const struct sb_meta *m;
	size_t i;
	hid_t f;

	(void)state;
	build(&a);
	a.columns = 0;
	for (i = 0; i < a.n_meta; i++) {
		free(a.meta[i].key);
		free(a.meta[i].s);
	}
	a.n_meta = 0;
	for (i = 0; i < a.n_threads; i++)
		free(a.threads[i].name);
	a.n_threads = 0;
	if (fx_write_h5(path, &a, &err))
		fail_msg("%s", err.msg);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_int_equal(H5Lexists(f, "/events/parent_ids", H5P_DEFAULT), 0);
	assert_int_equal(H5Lexists(f, "/events/gpu_durations", H5P_DEFAULT), 0);
	assert_int_equal(H5Lexists(f, "/thread_table", H5P_DEFAULT), 0);
	assert_int_equal(H5Lexists(f, "/scope_bpf/processes/pid", H5P_DEFAULT), 1);
	H5Fclose(f);
	if (sb_h5_read(path, &b, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(b.columns, 0);
	assert_string_equal(b.format, "scope-profiler HDF5 (schema 2)");
	for (i = 0; i < b.n_events; i++) {
		assert_int_equal(b.events[i].start, events[i].start);
		assert_int_equal(b.events[i].thread, -1);
		assert_int_equal(b.events[i].parent_id, -1);
		assert_int_equal(b.events[i].metric[SB_METRIC_GPU], -1);
		assert_int_equal(b.events[i].metric[SB_METRIC_OFFCPU], -1);
	}
	m = sb_profile_meta(&b, "mpi_size");
	assert_non_null(m);
	assert_int_equal(m->i, 2);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

/* ---- streams ---- */

/* Delivers rows i*10 .. i*10+5 without ever holding them, in odd-sized reads. */
struct gen_stream {
	struct sb_event_stream base;
	size_t next, total;	/* total: how many it delivers, whatever was announced */
};

static ssize_t gen_read(struct sb_event_stream *base, struct sb_event *rows, int64_t *counters,
			size_t max)
{
	struct gen_stream *s = (struct gen_stream *)base;
	size_t n = s->total - s->next, i;

	(void)counters;	/* no counter columns */
	if (n > max)
		n = max;
	if (n > 40000)
		n = 40000;
	for (i = 0; i < n; i++, s->next++)
		rows[i] = (struct sb_event){ (int64_t)s->next * 10, (int64_t)s->next * 10 + 5, -1,
					     (int64_t)s->next, -1, { -1, -1 } };
	return (ssize_t)n;
}

static void gen_profile(struct sb_profile *p, size_t n)
{
	size_t i;

	sb_profile_init(p);
	assert_int_equal(sb_profile_add_region(p, "loop", "loop.c", 1, NULL), 0);
	p->n_pairs = 1;
	p->pairs = calloc(1, sizeof(*p->pairs));
	p->pairs[0] = (struct sb_pair){ 0, 0, 0, n, -1, { 0 } };
	sb_stats_init(&p->pairs[0].stats);
	for (i = 0; i < n; i++)
		sb_stats_add(&p->pairs[0].stats, (int64_t)i * 10, (int64_t)i * 10 + 5, -1);
	p->n_events = n;
	p->columns = SB_COL_CALL_ID;
}

/* Whether the column is stored through shuffle and deflate, the filters every reader has. */
static void assert_compressed(const char *path, const char *column)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d, dcpl;
	unsigned int flags, cd[4];
	size_t n_cd = 4;
	bool shuffle = false, deflate = false;
	int i, n;

	assert_true(f >= 0);
	d = H5Dopen2(f, column, H5P_DEFAULT);
	assert_true(d >= 0);
	dcpl = H5Dget_create_plist(d);
	n = H5Pget_nfilters(dcpl);
	for (i = 0; i < n; i++, n_cd = 4) {
		H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &n_cd, cd, 0, NULL, NULL);

		shuffle |= id == H5Z_FILTER_SHUFFLE;
		deflate |= id == H5Z_FILTER_DEFLATE;
	}
	H5Pclose(dcpl);
	H5Dclose(d);
	H5Fclose(f);
	assert_true(shuffle && deflate);
}

static void test_stream_larger_than_one_chunk(void **state)
{
	const char *path = tmp_path("big.h5");
	struct gen_stream s = { { gen_read }, 0, 150001 };
	struct sb_error err = { { 0 } };
	struct sb_profile a, b;
	struct stat st;
	size_t i;

	(void)state;
	gen_profile(&a, s.total);
	if (sb_h5_write(path, &a, &s.base, &err))
		fail_msg("%s", err.msg);
	assert_compressed(path, "/events/start_times");
	assert_compressed(path, "/events/call_ids");
	/* 24 bytes a call uncompressed; regular times and ids take far less. */
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size < (off_t)(s.total * 24 / 8));
	if (sb_h5_read(path, &b, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(b.n_events, s.total);
	for (i = 0; i < b.n_events; i++) {
		if (b.events[i].start != (int64_t)i * 10 ||
		    b.events[i].end != (int64_t)i * 10 + 5 || b.events[i].call_id != (int64_t)i)
			fail_msg("event %zu differs", i);
	}
	assert_stats_equal(&b.pairs[0].stats, &a.pairs[0].stats);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_short_stream_fails_and_leaves_no_file(void **state)
{
	const char *path = tmp_path("short.h5");
	struct gen_stream s = { { gen_read }, 0, 99999 };
	struct sb_error err = { { 0 } };
	struct sb_profile a;

	(void)state;
	gen_profile(&a, 100000);
	assert_true(sb_h5_write(path, &a, &s.base, &err) < 0);
	assert_msg(&err, path, "delivered 99999 of 100000 events");
	assert_false(file_exists(path));
	assert_int_equal(count_tmp_files(), 0);
	sb_profile_free(&a);
}

static void test_long_stream_fails(void **state)
{
	const char *path = tmp_path("long.h5");
	struct gen_stream s = { { gen_read }, 0, 11 };
	struct sb_error err = { { 0 } };
	struct sb_profile a;

	(void)state;
	gen_profile(&a, 10);
	assert_true(sb_h5_write(path, &a, &s.base, &err) < 0);
	assert_msg(&err, path, "more than 10 events");
	assert_false(file_exists(path));
	assert_int_equal(count_tmp_files(), 0);
	sb_profile_free(&a);
}

static void test_failed_write_keeps_previous_file(void **state)
{
	const char *path = tmp_path("keep.h5");
	struct gen_stream s = { { gen_read }, 0, 5 };
	struct sb_error err = { { 0 } };
	struct sb_profile a, b, bad;

	(void)state;
	write_good(path);
	gen_profile(&bad, 10);
	assert_true(sb_h5_write(path, &bad, &s.base, &err) < 0);
	/* A profile that breaks the index rules fails before touching anything. */
	bad.pairs[0].count = 11;
	assert_true(fx_write_h5(path, &bad, &err) < 0);
	assert_msg(&err, path, "past the end");
	assert_int_equal(count_tmp_files(), 0);
	build(&a);
	if (sb_h5_read(path, &b, &err))
		fail_msg("%s", err.msg);
	assert_same_profile(&a, &b);
	sb_profile_free(&a);
	sb_profile_free(&b);
	sb_profile_free(&bad);
}

static void test_writer_refuses_invalid_index(void **state)
{
	const char *path = tmp_path("invalid.h5");
	struct sb_error err = { { 0 } };
	struct sb_profile p;

	(void)state;
	build(&p);
	p.pairs[2].offset = 3;	/* overlaps solve on rank 0 */
	assert_true(fx_write_h5(path, &p, &err) < 0);
	assert_msg(&err, path, "overlap");
	p.pairs[2].offset = 4;
	p.pairs[4].region = 0;	/* a second (rank 1, main) row */
	assert_true(fx_write_h5(path, &p, &err) < 0);
	assert_msg(&err, path, "rank 1, region 'main'");
	p.pairs[4].region = 1;
	assert_true(sb_profile_add_region(&p, "unused", "", -1, NULL) >= 0);
	assert_true(fx_write_h5(path, &p, &err) < 0);
	assert_msg(&err, path, "region 'unused' has no index row");
	assert_false(file_exists(path));
	sb_profile_free(&p);
}

/* ---- scope-profiler's own files ---- */

static const char *compat_dir(void)
{
	static const char *const dirs[] = { "../shared/compat", "/work/shared/compat" };
	const char *env = getenv("SB_COMPAT_DIR");
	size_t i;

	if (env && file_exists(env))
		return env;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (file_exists(dirs[i]))
			return dirs[i];
	return NULL;
}

static void check_golden(const char *name, int schema)
{
	struct sb_error err = { { 0 } };
	struct sb_profile p;
	char path[512];
	const char *d = compat_dir();
	char fmt[64];

	if (!d) {
		print_message("compat files not found (../shared/compat): skipped\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/%s", d, name);
	if (sb_h5_read(path, &p, &err))
		fail_msg("%s", err.msg);
	snprintf(fmt, sizeof(fmt), "scope-profiler HDF5 (schema %d)", schema);
	assert_string_equal(p.format, fmt);
	assert_int_equal(p.schema, schema);
	assert_int_equal(p.n_regions, 1);
	assert_string_equal(p.regions[0].name, "solve");
	assert_string_equal(p.regions[0].source_file, "solver.py");
	assert_int_equal(p.regions[0].source_line, 7);
	assert_string_equal(p.regions[0].tags, "[\"golden\"]");
	assert_int_equal(p.n_pairs, 1);
	assert_int_equal(p.pairs[0].rank, 0);
	assert_int_equal(p.pairs[0].count, 3);
	assert_int_equal(p.pairs[0].exclusive_total, -1);
	assert_int_equal(p.n_events, 3);
	assert_int_equal(p.events[0].start, 10);
	assert_int_equal(p.events[0].end, 15);
	assert_int_equal(p.events[1].start, 20);
	assert_int_equal(p.events[1].end, 33);
	assert_int_equal(p.events[2].start, 40);
	assert_int_equal(p.events[2].end, 55);
	assert_int_equal(p.columns, 0);
	assert_int_equal(p.events[0].parent_id, -1);
	/* No summary_statistics in their file: recomputed from the calls. */
	assert_int_equal(p.pairs[0].stats.total, 33);
	assert_int_equal(p.pairs[0].stats.minimum, 5);
	assert_int_equal(p.pairs[0].stats.maximum, 15);
	assert_int_equal(p.pairs[0].stats.first, 5);
	assert_int_equal(p.pairs[0].stats.last, 15);
	assert_int_equal(sb_profile_meta(&p, "mpi_size")->i, 1);
	sb_profile_free(&p);
}

static void test_reads_scope_profiler_schema_2(void **state)
{
	(void)state;
	check_golden("scope-profiler-schema-2.h5", 2);
}

static void test_reads_scope_profiler_schema_1(void **state)
{
	(void)state;
	check_golden("scope-profiler-schema-1.h5", 1);
}

static void test_reads_scope_profiler_schema_3(void **state)
{
	(void)state;
	check_golden("scope-profiler-schema-3.h5", 3);
}

/* ---- corrupt input ---- */

static void test_missing_file(void **state)
{
	(void)state;
	expect_read_error(tmp_path("nothing-here.h5"), "no such file");
}

static void test_text_file(void **state)
{
	const char *path = tmp_path("text.h5");
	FILE *f = fopen(path, "w");

	(void)state;
	assert_non_null(f);
	fputs("region,start,end\nsolve,10,15\n", f);
	fclose(f);
	expect_read_error(path, "not an HDF5 file");
}

static void test_truncated_files(void **state)
{
	const char *good = tmp_path("whole.h5"), *cut = tmp_path("cut.h5");
	struct sb_error err = { { 0 } };
	struct sb_profile p;
	struct stat st;
	off_t sizes[8];
	char cmd[1200];
	size_t i;

	(void)state;
	write_good(good);
	assert_int_equal(stat(good, &st), 0);
	sizes[0] = 0;
	sizes[1] = 7;
	sizes[2] = 100;
	sizes[3] = 1000;
	sizes[4] = st.st_size / 3;
	sizes[5] = st.st_size / 2;
	sizes[6] = st.st_size - 100;
	sizes[7] = st.st_size - 1;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", good, cut);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(truncate(cut, sizes[i]), 0);
		memset(&err, 0, sizeof(err));
		assert_true(sb_h5_read(cut, &p, &err) < 0);
		assert_msg(&err, cut, "");
		assert_non_null(strstr(err.msg, "not an HDF5 file"));
	}
}

static void test_hdf5_without_schema_attribute(void **state)
{
	const char *path = tmp_path("other.h5");
	hid_t f, g;

	(void)state;
	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(f >= 0);
	g = H5Gcreate2(f, "images", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Gclose(g);
	H5Fclose(f);
	expect_read_error(path, "not a scope-profiler profile (no scope_profiler_schema attribute)");
}

static void replace_u64(const char *path, const char *name, const uint64_t *v, hsize_t n)
{
	h5_replace(path, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, v, n);
}

static void replace_u32(const char *path, const char *name, const uint32_t *v, hsize_t n)
{
	h5_replace(path, name, H5T_STD_U32LE, H5T_NATIVE_UINT32, v, n);
}

static void replace_i64(const char *path, const char *name, const int64_t *v, hsize_t n)
{
	h5_replace(path, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v, n);
}

static void test_overlapping_index_rows(void **state)
{
	const char *path = tmp_path("overlap.h5");
	static const uint64_t offsets[] = { 0, 1, 3, 5, 6 };

	(void)state;
	write_good(path);
	replace_u64(path, "/rank_region_index/event_offsets", offsets, 5);
	expect_read_error(path, "index rows 1 and 2 overlap");
}

static void test_offsets_past_the_end(void **state)
{
	const char *path = tmp_path("past.h5");
	static const uint64_t offsets[] = { 0, 1, 4, 5, 7 };
	static const uint64_t huge[] = { 0, 1, 4, 5, UINT64_MAX };

	(void)state;
	write_good(path);
	replace_u64(path, "/rank_region_index/event_offsets", offsets, 5);
	expect_read_error(path, "index row 4: events 7+1 past the end of /events (7 rows)");
	replace_u64(path, "/rank_region_index/event_offsets", huge, 5);
	expect_read_error(path, "past the end of /events");
}

static void test_region_id_out_of_range(void **state)
{
	const char *path = tmp_path("region.h5");
	static const uint32_t ids[] = { 0, 1, 2, 0, 3 };

	(void)state;
	write_good(path);
	replace_u32(path, "/rank_region_index/region_ids", ids, 5);
	expect_read_error(path, "index row 4: region id 3 out of range (3 names)");
}

static void test_rank_out_of_range(void **state)
{
	const char *path = tmp_path("rank.h5");
	static const uint32_t ranks[] = { 0, 0, 0, 1, 1u << 30 };

	(void)state;
	write_good(path);
	replace_u32(path, "/rank_region_index/ranks", ranks, 5);
	expect_read_error(path, "index row 4: rank 1073741824 out of range");
}

static void test_mismatched_column_lengths(void **state)
{
	const char *path = tmp_path("lengths.h5");
	static const int64_t ends[] = { 1000, 300, 450, 600, 250, 900 };
	static const uint32_t ranks[] = { 0, 0, 0, 1 };

	(void)state;
	write_good(path);
	replace_i64(path, "/events/end_times", ends, 6);
	expect_read_error(path, "column lengths differ: /events/end_times has 6 rows, expected 7");
	write_good(path);
	replace_u32(path, "/rank_region_index/ranks", ranks, 4);
	expect_read_error(path, "column lengths differ: /rank_region_index/ranks has 4 rows, expected 5");
}

static void test_bad_events(void **state)
{
	const char *path = tmp_path("events.h5");
	static const int64_t ends[] = { 1000, 300, 450, 600, 250, 900, 299 };
	static const int64_t threads[] = { 0, 0, 1, 0, 0, 0, 1 };

	(void)state;
	write_good(path);
	replace_i64(path, "/events/end_times", ends, 7);
	expect_read_error(path, "event 6 ends before it starts");
	write_good(path);
	/* Rank 1 has one thread: index 1 does not exist there. */
	replace_i64(path, "/events/thread_ids", threads, 7);
	expect_read_error(path, "event 6: thread id 1 out of range (rank 1 has 1 threads)");
}

static void test_missing_and_unsupported(void **state)
{
	const char *path = tmp_path("missing.h5");
	hid_t f, a;
	int64_t v = 9;

	(void)state;
	write_good(path);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(H5Ldelete(f, "/events/start_times", H5P_DEFAULT) >= 0);
	H5Fclose(f);
	expect_read_error(path, "/events/start_times is missing");
	write_good(path);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	a = H5Aopen(f, "scope_profiler_schema", H5P_DEFAULT);
	assert_true(H5Awrite(a, H5T_NATIVE_INT64, &v) >= 0);
	H5Aclose(a);
	H5Fclose(f);
	expect_read_error(path, "unsupported scope_profiler_schema 9");
}

static void replace_strs(const char *path, const char *name, const char **v, hsize_t n)
{
	hid_t t = sb_h5_str_type();

	h5_replace(path, name, t, t, v, n);
	H5Tclose(t);
}

static void test_duplicate_region_name(void **state)
{
	const char *path = tmp_path("dupname.h5");
	const char *names[] = { "main", "solve", "main" };

	(void)state;
	write_good(path);
	replace_strs(path, "/region_table/names", names, 3);
	expect_read_error(path, "region name 'main' appears twice in /region_table/names");
}

/* Invalid UTF-8 is replaced, not rejected: the rest of the profile stays readable. */
static void test_invalid_utf8_is_replaced(void **state)
{
	const char *path = tmp_path("utf8.h5");
	const char *names[] = { "main", "sol\xc3ve", "io\xed\xa0\x80" };
	struct sb_error err = { { 0 } };
	struct sb_profile p;

	(void)state;
	write_good(path);
	replace_strs(path, "/region_table/names", names, 3);
	if (sb_h5_read(path, &p, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(p.regions[1].name, "sol\xef\xbf\xbdve");
	assert_string_equal(p.regions[2].name, "io\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	sb_profile_free(&p);
}

static void test_bad_thread_table(void **state)
{
	const char *path = tmp_path("threads.h5");
	static const int64_t index[] = { 0, 0, 0 };

	(void)state;
	write_good(path);
	replace_i64(path, "/thread_table/index", index, 3);
	expect_read_error(path, "/thread_table: rank 0 has duplicate or missing thread indexes");
}

/* A header may declare rows the file never stored: refuse before allocating for them. */
static void test_declared_rows_not_stored(void **state)
{
	const char *path = tmp_path("unstored.h5");

	(void)state;
	write_good(path);
	replace_i64(path, "/events/offcpu_ns", NULL, 1ull << 33);
	expect_read_error(path, "/events/offcpu_ns declares 8589934592 rows but holds only 0 bytes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_keeps_every_value),
		cmocka_unit_test(test_absent_columns_are_not_written),
		cmocka_unit_test(test_stream_larger_than_one_chunk),
		cmocka_unit_test(test_short_stream_fails_and_leaves_no_file),
		cmocka_unit_test(test_long_stream_fails),
		cmocka_unit_test(test_failed_write_keeps_previous_file),
		cmocka_unit_test(test_writer_refuses_invalid_index),
		cmocka_unit_test(test_reads_scope_profiler_schema_2),
		cmocka_unit_test(test_reads_scope_profiler_schema_1),
		cmocka_unit_test(test_reads_scope_profiler_schema_3),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_text_file),
		cmocka_unit_test(test_truncated_files),
		cmocka_unit_test(test_hdf5_without_schema_attribute),
		cmocka_unit_test(test_overlapping_index_rows),
		cmocka_unit_test(test_offsets_past_the_end),
		cmocka_unit_test(test_region_id_out_of_range),
		cmocka_unit_test(test_rank_out_of_range),
		cmocka_unit_test(test_mismatched_column_lengths),
		cmocka_unit_test(test_bad_events),
		cmocka_unit_test(test_missing_and_unsupported),
		cmocka_unit_test(test_declared_rows_not_stored),
		cmocka_unit_test(test_duplicate_region_name),
		cmocka_unit_test(test_invalid_utf8_is_replaced),
		cmocka_unit_test(test_bad_thread_table),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
