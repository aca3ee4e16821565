/* The CUDA runtime's functions probed on the host, found in libcudart's dynamic symbol table. */
#ifndef SB_CUDA_HOST_LIB_H
#define SB_CUDA_HOST_LIB_H

#include <stdbool.h>

#include "record/sources/lib_probes.h"

/* Whether a mapped file's name says it is the CUDA runtime (libcudart.so*). */
bool sb_cuda_host_lib_name(const char *path);

/*
 * The functions of sb_cuda_host_funcs in the ELF file at path, one probe per
 * address (an alias is probed once): those a library exports (.dynsym), or,
 * in a program, those of the runtime linked into it (.symtab: nvcc links
 * libcudart_static by default; none when stripped). Returns 1 for a CUDA
 * runtime (cudaLaunchKernel is there), 0 for any other file, -errno when it
 * cannot be read.
 */
int sb_cuda_host_lib_read(const char *path, bool program, struct sb_lib_funcs *f);

#endif
