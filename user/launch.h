/* Starting a command held at the door until the tracer is ready, and finding process trees. */
#ifndef SB_LAUNCH_H
#define SB_LAUNCH_H

#include <sys/types.h>

#include "error.h"

struct sb_child {
	pid_t pid;
	int go_fd;	/* write end: closing it lets the child exec */
	int err_fd;	/* read end: the exec's errno, or EOF once exec succeeded */
};

/* Fork a child that waits, then execs cmd (PATH search). 0 or -errno. */
int sb_launch_prepare(struct sb_child *child, char **cmd, struct sb_error *err);
/* Let it exec; returns 0 once the exec succeeded, else the exec's -errno. */
int sb_launch_go(struct sb_child *child);
/* Shell-like status of an ended child: its exit code, or 128 + signal. */
int sb_exit_status(int wstatus);

/* pid and all its living descendants, pid first; *n set. NULL on failure. */
pid_t *sb_process_tree(pid_t pid, size_t *n);
/* A process's state letter from /proc/PID/stat ('R', 'S', 'T', ...), 0 when it is gone. */
char sb_process_state(pid_t pid);
/* The short name of a process (comm), "?" when unknown. */
void sb_process_name(pid_t pid, char *buf, size_t size);

#endif
