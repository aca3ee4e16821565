/* A process's state and parent, as /proc/PID/stat says them. */
#ifndef SB_UTIL_PROC_STAT_H
#define SB_UTIL_PROC_STAT_H

#include <sys/types.h>

/*
 * State letter ('R', 'S', 'T', 'Z', ...) and parent pid of pid; the comm
 * field may hold spaces and parentheses. 0, or -1 when it cannot be read.
 */
int sb_proc_stat(pid_t pid, char *state, pid_t *ppid);

#endif
