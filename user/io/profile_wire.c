/* The model through a pipe: put by a reader child, got back by its parent, every length checked. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/profile_wire.h"
#include "model/index_rules.h"
#include "util/proc_stat.h"

/* Marks the start and the end of a profile: a stream cut anywhere is refused. */
#define PROFILE_BEGIN 0x5342505231424547ll
#define PROFILE_END 0x5342505231454e44ll
/* Any one string of the model; the budget bounds them together. */
#define MAX_STR (64u << 20)
/* A NULL string's length. */
#define NULL_STR (-1)
/* Events of one profile: what the HDF5 reader allows a column. */
#define MAX_EVENTS (1ll << 34)

/* ---- writing ---- */

void sb_wire_out_init(struct sb_wire_out *w, int fd)
{
	w->fd = fd;
	w->err = 0;
	w->len = 0;
}

static void write_all(struct sb_wire_out *w, const void *v, size_t n)
{
	const unsigned char *c = v;
	ssize_t k;

	while (n && !w->err) {
		k = write(w->fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->err = k < 0 ? -errno : -EPIPE;
			return;
		}
		c += k;
		n -= (size_t)k;
	}
}

int sb_wire_flush(struct sb_wire_out *w)
{
	write_all(w, w->buf, w->len);
	w->len = 0;
	return w->err;
}

void sb_wire_put(struct sb_wire_out *w, const void *v, size_t n)
{
	if (!n)
		return;
	if (w->len + n > sizeof(w->buf)) {
		sb_wire_flush(w);
		/* Event columns go straight from the reader's array to the pipe. */
		if (n >= sizeof(w->buf)) {
			write_all(w, v, n);
			return;
		}
	}
	memcpy(w->buf + w->len, v, n);
	w->len += n;
}

void sb_wire_put_i64(struct sb_wire_out *w, int64_t v)
{
	sb_wire_put(w, &v, sizeof(v));
}

void sb_wire_put_str(struct sb_wire_out *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	sb_wire_put_i64(w, s ? (int64_t)n : NULL_STR);
	sb_wire_put(w, s, n);
}

/* ---- reading ---- */

void sb_wire_in_init(struct sb_wire_in *r, int fd, int64_t timeout_ms, uint64_t budget)
{
	r->fd = fd;
	r->timeout_ms = timeout_ms;
	r->writer = 0;
	r->budget = budget;
	r->err = 0;
	r->why[0] = '\0';
	r->pos = r->len = 0;
}

int sb_wire_malformed(struct sb_wire_in *r, const char *fmt, ...)
{
	va_list ap;

	if (r->err)
		return r->err;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	r->err = -EPROTO;
	return r->err;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sb_wire_in_writer(struct sb_wire_in *r, int pid)
{
	r->writer = pid;
}

/* Whether the writer is runnable (running, or waiting for a CPU): 'R' in /proc/PID/stat. */
static bool runnable(int pid)
{
	pid_t ppid;
	char state;

	return !sb_proc_stat(pid, &state, &ppid) && state == 'R';
}

/* The writer's time on a CPU so far (/proc/PID/schedstat), in ms; -1 when unknown. */
static int64_t cpu_ms(int pid)
{
	unsigned long long run;
	char path[64];
	FILE *f;
	int k;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	k = fscanf(f, "%llu", &run);
	fclose(f);
	return k == 1 ? (int64_t)(run / 1000000) : -1;
}

/*
 * How much of a wait of wall ms counts as silence: all of it, unless the
 * writer is runnable, when only its time on a CPU does (*cpu: its CPU time
 * at the last look, updated).
 */
static int64_t silence(int pid, int64_t wall, int64_t *cpu)
{
	int64_t now;

	if (pid <= 0 || *cpu < 0)
		return wall;
	now = cpu_ms(pid);
	if (now < 0)
		return wall;
	wall = runnable(pid) ? now - *cpu : wall;
	*cpu = now;
	return wall;
}

/* How often a wait looks at the writer. */
#define LOOK_MS 50

/*
 * Wait until the pipe has bytes or its end, for at most the timeout of
 * silence. A writer starved of CPU (a read beside a busy job: a 5 M-call
 * profile on 2 CPUs shared with 16 threads went 9 s without a byte) is not
 * silent: while it is runnable only its CPU time counts, within
 * SB_WIRE_STARVED_MAX timeouts of wall time.
 */
static int wait_readable(struct sb_wire_in *r)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	int64_t start = now_ms(), last = start, used = 0, cpu, t;
	int k;

	cpu = r->writer > 0 ? cpu_ms(r->writer) : -1;
	for (;;) {
		t = r->timeout_ms - used;
		k = poll(&pfd, 1, t <= 0 ? 0 : t > LOOK_MS && cpu >= 0 ? LOOK_MS :
			 t > INT_MAX ? INT_MAX : (int)t);
		if (k > 0)
			return 0;
		if (k < 0 && errno != EINTR)
			return -errno;
		t = now_ms();
		used += silence(r->writer, t - last, &cpu);
		last = t;
		if (used >= r->timeout_ms || t - start >= r->timeout_ms * SB_WIRE_STARVED_MAX)
			return -ETIMEDOUT;
	}
}

