/*
 * CUDA activity from scope-bpf's CUPTI injection library (cupti/): when a
 * traced process maps an object with the library's probes
 * (scope_bpf_cuda:batch and :name), the kernel side's programs go on them
 * (bpf/cuda.bpf.h) and their records come here through the ring buffer,
 * in order with the region calls. At the end the GPU work is attributed
 * to the region calls that launched it (cuda_attrib.c). `record --cuda`
 * has the CUDA driver load the library (record/cuda_env.c). docs/CUDA.md.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "record/detach.h"
#include "record/guardian.h"
#include "record/maps.h"
#include "record/probes.h"
#include "record/sources/cuda_store.h"
#include "record/sources/sources.h"
#include "region.skel.h"

/* Activities kept in memory (about 100 bytes each); more are counted as lost. */
#define CUDA_MAX_KEPT (16u << 20)

struct cuda {
	struct sb_hashmap files;	/* (dev, inode) -> 1: looked at once, never again */
	struct sb_detach held;
	struct sb_cuda_store store;
	int libraries;			/* objects with the library's probes, attached */
	bool started;
};

static bool cuda_wanted(const struct record_opts *o)
{
	(void)o;
	return true;
}

/*
 * CUPTI hands its buffers back whole, 4 MiB each, and the library sends a
 * buffer's records in one burst: with --cuda the ring holds several bursts.
 */
#define CUDA_RINGBUF (32u << 20)

static int cuda_configure(void *state, struct sb_source_env *env)
{
	struct bpf_map *ring = env->skel->maps.events;

	(void)state;
	if (bpf_program__set_autoload(env->skel->progs.cuda_batch, true) ||
	    bpf_program__set_autoload(env->skel->progs.cuda_name, true))
		return -EINVAL;
	if (env->opts->cuda && bpf_map__max_entries(ring) < CUDA_RINGBUF) {
		if (bpf_map__set_max_entries(ring, CUDA_RINGBUF))
			return -EINVAL;
		env->skel->rodata->wakeup_bytes = CUDA_RINGBUF / 8;
	}
	return 0;
}

static int cuda_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	struct cuda *c = state;

	(void)env;
	(void)err;
	sb_hashmap_init(&c->files);
	sb_cuda_store_init(&c->store, CUDA_MAX_KEPT);
	c->started = true;
	return 0;
}

static int attach_probe(struct cuda *c, struct bpf_program *prog, const char *path,
			const char *name, const char *probe, struct sb_error *err)
{
	struct bpf_link *link;
	int ret = sb_detach_mark(&c->held);

	if (ret)
		return sb_fail(err, ret, "%s: cannot list open files: %s", name, strerror(-ret));
	link = bpf_program__attach_usdt(prog, -1, path, SB_CUDA_PROVIDER, probe, NULL);
	if (!link)
		return sb_fail(err, errno, "%s: cannot attach probe %s:%s: %s", name,
			       SB_CUDA_PROVIDER, probe, strerror(errno));
	ret = sb_detach_keep(&c->held, link);
	return ret ? sb_fail(err, ret, "%s: %s", name, strerror(-ret)) : 0;
}

/* The file mapped at m, once: both probes when it has the library's. */
static int attach_mapped(struct cuda *c, struct sb_source_env *env, pid_t pid,
			 const struct sb_map *m, struct sb_error *err)
{
	struct bpf_program *batch, *name;
	char path[4200];
	int ret;

	if (!m->exec || m->path[0] != '/' || sb_hashmap_get(&c->files, m->dev, m->inode))
		return 0;
	ret = sb_hashmap_put(&c->files, m->dev, m->inode, 1);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->path);
	if (sb_count_provider_probes(path, SB_CUDA_PROVIDER) <= 0)
		return 0;
	/* Loaded with the first object that has the probes; NULL: the kernel refused them. */
	batch = sb_kernel_prog(env->kernel, "cuda_batch", err);
	name = batch ? sb_kernel_prog(env->kernel, "cuda_name", err) : NULL;
	if (!name)
		return -EPERM;
	sb_guardian_busy(env->skel, 2000000000ULL);
	ret = attach_probe(c, batch, path, m->path, "batch", err);
	/* An object that never names kernels (a test, a benchmark) may lack this one. */
	if (!ret) {
		ret = attach_probe(c, name, path, m->path, "name", err);
		if (ret == -ENOENT) {
			ret = 0;
			err->msg[0] = 0;
		}
	}
	sb_guardian_heartbeat(env->skel);
	if (ret)
		return ret;
	c->libraries++;
	if (env->opts->verbose)
		fprintf(stderr, "scope-bpf: CUDA activity probes attached in %s (pid %d)\n",
			m->path, (int)pid);
	return 0;
}

