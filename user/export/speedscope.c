/*
 * speedscope export: one evented profile per (rank, thread), regions as
 * shared frames; then the sampled stacks, one sampled profile per (rank,
 * thread, kind).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "export/export.h"
#include "export/speedscope_kinds.h"
#include "export/speedscope_samples.h"
#include "util/version.h"

#define SCHEMA "https://www.speedscope.app/file-format-schema.json"

struct open_call {
	int64_t end;
	uint32_t frame;
};

struct speedscope {
	struct sb_out o;
	const struct sb_profile *p;
	struct sb_xthreads threads;
	struct sb_walk walk;
	void **kinds;		/* each kind's view's state, parallel to sb_ss_kind_views */
	struct open_call *stack;
	size_t depth;
	size_t cap;
	int64_t origin;
	uint64_t skipped;
	bool events;		/* the profile open has events: the next needs a comma */
};

static void put_at(struct speedscope *s, char type, uint32_t frame, int64_t t)
{
	sb_out_str(&s->o, s->events ? ",\n{\"type\":\"" : "\n{\"type\":\"");
	sb_out_char(&s->o, type);
	sb_out_str(&s->o, "\",\"frame\":");
	s->events = true;
	sb_out_i64(&s->o, frame);
	sb_out_str(&s->o, ",\"at\":");
	sb_out_i64(&s->o, t - s->origin);
	sb_out_char(&s->o, '}');
}

static void close_until(struct speedscope *s, int64_t until)
{
	struct open_call *c;

	while (s->depth && s->stack[s->depth - 1].end <= until) {
		c = &s->stack[--s->depth];
		put_at(s, 'C', c->frame, c->end);
	}
}

