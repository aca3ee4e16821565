/* Stack sampling inside regions: perf events per CPU, kernel-side aggregation, symbolization at the end. */
#ifndef SB_SAMPLING_H
#define SB_SAMPLING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/collect.h"
#include "util/error.h"

struct region_bpf;
struct bpf_link;
struct sb_symbolizer;

struct sb_sampling {
	int hz;			/* 0: no CPU sampling */
	bool kernel_stacks;
	bool offcpu_stacks;
	uint64_t offcpu_min_ns;
	const char *event;	/* "cycles" or "cpu-clock" once started */
	struct bpf_link **links;
	int n_links;
	struct sb_symbolizer *sym;	/* NULL when neither kind of stack is recorded */
};

/* Before the BPF object is loaded: fix what the programs record. */
int sb_sampling_configure(struct sb_sampling *s, struct region_bpf *skel);
/* After loading: open one sampling perf event per CPU and attach. */
int sb_sampling_start(struct sb_sampling *s, struct region_bpf *skel, struct sb_error *err);
/* Keep a process's mappings while it lives, to symbolize its stacks after it is gone. */
void sb_sampling_snapshot(struct sb_sampling *s, pid_t pid);
void sb_sampling_fork(struct sb_sampling *s, pid_t parent, pid_t child);
/* Stop sampling (before the final drain). */
void sb_sampling_stop(struct sb_sampling *s);
/*
 * After sb_collector_finish: read the kernel's aggregates, symbolize them and
 * fill c->prof.samples and its metadata. Processes that are not ranks (they
 * completed no region call) are left out and counted.
 */
int sb_sampling_contribute(struct sb_sampling *s, struct region_bpf *skel, struct sb_collector *c);
void sb_sampling_free(struct sb_sampling *s);

#endif
