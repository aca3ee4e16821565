/*
 * Attach cookies by address, where the kernel has none (before 5.15): the
 * library-call programs know which function fired from its run-time address
 * (bpf/call_frames.bpf.h). This keeps, for each traced process, the address of
 * every probed function in the files it maps, with its probe's cookie, in the
 * kernel's call_addrs map. A source notes each file it probes; each process
 * event brings that process's entries up to date (its maps are read again:
 * exec, dlopen, a fork's child); its exit drops them.
 */
#ifndef SB_CALL_ADDRS_H
#define SB_CALL_ADDRS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/hashmap.h"

/* One probed file: its functions' file offsets and their probes' cookies. */
struct sb_call_file {
	uint64_t *offset;
	uint64_t *cookie;
	uint32_t n;
};

/* One process's entries in the map. */
struct sb_call_proc {
	pid_t pid;
	uint64_t *addr;		/* sorted */
	size_t n;
};

struct sb_call_addrs {
	int map_fd;		/* the kernel's call_addrs; < 0: cookies, nothing to keep */
	struct sb_call_file *files;
	size_t n_files;
	/* (dev, inode) as stat or the maps say -> file index + 1, or SB_CALL_NOT_PROBED | n_files
	 * when that file was looked at while n_files files were known */
	struct sb_hashmap ids;
	struct sb_call_proc *procs;
	size_t n_procs;
};

/* One function of a process: its run-time address and its probe's cookie. */
struct sb_call_entry {
	uint64_t addr;
	uint64_t cookie;
};

struct sb_map;

void sb_call_addrs_init(struct sb_call_addrs *ca, int map_fd);

/*
 * The file at path (a /proc/self/fd path is fine: stat says which file) is
 * probed at offset[i] with cookie[i], i < n. 0 or -errno.
 */
int sb_call_addrs_file(struct sb_call_addrs *ca, const char *path, const uint64_t *offset,
		       const uint64_t *cookie, uint32_t n);

/*
 * The probed functions in maps[0..n), pid's mappings, sorted by address, in
 * *out (to free) and *n_out. 0 or -ENOMEM.
 */
int sb_call_addrs_of(struct sb_call_addrs *ca, pid_t pid, const struct sb_map *maps, size_t n,
		     struct sb_call_entry **out, size_t *n_out);

/* Process pid's entries, from the files it maps now. 0, or -errno (a full map: -E2BIG). */
int sb_call_addrs_process(struct sb_call_addrs *ca, pid_t pid);

/* A ring-buffer record: a traced process's exit drops its entries. */
void sb_call_addrs_record(struct sb_call_addrs *ca, const void *data, size_t size);

void sb_call_addrs_free(struct sb_call_addrs *ca);

#endif
