/*
 * Where the OpenMP probes go: the programs a command will run, and their ELF
 * symbols, read with libelf (the files are untrusted: every size is checked).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/sources/omp_lib.h"
#include "record/sources/omp_names.h"
#include "util/array.h"

/* The probes of one file, gathered before any is attached. */
struct sb_omp_probes {
	struct sb_omp_probe *v;
	size_t n, cap;
};

bool sb_omp_lib_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libgomp.so", 10);
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

/* The op a symbol is probed as, or -1. */
static int symbol_op(const char *name, const GElf_Sym *sym, bool library)
{
	if (sym->st_shndx == SHN_UNDEF || !sym->st_value || GELF_ST_TYPE(sym->st_info) != STT_FUNC)
		return -1;
	if (library)
		return sb_omp_entry_point(name);
	return sb_omp_body_symbol(name) ? SB_OMP_BODY : -1;
}

static bool taken(const struct sb_omp_probes *found, uint64_t offset)
{
	size_t i;

	for (i = 0; i < found->n; i++) {
		if (found->v[i].offset == offset)
			return true;
	}
	return false;
}

static int note_symbol(Elf *elf, const char *name, const GElf_Sym *sym, bool library,
		       struct sb_omp_probes *found)
{
	int op = symbol_op(name, sym, library);
	uint64_t off;

	if (op < 0)
		return 0;
	off = file_offset(elf, sym->st_value);
	/* Aliases (GOMP_parallel_loop_nonmonotonic_dynamic is ..._dynamic): one probe. */
	if (!off || taken(found, off))
		return 0;
	if (sb_array_reserve((void **)&found->v, &found->cap, found->n + 1, sizeof(*found->v)))
		return -ENOMEM;
	found->v[found->n++] = (struct sb_omp_probe){
		.offset = off,
		.cookie = (uint64_t)op | (op == SB_OMP_BODY ? off << SB_OMP_OFFSET_SHIFT : 0),
		.name = name,
	};
	return 0;
}

static int read_symbols(Elf *elf, bool library, struct sb_omp_probes *found)
{
	Elf32_Word want = library ? SHT_DYNSYM : SHT_SYMTAB;
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr shdr;
	Elf_Data *data;
	GElf_Sym sym;
	size_t i, n;
	int ret;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != want || !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			return -EINVAL;
		n = shdr.sh_size / shdr.sh_entsize;
		for (i = 0; i < n; i++) {
			if (!gelf_getsym(data, (int)i, &sym))
				break;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			ret = name ? note_symbol(elf, name, &sym, library, found) : 0;
			if (ret)
				return ret;
		}
		return 0;
	}
	return 0;
}

bool sb_omp_program_path(const char *cmd, char *path, size_t size)
{
	const char *dirs = getenv("PATH"), *end;
	int n;

	if (strchr(cmd, '/'))
		return snprintf(path, size, "%s", cmd) < (int)size;
	for (; dirs && *dirs; dirs = *end ? end + 1 : end) {
		end = strchrnul(dirs, ':');
		/* An empty entry is the current directory. */
		if (end == dirs)
			n = snprintf(path, size, "./%s", cmd);
		else
			n = snprintf(path, size, "%.*s/%s", (int)(end - dirs), dirs, cmd);
		if (n < (int)size && !access(path, X_OK))
			return true;
	}
	return false;
}

static bool needs_libgomp(Elf *elf)
{
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr shdr;
	Elf_Data *data;
	GElf_Dyn dyn;
	size_t i, n;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNAMIC || !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		n = data ? shdr.sh_size / shdr.sh_entsize : 0;
		for (i = 0; i < n && gelf_getdyn(data, (int)i, &dyn); i++) {
			if (dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val);
			if (name && sb_omp_lib_name(name))
				return true;
		}
	}
	return false;
}

bool sb_omp_needs_libgomp(const char *path)
{
	bool needs = false;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		needs = needs_libgomp(elf);
	elf_end(elf);
	close(fd);
	return needs;
}

int sb_omp_read(const char *path, bool library,
		int (*fn)(const struct sb_omp_probe *p, void *ctx), void *ctx)
{
	struct sb_omp_probes found = { 0 };
	int fd, ret = 0;
	size_t i;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		ret = read_symbols(elf, library, &found);
	for (i = 0; i < found.n && !ret; i++)
		ret = fn(&found.v[i], ctx);
	free(found.v);
	elf_end(elf);
	close(fd);
	return ret;
}
