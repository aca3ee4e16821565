/* Unit tests of /scope_bpf/cuda/ (FORMAT.md): round trip, hostile files, no group. */
#include "fixtures.h"

#include <unistd.h>


#define N_ACTS 7

static const char *const kernel_names[] = { "_Z4axpyifPKfPf", "_Z6reducePKfPfi" };

/* rank 0: main (pair 0, call 0) around step (pair 1, call 1); rank 1: main (pair 2, call 0). */
static const struct sb_cuda_activity acts[N_ACTS] = {
	{ .rank = 0, .kind = SB_CUDA_ACT_RUNTIME, .device = -1, .context = -1, .stream = -1,
	  .correlation = 10, .start = 90, .end = 95, .name = -1, .bytes = -1, .copy_kind = -1,
	  .detail = 211, .thread = 0, .launch_start = -1, .launch_end = -1, .call_id = -1,
	  .pair = -1 },
	{ .rank = 0, .kind = SB_CUDA_ACT_KERNEL, .device = 0, .context = 1, .stream = 7,
	  .correlation = 10, .start = 100, .end = 150, .name = 0, .bytes = -1, .copy_kind = -1,
	  .detail = -1, .grid = { 4, 2, 1 }, .block = { 128, 1, 1 }, .thread = 0,
	  .launch_start = 90, .launch_end = 95, .call_id = 1, .pair = 1 },
	{ .rank = 0, .kind = SB_CUDA_ACT_MEMCPY, .device = 0, .context = 1, .stream = 7,
	  .correlation = 11, .start = 160, .end = 170, .name = -1, .bytes = 4096, .copy_kind = 1,
	  .detail = -1, .thread = 0, .launch_start = 155, .launch_end = 158, .call_id = 1,
	  .pair = 1 },
	{ .rank = 0, .kind = SB_CUDA_ACT_MEMSET, .device = 0, .context = 1, .stream = 8,
	  .correlation = 12, .start = 180, .end = 185, .name = -1, .bytes = 1024, .copy_kind = -1,
	  .detail = 0, .thread = 0, .launch_start = 175, .launch_end = 176, .call_id = 0,
	  .pair = 0 },
	{ .rank = 0, .kind = SB_CUDA_ACT_DRIVER, .device = -1, .context = -1, .stream = -1,
	  .correlation = 13, .start = 600, .end = 610, .name = -1, .bytes = -1, .copy_kind = -1,
	  .detail = 17, .thread = 0, .launch_start = -1, .launch_end = -1, .call_id = -1,
	  .pair = -1 },
	{ .rank = 0, .kind = SB_CUDA_ACT_SYNC, .device = 0, .context = 1, .stream = 7,
	  .correlation = 14, .start = 620, .end = 700, .name = -1, .bytes = -1, .copy_kind = -1,
	  .detail = 3, .thread = 0, .launch_start = -1, .launch_end = -1, .call_id = -1,
	  .pair = -1 },
	{ .rank = 1, .kind = SB_CUDA_ACT_KERNEL, .device = 1, .context = 2, .stream = 13,
	  .correlation = 1, .start = 40, .end = 90, .name = 1, .bytes = -1, .copy_kind = -1,
	  .detail = -1, .grid = { 1, 1, 1 }, .block = { 32, 32, 1 }, .thread = 0,
	  .launch_start = 20, .launch_end = 30, .call_id = 0, .pair = 2 },
};

static void build(struct sb_profile *p)
{
	static const struct fx_call calls[] = {
		{ "main", 0, 1000, 0, -1, 0 },
		{ "step", 50, 500, 1, 0, 0 },
	};
	struct sb_thread rank1 = { .rank = 1, .index = 0, .tid = 43, .end_ns = -1, .cpu_ns = -1,
				   .name = "r1" };
	struct sb_event e;
	size_t i;

	fx_call_tree(p, calls, 2, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID);
	fx_add_threads(p, &rank1, 1);
	e = (struct sb_event){ .start = 10, .end = 100, .thread = 0, .call_id = 0,
			       .parent_id = -1, .metric = { -1, -1 } };
	fx_add_call(p, 0, 1, &e);
	p->cuda.acts = fx_copy(acts, sizeof(acts));
	p->cuda.n_acts = N_ACTS;
	p->cuda.names = calloc(2, sizeof(char *));
	assert_non_null(p->cuda.names);
	for (i = 0; i < 2; i++)
		p->cuda.names[i] = strdup(kernel_names[i]);
	p->cuda.n_names = 2;
}

