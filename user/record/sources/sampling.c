/*
 * Sampling. The counting happens in region.bpf.c (samples and blocked time per
 * thread, stacks and region path, aggregated in maps); this file opens the
 * perf events, keeps each process's mappings while it lives, and at the end
 * turns the kernel's aggregates into symbolized stacks in the model.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/maps.h"
#include "region.h"
#include "region.skel.h"
#include "record/sources/sampling.h"
#include "record/symbols/symbolize.h"

#define MAX_INLINE 16			/* frames one address may expand to */
#define KERNEL_TGID (1ULL << 32)	/* stack-table key space of kernel stacks */

int sb_sampling_configure(struct sb_sampling *s, struct region_bpf *skel)
{
	skel->rodata->kernel_stacks = s->kernel_stacks;
	skel->rodata->offcpu_stacks = s->offcpu_stacks;
	skel->rodata->offcpu_min_ns = s->offcpu_min_ns;
	bpf_program__set_autoload(skel->progs.on_sample, s->hz > 0);
	if ((s->hz || s->offcpu_stacks) && !s->sym) {
		s->sym = sb_sym_new();
		if (!s->sym)
			return -ENOMEM;
	}
	return 0;
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

int sb_sampling_start(struct sb_sampling *s, struct region_bpf *skel, struct sb_error *err)
{
	int ncpu = libbpf_num_possible_cpus(), cpu, fd;
	bool hardware;

	if (!s->hz)
		return 0;
	if (ncpu <= 0)
		return sb_fail(err, EINVAL, "cannot count the CPUs to sample");
	s->links = calloc((size_t)ncpu, sizeof(*s->links));
	if (!s->links)
		return -ENOMEM;
	/* Cycles where the machine has a PMU; virtual machines often have none. */
	fd = open_event(0, s->hz, true);
	hardware = fd >= 0;
	if (fd >= 0)
		close(fd);
	s->event = hardware ? "cycles" : "cpu-clock";
	for (cpu = 0; cpu < ncpu; cpu++) {
		fd = open_event(cpu, s->hz, hardware);
		if (fd < 0 && errno == ENODEV)
			continue;	/* offline CPU */
		if (fd < 0)
			return sb_fail(err, errno, "sampling: perf_event_open (%s) on CPU %d: %s",
				       s->event, cpu, strerror(errno));
		s->links[s->n_links] = bpf_program__attach_perf_event(skel->progs.on_sample, fd);
		if (!s->links[s->n_links]) {
			close(fd);
			return sb_fail(err, errno, "sampling: attaching to CPU %d: %s", cpu,
				       strerror(errno));
		}
		s->n_links++;
	}
	return 0;
}

void sb_sampling_snapshot(struct sb_sampling *s, pid_t pid)
{
	struct sb_map *maps;
	size_t n;

	if (!s->sym || sb_maps_read(pid, &maps, &n))
		return;
	sb_sym_snapshot(s->sym, (uint32_t)pid, maps, n);
	sb_maps_free(maps, n);
}

void sb_sampling_fork(struct sb_sampling *s, pid_t parent, pid_t child)
{
	if (s->sym)
		sb_sym_fork(s->sym, (uint32_t)parent, (uint32_t)child);
}

void sb_sampling_stop(struct sb_sampling *s)
{
	int i;

	for (i = 0; i < s->n_links; i++)
		bpf_link__destroy(s->links[i]);
	free(s->links);
	s->links = NULL;
	s->n_links = 0;
}

void sb_sampling_free(struct sb_sampling *s)
{
	sb_sampling_stop(s);
	if (s->sym)
		sb_sym_free(s->sym);
	s->sym = NULL;
}

/* What the model is built from, while the aggregates are read. */
struct builder {
	struct sb_sampling *s;
	struct sb_collector *c;
	struct sb_samples *out;
	int stacks_fd;
	struct sb_hashmap frame_of;	/* (content hash, 0) -> frame id */
	struct sb_hashmap stack_of;	/* (tgid or KERNEL_TGID, stack id) -> model stack id */
	uint64_t outside;		/* samples of processes that are not ranks */
};

static uint64_t mix_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL;
}

