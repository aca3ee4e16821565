/* The checks of target.h, read from /proc while a pidfd pins the process's identity. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon/target.h"

int sb_peer_read(int sock, struct sb_peer *p, struct sb_error *err)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	memset(p, 0, sizeof(*p));
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return sb_fail(err, errno, "SO_PEERCRED: %s", strerror(errno));
	p->pid = cred.pid;
	p->uid = cred.uid;
	p->gid = cred.gid;
	p->groups[0] = cred.gid;
	p->n_groups = 1;
	len = SB_PEER_MAX_GROUPS * sizeof(gid_t);
	/* More groups than fit (ERANGE, nothing copied): grants count the primary group only. */
	if (!getsockopt(sock, SOL_SOCKET, SO_PEERGROUPS, p->groups + 1, &len))
		p->n_groups += len / sizeof(gid_t);
	else if (errno != ERANGE)
		return sb_fail(err, errno, "SO_PEERGROUPS: %s", strerror(errno));
	return 0;
}

pid_t sb_pidfd_pid(int fd)
{
	char path[64], line[128];
	int pid = -1;
	FILE *f;

	/* Only a pidfd takes a signal; 0 sends none and checks that its process lives. */
	if (syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0))
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid:\t%d", &pid) == 1)
			break;
	fclose(f);
	return pid > 0 ? pid : -1;
}

static bool pidfd_alive(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

/* Uid's four values and NoNewPrivs from /proc/PID/status. 0, or -ESRCH when unreadable. */
static int read_status(pid_t pid, unsigned uids[4], int *nnp)
{
	char path[64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	*nnp = -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid:\t%u\t%u\t%u\t%u", &uids[0], &uids[1], &uids[2], &uids[3]) == 4)
			found = 1;
		sscanf(line, "NoNewPrivs:\t%d", nnp);
	}
	fclose(f);
	return found ? 0 : -ESRCH;
}

/* Uids and dumpable; *nnp for the caller. 0, or -ESRCH / -EPERM with err set. */
static int check_owner(pid_t pid, uid_t uid, int *nnp, struct sb_error *err)
{
	unsigned uids[4];
	char path[64];
	struct stat st;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_status(pid, uids, nnp) || stat(path, &st))
		return sb_fail(err, ESRCH, "process %d: no such process", (int)pid);
	for (i = 0; i < 4; i++)
		if (uids[i] != uid)
			return sb_fail(err, EPERM, "process %d: runs as uid %u, not as you (uid %u): "
				       "only your own processes can be recorded", (int)pid,
				       uids[i], (unsigned)uid);
	/* The kernel makes the files of a process that is not dumpable root's (not its folder). */
	if (st.st_uid != uid)
		return sb_fail(err, EPERM, "process %d: not dumpable (it ran a setuid or setgid "
			       "program, or made itself so): it cannot be recorded", (int)pid);
	return 0;
}

bool sb_target_owned(pid_t pid, uid_t uid)
{
	int nnp;

	return !check_owner(pid, uid, &nnp, NULL);
}

int sb_target_check(int pidfd, pid_t pid, uid_t uid, bool need_nnp, struct sb_error *err)
{
	int nnp, ret = check_owner(pid, uid, &nnp, err);

	if (ret)
		return ret;
	if (need_nnp && nnp != 1)
		return sb_fail(err, EPERM, "process %d: the command must be held with "
			       "no_new_privs (an older scope-bpf client?)", (int)pid);
	if (!pidfd_alive(pidfd))
		return sb_fail(err, ESRCH, "process %d: exited", (int)pid);
	return 0;
}