static void build_plain(struct sb_profile *p)
{
	build(p);
	sb_cuda_data_free(&p->cuda);
}

static void test_round_trip_every_kind(void **state)
{
	const char *path = tmp_path("round.h5");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	size_t i;

	(void)state;
	fx_write_built(path, build);
	assert_int_equal(sb_h5_read(path, &p, &err), 0);
	assert_int_equal(p.cuda.n_acts, N_ACTS);
	for (i = 0; i < N_ACTS; i++)
		if (memcmp(&p.cuda.acts[i], &acts[i], sizeof(acts[i])))
			fail_msg("activity %zu differs after the round trip", i);
	assert_int_equal(p.cuda.n_names, 2);
	assert_string_equal(p.cuda.names[0], kernel_names[0]);
	assert_string_equal(p.cuda.names[1], kernel_names[1]);
	sb_profile_free(&p);
}

/* The lean read that report uses keeps the activity too. */
static void test_lean_read_keeps_activity(void **state)
{
	const char *path = tmp_path("lean.h5");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	(void)state;
	fx_write_built(path, build);
	assert_int_equal(sb_h5_read_opts(path, &p, SB_H5_READ_LEAN, &err), 0);
	assert_int_equal(p.cuda.n_acts, N_ACTS);
	assert_int_equal(p.cuda.acts[6].block[1], 32);
	sb_profile_free(&p);
}

static void test_no_group_is_empty(void **state)
{
	const char *path = tmp_path("plain.h5");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	hid_t f;

	(void)state;
	fx_write_built(path, build_plain);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	/* Nothing recorded, nothing written: not even an empty group. */
	assert_true(H5Lexists(f, "scope_bpf", H5P_DEFAULT) <= 0 ||
		    H5Lexists(f, "scope_bpf/cuda", H5P_DEFAULT) <= 0);
	H5Fclose(f);
	assert_int_equal(sb_h5_read(path, &p, &err), 0);
	assert_int_equal(p.cuda.n_acts, 0);
	assert_int_equal(p.cuda.n_names, 0);
	assert_null(p.cuda.acts);
	sb_profile_free(&p);
}

/* One column replaced by these values breaks one rule: the read names the column and row. */
struct broken {
	const char *column;
	int64_t v[N_ACTS];
	const char *cause;
};

#define BASE(f) acts[0].f, acts[1].f, acts[2].f, acts[3].f, acts[4].f, acts[5].f

static const struct broken broken[] = {
	{ "kinds", { BASE(kind), 9 }, "/scope_bpf/cuda/kinds[6]: unknown kind 9" },
	{ "kinds", { 0, BASE(kind) }, "/scope_bpf/cuda/kinds[0]: unknown kind 0" },
	{ "ranks", { BASE(rank), 2 }, "/scope_bpf/cuda/ranks[6]: rank 2 out of range (2 ranks)" },
	{ "end_times", { BASE(end), 39 }, "/scope_bpf/cuda/end_times[6]: ends before it starts" },
	{ "name_ids", { BASE(name), 2 }, "/scope_bpf/cuda/name_ids[6]: name 2 out of range" },
	{ "name_ids", { BASE(name), -2 }, "/scope_bpf/cuda/name_ids[6]: name -2 out of range" },
	{ "threads", { BASE(thread), 1 }, "/scope_bpf/cuda/threads[6]: thread 1 is not a thread "
					  "of rank 1" },
	{ "pairs", { BASE(pair), 3 }, "/scope_bpf/cuda/pairs[6]: index row 3 out of range" },
	{ "pairs", { BASE(pair), 1 }, "/scope_bpf/cuda/pairs[6]: index row 1 is of rank 0, "
				      "not rank 1" },
	{ "call_ids", { BASE(call_id), -5 }, "/scope_bpf/cuda/call_ids[6]: call id -5" },
	{ "launch_end_times", { BASE(launch_end), 19 },
	  "/scope_bpf/cuda/launch_end_times[6]: launch ends before it starts" },
	{ "bytes", { BASE(bytes), -7 }, "/scope_bpf/cuda/bytes[6]: -7 bytes" },
};

