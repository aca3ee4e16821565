/*
 * The recorder's side of one process on the fast path: its nesting state,
 * and each image's (exec) adopted memory with that image's sites and clock.
 */
#ifndef SB_FAST_PROC_H
#define SB_FAST_PROC_H

#include <stdbool.h>
#include <stdint.h>

#include "record/fast/clock.h"
#include "record/fast/layout.h"
#include "record/fast/shm.h"
#include "record/fast/sites.h"
#include "util/hashmap.h"

struct sb_fast_nest;
struct fast_proc;

struct fast_image {
	struct fast_proc *proc;
	struct sb_fast_mem *mem;
	uint64_t hdr_addr;			/* where the process mapped it */
	struct sb_fast_clock clock;
	struct sb_fast_sites sites;		/* descriptor address -> name hash, over time */
	uint32_t slot_tid[SCOPE_BPF_IMPL_FAST_SLOTS];	/* the tid the sampler knows per slot */
	uint32_t named_late;			/* sites read from the process, not announced */
	bool closing;				/* exec'd or exited: drained once more, then closed */
	bool closed;
	struct fast_image *next;		/* the process's images, newest first */
};

struct fast_proc {
	uint32_t tgid;
	struct sb_fast_nest *nest;
	struct fast_image *images;		/* images[0] is the current one */
	uint64_t unknown_sites;			/* records naming a site the kernel never named */
	uint64_t bad_site_calls;		/* calls whose begin names an invalid descriptor */
	struct sb_fast_mem_stats closed;	/* its images' memories, summed as each is closed */
	bool capped;				/* one of them counted more than it could have */
	uint64_t invalid;			/* records not used, all kinds: at detach */
	struct fast_proc *next;
};

#endif
