/*
 * The data-source life cycle: a toy source plugs into a table of its own and
 * is run through every hook as the recorder runs the real ones; the real
 * sources turn the kernel's counters into the metadata keys health.c explains.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "record/source.h"
#include "record/sources/regions.h"
#include "record/sources/sources.h"
#include "record/sources/stacks.h"

#define TOY_RECORD 0x7f00u	/* a ring-buffer record type no real source uses */

/* The toy's state: what it saw, and the order its hooks ran in. */
struct toy {
	char log[256];
	int records;
	pid_t forked;
};

static void say(struct toy *t, const char *hook)
{
	if (t->log[0])
		strncat(t->log, " ", sizeof(t->log) - strlen(t->log) - 1);
	strncat(t->log, hook, sizeof(t->log) - strlen(t->log) - 1);
}

static struct toy *last_toy;	/* the state of the toy being freed, kept for the test */
static char freed_log[256];

static bool toy_wanted(const struct record_opts *o)
{
	return !o->quiet;
}

static int toy_configure(void *state, struct sb_source_env *env)
{
	(void)env;
	last_toy = state;
	say(state, "configure");
	return 0;
}

static int toy_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	(void)env;
	(void)err;
	say(state, "start");
	return 0;
}

static int toy_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
		       struct sb_error *err)
{
	struct toy *t = state;

	(void)env;
	(void)err;
	if (ch->what == SB_PROC_FORK)
		t->forked = ch->pid;
	say(state, "process");
	return 0;
}

static int toy_record(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	struct toy *t = state;

	(void)env;
	(void)data;
	t->records++;
	return size == 8 ? 0 : -EINVAL;
}

static void toy_stop(void *state, struct sb_source_env *env)
{
	(void)env;
	say(state, "stop");
}

static void toy_detach(void *state, struct sb_source_env *env)
{
	(void)env;
	say(state, "detach");
}

static int toy_contribute(void *state, struct sb_source_env *env)
{
	struct toy *t = state;

	say(state, "contribute");
	return sb_profile_set_int(&env->coll->prof, "toy_records", t->records);
}

static int toy_losses(void *state, struct sb_source_env *env)
{
	say(state, "losses");
	return sb_profile_set_int(&env->coll->prof, "toy_lost", 0);
}

static void toy_free(void *state)
{
	say(state, "free");
	memcpy(freed_log, ((struct toy *)state)->log, sizeof(freed_log));
}

static const struct sb_source_ops toy_source = {
	.name = "toy",
	.state_size = sizeof(struct toy),
	.wanted = toy_wanted,
	.configure = toy_configure,
	.start = toy_start,
	.process = toy_process,
	.record_type = TOY_RECORD,
	.record = toy_record,
	.stop = toy_stop,
	.detach = toy_detach,
	.contribute = toy_contribute,
	.losses = toy_losses,
	.free = toy_free,
};

/* A source that fails on every process, with its cause. */
static int broken_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
			  struct sb_error *err)
{
	(void)state;
	(void)env;
	return sb_fail(err, EIO, "broken: process %d", (int)ch->pid);
}

static const struct sb_source_ops broken_source = {
	.name = "broken",
	.process = broken_process,
};

/* One recording's sources, as the recorder holds them. */
struct fx {
	struct sb_source_env env;
	struct sb_collector c;
	struct sb_sources set;
	struct record_opts o;
};

static struct fx fx;

static int fx_setup(void **state)
{
	(void)state;
	memset(&fx, 0, sizeof(fx));
	if (sb_collector_init(&fx.c, "/tmp", 1 << 20))
		return -1;
	fx.env.opts = &fx.o;
	fx.env.coll = &fx.c;
	return 0;
}

static int fx_teardown(void **state)
{
	(void)state;
	sb_sources_free(&fx.set);
	sb_collector_free(&fx.c);
	return 0;
}

/* The wanted sources of the table, configured. */
static void open_table(const struct sb_source_ops *const *table, size_t n)
{
	assert_int_equal(sb_sources_open(&fx.set, table, n, &fx.env), 0);
	assert_int_equal(sb_sources_configure(&fx.set), 0);
}

