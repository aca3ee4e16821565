/*
 * The collector. Per call it keeps only what the index needs (pair statistics,
 * exclusive sums, which call ids exist); the calls themselves go to the spill,
 * so memory stays bounded however long the recording runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "counters/events.h"
#include "record/collect.h"
#include "record/sources/mpi_names.h"
#include "region.h"
#include "util/utf8.h"

#define MAX_CALL_ID (1ULL << 36)	/* bitmap bound: 8 GiB of calls in one process */
#define STREAM_BATCH 4096
#define OPEN_NAMES_MAX 1024	/* bytes of regions_open_at_start */

/*
 * The per-call metric columns the kernel's call record carries, one spill slot
 * each, in slot order: a column the kernel measures adds its row here (and one
 * to SB_SPILL_METRICS). The last slot is the index of the call's counter
 * values in the counter store (-1 none): a recording has these columns, and
 * as many counter columns as it counts events.
 */
#define N_CALL_COLUMNS 1
static const struct {
	unsigned id;		/* enum sb_metric */
	size_t offset;		/* of its __u64 in struct sb_call_event */
} call_columns[N_CALL_COLUMNS] = {
	{ SB_METRIC_OFFCPU, offsetof(struct sb_call_event, offcpu_ns) },
};

#define COUNTS_SLOT N_CALL_COLUMNS

_Static_assert(SB_SPILL_METRICS == N_CALL_COLUMNS + 1, "spill slots");
_Static_assert(SB_CTR_MAX == SB_COUNTER_SLOTS && SB_CTR_MAX == SB_MAX_COUNTERS &&
	       SB_CTR_VALUES == 2 * SB_CTR_MAX, "one counter column per event a recording counts");

/*
 * A call's counts (each the kernel's delta, or -1 unknown) into the store, its
 * index into the spilled record; none without a record's counts.
 */
static int store_counts(struct sb_collector *c, struct sb_spill_rec *rec,
			const struct sb_call_ctr_event *ctr)
{
	unsigned n = c->n_counters < SB_CTR_MAX ? c->n_counters : SB_CTR_MAX, k;
	int64_t v[SB_CTR_VALUES];

	rec->metric[COUNTS_SLOT] = -1;
	if (!ctr || !n)
		return 0;
	/* As the profile's counter rows lay them out (model.h): only the events counted. */
	for (k = 0; k < n; k++) {
		v[k] = ctr->incl[k] >= 0 ? ctr->incl[k] : -1;
		v[n + k] = ctr->excl[k] >= 0 ? ctr->excl[k] : -1;
	}
	return sb_ctr_store_add(&c->counts, v, sb_counter_stride(n), &rec->metric[COUNTS_SLOT]);
}

int sb_collector_init(struct sb_collector *c, const char *spill_dir, size_t mem_budget)
{
	memset(c, 0, sizeof(*c));
	sb_profile_init(&c->prof);
	sb_hashmap_init(&c->region_of);
	sb_hashmap_init(&c->open_name_seen);
	sb_hashmap_init(&c->proc_slot);
	sb_hashmap_init(&c->ranks);
	sb_hashmap_init(&c->pair_of);
	sb_hashmap_init(&c->thread_of);
	sb_hashmap_init(&c->gpu_of);
	sb_hashmap_init(&c->proc_of);
	sb_hashmap_init(&c->path_parent);
	sb_hashmap_init(&c->path_name);
	sb_hashmap_init(&c->name_of);
	sb_hashmap_init(&c->region_named);
	sb_hashmap_init(&c->path_of);
	c->rank_rule = sb_rank_by_first_call;
	sb_metrics_blank(c->blank_metric);
	if (sb_ctr_store_init(&c->counts, spill_dir))
		return -ENOMEM;
	c->spill = sb_spill_new(spill_dir, mem_budget);
	return c->spill ? 0 : -errno;
}

void sb_collector_free(struct sb_collector *c)
{
	uint32_t r;

	for (r = 0; r < c->n_ranks; r++) {
		free(c->called[r].words);
		sb_hashmap_free(&c->called[r].below);
	}
	free(c->called);
	free(c->slot_tgid);
	free(c->slot_rank);
	free(c->threads);
	free(c->exclusive);
	free(c->pair_slot);
	sb_hashmap_free(&c->region_of);
	sb_hashmap_free(&c->open_name_seen);
	free(c->open_names);
	sb_hashmap_free(&c->proc_slot);
	sb_hashmap_free(&c->ranks);
	sb_hashmap_free(&c->pair_of);
	sb_hashmap_free(&c->thread_of);
	sb_hashmap_free(&c->gpu_of);
	free(c->gpu_pair);
	sb_hashmap_free(&c->proc_of);
	sb_hashmap_free(&c->path_parent);
	sb_hashmap_free(&c->path_name);
	sb_hashmap_free(&c->name_of);
	sb_hashmap_free(&c->region_named);
	sb_hashmap_free(&c->path_of);
	for (r = 0; r < c->n_names; r++)
		free(c->names[r]);
	free(c->names);
	if (c->spill)
		sb_spill_free(c->spill);
	sb_collector_free_call_paths(c);
	sb_aggregator_free(&c->agg);
	sb_ctr_store_free(&c->counts);
	sb_profile_free(&c->prof);
	memset(c, 0, sizeof(*c));
}

