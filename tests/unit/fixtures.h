/* How the unit tests build their inputs: a scratch directory, synthetic profiles, HDF5 edits. */
#ifndef SB_TEST_FIXTURES_H
#define SB_TEST_FIXTURES_H

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "array_stream.h"
#include "io/h5read.h"
#include "io/h5write.h"
#include "model/model.h"

/* ---- a scratch directory for the whole program ---- */

static char tmp_dir[256];

/* cmocka group setup: a new directory, named after the test program, in $TMPDIR or /tmp. */
static inline int tmp_setup(void **state)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	(void)state;
	snprintf(tmp_dir, sizeof(tmp_dir), "%s/%s.XXXXXX", base, program_invocation_short_name);
	return mkdtemp(tmp_dir) ? 0 : -1;
}

static inline int tmp_teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
	return system(cmd);
}

/* A path in the scratch directory; valid for the next 15 calls, so several fit in one argv. */
static inline char *tmp_path(const char *name)
{
	static char buf[16][512];
	static int next;
	char *b = buf[next++ % 16];

	snprintf(b, sizeof(buf[0]), "%s/%s", tmp_dir, name);
	return b;
}

/* Temporary files of atomic writes ("NAME.tmp.PID") left in the scratch directory. */
static inline int count_tmp_files(void)
{
	DIR *dp = opendir(tmp_dir);
	struct dirent *d;
	int n = 0;

	assert_non_null(dp);
	while ((d = readdir(dp)))
		n += strstr(d->d_name, ".tmp.") != NULL;
	closedir(dp);
	return n;
}

/* The whole file at path, NUL-terminated; the caller frees it. */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	s = calloc((size_t)n + 1, 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

/* cmocka cuts long messages short: the text goes to stderr whole. */
static inline void expect_has(const char *text, const char *needle)
{
	if (strstr(text, needle))
		return;
	fprintf(stderr, "missing \"%s\" in:\n%s", needle, text);
	fail_msg("missing \"%s\"", needle);
}

/* The message names the file first, then says what is wrong. */
static inline void assert_msg(const struct sb_error *err, const char *path, const char *cause)
{
	size_t n = strlen(path);

	if (strncmp(err->msg, path, n) || strncmp(err->msg + n, ": ", 2) ||
	    !strstr(err->msg, cause))
		fail_msg("message '%s' should be '%s: ...%s...'", err->msg, path, cause);
}

/* sb_h5_read() of path fails with cause, and leaves nothing half-read behind. */
static inline void expect_read_error(const char *path, const char *cause)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	assert_true(sb_h5_read(path, &p, &err) < 0);
	assert_msg(&err, path, cause);
	assert_int_equal(p.n_regions, 0);
	assert_null(p.events);
	assert_int_equal(p.samples.n_samples, 0);
}

/* ---- synthetic profiles ---- */

/* A malloc'd copy of size bytes of src, for the arrays sb_profile_free() frees. */
static inline void *fx_copy(const void *src, size_t size)
{
	void *p = malloc(size);

	assert_non_null(p);
	memcpy(p, src, size);
	return p;
}

static inline void fx_add_threads(struct sb_profile *p, const struct sb_thread *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		assert_true(sb_profile_add_thread(p, &t[i]) >= 0);
}

static inline void fx_add_processes(struct sb_profile *p, const struct sb_process *pr, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		assert_true(sb_profile_add_process(p, &pr[i]) >= 0);
}

/* Room for one more pair and n more events. */
static inline void fx_reserve(struct sb_profile *p, size_t n)
{
	p->pairs = realloc(p->pairs, (p->n_pairs + 1) * sizeof(*p->pairs));
	p->events = realloc(p->events, (p->n_events + n + 1) * sizeof(*p->events));
	assert_non_null(p->pairs);
	assert_non_null(p->events);
}

/* Append e to the events as a call of pr, the last pair, with the stats the recorder keeps. */
static inline void fx_push(struct sb_profile *p, struct sb_pair *pr, const struct sb_event *e)
{
	pr->count++;
	sb_stats_add(&pr->stats, e->start, e->end, e->metric[SB_METRIC_GPU]);
	p->events[p->n_events++] = *e;
}

/* Append a pair of (region, rank) holding the n calls in ev; no exclusive time. */
static inline struct sb_pair *fx_add_pair(struct sb_profile *p, uint32_t region, uint32_t rank,
					  const struct sb_event *ev, size_t n)
{
	struct sb_pair *pr;
	size_t i;

	fx_reserve(p, n);
	pr = &p->pairs[p->n_pairs++];
	*pr = (struct sb_pair){ .region = region, .rank = rank, .offset = p->n_events,
				.exclusive_total = -1 };
	sb_stats_init(&pr->stats);
	for (i = 0; i < n; i++)
		fx_push(p, pr, &ev[i]);
	return pr;
}

