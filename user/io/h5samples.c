/* Write and read the sampled stacks of a profile as columns under /scope_bpf/samples/, trusting nothing read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5samples.h"
#include "io/h5write.h"

#define GROUP "scope_bpf/samples"
#define MAX_ROWS (1ull << 34)		/* no column may declare more rows */

enum ctype { T_I64, T_U64, T_U32, T_BOOL, T_STR };

struct column {
	const char *name;
	enum ctype type;
	size_t off;		/* of the field in the row struct */
};

/* One table: columns of equal length, one model array of structs of size stride. */
struct table {
	const char *prefix;	/* under GROUP; "" for a lone dataset */
	const struct column *cols;
	size_t n_cols;
	size_t stride;
	size_t arr;		/* offsetof the array pointer in struct sb_samples */
	size_t count;		/* offsetof its length */
	bool optional;		/* absent from files that do not have it, and when empty */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct column frame_cols[] = {
	{ "function", T_STR, offsetof(struct sb_frame_sym, function) },
	{ "file", T_STR, offsetof(struct sb_frame_sym, file) },
	{ "line", T_I64, offsetof(struct sb_frame_sym, line) },
	{ "module", T_STR, offsetof(struct sb_frame_sym, module) },
	{ "offset", T_U64, offsetof(struct sb_frame_sym, offset) },
	{ "inlined", T_BOOL, offsetof(struct sb_frame_sym, inlined) },
};

static const struct column stack_frame_cols[] = {
	{ "stack_frames", T_U32, 0 },
};

static const struct column stack_cols[] = {
	{ "first", T_U64, offsetof(struct sb_stack, first) },
	{ "depth", T_U32, offsetof(struct sb_stack, depth) },
};

static const struct column path_cols[] = {
	{ "parent", T_I64, offsetof(struct sb_region_path, parent) },
	{ "name", T_STR, offsetof(struct sb_region_path, name) },
};

static const struct column sample_cols[] = {
	{ "kind", T_U32, offsetof(struct sb_sample, kind) },
	{ "rank", T_U32, offsetof(struct sb_sample, rank) },
	{ "thread", T_I64, offsetof(struct sb_sample, thread) },
	{ "path", T_I64, offsetof(struct sb_sample, path) },
	{ "ustack", T_I64, offsetof(struct sb_sample, ustack) },
	{ "kstack", T_I64, offsetof(struct sb_sample, kstack) },
	{ "count", T_U64, offsetof(struct sb_sample, count) },
	{ "ns", T_U64, offsetof(struct sb_sample, ns) },
};

static const struct column timed_cols[] = {
	{ "time", T_I64, offsetof(struct sb_timed_sample, time) },
	{ "rank", T_U32, offsetof(struct sb_timed_sample, rank) },
	{ "thread", T_I64, offsetof(struct sb_timed_sample, thread) },
	{ "cpu", T_U32, offsetof(struct sb_timed_sample, cpu) },
	{ "path", T_I64, offsetof(struct sb_timed_sample, path) },
	{ "ustack", T_I64, offsetof(struct sb_timed_sample, ustack) },
	{ "kstack", T_I64, offsetof(struct sb_timed_sample, kstack) },
};

#define TABLE(p, c, type, a, n, opt)                                                         \
	{ p, c, N(c), sizeof(type), offsetof(struct sb_samples, a),                          \
	  offsetof(struct sb_samples, n), opt }

/* Ordered so that everything a table points at is read before it. */
static const struct table tables[] = {
	TABLE("frames/", frame_cols, struct sb_frame_sym, frames, n_frames, false),
	TABLE("", stack_frame_cols, uint32_t, stack_frames, n_stack_frames, false),
	TABLE("stacks/", stack_cols, struct sb_stack, stacks, n_stacks, false),
	TABLE("region_paths/", path_cols, struct sb_region_path, paths, n_paths, false),
	TABLE("aggregates/", sample_cols, struct sb_sample, samples, n_samples, false),
	TABLE("timeline/", timed_cols, struct sb_timed_sample, timeline, n_timeline, true),
};

static void **table_array(const struct table *t, const struct sb_samples *s)
{
	return (void **)((char *)s + t->arr);
}

static size_t *table_count(const struct table *t, const struct sb_samples *s)
{
	return (size_t *)((char *)s + t->count);
}

static void column_name(char *buf, size_t len, const struct table *t, const struct column *c)
{
	snprintf(buf, len, "/" GROUP "/%s%s", t->prefix, c->name);
}

static hid_t file_type(enum ctype t)
{
	switch (t) {
	case T_I64:
		return H5T_STD_I64LE;
	case T_U64:
		return H5T_STD_U64LE;
	case T_U32:
		return H5T_STD_U32LE;
	default:
		return H5T_STD_I8LE;
	}
}

static hid_t mem_type(enum ctype t)
{
	switch (t) {
	case T_I64:
		return H5T_NATIVE_INT64;
	case T_U64:
		return H5T_NATIVE_UINT64;
	case T_U32:
		return H5T_NATIVE_UINT32;
	default:
		return H5T_NATIVE_INT8;
	}
}

/* ---- the rules ---- */

static int check_stacks(const struct sb_samples *s, char *why, size_t len)
{
	const struct sb_stack *k;
	size_t i;

	/* Frame ids are 32-bit on disk. */
	if (s->n_frames > UINT32_MAX)
		return sb_bad(why, len, "%zu frames, more than frame ids can address", s->n_frames);
	for (i = 0; i < s->n_stack_frames; i++)
		if (s->stack_frames[i] >= s->n_frames)
			return sb_bad(why, len,
				      "stack_frames[%zu]: frame id %u out of range (%zu frames)", i,
				      s->stack_frames[i], s->n_frames);
	for (i = 0; i < s->n_stacks; i++) {
		k = &s->stacks[i];
		if (k->first > s->n_stack_frames || k->depth > s->n_stack_frames - k->first)
			return sb_bad(why, len,
				      "stack %zu: frames %llu+%u past the end of stack_frames (%zu ids)",
				      i, (unsigned long long)k->first, k->depth, s->n_stack_frames);
	}
	return 0;
}

/* A parent that comes first can never lead back to its child: no cycles, by construction. */
static int check_paths(const struct sb_samples *s, char *why, size_t len)
{
	const struct sb_region_path *q;
	size_t i;

	for (i = 0; i < s->n_paths; i++) {
		q = &s->paths[i];
		if (q->parent < -1 || (q->parent >= 0 && (uint64_t)q->parent >= i))
			return sb_bad(why, len,
				      "region path %zu: parent %lld is not an earlier path", i,
				      (long long)q->parent);
		if (!q->name)
			return sb_bad(why, len, "region path %zu has no name", i);
	}
	return 0;
}

static bool id_ok(int64_t id, size_t n)
{
	return id == -1 || (id >= 0 && (uint64_t)id < n);
}

/* What an aggregate row and a timed sample both point at. */
struct refs {
	uint32_t rank;
	int64_t thread, path, ustack, kstack;
};

struct ctx {
	const struct sb_profile *p;
	uint32_t ranks;
	uint64_t *keys;		/* the thread table's (rank, row) keys */
	size_t n_keys;
	char *why;
	size_t len;
};

static int check_refs(const struct ctx *c, const char *what, size_t i, const struct refs *x)
{
	const struct sb_samples *s = &c->p->samples;

	if (x->rank >= c->ranks)
		return sb_bad(c->why, c->len, "%s %zu: rank %u out of range (%u ranks)", what, i,
			      x->rank, c->ranks);
	if (!id_ok(x->path, s->n_paths))
		return sb_bad(c->why, c->len, "%s %zu: region path %lld out of range (%zu paths)",
			      what, i, (long long)x->path, s->n_paths);
	if (!id_ok(x->ustack, s->n_stacks) || !id_ok(x->kstack, s->n_stacks))
		return sb_bad(c->why, c->len, "%s %zu: stack %lld out of range (%zu stacks)", what,
			      i, (long long)(id_ok(x->ustack, s->n_stacks) ? x->kstack : x->ustack),
			      s->n_stacks);
	if (x->thread < -1 || x->thread > UINT32_MAX)
		return sb_bad(c->why, c->len, "%s %zu: thread %lld out of range", what, i,
			      (long long)x->thread);
	/* Without a thread table (not recorded) there is nothing to point at, nothing to check. */
	if (x->thread == -1 || !c->p->n_threads)
		return 0;
	if (!sb_thread_keys_have(c->keys, c->n_keys, x->rank, (uint64_t)x->thread))
		return sb_bad(c->why, c->len, "%s %zu: thread %lld is not a thread of rank %u",
			      what, i, (long long)x->thread, x->rank);
	return 0;
}

static int check_row(const struct ctx *c, size_t i)
{
	const struct sb_sample *x = &c->p->samples.samples[i];
	struct refs r = { x->rank, x->thread, x->path, x->ustack, x->kstack };

	if (x->kind != SB_SAMPLE_CPU && x->kind != SB_SAMPLE_OFFCPU)
		return sb_bad(c->why, c->len, "sample row %zu: unknown kind %u", i, x->kind);
	return check_refs(c, "sample row", i, &r);
}

/* Readers walk a rank's samples in time order: the file keeps them so. */
static int check_timed(const struct ctx *c, size_t i)
{
	const struct sb_timed_sample *x = &c->p->samples.timeline[i];
	struct refs r = { x->rank, x->thread, x->path, x->ustack, x->kstack };

	if (i && (x->rank < x[-1].rank || (x->rank == x[-1].rank && x->time < x[-1].time)))
		return sb_bad(c->why, c->len,
			      "timed sample %zu: rank %u at %lld ns comes after rank %u at %lld ns",
			      i, x->rank, (long long)x->time, x[-1].rank, (long long)x[-1].time);
	return check_refs(c, "timed sample", i, &r);
}

/* Reports sum counts and times per kind; a sum that wraps would make every share a lie. */
static int check_sums(const struct sb_samples *s, char *why, size_t len)
{
	uint64_t count[2] = { 0, 0 }, ns[2] = { 0, 0 };
	const struct sb_sample *x;
	size_t i;

	for (i = 0; i < s->n_samples; i++) {
		x = &s->samples[i];
		if (__builtin_add_overflow(count[x->kind], x->count, &count[x->kind]) ||
		    __builtin_add_overflow(ns[x->kind], x->ns, &ns[x->kind]))
			return sb_bad(why, len, "sample row %zu: counts or times overflow", i);
	}
	return 0;
}

int sb_h5_check_samples(const struct sb_profile *p, char *why, size_t len)
{
	const struct sb_samples *s = &p->samples;
	struct ctx c = { .p = p, .ranks = sb_profile_rank_count(p), .why = why, .len = len };
	size_t i;
	int ret;

	ret = check_stacks(s, why, len);
	if (!ret)
		ret = check_paths(s, why, len);
	if (ret)
		return ret;
	/* A profile with samples but no region call still has its one process: rank 0. */
	if (c.ranks < 1)
		c.ranks = 1;
	if (c.ranks > SB_MAX_RANK)
		c.ranks = SB_MAX_RANK;
	c.keys = sb_profile_thread_keys(p, &c.n_keys);
	if (!c.keys)
		return sb_bad(why, len, "out of memory");
	for (i = 0; i < s->n_samples && !ret; i++)
		ret = check_row(&c, i);
	for (i = 0; i < s->n_timeline && !ret; i++)
		ret = check_timed(&c, i);
	free(c.keys);
	return ret ? ret : check_sums(s, why, len);
}

/* ---- writing ---- */

static int write_table(struct sb_h5w *w, const struct table *t, const struct sb_samples *s)
{
	const char *rows = *table_array(t, s);
	size_t n = *table_count(t, s), i;
	const struct column *c;
	char name[128];
	int ret = 0;

	if (t->optional && !n)
		return 0;
	if (*t->prefix) {
		snprintf(name, sizeof(name), GROUP "/%.*s", (int)strlen(t->prefix) - 1, t->prefix);
		ret = sb_h5_make_group(w, name);
	}
	for (i = 0; i < t->n_cols && !ret; i++) {
		c = &t->cols[i];
		column_name(name, sizeof(name), t, c);
		if (c->type == T_STR)
			ret = sb_h5_put_strings(w, name, rows, n, t->stride, c->off);
		else
			/* A bool is one byte holding 0 or 1: it goes out as an int8 as it is. */
			ret = sb_h5_put_field(w, name, file_type(c->type), mem_type(c->type),
					      rows, n, t->stride, c->off);
	}
	return ret;
}

int sb_h5_write_samples(hid_t file, const char *path, const struct sb_profile *p,
			struct sb_error *err)
{
	struct sb_h5w w = { .path = path, .err = err, .file = file };
	char why[256];
	size_t i;
	int ret;

