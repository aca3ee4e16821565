/* Options of `scope-bpf record`, parsed apart from running so they can be tested. */
#ifndef SB_RECORD_OPTS_H
#define SB_RECORD_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "counters/events.h"
#include "counters/likwid.h"
#include "util/error.h"

#define SB_DEFAULT_SAMPLE_HZ 99	/* not 100: avoids lockstep with timer-driven work */

/* --mode: how markers reach the recorder (docs/DESIGN.md, "The fast path"). */
enum sb_record_mode {
	SB_MODE_AUTO,		/* the fast path where a binary's header has it, else the kernel's */
	SB_MODE_FAST,		/* the same, but counters (which need the kernel path) are refused */
	SB_MODE_KERNEL,		/* every marker traps to a uprobe */
};

/* --mpi=uprobes|pmpi: how MPI calls are timed (docs/MPI.md). */
enum sb_mpi_path {
	SB_MPI_PATH_AUTO,	/* the PMPI library when launching a command, else the uprobes */
	SB_MPI_PATH_UPROBES,	/* an entry and a return uprobe on each call */
	SB_MPI_PATH_PMPI,	/* the interposition library, preloaded into the command */
};

/* --daemon / --no-daemon: whether record goes through scope-bpfd (docs/CLUSTERS.md). */
enum sb_daemon_use {
	SB_DAEMON_AUTO,		/* when not root and scope-bpfd listens */
	SB_DAEMON_ALWAYS,
	SB_DAEMON_NEVER,
};

struct sb_daemon_target;

struct record_opts {
	pid_t pid;		/* -p: attach to this process and its descendants */
	bool all;		/* -a: every process that runs scope_bpf probes or MPI (syswide.c) */
	const char *exe;	/* --exe PATH (-a): only processes running this file */
	const char *comm;	/* --comm NAME (-a): only processes of this name */
	bool until_idle;	/* --until-idle (-a): stop once every traced process ended */
	const char *ranks_arg;	/* --ranks LIST (-a), as written */
	uint32_t *ranks;	/* its ranks, sorted, no repeats (malloc'd: record_opts_free) */
	size_t n_ranks;
	char **cmd;		/* -- CMD ARGS: launch this (NULL-terminated) */
	const char *output;	/* -o, default scope-bpf.h5 */
	double duration;	/* -d seconds, 0 = until the target ends or a signal */
	int sample_hz;		/* --sample[=HZ]: CPU samples per second per CPU, 0 = off */
	bool kernel_stacks;	/* --kernel-stacks */
	bool offcpu_stacks;	/* --offcpu-stacks */
	uint64_t offcpu_min_ns;	/* --offcpu-min-us */
	const char *user;	/* --user: run the command as this user */
	bool no_mpi;		/* --no-mpi: MPI calls are not regions */
	bool no_omp;		/* --no-omp: OpenMP constructs are not regions */
	bool cuda;		/* --cuda: the command's CUDA driver loads the CUPTI library */
	bool no_cuda_host;	/* --no-cuda-host: CUDA runtime calls are not regions */
	unsigned annotations;	/* SB_ANNOT_*: the command's NVTX, Kokkos, ITT ranges as regions */
	bool annotations_given;	/* --annotations: chosen, not the default */
	bool mpi_all;		/* --mpi=all: polling MPI calls (MPI_Test*, MPI_Iprobe, MPI_Wtime) too */
	enum sb_mpi_path mpi_path;	/* --mpi=uprobes|pmpi, else $SCOPE_BPF_MPI, else auto */
	bool mpi_pmpi;		/* set by record/mpi_env.c: the command loads the PMPI library */
	bool as_root;		/* --as-root: under sudo, do not run the command as the sudo user */
	enum sb_record_mode mode;	/* --mode */
	uint64_t buffer_bytes;	/* --buffer: the fast path's queue, 0 = from the memory available */
	/* -e, or -g's events: counted per thread, read at every region boundary (docs/COUNTERS.md) */
	struct sb_counter_set counters;
	struct sb_likwid_group *group;	/* -g: the LIKWID group loaded; record_opts_free() frees it */
	bool memory;		/* --memory: model/memory.h's values appended to counters */
	uint64_t max_size;	/* --max-size: bytes of calls kept (struct sb_spill_rec each), 0 = all */
	/* --aggregate[=WINDOW]: calls summed per thread, region path and window (docs/FORMAT.md) */
	bool aggregate;
	int64_t aggregate_window_ns;	/* 0: one window for the whole recording */
	/* --rotate=INTERVAL: one file per interval, numbered by -o's %n (docs/FORMAT.md, "Rotation") */
	int64_t rotate_ns;	/* 0: one file for the whole recording */
	uint64_t rotate_size;	/* --rotate-size: a new file once the calls take this, 0 = none */
	unsigned rotate_keep;	/* --rotate-keep: only the newest files are kept, 0 = all */
	bool quiet;
	bool verbose;
	bool help;
	bool list_events;	/* --list-events: print the counter events this machine has, record nothing */
	bool list_groups;	/* --list-groups: print this CPU's LIKWID groups, record nothing */
	enum sb_daemon_use daemon;	/* --daemon, --no-daemon */
	/* Set by scope-bpfd's worker only: the target it checked (record/held.h). */
	const struct sb_daemon_target *daemon_target;
};

/* 0 on success, -EINVAL with err->msg naming the option and the problem. */
int record_parse_args(int argc, char **argv, struct record_opts *o, struct sb_error *err);
void record_usage(FILE *f);
/* Whether markers that support it write to shared memory: not with counters (read per boundary). */
bool record_fast_wanted(const struct record_opts *o);
const char *record_mode_name(enum sb_record_mode mode);
/* What parsing allocated (the --ranks list, the -g group); o stays parseable. */
void record_opts_free(struct record_opts *o);

#endif
