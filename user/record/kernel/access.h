/*
 * Whether this process may create uprobes, asked of the kernel before
 * anything loads: with CAP_BPF and CAP_PERFMON alone the programs load, yet
 * every probe is refused, and a recording would run to its end with nothing.
 */
#ifndef SB_KERNEL_ACCESS_H
#define SB_KERNEL_ACCESS_H

#include "util/error.h"

struct sb_detach;

/*
 * 0 when a uprobe could be created (or the kernel has no perf uprobe type to
 * ask: libbpf then tries its own way); -EACCES or -EPERM with err saying so.
 * The test probe is kept in held (detach.h), to be let go at the end.
 */
int sb_kernel_uprobe_access(struct sb_detach *held, struct sb_error *err);

#endif
