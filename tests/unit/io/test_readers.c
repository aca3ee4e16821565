/* Profile readers: scope-profiler's files, round trips in every format, detection, hostile input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "array_stream.h"
#include "io/h5write.h"
#include "util/json_parse.h"
#include "io/json_read.h"
#include "io/profile_read.h"
#include "analysis/calltree_stream.h"
#include "io/spt_read.h"

static char dir[256];

static const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

static int setup(void **state)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	(void)state;
	snprintf(dir, sizeof(dir), "%s/test_readers.XXXXXX", base);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void write_bytes(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void write_text(const char *path, const char *s)
{
	write_bytes(path, s, strlen(s));
}

/* The message names the file first, then says what is wrong. */
static void assert_msg(const struct sb_error *err, const char *path, const char *cause)
{
	size_t n = strlen(path);

	if (strncmp(err->msg, path, n) || strncmp(err->msg + n, ": ", 2) ||
	    !strstr(err->msg, cause) || strchr(err->msg, '\n'))
		fail_msg("message '%s' should be '%s: ...%s...'", err->msg, path, cause);
}

static void expect_error(const char *path, int code, const char *cause)
{
	struct sb_error err = { { 0 } };
	struct sb_profile p;
	int ret;

	ret = sb_profile_read(path, &p, &err);
	if (ret != -code)
		fail_msg("%s: returned %d, expected %d (%s)", path, ret, -code, err.msg);
	assert_msg(&err, path, cause);
	/* Nothing half-read is left behind. */
	assert_int_equal(p.n_regions, 0);
	assert_int_equal(p.n_pairs, 0);
	assert_null(p.events);
}

static void read_ok(const char *path, struct sb_profile *p)
{
	struct sb_error err = { { 0 } };

	if (sb_profile_read(path, p, &err))
		fail_msg("%s", err.msg);
}

static const struct sb_pair *pair_named(const struct sb_profile *p, const char *name,
					uint32_t rank)
{
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank == rank && !strcmp(p->regions[p->pairs[i].region].name, name))
			return &p->pairs[i];
	return NULL;
}

static int64_t meta_int(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	assert_non_null(m);
	assert_true(m->is_int);
	return m->i;
}

/* ---- scope-profiler's own files: every number in each ---- */

static bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static const char *compat_dir(void)
{
	static const char *const dirs[] = { "../shared/compat", "/work/shared/compat" };
	const char *env = getenv("SB_COMPAT_DIR");
	size_t i;

	if (env && path_exists(env))
		return env;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (path_exists(dirs[i]))
			return dirs[i];
	return NULL;
}

struct golden {
	const char *name;
	const char *format;
	int schema;
	const char *file;	/* source file the format stores, "" when it has none */
	int64_t line;
	const char *tags;
};

