/* Attaching the region programs to every ELF object a traced process maps that has probes. */
#ifndef SB_ATTACH_H
#define SB_ATTACH_H

#include <stdbool.h>
#include <sys/types.h>

#include "record/detach.h"
#include "util/error.h"
#include "util/hashmap.h"

struct region_bpf;
struct sb_kernel;
struct bpf_link;
struct sb_guardian;

struct sb_attach {
	struct sb_kernel *kernel;	/* the programs, by name */
	struct region_bpf *skel;	/* the core: the guardian's lease */
	struct sb_hashmap files;	/* (dev, inode) -> 1: looked at once, never again */
	struct sb_detach held;		/* the links, and what they opened (detach.h) */
	struct sb_detach fast_held;	/* the fast path's: let go first, under the release lock */
	struct sb_guardian *guardian;
	int probe_files;		/* objects with scope_bpf probes attached so far */
	int probes;			/* probes in those objects */
	int fast_files;			/* of those, objects whose markers have the fast path */
	int fast_unwaking;		/* of those, objects whose writers never fire fast_wake */
	int failed_files;		/* objects with probes the kernel would not attach */
	char failure[512];		/* the first of those failures: object, probe, cause */
	bool fast;			/* attach the fast path's probes where they exist */
	bool verbose;
};

void sb_attach_init(struct sb_attach *a, struct sb_kernel *k, struct sb_guardian *g,
		    bool verbose);
/* Attach to the objects pid maps now; returns how many new ones had probes, or <0. */
int sb_attach_process(struct sb_attach *a, pid_t pid, struct sb_error *err);
/*
 * Detach every probe; the guardian finishes the slow part (see detach.h).
 * The counts and the first failure stay: the profile's metadata and the
 * recorder's last words are written after the probes are gone. Safe twice.
 */
void sb_attach_free(struct sb_attach *a);

#endif