/* Up to n bytes into v, at least one; the sticky error when none can come. */
static ssize_t read_some(struct sb_wire_in *r, void *v, size_t n)
{
	ssize_t k;
	int ret;

	for (;;) {
		ret = wait_readable(r);
		if (ret)
			return r->err = ret;
		k = read(r->fd, v, n);
		if (k > 0)
			return k;
		if (k == 0)
			return r->err = -EPIPE;
		if (errno != EINTR && errno != EAGAIN)
			return r->err = -errno;
	}
}

int sb_wire_get(struct sb_wire_in *r, void *v, size_t n)
{
	unsigned char *c = v;
	size_t k;
	ssize_t got;

	if (r->err)
		return r->err;
	if (n > r->budget)
		return sb_wire_malformed(r, "%zu bytes more than the %llu allowed", n,
					 (unsigned long long)r->budget);
	r->budget -= n;
	while (n) {
		if (r->pos == r->len) {
			/* Large arrays straight into place; small values through the buffer. */
			got = n >= sizeof(r->buf) ? read_some(r, c, n) :
						    read_some(r, r->buf, sizeof(r->buf));
			if (got < 0)
				return (int)got;
			if (n >= sizeof(r->buf)) {
				c += got;
				n -= (size_t)got;
				continue;
			}
			r->pos = 0;
			r->len = (size_t)got;
		}
		k = r->len - r->pos < n ? r->len - r->pos : n;
		memcpy(c, r->buf + r->pos, k);
		r->pos += k;
		c += k;
		n -= k;
	}
	return 0;
}

int sb_wire_get_i64(struct sb_wire_in *r, int64_t *v)
{
	return sb_wire_get(r, v, sizeof(*v));
}

int sb_wire_get_str(struct sb_wire_in *r, char **s, size_t max, bool nullable)
{
	int64_t n;
	char *c;

	*s = NULL;
	if (sb_wire_get_i64(r, &n))
		return r->err;
	if (n == NULL_STR && nullable)
		return 0;
	if (n < 0 || (uint64_t)n > max || (uint64_t)n > r->budget)
		return sb_wire_malformed(r, "a string of %lld bytes", (long long)n);
	c = malloc((size_t)n + 1);
	if (!c)
		return r->err = -ENOMEM;
	if (sb_wire_get(r, c, (size_t)n)) {
		free(c);
		return r->err;
	}
	c[n] = '\0';
	if (strlen(c) != (size_t)n) {
		free(c);
		return sb_wire_malformed(r, "a string holds a NUL byte");
	}
	*s = c;
	return 0;
}

/* A count of things that take at least each bytes to send: no more than the budget can bring. */
static int get_count(struct sb_wire_in *r, size_t each, const char *what, size_t *n)
{
	int64_t v;

	*n = 0;
	if (sb_wire_get_i64(r, &v))
		return r->err;
	if (v < 0 || (uint64_t)v > r->budget / each)
		return sb_wire_malformed(r, "%lld %s", (long long)v, what);
	*n = (size_t)v;
	return 0;
}

