/*
 * The kernel layer's pure parts: the test switches that force kernel features
 * off and have hooks skip their runs, what it reads of libbpf's messages when
 * the verifier refuses a program (the program's name and the kernel's reason,
 * for the summary), and how it weighs the runs the kernel skipped.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "record/kernel/features.h"
#include "record/kernel/load.h"
#include "record/kernel/skips.h"
#include "region.h"

static void test_named_features_are_forced_off(void **state)
{
	struct sb_kfeatures k = { 0 };
	struct sb_error err = { { 0 } };

	(void)state;
	assert_int_equal(sb_kfeatures_parse_off(&k, "sleepable,,task_storage", &err), 0);
	assert_true(k.forced_off[SB_KF_SLEEPABLE]);
	assert_true(k.forced_off[SB_KF_TASK_STORAGE]);
	assert_false(k.forced_off[SB_KF_UPROBE_MULTI]);
	assert_false(k.forced_off[SB_KF_TASK_BTF]);
	assert_false(k.forced_off[SB_KF_PIDFD_THREAD]);
	assert_false(k.forced_off[SB_KF_TASK_STACK]);
	/* A kernel with per-CPU private stacks, pretended on one without (the twins' path). */
	assert_int_equal(sb_kfeatures_parse_off(&k, "task_stack", &err), 0);
	assert_true(k.forced_off[SB_KF_TASK_STACK]);
	assert_string_equal(sb_kfeature_name(SB_KF_TASK_STACK), "task_stack");
}

static void test_all_forces_the_lossless_features_off_and_nothing_forces_none(void **state)
{
	struct sb_kfeatures k = { 0 };
	int f;

	(void)state;
	assert_int_equal(sb_kfeatures_parse_off(&k, NULL, NULL), 0);
	assert_int_equal(sb_kfeatures_parse_off(&k, "", NULL), 0);
	for (f = 0; f < SB_KF_COUNT; f++)
		assert_false(k.forced_off[f]);
	assert_int_equal(sb_kfeatures_parse_off(&k, "all", NULL), 0);
	for (f = 0; f < SB_KF_COUNT; f++) {
		/* Those whose absence costs sources are forced off by name only. */
		assert_int_equal(k.forced_off[f], f < SB_KF_FIRST_COSTLY);
		assert_non_null(strstr(sb_kfeature_fallback(f), " "));
	}
	assert_int_equal(sb_kfeatures_parse_off(&k, "atomic_fetch,attach_cookie", NULL), 0);
	assert_true(k.forced_off[SB_KF_ATOMIC_FETCH]);
	assert_true(k.forced_off[SB_KF_ATTACH_COOKIE]);
}

