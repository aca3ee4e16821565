/* What the exporters share: the thread list, the nesting-order walk, tags and buffered output. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/text_format.h"
#include "util/hashmap.h"

/* ---- threads ---- */

static int cmp_xthread(const void *a, const void *b)
{
	const struct sb_xthread *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

/* The row of (rank, thread), added when new; NULL without memory. */
static struct sb_xthread *xthread_slot(struct sb_xthreads *t, struct sb_hashmap *m,
				       size_t *cap, uint32_t rank, int64_t thread)
{
	uint64_t *v = sb_hashmap_get(m, rank, (uint64_t)thread);
	struct sb_xthread *q;

	if (v)
		return &t->v[*v];
	if (t->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		q = realloc(t->v, *cap * sizeof(*q));
		if (!q)
			return NULL;
		t->v = q;
	}
	if (sb_hashmap_put(m, rank, (uint64_t)thread, t->n))
		return NULL;
	q = &t->v[t->n++];
	*q = (struct sb_xthread){ .rank = rank, .thread = thread, .tid = -1, .name = "",
				  .first_start = INT64_MAX, .last_end = INT64_MIN };
	return q;
}

static int add_calls(struct sb_xthreads *t, struct sb_hashmap *m, size_t *cap,
		     const struct sb_profile *p)
{
	struct sb_xthread *x = NULL;
	const struct sb_event *e;
	size_t i;
	uint64_t k;

	for (i = 0; i < p->n_pairs; i++) {
		x = NULL;
		for (k = 0; k < p->pairs[i].count; k++) {
			e = &p->events[p->pairs[i].offset + k];
			/* A pair's calls mostly share a thread: skip the lookup then. */
			if (!x || x->thread != sb_event_thread(p, e)) {
				x = xthread_slot(t, m, cap, p->pairs[i].rank,
						 sb_event_thread(p, e));
				if (!x)
					return -ENOMEM;
			}
			x->calls++;
			if (e->start < x->first_start)
				x->first_start = e->start;
			if (e->end > x->last_end)
				x->last_end = e->end;
		}
	}
	return 0;
}

int sb_xthreads_build(struct sb_xthreads *t, const struct sb_profile *p)
{
	const struct sb_thread *row;
	struct sb_xthread *x;
	struct sb_hashmap m;
	size_t i, cap = 0;
	int r = 0;

	t->v = NULL;
	t->n = 0;
	sb_hashmap_init(&m);
	for (i = 0; i < p->n_threads && !r; i++) {
		row = &p->threads[i];
		x = xthread_slot(t, &m, &cap, row->rank, row->index);
		if (!x) {
			r = -ENOMEM;
		} else if (x->tid < 0) {
			x->tid = row->tid > 0 ? row->tid : -1;
			x->name = row->name ? row->name : "";
		}
	}
	if (!r && p->events)
		r = add_calls(t, &m, &cap, p);
	sb_hashmap_free(&m);
	if (r) {
		sb_xthreads_free(t);
		return r;
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_xthread);
	return 0;
}

const struct sb_xthread *sb_xthreads_find(const struct sb_xthreads *t, uint32_t rank,
					  int64_t thread)
{
	struct sb_xthread key = { .rank = rank, .thread = thread };

	if (!t->n)
		return NULL;
	return bsearch(&key, t->v, t->n, sizeof(*t->v), cmp_xthread);
}

void sb_xthreads_free(struct sb_xthreads *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* ---- the walk ---- */

static int cmp_pair_rank(const void *a, const void *b, void *arg)
{
	const struct sb_profile *p = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (p->pairs[x].rank != p->pairs[y].rank)
		return p->pairs[x].rank < p->pairs[y].rank ? -1 : 1;
	return (x > y) - (x < y);
}

int sb_walk_init(struct sb_walk *w, const struct sb_profile *p)
{
	size_t n = p->n_pairs ? p->n_pairs : 1, i;

	*w = (struct sb_walk){ .p = p };
	w->by_rank = malloc(n * sizeof(*w->by_rank));
	w->heap = malloc(n * sizeof(*w->heap));
	if (!w->by_rank || !w->heap) {
		sb_walk_free(w);
		return -ENOMEM;
	}
	for (i = 0; i < p->n_pairs; i++)
		w->by_rank[i] = (uint32_t)i;
	qsort_r(w->by_rank, p->n_pairs, sizeof(*w->by_rank), cmp_pair_rank, (void *)p);
	return 0;
}

void sb_walk_free(struct sb_walk *w)
{
	free(w->by_rank);
	free(w->heap);
	w->by_rank = NULL;
	w->heap = NULL;
	w->n = 0;
}

/* Whether cursor a's next call comes before b's. */
static bool walk_before(const struct sb_walk *w, const struct sb_walk_cursor *a,
			const struct sb_walk_cursor *b)
{
	const struct sb_event *x = &w->p->events[a->next], *y = &w->p->events[b->next];

	if (x->start != y->start)
		return x->start < y->start;
	if (x->end != y->end)
		return x->end > y->end;
	if ((w->p->columns & SB_COL_CALL_ID) && x->call_id != y->call_id)
		return x->call_id < y->call_id;
	return a->pair < b->pair;
}

static void sift_down(struct sb_walk *w, size_t i)
{
	struct sb_walk_cursor tmp;
	size_t c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= w->n)
			return;
		if (c + 1 < w->n && walk_before(w, &w->heap[c + 1], &w->heap[c]))
			c++;
		if (!walk_before(w, &w->heap[c], &w->heap[i]))
			return;
		tmp = w->heap[i];
		w->heap[i] = w->heap[c];
		w->heap[c] = tmp;
		i = c;
	}
}

