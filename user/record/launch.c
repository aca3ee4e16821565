/*
 * Launching. The child is forked first and waits on a pipe so the tracer can put
 * it in the traced set before it execs; the exec's own tracepoint then stops it
 * until its probes are attached, so tracing starts at the first instruction.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/launch.h"
#include "util/proc_stat.h"

#define GO_BYTE 'g'

/* Wait for the go byte; anything else (EOF: the recorder died) means do not run. */
static bool wait_for_go(int go_rd)
{
	char byte = 0;
	ssize_t n;

	do
		n = read(go_rd, &byte, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 && byte == GO_BYTE;
}

/* The command's own open-files limit, from before the recorder raised its own. */
static struct rlimit files_before;
static bool files_raised;

void sb_launch_raise_files(void)
{
	struct rlimit r;

	if (files_raised || getrlimit(RLIMIT_NOFILE, &r))
		return;
	files_before = r;
	r.rlim_cur = r.rlim_max;
	files_raised = !setrlimit(RLIMIT_NOFILE, &r);
}

static void child_main(pid_t recorder, int go_rd, int err_wr, char **cmd,
		       const struct sb_runas *who)
{
	int e;

	/* The command runs with the limits it was given, not the recorder's. */
	if (files_raised)
		setrlimit(RLIMIT_NOFILE, &files_before);

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/*
	 * Die with the recorder while waiting, even if someone else holds the go
	 * pipe open; the recorder may have died before the prctl, hence getppid().
	 * The signal follows the thread that forked us: the recorder's main thread.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != recorder)
		_exit(126);
	if (!wait_for_go(go_rd))
		_exit(126);
	e = who ? -sb_runas_apply(who) : 0;
	/* Once it runs, the command is the user's job: it outlives a recorder that dies later. */
	if (!e && !prctl(PR_SET_PDEATHSIG, 0))
		execvp(cmd[0], cmd);
	e = e ? e : errno;
	if (write(err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(e == ENOENT ? 127 : 126);
}

int sb_launch_prepare(struct sb_child *child, char **cmd, const struct sb_runas *who,
		      struct sb_error *err)
{
	pid_t recorder = getpid();
	int go[2], ex[2];

	if (pipe2(go, O_CLOEXEC))
		return sb_fail(err, errno, "pipe: %s", strerror(errno));
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return sb_fail(err, errno, "pipe: %s", strerror(errno));
	}
	fflush(NULL);
	child->pid = fork();
	if (child->pid < 0) {
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return sb_fail(err, errno, "fork: %s", strerror(errno));
	}
	if (child->pid == 0) {
		close(go[1]);
		close(ex[0]);
		child_main(recorder, go[0], ex[1], cmd, who);
	}
	close(go[0]);
	close(ex[1]);
	child->go_fd = go[1];
	child->err_fd = ex[0];
	return 0;
}

/* The go byte; a child that is gone already must not take the recorder with it (SIGPIPE). */
static int send_go(int fd)
{
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old;
	static const char go = GO_BYTE;
	ssize_t n;
	int e;

	sigemptyset(&ignore.sa_mask);
	sigaction(SIGPIPE, &ignore, &old);
	do
		n = write(fd, &go, 1);
	while (n < 0 && errno == EINTR);
	e = n == 1 ? 0 : -errno;
	sigaction(SIGPIPE, &old, NULL);
	return e;
}

int sb_launch_go(struct sb_child *child)
{
	ssize_t n;
	int e = 0, sent;

	sent = send_go(child->go_fd);
	close(child->go_fd);
	child->go_fd = -1;
	do
		n = read(child->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(child->err_fd);
	child->err_fd = -1;
	if (sent)
		return sent;
	return n == (ssize_t)sizeof(e) ? -e : 0;
}

int sb_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

static pid_t parent_of(pid_t pid)
{
	pid_t ppid;
	char state;

	return sb_proc_stat(pid, &state, &ppid) ? -1 : ppid;
}

char sb_process_state(pid_t pid)
{
	pid_t ppid;
	char state;

	return sb_proc_stat(pid, &state, &ppid) ? 0 : state;
}

bool sb_process_gone(pid_t pid)
{
	return (kill(pid, 0) && errno == ESRCH) || sb_process_state(pid) == 'Z';
}

struct proc_link {
	pid_t pid;
	pid_t ppid;
};

static struct proc_link *all_processes(size_t *n)
{
	struct proc_link *list = NULL, *grown;
	size_t cap = 0;
	struct dirent *d;
	DIR *dir;
	long pid;

	*n = 0;
	dir = opendir("/proc");
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		pid = strtol(d->d_name, NULL, 10);
		if (pid <= 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			grown = realloc(list, cap * sizeof(*list));
			if (!grown)
				break;
			list = grown;
		}
		list[*n].pid = (pid_t)pid;
		list[(*n)++].ppid = parent_of((pid_t)pid);
	}
	closedir(dir);
	return list;
}

pid_t *sb_process_tree(pid_t pid, size_t *n)
{
	size_t n_all, i, head = 0;
	struct proc_link *all = all_processes(&n_all);
	pid_t *tree = calloc(n_all + 1, sizeof(*tree));

	*n = 0;
	if (!tree) {
		free(all);
		return NULL;
	}
	tree[(*n)++] = pid;
	/* Breadth first: each process's children are appended once. */
	while (head < *n) {
		for (i = 0; i < n_all; i++)
			if (all[i].ppid == tree[head] && all[i].pid != pid && *n < n_all + 1)
				tree[(*n)++] = all[i].pid;
		head++;
	}
	free(all);
	return tree;
}

void sb_process_name(pid_t pid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(buf, size, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}
