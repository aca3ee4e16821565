/* Read scope-profiler native traces (.spt), every declared length checked against the file first. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/profile_read.h"
#include "io/spt_read.h"
#include "util/utf8.h"

/* The smallest region each version can store: lengths and a call count, no bytes. */
#define MIN_REGION_V1 (4 + 8)
#define MIN_REGION_V2 (4 + 4 + 4 + 8)

#define SPT_CHUNK 8192			/* calls per read when the calls stay in the file */
#define MERGE_BUFFERS (32u << 20)	/* bytes of read buffers the merge by time shares */

struct spt {
	const char *path;	/* for messages */
	struct sb_error *err;
	FILE *f;
	uint64_t size;
	uint64_t off;		/* bytes consumed */
	int version;
	bool big_endian;
	int32_t rank;
	struct sb_read_build build;
	/* Lean: where each region's calls lie, and a chunk of them at a time. */
	struct section *sections;
	size_t n_sections;
	size_t cap_sections;
	int64_t *chunk_starts;
	int64_t *chunk_ends;
};

/* One region's calls as they lie in the file (lean), for the merge by time. */
struct section {
	size_t pair;
	uint64_t n;
	uint64_t at;		/* offset of its start times; the end times follow */
	bool sorted;		/* listed by start, the longer of two with one start first */
};

/* One region as the file lists it. */
struct spt_region {
	char *name;
	char *file;
	int32_t line;
	int64_t *starts;
	int64_t *ends;
};

#define corrupt(s, ...) sb_fail_at((s)->err, EINVAL, (s)->path, __VA_ARGS__)

static int nomem(struct spt *s)
{
	return sb_fail(s->err, ENOMEM, "%s: out of memory", s->path);
}

static uint64_t left(const struct spt *s)
{
	return s->size - s->off;
}

