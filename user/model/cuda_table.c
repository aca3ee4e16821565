/* CUDA activity as a kind of tables (model/table.h): /scope_bpf/cuda/ of docs/CUDA.md. */
#include "model/cuda.h"
#include "model/table.h"

#define ACT(n, t, w, role, unit, f) SB_COL(n, t, w, role, unit, struct sb_cuda_activity, f)

/* One row per activity, in file order: the (N,3) grid and block tables come last. */
static const struct sb_table_col act_cols[] = {
	ACT("ranks", SB_COL_U32, 1, SB_ROLE_RANK, "", rank),
	ACT("kinds", SB_COL_I32, 1, SB_ROLE_VALUE, "", kind),
	ACT("devices", SB_COL_I64, 1, SB_ROLE_VALUE, "", device),
	ACT("contexts", SB_COL_I64, 1, SB_ROLE_VALUE, "", context),
	ACT("streams", SB_COL_I64, 1, SB_ROLE_VALUE, "", stream),
	ACT("correlation_ids", SB_COL_I64, 1, SB_ROLE_VALUE, "", correlation),
	ACT("start_times", SB_COL_I64, 1, SB_ROLE_TIME, "ns", start),
	ACT("end_times", SB_COL_I64, 1, SB_ROLE_TIME, "ns", end),
	ACT("name_ids", SB_COL_I64, 1, SB_ROLE_ID, "", name),
	ACT("bytes", SB_COL_I64, 1, SB_ROLE_VALUE, "B", bytes),
	ACT("copy_kinds", SB_COL_I64, 1, SB_ROLE_VALUE, "", copy_kind),
	ACT("details", SB_COL_I64, 1, SB_ROLE_VALUE, "", detail),
	ACT("threads", SB_COL_I64, 1, SB_ROLE_THREAD, "", thread),
	ACT("launch_start_times", SB_COL_I64, 1, SB_ROLE_TIME, "ns", launch_start),
	ACT("launch_end_times", SB_COL_I64, 1, SB_ROLE_TIME, "ns", launch_end),
	ACT("call_ids", SB_COL_I64, 1, SB_ROLE_CALL_ID, "", call_id),
	ACT("pairs", SB_COL_I64, 1, SB_ROLE_REGION, "", pair),
	ACT("grids", SB_COL_I32, 3, SB_ROLE_VALUE, "", grid),
	ACT("blocks", SB_COL_I32, 3, SB_ROLE_VALUE, "", block),
};

static const struct sb_table_col name_cols[] = {
	{ "names", SB_COL_STR, 1, SB_ROLE_VALUE, "", 0 },
};

static const struct sb_table tables[] = {
	SB_TABLE("", act_cols, struct sb_cuda_activity, struct sb_cuda_data, acts, n_acts, false,
		 NULL),
	SB_TABLE("", name_cols, char *, struct sb_cuda_data, names, n_names, false, NULL),
};

const struct sb_kind sb_cuda_kind = {
	.group = "scope_bpf/cuda",
	.what = "CUDA activity",
	.tables = tables,
	.n_tables = sizeof(tables) / sizeof(tables[0]),
	.max_rows = 1ull << 34,
};
