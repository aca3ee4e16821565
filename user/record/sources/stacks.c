/*
 * The stack table. The counting happens in region.bpf.c (samples and blocked
 * time per thread, stacks and region path, aggregated in maps); the sources
 * that take stacks read their maps through here, which symbolizes each stack
 * once and interns its frames into the model. The sampler's timed samples
 * become the timeline here too, naming the same stacks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/maps.h"
#include "record/sources/sample_log.h"
#include "record/sources/sources.h"
#include "record/sources/stacks.h"
#include "record/span_claim.h"
#include "record/symbols/symbolize.h"
#include "region.h"
#include "region.skel.h"

#define MAX_INLINE 16			/* frames one address may expand to */
#define KERNEL_TGID (1ULL << 32)	/* stack-table key space of kernel stacks */

/* What one read of an aggregation map needs besides the table. */
struct builder {
	struct sb_stacks *st;
	struct sb_collector *c;
	struct sb_samples *out;
	int stacks_fd;
	struct sb_span_point *places;	/* timeline rows' threads and times, to place them */
};

static uint64_t mix_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL;
}

static uint64_t frame_key(const struct sb_frame_sym *f)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = mix_str(h, f->function);
	h = mix_str(h, f->file);
	h = mix_str(h, f->module);
	h = (h ^ (uint64_t)f->line) * 0x100000001b3ULL;
	h = (h ^ f->offset) * 0x100000001b3ULL;
	return (h ^ f->inlined) * 0x100000001b3ULL;
}

static int64_t intern_frame(struct builder *b, const struct sb_frame_sym *f)
{
	uint64_t key = frame_key(f), *id = sb_hashmap_get(&b->st->frame_of, key, 0);
	struct sb_samples *o = b->out;
	struct sb_frame_sym *frames, *n;

	if (id)
		return (int64_t)*id;
	frames = realloc(o->frames, (o->n_frames + 1) * sizeof(*frames));
	if (!frames)
		return -ENOMEM;
	o->frames = frames;
	n = &frames[o->n_frames];
	*n = *f;
	n->function = strdup(f->function ? f->function : "");
	n->file = strdup(f->file ? f->file : "");
	n->module = strdup(f->module ? f->module : "");
	if (!n->function || !n->file || !n->module) {
		free(n->function);
		free(n->file);
		free(n->module);
		return -ENOMEM;
	}
	if (sb_hashmap_put(&b->st->frame_of, key, 0, o->n_frames))
		return -ENOMEM;
	return (int64_t)o->n_frames++;
}

