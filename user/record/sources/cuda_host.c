/*
 * CUDA runtime calls timed on the host, for processes CUPTI was not injected
 * into (record -p, or a recording without --cuda): when a traced process maps
 * libcudart, or runs a program with the runtime linked in (nvcc's default),
 * entry and return probes go on the functions of its API that launch, copy,
 * set, synchronize, allocate and free (cuda_host_lib.c), once per file as
 * for MPI (lib_probes.c). The kernel side opens a frame
 * per call on the thread's region stack (bpf/cuda_host.bpf.h) and describes
 * each new (process, operation, arguments) once; this source names that
 * region, a launch by the ELF symbol of its host stub (the kernel's mangled
 * name), looked up in the process's mappings as they were when it was last
 * held. GPU times are CUPTI's alone: docs/CUDA.md, "Host probes".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "record/maps.h"
#include "record/sources/cuda_host_source.h"
#include "record/sources/cuda_host_lib.h"
#include "record/sources/cuda_host_names.h"
#include "record/sources/lib_probes.h"
#include "record/sources/sources.h"
#include "record/symbols/symbolize.h"
#include "region.skel.h"

struct cuda_host {
	struct sb_lib_probes probes;	/* on every libcudart looked at */
	struct sb_source_env *env;	/* for attach_runtime */
	struct sb_symbolizer *sym;	/* the mappings of processes with libcudart: stub names */
	struct sb_hashmap streams;	/* (tgid, stream) -> its number; (tgid, 0) -> how many */
	struct sb_hashmap programs;	/* (dev, inode) of a program -> 2: runtime in it, 1: none */
	int runtimes;			/* files with a CUDA runtime probed */
	bool told;			/* the line on GPU times was printed */
};

/*
 * Not with --cuda: CUPTI reports every runtime call already, and a launch
 * made a region would take its kernel's GPU time from the user's region.
 */
static bool cuda_host_wanted(const struct record_opts *o)
{
	return !o->no_cuda_host && !o->cuda;
}

static int cuda_host_configure(void *state, struct sb_source_env *env)
{
	struct cuda_host *c = state;

	c->sym = sb_sym_new();
	if (!c->sym)
		return -ENOMEM;
	return sb_lib_probes_configure(&c->probes, env->skel, env->kernel,
				       "cuda_host_enter", "cuda_host_exit");
}

static int cuda_host_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	struct cuda_host *c = state;

	(void)err;
	c->env = env;
	sb_lib_probes_start(&c->probes);
	sb_hashmap_init(&c->streams);
	sb_hashmap_init(&c->programs);
	return 0;
}

/* The file at fd_path (name, for the messages): 1 when it has a CUDA runtime, now probed. */
static int attach_runtime(struct cuda_host *c, const char *fd_path, const char *name, bool program,
			  struct sb_error *err)
{
	struct sb_lib_funcs funcs;
	int ret;

	ret = sb_cuda_host_lib_read(fd_path, program, &funcs);
	if (ret <= 0)
		return ret;
	ret = sb_lib_probes_attach(&c->probes, c->env->kernel, fd_path, name, &funcs, err);
	if (ret)
		return ret;
	c->runtimes++;
	if (c->env->opts->verbose)
		fprintf(stderr, "scope-bpf: traced %u CUDA runtime functions in %s\n", funcs.n, name);
	if (!c->told && !c->env->opts->quiet)
		fprintf(stderr, "scope-bpf: %s: CUDA calls are timed on the host only; GPU execution "
			"times need `scope-bpf record --cuda -- CMD` at launch\n", name);
	c->told = true;
	return 1;
}

static int attach_library(void *ctx, const char *fd_path, const char *name, struct sb_error *err)
{
	return attach_runtime(ctx, fd_path, name, false, err);
}

static int attach_program(void *ctx, const char *fd_path, const char *name, struct sb_error *err)
{
	return attach_runtime(ctx, fd_path, name, true, err);
}

/* Whether the program pid runs has the runtime linked in: looked at, and probed, once per file. */
static int program_runtime(struct cuda_host *c, pid_t pid, bool *has, struct sb_error *err)
{
	char exe[64], name[4096];
	struct stat st;
	uint64_t *seen;
	ssize_t n;
	int ret;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	/* Gone, a zombie, or its leader exited: nothing to probe, and no reason to fail the rest. */
	if (stat(exe, &st)) {
		*has = false;
		return 0;
	}
	seen = sb_hashmap_get(&c->programs, st.st_dev, st.st_ino);
	if (seen) {
		*has = *seen == 2;
		return 0;
	}
	n = readlink(exe, name, sizeof(name) - 1);
	name[n > 0 ? n : 0] = 0;
	ret = sb_lib_probes_file(exe, n > 0 ? name : exe, attach_program, c, err);
	if (ret < 0)
		return ret;
	*has = ret > 0;
	return sb_hashmap_put(&c->programs, st.st_dev, st.st_ino, *has ? 2 : 1);
}

static bool maps_runtime(const struct sb_map *maps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (maps[i].exec && sb_cuda_host_lib_name(maps[i].path))
			return true;
	}
	return false;
}

