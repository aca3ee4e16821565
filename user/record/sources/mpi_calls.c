/*
 * MPI calls: when a traced process maps an MPI library, entry and return
 * probes go on its traced functions (mpi_lib.c), once per library file for
 * every process (pid -1, filtered in the kernel like the marker probes). The
 * kernel side opens a frame per call on the thread's region stack
 * (bpf/mpi.bpf.h) and describes each new (operation, arguments) once; this
 * source names that region per scope-profiler's grammar. docs/MPI.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "model/mpi_sync.h"
#include "record/detach.h"
#include "record/guardian.h"
#include "record/maps.h"
#include "record/sources/mpi_calls.h"
#include "record/sources/mpi_lib.h"
#include "record/sources/mpi_names.h"
#include "record/sources/mpi_uprobe_multi.h"
#include "record/sources/sources.h"
#include "region.skel.h"

struct mpi_calls {
	struct sb_hashmap files;	/* (dev, inode) -> 1: looked at once, never again */
	struct sb_detach held;		/* the links, and what they opened (detach.h) */
	int libraries;			/* MPI libraries probed */
	bool installed_probed;		/* the installed libraries were looked at */
	bool started;
	bool multi;			/* one uprobe multi link per library and direction */
};

static bool mpi_wanted(const struct record_opts *o)
{
	return !o->no_mpi;
}

static int mpi_configure(void *state, struct sb_source_env *env)
{
	struct mpi_calls *m = state;
	struct bpf_program *enter = env->skel->progs.mpi_enter, *exit = env->skel->progs.mpi_exit;

	if (bpf_program__set_autoload(enter, true) || bpf_program__set_autoload(exit, true))
		return -EINVAL;
	m->multi = sb_uprobe_multi_supported();
	if (m->multi &&
	    (bpf_program__set_expected_attach_type(enter, SB_TRACE_UPROBE_MULTI) ||
	     bpf_program__set_expected_attach_type(exit, SB_TRACE_UPROBE_MULTI)))
		return -EINVAL;
	return 0;
}

static int attach_one(struct mpi_calls *m, struct region_bpf *skel, struct bpf_program *prog,
		      const char *path, uint64_t offset, uint64_t cookie, bool retprobe,
		      struct sb_error *err)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = cookie, .retprobe = retprobe);
	struct bpf_link *link;
	int ret = sb_detach_mark(&m->held);

	if (ret)
		return sb_fail(err, ret, "%s: cannot list open files: %s", path, strerror(-ret));
	sb_guardian_busy(skel, 1000000000ULL);
	link = bpf_program__attach_uprobe_opts(prog, -1, path, (size_t)offset, &opts);
	if (!link)
		return sb_fail(err, errno, "%s: cannot attach to %s: %s", path,
			       sb_mpi_function((unsigned int)(cookie & SB_MPI_OP_MASK)),
			       strerror(errno));
	ret = sb_detach_keep(&m->held, link);
	return ret ? sb_fail(err, ret, "%s: %s", path, strerror(-ret)) : 0;
}

/*
 * Polling calls only when asked for; MPI_Comm_rank and MPI_Comm_size only
 * where a communicator handle says which one it is (MPICH's are ints; Open
 * MPI's are pointers the kernel side cannot name).
 */
static bool wanted_op(const struct record_opts *o, const struct sb_mpi_lib *lib, unsigned int op)
{
	if (!lib->offset[op])
		return false;
	if (op >= SB_MPI_TEST)
		return o->mpi_all;
	if (op == SB_MPI_COMM_RANK || op == SB_MPI_COMM_SIZE)
		return lib->abi & SB_MPI_ABI_MPICH;
	return true;
}

/* One link for all of the functions, entries or returns; the fd is let go with the rest. */
static int attach_multi(struct mpi_calls *m, struct region_bpf *skel, struct bpf_program *prog,
			const char *path, const uint64_t *offsets, const uint64_t *cookies,
			uint32_t n, bool retprobe, struct sb_error *err)
{
	int fd, ret = sb_detach_mark(&m->held);

	if (ret)
		return sb_fail(err, ret, "%s: cannot list open files: %s", path, strerror(-ret));
	sb_guardian_busy(skel, 1000000000ULL);
	fd = sb_uprobe_multi_link(bpf_program__fd(prog), path, offsets, cookies, n, retprobe);
	if (fd < 0)
		return sb_fail(err, -fd, "%s: cannot attach to %u MPI functions: %s", path, n,
			       strerror(-fd));
	ret = sb_detach_keep_fd(&m->held, fd);
	return ret ? sb_fail(err, ret, "%s: %s", path, strerror(-ret)) : 0;
}