/* Append one call: to the last pair when it is of (region, rank), else in a new pair. */
static inline void fx_add_call(struct sb_profile *p, uint32_t region, uint32_t rank,
			       const struct sb_event *e)
{
	struct sb_pair *last = p->n_pairs ? &p->pairs[p->n_pairs - 1] : NULL;

	if (!last || last->region != region || last->rank != rank) {
		fx_add_pair(p, region, rank, e, 1);
		return;
	}
	fx_reserve(p, 1);
	fx_push(p, &p->pairs[p->n_pairs - 1], e);
}

/* One call of region name on rank, thread 0, from start to end; returns its pair. */
static inline struct sb_pair *fx_call_on(struct sb_profile *p, const char *name, uint32_t rank,
					 int64_t start, int64_t end)
{
	struct sb_event e;
	ssize_t r = sb_profile_find_region(p, name);

	if (r < 0)
		r = sb_profile_add_region(p, name, "", -1, "[]");
	assert_true(r >= 0);
	sb_event_blank(&e);
	e.start = start;
	e.end = end;
	e.thread = 0;
	fx_add_call(p, (uint32_t)r, rank, &e);
	return &p->pairs[p->n_pairs - 1];
}

/* One call of a call tree on rank 0, thread 0, by region name. */
struct fx_call {
	const char *region;
	int64_t start, end, id, parent, offcpu;
};

/*
 * A profile of calls listed region by region and by start, as the index wants
 * them: a pair per region on rank 0, one thread "app"; off-CPU times only with
 * SB_COL_OFFCPU in columns. No metadata.
 */
static inline void fx_call_tree(struct sb_profile *p, const struct fx_call *calls, size_t n,
				unsigned columns)
{
	struct sb_thread th = { .rank = 0, .index = 0, .tid = 42, .end_ns = -1, .cpu_ns = -1,
				.name = "app" };
	struct sb_event e;
	ssize_t r;
	size_t i;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = columns;
	for (i = 0; i < n; i++) {
		r = sb_profile_find_region(p, calls[i].region);
		if (r < 0) {
			r = sb_profile_add_region(p, calls[i].region, "", -1, "[]");
			assert_int_equal(r, p->n_pairs);
		} else {
			/* A region's calls come together: only the last one may go on. */
			assert_int_equal(r, p->n_pairs - 1);
		}
		e = (struct sb_event){
			.start = calls[i].start, .end = calls[i].end, .thread = 0,
			.call_id = calls[i].id, .parent_id = calls[i].parent,
			.metric = { [SB_METRIC_GPU] = -1,
				    [SB_METRIC_OFFCPU] = columns & SB_COL_OFFCPU ? calls[i].offcpu : -1 },
		};
		fx_add_call(p, (uint32_t)r, 0, &e);
	}
	assert_true(sb_profile_add_thread(p, &th) >= 0);
}

/* Write p to an HDF5 file at path; 0 or sb_h5_write()'s error. */
static inline int fx_write_h5(const char *path, const struct sb_profile *p, struct sb_error *err)
{
	struct sb_array_stream s;

	sb_array_stream_init(&s, p);
	return sb_h5_write(path, p, &s.base, err);
}

/* Write what build makes to path, failing the test when that fails. */
static inline void fx_write_built(const char *path, void (*build)(struct sb_profile *))
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	build(&p);
	if (fx_write_h5(path, &p, &err))
		fail_msg("%s", err.msg);
	sb_profile_free(&p);
}

/* ---- corrupt files ---- */

/* Replace dataset name in the HDF5 file at path with n values of the given types. */
static inline void h5_replace(const char *path, const char *name, hid_t ftype, hid_t mtype,
			      const void *v, hsize_t n)
{
	hid_t f, s, d;

	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_true(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
	s = H5Screate_simple(1, &n, NULL);
	d = H5Dcreate2(f, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(d >= 0);
	/* Nothing to write for no values: H5Dwrite() of an empty selection is not needed. */
	if (v && n)
		assert_true(H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	H5Dclose(d);
	H5Sclose(s);
	H5Fclose(f);
}

/* Run as if through sudo by the user uid:gid (the variables sudo sets), or not. */
static inline void set_sudo(const char *uid, const char *gid)
{
	assert_int_equal(setenv("SUDO_UID", uid, 1), 0);
	assert_int_equal(setenv("SUDO_GID", gid, 1), 0);
}

static inline void clear_sudo(void)
{
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
}

#endif
