/*
 * MPI calls: when a traced process maps an MPI library, entry and return
 * probes go on its traced functions (mpi_lib.c), once per library file for
 * every process (pid -1, filtered in the kernel like the marker probes). The
 * kernel side opens a frame per call on the thread's region stack
 * (bpf/mpi.bpf.h) and describes each new (operation, arguments) once; this
 * source names that region per scope-profiler's grammar. docs/MPI.md.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "model/mpi_sync.h"
#include "record/sources/call_addrs.h"
#include "record/sources/lib_probes.h"
#include "record/sources/mpi_calls.h"
#include "record/sources/mpi_lib.h"
#include "record/sources/mpi_names.h"
#include "record/sources/sources.h"
#include "region.skel.h"

struct mpi_calls {
	struct sb_lib_probes probes;	/* on every MPI library looked at (lib_probes.h) */
	struct sb_call_addrs addrs;	/* their functions by address, without attach cookies */
	struct sb_source_env *env;	/* for attach_file */
	int libraries;			/* MPI libraries probed */
	bool installed_probed;		/* the installed libraries were looked at */
	bool warned_unwrapped;		/* a process with MPI but not the PMPI library was told */
};

_Static_assert(SB_MPI_N_OPS <= SB_LIB_MAX_FUNCS, "every MPI function fits one probe list");

static bool mpi_wanted(const struct record_opts *o)
{
	return !o->no_mpi;
}

static int mpi_configure(void *state, struct sb_source_env *env)
{
	struct mpi_calls *m = state;
	bool cookies = env->kernel->feat.has[SB_KF_ATTACH_COOKIE];

	/* Without attach cookies, the entry that old kernels verify. */
	return sb_lib_probes_configure(&m->probes, env->skel, env->kernel,
				       cookies ? "mpi_enter" : "mpi_enter_nc", "mpi_exit");
}

/*
 * Polling calls only when asked for; MPI_Comm_rank and MPI_Comm_size only
 * where a communicator handle says which one it is (MPICH's are ints; Open
 * MPI's are pointers the kernel side cannot name). Where the command loads
 * the PMPI library (record/mpi_env.c), its wrappers time every call: only
 * the rank and size a process learns are probed, calls would count twice.
 */
static bool wanted_op(const struct record_opts *o, const struct sb_mpi_lib *lib, unsigned int op)
{
	if (!lib->offset[op])
		return false;
	if (op == SB_MPI_COMM_RANK || op == SB_MPI_COMM_SIZE)
		return lib->abi & SB_MPI_ABI_MPICH;
	if (o->mpi_pmpi)
		return false;
	if (op >= SB_MPI_TEST)
		return o->mpi_all;
	return true;
}

/* The library's functions to probe: one per address, as mpi_lib.c chose them. */
static void wanted_funcs(const struct record_opts *o, const struct sb_mpi_lib *lib,
			 struct sb_lib_funcs *f)
{
	unsigned int op;

	f->n = 0;
	for (op = 0; op < SB_MPI_N_OPS; op++) {
		if (!wanted_op(o, lib, op))
			continue;
		f->offset[f->n] = lib->offset[op];
		f->cookie[f->n] = op | lib->abi;
		f->name[f->n++] = sb_mpi_function(op);
	}
}

/* The file at fd_path (name, for the messages): 1 when it is an MPI library, now probed. */
static int attach_file(void *ctx, const char *fd_path, const char *name, struct sb_error *err)
{
	struct mpi_calls *m = ctx;
	struct sb_lib_funcs funcs;
	struct sb_mpi_lib lib;
	int ret;

	ret = sb_mpi_lib_read(fd_path, &lib);
	if (ret <= 0)
		return ret;
	wanted_funcs(m->env->opts, &lib, &funcs);
	ret = sb_lib_probes_attach(&m->probes, m->env->kernel, fd_path, name, &funcs, err);
	if (ret)
		return ret;
	ret = sb_call_addrs_file(&m->addrs, fd_path, funcs.offset, funcs.cookie, funcs.n);
	if (ret)
		return sb_fail(err, -ret, "%s: cannot keep its functions' addresses: %s", name,
			       strerror(-ret));
	m->libraries++;
	if (m->env->opts->verbose)
		fprintf(stderr, "scope-bpf: traced %d MPI functions in %s%s\n", (int)funcs.n, name,
			sb_mpi_lib_sizes_known(&lib) ? "" : ", datatype sizes unknown");
	return 1;
}

