/* record --mpi=pmpi: which MPI the command runs, and LD_PRELOAD of the library built for it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/elf_needed.h"
#include "record/helper_lib.h"
#include "record/mpi_env.h"

static const char *const lib_files[] = {
	[SB_MPI_MPICH] = "libscope_bpf_mpi_mpich.so",
	[SB_MPI_OPENMPI] = "libscope_bpf_mpi_openmpi.so",
};

/* MPICH's library: libmpich.so.*, or libmpi.so.12, the soname of MPICH's ABI. */
static bool needs_mpich(const char *name)
{
	return !strncmp(name, "libmpich", 8) || !strcmp(name, "libmpi.so.12");
}

static bool needs_openmpi(const char *name)
{
	return !strncmp(name, "libmpi.so.", 10) && !needs_mpich(name);
}

/* The file word runs (found in PATH when it has no slash), resolved; false when none. */
static bool resolve(const char *word, char *out)
{
	char try[PATH_MAX];
	const char *path = getenv("PATH"), *p, *colon;

	if (strchr(word, '/'))
		return realpath(word, out) && !access(out, X_OK);
	for (p = path; p && *p; p = colon ? colon + 1 : NULL) {
		colon = strchr(p, ':');
		snprintf(try, sizeof(try), "%.*s/%s", colon ? (int)(colon - p) : (int)strlen(p), p,
			 word);
		if (!access(try, X_OK) && realpath(try, out))
			return true;
	}
	return false;
}

/* A launcher of one MPI: MPICH's Hydra, Open MPI's orterun and prterun. */
static enum sb_mpi_abi launcher_abi(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (strstr(base, "hydra") || strstr(base, "mpich"))
		return SB_MPI_MPICH;
	if (!strcmp(base, "orterun") || !strcmp(base, "prterun") || strstr(base, "openmpi"))
		return SB_MPI_OPENMPI;
	return SB_MPI_UNKNOWN;
}

enum sb_mpi_abi sb_mpi_command_abi(char *const *cmd)
{
	enum sb_mpi_abi launcher = SB_MPI_UNKNOWN;
	char path[PATH_MAX];

	for (; cmd && *cmd; cmd++) {
		if (**cmd == '-' || !resolve(*cmd, path))
			continue;
		if (sb_elf_needs(path, needs_mpich))
			return SB_MPI_MPICH;
		if (sb_elf_needs(path, needs_openmpi))
			return SB_MPI_OPENMPI;
		if (launcher == SB_MPI_UNKNOWN)
			launcher = launcher_abi(path);
	}
	return launcher;
}

/* Not asked for: the uprobes time the calls, and -v says why. */
static int leave_to_uprobes(const struct record_opts *o, const char *why)
{
	if (o->verbose)
		fprintf(stderr, "scope-bpf: MPI calls through uprobes: %s\n", why);
	return 0;
}

static int preload(const char *lib, struct sb_error *err)
{
	const char *old = getenv("LD_PRELOAD");
	char *value;
	int ret = 0;

	if (asprintf(&value, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "") < 0)
		return sb_fail(err, ENOMEM, "--mpi=pmpi: %s", strerror(ENOMEM));
	if (setenv("LD_PRELOAD", value, 1))
		ret = sb_fail(err, errno, "--mpi=pmpi: cannot set LD_PRELOAD: %s", strerror(errno));
	free(value);
	return ret;
}

int sb_mpi_env_setup(struct record_opts *o, struct sb_error *err)
{
	bool asked = o->mpi_path == SB_MPI_PATH_PMPI;
	char lib[PATH_MAX + 64];
	enum sb_mpi_abi abi;
	int ret;

	if (o->no_mpi || !o->cmd || o->mpi_path == SB_MPI_PATH_UPROBES)
		return 0;
	abi = sb_mpi_command_abi(o->cmd);
	if (abi == SB_MPI_UNKNOWN) {
		if (asked)
			return sb_fail(err, ENOENT, "--mpi=pmpi: no word of the command is a program "
				       "linked with MPICH or Open MPI, nor their launcher");
		return leave_to_uprobes(o, "the command's MPI is not known");
	}
	ret = sb_helper_lib_locate(lib_files[abi], "--mpi=pmpi",
				   "make builds it where that MPI's compiler wrapper is (docs/MPI.md)",
				   lib, sizeof(lib), err);
	if (ret)
		return asked ? ret : leave_to_uprobes(o, err->msg);
	ret = preload(lib, err);
	if (ret)
		return ret;
	if (o->mpi_all ? setenv("SCOPE_BPF_MPI_ALL", "1", 1) : unsetenv("SCOPE_BPF_MPI_ALL"))
		return sb_fail(err, errno, "--mpi=pmpi: cannot set SCOPE_BPF_MPI_ALL: %s",
			       strerror(errno));
	o->mpi_pmpi = true;
	if (o->verbose)
		fprintf(stderr, "scope-bpf: MPI calls through %s\n", lib);
	return 0;
}
