/* Reads .note.stapsdt notes with libelf; the file is untrusted, so every size is checked. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "record/elf_syms.h"
#include "record/probes.h"

#define STAPSDT_TYPE 3

/* Whether the len bytes at s start with want and its terminating 0. */
static int field_is(const char *s, size_t len, const char *want)
{
	size_t n = strlen(want);

	return len > n && !memcmp(s, want, n + 1);
}

/*
 * A note's description: pc, base, semaphore (address-sized each), then
 * provider\0name\0args\0. name NULL: any probe of the provider; args NULL:
 * wherever its arguments are.
 */
static int note_is_ours(const char *desc, size_t len, size_t addr_size, const char *provider,
			const char *name, const char *args)
{
	size_t skip = 3 * addr_size;

	if (len <= skip || !field_is(desc + skip, len - skip, provider))
		return 0;
	if (!name)
		return 1;
	skip += strlen(provider) + 1;
	if (!field_is(desc + skip, len - skip, name))
		return 0;
	if (!args)
		return 1;
	skip += strlen(name) + 1;
	return field_is(desc + skip, len - skip, args);
}

/* Where a note's probe and semaphore are in the file, for attaching without libbpf's USDT. */
struct site_scan {
	Elf *elf;
	uint64_t stapsdt_base;	/* where .stapsdt.base is: a note's base says where it was */
	struct sb_probe_site *sites;
	int n, max;
};

static uint64_t desc_addr(const char *desc, size_t addr_size, int i)
{
	uint64_t v = 0;
	uint32_t v32;

	if (addr_size == 4) {
		memcpy(&v32, desc + i * 4, 4);
		return v32;
	}
	memcpy(&v, desc + i * 8, 8);
	return v;
}

/* Note one site; a probe outside the file's loaded bytes is not one to attach. */
static void add_site(struct site_scan *sc, const char *desc, size_t addr_size)
{
	uint64_t pc = desc_addr(desc, addr_size, 0), base = desc_addr(desc, addr_size, 1);
	uint64_t sema = desc_addr(desc, addr_size, 2);
	struct sb_probe_site *s;

	if (sc->n >= sc->max)
		return;
	if (sc->stapsdt_base && base)
		pc += sc->stapsdt_base - base;
	s = &sc->sites[sc->n];
	s->offset = sb_elf_file_offset(sc->elf, pc);
	s->ref_ctr_offset = sema ? sb_elf_file_offset(sc->elf, sema) : 0;
	if (s->offset && (!sema || s->ref_ctr_offset))
		sc->n++;
}

static int count_in_section(Elf_Scn *scn, size_t addr_size, const char *provider,
			    const char *probe, const char *args, struct site_scan *sc)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nhdr;
	int n = 0, ours;

	if (!data)
		return 0;
	while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		if (nhdr.n_type != STAPSDT_TYPE || nhdr.n_namesz != 8 ||
		    memcmp((char *)data->d_buf + name_off, "stapsdt", 8))
			continue;
		ours = note_is_ours((char *)data->d_buf + desc_off, nhdr.n_descsz, addr_size,
				    provider, probe, args);
		if (ours && sc)
			add_site(sc, (char *)data->d_buf + desc_off, addr_size);
		n += ours;
	}
	return n;
}

/* The address of .stapsdt.base, which a prelinked file's notes are moved by; 0 when none. */
static uint64_t stapsdt_base(Elf *elf, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	const char *name;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && !strcmp(name, ".stapsdt.base"))
			return shdr.sh_addr;
	}
	return 0;
}

static int scan(const char *path, const char *provider, const char *probe, const char *args,
		struct site_scan *sc)
{
	size_t shstrndx, addr_size;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	const char *name;
	int fd, n = 0;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	addr_size = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	if (sc) {
		sc->elf = elf;
		sc->stapsdt_base = stapsdt_base(elf, shstrndx);
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && !strcmp(name, ".note.stapsdt"))
			n += count_in_section(scn, addr_size, provider, probe, args, sc);
	}
out:
	elf_end(elf);
	close(fd);
	return n;
}

int sb_count_probes_with_args(const char *path, const char *provider, const char *probe,
			      const char *args)
{
	return scan(path, provider, probe, args, NULL);
}

int sb_probe_sites(const char *path, const char *provider, const char *probe, const char *args,
		   struct sb_probe_site *sites, int max)
{
	struct site_scan sc = { .sites = sites, .max = max };
	int ret = scan(path, provider, probe, args, &sc);

	return ret < 0 ? ret : sc.n;
}
