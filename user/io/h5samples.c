/* Write and read the sampled stacks of a profile as columns under /scope_bpf/samples/, trusting nothing read. */
#include <errno.h>
#include <string.h>

#include "io/h5samples.h"
#include "io/h5table.h"

/* ---- the rules ---- */

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

int sb_h5_check_samples(const struct sb_profile *p, char *why, size_t len)
{
	const struct sb_samples *s = &p->samples;
	size_t i;
	int ret;

	ret = check_stacks(s, why, len);
	if (!ret)
		ret = check_paths(s, why, len);
	if (!ret)
		ret = sb_table_check_refs(&sb_samples_kind, s, p, why, len);
	for (i = 0; i < s->n_samples && !ret; i++)
		ret = check_row(s, i, why, len);
	for (i = 0; i < s->n_timeline && !ret; i++)
		ret = check_timed(s, i, why, len);
	return ret ? ret : check_sums(s, why, len);
}

/* ---- writing and reading ---- */

int sb_h5_write_samples(hid_t file, const char *path, const struct sb_profile *p,
			struct sb_error *err)
{
	struct sb_h5w w = { .path = path, .err = err, .file = file };
	char why[256];

	if (!p->samples.n_samples)
		return 0;
	if (sb_h5_check_samples(p, why, sizeof(why)))
		return sb_fail(err, EINVAL, "%s: cannot write invalid samples: %s", path, why);
	return sb_h5_write_kind(&w, &sb_samples_kind, &p->samples);
}

int sb_h5_read_samples(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err)
{
	struct sb_h5_section r = { file, path, err, 0 };
	char why[256];
	hsize_t size;
	int ret;

	memset(&p->samples, 0, sizeof(p->samples));
	if (!sb_h5_kind_present(file, &sb_samples_kind))
		return 0;
	if (H5Fget_filesize(file, &size) < 0)
		return sb_h5_corrupt(&r, "cannot read the file size");
	r.file_size = size;
	ret = sb_h5_read_kind(&r, &sb_samples_kind, &p->samples);
	if (!ret && sb_h5_check_samples(p, why, sizeof(why)))
		ret = sb_h5_corrupt(&r, "/scope_bpf/samples: %s", why);
	if (ret)
		sb_samples_free(&p->samples);
	return ret;
}
