/*
 * Off-CPU time: the scheduler tracepoint (region.bpf.c) charges the time a
 * traced thread is switched out to its open calls and to the thread, in
 * every recording. With --offcpu-stacks it also counts where threads block,
 * per stacks and region path, read at the end through the stack table.
 */
#include <bpf/libbpf.h>

#include "record/sources/sources.h"
#include "record/sources/stacks.h"
#include "region.skel.h"

static int offcpu_configure(void *state, struct sb_source_env *env)
{
	(void)state;
	env->skel->rodata->offcpu_stacks = env->opts->offcpu_stacks;
	env->skel->rodata->offcpu_min_ns = env->opts->offcpu_min_ns;
	return 0;
}

static int offcpu_contribute(void *state, struct sb_source_env *env)
{
	int ret;

	(void)state;
	if (!env->opts->offcpu_stacks)
		return 0;
	ret = sb_stacks_read(env->stacks, env, bpf_map__fd(env->skel->maps.offcpu_samples),
			     SB_SAMPLE_OFFCPU);
	if (ret)
		return ret;
	return sb_profile_set_int(&env->coll->prof, "offcpu_min_block_ns",
				  (int64_t)env->opts->offcpu_min_ns);
}

const struct sb_source_ops sb_offcpu_source = {
	.name = "offcpu",
	.configure = offcpu_configure,
	.contribute = offcpu_contribute,
};
