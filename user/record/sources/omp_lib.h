/* Where the OpenMP probes go in one ELF file: libgomp's entry points, or outlined bodies. */
#ifndef SB_OMP_LIB_H
#define SB_OMP_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_omp_probe {
	uint64_t offset;	/* file offset of the function's first instruction */
	uint64_t cookie;	/* enum sb_omp_op | offset << SB_OMP_OFFSET_SHIFT for bodies */
	const char *name;	/* the symbol, for messages: valid while the file is read */
};

/* Whether a mapped file's name says it is gcc's OpenMP runtime (libgomp.so*). */
bool sb_omp_lib_name(const char *path);

/*
 * The file a command name runs, as execvp finds it: a name with a slash as it
 * is, else the first executable one in $PATH. False when there is none.
 */
bool sb_omp_program_path(const char *cmd, char *path, size_t size);

/* Whether the ELF file at path needs libgomp (DT_NEEDED): it is started with it mapped. */
bool sb_omp_needs_libgomp(const char *path);

/*
 * The probes of the file at path, one per address: libgomp's exported entry
 * points (.dynsym) when library, else the outlined bodies in its .symtab
 * (none when stripped). Each is passed to fn with ctx; the first nonzero
 * return ends the walk and is returned. 0 when done, -errno when the file
 * cannot be read, -ENOMEM.
 */
int sb_omp_read(const char *path, bool library,
		int (*fn)(const struct sb_omp_probe *p, void *ctx), void *ctx);

#endif