/* An unsigned integer of n bytes in the file's byte order. */
static uint64_t decode(const unsigned char *b, size_t n, bool big_endian)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)b[big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

/* The next n bytes (what: their meaning, for messages) into buf. */
static int take(struct spt *s, void *buf, uint64_t n, const char *what)
{
	if (n > left(s))
		return corrupt(s, "truncated: %s needs %llu bytes at offset %llu, the file has %llu left",
			       what, (unsigned long long)n, (unsigned long long)s->off,
			       (unsigned long long)left(s));
	if (n && fread(buf, 1, n, s->f) != n)
		return corrupt(s, "cannot read %s at offset %llu (did the file change?)", what,
			       (unsigned long long)s->off);
	s->off += n;
	return 0;
}

static int take_i32(struct spt *s, int32_t *v, const char *what)
{
	unsigned char b[4];
	int ret = take(s, b, sizeof(b), what);

	if (!ret)
		*v = (int32_t)(uint32_t)decode(b, sizeof(b), s->big_endian);
	return ret;
}

static int take_i64(struct spt *s, int64_t *v, const char *what)
{
	unsigned char b[8];
	int ret = take(s, b, sizeof(b), what);

	if (!ret)
		*v = (int64_t)decode(b, sizeof(b), s->big_endian);
	return ret;
}

/* Byte order is whichever makes the version read 1 or 2: the file does not say otherwise. */
static int read_header(struct spt *s, int64_t *count)
{
	unsigned char magic[8], ver[4];
	uint64_t le, be, min;
	int ret;

	ret = take(s, magic, sizeof(magic), "the magic");
	if (ret)
		return ret;
	if (memcmp(magic, "SCOPEPRF", sizeof(magic)))
		return corrupt(s, "not a scope-profiler native trace (no SCOPEPRF magic)");
	ret = take(s, ver, sizeof(ver), "the version");
	if (ret)
		return ret;
	le = decode(ver, sizeof(ver), false);
	be = decode(ver, sizeof(ver), true);
	if (le == 1 || le == 2) {
		s->version = (int)le;
	} else if (be == 1 || be == 2) {
		s->version = (int)be;
		s->big_endian = true;
	} else {
		return corrupt(s, "unsupported .spt version (reads %llu little-endian, %llu big-endian; this reader knows 1 and 2)",
			       (unsigned long long)le, (unsigned long long)be);
	}
	ret = take_i32(s, &s->rank, "the rank");
	if (!ret)
		ret = take_i64(s, count, "the region count");
	if (ret)
		return ret;
	if (s->rank < 0 || (uint32_t)s->rank >= SB_MAX_RANK)
		return corrupt(s, "rank %d out of range", s->rank);
	if (*count < 0)
		return corrupt(s, "region count %lld is negative", (long long)*count);
	min = s->version == 1 ? MIN_REGION_V1 : MIN_REGION_V2;
	if ((uint64_t)*count > left(s) / min)
		return corrupt(s, "region count %lld is more than the %llu bytes left can hold",
			       (long long)*count, (unsigned long long)left(s));
	return 0;
}

/* A length-prefixed string of region i (what: which one); empty_ok for optional ones. */
static int read_str(struct spt *s, uint64_t i, const char *what, bool empty_ok, char **out)
{
	char desc[96];
	int32_t len;
	char *buf;
	int ret;

	snprintf(desc, sizeof(desc), "region %llu: the %s length", (unsigned long long)i, what);
	ret = take_i32(s, &len, desc);
	if (ret)
		return ret;
	if (len < 0)
		return corrupt(s, "region %llu: %s length %d is negative", (unsigned long long)i,
			       what, len);
	if ((uint64_t)len > left(s))
		return corrupt(s, "region %llu: %s length %d runs past the end of the file (%llu bytes left)",
			       (unsigned long long)i, what, len, (unsigned long long)left(s));
	if ((uint32_t)len > SB_SPT_MAX_STRING)
		return corrupt(s, "region %llu: %s length %d is over the %u-byte limit",
			       (unsigned long long)i, what, len, SB_SPT_MAX_STRING);
	if (!len && !empty_ok)
		return corrupt(s, "region %llu: empty %s", (unsigned long long)i, what);
	buf = malloc((size_t)len + 1);
	if (!buf)
		return nomem(s);
	snprintf(desc, sizeof(desc), "region %llu: the %s", (unsigned long long)i, what);
	ret = take(s, buf, (uint64_t)len, desc);
	buf[ret ? 0 : len] = '\0';
	if (!ret && memchr(buf, '\0', (size_t)len))
		ret = corrupt(s, "region %llu: %s contains a NUL byte", (unsigned long long)i,
			      what);
	else if (!ret && !sb_utf8_valid(buf))
		ret = corrupt(s, "region %llu: %s is not valid UTF-8", (unsigned long long)i, what);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	return 0;
}

/* n int64 times, read in one piece and converted in place. */
static int read_times(struct spt *s, int64_t *v, uint64_t n, const char *what)
{
	const unsigned char *b = (const unsigned char *)v;
	uint64_t k;
	int ret;

	ret = take(s, v, n * sizeof(*v), what);
	if (ret)
		return ret;
	/* Each element is read whole before it is written: in place is safe. */
	for (k = 0; k < n; k++)
		v[k] = (int64_t)decode(b + k * sizeof(*v), sizeof(*v), s->big_endian);
	return 0;
}

/* n times at offset at (not the stream's position), converted. */
static int pread_times(struct spt *s, int64_t *v, uint64_t n, uint64_t at)
{
	const unsigned char *b = (const unsigned char *)v;
	size_t len = (size_t)n * sizeof(*v);
	uint64_t k;

	if (pread(fileno(s->f), v, len, (off_t)at) != (ssize_t)len)
		return corrupt(s, "cannot read the call times at offset %llu (did the file change?)",
			       (unsigned long long)at);
	for (k = 0; k < n; k++)
		v[k] = (int64_t)decode(b + k * sizeof(*v), sizeof(*v), s->big_endian);
	return 0;
}

static int add_section(struct spt *s, const struct section *sec)
{
	struct section *q;
	size_t cap;

	if (s->n_sections == s->cap_sections) {
		cap = s->cap_sections ? s->cap_sections * 2 : 64;
		q = realloc(s->sections, cap * sizeof(*q));
		if (!q)
			return nomem(s);
		s->sections = q;
		s->cap_sections = cap;
	}
	s->sections[s->n_sections++] = *sec;
	return 0;
}

static bool in_order(int64_t ps, int64_t pe, int64_t start, int64_t end)
{
	return start > ps || (start == ps && end <= pe);
}

/* Lean: n calls at the stream's position checked and counted a chunk at a time, then skipped. */
static int count_section(struct spt *s, struct sb_read_calls *c, uint64_t n)
{
	struct section sec = { .n = n, .at = s->off, .sorted = true };
	int64_t ps = INT64_MIN, pe = INT64_MAX;
	uint64_t k, i, got;
	char why[320];
	int ret = 0;

	for (k = 0; k < n && !ret; k += got) {
		got = n - k < SPT_CHUNK ? n - k : SPT_CHUNK;
		ret = pread_times(s, s->chunk_starts, got, sec.at + k * sizeof(int64_t));
		if (!ret)
			ret = pread_times(s, s->chunk_ends, got,
					  sec.at + (n + k) * sizeof(int64_t));
		if (ret)
			return ret;
		for (i = 0; i < got && sec.sorted; i++) {
			sec.sorted = in_order(ps, pe, s->chunk_starts[i], s->chunk_ends[i]);
			ps = s->chunk_starts[i];
			pe = s->chunk_ends[i];
		}
		c->starts = s->chunk_starts;
		c->ends = s->chunk_ends;
		c->n = got;
		ret = sb_read_build_add(&s->build, c, why, sizeof(why));
		if (ret == -ENOMEM)
			return nomem(s);
		if (ret)
			return corrupt(s, "%s", why);
	}
	sec.pair = s->build.last_group;
	s->off += 2 * n * sizeof(int64_t);
	if (fseeko(s->f, (off_t)s->off, SEEK_SET))
		return corrupt(s, "cannot seek to offset %llu", (unsigned long long)s->off);
	return n ? add_section(s, &sec) : 0;
}

static int read_calls(struct spt *s, uint64_t i, struct spt_region *r)
{
	char why[320], name[SB_READ_PRINTABLE];
	struct sb_read_calls c;
	int64_t n;
	int ret;

	ret = take_i64(s, &n, "a call count");
	if (ret)
		return ret;
	if (n < 0)
		return corrupt(s, "region %llu ('%s'): call count %lld is negative",
			       (unsigned long long)i,
			       sb_read_printable(r->name, name, sizeof(name)), (long long)n);
	if ((uint64_t)n > left(s) / (2 * sizeof(int64_t)))
		return corrupt(s, "region %llu ('%s'): call count %lld runs past the end of the file (%llu bytes left)",
			       (unsigned long long)i,
			       sb_read_printable(r->name, name, sizeof(name)), (long long)n,
			       (unsigned long long)left(s));
	c = (struct sb_read_calls){ .rank = (uint32_t)s->rank, .name = r->name, .file = r->file,
				    .line = r->line };
	if (s->build.lean)
		return count_section(s, &c, (uint64_t)n);
	r->starts = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
	r->ends = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
	if (!r->starts || !r->ends)
		return nomem(s);
	ret = read_times(s, r->starts, (uint64_t)n, "start times");
	if (!ret)
		ret = read_times(s, r->ends, (uint64_t)n, "end times");
	if (ret)
		return ret;
	c.starts = r->starts;
	c.ends = r->ends;
	c.n = (uint64_t)n;
	ret = sb_read_build_add(&s->build, &c, why, sizeof(why));
	if (ret == -ENOMEM)
		return nomem(s);
	return ret ? corrupt(s, "%s", why) : 0;
}

static int read_region(struct spt *s, uint64_t i)
{
	struct spt_region r = { NULL, NULL, -1, NULL, NULL };
	char desc[64], name[SB_READ_PRINTABLE];
	int ret;

	ret = read_str(s, i, "name", false, &r.name);
	if (!ret && s->version == 2) {
		ret = read_str(s, i, "source file", true, &r.file);
		snprintf(desc, sizeof(desc), "region %llu: the source line", (unsigned long long)i);
		if (!ret)
			ret = take_i32(s, &r.line, desc);
		if (!ret && r.line < -1)
			ret = corrupt(s, "region %llu ('%s'): bad source line %d",
				      (unsigned long long)i,
				      sb_read_printable(r.name, name, sizeof(name)), r.line);
	}
	if (!ret)
		ret = read_calls(s, i, &r);
	free(r.name);
	free(r.file);
	free(r.starts);
	free(r.ends);
	return ret;
}

static int read_trace(struct spt *s)
{
	char why[320];
	int64_t count = 0, i;
	int ret;

	ret = read_header(s, &count);
	for (i = 0; i < count && !ret; i++)
		ret = read_region(s, (uint64_t)i);
	if (ret)
		return ret;
	if (left(s))
		return corrupt(s, "%llu bytes of trailing data after the last region",
			       (unsigned long long)left(s));
	ret = sb_read_build_finish(&s->build, why, sizeof(why));
	if (ret == -ENOMEM)
		return nomem(s);
	if (ret)
		return corrupt(s, "%s", why);
	/* One file is one rank's trace; the run had at least this many. */
	if (sb_profile_set_int(s->build.p, "mpi_size", (int64_t)s->rank + 1))
		return nomem(s);
	if (asprintf(&s->build.p->format, "scope-profiler native trace (v%d)", s->version) < 0) {
		s->build.p->format = NULL;
		return nomem(s);
	}
	/* Not from an HDF5 schema. */
	s->build.p->schema = 0;
	return 0;
}

static int open_trace(struct spt *s)
{
	struct stat st;
	int fd;

	/* Non-blocking: a FIFO given as the trace must not hang the open. */
	fd = open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return sb_fail(s->err, ENOENT, "%s: no such file", s->path);
		return sb_fail(s->err, errno, "%s: %s", s->path, strerror(errno));
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return sb_fail(s->err, EINVAL, "%s: not a regular file", s->path);
	}
	s->size = (uint64_t)st.st_size;
	s->f = fdopen(fd, "rb");
	if (!s->f) {
		close(fd);
		return nomem(s);
	}
	return 0;
}

