/*
 * What a traced process and scope-bpf read of each other: the descriptor a
 * marker passes to its probes, and the memory the fast path shares with the
 * recorder. Part of the marker header (scope_bpf.h includes it); the recorder
 * includes it alone, its user space and its BPF programs alike. Both layouts
 * are fixed and versioned: docs/MARKERS.md, docs/DESIGN.md.
 */
#ifndef SCOPE_BPF_ABI_H
#define SCOPE_BPF_ABI_H

/* A BPF program has these types from vmlinux.h, and no C library to include. */
#ifndef __bpf__
#include <stdint.h>
#endif

#define SCOPE_BPF_SITE_MAGIC 0x53425053u /* "SPBS" */
#define SCOPE_BPF_SITE_VERSION 1

/*
 * The static descriptor of one call site. The kernel side reads it from the
 * traced process, so its layout is fixed: 40 bytes on 64-bit, 8-aligned.
 */
struct scope_bpf_site {
	uint32_t magic;		/* SCOPE_BPF_SITE_MAGIC */
	uint16_t version;	/* SCOPE_BPF_SITE_VERSION */
	uint16_t flags;		/* 0 */
	int32_t line;		/* __LINE__ */
	uint32_t announced;	/* fast path: the recording that was told of this site */
	const char *name;	/* region name, NUL-terminated */
	const char *file;	/* __FILE__ */
	const char *tags;	/* comma-separated tags ("io,mpi"), or NULL */
};

/*
 * The fast path. The memory a process shares with its recorder: one header
 * page, SCOPE_BPF_IMPL_FAST_SLOTS thread slots, then one ring of records per
 * slot. The process makes it (a sealable memfd, "scope-bpf-fast") when a
 * marker first runs while fast_semaphore is set, and names it once through
 * the fast_ready probe; the recorder takes the descriptor with pidfd_getfd(),
 * seals its size and maps it. The layout is fixed: docs/DESIGN.md.
 */
#define SCOPE_BPF_IMPL_FAST_MAGIC 0x54534146u	/* "FAST" */
#define SCOPE_BPF_IMPL_FAST_VERSION 1
#define SCOPE_BPF_IMPL_FAST_SLOTS 256		/* threads with a ring at once */
#define SCOPE_BPF_IMPL_FAST_RING 131072		/* records per ring (2 MiB), a power of two */
#define SCOPE_BPF_IMPL_FAST_STACK 64		/* open regions a slot shows the sampler */
#define SCOPE_BPF_IMPL_FAST_END 1ull		/* bit 0 of a record's site: an end */
#define SCOPE_BPF_IMPL_PAGE 4096ull

enum scope_bpf_impl_clock {
	SCOPE_BPF_IMPL_CLOCK_TSC = 1,		/* x86-64 rdtsc, the kernel's clocksource */
	SCOPE_BPF_IMPL_CLOCK_CNTVCT = 2,	/* arm64 virtual counter */
	SCOPE_BPF_IMPL_CLOCK_MONO = 3		/* clock_gettime(CLOCK_MONOTONIC) in ns */
};

struct scope_bpf_impl_fast_hdr {
	uint32_t magic;		/* SCOPE_BPF_IMPL_FAST_MAGIC */
	uint32_t version;	/* SCOPE_BPF_IMPL_FAST_VERSION */
	uint32_t pid;		/* the process that made it */
	uint32_t clock;		/* enum scope_bpf_impl_clock of every record */
	uint32_t slots;		/* SCOPE_BPF_IMPL_FAST_SLOTS */
	uint32_t ring;		/* SCOPE_BPF_IMPL_FAST_RING */
	uint32_t stack;		/* SCOPE_BPF_IMPL_FAST_STACK */
	uint32_t gen;		/* the recording sites are announced to: set anew by each recorder */
	uint64_t size;		/* bytes */
	uint64_t unslotted;	/* threads that found no free slot: they took the kernel path */
};

struct scope_bpf_impl_fast_rec {
	uint64_t time;		/* in hdr->clock's units */
	uint64_t site;		/* the descriptor's address | SCOPE_BPF_IMPL_FAST_END */
};

struct scope_bpf_impl_fast_slot {
	/* Written by its thread, the only writer once it has claimed the slot. */
	uint32_t tid;		/* owner; 0: free. Claimed with a CAS, freed by the recorder */
	uint32_t depth;		/* regions open */
	uint64_t head;		/* records written, ever: the next goes to ring[head % RING] */
	uint64_t dropped;	/* records not written because the ring was full */
	uint64_t spare[5];
	/* Written by the recorder: how far it has read. Never read back by the recorder. */
	uint64_t tail __attribute__((aligned(64)));
	uint64_t spare2[7];
	uint64_t stack[SCOPE_BPF_IMPL_FAST_STACK];	/* open regions' sites, outermost first */
};

#define SCOPE_BPF_IMPL_FAST_SLOTS_AT SCOPE_BPF_IMPL_PAGE
#define SCOPE_BPF_IMPL_FAST_RINGS_AT							\
	((SCOPE_BPF_IMPL_FAST_SLOTS_AT +						\
	  SCOPE_BPF_IMPL_FAST_SLOTS * sizeof(struct scope_bpf_impl_fast_slot) +		\
	  SCOPE_BPF_IMPL_PAGE - 1) & ~(SCOPE_BPF_IMPL_PAGE - 1))
#define SCOPE_BPF_IMPL_FAST_SIZE							\
	(SCOPE_BPF_IMPL_FAST_RINGS_AT + (uint64_t)SCOPE_BPF_IMPL_FAST_SLOTS *		\
	 SCOPE_BPF_IMPL_FAST_RING * sizeof(struct scope_bpf_impl_fast_rec))

#endif /* SCOPE_BPF_ABI_H */
