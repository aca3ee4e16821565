/*
 * The client side of scope-bpfd. The user's own rights do everything a user
 * could do alone: open the output file, fork the command and hold it before
 * its exec (record's launch.c), under no_new_privs. The daemon
 * gets descriptors only, checks them and records; its answer is our exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/proto.h"
#include "record/command_env.h"
#include "record/daemon_client.h"
#include "record/launch.h"
#include "record/outpath.h"
#include "record/recorder.h"
#include "record/stop_signal.h"

struct client {
	struct record_opts *o;	/* ours: the command's environment sets o->mpi_pmpi */
	int sock;
	int out_fd;
	char *out_path;		/* NULL for -o - */
	bool created;		/* we made the output file: removed if nothing was written */
	struct sb_child child;
	int child_pidfd;
};

static const char *socket_path(void)
{
	const char *p = getenv("SCOPE_BPF_SOCKET");

	return p && *p ? p : SB_BPFD_SOCKET;
}

static int connect_daemon(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* -o, with %h, %p and %r expanded here, opened with our rights. 0, or the exit status. */
static int open_output(struct client *c)
{
	const struct record_opts *o = c->o;
	struct sb_error err = { { 0 } };
	struct utsname u;

	if (!strcmp(o->output, "-")) {
		c->out_fd = STDOUT_FILENO;
		return 0;
	}
	if (uname(&u))
		snprintf(u.nodename, sizeof(u.nodename), "localhost");
	if (sb_outpath_expand(o->output, &(struct sb_outpath_fields){
				.host = u.nodename, .pid = getpid(), .index = -1,
				.rank = sb_outpath_rank_of(o->pid ? o->pid : getpid()) },
			      &c->out_path, &err)) {
		record_say("%s", err.msg[0] ? err.msg : strerror(ENOMEM));
		return SB_EXIT_USAGE;
	}
	c->out_fd = open(c->out_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
	c->created = c->out_fd >= 0;
	/* An existing file keeps what it holds until the daemon has accepted the recording. */
	if (c->out_fd < 0 && errno == EEXIST)
		c->out_fd = open(c->out_path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (c->out_fd < 0) {
		record_say("%s: %s", c->out_path, strerror(errno));
		return SB_EXIT_USAGE;
	}
	return 0;
}

/* The file cmd would run, searched in PATH as execvp() does; NULL when there is none. */
static char *find_program(const char *cmd)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;

	if (strchr(cmd, '/'))
		return access(cmd, F_OK) ? NULL : strdup(cmd);
	copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		if (asprintf(&found, "%s/%s", dir, cmd) < 0)
			found = NULL;
		else if (access(found, X_OK)) {
			free(found);
			found = NULL;
		}
	}
	free(copy);
	return found;
}

/*
 * A setuid or setgid program would run without its privileges under
 * no_new_privs, so it is refused before anything starts, with its name.
 */
static int refuse_setuid(const char *file)
{
	struct stat st;
	bool privileged;

	privileged = !stat(file, &st) &&
		     ((st.st_mode & S_ISUID) || (st.st_mode & (S_ISGID | S_IXGRP)) ==
		      (S_ISGID | S_IXGRP));
	if (privileged)
		record_say("%s: a setuid or setgid program; through scope-bpfd only what runs "
			   "with your own rights can be recorded (docs/CLUSTERS.md)", file);
	return privileged ? SB_EXIT_USAGE : 0;
}

/* -- CMD: forked now, held before its exec until the daemon's recorder lets it go. */
static int hold_command(struct client *c)
{
	struct sb_error err = { { 0 } };
	char *file = find_program(c->o->cmd[0]);
	int ret;

	/* As record says it, before anything is loaded for a command that cannot run. */
	if (!file) {
		record_say("%s: command not found", c->o->cmd[0]);
		return 127;
	}
	ret = refuse_setuid(file);
	free(file);
	if (ret)
		return ret;
	/* What the recorder puts in the environment of a command it launches itself. */
	if (sb_command_env_setup(c->o, &err)) {
		record_say("%s", err.msg);
		return SB_EXIT_USAGE;
	}
	/*
	 * Ours, inherited by the command and all it starts: nothing there can
	 * gain privileges, and the daemon sees it set before it lets it exec.
	 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		record_say("no_new_privs: %s", strerror(errno));
		return 1;
	}
	if (sb_launch_prepare(&c->child, c->o->cmd, NULL, &err)) {
		record_say("%s", err.msg);
		return 1;
	}
	c->child_pidfd = (int)syscall(SYS_pidfd_open, c->child.pid, 0);
	if (c->child_pidfd < 0) {
		record_say("pidfd_open: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * The arguments as given, with the MPI path our command took put first: the
 * recorder times MPI calls with uprobes unless told --mpi=pmpi, where it
 * probes only what the library does not time (docs/MPI.md). Either way it
 * traces no more than the user may ask for, so the daemon may take it from
 * us. NULL when out of memory.
 */
static char **with_mpi_path(const struct client *c, int argc, char **argv, int *n)
{
	char **args = calloc((size_t)argc + 2, sizeof(*args));

	if (!args)
		return NULL;
	args[0] = argv[0];
	*n = 1;
	if (c->o->cmd && !c->o->no_mpi)
		args[(*n)++] = c->o->mpi_pmpi ? "--mpi=pmpi" : "--mpi=uprobes";
	memcpy(args + *n, argv + 1, ((size_t)argc - 1) * sizeof(*args));
	*n += argc - 1;
	return args;
}

static int send_request(struct client *c, int argc, char **argv)
{
	static struct sb_bpfd_msg m;
	int fds[SB_BPFD_MAX_FDS] = { STDERR_FILENO, c->out_fd, c->child_pidfd, c->child.go_fd };
	char **args = with_mpi_path(c, argc, argv, &argc);
	int len, ret;

	if (!args) {
		record_say("scope-bpfd: the request: %s", strerror(ENOMEM));
		return 1;
	}
	len = sb_bpfd_encode_record(&m, argc, args);
	free(args);
	if (len < 0) {
		record_say("the command line is too long for scope-bpfd (%d bytes at most)",
			   SB_BPFD_MAX_MSG);
		return SB_EXIT_USAGE;
	}
	ret = sb_bpfd_send(c->sock, &m, (size_t)len, fds,
			   c->o->cmd ? SB_BPFD_MAX_FDS : SB_BPFD_PID_FDS);
	if (ret) {
		record_say("scope-bpfd: cannot send the request: %s", strerror(-ret));
		return 1;
	}
	return 0;
}

/*
 * Ctrl-C or SIGTERM: a command is asked to end first (a terminal's signal
 * reached it already), as record does; else, or at the next one, the
 * recording is stopped, and still written.
 */
static void pass_signal(struct client *c, bool *forwarded)
{
	struct sb_bpfd_msg m;
	int sig = sb_stop_signal;

	sb_stop_signal = 0;
	if (c->o->cmd && !*forwarded) {
		*forwarded = true;
		if (!sb_stop_from_terminal)
			kill(c->child.pid, sig);
		return;
	}
	sb_bpfd_send(c->sock, &m, sb_bpfd_encode_stop(&m), NULL, 0);
}

/* The daemon's answer: its exit status, after printing what it says. */
static int wait_result(struct client *c)
{
	static struct sb_bpfd_msg m;
	/* A request that lands just before the poll makes the stop eventfd readable. */
	struct pollfd p[2] = { { .fd = c->sock, .events = POLLIN },
			       { .fd = sb_stop_signal_fd(), .events = POLLIN } };
	struct sb_error err = { { 0 } };
	int fds[SB_BPFD_MAX_FDS], n_fds, n;
	bool forwarded = false;
	uint64_t requests;

	for (;;) {
		if (sb_stop_signal)
			pass_signal(c, &forwarded);
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			record_say("scope-bpfd: poll: %s", strerror(errno));
			return 1;
		}
		if (p[1].revents && read(p[1].fd, &requests, sizeof(requests)) < 0)
			requests = 0;
		if (!p[0].revents)
			continue;
		n = sb_bpfd_recv(c->sock, &m, fds, &n_fds);
		sb_bpfd_close_fds(fds, n_fds);
		if (n == -EINTR)
			continue;
		break;
	}
	if (n <= 0 || sb_bpfd_check(&m, (size_t)n, &err) || m.h.kind != SB_BPFD_RESULT) {
		record_say("scope-bpfd ended the connection without a result%s%s (its log may say "
			   "why)", err.msg[0] ? ": " : "", err.msg);
		return 1;
	}
	if (*sb_bpfd_result_text(&m))
		fprintf(stderr, "%s\n", sb_bpfd_result_text(&m));
	return m.h.arg;
}

/* The exec's errno the child sent, 0 once it ran (EOF) or never tried. */
static int exec_error(struct client *c)
{
	ssize_t n;
	int e = 0;

	do
		n = read(c->child.err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(e) ? e : 0;
}

/* The command's failure says more than ours; a clean run with data missing does not (as record). */
static int reap_command(struct client *c, int status)
{
	int wstatus = 0, command, e;

	if (c->child.go_fd >= 0)
		close(c->child.go_fd);
	c->child.go_fd = -1;
	while (waitpid(c->child.pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	e = exec_error(c);
	close(c->child.err_fd);
	c->child.err_fd = -1;
	if (e)
		record_say("%s: cannot run: %s", c->o->cmd[0], strerror(e));
	command = sb_exit_status(wstatus);
	return (status == 0 || status == SB_EXIT_INCOMPLETE) && command ? command : status;
}

static void client_close(struct client *c, int status)
{
	struct stat st;

	if (c->created && status != 0 && status != SB_EXIT_INCOMPLETE &&
	    !fstat(c->out_fd, &st) && st.st_size == 0)
		unlink(c->out_path);
	if (c->out_fd > STDERR_FILENO)
		close(c->out_fd);
	if (c->child_pidfd >= 0)
		close(c->child_pidfd);
	if (c->sock >= 0)
		close(c->sock);
	free(c->out_path);
}

int sb_client_record(int argc, char **argv, const struct record_opts *o)
{
	struct record_opts mine = *o;
	struct client c = { .o = &mine, .out_fd = -1, .child_pidfd = -1,
			    .child = { .pid = -1, .go_fd = -1, .err_fd = -1 } };
	int status;

	if (o->daemon == SB_DAEMON_NEVER || (o->daemon == SB_DAEMON_AUTO && geteuid() == 0))
		return SB_CLIENT_LOCAL;
	c.sock = connect_daemon(socket_path());
	if (c.sock < 0) {
		if (o->daemon == SB_DAEMON_AUTO)
			return SB_CLIENT_LOCAL;
		record_say("--daemon: scope-bpfd at %s: %s (is it running? docs/CLUSTERS.md)",
			   socket_path(), strerror(errno));
		return 1;
	}
	sb_stop_signals_install();
	status = open_output(&c);
	if (!status && o->cmd)
		status = hold_command(&c);
	if (!status)
		status = send_request(&c, argc, argv);
	if (!status) {
		/* The daemon holds the command's pipes now: ours would keep it waiting. */
		if (o->cmd) {
			close(c.child.go_fd);
			c.child.go_fd = -1;
		}
		status = wait_result(&c);
	}
	if (c.child.pid > 0)
		status = reap_command(&c, status);
	client_close(&c, status);
	return status;
}
