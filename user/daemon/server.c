/*
 * scope-bpfd's accept loop. It only counts and forks: a client's bytes are
 * read in its own session process, so no client can stall or crash the loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/server.h"

#define LISTEN_FDS_START 3	/* sd_listen_fds(3) */

struct session {
	pid_t pid;
	uid_t uid;
};

struct server {
	int listen_fd;
	int sig_fd;
	struct sb_bpfd *d;
	const char *policy_path;
	struct session live[SB_SERVER_MAX_SESSIONS];
	size_t n_live;
};

/* systemd passed the socket: LISTEN_PID is us and LISTEN_FDS is 1. */
static int activated_socket(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");

	if (!pid || !fds || atol(pid) != (long)getpid() || strcmp(fds, "1"))
		return -1;
	return LISTEN_FDS_START;
}

int sb_server_listen(const char *path, struct sb_error *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct stat st;
	int fd = activated_socket();

	/* Not passed on to the sessions' recorders. */
	if (fd >= 0)
		return fcntl(fd, F_SETFD, FD_CLOEXEC) ? -errno : fd;
	if (strlen(path) >= sizeof(addr.sun_path))
		return sb_fail(err, ENAMETOOLONG, "%s: socket path too long", path);
	strcpy(addr.sun_path, path);
	/* A socket left by a daemon that died is replaced; any other file is not. */
	if (!lstat(path, &st) && S_ISSOCK(st.st_mode))
		unlink(path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sb_fail(err, errno, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || chmod(path, 0666) ||
	    listen(fd, 128)) {
		int e = errno;

		close(fd);
		return sb_fail(err, e, "%s: %s", path, strerror(e));
	}
	return fd;
}

static size_t sessions_of(const struct server *s, uid_t uid)
{
	size_t i, n = 0;

	for (i = 0; i < s->n_live; i++)
		n += s->live[i].uid == uid;
	return n;
}

/* The refusal fits an empty socket's buffer: sent without waiting, or dropped. */
static void turn_away(int fd, const char *text)
{
	static struct sb_bpfd_msg m;
	size_t len = sb_bpfd_encode_result(&m, 1, text);

	send(fd, &m, len, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void start_session(struct server *s, int fd, const struct sb_peer *peer)
{
	pid_t pid = fork();

	if (pid < 0) {
		sb_bpfd_log("fork: %s", strerror(errno));
		turn_away(fd, "scope-bpf record: scope-bpfd cannot fork a session now; try again");
		return;
	}
	if (pid == 0) {
		sigset_t none;

		close(s->listen_fd);
		close(s->sig_fd);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		_exit(sb_session_run(s->d, fd, peer));
	}
	s->live[s->n_live++] = (struct session){ .pid = pid, .uid = peer->uid };
}

static void take_client(struct server *s)
{
	struct sb_error err = { { 0 } };
	struct sb_peer peer;
	char text[256];
	int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (sb_peer_read(fd, &peer, &err)) {
		sb_bpfd_log("a client: %s", err.msg);
	} else if (s->n_live == SB_SERVER_MAX_SESSIONS) {
		sb_bpfd_log("uid %u: turned away, %d sessions already", (unsigned)peer.uid,
			    SB_SERVER_MAX_SESSIONS);
		turn_away(fd, "scope-bpf record: scope-bpfd is serving as many clients as it can; "
			  "try again");
	} else if (peer.uid && sessions_of(s, peer.uid) >= s->d->policy.max_recordings) {
		snprintf(text, sizeof(text), "scope-bpf record: you have %u recordings through "
			 "scope-bpfd already, the most its policy allows (max-recordings)",
			 s->d->policy.max_recordings);
		turn_away(fd, text);
	} else {
		start_session(s, fd, &peer);
	}
	close(fd);
}

static void reap(struct server *s)
{
	size_t i;
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		for (i = 0; i < s->n_live; i++)
			if (s->live[i].pid == pid) {
				s->live[i] = s->live[--s->n_live];
				break;
			}
}

static void reload(struct server *s)
{
	struct sb_error err = { { 0 } };
	struct sb_policy p;

	if (sb_policy_load(&p, s->policy_path, &err)) {
		sb_bpfd_log("%s; the policy in force is kept", err.msg);
		return;
	}
	s->d->policy = p;
	sb_bpfd_log("%s: read again", s->policy_path);
}

/* 1 when the daemon is to end. */
static int take_signal(struct server *s)
{
	struct signalfd_siginfo si;

	if (read(s->sig_fd, &si, sizeof(si)) != sizeof(si))
		return 0;
	if (si.ssi_signo == SIGCHLD)
		reap(s);
	else if (si.ssi_signo == SIGHUP)
		reload(s);
	else
		return 1;
	return 0;
}

int sb_server_run(int listen_fd, struct sb_bpfd *d, const char *policy_path)
{
	struct server *s = calloc(1, sizeof(*s));
	struct pollfd p[2];
	sigset_t sigs;

	if (!s)
		return 1;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGCHLD);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	/* A client gone while it is answered must not end the daemon. */
	signal(SIGPIPE, SIG_IGN);
	*s = (struct server){ .listen_fd = listen_fd, .d = d, .policy_path = policy_path,
			      .sig_fd = signalfd(-1, &sigs, SFD_CLOEXEC) };
	if (s->sig_fd < 0) {
		sb_bpfd_log("signalfd: %s", strerror(errno));
		free(s);
		return 1;
	}
	p[0] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = s->sig_fd, .events = POLLIN };
	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents && take_signal(s))
			break;
		if (p[0].revents)
			take_client(s);
	}
	/* Recordings under way finish on their own, each with its guardian. */
	sb_bpfd_log("ending; %zu sessions still run to their end", s->n_live);
	close(s->sig_fd);
	free(s);
	return 0;
}
