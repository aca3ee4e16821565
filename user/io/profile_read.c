/* Format detection from a file's first bytes, and the pair layout the call-list readers share. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "io/h5guard.h"
#include "io/json_read.h"
#include "io/profile_read.h"
#include "io/spt_read.h"
#include "model/index_rules.h"
#include "util/utf8.h"

/* How far into a file the JSON detection looks for the opening brace. */
#define HEAD_SIZE 4096

static const unsigned char hdf5_signature[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };

static bool is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* HDF5 may sit behind a user block of 512, 1024, 2048, ... bytes. */
static bool hdf5_behind_user_block(int fd, uint64_t size)
{
	unsigned char sig[sizeof(hdf5_signature)];
	uint64_t off;

	for (off = 512; off <= size - sizeof(sig) && off < (1ull << 62); off *= 2) {
		if (pread(fd, sig, sizeof(sig), (off_t)off) != (ssize_t)sizeof(sig))
			return false;
		if (!memcmp(sig, hdf5_signature, sizeof(sig)))
			return true;
	}
	return false;
}

static bool json_head(const unsigned char *head, size_t n)
{
	size_t i;

	for (i = 0; i < n && is_ws(head[i]); i++)
		;
	return i < n && head[i] == '{';
}

/* scope-profiler writes its JSON gzipped: look at what the compressed file begins with. */
static bool gzip_json(const char *path)
{
	unsigned char head[HEAD_SIZE];
	gzFile z = gzopen(path, "rb");
	int n;

	if (!z)
		return false;
	n = gzread(z, head, sizeof(head));
	gzclose(z);
	return n > 0 && json_head(head, (size_t)n);
}

static enum sb_format classify(const char *path, int fd, const unsigned char *head, size_t n,
			       uint64_t size)
{

	if (n >= sizeof(hdf5_signature) && !memcmp(head, hdf5_signature, sizeof(hdf5_signature)))
		return SB_FMT_HDF5;
	if (n >= 8 && !memcmp(head, "SCOPEPRF", 8))
		return SB_FMT_SPT;
	if (json_head(head, n) || (n >= 2 && head[0] == 0x1f && head[1] == 0x8b && gzip_json(path)))
		return SB_FMT_JSON;
	if (size >= 512 + sizeof(hdf5_signature) && hdf5_behind_user_block(fd, size))
		return SB_FMT_HDF5;
	return SB_FMT_UNKNOWN;
}

int sb_profile_detect(const char *path, enum sb_format *fmt, struct sb_error *err)
{
	unsigned char head[HEAD_SIZE];
	struct stat st;
	ssize_t n;
	int fd, ret = 0;

	/* Non-blocking: a FIFO given as the profile must not hang the open. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return sb_fail(err, ENOENT, "%s: no such file", path);
		return sb_fail(err, errno, "%s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st)) {
		ret = sb_fail(err, errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = sb_fail(err, EINVAL, "%s: not a regular file", path);
		goto out;
	}
	n = pread(fd, head, sizeof(head), 0);
	if (n < 0) {
		ret = sb_fail(err, errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	*fmt = classify(path, fd, head, (size_t)n, (uint64_t)st.st_size);
	if (*fmt == SB_FMT_UNKNOWN)
		ret = sb_fail(err, EINVAL, "%s: unknown format (%s)", path,
			      n ? "not HDF5, .spt or scope-profiler JSON" :
				  "empty file");
out:
	close(fd);
	return ret;
}

int sb_profile_read(const char *path, struct sb_profile *p, struct sb_error *err)
{
	enum sb_format fmt = SB_FMT_UNKNOWN;
	int ret;

	sb_profile_init(p);
	ret = sb_profile_detect(path, &fmt, err);
	if (ret)
		return ret;
	switch (fmt) {
	case SB_FMT_HDF5:
		/* libhdf5 can crash, abort or hang on corrupt files: it reads them in a child. */
		return sb_h5_read_guarded(path, p, 0, err);
	case SB_FMT_SPT:
		return sb_spt_read(path, p, err);
	case SB_FMT_JSON:
		return sb_json_read(path, p, err);
	case SB_FMT_UNKNOWN:
		break;
	}
	return sb_fail(err, EINVAL, "%s: unknown format", path);
}

