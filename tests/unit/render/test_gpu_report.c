/* Unit tests of the GPU columns of `report` and of `report --gpu`, on in-memory profiles. */
#include <unistd.h>

#include "fixtures.h"
#include "inert_text.h"

#include "analysis/calltree.h"
#include "cmd/commands.h"
#include "json_check.h"
#include "report_text.h"
#include "render/gpu_report.h"
#include "render/report.h"
#include "render/report_views.h"

/* main { step step } on rank 0; main on rank 1. */
static const struct fx_call calls[] = {
	{ "main", 0, 1000, 0, -1, 0 },
	{ "step", 100, 400, 1, 0, 0 },
	{ "step", 500, 800, 2, 0, 0 },
};

/* The GPU time of event i, in its column and its index row's summary, as recorded. */
static void set_gpu(struct sb_profile *p, size_t pair, size_t i, int64_t ns)
{
	p->events[i].metric[SB_METRIC_GPU] = ns;
	p->pairs[pair].stats.gpu_count++;
	p->pairs[pair].stats.gpu_total += ns;
}

static struct sb_cuda_activity act(uint32_t rank, int32_t kind, int64_t name, int64_t pair,
				   int64_t start, int64_t ns, int64_t bytes, int64_t copy_kind)
{
	return (struct sb_cuda_activity){
		.rank = rank, .kind = kind, .device = 0, .context = 1, .stream = 7,
		.correlation = start, .start = start, .end = start + ns, .name = name,
		.bytes = bytes, .copy_kind = copy_kind, .detail = -1, .thread = 0,
		.launch_start = -1, .launch_end = -1, .call_id = pair < 0 ? -1 : 0, .pair = pair,
	};
}

static void add_activity(struct sb_profile *p)
{
	static const char *const names[] = { "_Z4axpyifPKfPf", "plain_c_kernel", "_Zbogus" };
	const struct sb_cuda_activity a[] = {
		act(0, SB_CUDA_ACT_KERNEL, 0, 1, 150, 100, -1, -1),
		act(0, SB_CUDA_ACT_KERNEL, 0, 1, 550, 200, -1, -1),
		act(0, SB_CUDA_ACT_KERNEL, 0, 0, 900, 100, -1, -1),
		act(0, SB_CUDA_ACT_KERNEL, 1, -1, 1100, 50, -1, -1),
		act(0, SB_CUDA_ACT_KERNEL, 2, 1, 200, 10, -1, -1),
		act(0, SB_CUDA_ACT_MEMCPY, -1, 0, 10, 30, 4096, 1),
		act(0, SB_CUDA_ACT_MEMCPY, -1, 0, 50, 20, 1024, 1),
		act(0, SB_CUDA_ACT_MEMSET, -1, 1, 120, 5, 256, -1),
		act(0, SB_CUDA_ACT_RUNTIME, -1, -1, 140, 8, -1, -1),
		act(0, SB_CUDA_ACT_SYNC, -1, -1, 1000, 600, -1, -1),
		act(1, SB_CUDA_ACT_KERNEL, 0, 2, 20, 1000, -1, -1),
	};
	size_t i;

	p->cuda.acts = fx_copy(a, sizeof(a));
	p->cuda.n_acts = sizeof(a) / sizeof(a[0]);
	p->cuda.names = calloc(3, sizeof(char *));
	assert_non_null(p->cuda.names);
	for (i = 0; i < 3; i++)
		p->cuda.names[i] = strdup(names[i]);
	p->cuda.n_names = 3;
}

static void build(struct sb_profile *p, bool gpu)
{
	struct sb_thread rank1 = { .rank = 1, .index = 0, .tid = 43, .end_ns = -1, .cpu_ns = -1,
				   .name = "r1" };
	struct sb_event e = { .start = 0, .end = 2000, .thread = 0, .call_id = 0, .parent_id = -1,
			      .metric = { -1, -1 } };

	fx_call_tree(p, calls, 3, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID |
				  (gpu ? SB_COL_GPU : 0));
	fx_add_threads(p, &rank1, 1);
	fx_add_call(p, 0, 1, &e);
	if (!gpu)
		return;
	set_gpu(p, 0, 0, 100);
	set_gpu(p, 1, 1, 150);
	set_gpu(p, 1, 2, 250);
	add_activity(p);
}

