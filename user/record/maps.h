/* The file-backed mappings of a process, as /proc/PID/maps lists them. */
#ifndef SB_MAPS_H
#define SB_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sb_map {
	uint64_t start, end;	/* [start, end) in the process */
	uint64_t pgoff;		/* file offset mapped at start */
	uint64_t dev, inode;	/* dev as makedev(major, minor) */
	char *path;		/* as the process sees it; may hold any bytes but NUL */
	bool exec;
};

/*
 * Read the mappings of pid that are backed by a file, in address order, non-executable
 * ones included. Files deleted since they were mapped are left out: the path no longer
 * names what was mapped. Returns 0 or -errno; free the result with sb_maps_free.
 */
int sb_maps_read(pid_t pid, struct sb_map **maps, size_t *n);
void sb_maps_free(struct sb_map *maps, size_t n);

#endif