/*
 * Room for n elements. Tables the model's add helpers grow (model.h) get the
 * capacity those expect; the rest exactly n (at least one, so never NULL).
 */
static void *alloc_rows(struct sb_wire_in *r, size_t n, size_t size, bool growable)
{
	size_t cap = n ? n : 1;
	void *v;

	if (growable)
		for (cap = 8; cap < n; cap *= 2)
			;
	v = calloc(cap, size);
	if (!v)
		r->err = -ENOMEM;
	return v;
}

/* n raw rows of size bytes: the arrays without pointers. */
static int get_rows(struct sb_wire_in *r, void **v, size_t *n, size_t size, const char *what)
{
	if (get_count(r, size, what, n))
		return r->err;
	*v = alloc_rows(r, *n, size, false);
	if (!*v)
		return r->err;
	return sb_wire_get(r, *v, *n * size);
}

static void put_rows(struct sb_wire_out *w, const void *v, size_t n, size_t size)
{
	sb_wire_put_i64(w, (int64_t)n);
	sb_wire_put(w, v, n * size);
}

/* ---- the model's tables ---- */

static void put_regions(struct sb_wire_out *w, const struct sb_profile *p)
{
	const struct sb_region *g;
	size_t i;

	sb_wire_put_i64(w, (int64_t)p->n_regions);
	for (i = 0; i < p->n_regions; i++) {
		g = &p->regions[i];
		sb_wire_put_str(w, g->name);
		sb_wire_put_str(w, g->source_file);
		sb_wire_put_i64(w, g->source_line);
		sb_wire_put_str(w, g->source_text);
		sb_wire_put_str(w, g->tags);
	}
}

static int get_regions(struct sb_wire_in *r, struct sb_profile *p)
{
	struct sb_region *g;
	size_t i, n;

	if (get_count(r, 40, "regions", &n))
		return r->err;
	p->regions = alloc_rows(r, n, sizeof(*p->regions), true);
	for (i = 0; i < n && !r->err; i++) {
		g = &p->regions[i];
		p->n_regions++;
		sb_wire_get_str(r, &g->name, MAX_STR, false);
		sb_wire_get_str(r, &g->source_file, MAX_STR, false);
		sb_wire_get_i64(r, &g->source_line);
		sb_wire_get_str(r, &g->source_text, MAX_STR, false);
		sb_wire_get_str(r, &g->tags, MAX_STR, false);
	}
	return r->err;
}

static void put_threads(struct sb_wire_out *w, const struct sb_profile *p)
{
	const struct sb_thread *t;
	size_t i;

	sb_wire_put_i64(w, (int64_t)p->n_threads);
	for (i = 0; i < p->n_threads; i++) {
		t = &p->threads[i];
		sb_wire_put_i64(w, t->rank);
		sb_wire_put_i64(w, t->index);
		sb_wire_put_i64(w, t->tid);
		sb_wire_put_i64(w, t->start_ns);
		sb_wire_put_i64(w, t->end_ns);
		sb_wire_put_i64(w, t->cpu_ns);
		sb_wire_put_str(w, t->name);
	}
}

static int get_threads(struct sb_wire_in *r, struct sb_profile *p)
{
	struct sb_thread *t;
	int64_t rank = 0;
	size_t i, n;

	if (get_count(r, 56, "threads", &n))
		return r->err;
	p->threads = alloc_rows(r, n, sizeof(*p->threads), true);
	for (i = 0; i < n && !r->err; i++) {
		t = &p->threads[i];
		p->n_threads++;
		sb_wire_get_i64(r, &rank);
		sb_wire_get_i64(r, &t->index);
		sb_wire_get_i64(r, &t->tid);
		sb_wire_get_i64(r, &t->start_ns);
		sb_wire_get_i64(r, &t->end_ns);
		sb_wire_get_i64(r, &t->cpu_ns);
		sb_wire_get_str(r, &t->name, MAX_STR, false);
		if (!r->err && (rank < 0 || rank >= SB_MAX_RANK))
			return sb_wire_malformed(r, "thread %zu: rank %lld", i, (long long)rank);
		t->rank = (uint32_t)rank;
	}
	return r->err;
}

