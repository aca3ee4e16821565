/* The Chrome trace's CUDA part: a lane per device and stream, flows from each launch to its work. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/chrome_trace.h"
#include "model/cuda.h"
#include "util/demangle.h"

int sb_cuda_trace_init(struct sb_cuda_trace *g, const struct sb_profile *p)
{
	const struct sb_cuda_data *d = &p->cuda;
	size_t i;
	char *s;

	*g = (struct sb_cuda_trace){ .p = p };
	for (i = 0; i < d->n_acts; i++)
		if (sb_cuda_on_gpu(d->acts[i].kind) && sb_gpu_lanes_add(&g->lanes, &d->acts[i]))
			return -ENOMEM;
	g->names = calloc(d->n_names ? d->n_names : 1, sizeof(*g->names));
	if (!g->names)
		return -ENOMEM;
	for (i = 0; i < d->n_names; i++) {
		s = sb_demangle(d->names[i]);
		g->names[i] = sb_json_quote(s ? s : d->names[i] ? d->names[i] : "");
		free(s);
		if (!g->names[i])
			return -ENOMEM;
	}
	return 0;
}

void sb_cuda_trace_free(struct sb_cuda_trace *g)
{
	size_t i;

	for (i = 0; g->names && i < g->p->cuda.n_names; i++)
		free(g->names[i]);
	free(g->names);
	sb_gpu_lanes_free(&g->lanes);
}

/* origin moved back to the earliest CUDA activity or launch before it. */
static int64_t trace_origin(const struct sb_profile *p, int64_t origin)
{
	const struct sb_cuda_activity *a;
	size_t i;

	for (i = 0; i < p->cuda.n_acts; i++) {
		a = &p->cuda.acts[i];
		if (a->start < origin)
			origin = a->start;
		if (sb_cuda_on_gpu(a->kind) && a->launch_start >= 0 && a->launch_start < origin)
			origin = a->launch_start;
	}
	return origin;
}

static int64_t lane_tid(size_t lane)
{
	return SB_TRACE_GPU_TID + (int64_t)lane;
}

static void put_names(const void *state, struct sb_trace_out *t)
{
	const struct sb_cuda_trace *g = state;
	const struct sb_gpu_lane *l;
	char name[64];
	size_t i;

	for (i = 0; i < g->lanes.n; i++) {
		l = &g->lanes.at[i];
		snprintf(name, sizeof(name), "GPU %lld stream %lld", (long long)l->device,
			 (long long)l->stream);
		sb_trace_meta(t, "thread_name", l->rank, lane_tid(i), "name");
		sb_out_json(&t->o, name);
		sb_out_str(&t->o, "}}");
		/* After the rank's host threads, whose sort index is their thread row. */
		sb_trace_meta(t, "thread_sort_index", l->rank, lane_tid(i), "sort_index");
		sb_out_i64(&t->o, lane_tid(i));
		sb_out_str(&t->o, "}}");
	}
}

/* " 4 MiB", " 512 B", " 1.5 GiB"; nothing when the size is unknown. */
static void format_bytes(char *buf, size_t n, int64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 0) {
		buf[0] = '\0';
		return;
	}
	if (bytes < 1024) {
		snprintf(buf, n, " %lld B", (long long)bytes);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, " %.4g %s", v, units[u]);
}

/* CUpti_ActivitySynchronizationType. */
static const char *sync_kind(int64_t type)
{
	static const char *const kinds[] = {
		"synchronize", "synchronize event", "stream wait event", "synchronize stream",
		"synchronize context",
	};

	return type > 0 && type < (int64_t)(sizeof(kinds) / sizeof(kinds[0])) ? kinds[type] :
										 kinds[0];
}

/* "memcpy HtoD 4 MiB", "memset 512 B": what a copy or memset did, for its slice's name. */
static void transfer_name(char *buf, size_t n, const struct sb_cuda_activity *a)
{
	const char *ck = sb_cuda_copy_kind(a->copy_kind);
	char size[32];

	format_bytes(size, sizeof(size), a->bytes);
	if (a->kind == SB_CUDA_ACT_MEMSET)
		snprintf(buf, n, "memset%s", size);
	else
		snprintf(buf, n, "memcpy%s%s%s", ck ? " " : "", ck ? ck : "", size);
}