static char *render_tree(const struct sb_profile *p, enum sb_report_format fmt, bool flat)
{
	struct sb_ct_opts co = { .flat = flat, .rank = 0 };
	struct report_opts o = { .path = "gpu.h5", .rank = 0, .format = fmt, .flat = flat };

	return report_text(p, &co, &o);
}

static void test_tree_has_gpu_time_and_share(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, true);
	out = render_tree(&p, SB_REPORT_TEXT, false);
	expect_has(out, "off-CPU  GPU time  GPU share  region\n");
	/* The work a call launched is its own: main's 100 ns, step's 150 + 250 ns. */
	expect_has(out, "-    100 ns      10.0%  main\n");
	expect_has(out, "-    400 ns      66.7%  └─ step\n");
	free(out);
	out = render_tree(&p, SB_REPORT_JSON, false);
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "\"path\": [\"main\", \"step\"], \"depth\": 2, \"calls\": 2");
	expect_has(out, "\"gpu_ns\": 400, \"gpu_share\": 0.6667}");
	free(out);
	out = render_tree(&p, SB_REPORT_CSV, false);
	expect_has(out, "offcpu_ns,first_start_ns,gpu_ns,gpu_share\n");
	expect_has(out, "main;step,2,2,600,300,300,300,");
	expect_has(out, ",100,400,0.6667\n");
	free(out);
	sb_profile_free(&p);
}

/* Flat tables take the GPU time from the index rows' summaries. */
static void test_flat_gpu_from_summaries(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, true);
	free(p.events);
	p.events = NULL;
	out = render_tree(&p, SB_REPORT_CSV, true);
	expect_has(out, "step,1,2,600,300,300,300,");
	expect_has(out, ",400,0.6667\n");
	free(out);
	sb_profile_free(&p);
}

static void test_no_gpu_columns_without_gpu_work(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, false);
	out = render_tree(&p, SB_REPORT_TEXT, false);
	assert_null(strstr(out, "GPU"));
	free(out);
	out = render_tree(&p, SB_REPORT_JSON, false);
	assert_null(strstr(out, "gpu_"));
	free(out);
	out = render_tree(&p, SB_REPORT_CSV, false);
	expect_has(out, ",first_start_ns\n");
	free(out);
	sb_profile_free(&p);
}

static void test_demangle_or_keep(void **state)
{
	char *s;

	(void)state;
	s = sb_gpu_display_name("_Z4axpyifPKfPf");
	assert_string_equal(s, "axpy(int, float, float const*, float*)");
	free(s);
	s = sb_gpu_display_name("_Zbogus");
	assert_string_equal(s, "_Zbogus");
	free(s);
	s = sb_gpu_display_name("saxpy");
	assert_string_equal(s, "saxpy");
	free(s);
}

