/* External sort of call records: sorted runs on an unlinked temp file, k-way merged on reading. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/spill.h"
#include "io/tmpfile.h"

#define REC sizeof(struct sb_spill_rec)

/* Smallest read buffer per run: below this, merging turns into a storm of tiny reads. */
#define MIN_RUN_BUF 64
/* Slices this short sort faster by insertion than by partitioning. */
#define INSERTION_MAX 16
/*
 * A run is this long at most, whatever the budget: the recorder's thread sorts
 * and writes it while nobody drains the kernel's ring buffer, and a 12 MiB run
 * took long enough here (tens of milliseconds) for two busy writers to fill a
 * 4 MiB ring (make bench (c)). Shorter runs only mean more of them to merge,
 * with the rest of the budget for the merge's buffers.
 */
#define RUN_MAX_BYTES (3u << 20)

/*
 * One read or write moves this much at most. The kernel copies a write into
 * the page cache without a point where it could switch tasks (this kernel
 * runs PREEMPT_NONE): a 3 MiB run held its CPU 2.7 ms here, and the fast
 * path's drainer, woken there, waited that long, longer than a ring lasts.
 * Between two calls it runs.
 */
#define IO_MAX_BYTES (256u << 10)

_Static_assert(sizeof(struct sb_spill_rec) == 40 + 8 * SB_SPILL_METRICS,
	       "sb_spill_rec is written to disk as is: no padding");

/*
 * A run's record on disk where every record of the run allows it: 32 bytes
 * instead of 56, so half the bytes go through the page cache (whose copy into
 * fresh pages was 73 ns a call of a 100 M-call recording, 22% of its CPU).
 * Fields: pair, thread, start and call id less the run's least, duration,
 * how far below the call id its parent's is (0: no parent, -1), and each
 * metric + 1. A busy loop's runs fit: close starts and ids, short calls.
 */
struct packed_rec {
	uint32_t pair;
	uint32_t thread;
	uint32_t start;
	uint32_t dur;
	uint32_t id;
	uint32_t up;
	uint32_t metric[SB_SPILL_METRICS];
};

#define PREC sizeof(struct packed_rec)

_Static_assert(PREC < REC, "a packed record is the smaller");

/* A sorted run in the run file. */
struct sb_run {
	uint64_t off;		/* bytes */
	uint64_t len;		/* records */
	bool packed;
	int64_t base_start;	/* packed: what its starts and call ids count from */
	int64_t base_id;
};

/* One run being merged: a window of records in memory, the rest still on disk. */
struct sb_cursor {
	struct sb_spill_rec *buf;
	size_t pos;		/* next record in buf */
	size_t len;		/* records held in buf */
	size_t cap;
	int fd;
	uint64_t off;		/* next byte to read from fd */
	uint64_t left;		/* records of the run still on disk */
	bool packed;
	int64_t base_start;
	int64_t base_id;
};

/* A k-way merge: a binary min-heap of cursors keyed by their next record. */
struct sb_merge {
	struct sb_cursor *cur;
	struct sb_cursor **heap;
	size_t n;
	struct sb_spill_rec *block;	/* all read buffers, one allocation */
};

enum spill_state {
	SPILL_ADDING,
	SPILL_MEMORY,		/* everything fits in buf: reads come straight from it */
	SPILL_MERGING,
};

struct sb_spill {
	char *dir;
	enum spill_state state;
	int error;		/* sticky once reading failed: the merge state is lost */
	/*
	 * Sticky once a run could not be written (a full disk): every later record
	 * is refused at once, never sorted and retried, while the records kept
	 * (the runs on disk and the full buffer) still sort and read.
	 */
	int add_error;
	struct sb_spill_rec *buf;
	size_t cap;		/* records buf holds: half the budget, RUN_MAX_BYTES at most */
	size_t n;
	/*
	 * A record in buf is less than the one before it: told as each comes,
	 * while the one before is still in the cache, rather than by a pass
	 * over the whole run before its sort (usually sorted already).
	 */
	bool unsorted;
	int64_t min_start;	/* the least start and call id in buf: a packed run's bases */
	int64_t min_id;
	size_t next;		/* next record to read in SPILL_MEMORY */
	size_t merge_recs;	/* records of read buffers the other half allows */
	size_t max_fan;		/* runs one merge can read with MIN_RUN_BUF each */
	uint64_t count;
	int fd;			/* run file, -1 until the first run */
	uint64_t end;		/* bytes written to fd */
	struct sb_run *runs;
	size_t n_runs;
	size_t runs_cap;
	unsigned int runs_written;
	unsigned int runs_packed;
	unsigned int merge_passes;
	struct sb_merge merge;
};