static void put_events(struct sb_wire_out *w, const struct sb_profile *p)
{
	size_t stride = sb_counter_stride(sb_profile_counter_slots(p));

	sb_wire_put_i64(w, (int64_t)p->n_events);
	sb_wire_put_i64(w, p->events != NULL);
	if (!p->events)
		return;
	sb_wire_put(w, p->events, p->n_events * sizeof(*p->events));
	sb_wire_put_i64(w, p->counters != NULL && stride);
	if (p->counters && stride)
		sb_wire_put(w, p->counters, p->n_events * stride * sizeof(*p->counters));
}

/* The events when held (else only their count: they stay on disk); their counter rows. */
static int get_events(struct sb_wire_in *r, struct sb_profile *p)
{
	size_t stride = sb_counter_stride(sb_profile_counter_slots(p)), n;
	int64_t count = 0, held = 0, counters = 0;

	if (sb_wire_get_i64(r, &count) || sb_wire_get_i64(r, &held))
		return r->err;
	/* Left on disk, they cost nothing here: any count a reader accepts will do. */
	if (count < 0 || count > MAX_EVENTS)
		return sb_wire_malformed(r, "%lld events", (long long)count);
	n = p->n_events = (size_t)count;
	if (!held)
		return 0;
	if (n > r->budget / sizeof(*p->events))
		return sb_wire_malformed(r, "%zu events held", n);
	p->events = alloc_rows(r, n, sizeof(*p->events), false);
	if (!p->events || sb_wire_get(r, p->events, n * sizeof(*p->events)) ||
	    sb_wire_get_i64(r, &counters) || !counters)
		return r->err;
	if (!stride || n > r->budget / (stride * sizeof(*p->counters)))
		return sb_wire_malformed(r, "counter rows of %zu values for %zu events", stride, n);
	p->counters = alloc_rows(r, n * stride, sizeof(*p->counters), false);
	if (!p->counters)
		return r->err;
	return sb_wire_get(r, p->counters, n * stride * sizeof(*p->counters));
}

static void put_processes(struct sb_wire_out *w, const struct sb_profile *p)
{
	const struct sb_process *q;
	size_t i;

	sb_wire_put_i64(w, (int64_t)p->n_processes);
	for (i = 0; i < p->n_processes; i++) {
		q = &p->processes[i];
		sb_wire_put_i64(w, q->pid);
		sb_wire_put_i64(w, q->ppid);
		sb_wire_put_i64(w, q->rank);
		sb_wire_put_i64(w, q->start_ns);
		sb_wire_put_i64(w, q->end_ns);
		sb_wire_put_i64(w, q->exit_code);
		sb_wire_put_str(w, q->command);
	}
}

static int get_processes(struct sb_wire_in *r, struct sb_profile *p)
{
	struct sb_process *q;
	size_t i, n;

	if (get_count(r, 56, "processes", &n))
		return r->err;
	p->processes = alloc_rows(r, n, sizeof(*p->processes), true);
	for (i = 0; i < n && !r->err; i++) {
		q = &p->processes[i];
		p->n_processes++;
		sb_wire_get_i64(r, &q->pid);
		sb_wire_get_i64(r, &q->ppid);
		sb_wire_get_i64(r, &q->rank);
		sb_wire_get_i64(r, &q->start_ns);
		sb_wire_get_i64(r, &q->end_ns);
		sb_wire_get_i64(r, &q->exit_code);
		sb_wire_get_str(r, &q->command, MAX_STR, false);
	}
	return r->err;
}