static uint64_t frame_key(const struct sb_frame_sym *f)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = mix_str(h, f->function);
	h = mix_str(h, f->file);
	h = mix_str(h, f->module);
	h = (h ^ (uint64_t)f->line) * 0x100000001b3ULL;
	h = (h ^ f->offset) * 0x100000001b3ULL;
	return (h ^ f->inlined) * 0x100000001b3ULL;
}

static int64_t intern_frame(struct builder *b, const struct sb_frame_sym *f)
{
	uint64_t key = frame_key(f), *id = sb_hashmap_get(&b->frame_of, key, 0);
	struct sb_samples *o = b->out;
	struct sb_frame_sym *frames, *n;

	if (id)
		return (int64_t)*id;
	frames = realloc(o->frames, (o->n_frames + 1) * sizeof(*frames));
	if (!frames)
		return -ENOMEM;
	o->frames = frames;
	n = &frames[o->n_frames];
	*n = *f;
	n->function = strdup(f->function ? f->function : "");
	n->file = strdup(f->file ? f->file : "");
	n->module = strdup(f->module ? f->module : "");
	if (!n->function || !n->file || !n->module) {
		free(n->function);
		free(n->file);
		free(n->module);
		return -ENOMEM;
	}
	if (sb_hashmap_put(&b->frame_of, key, 0, o->n_frames))
		return -ENOMEM;
	return (int64_t)o->n_frames++;
}