/*
 * When the command is an MPI launcher, or a traced process comes to run one,
 * the MPI libraries installed where the loader looks by default are probed
 * then, before any rank exists: a rank that maps one later is not held while
 * dozens of probes go on (each uprobe registration waits for the kernel, up
 * to a few hundred milliseconds under load: a rank is held 2 s at most), and
 * none of its calls is missed. Other recordings do not pay that.
 */
static const char *const launchers[] = {
	"mpiexec", "mpirun", "mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich", "mpiexec.openmpi",
	"mpirun.openmpi", "orterun", "prterun", "srun", "aprun", "jsrun",
};

static bool launcher_path(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
		if (!strcmp(base, launchers[i]))
			return true;
	}
	return false;
}

bool sb_mpi_launcher(char *const *cmd)
{
	return cmd && cmd[0] && launcher_path(cmd[0]);
}

/* A traced process runs a launcher (under `sh -c`, `env`, a script): its ranks are coming. */
static bool runs_launcher(pid_t pid)
{
	char link[64], exe[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	return launcher_path(exe);
}

static const char *const installed[] = {
	"/usr/lib/*/libmpi*.so.*", "/usr/lib/*/openmpi/lib/libmpi.so.*", "/usr/lib64/libmpi*.so.*",
	"/usr/lib/libmpi*.so.*", "/usr/local/lib/libmpi*.so.*",
};

static void attach_installed(struct mpi_calls *m)
{
	struct sb_error err = { { 0 } };
	struct stat st;
	glob_t found;
	size_t i, j;

	if (m->installed_probed)
		return;
	m->installed_probed = true;
	for (i = 0; i < sizeof(installed) / sizeof(installed[0]); i++) {
		if (glob(installed[i], 0, NULL, &found))
			continue;
		for (j = 0; j < found.gl_pathc; j++) {
			if (stat(found.gl_pathv[j], &st) || !S_ISREG(st.st_mode) ||
			    sb_hashmap_get(&m->probes.files, st.st_dev, st.st_ino))
				continue;
			/* Not fatal: a process that maps it is tried again. */
			if (sb_lib_probes_file(found.gl_pathv[j], found.gl_pathv[j], attach_file, m,
					       &err) < 0) {
				if (m->env->opts->verbose)
					fprintf(stderr, "scope-bpf: %s\n", err.msg);
				continue;
			}
			if (sb_lib_probes_new_file(&m->probes, st.st_dev, st.st_ino) < 0)
				break;
		}
		globfree(&found);
	}
}

static int mpi_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	struct mpi_calls *m = state;

	(void)err;
	m->env = env;
	sb_lib_probes_start(&m->probes);
	sb_call_addrs_init(&m->addrs, bpf_map__fd(env->skel->maps.call_addrs));
	/* -a: ranks of any job may start; their libraries are probed before they run. */
	if (sb_mpi_launcher(env->opts->cmd) || env->opts->all)
		attach_installed(m);
	return 0;
}

/* A new process image (or the first look at one): probe the MPI libraries it maps. */
/*
 * Under the PMPI path: whether process pid maps an MPI library (its path in
 * mpi) without the PMPI library, which the loader maps first when it is
 * preloaded. Its calls are then timed by nothing.
 */
static bool unwrapped(pid_t pid, char *mpi, size_t len)
{
	char path[64], line[4096], *file;
	bool wrapped = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	mpi[0] = 0;
	while (!wrapped && fgets(line, sizeof(line), f)) {
		file = strchr(line, '/');
		if (!file)
			continue;
		file[strcspn(file, "\n")] = 0;
		if (strstr(file, "/libscope_bpf_mpi_"))
			wrapped = true;
		else if (!mpi[0] && sb_mpi_lib_name(file))
			snprintf(mpi, len, "%s", file);
	}
	fclose(f);
	return !wrapped && mpi[0];
}

