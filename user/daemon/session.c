/*
 * One client of scope-bpfd: read its request (bounded, in a bounded time),
 * parse it as record would with the user's file rights, apply the policy,
 * check the target through a pidfd, then run the recorder in a worker and
 * watch both: a client that goes away or asks to stop ends the recording,
 * which is still written. The worker's exit status is the client's.
 */
#include <errno.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/permit.h"
#include "daemon/session.h"

#define REQUEST_WAIT_MS 10000	/* a client that says nothing is let go */

void sb_bpfd_log(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "scope-bpfd: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static struct sb_bpfd_msg msg;	/* 64 KiB, one per session process */

static void answer(int sock, int status, const char *text)
{
	size_t len = sb_bpfd_encode_result(&msg, status, text);

	sb_bpfd_send(sock, &msg, len, NULL, 0);
}

/*
 * record's own parser, with the user's file rights: -g's group files, say,
 * are read as they could read them, never as root.
 */
static int parse_as_user(int argc, char **argv, const struct sb_peer *peer, struct record_opts *o,
			 struct sb_error *err)
{
	int ret;

	setfsgid(peer->gid);
	setfsuid(peer->uid);
	ret = record_parse_args(argc, argv, o, err);
	setfsuid(0);
	setfsgid(0);
	if (!ret && (o->help || o->list_events || o->list_groups))
		ret = sb_fail(err, EINVAL, "--help, --list-events and --list-groups are answered "
			      "by the client, not scope-bpfd");
	return ret;
}

/* The target: -p's process opened here, -- CMD's child from the client's pidfd. */
static int check_target(struct sb_request *req, const struct sb_peer *peer, struct sb_error *err)
{
	if (req->o.all)
		return 0;
	if (req->o.cmd) {
		req->pidfd = req->fds[SB_BPFD_FD_PIDFD];
		req->fds[SB_BPFD_FD_PIDFD] = -1;
		req->pid = sb_pidfd_pid(req->pidfd);
		if (req->pid <= 0)
			return sb_fail(err, EPROTO, "the command's descriptor is no living process");
	} else {
		req->pid = req->o.pid;
		req->pidfd = (int)syscall(SYS_pidfd_open, req->pid, 0);
		if (req->pidfd < 0)
			return sb_fail(err, ESRCH, "process %d: no such process", (int)req->pid);
	}
	if (peer->uid == 0)
		return 0;
	return sb_target_check(req->pidfd, req->pid, peer->uid, req->o.cmd != NULL, err);
}

/* The descriptors the request must carry: 2 for -p and -a, 4 for -- CMD. */
static int check_fds(const struct sb_request *req, struct sb_error *err)
{
	int want = req->o.cmd ? SB_BPFD_MAX_FDS : SB_BPFD_PID_FDS;
	struct stat st;

	if (req->n_fds != want)
		return sb_fail(err, EPROTO, "%d descriptors came with the request, %d expected",
			       req->n_fds, want);
	if (fstat(req->fds[SB_BPFD_FD_OUTPUT], &st))
		return sb_fail(err, EPROTO, "the output descriptor: %s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return sb_fail(err, EPROTO, "the output descriptor is a folder");
	return 0;
}

/* Read and check one request. 0; or the exit status to answer with, err set. */
static int take_request(int sock, const struct sb_bpfd *d, const struct sb_peer *peer,
			struct sb_request *req, char **argv, struct sb_error *err)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int n, argc;

	if (poll(&p, 1, REQUEST_WAIT_MS) != 1) {
		sb_fail(err, ETIMEDOUT, "no request within %d s", REQUEST_WAIT_MS / 1000);
		return 1;
	}
	n = sb_bpfd_recv(sock, &msg, req->fds, &req->n_fds);
	if (n <= 0) {
		sb_fail(err, EPROTO, "%s", !n ? "closed before its request" :
			n == -EMSGSIZE ? "request too large" : strerror(-n));
		return 1;
	}
	if (sb_bpfd_check(&msg, (size_t)n, err))
		return 1;
	argc = sb_bpfd_decode_record(&msg, argv, err);
	if (argc < 0)
		return 1;
	if (parse_as_user(argc, argv, peer, &req->o, err))
		return SB_EXIT_USAGE;
	if (check_fds(req, err))
		return 1;
	if (sb_permit(&d->policy, peer, &req->o, err) || check_target(req, peer, err))
		return SB_EXIT_USAGE;
	return 0;
}

/* Until the worker ends: the client leaving, or asking to stop, stops the recording. */
static int supervise(int sock, pid_t worker)
{
	struct pollfd p[2] = { { .fd = sock, .events = POLLIN },
			       { .fd = (int)syscall(SYS_pidfd_open, worker, 0), .events = POLLIN } };
	int fds[SB_BPFD_MAX_FDS], n_fds, n, status = 1 << 8;	/* exit 1 if it cannot be waited for */
	bool stopped = false;

	while (p[1].fd >= 0 && poll(p, 2, -1) >= 0 && !p[1].revents) {
		if (!p[0].revents)
			continue;
		n = sb_bpfd_recv(sock, &msg, fds, &n_fds);
		sb_bpfd_close_fds(fds, n_fds);
		if (n <= 0 && n != -EMSGSIZE)
			p[0].fd = -1;
		if (!stopped)
			kill(worker, SIGTERM);
		stopped = true;
	}
	while (waitpid(worker, &status, 0) < 0 && errno == EINTR)
		;
	if (p[1].fd >= 0)
		close(p[1].fd);
	return status;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/*
 * Whatever becomes of the recorder (killed, it cannot clean up), its spill and
 * profile copy go with this folder: root's alone, so nothing in it is a user's link.
 */
static void remove_tmp(struct sb_request *req)
{
	if (req->tmp_dir)
		nftw(req->tmp_dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(req->tmp_dir);
	req->tmp_dir = NULL;
}

static int make_tmp(const struct sb_bpfd *d, struct sb_request *req)
{
	if (asprintf(&req->tmp_dir, "%s/recording.XXXXXX", d->tmp_dir) < 0) {
		req->tmp_dir = NULL;
		return -ENOMEM;
	}
	if (!mkdtemp(req->tmp_dir)) {
		free(req->tmp_dir);
		req->tmp_dir = NULL;
		return -errno;
	}
	return 0;
}

static int run_worker(const struct sb_bpfd *d, struct sb_request *req, int sock,
		      char *text, size_t size)
{
	struct stat st;
	int status;
	pid_t pid;

	/* What the file held before is dropped only now that the recording is allowed. */
	if (!fstat(req->fds[SB_BPFD_FD_OUTPUT], &st) && S_ISREG(st.st_mode) &&
	    ftruncate(req->fds[SB_BPFD_FD_OUTPUT], 0)) {
		snprintf(text, size, "scope-bpf record: the output file: %s", strerror(errno));
		return 1;
	}
	if (make_tmp(d, req)) {
		snprintf(text, size, "scope-bpfd: %s: cannot make a temporary folder", d->tmp_dir);
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(text, size, "scope-bpfd: fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0)
		sb_worker_run(req, sock);
	sb_bpfd_log("uid %u: recording %s (session %d, recorder %d)", (unsigned)req->uid,
		    req->o.all ? "system-wide" : req->o.cmd ? "a command" : "a process",
		    (int)getpid(), (int)pid);
	sb_bpfd_close_fds(req->fds, req->n_fds);
	req->n_fds = 0;
	status = supervise(sock, pid);
	remove_tmp(req);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	snprintf(text, size, "scope-bpfd: the recorder was killed by signal %d; what it "
		 "recorded is lost (the daemon's log may say why)", WTERMSIG(status));
	return 1;
}

int sb_session_run(const struct sb_bpfd *d, int sock, const struct sb_peer *peer)
{
	struct sb_request req = { .pidfd = -1, .uid = peer->uid };
	char *argv[SB_BPFD_MAX_ARGS + 1], text[SB_BPFD_MAX_TEXT];
	struct sb_error err = { { 0 } };
	int status;

	text[0] = 0;
	status = take_request(sock, d, peer, &req, argv, &err);
	if (status) {
		sb_bpfd_log("uid %u pid %d: refused: %s", (unsigned)peer->uid, (int)peer->pid,
			    err.msg);
		snprintf(text, sizeof(text), "scope-bpf record: %s", err.msg);
	} else {
		status = run_worker(d, &req, sock, text, sizeof(text));
	}
	answer(sock, status, text);
	sb_bpfd_close_fds(req.fds, req.n_fds);
	remove_tmp(&req);
	record_opts_free(&req.o);
	return 0;
}