static int attach_probes(struct mpi_calls *m, struct sb_source_env *env, const char *path,
			 const struct sb_mpi_lib *lib, struct sb_error *err)
{
	uint64_t offsets[SB_MPI_N_OPS], cookies[SB_MPI_N_OPS];
	struct region_bpf *skel = env->skel;
	uint32_t n = 0;
	unsigned int op;
	int ret = 0;

	if (m->multi) {
		for (op = 0; op < SB_MPI_N_OPS; op++) {
			if (!wanted_op(env->opts, lib, op))
				continue;
			offsets[n] = lib->offset[op];
			cookies[n++] = op | lib->abi;
		}
		if (!n)
			return 0;
		/* The returns first: an entry whose return is not probed would leave its frame open. */
		ret = attach_multi(m, skel, skel->progs.mpi_exit, path, offsets, cookies, n, true,
				   err);
		return ret ?: attach_multi(m, skel, skel->progs.mpi_enter, path, offsets, cookies, n,
					   false, err);
	}
	for (op = 0; op < SB_MPI_N_OPS && !ret; op++) {
		if (!wanted_op(env->opts, lib, op))
			continue;
		/* The return first: an entry whose return is not probed would leave its frame open. */
		ret = attach_one(m, skel, skel->progs.mpi_exit, path, lib->offset[op], op | lib->abi, true,
				 err);
		if (!ret)
			ret = attach_one(m, skel, skel->progs.mpi_enter, path, lib->offset[op],
					 op | lib->abi, false, err);
	}
	return ret;
}

/* Probe the library at path (a name for the messages); 1 when it is an MPI library. */
static int attach_file(struct mpi_calls *m, struct sb_source_env *env, const char *path,
		       const char *name, struct sb_error *err)
{
	char fd_path[64];
	struct sb_mpi_lib lib;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sb_fail(err, errno, "%s: cannot open: %s", path, strerror(errno));
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	ret = sb_mpi_lib_read(fd_path, &lib);
	if (ret > 0)
		ret = attach_probes(m, env, fd_path, &lib, err) ?: 1;
	close(fd);
	if (ret <= 0)
		return ret;
	m->libraries++;
	if (env->opts->verbose)
		fprintf(stderr, "scope-bpf: traced %d MPI functions in %s%s\n", lib.n_probes, name,
			sb_mpi_lib_sizes_known(&lib) ? "" : ", datatype sizes unknown");
	return 1;
}

/*
 * Probe the library mapped at `mapped` in pid: opened once through the
 * process's root (other mount namespaces resolve), probed through that
 * descriptor, as the process may be let go while probes go on (they take a
 * while under load: docs/MPI.md) and end before the last one is on.
 */
static int attach_library(struct mpi_calls *m, struct sb_source_env *env, pid_t pid,
			  const char *mapped, struct sb_error *err)
{
	char path[4200];

	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, mapped);
	return attach_file(m, env, path, mapped, err);
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

static void attach_installed(struct mpi_calls *m, struct sb_source_env *env)
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
			    sb_hashmap_get(&m->files, st.st_dev, st.st_ino))
				continue;
			/* Not fatal: a process that maps it is tried again. */
			if (attach_file(m, env, found.gl_pathv[j], found.gl_pathv[j], &err) < 0) {
				if (env->opts->verbose)
					fprintf(stderr, "scope-bpf: %s\n", err.msg);
				continue;
			}
			if (sb_hashmap_put(&m->files, st.st_dev, st.st_ino, 1))
				break;
		}
		globfree(&found);
	}
}

static int mpi_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	struct mpi_calls *m = state;

	(void)err;
	sb_hashmap_init(&m->files);
	m->started = true;
	/* -a: ranks of any job may start; their libraries are probed before they run. */
	if (sb_mpi_launcher(env->opts->cmd) || env->opts->all)
		attach_installed(m, env);
	return 0;
}

/* A new process image (or the first look at one): probe the MPI libraries it maps. */
static int mpi_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
		       struct sb_error *err)
{
	struct mpi_calls *m = state;
	struct sb_map *maps;
	size_t n, i;
	int ret;

	if (ch->what == SB_PROC_FORK)
		return 0;	/* the child has its parent's probes */
	if (runs_launcher(ch->pid))
		attach_installed(m, env);
	ret = sb_maps_read(ch->pid, &maps, &n);
	if (ret)
		return sb_fail(err, ret, "process %d: cannot read its mappings: %s", (int)ch->pid,
			       strerror(-ret));
	for (i = 0; i < n && !ret; i++) {
		if (!maps[i].exec || !sb_mpi_lib_name(maps[i].path) ||
		    sb_hashmap_get(&m->files, maps[i].dev, maps[i].inode))
			continue;
		ret = sb_hashmap_put(&m->files, maps[i].dev, maps[i].inode, 1);
		if (!ret)
			ret = attach_library(m, env, ch->pid, maps[i].path, err);
		if (ret > 0)
			ret = 0;
	}
	sb_maps_free(maps, n);
	return ret < 0 ? ret : 0;
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

/* Each rank's leaving MPI_Init and entering MPI_Finalize: the clock marks merge reads. */
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
	return ret ? -ENOMEM : 0;
}

static void mpi_detach(void *state, struct sb_source_env *env)
{
	struct mpi_calls *m = state;

	sb_detach_release(&m->held, env->guardian);
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

	sb_detach_release(&m->held, NULL);
	if (m->started)
		sb_hashmap_free(&m->files);
}

const struct sb_source_ops sb_mpi_calls_source = {
	.name = "mpi-calls",
	.state_size = sizeof(struct mpi_calls),
	.wanted = mpi_wanted,
	.configure = mpi_configure,
	.start = mpi_start,
	.process = mpi_process,
	.record_type = SB_EV_MPI,
	.record = mpi_record,
	.contribute = mpi_contribute,
	.detach = mpi_detach,
	.losses = mpi_losses,
	.free = mpi_free,
};
