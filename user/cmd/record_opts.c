/* Command-line parsing of `scope-bpf record`. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "analysis/filter.h"
#include "cmd/record_opts.h"
#include "cmd/suggest.h"
#include "model/memory.h"
#include "record/annot_env.h"
#include "record/outpath.h"
#include "region.h"

void record_usage(FILE *f)
{
	fprintf(f,
		"usage: scope-bpf record [OPTIONS] -- CMD [ARGS...]\n"
		"       scope-bpf record [OPTIONS] -p PID\n"
		"       scope-bpf record [OPTIONS] -a [--exe PATH] [--comm NAME] [--ranks LIST]\n"
		"\n"
		"Trace the scope_bpf regions of a command (from its first instruction, with its\n"
		"child processes), of a running process and its descendants, or of every\n"
		"process of this machine that runs them or an MPI library (-a: one recorder per\n"
		"node of a job, docs/MPI.md), and write an HDF5 profile.\n"
		"\n"
		"  -p, --pid PID          attach to a running process\n"
		"  -a, --all              system-wide: every process, running or started later,\n"
		"                         whose executable has scope_bpf probes or needs an MPI\n"
		"                         library (launchers and shells are left out)\n"
		"      --exe PATH         -a: only processes running this file (same inode),\n"
		"                         whatever it contains\n"
		"      --comm NAME        -a: only processes of this name (its first 15 bytes)\n"
		"      --ranks LIST       -a: only these MPI ranks, e.g. 0-3,7 (from each process's\n"
		"                         launcher variables; a process without a rank is left out)\n"
		"      --until-idle       -a: stop once every traced process has ended\n"
		"  -o, --output FILE      profile to write (default scope-bpf.h5); - for standard\n"
		"                         output (a launched command's output then goes to stderr);\n"
		"                         %%h short host name, %%p this recorder's pid, %%r the MPI\n"
		"                         rank of -p's process or of the command, from the\n"
		"                         launcher's variables (x when none), under -a the\n"
		"                         --ranks LIST as written (needs --ranks), %%%% a %%\n"
		"  -d, --duration SECS    stop recording after SECS seconds\n"
		"      --sample[=HZ]      sample stacks HZ times a second per CPU (default %d)\n"
		"      --kernel-stacks    samples take kernel stacks too\n"
		"      --offcpu-stacks    record where threads block, and for how long\n"
		"      --offcpu-min-us N  ignore blocks shorter than N microseconds (default 0)\n"
		"      --user NAME        run the command as user NAME (a name or a uid; needs root)\n"
		"      --as-root          under sudo, run the command as root\n"
		"      --mpi[=LIST]       time every MPI call as a region (the default); LIST:\n"
		"                         all: polling calls too (MPI_Test*, MPI_Iprobe,\n"
		"                         MPI_Wtime); pmpi: through the interposition library\n"
		"                         (the default for a command), uprobes: through uprobes\n"
		"                         (the default for -p and -a; $SCOPE_BPF_MPI sets it)\n"
		"      --no-mpi           do not time MPI calls (docs/MPI.md)\n"
		"      --no-omp           do not time OpenMP constructs of gcc's libgomp\n"
		"                         (parallel regions per thread, barriers: docs/OPENMP.md)\n"
		"      --cuda             record the command's CUDA kernels, copies and\n"
		"                         synchronizations with CUPTI, GPU time per region\n"
		"                         (needs a command: docs/CUDA.md)\n"
		"      --no-cuda-host     do not time CUDA runtime calls (libcudart) on the host\n"
		"                         (launches, copies, synchronizations: docs/CUDA.md)\n"
		"      --annotations LIST the command's NVTX, Kokkos Tools and ITT ranges are\n"
		"                         regions: nvtx,kokkos,itt, all (the default for a\n"
		"                         command) or none (docs/ANNOTATIONS.md)\n"
		"      --mode MODE        how markers reach the recorder: auto (the default:\n"
		"                         shared memory where the binary's header has it, else\n"
		"                         a trap per marker), fast (the same; refuses counters),\n"
		"                         kernel (a trap per marker; docs/DESIGN.md)\n"
		"      --buffer SIZE      memory the fast path's records may wait in for the\n"
		"                         recorder, e.g. 512M or 2G (default: a quarter of the\n"
		"                         memory available, 128M to 4G); beyond it, and when the\n"
		"                         machine runs short of memory, records are dropped and\n"
		"                         counted, never waited for\n"
		"  -e, --events LIST      count these events per region call and thread, e.g.\n"
		"                         page-faults,context-switches (docs/COUNTERS.md)\n"
		"  -g, --group GROUP      count the events of this LIKWID group (FLOPS_DP, MEM, ...)\n"
		"      --memory           memory per region call: resident bytes gained and\n"
		"                         given back, growth of the peak, page faults; read in\n"
		"                         the kernel at each region boundary, like -e (four of\n"
		"                         its eight slots; report --memory, docs/COUNTERS.md)\n"
		"      --aggregate[=WINDOW]\n"
		"                         keep per thread and region path only the calls' count,\n"
		"                         total, own, min, max, off-CPU time, counters and a log2\n"
		"                         histogram of durations: a file whose size does not grow\n"
		"                         with the calls; with WINDOW (e.g. 1s, 100ms) one such\n"
		"                         row per window (docs/FORMAT.md, \"Aggregates\")\n"
		"      --max-size SIZE    keep calls in the file until they take SIZE as the\n"
		"                         recorder holds them (56 bytes a call on disk while\n"
		"                         recording; the file is smaller), e.g. 10G; later calls\n"
		"                         are counted (calls_over_max_size), not kept, and record\n"
		"                         exits 3. Not with --aggregate, whose size is bounded\n"
		"      --rotate=INTERVAL  one file per INTERVAL (e.g. 10s, 5min), each a whole\n"
		"                         profile: -o must hold %%n, the file's number from 0\n"
		"                         (e.g. -o run.%%n.h5); with --max-size, each file's cap\n"
		"      --rotate-size=SIZE a new file also (or only) once the calls take SIZE as\n"
		"                         --max-size counts them (e.g. 1G); none is dropped\n"
		"      --rotate-keep=N    keep only the newest N files: older ones are deleted,\n"
		"                         said and counted (rotate_files_deleted)\n"
		"      --daemon           record through scope-bpfd, the node daemon (the default\n"
		"                         when not root and it listens: docs/CLUSTERS.md)\n"
		"      --no-daemon        never through scope-bpfd\n"
		"  -q, --quiet            no status line, no summary (losses are still said)\n"
		"  -v, --verbose          say what is attached, show libbpf messages\n"
		"      --list-events      the counter events this machine has (docs/COUNTERS.md)\n"
		"      --list-groups      this CPU's LIKWID groups (docs/COUNTERS.md)\n"
		"  -h, --help             this text\n"
		"\n"
		"Under sudo the command runs as the user who ran sudo (their uid, gid, groups,\n"
		"HOME, USER and LOGNAME), not as root, and the profile belongs to that user.\n"
		"\n"
		"Recording stops on Ctrl-C, SIGTERM, the duration, or the target's exit (-a:\n"
		"--until-idle); what was collected is always written. With a command, exits\n"
		"with its status. -a says \"scope-bpf: recording\" on stderr once it traces.\n",
		SB_DEFAULT_SAMPLE_HZ);
}

static int parse_pid(const char *s, pid_t *pid, struct sb_error *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v <= 0 || v > INT_MAX)
		return sb_fail(err, EINVAL, "-p %s: not a process id", s);
	*pid = (pid_t)v;
	return 0;
}

/* Whether s is a plain decimal from min to max, into *v. */
static bool long_in(const char *s, long min, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return !errno && !*end && end != s && *v >= min && *v <= max;
}