/* Move c to its next call on the walked thread; false when the pair has none left. */
static bool cursor_skip(const struct sb_walk *w, struct sb_walk_cursor *c)
{
	if (w->thread != SB_WALK_ALL)
		while (c->next < c->end &&
		       sb_event_thread(w->p, &w->p->events[c->next]) != w->thread)
			c->next++;
	return c->next < c->end;
}

void sb_walk_start(struct sb_walk *w, uint32_t rank, int64_t thread)
{
	const struct sb_pair *q;
	size_t lo = 0, hi = w->p->n_pairs, mid, i;

	w->thread = thread;
	w->n = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (w->p->pairs[w->by_rank[mid]].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < w->p->n_pairs; i++) {
		q = &w->p->pairs[w->by_rank[i]];
		if (q->rank != rank)
			break;
		w->heap[w->n] = (struct sb_walk_cursor){ q->offset, q->offset + q->count,
							  w->by_rank[i] };
		if (cursor_skip(w, &w->heap[w->n]))
			w->n++;
	}
	for (i = w->n / 2; i-- > 0;)
		sift_down(w, i);
}

const struct sb_event *sb_walk_next(struct sb_walk *w, uint32_t *pair)
{
	struct sb_walk_cursor *top = &w->heap[0];
	const struct sb_event *e;

	if (!w->n)
		return NULL;
	e = &w->p->events[top->next];
	*pair = top->pair;
	top->next++;
	if (!cursor_skip(w, top))
		*top = w->heap[--w->n];
	sift_down(w, 0);
	return e;
}

/* ---- tags ---- */

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static int hex4(const char *s, unsigned *v)
{
	unsigned i, d;

	*v = 0;
	for (i = 0; i < 4; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'f')
			d = (s[i] | 0x20) - 'a' + 10;
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | (cp >> 12 & 0x3f));
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/* \uXXXX at s (after the backslash), a surrogate pair taken whole; NULL if malformed. */
static const char *unicode_escape(const char *s, char **o)
{
	unsigned cp, lo;

	if (hex4(s + 1, &cp))
		return NULL;
	s += 5;
	if (cp >= 0xd800 && cp < 0xdc00 && s[0] == '\\' && s[1] == 'u' && !hex4(s + 2, &lo) &&
	    lo >= 0xdc00 && lo < 0xe000) {
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		s += 6;
	} else if ((cp >= 0xd800 && cp < 0xe000) || !cp) {
		/* A lone surrogate or a NUL cannot live in a C string. */
		cp = 0xfffd;
	}
	*o = put_utf8(*o, cp);
	return s;
}

/* Decode the JSON string at s (at its quote) into o; the end past the quote, or NULL. */
static const char *json_unquote(const char *s, char *o)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	const char *c;

	if (*s++ != '"')
		return NULL;
	while (*s != '"') {
		if (!*s || (unsigned char)*s < 0x20)
			return NULL;
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		s++;
		if (*s == 'u') {
			s = unicode_escape(s, &o);
			if (!s)
				return NULL;
			continue;
		}
		c = *s ? strchr(esc_in, *s) : NULL;
		if (!c)
			return NULL;
		*o++ = esc_out[c - esc_in];
		s++;
	}
	*o = '\0';
	return s + 1;
}

