/*
 * OpenMP regions (libgomp), shared by bpf/omp.bpf.h and the omp source in
 * user/record/sources/: the probes' attach cookies, the regions they open,
 * the record that names a region. docs/OPENMP.md.
 */
#ifndef SB_OMP_H
#define SB_OMP_H

/*
 * The regions first (their names in user/record/sources/omp_names.c's
 * order), then what a probe may be on without being a region of its own.
 * A probe's attach cookie is one of these | an outlined body's file offset << 8.
 */
enum sb_omp_op {
	SB_OMP_PARALLEL,	/* GOMP_parallel*: fork to join, on the encountering thread */
	SB_OMP_TEAMS,		/* GOMP_teams_reg: the same for host teams */
	SB_OMP_IMPLICIT_TASK,	/* an outlined parallel body, on every thread of the team */
	SB_OMP_TASK,		/* an outlined task body, on the thread that runs it */
	SB_OMP_JOIN,		/* the encountering thread, its body done, waits for the team */
	SB_OMP_BARRIER,		/* GOMP_barrier and the ends of worksharing constructs */
	SB_OMP_TASKWAIT,	/* GOMP_taskwait* */
	SB_OMP_CRITICAL,	/* GOMP_critical_start, GOMP_critical_name_start: waiting */
	SB_OMP_N_REGIONS,
	/* Probe only: GOMP_task, GOMP_taskloop*: their first argument is a task body. */
	SB_OMP_SPAWN = SB_OMP_N_REGIONS,
	/* Probe only: an outlined body; IMPLICIT_TASK or TASK by what started it. */
	SB_OMP_BODY,
};

#define SB_OMP_OP_MASK 0xffu
#define SB_OMP_OFFSET_SHIFT 8
/* A frame's site: the tag | its probe's cookie, never a descriptor address (user space). */
#define SB_OMP_SITE_TAG (1ULL << 63)
#define SB_OMP_SEED 0x6f6d702d72656773ULL	/* "omp-regs": OpenMP name hashes */
#define SB_OMP_MAX_BODIES 16384		/* outlined bodies started and not yet forgotten */

/* A region's name hash: a constant per kind, named once per recording by struct sb_omp_event. */
static inline __u64 sb_omp_name_hash(__u32 op)
{
	return (SB_OMP_SEED ^ op) * 0x100000001b3ULL;
}

/* The first use of a region kind in this recording. */
struct sb_omp_event {
	__u32 type;
	__u32 op;		/* enum sb_omp_op, < SB_OMP_N_REGIONS */
	__u64 name_hash;
};

#endif
