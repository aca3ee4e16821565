/*
 * Region calls: the marker programs (region.bpf.c) run at the scope_bpf
 * probes of each traced process and send completed calls to the collector;
 * this source attaches them to each process image and names what the
 * kernel side could not keep.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/attach.h"
#include "record/detach.h"
#include "record/fast/site_read.h"
#include "record/sources/regions.h"
#include "record/sources/sources.h"
#include "region.skel.h"

struct regions {
	struct sb_attach attach;
	uint64_t named;		/* sites the kernel could not read, named here */
	uint64_t unresolved;	/* of those, sites not even this process could read */
};

static int regions_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	struct regions *rg = state;

	sb_attach_init(&rg->attach, env->kernel, env->guardian, env->opts->verbose);
	(void)err;
	rg->attach.fast = record_fast_wanted(env->opts) && sb_kernel_fast_ok(env->kernel);
	/* A recording that just ended may still hold fast semaphores (record/detach.h). */
	if (!sb_detach_wait_fast_released(SB_DETACH_FAST_WAIT_MS))
		fprintf(stderr, "scope-bpf record: an earlier recording's fast-path probes were "
			"still being closed after %d s: markers of the objects they hold may write "
			"to memory this recording does not read\n", SB_DETACH_FAST_WAIT_MS / 1000);
	return 0;
}

/*
 * Name a site the marker program could not read (a page the process never
 * touched): reading it from here faults the page in. Its calls so far carry
 * the program's stand-in, named now; the real hash goes to the sites table
 * for the calls that follow.
 */
static int name_site(struct sb_source_env *env, const struct sb_site_pending_event *e)
{
	struct sb_site_key key = { .tgid = e->tgid, .gen = e->gen, .site = e->site };
	struct sb_fast_site s;
	uint64_t h;
	int ret;

	ret = sb_fast_site_read((pid_t)e->tgid, e->site, &s);
	if (ret)
		return ret;
	h = sb_name_hash(s.name);
	ret = sb_collector_add_region(env->coll, h, s.name, s.file, s.line, s.tags);
	if (!ret)
		ret = sb_collector_alias(env->coll, e->name_hash, h);
	if (!ret)
		bpf_map_update_elem(bpf_map__fd(env->skel->maps.sites), &key, &h, BPF_ANY);
	return ret;
}

static int regions_record(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	const struct sb_site_pending_event *e = data;
	struct regions *rg = state;
	int ret;

	if (size < sizeof(*e))
		return 0;
	ret = name_site(env, e);
	if (e->stop_seq && env->resume)
		env->resume(env, (pid_t)e->tgid, e->stop_seq);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		rg->unresolved++;
		if (env->opts->verbose)
			fprintf(stderr, "scope-bpf: process %u: site %#llx cannot be read: %s\n",
				e->tgid, (unsigned long long)e->site, strerror(-ret));
		return 0;
	}
	rg->named++;
	return 0;
}

uint64_t sb_regions_unresolved(const struct sb_sources *set)
{
	const struct regions *rg = sb_sources_state(set, &sb_regions_source);

	return rg ? rg->unresolved : 0;
}

/* A new process image (or the first look at one): attach its probes. */
static int regions_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
			   struct sb_error *err)
{
	int ret;

	struct regions *rg = state;

	if (ch->what == SB_PROC_FORK)
		return 0;	/* the child has its parent's probes */
	ret = sb_attach_process(&rg->attach, ch->pid, err);
	/* Read by the fast path's drainer thread at each sleep. */
	__atomic_store_n(&env->fast_unwaking, rg->attach.fast_unwaking, __ATOMIC_RELAXED);
	return ret < 0 ? ret : 0;
}

static void regions_detach(void *state, struct sb_source_env *env)
{
	struct regions *rg = state;

	(void)env;
	sb_attach_free(&rg->attach);
}

