/* Unit tests of the 80-column text of report and inspect: what is left out or cut, what --wide keeps. */
#include "fixtures.h"
#include "report_text.h"

#include "analysis/calltree.h"
#include "cmd/commands.h"
#include "render/report.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define RANKS 8
#define ENCLOSING "exchange_halo_with_neighbours::post_all_sends_and_receives"
#define KERNEL "void stencil::apply<double, 3, stencil::boundary::periodic>(double const*, double*)"

#define DEPTH 12

/* The longest line of text in columns (UTF-8 continuation bytes take none). */
static size_t widest_line(const char *text)
{
	size_t w = 0, max = 0;

	for (; *text; text++) {
		if (*text == '\n') {
			w = 0;
			continue;
		}
		if (((unsigned char)*text & 0xc0) != 0x80 && ++w > max)
			max = w;
	}
	return max;
}

static char names[DEPTH][64];

#define LONG_NAME "solver::level_%02d::smooth_with_gauss_seidel"

/* DEPTH regions, each called once inside the one before, named by name_fmt and the depth. */
static void build_deep(struct sb_profile *p, unsigned columns, const char *name_fmt)
{
	struct fx_call calls[DEPTH];
	int64_t d;

	for (d = 0; d < DEPTH; d++) {
		snprintf(names[d], sizeof(names[d]), name_fmt, (int)d);
		calls[d] = (struct fx_call){ names[d], 10 * d, 100000 - 10 * d, d + 1, d ? d : -1,
					     d };
	}
	fx_call_tree(p, calls, DEPTH, columns);
}

