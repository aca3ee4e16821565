/* Reads an MPI library's .dynsym with libelf; the file is untrusted, so every size is checked. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "record/sources/mpi_lib.h"
#include "record/sources/mpi_names.h"

/* Open MPI's MPI_COMM_WORLD is this object's address: its handles are pointers. */
#define OMPI_WORLD_SYMBOL "ompi_mpi_comm_world"

bool sb_mpi_lib_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libmpi", 6) && strstr(base, ".so");
}

struct symbols {
	uint64_t mpi[SB_MPI_N_OPS];	/* MPI_X's address */
	uint64_t pmpi[SB_MPI_N_OPS];	/* PMPI_X's address */
	bool ompi;
};

static void note_symbol(struct symbols *s, const char *name, const GElf_Sym *sym)
{
	bool profiling = !strncmp(name, "PMPI_", 5);
	const char *fn;
	unsigned int op;

	if (!strcmp(name, OMPI_WORLD_SYMBOL)) {
		s->ompi = true;
		return;
	}
	if (sym->st_shndx == SHN_UNDEF || !sym->st_value ||
	    (GELF_ST_TYPE(sym->st_info) != STT_FUNC && GELF_ST_TYPE(sym->st_info) != STT_GNU_IFUNC))
		return;
	for (op = 0; op < SB_MPI_N_OPS; op++) {
		fn = sb_mpi_function(op);
		if (strcmp(name + profiling, fn))
			continue;
		if (profiling)
			s->pmpi[op] = sym->st_value;
		else
			s->mpi[op] = sym->st_value;
		return;
	}
}

static int read_dynsym(Elf *elf, struct symbols *s)
{
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr shdr;
	Elf_Data *data;
	GElf_Sym sym;
	size_t i, n;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNSYM || !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			return -EINVAL;
		n = shdr.sh_size / shdr.sh_entsize;
		for (i = 0; i < n; i++) {
			if (!gelf_getsym(data, (int)i, &sym))
				break;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (name)
				note_symbol(s, name, &sym);
		}
		return 0;
	}
	return 0;
}

/* The file offset of an address in a loaded segment; 0 when none holds it. */
static uint64_t file_offset(Elf *elf, uint64_t addr)
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

static bool taken(const struct sb_mpi_lib *lib, uint64_t off, unsigned int before)
{
	unsigned int i;

	for (i = 0; i < before; i++) {
		if (lib->offset[i] == off)
			return true;
	}
	return false;
}

static void choose(Elf *elf, const struct symbols *s, struct sb_mpi_lib *lib)
{
	uint64_t off;
	unsigned int op;

	for (op = 0; op < SB_MPI_N_OPS; op++) {
		off = file_offset(elf, s->mpi[op] ? s->mpi[op] : s->pmpi[op]);
		if (!off || taken(lib, off, op))
			continue;
		lib->offset[op] = off;
		lib->n_probes++;
	}
}

int sb_mpi_lib_read(const char *path, struct sb_mpi_lib *lib)
{
	struct symbols s = { 0 };
	int fd, ret = 0;
	Elf *elf;

	memset(lib, 0, sizeof(*lib));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	ret = read_dynsym(elf, &s);
	if (ret || (!s.mpi[SB_MPI_INIT] && !s.pmpi[SB_MPI_INIT]))
		goto out;
	lib->abi = s.ompi ? 0 : SB_MPI_ABI_MPICH;
	choose(elf, &s, lib);
	ret = 1;
out:
	elf_end(elf);
	close(fd);
	return ret;
}
