/* The in-memory profile: construction helpers and metadata lookups. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

void sb_samples_free(struct sb_samples *s)
{
	sb_kind_free(&sb_samples_kind, s);
}

static int cmp_timed(const void *a, const void *b)
{
	const struct sb_timed_sample *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

void sb_samples_sort_timeline(struct sb_samples *s)
{
	if (s->n_timeline)
		qsort(s->timeline, s->n_timeline, sizeof(*s->timeline), cmp_timed);
}

void sb_cuda_data_free(struct sb_cuda_data *d)
{
	sb_kind_free(&sb_cuda_kind, d);
}

void sb_profile_init(struct sb_profile *p)
{
	memset(p, 0, sizeof(*p));
	p->schema = 2;
}

static void free_region(struct sb_region *r)
{
	free(r->name);
	free(r->source_file);
	free(r->source_text);
	free(r->tags);
}

void sb_profile_free(struct sb_profile *p)
{
	size_t i;

	for (i = 0; i < p->n_regions; i++)
		free_region(&p->regions[i]);
	for (i = 0; i < p->n_threads; i++)
		free(p->threads[i].name);
	for (i = 0; i < p->n_processes; i++)
		free(p->processes[i].command);
	for (i = 0; i < p->n_meta; i++) {
		free(p->meta[i].key);
		free(p->meta[i].s);
	}
	free(p->regions);
	free(p->pairs);
	free(p->threads);
	free(p->events);
	free(p->counters);
	for (i = 0; i < sb_n_kinds; i++)
		sb_kind_free(sb_kinds[i], sb_kind_data(sb_kinds[i], p));
	sb_aggregate_free(&p->agg);
	free(p->processes);
	free(p->meta);
	free(p->format);
	sb_profile_init(p);
}

/* Grow an array by one element when n is a power of two (amortized doubling). */
static int grow(void **arr, size_t n, size_t size)
{
	void *q;
	size_t cap;

	if (n && (n & (n - 1)))
		return 0;
	cap = n ? n * 2 : 8;
	q = realloc(*arr, cap * size);
	if (!q)
		return -ENOMEM;
	*arr = q;
	return 0;
}

ssize_t sb_profile_find_region(const struct sb_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n_regions; i++)
		if (!strcmp(p->regions[i].name, name))
			return (ssize_t)i;
	return -ENOENT;
}

ssize_t sb_profile_add_region(struct sb_profile *p, const char *name, const char *file,
			      int64_t line, const char *tags_json)
{
	struct sb_region *r;

	if (grow((void **)&p->regions, p->n_regions, sizeof(*r)))
		return -ENOMEM;
	r = &p->regions[p->n_regions];
	r->name = strdup(name);
	r->source_file = strdup(file ? file : "");
	r->source_text = strdup("");
	r->tags = strdup(tags_json ? tags_json : "[]");
	r->source_line = line;
	if (!r->name || !r->source_file || !r->source_text || !r->tags) {
		free_region(r);
		return -ENOMEM;
	}
	return (ssize_t)p->n_regions++;
}

ssize_t sb_profile_add_thread(struct sb_profile *p, const struct sb_thread *t)
{
	struct sb_thread *n;

	if (grow((void **)&p->threads, p->n_threads, sizeof(*n)))
		return -ENOMEM;
	n = &p->threads[p->n_threads];
	*n = *t;
	n->name = strdup(t->name ? t->name : "");
	if (!n->name)
		return -ENOMEM;
	return (ssize_t)p->n_threads++;
}

ssize_t sb_profile_add_process(struct sb_profile *p, const struct sb_process *proc)
{
	struct sb_process *n;

	if (grow((void **)&p->processes, p->n_processes, sizeof(*n)))
		return -ENOMEM;
	n = &p->processes[p->n_processes];
	*n = *proc;
	n->command = strdup(proc->command ? proc->command : "");
	if (!n->command)
		return -ENOMEM;
	return (ssize_t)p->n_processes++;
}

static struct sb_meta *meta_slot(struct sb_profile *p, const char *key)
{
	struct sb_meta *m;
	size_t i;

	for (i = 0; i < p->n_meta; i++) {
		if (!strcmp(p->meta[i].key, key)) {
			free(p->meta[i].s);
			p->meta[i].s = NULL;
			return &p->meta[i];
		}
	}
	if (grow((void **)&p->meta, p->n_meta, sizeof(*m)))
		return NULL;
	m = &p->meta[p->n_meta];
	memset(m, 0, sizeof(*m));
	m->key = strdup(key);
	if (!m->key)
		return NULL;
	p->n_meta++;
	return m;
}

int sb_profile_set_int(struct sb_profile *p, const char *key, int64_t value)
{
	struct sb_meta *m = meta_slot(p, key);

	if (!m)
		return -ENOMEM;
	m->is_int = true;
	m->i = value;
	return 0;
}

int sb_profile_set_str(struct sb_profile *p, const char *key, const char *value)
{
	struct sb_meta *m = meta_slot(p, key);

	if (!m)
		return -ENOMEM;
	m->is_int = false;
	m->s = strdup(value);
	return m->s ? 0 : -ENOMEM;
}