static char *render(const struct sb_profile *p, bool flat, bool wide)
{
	struct sb_ct_opts co = { .flat = flat, .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct report_opts o = { .path = "deep.h5", .rank = -1, .flat = flat, .wide = wide };

	return report_text(p, &co, &o);
}

static void test_deep_tree_of_long_names_fits_80_columns(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build_deep(&p, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU,
		   LONG_NAME);
	out = render(&p, false, false);
	if (widest_line(out) > 80)
		fail_msg("a line over 80 columns:\n%s", out);
	/* min and max go first, then avg; the tree is still drawn, names keep both ends. */
	expect_has(out, "calls    total    %rec      own  off-CPU  region\n");
	expect_has(out, "  0 ns  solver::level_00::...with_gauss_seidel\n");
	/* Levels of 2 columns draw the tree to its deepest node; names keep 16 at least. */
	expect_has(out, "  1 ns  └ solver::level_01:...ith_gauss_seidel\n");
	expect_has(out, "  11 ns                      └ solver:...seidel\n");
	assert_null(strstr(out, "[depth"));
	free(out);
	out = render(&p, false, true);
	assert_true(widest_line(out) > 80);
	expect_has(out, "└─ solver::level_11::smooth_with_gauss_seidel\n");
	expect_has(out, "     min      max");
	free(out);
	sb_profile_free(&p);
}

/* LULESH's call chain, 10 deep, with a second region beside each level's next. */
static const char *const lulesh[] = {
	"main", "LagrangeLeapFrog", "LagrangeNodal", "CalcForceForNodes",
	"CalcVolumeForceForElems", "CalcHourglassControlForElems", "CalcFBHourglassForceForElems",
	"CalcElemFBHourglassForce", "SumElemStressesToNodeForces", "CollectElemNodes",
};
#define LULESH_DEPTH (sizeof(lulesh) / sizeof(lulesh[0]))

static char beside[LULESH_DEPTH][32];

static void build_lulesh(struct sb_profile *p)
{
	struct fx_call calls[2 * LULESH_DEPTH];
	int64_t d, n = 0;

	for (d = 0; d < (int64_t)LULESH_DEPTH; d++) {
		calls[n++] = (struct fx_call){ lulesh[d], 10 * d, 100000 - 10 * d, 2 * d + 1,
					       d ? 2 * d - 1 : -1, d };
		if (!d)
			continue;
		/* Shorter than the chain's call: second, so the chain's lines go on past it. */
		snprintf(beside[d], sizeof(beside[d]), "Beside%02d", (int)d);
		calls[n++] = (struct fx_call){ beside[d], 100000 - 5 * d, 100000 - 5 * d + 1,
					       2 * d + 2, 2 * d - 1, 0 };
	}
	fx_call_tree(p, calls, (size_t)n, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID |
			 SB_COL_OFFCPU);
}

/* A tree as deep as real codes' stays a tree in 80 columns: its lines, not "[depth N]". */
static void test_ten_deep_tree_keeps_its_lines_in_80_columns(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build_lulesh(&p);
	out = render(&p, false, false);
	if (widest_line(out) > 80)
		fail_msg("a line over 80 columns:\n%s", out);
	if (strstr(out, "[depth"))
		fail_msg("levels folded into a depth:\n%s", out);
	/* Whole names: the deepest levels take 2 columns, then 1, their lines still drawn. */
	expect_has(out, "  │ │ ├ CalcForceForNodes\n");
	expect_has(out, "  │ │ ││││││├ CollectElemNodes\n");
	expect_has(out, "  │ │ │││││└ Beside08\n");
	expect_has(out, "  └ Beside01\n");
	free(out);
	sb_profile_free(&p);
}

/* A table that fits keeps every column: short names change nothing. */
static void test_flat_table_that_fits_is_whole(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	build_deep(&p, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID, "step_%02d");
	out = render(&p, true, false);
	assert_true(widest_line(out) <= 80);
	expect_has(out, "     min      max");
	expect_has(out, "  step_11\n");
	free(out);
	sb_profile_free(&p);
}

/* ---- report --mpi, --counters, --gpu and inspect, through a file as cmd_report reads it ---- */

static void call(struct sb_profile *p, const char *name, uint32_t rank, int64_t start,
		 int64_t end, int64_t id, int64_t parent)
{
	struct sb_event e;
	ssize_t r = sb_profile_find_region(p, name);

	if (r < 0)
		r = sb_profile_add_region(p, name, "halo.c", 7, "[]");
	assert_true(r >= 0);
	sb_event_blank(&e);
	e.start = start;
	e.end = end;
	e.thread = 0;
	e.call_id = id;
	e.parent_id = parent;
	fx_add_call(p, (uint32_t)r, rank, &e);
}

/* RANKS ranks, each sending 800 bytes to the next inside a region of a long name. */
static void build_mpi(struct sb_profile *p)
{
	char name[160];
	uint32_t r;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	for (r = 0; r < RANKS; r++) {
		call(p, ENCLOSING, r, 0, 1000 + 100 * r, 1, -1);
		snprintf(name, sizeof(name), "mpi:send kind=point-to-point bytes=800000000 peer=%u "
			 "root=-1 tag=7 comm=0", (r + 1) % RANKS);
		call(p, name, r, 10, 20, 2, 1);
	}
	assert_int_equal(sb_profile_set_int(p, "mpi_size", RANKS), 0);
}

/* Four events and their ratios, counted in one region of a long name. */
static void build_counters(struct sb_profile *p)
{
	struct sb_event e;
	unsigned k;

	fx_call_tree(p, NULL, 0, SB_COL_THREAD);
	assert_int_equal(sb_profile_add_region(p, ENCLOSING, "", -1, "[]"), 0);
	for (k = 0; k < 4; k++)
		p->columns |= SB_COL_METRIC(SB_METRIC_COUNTER + k) |
			      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + k);
	sb_event_blank(&e);
	e.start = 0;
	e.end = 5;
	e.thread = 0;
	fx_add_call(p, 0, 0, &e);
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (k = 0; k < 4; k++) {
		sb_event_set_metric(p, 0, SB_METRIC_COUNTER + k, 123456789012);
		sb_event_set_metric(p, 0, SB_METRIC_COUNTER_EXCL + k, 123456789012);
	}
	assert_int_equal(sb_profile_set_str(p, "counter_events",
					    "instructions,cycles,cache-references,cache-misses"),
			 0);
}