static inline bool rec_less(const struct sb_spill_rec *a, const struct sb_spill_rec *b)
{
	if (a->pair != b->pair)
		return a->pair < b->pair;
	if (a->start != b->start)
		return a->start < b->start;
	return a->call_id < b->call_id;
}

static inline void rec_swap(struct sb_spill_rec *a, struct sb_spill_rec *b)
{
	struct sb_spill_rec t = *a;

	*a = *b;
	*b = t;
}

static void rec_insertion_sort(struct sb_spill_rec *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct sb_spill_rec t = v[i];
		size_t j = i;

		for (; j > 0 && rec_less(&t, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

static void rec_sift(struct sb_spill_rec *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && rec_less(&v[c], &v[c + 1]))
			c++;
		if (!rec_less(&v[i], &v[c]))
			return;
		rec_swap(&v[i], &v[c]);
		i = c;
	}
}

static void rec_heap_sort(struct sb_spill_rec *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		rec_sift(v, i, n);
	while (n > 1) {
		rec_swap(&v[0], &v[--n]);
		rec_sift(v, 0, n);
	}
}

/*
 * Hoare partition around the median of three, so already sorted input (the
 * usual case: calls arrive roughly in time order) splits evenly and equal keys
 * split evenly too. Returns j: v[0..j] <= pivot <= v[j+1..n).
 */
static size_t rec_partition(struct sb_spill_rec *v, size_t n)
{
	size_t mid = (n - 1) / 2, i = 0, j = n - 1;
	struct sb_spill_rec p;

	if (rec_less(&v[mid], &v[0]))
		rec_swap(&v[mid], &v[0]);
	if (rec_less(&v[n - 1], &v[mid])) {
		rec_swap(&v[n - 1], &v[mid]);
		if (rec_less(&v[mid], &v[0]))
			rec_swap(&v[mid], &v[0]);
	}
	p = v[mid];
	for (;;) {
		while (rec_less(&v[i], &p))
			i++;
		while (rec_less(&p, &v[j]))
			j--;
		if (i >= j)
			return j;
		rec_swap(&v[i], &v[j]);
		i++;
		j--;
	}
}

static void rec_sort_depth(struct sb_spill_rec *v, size_t n, unsigned int depth)
{
	while (n > INSERTION_MAX) {
		size_t left;

		if (!depth--) {
			rec_heap_sort(v, n);
			return;
		}
		/* Recurse into the smaller side so the stack stays O(log n). */
		left = rec_partition(v, n) + 1;
		if (left < n - left) {
			rec_sort_depth(v, left, depth);
			v += left;
			n -= left;
		} else {
			rec_sort_depth(v + left, n - left, depth);
			n = left;
		}
	}
	rec_insertion_sort(v, n);
}

/*
 * In-place introsort rather than qsort(): glibc's qsort mallocs a copy of the
 * whole array for its merge sort, which would double the memory budget.
 * Often already in order (one busy region of one thread): nothing to do then.
 */
static void buf_sort(struct sb_spill *s)
{
	unsigned int depth = 0;

	if (!s->unsorted)
		return;
	for (size_t m = s->n; m > 1; m >>= 1)
		depth += 2;
	rec_sort_depth(s->buf, s->n, depth);
	s->unsorted = false;
}

static int write_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len < IO_MAX_BYTES ? len : IO_MAX_BYTES, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len < IO_MAX_BYTES ? len : IO_MAX_BYTES, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* Every run was written whole: a short file means it was damaged. */
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* r as a packed record counted from the bases; false where a value does not fit. */
static bool pack_one(const struct sb_spill_rec *r, int64_t base_start, int64_t base_id,
		     struct packed_rec *p)
{
	uint64_t start = (uint64_t)r->start - (uint64_t)base_start;
	uint64_t id = (uint64_t)r->call_id - (uint64_t)base_id;
	uint64_t dur = (uint64_t)r->end - (uint64_t)r->start;
	uint64_t up = r->parent_id == -1 ? 0 : (uint64_t)r->call_id - (uint64_t)r->parent_id;
	unsigned int k;

	if (start > UINT32_MAX || id > UINT32_MAX || r->end < r->start || dur > UINT32_MAX ||
	    up > UINT32_MAX || (r->parent_id != -1 && r->parent_id >= r->call_id))
		return false;
	for (k = 0; k < SB_SPILL_METRICS; k++) {
		if (r->metric[k] < -1 || r->metric[k] >= (int64_t)UINT32_MAX)
			return false;
		p->metric[k] = (uint32_t)(r->metric[k] + 1);
	}
	p->pair = r->pair;
	p->thread = r->thread;
	p->start = (uint32_t)start;
	p->dur = (uint32_t)dur;
	p->id = (uint32_t)id;
	p->up = (uint32_t)up;
	return true;
}

static void unpack_one(const struct packed_rec *p, int64_t base_start, int64_t base_id,
		       struct sb_spill_rec *r)
{
	unsigned int k;

	r->pair = p->pair;
	r->thread = p->thread;
	r->start = (int64_t)((uint64_t)base_start + p->start);
	r->end = (int64_t)((uint64_t)r->start + p->dur);
	r->call_id = (int64_t)((uint64_t)base_id + p->id);
	r->parent_id = p->up ? (int64_t)((uint64_t)r->call_id - p->up) : -1;
	for (k = 0; k < SB_SPILL_METRICS; k++)
		r->metric[k] = (int64_t)p->metric[k] - 1;
}

/*
 * The first n records of v, packed at its start, unpacked in place: from the
 * last, each read before the room of its record (which covers only packed
 * records after it) is written.
 */
static void unpack_back(struct sb_spill_rec *v, size_t n, int64_t base_start, int64_t base_id)
{
	struct packed_rec p;

	while (n--) {
		memcpy(&p, (char *)v + n * PREC, PREC);
		unpack_one(&p, base_start, base_id, &v[n]);
	}
}

/*
 * buf's records packed in place, each written over records already read;
 * false (buf as it was) where one does not fit.
 */
static bool pack_buf(struct sb_spill *s)
{
	struct packed_rec p;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (!pack_one(&s->buf[i], s->min_start, s->min_id, &p)) {
			unpack_back(s->buf, i, s->min_start, s->min_id);
			return false;
		}
		memcpy((char *)s->buf + i * PREC, &p, PREC);
	}
	return true;
}