static void test_a_toy_source_runs_through_every_hook_and_contributes(void **state)
{
	const struct sb_source_ops *table[] = { &toy_source };
	struct sb_proc_change fork = { .what = SB_PROC_FORK, .pid = 42, .parent = 41 };
	uint32_t rec[2] = { TOY_RECORD, 0 };
	struct sb_error err = { { 0 } };
	const struct sb_meta *m;

	(void)state;
	open_table(table, 1);
	assert_int_equal(fx.set.n, 1);
	assert_int_equal(sb_sources_start(&fx.set, &err), 0);
	assert_int_equal(sb_sources_process(&fx.set, &fork, &err), 0);
	assert_int_equal(sb_sources_record(&fx.set, rec, sizeof(rec)), 0);
	sb_sources_stop(&fx.set);
	sb_sources_detach(&fx.set);
	assert_int_equal(sb_sources_contribute(&fx.set), 0);
	assert_int_equal(sb_sources_losses(&fx.set), 0);
	assert_ptr_equal(sb_sources_state(&fx.set, &toy_source), last_toy);
	assert_int_equal(last_toy->forked, 42);
	m = sb_profile_meta(&fx.c.prof, "toy_records");
	assert_non_null(m);
	assert_true(m->is_int);
	assert_int_equal(m->i, 1);
	assert_non_null(sb_profile_meta(&fx.c.prof, "toy_lost"));
	sb_sources_free(&fx.set);
	assert_string_equal(freed_log,
			    "configure start process stop detach contribute losses free");
	assert_int_equal(fx.set.n, 0);
}

static void test_a_source_that_is_not_wanted_is_left_out(void **state)
{
	const struct sb_source_ops *table[] = { &toy_source, &broken_source };

	(void)state;
	fx.o.quiet = true;
	open_table(table, 2);
	assert_int_equal(fx.set.n, 1);
	assert_ptr_equal(fx.set.ops[0], &broken_source);
	assert_null(sb_sources_state(&fx.set, &toy_source));
}

static void test_records_of_a_source_type_go_to_it_and_others_to_the_collector(void **state)
{
	const struct sb_source_ops *table[] = { &toy_source };
	uint32_t mine[3] = { TOY_RECORD, 0, 0 }, call[2] = { SB_EV_CALL, 0 };

	(void)state;
	open_table(table, 1);
	assert_int_equal(sb_sources_record(&fx.set, call, sizeof(call)), 1);
	assert_int_equal(sb_sources_record(&fx.set, call, 2), 1);
	/* The source's own answer comes back: the toy wants 8 bytes. */
	assert_int_equal(sb_sources_record(&fx.set, mine, sizeof(mine)), -EINVAL);
	assert_int_equal(last_toy->records, 1);
}

static void test_a_failing_source_is_reported_and_the_others_still_hear_of_the_process(void **state)
{
	const struct sb_source_ops *table[] = { &broken_source, &toy_source };
	struct sb_proc_change start = { .what = SB_PROC_START, .pid = 7 };
	struct sb_error err = { { 0 } };

	(void)state;
	open_table(table, 2);
	assert_int_equal(sb_sources_process(&fx.set, &start, &err), -EIO);
	assert_string_equal(err.msg, "broken: process 7");
	assert_string_equal(last_toy->log, "configure process");
}