static void check_golden(const struct golden *g)
{
	static const int64_t starts[] = { 10, 20, 40 }, ends[] = { 15, 33, 55 };
	const char *d = compat_dir();
	const struct sb_pair *q;
	struct sb_profile p;
	char path[512];
	size_t i;

	if (!d) {
		print_message("compat files not found (../shared/compat): skipped\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/%s", d, g->name);
	read_ok(path, &p);
	assert_string_equal(p.format, g->format);
	assert_int_equal(p.schema, g->schema);
	assert_int_equal(p.n_regions, 1);
	assert_string_equal(p.regions[0].name, "solve");
	assert_string_equal(p.regions[0].source_file, g->file);
	assert_int_equal(p.regions[0].source_line, g->line);
	assert_string_equal(p.regions[0].tags, g->tags);
	assert_int_equal(p.n_pairs, 1);
	q = &p.pairs[0];
	assert_int_equal(q->rank, 0);
	assert_int_equal(q->region, 0);
	assert_int_equal(q->offset, 0);
	assert_int_equal(q->count, 3);
	assert_int_equal(q->exclusive_total, -1);
	assert_int_equal(p.n_events, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(p.events[i].start, starts[i]);
		assert_int_equal(p.events[i].end, ends[i]);
	}
	assert_int_equal(q->stats.count, 3);
	assert_int_equal(q->stats.total, 33);
	assert_int_equal(q->stats.minimum, 5);
	assert_int_equal(q->stats.maximum, 15);
	assert_int_equal(q->stats.first, 5);
	assert_int_equal(q->stats.last, 15);
	assert_int_equal(q->stats.start_minimum, 10);
	assert_int_equal(q->stats.end_maximum, 55);
	assert_true(q->stats.mean == 11.0);
	assert_int_equal(meta_int(&p, "mpi_size"), 1);
	assert_int_equal(sb_profile_rank_count(&p), 1);
	sb_profile_free(&p);
}

static void test_golden_schema_1(void **state)
{
	static const struct golden g = { "scope-profiler-schema-1.h5",
		"scope-profiler HDF5 (schema 1)", 1, "solver.py", 7, "[\"golden\"]" };

	(void)state;
	check_golden(&g);
}

static void test_golden_schema_2(void **state)
{
	static const struct golden g = { "scope-profiler-schema-2.h5",
		"scope-profiler HDF5 (schema 2)", 2, "solver.py", 7, "[\"golden\"]" };

	(void)state;
	check_golden(&g);
}

static void test_golden_schema_3(void **state)
{
	static const struct golden g = { "scope-profiler-schema-3.h5",
		"scope-profiler HDF5 (schema 3)", 3, "solver.py", 7, "[\"golden\"]" };

	(void)state;
	check_golden(&g);
}

static void test_golden_spt_v1(void **state)
{
	static const struct golden g = { "scope-profiler-native-v1.spt",
		"scope-profiler native trace (v1)", 0, "", -1, "[]" };

	(void)state;
	check_golden(&g);
}

static void test_golden_spt_v2(void **state)
{
	static const struct golden g = { "scope-profiler-native-v2.spt",
		"scope-profiler native trace (v2)", 0, "solver.c", 7, "[]" };

	(void)state;
	check_golden(&g);
}

static void test_golden_json(void **state)
{
	static const struct golden g = { "scope-profiler-v1.json", "scope-profiler JSON (v1)", 0,
		"solver.py", 7, "[\"golden\"]" };

	(void)state;
	check_golden(&g);
}

/* ---- a profile in memory: 2 ranks, 3 regions, names that need escaping ---- */

static const struct {
	const char *name, *file;
	int64_t line;
	const char *tags;
} regs[] = {
	{ "main", "app.c", 10, "[\"app\"]" },
	{ "solve \"\xc3\xa9\" \\ \xf0\x9f\x98\x80", "solver.c", 20, "[\"io\",\"m\\\"pi\"]" },
	{ "io", "", -1, "[]" },
};

static const struct sb_event events[] = {
	{ 100, 1000, -1, -1, -1, { -1, -1 } },	/* rank 0 main */
	{ 200, 300, -1, -1, -1, { -1, -1 } },	/* rank 0 solve, by start */
	{ 250, 450, -1, -1, -1, { -1, -1 } },
	{ 400, 600, -1, -1, -1, { -1, -1 } },
	{ 210, 250, -1, -1, -1, { -1, -1 } },	/* rank 0 io */
	{ 150, 900, -1, -1, -1, { -1, -1 } },	/* rank 1 main */
	{ -300, INT64_MAX - 300, -1, -1, -1, { -1, -1 } },	/* rank 1 solve: extreme but valid */
};

static const struct {
	uint32_t region, rank;
	uint64_t offset, count;
} pairs[] = {
	{ 0, 0, 0, 1 }, { 1, 0, 1, 3 }, { 2, 0, 4, 1 }, { 0, 1, 5, 1 }, { 1, 1, 6, 1 },
};

#define N_PAIRS (sizeof(pairs) / sizeof(pairs[0]))

static void build(struct sb_profile *p)
{
	size_t i;
	uint64_t k;

	sb_profile_init(p);
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		assert_int_equal(sb_profile_add_region(p, regs[i].name, regs[i].file, regs[i].line,
						       regs[i].tags), (ssize_t)i);
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 4), 0);
	assert_int_equal(sb_profile_set_int(p, "lost_events", -7), 0);
	assert_int_equal(sb_profile_set_str(p, "label", "unit \"test\" \xe2\x9c\x93\n"), 0);
	p->n_events = sizeof(events) / sizeof(events[0]);
	p->events = malloc(sizeof(events));
	memcpy(p->events, events, sizeof(events));
	p->n_pairs = N_PAIRS;
	p->pairs = calloc(N_PAIRS, sizeof(*p->pairs));
	for (i = 0; i < N_PAIRS; i++) {
		struct sb_pair *q = &p->pairs[i];

		*q = (struct sb_pair){ pairs[i].region, pairs[i].rank, pairs[i].offset,
				       pairs[i].count, -1, { 0 } };
		sb_stats_init(&q->stats);
		for (k = q->offset; k < q->offset + q->count; k++)
			sb_stats_add(&q->stats, events[k].start, events[k].end, -1);
	}
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
	assert_true(a->mean == b->mean);
	assert_true(a->m2 == b->m2);
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->first_start, b->first_start);
	assert_int_equal(a->last_start, b->last_start);
}

enum { HAS_LOCATION = 1, HAS_TAGS = 2 };

/* got holds exactly the pairs of src on rank (all ranks when < 0), the same calls and stats. */
static void assert_same_calls(const struct sb_profile *src, int64_t rank,
			      const struct sb_profile *got, unsigned has)
{
	const struct sb_region *a, *b;
	const struct sb_pair *q, *g;
	size_t i, n = 0;
	uint64_t k;

	for (i = 0; i < src->n_pairs; i++) {
		q = &src->pairs[i];
		if (rank >= 0 && q->rank != rank)
			continue;
		n++;
		a = &src->regions[q->region];
		g = pair_named(got, a->name, q->rank);
		if (!g)
			fail_msg("no pair for '%s' on rank %u", a->name, q->rank);
		b = &got->regions[g->region];
		assert_string_equal(b->source_file, has & HAS_LOCATION ? a->source_file : "");
		assert_int_equal(b->source_line, has & HAS_LOCATION ? a->source_line : -1);
		assert_string_equal(b->tags, has & HAS_TAGS ? a->tags : "[]");
		assert_int_equal(g->count, q->count);
		assert_int_equal(g->exclusive_total, -1);
		for (k = 0; k < q->count; k++) {
			assert_int_equal(got->events[g->offset + k].start,
					 src->events[q->offset + k].start);
			assert_int_equal(got->events[g->offset + k].end,
					 src->events[q->offset + k].end);
		}
		assert_stats_equal(&g->stats, &q->stats);
	}
	assert_int_equal(got->n_pairs, n);
}

/* ---- writers of the other formats, as scope-profiler lays them out ---- */

struct buf {
	unsigned char *b;
	size_t n;
	size_t cap;
	bool big_endian;
};