static void spt_free(struct spt *s)
{
	if (s->f)
		fclose(s->f);
	sb_read_build_free(&s->build);
	free(s->sections);
	free(s->chunk_starts);
	free(s->chunk_ends);
}

int sb_spt_read(const char *path, struct sb_profile *p, struct sb_error *err)
{
	struct spt s = { .path = path, .err = err };
	int ret;

	sb_profile_init(p);
	sb_read_build_init(&s.build, p);
	ret = open_trace(&s);
	if (!ret)
		ret = read_trace(&s);
	spt_free(&s);
	if (ret)
		sb_profile_free(p);
	return ret;
}

/* ---- the calls merged by time from the file, for a call tree ---- */

struct call {
	int64_t start;
	int64_t end;
};

/* One section's calls: a buffer refilled from the file, or all of them sorted in memory. */
struct cursor {
	const struct section *sec;
	uint64_t done;		/* calls read into the buffer so far */
	struct call *buf;
	size_t i;
	size_t n;
};

struct merge {
	struct sb_ordered_calls base;
	struct spt *s;
	struct cursor *c;
	size_t *heap;		/* cursors with calls left, the next call first */
	size_t n_heap;
	size_t per_buffer;	/* calls a streamed cursor buffers */
};

/* Nesting order: earlier start first, then the longer call, then the earlier index row. */
static bool before(const struct merge *m, size_t a, size_t b)
{
	const struct cursor *x = &m->c[a], *y = &m->c[b];
	const struct call *p = &x->buf[x->i], *q = &y->buf[y->i];

	if (p->start != q->start)
		return p->start < q->start;
	if (p->end != q->end)
		return p->end > q->end;
	return x->sec->pair < y->sec->pair;
}

