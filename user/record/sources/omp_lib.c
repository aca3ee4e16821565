/*
 * Where the OpenMP probes go: the programs a command will run, and their ELF
 * symbols, read with libelf (the files are untrusted: every size is checked).
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/elf_needed.h"
#include "record/elf_syms.h"
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
	off = sb_elf_file_offset(elf, sym->st_value);
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

struct reading {
	bool library;
	struct sb_omp_probes *found;
};

static int on_symbol(Elf *elf, const char *name, const GElf_Sym *sym, void *ctx)
{
	struct reading *r = ctx;

	return note_symbol(elf, name, sym, r->library, r->found);
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

bool sb_omp_needs_libgomp(const char *path)
{
	return sb_elf_needs(path, sb_omp_lib_name);
}

int sb_omp_read(const char *path, bool library,
		int (*fn)(const struct sb_omp_probe *p, void *ctx), void *ctx)
{
	struct sb_omp_probes found = { 0 };
	size_t i;
	int fd, ret;
	Elf *elf;

	ret = sb_elf_open(path, &elf, &fd);
	if (ret)
		return ret;
	if (elf)
		ret = sb_elf_each_symbol(elf, library ? SHT_DYNSYM : SHT_SYMTAB, on_symbol,
					 &(struct reading){ library, &found });
	/* Before the file is closed: the names are its strings. */
	for (i = 0; i < found.n && !ret; i++)
		ret = fn(&found.v[i], ctx);
	free(found.v);
	sb_elf_close(elf, fd);
	return ret;
}
