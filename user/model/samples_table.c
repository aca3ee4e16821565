/* Sampled stacks as a kind of tables (model/table.h): /scope_bpf/samples/ of docs/FORMAT.md. */
#include "model/samples.h"
#include "model/table.h"

static const struct sb_table_col frame_cols[] = {
	SB_COL("function", SB_COL_STR, 1, SB_ROLE_VALUE, "", struct sb_frame_sym, function),
	SB_COL("file", SB_COL_STR, 1, SB_ROLE_VALUE, "", struct sb_frame_sym, file),
	SB_COL("line", SB_COL_I64, 1, SB_ROLE_VALUE, "", struct sb_frame_sym, line),
	SB_COL("module", SB_COL_STR, 1, SB_ROLE_VALUE, "", struct sb_frame_sym, module),
	SB_COL("offset", SB_COL_U64, 1, SB_ROLE_VALUE, "B", struct sb_frame_sym, offset),
	SB_COL("inlined", SB_COL_BOOL, 1, SB_ROLE_VALUE, "", struct sb_frame_sym, inlined),
};

static const struct sb_table_col stack_frame_cols[] = {
	{ "stack_frames", SB_COL_U32, 1, SB_ROLE_ID, "", 0 },
};

static const struct sb_table_col stack_cols[] = {
	SB_COL("first", SB_COL_U64, 1, SB_ROLE_ID, "", struct sb_stack, first),
	SB_COL("depth", SB_COL_U32, 1, SB_ROLE_VALUE, "", struct sb_stack, depth),
};

static const struct sb_table_col path_cols[] = {
	SB_COL("parent", SB_COL_I64, 1, SB_ROLE_ID, "", struct sb_region_path, parent),
	SB_COL("name", SB_COL_STR, 1, SB_ROLE_VALUE, "", struct sb_region_path, name),
};

#define ROW(n, t, role, unit, f) SB_COL(n, t, 1, role, unit, struct sb_sample, f)

static const struct sb_table_col sample_cols[] = {
	ROW("kind", SB_COL_U32, SB_ROLE_VALUE, "", kind),
	ROW("rank", SB_COL_U32, SB_ROLE_RANK, "", rank),
	ROW("thread", SB_COL_I64, SB_ROLE_THREAD, "", thread),
	ROW("path", SB_COL_I64, SB_ROLE_REGION, "", path),
	ROW("ustack", SB_COL_I64, SB_ROLE_ID, "", ustack),
	ROW("kstack", SB_COL_I64, SB_ROLE_ID, "", kstack),
	ROW("count", SB_COL_U64, SB_ROLE_VALUE, "", count),
	ROW("ns", SB_COL_U64, SB_ROLE_VALUE, "ns", ns),
};

#define TIMED(n, t, role, unit, f) SB_COL(n, t, 1, role, unit, struct sb_timed_sample, f)

static const struct sb_table_col timed_cols[] = {
	TIMED("time", SB_COL_I64, SB_ROLE_TIME, "ns", time),
	TIMED("rank", SB_COL_U32, SB_ROLE_RANK, "", rank),
	TIMED("thread", SB_COL_I64, SB_ROLE_THREAD, "", thread),
	TIMED("cpu", SB_COL_U32, SB_ROLE_VALUE, "", cpu),
	TIMED("path", SB_COL_I64, SB_ROLE_REGION, "", path),
	TIMED("ustack", SB_COL_I64, SB_ROLE_ID, "", ustack),
	TIMED("kstack", SB_COL_I64, SB_ROLE_ID, "", kstack),
};

#define TABLE(prefix, cols, row, a, n, opt, says)                                          \
	SB_TABLE(prefix, cols, row, struct sb_samples, a, n, opt, says)

/* Ordered so that everything a table points at is read before it. */
static const struct sb_table tables[] = {
	TABLE("frames/", frame_cols, struct sb_frame_sym, frames, n_frames, false, NULL),
	TABLE("", stack_frame_cols, uint32_t, stack_frames, n_stack_frames, false, NULL),
	TABLE("stacks/", stack_cols, struct sb_stack, stacks, n_stacks, false, NULL),
	TABLE("region_paths/", path_cols, struct sb_region_path, paths, n_paths, false, NULL),
	TABLE("aggregates/", sample_cols, struct sb_sample, samples, n_samples, false,
	      "sample row"),
	TABLE("timeline/", timed_cols, struct sb_timed_sample, timeline, n_timeline, true,
	      "timed sample"),
};

const struct sb_kind sb_samples_kind = {
	.group = "scope_bpf/samples",
	.what = "samples",
	.tables = tables,
	.n_tables = sizeof(tables) / sizeof(tables[0]),
	.max_rows = 1ull << 34,
};