static struct sb_cuda_activity kernel(int64_t pair, int64_t start)
{
	return (struct sb_cuda_activity){
		.rank = 0, .kind = SB_CUDA_ACT_KERNEL, .device = 0, .context = 1, .stream = 7,
		.correlation = start, .start = start, .end = start + 100, .name = 0, .bytes = -1,
		.copy_kind = -1, .detail = -1, .thread = 0, .launch_start = -1, .launch_end = -1,
		.call_id = 0, .pair = pair,
	};
}

/* A kernel of a long template name, launched in DEPTH regions of long names. */
static void build_gpu(struct sb_profile *p)
{
	struct sb_cuda_activity a[DEPTH];
	int64_t d;

	build_deep(p, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_GPU, LONG_NAME);
	for (d = 0; d < DEPTH; d++) {
		p->events[d].metric[SB_METRIC_GPU] = 100;
		p->pairs[d].stats.gpu_count++;
		p->pairs[d].stats.gpu_total += 100;
		a[d] = kernel(d, 20 * d);
	}
	p->cuda.acts = fx_copy(a, sizeof(a));
	p->cuda.n_acts = DEPTH;
	p->cuda.names = calloc(1, sizeof(char *));
	assert_non_null(p->cuda.names);
	p->cuda.names[0] = strdup(KERNEL);
	p->cuda.n_names = 1;
}

/* cmd's text of the profile builder makes, with extra options, and its widest line. */
static size_t text_width(int (*cmd)(int, char **), void (*builder)(struct sb_profile *),
			 const char *opt, const char *opt2, const char *needle)
{
	char *argv[] = { "report", (char *)opt, (char *)opt2, "-o", tmp_path("w.txt"),
			 tmp_path("w.h5") };
	char *out;
	size_t w;

	if (cmd == cmd_inspect)
		argv[0] = "inspect";
	fx_write_built(tmp_path("w.h5"), builder);
	assert_int_equal(cmd(ARGC(argv), argv), 0);
	out = slurp(tmp_path("w.txt"));
	expect_has(out, needle);
	w = widest_line(out);
	if (w > 80 && strcmp(opt2, "--wide"))
		fail_msg("%s %s: a line over 80 columns:\n%s", argv[0], opt, out);
	free(out);
	return w;
}

static void test_mpi_counters_gpu_and_inspect_fit_80_columns(void **state)
{
	(void)state;
	/* The 8-rank matrix comes in blocks; --wide puts it on one line per sender. */
	text_width(cmd_report, build_mpi, "--mpi", "--flat", "  exchange_halo_wi...ds_and_receives\n");
	assert_true(text_width(cmd_report, build_mpi, "--mpi", "--wide", ENCLOSING "\n") > 80);
	/* Four events, each with its own counts: tables one under another. */
	text_width(cmd_report, build_counters, "--counters", "--flat", "own cache-misses");
	assert_true(text_width(cmd_report, build_counters, "--counters", "--wide", ENCLOSING) > 80);
	/* The kernel's name on a line of its own; its launching regions wrapped. */
	text_width(cmd_report, build_gpu, "--gpu", "--flat", "       void stencil::apply<");
	assert_true(text_width(cmd_report, build_gpu, "--gpu", "--wide", KERNEL) > 80);
	/* The tree with GPU columns, and inspect's tables. */
	text_width(cmd_report, build_gpu, "--sort", "total", "GPU time");
	text_width(cmd_inspect, build_gpu, "--format", "text", "regions: 12");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deep_tree_of_long_names_fits_80_columns),
		cmocka_unit_test(test_ten_deep_tree_keeps_its_lines_in_80_columns),
		cmocka_unit_test(test_flat_table_that_fits_is_whole),
		cmocka_unit_test(test_mpi_counters_gpu_and_inspect_fit_80_columns),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