static int cuda_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
			struct sb_error *err)
{
	struct cuda *c = state;
	struct sb_map *maps;
	size_t n, i;
	int ret;

	if (ch->what == SB_PROC_FORK)
		return 0;	/* the child has its parent's probes */
	ret = sb_maps_read(ch->pid, &maps, &n);
	if (ret)
		return sb_fail(err, ret, "process %d: cannot read its mappings: %s", (int)ch->pid,
			       strerror(-ret));
	for (i = 0; i < n && !ret; i++)
		ret = attach_mapped(c, env, ch->pid, &maps[i], err);
	sb_maps_free(maps, n);
	return ret;
}

static int cuda_record(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	struct sb_cuda_name_unread_event e;
	struct cuda *c = state;
	int ret = sb_cuda_store_record(&c->store, data, size);

	/* A name the kernel side could not read: its process waited for the read above. */
	if (size >= sizeof(e)) {
		memcpy(&e, data, sizeof(e));
		if (e.msg == SB_CUDA_MSG_NAME_UNREAD && e.stop_seq && env->resume)
			env->resume(env, (pid_t)e.tgid, e.stop_seq);
	}
	return ret;
}

static void cuda_detach(void *state, struct sb_source_env *env)
{
	struct cuda *c = state;

	if (c->started)
		sb_detach_release(&c->held, env->guardian);
}

static int cuda_contribute(void *state, struct sb_source_env *env)
{
	struct cuda *c = state;
	struct sb_profile *p = &env->coll->prof;
	int ret;

	if (env->opts->cuda && !c->libraries)
		fprintf(stderr, "scope-bpf: --cuda: no traced process loaded the CUDA driver, "
			"so no CUDA activity was recorded (the rest was)\n");
	if (!c->libraries)
		return 0;
	ret = sb_cuda_store_contribute(&c->store, env->coll);
	if (ret)
		return ret;
	if (c->store.unranked)
		fprintf(stderr, "scope-bpf: %llu CUDA activities of processes that made no region "
			"call are left out (docs/CUDA.md)\n", (unsigned long long)c->store.unranked);
	ret |= sb_profile_set_int(p, "cuda_processes", c->libraries);
	ret |= sb_profile_set_int(p, "cuda_activities", (int64_t)p->cuda.n_acts);
	ret |= sb_profile_set_int(p, "cuda_launches", (int64_t)c->store.launches);
	ret |= sb_profile_set_int(p, "cuda_launches_in_regions", (int64_t)c->store.attributed);
	ret |= sb_profile_set_str(p, "cuda_clock", c->store.clock_offset ?
				  "CUPTI's clock plus a measured offset (timestamp callback refused)" :
				  "CLOCK_MONOTONIC (CUPTI timestamp callback)");
	if (c->store.clock_offset)
		ret |= sb_profile_set_int(p, "cuda_clock_offset_ns", c->store.clock_offset_ns);
	return ret ? -ENOMEM : 0;
}

/* Lost on the way here (a full ring, malformed, too many), and dropped by CUPTI itself. */
static int cuda_losses(void *state, struct sb_source_env *env)
{
	struct cuda *c = state;
	struct sb_profile *p = &env->coll->prof;
	int ret = 0;

	if (!c->libraries)
		return 0;
	ret |= sb_profile_set_int(p, "cuda_records_lost",
				  (int64_t)(env->counters[SB_CNT_CUDA_LOST] + c->store.refused));
	ret |= sb_profile_set_int(p, "cuda_records_dropped", (int64_t)c->store.dropped);
	ret |= sb_profile_set_int(p, "cuda_activities_unranked", (int64_t)c->store.unranked);
	return ret ? -ENOMEM : 0;
}

static void cuda_free(void *state)
{
	struct cuda *c = state;

	if (!c->started)
		return;
	sb_hashmap_free(&c->files);
	sb_cuda_store_free(&c->store);
}

const struct sb_source_ops sb_cuda_source = {
	.name = "cuda",
	.state_size = sizeof(struct cuda),
	.on_demand = true,
	.wanted = cuda_wanted,
	.configure = cuda_configure,
	.start = cuda_start,
	.process = cuda_process,
	.record_type = SB_EV_CUDA,
	.record = cuda_record,
	.detach = cuda_detach,
	.contribute = cuda_contribute,
	.losses = cuda_losses,
	.free = cuda_free,
};