/* The keys cmd_record wrote before the sources owned them, in the same order and sums. */
static void test_regions_and_stacks_name_the_kernel_counters(void **state)
{
	static const char *const keys[] = { "lost_events", "lost_events_kernel_ring",
		"lost_events_fast_path", "open_calls_dropped",
		"depth_overflow_calls", "unmatched_region_ends", "invalid_sites",
		"sites_named_by_recorder", "unresolved_sites", "site_descriptions_unsent",
		"offcpu_intervals_lost", "forks_seen_late", "exits_seen_late",
		"unseen_children_events", "probes_not_attached", "probe_attach_failure", "threads_dropped", "calls_open_at_start", "calls_over_max_size", "lost_samples",
		"lost_stacks", "source_attach_failures", "source_attach_failure" };
	/*
	 * Site descriptions and off-CPU intervals are no calls: not in lost_events;
	 * nor are calls past --max-size, which were received and counted on their own.
	 * Its parts say which transport lost the calls (the collector's drops are neither).
	 */
	static const int64_t want[] = { 1 + 2 + 7 + 3 + 13, 1 + 2, 13, 5 + 4, 3, 4, 6, 0, 0,
					10, 11, 14, 15, 16, 0, 0, 7, 0, 12, 8, 9, 2 };
	const struct sb_source_ops *table[] = { &sb_regions_source, &sb_stacks_source };
	uint64_t *n = fx.env.counters;
	size_t i, len;

	(void)state;
	fx.o.offcpu_stacks = true;
	n[SB_CNT_LOST_CALLS] = 1;
	n[SB_CNT_LOST_OTHER] = 2;
	n[SB_CNT_DEPTH_OVERFLOW] = 3;
	n[SB_CNT_UNMATCHED_END] = 4;
	n[SB_CNT_OPEN_DROPPED] = 5;
	n[SB_CNT_BAD_SITE] = 6;
	n[SB_CNT_THREADS_FULL] = 7;
	n[SB_CNT_LOST_SAMPLES] = 8;
	n[SB_CNT_LOST_STACKS] = 9;
	n[SB_CNT_SITES_UNSENT] = 10;
	n[SB_CNT_OFFCPU_LOST] = 11;
	n[SB_CNT_FORKS_LATE] = 14;
	n[SB_CNT_EXITS_LATE] = 15;
	n[SB_CNT_UNSEEN] = 16;
	fx.env.open_at_end = 4;
	fx.c.dropped_calls = 3;
	fx.c.over_max_size = 12;
	/* The fast path's lost calls: in lost_events, and said as the fast path's. */
	fx.env.fast.calls = 13;
	/* The sources' attach failures, after every source's own keys: the first one's cause. */
	sb_source_attach_failed(&fx.env, "omp", "libgomp.so.1: cannot attach to GOMP_parallel");
	sb_source_attach_failed(&fx.env, "mpi-calls", "libmpi.so.12: cannot attach to 1 function");
	/* Not configured: that would load the symbolizer, which losses do not need. */
	assert_int_equal(sb_sources_open(&fx.set, table, 2, &fx.env), 0);
	assert_int_equal(fx.set.n, 2);
	assert_int_equal(sb_sources_losses(&fx.set), 0);
	assert_int_equal(fx.c.prof.n_meta, sizeof(keys) / sizeof(keys[0]));
	for (i = 0; i < fx.c.prof.n_meta; i++) {
		assert_string_equal(fx.c.prof.meta[i].key, keys[i]);
		/* Every key is a count but the two that say a first failure's cause. */
		len = strlen(keys[i]);
		assert_int_equal(fx.c.prof.meta[i].is_int, strcmp(keys[i] + len - 8, "_failure") != 0);
		if (fx.c.prof.meta[i].is_int)
			assert_int_equal(fx.c.prof.meta[i].i, want[i]);
	}
	assert_string_equal(sb_profile_meta(&fx.c.prof, "source_attach_failure")->s,
			    "omp: libgomp.so.1: cannot attach to GOMP_parallel");
	assert_int_equal(sb_regions_lost_events(&fx.env), want[0]);
}

/* Without --sample or --offcpu-stacks nothing takes stacks: no lost_samples key, as before. */
static void test_the_stack_table_is_wanted_only_with_stacks(void **state)
{
	struct record_opts o = { 0 };

	(void)state;
	assert_false(sb_stacks_source.wanted(&o));
	o.sample_hz = 99;
	assert_true(sb_stacks_source.wanted(&o));
	assert_true(sb_sampler_source.wanted(&o));
	o.sample_hz = 0;
	o.offcpu_stacks = true;
	assert_true(sb_stacks_source.wanted(&o));
	assert_false(sb_sampler_source.wanted(&o));
}

#define FX(t) cmocka_unit_test_setup_teardown(t, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX(test_a_toy_source_runs_through_every_hook_and_contributes),
		FX(test_a_source_that_is_not_wanted_is_left_out),
		FX(test_records_of_a_source_type_go_to_it_and_others_to_the_collector),
		FX(test_a_failing_source_is_reported_and_the_others_still_hear_of_the_process),
		FX(test_regions_and_stacks_name_the_kernel_counters),
		FX(test_the_stack_table_is_wanted_only_with_stacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
