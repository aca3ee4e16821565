/*
 * What the running kernel offers the recorder, learnt by small test loads
 * and system calls before the real BPF object is built, never from its
 * version number: a point release can refuse what an older one took. Each
 * feature can be forced off for tests with SCOPE_BPF_KERNEL_OFF (a comma
 * list of the names below, or "all"), so every fallback is exercised on
 * the development kernel too. Only the kernel layer reads it.
 */
#ifndef SB_KERNEL_FEATURES_H
#define SB_KERNEL_FEATURES_H

#include <stdbool.h>

#include "util/error.h"

enum sb_kfeature {
	/* Sleepable uprobes with the maps the marker programs use, bpf_copy_from_user (6.0) */
	SB_KF_SLEEPABLE,
	/* Uprobe multi links: one link per library file (6.6) */
	SB_KF_UPROBE_MULTI,
	/* Task local storage: the scheduler hook's one-load test of a task (5.11) */
	SB_KF_TASK_STORAGE,
	/* bpf_get_current_task_btf: the marker programs' tid and tgid (5.11) */
	SB_KF_TASK_BTF,
	/* pidfd_open(PIDFD_THREAD): a thread's pidfd, to mark running threads (6.9) */
	SB_KF_PIDFD_THREAD,
	/* Uprobe programs on their task's stack: no per-CPU private stacks (before 6.14) */
	SB_KF_TASK_STACK,
	/*
	 * The two below cost data where they are missing, so "all" leaves them
	 * on: the fallback passes of make check test what loses nothing.
	 */
	SB_KF_FIRST_COSTLY,
	/* Atomic fetch-and-add: a process's calls numbered across its threads (5.12) */
	SB_KF_ATOMIC_FETCH = SB_KF_FIRST_COSTLY,
	/* bpf_get_attach_cookie: which probe fired, in any process (5.15) */
	SB_KF_ATTACH_COOKIE,
	SB_KF_COUNT
};

struct sb_kfeatures {
	bool has[SB_KF_COUNT];
	bool forced_off[SB_KF_COUNT];	/* by SCOPE_BPF_KERNEL_OFF */
	/*
	 * Task storage can be made in the scheduler hook: a thread whose clone the
	 * fork hook missed is marked at its first switch, else by the recorder
	 * once it reads of it. Not a fallback of its own: said with the skips.
	 */
	bool storage_anywhere;
	char release[65];		/* uname -r */
};

#define SB_KERNEL_OFF_ENV "SCOPE_BPF_KERNEL_OFF"

/* The feature's name in SCOPE_BPF_KERNEL_OFF and in messages. */
const char *sb_kfeature_name(enum sb_kfeature f);
/* What the recording does without it, for the summary and the metadata. */
const char *sb_kfeature_fallback(enum sb_kfeature f);

/*
 * Read SCOPE_BPF_KERNEL_OFF into forced_off: 0, or -EINVAL (with the
 * unknown name in err) so a misspelt test switch cannot pass unnoticed.
 */
int sb_kfeatures_parse_off(struct sb_kfeatures *k, const char *list, struct sb_error *err);

/*
 * Probe every feature not forced off. 0; -EPERM or -EACCES (no right to load
 * BPF); or -EINVAL with err set (the environment's list).
 */
int sb_kfeatures_probe(struct sb_kfeatures *k, struct sb_error *err);

#endif
