/* `report --mpi`: MPI calls per operation and region, per rank, imbalance, communication matrix. */
#ifndef SB_RENDER_MPI_REPORT_H
#define SB_RENDER_MPI_REPORT_H

#include <stdio.h>

#include "analysis/mpi.h"
#include "render/report.h"

/*
 * Write r (built from p) as o->format: text (every table), JSON (every table),
 * CSV (the communication matrix, one row per pair of ranks). -EIO on a write error.
 */
int sb_mpi_report_render(FILE *f, const struct sb_profile *p, const struct sb_mpi_report *r,
			 const struct report_opts *o);

#endif
