/* Unit: host time per CUDA API function, as nsys stats' cuda_api_sum sums it. */
#include "cuda_acts.h"

#include "analysis/cuda_api_sum.h"

#define RT SB_CUDA_ACT_RUNTIME
#define DRV SB_CUDA_ACT_DRIVER

/* An API call of rank 0 (rank 1 where said) that took ns, with its callback id. */
static struct sb_cuda_activity call(int32_t kind, int64_t cbid, int64_t ns)
{
	static int64_t t = 1000;

	t += 1000;
	return cu_api(0, kind, t, t + ns, 0, t, cbid);
}

static void build(struct sb_profile *p)
{
	const struct sb_cuda_activity a[] = {
		/* cudaLaunchKernel three times, and once through its per-thread variant. */
		call(RT, 211, 10), call(RT, 211, 60), call(RT, 211, 20), call(RT, 214, 30),
		call(RT, 31, 200),				/* cudaMemcpy */
		call(DRV, 307, 5), call(DRV, 307, 15),		/* cuLaunchKernel */
		call(RT, 9999, 1),				/* a function this build does not know */
		cu_blank(0, SB_CUDA_ACT_SYNC, 0, 500),		/* not an API call */
		cu_blank(0, SB_CUDA_ACT_KERNEL, 0, 700),
	};
	struct sb_cuda_activity other = call(RT, 31, 100000);

	sb_profile_init(p);
	other.rank = 1;
	p->cuda.n_acts = sizeof(a) / sizeof(a[0]) + 1;
	p->cuda.acts = calloc(p->cuda.n_acts, sizeof(*a));
	assert_non_null(p->cuda.acts);
	memcpy(p->cuda.acts, a, sizeof(a));
	p->cuda.acts[p->cuda.n_acts - 1] = other;
}

static const struct sb_cuda_api_row *row(const struct sb_cuda_api_sum *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n_rows; i++)
		if (!strcmp(s->rows[i].name, name))
			return &s->rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

static void test_one_row_per_function_with_nsys_statistics(void **state)
{
	const struct sb_cuda_api_row *r;
	struct sb_cuda_api_sum s;
	struct sb_profile p;

	(void)state;
	build(&p);
	assert_int_equal(sb_cuda_api_sum_build(&s, &p, 0), 0);
	assert_int_equal(s.n_rows, 4);
	assert_int_equal(s.total, 341);
	/* By total, most first. */
	assert_string_equal(s.rows[0].name, "cudaMemcpy");
	assert_string_equal(s.rows[1].name, "cudaLaunchKernel");
	assert_string_equal(s.rows[2].name, "cuLaunchKernel");
	assert_string_equal(s.rows[3].name, "runtime callback 9999");
	/* 10, 20, 30, 60: both variants are one function; the median of an even count. */
	r = row(&s, "cudaLaunchKernel");
	assert_int_equal(r->kind, SB_CUDA_ACT_RUNTIME);
	assert_int_equal(r->calls, 4);
	assert_int_equal(r->total, 120);
	assert_int_equal(r->avg, 30);
	assert_int_equal(r->median, 25);
	assert_int_equal(r->min, 10);
	assert_int_equal(r->max, 60);
	assert_int_equal(r->stddev, 22);	/* sqrt(1400 / 3) = 21.6 */
	r = row(&s, "cuLaunchKernel");
	assert_int_equal(r->kind, SB_CUDA_ACT_DRIVER);
	assert_int_equal(r->median, 10);
	assert_int_equal(r->stddev, 7);		/* sqrt(50) */
	/* One call: no spread. */
	r = row(&s, "cudaMemcpy");
	assert_int_equal(r->median, 200);
	assert_int_equal(r->stddev, 0);
	sb_cuda_api_sum_free(&s);
	sb_profile_free(&p);
}

static void test_every_rank_or_one(void **state)
{
	struct sb_cuda_api_sum s;
	struct sb_profile p;

	(void)state;
	build(&p);
	assert_int_equal(sb_cuda_api_sum_build(&s, &p, -1), 0);
	assert_int_equal(s.total, 341 + 100000);
	assert_int_equal(row(&s, "cudaMemcpy")->calls, 2);
	assert_int_equal(row(&s, "cudaMemcpy")->median, 50100);
	sb_cuda_api_sum_free(&s);
	assert_int_equal(sb_cuda_api_sum_build(&s, &p, 1), 0);
	assert_int_equal(s.n_rows, 1);
	sb_cuda_api_sum_free(&s);
	assert_int_equal(sb_cuda_api_sum_build(&s, &p, 7), 0);
	assert_int_equal(s.n_rows, 0);
	assert_int_equal(s.total, 0);
	sb_cuda_api_sum_free(&s);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_row_per_function_with_nsys_statistics),
		cmocka_unit_test(test_every_rank_or_one),
	};

	return cmocka_run_group_tests_name("cuda_api_sum", tests, NULL, NULL);
}
