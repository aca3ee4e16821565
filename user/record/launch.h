/* Starting a command held at the door until the tracer is ready, and finding process trees. */
#ifndef SB_LAUNCH_H
#define SB_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/error.h"
#include "record/runas.h"

struct sb_child {
	pid_t pid;
	int go_fd;	/* write end: a go byte lets the child exec; EOF makes it exit 126 */
	int err_fd;	/* read end: the exec's errno, or EOF once exec succeeded */
};

/*
 * Fork a child that waits for sb_launch_go(), then takes who's identity (NULL:
 * ours) and execs cmd (PATH search). It never runs cmd if the recorder dies
 * first: it exits 126, or is killed when the recorder dies while it waits.
 * 0 or -errno.
 */
int sb_launch_prepare(struct sb_child *child, char **cmd, const struct sb_runas *who,
		      struct sb_error *err);
/*
 * Raise this process's open-files limit to its hard limit: where the kernel
 * has no uprobe multi links every library function's probe holds a file, and
 * an MPI library has hundreds. A command launched after it gets the limit it
 * had before.
 */
void sb_launch_raise_files(void);
/* Let it exec; returns 0 once the exec succeeded, else the exec's -errno. */
int sb_launch_go(struct sb_child *child);
/* Shell-like status of an ended child: its exit code, or 128 + signal. */
int sb_exit_status(int wstatus);

/* pid and all its living descendants, pid first; *n set. NULL on failure. */
pid_t *sb_process_tree(pid_t pid, size_t *n);
/* A process's state letter from /proc/PID/stat ('R', 'S', 'T', ...), 0 when it is gone. */
char sb_process_state(pid_t pid);
/* Whether a process has ended: no such process, or a zombie not yet reaped. */
bool sb_process_gone(pid_t pid);
/* The short name of a process (comm), "?" when unknown. */
void sb_process_name(pid_t pid, char *buf, size_t size);

#endif
