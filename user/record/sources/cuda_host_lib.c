/* Reads libcudart's .dynsym, or a program's .symtab, with libelf; the file is untrusted. */
#include <string.h>

#include "record/elf_syms.h"
#include "record/sources/cuda_host_lib.h"
#include "record/sources/cuda_host_names.h"

bool sb_cuda_host_lib_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libcudart.so", 12);
}

struct reading {
	struct sb_lib_funcs *f;
	bool runtime;		/* cudaLaunchKernel is there */
};

static bool taken(const struct sb_lib_funcs *f, uint64_t off)
{
	uint32_t i;

	for (i = 0; i < f->n; i++) {
		if (f->offset[i] == off)
			return true;
	}
	return false;
}

static int note_symbol(Elf *elf, const char *name, const GElf_Sym *sym, void *ctx)
{
	struct reading *r = ctx;
	uint64_t off;
	size_t i;

	if (sym->st_shndx == SHN_UNDEF || !sym->st_value ||
	    (GELF_ST_TYPE(sym->st_info) != STT_FUNC && GELF_ST_TYPE(sym->st_info) != STT_GNU_IFUNC))
		return 0;
	for (i = 0; i < sb_cuda_host_n_funcs; i++) {
		if (strcmp(name, sb_cuda_host_funcs[i].symbol))
			continue;
		r->runtime |= sb_cuda_host_funcs[i].cookie == SB_CUDA_HOST_LAUNCH;
		off = sb_elf_file_offset(elf, sym->st_value);
		if (!off || taken(r->f, off) || r->f->n >= SB_LIB_MAX_FUNCS)
			return 0;
		r->f->offset[r->f->n] = off;
		r->f->cookie[r->f->n] = sb_cuda_host_funcs[i].cookie;
		r->f->name[r->f->n++] = sb_cuda_host_funcs[i].symbol;
		return 0;
	}
	return 0;
}

int sb_cuda_host_lib_read(const char *path, bool program, struct sb_lib_funcs *f)
{
	struct reading r = { .f = f };
	int ret;

	f->n = 0;
	ret = sb_elf_file_symbols(path, program ? SHT_SYMTAB : SHT_DYNSYM, note_symbol, &r);
	if (ret)
		return ret;
	if (!r.runtime)
		f->n = 0;
	return r.runtime;
}
