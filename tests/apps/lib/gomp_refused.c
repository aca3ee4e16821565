/*
 * A library named as OpenMP's (libgomp.so.refused) whose GOMP_parallel begins
 * with a trap: the kernel refuses a uprobe there while a process maps the
 * file, so the OpenMP source cannot probe it (tests/integration/test_omp.c:
 * the recording must say so and exit 3). Nothing calls it.
 */
#include "trap.h"

__asm__(".text\n"
	".globl GOMP_parallel\n"
	".type GOMP_parallel, %function\n"
	"GOMP_parallel:\n"
	"\t" TRAP "\n"
	"\tret\n"
	".size GOMP_parallel, .-GOMP_parallel\n");