static int parse_hz(const char *s, int *hz, struct sb_error *err)
{
	long v;

	if (!long_in(s, 1, 100000, &v))
		return sb_fail(err, EINVAL, "--sample=%s: not a frequency between 1 and 100000 Hz", s);
	*hz = (int)v;
	return 0;
}

static int parse_min_us(const char *s, uint64_t *ns, struct sb_error *err)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > 3600LL * 1000000)
		return sb_fail(err, EINVAL, "--offcpu-min-us %s: not a number of microseconds", s);
	*ns = (uint64_t)v * 1000;
	return 0;
}

static int parse_duration(const char *s, double *d, struct sb_error *err)
{
	char *end;

	errno = 0;
	*d = strtod(s, &end);
	if (errno || *end || end == s || !(*d > 0) || *d > 1e9)
		return sb_fail(err, EINVAL, "-d %s: not a positive number of seconds", s);
	return 0;
}

/* A time option's value: a number with the unit ns, us, ms, s or min; 1 us to 1 day. */
static int parse_window(const char *opt, const char *s, int64_t *ns, struct sb_error *err)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 } };
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	for (i = 0; i < sizeof(units) / sizeof(units[0]) && end != s && !errno; i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].ns;
		if (!(v >= 1e3 && v <= 86400e9))
			break;
		*ns = (int64_t)v;
		return 0;
	}
	return sb_fail(err, EINVAL, "%s=%s: not %s between 1us and 1 day (e.g. 1s, 100ms)",
		       opt, s, strcmp(opt, "--rotate") ? "a window" : "an interval");
}

