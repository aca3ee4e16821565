/*
 * scope-bpfd's worker: the recorder itself, run in-process exactly as `sudo
 * scope-bpf record` runs it, on a target the session checked. Its profile goes
 * to standard output (record -o -): the client's file, never a path it named.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/session.h"
#include "daemon/target.h"
#include "record/held.h"
#include "record/recorder.h"

/* Move fd to target; nothing else of the session's is left open in the recorder. */
static void put_fd(int fd, int target)
{
	if (dup2(fd, target) < 0)
		_exit(1);
}

/*
 * The command's exec error goes to the client, which forked it: the recorder's
 * launch.c reads an empty pipe instead and takes the exec as done. A pipe a
 * client held open would stop the recorder for good, before it records.
 */
static int exec_done(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		_exit(1);
	close(p[1]);
	return p[0];
}

/*
 * fd moved above the standard descriptors: the session's may be any of
 * 0-2, and setting those up would then close or replace it (a pidfd turned
 * into the output file reads as a process that exited).
 */
static int above_std(int fd)
{
	int moved;

	if (fd < 0)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (moved < 0)
		_exit(1);
	return moved;
}

void sb_worker_run(struct sb_request *req, int sock)
{
	struct sb_daemon_target t = { .pidfd = req->pidfd, .may_trace = req->uid ? sb_target_owned : NULL,
				      .uid = req->uid };
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sigset_t none;

	close(sock);
	if (null < 0)
		_exit(1);
	t.pidfd = req->pidfd = above_std(req->pidfd);
	req->fds[SB_BPFD_FD_OUTPUT] = above_std(req->fds[SB_BPFD_FD_OUTPUT]);
	req->fds[SB_BPFD_FD_STDERR] = above_std(req->fds[SB_BPFD_FD_STDERR]);
	null = above_std(null);
	put_fd(null, STDIN_FILENO);
	put_fd(req->fds[SB_BPFD_FD_OUTPUT], STDOUT_FILENO);
	put_fd(req->fds[SB_BPFD_FD_STDERR], STDERR_FILENO);
	/* A client whose stderr is gone must not take the recorder with it: the file is still written. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setenv("TMPDIR", req->tmp_dir, 1))
		_exit(1);
	if (req->o.cmd) {
		t.child.pid = req->pid;
		t.child.go_fd = req->fds[SB_BPFD_FD_GO];
		t.child.err_fd = exec_done();
	}
	/* -o as the user gave it; the client opened it, expanded, with its rights. */
	t.output_name = strcmp(req->o.output, "-") ? req->o.output : "standard output";
	req->o.output = "-";
	if (!req->o.all)
		req->o.daemon_target = &t;
	_exit(sb_record(&req->o));
}
