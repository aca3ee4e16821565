/*
 * Counters per region call (record -e): one counting perf event per traced
 * thread and event, the thread's own (perf_event_open(tid, cpu -1), no
 * inherit), so a count follows its thread across CPUs and never includes
 * another task. Threads alive when tracing starts are opened from /proc; a
 * thread that appears later is announced by the kernel side (its first event
 * or context switch, bpf/counters.bpf.h) and opened then: calls it began
 * before have unknown counts. The kernel side reads the events at every frame
 * push and pop and puts the deltas in the call records (docs/COUNTERS.md).
 * record --memory's slots open nothing: the kernel side reads the task.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "model/memory.h"
#include "record/sources/counters.h"
#include "record/sources/sources.h"
#include "region.skel.h"
#include "util/hashmap.h"

_Static_assert(SB_CTR_MAX == SB_MAX_COUNTERS, "a thread's slot holds every event");

struct counters {
	const struct sb_counter_set *set;
	int *fds;			/* [slot * SB_CTR_MAX + k], -1 closed */
	uint32_t next_free;		/* slots below it were handed out once */
	uint32_t *free_list;		/* slots given back by exited threads */
	uint32_t n_free;
	struct sb_hashmap slot_of;	/* (tid, 0) -> slot + 1, 0 when it has none now */
	uint64_t counted;		/* threads whose counters were opened */
	uint64_t uncounted;		/* threads that could not get counters: their calls unknown */
	bool multiplexed;
};

static bool counters_wanted(const struct record_opts *o)
{
	return o->counters.n > 0;
}

/* record --memory's slots: which of the task's values each reads (bpf/counters.bpf.h). */
static void configure_memory(const struct sb_counter_set *set, struct region_bpf *skel)
{
	static const uint8_t value[SB_MEMORY_SLOTS] = {
		[SB_MEMORY_RSS_GROWTH] = SB_MEM_RSS, [SB_MEMORY_RSS_RELEASE] = SB_MEM_RSS,
		[SB_MEMORY_PEAK_GROWTH] = SB_MEM_PEAK, [SB_MEMORY_FAULTS] = SB_MEM_FAULTS,
	};
	long page = sysconf(_SC_PAGESIZE);
	unsigned int k;

	for (k = 0; k < set->n; k++) {
		if (!set->ev[k].memory || set->ev[k].config >= SB_MEMORY_SLOTS)
			continue;
		skel->rodata->ctr_mem |= 1u << k;
		skel->rodata->ctr_mem_what[k] = value[set->ev[k].config];
		if (set->ev[k].config == SB_MEMORY_RSS_RELEASE)
			skel->rodata->ctr_falling |= 1u << k;
	}
	if (page > 0)
		skel->rodata->mem_page_size = (uint64_t)page;
}

static int counters_configure(void *state, struct sb_source_env *env)
{
	struct region_bpf *skel = env->skel;
	struct counters *c = state;
	unsigned int k;

	c->set = &env->opts->counters;
	env->coll->n_counters = c->set->n;
	skel->rodata->n_counters = c->set->n;
	/* The counting marker programs in place of the plain ones (never sleepable). */
	if (bpf_program__set_autoload(skel->progs.region_begin_ctr, true) ||
	    bpf_program__set_autoload(skel->progs.region_end_ctr, true) ||
	    bpf_program__set_autoload(skel->progs.begin_site_reg_ctr, true) ||
	    bpf_program__set_autoload(skel->progs.end_site_reg_ctr, true) ||
	    bpf_program__set_autoload(skel->progs.region_begin, false) ||
	    bpf_program__set_autoload(skel->progs.region_end, false) ||
	    bpf_program__set_autoload(skel->progs.begin_site_reg, false) ||
	    bpf_program__set_autoload(skel->progs.end_site_reg, false))
		return -EINVAL;
	for (k = 0; k < c->set->n; k++)
		if (c->set->ev[k].hardware)
			env->skel->rodata->ctr_timed |= 1u << k;
	configure_memory(c->set, skel);
	return bpf_map__set_max_entries(env->skel->maps.ctr_threads, SB_CTR_MAX_THREADS);
}