/* ---- laying out calls listed region by region ---- */

struct sb_read_group {
	uint32_t rank;
	uint32_t region;
	struct sb_event *calls;	/* NULL when lean */
	int64_t *counters;	/* their counter rows (model.h), when the file has counters */
	uint64_t n;
	uint64_t cap;
	struct sb_stats stats;	/* lean: summed as calls are added */
};

const char *sb_read_printable(const char *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s);
	sb_utf8_sanitize(buf);
	return buf;
}

uint64_t sb_read_memory_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t limit = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
	struct rlimit as;

	if (!getrlimit(RLIMIT_AS, &as) && as.rlim_cur != RLIM_INFINITY && as.rlim_cur < limit)
		limit = as.rlim_cur;
	return limit;
}

int sb_read_check_fits(uint64_t n, uint64_t each, const char *what, char *why, size_t len)
{
	uint64_t limit = sb_read_memory_limit();

	if (n <= limit / each)
		return 0;
	return sb_bad(why, len, "%llu %s need %.0f MiB in memory, more than the %llu MiB this process can have",
		      (unsigned long long)n, what, (double)n * (double)each / (1 << 20),
		      (unsigned long long)(limit >> 20));
}

void sb_read_build_init(struct sb_read_build *b, struct sb_profile *p)
{
	memset(b, 0, sizeof(*b));
	b->p = p;
	sb_hashmap_init(&b->names);
	sb_hashmap_init(&b->index);
}

void sb_read_build_free(struct sb_read_build *b)
{
	size_t i;

	for (i = 0; i < b->n_groups; i++) {
		free(b->groups[i].calls);
		free(b->groups[i].counters);
	}
	free(b->groups);
	sb_hashmap_free(&b->names);
	sb_hashmap_free(&b->index);
	b->groups = NULL;
	b->n_groups = b->cap_groups = 0;
}