	if (!p->samples.n_samples)
		return 0;
	if (sb_h5_check_samples(p, why, sizeof(why)))
		return sb_fail(err, EINVAL, "%s: cannot write invalid samples: %s", path, why);
	ret = sb_h5_make_group(&w, "scope_bpf");
	if (!ret)
		ret = sb_h5_make_group(&w, GROUP);
	for (i = 0; i < N(tables) && !ret; i++)
		ret = write_table(&w, &tables[i], &p->samples);
	return ret;
}

/* ---- reading ---- */

static int check_shape(struct sb_h5_section *r, const char *what, hid_t s, hid_t t, enum ctype type,
		       hsize_t *dim)
{
	if (H5Tget_class(t) != (type == T_STR ? H5T_STRING : H5T_INTEGER))
		return sb_h5_corrupt(r, "%s has the wrong type (%s expected)", what,
			       type == T_STR ? "string" : "integer");
	if (type == T_STR && H5Tis_variable_str(t) <= 0)
		return sb_h5_corrupt(r, "%s is not a variable-length string", what);
	if (H5Sget_simple_extent_ndims(s) != 1 || H5Sget_simple_extent_dims(s, dim, NULL) != 1)
		return sb_h5_corrupt(r, "%s is not a 1-D column", what);
	if (*dim > MAX_ROWS)
		return sb_h5_corrupt(r, "%s declares %llu rows (limit %llu)", what,
			       (unsigned long long)*dim, MAX_ROWS);
	return 0;
}

static int check_header(struct sb_h5_section *r, const char *what, hid_t d, enum ctype type, uint64_t *n)
{
	hid_t s = H5Dget_space(d), t = H5Dget_type(d);
	hsize_t dim = 0;
	int ret;

	if (s < 0 || t < 0)
		ret = sb_h5_corrupt(r, "cannot read the header of %s", what);
	else
		ret = check_shape(r, what, s, t, type, &dim);
	if (!ret)
		ret = sb_h5_check_storage(d, t, dim, r->file_size, r->path, what, r->err);
	if (!ret)
		*n = dim;
	if (t >= 0)
		H5Tclose(t);
	if (s >= 0)
		H5Sclose(s);
	return ret;
}

/* Open a required column and learn its length; d is left open only on success. */
static int open_column(struct sb_h5_section *r, const char *what, enum ctype type, hid_t *d, uint64_t *n)
{
	int ret;

	/* H5Lexists fails, rather than says no, when a group on the way is missing. */
	if (H5Lexists(r->file, what, H5P_DEFAULT) <= 0)
		return sb_h5_corrupt(r, "%s is missing", what);
	*d = H5Dopen2(r->file, what, H5P_DEFAULT);
	if (*d < 0)
		return sb_h5_corrupt(r, "%s is not a dataset", what);
	ret = check_header(r, what, *d, type, n);
	if (ret) {
		H5Dclose(*d);
		*d = H5I_INVALID_HID;
	}
	return ret;
}

static int read_strings(struct sb_h5_section *r, const char *what, hid_t d, char *rows, size_t n,
			size_t stride, size_t off)
{
	int ret = sb_h5_get_strings(d, false, H5T_CSET_UTF8, rows, n, stride, off);

	if (ret == -EIO)
		return sb_h5_corrupt(r, "cannot read %s", what);
	return ret ? sb_h5_section_nomem(r) : 0;
}

/* Any nonzero byte means true: a bool must never hold anything but 0 or 1. */
static int read_bools(struct sb_h5_section *r, const char *what, hid_t d, char *rows, size_t n, size_t stride,
		      size_t off)
{
	int8_t *v = malloc(n);
	size_t i;
	int ret = 0;

	if (!v)
		return sb_h5_section_nomem(r);
	if (H5Dread(d, H5T_NATIVE_INT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
		ret = sb_h5_corrupt(r, "cannot read %s", what);
	for (i = 0; i < n && !ret; i++)
		*(bool *)(rows + i * stride + off) = v[i] != 0;
	free(v);
	return ret;
}

static int read_column(struct sb_h5_section *r, const char *what, hid_t d, const struct column *c,
		       const struct table *t, char *rows, size_t n)
{
	hid_t ms;
	herr_t rc;

	if (!n)
		return 0;
	if (c->type == T_STR)
		return read_strings(r, what, d, rows, n, t->stride, c->off);
	if (c->type == T_BOOL)
		return read_bools(r, what, d, rows, n, t->stride, c->off);
	ms = sb_h5_field_space(n, t->stride, c->off, H5Tget_size(mem_type(c->type)));
	if (ms < 0)
		return sb_h5_corrupt(r, "cannot read %s", what);
	rc = H5Dread(d, mem_type(c->type), ms, H5S_ALL, H5P_DEFAULT, rows);
	H5Sclose(ms);
	return rc < 0 ? sb_h5_corrupt(r, "cannot read %s", what) : 0;
}

/* Every column must be there with the first one's length, before any row is allocated. */
static int open_table(struct sb_h5_section *r, const struct table *t, hid_t *d, uint64_t *n)
{
	char what[128];
	uint64_t len;
	size_t i;
	int ret = 0;

	for (i = 0; i < t->n_cols && !ret; i++) {
		column_name(what, sizeof(what), t, &t->cols[i]);
		ret = open_column(r, what, t->cols[i].type, &d[i], i ? &len : n);
		if (!ret && i && len != *n)
			ret = sb_h5_corrupt(r, "column lengths differ: %s has %llu rows, expected %llu",
				      what, (unsigned long long)len, (unsigned long long)*n);
	}
	return ret;
}

_Static_assert(N(sample_cols) >= N(frame_cols) && N(sample_cols) >= N(timed_cols),
	       "read_table: d[] holds the widest table");

static int read_table(struct sb_h5_section *r, const struct table *t, struct sb_samples *s)
{
	hid_t d[N(sample_cols)];
	char what[128], *rows;
	uint64_t n = 0;
	size_t i;
	int ret;

	/* An optional table is a group: all of its columns, or nothing. */
	snprintf(what, sizeof(what), GROUP "/%.*s", (int)strlen(t->prefix) - 1, t->prefix);
	if (t->optional && H5Lexists(r->file, what, H5P_DEFAULT) <= 0)
		return 0;
	for (i = 0; i < t->n_cols; i++)
		d[i] = H5I_INVALID_HID;
	ret = open_table(r, t, d, &n);
	/* n is backed by stored bytes (check_storage), so this allocation cannot be absurd. */
	rows = ret ? NULL : calloc(n ? n : 1, t->stride);
	if (!ret && !rows)
		ret = sb_h5_section_nomem(r);
	if (rows) {
		/* Both now, so that sb_samples_free releases the strings read before a failure. */
		*table_array(t, s) = rows;
		*table_count(t, s) = n;
	}
	for (i = 0; i < t->n_cols && !ret; i++) {
		column_name(what, sizeof(what), t, &t->cols[i]);
		ret = read_column(r, what, d[i], &t->cols[i], t, *table_array(t, s), n);
	}
	for (i = 0; i < t->n_cols; i++)
		if (d[i] >= 0)
			H5Dclose(d[i]);
	return ret;
}

int sb_h5_read_samples(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err)
{
	struct sb_h5_section r = { file, path, err, 0 };
	char why[256];
	hsize_t size;
	size_t i;
	int ret = 0;

	memset(&p->samples, 0, sizeof(p->samples));
	if (H5Lexists(file, "scope_bpf", H5P_DEFAULT) <= 0 ||
	    H5Lexists(file, GROUP, H5P_DEFAULT) <= 0)
		return 0;
	if (H5Fget_filesize(file, &size) < 0)
		return sb_h5_corrupt(&r, "cannot read the file size");
	r.file_size = size;
	for (i = 0; i < N(tables) && !ret; i++)
		ret = read_table(&r, &tables[i], &p->samples);
	if (!ret && sb_h5_check_samples(p, why, sizeof(why)))
		ret = sb_h5_corrupt(&r, "/" GROUP ": %s", why);
	if (ret)
		sb_samples_free(&p->samples);
	return ret;
}
