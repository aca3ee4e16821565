/* Read scope-profiler JSON profiles (format_version 1): strict JSON, the layout checked as it comes. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "io/json_read.h"
#include "io/profile_read.h"
#include "model/model.h"
#include "util/json_parse.h"
#include "util/text_format.h"

struct jr {
	const char *path;	/* for messages */
	struct sb_error *err;
	struct sb_json j;
	struct sb_profile *p;
	struct sb_read_build build;
	char why[320];		/* a layout error; parse errors are in j.why */
	size_t n_meta;
	int64_t num_ranks;	/* -1 when absent */
};

struct ivec {
	int64_t *v;
	size_t n;
	size_t cap;
};

enum region_member {
	REG_NAME, REG_RANK, REG_FILE, REG_LINE, REG_TAGS, REG_STARTS, REG_ENDS,
	/* optional per-call lists, as our export json writes them */
	REG_THREADS, REG_CALL_IDS, REG_PARENT_IDS,
	REG_METRIC,	/* then one list per metric column, REG_METRIC + its id */
};
static const char *const region_names[REG_METRIC] = { "name", "rank", "source_file",
						       "source_lineno", "tags", "start_times_ns",
						       "end_times_ns", "thread_ids", "call_ids",
						       "parent_ids" };
#define REG_FIRST_LIST REG_THREADS
#define N_LISTS (REG_METRIC - REG_FIRST_LIST + SB_N_METRICS)

/* One element of "regions" as the file lists it. */
struct jregion {
	char *name;
	char *file;
	char *tags;
	int64_t rank;
	int64_t line;
	struct ivec starts;
	struct ivec ends;
	struct ivec lists[N_LISTS];	/* absent when seen lacks them (or they were null) */
};

enum top_member {
	TOP_FORMAT, TOP_VERSION, TOP_UNIT, TOP_RANKS, TOP_META, TOP_REGIONS, TOP_THREADS, TOP_N
};
static const char *const top_names[TOP_N] = { "format", "format_version", "time_unit",
					       "num_ranks", "metadata", "regions", "threads" };

enum thread_member { TH_INDEX, TH_NAME, TH_IDENT, TH_NATIVE, TH_START, TH_END, TH_CPU, TH_N };
static const char *const thread_names[TH_N] = { "index", "name", "ident", "native_id",
						"start_ns", "end_ns", "cpu_ns" };

static int bad(struct jr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct jr *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int member_index(const char *const *names, int n, const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], key))
			return i;
	return -1;
}

/* A member seen twice would silently replace the first: refuse the file instead. */
static int first_time(struct jr *r, unsigned *seen, int m, const char *where, const char *key)
{
	if (*seen & (1u << m))
		return bad(r, "%s\"%s\" appears twice", where, key);
	*seen |= 1u << m;
	return 0;
}

/* ---- typed values ---- */

static int want_int(struct jr *r, const char *what, int64_t *v)
{
	bool integer;
	int ret;

	if (sb_json_peek(&r->j) != SB_JSON_NUMBER)
		return bad(r, "%s is not an integer", what);
	ret = sb_json_number(&r->j, v, &integer);
	if (!ret && !integer)
		ret = bad(r, "%s is not an integer", what);
	return ret;
}

static int want_str(struct jr *r, const char *what, const char **s)
{
	if (sb_json_peek(&r->j) != SB_JSON_STRING)
		return bad(r, "%s is not a string", what);
	return sb_json_string(&r->j, s);
}

static int dup_str(const char *s, char **out)
{
	char *c = strdup(s);

	if (!c)
		return -ENOMEM;
	free(*out);
	*out = c;
	return 0;
}