const struct sb_meta *sb_profile_meta(const struct sb_profile *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->n_meta; i++)
		if (!strcmp(p->meta[i].key, key))
			return &p->meta[i];
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t *sb_profile_thread_keys(const struct sb_profile *p, size_t *n)
{
	uint64_t *k = malloc((p->n_threads ? p->n_threads : 1) * sizeof(*k));
	const struct sb_thread *t;
	size_t i;

	*n = 0;
	if (!k)
		return NULL;
	for (i = 0; i < p->n_threads; i++) {
		t = &p->threads[i];
		if (t->index >= 0 && t->index <= UINT32_MAX)
			k[(*n)++] = (uint64_t)t->rank << 32 | (uint64_t)t->index;
	}
	qsort(k, *n, sizeof(*k), cmp_u64);
	return k;
}

bool sb_thread_keys_have(const uint64_t *keys, size_t n, uint32_t rank, uint64_t index)
{
	uint64_t key = (uint64_t)rank << 32 | index;

	return bsearch(&key, keys, n, sizeof(key), cmp_u64) != NULL;
}

uint32_t sb_profile_rank_count(const struct sb_profile *p)
{
	const struct sb_meta *m = sb_profile_meta(p, "mpi_size");
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank + 1 > n)
			n = p->pairs[i].rank + 1;
	if (m && m->is_int && m->i > (int64_t)n && m->i <= UINT32_MAX)
		n = (uint32_t)m->i;
	return n;
}

/* What every command holding events pays per call: counters live out of line (COUNTERS.md). */
_Static_assert(sizeof(struct sb_event) == 56, "an event row: 5 ids and times, GPU, off-CPU");

void sb_event_blank(struct sb_event *e)
{
	unsigned id;

	*e = (struct sb_event){ .thread = -1, .call_id = -1, .parent_id = -1 };
	for (id = 0; id < SB_N_ROW_METRICS; id++)
		e->metric[id] = sb_column(id)->missing;
}

unsigned sb_profile_counter_slots(const struct sb_profile *p)
{
	unsigned n = 0;

	while (n < SB_COUNTER_SLOTS && (p->columns & SB_COL_METRIC(SB_METRIC_COUNTER + n)))
		n++;
	return n;
}

unsigned sb_counter_pos(unsigned slots, unsigned id)
{
	return id < SB_METRIC_COUNTER_EXCL ? id - SB_METRIC_COUNTER :
					     slots + id - SB_METRIC_COUNTER_EXCL;
}

int sb_profile_alloc_counters(struct sb_profile *p)
{
	size_t i, n = p->n_events * sb_counter_stride(sb_profile_counter_slots(p));

	free(p->counters);
	p->counters = malloc((n ? n : 1) * sizeof(*p->counters));
	if (!p->counters)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		p->counters[i] = -1;
	return 0;
}

/* Event i's value of counter column id, or NULL when the profile holds none. */
static int64_t *counter_of(const struct sb_profile *p, size_t i, unsigned id)
{
	unsigned slots = sb_profile_counter_slots(p);

	if (!p->counters || !(p->columns & SB_COL_METRIC(id)) ||
	    sb_counter_pos(slots, id) >= sb_counter_stride(slots))
		return NULL;
	return &p->counters[i * sb_counter_stride(slots) + sb_counter_pos(slots, id)];
}

int64_t sb_event_metric(const struct sb_profile *p, const struct sb_event *e, unsigned id)
{
	const int64_t *v;

	if (id < SB_N_ROW_METRICS)
		return e->metric[id];
	v = counter_of(p, (size_t)(e - p->events), id);
	return v ? *v : sb_column(id)->missing;
}

void sb_event_set_metric(struct sb_profile *p, size_t i, unsigned id, int64_t v)
{
	int64_t *c;

	if (id < SB_N_ROW_METRICS) {
		p->events[i].metric[id] = v;
		return;
	}
	c = counter_of(p, i, id);
	if (c)
		*c = v;
}

/* Mark rank in seen (a bit a rank below SB_MAX_RANK); 1 the first time. */
static uint32_t mark_rank(uint8_t *seen, int64_t rank)
{
	uint8_t bit;

	if (rank < 0 || rank >= SB_MAX_RANK)
		return 0;
	bit = (uint8_t)(1u << (rank & 7));
	if (seen[rank >> 3] & bit)
		return 0;
	seen[rank >> 3] |= bit;
	return 1;
}

uint32_t sb_profile_ranks_recorded(const struct sb_profile *p)
{
	uint8_t *seen = calloc(SB_MAX_RANK / 8, 1);
	uint32_t n = 0;
	size_t i;

	if (!seen)
		return sb_profile_rank_count(p);
	for (i = 0; i < p->n_pairs; i++)
		n += mark_rank(seen, p->pairs[i].rank);
	for (i = 0; i < p->n_threads; i++)
		n += mark_rank(seen, p->threads[i].rank);
	for (i = 0; i < p->n_processes; i++)
		n += mark_rank(seen, p->processes[i].rank);
	free(seen);
	return n;
}

bool sb_profile_has_gpu_times(const struct sb_profile *p)
{
	size_t i;

	if (!(p->columns & SB_COL_GPU))
		return false;
	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].stats.gpu_count)
			return true;
	return false;
}