static void test_kernels_copies_memsets_by_gpu_time(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_gpu_report r;
	const struct sb_gpu_row *k;
	struct sb_profile p;

	(void)state;
	build(&p, true);
	assert_int_equal(sb_gpu_report_build(&r, &p, -1, &err), 0);
	assert_int_equal(r.n_rows, 5);
	assert_int_equal(r.gpu_work, 9);
	assert_int_equal(r.gpu_total, 1515);
	assert_int_equal(r.host_calls, 2);
	assert_int_equal(r.syncs, 1);
	assert_int_equal(r.sync_total, 600);
	k = &r.rows[0];
	assert_string_equal(k->name, "axpy(int, float, float const*, float*)");
	assert_string_equal(k->mangled, "_Z4axpyifPKfPf");
	assert_int_equal(k->calls, 4);
	assert_int_equal(k->total, 1400);
	assert_int_equal(k->min, 100);
	assert_int_equal(k->max, 1000);
	assert_int_equal(k->bytes, -1);
	/* main launched 100 ns on rank 0 and 1000 ns on rank 1; step 100 + 200 ns. */
	assert_int_equal(k->n_launchers, 2);
	assert_int_equal(k->launchers[0].region, 0);
	assert_int_equal(k->launchers[0].ns, 1100);
	assert_int_equal(k->launchers[0].calls, 2);
	assert_int_equal(k->launchers[1].region, 1);
	assert_int_equal(k->launchers[1].ns, 300);
	/* A tie at 50 ns: kernels before copies. */
	assert_string_equal(r.rows[1].name, "plain_c_kernel");
	assert_int_equal(r.rows[1].launchers[0].region, SB_GPU_NO_REGION);
	assert_string_equal(r.rows[2].name, "HtoD");
	assert_int_equal(r.rows[2].kind, SB_CUDA_ACT_MEMCPY);
	assert_int_equal(r.rows[2].bytes, 5120);
	assert_int_equal(r.rows[2].calls, 2);
	assert_string_equal(r.rows[3].name, "_Zbogus");
	assert_string_equal(r.rows[4].name, "memset");
	assert_int_equal(r.rows[4].bytes, 256);
	sb_gpu_report_free(&r);
	assert_int_equal(sb_gpu_report_build(&r, &p, 1, &err), 0);
	assert_int_equal(r.n_rows, 1);
	assert_int_equal(r.rows[0].total, 1000);
	assert_int_equal(r.host_calls, 0);
	sb_gpu_report_free(&r);
	sb_profile_free(&p);
}

static char *render_gpu(const struct sb_profile *p, enum sb_report_format fmt, int64_t rank)
{
	struct report_opts o = { .path = "gpu.h5", .rank = rank, .format = fmt,
				 .view = &sb_gpu_report_view, .wide = true };
	struct sb_error err = { .msg = "" };
	struct sb_gpu_report r;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(sb_gpu_report_build(&r, p, rank, &err), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_gpu_report_render(f, p, &r, &o), 0);
	assert_int_equal(fclose(f), 0);
	sb_gpu_report_free(&r);
	return out;
}

static void test_gpu_table_text_json_csv(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, true);
	out = render_gpu(&p, SB_REPORT_TEXT, 0);
	expect_has(out, "GPU       8 activities on the GPU, 515 ns; 2 CUDA API calls, "
			"1 synchronization (600 ns waited)\n");
	expect_has(out, "kernel        3     400 ns     133 ns     100 ns     200 ns"
			"              -  axpy(int, float, float const*, float*)\n"
			"       launched in: step 300 ns (2), main 100 ns (1)\n");
	expect_has(out, "memcpy        2      50 ns      25 ns      20 ns      30 ns"
			"           5120  HtoD\n");
	expect_has(out, "launched in: (outside every region) 50 ns (1)\n");
	free(out);
	out = render_gpu(&p, SB_REPORT_JSON, -1);
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "{\"kind\": \"kernel\", \"name\": \"axpy(int, float, float const*, "
			"float*)\", \"mangled\": \"_Z4axpyifPKfPf\", \"calls\": 4, "
			"\"total_ns\": 1400, \"avg_ns\": 350, \"min_ns\": 100, \"max_ns\": 1000, "
			"\"bytes\": null, \"regions\": [{\"region\": \"main\", \"calls\": 2, "
			"\"gpu_ns\": 1100}, {\"region\": \"step\", \"calls\": 2, \"gpu_ns\": 300}]}");
	expect_has(out, "\"region\": null, \"calls\": 1, \"gpu_ns\": 50}");
	free(out);
	out = render_gpu(&p, SB_REPORT_CSV, -1);
	expect_has(out, "kind,name,calls,total_ns,avg_ns,min_ns,max_ns,bytes,region,"
			"region_calls,region_gpu_ns\n"
			"kernel,\"axpy(int, float, float const*, float*)\",4,1400,350,100,1000,,"
			"main,2,1100\n"
			"kernel,\"axpy(int, float, float const*, float*)\",4,1400,350,100,1000,,"
			"step,2,300\n"
			"kernel,plain_c_kernel,1,50,50,50,50,,,1,50\n"
			"memcpy,HtoD,2,50,25,20,30,5120,main,2,50\n");
	free(out);
	sb_profile_free(&p);
}

