/*
 * What the Chrome trace's two parts share: chrome_trace.c writes the ranks,
 * threads and region calls, cuda_trace.c the GPU lanes and the CUDA calls.
 */
#ifndef SB_CHROME_TRACE_H
#define SB_CHROME_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "export/export.h"
#include "model/gpu_lanes.h"

/* The trace being written: every event goes through sb_trace_begin(). */
struct sb_trace_out {
	struct sb_out o;
	int64_t origin;		/* the absolute time of ts 0, at or before every event */
	bool started;		/* an event was written: the next needs a comma */
};

/* Start an event of phase ph on track tid of rank's process. */
void sb_trace_begin(struct sb_trace_out *t, char ph, uint32_t rank, int64_t tid);
/* ns on the profile's clock as the trace's relative microseconds. */
void sb_trace_ts(struct sb_trace_out *t, int64_t ns);
/* A metadata event up to its value: args is {"KEY":, VALUE and "}}" are the caller's. */
void sb_trace_meta(struct sb_trace_out *t, const char *name, uint32_t rank, int64_t tid,
		   const char *key);

/*
 * GPU lanes: tid SB_TRACE_GPU_TID + n for the n-th (rank, device, stream)
 * with GPU work, above every OS tid (pid_max is at most 2^22) and every
 * thread index, so a lane never shares a track with a host thread.
 */
#define SB_TRACE_GPU_TID (1LL << 30)

struct sb_cuda_trace {
	const struct sb_profile *p;
	struct sb_gpu_lanes lanes;	/* of the GPU work */
	char **names;			/* per kernel name: demangled when it can be, JSON-quoted */
};

/* The track of a host thread (rank, thread row), or -1 when the trace has none. */
typedef int64_t (*sb_trace_host_tid)(void *ctx, uint32_t rank, int64_t thread);

/* Lanes and names of p's CUDA activity: 0 or -ENOMEM. Memory: O(lanes + kernel names). */
int sb_cuda_trace_init(struct sb_cuda_trace *g, const struct sb_profile *p);
void sb_cuda_trace_free(struct sb_cuda_trace *g);

/*
 * A kind of data's view in the Chrome trace; NULL: no such part. origin: the
 * trace's origin moved back to the kind's earliest time; init: what it
 * draws, into a state of its own, 0 or -ENOMEM; names: its tracks' metadata
 * events, after the threads'; events: its events, after the calls'; release:
 * the state, also after init failed.
 */
struct sb_trace_kind_view {
	const struct sb_kind *kind;
	int64_t (*origin)(const struct sb_profile *p, int64_t origin);
	int (*init)(void **state, const struct sb_profile *p);
	void (*names)(const void *state, struct sb_trace_out *t);
	void (*events)(const void *state, struct sb_trace_out *t, sb_trace_host_tid host_tid,
		       void *ctx);
	void (*release)(void *state);
};

/*
 * CUDA activity's: GPU lanes (their thread_name and thread_sort_index
 * events); GPU work as slices on its lane with a flow from its launch on the
 * host thread; CUDA API calls and synchronizations as slices on the host
 * thread, in one pass over the activities, in the profile's order.
 */
extern const struct sb_trace_kind_view sb_cuda_trace_view;

/* Every kind's view, in the trace's order (export/trace_kinds.c). */
extern const struct sb_trace_kind_view *const sb_trace_kind_views[];
extern const size_t sb_trace_n_kind_views;

/* The traces' origin: sb_export_origin() moved back to every kind's earliest time. */
int64_t sb_trace_origin(const struct sb_profile *p);

#endif
