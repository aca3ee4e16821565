/* Reads an MPI library's .dynsym with libelf; the file is untrusted, so every size is checked. */
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "record/elf_syms.h"
#include "record/sources/mpi_lib.h"
#include "record/sources/mpi_names.h"

/* Open MPI's MPI_COMM_WORLD is this object's address: its handles are pointers. */
#define OMPI_WORLD_SYMBOL "ompi_mpi_comm_world"

/*
 * Open MPI's datatype handles point to objects whose size field (a size_t)
 * sits after a 16-byte object header and 8 bytes of flags, id and bitset
 * (opal_datatype_t in Open MPI 4.1). A library is trusted with that only
 * where its own predefined datatypes, as initialized in its file, hold there
 * the sizes these types have on every 64-bit Linux ABI; one whose size is not
 * its alignment (double complex) tells size from alignment. A debug build
 * (a longer header) or another layout fails this: sizes stay unknown.
 */
#define OMPI_TYPE_SIZE_AT 24
static const struct {
	const char *symbol;
	uint64_t size;
} ompi_types[] = {
	{ "ompi_mpi_char", 1 },
	{ "ompi_mpi_short", 2 },
	{ "ompi_mpi_int", 4 },
	{ "ompi_mpi_long_long_int", 8 },
	{ "ompi_mpi_double", 8 },
	{ "ompi_mpi_c_double_complex", 16 },
};
#define OMPI_TYPES (sizeof(ompi_types) / sizeof(ompi_types[0]))

bool sb_mpi_lib_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libmpi", 6) && strstr(base, ".so");
}

struct symbols {
	uint64_t mpi[SB_MPI_N_OPS];	/* MPI_X's address */
	uint64_t pmpi[SB_MPI_N_OPS];	/* PMPI_X's address */
	GElf_Sym ompi_type[OMPI_TYPES];	/* Open MPI's predefined datatype objects */
	bool ompi;
};

static void note_ompi_type(struct symbols *s, const char *name, const GElf_Sym *sym)
{
	unsigned int i;

	if (sym->st_shndx == SHN_UNDEF || GELF_ST_TYPE(sym->st_info) != STT_OBJECT)
		return;
	for (i = 0; i < OMPI_TYPES; i++) {
		if (!strcmp(name, ompi_types[i].symbol))
			s->ompi_type[i] = *sym;
	}
}

static int note_symbol(Elf *elf, const char *name, const GElf_Sym *sym, void *ctx)
{
	bool profiling = !strncmp(name, "PMPI_", 5);
	struct symbols *s = ctx;
	const char *fn;
	unsigned int op;

	(void)elf;
	if (!strcmp(name, OMPI_WORLD_SYMBOL)) {
		s->ompi = true;
		return 0;
	}
	if (!strncmp(name, "ompi_mpi_", 9)) {
		note_ompi_type(s, name, sym);
		return 0;
	}
	if (sym->st_shndx == SHN_UNDEF || !sym->st_value ||
	    (GELF_ST_TYPE(sym->st_info) != STT_FUNC && GELF_ST_TYPE(sym->st_info) != STT_GNU_IFUNC))
		return 0;
	for (op = 0; op < SB_MPI_N_OPS; op++) {
		fn = sb_mpi_function(op);
		if (strcmp(name + profiling, fn))
			continue;
		if (profiling)
			s->pmpi[op] = sym->st_value;
		else
			s->mpi[op] = sym->st_value;
		return 0;
	}
	return 0;
}

/* The size_t at OMPI_TYPE_SIZE_AT in the object sym as the file initializes it; -1: none. */
static int64_t ompi_initial_size(Elf *elf, const GElf_Sym *sym)
{
	uint64_t off = sb_elf_file_offset(elf, sym->st_value), size;
	Elf_Data *d;

	if (!off || sym->st_size < OMPI_TYPE_SIZE_AT + sizeof(size) ||
	    !sb_elf_file_offset(elf, sym->st_value + OMPI_TYPE_SIZE_AT + sizeof(size) - 1))
		return -1;
	d = elf_getdata_rawchunk(elf, (int64_t)(off + OMPI_TYPE_SIZE_AT), sizeof(size),
				 ELF_T_BYTE);
	if (!d || !d->d_buf || d->d_size != sizeof(size))
		return -1;
	memcpy(&size, d->d_buf, sizeof(size));
	return size > INT64_MAX ? -1 : (int64_t)size;
}

/* Where Open MPI's datatype objects keep their size, as an SB_MPI_ABI_* field; 0: unknown. */
static uint32_t ompi_type_size_abi(Elf *elf, const struct symbols *s)
{
	unsigned int i;

	for (i = 0; i < OMPI_TYPES; i++) {
		if (ompi_initial_size(elf, &s->ompi_type[i]) != (int64_t)ompi_types[i].size)
			return 0;
	}
	return OMPI_TYPE_SIZE_AT << SB_MPI_ABI_TYPE_SIZE_SHIFT;
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
		off = sb_elf_file_offset(elf, s->mpi[op] ? s->mpi[op] : s->pmpi[op]);
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
	ret = sb_elf_open(path, &elf, &fd);
	if (ret)
		return ret;
	if (!elf)
		goto out;
	ret = sb_elf_each_symbol(elf, SHT_DYNSYM, note_symbol, &s);
	if (ret || (!s.mpi[SB_MPI_INIT] && !s.pmpi[SB_MPI_INIT]))
		goto out;
	lib->abi = s.ompi ? SB_MPI_ABI_OMPI | ompi_type_size_abi(elf, &s) : SB_MPI_ABI_MPICH;
	choose(elf, &s, lib);
	ret = 1;
out:
	sb_elf_close(elf, fd);
	return ret;
}

bool sb_mpi_lib_sizes_known(const struct sb_mpi_lib *lib)
{
	return (lib->abi & SB_MPI_ABI_MPICH) ||
	       ((lib->abi >> SB_MPI_ABI_TYPE_SIZE_SHIFT) & SB_MPI_ABI_TYPE_SIZE_MAX);
}