static void sift_down(struct merge *m, size_t i)
{
	size_t l, best, tmp;

	for (;;) {
		l = 2 * i + 1;
		best = i;
		if (l < m->n_heap && before(m, m->heap[l], m->heap[best]))
			best = l;
		if (l + 1 < m->n_heap && before(m, m->heap[l + 1], m->heap[best]))
			best = l + 1;
		if (best == i)
			return;
		tmp = m->heap[i];
		m->heap[i] = m->heap[best];
		m->heap[best] = tmp;
		i = best;
	}
}

/* The next piece of a streamed section; the file is read again, so its times are checked again. */
static int refill(struct merge *m, struct cursor *c)
{
	const struct section *sec = c->sec;
	struct spt *s = m->s;
	uint64_t n = sec->n - c->done < m->per_buffer ? sec->n - c->done : m->per_buffer, k;
	int64_t d;
	int ret;

	ret = pread_times(s, s->chunk_starts, n, sec->at + c->done * sizeof(int64_t));
	if (!ret)
		ret = pread_times(s, s->chunk_ends, n, sec->at + (sec->n + c->done) * sizeof(int64_t));
	for (k = 0; k < n && !ret; k++) {
		c->buf[k] = (struct call){ s->chunk_starts[k], s->chunk_ends[k] };
		if (c->buf[k].end < c->buf[k].start ||
		    __builtin_sub_overflow(c->buf[k].end, c->buf[k].start, &d))
			ret = corrupt(s, "the calls changed while being read");
	}
	c->done += n;
	c->i = 0;
	c->n = (size_t)n;
	return ret;
}

