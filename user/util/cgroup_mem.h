/*
 * What the memory cgroups of this process still allow it: a job under a batch
 * system (Slurm, a container) often has far less than the machine's memory,
 * and the recorder launched inside it is charged to the same limit.
 */
#ifndef SB_UTIL_CGROUP_MEM_H
#define SB_UTIL_CGROUP_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_cgroup_mem {
	uint64_t limit;		/* the lowest limit over the cgroup and its ancestors */
	uint64_t headroom;	/* the least of limit - usage over them, page cache it may drop not counted */
};

/*
 * The memory cgroup's path in the text of /proc/self/cgroup: the v1 line of
 * the memory controller if there is one (*v2 false), else the v2 line "0::".
 * 0, or -ENOENT when neither is there.
 */
int sb_cgroup_mem_path(const char *self_cgroup, char *path, size_t size, bool *v2);
/*
 * Limits and usage read from root/path and each ancestor up to root (v1:
 * memory.limit_in_bytes, memory.usage_in_bytes; v2: memory.max,
 * memory.current; both: inactive file pages from memory.stat). A level
 * whose files are missing or unreadable limits nothing. Both fields are
 * UINT64_MAX when nothing limits.
 */
void sb_cgroup_mem_at(const char *root, const char *path, bool v2, struct sb_cgroup_mem *m);
/* The same for this process, from /proc/self/cgroup under /sys/fs/cgroup: 0 or -errno. */
int sb_cgroup_mem_read(struct sb_cgroup_mem *m);

#endif
