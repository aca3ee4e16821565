/*
 * An aggregate's rows and region paths as tables (model/table.h), under
 * /scope_bpf/aggregate/ of docs/FORMAT.md. Not one of model/data_kinds.c's
 * kinds: io/h5aggregate.c writes them, with the window attributes and the
 * recording's own value columns (values/) between them.
 */
#include "model/aggregate.h"
#include "model/model.h"
#include "model/table.h"

#define ROW(n, t, w, role, unit, f) SB_COL(n, t, w, role, unit, struct sb_agg_row, f)

static const struct sb_table_col row_cols[] = {
	ROW("rank", SB_COL_U32, 1, SB_ROLE_RANK, "", rank),
	ROW("thread", SB_COL_I64, 1, SB_ROLE_THREAD, "", thread),
	SB_COL_REF("path", SB_COL_I64, SB_ROLE_REGION, 1, struct sb_agg_row, path),
	ROW("window", SB_COL_I64, 1, SB_ROLE_VALUE, "", window),
	ROW("count", SB_COL_U64, 1, SB_ROLE_VALUE, "", count),
	ROW("total", SB_COL_I64, 1, SB_ROLE_VALUE, "ns", total),
	ROW("own", SB_COL_I64, 1, SB_ROLE_VALUE, "ns", own),
	ROW("min", SB_COL_I64, 1, SB_ROLE_VALUE, "ns", min),
	ROW("max", SB_COL_I64, 1, SB_ROLE_VALUE, "ns", max),
	ROW("histogram", SB_COL_U64, SB_AGG_BUCKETS, SB_ROLE_VALUE, "", hist),
};

static const struct sb_table_col path_cols[] = {
	SB_COL_REF("parent", SB_COL_I64, SB_ROLE_ID, 1, struct sb_region_path, parent),
	SB_COL("name", SB_COL_STR, 1, SB_ROLE_VALUE, "", struct sb_region_path, name),
};

static const struct sb_table tables[] = {
	SB_TABLE("", row_cols, struct sb_agg_row, struct sb_aggregate, rows, n_rows, false, NULL),
	SB_TABLE("paths/", path_cols, struct sb_region_path, struct sb_aggregate, paths, n_paths,
		 false, NULL),
};

const struct sb_kind sb_agg_kind = {
	.group = "scope_bpf/aggregate",
	.what = "aggregate",
	.in_profile = offsetof(struct sb_profile, agg),
	.tables = tables,
	.n_tables = sizeof(tables) / sizeof(tables[0]),
	/* Rows grow with paths and windows: far fewer than this. */
	.max_rows = 1ull << 32,
};
