/*
 * Test app: an MPI program annotated with NVTX, recorded by
 * tests/integration/test_annotations.c under `mpiexec -n 2`. On each rank a
 * tracer must see "step" (a marker) STEPS times, each holding one "exchange"
 * (an NVTX range), each holding one MPI_Allreduce (traced by uprobes): the
 * ranges nest with markers and MPI calls in one stream.
 */
#include <mpi.h>
#include <nvtx3/nvToolsExt.h>

#include "busy.h"
#include "scope_bpf.h"

#define STEPS 3

int main(int argc, char **argv)
{
	double mine = 1, sum;
	int i;

	MPI_Init(&argc, &argv);
	for (i = 0; i < STEPS; i++) {
		SCOPE_BPF_REGION("step") {
			nvtxRangePushA("exchange");
			busy_ns(20000);
			MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			nvtxRangePop();
		}
	}
	MPI_Finalize();
	return 0;
}
