/*
 * OpenMP regions of gcc's libgomp: when a traced process maps libgomp (or,
 * earlier, when the command is known to need it), entry and return probes go
 * on its entry points (omp_names.c), and on the bodies gcc outlined in every
 * object the process maps (`f._omp_fn.N`), once per file for every process
 * (pid -1, filtered in the kernel like the marker probes). The kernel side
 * (bpf/omp.bpf.h) opens a frame per construct on the thread's region stack;
 * this source names the regions. docs/OPENMP.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "record/detach.h"
#include "record/guardian.h"
#include "record/maps.h"
#include "record/sources/call_addrs.h"
#include "record/sources/omp_lib.h"
#include "record/sources/omp_names.h"
#include "record/sources/sources.h"
#include "region.skel.h"

struct omp {
	struct sb_hashmap files;	/* (dev, inode) -> 1: looked at once, never again */
	struct sb_detach held;		/* the links, and what they opened (detach.h) */
	struct sb_call_addrs addrs;	/* probed functions by address, without attach cookies */
	int libraries;			/* libgomp files probed */
	int bodies;			/* outlined bodies probed */
	bool started;
};

static bool omp_wanted(const struct record_opts *o)
{
	return !o->no_omp;
}

static int omp_configure(void *state, struct sb_source_env *env)
{
	(void)state;
	if (bpf_program__set_autoload(env->skel->progs.omp_enter, true) ||
	    bpf_program__set_autoload(env->skel->progs.omp_exit, true))
		return -EINVAL;
	return 0;
}

/* What one file's probes need while they are attached. */
struct attaching {
	struct omp *o;
	struct sb_source_env *env;
	const char *path;	/* the file, as opened */
	const char *name;	/* the file, for messages */
	struct sb_error *err;
	int n;
	/* The probes attached, for call_addrs: file offsets and cookies, cap of each */
	uint64_t *offset, *cookie;
	uint32_t cap;
};

/* Note a probe attached: without attach cookies its programs know it by address. */
static int keep_probe(struct attaching *a, const struct sb_omp_probe *p)
{
	uint32_t cap = a->cap ? a->cap * 2 : 64;
	uint64_t *offset, *cookie;

	if (a->o->addrs.map_fd < 0)
		return 0;
	if ((uint32_t)a->n == a->cap) {
		offset = realloc(a->offset, cap * sizeof(*offset));
		if (offset)
			a->offset = offset;
		cookie = offset ? realloc(a->cookie, cap * sizeof(*cookie)) : NULL;
		if (!cookie)
			return sb_fail(a->err, ENOMEM, "%s: %s", a->name, strerror(ENOMEM));
		a->cookie = cookie;
		a->cap = cap;
	}
	a->offset[a->n] = p->offset;
	a->cookie[a->n] = p->cookie;
	return 0;
}

static int attach_one(struct attaching *a, const struct sb_omp_probe *p, bool retprobe)
{
	/* libbpf refuses a cookie the kernel cannot take: the programs then look the address up. */
	LIBBPF_OPTS(bpf_uprobe_opts, opts,
		    .bpf_cookie = a->env->kernel->feat.has[SB_KF_ATTACH_COOKIE] ? p->cookie : 0,
		    .retprobe = retprobe);
	struct bpf_program *prog;
	struct bpf_link *link;
	int ret = sb_detach_mark(&a->o->held);

	if (ret)
		return sb_fail(a->err, ret, "%s: cannot list open files: %s", a->name,
			       strerror(-ret));
	/* Loaded with the first OpenMP runtime seen; NULL: the kernel refused them. */
	prog = sb_kernel_prog(a->env->kernel, retprobe ? "omp_exit" : "omp_enter", a->err);
	if (!prog)
		return -EPERM;
	sb_guardian_busy(a->env->skel, 1000000000ULL);
	link = bpf_program__attach_uprobe_opts(prog, -1, a->path, (size_t)p->offset, &opts);
	if (!link)
		return sb_fail(a->err, errno, "%s: cannot attach to %s: %s", a->name, p->name,
			       sb_strerror(errno));
	ret = sb_detach_keep(&a->o->held, link);
	return ret ? sb_fail(a->err, ret, "%s: %s", a->name, strerror(-ret)) : 0;
}