static int cursor_fill(struct sb_cursor *c)
{
	size_t n = c->left < c->cap ? c->left : c->cap;
	int err;

	struct packed_rec p;
	char *tail;
	size_t i;

	c->pos = 0;
	c->len = 0;
	if (!n)
		return 0;
	if (!c->packed) {
		err = read_full(c->fd, c->buf, n * REC, c->off);
		c->off += n * REC;
	} else {
		/*
		 * Read into the end of buf and unpacked from its start: record i
		 * ends before packed record i + 1 begins, as n <= cap.
		 */
		tail = (char *)c->buf + c->cap * REC - n * PREC;
		err = read_full(c->fd, tail, n * PREC, c->off);
		for (i = 0; !err && i < n; i++) {
			memcpy(&p, tail + i * PREC, PREC);
			unpack_one(&p, c->base_start, c->base_id, &c->buf[i]);
		}
		c->off += n * PREC;
	}
	if (err)
		return err;
	c->len = n;
	c->left -= n;
	return 0;
}

static inline bool cursor_less(const struct sb_cursor *a, const struct sb_cursor *b)
{
	return rec_less(&a->buf[a->pos], &b->buf[b->pos]);
}

static void heap_down(struct sb_merge *m, size_t i)
{
	struct sb_cursor *c = m->heap[i];

	for (;;) {
		size_t k = 2 * i + 1;

		if (k >= m->n)
			break;
		if (k + 1 < m->n && cursor_less(m->heap[k + 1], m->heap[k]))
			k++;
		if (!cursor_less(m->heap[k], c))
			break;
		m->heap[i] = m->heap[k];
		i = k;
	}
	m->heap[i] = c;
}

static void merge_free(struct sb_merge *m)
{
	free(m->cur);
	free(m->heap);
	free(m->block);
	memset(m, 0, sizeof(*m));
}

/*
 * Merge n_runs runs of fd, each read bufcap records at a time, with n_mem
 * sorted records already in memory (mem is borrowed, not copied).
 */
static int merge_init(struct sb_merge *m, int fd, const struct sb_run *runs, size_t n_runs,
		      size_t bufcap, struct sb_spill_rec *mem, size_t n_mem)
{
	size_t k = n_runs + 1;
	int err;

	memset(m, 0, sizeof(*m));
	m->cur = calloc(k, sizeof(*m->cur));
	m->heap = calloc(k, sizeof(*m->heap));
	m->block = malloc(n_runs * bufcap * REC);
	if (!m->cur || !m->heap || !m->block) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < n_runs; i++) {
		struct sb_cursor *c = &m->cur[i];

		*c = (struct sb_cursor){
			.buf = m->block + i * bufcap,
			.cap = bufcap,
			.fd = fd,
			.off = runs[i].off,
			.left = runs[i].len,
			.packed = runs[i].packed,
			.base_start = runs[i].base_start,
			.base_id = runs[i].base_id,
		};
		err = cursor_fill(c);
		if (err)
			goto fail;
		if (c->len)
			m->heap[m->n++] = c;
	}
	if (n_mem) {
		m->cur[n_runs] = (struct sb_cursor){ .buf = mem, .len = n_mem, .cap = n_mem, .fd = -1 };
		m->heap[m->n++] = &m->cur[n_runs];
	}
	for (size_t i = m->n / 2; i-- > 0;)
		heap_down(m, i);
	return 0;
