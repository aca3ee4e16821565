/* DT_NEEDED entries with libelf; the file is untrusted: libelf checks every size it reads. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include "record/elf_needed.h"

static bool section_needs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr,
			  bool (*match)(const char *name))
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *name;
	GElf_Dyn dyn;
	size_t i, n;

	if (!data || !shdr->sh_entsize)
		return false;
	n = data->d_size / shdr->sh_entsize;
	for (i = 0; i < n && gelf_getdyn(data, (int)i, &dyn); i++) {
		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED)
			continue;
		name = elf_strptr(elf, shdr->sh_link, dyn.d_un.d_val);
		if (name && match(name))
			return true;
	}
	return false;
}

bool sb_elf_needs(const char *path, bool (*match)(const char *name))
{
	Elf_Scn *scn = NULL;
	bool found = false;
	GElf_Shdr shdr;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_DYNAMIC)
				found = section_needs(elf, scn, &shdr, match);
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}