/* Kernel and region names come from the traced program: shown escaped, one row each. */
static void test_gpu_table_escapes_hostile_names(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, true);
	free(p.cuda.names[1]);
	p.cuda.names[1] = strdup(HOSTILE);
	free(p.regions[1].name);
	p.regions[1].name = strdup(HOSTILE);
	assert_non_null(p.cuda.names[1]);
	assert_non_null(p.regions[1].name);
	out = render_gpu(&p, SB_REPORT_TEXT, 0);
	expect_inert(out);
	expect_has(out, "  " HOSTILE_SHOWN "\n       launched in: (outside every region)");
	expect_has(out, "launched in: " HOSTILE_SHOWN " 300 ns (2), main 100 ns (1)\n");
	free(out);
	out = render_gpu(&p, SB_REPORT_CSV, -1);
	expect_inert(out);
	expect_has(out, "\nkernel," HOSTILE_SHOWN ",1,50,50,50,50,,,1,50\n");
	expect_has(out, ",1000,," HOSTILE_SHOWN ",2,300\n");
	free(out);
	sb_profile_free(&p);
}

static void test_gpu_table_without_cuda_says_so(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, false);
	out = render_gpu(&p, SB_REPORT_TEXT, -1);
	expect_has(out, "no CUDA activity in this profile (record it with record --cuda)\n");
	free(out);
	out = render_gpu(&p, SB_REPORT_JSON, -1);
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "\"gpu_activities\": 0");
	expect_has(out, "\"rows\": []}");
	free(out);
	sb_profile_free(&p);
	/* Host calls alone (record -p): no GPU times, and the way to get them. */
	build(&p, true);
	p.cuda.acts[0] = p.cuda.acts[8];
	p.cuda.acts[1] = p.cuda.acts[9];
	p.cuda.n_acts = 2;
	out = render_gpu(&p, SB_REPORT_TEXT, -1);
	expect_has(out, "0 activities on the GPU, 0 ns; 2 CUDA API calls");
	expect_has(out, "no GPU work recorded: GPU execution times need record --cuda at launch\n");
	free(out);
	sb_profile_free(&p);
}