static int push_frame(struct builder *b, uint32_t id)
{
	struct sb_samples *o = b->out;
	uint32_t *ids;

	if (o->n_stack_frames % 1024 == 0) {
		ids = realloc(o->stack_frames, (o->n_stack_frames + 1024) * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		o->stack_frames = ids;
	}
	o->stack_frames[o->n_stack_frames++] = id;
	return 0;
}

/* Symbolize one address into frames and append them (innermost first). */
static int push_address(struct builder *b, uint32_t tgid, bool kernel, uint64_t ip, bool ret_addr)
{
	struct sb_frame_sym frames[MAX_INLINE];
	int n, i;
	int64_t id;

	n = kernel ? sb_sym_kernel(b->s->sym, ret_addr ? ip - 1 : ip, frames) :
		     sb_sym_user(b->s->sym, tgid, ip, ret_addr, frames, MAX_INLINE);
	if (n <= 0)
		return n < 0 ? n : 0;
	for (i = 0; i < n; i++) {
		id = intern_frame(b, &frames[i]);
		if (id < 0 || push_frame(b, (uint32_t)id))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A kernel stack taken at a context switch starts inside our own program and
 * the tracepoint that ran it: how many such leading frames to leave out.
 */
static int tracing_frames(struct builder *b, const uint64_t *ips)
{
	static const char *const prefixes[] = { "bpf_prog_", "bpf_trace_run", "__bpf_trace_",
						"__traceiter_" };
	struct sb_frame_sym f;
	size_t j;
	int i;

	for (i = 0; i < SB_MAX_STACK_DEPTH && ips[i]; i++) {
		if (sb_sym_kernel(b->s->sym, i ? ips[i] - 1 : ips[i], &f) != 1)
			break;
		for (j = 0; j < sizeof(prefixes) / sizeof(prefixes[0]); j++)
			if (!strncmp(f.function, prefixes[j], strlen(prefixes[j])))
				break;
		if (j == sizeof(prefixes) / sizeof(prefixes[0]))
			break;
	}
	return i < SB_MAX_STACK_DEPTH && ips[i] ? i : 0;
}

/*
 * The model id of a kernel stack id as seen by process tgid; -1 when the kernel
 * lost it, or when memory ran out (the sample then simply has no stack).
 */
static int64_t stack_id(struct builder *b, uint32_t tgid, bool kernel, int32_t kid)
{
	uint64_t space = kernel ? KERNEL_TGID : tgid, *known, ips[SB_MAX_STACK_DEPTH];
	struct sb_samples *o = b->out;
	struct sb_stack *stacks;
	uint64_t first = o->n_stack_frames;
	__u32 key = (__u32)kid;
	int i, ret;

	if (kid < 0)
		return -1;
	known = sb_hashmap_get(&b->stack_of, space, key);
	if (known)
		return (int64_t)*known;
	memset(ips, 0, sizeof(ips));
	if (bpf_map_lookup_elem(b->stacks_fd, &key, ips))
		return -1;
	i = kernel ? tracing_frames(b, ips) : 0;
	for (; i < SB_MAX_STACK_DEPTH && ips[i]; i++) {
		/* Every frame but the leaf is a return address: the call is just before it. */
		ret = push_address(b, tgid, kernel, ips[i], i > 0);
		if (ret)
			return -1;
	}
	stacks = realloc(o->stacks, (o->n_stacks + 1) * sizeof(*stacks));
	if (!stacks)
		return -1;
	o->stacks = stacks;
	stacks[o->n_stacks].first = first;
	stacks[o->n_stacks].depth = (uint32_t)(o->n_stack_frames - first);
	if (sb_hashmap_put(&b->stack_of, space, key, o->n_stacks))
		return -1;
	return (int64_t)o->n_stacks++;
}

static int add_sample(struct builder *b, uint32_t kind, const struct sb_sample_key *k,
		      uint64_t count, uint64_t ns)
{
	int64_t rank = sb_collector_rank(b->c, k->tgid);
	struct sb_samples *o = b->out;
	struct sb_sample *samples, *x;

	if (rank < 0) {
		b->outside += count;
		return 0;
	}
	samples = realloc(o->samples, (o->n_samples + 1) * sizeof(*samples));
	if (!samples)
		return -ENOMEM;
	o->samples = samples;
	x = &samples[o->n_samples];
	*x = (struct sb_sample){
		.kind = kind, .rank = (uint32_t)rank, .count = count, .ns = ns,
		.thread = sb_collector_thread_row(b->c, k->tgid, k->tid),
		.path = sb_collector_path_id(b->c, k->path),
		.ustack = stack_id(b, k->tgid, false, k->ustack),
		.kstack = stack_id(b, k->tgid, true, k->kstack),
	};
	o->n_samples++;
	return 0;
}

static int read_cpu(struct builder *b, int fd)
{
	struct sb_sample_key key, next, *prev = NULL;
	uint64_t count;
	int ret;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &count))
			continue;
		ret = add_sample(b, SB_SAMPLE_CPU, &key, count, 0);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_offcpu(struct builder *b, int fd)
{
	struct sb_sample_key key, next, *prev = NULL;
	struct sb_offcpu_value v;
	int ret;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		ret = add_sample(b, SB_SAMPLE_OFFCPU, &key, v.count, v.ns);
		if (ret)
			return ret;
	}
	return 0;
}

static int add_metadata(struct sb_sampling *s, struct sb_profile *p, uint64_t outside)
{
	int ret = 0;

	if (s->hz) {
		ret |= sb_profile_set_int(p, "sample_frequency_hz", s->hz);
		ret |= sb_profile_set_str(p, "sample_event", s->event ? s->event : "cpu-clock");
		ret |= sb_profile_set_int(p, "kernel_stacks", s->kernel_stacks);
	}
	if (s->offcpu_stacks)
		ret |= sb_profile_set_int(p, "offcpu_min_block_ns", (int64_t)s->offcpu_min_ns);
	ret |= sb_profile_set_int(p, "samples_outside_ranks", (int64_t)outside);
	return ret ? -ENOMEM : 0;
}

int sb_sampling_contribute(struct sb_sampling *s, struct region_bpf *skel, struct sb_collector *c)
{
	struct builder b = { .s = s, .c = c, .out = &c->prof.samples,
			     .stacks_fd = bpf_map__fd(skel->maps.stacks) };
	int ret = 0;

	if (!s->sym)
		return 0;
	sb_hashmap_init(&b.frame_of);
	sb_hashmap_init(&b.stack_of);
	if (s->hz)
		ret = read_cpu(&b, bpf_map__fd(skel->maps.cpu_samples));
	if (!ret && s->offcpu_stacks)
		ret = read_offcpu(&b, bpf_map__fd(skel->maps.offcpu_samples));
	if (!ret)
		ret = add_metadata(s, &c->prof, b.outside);
	sb_hashmap_free(&b.frame_of);
	sb_hashmap_free(&b.stack_of);
	return ret;
}
