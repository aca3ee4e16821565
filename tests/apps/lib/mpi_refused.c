/*
 * A library named as MPI's (libmpi_refused.so) whose MPI_Init begins with a
 * trap: the kernel refuses a uprobe there while a process maps the file, so
 * probing it fails (tests/integration/test_mpi_calls.c: the refusal must name
 * this file). Nothing calls it.
 */
#include "trap.h"

__asm__(".text\n"
	".globl MPI_Init\n"
	".type MPI_Init, %function\n"
	"MPI_Init:\n"
	"\t" TRAP "\n"
	"\tret\n"
	".size MPI_Init, .-MPI_Init\n");