static int attach_probe(const struct sb_omp_probe *p, void *ctx)
{
	struct attaching *a = ctx;
	int ret = 0;

	/* The return first: an entry whose return is not probed would leave its frame open. */
	if ((p->cookie & SB_OMP_OP_MASK) != SB_OMP_SPAWN)
		ret = attach_one(a, p, true);
	if (!ret)
		ret = attach_one(a, p, false);
	if (!ret)
		ret = keep_probe(a, p);
	if (!ret)
		a->n++;
	return ret;
}

/* Probe the file at path (name for the messages): libgomp's entry points, or its bodies. */
static int attach_file(struct omp *o, struct sb_source_env *env, const char *path,
		       const char *name, bool library, struct sb_error *err)
{
	struct attaching a = { .o = o, .env = env, .name = name, .err = err };
	char fd_path[64];
	int fd, ret, ret2;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sb_fail(err, errno, "%s: cannot open: %s", path, strerror(errno));
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	a.path = fd_path;
	ret = sb_omp_read(fd_path, library, attach_probe, &a);
	/* Those attached before a failure fire too. */
	ret2 = sb_call_addrs_file(&o->addrs, fd_path, a.offset, a.cookie, (uint32_t)a.n);
	free(a.offset);
	free(a.cookie);
	close(fd);
	if (!ret && ret2)
		ret = sb_fail(err, -ret2, "%s: cannot keep its functions' addresses: %s", name,
			      strerror(-ret2));
	if (ret < 0 && !err->msg[0])
		return sb_fail(err, ret, "%s: cannot read its symbols: %s", name, strerror(-ret));
	if (ret < 0 || !a.n)
		return ret;
	if (library)
		o->libraries++;
	else
		o->bodies += a.n;
	if (env->opts->verbose)
		fprintf(stderr, "scope-bpf: traced %d OpenMP %s in %s\n", a.n,
			library ? "entry points" : "bodies", name);
	return 0;
}

/*
 * Probe the file at path once, before any process runs it. Not fatal: the
 * process then runs without those probes, and the recording says so. Never
 * tried again, as the ones attached before a failure would be doubled.
 */
static void attach_early(struct omp *o, struct sb_source_env *env, const char *path,
			 bool library)
{
	struct sb_error err = { { 0 } };
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode) ||
	    sb_hashmap_get(&o->files, st.st_dev, st.st_ino) ||
	    sb_hashmap_put(&o->files, st.st_dev, st.st_ino, 1))
		return;
	if (!attach_file(o, env, path, path, library, &err))
		return;
	sb_source_attach_failed(env, "omp", err.msg);
	if (env->opts->verbose)
		fprintf(stderr, "scope-bpf: %s\n", err.msg);
}

static const char *const installed[] = {
	"/usr/lib/*/libgomp.so.*", "/usr/lib64/libgomp.so.*", "/usr/lib/libgomp.so.*",
	"/usr/local/lib*/libgomp.so.*",
};

static void attach_installed(struct omp *o, struct sb_source_env *env)
{
	glob_t found;
	size_t i, j;

	for (i = 0; i < sizeof(installed) / sizeof(installed[0]); i++) {
		if (glob(installed[i], 0, NULL, &found))
			continue;
		for (j = 0; j < found.gl_pathc; j++)
			attach_early(o, env, found.gl_pathv[j], true);
		globfree(&found);
	}
}

/*
 * Probes go on before the command runs where it is known to need libgomp:
 * the command, or a program among its arguments (`mpiexec -n 4 ./app`,
 * `env ... ./app`), is linked with it. Then the installed libgomp and that
 * program's bodies are probed first. Attaching takes up to a few hundred
 * milliseconds per probe on a loaded machine; done at the program's first
 * sync, that would hold it, and the guardian lets a process go that is
 * held too long (docs/DESIGN.md). Recordings of other programs pay nothing.
 */
static int omp_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	char *const *arg = env->opts->cmd;
	struct omp *o = state;
	char exe[4096];

	(void)err;
	sb_hashmap_init(&o->files);
	sb_call_addrs_init(&o->addrs, bpf_map__fd(env->skel->maps.call_addrs));
	o->started = true;
	for (; arg && *arg; arg++) {
		if (!sb_omp_program_path(*arg, exe, sizeof(exe)) || !sb_omp_needs_libgomp(exe))
			continue;
		if (!o->libraries)
			attach_installed(o, env);
		attach_early(o, env, exe, false);
	}
	return 0;
}

static bool maps_libgomp(const struct sb_map *maps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (maps[i].exec && sb_omp_lib_name(maps[i].path))
			return true;
	}
	return false;
}