static void put_raw(struct buf *w, const void *p, size_t n)
{
	if (w->n + n > w->cap) {
		w->cap = (w->n + n) * 2 + 64;
		w->b = realloc(w->b, w->cap);
		assert_non_null(w->b);
	}
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void put_int(struct buf *w, uint64_t v, size_t size)
{
	unsigned char b[8];
	size_t i;

	for (i = 0; i < size; i++)
		b[w->big_endian ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
	put_raw(w, b, size);
}

static void spt_header(struct buf *w, int version, int32_t rank, int64_t count)
{
	put_raw(w, "SCOPEPRF", 8);
	put_int(w, (uint32_t)version, 4);
	put_int(w, (uint32_t)rank, 4);
	put_int(w, (uint64_t)count, 8);
}

static void spt_str(struct buf *w, const char *s)
{
	put_int(w, (uint32_t)strlen(s), 4);
	put_raw(w, s, strlen(s));
}

/* A region up to its call count, which may be anything. */
static void spt_region_head(struct buf *w, int version, const char *name, const char *file,
			    int32_t line, int64_t n)
{
	spt_str(w, name);
	if (version == 2) {
		spt_str(w, file);
		put_int(w, (uint32_t)line, 4);
	}
	put_int(w, (uint64_t)n, 8);
}

static void spt_region(struct buf *w, int version, const char *name, const char *file,
		       int32_t line, const int64_t *starts, const int64_t *ends, int64_t n)
{
	int64_t k;

	spt_region_head(w, version, name, file, line, n);
	for (k = 0; k < n; k++)
		put_int(w, (uint64_t)starts[k], 8);
	for (k = 0; k < n; k++)
		put_int(w, (uint64_t)ends[k], 8);
}

/* The pairs of one rank as one .spt file. */
static void write_spt(const char *path, const struct sb_profile *p, uint32_t rank, int version,
		      bool big_endian)
{
	struct buf w = { .big_endian = big_endian };
	const struct sb_region *r;
	const struct sb_pair *q;
	int64_t *s, *e;
	size_t i, n = 0;
	uint64_t k;

	for (i = 0; i < p->n_pairs; i++)
		n += p->pairs[i].rank == rank;
	spt_header(&w, version, (int32_t)rank, (int64_t)n);
	for (i = 0; i < p->n_pairs; i++) {
		q = &p->pairs[i];
		if (q->rank != rank)
			continue;
		r = &p->regions[q->region];
		s = calloc(q->count, sizeof(*s));
		e = calloc(q->count, sizeof(*e));
		for (k = 0; k < q->count; k++) {
			s[k] = p->events[q->offset + k].start;
			e[k] = p->events[q->offset + k].end;
		}
		spt_region(&w, version, r->name, r->source_file, (int32_t)r->source_line, s, e,
			   (int64_t)q->count);
		free(s);
		free(e);
	}
	write_bytes(path, w.b, w.n);
	free(w.b);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_times(FILE *f, const struct sb_profile *p, const struct sb_pair *q, bool ends)
{
	uint64_t k;

	fputc('[', f);
	for (k = 0; k < q->count; k++)
		fprintf(f, "%s%lld", k ? ", " : "",
			(long long)(ends ? p->events[q->offset + k].end :
				    p->events[q->offset + k].start));
	fputc(']', f);
}

static void write_json(const char *path, const struct sb_profile *p)
{
	const struct sb_region *r;
	const struct sb_pair *q;
	FILE *f = fopen(path, "w");
	size_t i;

	assert_non_null(f);
	fprintf(f, "{\"format\": \"scope-profiler-profile\", \"format_version\": 1,\n"
		   " \"time_unit\": \"nanoseconds\", \"num_ranks\": %u,\n \"metadata\": {",
		sb_profile_rank_count(p));
	for (i = 0; i < p->n_meta; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, p->meta[i].key);
		fputs(": ", f);
		if (p->meta[i].is_int)
			fprintf(f, "%lld", (long long)p->meta[i].i);
		else
			json_str(f, p->meta[i].s);
	}
	fputs("},\n \"regions\": [", f);
	for (i = 0; i < p->n_pairs; i++) {
		q = &p->pairs[i];
		r = &p->regions[q->region];
		fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
		json_str(f, r->name);
		fprintf(f, ", \"rank\": %u, \"source_file\": ", q->rank);
		json_str(f, r->source_file);
		fprintf(f, ", \"source_lineno\": %lld, \"tags\": %s, \"start_times_ns\": ",
			(long long)r->source_line, r->tags);
		json_times(f, p, q, false);
		fputs(", \"end_times_ns\": ", f);
		json_times(f, p, q, true);
		fputc('}', f);
	}
	fputs("\n ]\n}\n", f);
	assert_int_equal(fclose(f), 0);
}

static void write_h5(const char *path, const struct sb_profile *p)
{
	struct sb_error err = { { 0 } };
	struct sb_array_stream s;

	sb_array_stream_init(&s, p);
	if (sb_h5_write(path, p, &s.base, &err))
		fail_msg("%s", err.msg);
}

/* ---- round trips ---- */

static void test_round_trip_hdf5(void **state)
{
	const char *path = tmp_path("round.h5");
	struct sb_profile a, b;

	(void)state;
	build(&a);
	write_h5(path, &a);
	read_ok(path, &b);
	assert_string_equal(b.format, "scope-profiler HDF5 (schema 2)");
	assert_same_calls(&a, -1, &b, HAS_LOCATION | HAS_TAGS);
	assert_int_equal(meta_int(&b, "mpi_size"), 4);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_round_trip_spt(void **state)
{
	static const char *const names[2][2] = {
		{ "le1.spt", "be1.spt" }, { "le2.spt", "be2.spt" },
	};
	struct sb_profile a, b;
	const char *path;
	int version, be;
	uint32_t rank;
	char fmt[64];

	(void)state;
	build(&a);
	for (version = 1; version <= 2; version++) {
		for (be = 0; be <= 1; be++) {
			for (rank = 0; rank <= 1; rank++) {
				path = tmp_path(names[version - 1][be]);
				write_spt(path, &a, rank, version, be);
				read_ok(path, &b);
				snprintf(fmt, sizeof(fmt), "scope-profiler native trace (v%d)",
					 version);
				assert_string_equal(b.format, fmt);
				assert_same_calls(&a, rank, &b, version == 2 ? HAS_LOCATION : 0);
				/* One file is one rank: the run had at least rank + 1. */
				assert_int_equal(meta_int(&b, "mpi_size"), rank + 1);
				assert_int_equal(b.n_meta, 1);
				sb_profile_free(&b);
			}
		}
	}
	sb_profile_free(&a);
}

static void test_round_trip_json(void **state)
{
	const char *path = tmp_path("round.json");
	const struct sb_meta *m;
	struct sb_profile a, b;

	(void)state;
	build(&a);
	write_json(path, &a);
	read_ok(path, &b);
	assert_string_equal(b.format, "scope-profiler JSON (v1)");
	assert_int_equal(b.schema, 0);
	assert_same_calls(&a, -1, &b, HAS_LOCATION | HAS_TAGS);
	assert_int_equal(meta_int(&b, "mpi_size"), 4);
	assert_int_equal(meta_int(&b, "lost_events"), -7);
	m = sb_profile_meta(&b, "label");
	assert_non_null(m);
	assert_false(m->is_int);
	assert_string_equal(m->s, "unit \"test\" \xe2\x9c\x93\n");
	sb_profile_free(&a);
	sb_profile_free(&b);
}

/* ---- detection is by content, never by name ---- */

static void test_detection_ignores_the_name(void **state)
{
	struct sb_profile a, b;

	(void)state;
	build(&a);
	write_json(tmp_path("json.h5"), &a);
	read_ok(tmp_path("json.h5"), &b);
	assert_string_equal(b.format, "scope-profiler JSON (v1)");
	sb_profile_free(&b);
	write_spt(tmp_path("spt.json"), &a, 0, 2, false);
	read_ok(tmp_path("spt.json"), &b);
	assert_string_equal(b.format, "scope-profiler native trace (v2)");
	sb_profile_free(&b);
	write_h5(tmp_path("h5.spt"), &a);
	read_ok(tmp_path("h5.spt"), &b);
	assert_string_equal(b.format, "scope-profiler HDF5 (schema 2)");
	sb_profile_free(&b);
	/* Whitespace before the brace is still JSON. */
	write_text(tmp_path("ws"), " \n\t\r{\"format\":\"scope-profiler-profile\","
		   "\"format_version\":1,\"regions\":[]}");
	read_ok(tmp_path("ws"), &b);
	assert_int_equal(b.n_pairs, 0);
	assert_non_null(b.events);
	sb_profile_free(&b);
	sb_profile_free(&a);
}

/* HDF5 allows a user block before the superblock: 512 bytes or a larger power of two. */
static void test_hdf5_behind_a_user_block(void **state)
{
	const char *path = tmp_path("userblock.dat");
	hid_t fcpl, f, g;
	FILE *fp;

	(void)state;
	fcpl = H5Pcreate(H5P_FILE_CREATE);
	assert_true(H5Pset_userblock(fcpl, 1024) >= 0);
	f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
	assert_true(f >= 0);
	g = H5Gcreate2(f, "images", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Gclose(g);
	H5Fclose(f);
	H5Pclose(fcpl);
	fp = fopen(path, "r+");
	assert_non_null(fp);
	fputs("user block text, not a signature", fp);
	fclose(fp);
	/* Detected as HDF5, then refused by the HDF5 reader for what it lacks. */
	expect_error(path, EINVAL, "no scope_profiler_schema attribute");
}

static void test_unknown_missing_and_odd_files(void **state)
{
	(void)state;
	expect_error(tmp_path("nothing-here"), ENOENT, "no such file");
	expect_error(dir, EINVAL, "not a regular file");
	write_text(tmp_path("empty"), "");
	expect_error(tmp_path("empty"), EINVAL, "unknown format (empty file)");
	write_text(tmp_path("csv"), "region,start,end\nsolve,10,15\n");
	expect_error(tmp_path("csv"), EINVAL,
		     "unknown format (not HDF5, .spt or scope-profiler JSON)");
	write_text(tmp_path("magic"), "SCOPEPR");
	expect_error(tmp_path("magic"), EINVAL, "unknown format");
	write_text(tmp_path("array.json"), "[1, 2]");
	expect_error(tmp_path("array.json"), EINVAL, "unknown format");
}

/* ---- merging: identity is the name ---- */

static void test_spt_merges_names_and_sorts_calls(void **state)
{
	static const int64_t s1[] = { 40, 10 }, e1[] = { 55, 15 };
	static const int64_t s2[] = { 20, 5 }, e2[] = { 33, 9 };
	const char *path = tmp_path("merge.spt");
	struct buf w = { 0 };
	struct sb_profile p;

	(void)state;
	spt_header(&w, 2, 7, 3);
	spt_region(&w, 2, "solve", "", -1, s1, e1, 2);
	spt_region(&w, 2, "other", "o.c", 3, s2, e2, 0);
	spt_region(&w, 2, "solve", "late.c", 9, s2, e2, 2);
	write_bytes(path, w.b, w.n);
	free(w.b);
	read_ok(path, &p);
	/* A region without calls is not a region. */
	assert_int_equal(p.n_regions, 1);
	assert_int_equal(p.n_pairs, 1);
	assert_int_equal(p.pairs[0].rank, 7);
	assert_int_equal(p.pairs[0].count, 4);
	assert_int_equal(p.events[0].start, 5);
	assert_int_equal(p.events[1].start, 10);
	assert_int_equal(p.events[2].start, 20);
	assert_int_equal(p.events[3].start, 40);
	assert_int_equal(p.pairs[0].stats.first, 4);
	assert_int_equal(p.pairs[0].stats.last, 15);
	/* The first location that knows one is kept. */
	assert_string_equal(p.regions[0].source_file, "late.c");
	assert_int_equal(p.regions[0].source_line, 9);
	assert_int_equal(meta_int(&p, "mpi_size"), 8);
	assert_int_equal(sb_profile_rank_count(&p), 8);
	sb_profile_free(&p);
}

/* Tags go back to JSON with the one string writer the exports use: short escapes, \u00XX else. */
static void test_json_tags_are_written_back_as_exports_write_strings(void **state)
{
	const char *path = tmp_path("tags.json");
	struct sb_profile p;

	(void)state;
	write_text(path,
		   "{\"format\":\"scope-profiler-profile\",\"format_version\":1,\"regions\":["
		   "{\"name\":\"a\",\"tags\":[\"t\\tab\",\"q\\\"\\\\\",\"\\u0001\\u00fc\"],"
		   "\"start_times_ns\":[1],\"end_times_ns\":[2]}]}");
	read_ok(path, &p);
	assert_string_equal(p.regions[0].tags, "[\"t\\tab\",\"q\\\"\\\\\",\"\\u0001\xc3\xbc\"]");
	sb_profile_free(&p);
}

static void test_json_merges_names(void **state)
{
	const char *path = tmp_path("merge.json");
	struct sb_profile p;

	(void)state;
	write_text(path,
		   "{\"format\":\"scope-profiler-profile\",\"format_version\":1,\"num_ranks\":3,"
		   "\"exporter\":{\"x\":[1,2.5e3,true,null,{}]},\"regions\":["
		   "{\"name\":\"a\",\"rank\":1,\"source_file\":\"a.py\",\"source_lineno\":1,"
		   "\"tags\":[\"x\"],\"start_times_ns\":[30],\"end_times_ns\":[31]},"
		   "{\"name\":\"b\",\"rank\":0,\"source_file\":null,\"source_lineno\":null,"
		   "\"tags\":null,\"start_times_ns\":[1],\"end_times_ns\":[2]},"
		   "{\"name\":\"a\",\"rank\":1,\"source_file\":\"other.py\",\"source_lineno\":5,"
		   "\"tags\":[],\"start_times_ns\":[10,20],\"end_times_ns\":[12,25],\"extra\":1},"
		   "{\"name\":\"a\",\"rank\":0,\"start_times_ns\":[],\"end_times_ns\":[]},"
		   "{\"name\":\"\\u00e9\\ud83d\\ude00\","
		   "\"start_times_ns\":[7],\"end_times_ns\":[8]}"
		   "]}");
	read_ok(path, &p);
	assert_int_equal(p.n_regions, 3);
	assert_int_equal(p.n_pairs, 3);
	assert_string_equal(p.regions[0].name, "a");
	assert_string_equal(p.regions[0].source_file, "a.py");
	assert_int_equal(p.regions[0].source_line, 1);
	assert_string_equal(p.regions[0].tags, "[\"x\"]");
	assert_string_equal(p.regions[1].source_file, "");
	assert_int_equal(p.regions[1].source_line, -1);
	assert_string_equal(p.regions[1].tags, "[]");
	/* Escapes and surrogate pairs become UTF-8; rank defaults to 0. */
	assert_string_equal(p.regions[2].name, "\xc3\xa9\xf0\x9f\x98\x80");
	assert_int_equal(p.pairs[2].rank, 0);
	assert_int_equal(p.pairs[0].rank, 1);
	assert_int_equal(p.pairs[0].count, 3);
	assert_int_equal(p.events[0].start, 10);
	assert_int_equal(p.events[1].start, 20);
	assert_int_equal(p.events[2].start, 30);
	assert_int_equal(p.pairs[0].stats.total, 2 + 5 + 1);
	assert_int_equal(meta_int(&p, "mpi_size"), 3);
	sb_profile_free(&p);
}

/* ---- hostile .spt files ---- */

static const int64_t gs[] = { 10, 20, 40 }, ge[] = { 15, 33, 55 };

/* A valid v2 file of one region. */
static void good_spt(struct buf *w, bool big_endian)
{
	*w = (struct buf){ .big_endian = big_endian };
	spt_header(w, 2, 0, 1);
	spt_region(w, 2, "solve", "solver.c", 7, gs, ge, 3);
}

static void expect_spt(const struct buf *w, const char *cause)
{
	const char *path = tmp_path("hostile.spt");
	struct sb_ct_opts o = { .rank = -1 };
	struct sb_error err = { { 0 } };
	struct sb_calltree t;
	struct sb_profile p;

	write_bytes(path, w->b, w->n);
	expect_error(path, EINVAL, cause);
	/* The report's reader, which leaves the calls in the file, says the same. */
	assert_int_equal(sb_spt_read_tree(path, &p, &o, &t, &err), -EINVAL);
	assert_msg(&err, path, cause);
	assert_int_equal(p.n_pairs, 0);
}

static void test_spt_every_truncation_fails(void **state)
{
	const char *path = tmp_path("cut.spt");
	struct sb_error err = { { 0 } };
	struct sb_profile p;
	struct buf w;
	size_t n;
	int be;

	(void)state;
	for (be = 0; be <= 1; be++) {
		good_spt(&w, be);
		for (n = 8; n < w.n; n++) {
			write_bytes(path, w.b, n);
			assert_int_equal(sb_profile_read(path, &p, &err), -EINVAL);
			assert_msg(&err, path, "");
			if (!strstr(err.msg, "truncated") && !strstr(err.msg, "past the end") &&
			    !strstr(err.msg, "bytes left can hold"))
				fail_msg("cut at %zu: '%s' does not say truncated", n, err.msg);
		}
		/* One byte too many is as wrong as one too few. */
		put_raw(&w, "", 1);
		expect_spt(&w, "1 bytes of trailing data after the last region");
		free(w.b);
	}
	/* And the sb_spt_read entry point checks the magic itself. */
	write_text(path, "SCOPEPRX");
	assert_int_equal(sb_spt_read(path, &p, &err), -EINVAL);
	assert_msg(&err, path, "no SCOPEPRF magic");
}

static void test_spt_bad_header(void **state)
{
	struct buf w = { 0 };

	(void)state;
	spt_header(&w, 3, 0, 0);
	expect_spt(&w, "unsupported .spt version (reads 3 little-endian, 50331648 big-endian");
	w.n = 0;
	spt_header(&w, 1, -1, 0);
	expect_spt(&w, "rank -1 out of range");
	w.n = 0;
	spt_header(&w, 1, 1 << 24, 0);
	expect_spt(&w, "rank 16777216 out of range");
	w.n = 0;
	spt_header(&w, 1, 0, -2);
	expect_spt(&w, "region count -2 is negative");
	w.n = 0;
	spt_header(&w, 2, 0, INT64_MAX);
	put_raw(&w, "0123456789012345678901234567890123456789", 40);
	expect_spt(&w, "region count 9223372036854775807 is more than the 40 bytes left can hold");
	free(w.b);
}

static void test_spt_bad_lengths(void **state)
{
	struct buf w = { .big_endian = true };

	(void)state;
	spt_header(&w, 2, 0, 1);
	put_int(&w, (uint32_t)-5, 4);
	put_raw(&w, "0123456789012345678901234567890123456789", 40);
	expect_spt(&w, "region 0: name length -5 is negative");
	w.n = 0;
	spt_header(&w, 2, 0, 1);
	put_int(&w, 0x7fffffff, 4);
	put_raw(&w, "0123456789012345678901234567890123456789", 40);
	expect_spt(&w, "region 0: name length 2147483647 runs past the end of the file (40 bytes left)");
	w.n = 0;
	spt_header(&w, 2, 0, 1);
	spt_str(&w, "solve");
	put_int(&w, (uint32_t)-1, 4);
	put_raw(&w, "0123456789012345678901234567890123456789", 40);
	expect_spt(&w, "region 0: source file length -1 is negative");
	w.n = 0;
	spt_header(&w, 2, 0, 1);
	spt_region_head(&w, 2, "solve", "", -1, INT64_MAX);
	put_raw(&w, "0123456789012345678901234567890123456789", 40);
	expect_spt(&w, "region 0 ('solve'): call count 9223372036854775807 runs past the end of the file (40 bytes left)");
	w.n = 0;
	spt_header(&w, 2, 0, 1);
	spt_region_head(&w, 2, "solve", "", -1, -3);
	expect_spt(&w, "region 0 ('solve'): call count -3 is negative");
	w.n = 0;
	spt_header(&w, 2, 0, 1);
	spt_region(&w, 2, "solve", "", -7, gs, ge, 0);
	expect_spt(&w, "region 0 ('solve'): bad source line -7");
	free(w.b);
}

static void test_spt_bad_names_and_calls(void **state)
{
	static const int64_t back[] = { 10, 20 }, fwd[] = { 15, 19 };
	static const int64_t lo[] = { INT64_MIN }, hi[] = { INT64_MAX };
	struct buf w = { 0 };

	(void)state;
	spt_header(&w, 1, 0, 1);
	spt_region(&w, 1, "sol\xffve", "", -1, gs, ge, 3);
	expect_spt(&w, "region 0: name is not valid UTF-8");
	w.n = 0;
	spt_header(&w, 2, 0, 1);
	spt_region(&w, 2, "solve", "\xc0\xaf", -1, gs, ge, 3);
	expect_spt(&w, "region 0: source file is not valid UTF-8");
	w.n = 0;
	spt_header(&w, 1, 0, 1);
	put_int(&w, 3, 4);
	put_raw(&w, "a\0b", 3);
	put_int(&w, 0, 8);
	expect_spt(&w, "region 0: name contains a NUL byte");
	w.n = 0;
	spt_header(&w, 1, 0, 1);
	spt_region(&w, 1, "", "", -1, gs, ge, 3);
	expect_spt(&w, "region 0: empty name");
	w.n = 0;
	spt_header(&w, 1, 0, 1);
	spt_region(&w, 1, "solve", "", -1, back, fwd, 2);
	expect_spt(&w, "region 'solve' on rank 0: call 1 ends before it starts");
	w.n = 0;
	spt_header(&w, 1, 0, 1);
	spt_region(&w, 1, "solve", "", -1, lo, hi, 1);
	expect_spt(&w, "call 0: duration from -9223372036854775808 to 9223372036854775807 overflows");
	free(w.b);
}

/* ---- hostile JSON ---- */

static void expect_json(const char *text, const char *cause)
{
	const char *path = tmp_path("hostile.json");

	write_text(path, text);
	expect_error(path, EINVAL, cause);
}

#define HEAD "{\"format\":\"scope-profiler-profile\",\"format_version\":1,"

static void test_json_every_truncation_fails(void **state)
{
	const char *path = tmp_path("cut.json");
	struct sb_error err = { { 0 } };
	struct sb_profile a, p;
	char *text;
	long size;
	size_t n;
	FILE *f;

	(void)state;
	build(&a);
	write_json(path, &a);
	sb_profile_free(&a);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	text = malloc((size_t)size);
	assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	/* The end of the text is whitespace: every cut before the last brace must fail. */
	for (n = 1; n < (size_t)size - 2; n++) {
		write_bytes(path, text, n);
		assert_int_equal(sb_profile_read(path, &p, &err), -EINVAL);
		assert_msg(&err, path, "");
	}
	free(text);
}

static void test_json_syntax_errors(void **state)
{
	(void)state;
	expect_json("{\"format\" \"x\"}",
		    "invalid JSON at byte 10: expected ':' after a member name");
	expect_json("{\"a\":1,}", "expected a member name");
	expect_json("{\"a\":[1,]}", "expected a value after ','");
	expect_json("{\"a\":[1 2]}", "expected ',' or ']'");
	expect_json("{\"a\":01}", "expected ',' or '}'");
	expect_json("{\"a\":1.}", "bad number");
	expect_json("{\"a\":-}", "bad number");
	expect_json("{\"a\":tru}", "bad literal (expected true)");
	expect_json("{\"a\":\"x\\q\"}", "bad escape in a string");
	expect_json("{\"a\":\"\\u12\"}", "bad \\u escape");
	expect_json("{\"a\":\"\\ud800\"}", "unpaired high surrogate");
	expect_json("{\"a\":\"\\udc00\"}", "unpaired low surrogate");
	expect_json("{\"a\":\"\\ud800\\u0041\"}", "not followed by a low one");
	expect_json("{\"a\":\"\\u0000\"}", "\\u0000 in a string");
	expect_json("{\"a\":\"tab\there\"}", "control character in a string");
	expect_json("{\"a\":\"\xff\"}", "string is not valid UTF-8");
	expect_json("{\"a\":\"\xed\xa0\x80\"}", "string is not valid UTF-8");
	expect_json("{\"a\":\"open", "unterminated string");
	expect_json("{\"a\":1} x", "unexpected data after the end of the document");
	expect_json("{\"a\":1}{}", "unexpected data after the end of the document");
	expect_json("{", "expected a member name");
}

static void test_json_limits(void **state)
{
	const char *path = tmp_path("deep.json");
	size_t i, n = 10000, len;
	char *s;

	(void)state;
	/* Nesting past the limit fails without recursing into it. */
	s = malloc(2 * n + 16);
	len = (size_t)sprintf(s, "{\"x\":");
	for (i = 0; i < n; i++)
		s[len++] = '[';
	for (i = 0; i < n; i++)
		s[len++] = ']';
	s[len++] = '}';
	write_bytes(path, s, len);
	expect_error(path, EINVAL, "nested deeper than 64 levels");
	free(s);
	/* A string past its limit. */
	s = malloc(SB_JSON_MAX_STRING + 16);
	len = (size_t)sprintf(s, "{\"");
	memset(s + len, 'a', SB_JSON_MAX_STRING + 1);
	len += SB_JSON_MAX_STRING + 1;
	len += (size_t)sprintf(s + len, "\":1}");
	write_bytes(path, s, len);
	expect_error(path, EINVAL, "string longer than 1048576 bytes");
	free(s);
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"start_times_ns\":[9223372036854775808],"
		    "\"end_times_ns\":[1]}]}", "integer out of the int64 range");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"start_times_ns\":[-9223372036854775809],"
		    "\"end_times_ns\":[1]}]}", "integer out of the int64 range");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\","
		    "\"start_times_ns\":[99999999999999999999999],\"end_times_ns\":[1]}]}",
		    "integer out of the int64 range");
}

static void test_json_layout_errors(void **state)
{
	(void)state;
	expect_json("{\"format_version\":1,\"regions\":[]}", "no \"format\" member");
	expect_json("{\"format\":\"other\",\"format_version\":1,\"regions\":[]}",
		    "not a scope-profiler profile: unknown format ('other')");
	expect_json("{\"format\":\"scope-profiler-profile\",\"format_version\":2,\"regions\":[]}",
		    "unsupported format_version 2 (this reader knows 1)");
	expect_json("{\"format\":\"scope-profiler-profile\",\"regions\":[]}",
		    "no \"format_version\" member");
	expect_json(HEAD "\"time_unit\":\"seconds\",\"regions\":[]}",
		    "unsupported time_unit ('seconds')");
	expect_json(HEAD "\"num_ranks\":-1,\"regions\":[]}", "num_ranks -1 out of range");
	expect_json(HEAD "\"metadata\":[],\"regions\":[]}", "metadata is not an object");
	expect_json(HEAD "\"format\":\"scope-profiler-profile\",\"regions\":[]}",
		    "\"format\" appears twice");
	expect_json("{\"format\":\"scope-profiler-profile\",\"format_version\":1}",
		    "no \"regions\" member");
	expect_json(HEAD "\"regions\":{}}", "regions is not an array");
	expect_json(HEAD "\"regions\":[3]}", "regions[0] is not an object");
	expect_json(HEAD "\"regions\":[{\"start_times_ns\":[],\"end_times_ns\":[]}]}",
		    "regions[0] has no name");
	expect_json(HEAD "\"regions\":[{\"name\":\"\",\"start_times_ns\":[],\"end_times_ns\":[]}]}",
		    "regions[0] has no name");
	expect_json(HEAD "\"regions\":[{\"name\":7}]}", "regions[0].name is not a string");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"name\":\"b\"}]}",
		    "regions[0]: \"name\" appears twice");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"start_times_ns\":[1]}]}",
		    "regions[0] ('a') has no start_times_ns or end_times_ns");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"start_times_ns\":[1,2],"
		    "\"end_times_ns\":[3]}]}", "regions[0] ('a'): 2 start times but 1 end times");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"start_times_ns\":[1,2.5],"
		    "\"end_times_ns\":[3,4]}]}", "regions[0].start_times_ns[1] is not an integer");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"start_times_ns\":[1,\"2\"],"
		    "\"end_times_ns\":[3,4]}]}", "regions[0].start_times_ns[1] is not an integer");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"start_times_ns\":[5],"
		    "\"end_times_ns\":[4]}]}", "regions[0]: region 'a' on rank 0: call 0 ends before it starts");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"rank\":-1}]}",
		    "regions[0].rank -1 out of range");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"rank\":1.0}]}",
		    "regions[0].rank is not an integer");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"source_lineno\":-2}]}",
		    "regions[0].source_lineno -2 is not a line number");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"tags\":[\"x\",1]}]}",
		    "regions[0].tags[1] is not a string");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"tags\":\"x\"}]}",
		    "regions[0].tags is not an array");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"source_file\":1}]}",
		    "regions[0].source_file is not a string");
	expect_json(HEAD "\"regions\":[{\"name\":\"a\",\"start_times_ns\":{}}]}",
		    "regions[0].start_times_ns is not an array");
}

