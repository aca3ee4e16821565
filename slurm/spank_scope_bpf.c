/*
 * Slurm's SPANK plugin for scope-bpf (docs/CLUSTERS.md): srun, sbatch and
 * salloc take --scope-bpf[=OPTIONS], and each task of the step then runs
 * under `scope-bpf record`, as the job's user: where Slurm would exec the
 * task's program, the task runs record instead, which launches the program
 * and records it through scope-bpfd (or directly when the user is root), so
 * the daemon's checks and policy are the only privileged path. The task
 * waits for record and then takes its part in the merges (step_merge.c):
 * the node's last task makes prof.NODE.h5, the step's last node prof.h5.
 *
 * plugstack.conf: optional PATH/spank_scope_bpf.so [bin=PATH/scope-bpf]
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "spank_opts.h"
#include "step_merge.h"

SPANK_PLUGIN(scope-bpf, 1);

#ifndef SCOPE_BPF_BIN
#define SCOPE_BPF_BIN "/usr/local/bin/scope-bpf"
#endif

static const char *bin = SCOPE_BPF_BIN;
static struct sb_spank_opts opts;
static bool wanted;

static int option_cb(int val, const char *optarg, int remote)
{
	char err[256];

	(void)val;
	(void)remote;
	sb_spank_opts_free(&opts);
	if (sb_spank_opts_parse(optarg, &opts, err, sizeof(err))) {
		slurm_error("%s", err);
		return -1;
	}
	wanted = true;
	return 0;
}

static struct spank_option option = {
	"scope-bpf", "OPTIONS",
	"record each task with scope-bpf: each node's into DIR/scope-bpf.JOB.STEP/prof.NODE.h5, "
	"the step's into prof.h5 there; OPTIONS: dir=DIR (default: the submit folder) and "
	"record's options, blank-separated (docs/CLUSTERS.md)",
	2, 0, option_cb
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	int i;

	for (i = 0; i < ac; i++) {
		if (!strncmp(av[i], "bin=", 4) && av[i][4] == '/') {
			bin = av[i] + 4;
		} else {
			slurm_error("scope-bpf: plugstack.conf: '%s' is not bin=/ABSOLUTE/PATH", av[i]);
			return -1;
		}
	}
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE && ctx != S_CTX_ALLOCATOR)
		return 0;
	return spank_option_register(sp, &option) == ESPANK_SUCCESS ? 0 : -1;
}

/* Only the steps that run the user's tasks: not the batch script's nor the extern step. */
static bool recorded_step(spank_t sp, uint32_t *job, uint32_t *step)
{
	return wanted && spank_remote(sp) && spank_get_item(sp, S_JOB_ID, job) == ESPANK_SUCCESS &&
	       spank_get_item(sp, S_JOB_STEPID, step) == ESPANK_SUCCESS &&
	       *step < SLURM_MAX_NORMAL_STEP_ID;
}

/* The step's folder, made (and the one it is in) if need be. */
static int step_dir(spank_t sp, uint32_t job, uint32_t step, char *dir, size_t size)
{
	char submit[PATH_MAX], base[PATH_MAX];

	if (spank_getenv(sp, "SLURM_SUBMIT_DIR", submit, sizeof(submit)) != ESPANK_SUCCESS ||
	    submit[0] != '/') {
		fprintf(stderr, "scope-bpf: the job has no SLURM_SUBMIT_DIR to put its profiles in\n");
		return -1;
	}
	if (size > sizeof(base) || sb_spank_step_dir(&opts, submit, job, step, base, dir, size)) {
		fprintf(stderr, "scope-bpf: the profiles' folder's name is too long\n");
		return -1;
	}
	if ((mkdir(base, 0777) && errno != EEXIST) || (mkdir(dir, 0777) && errno != EEXIST)) {
		fprintf(stderr, "scope-bpf: %s: cannot make the profiles' folder: %s\n", dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Slurm's name of this node (two slurmd on one host have one host name). */
static void node_name(spank_t sp, char *node, size_t size)
{
	if (spank_getenv(sp, "SLURMD_NODENAME", node, size) == ESPANK_SUCCESS &&
	    sb_spank_node_ok(node))
		return;
	if (gethostname(node, size) || !sb_spank_node_ok(node))
		snprintf(node, size, "node");
	node[strcspn(node, ".")] = 0;
}

/*
 * record in a child; the task waits for it, deaf to the signals Slurm sends
 * to every process of the step (record gets them itself and passes them on).
 * Its exit status, as a shell would give it.
 */
static int run_record(char **argv, char **env)
{
	static const int passed_on[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	int status;
	size_t i;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		execve(bin, argv, env);
		fprintf(stderr, "scope-bpf: %s: cannot run: %s\n", bin, strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return 126;
	for (i = 0; i < sizeof(passed_on) / sizeof(passed_on[0]); i++)
		signal(passed_on[i], SIG_IGN);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 126;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* This node's tasks, by global id, and the step's node count. */
static int step_tasks(spank_t sp, struct sb_step *s, uint32_t **tasks)
{
	uint32_t n_local, i;

	if (spank_get_item(sp, S_JOB_NNODES, &s->n_nodes) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &n_local) != ESPANK_SUCCESS)
		return -1;
	*tasks = calloc(n_local + 1, sizeof(**tasks));
	if (!*tasks)
		return -1;
	for (i = 0; i < n_local; i++)
		if (spank_get_item(sp, S_JOB_LOCAL_TO_GLOBAL_ID, i, &(*tasks)[i]) != ESPANK_SUCCESS)
			return -1;
	s->tasks = *tasks;
	s->n_tasks = n_local;
	return 0;
}

/*
 * In the task, as the user, just before Slurm would exec the program: record
 * runs it instead, and the task ends with its status once the merges that
 * fall to it are done. Returns only when it could not start.
 */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	char dir[PATH_MAX], file[PATH_MAX], node[256], **argv, **env, **rec;
	struct sb_step s = { .bin = bin, .dir = dir, .node = node };
	uint32_t job, step, task, *tasks = NULL;
	int argc, status;

	(void)ac;
	(void)av;
	if (!recorded_step(sp, &job, &step))
		return 0;
	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &task) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS ||
	    step_dir(sp, job, step, dir, sizeof(dir)) || step_tasks(sp, &s, &tasks))
		goto fail;
	node_name(sp, node, sizeof(node));
	if (sb_spank_task_file(dir, node, task, file, sizeof(file)))
		goto fail;
	rec = sb_spank_record_argv(bin, &opts, file, getuid() != 0, argc, argv);
	if (!rec)
		goto fail;
	status = run_record(rec, env);
	sb_step_task_done(&s);
	_exit(status);
fail:
	free(tasks);
	return -1;
}
