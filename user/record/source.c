/* The recorder's loops over its data sources: each hook of each wanted source, in table order. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/launch.h"
#include "record/source.h"

int sb_sources_open(struct sb_sources *set, const struct sb_source_ops *const *table, size_t n,
		    struct sb_source_env *env)
{
	size_t i;

	memset(set, 0, sizeof(*set));
	set->env = env;
	set->ops = calloc(n ? n : 1, sizeof(*set->ops));
	set->state = calloc(n ? n : 1, sizeof(*set->state));
	if (!set->ops || !set->state)
		goto nomem;
	for (i = 0; i < n; i++) {
		if (table[i]->wanted && !table[i]->wanted(env->opts))
			continue;
		set->state[set->n] = calloc(1, table[i]->state_size ? table[i]->state_size : 1);
		if (!set->state[set->n])
			goto nomem;
		set->ops[set->n++] = table[i];
	}
	return 0;
nomem:
	sb_sources_free(set);
	return -ENOMEM;
}

/* Every source's fn in order, up to the first failure. */
static int each(struct sb_sources *set, sb_source_fn (*hook)(const struct sb_source_ops *))
{
	sb_source_fn fn;
	size_t i;
	int ret;

	for (i = 0; i < set->n; i++) {
		fn = hook(set->ops[i]);
		ret = fn ? fn(set->state[i], set->env) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

static void each_hook(struct sb_sources *set,
		      sb_source_hook_fn (*hook)(const struct sb_source_ops *))
{
	sb_source_hook_fn fn;
	size_t i;

	for (i = 0; i < set->n; i++) {
		fn = hook(set->ops[i]);
		if (fn)
			fn(set->state[i], set->env);
	}
}

static sb_source_fn configure_of(const struct sb_source_ops *o)
{
	return o->configure;
}

static sb_source_fn contribute_of(const struct sb_source_ops *o)
{
	return o->contribute;
}

static sb_source_fn losses_of(const struct sb_source_ops *o)
{
	return o->losses;
}

static sb_source_hook_fn begin_of(const struct sb_source_ops *o)
{
	return o->begin;
}

static sb_source_hook_fn stop_of(const struct sb_source_ops *o)
{
	return o->stop;
}

static sb_source_hook_fn detach_of(const struct sb_source_ops *o)
{
	return o->detach;
}

int sb_sources_configure(struct sb_sources *set)
{
	return each(set, configure_of);
}

int sb_sources_start(struct sb_sources *set, struct sb_error *err)
{
	size_t i;
	int ret;

	for (i = 0; i < set->n; i++) {
		ret = set->ops[i]->start ? set->ops[i]->start(set->state[i], set->env, err) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

void sb_source_attach_failed(struct sb_source_env *env, const char *source, const char *why)
{
	if (!env->attach_failures++)
		snprintf(env->attach_failure, sizeof(env->attach_failure), "%s: %s", source, why);
}

int sb_sources_process(struct sb_sources *set, const struct sb_proc_change *ch,
		       struct sb_error *err)
{
	struct sb_error one;
	int first = 0, ret;
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (!set->ops[i]->process)
			continue;
		one.msg[0] = '\0';
		ret = set->ops[i]->process(set->state[i], set->env, ch, &one);
		if (ret >= 0)
			continue;
		/* A process that has ended lost nothing to a failed attach: it runs no more calls. */
		if (!sb_process_gone(ch->pid))
			sb_source_attach_failed(set->env, set->ops[i]->name, one.msg);
		/* The first failure's cause is the one reported; the others still run. */
		if (!first) {
			first = ret;
			*err = one;
		}
	}
	return first;
}

int sb_sources_record(struct sb_sources *set, const void *data, size_t size)
{
	uint32_t type;
	size_t i;
	int ret;

	if (size < sizeof(type))
		return 1;
	memcpy(&type, data, sizeof(type));
	for (i = 0; i < set->n; i++) {
		if (!set->ops[i]->intercept)
			continue;
		ret = set->ops[i]->intercept(set->state[i], set->env, data, size);
		if (ret <= 0)
			return ret;
	}
	for (i = 0; i < set->n; i++)
		if (set->ops[i]->record && set->ops[i]->record_type == type)
			return set->ops[i]->record(set->state[i], set->env, data, size);
	return 1;
}

int sb_sources_tick(struct sb_sources *set)
{
	int first = 0, ret;
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (!set->ops[i]->tick)
			continue;
		ret = set->ops[i]->tick(set->state[i], set->env);
		if (ret < 0 && !first)
			first = ret;
	}
	return first;
}

void sb_sources_begin(struct sb_sources *set)
{
	each_hook(set, begin_of);
}

void sb_sources_stop(struct sb_sources *set)
{
	each_hook(set, stop_of);
}

void sb_sources_detach(struct sb_sources *set)
{
	each_hook(set, detach_of);
}

int sb_sources_contribute(struct sb_sources *set)
{
	return each(set, contribute_of);
}

int sb_sources_losses(struct sb_sources *set)
{
	struct sb_profile *p = &set->env->coll->prof;
	int ret = each(set, losses_of);

	if (ret)
		return ret;
	ret = sb_profile_set_int(p, "source_attach_failures", (int64_t)set->env->attach_failures);
	ret |= sb_profile_set_str(p, "source_attach_failure", set->env->attach_failure);
	return ret ? -ENOMEM : 0;
}

void *sb_sources_state(const struct sb_sources *set, const struct sb_source_ops *ops)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->ops[i] == ops)
			return set->state[i];
	return NULL;
}

void sb_sources_free(struct sb_sources *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (set->ops[i]->free)
			set->ops[i]->free(set->state[i]);
		free(set->state[i]);
	}
	free(set->ops);
	free(set->state);
	memset(set, 0, sizeof(*set));
}
