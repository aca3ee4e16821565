/*
 * record -a: which processes of the machine are traced. A process that execs
 * while recording is held by the kernel side (bpf/region.bpf.c,
 * exec_candidate) until sb_syswide_exec() said whether to trace it; its file
 * gets a verdict so that a file never traced costs no stop again. Processes
 * running at the start are found by sb_syswide_scan(). docs/DESIGN.md.
 */
#ifndef SB_SYSWIDE_H
#define SB_SYSWIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cmd/record_opts.h"
#include "util/error.h"
#include "util/hashmap.h"

struct region_bpf;

struct sb_syswide {
	const struct record_opts *o;
	struct region_bpf *skel;
	struct sb_hashmap files;	/* (st_dev, st_ino) -> 1 + whether a process running it is traced */
	dev_t exe_dev;			/* --exe's file */
	ino_t exe_ino;
	int traced;			/* processes traced so far */
};

/* Before the BPF object is loaded: the exec path's switches (-a, --comm). */
void sb_syswide_configure(const struct record_opts *o, struct region_bpf *skel);

/* 0, or -errno with err naming --exe's file when it is gone. */
int sb_syswide_init(struct sb_syswide *s, const struct record_opts *o, struct region_bpf *skel,
		    struct sb_error *err);

/*
 * pid is held at a candidate sync (it exec'd): whether to trace it. Tells the
 * kernel side whether to stop again at the next exec of the same file.
 */
bool sb_syswide_exec(struct sb_syswide *s, pid_t pid);

/* The processes running now that are to be traced (malloc'd, *n of them); NULL on no memory. */
pid_t *sb_syswide_scan(struct sb_syswide *s, size_t *n);

/* A process was traced: --until-idle waits for one. */
void sb_syswide_traced(struct sb_syswide *s);

/*
 * --until-idle: a process was traced and none of them is alive any more.
 * Forgets traced processes that are gone without their exit being seen.
 */
bool sb_syswide_idle(struct sb_syswide *s);

void sb_syswide_free(struct sb_syswide *s);

#endif
