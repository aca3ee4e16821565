/*
 * The stack sampler: CPU samples inside regions. One perf event per CPU runs
 * on_sample (region.bpf.c), which counts samples per thread, stacks and
 * region path in the kernel; at the end the counts become sample rows
 * through the stack table.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "record/sources/sources.h"
#include "record/sources/stacks.h"
#include "region.skel.h"

struct sampler {
	const char *event;	/* "cycles" or "cpu-clock" once started */
	struct bpf_link **links;
	int n_links;
};

static bool sampler_wanted(const struct record_opts *o)
{
	return o->sample_hz > 0;
}

static int sampler_configure(void *state, struct sb_source_env *env)
{
	(void)state;
	env->skel->rodata->kernel_stacks = env->opts->kernel_stacks;
	return bpf_program__set_autoload(env->skel->progs.on_sample, true);
}

static int open_event(int cpu, int hz, bool hardware)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = hardware ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = hardware ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = (__u64)hz,
	};

	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int sampler_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	int ncpu = libbpf_num_possible_cpus(), hz = env->opts->sample_hz, cpu, fd;
	struct sampler *s = state;
	struct bpf_program *prog;
	struct bpf_link *link;
	bool hardware;

	if (ncpu <= 0)
		return sb_fail(err, EINVAL, "cannot count the CPUs to sample");
	/* A kernel that refuses the program costs the samples only: said at the end, exit 3. */
	prog = sb_kernel_prog(env->kernel, "on_sample", err);
	if (!prog) {
		err->msg[0] = 0;
		return 0;
	}
	s->links = calloc((size_t)ncpu, sizeof(*s->links));
	if (!s->links)
		return -ENOMEM;
	/* Cycles where the machine has a PMU; virtual machines often have none. */
	fd = open_event(0, hz, true);
	hardware = fd >= 0;
	if (fd >= 0)
		close(fd);
	s->event = hardware ? "cycles" : "cpu-clock";
	for (cpu = 0; cpu < ncpu; cpu++) {
		fd = open_event(cpu, hz, hardware);
		if (fd < 0 && errno == ENODEV)
			continue;	/* offline CPU */
		if (fd < 0)
			return sb_fail(err, errno, "sampling: perf_event_open (%s) on CPU %d: %s",
				       s->event, cpu, strerror(errno));
		link = bpf_program__attach_perf_event(prog, fd);
		if (!link) {
			close(fd);
			return sb_fail(err, errno, "sampling: attaching to CPU %d: %s", cpu,
				       strerror(errno));
		}
		s->links[s->n_links++] = link;
	}
	return 0;
}

static void sampler_stop(void *state, struct sb_source_env *env)
{
	struct sampler *s = state;
	int i;

	(void)env;
	for (i = 0; i < s->n_links; i++)
		bpf_link__destroy(s->links[i]);
	free(s->links);
	s->links = NULL;
	s->n_links = 0;
}

static int sampler_contribute(void *state, struct sb_source_env *env)
{
	struct sb_profile *p = &env->coll->prof;
	struct sampler *s = state;
	int ret;

	ret = sb_stacks_read(env->stacks, env, bpf_map__fd(env->skel->maps.cpu_samples),
			     SB_SAMPLE_CPU);
	if (ret)
		return ret;
	ret |= sb_profile_set_int(p, "sample_frequency_hz", env->opts->sample_hz);
	ret |= sb_profile_set_str(p, "sample_event", s->event ? s->event : "cpu-clock");
	ret |= sb_profile_set_int(p, "kernel_stacks", env->opts->kernel_stacks);
	return ret ? -ENOMEM : 0;
}

static void sampler_free(void *state)
{
	sampler_stop(state, NULL);
}

const struct sb_source_ops sb_sampler_source = {
	.name = "sampler",
	.state_size = sizeof(struct sampler),
	.wanted = sampler_wanted,
	.configure = sampler_configure,
	.start = sampler_start,
	.stop = sampler_stop,
	.contribute = sampler_contribute,
	.free = sampler_free,
};