static void put_meta(struct sb_wire_out *w, const struct sb_profile *p)
{
	size_t i;

	sb_wire_put_i64(w, (int64_t)p->n_meta);
	for (i = 0; i < p->n_meta; i++) {
		sb_wire_put_str(w, p->meta[i].key);
		sb_wire_put_i64(w, p->meta[i].is_int);
		sb_wire_put_i64(w, p->meta[i].i);
		sb_wire_put_str(w, p->meta[i].s);
	}
}

static int get_meta(struct sb_wire_in *r, struct sb_profile *p)
{
	struct sb_meta *m;
	int64_t is_int = 0;
	size_t i, n;

	if (get_count(r, 32, "metadata attributes", &n))
		return r->err;
	p->meta = alloc_rows(r, n, sizeof(*p->meta), true);
	for (i = 0; i < n && !r->err; i++) {
		m = &p->meta[i];
		p->n_meta++;
		sb_wire_get_str(r, &m->key, MAX_STR, false);
		sb_wire_get_i64(r, &is_int);
		sb_wire_get_i64(r, &m->i);
		m->is_int = is_int != 0;
		/* A string attribute always has its text. */
		sb_wire_get_str(r, &m->s, MAX_STR, m->is_int);
	}
	return r->err;
}

static void put_paths(struct sb_wire_out *w, const struct sb_region_path *paths, size_t n)
{
	size_t i;

	sb_wire_put_i64(w, (int64_t)n);
	for (i = 0; i < n; i++) {
		sb_wire_put_i64(w, paths[i].parent);
		sb_wire_put_str(w, paths[i].name);
	}
}

static int get_paths(struct sb_wire_in *r, struct sb_region_path **paths, size_t *n_paths)
{
	size_t i, n;

	if (get_count(r, 16, "region paths", &n))
		return r->err;
	*paths = alloc_rows(r, n, sizeof(**paths), false);
	for (i = 0; i < n && !r->err; i++) {
		(*n_paths)++;
		sb_wire_get_i64(r, &(*paths)[i].parent);
		sb_wire_get_str(r, &(*paths)[i].name, MAX_STR, false);
	}
	return r->err;
}

/* ---- every kind of data (model/data_kinds.c), by its description ---- */

/* Bytes the columns of a row hold: the row struct's size when it has no padding. */
static size_t packed_size(const struct sb_table *t)
{
	static const size_t size[] = { [SB_COL_I64] = 8, [SB_COL_U64] = 8, [SB_COL_I32] = 4,
				       [SB_COL_U32] = 4, [SB_COL_BOOL] = 1, [SB_COL_STR] = 8 };
	size_t i, n = 0;

	for (i = 0; i < t->n_cols; i++)
		n += size[t->cols[i].type] * t->cols[i].width;
	return n;
}

/*
 * Rows without strings or padding go as they are; the others value by value,
 * since a pointer or the struct's padding is nobody's data.
 */
static bool raw_rows(const struct sb_table *t)
{
	size_t i;

	for (i = 0; i < t->n_cols; i++)
		if (t->cols[i].type == SB_COL_STR)
			return false;
	return packed_size(t) == t->stride;
}

static void put_value(struct sb_wire_out *w, const struct sb_table_col *c, const char *at)
{
	struct sb_table_col one = *c;
	unsigned k;

	if (c->type == SB_COL_STR) {
		sb_wire_put_str(w, *(char *const *)at);
		return;
	}
	for (k = 0; k < c->width; k++) {
		one.off = (c->type == SB_COL_I64 || c->type == SB_COL_U64 ? 8 : 4) * k;
		sb_wire_put_i64(w, sb_table_int(&one, at, 0, 0));
	}
}

static void put_table(struct sb_wire_out *w, const struct sb_table *t, const void *d)
{
	const char *rows = sb_table_rows(t, d);
	size_t n = *sb_table_len(t, d), i, k;

	if (raw_rows(t)) {
		put_rows(w, rows, n, t->stride);
		return;
	}
	sb_wire_put_i64(w, (int64_t)n);
	for (i = 0; i < n; i++)
		for (k = 0; k < t->n_cols; k++)
			put_value(w, &t->cols[k], rows + i * t->stride + t->cols[k].off);
}

