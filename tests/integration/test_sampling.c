/* Integration: sample the hotspots app with real BPF and check where the samples land. */
#include <inttypes.h>

#include "harness.h"

/* Share of kind-weighted samples of path `region` whose stack holds `function` (leaf if leaf_only). */
static double share_in(const struct sb_profile *p, const char *region, uint32_t kind,
		       const char *function, bool leaf_only, uint64_t *total_out)
{
	const struct sb_samples *s = &p->samples;
	uint64_t total = 0, hit = 0, w;
	size_t i, j;

	for (i = 0; i < s->n_samples; i++) {
		const struct sb_sample *x = &s->samples[i];
		const struct sb_stack *st;

		if (x->kind != kind || x->path < 0 || strcmp(s->paths[x->path].name, region))
			continue;
		w = kind == SB_SAMPLE_CPU ? x->count : x->ns;
		total += w;
		if (x->ustack < 0)
			continue;
		st = &s->stacks[x->ustack];
		for (j = 0; j < st->depth && (!leaf_only || j == 0); j++) {
			const struct sb_frame_sym *f = &s->frames[s->stack_frames[st->first + j]];

			if (strstr(f->function, function)) {
				hit += w;
				break;
			}
		}
	}
	if (total_out)
		*total_out = total;
	return total ? (double)hit / (double)total : 0.0;
}

static const struct sb_frame_sym *find_frame(const struct sb_profile *p, const char *function)
{
	size_t i;

	for (i = 0; i < p->samples.n_frames; i++)
		if (!strcmp(p->samples.frames[i].function, function))
			return &p->samples.frames[i];
	return NULL;
}

static void test_samples_land_in_each_regions_hot_function(void **state)
{
	const struct sb_frame_sym *inl, *lib;
	struct sb_profile p;
	uint64_t total;
	char out[300];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--sample=999", "--offcpu-stacks",
			 "-o", (char *)tmp_file("hot.h5", out, sizeof(out)), "--", NULL, "300", NULL };
	char path[512];

	(void)state;
	require_bpf();
	argv[8] = (char *)app_path("hotspots", path, sizeof(path));
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	assert_true(p.samples.n_samples > 0);
	assert_true(share_in(&p, "A", SB_SAMPLE_CPU, "hot_a", false, &total) >= 0.9);
	assert_true(total >= 100);	/* ~300 ms at 999 Hz */
	assert_true(share_in(&p, "B", SB_SAMPLE_CPU, "hot_b", false, NULL) >= 0.9);
	assert_true(share_in(&p, "A", SB_SAMPLE_CPU, "hot_b", false, NULL) < 0.05);
	/* Inlined: the frame is named after the inlined function and marked so. */
	assert_true(share_in(&p, "C", SB_SAMPLE_CPU, "inl_work", false, NULL) >= 0.9);
	inl = find_frame(&p, "inl_work");
	assert_non_null(inl);
	assert_true(inl->inlined);
	assert_non_null(strstr(inl->file, "hotspots.c"));
	/* A shared library's function, with its module. */
	assert_true(share_in(&p, "L", SB_SAMPLE_CPU, "sbtest_lib_spin", false, NULL) >= 0.9);
	lib = find_frame(&p, "sbtest_lib_spin");
	assert_non_null(lib);
	assert_non_null(strstr(lib->module, "libsbtest.so"));
	/* A child that exited long before the end is still symbolized. */
	assert_true(share_in(&p, "K", SB_SAMPLE_CPU, "child_hot", false, NULL) >= 0.9);
	/* Off-CPU: the sleeping region blocked in nanosleep, ~300 ms of it. */
	assert_true(share_in(&p, "S", SB_SAMPLE_OFFCPU, "nanosleep", true, &total) >= 0.9);
	assert_in_range(total, 250 * MS, 600 * MS);
	assert_int_equal(meta_int(&p, "sample_frequency_hz"), 999);
	assert_int_equal(meta_int(&p, "lost_samples"), 0);
	assert_int_equal(meta_int(&p, "lost_stacks"), 0);
	sb_profile_free(&p);
}

/*
 * Thousands of distinct stacks each keep their own: a table that holds one
 * stack per hash bucket (a BPF stack-trace map) drops a few percent of them.
 */
static void test_every_sample_keeps_its_stack_among_thousands(void **state)
{
	const struct sb_samples *s;
	uint64_t total = 0, stackless = 0;
	struct sb_profile p;
	char out[300];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--sample=999",
			 "-o", (char *)tmp_file("stacks.h5", out, sizeof(out)), "--", NULL, NULL };
	char path[512];
	size_t i;

	(void)state;
	require_bpf();
	argv[7] = (char *)app_path("many_stacks", path, sizeof(path));
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	s = &p.samples;
	for (i = 0; i < s->n_samples; i++) {
		if (s->samples[i].kind != SB_SAMPLE_CPU || s->samples[i].path < 0)
			continue;
		total += s->samples[i].count;
		stackless += s->samples[i].ustack < 0 ? s->samples[i].count : 0;
	}
	print_message("%" PRIu64 " samples in walk, %zu stacks, %" PRIu64 " without stack\n",
		      total, s->n_stacks, stackless);
	assert_true(total >= 1000);
	assert_true(s->n_stacks >= 500);
	assert_true(stackless * 200 <= total);
	assert_int_equal(meta_int(&p, "lost_stacks"), 0);
	sb_profile_free(&p);
}

/* Off-CPU time of samples with `function` in their kernel stack. */
static uint64_t offcpu_with_kernel_frame(const struct sb_profile *p, const char *function)
{
	const struct sb_samples *s = &p->samples;
	const struct sb_stack *st;
	uint64_t ns = 0;
	size_t i, j;

	for (i = 0; i < s->n_samples; i++) {
		if (s->samples[i].kind != SB_SAMPLE_OFFCPU || s->samples[i].kstack < 0)
			continue;
		st = &s->stacks[s->samples[i].kstack];
		for (j = 0; j < st->depth; j++)
			if (!strcmp(s->frames[s->stack_frames[st->first + j]].function, function)) {
				ns += s->samples[i].ns;
				break;
			}
	}
	return ns;
}

/*
 * The recorder stops the command it launches at exec (and at its start-up
 * dlopen syncs) until the probes are attached: that stop, tens of ms on a busy
 * machine, is the recorder's, not the command's off-CPU time. Before the
 * scheduler hook left it out, it showed as do_signal_stop under _start.
 */
static void test_startup_stop_is_not_offcpu_time(void **state)
{
	struct sb_profile p;
	char out[300];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--offcpu-stacks",
			 "-o", (char *)tmp_file("stop.h5", out, sizeof(out)), "--", NULL, "20", NULL };
	char path[512];
	uint64_t total;

	(void)state;
	require_bpf();
	argv[7] = (char *)app_path("hotspots", path, sizeof(path));
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	/* Off-CPU stacks were recorded: the sleeping region's ~20 ms. */
	assert_true(share_in(&p, "S", SB_SAMPLE_OFFCPU, "nanosleep", true, &total) >= 0.9);
	assert_true(total >= 15 * MS);
	assert_int_equal(offcpu_with_kernel_frame(&p, "do_signal_stop"), 0);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_land_in_each_regions_hot_function),
		cmocka_unit_test(test_startup_stop_is_not_offcpu_time),
		cmocka_unit_test(test_every_sample_keeps_its_stack_among_thousands),
	};

	return cmocka_run_group_tests_name("sampling", tests, setup_tmp, teardown_tmp);
}
