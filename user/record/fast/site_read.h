/*
 * A fast-path site named without the kernel: its descriptor read from the
 * traced process when no announcement arrived for it (a recording that
 * attached while the process made its memory, a record read before its
 * announcement). Nothing read is trusted: every read is bounded and checked.
 */
#ifndef SB_FAST_SITE_READ_H
#define SB_FAST_SITE_READ_H

#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "region.h"

struct sb_fast_site {
	int32_t line;
	char name[SB_NAME_MAX];
	char file[SB_FILE_MAX];
	char tags[SB_TAGS_MAX];
};

/* 0, or -errno when the descriptor cannot be read or is not one (bad magic, version, name). */
int sb_fast_site_read(pid_t pid, uint64_t addr, struct sb_fast_site *s);

/*
 * A NUL-terminated string of at most size - 1 bytes at addr in process pid,
 * cut there as the kernel side cuts it (also a CUDA kernel name the kernel
 * side could not read). Reading it faults its pages in. 0, or -EFAULT when
 * not even its first byte can be read.
 */
int sb_read_remote_string(pid_t pid, uint64_t addr, char *out, size_t size);

#endif
