/*
 * The Perfetto export's CPU samples: each timed sample a perf sample packet
 * on its thread, its callstack interned once (region path outermost, then
 * the user frames, then the kernel's), as Perfetto's own CPU profiler writes
 * them: the UI shows them on the thread's track and as flame graphs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/samples_report.h"
#include "export/perfetto.h"

/* What a sample's frames are: its stacks and region path. */
struct pf_cs {
	int64_t ustack, kstack, path;
};

struct pf_samples {
	struct pf_out *w;
	const struct sb_profile *p;
	const struct sb_samples *s;
	struct sb_fnames names;
	const char **modules;	/* mapping paths, sorted, unique */
	size_t n_modules;
	uint32_t *module_of;	/* per frame: its mapping */
	struct pf_cs *stacks;	/* of the timeline, sorted, unique: callstack iid = index + 1 */
	size_t n_stacks;
	uint32_t seq;
};

static const char REGION_MODULE[] = "[region]";

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_cs(const void *a, const void *b)
{
	const struct pf_cs *x = a, *y = b;

	if (x->ustack != y->ustack)
		return x->ustack < y->ustack ? -1 : 1;
	if (x->kstack != y->kstack)
		return x->kstack < y->kstack ? -1 : 1;
	return (x->path > y->path) - (x->path < y->path);
}

/* A frame's mapping path; the kernel's as perf names it. */
static const char *module_name(const struct sb_frame_sym *f)
{
	if (sb_frame_is_kernel(f))
		return "[kernel.kallsyms]";
	return f->module && f->module[0] ? f->module : "[unknown]";
}

static int find_modules(struct pf_samples *x)
{
	const struct sb_samples *s = x->s;
	const char **at;
	size_t i, n = 0;

	x->modules = malloc((s->n_frames + 1) * sizeof(*x->modules));
	x->module_of = malloc((s->n_frames ? s->n_frames : 1) * sizeof(*x->module_of));
	if (!x->modules || !x->module_of)
		return -ENOMEM;
	x->modules[n++] = REGION_MODULE;
	for (i = 0; i < s->n_frames; i++)
		x->modules[n++] = module_name(&s->frames[i]);
	qsort(x->modules, n, sizeof(*x->modules), cmp_str);
	for (i = 0; i < n; i++)
		if (!x->n_modules || strcmp(x->modules[i], x->modules[x->n_modules - 1]))
			x->modules[x->n_modules++] = x->modules[i];
	for (i = 0; i < s->n_frames; i++) {
		const char *m = module_name(&s->frames[i]);

		at = bsearch(&m, x->modules, x->n_modules, sizeof(*x->modules), cmp_str);
		x->module_of[i] = (uint32_t)(at - x->modules);
	}
	return 0;
}

static int find_stacks(struct pf_samples *x)
{
	const struct sb_samples *s = x->s;
	size_t i, n = 0;

	x->stacks = malloc(s->n_timeline * sizeof(*x->stacks));
	if (!x->stacks)
		return -ENOMEM;
	for (i = 0; i < s->n_timeline; i++)
		x->stacks[i] = (struct pf_cs){ s->timeline[i].ustack, s->timeline[i].kstack,
					       s->timeline[i].path };
	qsort(x->stacks, s->n_timeline, sizeof(*x->stacks), cmp_cs);
	for (i = 0; i < s->n_timeline; i++)
		if (!n || cmp_cs(&x->stacks[i], &x->stacks[n - 1]))
			x->stacks[n++] = x->stacks[i];
	x->n_stacks = n;
	return 0;
}

/* Frame iids: the profile's frames 1..F, then the region paths, then "[no stack]". */
static uint64_t path_frame(const struct pf_samples *x, int64_t path)
{
	return x->s->n_frames + 1 + (uint64_t)path;
}

static uint64_t no_stack_frame(const struct pf_samples *x)
{
	return x->s->n_frames + x->s->n_paths + 1;
}

/* Stack id's frames, outermost first, after out[n]; the markers' own frames fold away. */
static size_t add_stack(const struct pf_samples *x, int64_t id, uint64_t *out, size_t n)
{
	const struct sb_stack *st;
	uint32_t frame, d;

	if (id < 0)
		return n;
	st = &x->s->stacks[id];
	for (d = st->depth; d > 0; d--) {
		frame = x->s->stack_frames[st->first + d - 1];
		if (!x->names.helper[x->names.of_frame[frame]])
			out[n++] = frame + 1;
	}
	return n;
}

static size_t stack_depth(const struct sb_samples *s, int64_t id)
{
	return id < 0 ? 0 : s->stacks[id].depth;
}