static int parse_exe(const char *s, const char **exe, struct sb_error *err)
{
	struct stat st;

	if (stat(s, &st))
		return sb_fail(err, EINVAL, "--exe %s: %s", s, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return sb_fail(err, EINVAL, "--exe %s: not a regular file", s);
	*exe = s;
	return 0;
}

static int parse_comm(const char *s, const char **comm, struct sb_error *err)
{
	if (!*s)
		return sb_fail(err, EINVAL, "--comm: empty process name");
	if (strlen(s) >= SB_COMM_LEN)
		return sb_fail(err, EINVAL, "--comm %s: process names are at most %d bytes (the "
			       "kernel's comm)", s, SB_COMM_LEN - 1);
	*comm = s;
	return 0;
}

static int parse_ranks(const char *s, struct record_opts *o, struct sb_error *err)
{
	struct sb_error why = { { 0 } };
	int e;

	free(o->ranks);
	o->ranks = NULL;
	e = sb_rank_list_parse(s, &o->ranks, &o->n_ranks, &why);
	if (e)
		return sb_fail(err, -e, "--ranks: %s", why.msg);
	o->ranks_arg = s;
	return 0;
}

/* -a's own options and its conflicts. */
static int check_all(const struct record_opts *o, struct sb_error *err)
{
	if (!o->all) {
		if (o->exe || o->comm || o->ranks_arg || o->until_idle)
			return sb_fail(err, EINVAL, "%s: only with -a",
				       o->exe ? "--exe" : o->comm ? "--comm" :
				       o->ranks_arg ? "--ranks" : "--until-idle");
		return 0;
	}
	if (o->pid)
		return sb_fail(err, EINVAL, "give either -a or -p PID, not both");
	if (o->cmd)
		return sb_fail(err, EINVAL, "-a records what already runs or starts on this "
			       "machine: give no command (%s)", o->cmd[0]);
	if (o->user || o->as_root)
		return sb_fail(err, EINVAL, "%s: only for a command, not with -a",
			       o->user ? "--user" : "--as-root");
	if (!o->ranks_arg && sb_outpath_wants(o->output, 'r'))
		return sb_fail(err, EINVAL, "-o %s: %%r under -a names the ranks of --ranks; give "
			       "--ranks, or use %%h for one file per node", o->output);
	return 0;
}

/* --rotate-keep: how many of the newest files stay, 1 to 1000000. */
static int parse_keep(const char *s, unsigned *keep, struct sb_error *err)
{
	long v;

	if (!long_in(s, 1, 1000000, &v))
		return sb_fail(err, EINVAL, "--rotate-keep=%s: not a number of files between 1 and "
			       "1000000", s);
	*keep = (unsigned)v;
	return 0;
}

/*
 * --rotate: each file a whole profile, named apart by %n. What is kept for
 * the whole recording (samples, CUDA activity) or is bounded already
 * (--aggregate) cannot be cut into files.
 */
static int check_rotate(const struct record_opts *o, struct sb_error *err)
{
	const char *opt = o->rotate_ns ? "--rotate" : "--rotate-size", *name;

	if (!o->rotate_ns && !o->rotate_size)
		return o->rotate_keep ? sb_fail(err, EINVAL, "--rotate-keep: only with --rotate or "
						"--rotate-size") : 0;
	if (!strcmp(o->output, "-"))
		return sb_fail(err, EINVAL, "%s: not with -o -: standard output takes one file",
			       opt);
	/* In the file's name only: every file goes to the folder the first one was checked in. */
	name = strrchr(o->output, '/');
	if (!sb_outpath_wants(name ? name + 1 : o->output, 'n'))
		return sb_fail(err, EINVAL, "%s: -o %s has no %%n in its file name to number the "
			       "files (e.g. -o run.%%n.h5)", opt, o->output);
	if (o->aggregate)
		return sb_fail(err, EINVAL, "%s: not with --aggregate, whose file does not grow "
			       "with the calls (--aggregate=WINDOW keeps a time series)", opt);
	if (o->sample_hz || o->offcpu_stacks || o->cuda)
		return sb_fail(err, EINVAL, "%s: not with %s, whose data is kept for the whole "
			       "recording", opt, o->cuda ? "--cuda" : o->sample_hz ? "--sample" :
			       "--offcpu-stacks");
	return 0;
}

/* long-only options: codes past any character */
enum { OPT_LIST_EVENTS = 256, OPT_LIST_GROUPS, OPT_CUDA, OPT_NO_CUDA_HOST, OPT_MODE,
       OPT_BUFFER, OPT_DAEMON, OPT_NO_DAEMON, OPT_ANNOTATIONS, OPT_MEMORY, OPT_AGGREGATE,
       OPT_MAX_SIZE, OPT_ROTATE, OPT_ROTATE_SIZE, OPT_ROTATE_KEEP };

/* -g: the group's events are the ones counted; with -e as well, which would be which is unclear. */
static int load_group(struct record_opts *o, const char *name, struct sb_error *err)
{
	int ret;

	if (o->counters.n)
		return sb_fail(err, EINVAL, "give either -e LIST or -g GROUP, not both");
	o->group = calloc(1, sizeof(*o->group));
	if (!o->group)
		return sb_fail(err, ENOMEM, "-g %s: out of memory", name);
	ret = sb_likwid_group_load(name, o->group, err);
	if (ret) {
		free(o->group);
		o->group = NULL;
		return ret;
	}
	if (!o->group->events.n)
		return sb_fail(err, EINVAL, "-g %s: no event of the group is counted per thread",
			       name);
	o->counters = o->group->events;
	return 0;
}

/*
 * --memory: its values after -e's events. Not with -g: the group's LIKWID
 * layout and metrics are made of its own events only.
 */
static int add_memory(struct record_opts *o, struct sb_error *err)
{
	struct sb_counter_event ev = { .memory = true };
	unsigned int i;
	int ret;

	if (o->group)
		return sb_fail(err, EINVAL, "--memory: not with -g (a LIKWID group's results hold "
			       "its own events only); give the events with -e instead");
	for (i = 0; i < SB_MEMORY_SLOTS; i++) {
		snprintf(ev.name, sizeof(ev.name), "%s", sb_memory_def(i)->name);
		ev.config = i;
		ret = sb_counter_set_add(&o->counters, &ev, err);
		if (ret == -E2BIG)
			return sb_fail(err, E2BIG, "--memory: its %d values and -e's %u events are "
				       "more than %d", SB_MEMORY_SLOTS,
				       o->counters.n - i, SB_MAX_COUNTERS);
		if (ret)
			return ret;
	}
	return 0;
}

/* Before anything is recorded: an event this machine cannot count is a usage error. */
static int check_counters(const struct record_opts *o, struct sb_error *err)
{
	unsigned int i;
	int ret;

	for (i = 0; i < o->counters.n; i++) {
		if (o->counters.ev[i].memory)
			continue;
		ret = sb_counter_event_check(&o->counters.ev[i], err);
		if (ret)
			return ret;
	}
	return 0;
}

static const char *const mode_names[] = {
	[SB_MODE_AUTO] = "auto",
	[SB_MODE_FAST] = "fast",
	[SB_MODE_KERNEL] = "kernel",
};

const char *record_mode_name(enum sb_record_mode mode)
{
	return mode <= SB_MODE_KERNEL ? mode_names[mode] : "?";
}

static int parse_mode(const char *s, enum sb_record_mode *mode, struct sb_error *err)
{
	unsigned int i;

	for (i = 0; i <= SB_MODE_KERNEL; i++) {
		if (!strcmp(s, mode_names[i])) {
			*mode = (enum sb_record_mode)i;
			return 0;
		}
	}
	return sb_fail(err, EINVAL, "--mode=%s: not auto, fast or kernel", s);
}

static const char *const mpi_path_names[] = { "auto", "uprobes", "pmpi" };

/*
 * One word of --mpi's list, or of $SCOPE_BPF_MPI (what, in messages, with
 * the whole list): all, uprobes or pmpi; all only in --mpi.
 */
static int parse_mpi_word(const char *w, size_t len, const char *what, const char *list,
			  struct record_opts *o, struct sb_error *err)
{
	unsigned int i;

	if (len == 3 && !strncmp(w, "all", 3) && strcmp(what, "SCOPE_BPF_MPI")) {
		o->mpi_all = true;
		return 0;
	}
	for (i = SB_MPI_PATH_UPROBES; i <= SB_MPI_PATH_PMPI; i++) {
		if (strlen(mpi_path_names[i]) == len && !strncmp(w, mpi_path_names[i], len)) {
			o->mpi_path = (enum sb_mpi_path)i;
			return 0;
		}
	}
	return sb_fail(err, EINVAL, "%s=%s: '%.*s' is not %s", what, list, (int)len, w,
		       strcmp(what, "SCOPE_BPF_MPI") ? "all, uprobes or pmpi" : "uprobes or pmpi");
}

/* --mpi=LIST (what: "--mpi") or $SCOPE_BPF_MPI: comma-separated words. */
static int parse_mpi(const char *list, const char *what, struct record_opts *o,
		     struct sb_error *err)
{
	const char *w = list, *comma;
	int ret;

	do {
		comma = strchr(w, ',');
		ret = parse_mpi_word(w, comma ? (size_t)(comma - w) : strlen(w), what, list, o,
				     err);
		if (ret)
			return ret;
		w = comma + 1;
	} while (comma);
	return 0;
}

/* The MPI path: --mpi's, else $SCOPE_BPF_MPI's; pmpi only for a command, which it is loaded into. */
static int check_mpi_path(struct record_opts *o, struct sb_error *err)
{
	const char *env = getenv("SCOPE_BPF_MPI");
	int ret;

	if (o->mpi_path == SB_MPI_PATH_AUTO && env && *env && !o->no_mpi) {
		ret = parse_mpi(env, "SCOPE_BPF_MPI", o, err);
		if (ret)
			return ret;
		if (!o->cmd)
			o->mpi_path = SB_MPI_PATH_AUTO;
	}
	if (o->mpi_path == SB_MPI_PATH_PMPI && !o->cmd)
		return sb_fail(err, EINVAL, "--mpi=pmpi: only for a command: the library is loaded "
			       "as the program starts; -p and -a trace MPI calls with uprobes "
			       "(docs/MPI.md)");
	return 0;
}

/* A size option's value: N bytes, or N with K, M, G or T (powers of 1024), min to max bytes. */
static int parse_size(const char *opt, const char *s, uint64_t min, uint64_t max,
		      uint64_t *bytes, struct sb_error *err)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	unsigned int shift = 0;
	const char *u;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || errno)
		return sb_fail(err, EINVAL, "%s %s: not a size (e.g. 512M, 2G)", opt, s);
	if (*end) {
		u = end[1] ? NULL : strchr(units, *end);
		if (!u)
			return sb_fail(err, EINVAL, "%s %s: not a size (e.g. 512M, 2G)", opt, s);
		shift = 10 * (unsigned int)(u - units + 1);
	}
	if (v > max >> shift || v << shift < min)
		return sb_fail(err, EINVAL, "%s %s: not between %lluM and %lluT", opt, s,
			       (unsigned long long)(min >> 20), (unsigned long long)(max >> 40));
	*bytes = (uint64_t)v << shift;
	return 0;
}