static int push(struct ivec *v, int64_t x)
{
	int64_t *q;
	size_t cap;

	if (v->n == v->cap) {
		cap = v->cap ? v->cap * 2 : 64;
		q = realloc(v->v, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		v->v = q;
		v->cap = cap;
	}
	v->v[v->n++] = x;
	return 0;
}

/* An array of integer nanoseconds. */
static int read_times(struct jr *r, const char *what, struct ivec *v)
{
	bool integer;
	int64_t x;
	int ret;

	if (sb_json_peek(&r->j) != SB_JSON_ARRAY)
		return bad(r, "%s is not an array", what);
	ret = sb_json_enter(&r->j, SB_JSON_ARRAY);
	while (!ret && (ret = sb_json_item(&r->j)) > 0) {
		if (v->n >= SB_READ_MAX_EVENTS)
			return bad(r, "%s has more than %llu values", what, SB_READ_MAX_EVENTS);
		if (sb_json_peek(&r->j) != SB_JSON_NUMBER)
			return bad(r, "%s[%zu] is not an integer", what, v->n);
		ret = sb_json_number(&r->j, &x, &integer);
		if (!ret && !integer)
			return bad(r, "%s[%zu] is not an integer", what, v->n);
		if (!ret)
			ret = push(v, x);
	}
	return ret;
}

/* An array of strings, kept as the model keeps tags: a JSON list in a string. */
static int read_tags(struct jr *r, const char *what, char **out)
{
	const char *s;
	size_t size, n = 0;
	char *buf = NULL;
	FILE *f;
	int ret;

	if (sb_json_peek(&r->j) == SB_JSON_NULL)
		return sb_json_skip(&r->j);
	if (sb_json_peek(&r->j) != SB_JSON_ARRAY)
		return bad(r, "%s is not an array", what);
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	fputc('[', f);
	ret = sb_json_enter(&r->j, SB_JSON_ARRAY);
	while (!ret && (ret = sb_json_item(&r->j)) > 0) {
		if (sb_json_peek(&r->j) != SB_JSON_STRING) {
			ret = bad(r, "%s[%zu] is not a string", what, n);
			break;
		}
		ret = sb_json_string(&r->j, &s);
		if (ret)
			break;
		if (n++)
			fputc(',', f);
		format_json_string(f, s);
	}
	fputc(']', f);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (!ret) {
		free(*out);
		*out = buf;
		return 0;
	}
	free(buf);
	return ret;
}

/* ---- metadata: scalars the model can hold; anything else is skipped ---- */

static int meta_value(struct jr *r, const char *key)
{
	const char *s;
	bool integer;
	int64_t v;
	int ret;

	switch (sb_json_peek(&r->j)) {
	case SB_JSON_STRING:
		ret = sb_json_string(&r->j, &s);
		if (!ret && *key)
			ret = sb_profile_set_str(r->p, key, s);
		return ret;
	case SB_JSON_NUMBER:
		ret = sb_json_number(&r->j, &v, &integer);
		if (!ret && integer && *key)
			ret = sb_profile_set_int(r->p, key, v);
		return ret;
	default:
		return sb_json_skip(&r->j);
	}
}

static int read_metadata(struct jr *r)
{
	const char *key;
	char *k;
	int ret;

	if (sb_json_peek(&r->j) != SB_JSON_OBJECT)
		return bad(r, "metadata is not an object");
	ret = sb_json_enter(&r->j, SB_JSON_OBJECT);
	while (!ret && (ret = sb_json_member(&r->j, &key)) > 0) {
		/* The model looks keys up one by one: keep their number sane. */
		if (++r->n_meta > SB_JSON_MAX_META)
			return bad(r, "metadata has more than %d members", SB_JSON_MAX_META);
		k = strdup(key);
		if (!k)
			return -ENOMEM;
		ret = meta_value(r, k);
		free(k);
	}
	return ret;
}

/* ---- regions ---- */

static int region_value(struct jr *r, struct jregion *g, int m, const char *what)
{
	const char *s;
	int ret;

	switch (m) {
	case REG_NAME:
		ret = want_str(r, what, &s);
		return ret ? ret : dup_str(s, &g->name);
	case REG_RANK:
		ret = want_int(r, what, &g->rank);
		if (!ret && (g->rank < 0 || g->rank >= SB_MAX_RANK))
			ret = bad(r, "%s %lld out of range", what, (long long)g->rank);
		return ret;
	case REG_FILE:
		if (sb_json_peek(&r->j) == SB_JSON_NULL)
			return sb_json_skip(&r->j);
		ret = want_str(r, what, &s);
		return ret ? ret : dup_str(s, &g->file);
	case REG_LINE:
		if (sb_json_peek(&r->j) == SB_JSON_NULL)
			return sb_json_skip(&r->j);
		ret = want_int(r, what, &g->line);
		if (!ret && g->line < -1)
			ret = bad(r, "%s %lld is not a line number", what, (long long)g->line);
		return ret;
	case REG_TAGS:
		return read_tags(r, what, &g->tags);
	case REG_STARTS:
		return read_times(r, what, &g->starts);
	case REG_ENDS:
		return read_times(r, what, &g->ends);
	}
	return sb_json_skip(&r->j);
}

/* An optional per-call list: null is the same as leaving it out. */
static int region_list(struct jr *r, struct jregion *g, int m, const char *what, unsigned *seen)
{
	if (sb_json_peek(&r->j) == SB_JSON_NULL) {
		*seen &= ~(1u << m);
		return sb_json_skip(&r->j);
	}
	return read_times(r, what, &g->lists[m - REG_FIRST_LIST]);
}

/* A region member by its key: a fixed one, else a metric column's list; -1 when unknown. */
static int region_member(const char *key)
{
	int m = member_index(region_names, REG_METRIC, key);
	unsigned id;

	for (id = 0; m < 0 && id < SB_N_METRICS; id++)
		if (!strcmp(sb_column(id)->json_name, key))
			m = REG_METRIC + (int)id;
	return m;
}

static const char *region_member_name(int m)
{
	return m < REG_METRIC ? region_names[m] : sb_column((unsigned)(m - REG_METRIC))->json_name;
}

static const int64_t *list_values(const struct ivec *v)
{
	return v ? v->v : NULL;
}

static int add_region(struct jr *r, struct jregion *g, size_t i, unsigned seen)
{
	char why[256], name[SB_READ_PRINTABLE];
	const struct ivec *l[N_LISTS];
	struct sb_read_calls c;
	unsigned id;
	int m, ret;

	if (!(seen & 1u << REG_NAME) || !*g->name)
		return bad(r, "regions[%zu] has no name", i);
	if (!(seen & 1u << REG_STARTS) || !(seen & 1u << REG_ENDS))
		return bad(r, "regions[%zu] ('%s') has no start_times_ns or end_times_ns", i,
			   sb_read_printable(g->name, name, sizeof(name)));
	if (g->starts.n != g->ends.n)
		return bad(r, "regions[%zu] ('%s'): %zu start times but %zu end times", i,
			   sb_read_printable(g->name, name, sizeof(name)), g->starts.n, g->ends.n);
	for (m = 0; m < N_LISTS; m++) {
		l[m] = seen & 1u << (REG_FIRST_LIST + m) ? &g->lists[m] : NULL;
		if (l[m] && l[m]->n != g->starts.n)
			return bad(r, "regions[%zu] ('%s'): %zu start times but %zu %s", i,
				   sb_read_printable(g->name, name, sizeof(name)), g->starts.n,
				   l[m]->n, region_member_name(REG_FIRST_LIST + m));
	}
	c = (struct sb_read_calls){ .rank = (uint32_t)g->rank, .name = g->name, .file = g->file,
				    .line = g->line, .tags = g->tags, .starts = g->starts.v,
				    .ends = g->ends.v, .n = g->starts.n };
	c.threads = list_values(l[REG_THREADS - REG_FIRST_LIST]);
	c.call_ids = list_values(l[REG_CALL_IDS - REG_FIRST_LIST]);
	c.parent_ids = list_values(l[REG_PARENT_IDS - REG_FIRST_LIST]);
	for (id = 0; id < SB_N_METRICS; id++)
		c.metric[id] = list_values(l[REG_METRIC + id - REG_FIRST_LIST]);
	ret = sb_read_build_add(&r->build, &c, why, sizeof(why));
	return ret == -EINVAL ? bad(r, "regions[%zu]: %s", i, why) : ret;
}

static int read_region(struct jr *r, size_t i)
{
	struct jregion g = { .line = -1 };
	char where[48], what[96];
	const char *key;
	unsigned seen = 0;
	int m, ret;

	if (sb_json_peek(&r->j) != SB_JSON_OBJECT)
		return bad(r, "regions[%zu] is not an object", i);
	snprintf(where, sizeof(where), "regions[%zu]: ", i);
	ret = sb_json_enter(&r->j, SB_JSON_OBJECT);
	while (!ret && (ret = sb_json_member(&r->j, &key)) > 0) {
		m = region_member(key);
		if (m < 0) {
			ret = sb_json_skip(&r->j);
			continue;
		}
		ret = first_time(r, &seen, m, where, key);
		snprintf(what, sizeof(what), "regions[%zu].%s", i, region_member_name(m));
		if (!ret && m >= REG_FIRST_LIST)
			ret = region_list(r, &g, m, what, &seen);
		else if (!ret)
			ret = region_value(r, &g, m, what);
	}
	if (!ret)
		ret = add_region(r, &g, i, seen);
	free(g.name);
	free(g.file);
	free(g.tags);
	free(g.starts.v);
	free(g.ends.v);
	for (m = 0; m < N_LISTS; m++)
		free(g.lists[m].v);
	return ret;
}

static int read_regions(struct jr *r)
{
	size_t i = 0;
	int ret;

	if (sb_json_peek(&r->j) != SB_JSON_ARRAY)
		return bad(r, "regions is not an array");
	ret = sb_json_enter(&r->j, SB_JSON_ARRAY);
	while (!ret && (ret = sb_json_item(&r->j)) > 0)
		ret = read_region(r, i++);
	return ret;
}

/* ---- threads: {"RANK": [{"index", "name", "native_id", ...}, ...], ...} ---- */

/* An integer member that may be null (unknown, -1). */
static int int_or_null(struct jr *r, const char *what, int64_t *v)
{
	*v = -1;
	if (sb_json_peek(&r->j) == SB_JSON_NULL)
		return sb_json_skip(&r->j);
	return want_int(r, what, v);
}

static int thread_value(struct jr *r, struct sb_thread *t, int m, const char *what,
			int64_t *ident)
{
	const char *s;
	int ret;

	switch (m) {
	case TH_INDEX:
		return want_int(r, what, &t->index);
	case TH_NAME:
		ret = want_str(r, what, &s);
		return ret ? ret : dup_str(s, &t->name);
	case TH_IDENT:
		return int_or_null(r, what, ident);
	case TH_NATIVE:
		return int_or_null(r, what, &t->tid);
	case TH_START:
		return int_or_null(r, what, &t->start_ns);
	case TH_END:
		return int_or_null(r, what, &t->end_ns);
	case TH_CPU:
		return int_or_null(r, what, &t->cpu_ns);
	}
	return sb_json_skip(&r->j);
}

static int read_thread(struct jr *r, uint32_t rank, size_t i)
{
	struct sb_thread t = { .rank = rank, .index = -1, .tid = -1, .start_ns = -1, .end_ns = -1,
			       .cpu_ns = -1 };
	char where[64], what[96];
	int64_t ident = -1;
	const char *key;
	unsigned seen = 0;
	int m, ret;

	snprintf(where, sizeof(where), "threads[\"%u\"][%zu]", rank, i);
	if (sb_json_peek(&r->j) != SB_JSON_OBJECT)
		return bad(r, "%s is not an object", where);
	ret = sb_json_enter(&r->j, SB_JSON_OBJECT);
	while (!ret && (ret = sb_json_member(&r->j, &key)) > 0) {
		m = member_index(thread_names, TH_N, key);
		if (m < 0) {
			ret = sb_json_skip(&r->j);
			continue;
		}
		snprintf(what, sizeof(what), "%s.%s", where, thread_names[m]);
		ret = first_time(r, &seen, m, "", what);
		if (!ret)
			ret = thread_value(r, &t, m, what, &ident);
	}
	if (!ret && !(seen & 1u << TH_INDEX))
		ret = bad(r, "%s has no index", where);
	/* The OS thread id: native_id, or ident from writers that have only that. */
	if (t.tid < 0)
		t.tid = ident;
	if (!ret && !t.name)
		ret = dup_str("", &t.name);
	if (!ret && sb_profile_add_thread(r->p, &t) < 0)
		ret = -ENOMEM;
	free(t.name);
	return ret;
}

/* A rank as an object key: decimal, no sign or leading zeros, in range. */
static int rank_key(struct jr *r, const char *key, uint32_t *rank)
{
	char shown[SB_READ_PRINTABLE];
	uint64_t v = 0;
	const char *c;

	for (c = key; *c >= '0' && *c <= '9' && v < SB_MAX_RANK; c++)
		v = v * 10 + (uint64_t)(*c - '0');
	if (c == key || *c || (key[0] == '0' && key[1]) || v >= SB_MAX_RANK)
		return bad(r, "threads: \"%s\" is not a rank",
			   sb_read_printable(key, shown, sizeof(shown)));
	*rank = (uint32_t)v;
	return 0;
}

static int read_threads(struct jr *r)
{
	uint32_t rank = 0;
	const char *key;
	size_t i;
	int ret;

	if (sb_json_peek(&r->j) != SB_JSON_OBJECT)
		return bad(r, "threads is not an object");
	ret = sb_json_enter(&r->j, SB_JSON_OBJECT);
	while (!ret && (ret = sb_json_member(&r->j, &key)) > 0) {
		ret = rank_key(r, key, &rank);
		if (!ret && sb_json_peek(&r->j) != SB_JSON_ARRAY)
			ret = bad(r, "threads[\"%u\"] is not an array", rank);
		if (!ret)
			ret = sb_json_enter(&r->j, SB_JSON_ARRAY);
		for (i = 0; !ret && (ret = sb_json_item(&r->j)) > 0; i++)
			ret = read_thread(r, rank, i);
	}
	return ret;
}

/* ---- the document ---- */

static int check_str(struct jr *r, const char *what, const char *want, const char *cause)
{
	char shown[SB_READ_PRINTABLE];
	const char *s;
	int ret;

	ret = want_str(r, what, &s);
	if (!ret && strcmp(s, want))
		ret = bad(r, "%s ('%s')", cause, sb_read_printable(s, shown, sizeof(shown)));
	return ret;
}

static int top_value(struct jr *r, int m)
{
	int64_t v;
	int ret;

	switch (m) {
	case TOP_FORMAT:
		return check_str(r, "format", "scope-profiler-profile",
				 "not a scope-profiler profile: unknown format");
	case TOP_VERSION:
		ret = want_int(r, "format_version", &v);
		if (!ret && v != 1)
			ret = bad(r, "unsupported format_version %lld (this reader knows 1)",
				  (long long)v);
		return ret;
	case TOP_UNIT:
		return check_str(r, "time_unit", "nanoseconds", "unsupported time_unit");
	case TOP_RANKS:
		ret = want_int(r, "num_ranks", &r->num_ranks);
		if (!ret && (r->num_ranks < 0 || r->num_ranks > SB_MAX_RANK))
			ret = bad(r, "num_ranks %lld out of range", (long long)r->num_ranks);
		return ret;
	case TOP_META:
		return read_metadata(r);
	case TOP_REGIONS:
		return read_regions(r);
	case TOP_THREADS:
		return read_threads(r);
	}
	return sb_json_skip(&r->j);
}

static int read_document(struct jr *r)
{
	const char *key;
	unsigned seen = 0;
	int m, ret;

	if (sb_json_peek(&r->j) != SB_JSON_OBJECT)
		return bad(r, "not a scope-profiler profile (not a JSON object)");
	ret = sb_json_enter(&r->j, SB_JSON_OBJECT);
	while (!ret && (ret = sb_json_member(&r->j, &key)) > 0) {
		m = member_index(top_names, TOP_N, key);
		ret = m < 0 ? 0 : first_time(r, &seen, m, "", key);
		if (!ret)
			ret = top_value(r, m);
	}
	if (!ret)
		ret = sb_json_end(&r->j);
	if (ret)
		return ret;
	if (!(seen & 1u << TOP_FORMAT))
		return bad(r, "not a scope-profiler profile (no \"format\" member)");
	if (!(seen & 1u << TOP_VERSION))
		return bad(r, "no \"format_version\" member");
	if (!(seen & 1u << TOP_REGIONS))
		return bad(r, "no \"regions\" member");
	return 0;
}

static int finish(struct jr *r)
{
	int ret;

	ret = sb_read_build_finish(&r->build, r->why, sizeof(r->why));
	/* Threads and parent chains as they lie, so no time comes out negative later. */
	if (!ret)
		ret = sb_read_check_threads(r->p, r->why, sizeof(r->why));
	if (!ret)
		ret = sb_read_check_parents(r->p, r->why, sizeof(r->why));
	if (ret)
		return ret;
	/* Rank count is max(mpi_size, highest rank + 1): num_ranks stands in for mpi_size. */
	if (!sb_profile_meta(r->p, "mpi_size") && r->num_ranks >= 0)
		ret = sb_profile_set_int(r->p, "mpi_size", r->num_ranks);
	if (!ret)
		ret = (r->p->format = strdup("scope-profiler JSON (v1)")) ? 0 : -ENOMEM;
	/* Not from an HDF5 schema. */
	r->p->schema = 0;
	return ret;
}

/* zlib's message without the "<fd:N>: " it puts before it. */
static const char *zlib_cause(gzFile z)
{
	const char *msg, *c;
	int code;

	msg = gzerror(z, &code);
	c = strstr(msg, ">: ");
	return c ? c + 3 : msg;
}

/* A gzipped file, inflated, up to the size limit: a small file may inflate to gigabytes. */
static int load_gzip(struct jr *r, int fd, char **text, size_t *len)
{
	size_t cap = 1 << 16, got = 0;
	char *buf = NULL, *q;
	gzFile z;
	int n = 1, zerr, ret = 0;

	z = gzdopen(dup(fd), "rb");
	if (!z)
		return sb_fail(r->err, ENOMEM, "%s: out of memory", r->path);
	while (n > 0 && !ret) {
		if (got + 1 >= cap || !buf) {
			cap = buf ? cap * 2 : cap;
			q = realloc(buf, cap);
			if (!q) {
				ret = sb_fail(r->err, ENOMEM, "%s: out of memory", r->path);
				break;
			}
			buf = q;
		}
		n = gzread(z, buf + got, (unsigned)(cap - 1 - got));
		if (n < 0)
			ret = sb_fail(r->err, EINVAL, "%s: corrupt gzip data (%s)", r->path,
				      zlib_cause(z));
		else if ((got += (size_t)n) > SB_JSON_MAX_FILE)
			ret = sb_fail(r->err, EINVAL,
				      "%s: inflates to more than the %llu-byte limit for JSON", r->path,
				      SB_JSON_MAX_FILE);
	}
	/* A cut stream reads as a short one: only zlib's state tells them apart. */
	if (!ret && (gzerror(z, &zerr), zerr != Z_OK))
		ret = sb_fail(r->err, EINVAL, "%s: truncated or corrupt gzip data (%s)", r->path,
			      zlib_cause(z));
	gzclose(z);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;
}

static bool is_gzip(int fd)
{
	unsigned char magic[2];

	return pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

/* The whole file, NUL-terminated, after checking it is a regular file of sane size. */
static int load(struct jr *r, char **text, size_t *len)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;
	char *buf;
	int fd, ret = 0;

	fd = open(r->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return sb_fail(r->err, ENOENT, "%s: no such file", r->path);
		return sb_fail(r->err, errno, "%s: %s", r->path, strerror(errno));
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = sb_fail(r->err, EINVAL, "%s: not a regular file", r->path);
		goto out;
	}
	if (is_gzip(fd)) {
		ret = load_gzip(r, fd, text, len);
		goto out;
	}
	if ((uint64_t)st.st_size > SB_JSON_MAX_FILE) {
		ret = sb_fail(r->err, EINVAL, "%s: %lld bytes, over the %llu-byte limit for JSON",
			      r->path, (long long)st.st_size, SB_JSON_MAX_FILE);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		ret = sb_fail(r->err, ENOMEM, "%s: out of memory", r->path);
		goto out;
	}
	/* A file that shrinks while read is parsed as far as it goes; growth is ignored. */
	while (got < (size_t)st.st_size &&
	       (n = read(fd, buf + got, (size_t)st.st_size - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			ret = sb_fail(r->err, errno, "%s: %s", r->path, strerror(errno));
			goto out;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
out:
	close(fd);
	return ret;
}

int sb_json_read(const char *path, struct sb_profile *p, struct sb_error *err)
{
	struct jr r = { .path = path, .err = err, .p = p, .num_ranks = -1 };
	char *text = NULL;
	size_t len = 0;
	int ret;

	sb_profile_init(p);
	sb_read_build_init(&r.build, p);
	ret = load(&r, &text, &len);
	if (ret)
		goto out;
	sb_json_init(&r.j, text, len);
	ret = read_document(&r);
	/* Everything read is copied out: the text goes before finish lays the calls out twice. */
	free(text);
	text = NULL;
	if (!ret)
		ret = finish(&r);
	if (ret == -ENOMEM)
		sb_fail(err, ENOMEM, "%s: out of memory", path);
	else if (ret)
		sb_fail(err, EINVAL, "%s: %s", path,
			r.why[0] ? r.why : r.j.why[0] ? r.j.why : "not a scope-profiler profile");
	sb_json_free(&r.j);
out:
	free(text);
	sb_read_build_free(&r.build);
	if (ret)
		sb_profile_free(p);
	return ret;
}