static void put_name(const struct sb_cuda_trace *g, struct sb_trace_out *t,
		     const struct sb_cuda_activity *a)
{
	const char *call;
	char buf[64];

	switch (a->kind) {
	case SB_CUDA_ACT_KERNEL:
		if (a->name >= 0 && (size_t)a->name < g->p->cuda.n_names)
			sb_out_str(&t->o, g->names[a->name]);
		else
			sb_out_str(&t->o, "\"kernel\"");
		return;
	case SB_CUDA_ACT_MEMCPY:
	case SB_CUDA_ACT_MEMSET:
		transfer_name(buf, sizeof(buf), a);
		sb_out_json(&t->o, buf);
		return;
	case SB_CUDA_ACT_RUNTIME:
	case SB_CUDA_ACT_DRIVER:
		call = sb_cuda_api_name(a->kind, a->detail);
		sb_out_json(&t->o, call ? call : a->kind == SB_CUDA_ACT_RUNTIME ?
			    "CUDA runtime call" : "CUDA driver call");
		return;
	default:
		sb_out_json(&t->o, sync_kind(a->detail));
	}
}

static void put_key(struct sb_out *o, const char *key, int64_t v)
{
	sb_out_str(o, key);
	sb_out_i64(o, v);
}

static void put_dim3(struct sb_out *o, const char *key, const int32_t *d)
{
	sb_out_str(o, key);
	sb_out_char(o, '[');
	sb_out_i64(o, d[0]);
	sb_out_char(o, ',');
	sb_out_i64(o, d[1]);
	sb_out_char(o, ',');
	sb_out_i64(o, d[2]);
	sb_out_char(o, ']');
}

/* A complete event from start to end; args are left open, empty, for the caller. */
static void put_slice(const struct sb_cuda_trace *g, struct sb_trace_out *t,
		      const struct sb_cuda_activity *a, int64_t tid, const char *cat)
{
	sb_trace_begin(t, 'X', a->rank, tid);
	sb_out_str(&t->o, ",\"ts\":");
	sb_trace_ts(t, a->start);
	sb_out_str(&t->o, ",\"dur\":");
	sb_out_us(&t->o, a->end > a->start ? (uint64_t)a->end - (uint64_t)a->start : 0);
	sb_out_str(&t->o, ",\"name\":");
	put_name(g, t, a);
	sb_out_str(&t->o, ",\"cat\":\"");
	sb_out_str(&t->o, cat);
	/* Per-call values outside "args", as the region calls' (chrome_trace.c): speedscope aggregates. */
	sb_out_str(&t->o, "\",\"call\":{");
	put_key(&t->o, "\"correlation\":", a->correlation);
	if (sb_cuda_on_gpu(a->kind) && a->call_id >= 0)
		put_key(&t->o, ",\"call_id\":", a->call_id);
	sb_out_str(&t->o, "},\"args\":{");
}

/* What GPU work did and which region call launched it. */
static void put_gpu_args(const struct sb_cuda_trace *g, struct sb_out *o,
			 const struct sb_cuda_activity *a)
{
	const struct sb_profile *p = g->p;
	const char *ck = sb_cuda_copy_kind(a->copy_kind);

	put_key(o, "\"device\":", a->device);
	put_key(o, ",\"stream\":", a->stream);
	if (a->kind == SB_CUDA_ACT_KERNEL) {
		put_dim3(o, ",\"grid\":", a->grid);
		put_dim3(o, ",\"block\":", a->block);
	}
	if (a->bytes >= 0)
		put_key(o, ",\"bytes\":", a->bytes);
	if (ck) {
		sb_out_str(o, ",\"copy\":\"");
		sb_out_str(o, ck);
		sb_out_char(o, '"');
	}
	if (a->kind == SB_CUDA_ACT_MEMSET && a->detail >= 0)
		put_key(o, ",\"value\":", a->detail);
	if (a->pair >= 0 && (uint64_t)a->pair < p->n_pairs) {
		sb_out_str(o, ",\"region\":");
		sb_out_json(o, p->regions[p->pairs[a->pair].region].name);
	}
}