/* Callstack c's frame iids into a malloc'd *out; their number, or 0 without memory. */
static size_t callstack(const struct pf_samples *x, const struct pf_cs *c, uint64_t **out)
{
	size_t depth = sb_region_path_names(x->s, c->path, NULL, 0), n;
	uint64_t *v;
	int64_t q;

	v = malloc((depth + stack_depth(x->s, c->ustack) + stack_depth(x->s, c->kstack) + 1) *
		   sizeof(*v));
	if (!v)
		return 0;
	n = depth;
	for (q = c->path; q >= 0; q = x->s->paths[q].parent)
		v[--n] = path_frame(x, q);
	n = add_stack(x, c->ustack, v, depth);
	n = add_stack(x, c->kstack, v, n);
	if (!n)
		v[n++] = no_stack_frame(x);
	*out = v;
	return n;
}

/* Everything interned, in one packet that starts the sequence. */
struct pf_interned {
	Perfetto__Protos__InternedString *strs, **fn, **paths;
	Perfetto__Protos__Mapping *maps, **mp;
	uint64_t *path_ids;
	Perfetto__Protos__Frame *frames, **fr;
	Perfetto__Protos__Callstack *stacks, **cs;
	size_t n_fn, n_fr;
};

static void str_at(Perfetto__Protos__InternedString *v, uint64_t iid, const char *s)
{
	*v = (Perfetto__Protos__InternedString)PERFETTO__PROTOS__INTERNED_STRING__INIT;
	v->has_iid = v->has_str = true;
	v->iid = iid;
	v->str.data = (uint8_t *)s;
	v->str.len = strlen(s);
}

static void frame_at(Perfetto__Protos__Frame *v, uint64_t iid, uint64_t fn, uint64_t map,
		     uint64_t pc)
{
	*v = (Perfetto__Protos__Frame)PERFETTO__PROTOS__FRAME__INIT;
	v->has_iid = v->has_function_name_id = v->has_mapping_id = v->has_rel_pc = true;
	v->iid = iid;
	v->function_name_id = fn;
	v->mapping_id = map;
	v->rel_pc = pc;
}

/* Function names: iid = function id + 1 ("[no stack]" last), then the region paths' names. */
static int intern_names(struct pf_samples *x, struct pf_interned *in)
{
	const struct sb_samples *s = x->s;
	size_t i, n_fn = x->names.n_real + 1;

	in->n_fn = n_fn + s->n_paths;
	in->strs = malloc((in->n_fn + x->n_modules) * sizeof(*in->strs));
	in->fn = malloc((in->n_fn + x->n_modules) * sizeof(*in->fn));
	if (!in->strs || !in->fn)
		return -ENOMEM;
	for (i = 0; i < n_fn; i++)
		str_at(&in->strs[i], i + 1, x->names.names[i]);
	for (i = 0; i < s->n_paths; i++)
		str_at(&in->strs[n_fn + i], n_fn + i + 1, s->paths[i].name);
	for (i = 0; i < x->n_modules; i++)
		str_at(&in->strs[in->n_fn + i], i + 1, x->modules[i]);
	for (i = 0; i < in->n_fn + x->n_modules; i++)
		in->fn[i] = &in->strs[i];
	in->paths = in->fn + in->n_fn;
	return 0;
}

/* A mapping per path, iids alike. */
static int intern_mappings(struct pf_samples *x, struct pf_interned *in)
{
	size_t i;

	in->maps = malloc(x->n_modules * sizeof(*in->maps));
	in->mp = malloc(x->n_modules * sizeof(*in->mp));
	in->path_ids = malloc(x->n_modules * sizeof(*in->path_ids));
	if (!in->maps || !in->mp || !in->path_ids)
		return -ENOMEM;
	for (i = 0; i < x->n_modules; i++) {
		in->maps[i] = (Perfetto__Protos__Mapping)PERFETTO__PROTOS__MAPPING__INIT;
		in->maps[i].has_iid = true;
		in->maps[i].iid = i + 1;
		in->path_ids[i] = i + 1;
		in->maps[i].n_path_string_ids = 1;
		in->maps[i].path_string_ids = &in->path_ids[i];
		in->mp[i] = &in->maps[i];
	}
	return 0;
}

static int intern_frames(struct pf_samples *x, struct pf_interned *in)
{
	const struct sb_samples *s = x->s;
	const char *region = REGION_MODULE, **at;
	uint64_t map;
	size_t i;

	at = bsearch(&region, x->modules, x->n_modules, sizeof(*x->modules), cmp_str);
	map = (uint64_t)(at - x->modules) + 1;
	in->n_fr = s->n_frames + s->n_paths + 1;
	in->frames = malloc(in->n_fr * sizeof(*in->frames));
	in->fr = malloc(in->n_fr * sizeof(*in->fr));
	if (!in->frames || !in->fr)
		return -ENOMEM;
	for (i = 0; i < s->n_frames; i++)
		frame_at(&in->frames[i], i + 1, x->names.of_frame[i] + 1, x->module_of[i] + 1,
			 s->frames[i].offset);
	for (i = 0; i < s->n_paths; i++)
		frame_at(&in->frames[s->n_frames + i], path_frame(x, (int64_t)i),
			 x->names.n_real + 2 + i, map, 0);
	frame_at(&in->frames[in->n_fr - 1], no_stack_frame(x), x->names.n_real + 1, map, 0);
	for (i = 0; i < in->n_fr; i++)
		in->fr[i] = &in->frames[i];
	return 0;
}

