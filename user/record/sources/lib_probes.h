/*
 * A library's functions timed as regions: entry and return uprobes on the
 * functions of each library file a traced process maps, once per file for
 * every process (pid -1, filtered in the kernel like the marker probes).
 * What the MPI and CUDA host sources share; each finds its own functions.
 */
#ifndef SB_LIB_PROBES_H
#define SB_LIB_PROBES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/detach.h"
#include "util/error.h"
#include "util/hashmap.h"

#define SB_LIB_MAX_FUNCS 128

struct bpf_program;
struct region_bpf;
struct sb_kernel;

struct sb_lib_probes {
	const char *enter, *exit;	/* the programs' names: found in the object loaded last */
	struct sb_hashmap files;	/* (dev, inode) -> 1: looked at once, never again */
	struct sb_detach held;		/* the links, and what they opened (detach.h) */
	bool multi;			/* one uprobe multi link per file and direction */
	bool cookies;			/* the kernel takes attach cookies; else none is given */
	bool started;
};

/* The functions of one file to probe: file offsets, attach cookies, names for messages. */
struct sb_lib_funcs {
	uint64_t offset[SB_LIB_MAX_FUNCS];
	uint64_t cookie[SB_LIB_MAX_FUNCS];
	const char *name[SB_LIB_MAX_FUNCS];
	uint32_t n;
};

/*
 * Before load: the entry and return programs (SEC("?uprobe"), SEC("?uretprobe"))
 * named enter and exit are loaded, as uprobe multi programs where multi (the
 * kernel has those links).
 */
int sb_lib_probes_configure(struct sb_lib_probes *lp, struct region_bpf *skel,
			    const struct sb_kernel *k, const char *enter, const char *exit);
void sb_lib_probes_start(struct sb_lib_probes *lp);

/* 1 when the file (dev, inode) was not looked at before (it is now marked), 0, or -ENOMEM. */
int sb_lib_probes_new_file(struct sb_lib_probes *lp, uint64_t dev, uint64_t inode);

/*
 * Open the file at path once and call found(ctx, a /proc/self/fd path to it,
 * name) with it: the probes go on through that descriptor, so the file stays
 * the one looked at while they take their time. found's return is returned.
 */
typedef int (*sb_lib_found_fn)(void *ctx, const char *fd_path, const char *name,
			       struct sb_error *err);
int sb_lib_probes_file(const char *path, const char *name, sb_lib_found_fn found, void *ctx,
		       struct sb_error *err);

/*
 * Each executable file mapped by pid whose path match() accepts and that was
 * not looked at before, opened through the process's root (other mount
 * namespaces resolve), to found(). The first error, or 0.
 */
int sb_lib_probes_scan(struct sb_lib_probes *lp, pid_t pid, bool (*match)(const char *path),
		       sb_lib_found_fn found, void *ctx, struct sb_error *err);

/*
 * Entry and return probes on every function of f in the file at path (the
 * /proc/self/fd path found() was given): the returns first. Messages call
 * the file name, as the process maps it.
 */
int sb_lib_probes_attach(struct sb_lib_probes *lp, struct sb_kernel *k, const char *path,
			 const char *name, const struct sb_lib_funcs *f, struct sb_error *err);

/* Take the probes off: their last closes to the guardian g when it takes them. */
void sb_lib_probes_release(struct sb_lib_probes *lp, struct sb_guardian *g);
void sb_lib_probes_free(struct sb_lib_probes *lp);

#endif