/*
 * Probe each executable file pid maps, through its root (other mount
 * namespaces resolve). A file is known by what stat says of it, as
 * attach_early knows it: on a 9p root (the kernel matrix's guests) the maps
 * name another device and inode for the same file, and its probes were
 * attached twice, every OpenMP region recorded inside itself.
 */
static int attach_mapped(struct omp *o, struct sb_source_env *env, pid_t pid,
			 const struct sb_map *m, struct sb_error *err)
{
	char path[4200];
	struct stat st;
	int ret;

	if (!m->exec || m->path[0] != '/' || sb_hashmap_get(&o->files, m->dev, m->inode))
		return 0;
	ret = sb_hashmap_put(&o->files, m->dev, m->inode, 1);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->path);
	/* Where stat agrees with the maps (nearly always), the file was just put. */
	if (!stat(path, &st) && (st.st_dev != m->dev || st.st_ino != m->inode)) {
		if (sb_hashmap_get(&o->files, st.st_dev, st.st_ino))
			return 0;
		ret = sb_hashmap_put(&o->files, st.st_dev, st.st_ino, 1);
		if (ret)
			return ret;
	}
	return attach_file(o, env, path, m->path, sb_omp_lib_name(m->path), err);
}

/* A new process image or loaded objects: once it maps libgomp, probe it and every body. */
static int omp_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
		       struct sb_error *err)
{
	struct omp *o = state;
	struct sb_map *maps;
	size_t n, i;
	int ret, kept;

	/* The child has its parent's probes; their addresses are its own, too. */
	if (ch->what == SB_PROC_FORK)
		return sb_call_addrs_process(&o->addrs, ch->pid);
	ret = sb_maps_read(ch->pid, &maps, &n);
	if (ret)
		return sb_fail(err, ret, "process %d: cannot read its mappings: %s", (int)ch->pid,
			       strerror(-ret));
	if (maps_libgomp(maps, n)) {
		for (i = 0; i < n && !ret; i++)
			ret = attach_mapped(o, env, ch->pid, &maps[i], err);
	}
	sb_maps_free(maps, n);
	/* Without attach cookies: its probed functions by address, the first error returned. */
	kept = sb_call_addrs_process(&o->addrs, ch->pid);
	if (ret || !kept)
		return ret;
	return sb_fail(err, -kept, "process %d: cannot keep its OpenMP functions' addresses: %s",
		       (int)ch->pid, strerror(-kept));
}

/* A process exit drops its functions' addresses. */
static int omp_intercept(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	struct omp *o = state;

	(void)env;
	sb_call_addrs_record(&o->addrs, data, size);
	return 1;
}

/* A region kind used for the first time: its name. */
static int omp_record(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	char name[SB_NAME_MAX], tags[SB_TAGS_MAX], file[] = "";
	struct sb_omp_event e;

	(void)state;
	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if (!sb_omp_region_name(e.op) || e.name_hash != sb_omp_name_hash(e.op))
		return 0;	/* not a region this recorder knows: its calls are dropped */
	snprintf(name, sizeof(name), "%s", sb_omp_region_name(e.op));
	snprintf(tags, sizeof(tags), "%s", sb_omp_region_tags(e.op));
	return sb_collector_add_region(env->coll, e.name_hash, name, file, -1, tags);
}

static void omp_detach(void *state, struct sb_source_env *env)
{
	struct omp *o = state;

	sb_detach_release(&o->held, env->guardian);
}

/* Whether the workers' lanes could be drawn: bodies are found only in unstripped objects. */
static int omp_contribute(void *state, struct sb_source_env *env)
{
	struct omp *o = state;

	if (!o->libraries)
		return 0;
	return sb_profile_set_int(&env->coll->prof, "omp_bodies_traced", o->bodies) ? -ENOMEM : 0;
}

static void omp_free(void *state)
{
	struct omp *o = state;

	sb_detach_release(&o->held, NULL);
	if (!o->started)
		return;
	sb_hashmap_free(&o->files);
	sb_call_addrs_free(&o->addrs);
}

const struct sb_source_ops sb_omp_source = {
	.name = "omp",
	.state_size = sizeof(struct omp),
	.on_demand = true,
	.wanted = omp_wanted,
	.configure = omp_configure,
	.start = omp_start,
	.process = omp_process,
	.intercept = omp_intercept,
	.record_type = SB_EV_OMP,
	.record = omp_record,
	.detach = omp_detach,
	.contribute = omp_contribute,
	.free = omp_free,
};
