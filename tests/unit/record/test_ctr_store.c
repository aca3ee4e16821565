/* Unit tests of the counter store: calls' counter values kept off the spill, read in any order. */
#include "fixtures.h"

#include "record/ctr_store.h"

/* Call call's values, all different; slot 3 unknown (-1). */
static void values_of(uint64_t call, int64_t *v)
{
	int k;

	for (k = 0; k < SB_CTR_VALUES; k++)
		v[k] = k == 3 ? -1 : (int64_t)(call * 100 + (uint64_t)k);
}

/* More calls than the buffer holds: most come back from the file, in any order. */
static void test_values_back_by_index(void **state)
{
	struct sb_ctr_store s;
	int64_t v[SB_CTR_VALUES], index;
	const int64_t *got;
	uint64_t i, n = 5 * SB_CTR_STORE_BUF + 7;

	(void)state;
	assert_int_equal(sb_ctr_store_init(&s, tmp_dir), 0);
	for (i = 0; i < n; i++) {
		values_of(i, v);
		assert_int_equal(sb_ctr_store_add(&s, v, SB_CTR_VALUES, &index), 0);
		assert_int_equal(index, i);
	}
	assert_int_equal(sb_ctr_store_finish(&s), 0);
	for (i = n; i-- > 0;) {
		values_of(i, v);
		got = sb_ctr_store_get(&s, (int64_t)i);
		assert_non_null(got);
		assert_memory_equal(got, v, sizeof(v));
	}
	/* Unknown stays unknown: -1 in slot 3 of every call. */
	assert_int_equal(sb_ctr_store_get(&s, 17)[3], -1);
	assert_null(sb_ctr_store_get(&s, (int64_t)n));
	assert_null(sb_ctr_store_get(&s, -1));
	/* Nothing is left in the folder: the file was unlinked at once. */
	assert_int_equal(count_tmp_files(), 0);
	sb_ctr_store_free(&s);
}

static void test_few_calls_stay_in_memory(void **state)
{
	struct sb_ctr_store s;
	int64_t v[SB_CTR_VALUES], index;

	(void)state;
	assert_int_equal(sb_ctr_store_init(&s, "/nonexistent/scope-bpf"), 0);
	values_of(1, v);
	assert_int_equal(sb_ctr_store_add(&s, v, SB_CTR_VALUES, &index), 0);
	assert_int_equal(sb_ctr_store_finish(&s), 0);
	assert_memory_equal(sb_ctr_store_get(&s, 0), v, sizeof(v));
	sb_ctr_store_free(&s);
}

/* A folder that cannot take the file: the error sticks, as the spill's does. */
static void test_unusable_folder_is_an_error(void **state)
{
	struct sb_ctr_store s;
	int64_t v[SB_CTR_VALUES] = { 0 }, index;
	int i, ret = 0;

	(void)state;
	assert_int_equal(sb_ctr_store_init(&s, "/nonexistent/scope-bpf"), 0);
	for (i = 0; i <= SB_CTR_STORE_BUF && !ret; i++)
		ret = sb_ctr_store_add(&s, v, SB_CTR_VALUES, &index);
	assert_int_equal(ret, -ENOENT);
	assert_int_equal(sb_ctr_store_add(&s, v, SB_CTR_VALUES, &index), -ENOENT);
	assert_int_equal(sb_ctr_store_finish(&s), -ENOENT);
	sb_ctr_store_free(&s);
}

/* Two events counted: four values a call, in the buffer and in the file; no other width. */
static void test_a_call_takes_only_its_values(void **state)
{
	int64_t v[SB_CTR_VALUES], index;
	struct sb_ctr_store s;
	uint64_t i, n = 2 * SB_CTR_STORE_BUF + 3;

	(void)state;
	assert_int_equal(sb_ctr_store_init(&s, tmp_dir), 0);
	for (i = 0; i < n; i++) {
		values_of(i, v);
		assert_int_equal(sb_ctr_store_add(&s, v, 4, &index), 0);
	}
	assert_int_equal(sb_ctr_store_add(&s, v, SB_CTR_VALUES, &index), -EINVAL);
	assert_int_equal(sb_ctr_store_finish(&s), 0);
	assert_int_equal(s.map_len, n * 4 * sizeof(int64_t));
	for (i = 0; i < n; i++) {
		values_of(i, v);
		assert_memory_equal(sb_ctr_store_get(&s, (int64_t)i), v, 4 * sizeof(*v));
	}
	sb_ctr_store_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_back_by_index),
		cmocka_unit_test(test_a_call_takes_only_its_values),
		cmocka_unit_test(test_few_calls_stay_in_memory),
		cmocka_unit_test(test_unusable_folder_is_an_error),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