static void test_hostile_rules_rejected(void **state)
{
	char name[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		const char *path = tmp_path("broken.h5");

		fx_write_built(path, build);
		snprintf(name, sizeof(name), "/scope_bpf/cuda/%s", broken[i].column);
		h5_replace(path, name, H5T_STD_I64LE, H5T_NATIVE_INT64, broken[i].v, N_ACTS);
		expect_read_error(path, broken[i].cause);
	}
}

static void replace_2d(const char *path, const char *name, hsize_t rows, hsize_t cols,
		       const int32_t *v)
{
	hsize_t dim[2] = { rows, cols };
	hid_t f, s, d;

	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_true(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
	s = H5Screate_simple(2, dim, NULL);
	d = H5Dcreate2(f, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(d >= 0);
	assert_true(H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	H5Dclose(d);
	H5Sclose(s);
	H5Fclose(f);
}

static void test_hostile_tables_rejected(void **state)
{
	const char *path = tmp_path("shape.h5");
	int32_t v[N_ACTS * 4] = { 0 };
	int64_t ids[N_ACTS + 1] = { 0 };
	hid_t f;

	(void)state;
	fx_write_built(path, build);
	replace_2d(path, "/scope_bpf/cuda/grids", N_ACTS, 2, v);
	expect_read_error(path, "/scope_bpf/cuda/grids is not an (N,3) table");

	fx_write_built(path, build);
	replace_2d(path, "/scope_bpf/cuda/blocks", N_ACTS - 1, 3, v);
	expect_read_error(path, "column lengths differ: /scope_bpf/cuda/blocks has 6 rows");

	fx_write_built(path, build);
	v[3 * 1 + 2] = -1;
	replace_2d(path, "/scope_bpf/cuda/blocks", N_ACTS, 3, v);
	expect_read_error(path, "/scope_bpf/cuda/blocks[1]: negative dimension -1");

	fx_write_built(path, build);
	h5_replace(path, "/scope_bpf/cuda/streams", H5T_STD_I64LE, H5T_NATIVE_INT64, ids,
		   N_ACTS + 1);
	expect_read_error(path, "column lengths differ: /scope_bpf/cuda/streams has 8 rows");

	fx_write_built(path, build);
	h5_replace(path, "/scope_bpf/cuda/names", H5T_STD_I64LE, H5T_NATIVE_INT64, ids, 2);
	expect_read_error(path, "/scope_bpf/cuda/names has the wrong type (string expected)");

	fx_write_built(path, build);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0 && H5Ldelete(f, "/scope_bpf/cuda/details", H5P_DEFAULT) >= 0);
	H5Fclose(f);
	expect_read_error(path, "/scope_bpf/cuda/details is missing");
}

/* The writer holds itself to the reader's rules: nothing it writes is refused later. */
static void test_writer_refuses_invalid(void **state)
{
	const char *path = tmp_path("refused.h5");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	(void)state;
	build(&p);
	p.cuda.acts[2].pair = 2;
	assert_int_equal(fx_write_h5(path, &p, &err), -EINVAL);
	assert_msg(&err, path, "cannot write invalid CUDA activity: pairs[2]: index row 2 is of "
			       "rank 1, not rank 0");
	sb_profile_free(&p);
	assert_int_equal(access(path, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_every_kind),
		cmocka_unit_test(test_lean_read_keeps_activity),
		cmocka_unit_test(test_no_group_is_empty),
		cmocka_unit_test(test_hostile_rules_rejected),
		cmocka_unit_test(test_hostile_tables_rejected),
		cmocka_unit_test(test_writer_refuses_invalid),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