/* Runtime and driver calls by function, as nsys stats' cuda_api_sum: after the GPU work. */
static void test_api_table_per_function(void **state)
{
	const struct sb_cuda_activity api[] = {
		act(0, SB_CUDA_ACT_RUNTIME, -1, -1, 100, 1000, -1, -1),
		act(0, SB_CUDA_ACT_RUNTIME, -1, -1, 200, 3000, -1, -1),
		act(0, SB_CUDA_ACT_DRIVER, -1, -1, 300, 4000, -1, -1),
		act(1, SB_CUDA_ACT_RUNTIME, -1, -1, 400, 9000, -1, -1),
	};
	struct sb_profile p;
	size_t i, n;
	char *out;

	(void)state;
	build(&p, true);
	n = p.cuda.n_acts;
	p.cuda.acts = realloc(p.cuda.acts, (n + 4) * sizeof(*p.cuda.acts));
	assert_non_null(p.cuda.acts);
	for (i = 0; i < 4; i++)
		p.cuda.acts[n + i] = api[i];
	p.cuda.acts[n].detail = p.cuda.acts[n + 1].detail = 211;	/* cudaLaunchKernel */
	p.cuda.acts[n + 2].detail = 307;				/* cuLaunchKernel */
	p.cuda.acts[n + 3].detail = 31;					/* cudaMemcpy */
	p.cuda.n_acts = n + 4;
	out = render_gpu(&p, SB_REPORT_TEXT, 0);
	expect_has(out, "\nCUDA API calls by function: the host time in each, share of all of it\n"
			" time%      total    calls        avg     median        min        max     "
			"stddev  name\n"
			" 50.0%    4.00 us        1    4.00 us    4.00 us    4.00 us    4.00 us       "
			"0 ns  cuLaunchKernel\n"
			" 50.0%    4.00 us        2    2.00 us    2.00 us    1.00 us    3.00 us    "
			"1.41 us  cudaLaunchKernel\n"
			"  0.1%       8 ns        1       8 ns       8 ns       8 ns       8 ns       "
			"0 ns  runtime call\n");
	assert_null(strstr(out, "cudaMemcpy"));
	free(out);
	out = render_gpu(&p, SB_REPORT_JSON, -1);
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "\"api_total_ns\": 17008, \"api\": [\n"
			"  {\"name\": \"cudaMemcpy\", \"api\": \"runtime\", \"calls\": 1, "
			"\"total_ns\": 9000, \"share\": 0.5292, \"avg_ns\": 9000, \"median_ns\": 9000, "
			"\"min_ns\": 9000, \"max_ns\": 9000, \"stddev_ns\": 0},\n"
			"  {\"name\": \"cuLaunchKernel\", \"api\": \"driver\", \"calls\": 1, "
			"\"total_ns\": 4000, \"share\": 0.2352, \"avg_ns\": 4000, \"median_ns\": 4000, "
			"\"min_ns\": 4000, \"max_ns\": 4000, \"stddev_ns\": 0},\n"
			"  {\"name\": \"cudaLaunchKernel\", \"api\": \"runtime\", \"calls\": 2, "
			"\"total_ns\": 4000, \"share\": 0.2352, \"avg_ns\": 2000, \"median_ns\": 2000, "
			"\"min_ns\": 1000, \"max_ns\": 3000, \"stddev_ns\": 1414},");
	free(out);
	sb_profile_free(&p);
}

/* ---- the command: options and the files it reads ---- */

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void expect_usage(int argc, char **argv, const char *needle)
{
	struct sb_error err = { .msg = "" };
	struct report_opts o;

	assert_int_equal(report_parse_args(argc, argv, &o, &err), -EINVAL);
	if (!strstr(err.msg, needle))
		fail_msg("error '%s' does not mention '%s'", err.msg, needle);
	sb_filter_free(&o.filter);
}

static void test_gpu_option_and_its_conflicts(void **state)
{
	char *ok[] = { "report", "--gpu", "--rank", "1", "-f", "csv", "p.h5" };
	char *mpi[] = { "report", "--gpu", "--mpi", "p.h5" };
	char *html[] = { "report", "--gpu", "--html", "x.html", "p.h5" };
	char *ranks[] = { "report", "--gpu", "--ranks", "0", "--exclude", "x", "p.h5" };
	struct sb_error err = { .msg = "" };
	struct report_opts o;

	(void)state;
	assert_int_equal(report_parse_args(ARGC(ok), ok, &o, &err), 0);
	assert_ptr_equal(o.view, &sb_gpu_report_view);
	assert_int_equal(o.rank, 1);
	assert_int_equal(o.format, SB_REPORT_CSV);
	expect_usage(ARGC(mpi), mpi, "--gpu: not available with --mpi");
	expect_usage(ARGC(html), html, "--gpu: not available with --html");
	/* The filters renumber the rows the activity points at, and it follows. */
	assert_int_equal(report_parse_args(ARGC(ranks), ranks, &o, &err), 0);
	assert_ptr_equal(o.view, &sb_gpu_report_view);
	assert_true(sb_filter_active(&o.filter));
	sb_filter_free(&o.filter);
}

static void build_gpu(struct sb_profile *p)
{
	build(p, true);
}

static void build_plain(struct sb_profile *p)
{
	build(p, false);
}

/* The report of a file, as cmd_report writes it with -o; checks the exit status. */
static char *run_report(char **argv, int argc, int status)
{
	char *out;

	assert_int_equal(cmd_report(argc, argv), status);
	out = slurp(tmp_path("out.txt"));
	assert_non_null(out);
	return out;
}

