/* Sampled stacks as tables (model/table.h), /scope_bpf/samples/ of FORMAT.md, and their rules. */
#include "model/model.h"
#include "model/table.h"
#include "util/error.h"

/* The tables' places in tables[] below, which ID and REGION columns point into. */
enum { FRAMES, STACK_FRAMES, STACKS, PATHS };

#define REF(n, role, ref, row, f) SB_COL_REF(n, SB_COL_I64, role, ref, row, f)

static const struct sb_table_col frame_cols[] = {
	SB_COL("function", SB_COL_STR, 1, SB_ROLE_VALUE, "", struct sb_frame_sym, function),
	SB_COL("file", SB_COL_STR, 1, SB_ROLE_VALUE, "", struct sb_frame_sym, file),
	SB_COL("line", SB_COL_I64, 1, SB_ROLE_VALUE, "", struct sb_frame_sym, line),
	SB_COL("module", SB_COL_STR, 1, SB_ROLE_VALUE, "", struct sb_frame_sym, module),
	SB_COL("offset", SB_COL_U64, 1, SB_ROLE_VALUE, "B", struct sb_frame_sym, offset),
	SB_COL("inlined", SB_COL_BOOL, 1, SB_ROLE_VALUE, "", struct sb_frame_sym, inlined),
};

static const struct sb_table_col stack_frame_cols[] = {
	{ "stack_frames", SB_COL_U32, 1, SB_ROLE_ID, "", 0, FRAMES },
};

static const struct sb_table_col stack_cols[] = {
	SB_COL_REF("first", SB_COL_U64, SB_ROLE_ID, STACK_FRAMES, struct sb_stack, first),
	SB_COL("depth", SB_COL_U32, 1, SB_ROLE_VALUE, "", struct sb_stack, depth),
};

static const struct sb_table_col path_cols[] = {
	SB_COL_REF("parent", SB_COL_I64, SB_ROLE_ID, PATHS, struct sb_region_path, parent),
	SB_COL("name", SB_COL_STR, 1, SB_ROLE_VALUE, "", struct sb_region_path, name),
};

#define ROW(n, t, role, unit, f) SB_COL(n, t, 1, role, unit, struct sb_sample, f)

static const struct sb_table_col sample_cols[] = {
	ROW("kind", SB_COL_U32, SB_ROLE_VALUE, "", kind),
	ROW("rank", SB_COL_U32, SB_ROLE_RANK, "", rank),
	ROW("thread", SB_COL_I64, SB_ROLE_THREAD, "", thread),
	REF("path", SB_ROLE_REGION, PATHS, struct sb_sample, path),
	REF("ustack", SB_ROLE_ID, STACKS, struct sb_sample, ustack),
	REF("kstack", SB_ROLE_ID, STACKS, struct sb_sample, kstack),
	ROW("count", SB_COL_U64, SB_ROLE_VALUE, "", count),
	ROW("ns", SB_COL_U64, SB_ROLE_VALUE, "ns", ns),
};

#define TIMED(n, t, role, unit, f) SB_COL(n, t, 1, role, unit, struct sb_timed_sample, f)