/* Say once that a process's MPI calls go unrecorded: its LD_PRELOAD lost the library. */
static void check_wrapped(struct mpi_calls *m, pid_t pid)
{
	char mpi[4096];

	if (!m->env->opts->mpi_pmpi || m->warned_unwrapped || !unwrapped(pid, mpi, sizeof(mpi)))
		return;
	m->warned_unwrapped = true;
	fprintf(stderr, "scope-bpf: warning: process %d maps %s without the PMPI library (was "
		"its LD_PRELOAD cleared?): its MPI calls are not recorded; --mpi=uprobes records "
		"them\n", (int)pid, mpi);
}

/*
 * Without attach cookies: pid's probed functions by address, after its files
 * were probed (ret: how that went, the first error returned).
 */
static int addrs_process(struct mpi_calls *m, pid_t pid, int ret, struct sb_error *err)
{
	int r = sb_call_addrs_process(&m->addrs, pid);

	if (ret || !r)
		return ret;
	return sb_fail(err, r, "process %d: cannot keep its MPI functions' addresses: %s", (int)pid,
		       strerror(-r));
}

static int mpi_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
		       struct sb_error *err)
{
	struct mpi_calls *m = state;
	int ret;

	(void)env;
	/* The child has its parent's probes; their addresses are its own, too. */
	if (ch->what == SB_PROC_FORK)
		return sb_call_addrs_process(&m->addrs, ch->pid);
	if (runs_launcher(ch->pid))
		attach_installed(m);
	check_wrapped(m, ch->pid);
	ret = sb_lib_probes_scan(&m->probes, ch->pid, sb_mpi_lib_name, attach_file, m, err);
	return addrs_process(m, ch->pid, ret, err);
}

/* A process exit drops its functions' addresses. */
static int mpi_intercept(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	struct mpi_calls *m = state;

	(void)env;
	sb_call_addrs_record(&m->addrs, data, size);
	return 1;
}

/* An operation with these arguments, seen for the first time: its region. */
static int mpi_record(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	char name[SB_NAME_MAX], tags[SB_MPI_TAGS_MAX], file[] = "";
	struct sb_mpi_event e;

	(void)state;
	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if (sb_mpi_format(&e, name, sizeof(name), tags, sizeof(tags)))
		return 0;	/* an operation this recorder does not know: its calls are dropped */
	return sb_collector_add_region(env->coll, e.name_hash, name, file, -1, tags);
}

/*
 * Each rank's leaving MPI_Init and entering MPI_Finalize: the clock marks
 * merge reads; and which path timed the calls.
 */
static int mpi_contribute(void *state, struct sb_source_env *env)
{
	struct mpi_calls *m = state;
	char *json;
	int ret;

	if (!m->libraries)
		return 0;
	json = sb_mpi_rank_times_json(&env->coll->prof);
	ret = json ? sb_profile_set_str(&env->coll->prof, SB_META_MPI_RANK_TIMES, json) : -ENOMEM;
	free(json);
	if (!ret)
		ret = sb_profile_set_str(&env->coll->prof, "mpi_calls_path",
					 env->opts->mpi_pmpi ? "pmpi" : "uprobes");
	return ret ? -ENOMEM : 0;
}

static void mpi_detach(void *state, struct sb_source_env *env)
{
	struct mpi_calls *m = state;

	sb_lib_probes_release(&m->probes, env->guardian);
}

static int mpi_losses(void *state, struct sb_source_env *env)
{
	struct mpi_calls *m = state;
	int ret;

	if (!m->libraries)
		return 0;
	ret = sb_profile_set_int(&env->coll->prof, "mpi_calls_open_at_start",
				 (int64_t)env->counters[SB_CNT_MPI_UNMATCHED]);
	return ret ? -ENOMEM : 0;
}

static void mpi_free(void *state)
{
	struct mpi_calls *m = state;

	sb_lib_probes_free(&m->probes);
	if (m->env)
		sb_call_addrs_free(&m->addrs);
}

const struct sb_source_ops sb_mpi_calls_source = {
	.name = "mpi-calls",
	.state_size = sizeof(struct mpi_calls),
	.on_demand = true,
	.wanted = mpi_wanted,
	.configure = mpi_configure,
	.start = mpi_start,
	.process = mpi_process,
	.intercept = mpi_intercept,
	.record_type = SB_EV_MPI,
	.record = mpi_record,
	.contribute = mpi_contribute,
	.detach = mpi_detach,
	.losses = mpi_losses,
	.free = mpi_free,
};