/* The middle of [start, end]: inside the slice, so the flow binds to it and not a neighbour. */
static int64_t middle(int64_t start, int64_t end)
{
	return end > start ? start + (end - start) / 2 : start;
}

static void put_flow(struct sb_trace_out *t, char ph, uint32_t rank, int64_t tid, int64_t ts,
		     uint64_t id)
{
	sb_trace_begin(t, ph, rank, tid);
	sb_out_str(&t->o, ph == 'f' ? ",\"bp\":\"e\",\"ts\":" : ",\"ts\":");
	sb_trace_ts(t, ts);
	sb_out_str(&t->o, ",\"name\":\"launch\",\"cat\":\"cuda\",\"id\":");
	sb_out_i64(&t->o, (int64_t)id);
	sb_out_char(&t->o, '}');
}

static void put_gpu(const struct sb_cuda_trace *g, struct sb_trace_out *t, size_t i,
		    int64_t host)
{
	const struct sb_cuda_activity *a = &g->p->cuda.acts[i];
	int64_t tid = lane_tid((size_t)sb_gpu_lane_of(&g->lanes, a));
	static const char *const cats[] = { "", "kernel", "memcpy", "memset" };

	put_slice(g, t, a, tid, cats[a->kind]);
	put_gpu_args(g, &t->o, a);
	sb_out_str(&t->o, "}}");
	if (host < 0 || a->launch_start < 0)
		return;
	/* The activity's index names the flow: unique in the file, the same in every export. */
	put_flow(t, 's', a->rank, host, middle(a->launch_start, a->launch_end), i + 1);
	put_flow(t, 'f', a->rank, tid, middle(a->start, a->end), i + 1);
}

static void put_host(const struct sb_cuda_trace *g, struct sb_trace_out *t,
		     const struct sb_cuda_activity *a, int64_t host)
{
	put_slice(g, t, a, host, "cuda");
	sb_out_str(&t->o, a->kind == SB_CUDA_ACT_SYNC ? "\"api\":\"sync\"" :
		   a->kind == SB_CUDA_ACT_DRIVER ? "\"api\":\"driver\"" : "\"api\":\"runtime\"");
	if (a->kind == SB_CUDA_ACT_SYNC) {
		put_key(&t->o, ",\"stream\":", a->stream);
	} else if (a->detail >= 0) {
		put_key(&t->o, ",\"cbid\":", a->detail);
	}
	sb_out_str(&t->o, "}}");
}

static void put_events(const void *state, struct sb_trace_out *t, sb_trace_host_tid host_tid,
		       void *ctx)
{
	const struct sb_cuda_trace *g = state;
	const struct sb_cuda_activity *a;
	int64_t host;
	size_t i;

	for (i = 0; i < g->p->cuda.n_acts; i++) {
		a = &g->p->cuda.acts[i];
		host = a->thread >= 0 ? host_tid(ctx, a->rank, a->thread) : -1;
		if (sb_cuda_on_gpu(a->kind))
			put_gpu(g, t, i, host);
		else if (a->kind >= SB_CUDA_ACT_RUNTIME && a->kind <= SB_CUDA_ACT_SYNC && host >= 0)
			put_host(g, t, a, host);
	}
}

static int view_init(void **state, const struct sb_profile *p)
{
	struct sb_cuda_trace *g = calloc(1, sizeof(*g));

	*state = g;
	return g ? sb_cuda_trace_init(g, p) : -ENOMEM;
}

static void view_release(void *state)
{
	if (state)
		sb_cuda_trace_free(state);
	free(state);
}

const struct sb_trace_kind_view sb_cuda_trace_view = {
	.kind = &sb_cuda_kind,
	.origin = trace_origin,
	.init = view_init,
	.names = put_names,
	.events = put_events,
	.release = view_release,
};