/* Through the file and the streaming tree a report of an HDF5 file is built with. */
static void test_command_shows_gpu_columns_and_table(void **state)
{
	char *tree[] = { "report", "-o", tmp_path("out.txt"), tmp_path("gpu.h5") };
	char *flat[] = { "report", "--flat", "-f", "csv", "-o", tmp_path("out.txt"),
			 tmp_path("gpu.h5") };
	char *gpu[] = { "report", "--gpu", "--rank", "0", "-o", tmp_path("out.txt"),
			tmp_path("gpu.h5") };
	char *none[] = { "report", "--gpu", "-o", tmp_path("out.txt"), tmp_path("plain.h5") };
	char *ranks[] = { "report", "--gpu", "--ranks", "1", "-o", tmp_path("out.txt"),
			  tmp_path("gpu.h5") };
	char *step[] = { "report", "--gpu", "--include", "^st", "-o", tmp_path("out.txt"),
			 tmp_path("gpu.h5") };
	char *out;

	(void)state;
	fx_write_built(tmp_path("gpu.h5"), build_gpu);
	fx_write_built(tmp_path("plain.h5"), build_plain);
	out = run_report(tree, ARGC(tree), 0);
	expect_has(out, "GPU time  GPU share  region\n");
	expect_has(out, "    400 ns      66.7%  └─ step\n");
	free(out);
	out = run_report(flat, ARGC(flat), 0);
	expect_has(out, "step,1,2,600,300,300,300,");
	expect_has(out, ",400,0.6667\n");
	free(out);
	out = run_report(gpu, ARGC(gpu), 0);
	expect_has(out, "  axpy(int, float, float const*, float*)\n"
			"       launched in: step 300 ns (2), main 100 ns (1)\n");
	free(out);
	/* Rank 1 alone: its kernel, launched in its main, now index row 0. */
	out = run_report(ranks, ARGC(ranks), 0);
	expect_has(out, "GPU       1 activity on the GPU, 1.00 us;\n          0 CUDA API calls");
	expect_has(out, "  axpy(int, float, float const*, float*)\n"
			"       launched in: main 1.00 us (1)\n");
	assert_null(strstr(out, "HtoD"));
	free(out);
	/* step alone: what it launched; main's and no region's work is gone, host calls stay. */
	out = run_report(step, ARGC(step), 0);
	expect_has(out, "GPU       4 activities on the GPU, 315 ns;\n          2 CUDA API calls");
	expect_has(out, "  axpy(int, float, float const*, float*)\n"
			"       launched in: step 300 ns (2)\n");
	expect_has(out, "memset\n       launched in: step 5 ns (1)\n");
	assert_null(strstr(out, "HtoD"));
	assert_null(strstr(out, "plain_c_kernel"));
	assert_null(strstr(out, "outside every region"));
	free(out);
	/* As --mpi on a profile without MPI: bad input, exit 2, nothing written. */
	assert_int_equal(unlink(tmp_path("out.txt")), 0);
	assert_int_equal(cmd_report(ARGC(none), none), 2);
	assert_int_equal(access(tmp_path("out.txt"), F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_has_gpu_time_and_share),
		cmocka_unit_test(test_flat_gpu_from_summaries),
		cmocka_unit_test(test_no_gpu_columns_without_gpu_work),
		cmocka_unit_test(test_demangle_or_keep),
		cmocka_unit_test(test_kernels_copies_memsets_by_gpu_time),
		cmocka_unit_test(test_gpu_table_text_json_csv),
		cmocka_unit_test(test_gpu_table_escapes_hostile_names),
		cmocka_unit_test(test_gpu_table_without_cuda_says_so),
		cmocka_unit_test(test_api_table_per_function),
		cmocka_unit_test(test_gpu_option_and_its_conflicts),
		cmocka_unit_test(test_command_shows_gpu_columns_and_table),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
