/*
 * Runs of the kernel side's hooks that the kernel skipped. A tracepoint
 * program still running on a CPU when its event fires there again is not run
 * for it, only counted (bpf_prog_info's recursion_misses): where tracepoints
 * run BPF with migration disabled only (7.x), a hook preempted mid-run loses
 * the next fork or exit on its CPU so. The scheduler hook stands in for the
 * fork and exit hooks (bpf/region.bpf.c fork_unseen, exit_unseen): their
 * skipped runs lost nothing. Any other hook's skipped runs are events missing.
 */
#ifndef SB_KERNEL_SKIPS_H
#define SB_KERNEL_SKIPS_H

#include <stdint.h>

#include "util/error.h"

struct sb_kernel;

struct sb_kernel_skips {
	uint64_t stood_in;	/* skipped runs of hooks another stands in for */
	uint64_t lost;		/* skipped runs of the others: what they would have seen is missing */
	char programs[256];	/* "on_fork 12, on_exit 18": every hook with skipped runs */
};

/* Count misses skipped runs of the program called name (exposed for its unit test). */
void sb_kernel_skips_add(struct sb_kernel_skips *s, const char *name, uint64_t misses);

/* k->skips from every loaded program of the recording, the core's and the groups'. */
void sb_kernel_skips_read(struct sb_kernel *k);

/*
 * Tests only: SCOPE_BPF_KERNEL_SKIP=on_fork,on_exit has those hooks skip every
 * run, as the kernel skips one, so that what stands in for them is tested on
 * any kernel. *bits: enum sb_test_skip's. 0, or -EINVAL with err for a name it
 * does not know (a misspelt test switch must not pass unnoticed).
 */
#define SB_KERNEL_SKIP_ENV "SCOPE_BPF_KERNEL_SKIP"
int sb_kernel_skips_parse(const char *list, uint32_t *bits, struct sb_error *err);

#endif
