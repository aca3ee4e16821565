/* MPI call regions grouped by function: which function each region calls, and its details. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi_fns.h"

/* The function named fn, added when new (with region as its first). */
static int32_t function(struct sb_mpi_fns *f, const char *fn, uint32_t region)
{
	uint32_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->name[i], fn))
			return (int32_t)i;
	strcpy(f->name[f->n], fn);
	f->first[f->n] = region;
	return (int32_t)f->n++;
}

static int fill(struct sb_mpi_fns *f, const struct sb_profile *p)
{
	char fn[SB_MPI_FN_MAX], detail[SB_MPI_DETAIL_MAX];
	struct sb_mpi_call c;
	size_t i;

	for (i = 0; i < p->n_regions; i++) {
		f->of[i] = -1;
		if (sb_mpi_parse(p->regions[i].name, &c))
			continue;
		sb_mpi_call_function(&c, fn);
		sb_mpi_call_details(&c, detail);
		f->detail[i] = strdup(detail);
		if (!f->detail[i])
			return -ENOMEM;
		f->of[i] = function(f, fn, (uint32_t)i);
		f->n_calls++;
	}
	return 0;
}

int sb_mpi_fns_build(struct sb_mpi_fns *f, const struct sb_profile *p)
{
	/* At most one function per region: no growing. */
	size_t len = p->n_regions ? p->n_regions : 1;
	int r = -ENOMEM;

	*f = (struct sb_mpi_fns){ .n_regions = p->n_regions };
	f->of = malloc(len * sizeof(*f->of));
	f->first = malloc(len * sizeof(*f->first));
	f->name = malloc(len * sizeof(*f->name));
	f->detail = calloc(len, sizeof(*f->detail));
	if (f->of && f->first && f->name && f->detail)
		r = fill(f, p);
	if (r)
		sb_mpi_fns_free(f);
	return r;
}

void sb_mpi_fns_free(struct sb_mpi_fns *f)
{
	size_t i;

	for (i = 0; f->detail && i < f->n_regions; i++)
		free(f->detail[i]);
	free(f->of);
	free(f->first);
	free(f->name);
	free(f->detail);
	*f = (struct sb_mpi_fns){ 0 };
}
