/* The shared objects an ELF file names as needed (DT_NEEDED). */
#ifndef SB_ELF_NEEDED_H
#define SB_ELF_NEEDED_H

#include <stdbool.h>

/*
 * Whether the ELF file at path names a needed object for which match(name)
 * holds. The file is untrusted: 0 when it is not ELF, has no dynamic section
 * or cannot be read.
 */
bool sb_elf_needs(const char *path, bool (*match)(const char *name));

#endif
