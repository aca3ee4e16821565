/* Symbol tables and segments with libelf; the files are untrusted: libelf checks every size. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

#include "record/elf_syms.h"

int sb_elf_each_symbol(Elf *elf, Elf32_Word type,
		       int (*fn)(Elf *elf, const char *name, const GElf_Sym *sym, void *ctx),
		       void *ctx)
{
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr shdr;
	Elf_Data *data;
	GElf_Sym sym;
	size_t i, n;
	int ret;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != type || !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			return -EINVAL;
		n = shdr.sh_size / shdr.sh_entsize;
		for (i = 0; i < n; i++) {
			if (!gelf_getsym(data, (int)i, &sym))
				break;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			ret = name ? fn(elf, name, &sym, ctx) : 0;
			if (ret)
				return ret;
		}
		return 0;
	}
	return 0;
}

int sb_elf_open(const char *path, Elf **elf, int *fd)
{
	*elf = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (*elf && elf_kind(*elf) != ELF_K_ELF) {
		elf_end(*elf);
		*elf = NULL;
	}
	return 0;
}

void sb_elf_close(Elf *elf, int fd)
{
	elf_end(elf);
	close(fd);
}

int sb_elf_file_symbols(const char *path, Elf32_Word type,
			int (*fn)(Elf *elf, const char *name, const GElf_Sym *sym, void *ctx),
			void *ctx)
{
	int fd, ret;
	Elf *elf;

	ret = sb_elf_open(path, &elf, &fd);
	if (ret)
		return ret;
	if (elf)
		ret = sb_elf_each_symbol(elf, type, fn, ctx);
	sb_elf_close(elf, fd);
	return ret;
}

uint64_t sb_elf_file_offset(Elf *elf, uint64_t addr)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_filesz)
			return addr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}