static int bitset_set(struct sb_bitset *b, uint64_t bit)
{
	size_t need, n;
	uint64_t *w;

	if (!b->based) {
		b->first = bit & ~63ULL;
		b->based = true;
	}
	if (bit < b->first)
		return sb_hashmap_put(&b->below, bit, 0, 1);
	bit -= b->first;
	need = bit / 64 + 1;
	if (need > b->n_words) {
		n = b->n_words ? b->n_words : 1024;
		while (n < need)
			n *= 2;
		w = realloc(b->words, n * sizeof(*w));
		if (!w)
			return -ENOMEM;
		memset(w + b->n_words, 0, (n - b->n_words) * sizeof(*w));
		b->words = w;
		b->n_words = n;
	}
	b->words[bit / 64] |= 1ULL << (bit % 64);
	return 0;
}

static bool bitset_test(const struct sb_bitset *b, uint64_t bit)
{
	if (!b->based)
		return false;
	if (bit < b->first)
		return sb_hashmap_get(&b->below, bit, 0);
	bit -= b->first;
	return bit / 64 < b->n_words && (b->words[bit / 64] >> (bit % 64) & 1);
}

/* The process's command line, NULs turned into spaces, sanitized. */
static void read_cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	size_t n, i;
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	while (n && !buf[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = 0;
	sb_utf8_sanitize(buf);
}

static struct sb_process *process_of(struct sb_collector *c, uint32_t tgid)
{
	uint64_t *i = sb_hashmap_get(&c->proc_of, tgid, 0);

	return i ? &c->prof.processes[*i] : NULL;
}

/* A process with the given command line (NULL: read from /proc). */
static int add_process(struct sb_collector *c, pid_t pid, pid_t ppid, int64_t now,
		       const char *command)
{
	struct sb_process p = { .pid = pid, .ppid = ppid, .rank = -1, .start_ns = now,
				.end_ns = -1, .exit_code = -1 };
	char cmd[4096];
	ssize_t i;

	if (process_of(c, pid))
		return 0;
	if (!command) {
		read_cmdline(pid, cmd, sizeof(cmd));
		command = cmd;
	}
	p.command = (char *)command;
	i = sb_profile_add_process(&c->prof, &p);
	if (i < 0)
		return (int)i;
	return sb_hashmap_put(&c->proc_of, pid, 0, (uint64_t)i);
}

int sb_collector_add_process(struct sb_collector *c, pid_t pid, pid_t ppid, int64_t now)
{
	return add_process(c, pid, ppid, now, NULL);
}

/*
 * A forked child runs its parent's image until it execs (the exec's sync then
 * names the new one), and may be gone before /proc could be read.
 */
static int add_forked(struct sb_collector *c, const struct sb_proc_event *e)
{
	struct sb_process *parent = process_of(c, e->ppid);

	return add_process(c, (pid_t)e->tgid, (pid_t)e->ppid, (int64_t)e->time,
			   parent ? parent->command : NULL);
}

static struct sb_thread_info *thread_info(struct sb_collector *c, uint32_t tgid, uint32_t tid)
{
	uint64_t *i = sb_hashmap_get(&c->thread_of, tgid, tid);
	struct sb_thread_info *t;

	/* After its exit, a tid the kernel hands out again names a new thread. */
	if (i && c->threads[*i].end_ns < 0)
		return &c->threads[*i];
	if (!(c->n_threads & (c->n_threads - 1))) {
		t = realloc(c->threads, (c->n_threads ? c->n_threads * 2 : 16) * sizeof(*t));
		if (!t)
			return NULL;
		c->threads = t;
	}
	if (sb_hashmap_put(&c->thread_of, tgid, tid, c->n_threads))
		return NULL;
	t = &c->threads[c->n_threads++];
	*t = (struct sb_thread_info){ .tgid = tgid, .tid = tid, .first_ns = INT64_MAX,
				      .end_ns = -1, .cpu_ns = -1, .row = -1 };
	return t;
}

/* Must equal hash_name() in region.bpf.c: bytes up to the NUL, at most SB_NAME_MAX. */
uint64_t sb_name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < SB_NAME_MAX && name[i]; i++)
		h = (h ^ (uint8_t)name[i]) * 0x100000001b3ULL;
	return h;
}