/* A misspelt switch must fail the test run, not silently test the default. */
static void test_an_unknown_feature_is_refused_by_name(void **state)
{
	struct sb_kfeatures k = { 0 };
	struct sb_error err = { { 0 } };

	(void)state;
	assert_int_equal(sb_kfeatures_parse_off(&k, "sleepable,sleepabel", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'sleepabel'"));
	assert_non_null(strstr(err.msg, SB_KERNEL_OFF_ENV));
	assert_int_equal(sb_kfeatures_parse_off(&k, "sleep", &err), -EINVAL);
}

/* The fork and exit hooks' skipped runs are stood in for; any other hook's are losses, named. */
static void test_skipped_runs_are_weighed_and_named(void **state)
{
	struct sb_kernel_skips s = { 0 };

	(void)state;
	sb_kernel_skips_add(&s, "on_fork", 12);
	sb_kernel_skips_add(&s, "on_switch", 0);
	sb_kernel_skips_add(&s, "on_exit", 18);
	assert_int_equal(s.stood_in, 30);
	assert_int_equal(s.lost, 0);
	sb_kernel_skips_add(&s, "on_exec", 2);
	assert_int_equal(s.stood_in, 30);
	assert_int_equal(s.lost, 2);
	assert_string_equal(s.programs, "on_fork 12, on_exit 18, on_exec 2");
	/* A name only begun like a stood-in hook's is not one. */
	sb_kernel_skips_add(&s, "on_forked", 1);
	assert_int_equal(s.lost, 3);
}

static void test_the_skip_switch_names_hooks_and_refuses_others(void **state)
{
	struct sb_error err = { { 0 } };
	uint32_t bits = 7;

	(void)state;
	assert_int_equal(sb_kernel_skips_parse(NULL, &bits, &err), 0);
	assert_int_equal(bits, 0);
	assert_int_equal(sb_kernel_skips_parse("on_exit", &bits, &err), 0);
	assert_int_equal(bits, SB_SKIP_EXIT);
	assert_int_equal(sb_kernel_skips_parse("on_fork,,on_exit", &bits, &err), 0);
	assert_int_equal(bits, SB_SKIP_FORK | SB_SKIP_EXIT);
	assert_int_equal(sb_kernel_skips_parse("on_fork,on_exec", &bits, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'on_exec'"));
	assert_non_null(strstr(err.msg, SB_KERNEL_SKIP_ENV));
}

/* Debian 12's 6.1 verifier on mpi_enter, as libbpf 1.1 prints it. */
static void test_the_refused_program_and_the_verifiers_reason_are_read(void **state)
{
	struct sb_kernel_log l;

	(void)state;
	memset(&l, 0, sizeof(l));
	sb_kernel_log_capture(&l, "libbpf: prog 'mpi_enter': BPF program load failed: "
			      "Permission denied\n");
	sb_kernel_log_capture(&l, "libbpf: prog 'mpi_enter': -- BEGIN PROG LOAD LOG --\n"
			      "0: R1=ctx(off=0,imm=0) R10=fp0\n"
			      "; int mpi_enter(struct pt_regs *ctx)\n"
			      "invalid indirect access to stack R1 off=-80 size=256\n"
			      "processed 5214 insns (limit 1000000) max_states_per_insn 4\n"
			      "-- END PROG LOAD LOG --\n");
	sb_kernel_log_capture(&l, "libbpf: failed to load object 'region_bpf'\n");
	assert_string_equal(l.program, "mpi_enter");
	assert_string_equal(l.reason, "invalid indirect access to stack R1 off=-80 size=256");
	assert_string_equal(l.last_warning, "libbpf: failed to load object 'region_bpf'");
}

/* 6.18.44 refuses a map at load, before any instruction: a one-line log. */
static void test_a_map_refusal_is_the_reason(void **state)
{
	struct sb_kernel_log l;

	(void)state;
	memset(&l, 0, sizeof(l));
	sb_kernel_log_capture(&l, "libbpf: prog 'region_begin': -- BEGIN PROG LOAD LOG --\n"
			      "Sleepable programs can only use array, hash, ringbuf and local "
			      "storage maps, also as inner maps\n"
			      "verification time 12 usec\nstack depth 0\n"
			      "-- END PROG LOAD LOG --\n");
	assert_string_equal(l.program, "region_begin");
	assert_string_equal(l.reason, "Sleepable programs can only use array, hash, ringbuf and "
				      "local storage maps, also as inner maps");
}

/* A failure that names no program (a map libbpf could not create) keeps libbpf's line. */
static void test_a_failure_without_a_program_keeps_the_last_warning(void **state)
{
	struct sb_kernel_log l;

	(void)state;
	memset(&l, 0, sizeof(l));
	sb_kernel_log_capture(&l, "libbpf: map 'traced_tasks': failed to create: Invalid argument(-22)\n");
	assert_string_equal(l.program, "");
	assert_string_equal(l.last_warning,
			    "libbpf: map 'traced_tasks': failed to create: Invalid argument(-22)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_features_are_forced_off),
		cmocka_unit_test(test_all_forces_the_lossless_features_off_and_nothing_forces_none),
		cmocka_unit_test(test_an_unknown_feature_is_refused_by_name),
		cmocka_unit_test(test_the_refused_program_and_the_verifiers_reason_are_read),
		cmocka_unit_test(test_a_map_refusal_is_the_reason),
		cmocka_unit_test(test_a_failure_without_a_program_keeps_the_last_warning),
		cmocka_unit_test(test_skipped_runs_are_weighed_and_named),
		cmocka_unit_test(test_the_skip_switch_names_hooks_and_refuses_others),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
