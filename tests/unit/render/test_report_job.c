/* report's header names the Slurm job a profile was recorded in, and says nothing outside one. */
#include "fixtures.h"
#include "report_text.h"

#include "render/report.h"

/* One call, and no metadata yet. */
static void build(struct sb_profile *p)
{
	struct fx_call call = { "solve", 0, 1000, 1, -1, 0 };

	fx_call_tree(p, &call, 1, 0);
}

static char *render(struct sb_profile *p)
{
	struct sb_ct_opts co = { .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct report_opts o = { .path = "prof.h5", .rank = -1 };

	return report_text(p, &co, &o);
}

static void test_job_step_and_nodes_follow_the_file_line(void **state)
{
	struct sb_profile p;
	char *text;

	(void)state;
	build(&p);
	assert_int_equal(sb_profile_set_str(&p, "SLURM_JOB_ID", "4711"), 0);
	assert_int_equal(sb_profile_set_str(&p, "SLURM_STEP_ID", "2"), 0);
	assert_int_equal(sb_profile_set_str(&p, "SLURM_STEP_NODELIST", "cn[001-004]"), 0);
	text = render(&p);
	assert_non_null(strstr(text, "prof.h5 ("));
	assert_non_null(strstr(text, ")\njob       slurm 4711 step 2 on cn[001-004]\nrecording "));
	free(text);
	sb_profile_free(&p);
}

/* A job id alone is said alone; a control character in it is escaped, not written. */
static void test_job_alone_and_escaped(void **state)
{
	struct sb_profile p;
	char *text;

	(void)state;
	build(&p);
	assert_int_equal(sb_profile_set_str(&p, "SLURM_JOB_ID", "47\x1b[2J11"), 0);
	text = render(&p);
	assert_non_null(strstr(text, "\njob       slurm 47"));
	assert_null(strstr(text, "\x1b"));
	assert_null(strstr(text, " step "));
	free(text);
	sb_profile_free(&p);
}

static void test_no_job_line_outside_slurm(void **state)
{
	struct sb_profile p;
	char *text;

	(void)state;
	build(&p);
	assert_int_equal(sb_profile_set_int(&p, "SLURM_JOB_ID", 4711), 0);
	text = render(&p);
	assert_null(strstr(text, "job   "));
	free(text);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_step_and_nodes_follow_the_file_line),
		cmocka_unit_test(test_job_alone_and_escaped),
		cmocka_unit_test(test_no_job_line_outside_slurm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
