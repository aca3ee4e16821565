/* Who asked scope-bpfd and whether what they name is theirs to record. */
#ifndef SB_DAEMON_TARGET_H
#define SB_DAEMON_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/error.h"

#define SB_PEER_MAX_GROUPS 256

/* The client, as the kernel saw it connect (SO_PEERCRED, SO_PEERGROUPS). */
struct sb_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t groups[SB_PEER_MAX_GROUPS + 1];	/* its gid and supplementary groups */
	size_t n_groups;
};

/* 0, or -errno with err set. */
int sb_peer_read(int sock, struct sb_peer *p, struct sb_error *err);

/* The pid behind a pidfd (its fdinfo); -1 when fd is no pidfd or its process is gone. */
pid_t sb_pidfd_pid(int fd);

/*
 * Whether the process of pidfd (pid) may be recorded by uid: its real,
 * effective, saved and file-system uids are uid and it is dumpable (no setuid
 * or setgid program, no daemon that dropped privileges); with need_nnp, it
 * also runs with no_new_privs, so nothing it execs can gain any. The pidfd is
 * looked at last: alive then, the facts read belonged to it and not to a
 * process that took its pid. 0, or -EPERM / -ESRCH with err saying why.
 */
int sb_target_check(int pidfd, pid_t pid, uid_t uid, bool need_nnp, struct sb_error *err);

/*
 * The same checks, uids and dumpable, for a process the recorder already
 * follows (stopped at its exec, or -p's descendant): whether it is still uid's.
 */
bool sb_target_owned(pid_t pid, uid_t uid);

#endif
