/* What the OTF2 exporter's files share: the archive being written and the profile's mapping. */
#ifndef SB_OTF2_IMPL_H
#define SB_OTF2_IMPL_H

#include <otf2/otf2.h>

#include "analysis/mpi.h"
#include "export/export.h"
#include "util/hashmap.h"

/* What a region's calls write beside their enter and leave (otf2_mpi.c). */
enum sb_otf2_mpi {
	SB_OTF2_PLAIN,		/* nothing */
	SB_OTF2_SEND,		/* MpiSend after the enter */
	SB_OTF2_RECV,		/* MpiRecv before the leave */
	SB_OTF2_COLLECTIVE,	/* MpiCollectiveBegin after the enter, End before the leave */
};

/* Which way a collective moves its bytes, for its sent and received sizes. */
enum sb_otf2_flow { SB_OTF2_ALL2ALL, SB_OTF2_ONE2ALL, SB_OTF2_ALL2ONE };

/* One region of the profile as the archive has it. */
struct sb_otf2_region {
	OTF2_RegionRef ref;	/* MPI calls share one region per operation (MPI_Send) */
	int32_t mpi_name;	/* that operation's name in sb_otf2.mpi_names; -1: no MPI call */
	OTF2_RegionRole role;
	uint8_t mpi;		/* enum sb_otf2_mpi */
	uint8_t flow;		/* enum sb_otf2_flow */
	OTF2_CollectiveOp op;
	uint32_t peer;		/* index in the world communicator: sends, receives */
	uint32_t root;		/* likewise; OTF2_UNDEFINED_UINT32 when none */
	int64_t root_rank;	/* the root as the name gives it; -1 when none */
	uint32_t tag;
	uint64_t bytes;		/* 0 when unknown */
};

#define SB_OTF2_NAME_LEN SB_MPI_FN_MAX

/* Metric classes: the counters of record -e, and off-CPU time. */
enum { SB_OTF2_COUNTERS, SB_OTF2_OFFCPU, SB_OTF2_N_CLASSES };
#define SB_OTF2_MAX_MEMBERS SB_COUNTER_SLOTS

/* One metric class the profile has: its members are metric columns. */
struct sb_otf2_class {
	unsigned n;		/* members; 0: the profile lacks the class */
	OTF2_MetricRef ref;	/* the classes the profile has, numbered from 0 */
	unsigned col[SB_OTF2_MAX_MEMBERS];
};

/* One open call on a location. */
struct sb_otf2_frame {
	const struct sb_event *e;
	uint32_t region;
	uint64_t at_enter[SB_OTF2_N_CLASSES][SB_OTF2_MAX_MEMBERS];
};

/*
 * Where a kind's locations, location groups and system tree nodes start:
 * after the threads', the ranks' and the host's, and the kinds' before it.
 * As a count: how many a kind adds.
 */
struct sb_otf2_base {
	uint32_t loc;
	uint32_t group;
	uint32_t node;
};

/* One location: a thread of a rank. */
struct sb_otf2_loc {
	const struct sb_xthread *x;
	OTF2_EvtWriter *w;
	uint64_t n_events;
	struct sb_otf2_frame *stack;	/* the calls open now, outermost first */
	size_t depth, cap;
	uint64_t value[SB_OTF2_N_CLASSES][SB_OTF2_MAX_MEMBERS];	/* accumulated so far */
};

struct sb_otf2 {
	const struct sb_profile *p;
	OTF2_Archive *archive;
	struct sb_error *err;
	struct sb_xthreads threads;
	struct sb_otf2_loc *locs;	/* by location ref, as threads */
	struct sb_otf2_region *regions;	/* by profile region */
	uint32_t n_region_refs;
	char (*mpi_names)[SB_OTF2_NAME_LEN];	/* MPI_Send, MPI_Bcast, ... */
	uint32_t *ranks;		/* the ranks with a location, ascending: world's group */
	size_t n_ranks;
	bool world;			/* some call writes an MPI event */
	struct sb_otf2_class classes[SB_OTF2_N_CLASSES];
	void **kind_state;		/* by sb_otf2_kinds: each kind's own */
	struct sb_otf2_base *kind_at;	/* by sb_otf2_kinds, and one past: where each starts */
	uint64_t skipped;		/* calls that do not nest, GPU work that overlaps its lane's */
	int64_t first, last;		/* the earliest and latest time of any call */
};

#define SB_OTF2_WORLD 0		/* the one communicator */
#define SB_OTF2_BYTES 0		/* the one attribute: the bytes a copy or memset wrote */

/* The global definitions being written (otf2_defs.c): the writer and the strings so far. */
struct sb_otf2_defs {
	struct sb_otf2 *c;
	OTF2_GlobalDefWriter *w;
	OTF2_StringRef next;		/* the next string's ref */
	struct sb_hashmap seen;		/* (hash, length) of a shared string -> its ref */
	const char **texts;		/* by ref: each shared string, to confirm a hit */
	size_t cap;
};

/* A new string definition of s, its ref into *ref. */
int sb_otf2_str(struct sb_otf2_defs *d, const char *s, OTF2_StringRef *ref);
/* The string s (which outlives d), which many definitions name, defined once. */
int sb_otf2_str_shared(struct sb_otf2_defs *d, const char *s, OTF2_StringRef *ref);
/* A string of the writer's own making. */
int sb_otf2_str_fmt(struct sb_otf2_defs *d, OTF2_StringRef *ref, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A kind of data's part of the archive, after the calls' (export/otf2_kinds.c);
 * NULL: no such part. map: its state, from c->p: its regions' refs from
 * c->n_region_refs on (moved past them), c->first and c->last widened to its
 * times, what it leaves out added to c->skipped, and into *n how many
 * locations, location groups and system tree nodes it adds; 0 or -ENOMEM.
 * events: its locations' events, at at's refs on. system, locations,
 * regions: its global definitions of each sort, after the calls' (the
 * definitions' refs come in order). release: its state, also after map
 * failed, and NULL where map did not run.
 */
struct sb_otf2_kind {
	const struct sb_kind *kind;
	int (*map)(struct sb_otf2 *c, void **state, struct sb_otf2_base *n);
	int (*events)(struct sb_otf2 *c, void *state, const struct sb_otf2_base *at);
	int (*system)(struct sb_otf2_defs *d, const void *state, const struct sb_otf2_base *at);
	int (*locations)(struct sb_otf2_defs *d, const void *state,
			 const struct sb_otf2_base *at);
	int (*regions)(struct sb_otf2_defs *d, const void *state);
	void (*release)(void *state);
};

/* GPU work on a location per stream (otf2_cuda.c). */
extern const struct sb_otf2_kind sb_otf2_cuda_kind;

/* Every kind's part, in the archive's order (otf2_kinds.c). */
extern const struct sb_otf2_kind *const sb_otf2_kinds[];
extern const size_t sb_otf2_n_kinds;

/* The index of rank in c->ranks, or OTF2_UNDEFINED_UINT32. */
uint32_t sb_otf2_rank_index(const struct sb_otf2 *c, int64_t rank);

/* c->regions from the profile's regions: MPI names parsed, refs assigned. 0 or -ENOMEM. */
int sb_otf2_map_regions(struct sb_otf2 *c);

/* Every global definition, after the events (their counts go into the locations). */
int sb_otf2_write_defs(struct sb_otf2 *c);

/* -EIO with the library's message (or what) in c->err when r is an error. */
int sb_otf2_check(struct sb_otf2 *c, OTF2_ErrorCode r, const char *what);

#endif
