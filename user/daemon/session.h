/* One client of scope-bpfd, served in a process of its own: check, record, answer. */
#ifndef SB_DAEMON_SESSION_H
#define SB_DAEMON_SESSION_H

#include "cmd/record_opts.h"
#include "daemon/policy.h"
#include "daemon/proto.h"
#include "daemon/target.h"

/* What every session inherits from the daemon. */
struct sb_bpfd {
	struct sb_policy policy;
	char *tmp_dir;		/* root's private folder: a folder in it per recording */
};

/* The request a session accepted, handed to its worker. */
struct sb_request {
	struct record_opts o;
	int fds[SB_BPFD_MAX_FDS];
	int n_fds;
	int pidfd;		/* the checked target (-1 for -a) */
	pid_t pid;		/* its pid */
	uid_t uid;		/* the client's: what its recorder may follow */
	char *tmp_dir;		/* this recording's own folder in the daemon's: its TMPDIR */
};

/* Serve the client on sock; returns this process's exit code. Messages go to stderr (the log). */
int sb_session_run(const struct sb_bpfd *d, int sock, const struct sb_peer *peer);

/*
 * In the forked worker: the client's stderr and output in place of ours, the
 * recorder run on the checked target. Never returns.
 */
void sb_worker_run(struct sb_request *req, int sock)
	__attribute__((noreturn));

/* "scope-bpfd: " and one line on stderr, the daemon's log. */
void sb_bpfd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