static int counters_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	struct counters *c = state;
	size_t i;

	(void)env;
	sb_hashmap_init(&c->slot_of);
	c->fds = malloc(SB_CTR_MAX_THREADS * SB_CTR_MAX * sizeof(*c->fds));
	c->free_list = calloc(SB_CTR_MAX_THREADS, sizeof(*c->free_list));
	if (!c->fds || !c->free_list)
		return sb_fail(err, ENOMEM, "counters: out of memory");
	for (i = 0; i < SB_CTR_MAX_THREADS * SB_CTR_MAX; i++)
		c->fds[i] = -1;
	return 0;
}

static int open_event(const struct sb_counter_event *ev, pid_t tid)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = ev->type, .config = ev->config,
		.config1 = ev->config1, .config2 = ev->config2,
	};

	return (int)syscall(__NR_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The slot's events closed and out of the array, which holds them as long as they are in it. */
static void close_slot(struct counters *c, struct sb_source_env *env, uint32_t slot)
{
	int *fd = &c->fds[slot * SB_CTR_MAX];
	uint32_t idx;
	unsigned int k;

	for (k = 0; k < SB_CTR_MAX; k++) {
		if (fd[k] < 0)
			continue;
		idx = slot * SB_CTR_MAX + k;
		if (env)
			bpf_map_delete_elem(bpf_map__fd(env->skel->maps.ctr_events), &idx);
		close(fd[k]);
		fd[k] = -1;
	}
}

/* A free slot, or -1 when SB_CTR_MAX_THREADS threads hold one. */
static int64_t take_slot(struct counters *c)
{
	if (c->n_free)
		return c->free_list[--c->n_free];
	return c->next_free < SB_CTR_MAX_THREADS ? (int64_t)c->next_free++ : -1;
}

/*
 * Open tid's events into a slot and tell the kernel side. A thread that
 * exited meanwhile (ESRCH) is no failure: it had nothing more to count.
 */
static int open_thread(struct counters *c, struct sb_source_env *env, uint32_t tid)
{
	struct sb_ctr_thread blank = { 0 };
	uint64_t *known = sb_hashmap_get(&c->slot_of, tid, 0);
	uint32_t key = tid, idx = 0;
	unsigned int k;
	int64_t slot;
	bool gone;
	int fd = -1;

	if (known && *known)
		return 0;
	slot = take_slot(c);
	if (slot < 0) {
		c->uncounted++;
		return 0;
	}
	for (k = 0; k < c->set->n; k++) {
		if (c->set->ev[k].memory)
			continue;
		fd = open_event(&c->set->ev[k], (pid_t)tid);
		idx = (uint32_t)slot * SB_CTR_MAX + k;
		if (fd < 0 ||
		    bpf_map_update_elem(bpf_map__fd(env->skel->maps.ctr_events), &idx, &fd, BPF_ANY))
			goto fail;
		c->fds[idx] = fd;
	}
	blank.slot = (uint32_t)slot;
	if (bpf_map_update_elem(bpf_map__fd(env->skel->maps.ctr_threads), &key, &blank, BPF_ANY))
		goto fail;
	c->counted++;
	return sb_hashmap_put(&c->slot_of, tid, 0, (uint64_t)slot + 1);
fail:
	gone = errno == ESRCH;
	if (fd >= 0 && c->fds[idx] != fd)
		close(fd);
	close_slot(c, env, (uint32_t)slot);
	c->free_list[c->n_free++] = (uint32_t)slot;
	if (!gone)
		c->uncounted++;
	return 0;
}

/* A thread ended: its events are closed and its slot is free for the next one. */
static void close_thread(struct counters *c, struct sb_source_env *env, uint32_t tid)
{
	uint64_t *known = sb_hashmap_get(&c->slot_of, tid, 0);
	uint32_t key = tid, slot;

	if (!known || !*known)
		return;
	slot = (uint32_t)(*known - 1);
	*known = 0;
	bpf_map_delete_elem(bpf_map__fd(env->skel->maps.ctr_threads), &key);
	close_slot(c, env, slot);
	c->free_list[c->n_free++] = slot;
}

/* Threads alive when tracing begins: the kernel side only hears of them when they run. */
static int counters_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
			    struct sb_error *err)
{
	struct counters *c = state;
	struct dirent *d;
	char path[64];
	DIR *dir;
	long tid;
	int ret = 0;

