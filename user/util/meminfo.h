/* What /proc/meminfo says about the machine's memory. */
#ifndef SB_UTIL_MEMINFO_H
#define SB_UTIL_MEMINFO_H

#include <stdint.h>

struct sb_meminfo {
	uint64_t total;		/* MemTotal, bytes */
	uint64_t available;	/* MemAvailable, bytes: what can be had without swapping */
};

/* Parse the text of /proc/meminfo: 0, or -EINVAL when a field is missing or malformed. */
int sb_meminfo_parse(const char *text, struct sb_meminfo *m);
/*
 * Read and parse /proc/meminfo, then bound both by this process's memory
 * cgroups (util/cgroup_mem.h): 0 or -errno.
 */
int sb_meminfo_read(struct sb_meminfo *m);

#endif