static int intern_stacks(struct pf_samples *x, struct pf_interned *in)
{
	size_t i;

	in->stacks = calloc(x->n_stacks ? x->n_stacks : 1, sizeof(*in->stacks));
	in->cs = malloc((x->n_stacks ? x->n_stacks : 1) * sizeof(*in->cs));
	if (!in->stacks || !in->cs)
		return -ENOMEM;
	for (i = 0; i < x->n_stacks; i++) {
		in->stacks[i] = (Perfetto__Protos__Callstack)PERFETTO__PROTOS__CALLSTACK__INIT;
		in->stacks[i].has_iid = true;
		in->stacks[i].iid = i + 1;
		in->stacks[i].n_frame_ids = callstack(x, &x->stacks[i], &in->stacks[i].frame_ids);
		if (!in->stacks[i].n_frame_ids)
			return -ENOMEM;
		in->cs[i] = &in->stacks[i];
	}
	return 0;
}

static void interned_free(struct pf_interned *in, size_t n_stacks)
{
	size_t i;

	for (i = 0; in->stacks && i < n_stacks; i++)
		free(in->stacks[i].frame_ids);
	free(in->strs);
	free(in->fn);
	free(in->maps);
	free(in->mp);
	free(in->path_ids);
	free(in->frames);
	free(in->fr);
	free(in->stacks);
	free(in->cs);
}

static int put_interned(struct pf_samples *x)
{
	Perfetto__Protos__TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__InternedData data = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	struct pf_interned in = { 0 };
	int r;

	r = intern_names(x, &in);
	r = r ? r : intern_mappings(x, &in);
	r = r ? r : intern_frames(x, &in);
	r = r ? r : intern_stacks(x, &in);
	if (!r) {
		data.n_function_names = in.n_fn;
		data.function_names = in.fn;
		data.n_mapping_paths = data.n_mappings = x->n_modules;
		data.mapping_paths = in.paths;
		data.mappings = in.mp;
		data.n_frames = in.n_fr;
		data.frames = in.fr;
		data.n_callstacks = x->n_stacks;
		data.callstacks = in.cs;
		pk.has_trusted_packet_sequence_id = pk.has_sequence_flags = true;
		pk.trusted_packet_sequence_id = x->seq;
		pk.sequence_flags =
			PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
		pk.interned_data = &data;
		pf_packet(x->w, &pk);
	}
	interned_free(&in, x->n_stacks);
	return r ? r : x->w->err;
}

/* A sample on its thread; its packet's time on CLOCK_MONOTONIC, the profile's clock. */
static void put_sample(struct pf_samples *x, const struct sb_timed_sample *t, int32_t tid)
{
	Perfetto__Protos__TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__PerfSample ps = PERFETTO__PROTOS__PERF_SAMPLE__INIT;
	struct pf_cs key = { t->ustack, t->kstack, t->path };
	const struct pf_cs *at;

	at = bsearch(&key, x->stacks, x->n_stacks, sizeof(key), cmp_cs);
	ps.has_cpu = ps.has_pid = ps.has_tid = ps.has_callstack_iid = true;
	ps.cpu = t->cpu;
	ps.pid = t->rank + 1;
	ps.tid = (uint32_t)tid;
	ps.callstack_iid = (uint64_t)(at - x->stacks) + 1;
	pk.has_timestamp = pk.has_timestamp_clock_id = true;
	pk.timestamp = (uint64_t)t->time;
	pk.timestamp_clock_id = PF_CLOCK_MONOTONIC;
	pk.has_trusted_packet_sequence_id = pk.has_sequence_flags = true;
	pk.trusted_packet_sequence_id = x->seq;
	pk.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
	pk.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_PERF_SAMPLE;
	pk.perf_sample = &ps;
	pf_packet(x->w, &pk);
}

int pf_samples_export(const struct pf_kind_ctx *c)
{
	struct pf_samples x = { .w = c->w, .p = c->p, .s = &c->p->samples };
	const struct sb_timed_sample *t;
	const struct sb_xthread *th;
	size_t i;
	int r;

	if (!x.s->n_timeline)
		return 0;
	x.seq = c->w->next_seq++;
	r = sb_fnames_build(&x.names, x.s);
	r = r ? r : find_modules(&x);
	r = r ? r : find_stacks(&x);
	r = r ? r : put_interned(&x);
	for (i = 0; i < x.s->n_timeline && !r; i++) {
		t = &x.s->timeline[i];
		/* Perfetto places a sample by its thread: one the profile does not know has none. */
		th = sb_xthreads_find(c->threads, t->rank, t->thread);
		if (th && t->time >= 0)
			put_sample(&x, t, c->tids[th - c->threads->v]);
	}
	sb_fnames_free(&x.names);
	free(x.modules);
	free(x.module_of);
	free(x.stacks);
	return r ? r : c->w->err;
}