static int push_frame(struct builder *b, uint32_t id)
{
	struct sb_samples *o = b->out;
	uint32_t *ids;

	if (o->n_stack_frames % 1024 == 0) {
		ids = realloc(o->stack_frames, (o->n_stack_frames + 1024) * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		o->stack_frames = ids;
	}
	o->stack_frames[o->n_stack_frames++] = id;
	return 0;
}

/* Symbolize one address into frames and append them (innermost first). */
static int push_address(struct builder *b, uint32_t tgid, bool kernel, uint64_t ip, bool ret_addr)
{
	struct sb_frame_sym frames[MAX_INLINE];
	int n, i;
	int64_t id;

	n = kernel ? sb_sym_kernel(b->st->sym, ret_addr ? ip - 1 : ip, frames) :
		     sb_sym_user(b->st->sym, tgid, ip, ret_addr, frames, MAX_INLINE);
	if (n <= 0)
		return n < 0 ? n : 0;
	for (i = 0; i < n; i++) {
		id = intern_frame(b, &frames[i]);
		if (id < 0 || push_frame(b, (uint32_t)id))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A kernel stack taken at a context switch starts inside our own program and
 * the tracepoint that ran it: how many such leading frames to leave out.
 */
static int tracing_frames(struct builder *b, const uint64_t *ips)
{
	static const char *const prefixes[] = { "bpf_prog_", "bpf_trace_run", "__bpf_trace_",
						"__traceiter_" };
	struct sb_frame_sym f;
	size_t j;
	int i;

	for (i = 0; i < SB_MAX_STACK_DEPTH && ips[i]; i++) {
		if (sb_sym_kernel(b->st->sym, i ? ips[i] - 1 : ips[i], &f) != 1)
			break;
		for (j = 0; j < sizeof(prefixes) / sizeof(prefixes[0]); j++)
			if (!strncmp(f.function, prefixes[j], strlen(prefixes[j])))
				break;
		if (j == sizeof(prefixes) / sizeof(prefixes[0]))
			break;
	}
	return i < SB_MAX_STACK_DEPTH && ips[i] ? i : 0;
}

/*
 * The model id of the stack the kernel keeps under key, as seen by process
 * tgid; -1 when the kernel kept none (no stack, or no room: counted there),
 * or when memory ran out (the sample then simply has no stack).
 */
static int64_t stack_id(struct builder *b, uint32_t tgid, bool kernel, uint64_t key)
{
	uint64_t space = kernel ? KERNEL_TGID : tgid, *known, ips[SB_MAX_STACK_DEPTH];
	struct sb_samples *o = b->out;
	struct sb_stack *stacks;
	uint64_t first = o->n_stack_frames;
	int i, ret;

	if (!key)
		return -1;
	known = sb_hashmap_get(&b->st->stack_of, space, key);
	if (known)
		return (int64_t)*known;
	_Static_assert(sizeof(ips) == sizeof(struct sb_stack_ips), "the stacks map's value");
	memset(ips, 0, sizeof(ips));
	if (bpf_map_lookup_elem(b->stacks_fd, &key, ips))
		return -1;
	i = kernel ? tracing_frames(b, ips) : 0;
	for (; i < SB_MAX_STACK_DEPTH && ips[i]; i++) {
		/* Every frame but the leaf is a return address: the call is just before it. */
		ret = push_address(b, tgid, kernel, ips[i], i > 0);
		if (ret)
			return -1;
	}
	stacks = realloc(o->stacks, (o->n_stacks + 1) * sizeof(*stacks));
	if (!stacks)
		return -1;
	o->stacks = stacks;
	stacks[o->n_stacks].first = first;
	stacks[o->n_stacks].depth = (uint32_t)(o->n_stack_frames - first);
	if (sb_hashmap_put(&b->st->stack_of, space, key, o->n_stacks))
		return -1;
	return (int64_t)o->n_stacks++;
}

static int add_sample(struct builder *b, uint32_t kind, const struct sb_sample_key *k,
		      uint64_t count, uint64_t ns)
{
	int64_t rank = sb_collector_rank(b->c, k->tgid);
	struct sb_samples *o = b->out;
	struct sb_sample *samples, *x;

	if (rank < 0) {
		b->st->outside += count;
		return 0;
	}
	samples = realloc(o->samples, (o->n_samples + 1) * sizeof(*samples));
	if (!samples)
		return -ENOMEM;
	o->samples = samples;
	x = &samples[o->n_samples];
	*x = (struct sb_sample){
		.kind = kind, .rank = (uint32_t)rank, .count = count, .ns = ns,
		.thread = sb_collector_thread_row(b->c, k->tgid, k->tid),
		.path = sb_collector_path_id(b->c, k->path),
		.ustack = stack_id(b, k->tgid, false, k->ustack),
		.kstack = stack_id(b, k->tgid, true, k->kstack),
	};
	o->n_samples++;
	return 0;
}

int sb_stacks_read(struct sb_stacks *st, struct sb_source_env *env, int map_fd,
		   enum sb_sample_kind kind)
{
	struct builder b = { .st = st, .c = env->coll, .out = &env->coll->prof.samples,
			     .stacks_fd = bpf_map__fd(env->skel->maps.stacks) };
	struct sb_sample_key key, next, *prev = NULL;
	struct sb_offcpu_value v;
	int ret;

	while (!bpf_map_get_next_key(map_fd, prev, &next)) {
		key = next;
		prev = &key;
		/* A CPU sample's value is its count alone: ns stays 0. */
		memset(&v, 0, sizeof(v));
		if (bpf_map_lookup_elem(map_fd, &key, &v))
			continue;
		ret = add_sample(&b, kind, &key, v.count, v.ns);
		if (ret)
			return ret;
	}
	return 0;
}

/* One timed sample as a timeline row, named as its aggregate is (add_sample). */
static int add_timed(void *ctx, const struct sb_sample_event *e)
{
	struct builder *b = ctx;
	const struct sb_sample_key *k = &e->key;
	int64_t rank = sb_collector_rank(b->c, k->tgid);
	struct sb_samples *o = b->out;
	uint64_t *t;

	/* Its aggregate is left out too, and counted in samples_outside_ranks. */
	if (rank < 0)
		return 0;
	t = sb_hashmap_get(&b->c->thread_of, k->tgid, k->tid);
	b->places[o->n_timeline] = (struct sb_span_point){
		.thread = t ? *t : UINT64_MAX, .time = (int64_t)e->time, .i = o->n_timeline };
	o->timeline[o->n_timeline++] = (struct sb_timed_sample){
		.time = (int64_t)e->time, .rank = (uint32_t)rank, .cpu = e->cpu,
		.thread = sb_collector_thread_row(b->c, k->tgid, k->tid),
		.path = sb_collector_path_id(b->c, k->path),
		.ustack = stack_id(b, k->tgid, false, k->ustack),
		.kstack = stack_id(b, k->tgid, true, k->kstack),
	};
	return 0;
}

int sb_stacks_timeline(struct sb_stacks *st, struct sb_source_env *env, struct sb_sample_log *log)
{
	struct builder b = { .st = st, .c = env->coll, .out = &env->coll->prof.samples,
			     .stacks_fd = bpf_map__fd(env->skel->maps.stacks) };
	uint64_t n = sb_sample_log_count(log);
	struct sb_samples *o = b.out;
	int ret;

	if (!n)
		return 0;
	o->timeline = malloc((size_t)n * sizeof(*o->timeline));
	b.places = malloc((size_t)n * sizeof(*b.places));
	if (!o->timeline || !b.places) {
		free(o->timeline);
		free(b.places);
		o->timeline = NULL;
		return -ENOMEM;
	}
	o->n_timeline = 0;
	ret = sb_sample_log_each(log, add_timed, &b);
	if (!ret)
		ret = sb_stacks_place_by_time(st, b.c, o, b.places);
	free(b.places);
	if (ret) {
		free(o->timeline);
		o->timeline = NULL;
		o->n_timeline = 0;
		return ret;
	}
	sb_samples_sort_timeline(o);
	return 0;
}

static bool stacks_wanted(const struct record_opts *o)
{
	return o->sample_hz || o->offcpu_stacks;
}

static int stacks_configure(void *state, struct sb_source_env *env)
{
	struct sb_stacks *st = state;

	st->sym = sb_sym_new();
	if (!st->sym)
		return -ENOMEM;
	env->stacks = st;
	return 0;
}

/* Keep a process's mappings while it lives, to symbolize its stacks after it is gone. */
static int stacks_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
			  struct sb_error *err)
{
	struct sb_stacks *st = state;
	struct sb_map *maps;
	size_t n;

	(void)env;
	(void)err;
	if (ch->what == SB_PROC_FORK) {
		sb_sym_fork(st->sym, (uint32_t)ch->parent, (uint32_t)ch->pid);
		return 0;
	}
	if (sb_maps_read(ch->pid, &maps, &n))
		return 0;
	sb_sym_snapshot(st->sym, (uint32_t)ch->pid, maps, n);
	sb_maps_free(maps, n);
	return 0;
}

/* After the sources that read stacks through the table. */
static int stacks_contribute(void *state, struct sb_source_env *env)
{
	struct sb_stacks *st = state;

	struct sb_profile *p = &env->coll->prof;

	return sb_profile_set_int(p, "samples_outside_ranks", (int64_t)st->outside) ?:
	       sb_profile_set_int(p, "samples_moved_by_time", (int64_t)st->moved) ?:
	       sb_profile_set_int(p, "samples_moves_refused", (int64_t)st->refused);
}

static int stacks_losses(void *state, struct sb_source_env *env)
{
	(void)state;
	return sb_profile_set_int(&env->coll->prof, "lost_samples",
				  (int64_t)env->counters[SB_CNT_LOST_SAMPLES]) ?:
	       sb_profile_set_int(&env->coll->prof, "lost_stacks",
				  (int64_t)env->counters[SB_CNT_LOST_STACKS]);
}

static void stacks_free(void *state)
{
	struct sb_stacks *st = state;

	if (st->sym)
		sb_sym_free(st->sym);
	st->sym = NULL;
	sb_hashmap_free(&st->frame_of);
	sb_hashmap_free(&st->stack_of);
}

const struct sb_source_ops sb_stacks_source = {
	.name = "stacks",
	.state_size = sizeof(struct sb_stacks),
	.wanted = stacks_wanted,
	.configure = stacks_configure,
	.process = stacks_process,
	.contribute = stacks_contribute,
	.losses = stacks_losses,
	.free = stacks_free,
};