static int tags_push(char ***tags, size_t *n, const char *s)
{
	char **q = realloc(*tags, (*n + 1) * sizeof(*q));

	if (!q)
		return -ENOMEM;
	*tags = q;
	q[*n] = strdup(s);
	if (!q[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* 1 when json is a list of strings (parsed into tags), 0 when it is not, or -ENOMEM. */
static int tags_list(const char *json, char ***tags, size_t *n)
{
	const char *s = skip_ws(json);
	char *buf;
	int r = 1;

	if (*s++ != '[')
		return 0;
	s = skip_ws(s);
	if (*s == ']')
		return !*skip_ws(s + 1);
	/* Decoding never makes a string longer. */
	buf = malloc(strlen(json) + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		s = json_unquote(s, buf);
		if (!s || (r = tags_push(tags, n, buf)) < 0)
			break;
		s = skip_ws(s);
		if (*s == ']') {
			s = skip_ws(s + 1);
			break;
		}
		if (*s != ',') {
			s = NULL;
			break;
		}
		s = skip_ws(s + 1);
	}
	free(buf);
	if (r < 0)
		return r;
	return s && !*s;
}

int sb_tags_parse(const char *json, char ***tags, size_t *n)
{
	int r;

	*tags = NULL;
	*n = 0;
	if (!json || !*json)
		return 0;
	r = tags_list(json, tags, n);
	if (r == 1)
		return 0;
	sb_tags_free(*tags, *n);
	*tags = NULL;
	*n = 0;
	if (r < 0)
		return r;
	return tags_push(tags, n, json);
}

void sb_tags_free(char **tags, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(tags[i]);
	free(tags);
}

/* ---- small helpers ---- */

char *sb_json_quote(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	format_json_string(f, s ? s : "");
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int sb_export_need_events(const struct sb_profile *p, struct sb_error *err)
{
	if (p->n_events && !p->events)
		return sb_fail(err, EINVAL, "the profile's calls are not loaded");
	return 0;
}

int64_t sb_export_origin(const struct sb_profile *p)
{
	const struct sb_meta *m = sb_profile_meta(p, "start_time_ns");
	int64_t origin = INT64_MAX;
	size_t i;

	if (m && m->is_int)
		origin = m->i;
	for (i = 0; p->events && i < p->n_events; i++)
		if (p->events[i].start < origin)
			origin = p->events[i].start;
	return origin == INT64_MAX ? 0 : origin;
}

const char *sb_export_rank_command(const struct sb_profile *p, uint32_t rank)
{
	const struct sb_meta *m = sb_profile_meta(p, "command");
	size_t i;

	for (i = 0; i < p->n_processes; i++)
		if (p->processes[i].rank == (int64_t)rank && p->processes[i].command &&
		    p->processes[i].command[0])
			return p->processes[i].command;
	/* The launched command names the only rank; with several it may be a launcher. */
	if (m && !m->is_int && m->s && sb_profile_rank_count(p) <= 1)
		return m->s;
	return "";
}

void sb_out_flush(struct sb_out *o)
{
	if (o->n)
		fwrite(o->buf, 1, o->n, o->f);
	o->n = 0;
}

static void out_u64(struct sb_out *o, uint64_t v, bool neg)
{
	char buf[24];
	char *s = buf + sizeof(buf);

	do {
		*--s = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--s = '-';
	sb_out_mem(o, s, (size_t)(buf + sizeof(buf) - s));
}

void sb_out_i64(struct sb_out *o, int64_t v)
{
	/* Negating in uint64_t keeps INT64_MIN exact. */
	if (v < 0)
		out_u64(o, -(uint64_t)v, true);
	else
		out_u64(o, (uint64_t)v, false);
}

void sb_out_us(struct sb_out *o, uint64_t ns)
{
	char frac[4] = { '.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10),
			 (char)('0' + ns % 10) };

	out_u64(o, ns / 1000, false);
	sb_out_mem(o, frac, sizeof(frac));
}

void sb_out_json(struct sb_out *o, const char *s)
{
	const char *c;

	/* Plain printable ASCII needs no escaping: copy it without the FILE detour. */
	for (c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f || *c == '"' ||
		    *c == '\\')
			break;
	if (!*c) {
		sb_out_char(o, '"');
		sb_out_mem(o, s, (size_t)(c - s));
		sb_out_char(o, '"');
		return;
	}
	sb_out_flush(o);
	format_json_string(o->f, s);
}

void sb_out_meta_members(struct sb_out *o, const struct sb_profile *p, bool first)
{
	const struct sb_meta *m;
	size_t i;

	for (i = 0; i < p->n_meta; i++) {
		m = &p->meta[i];
		if (!first)
			sb_out_char(o, ',');
		first = false;
		sb_out_json(o, m->key);
		sb_out_char(o, ':');
		if (m->is_int)
			sb_out_i64(o, m->i);
		else
			sb_out_json(o, m->s ? m->s : "");
	}
}
