/* The CUDA activity of a profile as columns under /scope_bpf/cuda/: written, read, checked. */
#include <errno.h>
#include <string.h>

#include "io/h5cuda.h"
#include "io/h5table.h"

/* ---- the rules ---- */

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

int sb_h5_check_cuda(const struct sb_profile *p, char *why, size_t len)
{
	size_t i;
	int ret;

	ret = sb_table_check_refs(&sb_cuda_kind, &p->cuda, p, why, len);
	for (i = 0; i < p->cuda.n_acts && !ret; i++)
		ret = check_act(p, i, why, len);
	return ret;
}

/* ---- writing and reading ---- */

int sb_h5_write_cuda(hid_t file, const char *path, const struct sb_profile *p,
		     struct sb_error *err)
{
	struct sb_h5w w = { .path = path, .err = err, .file = file };
	char why[256];

	if (!p->cuda.n_acts)
		return 0;
	if (sb_h5_check_cuda(p, why, sizeof(why)))
		return sb_fail(err, EINVAL, "%s: cannot write invalid CUDA activity: %s", path, why);
	return sb_h5_write_kind(&w, &sb_cuda_kind, &p->cuda);
}

int sb_h5_read_cuda(hid_t file, const char *path, struct sb_profile *p, struct sb_error *err)
{
	struct sb_h5_section r = { file, path, err, 0 };
	char why[256];
	hsize_t size;
	int ret;

	memset(&p->cuda, 0, sizeof(p->cuda));
	if (!sb_h5_kind_present(file, &sb_cuda_kind))
		return 0;
	if (H5Fget_filesize(file, &size) < 0)
		return sb_h5_corrupt(&r, "cannot read the file size");
	r.file_size = size;
	ret = sb_h5_read_kind(&r, &sb_cuda_kind, &p->cuda);
	if (!ret && sb_h5_check_cuda(p, why, sizeof(why)))
		ret = sb_h5_corrupt(&r, "/scope_bpf/cuda/%s", why);
	if (ret)
		sb_cuda_data_free(&p->cuda);
	return ret;
}
