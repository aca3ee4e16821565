/* The model through a pipe: put by a reader child, got back by its parent, every length checked. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/h5cuda.h"
#include "io/h5samples.h"
#include "io/profile_wire.h"
#include "model/index_rules.h"

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

/* Wait until the pipe has bytes or its end, for at most the timeout. */
static int wait_readable(struct sb_wire_in *r)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	int64_t deadline = now_ms() + r->timeout_ms, left;
	int k;

	for (;;) {
		left = deadline - now_ms();
		k = poll(&pfd, 1, left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left);
		if (k > 0)
			return 0;
		if (k == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
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

static void put_samples(struct sb_wire_out *w, const struct sb_samples *s)
{
	const struct sb_frame_sym *f;
	size_t i;

	sb_wire_put_i64(w, (int64_t)s->n_frames);
	for (i = 0; i < s->n_frames; i++) {
		f = &s->frames[i];
		sb_wire_put_str(w, f->function);
		sb_wire_put_str(w, f->file);
		sb_wire_put_i64(w, f->line);
		sb_wire_put_str(w, f->module);
		sb_wire_put_i64(w, (int64_t)f->offset);
		sb_wire_put_i64(w, f->inlined);
	}
	put_rows(w, s->stack_frames, s->n_stack_frames, sizeof(*s->stack_frames));
	/* Field by field: the struct's tail padding is nobody's data. */
	sb_wire_put_i64(w, (int64_t)s->n_stacks);
	for (i = 0; i < s->n_stacks; i++) {
		sb_wire_put_i64(w, (int64_t)s->stacks[i].first);
		sb_wire_put_i64(w, s->stacks[i].depth);
	}
	put_paths(w, s->paths, s->n_paths);
	put_rows(w, s->samples, s->n_samples, sizeof(*s->samples));
	put_rows(w, s->timeline, s->n_timeline, sizeof(*s->timeline));
}

static int get_frames(struct sb_wire_in *r, struct sb_samples *s)
{
	struct sb_frame_sym *f;
	int64_t offset = 0, inlined = 0;
	size_t i, n;

	if (get_count(r, 48, "frames", &n))
		return r->err;
	s->frames = alloc_rows(r, n, sizeof(*s->frames), false);
	for (i = 0; i < n && !r->err; i++) {
		f = &s->frames[i];
		s->n_frames++;
		sb_wire_get_str(r, &f->function, MAX_STR, false);
		sb_wire_get_str(r, &f->file, MAX_STR, false);
		sb_wire_get_i64(r, &f->line);
		sb_wire_get_str(r, &f->module, MAX_STR, false);
		sb_wire_get_i64(r, &offset);
		sb_wire_get_i64(r, &inlined);
		f->offset = (uint64_t)offset;
		f->inlined = inlined != 0;
	}
	return r->err;
}

static int get_stacks(struct sb_wire_in *r, struct sb_samples *s)
{
	int64_t first = 0, depth = 0;
	size_t i, n;

	if (get_count(r, 16, "stacks", &n))
		return r->err;
	s->stacks = alloc_rows(r, n, sizeof(*s->stacks), false);
	for (i = 0; i < n && !r->err; i++) {
		sb_wire_get_i64(r, &first);
		sb_wire_get_i64(r, &depth);
		if (!r->err && (depth < 0 || depth > UINT32_MAX))
			return sb_wire_malformed(r, "stack %zu: depth %lld", i, (long long)depth);
		s->stacks[i] = (struct sb_stack){ (uint64_t)first, (uint32_t)depth };
		s->n_stacks++;
	}
	return r->err;
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

static int get_samples(struct sb_wire_in *r, struct sb_samples *s)
{
	if (get_frames(r, s) ||
	    get_rows(r, (void **)&s->stack_frames, &s->n_stack_frames, sizeof(*s->stack_frames),
		     "stack frames") ||
	    get_stacks(r, s) || get_paths(r, &s->paths, &s->n_paths))
		return r->err;
	if (get_rows(r, (void **)&s->samples, &s->n_samples, sizeof(*s->samples), "samples"))
		return r->err;
	return get_rows(r, (void **)&s->timeline, &s->n_timeline, sizeof(*s->timeline),
			"timed samples");
}

static void put_cuda(struct sb_wire_out *w, const struct sb_cuda_data *d)
{
	size_t i;

	put_rows(w, d->acts, d->n_acts, sizeof(*d->acts));
	sb_wire_put_i64(w, (int64_t)d->n_names);
	for (i = 0; i < d->n_names; i++)
		sb_wire_put_str(w, d->names[i]);
}

static int get_cuda(struct sb_wire_in *r, struct sb_cuda_data *d)
{
	size_t i, n;

	if (get_rows(r, (void **)&d->acts, &d->n_acts, sizeof(*d->acts), "CUDA activities") ||
	    get_count(r, 8, "kernel names", &n))
		return r->err;
	d->names = alloc_rows(r, n, sizeof(*d->names), false);
	for (i = 0; i < n && !r->err; i++) {
		d->n_names++;
		sb_wire_get_str(r, &d->names[i], MAX_STR, false);
	}
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
	put_samples(w, &p->samples);
	put_cuda(w, &p->cuda);
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
	    sb_h5_check_samples(p, why, sizeof(why)) || sb_h5_check_cuda(p, why, sizeof(why)) ||
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
	    !get_samples(r, &p->samples) && !get_cuda(r, &p->cuda) &&
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
