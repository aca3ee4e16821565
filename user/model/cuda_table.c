/* CUDA activity as tables (model/table.h), /scope_bpf/cuda/ of docs/CUDA.md, and its rules. */
#include <stdlib.h>

#include "model/model.h"
#include "model/table.h"
#include "util/error.h"

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
	SB_COL_REF("name_ids", SB_COL_I64, SB_ROLE_ID, 1, struct sb_cuda_activity, name),
	ACT("bytes", SB_COL_I64, 1, SB_ROLE_VALUE, "B", bytes),
	ACT("copy_kinds", SB_COL_I64, 1, SB_ROLE_VALUE, "", copy_kind),
	ACT("details", SB_COL_I64, 1, SB_ROLE_VALUE, "", detail),
	ACT("threads", SB_COL_I64, 1, SB_ROLE_THREAD, "", thread),
	ACT("launch_start_times", SB_COL_I64, 1, SB_ROLE_TIME, "ns", launch_start),
	ACT("launch_end_times", SB_COL_I64, 1, SB_ROLE_TIME, "ns", launch_end),
	ACT("call_ids", SB_COL_I64, 1, SB_ROLE_CALL_ID, "", call_id),
	SB_COL_REF("pairs", SB_COL_I64, SB_ROLE_REGION, SB_REF_INDEX_ROWS, struct sb_cuda_activity,
		   pair),
	ACT("grids", SB_COL_I32, 3, SB_ROLE_VALUE, "", grid),
	ACT("blocks", SB_COL_I32, 3, SB_ROLE_VALUE, "", block),
};

static const struct sb_table_col name_cols[] = {
	{ "names", SB_COL_STR, 1, SB_ROLE_VALUE, "", 0, 0 },
};

/* GPU work goes with the call that launched it: its GPU time is that call's. */
static bool launched(const void *row)
{
	return sb_cuda_on_gpu(((const struct sb_cuda_activity *)row)->kind);
}

static const struct sb_table tables[] = {
	SB_TABLE_CALLS(act_cols, struct sb_cuda_activity, struct sb_cuda_data, acts, n_acts,
		       launched),
	SB_DICT("", name_cols, struct sb_cuda_data, names, n_names),
};

/* A launching call must be one of the rank's calls: its index row belongs to the same rank. */
static int check_launch(const struct sb_profile *p, size_t i, const struct sb_cuda_activity *a,
			char *why, size_t len)
{
	if (a->pair < -1 || (a->pair >= 0 && (uint64_t)a->pair >= p->n_pairs))
		return sb_bad(why, len, "pairs[%zu]: index row %lld out of range (%zu rows)", i,
			      (long long)a->pair, p->n_pairs);
	if (a->pair >= 0 && p->pairs[a->pair].rank != a->rank)
		return sb_bad(why, len, "pairs[%zu]: index row %lld is of rank %u, not rank %u", i,
			      (long long)a->pair, p->pairs[a->pair].rank, a->rank);
	if (a->call_id < -1)
		return sb_bad(why, len, "call_ids[%zu]: call id %lld is negative", i,
			      (long long)a->call_id);
	if (a->launch_start != -1 && a->launch_end < a->launch_start)
		return sb_bad(why, len, "launch_end_times[%zu]: launch ends before it starts", i);
	return 0;
}

static int check_sizes(size_t i, const struct sb_cuda_activity *a, char *why, size_t len)
{
	int k;

	if (a->bytes < -1)
		return sb_bad(why, len, "bytes[%zu]: %lld bytes", i, (long long)a->bytes);
	for (k = 0; k < 3; k++) {
		if (a->grid[k] < 0)
			return sb_bad(why, len, "grids[%zu]: negative dimension %d", i, a->grid[k]);
		if (a->block[k] < 0)
			return sb_bad(why, len, "blocks[%zu]: negative dimension %d", i,
				      a->block[k]);
	}
	return 0;
}

static int check_act(const struct sb_profile *p, size_t i, char *why, size_t len)
{
	const struct sb_cuda_data *d = &p->cuda;
	const struct sb_cuda_activity *a = &d->acts[i];
	int ret;

	if (a->kind < SB_CUDA_ACT_KERNEL || a->kind > SB_CUDA_ACT_SYNC)
		return sb_bad(why, len, "kinds[%zu]: unknown kind %d", i, a->kind);
	if (a->end < a->start)
		return sb_bad(why, len, "end_times[%zu]: ends before it starts (%lld < %lld)", i,
			      (long long)a->end, (long long)a->start);
	if (a->name < -1 || (a->name >= 0 && (uint64_t)a->name >= d->n_names))
		return sb_bad(why, len, "name_ids[%zu]: name %lld out of range (%zu names)", i,
			      (long long)a->name, d->n_names);
	ret = check_sizes(i, a, why, len);
	return ret ? ret : check_launch(p, i, a, why, len);
}

/* Beyond the roles: kinds known, names in range, end >= start, launching calls of the rank. */
static int check(const struct sb_profile *p, char *why, size_t len)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < p->cuda.n_acts && !ret; i++)
		ret = check_act(p, i, why, len);
	return ret;
}

static int cmp_i64(int64_t x, int64_t y)
{
	return (x > y) - (x < y);
}

/*
 * By rank, then start, as the file wants. qsort is not stable: the fields
 * after them make the order of one rank's simultaneous activities the same
 * on every run.
 */
static int cmp_act(const void *x, const void *y)
{
	const struct sb_cuda_activity *a = x, *b = y;
	int c = cmp_i64(a->rank, b->rank);

	c = c ? c : cmp_i64(a->start, b->start);
	c = c ? c : cmp_i64(a->end, b->end);
	c = c ? c : cmp_i64(a->kind, b->kind);
	c = c ? c : cmp_i64(a->correlation, b->correlation);
	c = c ? c : cmp_i64(a->device, b->device);
	c = c ? c : cmp_i64(a->stream, b->stream);
	return c ? c : cmp_i64(a->thread, b->thread);
}

static void sort_cuda(void *d)
{
	struct sb_cuda_data *c = d;

	qsort(c->acts, c->n_acts, sizeof(*c->acts), cmp_act);
}

const struct sb_kind sb_cuda_kind = {
	.group = "scope_bpf/cuda",
	.what = "CUDA activity",
	.sep = "/",
	.in_profile = offsetof(struct sb_profile, cuda),
	.gate = offsetof(struct sb_cuda_data, n_acts),
	.tables = tables,
	.n_tables = sizeof(tables) / sizeof(tables[0]),
	.max_rows = 1ull << 34,
	.check = check,
	.sort = sort_cuda,
};
