/* Handles of the MPI this library is built for, named as the uprobe path names them (abi.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "abi.h"
#include "pmpi.h"

#if defined(OPEN_MPI)
#define TYPE_SIZE_AT 24		/* opal_datatype_t's size, checked as user/record/sources/mpi_lib.c does */
#define TYPE_SIZE_MAX (1ULL << 32)

static size_t size_at;		/* 0: the layout did not check out, sizes unknown */
static pthread_once_t size_once = PTHREAD_ONCE_INIT;

/* Trust the offset only where the library's predefined datatypes hold their sizes there. */
static void check_layout(void)
{
	static const struct { const char *symbol; size_t size; } known[] = {
		{ "ompi_mpi_char", 1 }, { "ompi_mpi_short", 2 }, { "ompi_mpi_int", 4 },
		{ "ompi_mpi_long_long_int", 8 }, { "ompi_mpi_double", 8 },
		{ "ompi_mpi_c_double_complex", 16 },
	};
	const char *p;
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		p = dlsym(RTLD_DEFAULT, known[i].symbol);
		if (!p || *(const size_t *)(p + TYPE_SIZE_AT) != known[i].size)
			return;
	}
	size_at = TYPE_SIZE_AT;
}

int32_t pmpi_comm(MPI_Comm comm)
{
	(void)comm;
	return -1;
}

uint64_t pmpi_handle(MPI_Request r)
{
	return (uint64_t)(uintptr_t)r;
}

int64_t pmpi_type_size(MPI_Datatype type)
{
	size_t size;

	pthread_once(&size_once, check_layout);
	if (!size_at || !type)
		return -1;
	size = *(const size_t *)((const char *)type + size_at);
	return size > TYPE_SIZE_MAX ? -1 : (int64_t)size;
}
#else
int32_t pmpi_comm(MPI_Comm comm)
{
	return (int32_t)comm;
}

uint64_t pmpi_handle(MPI_Request r)
{
	return (uint32_t)r;
}

int64_t pmpi_type_size(MPI_Datatype type)
{
	return sb_mpich_type_size((uint32_t)type);
}
#endif