	(void)err;
	if (ch->what != SB_PROC_START)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)ch->pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!ret && (d = readdir(dir))) {
		tid = strtol(d->d_name, NULL, 10);
		if (tid > 0)
			ret = open_thread(c, env, (uint32_t)tid);
	}
	closedir(dir);
	return ret;
}

static int counters_record(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	struct sb_ctr_thread_event e;
	struct counters *c = state;

	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if (e.exited) {
		close_thread(c, env, e.tid);
		return 0;
	}
	return open_thread(c, env, e.tid);
}

static void counters_stop(void *state, struct sb_source_env *env)
{
	struct counters *c = state;

	c->multiplexed = env->skel->bss->ctr_multiplexed;
}

/*
 * The CPU's nominal clock, LIKWID's 1 / inverseClock: the base frequency where
 * cpufreq says it, else the highest, else what /proc/cpuinfo says now. 0 unknown.
 */
static int64_t cpu_clock_hz(void)
{
	static const char *const khz[] = {
		"/sys/devices/system/cpu/cpu0/cpufreq/base_frequency",
		"/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
	};
	char line[256];
	double mhz = 0;
	long long v;
	size_t i;
	FILE *f;

	for (i = 0; i < sizeof(khz) / sizeof(khz[0]); i++) {
		f = fopen(khz[i], "r");
		v = 0;
		if (f && fscanf(f, "%lld", &v) != 1)
			v = 0;
		if (f)
			fclose(f);
		if (v > 0)
			return v * 1000;
	}
	f = fopen("/proc/cpuinfo", "r");
	while (f && !mhz && fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu MHz", 7) && sscanf(strchr(line, ':') ? strchr(line, ':') + 1 :
							   "", "%lf", &mhz) != 1)
			mhz = 0;
	if (f)
		fclose(f);
	return (int64_t)(mhz * 1e6);
}

/* -g: which group, from which perfgroups directory, and the LIKWID counter of each event. */
static int group_metadata(struct sb_profile *p, const struct sb_likwid_group *g)
{
	char list[SB_MAX_COUNTERS * 16];
	size_t len = 0;
	unsigned int i;
	int ret;

	list[0] = 0;
	for (i = 0; i < g->events.n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? "," : "",
					g->counter_names[i] ? g->counter_names[i] : "");
	ret = sb_profile_set_str(p, "counter_group", g->name);
	ret |= sb_profile_set_str(p, "counter_group_arch", g->arch ? g->arch : "");
	ret |= sb_profile_set_str(p, "counter_group_counters", list);
	if (cpu_clock_hz() > 0)
		ret |= sb_profile_set_int(p, "cpu_clock_hz", cpu_clock_hz());
	return ret;
}

static int counters_contribute(void *state, struct sb_source_env *env)
{
	struct sb_profile *p = &env->coll->prof;
	struct counters *c = state;
	char names[SB_MAX_COUNTERS * (SB_EVENT_NAME_MAX + 1)];
	int ret;

	sb_counter_names(c->set, names, sizeof(names));
	ret = sb_profile_set_str(p, "counter_events", names);
	if (env->opts->group)
		ret |= group_metadata(p, env->opts->group);
	ret |= sb_profile_set_int(p, "counter_multiplexed", c->multiplexed);
	ret |= sb_profile_set_int(p, "counter_threads", (int64_t)c->counted);
	ret |= sb_profile_set_int(p, "counter_threads_uncounted", (int64_t)c->uncounted);
	return ret ? -ENOMEM : 0;
}

static void counters_free(void *state)
{
	struct counters *c = state;
	uint32_t s;

	if (c->fds)
		for (s = 0; s < c->next_free; s++)
			close_slot(c, NULL, s);
	free(c->fds);
	free(c->free_list);
	sb_hashmap_free(&c->slot_of);
}

void sb_counter_names(const struct sb_counter_set *set, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < set->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "",
					set->ev[i].name);
}

const struct sb_source_ops sb_counters_source = {
	.name = "counters",
	.state_size = sizeof(struct counters),
	.wanted = counters_wanted,
	.configure = counters_configure,
	.start = counters_start,
	.process = counters_process,
	.record_type = SB_EV_CTR_THREAD,
	.record = counters_record,
	.stop = counters_stop,
	.contribute = counters_contribute,
	.free = counters_free,
};