static int push(struct speedscope *s, const struct sb_event *e, uint32_t frame)
{
	struct open_call *q;

	if (s->depth == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		q = realloc(s->stack, s->cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		s->stack = q;
	}
	s->stack[s->depth++] = (struct open_call){ e->end, frame };
	put_at(s, 'O', frame, e->start);
	return 0;
}

static int put_frames(struct speedscope *s)
{
	const struct sb_region *r;
	size_t i;

	sb_out_str(&s->o, "\"shared\":{\"frames\":[");
	for (i = 0; i < s->p->n_regions; i++) {
		r = &s->p->regions[i];
		sb_out_str(&s->o, i ? ",\n{\"name\":" : "\n{\"name\":");
		sb_out_json(&s->o, r->name);
		if (r->source_file[0]) {
			sb_out_str(&s->o, ",\"file\":");
			sb_out_json(&s->o, r->source_file);
		}
		if (r->source_line >= 0) {
			sb_out_str(&s->o, ",\"line\":");
			sb_out_i64(&s->o, r->source_line);
		}
		sb_out_char(&s->o, '}');
	}
	for (i = 0; i < sb_ss_n_kind_views; i++)
		if (sb_ss_kind_views[i]->frames && sb_ss_kind_views[i]->frames(s->kinds[i], &s->o))
			return -ENOMEM;
	sb_out_str(&s->o, "]},\n");
	return 0;
}

static int put_profile_head(struct speedscope *s, const struct sb_xthread *x, bool first)
{
	char *name = sb_ss_thread_name(x, x->rank, x->thread);

	if (!name)
		return -ENOMEM;
	sb_out_str(&s->o, first ? "{\"type\":\"evented\",\"name\":" :
				  ",\n{\"type\":\"evented\",\"name\":");
	sb_out_json(&s->o, name);
	free(name);
	sb_out_str(&s->o, ",\"unit\":\"nanoseconds\",\"startValue\":");
	sb_out_i64(&s->o, x->first_start - s->origin);
	sb_out_str(&s->o, ",\"endValue\":");
	sb_out_i64(&s->o, x->last_end - s->origin);
	sb_out_str(&s->o, ",\"events\":[");
	s->events = false;
	return 0;
}

/*
 * One thread's calls as open/close events. speedscope rejects a close that is
 * not for the innermost open frame, so a call that overlaps its caller
 * without nesting, or starts before the previous one (unsorted input), is
 * left out and counted.
 */
static int put_thread(struct speedscope *s, const struct sb_xthread *x, bool first)
{
	const struct sb_event *e;
	int64_t last_start = INT64_MIN;
	uint32_t pair;
	int r;

	r = put_profile_head(s, x, first);
	if (r)
		return r;
	s->depth = 0;
	sb_walk_start(&s->walk, x->rank, x->thread);
	while ((e = sb_walk_next(&s->walk, &pair))) {
		close_until(s, e->start);
		if (e->start < last_start || (s->depth && e->end > s->stack[s->depth - 1].end)) {
			s->skipped++;
			continue;
		}
		last_start = e->start;
		r = push(s, e, s->p->pairs[pair].region);
		if (r)
			return r;
	}
	close_until(s, INT64_MAX);
	sb_out_str(&s->o, "]}");
	return 0;
}

/* A name for the whole file: the recording's label or command, else a default. */
static const char *file_name(const struct sb_profile *p)
{
	const struct sb_meta *m = sb_profile_meta(p, "label");

	if (!m || m->is_int || !m->s || !m->s[0])
		m = sb_profile_meta(p, "command");
	if (!m || m->is_int || !m->s || !m->s[0])
		return "scope-bpf profile";
	return m->s;
}

static int put_profiles(struct speedscope *s)
{
	bool first = true;
	size_t i;
	int r;

	sb_out_str(&s->o, "\"profiles\":[\n");
	for (i = 0; i < s->threads.n; i++) {
		if (!s->threads.v[i].calls)
			continue;
		r = put_thread(s, &s->threads.v[i], first);
		if (r)
			return r;
		first = false;
	}
	for (i = 0; i < sb_ss_n_kind_views; i++) {
		if (!sb_ss_kind_views[i]->profiles)
			continue;
		r = sb_ss_kind_views[i]->profiles(s->kinds[i], &s->o, &s->threads, &first);
		if (r)
			return r;
	}
	sb_out_str(&s->o, "\n]}\n");
	return 0;
}

/* Each kind's view's state; their frames follow the regions', in the views' order. */
static int init_kinds(struct speedscope *s)
{
	uint32_t next_frame = (uint32_t)s->p->n_regions;
	const struct sb_ss_kind_view *v;
	size_t i;
	int r = 0;

	s->kinds = calloc(sb_ss_n_kind_views + 1, sizeof(*s->kinds));
	if (!s->kinds)
		return -ENOMEM;
	for (i = 0; i < sb_ss_n_kind_views && !r; i++) {
		v = sb_ss_kind_views[i];
		if (v->init)
			r = v->init(&s->kinds[i], s->p, &next_frame);
	}
	return r;
}

static void release_kinds(struct speedscope *s)
{
	size_t i;

	for (i = 0; s->kinds && i < sb_ss_n_kind_views; i++)
		if (sb_ss_kind_views[i]->release)
			sb_ss_kind_views[i]->release(s->kinds[i]);
	free(s->kinds);
}

int sb_export_speedscope(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	struct speedscope s = { .p = p };
	int r;

	r = sb_export_need_events(p, err);
	if (r)
		return r;
	s.origin = sb_export_origin(p);
	r = sb_xthreads_build(&s.threads, p);
	if (!r)
		r = sb_walk_init(&s.walk, p);
	if (!r)
		r = init_kinds(&s);
	if (!r) {
		sb_out_init(&s.o, f);
		sb_out_str(&s.o, "{\"$schema\":\"" SCHEMA "\",\n\"exporter\":\"scope-bpf@"
			   SCOPE_BPF_VERSION "\",\"name\":");
		sb_out_json(&s.o, file_name(p));
		sb_out_str(&s.o, ",\"activeProfileIndex\":0,\n");
		r = put_frames(&s);
		if (!r)
			r = put_profiles(&s);
		sb_out_flush(&s.o);
	}
	free(s.stack);
	release_kinds(&s);
	sb_walk_free(&s.walk);
	sb_xthreads_free(&s.threads);
	if (r)
		return sb_fail(err, r, "speedscope: out of memory");
	return s.skipped > INT_MAX ? INT_MAX : (int)s.skipped;
}
