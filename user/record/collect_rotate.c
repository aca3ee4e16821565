/*
 * record --rotate: the collector hands the calls of one file over and starts
 * the next with what a call's record names by hash or number: regions,
 * names, region paths, processes, threads and process slots. Ranks and
 * thread rows then stay those of the whole recording in every file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/collect.h"

static int copy_map(struct sb_hashmap *to, const struct sb_hashmap *from)
{
	size_t i;

	for (i = 0; i < from->cap; i++)
		if (from->slots[i].used &&
		    sb_hashmap_put(to, from->slots[i].a, from->slots[i].b, from->slots[i].value))
			return -ENOMEM;
	return 0;
}

/* In the same order, so that region_of's and region_named's numbers still hold. */
static int copy_regions(struct sb_profile *to, const struct sb_profile *from)
{
	const struct sb_region *r;
	ssize_t id;
	size_t i;

	for (i = 0; i < from->n_regions; i++) {
		r = &from->regions[i];
		id = sb_profile_add_region(to, r->name, r->source_file, r->source_line, r->tags);
		if (id < 0)
			return (int)id;
		free(to->regions[id].source_text);
		to->regions[id].source_text = strdup(r->source_text);
		if (!to->regions[id].source_text)
			return -ENOMEM;
	}
	return 0;
}

/* Processes in the same order (proc_of's numbers), and the metadata set while recording. */
static int copy_processes_meta(struct sb_profile *to, const struct sb_profile *from)
{
	const struct sb_meta *m;
	size_t i;

	for (i = 0; i < from->n_processes; i++)
		if (sb_profile_add_process(to, &from->processes[i]) < 0)
			return -ENOMEM;
	for (i = 0; i < from->n_meta; i++) {
		m = &from->meta[i];
		if (m->is_int ? sb_profile_set_int(to, m->key, m->i) :
		    sb_profile_set_str(to, m->key, m->s))
			return -ENOMEM;
	}
	return 0;
}

static int copy_names(struct sb_collector *to, const struct sb_collector *from)
{
	to->names = calloc(from->n_names + 1, sizeof(*to->names));
	if (!to->names)
		return -ENOMEM;
	for (; to->n_names < from->n_names; to->n_names++) {
		to->names[to->n_names] = strdup(from->names[to->n_names]);
		if (!to->names[to->n_names])
			return -ENOMEM;
	}
	return 0;
}

/* The thread table grows when its count is a power of two (collect.c): room up to the next. */
static int copy_threads(struct sb_collector *to, const struct sb_collector *from)
{
	size_t cap = 16, i;

	while (cap < from->n_threads)
		cap *= 2;
	to->threads = malloc(cap * sizeof(*to->threads));
	if (!to->threads)
		return -ENOMEM;
	if (from->n_threads)
		memcpy(to->threads, from->threads, from->n_threads * sizeof(*to->threads));
	to->n_threads = from->n_threads;
	for (i = 0; i < to->n_threads; i++)
		to->threads[i].row = -1;
	return 0;
}

/* Slots in the same order: the default rank rule numbers them so in every file. */
static int copy_slots(struct sb_collector *to, const struct sb_collector *from)
{
	to->slot_tgid = malloc((from->n_ranks + 1) * sizeof(*to->slot_tgid));
	to->called = calloc(from->n_ranks + 1, sizeof(*to->called));
	if (!to->slot_tgid || !to->called)
		return -ENOMEM;
	if (from->n_ranks)
		memcpy(to->slot_tgid, from->slot_tgid, from->n_ranks * sizeof(*to->slot_tgid));
	to->n_ranks = from->n_ranks;
	return 0;
}

static int carry(struct sb_collector *to, const struct sb_collector *from)
{
	int ret = copy_regions(&to->prof, &from->prof);

	ret = ret ?: copy_processes_meta(&to->prof, &from->prof);
	ret = ret ?: copy_names(to, from);
	ret = ret ?: copy_threads(to, from);
	ret = ret ?: copy_slots(to, from);
	ret = ret ?: copy_map(&to->region_of, &from->region_of);
	ret = ret ?: copy_map(&to->region_named, &from->region_named);
	ret = ret ?: copy_map(&to->name_of, &from->name_of);
	ret = ret ?: copy_map(&to->proc_of, &from->proc_of);
	ret = ret ?: copy_map(&to->thread_of, &from->thread_of);
	ret = ret ?: copy_map(&to->proc_slot, &from->proc_slot);
	ret = ret ?: copy_map(&to->path_parent, &from->path_parent);
	ret = ret ?: copy_map(&to->path_name, &from->path_name);
	to->regions_named = from->regions_named;
	to->n_counters = from->n_counters;
	to->rank_rule = from->rank_rule;
	to->rank_rule_ctx = from->rank_rule_ctx;
	to->on_sync = from->on_sync;
	to->on_fork = from->on_fork;
	to->sync_ctx = from->sync_ctx;
	to->max_calls = from->max_calls;
	if (from->call_paths)
		ret = ret ?: sb_collector_keep_call_paths(to, from->call_paths_dir,
							  from->call_paths_mem);
	return ret;
}

int sb_collector_rotate(struct sb_collector *c, struct sb_collector *piece, const char *spill_dir,
			size_t mem_budget)
{
	struct sb_collector *next = malloc(sizeof(*next));
	int ret;

	if (!next)
		return -ENOMEM;
	ret = sb_collector_init(next, spill_dir, mem_budget);
	ret = ret ?: carry(next, c);
	if (ret) {
		sb_collector_free(next);
	} else {
		*piece = *c;
		*c = *next;
	}
	free(next);
	return ret;
}