static int cmp_nesting(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* A section not listed in nesting order is read whole and sorted: its calls cost 16 bytes each. */
static int load_sorted(struct merge *m, struct cursor *c)
{
	const struct section *sec = c->sec;
	struct spt *s = m->s;
	uint64_t k, i, got;
	int64_t d;
	int ret = 0;

	c->buf = malloc(sec->n * sizeof(*c->buf));
	if (!c->buf)
		return nomem(s);
	for (k = 0; k < sec->n && !ret; k += got) {
		got = sec->n - k < SPT_CHUNK ? sec->n - k : SPT_CHUNK;
		ret = pread_times(s, s->chunk_starts, got, sec->at + k * sizeof(int64_t));
		if (!ret)
			ret = pread_times(s, s->chunk_ends, got, sec->at + (sec->n + k) * sizeof(int64_t));
		for (i = 0; i < got && !ret; i++)
			c->buf[k + i] = (struct call){ s->chunk_starts[i], s->chunk_ends[i] };
	}
	qsort(c->buf, sec->n, sizeof(*c->buf), cmp_nesting);
	for (k = 0; k < sec->n && !ret; k++)
		if (c->buf[k].end < c->buf[k].start ||
		    __builtin_sub_overflow(c->buf[k].end, c->buf[k].start, &d))
			ret = corrupt(s, "the calls changed while being read");
	c->done = c->n = (size_t)sec->n;
	return ret;
}

static int merge_next(struct sb_ordered_calls *src, struct sb_event *ev, size_t *pair,
		      struct sb_error *err)
{
	struct merge *m = (struct merge *)src;
	struct cursor *c;
	int ret;

	(void)err;
	if (!m->n_heap)
		return 0;
	c = &m->c[m->heap[0]];
	sb_event_blank(ev);
	ev->start = c->buf[c->i].start;
	ev->end = c->buf[c->i].end;
	*pair = c->sec->pair;
	if (++c->i == c->n && c->done < c->sec->n) {
		ret = refill(m, c);
		if (ret)
			return ret;
	}
	if (c->i == c->n)
		m->heap[0] = m->heap[--m->n_heap];
	sift_down(m, 0);
	return 1;
}

static int merge_open(struct merge *m, struct spt *s)
{
	size_t i, streamed = 0;
	uint64_t unsorted = 0;
	char why[256];
	int ret = 0;

	*m = (struct merge){ .base = { merge_next }, .s = s };
	m->c = calloc(s->n_sections ? s->n_sections : 1, sizeof(*m->c));
	m->heap = malloc((s->n_sections ? s->n_sections : 1) * sizeof(*m->heap));
	if (!m->c || !m->heap)
		return nomem(s);
	for (i = 0; i < s->n_sections; i++) {
		streamed += s->sections[i].sorted;
		unsorted += s->sections[i].sorted ? 0 : s->sections[i].n;
	}
	if (sb_read_check_fits(unsorted, sizeof(struct call), "calls of regions not listed by start",
			       why, sizeof(why)))
		return corrupt(s, "%s", why);
	m->per_buffer = MERGE_BUFFERS / sizeof(struct call) / (streamed ? streamed : 1);
	if (m->per_buffer > SPT_CHUNK)
		m->per_buffer = SPT_CHUNK;
	if (!m->per_buffer)
		m->per_buffer = 1;
	for (i = 0; i < s->n_sections && !ret; i++) {
		m->c[i].sec = &s->sections[i];
		if (!s->sections[i].sorted) {
			ret = load_sorted(m, &m->c[i]);
			continue;
		}
		m->c[i].buf = malloc(m->per_buffer * sizeof(*m->c[i].buf));
		ret = m->c[i].buf ? refill(m, &m->c[i]) : nomem(s);
	}
	for (i = 0; i < s->n_sections && !ret; i++)
		m->heap[m->n_heap++] = i;
	for (i = m->n_heap / 2; i-- > 0;)
		sift_down(m, i);
	return ret;
}

static void merge_free(struct merge *m, size_t n)
{
	size_t i;

	for (i = 0; m->c && i < n; i++)
		free(m->c[i].buf);
	free(m->c);
	free(m->heap);
}

struct sb_spt_calls {
	struct spt s;
	struct merge m;
};

int sb_spt_calls_open(const char *path, struct sb_profile *p, struct sb_spt_calls **out,
		      struct sb_error *err)
{
	struct sb_spt_calls *c;
	int ret;

	*out = NULL;
	sb_profile_init(p);
	c = calloc(1, sizeof(*c));
	if (!c)
		return sb_fail(err, ENOMEM, "%s: out of memory", path);
	c->s = (struct spt){ .path = path, .err = err };
	sb_read_build_init(&c->s.build, p);
	c->s.build.lean = true;
	c->s.chunk_starts = malloc(SPT_CHUNK * sizeof(int64_t));
	c->s.chunk_ends = malloc(SPT_CHUNK * sizeof(int64_t));
	ret = c->s.chunk_starts && c->s.chunk_ends ? open_trace(&c->s) : nomem(&c->s);
	if (!ret)
		ret = read_trace(&c->s);
	if (!ret)
		ret = merge_open(&c->m, &c->s);
	if (ret) {
		sb_spt_calls_close(c);
		sb_profile_free(p);
		return ret;
	}
	*out = c;
	return 0;
}

struct sb_ordered_calls *sb_spt_calls_source(struct sb_spt_calls *c)
{
	return &c->m.base;
}

void sb_spt_calls_close(struct sb_spt_calls *c)
{
	if (!c)
		return;
	merge_free(&c->m, c->s.n_sections);
	spt_free(&c->s);
	free(c);
}
