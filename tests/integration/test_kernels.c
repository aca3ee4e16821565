/*
 * What the running kernel offers, as record says it: a kernel below the
 * floor (no BPF atomic fetch-and-add, Linux 5.12, or no attach cookies, Linux
 * 5.15) is refused by name, each missing feature named; above
 * it every group of programs loads on first use, and a feature forced off is
 * said in the summary and the metadata. The kernel matrix (make
 * check-kernels) runs this on every kernel; make check on this one.
 */
#include <sys/utsname.h>

#include "harness.h"

/* Whether uname -r is below major.minor. */
static bool kernel_below(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%d.%d", &ma, &mi), 2);
	return ma < major || (ma == major && mi < minor);
}

static void test_the_floor_is_said_or_recording_works(void **state)
{
	char out[300], err[4096], app[300];
	char *argv[] = { (char *)scope_bin(), "record", "-o", (char *)tmp_file("floor.h5", out,
			 sizeof(out)), "--", (char *)app_path("count", app, sizeof(app)), "10", NULL };
	struct utsname u;
	struct sb_profile p;

	(void)state;
	require_bpf();
	uname(&u);
	if (kernel_below(5, 15)) {
		assert_int_equal(run(argv), 1);
		read_stderr(err, sizeof(err));
		assert_non_null(strstr(err, "cannot be used"));
		assert_non_null(strstr(err, "attach cookies (Linux 5.15)"));
		if (kernel_below(5, 12))
			assert_non_null(strstr(err, "atomic fetch-and-add (Linux 5.12)"));
		assert_int_equal(access(out, F_OK), -1);
		return;
	}
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	assert_int_equal(must_pair(&p, "tick", 0)->count, 10);
	assert_string_equal(meta_str(&p, "kernel_release"), u.release);
	assert_string_equal(meta_str(&p, "sources_disabled"), "");
	sb_profile_free(&p);
}

/*
 * Counters, the sampler and OpenMP each load their programs on first use,
 * and the markers that fetch the site as the note says (sites in %rbx):
 * every group the kernel layer sets aside loads on this kernel.
 */
static void test_every_group_loads_on_first_use(void **state)
{
	char out[300], out2[300], app[300], rbx[300];
	char *groups[] = { (char *)scope_bin(), "record", "-q", "-e", "task-clock", "--sample",
			   "-o", (char *)tmp_file("groups.h5", out, sizeof(out)), "--",
			   (char *)app_path("omp_solve", app, sizeof(app)), NULL };
	char *fetching[] = { (char *)scope_bin(), "record", "-q", "--mode=kernel", "-o",
			     (char *)tmp_file("rbx.h5", out2, sizeof(out2)), "--",
			     (char *)app_path("nested_rbx", rbx, sizeof(rbx)), NULL };
	struct sb_profile p;

	(void)state;
	require_bpf();
	if (kernel_below(5, 12))
		skip();
	assert_int_equal(run(groups), 0);
	load_profile(out, &p);
	assert_string_equal(meta_str(&p, "sources_disabled"), "");
	assert_true(must_pair(&p, "omp:parallel", 0)->count > 0);
	assert_true(must_pair(&p, "solve", 0)->count > 0);
	sb_profile_free(&p);
	assert_int_equal(run(fetching), 0);
	load_profile(out2, &p);
	assert_string_equal(meta_str(&p, "sources_disabled"), "");
	assert_int_equal(must_pair(&p, "manual", 0)->count, 1);
	sb_profile_free(&p);
}

/*
 * Every program loads in one object first; a source's program the kernel
 * refuses (forced here: SCOPE_BPF_KERNEL_REFUSE) has the groups load apart, so
 * it costs that source only: said, in sources_disabled, exit 3, and the
 * markers, counters and samples of the same recording are all there.
 */
static void test_a_refused_source_costs_that_source_only(void **state)
{
	char out[300], err[8192], app[300];
	char *argv[] = { (char *)scope_bin(), "record", "-e", "task-clock", "--sample",
			 "-o", (char *)tmp_file("refused.h5", out, sizeof(out)), "--",
			 (char *)app_path("omp_solve", app, sizeof(app)), NULL };
	struct sb_profile p;

	(void)state;
	require_bpf();
	if (kernel_below(5, 12))
		skip();
	setenv("SCOPE_BPF_KERNEL_REFUSE", "omp_enter", 1);
	assert_int_equal(run(argv), 3);
	unsetenv("SCOPE_BPF_KERNEL_REFUSE");
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "omp not recorded: kernel"));
	load_profile(out, &p);
	assert_non_null(strstr(meta_str(&p, "sources_disabled"), "omp: omp_enter: "));
	assert_int_equal(must_pair(&p, "solve", 0)->count, 5);
	assert_null(find_pair(&p, "omp:parallel", 0));
	assert_string_equal(meta_str(&p, "counter_events"), "task-clock");
	assert_true(p.samples.n_samples > 0);
	sb_profile_free(&p);
}

/* A feature forced off is a fallback, said; a misspelt one is refused, exit 2. */
static void test_forced_off_features_are_said(void **state)
{
	char out[300], err[8192], app[300];
	char *argv[] = { (char *)scope_bin(), "record", "-o", (char *)tmp_file("off.h5", out,
			 sizeof(out)), "--", (char *)app_path("count", app, sizeof(app)), "10", NULL };
	struct sb_profile p;

	(void)state;
	require_bpf();
	if (kernel_below(5, 12))
		skip();
	setenv("SCOPE_BPF_KERNEL_OFF", "uprobe_multi,pidfd_thread", 1);
	assert_int_equal(run(argv), 0);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "no uprobe_multi (SCOPE_BPF_KERNEL_OFF)"));
	assert_non_null(strstr(err, "no pidfd_thread (SCOPE_BPF_KERNEL_OFF)"));
	load_profile(out, &p);
	assert_non_null(strstr(meta_str(&p, "kernel_fallbacks"), "uprobe_multi"));
	assert_non_null(strstr(meta_str(&p, "kernel_fallbacks"), "pidfd_thread"));
	assert_int_equal(must_pair(&p, "tick", 0)->count, 10);
	sb_profile_free(&p);
	setenv("SCOPE_BPF_KERNEL_OFF", "uprobe-multi", 1);
	assert_int_equal(run(argv), 2);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "unknown kernel feature 'uprobe-multi'"));
	unsetenv("SCOPE_BPF_KERNEL_OFF");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_floor_is_said_or_recording_works),
		cmocka_unit_test(test_every_group_loads_on_first_use),
		cmocka_unit_test(test_a_refused_source_costs_that_source_only),
		cmocka_unit_test(test_forced_off_features_are_said),
	};

	return cmocka_run_group_tests_name("kernels", tests, setup_tmp, teardown_tmp);
}