static void test_json_many_metadata_members(void **state)
{
	const char *path = tmp_path("meta.json");
	FILE *f = fopen(path, "w");
	int i;

	(void)state;
	assert_non_null(f);
	fputs(HEAD "\"metadata\":{", f);
	for (i = 0; i <= SB_JSON_MAX_META; i++)
		fprintf(f, "%s\"k%d\":%d", i ? "," : "", i, i);
	fputs("},\"regions\":[]}", f);
	fclose(f);
	expect_error(path, EINVAL, "metadata has more than 4096 members");
}

/* ---- hostile HDF5, through the same entry point ---- */

static void rewrite_u64(const char *path, const char *name, const uint64_t *v)
{
	hid_t f, d;

	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	d = H5Dopen2(f, name, H5P_DEFAULT);
	assert_true(d >= 0);
	assert_true(H5Dwrite(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	H5Dclose(d);
	H5Fclose(f);
}

static void test_hdf5_bad_index(void **state)
{
	static const uint64_t overlap[N_PAIRS] = { 0, 1, 3, 5, 6 };
	static const uint64_t past[N_PAIRS] = { 0, 1, 4, 5, 7 };
	const char *path = tmp_path("index.h5");
	struct sb_profile a;

	(void)state;
	build(&a);
	write_h5(path, &a);
	sb_profile_free(&a);
	rewrite_u64(path, "/rank_region_index/event_offsets", overlap);
	expect_error(path, EINVAL, "index rows 1 and 2 overlap");
	rewrite_u64(path, "/rank_region_index/event_offsets", past);
	expect_error(path, EINVAL, "index row 4: events 7+1 past the end of /events");
}

static void test_hdf5_truncated(void **state)
{
	const char *good = tmp_path("whole.h5"), *cut = tmp_path("cut.h5");
	struct sb_profile a;
	unsigned char *b;
	struct stat st;
	size_t i;
	FILE *f;

	(void)state;
	build(&a);
	write_h5(good, &a);
	sb_profile_free(&a);
	assert_int_equal(stat(good, &st), 0);
	b = malloc((size_t)st.st_size);
	f = fopen(good, "rb");
	assert_non_null(f);
	assert_int_equal(fread(b, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	for (i = 1; i < 8; i++) {
		write_bytes(cut, b, (size_t)st.st_size * i / 8);
		expect_error(cut, EINVAL, "");
	}
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_schema_1),
		cmocka_unit_test(test_golden_schema_2),
		cmocka_unit_test(test_golden_schema_3),
		cmocka_unit_test(test_golden_spt_v1),
		cmocka_unit_test(test_golden_spt_v2),
		cmocka_unit_test(test_golden_json),
		cmocka_unit_test(test_round_trip_hdf5),
		cmocka_unit_test(test_round_trip_spt),
		cmocka_unit_test(test_round_trip_json),
		cmocka_unit_test(test_detection_ignores_the_name),
		cmocka_unit_test(test_hdf5_behind_a_user_block),
		cmocka_unit_test(test_unknown_missing_and_odd_files),
		cmocka_unit_test(test_spt_merges_names_and_sorts_calls),
		cmocka_unit_test(test_json_merges_names),
		cmocka_unit_test(test_json_tags_are_written_back_as_exports_write_strings),
		cmocka_unit_test(test_spt_every_truncation_fails),
		cmocka_unit_test(test_spt_bad_header),
		cmocka_unit_test(test_spt_bad_lengths),
		cmocka_unit_test(test_spt_bad_names_and_calls),
		cmocka_unit_test(test_json_every_truncation_fails),
		cmocka_unit_test(test_json_syntax_errors),
		cmocka_unit_test(test_json_limits),
		cmocka_unit_test(test_json_layout_errors),
		cmocka_unit_test(test_json_many_metadata_members),
		cmocka_unit_test(test_hdf5_bad_index),
		cmocka_unit_test(test_hdf5_truncated),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
