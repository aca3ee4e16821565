/*
 * The merges at a step's end, run in its tasks as the job's user: each task
 * whose recording ended adds a line to its node's list (.tasks.NODE, under
 * a lock); the task that completes it merges the node's task profiles
 * (prof.NODE.tTASK.h5) into prof.NODE.h5 and adds that name to the step's
 * list (.nodes); the node that completes that one merges the listed files
 * into prof.h5. Tasks, not slurmstepd, do it: Slurm waits for its tasks, but
 * ends what slurmstepd leaves running. A node whose tasks left no profile
 * lists "-", so that the step's profile is still made of the others.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "spank_opts.h"
#include "step_merge.h"

#define LIST_MAX 65536

/* scope-bpf merge -q -o OUT IN...; its status, -1 when it could not run. */
static int run_merge(const char *bin, const char *out, char **in, size_t n)
{
	char **argv = calloc(n + 6, sizeof(*argv));
	int status = -1;
	pid_t pid;
	size_t i;

	if (!argv)
		return -1;
	argv[0] = (char *)bin;
	argv[1] = "merge";
	argv[2] = "-q";
	argv[3] = "-o";
	argv[4] = (char *)out;
	for (i = 0; i < n; i++)
		argv[5 + i] = in[i];
	pid = fork();
	if (pid == 0) {
		execv(bin, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	free(argv);
	if (status)
		slurm_error("scope-bpf: merging into %s failed (status %d)", out, status);
	return status;
}

/* The node's task files that exist, by their global task ids. */
static size_t task_files(const struct sb_step *s, char **files)
{
	char path[PATH_MAX];
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < s->n_tasks; i++)
		if (!sb_spank_task_file(s->dir, s->node, s->tasks[i], path, sizeof(path)) &&
		    !access(path, F_OK) && (files[n] = strdup(path)))
			n++;
	return n;
}

/* Adds line to the list DIR/name; its text when that made it want lines long, else NULL. */
static char *add_to_list(const char *dir, const char *name, const char *line, uint32_t want)
{
	char path[PATH_MAX], *list = NULL;
	uint32_t lines = 0;
	ssize_t len;
	int fd, i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		goto out;
	list = malloc(LIST_MAX + 1);
	len = list ? pread(fd, list, LIST_MAX, 0) : -1;
	if (len < 0)
		len = 0;
	for (i = 0; list && i < len; i++)
		lines += list[i] == '\n';
	if (!list || lines != want) {
		free(list);
		list = NULL;
		goto out;
	}
	list[len] = 0;
	unlink(path);
out:
	if (fd >= 0)
		close(fd);
	return list;
}

/* The step's profile from the listed node files; "-" lines are nodes that had none. */
static int merge_step(const struct sb_step *s, char *list)
{
	char out[PATH_MAX], *in[1024], *line, *save = NULL;
	size_t n = 0, i;
	int ret;

	for (line = strtok_r(list, "\n", &save); line && n < 1024; line = strtok_r(NULL, "\n", &save))
		if (strcmp(line, "-") && asprintf(&in[n], "%s/%s", s->dir, line) > 0)
			n++;
	snprintf(out, sizeof(out), "%s/prof.h5", s->dir);
	ret = n ? run_merge(s->bin, out, in, n) : 0;
	for (i = 0; i < n; i++)
		free(in[i]);
	return ret ? -1 : 0;
}

/* The node's task files into prof.NODE.h5; the line the node adds to the step's list. */
static int merge_node(const struct sb_step *s, char *line, size_t size)
{
	char out[PATH_MAX], **files = calloc(s->n_tasks + 1, sizeof(*files));
	size_t n = files ? task_files(s, files) : 0, i;
	int ret = files ? 0 : -1;

	snprintf(line, size, "-\n");
	if (n) {
		snprintf(out, sizeof(out), "%s/prof.%s.h5", s->dir, s->node);
		ret = run_merge(s->bin, out, files, n);
		if (!ret)
			snprintf(line, size, "prof.%s.h5\n", s->node);
	}
	for (i = 0; i < n; i++) {
		if (!ret)
			unlink(files[i]);
		free(files[i]);
	}
	free(files);
	return ret;
}

int sb_step_task_done(const struct sb_step *s)
{
	char name[300], line[300], *list;
	int ret;

	snprintf(name, sizeof(name), ".tasks.%s", s->node);
	list = add_to_list(s->dir, name, "\n", s->n_tasks);
	if (!list)
		return 0;
	free(list);
	ret = merge_node(s, line, sizeof(line));
	list = add_to_list(s->dir, ".nodes", line, s->n_nodes);
	if (list)
		ret |= merge_step(s, list);
	free(list);
	return ret ? -1 : 0;
}
