/*
 * The stack sampler: CPU samples inside regions. One perf event per CPU runs
 * on_sample (region.bpf.c), which counts samples per thread, stacks and
 * region path in the kernel, and sends each sample with its time and CPU
 * through a ring of its own. The recorder's loop drains that ring into the
 * sample log each turn; at the end the counts become sample rows and the
 * log the timeline, through the stack table.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "record/recorder.h"
#include "record/sources/sample_log.h"
#include "record/sources/sources.h"
#include "record/sources/stacks.h"
#include "region.skel.h"

struct sampler {
	const char *event;	/* "cycles" or "cpu-clock" once started */
	struct bpf_link **links;
	int n_links;
	struct ring_buffer *ring;	/* the sample ring, NULL when on_sample did not load */
	struct sb_sample_log log;
	uint64_t unread;	/* kept in the log, yet not in the timeline: it failed */
};

static bool sampler_wanted(const struct record_opts *o)
{
	return o->sample_hz > 0;
}

static int sampler_configure(void *state, struct sb_source_env *env)
{
	(void)state;
	env->skel->rodata->kernel_stacks = env->opts->kernel_stacks;
	bpf_map__set_max_entries(env->skel->maps.sample_events,
				 sb_sample_ring_bytes(env->opts->sample_hz,
						      libbpf_num_possible_cpus()));
	return bpf_program__set_autoload(env->skel->progs.on_sample, true);
}

static int on_timed_sample(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;

	if (size < sizeof(struct sb_sample_event)) {
		s->log.dropped++;
		return 0;
	}
	sb_sample_log_add(&s->log, data);
	return 0;
}

/* Memory for the calls' spans and paths before they go to a temporary file. */
#define CALL_PATHS_MEM (8u << 20)

/* The sample ring and the log it is drained into. 0 or -errno. */
static int open_ring(struct sampler *s, struct sb_source_env *env)
{
	int ret;

	ret = sb_sample_log_init(&s->log, env->tmp_dir, SB_TIMELINE_MAX, SB_SAMPLE_LOG_MEM);
	if (ret)
		return ret;
	s->ring = ring_buffer__new(bpf_map__fd(env->skel->maps.sample_events), on_timed_sample,
				   s, NULL);
	return s->ring ? 0 : -errno;
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
	int ncpu = libbpf_num_possible_cpus(), hz = env->opts->sample_hz, cpu, fd, ret;
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
	ret = open_ring(s, env);
	if (ret)
		return sb_fail(err, -ret, "sampling: cannot read the sample ring: %s",
			       strerror(-ret));
	/* Timed samples are placed by time among the calls (sample_place.c). */
	ret = sb_collector_keep_call_paths(env->coll, env->tmp_dir, CALL_PATHS_MEM);
	if (ret)
		return sb_fail(err, -ret, "sampling: cannot keep the calls' paths: %s",
			       strerror(-ret));
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

static void detach_links(struct sampler *s)
{
	int i;

	for (i = 0; i < s->n_links; i++)
		bpf_link__destroy(s->links[i]);
	free(s->links);
	s->links = NULL;
	s->n_links = 0;
}

/* Each turn of the loop: the ring holds a few seconds of samples, never the whole run. */
static int sampler_tick(void *state, struct sb_source_env *env)
{
	struct sampler *s = state;

	(void)env;
	if (s->ring)
		ring_buffer__consume(s->ring);
	return 0;
}

/* No sample is taken from here on: what the ring holds is the last of them. */
static void sampler_stop(void *state, struct sb_source_env *env)
{
	struct sampler *s = state;

	detach_links(s);
	sampler_tick(s, env);
}

/*
 * After the aggregates, whose stacks the timeline's rows share. Without it
 * the sums are still whole: its samples are counted lost, the file written.
 */
static void keep_timeline(struct sampler *s, struct sb_source_env *env)
{
	uint64_t kept = sb_sample_log_count(&s->log);
	int ret = sb_stacks_timeline(env->stacks, env, &s->log);

	if (!ret)
		return;
	s->unread = kept;
	if (env->opts->verbose)
		record_say("the %llu timed samples are not kept: %s", (unsigned long long)kept,
			   strerror(-ret));
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
	keep_timeline(s, env);
	ret |= sb_profile_set_int(p, "sample_frequency_hz", env->opts->sample_hz);
	ret |= sb_profile_set_str(p, "sample_event", s->event ? s->event : "cpu-clock");
	ret |= sb_profile_set_int(p, "kernel_stacks", env->opts->kernel_stacks);
	return ret ? -ENOMEM : 0;
}

/* Samples summed, but not in the timeline: the ring was full, past the limit, or not read back. */
static int sampler_losses(void *state, struct sb_source_env *env)
{
	struct sampler *s = state;
	uint64_t lost = env->counters[SB_CNT_TIMELINE_LOST] + s->log.dropped + s->unread;

	if (s->log.error && env->opts->verbose)
		record_say("timed samples could not be kept on disk: %s", strerror(-s->log.error));
	return sb_profile_set_int(&env->coll->prof, "lost_timed_samples", (int64_t)lost);
}

static void sampler_free(void *state)
{
	struct sampler *s = state;

	detach_links(s);
	ring_buffer__free(s->ring);
	s->ring = NULL;
	sb_sample_log_free(&s->log);
}

const struct sb_source_ops sb_sampler_source = {
	.name = "sampler",
	.state_size = sizeof(struct sampler),
	.wanted = sampler_wanted,
	.configure = sampler_configure,
	.start = sampler_start,
	.tick = sampler_tick,
	.stop = sampler_stop,
	.contribute = sampler_contribute,
	.losses = sampler_losses,
	.free = sampler_free,
};