/*
 * A new process image, or the first look at one: while it is held, keep its
 * mappings (where its kernels' stubs are) if it runs CUDA, and probe the
 * runtime it maps.
 */
static int cuda_host_process(void *state, struct sb_source_env *env,
			     const struct sb_proc_change *ch, struct sb_error *err)
{
	struct cuda_host *c = state;
	struct sb_map *maps;
	bool linked_in;
	size_t n;
	int ret;

	(void)env;
	if (ch->what == SB_PROC_FORK) {
		/* The child has its parent's probes and stubs; -ENOENT: the parent runs no CUDA. */
		sb_sym_fork(c->sym, (uint32_t)ch->parent, (uint32_t)ch->pid);
		return 0;
	}
	ret = program_runtime(c, ch->pid, &linked_in, err);
	if (ret)
		return ret;
	ret = sb_maps_read(ch->pid, &maps, &n);
	if (ret)
		return sb_fail(err, ret, "process %d: cannot read its mappings: %s", (int)ch->pid,
			       strerror(-ret));
	if (linked_in || maps_runtime(maps, n))
		ret = sb_sym_snapshot(c->sym, (uint32_t)ch->pid, maps, n);
	sb_maps_free(maps, n);
	if (ret)
		return sb_fail(err, ret, "process %d: cannot keep its mappings: %s", (int)ch->pid,
			       strerror(-ret));
	return sb_lib_probes_scan(&c->probes, ch->pid, sb_cuda_host_lib_name, attach_library, c, err);
}

/* A stream's label: the runtime's own handles by name, others numbered per process from 1. */
static int stream_label(struct cuda_host *c, const struct sb_cuda_host_event *e, char *buf,
			size_t size)
{
	uint64_t *n = NULL, *count;
	int ret;

	if (e->stream > SB_CUDA_STREAM_PER_THREAD) {
		n = sb_hashmap_get(&c->streams, e->tgid, e->stream);
		if (!n) {
			count = sb_hashmap_get(&c->streams, e->tgid, 0);
			ret = sb_hashmap_put(&c->streams, e->tgid, 0, count ? *count + 1 : 1) ?:
			      sb_hashmap_put(&c->streams, e->tgid, e->stream, count ? *count + 1 : 1);
			if (ret)
				return ret;
			n = sb_hashmap_get(&c->streams, e->tgid, e->stream);
		}
	}
	sb_cuda_stream_label(e->stream, n ? *n : 0, buf, size);
	return 0;
}

/* The kernel a launch names: its host stub's ELF symbol, else the stub's address. */
static const char *kernel_name(struct cuda_host *c, const struct sb_cuda_host_event *e, char *buf,
			       size_t size)
{
	struct sb_frame_sym f[SB_SYM_MAX_FRAMES];
	int n;

	n = sb_sym_user(c->sym, e->tgid, e->func, false, f, SB_SYM_MAX_FRAMES);
	if (n > 0 && f[n - 1].function[0])
		return f[n - 1].function;
	snprintf(buf, size, "0x%" PRIx64, (uint64_t)e->func);
	return buf;
}

/* An operation with these arguments, seen for the first time in a process: its region. */
static int cuda_host_record(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	char name[SB_CUDA_HOST_NAME_MAX], tags[SB_CUDA_HOST_TAGS_MAX], file[] = "";
	char stream[32], address[32];
	struct sb_cuda_host_event e;
	struct cuda_host *c = state;
	const char *kernel = "";
	int ret;

	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	ret = stream_label(c, &e, stream, sizeof(stream));
	if (ret)
		return ret;
	if (e.op == SB_CUDA_HOST_LAUNCH)
		kernel = kernel_name(c, &e, address, sizeof(address));
	if (sb_cuda_host_format(&e, kernel, stream, name, sizeof(name), tags, sizeof(tags)))
		return 0;	/* an operation this recorder does not know: its calls are dropped */
	return sb_collector_add_region(env->coll, e.name_hash, name, file, -1, tags);
}

int sb_cuda_host_runtimes(const struct sb_sources *set)
{
	const struct cuda_host *c = sb_sources_state(set, &sb_cuda_host_source);

	return c ? c->runtimes : 0;
}

static void cuda_host_detach(void *state, struct sb_source_env *env)
{
	struct cuda_host *c = state;

	sb_lib_probes_release(&c->probes, env->guardian);
}

static void cuda_host_free(void *state)
{
	struct cuda_host *c = state;

	if (c->probes.started) {
		sb_hashmap_free(&c->streams);
		sb_hashmap_free(&c->programs);
	}
	sb_lib_probes_free(&c->probes);
	if (c->sym)
		sb_sym_free(c->sym);
	c->sym = NULL;
}

const struct sb_source_ops sb_cuda_host_source = {
	.name = "cuda-host",
	.state_size = sizeof(struct cuda_host),
	.on_demand = true,
	.wanted = cuda_host_wanted,
	.configure = cuda_host_configure,
	.start = cuda_host_start,
	.process = cuda_host_process,
	.record_type = SB_EV_CUDA_HOST,
	.record = cuda_host_record,
	.detach = cuda_host_detach,
	.free = cuda_host_free,
};