fail:
	merge_free(m);
	return err;
}

static ssize_t merge_read(struct sb_merge *m, struct sb_spill_rec *out, size_t max)
{
	size_t got = 0;
	int err;

	while (got < max && m->n) {
		struct sb_cursor *c = m->heap[0];

		out[got++] = c->buf[c->pos++];
		if (c->pos == c->len) {
			err = cursor_fill(c);
			if (err)
				return err;
			if (!c->len)
				m->heap[0] = m->heap[--m->n];
		}
		if (m->n)
			heap_down(m, 0);
	}
	return got;
}

struct sb_spill *sb_spill_new(const char *dir, size_t mem_budget)
{
	struct sb_spill *s;
	size_t rest;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = -1;
	s->cap = (mem_budget / 2 < RUN_MAX_BYTES ? mem_budget / 2 : RUN_MAX_BYTES) / REC;
	if (s->cap < MIN_RUN_BUF)
		s->cap = MIN_RUN_BUF;
	rest = mem_budget > s->cap * REC ? mem_budget - s->cap * REC : 0;
	/* A merge pass needs two inputs and an output to make progress. */
	s->merge_recs = rest / REC;
	if (s->merge_recs < 3 * MIN_RUN_BUF)
		s->merge_recs = 3 * MIN_RUN_BUF;
	s->max_fan = s->merge_recs / MIN_RUN_BUF;
	s->dir = strdup(dir);
	/* Pages are touched only as records arrive, so small traces stay small. */
	s->buf = malloc(s->cap * REC);
	if (!s->dir || !s->buf) {
		sb_spill_free(s);
		return NULL;
	}
	return s;
}