/*
 * Not with -a: several recorders may trace one job there, and the fast path
 * holds each process until its one recorder has taken its memory (issue 12).
 */
bool record_fast_wanted(const struct record_opts *o)
{
	return o->mode != SB_MODE_KERNEL && !o->counters.n && !o->all;
}

int record_parse_args(int argc, char **argv, struct record_opts *o, struct sb_error *err)
{
	static const struct option longs[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "exe", required_argument, NULL, 'E' },
		{ "comm", required_argument, NULL, 'C' },
		{ "ranks", required_argument, NULL, 'r' },
		{ "until-idle", no_argument, NULL, 'W' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "sample", optional_argument, NULL, 'S' },
		{ "kernel-stacks", no_argument, NULL, 'K' },
		{ "offcpu-stacks", no_argument, NULL, 'O' },
		{ "offcpu-min-us", required_argument, NULL, 'M' },
		{ "user", required_argument, NULL, 'U' },
		{ "as-root", no_argument, NULL, 'R' },
		{ "no-mpi", no_argument, NULL, 'N' },
		{ "no-omp", no_argument, NULL, 'P' },
		{ "cuda", no_argument, NULL, OPT_CUDA },
		{ "no-cuda-host", no_argument, NULL, OPT_NO_CUDA_HOST },
		{ "annotations", required_argument, NULL, OPT_ANNOTATIONS },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "buffer", required_argument, NULL, OPT_BUFFER },
		{ "mpi", optional_argument, NULL, 'I' },
		{ "events", required_argument, NULL, 'e' },
		{ "group", required_argument, NULL, 'g' },
		{ "memory", no_argument, NULL, OPT_MEMORY },
		{ "aggregate", optional_argument, NULL, OPT_AGGREGATE },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "rotate", required_argument, NULL, OPT_ROTATE },
		{ "rotate-size", required_argument, NULL, OPT_ROTATE_SIZE },
		{ "rotate-keep", required_argument, NULL, OPT_ROTATE_KEEP },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "list-events", no_argument, NULL, OPT_LIST_EVENTS },
		{ "list-groups", no_argument, NULL, OPT_LIST_GROUPS },
		{ "daemon", no_argument, NULL, OPT_DAEMON },
		{ "no-daemon", no_argument, NULL, OPT_NO_DAEMON },
		{ NULL, 0, NULL, 0 },
	};
	const char *group = NULL;
	bool mpi_given = false;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->output = "scope-bpf.h5";
	optind = 0;
	opterr = 0;
	/* '+': stop at the command, so its own options are left alone. */
	while ((c = getopt_long(argc, argv, "+:ap:o:d:e:g:qvh", longs, NULL)) != -1) {
		ret = 0;
		switch (c) {
		case 'p':
			ret = parse_pid(optarg, &o->pid, err);
			break;
		case 'a':
			o->all = true;
			break;
		case 'E':
			ret = parse_exe(optarg, &o->exe, err);
			break;
		case 'C':
			ret = parse_comm(optarg, &o->comm, err);
			break;
		case 'r':
			ret = parse_ranks(optarg, o, err);
			break;
		case 'W':
			o->until_idle = true;
			break;
		case 'o':
			if (!*optarg)
				return sb_fail(err, EINVAL, "-o: empty file name");
			o->output = optarg;
			break;
		case 'd':
			ret = parse_duration(optarg, &o->duration, err);
			break;
		case 'S':
			o->sample_hz = SB_DEFAULT_SAMPLE_HZ;
			if (optarg)
				ret = parse_hz(optarg, &o->sample_hz, err);
			break;
		case 'K':
			o->kernel_stacks = true;
			break;
		case 'O':
			o->offcpu_stacks = true;
			break;
		case 'M':
			ret = parse_min_us(optarg, &o->offcpu_min_ns, err);
			break;
		case 'U':
			if (!*optarg)
				return sb_fail(err, EINVAL, "--user: empty user name");
			o->user = optarg;
			break;
		case 'R':
			o->as_root = true;
			break;
		case 'N':
			o->no_mpi = true;
			break;
		case 'P':
			o->no_omp = true;
			break;
		case OPT_CUDA:
			o->cuda = true;
			break;
		case OPT_NO_CUDA_HOST:
			o->no_cuda_host = true;
			break;
		case OPT_ANNOTATIONS:
			ret = sb_annot_parse(optarg, &o->annotations, err);
			o->annotations_given = true;
			break;
		case OPT_MODE:
			ret = parse_mode(optarg, &o->mode, err);
			break;
		case OPT_BUFFER:
			ret = parse_size("--buffer", optarg, 1ull << 20, 1ull << 40, &o->buffer_bytes,
					 err);
			break;
		case 'I':
			if (optarg)
				ret = parse_mpi(optarg, "--mpi", o, err);
			mpi_given = true;
			break;
		case 'e':
			ret = sb_counter_set_parse(&o->counters, optarg, err);
			break;
		case 'g':
			group = optarg;
			break;
		case OPT_MEMORY:
			o->memory = true;
			break;
		case OPT_MAX_SIZE:
			ret = parse_size("--max-size", optarg, 1ull << 20, 1ull << 50, &o->max_size,
					 err);
			break;
		case OPT_ROTATE:
			ret = parse_window("--rotate", optarg, &o->rotate_ns, err);
			break;
		case OPT_ROTATE_SIZE:
			ret = parse_size("--rotate-size", optarg, 1ull << 20, 1ull << 50,
					 &o->rotate_size, err);
			break;
		case OPT_ROTATE_KEEP:
			ret = parse_keep(optarg, &o->rotate_keep, err);
			break;
		case OPT_AGGREGATE:
			o->aggregate = true;
			if (optarg)
				ret = parse_window("--aggregate", optarg, &o->aggregate_window_ns, err);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			o->help = true;
			return 0;
		case OPT_LIST_EVENTS:
			o->list_events = true;
			return 0;
		case OPT_LIST_GROUPS:
			o->list_groups = true;
			return 0;
		case OPT_DAEMON:
			o->daemon = SB_DAEMON_ALWAYS;
			break;
		case OPT_NO_DAEMON:
			o->daemon = SB_DAEMON_NEVER;
			break;
		case ':':
			return sb_fail(err, EINVAL, "%s: needs a value", argv[optind - 1]);
		default:
			if (optopt && optopt < 256)
				return sb_fail(err, EINVAL, "-%c: unknown option", optopt);
			return sb_unknown_option(argv[optind - 1], longs, err);
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		o->cmd = argv + optind;
	ret = check_all(o, err);
	if (ret)
		return ret;
	if (o->pid && o->cmd)
		return sb_fail(err, EINVAL, "give either -p PID or a command, not both");
	if (!o->pid && !o->cmd && !o->all)
		return sb_fail(err, EINVAL, "nothing to record: give -p PID, -- CMD or -a");
	if (mpi_given && o->no_mpi)
		return sb_fail(err, EINVAL, "give either --mpi or --no-mpi, not both");
	ret = check_mpi_path(o, err);
	if (ret)
		return ret;
	if (o->user && o->as_root)
		return sb_fail(err, EINVAL, "give either --user NAME or --as-root, not both");
	if (o->pid && (o->user || o->as_root))
		return sb_fail(err, EINVAL, "%s: only for a command, not with -p",
			       o->user ? "--user" : "--as-root");
	if (o->cuda && !o->cmd)
		return sb_fail(err, EINVAL, "--cuda: only for a command: CUPTI is loaded as the "
			       "program starts; -p and -a record its CUDA calls on the host "
			       "(docs/CUDA.md)");
	if (o->annotations_given && o->annotations && !o->cmd)
		return sb_fail(err, EINVAL, "--annotations: only for a command: the libraries are "
			       "loaded as the program starts (docs/ANNOTATIONS.md)");
	if (!o->annotations_given)
		o->annotations = o->cmd ? SB_ANNOT_ALL : 0;
	if (o->kernel_stacks && !o->sample_hz)
		return sb_fail(err, EINVAL, "--kernel-stacks: needs --sample");
	if (o->max_size && o->aggregate)
		return sb_fail(err, EINVAL, "--max-size: not with --aggregate, whose file keeps no "
			       "call and grows with region paths only");
	ret = check_rotate(o, err);
	if (ret)
		return ret;
	if (group) {
		ret = load_group(o, group, err);
		if (ret)
			return ret;
	}
	if (o->memory) {
		ret = add_memory(o, err);
		if (ret)
			return ret;
	}
	if (o->mode == SB_MODE_FAST && o->counters.n)
		return sb_fail(err, EINVAL, "--mode=fast: counters (%s) are read at each region "
			       "boundary, which only the kernel path sees; use --mode=auto or kernel",
			       o->memory ? "--memory" : group ? "-g" : "-e");
	return check_counters(o, err);
}

void record_opts_free(struct record_opts *o)
{
	free(o->ranks);
	o->ranks = NULL;
	o->n_ranks = 0;
	if (o->group)
		sb_likwid_group_free(o->group);
	free(o->group);
	o->group = NULL;
}
