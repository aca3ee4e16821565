/*
 * What the Perfetto export's parts share: perfetto.c writes the ranks,
 * threads and region calls, perfetto_gpu.c the GPU lanes, perfetto_samples.c
 * the CPU samples. Descriptors and
 * other rare packets are packed by protoc-c's code (proto/perfetto_trace.proto);
 * the slice packets, nearly all of the file, by pf_event() directly, to
 * the same field numbers (docs/EXPORTS.md says why).
 */
#ifndef SB_PERFETTO_H
#define SB_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>

#include "export/export.h"
#include "proto/perfetto_trace.pb-c.h"

/* Field numbers and values of proto/perfetto_trace.proto that pf_event() writes. */
enum {
	PF_TRACE_PACKET = 1,
	PF_PACKET_TIMESTAMP = 8,
	PF_PACKET_SEQUENCE_ID = 10,
	PF_PACKET_TRACK_EVENT = 11,
	PF_PACKET_SEQUENCE_FLAGS = 13,
	PF_EVENT_TYPE = 9,
	PF_EVENT_NAME_IID = 10,
	PF_EVENT_EXTRA_COUNTER_VALUES = 12,
	PF_SLICE_BEGIN = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN,
	PF_SLICE_END = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END,
	PF_CLOCK_MONOTONIC = 3,	/* Perfetto's BuiltinClocks: the profile's clock */
	PF_CLOCK_SEQUENCE = 64,	/* our incremental clock, one per sequence */
	PF_SEQ_DESCRIPTORS = 1,	/* the first sequence: the clock, then every track */
};

/* One packet sequence: a thread's or a lane's events, timestamps as deltas. */
struct pf_seq {
	uint32_t id;
	int64_t last_ts;	/* absolute ns of the sequence's latest timestamp */
	uint8_t *interned;	/* per name iid: already interned on this sequence */
};

struct pf_out {
	struct sb_out o;
	int64_t origin;		/* at or before every timestamp */
	uint32_t next_seq;
	uint64_t next_uuid;
	int err;		/* the first -ENOMEM */
};

/* Pack a rare packet with protoc-c's code. */
void pf_packet(struct pf_out *w, const Perfetto__Protos__TracePacket *pk);

/*
 * Start sequence s: its clock (timestamps are deltas from the previous
 * one, the first from the origin) and its defaults: the track its events
 * go to and the counter tracks their extra values are for. names: how many
 * name iids the sequence may intern (iids 1..names).
 */
int pf_seq_start(struct pf_out *w, struct pf_seq *s, uint64_t track, const uint64_t *counters,
		 size_t n_counters, size_t names);
void pf_seq_free(struct pf_seq *s);

/* Intern name as iid on s (once per sequence), in a packet of its own. */
void pf_intern(struct pf_out *w, struct pf_seq *s, uint64_t iid, const char *name);

/* A slice begin (name_iid > 0) or end at ts on s's track; vals: n counter values or NULL. */
void pf_event(struct pf_out *w, struct pf_seq *s, int64_t ts, unsigned type, uint64_t name_iid,
	      const int64_t *vals, unsigned n);

/* A track descriptor on the descriptor sequence; d's uuid is set from next_uuid. */
uint64_t pf_track(struct pf_out *w, Perfetto__Protos__TrackDescriptor *d);

/* What a kind's tracks go with: the trace so far, its ranks' process tracks and threads. */
struct pf_kind_ctx {
	struct pf_out *w;
	const struct sb_profile *p;
	const uint64_t *rank_uuid;	/* the process track of each rank below n_ranks */
	uint32_t n_ranks;
	const struct sb_xthreads *threads;
	const int32_t *tids;		/* the tid each thread's track shows, parallel to threads */
	uint64_t *skipped;		/* pieces left out, added to */
};

/*
 * A kind of data's view in the trace: its tracks, written after the ranks'
 * (nothing when the profile holds none of it). 0, -ENOMEM.
 */
struct pf_kind_view {
	const struct sb_kind *kind;
	int (*tracks)(const struct pf_kind_ctx *c);
};

/* Every kind's view, in the trace's order (export/perfetto_kinds.c). */
extern const struct pf_kind_view pf_kind_views[];
extern const size_t pf_n_kind_views;

/*
 * The timed CPU samples: a sequence of perf sample packets, each on its
 * thread (pid rank + 1 and the tid of its track), its callstack interned at
 * the sequence's start. Samples of a thread the trace lacks are left out.
 */
int pf_samples_export(const struct pf_kind_ctx *c);

/* The GPU lanes of p's CUDA activity: tracks under the ranks' process tracks, then their slices. */
int pf_gpu_export(const struct pf_kind_ctx *c);

#endif
