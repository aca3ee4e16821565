/* Runs a command with empty BPF programs on its scope_bpf region probes: the tracing floor for make bench. */

/*
 * Usage: empty_tracer [-n|-s] PROGRAM [ARGS...]
 *
 * Attaches bpf/bench_empty.bpf.c to region_begin and region_end of PROGRAM
 * (every process running it), then runs it and exits with its status; -s
 * attaches its empty sched_switch program instead (every task's switches).
 * The programs are loaded sleepable, as scope-bpf loads its marker
 * programs, so the two are compared on the same kind of uprobe; -n loads
 * them non-sleepable. Prints "empty_tracer: sleepable=0|1" on stderr,
 * because a kernel that refuses sleepable uprobes gets the plain ones.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench_empty.skel.h"

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Only libbpf's warnings help when a load or attach fails. */
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static struct bench_empty_bpf *load(bool sleepable)
{
	struct bench_empty_bpf *skel = bench_empty_bpf__open();

	if (!skel)
		return NULL;
	if (sleepable) {
		bpf_program__set_flags(skel->progs.empty_begin, BPF_F_SLEEPABLE);
		bpf_program__set_flags(skel->progs.empty_end, BPF_F_SLEEPABLE);
	}
	if (bench_empty_bpf__load(skel)) {
		bench_empty_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

static int attach(struct bpf_program *prog, const char *path, const char *probe,
		  struct bpf_link **link)
{
	*link = bpf_program__attach_usdt(prog, -1, path, "scope_bpf", probe, NULL);
	if (!*link) {
		fprintf(stderr, "empty_tracer: %s: attaching scope_bpf:%s: %s\n", path, probe,
			strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	struct bpf_link *begin = NULL, *end = NULL;
	struct bench_empty_bpf *skel = NULL;
	bool sleepable = true, on_switch = false;
	char path[PATH_MAX];
	int argi = 1, status, ret = 1;
	pid_t pid;

	if (argi < argc && !strcmp(argv[argi], "-n")) {
		sleepable = false;
		argi++;
	} else if (argi < argc && !strcmp(argv[argi], "-s")) {
		on_switch = true;
		argi++;
	}
	if (argi >= argc) {
		fprintf(stderr, "usage: empty_tracer [-n|-s] PROGRAM [ARGS...]\n");
		return 2;
	}
	if (!realpath(argv[argi], path)) {
		fprintf(stderr, "empty_tracer: %s: %s\n", argv[argi], strerror(errno));
		return 2;
	}
	libbpf_set_print(quiet_print);
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	skel = load(sleepable);
	if (!skel && sleepable) {
		sleepable = false;
		skel = load(false);
	}
	if (!skel) {
		fprintf(stderr, "empty_tracer: loading the BPF programs failed: %s\n", strerror(errno));
		return 1;
	}
	fprintf(stderr, "empty_tracer: sleepable=%d\n", sleepable);
	if (on_switch) {
		begin = bpf_program__attach(skel->progs.empty_switch);
		if (!begin) {
			fprintf(stderr, "empty_tracer: attaching sched_switch: %s\n", strerror(errno));
			goto out;
		}
	} else if (attach(skel->progs.empty_begin, path, "region_begin", &begin) ||
		   attach(skel->progs.empty_end, path, "region_end", &end)) {
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("empty_tracer: fork");
		goto out;
	}
	if (pid == 0) {
		execv(path, argv + argi);
		fprintf(stderr, "empty_tracer: %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("empty_tracer: waitpid");
			goto out;
		}
	}
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	bpf_link__destroy(end);
	bpf_link__destroy(begin);
	bench_empty_bpf__destroy(skel);
	return ret;
}