/* FNV-1a: names are looked up once per listed region, many of which may repeat. */
static uint64_t name_hash(const char *s, size_t *len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const char *c;

	for (c = s; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	*len = (size_t)(c - s);
	return h;
}

static bool knows_location(const char *file, int64_t line)
{
	return (file && *file) || line >= 0;
}

static int replace_str(char **dst, const char *src)
{
	char *s = strdup(src);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* A region seen before takes a later location only when it knew none. */
static int update_location(struct sb_region *r, const struct sb_read_calls *c)
{
	int ret;

	if (knows_location(r->source_file, r->source_line) || !knows_location(c->file, c->line))
		return 0;
	ret = replace_str(&r->source_file, c->file ? c->file : "");
	if (!ret)
		ret = replace_str(&r->tags, c->tags ? c->tags : "[]");
	if (!ret)
		r->source_line = c->line;
	return ret;
}

static ssize_t region_id(struct sb_read_build *b, const struct sb_read_calls *c)
{
	struct sb_profile *p = b->p;
	uint64_t *v, h;
	ssize_t id;
	size_t len;

	h = name_hash(c->name, &len);
	v = sb_hashmap_get(&b->names, h, len);
	if (v && !strcmp(p->regions[*v].name, c->name))
		id = (ssize_t)*v;
	else if (v)	/* two names with one hash: rare, so a slow search is fine */
		id = sb_profile_find_region(p, c->name);
	else
		id = -ENOENT;
	if (id >= 0)
		return update_location(&p->regions[id], c) ? -ENOMEM : id;
	id = sb_profile_add_region(p, c->name, c->file, c->line, c->tags);
	if (id < 0)
		return id;
	if (sb_hashmap_put(&b->names, h, len, (uint64_t)id))
		return -ENOMEM;
	return id;
}

static struct sb_read_group *group_of(struct sb_read_build *b, uint32_t rank, uint32_t region)
{
	struct sb_read_group *g;
	uint64_t *v;
	size_t cap;

	v = sb_hashmap_get(&b->index, rank, region);
	if (v)
		return &b->groups[*v];
	if (b->n_groups == b->cap_groups) {
		cap = b->cap_groups ? b->cap_groups * 2 : 16;
		g = realloc(b->groups, cap * sizeof(*g));
		if (!g)
			return NULL;
		b->groups = g;
		b->cap_groups = cap;
	}
	if (sb_hashmap_put(&b->index, rank, region, b->n_groups))
		return NULL;
	g = &b->groups[b->n_groups++];
	*g = (struct sb_read_group){ .rank = rank, .region = region };
	sb_stats_init(&g->stats);
	return g;
}

/* An optional column of c, -1 where it has none. */
static int64_t column(const int64_t *v, uint64_t i)
{
	return v ? v[i] : -1;
}

/*
 * Room for n calls in g, and their counter rows of stride values. A group's
 * first piece is often all its calls (a JSON region lists them together):
 * room for exactly those, where a minimum or a power of two would leave up
 * to half of the calls' memory unused; later pieces double it.
 */
static int reserve_calls(struct sb_read_group *g, uint64_t n, size_t stride)
{
	uint64_t cap = g->cap ? g->cap : n;
	int64_t *ctr;
	void *q;

	if (n <= g->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	q = realloc(g->calls, cap * sizeof(*g->calls));
	if (!q)
		return -ENOMEM;
	g->calls = q;
	if (stride) {
		ctr = realloc(g->counters, cap * stride * sizeof(*ctr));
		if (!ctr)
			return -ENOMEM;
		g->counters = ctr;
	}
	g->cap = cap;
	return 0;
}

/* The calls' counter rows (model.h) from the file's counter columns. */
static void append_counters(struct sb_read_group *g, const struct sb_read_calls *c,
			    unsigned slots)
{
	size_t stride = sb_counter_stride(slots);
	int64_t *row;
	unsigned id, pos;
	uint64_t i;

	for (i = 0; i < c->n; i++) {
		row = &g->counters[(g->n + i) * stride];
		for (id = SB_N_ROW_METRICS; id < SB_N_METRICS; id++) {
			pos = sb_counter_pos(slots, id);
			if (pos >= stride)
				continue;
			row[pos] = c->metric[id] ? c->metric[id][i] : sb_column(id)->missing;
		}
	}
}

static int append_calls(struct sb_read_group *g, const struct sb_read_calls *c, unsigned slots)
{
	struct sb_event *q;
	uint64_t i;
	unsigned id;

	if (reserve_calls(g, g->n + c->n, sb_counter_stride(slots)))
		return -ENOMEM;
	for (i = 0; i < c->n; i++) {
		q = &g->calls[g->n + i];
		*q = (struct sb_event){ .start = c->starts[i], .end = c->ends[i],
					.thread = column(c->threads, i),
					.call_id = column(c->call_ids, i),
					.parent_id = column(c->parent_ids, i) };
		for (id = 0; id < SB_N_ROW_METRICS; id++)
			q->metric[id] = c->metric[id] ? c->metric[id][i] : sb_column(id)->missing;
	}
	if (slots)
		append_counters(g, c, slots);
	g->n += c->n;
	return 0;
}

/* Lean: the calls only counted into the group's statistics, their total kept computable. */
static int count_calls(struct sb_read_group *g, const struct sb_read_calls *c, char *why,
		       size_t len)
{
	char name[SB_READ_PRINTABLE];
	int64_t total;
	uint64_t i;

	for (i = 0; i < c->n; i++) {
		if (__builtin_add_overflow(g->stats.total, c->ends[i] - c->starts[i], &total))
			return sb_bad(why, len, "region '%s' on rank %u: total time overflows",
				      sb_read_printable(c->name, name, sizeof(name)), c->rank);
		sb_stats_add(&g->stats, c->starts[i], c->ends[i],
			     column(c->metric[SB_METRIC_GPU], i));
	}
	g->n += c->n;
	return 0;
}

/* Which optional columns c has; every region of a file must have the same ones. */
static unsigned columns_of(const struct sb_read_calls *c)
{
	unsigned cols, id;

	cols = (c->threads ? SB_COL_THREAD : 0) | (c->call_ids ? SB_COL_CALL_ID : 0) |
	       (c->parent_ids ? SB_COL_PARENT_ID : 0);
	for (id = 0; id < SB_N_METRICS; id++)
		cols |= c->metric[id] ? SB_COL_METRIC(id) : 0;
	return cols;
}

/* How many counter slots c lists (its leading inclusive counter columns). */
static unsigned counter_slots(const struct sb_read_calls *c)
{
	unsigned n = 0;

	while (n < SB_COUNTER_SLOTS && c->metric[SB_METRIC_COUNTER + n])
		n++;
	return n;
}

int sb_read_build_add(struct sb_read_build *b, const struct sb_read_calls *c, char *why,
		      size_t len)
{
	char name[SB_READ_PRINTABLE];
	struct sb_read_group *g;
	int64_t d;
	ssize_t id;
	uint64_t i;

	if (!c->n)
		return 0;
	if (c->rank >= SB_MAX_RANK)
		return sb_bad(why, len, "rank %u out of range (limit %u)", c->rank,
			      SB_MAX_RANK - 1);
	if (c->n > SB_READ_MAX_EVENTS - b->n_events)
		return sb_bad(why, len, "more than %llu calls", SB_READ_MAX_EVENTS);
	/* Held twice at the peak: as listed, then laid out. Refused before, not after, paging. */
	if (!b->lean && sb_read_check_fits(b->n_events + c->n, 2 * (sizeof(struct sb_event) +
					   sb_counter_stride(counter_slots(c)) * sizeof(int64_t)),
					   "calls", why, len))
		return -EINVAL;
	/* Everything later computes durations and sums them: both must be computable. */
	for (i = 0; i < c->n; i++) {
		if (c->ends[i] < c->starts[i])
			return sb_bad(why, len, "region '%s' on rank %u: call %llu ends before it starts",
				      sb_read_printable(c->name, name, sizeof(name)), c->rank,
				      (unsigned long long)i);
		if (__builtin_sub_overflow(c->ends[i], c->starts[i], &d))
			return sb_bad(why, len, "region '%s' on rank %u: call %llu: duration from %lld to %lld overflows",
				      sb_read_printable(c->name, name, sizeof(name)), c->rank,
				      (unsigned long long)i, (long long)c->starts[i],
				      (long long)c->ends[i]);
	}
	if (b->n_events && columns_of(c) != b->p->columns)
		return sb_bad(why, len, "region '%s' on rank %u: its optional columns (thread, call, parent ids, GPU, off-CPU times) differ from those of the regions before it",
			      sb_read_printable(c->name, name, sizeof(name)), c->rank);
	b->p->columns = columns_of(c);
	id = region_id(b, c);
	if (id < 0)
		return -ENOMEM;
	g = group_of(b, c->rank, (uint32_t)id);
	if (!g)
		return -ENOMEM;
	b->last_group = (size_t)(g - b->groups);
	if (b->lean) {
		if (count_calls(g, c, why, len))
			return -EINVAL;
	} else if (append_calls(g, c, sb_profile_counter_slots(b->p))) {
		return -ENOMEM;
	}
	b->n_events += c->n;
	return 0;
}

/* Indexes into a group's calls (the argument), by the calls' start. */
static int cmp_call(const void *a, const void *b, void *arg)
{
	const struct sb_event *calls = arg;
	const struct sb_event *x = &calls[*(const uint64_t *)a], *y = &calls[*(const uint64_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->call_id < y->call_id ? -1 : x->call_id > y->call_id;
}

static int lay_out(struct sb_read_build *b, struct sb_read_group *g, char *why, size_t len)
{
	struct sb_profile *p = b->p;
	struct sb_pair *q = &p->pairs[p->n_pairs];
	size_t stride = sb_counter_stride(sb_profile_counter_slots(p));
	char name[SB_READ_PRINTABLE];
	const struct sb_event *e;
	int64_t total = 0;
	uint64_t k, *order;

	/* Sorted through indexes: a call's counter row moves with it. */
	order = malloc((g->n ? g->n : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (k = 0; k < g->n; k++)
		order[k] = k;
	qsort_r(order, g->n, sizeof(*order), cmp_call, g->calls);
	*q = (struct sb_pair){ g->region, g->rank, p->n_events, g->n, -1, { 0 } };
	sb_stats_init(&q->stats);
	for (k = 0; k < g->n; k++) {
		e = &g->calls[order[k]];
		if (__builtin_add_overflow(total, e->end - e->start, &total)) {
			free(order);
			return sb_bad(why, len, "region '%s' on rank %u: total time overflows",
				      sb_read_printable(p->regions[g->region].name, name,
							sizeof(name)), g->rank);
		}
		if (stride)
			memcpy(&p->counters[p->n_events * stride], &g->counters[order[k] * stride],
			       stride * sizeof(*p->counters));
		p->events[p->n_events++] = *e;
		sb_stats_add(&q->stats, e->start, e->end, e->metric[SB_METRIC_GPU]);
	}
	free(order);
	p->n_pairs++;
	/* The group is in the model now: give its memory back before the next one. */
	free(g->calls);
	free(g->counters);
	g->calls = NULL;
	g->counters = NULL;
	return 0;
}

/* Lean: index rows only, each group's calls where its offset says they would lie. */
static void lay_out_lean(struct sb_read_build *b)
{
	struct sb_profile *p = b->p;
	struct sb_read_group *g;
	size_t i;

	for (i = 0; i < b->n_groups; i++) {
		g = &b->groups[i];
		p->pairs[i] = (struct sb_pair){ g->region, g->rank, p->n_events, g->n, -1,
						g->stats };
		p->n_events += g->n;
	}
	p->n_pairs = b->n_groups;
}

int sb_read_build_finish(struct sb_read_build *b, char *why, size_t len)
{
	struct sb_profile *p = b->p;
	size_t i;
	int ret = 0;

	p->pairs = calloc(b->n_groups ? b->n_groups : 1, sizeof(*p->pairs));
	/* Never NULL, even when empty, unless lean: NULL events mean "streamed, not held". */
	if (!b->lean)
		p->events = malloc((b->n_events ? b->n_events : 1) * sizeof(*p->events));
	if ((!b->lean && !p->events) || !p->pairs)
		return -ENOMEM;
	p->n_events = b->n_events;
	if (!b->lean && sb_profile_counter_slots(p) && sb_profile_alloc_counters(p))
		return -ENOMEM;
	p->n_events = 0;
	p->n_pairs = 0;
	if (b->lean)
		lay_out_lean(b);
	for (i = 0; i < b->n_groups && !ret && !b->lean; i++)
		ret = lay_out(b, &b->groups[i], why, len);
	if (ret)
		return ret;
	/* Built to satisfy it; checked so no later code meets a broken index. */
	return sb_profile_check_index(p, why, len);
}

/* ---- threads and parent chains of call-list files ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The index row holding event e: rows are in event order. */
static const struct sb_pair *pair_at(const struct sb_profile *p, uint64_t e)
{
	size_t lo = 0, hi = p->n_pairs, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (p->pairs[mid].offset <= e)
			lo = mid;
		else
			hi = mid;
	}
	return &p->pairs[lo];
}

/* "call id 7 of 'solve' on rank 0" (or "call 3 of ..." without ids) into buf. */
static const char *call_name(const struct sb_profile *p, uint64_t e, char *buf, size_t len)
{
	const struct sb_pair *q = pair_at(p, e);
	char name[SB_READ_PRINTABLE];

	sb_read_printable(p->regions[q->region].name, name, sizeof(name));
	if (p->columns & SB_COL_CALL_ID)
		snprintf(buf, len, "call id %lld of '%s' on rank %u",
			 (long long)p->events[e].call_id, name, q->rank);
	else
		snprintf(buf, len, "call %llu of '%s' on rank %u",
			 (unsigned long long)(e - q->offset), name, q->rank);
	return buf;
}

/* Per rank: thread rows numbered 0..T-1 once each, into counts (rank -> T). */
static int thread_counts(const struct sb_profile *p, struct sb_hashmap *counts, char *why,
			 size_t len)
{
	uint64_t *k, run = 0;
	size_t i;
	int ret = 0;

	k = malloc((p->n_threads ? p->n_threads : 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (i = 0; i < p->n_threads && !ret; i++) {
		if (p->threads[i].index < 0 || (uint64_t)p->threads[i].index >= p->n_threads)
			ret = sb_bad(why, len, "thread row %zu of rank %u: index %lld out of range",
				     i, p->threads[i].rank, (long long)p->threads[i].index);
		k[i] = (uint64_t)p->threads[i].rank << 32 | (uint64_t)p->threads[i].index;
	}
	if (!ret)
		qsort(k, p->n_threads, sizeof(*k), cmp_u64);
	for (i = 0; i < p->n_threads && !ret; i++) {
		if (i && k[i] >> 32 != k[i - 1] >> 32)
			run = 0;
		if ((k[i] & 0xffffffffu) != run++)
			ret = sb_bad(why, len, "rank %u has duplicate or missing thread indexes",
				     (unsigned)(k[i] >> 32));
		else if (sb_hashmap_put(counts, k[i] >> 32, 0, run))
			ret = -ENOMEM;
	}
	free(k);
	return ret;
}

int sb_read_check_threads(const struct sb_profile *p, char *why, size_t len)
{
	struct sb_hashmap counts;
	char call[160];
	uint64_t e, *n;
	int ret;

	sb_hashmap_init(&counts);
	ret = thread_counts(p, &counts, why, len);
	for (e = 0; e < p->n_events && !ret && (p->columns & SB_COL_THREAD); e++) {
		n = sb_hashmap_get(&counts, pair_at(p, e)->rank, 0);
		if (p->events[e].thread < 0 ||
		    (p->n_threads && (!n || (uint64_t)p->events[e].thread >= *n)))
			ret = sb_bad(why, len, "%s: thread id %lld out of range (the rank has %llu thread rows)",
				     call_name(p, e, call, sizeof(call)),
				     (long long)p->events[e].thread,
				     (unsigned long long)(n ? *n : 0));
	}
	sb_hashmap_free(&counts);
	return ret;
}

#define NO_PARENT UINT32_MAX

/* Each call's parent event, from the ids; one that names no call of its rank is top level. */
static int link_parents(const struct sb_profile *p, uint32_t *parent, char *why, size_t len)
{
	const struct sb_event *ev = p->events, *c, *q;
	char call[160], par[160];
	struct sb_hashmap ids;
	uint64_t e, *v;
	int ret = 0;

	sb_hashmap_init(&ids);
	for (e = 0; e < p->n_events && !ret; e++) {
		c = &ev[e];
		if (c->call_id < 0)
			ret = sb_bad(why, len, "%s: negative call id",
				     call_name(p, e, call, sizeof(call)));
		else if (sb_hashmap_get(&ids, pair_at(p, e)->rank, (uint64_t)c->call_id))
			ret = sb_bad(why, len, "%s: the call id appears twice on its rank",
				     call_name(p, e, call, sizeof(call)));
		else if (sb_hashmap_put(&ids, pair_at(p, e)->rank, (uint64_t)c->call_id, e))
			ret = -ENOMEM;
	}
	for (e = 0; e < p->n_events && !ret; e++) {
		c = &ev[e];
		parent[e] = NO_PARENT;
		if (c->parent_id == c->call_id) {
			ret = sb_bad(why, len, "%s is its own parent",
				     call_name(p, e, call, sizeof(call)));
			break;
		}
		v = c->parent_id < 0 ? NULL :
		    sb_hashmap_get(&ids, pair_at(p, e)->rank, (uint64_t)c->parent_id);
		if (!v)
			continue;
		q = &ev[*v];
		if ((p->columns & SB_COL_THREAD) && q->thread != c->thread)
			ret = sb_bad(why, len, "%s on thread %lld has its parent %s on thread %lld",
				     call_name(p, e, call, sizeof(call)), (long long)c->thread,
				     call_name(p, *v, par, sizeof(par)), (long long)q->thread);
		else if (q->start > c->start || q->end < c->end)
			ret = sb_bad(why, len, "%s [%lld, %lld] is not inside its parent %s [%lld, %lld]",
				     call_name(p, e, call, sizeof(call)), (long long)c->start,
				     (long long)c->end, call_name(p, *v, par, sizeof(par)),
				     (long long)q->start, (long long)q->end);
		parent[e] = (uint32_t)*v;
	}
	sb_hashmap_free(&ids);
	return ret;
}

/* Calls inside one call cannot take longer than it: else its own time would be negative. */
static int check_children_fit(const struct sb_profile *p, const uint32_t *parent, char *why,
			      size_t len)
{
	int64_t *inside;
	char call[160];
	uint64_t e;
	int ret = 0;

	inside = calloc(p->n_events ? p->n_events : 1, sizeof(*inside));
	if (!inside)
		return -ENOMEM;
	for (e = 0; e < p->n_events; e++)
		if (parent[e] != NO_PARENT &&
		    __builtin_add_overflow(inside[parent[e]], p->events[e].end - p->events[e].start,
					   &inside[parent[e]]))
			inside[parent[e]] = INT64_MAX;
	for (e = 0; e < p->n_events && !ret; e++)
		if (inside[e] > p->events[e].end - p->events[e].start)
			ret = sb_bad(why, len, "%s: the calls inside it overlap (together %lld ns, it lasts %lld ns)",
				     call_name(p, e, call, sizeof(call)), (long long)inside[e],
				     (long long)(p->events[e].end - p->events[e].start));
	free(inside);
	return ret;
}

/* Parent chains end: follow each once, marking calls being followed and calls known to end. */
static int check_no_cycle(const struct sb_profile *p, const uint32_t *parent, char *why,
			  size_t len)
{
	enum { NEW, ON_PATH, ENDS };
	unsigned char *state;
	char call[160];
	uint64_t e, x;
	int ret = 0;

	state = calloc(p->n_events ? p->n_events : 1, 1);
	if (!state)
		return -ENOMEM;
	for (e = 0; e < p->n_events && !ret; e++) {
		for (x = e; x != NO_PARENT && state[x] == NEW; x = parent[x])
			state[x] = ON_PATH;
		if (x != NO_PARENT && state[x] == ON_PATH)
			ret = sb_bad(why, len, "%s: its parent chain is a cycle",
				     call_name(p, x, call, sizeof(call)));
		for (x = e; x != NO_PARENT && state[x] == ON_PATH; x = parent[x])
			state[x] = ENDS;
	}
	free(state);
	return ret;
}

int sb_read_check_parents(const struct sb_profile *p, char *why, size_t len)
{
	unsigned ids = SB_COL_CALL_ID | SB_COL_PARENT_ID;
	uint32_t *parent;
	int ret;

	if ((p->columns & ids) != ids)
		return 0;
	parent = malloc((p->n_events ? p->n_events : 1) * sizeof(*parent));
	if (!parent)
		return -ENOMEM;
	ret = link_parents(p, parent, why, len);
	if (!ret)
		ret = check_no_cycle(p, parent, why, len);
	if (!ret)
		ret = check_children_fit(p, parent, why, len);
	free(parent);
	return ret;
}