uint64_t sb_regions_lost_events(const struct sb_source_env *env)
{
	return env->counters[SB_CNT_LOST_CALLS] + env->counters[SB_CNT_LOST_OTHER] +
	       env->counters[SB_CNT_THREADS_FULL] + env->coll->dropped_calls + env->fast.calls +
	       env->fast.threads_full;
}

const char *sb_regions_attach_failure(const struct sb_sources *set, int *files)
{
	const struct regions *rg = sb_sources_state(set, &sb_regions_source);

	*files = rg ? rg->attach.failed_files : 0;
	return *files ? rg->attach.failure : NULL;
}

int sb_regions_probe_files(const struct sb_sources *set)
{
	const struct regions *rg = sb_sources_state(set, &sb_regions_source);

	return rg ? rg->attach.probe_files : 0;
}

/* The kernel's counters and the collector's drops; model/health.c explains each key. */
static int regions_losses(void *state, struct sb_source_env *env)
{
	struct sb_profile *p = &env->coll->prof;
	const uint64_t *n = env->counters;
	struct regions *rg = state;
	int ret = 0;

	ret |= sb_profile_set_int(p, "lost_events", (int64_t)sb_regions_lost_events(env));
	ret |= sb_profile_set_int(p, "lost_events_kernel_ring",
				  (int64_t)(n[SB_CNT_LOST_CALLS] + n[SB_CNT_LOST_OTHER]));
	ret |= sb_profile_set_int(p, "lost_events_fast_path", (int64_t)env->fast.calls);
	ret |= sb_profile_set_int(p, "open_calls_dropped",
				  (int64_t)(n[SB_CNT_OPEN_DROPPED] + env->open_at_end));
	ret |= sb_profile_set_int(p, "depth_overflow_calls",
				  (int64_t)(n[SB_CNT_DEPTH_OVERFLOW] + env->fast.overflow));
	ret |= sb_profile_set_int(p, "unmatched_region_ends",
				  (int64_t)(n[SB_CNT_UNMATCHED_END] + env->fast.unmatched));
	ret |= sb_profile_set_int(p, "invalid_sites",
				  (int64_t)(n[SB_CNT_BAD_SITE] + env->fast.bad_sites));
	ret |= sb_profile_set_int(p, "sites_named_by_recorder", (int64_t)rg->named);
	ret |= sb_profile_set_int(p, "unresolved_sites", (int64_t)rg->unresolved);
	ret |= sb_profile_set_int(p, "site_descriptions_unsent", (int64_t)n[SB_CNT_SITES_UNSENT]);
	ret |= sb_profile_set_int(p, "offcpu_intervals_lost", (int64_t)n[SB_CNT_OFFCPU_LOST]);
	ret |= sb_profile_set_int(p, "forks_seen_late", (int64_t)n[SB_CNT_FORKS_LATE]);
	ret |= sb_profile_set_int(p, "exits_seen_late", (int64_t)n[SB_CNT_EXITS_LATE]);
	ret |= sb_profile_set_int(p, "unseen_children_events", (int64_t)n[SB_CNT_UNSEEN]);
	ret |= sb_profile_set_int(p, "probes_not_attached", rg->attach.failed_files);
	ret |= sb_profile_set_str(p, "probe_attach_failure", rg->attach.failure);
	ret |= sb_profile_set_int(p, "threads_dropped",
				  (int64_t)(n[SB_CNT_THREADS_FULL] + env->fast.threads_full));
	ret |= sb_collector_metadata(env->coll);
	return ret ? -ENOMEM : 0;
}

static void regions_free(void *state)
{
	struct regions *rg = state;

	sb_attach_free(&rg->attach);
}

const struct sb_source_ops sb_regions_source = {
	.name = "regions",
	.state_size = sizeof(struct regions),
	.start = regions_start,
	.process = regions_process,
	.record_type = SB_EV_SITE_PENDING,
	.record = regions_record,
	.detach = regions_detach,
	.losses = regions_losses,
	.free = regions_free,
};