/* One integer value into its field, refused when it does not fit the field's type. */
static int get_int(struct sb_wire_in *r, const struct sb_table *t, const struct sb_table_col *c,
		   size_t i, void *at)
{
	int64_t v = 0;
	int32_t i32;
	uint32_t u32;

	if (sb_wire_get_i64(r, &v))
		return r->err;
	switch (c->type) {
	case SB_COL_I32:
		if (v < INT32_MIN || v > INT32_MAX)
			break;
		i32 = (int32_t)v;
		memcpy(at, &i32, sizeof(i32));
		return 0;
	case SB_COL_U32:
		if (v < 0 || v > UINT32_MAX)
			break;
		u32 = (uint32_t)v;
		memcpy(at, &u32, sizeof(u32));
		return 0;
	case SB_COL_BOOL:
		*(bool *)at = v != 0;
		return 0;
	default:
		memcpy(at, &v, sizeof(v));
		return 0;
	}
	return sb_wire_malformed(r, "%s%s row %zu: %lld", t->prefix, c->name, i, (long long)v);
}

static int get_value(struct sb_wire_in *r, const struct sb_table *t, const struct sb_table_col *c,
		     size_t i, char *at)
{
	size_t size = c->type == SB_COL_I64 || c->type == SB_COL_U64 ? 8 : 4;
	unsigned k;

	if (c->type == SB_COL_STR)
		return sb_wire_get_str(r, (char **)at, MAX_STR, false);
	for (k = 0; k < c->width && !r->err; k++)
		get_int(r, t, c, i, at + k * size);
	return r->err;
}

static int get_table(struct sb_wire_in *r, const struct sb_kind *kd, const struct sb_table *t,
		     void *d)
{
	size_t n, i, k, *len = sb_table_len(t, d);
	void **arr = (void **)((char *)d + t->arr);
	char *rows;

	if (raw_rows(t))
		return get_rows(r, arr, len, t->stride, kd->what);
	if (get_count(r, packed_size(t), kd->what, &n))
		return r->err;
	rows = alloc_rows(r, n, t->stride, false);
	*arr = rows;
	/* Row by row, so that the kind's free releases the strings got before a failure. */
	for (i = 0; i < n && !r->err; i++) {
		(*len)++;
		for (k = 0; k < t->n_cols && !r->err; k++)
			get_value(r, t, &t->cols[k], i, rows + i * t->stride + t->cols[k].off);
	}
	return r->err;
}

static void put_kinds(struct sb_wire_out *w, const struct sb_profile *p)
{
	size_t i, j;

	for (i = 0; i < sb_n_kinds; i++)
		for (j = 0; j < sb_kinds[i]->n_tables; j++)
			put_table(w, &sb_kinds[i]->tables[j], sb_kind_data(sb_kinds[i], p));
}

static int get_kinds(struct sb_wire_in *r, struct sb_profile *p)
{
	size_t i, j;

	for (i = 0; i < sb_n_kinds && !r->err; i++)
		for (j = 0; j < sb_kinds[i]->n_tables && !r->err; j++)
			get_table(r, sb_kinds[i], &sb_kinds[i]->tables[j],
				  sb_kind_data(sb_kinds[i], p));
	return r->err;
}

static void put_aggregate(struct sb_wire_out *w, const struct sb_aggregate *a)
{
	sb_wire_put_i64(w, a->on);
	sb_wire_put_i64(w, a->window_ns);
	sb_wire_put_i64(w, a->origin_ns);
	put_paths(w, a->paths, a->n_paths);
	put_rows(w, a->rows, a->n_rows, sizeof(*a->rows));
	put_rows(w, a->value_ids, a->n_values, sizeof(*a->value_ids));
	put_rows(w, a->values, a->n_rows * a->n_values, sizeof(*a->values));
}