static const struct sb_table_col timed_cols[] = {
	TIMED("time", SB_COL_I64, SB_ROLE_TIME, "ns", time),
	TIMED("rank", SB_COL_U32, SB_ROLE_RANK, "", rank),
	TIMED("thread", SB_COL_I64, SB_ROLE_THREAD, "", thread),
	TIMED("cpu", SB_COL_U32, SB_ROLE_VALUE, "", cpu),
	REF("path", SB_ROLE_REGION, PATHS, struct sb_timed_sample, path),
	REF("ustack", SB_ROLE_ID, STACKS, struct sb_timed_sample, ustack),
	REF("kstack", SB_ROLE_ID, STACKS, struct sb_timed_sample, kstack),
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

static int check_stacks(const struct sb_samples *s, char *why, size_t len)
{
	const struct sb_stack *k;
	size_t i;

	/* Frame ids are 32-bit on disk. */
	if (s->n_frames > UINT32_MAX)
		return sb_bad(why, len, "%zu frames, more than frame ids can address", s->n_frames);
	for (i = 0; i < s->n_stack_frames; i++)
		if (s->stack_frames[i] >= s->n_frames)
			return sb_bad(why, len,
				      "stack_frames[%zu]: frame id %u out of range (%zu frames)", i,
				      s->stack_frames[i], s->n_frames);
	for (i = 0; i < s->n_stacks; i++) {
		k = &s->stacks[i];
		if (k->first > s->n_stack_frames || k->depth > s->n_stack_frames - k->first)
			return sb_bad(why, len,
				      "stack %zu: frames %llu+%u past the end of stack_frames (%zu ids)",
				      i, (unsigned long long)k->first, k->depth, s->n_stack_frames);
	}
	return 0;
}

/* A parent that comes first can never lead back to its child: no cycles, by construction. */
static int check_paths(const struct sb_samples *s, char *why, size_t len)
{
	const struct sb_region_path *q;
	size_t i;

	for (i = 0; i < s->n_paths; i++) {
		q = &s->paths[i];
		if (q->parent < -1 || (q->parent >= 0 && (uint64_t)q->parent >= i))
			return sb_bad(why, len,
				      "region path %zu: parent %lld is not an earlier path", i,
				      (long long)q->parent);
		if (!q->name)
			return sb_bad(why, len, "region path %zu has no name", i);
	}
	return 0;
}

static bool id_ok(int64_t id, size_t n)
{
	return id == -1 || (id >= 0 && (uint64_t)id < n);
}

/* The ids an aggregate row and a timed sample both hold; ranks and threads are checked by role. */
static int check_ids(const struct sb_samples *s, const char *what, size_t i, int64_t path,
		     int64_t ustack, int64_t kstack, char *why, size_t len)
{
	if (!id_ok(path, s->n_paths))
		return sb_bad(why, len, "%s %zu: region path %lld out of range (%zu paths)", what,
			      i, (long long)path, s->n_paths);
	if (!id_ok(ustack, s->n_stacks) || !id_ok(kstack, s->n_stacks))
		return sb_bad(why, len, "%s %zu: stack %lld out of range (%zu stacks)", what, i,
			      (long long)(id_ok(ustack, s->n_stacks) ? kstack : ustack),
			      s->n_stacks);
	return 0;
}

static int check_row(const struct sb_samples *s, size_t i, char *why, size_t len)
{
	const struct sb_sample *x = &s->samples[i];

	if (x->kind != SB_SAMPLE_CPU && x->kind != SB_SAMPLE_OFFCPU)
		return sb_bad(why, len, "sample row %zu: unknown kind %u", i, x->kind);
	return check_ids(s, "sample row", i, x->path, x->ustack, x->kstack, why, len);
}

/* Readers walk a rank's samples in time order: the file keeps them so. */
static int check_timed(const struct sb_samples *s, size_t i, char *why, size_t len)
{
	const struct sb_timed_sample *x = &s->timeline[i];

	if (i && (x->rank < x[-1].rank || (x->rank == x[-1].rank && x->time < x[-1].time)))
		return sb_bad(why, len,
			      "timed sample %zu: rank %u at %lld ns comes after rank %u at %lld ns",
			      i, x->rank, (long long)x->time, x[-1].rank, (long long)x[-1].time);
	return check_ids(s, "timed sample", i, x->path, x->ustack, x->kstack, why, len);
}

/* Reports sum counts and times per kind; a sum that wraps would make every share a lie. */
static int check_sums(const struct sb_samples *s, char *why, size_t len)
{
	uint64_t count[2] = { 0, 0 }, ns[2] = { 0, 0 };
	const struct sb_sample *x;
	size_t i;

	for (i = 0; i < s->n_samples; i++) {
		x = &s->samples[i];
		if (__builtin_add_overflow(count[x->kind], x->count, &count[x->kind]) ||
		    __builtin_add_overflow(ns[x->kind], x->ns, &ns[x->kind]))
			return sb_bad(why, len, "sample row %zu: counts or times overflow", i);
	}
	return 0;
}

/* Beyond the roles: stacks, paths and the ids rows hold in range; the timeline in order. */
static int check(const struct sb_profile *p, char *why, size_t len)
{
	const struct sb_samples *s = &p->samples;
	size_t i;
	int ret;

	ret = check_stacks(s, why, len);
	if (!ret)
		ret = check_paths(s, why, len);
	for (i = 0; i < s->n_samples && !ret; i++)
		ret = check_row(s, i, why, len);
	for (i = 0; i < s->n_timeline && !ret; i++)
		ret = check_timed(s, i, why, len);
	return ret ? ret : check_sums(s, why, len);
}

static void sort_samples(void *d)
{
	sb_samples_sort_timeline(d);
}

const struct sb_kind sb_samples_kind = {
	.group = "scope_bpf/samples",
	.what = "samples",
	.sep = ": ",
	.in_profile = offsetof(struct sb_profile, samples),
	.gate = offsetof(struct sb_samples, n_samples),
	.tables = tables,
	.n_tables = sizeof(tables) / sizeof(tables[0]),
	.max_rows = 1ull << 34,
	.check = check,
	.sort = sort_samples,
};
