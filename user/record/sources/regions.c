/*
 * Region calls: the marker programs (region.bpf.c) run at the scope_bpf
 * probes of each traced process and send completed calls to the collector;
 * this source attaches them to each process image and names what the
 * kernel side could not keep.
 */
#include <errno.h>

#include "record/attach.h"
#include "record/sources/regions.h"
#include "record/sources/sources.h"

static int regions_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	struct sb_attach *a = state;

	sb_attach_init(a, env->skel, env->guardian, env->opts->verbose);
	(void)err;
	a->fast = record_fast_wanted(env->opts);
	return 0;
}

/* A new process image (or the first look at one): attach its probes. */
static int regions_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
			   struct sb_error *err)
{
	int ret;

	(void)env;
	if (ch->what == SB_PROC_FORK)
		return 0;	/* the child has its parent's probes */
	ret = sb_attach_process(state, ch->pid, err);
	return ret < 0 ? ret : 0;
}

static void regions_detach(void *state, struct sb_source_env *env)
{
	(void)env;
	sb_attach_free(state);
}

uint64_t sb_regions_lost_events(const struct sb_source_env *env)
{
	return env->counters[SB_CNT_LOST_CALLS] + env->counters[SB_CNT_LOST_OTHER] +
	       env->counters[SB_CNT_THREADS_FULL] + env->coll->dropped_calls + env->fast_lost +
	       env->fast_threads_full;
}

int sb_regions_probe_files(const struct sb_sources *set)
{
	const struct sb_attach *a = sb_sources_state(set, &sb_regions_source);

	return a ? a->probe_files : 0;
}

/* The kernel's counters and the collector's drops; model/health.c explains each key. */
static int regions_losses(void *state, struct sb_source_env *env)
{
	struct sb_profile *p = &env->coll->prof;
	const uint64_t *n = env->counters;
	int ret = 0;

	(void)state;
	ret |= sb_profile_set_int(p, "lost_events", (int64_t)sb_regions_lost_events(env));
	ret |= sb_profile_set_int(p, "open_calls_dropped",
				  (int64_t)(n[SB_CNT_OPEN_DROPPED] + env->open_at_end));
	ret |= sb_profile_set_int(p, "depth_overflow_calls",
				  (int64_t)(n[SB_CNT_DEPTH_OVERFLOW] + env->fast_overflow));
	ret |= sb_profile_set_int(p, "unmatched_region_ends",
				  (int64_t)(n[SB_CNT_UNMATCHED_END] + env->fast_unmatched));
	ret |= sb_profile_set_int(p, "invalid_sites",
				  (int64_t)(n[SB_CNT_BAD_SITE] + env->fast_bad_sites));
	ret |= sb_profile_set_int(p, "threads_dropped",
				  (int64_t)(n[SB_CNT_THREADS_FULL] + env->fast_threads_full));
	ret |= sb_collector_metadata(env->coll);
	return ret ? -ENOMEM : 0;
}

static void regions_free(void *state)
{
	sb_attach_free(state);
}

const struct sb_source_ops sb_regions_source = {
	.name = "regions",
	.state_size = sizeof(struct sb_attach),
	.start = regions_start,
	.process = regions_process,
	.detach = regions_detach,
	.losses = regions_losses,
	.free = regions_free,
};