static int get_aggregate(struct sb_wire_in *r, struct sb_aggregate *a)
{
	int64_t on = 0;
	size_t nv = 0, n = 0, i;

	if (sb_wire_get_i64(r, &on) || sb_wire_get_i64(r, &a->window_ns) ||
	    sb_wire_get_i64(r, &a->origin_ns) || get_paths(r, &a->paths, &a->n_paths) ||
	    get_rows(r, (void **)&a->rows, &a->n_rows, sizeof(*a->rows), "aggregate rows") ||
	    get_rows(r, (void **)&a->value_ids, &nv, sizeof(*a->value_ids), "aggregate columns") ||
	    get_rows(r, (void **)&a->values, &n, sizeof(*a->values), "aggregate values"))
		return r->err;
	a->on = on != 0;
	a->n_values = (unsigned)nv;
	if (nv > SB_N_METRICS || n != a->n_rows * nv)
		return sb_wire_malformed(r, "%zu aggregate values for %zu rows of %zu", n,
					 a->n_rows, nv);
	for (i = 0; i < nv; i++)
		if (a->value_ids[i] >= SB_N_METRICS)
			return sb_wire_malformed(r, "aggregate column %u", a->value_ids[i]);
	return 0;
}

/* ---- the whole profile ---- */

void sb_wire_put_profile(struct sb_wire_out *w, const struct sb_profile *p)
{
	sb_wire_put_i64(w, PROFILE_BEGIN);
	sb_wire_put_i64(w, p->schema);
	sb_wire_put_str(w, p->format);
	sb_wire_put_i64(w, p->columns);
	put_regions(w, p);
	put_rows(w, p->pairs, p->n_pairs, sizeof(*p->pairs));
	put_threads(w, p);
	put_events(w, p);
	put_processes(w, p);
	put_meta(w, p);
	put_kinds(w, p);
	put_aggregate(w, &p->agg);
	sb_wire_put_i64(w, PROFILE_END);
}

/* Only the columns model.h knows. */
#define KNOWN_COLUMNS (SB_COL_METRIC(SB_N_METRICS) - 1)

static int get_head(struct sb_wire_in *r, struct sb_profile *p)
{
	int64_t begin = 0, schema = 0, columns = 0;

	if (sb_wire_get_i64(r, &begin) || sb_wire_get_i64(r, &schema) ||
	    sb_wire_get_str(r, &p->format, MAX_STR, true) || sb_wire_get_i64(r, &columns))
		return r->err;
	if (begin != PROFILE_BEGIN)
		return sb_wire_malformed(r, "no profile");
	if (schema < 1 || schema > 3)
		return sb_wire_malformed(r, "schema %lld", (long long)schema);
	if (columns < 0 || (columns & ~(int64_t)KNOWN_COLUMNS))
		return sb_wire_malformed(r, "columns %#llx", (unsigned long long)columns);
	p->schema = (int)schema;
	p->columns = (unsigned)columns;
	return 0;
}

/* What later code indexes with must point inside the tables. */
static int check_links(struct sb_wire_in *r, const struct sb_profile *p)
{
	char why[256];

	if (sb_profile_check_index(p, why, sizeof(why)) ||
	    sb_kinds_check(p, why, sizeof(why)) ||
	    sb_aggregate_check(&p->agg, sb_profile_rank_count(p), why, sizeof(why)))
		return sb_wire_malformed(r, "%s", why);
	return 0;
}

int sb_wire_get_profile(struct sb_wire_in *r, struct sb_profile *p)
{
	int64_t end = 0;

	sb_profile_init(p);
	if (!get_head(r, p) && !get_regions(r, p) &&
	    !get_rows(r, (void **)&p->pairs, &p->n_pairs, sizeof(*p->pairs), "index rows") &&
	    !get_threads(r, p) && !get_events(r, p) && !get_processes(r, p) && !get_meta(r, p) &&
	    !get_kinds(r, p) &&
	    !get_aggregate(r, &p->agg) && !sb_wire_get_i64(r, &end)) {
		if (end != PROFILE_END)
			sb_wire_malformed(r, "no end after the profile");
		else
			check_links(r, p);
	}
	if (r->err)
		sb_profile_free(p);
	return r->err;
}
