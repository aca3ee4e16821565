/*
 * SCOPE_BPF_CUPTI_DUMP=FILE: what the library's probes carry is also written
 * to FILE, so the library can be checked against a real GPU where no tracer
 * can attach (tools/gpu-check.sh on a machine without BPF). The file is a
 * sequence of entries, each a 16-byte header then its payload:
 *   "BTCH", n, n * 80, 0	n struct sb_cuda_rec
 *   "NAME", id, len, 0	len bytes of the kernel name, no NUL
 */
#ifndef SB_CUPTI_DUMP_H
#define SB_CUPTI_DUMP_H

#include <linux/types.h>

#include "cuda_rec.h"

struct sb_cuda_dump_head {
	char tag[4];
	__u32 value;		/* batch: records; name: its id */
	__u32 bytes;		/* of the payload that follows */
	__u32 reserved;
};

/* Open the file the variable names, if it is set; one line on stderr when it cannot be. */
void sb_cuda_dump_open(void);
void sb_cuda_dump_batch(const struct sb_cuda_rec *recs, __u32 n);
void sb_cuda_dump_name(__u32 id, const char *name);

#endif /* SB_CUPTI_DUMP_H */