/* Remember a name by the kernel's hash of its raw bytes, for region paths. */
static int remember_name(struct sb_collector *c, uint64_t hash, const char *name)
{
	char **names;

	if (sb_hashmap_get(&c->name_of, hash, 0))
		return 0;
	names = realloc(c->names, (c->n_names + 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	c->names = names;
	c->names[c->n_names] = strdup(name);
	if (!c->names[c->n_names])
		return -ENOMEM;
	return sb_hashmap_put(&c->name_of, hash, 0, c->n_names++);
}

/*
 * The region called name: by a hash of the names, a linear search only when
 * two names share one. Sixty thousand run-time names took seconds of strcmp
 * searched one by one, while the ring buffer filled and dropped their calls.
 */
static ssize_t find_region(struct sb_collector *c, const char *name)
{
	const struct sb_region *r = c->prof.regions;
	uint64_t *at;

	for (; c->regions_named < c->prof.n_regions; c->regions_named++)
		if (!sb_hashmap_get(&c->region_named, sb_name_hash(r[c->regions_named].name), 0) &&
		    sb_hashmap_put(&c->region_named, sb_name_hash(r[c->regions_named].name), 0,
				   c->regions_named))
			return sb_profile_find_region(&c->prof, name);
	at = sb_hashmap_get(&c->region_named, sb_name_hash(name), 0);
	if (!at)
		return -ENOENT;
	if (!strcmp(r[*at].name, name))
		return (ssize_t)*at;
	return sb_profile_find_region(&c->prof, name);
}

int sb_collector_add_region(struct sb_collector *c, uint64_t hash, char *name, char *file,
			    int line, const char *tags)
{
	char mpi_tags[SB_MPI_TAGS_MAX];
	ssize_t region;
	char *json;
	int ret;

	/* A name seen before: each exec and link-map change sends its sites again. */
	if (sb_hashmap_get(&c->region_of, hash, 0))
		return 0;
	sb_utf8_sanitize(name);
	sb_utf8_sanitize(file);
	if (!name[0])
		return 0;
	region = find_region(c, name);
	if (region < 0) {
		json = sb_tags_to_json(sb_mpi_region_tags(name, tags, mpi_tags, sizeof(mpi_tags)));
		if (!json)
			return -ENOMEM;
		region = sb_profile_add_region(&c->prof, name, file, line > 0 ? line : -1, json);
		free(json);
		if (region < 0)
			return (int)region;
	}
	ret = remember_name(c, hash, name);
	if (ret)
		return ret;
	return sb_hashmap_put(&c->region_of, hash, 0, (uint64_t)region);
}

int sb_collector_alias(struct sb_collector *c, uint64_t alias, uint64_t hash)
{
	uint64_t *region = sb_hashmap_get(&c->region_of, hash, 0);
	uint64_t *name = sb_hashmap_get(&c->name_of, hash, 0);

	if (!region || !name)
		return -ENOENT;
	if (sb_hashmap_put(&c->region_of, alias, 0, *region) ||
	    sb_hashmap_put(&c->name_of, alias, 0, *name))
		return -ENOMEM;
	return 0;
}

static int on_site(struct sb_collector *c, struct sb_site_event *e)
{
	e->name[sizeof(e->name) - 1] = 0;
	e->file[sizeof(e->file) - 1] = 0;
	e->tags[sizeof(e->tags) - 1] = 0;
	return sb_collector_add_region(c, sb_name_hash(e->name), e->name, e->file, e->line,
				       e->tags);
}

/* The process's slot, numbered in order of first completed call; its rank waits for finish. */
static int slot_of(struct sb_collector *c, uint32_t tgid, uint32_t *slot)
{
	uint64_t *r = sb_hashmap_get(&c->proc_slot, tgid, 0);
	struct sb_bitset *called;
	uint32_t *tgids;

	if (r) {
		*slot = (uint32_t)*r;
		return 0;
	}
	tgids = realloc(c->slot_tgid, (c->n_ranks + 1) * sizeof(*tgids));
	if (!tgids)
		return -ENOMEM;
	c->slot_tgid = tgids;
	called = realloc(c->called, (c->n_ranks + 1) * sizeof(*called));
	if (!called)
		return -ENOMEM;
	c->called = called;
	c->slot_tgid[c->n_ranks] = tgid;
	c->called[c->n_ranks] = (struct sb_bitset){ 0 };
	*slot = c->n_ranks++;
	return sb_hashmap_put(&c->proc_slot, tgid, 0, *slot);
}

static ssize_t pair_of(struct sb_collector *c, uint32_t slot, uint32_t region)
{
	uint64_t *i = sb_hashmap_get(&c->pair_of, slot, region);
	size_t n = c->prof.n_pairs;
	struct sb_pair *pairs;
	uint32_t *slots;
	int64_t *excl;

	if (i)
		return (ssize_t)*i;
	if (!(n & (n - 1))) {
		pairs = realloc(c->prof.pairs, (n ? n * 2 : 16) * sizeof(*pairs));
		if (!pairs)
			return -ENOMEM;
		c->prof.pairs = pairs;
		excl = realloc(c->exclusive, (n ? n * 2 : 16) * sizeof(*excl));
		if (!excl)
			return -ENOMEM;
		c->exclusive = excl;
		slots = realloc(c->pair_slot, (n ? n * 2 : 16) * sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		c->pair_slot = slots;
	}
	c->prof.pairs[n] = (struct sb_pair){ .region = region };
	sb_stats_init(&c->prof.pairs[n].stats);
	c->exclusive[n] = 0;
	c->pair_slot[n] = slot;
	if (sb_hashmap_put(&c->pair_of, slot, region, n))
		return -ENOMEM;
	c->prof.n_pairs++;
	return (ssize_t)n;
}

/*
 * A call names its region by the hash of the name the kernel read at its begin,
 * not by its site address: an address may be reused by another object (dlclose,
 * dlopen) or image (exec) while its calls are still in the ring buffer. The
 * kernel sends a site's record before the first call that uses it.
 */
static struct sb_call_memo *memo_entry(struct sb_collector *c, const struct sb_call_event *e)
{
	uint64_t key = e->name_hash ^ ((uint64_t)e->tgid << 32 | e->tid);

	return &c->memo[(key * 0x9e3779b97f4a7c15ULL) >> 58];
}

/* e's remembered place, while its thread entry is alive (a reused tid is a new thread). */
static struct sb_call_memo *memo_find(struct sb_collector *c, const struct sb_call_event *e)
{
	struct sb_call_memo *m = memo_entry(c, e);

	if (m->used && m->name_hash == e->name_hash && m->tgid == e->tgid && m->tid == e->tid &&
	    c->threads[m->thread].end_ns < 0)
		return m;
	return NULL;
}

/* Look up (and make) e's process slot, pair and thread, and remember them. */
static int memo_fill(struct sb_collector *c, const struct sb_call_event *e, uint32_t region,
		     struct sb_call_memo **out)
{
	struct sb_call_memo *m = memo_entry(c, e);
	struct sb_thread_info *t;
	uint32_t slot;
	ssize_t pair;
	int ret;

	ret = slot_of(c, e->tgid, &slot);
	if (ret)
		return ret;
	pair = pair_of(c, slot, region);
	if (pair < 0)
		return (int)pair;
	t = thread_info(c, e->tgid, e->tid);
	if (!t)
		return -ENOMEM;
	*m = (struct sb_call_memo){ .name_hash = e->name_hash, .tgid = e->tgid, .tid = e->tid,
				    .region = region, .slot = slot, .pair = (uint32_t)pair,
				    .thread = (uint32_t)(t - c->threads), .used = true };
	*out = m;
	return 0;
}

/*
 * The metric columns of a call, for aggregation: the kernel record's
 * (call_columns), then each counter inclusive, then exclusive (-1 unknown).
 */
static unsigned call_value_ids(const struct sb_collector *c, unsigned *ids)
{
	unsigned n = c->n_counters < SB_CTR_MAX ? c->n_counters : SB_CTR_MAX, k, i = 0;

	for (k = 0; k < N_CALL_COLUMNS; k++)
		ids[i++] = call_columns[k].id;
	for (k = 0; k < n; k++)
		ids[i++] = SB_METRIC_COUNTER + k;
	for (k = 0; k < n; k++)
		ids[i++] = SB_METRIC_COUNTER_EXCL + k;
	return i;
}

static void call_values(const struct sb_collector *c, const struct sb_call_event *e,
			const struct sb_call_ctr_event *ctr, int64_t *v)
{
	unsigned n = c->n_counters < SB_CTR_MAX ? c->n_counters : SB_CTR_MAX, k, i = 0;
	__u64 value;

	for (k = 0; k < N_CALL_COLUMNS; k++) {
		memcpy(&value, (const char *)e + call_columns[k].offset, sizeof(value));
		v[i++] = (int64_t)value;
	}
	for (k = 0; k < n; k++)
		v[i++] = ctr && ctr->incl[k] >= 0 ? ctr->incl[k] : -1;
	for (k = 0; k < n; k++)
		v[i++] = ctr && ctr->excl[k] >= 0 ? ctr->excl[k] : -1;
}

/* record --aggregate: the call summed into its (thread, path, window) row, never stored. */
static int aggregate_call(struct sb_collector *c, const struct sb_call_event *e,
			  const struct sb_call_ctr_event *ctr, const struct sb_call_memo *m,
			  int64_t own)
{
	int64_t v[SB_AGG_MAX_VALUES];
	unsigned ids[SB_AGG_MAX_VALUES];
	int ret;

	if (!c->agg_ready) {
		ret = sb_collector_aggregate_start(c, ids, call_value_ids(c, ids));
		if (ret)
			return ret;
	}
	call_values(c, e, ctr, v);
	return sb_aggregator_add(&c->agg, &(struct sb_agg_call){
		.thread = m->thread, .pair = m->pair, .path = e->path_hash,
		.start = (int64_t)e->start, .end = (int64_t)e->end, .own = own, .values = v });
}

/* The call kept whole: its id noted for its children, its record spilled. */
static int keep_call(struct sb_collector *c, const struct sb_call_event *e,
		     const struct sb_call_ctr_event *ctr, const struct sb_call_memo *m)
{
	struct sb_spill_rec rec;
	__u64 value;
	int ret, k;

	ret = bitset_set(&c->called[m->slot], (uint64_t)e->call_id);
	if (ret)
		return ret;
	rec = (struct sb_spill_rec){ .pair = m->pair, .thread = m->thread,
				     .start = (int64_t)e->start, .end = (int64_t)e->end,
				     .call_id = e->call_id, .parent_id = e->parent_id };
	for (k = 0; k < N_CALL_COLUMNS; k++) {
		memcpy(&value, (const char *)e + call_columns[k].offset, sizeof(value));
		rec.metric[k] = (int64_t)value;
	}
	ret = store_counts(c, &rec, ctr);
	ret = ret ?: sb_spill_add(c->spill, &rec);
	/* A span not logged costs only its samples' placing: they keep their read path. */
	if (!ret && sb_collector_log_span(c, m->thread, e))
		c->call_paths_lost++;
	return ret;
}

static int on_call(struct sb_collector *c, const struct sb_call_event *e,
		   const struct sb_call_ctr_event *ctr)
{
	struct sb_call_memo *m = memo_find(c, e);
	uint64_t *region = m ? NULL : sb_hashmap_get(&c->region_of, e->name_hash, 0);
	int64_t start = (int64_t)e->start, end = (int64_t)e->end, child;
	struct sb_thread_info *t;
	int ret;

	/* An unknown name (a forged record) or a clock that ran backwards: not a call. */
	if ((!m && !region) || end < start || start < 0 || e->call_id < 0 ||
	    (uint64_t)e->call_id >= MAX_CALL_ID) {
		c->dropped_calls++;
		return 0;
	}
	/* Past --max-size a call is counted, and kept nowhere: the statistics are the file's calls'. */
	if (c->max_calls && c->calls >= c->max_calls) {
		c->over_max_size++;
		return 0;
	}
	/*
	 * Room in the spill before anything is indexed: a call it refuses (a full
	 * disk) is dropped whole, leaving no rank, pair or statistics without events.
	 */
	ret = c->aggregate ? 0 : sb_spill_reserve(c->spill);
	if (ret) {
		c->dropped_calls++;
		return ret;
	}
	if (!m) {
		ret = memo_fill(c, e, (uint32_t)*region, &m);
		if (ret)
			return ret;
	}
	t = &c->threads[m->thread];
	if (start < t->first_ns)
		t->first_ns = start;
	sb_stats_add(&c->prof.pairs[m->pair].stats, start, end, -1);
	child = (int64_t)e->child_ns < end - start ? (int64_t)e->child_ns : end - start;
	c->exclusive[m->pair] += end - start - child;
	ret = c->aggregate ? aggregate_call(c, e, ctr, m, end - start - child) :
		keep_call(c, e, ctr, m);
	if (ret)
		return ret;
	c->calls++;
	if (e->path_hash == m->path)
		return 0;
	ret = sb_collector_path(c, e->path_hash, e->parent_path, e->name_hash);
	if (!ret)
		m->path = e->path_hash;
	return ret;
}

static int on_thread_exit(struct sb_collector *c, struct sb_thread_event *e)
{
	struct sb_thread_info *t = thread_info(c, e->tgid, e->tid);

	if (!t)
		return -ENOMEM;
	if ((int64_t)e->first_ns < t->first_ns && e->first_ns)
		t->first_ns = (int64_t)e->first_ns;
	t->end_ns = (int64_t)e->time;
	t->cpu_ns = (int64_t)e->cpu_ns;
	memcpy(t->name, e->comm, sizeof(t->name));
	t->name[sizeof(t->name) - 1] = 0;
	sb_utf8_sanitize(t->name);
	return 0;
}

static int on_proc(struct sb_collector *c, const struct sb_proc_event *e)
{
	struct sb_process *p;
	char cmd[4096];

	switch (e->type) {
	case SB_EV_PROC_FORK:
		if (c->on_fork)
			c->on_fork(c->sync_ctx, (pid_t)e->ppid, (pid_t)e->tgid, e->reason);
		return e->reason == SB_FORK_LATE_THREAD ? 0 : add_forked(c, e);
	case SB_EV_PROC_EXIT:
		p = process_of(c, e->tgid);
		if (p) {
			p->end_ns = (int64_t)e->time;
			p->exit_code = e->exit_code;
		}
		return 0;
	case SB_EV_SYNC:
		if (e->reason == SB_SYNC_EXEC) {
			p = process_of(c, e->tgid);
			read_cmdline((pid_t)e->tgid, cmd, sizeof(cmd));
			if (p && cmd[0] && strcmp(cmd, p->command)) {
				free(p->command);
				p->command = strdup(cmd);
				if (!p->command)
					return -ENOMEM;
			}
		}
		if (c->on_sync)
			c->on_sync(c->sync_ctx, (pid_t)e->tgid, (int)e->reason, e->stop_seq);
		return 0;
	}
	return 0;
}

/* Names are remembered once each, in order of their first unmatched end. */
static int on_unmatched(struct sb_collector *c, const struct sb_unmatched_event *e)
{
	uint64_t *name = sb_hashmap_get(&c->name_of, e->name_hash, 0);
	size_t *names;

	c->open_at_start++;
	if (!name || sb_hashmap_get(&c->open_name_seen, *name, 0))
		return 0;
	names = realloc(c->open_names, (c->n_open_names + 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	c->open_names = names;
	c->open_names[c->n_open_names++] = *name;
	return sb_hashmap_put(&c->open_name_seen, *name, 0, 1);
}

int sb_collector_call(struct sb_collector *c, const struct sb_call_event *e)
{
	return on_call(c, e, NULL);
}

int sb_collector_record(struct sb_collector *c, const void *data, size_t size)
{
	union {
		uint32_t type;
		struct sb_unmatched_event unmatched;
		struct sb_call_event call;
		struct sb_call_ctr_event call_ctr;
		struct sb_site_event site;
		struct sb_thread_event thread;
		struct sb_proc_event proc;
	} e;

	if (size < sizeof(e.type) || size > sizeof(e))
		return 0;
	memcpy(&e, data, size);
	switch (e.type) {
	case SB_EV_CALL:
		return size < sizeof(e.call) ? 0 :
			on_call(c, &e.call, size >= sizeof(e.call_ctr) ? &e.call_ctr : NULL);
	case SB_EV_SITE:
		return size < sizeof(e.site) ? 0 : on_site(c, &e.site);
	case SB_EV_THREAD_EXIT:
		return size < sizeof(e.thread) ? 0 : on_thread_exit(c, &e.thread);
	case SB_EV_UNMATCHED:
		return size < sizeof(e.unmatched) ? 0 : on_unmatched(c, &e.unmatched);
	case SB_EV_PROC_FORK:
	case SB_EV_PROC_EXIT:
	case SB_EV_SYNC:
		return size < sizeof(e.proc) ? 0 : on_proc(c, &e.proc);
	}
	return 0;
}

int sb_collector_thread_alive(struct sb_collector *c, uint32_t tgid, uint32_t tid, const char *comm,
			      int64_t first_ns, int64_t cpu_ns)
{
	uint64_t *i = sb_hashmap_get(&c->thread_of, tgid, tid);
	struct sb_thread_info *t;
	char path[96];
	FILE *f;

	/* Begun before that exit: the same thread, and its exit record has the final numbers. */
	if (i && c->threads[*i].end_ns >= 0 && first_ns <= c->threads[*i].end_ns)
		return 0;
	t = thread_info(c, tgid, tid);
	if (!t)
		return -ENOMEM;
	if (first_ns > 0 && first_ns < t->first_ns)
		t->first_ns = first_ns;
	t->cpu_ns = cpu_ns;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", tgid, tid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(t->name, sizeof(t->name), f))
			t->name[strcspn(t->name, "\n")] = 0;
		fclose(f);
	} else if (!t->name[0] && comm) {
		snprintf(t->name, sizeof(t->name), "%.*s", 15, comm);
	}
	sb_utf8_sanitize(t->name);
	return 1;
}

/* Comma-separated, in order of first unmatched end, cut at a name boundary with ",...". */
static void open_names_string(struct sb_collector *c, char *buf, size_t size)
{
	size_t i, len = 0, n;
	const char *name;

	buf[0] = 0;
	for (i = 0; i < c->n_open_names; i++) {
		name = c->names[c->open_names[i]];
		n = strlen(name) + (len ? 1 : 0);
		if (len + n + sizeof(",...") > size) {
			strcpy(buf + len, len ? ",..." : "...");
			break;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", name);
	}
}

int sb_collector_metadata(struct sb_collector *c)
{
	char names[OPEN_NAMES_MAX];

	if (sb_profile_set_int(&c->prof, "calls_open_at_start", (int64_t)c->open_at_start) ||
	    sb_profile_set_int(&c->prof, "calls_over_max_size", (int64_t)c->over_max_size))
		return -ENOMEM;
	if (!c->n_open_names)
		return 0;
	open_names_string(c, names, sizeof(names));
	return sb_profile_set_str(&c->prof, "regions_open_at_start", names) ? -ENOMEM : 0;
}

/* Regions that never completed a call have no index row, so they leave the table. */
static int drop_unused_regions(struct sb_collector *c)
{
	size_t n = c->prof.n_regions, i, kept = 0;
	uint32_t *remap;
	bool *used;

	remap = calloc(n + 1, sizeof(*remap));
	used = calloc(n + 1, sizeof(*used));
	if (!remap || !used) {
		free(remap);
		free(used);
		return -ENOMEM;
	}
	for (i = 0; i < c->prof.n_pairs; i++)
		used[c->prof.pairs[i].region] = true;
	for (i = 0; i < n; i++) {
		if (!used[i]) {
			free(c->prof.regions[i].name);
			free(c->prof.regions[i].source_file);
			free(c->prof.regions[i].source_text);
			free(c->prof.regions[i].tags);
			continue;
		}
		remap[i] = (uint32_t)kept;
		c->prof.regions[kept++] = c->prof.regions[i];
	}
	c->prof.n_regions = kept;
	for (i = 0; i < c->prof.n_pairs; i++)
		c->prof.pairs[i].region = remap[c->prof.pairs[i].region];
	free(remap);
	free(used);
	return 0;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct sb_thread_info *x = *(struct sb_thread_info *const *)a;
	const struct sb_thread_info *y = *(struct sb_thread_info *const *)b;

	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* One rank's threads, numbered by first appearance (order is sorted so). */
static int add_rank_threads(struct sb_collector *c, struct sb_thread_info **order, size_t n,
			    uint32_t rank)
{
	struct sb_thread th;
	uint64_t *r;
	int64_t row = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		r = sb_hashmap_get(&c->ranks, order[i]->tgid, 0);
		if (*r != rank)
			continue;
		order[i]->row = row;
		th = (struct sb_thread){
			.rank = rank, .index = row++, .tid = order[i]->tid,
			.start_ns = order[i]->first_ns == INT64_MAX ? -1 : order[i]->first_ns,
			.end_ns = order[i]->end_ns, .cpu_ns = order[i]->cpu_ns,
			.name = order[i]->name,
		};
		if (sb_profile_add_thread(&c->prof, &th) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The thread table: rank after rank in ascending order, each rank's threads by first appearance. */
static int build_thread_table(struct sb_collector *c)
{
	struct sb_thread_info **order;
	uint32_t *ranks;
	size_t i, n = 0;
	int ret = 0;

	order = calloc(c->n_threads + 1, sizeof(*order));
	ranks = calloc(c->n_ranks + 1, sizeof(*ranks));
	if (!order || !ranks) {
		free(order);
		free(ranks);
		return -ENOMEM;
	}
	for (i = 0; i < c->n_threads; i++)
		if (sb_hashmap_get(&c->ranks, c->threads[i].tgid, 0))
			order[n++] = &c->threads[i];
	qsort(order, n, sizeof(*order), cmp_thread);
	memcpy(ranks, c->slot_rank, c->n_ranks * sizeof(*ranks));
	qsort(ranks, c->n_ranks, sizeof(*ranks), cmp_u32);
	for (i = 0; i < c->n_ranks && !ret; i++)
		ret = add_rank_threads(c, order, n, ranks[i]);
	free(order);
	free(ranks);
	return ret;
}

int sb_rank_by_first_call(void *ctx, const uint32_t *tgids, size_t n, uint32_t *ranks)
{
	size_t i;

	(void)ctx;
	(void)tgids;
	for (i = 0; i < n; i++)
		ranks[i] = (uint32_t)i;
	return 0;
}

/* A numbering the file can hold: distinct ranks (one index row per rank and region), in range. */
static int check_ranks(const uint32_t *ranks, size_t n)
{
	uint32_t *sorted = malloc((n + 1) * sizeof(*sorted));
	size_t i;
	int ret = 0;

	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, ranks, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u32);
	for (i = 0; i < n && !ret; i++)
		if (sorted[i] >= SB_MAX_RANK || (i && sorted[i] == sorted[i - 1]))
			ret = -EINVAL;
	free(sorted);
	return ret;
}

/* Number the processes by the rank rule and label the pairs and processes with it. */
static int decide_ranks(struct sb_collector *c)
{
	uint32_t *ranks = calloc(c->n_ranks + 1, sizeof(*ranks));
	uint64_t *slot;
	size_t i;
	int ret;

	if (!ranks)
		return -ENOMEM;
	ret = c->rank_rule(c->rank_rule_ctx, c->slot_tgid, c->n_ranks, ranks);
	if (!ret)
		ret = check_ranks(ranks, c->n_ranks);
	if (ret == -ENOMEM) {
		free(ranks);
		return ret;
	}
	/* A wrong numbering must not cost the recording: the default one always fits. */
	if (ret) {
		c->rank_rule_error = ret;
		sb_rank_by_first_call(NULL, c->slot_tgid, c->n_ranks, ranks);
	}
	c->slot_rank = ranks;
	for (i = 0; i < c->n_ranks; i++)
		if (sb_hashmap_put(&c->ranks, c->slot_tgid[i], 0, ranks[i]))
			return -ENOMEM;
	for (i = 0; i < c->prof.n_pairs; i++)
		c->prof.pairs[i].rank = ranks[c->pair_slot[i]];
	for (i = 0; i < c->prof.n_processes; i++) {
		slot = sb_hashmap_get(&c->proc_slot, (uint64_t)c->prof.processes[i].pid, 0);
		c->prof.processes[i].rank = slot ? (int64_t)ranks[*slot] : -1;
	}
	return 0;
}


int sb_collector_finish(struct sb_collector *c)
{
	uint64_t offset = 0;
	struct sb_pair *p;
	size_t i;
	int ret;

	ret = decide_ranks(c);
	if (!ret)
		ret = drop_unused_regions(c);
	if (ret)
		return ret;
	for (i = 0; i < c->prof.n_pairs; i++) {
		p = &c->prof.pairs[i];
		p->offset = offset;
		p->count = p->stats.count;
		p->exclusive_total = c->exclusive[i];
		offset += c->aggregate ? 0 : p->count;
	}
	ret = build_thread_table(c);
	if (!ret && c->aggregate)
		ret = sb_collector_aggregate_finish(c);
	if (ret)
		return ret;
	if (c->aggregate) {
		c->prof.columns = 0;
		return 0;
	}
	c->prof.n_events = c->calls;
	c->prof.columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (i = 0; i < N_CALL_COLUMNS; i++)
		c->prof.columns |= SB_COL_METRIC(call_columns[i].id);
	for (i = 0; i < c->n_counters && i < SB_CTR_MAX; i++)
		c->prof.columns |= SB_COL_METRIC(SB_METRIC_COUNTER + i) |
				   SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + i);
	ret = sb_ctr_store_finish(&c->counts);
	return ret ? ret : sb_spill_sort(c->spill);
}

int sb_collector_path(struct sb_collector *c, uint64_t path, uint64_t parent, uint64_t name_hash)
{
	if (!path || sb_hashmap_get(&c->path_parent, path, 0))
		return 0;
	if (sb_hashmap_put(&c->path_parent, path, 0, parent) ||
	    sb_hashmap_put(&c->path_name, path, 0, name_hash))
		return -ENOMEM;
	return 0;
}

/* Paths nest at most SB_MAX_DEPTH deep; the bound also stops a (corrupt) cycle. */
static int64_t path_id_at(struct sb_collector *c, uint64_t path, int depth)
{
	struct sb_samples *s = &c->prof.samples;
	uint64_t *parent, *name, *idx, *known;
	struct sb_region_path *paths;
	int64_t parent_id;

	if (!path || depth > SB_MAX_DEPTH)
		return -1;
	known = sb_hashmap_get(&c->path_of, path, 0);
	if (known)
		return (int64_t)*known;
	parent = sb_hashmap_get(&c->path_parent, path, 0);
	name = sb_hashmap_get(&c->path_name, path, 0);
	if (!parent || !name)
		return -1;
	parent_id = path_id_at(c, *parent, depth + 1);
	idx = sb_hashmap_get(&c->name_of, *name, 0);
	paths = realloc(s->paths, (s->n_paths + 1) * sizeof(*paths));
	if (!paths)
		return -1;
	s->paths = paths;
	paths[s->n_paths].parent = parent_id;
	paths[s->n_paths].name = strdup(idx ? c->names[*idx] : "?");
	if (!paths[s->n_paths].name || sb_hashmap_put(&c->path_of, path, 0, s->n_paths))
		return -1;
	return (int64_t)s->n_paths++;
}

int64_t sb_collector_path_id(struct sb_collector *c, uint64_t path)
{
	return path_id_at(c, path, 0);
}

bool sb_collector_process_ended(struct sb_collector *c, pid_t pid)
{
	struct sb_process *p = process_of(c, (uint32_t)pid);

	return p && p->end_ns >= 0;
}

int64_t sb_collector_rank(struct sb_collector *c, uint32_t tgid)
{
	uint64_t *r = sb_hashmap_get(&c->ranks, tgid, 0);

	return r ? (int64_t)*r : -1;
}

int64_t sb_collector_thread_row(struct sb_collector *c, uint32_t tgid, uint32_t tid)
{
	uint64_t *t = sb_hashmap_get(&c->thread_of, tgid, tid);

	return t ? c->threads[*t].row : -1;
}

static void to_event(struct sb_collector *c, const struct sb_spill_rec *r, struct sb_event *e)
{
	uint32_t slot = c->pair_slot[r->pair];
	int k;

	e->start = r->start;
	e->end = r->end;
	e->thread = r->thread < c->n_threads ? c->threads[r->thread].row : -1;
	e->call_id = r->call_id;
	/* A parent that was never completed (still open, lost, killed) makes this top level. */
	e->parent_id = r->parent_id >= 0 && bitset_test(&c->called[slot], (uint64_t)r->parent_id) ?
		r->parent_id : -1;
	memcpy(e->metric, c->blank_metric, sizeof(e->metric));
	for (k = 0; k < N_CALL_COLUMNS; k++)
		e->metric[call_columns[k].id] = r->metric[k];
	e->metric[SB_METRIC_GPU] = sb_collector_gpu_ns(c, r->pair, r->call_id);
}

/* A call's counter row (model.h: n inclusive, then n exclusive), -1 where it has no counts. */
static void to_counters(struct sb_collector *c, const struct sb_spill_rec *r, int64_t *row,
			size_t stride)
{
	const int64_t *counts = sb_ctr_store_get(&c->counts, r->metric[COUNTS_SLOT]);
	size_t i;

	if (counts) {
		memcpy(row, counts, stride * sizeof(*row));
		return;
	}
	for (i = 0; i < stride; i++)
		row[i] = -1;
}

static ssize_t stream_read(struct sb_event_stream *base, struct sb_event *rows, int64_t *counters,
			   size_t max)
{
	struct sb_collect_stream *s = (struct sb_collect_stream *)base;
	size_t stride = sb_counter_stride(sb_profile_counter_slots(&s->c->prof));
	struct sb_spill_rec recs[256];
	ssize_t n, i;

	if (max > sizeof(recs) / sizeof(recs[0]))
		max = sizeof(recs) / sizeof(recs[0]);
	n = sb_spill_read(s->c->spill, recs, max);
	for (i = 0; i < n; i++) {
		to_event(s->c, &recs[i], &rows[i]);
		if (counters)
			to_counters(s->c, &recs[i], counters + i * stride, stride);
	}
	return n;
}

void sb_collector_stream(struct sb_collector *c, struct sb_collect_stream *s)
{
	s->base.read = stream_read;
	s->c = c;
}
