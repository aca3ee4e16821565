/*
 * Many uprobes on one file in one link (BPF_TRACE_UPROBE_MULTI, Linux 6.6):
 * registering an MPI library's ~150 probes one perf event at a time waits
 * for the kernel 0.1-0.5 s per probe on a loaded machine; one link takes
 * them all at once. This system's libbpf and linux/bpf.h predate it, so the
 * link is made with the bpf() system call itself.
 */
#ifndef SB_MPI_UPROBE_MULTI_H
#define SB_MPI_UPROBE_MULTI_H

#include <stdbool.h>
#include <stdint.h>

/* enum bpf_attach_type's BPF_TRACE_UPROBE_MULTI: a program to be linked so is loaded with it. */
#define SB_TRACE_UPROBE_MULTI 48

/* Whether this kernel makes uprobe multi links (with process filtering that works). */
bool sb_uprobe_multi_supported(void);

/*
 * Link prog_fd to the n offsets of the file at path, the return of each
 * function when ret, each call with its cookie; any process. The link's fd,
 * or -errno.
 */
int sb_uprobe_multi_link(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, uint32_t n, bool ret);

#endif
