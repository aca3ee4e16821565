/* Symbols and addresses of an ELF file opened with libelf (MPI and OpenMP libraries, programs). */
#ifndef SB_ELF_SYMS_H
#define SB_ELF_SYMS_H

#include <gelf.h>
#include <libelf.h>
#include <stdint.h>

/*
 * Call fn for every named symbol of the first section of type (SHT_DYNSYM,
 * SHT_SYMTAB) until it returns non-zero, which is returned. -EINVAL when that
 * section's data cannot be read; 0 when the file has no such section.
 */
int sb_elf_each_symbol(Elf *elf, Elf32_Word type,
		       int (*fn)(Elf *elf, const char *name, const GElf_Sym *sym, void *ctx),
		       void *ctx);

/*
 * Open the file at path to read it with libelf: 0 with *elf (NULL when it is
 * no ELF file) and its descriptor *fd, both for sb_elf_close(); or -errno.
 */
int sb_elf_open(const char *path, Elf **elf, int *fd);
void sb_elf_close(Elf *elf, int fd);

/*
 * sb_elf_each_symbol over the ELF file at path, opened and closed here. 0, fn's
 * first non-zero return, -errno when the file cannot be opened, -EINVAL when
 * it cannot be read; a file that is no ELF file has no symbols (0).
 */
int sb_elf_file_symbols(const char *path, Elf32_Word type,
			int (*fn)(Elf *elf, const char *name, const GElf_Sym *sym, void *ctx),
			void *ctx);

/* The file offset of an address in a loaded segment; 0 when none holds it. */
uint64_t sb_elf_file_offset(Elf *elf, uint64_t addr);

#endif
