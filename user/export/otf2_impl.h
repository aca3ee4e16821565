/* What the OTF2 exporter's files share: the archive being written and the profile's mapping. */
#ifndef SB_OTF2_IMPL_H
#define SB_OTF2_IMPL_H

#include <otf2/otf2.h>

#include "analysis/mpi.h"
#include "export/export.h"
#include "model/gpu_lanes.h"

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

/* GPU regions past the kernel names: copies by CUpti_ActivityMemcpyKind (0: unknown), memsets, unnamed kernels. */
#define SB_OTF2_COPY_KINDS 11
#define SB_OTF2_MEMSET SB_OTF2_COPY_KINDS
#define SB_OTF2_KERNEL (SB_OTF2_COPY_KINDS + 1)
#define SB_OTF2_GPU_FIXED (SB_OTF2_COPY_KINDS + 2)

/* What the archive keeps of one GPU lane (model/gpu_lanes.h), a location after the threads. */
struct sb_otf2_lane {
	uint32_t group;		/* its accelerator location group: one per (rank, device) */
	uint32_t node;		/* its device's system tree node */
	uint64_t n_events;
};

/* The profile's GPU work as the archive has it (otf2_cuda.c). */
struct sb_otf2_gpu {
	struct sb_gpu_lanes lanes;	/* of the work placed in the archive */
	struct sb_otf2_lane *lane;	/* parallel to lanes.at */
	uint32_t n_groups;
	int64_t *devices;		/* the device ids, ascending: a system tree node each */
	uint32_t n_devices;
	size_t *work;			/* GPU activities written: by lane, then start */
	size_t n_work;
	OTF2_RegionRef *refs;		/* by kernel name, then SB_OTF2_GPU_FIXED; undefined: unused */
	size_t n_refs;
	bool bytes;			/* some work carries the bytes attribute */
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
	struct sb_otf2_gpu gpu;
	uint64_t skipped;		/* calls that do not nest, GPU work that overlaps its lane's */
	int64_t first, last;		/* the earliest and latest time of any call */
};

#define SB_OTF2_WORLD 0		/* the one communicator */
#define SB_OTF2_BYTES 0		/* the one attribute: the bytes a copy or memset wrote */

/* The index of rank in c->ranks, or OTF2_UNDEFINED_UINT32. */
uint32_t sb_otf2_rank_index(const struct sb_otf2 *c, int64_t rank);

/* c->regions from the profile's regions: MPI names parsed, refs assigned. 0 or -ENOMEM. */
int sb_otf2_map_regions(struct sb_otf2 *c);

/*
 * c->gpu from the profile's CUDA activity: lanes, the work in the order it is
 * written, its regions' refs after the profile's; c->first and c->last
 * widened to it. 0 or -ENOMEM.
 */
int sb_otf2_gpu_map(struct sb_otf2 *c);
/* Each lane's events, one writer at a time. */
int sb_otf2_gpu_write(struct sb_otf2 *c);
/* The GPU region of activity a: an index into c->gpu.refs. */
size_t sb_otf2_gpu_region(const struct sb_otf2 *c, const struct sb_cuda_activity *a);
void sb_otf2_gpu_free(struct sb_otf2_gpu *g);

/* Every global definition, after the events (their counts go into the locations). */
int sb_otf2_write_defs(struct sb_otf2 *c);

/* -EIO with the library's message (or what) in c->err when r is an error. */
int sb_otf2_check(struct sb_otf2 *c, OTF2_ErrorCode r, const char *what);

#endif