static int runs_push(struct sb_spill *s, const struct sb_run *run)
{
	if (s->n_runs == s->runs_cap) {
		size_t cap = s->runs_cap ? 2 * s->runs_cap : 16;
		struct sb_run *r = realloc(s->runs, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		s->runs = r;
		s->runs_cap = cap;
	}
	s->runs[s->n_runs++] = *run;
	return 0;
}

/*
 * Sort the full buffer and append it as a run, packed where it fits; on
 * failure it stays in memory, whole.
 */
static int spill_buffer(struct sb_spill *s)
{
	struct sb_run run;
	size_t bytes;
	int err;

	if (s->fd < 0) {
		err = sb_tmpfile_anon(s->dir);
		if (err < 0)
			return err;
		s->fd = err;
	}
	buf_sort(s);
	run = (struct sb_run){ .off = s->end, .len = s->n, .packed = pack_buf(s),
			       .base_start = s->min_start, .base_id = s->min_id };
	bytes = s->n * (run.packed ? PREC : REC);
	err = write_full(s->fd, s->buf, bytes, s->end);
	if (!err)
		err = runs_push(s, &run);
	if (err) {
		if (run.packed)
			unpack_back(s->buf, s->n, run.base_start, run.base_id);
		return err;
	}
	s->end += bytes;
	s->runs_packed += run.packed;
	s->n = 0;
	s->runs_written++;
	return 0;
}

int sb_spill_reserve(struct sb_spill *s)
{
	int err;

	if (s->state != SPILL_ADDING)
		return -EINVAL;
	if (s->add_error)
		return s->add_error;
	/* Spill only once one more record arrives: a trace that exactly fills buf stays off disk. */
	if (s->n == s->cap) {
		err = spill_buffer(s);
		if (err) {
			s->add_error = err;
			return err;
		}
	}
	return 0;
}

int sb_spill_add(struct sb_spill *s, const struct sb_spill_rec *r)
{
	int err = sb_spill_reserve(s);

	if (err)
		return err;
	if (s->n && rec_less(r, &s->buf[s->n - 1]))
		s->unsorted = true;
	if (!s->n || r->start < s->min_start)
		s->min_start = r->start;
	if (!s->n || r->call_id < s->min_id)
		s->min_id = r->call_id;
	s->buf[s->n++] = *r;
	s->count++;
	return 0;
}

uint64_t sb_spill_count(const struct sb_spill *s)
{
	return s->count;
}

/* Merge n runs of in into one run (unpacked) appended to out at byte at. */
static int merge_group(int in, const struct sb_run *runs, size_t n, size_t bufcap,
		       int out, uint64_t at, struct sb_run *res)
{
	struct sb_spill_rec *buf;
	struct sb_merge m;
	ssize_t got;
	int err;

	buf = malloc(bufcap * REC);
	if (!buf)
		return -ENOMEM;
	err = merge_init(&m, in, runs, n, bufcap, NULL, 0);
	if (err)
		goto out;
	*res = (struct sb_run){ .off = at };
	while ((got = merge_read(&m, buf, bufcap)) > 0) {
		err = write_full(out, buf, got * REC, at + res->len * REC);
		if (err)
			goto out_merge;
		res->len += got;
	}
	err = got;
out_merge:
	merge_free(&m);
out:
	free(buf);
	return err;
}

/*
 * Too many runs for every one to get MIN_RUN_BUF at once: merge them in groups
 * into a new run file, with one buffer's worth kept for the output.
 */
static int merge_pass(struct sb_spill *s)
{
	size_t fan = s->max_fan - 1;
	size_t n_out = (s->n_runs + fan - 1) / fan;
	struct sb_run *out;
	uint64_t end = 0;
	int fd, err;

	out = calloc(n_out, sizeof(*out));
	if (!out)
		return -ENOMEM;
	fd = sb_tmpfile_anon(s->dir);
	if (fd < 0) {
		err = fd;
		goto out_free;
	}
	for (size_t i = 0, j = 0; i < s->n_runs; i += fan, j++) {
		size_t g = s->n_runs - i < fan ? s->n_runs - i : fan;

		err = merge_group(s->fd, s->runs + i, g, s->merge_recs / (g + 1), fd, end, &out[j]);
		if (err)
			goto out_close;
		end += out[j].len * REC;
	}
	close(s->fd);
	free(s->runs);
	s->fd = fd;
	s->runs = out;
	s->n_runs = n_out;
	s->runs_cap = n_out;
	s->end = end;
	s->merge_passes++;
	return 0;
out_close:
	close(fd);
out_free:
	free(out);
	return err;
}

int sb_spill_sort(struct sb_spill *s)
{
	int err;

	if (s->state != SPILL_ADDING)
		return -EINVAL;
	/* The last, partial buffer is never written: it joins the merge from memory. */
	buf_sort(s);
	if (!s->n_runs) {
		s->state = SPILL_MEMORY;
		return 0;
	}
	while (s->n_runs > s->max_fan) {
		err = merge_pass(s);
		if (err)
			return err;
	}
	err = merge_init(&s->merge, s->fd, s->runs, s->n_runs, s->merge_recs / s->n_runs,
			 s->buf, s->n);
	if (err)
		return err;
	s->state = SPILL_MERGING;
	return 0;
}

ssize_t sb_spill_read(struct sb_spill *s, struct sb_spill_rec *out, size_t max)
{
	ssize_t n;

	if (s->error)
		return s->error;
	switch (s->state) {
	case SPILL_MEMORY:
		n = s->n - s->next < max ? s->n - s->next : max;
		memcpy(out, s->buf + s->next, n * REC);
		s->next += n;
		return n;
	case SPILL_MERGING:
		n = merge_read(&s->merge, out, max);
		if (n < 0)
			s->error = n;
		return n;
	default:
		return -EINVAL;
	}
}

int sb_spill_rewind(struct sb_spill *s)
{
	int err;

	if (s->error)
		return s->error;
	switch (s->state) {
	case SPILL_MEMORY:
		s->next = 0;
		return 0;
	case SPILL_MERGING:
		/* The runs on disk and the last buffer are never changed by a merge that reads them. */
		merge_free(&s->merge);
		err = merge_init(&s->merge, s->fd, s->runs, s->n_runs, s->merge_recs / s->n_runs,
				 s->buf, s->n);
		if (err)
			s->error = err;
		return err;
	default:
		return -EINVAL;
	}
}

void sb_spill_free(struct sb_spill *s)
{
	if (!s)
		return;
	merge_free(&s->merge);
	if (s->fd >= 0)
		close(s->fd);
	free(s->runs);
	free(s->buf);
	free(s->dir);
	free(s);
}

unsigned int sb_spill_runs(const struct sb_spill *s)
{
	return s->runs_written;
}

unsigned int sb_spill_runs_packed(const struct sb_spill *s)
{
	return s->runs_packed;
}

unsigned int sb_spill_merge_passes(const struct sb_spill *s)
{
	return s->merge_passes;
}
