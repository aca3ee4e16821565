/*
 * Symbolization with elfutils. Each mapped file is one module, opened at most once in
 * its own Dwfl at bias 0, so Dwfl addresses are ELF virtual addresses: the per-process
 * part is only a table of mappings with their load bias, which forks copy and ASLR
 * cannot multiply. A module is opened lazily, at the first address in it, and only if
 * the file on disk is still the one that was mapped at snapshot time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "record/symbols/kallsyms.h"
#include "record/symbols/symbolize.h"
#include "util/utf8.h"

#define BUILD_ID_MAX 64
#define UNKNOWN_MODULE "[unknown]"
#define KERNEL_MODULE "[kernel]"

/* Enough of a file's identity to notice it was replaced or rewritten in place. */
struct file_id {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct elf_load {
	uint64_t offset, vaddr, filesz;
	bool exec;
};

/* What a snapshot records of a file: enough to place it and to recognise it later. */
struct elf_facts {
	struct elf_load *loads;
	size_t n_loads;
	uint64_t lo, hi;	/* span of the PT_LOAD segments, as libdwfl lays it out */
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
};

enum module_state { MOD_UNOPENED, MOD_OPEN, MOD_STALE };

/* Code of one subprogram, in DWARF addresses; die stays valid while the Dwfl is open. */
struct subprogram_range {
	Dwarf_Addr lo, hi;
	Dwarf_Die die;
};

/* Code of one compilation unit, in DWARF addresses. */
struct unit_range {
	Dwarf_Addr lo, hi;
	Dwarf_Die cu;
};

/* The subprograms of one compilation unit, sorted by address. */
struct cu_index {
	struct subprogram_range *ranges;
	size_t n;
};

/* A function symbol in Dwfl addresses; name points into the module's ELF data. */
struct msym {
	uint64_t addr, size;
	const char *name;
	int rank;		/* lower is preferred among aliases */
};

struct module {
	char *path;		/* as mapped, reopened at symbolization */
	char *name;		/* interned, sanitized path shown in frames */
	struct file_id id;
	bool readable;		/* the snapshot could read the file's ELF headers */
	struct elf_facts elf;
	enum module_state state;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;	/* Dwfl address minus ELF virtual address */
	struct msym *syms;	/* sorted by address, one per address */
	size_t n_syms;
	struct sb_hashmap cu_map;	/* (unit DIE offset, 0) -> index in cus */
	struct cu_index *cus;
	size_t n_cus, cap_cus;
	bool units_indexed;	/* units: built when .debug_aranges missed an address */
	struct unit_range *units;
	size_t n_units;
};

struct pmap {
	uint64_t start, end;
	uint64_t bias;		/* process address minus ELF virtual address */
	uint32_t module;
};

struct proc {
	struct pmap *cur;	/* latest snapshot, sorted, disjoint */
	size_t n_cur;
	struct pmap *old;	/* dropped by later snapshots, oldest first */
	size_t n_old;
};

struct sb_symbolizer {
	struct module **modules;
	size_t n_modules, cap_modules;
	struct sb_hashmap module_index;	/* (dev, inode) -> latest module for that file */
	struct sb_hashmap procs;	/* (tgid, 0) -> struct proc * */
	struct sb_hashmap strings;	/* two hashes of a string -> char * */
	struct sb_hashmap cache;	/* (module << 1 | return, vaddr) -> pool first << 8 | n */
	struct sb_frame_sym *pool;
	size_t n_pool, cap_pool;
	char *empty, *unknown, *kernel;	/* interned once: unknown frames are common */
	struct sb_kallsyms kallsyms;
};

static char *debuginfo_path;

/* find_elf only runs for modules reported by build id, after the file on disk changed. */
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* ---- Interned strings: names repeat across addresses, and callers keep the pointers. */

static uint64_t hash_str(const char *p, uint64_t h, uint64_t mul)
{
	while (*p)
		h = (h ^ (unsigned char)*p++) * mul;
	return h;
}

/* A sanitized copy of str owned by s, shared with every equal string; NULL on ENOMEM. */
static char *intern(struct sb_symbolizer *s, const char *str)
{
	uint64_t h1, h2, *v, i;
	char *copy = strdup(str ? str : "");

	if (!copy)
		return NULL;
	sb_utf8_sanitize(copy);
	h1 = hash_str(copy, 0xcbf29ce484222325ULL, 0x100000001b3ULL);
	h2 = hash_str(copy, 0x84222325cbf29ce4ULL, 0x9e3779b97f4a7c15ULL);
	/* Two different strings with equal hashes take the next free b. */
	for (i = 0;; i++) {
		v = sb_hashmap_get(&s->strings, h1, h2 + i);
		if (!v)
			break;
		if (!strcmp((char *)(uintptr_t)*v, copy)) {
			free(copy);
			return (char *)(uintptr_t)*v;
		}
	}
	if (sb_hashmap_put(&s->strings, h1, h2 + i, (uintptr_t)copy)) {
		free(copy);
		return NULL;
	}
	return copy;
}

/* ---- ELF facts, read with libelf at snapshot time and again to verify a file. */

static void read_build_id(Elf *elf, const GElf_Phdr *ph, struct elf_facts *f)
{
	Elf_Data *data;
	GElf_Nhdr nhdr;
	size_t off = 0, name_off, desc_off;

	data = elf_getdata_rawchunk(elf, ph->p_offset, ph->p_filesz,
				    ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
	if (!data)
		return;
	while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != sizeof(ELF_NOTE_GNU) ||
		    memcmp((char *)data->d_buf + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) ||
		    !nhdr.n_descsz || nhdr.n_descsz > BUILD_ID_MAX)
			continue;
		memcpy(f->build_id, (char *)data->d_buf + desc_off, nhdr.n_descsz);
		f->build_id_len = nhdr.n_descsz;
		return;
	}
}

static int add_load(struct elf_facts *f, const GElf_Phdr *ph, size_t *cap)
{
	struct elf_load *l;
	uint64_t lo = ph->p_align > 1 ? ph->p_vaddr & -ph->p_align : ph->p_vaddr;

	if (sb_array_reserve((void **)&f->loads, cap, f->n_loads + 1, sizeof(*l)))
		return -ENOMEM;
	l = &f->loads[f->n_loads];
	l->offset = ph->p_offset;
	l->vaddr = ph->p_vaddr;
	l->filesz = ph->p_filesz;
	l->exec = ph->p_flags & PF_X;
	if (!f->n_loads++)
		f->lo = lo;
	if (ph->p_vaddr + ph->p_memsz > f->hi)
		f->hi = ph->p_vaddr + ph->p_memsz;
	return 0;
}

/* Program headers and build id of the ELF file open at fd; loads only if want_loads. */
static int read_facts(int fd, struct elf_facts *f, bool want_loads)
{
	size_t phnum, i, cap = 0;
	GElf_Phdr ph;
	GElf_Ehdr eh;
	int ret = 0;
	Elf *elf;

	memset(f, 0, sizeof(*f));
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum)) {
		ret = -ENOEXEC;
		goto out;
	}
	for (i = 0; i < phnum && !ret; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_NOTE && !f->build_id_len)
			read_build_id(elf, &ph, f);
		else if (ph.p_type == PT_LOAD && want_loads)
			ret = add_load(f, &ph, &cap);
	}
	if (!ret && want_loads && !f->n_loads)
		ret = -ENOEXEC;
out:
	elf_end(elf);
	if (ret) {
		free(f->loads);
		memset(f, 0, sizeof(*f));
	}
	return ret;
}

static void file_id_of(const struct stat *st, struct file_id *id)
{
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime = st->st_mtim;
}

static bool file_id_equal(const struct file_id *a, const struct file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* ---- Modules: one per mapped file, found again by (dev, inode) and identity. */

static void module_free(struct module *m)
{
	size_t i;

	if (!m)
		return;
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->syms);
	for (i = 0; i < m->n_cus; i++)
		free(m->cus[i].ranges);
	free(m->cus);
	free(m->units);
	sb_hashmap_free(&m->cu_map);
	free(m->elf.loads);
	free(m->path);
	free(m);
}

/*
 * Path under which the snapshot reads the file: through the process's root while it
 * lives, so a process in another mount namespace yields the file it really mapped.
 */
static void snapshot_path(uint32_t tgid, const char *path, char *buf, size_t size,
			  struct stat *st, bool *ok)
{
	int n = snprintf(buf, size, "/proc/%u/root%s", tgid, path);

	*ok = n > 0 && (size_t)n < size && !stat(buf, st);
	if (*ok)
		return;
	snprintf(buf, size, "%s", path);
	*ok = !stat(buf, st);
}

static int new_module(struct sb_symbolizer *s, const struct sb_map *map, const char *at,
		      const struct stat *st, bool stat_ok, struct module **out)
{
	struct module *m = calloc(1, sizeof(*m));
	int fd;

	if (!m)
		return -ENOMEM;
	sb_hashmap_init(&m->cu_map);
	m->path = strdup(map->path);
	m->name = intern(s, map->path);
	if (!m->path || !m->name) {
		module_free(m);
		return -ENOMEM;
	}
	if (stat_ok) {
		file_id_of(st, &m->id);
		fd = open(at, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			m->readable = !read_facts(fd, &m->elf, true);
			close(fd);
		}
	}
	/* Unreadable files still name their frames; they are just never opened. */
	if (!m->readable)
		m->state = MOD_STALE;
	*out = m;
	return 0;
}

static bool same_build_id(const struct elf_facts *a, const struct elf_facts *b)
{
	return a->build_id_len && a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len);
}

/* The module for one mapping, reused when its file has not changed; index in *idx. */
static int module_for(struct sb_symbolizer *s, uint32_t tgid, const struct sb_map *map,
		      uint32_t *idx)
{
	char at[4200];
	struct module *m, *prev = NULL;
	struct file_id id = { 0 };
	struct stat st;
	uint64_t *v;
	bool stat_ok;
	int ret;

	snapshot_path(tgid, map->path, at, sizeof(at), &st, &stat_ok);
	if (stat_ok)
		file_id_of(&st, &id);
	v = sb_hashmap_get(&s->module_index, map->dev, map->inode);
	if (v) {
		prev = s->modules[*v];
		/* A stat per mapping, not an open: snapshots come at every dlopen. */
		if (stat_ok ? prev->readable && file_id_equal(&prev->id, &id) : !prev->readable) {
			*idx = (uint32_t)*v;
			return 0;
		}
	}
	ret = new_module(s, map, at, &st, stat_ok, &m);
	if (ret)
		return ret;
	/* Touched but not rebuilt: the same contents, so keep the module and its caches. */
	if (prev && prev->readable && m->readable && same_build_id(&prev->elf, &m->elf)) {
		prev->id = m->id;
		module_free(m);
		*idx = (uint32_t)*v;
		return 0;
	}
	if (sb_array_reserve((void **)&s->modules, &s->cap_modules, s->n_modules + 1, sizeof(m)) ||
	    sb_hashmap_put(&s->module_index, map->dev, map->inode, s->n_modules)) {
		module_free(m);
		return -ENOMEM;
	}
	*idx = (uint32_t)s->n_modules;
	s->modules[s->n_modules++] = m;
	return 0;
}

/*
 * Load bias of a mapping: the segment whose file range holds the mapped offset maps
 * file offset p_offset to p_vaddr, the mapping maps pgoff to start. This holds for
 * ET_DYN (PIE, shared objects: any bias) and ET_EXEC (bias 0) alike.
 */
static bool mapping_bias(const struct module *m, const struct sb_map *map, uint64_t *bias)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const struct elf_load *l;
	int pass;
	size_t i;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < m->elf.n_loads; i++) {
			l = &m->elf.loads[i];
			if ((pass == 0 && !l->exec) || map->pgoff < (l->offset & ~(page - 1)) ||
			    map->pgoff >= l->offset + l->filesz)
				continue;
			*bias = map->start - map->pgoff + l->offset - l->vaddr;
			return true;
		}
	}
	return false;
}

/* ---- Processes: their mapping tables. */

static void proc_free(struct proc *p)
{
	if (!p)
		return;
	free(p->cur);
	free(p->old);
	free(p);
}

static struct proc *proc_get(struct sb_symbolizer *s, uint32_t tgid, bool create)
{
	uint64_t *v = sb_hashmap_get(&s->procs, tgid, 0);
	struct proc *p;

	if (v)
		return (struct proc *)(uintptr_t)*v;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (p && sb_hashmap_put(&s->procs, tgid, 0, (uintptr_t)p)) {
		free(p);
		return NULL;
	}
	return p;
}

static int pmap_cmp(const void *a, const void *b)
{
	const struct pmap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool pmap_equal(const struct pmap *a, const struct pmap *b)
{
	return a->start == b->start && a->end == b->end && a->bias == b->bias &&
	       a->module == b->module;
}

static bool pmap_listed(const struct pmap *list, size_t n, const struct pmap *pm)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pmap_equal(&list[i], pm))
			return true;
	return false;
}

/* Move the mappings of the previous snapshot that the new one lacks behind it. */
static int retire(struct proc *p, const struct pmap *fresh, size_t n_fresh)
{
	size_t i, cap = p->n_old;

	for (i = 0; i < p->n_cur; i++) {
		if (pmap_listed(fresh, n_fresh, &p->cur[i]) || pmap_listed(p->old, p->n_old, &p->cur[i]))
			continue;
		if (sb_array_reserve((void **)&p->old, &cap, p->n_old + 1, sizeof(*p->old)))
			return -ENOMEM;
		p->old[p->n_old++] = p->cur[i];
	}
	return 0;
}

int sb_sym_snapshot(struct sb_symbolizer *s, uint32_t tgid, const struct sb_map *maps, size_t n)
{
	struct pmap *fresh;
	struct proc *p;
	size_t i, k = 0;
	uint32_t idx;
	int ret = 0;

	p = proc_get(s, tgid, true);
	fresh = calloc(n ? n : 1, sizeof(*fresh));
	if (!p || !fresh) {
		free(fresh);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!maps[i].exec || !maps[i].path || maps[i].end <= maps[i].start)
			continue;
		ret = module_for(s, tgid, &maps[i], &idx);
		if (ret)
			goto out;
		/* A mapping no segment explains cannot be placed: its addresses stay unknown. */
		if (s->modules[idx]->readable && !mapping_bias(s->modules[idx], &maps[i], &fresh[k].bias))
			continue;
		if (!s->modules[idx]->readable)
			fresh[k].bias = maps[i].start - maps[i].pgoff;
		fresh[k].start = maps[i].start;
		fresh[k].end = maps[i].end;
		fresh[k].module = idx;
		k++;
	}
	qsort(fresh, k, sizeof(*fresh), pmap_cmp);
	ret = retire(p, fresh, k);
	if (ret)
		goto out;
	free(p->cur);
	p->cur = fresh;
	p->n_cur = k;
	fresh = NULL;
out:
	free(fresh);
	return ret;
}

static struct pmap *copy_pmaps(const struct pmap *src, size_t n)
{
	struct pmap *dst = malloc((n ? n : 1) * sizeof(*dst));

	if (dst && n)
		memcpy(dst, src, n * sizeof(*dst));
	return dst;
}

int sb_sym_fork(struct sb_symbolizer *s, uint32_t parent, uint32_t child)
{
	struct pmap *cur, *old;
	struct proc *p, *c;

	p = proc_get(s, parent, false);
	if (!p)
		return -ENOENT;
	if (parent == child)
		return 0;
	c = proc_get(s, child, true);
	cur = copy_pmaps(p->cur, p->n_cur);
	old = copy_pmaps(p->old, p->n_old);
	if (!c || !cur || !old) {
		free(cur);
		free(old);
		return -ENOMEM;
	}
	free(c->cur);
	free(c->old);
	c->cur = cur;
	c->n_cur = p->n_cur;
	c->old = old;
	c->n_old = p->n_old;
	return 0;
}

static const struct pmap *find_pmap(const struct proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->n_cur, mid, i;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ip < p->cur[mid].start)
			hi = mid;
		else if (ip >= p->cur[mid].end)
			lo = mid + 1;
		else
			return &p->cur[mid];
	}
	/* Unmapped since: the most recently dropped mapping that held ip. */
	for (i = p->n_old; i-- > 0;)
		if (ip >= p->old[i].start && ip < p->old[i].end)
			return &p->old[i];
	return NULL;
}

/* ---- Opening a module with libdwfl, once, after checking the file is still the same. */

static bool still_mapped_file(const struct module *m, int fd)
{
	struct elf_facts now;
	struct file_id id;
	struct stat st;
	bool same;

	if (!m->elf.build_id_len) {
		if (fstat(fd, &st))
			return false;
		file_id_of(&st, &id);
		return file_id_equal(&id, &m->id);
	}
	if (read_facts(fd, &now, false))
		return false;
	same = same_build_id(&now, &m->elf);
	free(now.loads);
	return same;
}

/* The file was rebuilt: a copy with the mapped build id may still be in the debug tree. */
static Dwfl_Module *report_by_build_id(struct module *m)
{
	Dwfl_Module *mod;

	if (!m->elf.build_id_len || m->elf.hi <= m->elf.lo)
		return NULL;
	mod = dwfl_report_module(m->dwfl, m->path, m->elf.lo, m->elf.hi);
	if (mod && dwfl_module_report_build_id(mod, m->elf.build_id, m->elf.build_id_len, 0))
		return NULL;
	return mod;
}

/*
 * Like perf: sized over sizeless, strong over weak, global over local, fewer leading '_'.
 * glibc's hidden __GI_ aliases come last: the plain name is the one people know.
 */
static int msym_rank(const GElf_Sym *sym, const char *name)
{
	int bind = GELF_ST_BIND(sym->st_info), rank = 0;

	if (!strncmp(name, "__GI_", 5))
		rank += 50;
	if (!sym->st_size)
		rank += 1000;
	if (bind == STB_WEAK)
		rank += 100;
	else if (bind == STB_LOCAL)
		rank += 10;
	while (*name++ == '_' && rank % 10 < 9)
		rank++;
	return rank;
}

static int msym_cmp(const void *a, const void *b)
{
	const struct msym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

/* Functions, and untyped labels (assembly) only where they are in code. */
static bool is_code_symbol(const GElf_Sym *sym, GElf_Word shndx, Elf *elf, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);
	GElf_Shdr shdr;
	Elf_Scn *scn;

	if (!name || !*name || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	if (type != STT_NOTYPE)
		return false;
	scn = elf ? elf_getscn(elf, shndx) : NULL;
	return scn && gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_EXECINSTR);
}

/*
 * dwfl_module_addrinfo scans the whole symbol table on every call: tens of microseconds
 * in libc. One sorted copy per module makes each lookup a binary search.
 */
static int load_symbols(struct module *m)
{
	size_t cap = 0, i, k;
	const char *name;
	GElf_Word shndx;
	GElf_Addr addr;
	GElf_Sym sym;
	Elf *elf;
	int n, ndx;

	n = dwfl_module_getsymtab(m->mod);
	for (ndx = 1; ndx < n; ndx++) {
		elf = NULL;
		name = dwfl_module_getsym_info(m->mod, ndx, &sym, &addr, &shndx, &elf, NULL);
		if (!is_code_symbol(&sym, shndx, elf, name))
			continue;
		if (sb_array_reserve((void **)&m->syms, &cap, m->n_syms + 1, sizeof(*m->syms)))
			return -ENOMEM;
		m->syms[m->n_syms++] = (struct msym){ addr, sym.st_size, name, msym_rank(&sym, name) };
	}
	if (!m->n_syms)
		return 0;
	qsort(m->syms, m->n_syms, sizeof(*m->syms), msym_cmp);
	for (i = k = 1; i < m->n_syms; i++)
		if (m->syms[i].addr != m->syms[k - 1].addr)
			m->syms[k++] = m->syms[i];
	m->n_syms = k;
	return 0;
}

/* The function symbol holding addr, or the sizeless one just below it; NULL if none. */
static const char *symbol_at(const struct module *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n_syms, mid, j;
	const struct msym *sym;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* A few steps back: a small symbol may sit inside a bigger one that holds addr. */
	for (j = lo; j-- > 0 && j + 8 >= lo;) {
		sym = &m->syms[j];
		if (sym->size && addr < sym->addr + sym->size)
			return sym->name;
	}
	return m->syms[lo - 1].size ? NULL : m->syms[lo - 1].name;
}

static void module_open(struct module *m)
{
	Dwfl_Module *mod = NULL;
	int fd;

	m->state = MOD_STALE;
	m->dwfl = dwfl_begin(&callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && still_mapped_file(m, fd)) {
		/* Base 0 relative to p_vaddr: bias 0 for ET_DYN; ET_EXEC ignores it. */
		mod = dwfl_report_elf(m->dwfl, m->path, m->path, fd, 0, true);
		if (!mod)
			close(fd);
	} else {
		if (fd >= 0)
			close(fd);
		mod = report_by_build_id(m);
	}
	/* getelf opens a build-id match now, so a failure shows here and not per address. */
	if (dwfl_report_end(m->dwfl, NULL, NULL) || !mod || !dwfl_module_getelf(mod, &m->bias))
		goto fail;
	m->mod = mod;
	if (load_symbols(m))
		goto fail;
	m->state = MOD_OPEN;
	return;
fail:
	dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->mod = NULL;
	free(m->syms);
	m->syms = NULL;
	m->n_syms = 0;
}

/* ---- Addresses to frames. */

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	/* Inlined and out-of-line instances carry their name on the abstract origin. */
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	return name;
}

/* Where an inlined instance was called from: the location of the frame outside it. */
static void call_site(Dwarf_Die *scope, const char **file, int64_t *line)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word w;
	Dwarf_Die cu;
	size_t n;

	*file = NULL;
	*line = -1;
	if (!dwarf_formudata(dwarf_attr(scope, DW_AT_call_line, &attr), &w))
		*line = (int64_t)w;
	if (dwarf_formudata(dwarf_attr(scope, DW_AT_call_file, &attr), &w))
		return;
	/* The file index refers to the line table of the unit holding this DIE. */
	if (dwarf_diecu(scope, &cu, NULL, NULL) && !dwarf_getsrcfiles(&cu, &files, &n) && w < n)
		*file = dwarf_filesrc(files, w, NULL, NULL);
}

struct raw_frame {
	const char *function;
	const char *file;
	int64_t line;
	bool inlined;
};

static int add_range(struct cu_index *cu, size_t *cap, Dwarf_Die *die, Dwarf_Addr lo,
		     Dwarf_Addr hi)
{
	if (hi <= lo)
		return 0;
	if (sb_array_reserve((void **)&cu->ranges, cap, cu->n + 1, sizeof(*cu->ranges)))
		return -ENOMEM;
	cu->ranges[cu->n++] = (struct subprogram_range){ lo, hi, *die };
	return 0;
}

/*
 * Index the functions of a unit: its subprograms, those in namespaces and modules
 * (C++, Fortran), and subprograms nested in subprograms (Fortran contained procedures).
 */
static int index_children(struct cu_index *cu, size_t *cap, Dwarf_Die *parent, int depth)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Die child;
	ptrdiff_t off;
	int tag, ret = 0;

	if (depth > 16 || dwarf_child(parent, &child))
		return 0;
	do {
		tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram) {
			off = 0;
			while (!ret && (off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0)
				ret = add_range(cu, cap, &child, lo, hi);
		}
		if (!ret && (tag == DW_TAG_subprogram || tag == DW_TAG_namespace ||
			     tag == DW_TAG_module))
			ret = index_children(cu, cap, &child, depth + 1);
	} while (!ret && !dwarf_siblingof(&child, &child));
	return ret;
}

static int range_cmp(const void *a, const void *b)
{
	const struct subprogram_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* The index of the unit cudie, built at its first address. */
static struct cu_index *cu_index_of(struct module *m, Dwarf_Die *cudie)
{
	uint64_t key = dwarf_dieoffset(cudie), *v;
	struct cu_index *cu;
	size_t cap = 0;

	v = sb_hashmap_get(&m->cu_map, key, 0);
	if (v)
		return &m->cus[*v];
	if (sb_array_reserve((void **)&m->cus, &m->cap_cus, m->n_cus + 1, sizeof(*m->cus)) ||
	    sb_hashmap_put(&m->cu_map, key, 0, m->n_cus))
		return NULL;
	cu = &m->cus[m->n_cus++];
	memset(cu, 0, sizeof(*cu));
	/* A unit that cannot be indexed fully is used as far as it got. */
	index_children(cu, &cap, cudie, 0);
	qsort(cu->ranges, cu->n, sizeof(*cu->ranges), range_cmp);
	return cu;
}

/* The innermost indexed subprogram whose code holds pc. */
static bool find_subprogram(const struct cu_index *cu, Dwarf_Addr pc, Dwarf_Die *out)
{
	size_t lo = 0, hi = cu->n, mid, j;
	const struct subprogram_range *r, *best = NULL;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cu->ranges[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (j = lo; j-- > 0 && j + 8 >= lo;) {
		r = &cu->ranges[j];
		if (pc < r->hi && (!best || r->hi - r->lo < best->hi - best->lo))
			best = r;
	}
	if (best)
		*out = best->die;
	return best;
}

static bool is_block(int tag)
{
	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
	       tag == DW_TAG_try_block || tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt;
}

/* The child block of parent holding pc, if any. */
static bool block_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out)
{
	if (dwarf_child(parent, out))
		return false;
	do {
		if (is_block(dwarf_tag(out)) && dwarf_haspc(out, pc) > 0)
			return true;
	} while (!dwarf_siblingof(out, out));
	return false;
}

/*
 * Chain of scopes at pc, outermost (the subprogram) first, then each inlined call
 * inside it. Found by descending from the subprogram: dwarf_getscopes would walk the
 * whole unit for every address, and stops at the innermost inlined instance.
 */
static int inline_chain(struct module *m, Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die *chain,
			int max)
{
	struct cu_index *cu = cu_index_of(m, cudie);
	Dwarf_Die cur, block;
	int n = 0;

	if (!cu || !find_subprogram(cu, pc, &cur))
		return 0;
	chain[n++] = cur;
	while (n < max && block_at(&cur, pc, &block)) {
		if (dwarf_tag(&block) == DW_TAG_inlined_subroutine)
			chain[n++] = block;
		cur = block;
	}
	return n;
}

static int unit_range_cmp(const void *a, const void *b)
{
	const struct unit_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * libdw 0.188 finds a unit by address only through .debug_aranges, which clang does not
 * emit by default and a link of gcc and clang objects has only in part. The units'
 * own address ranges are the truth: index them once, when aranges first fall short.
 */
static void index_units(struct module *m)
{
	Dwarf_Addr base, lo, hi, dbias;
	size_t cap = 0, n = 0;
	Dwarf_CU *unit = NULL;
	struct unit_range *r;
	Dwarf_Die cudie;
	ptrdiff_t off;
	Dwarf *dw;

	m->units_indexed = true;
	dw = dwfl_module_getdwarf(m->mod, &dbias);
	if (!dw)
		return;
	while (!dwarf_get_units(dw, unit, &unit, NULL, NULL, &cudie, NULL)) {
		off = 0;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (sb_array_reserve((void **)&m->units, &cap, n + 1, sizeof(*r)))
				goto out;
			m->units[n++] = (struct unit_range){ lo, hi, cudie };
		}
	}
out:
	m->n_units = n;
	qsort(m->units, n, sizeof(*m->units), unit_range_cmp);
}

/* The unit holding addr (a Dwfl address), in *mem; its bias in *dbias. */
static Dwarf_Die *unit_at(struct module *m, Dwarf_Addr addr, Dwarf_Die *mem, Dwarf_Addr *dbias)
{
	Dwarf_Die *cudie = dwfl_module_addrdie(m->mod, addr, dbias);
	size_t lo = 0, hi;

	if (cudie) {
		*mem = *cudie;
		return mem;
	}
	if (!m->units_indexed)
		index_units(m);
	if (!m->n_units || !dwfl_module_getdwarf(m->mod, dbias))
		return NULL;
	hi = m->n_units;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->units[mid].lo <= addr - *dbias)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - *dbias >= m->units[lo - 1].hi)
		return NULL;
	*mem = m->units[lo - 1].cu;
	return mem;
}

/* The inlined chain and containing function at addr, innermost first; at least one frame. */
static int dwarf_frames(struct module *m, Dwarf_Addr addr, struct raw_frame *f)
{
	Dwarf_Die chain[SB_SYM_MAX_FRAMES * 4], cu, *cudie;
	const char *file = NULL;
	Dwarf_Addr dbias;
	Dwarf_Line *src;
	int i, n = 0, depth = 0, l;
	int64_t line = -1;

	cudie = unit_at(m, addr, &cu, &dbias);
	src = cudie ? dwarf_getsrc_die(cudie, addr - dbias) : NULL;
	if (src && !dwarf_lineno(src, &l)) {
		file = dwarf_linesrc(src, NULL, NULL);
		line = file ? l : -1;
	}
	if (cudie)
		depth = inline_chain(m, cudie, addr - dbias, chain, (int)(sizeof(chain) / sizeof(chain[0])));
	/* No DWARF function here (assembly, no debug info): the location and the symbol. */
	if (!depth) {
		f[0] = (struct raw_frame){ .file = file, .line = line };
		return 1;
	}
	for (i = depth - 1; i >= 0; i--) {
		/* Too deep: drop middle inlined frames, keep the innermost and the function. */
		if (n < SB_SYM_MAX_FRAMES - 1 || !i)
			f[n++] = (struct raw_frame){ die_name(&chain[i]), file, line, i > 0 };
		if (i)
			call_site(&chain[i], &file, &line);
	}
	return n;
}

/* Frames of one address in an open module; the real function named by its ELF symbol. */
static int module_frames(struct module *m, uint64_t vaddr, bool is_return, struct raw_frame *f)
{
	Dwarf_Addr addr = vaddr - (is_return ? 1 : 0) + m->bias;
	const char *sym;
	int n;

	n = dwarf_frames(m, addr, f);
	/* The symbol is what perf and nm show; DWARF only fills in for a missing one. */
	sym = symbol_at(m, addr);
	if (sym)
		f[n - 1].function = sym;
	return n;
}

static int store_frames(struct sb_symbolizer *s, const struct module *m, uint64_t vaddr,
			const struct raw_frame *f, int n, size_t *first)
{
	struct sb_frame_sym *o;
	int i;

	if (sb_array_reserve((void **)&s->pool, &s->cap_pool, s->n_pool + (size_t)n, sizeof(*o)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		o = &s->pool[s->n_pool + (size_t)i];
		o->function = intern(s, f[i].function);
		o->file = intern(s, f[i].file);
		if (!o->function || !o->file)
			return -ENOMEM;
		o->line = f[i].file ? f[i].line : -1;
		o->module = m->name;
		o->offset = vaddr;
		o->inlined = f[i].inlined;
	}
	*first = s->n_pool;
	s->n_pool += (size_t)n;
	return 0;
}

/* Resolve (module, vaddr) once; later calls find the frames in the pool through the cache. */
static int cached_frames(struct sb_symbolizer *s, uint32_t idx, uint64_t vaddr, bool is_return,
			 size_t *first, int *n)
{
	struct raw_frame f[SB_SYM_MAX_FRAMES];
	struct module *m = s->modules[idx];
	uint64_t key = (uint64_t)idx << 1 | is_return, *v;
	int ret;

	v = sb_hashmap_get(&s->cache, key, vaddr);
	if (v) {
		*first = *v >> 8;
		*n = (int)(*v & 0xff);
		return 0;
	}
	if (m->state == MOD_UNOPENED)
		module_open(m);
	if (m->state == MOD_OPEN) {
		*n = module_frames(m, vaddr, is_return, f);
	} else {
		/* Not the file that was mapped: module+offset is all we can honestly say. */
		f[0] = (struct raw_frame){ .line = -1 };
		*n = 1;
	}
	ret = store_frames(s, m, vaddr, f, *n, first);
	if (!ret)
		ret = sb_hashmap_put(&s->cache, key, vaddr, (uint64_t)*first << 8 | (uint64_t)*n);
	return ret;
}

static int unknown_frame(struct sb_symbolizer *s, char *module, uint64_t ip,
			 struct sb_frame_sym *out)
{
	out->function = s->empty;
	out->file = s->empty;
	out->module = module;
	out->line = -1;
	out->offset = ip;
	out->inlined = false;
	return 1;
}

int sb_sym_user(struct sb_symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return_address,
		struct sb_frame_sym *out, int max)
{
	const struct pmap *pm;
	struct proc *p;
	size_t first;
	int n, ret;

	if (max < 1)
		return -EINVAL;
	p = proc_get(s, tgid, false);
	pm = p ? find_pmap(p, ip) : NULL;
	if (!pm)
		return unknown_frame(s, s->unknown, ip, out);
	ret = cached_frames(s, pm->module, ip - pm->bias, is_return_address, &first, &n);
	if (ret)
		return ret;
	if (n <= max) {
		memcpy(out, &s->pool[first], (size_t)n * sizeof(*out));
		return n;
	}
	memcpy(out, &s->pool[first], (size_t)(max - 1) * sizeof(*out));
	out[max - 1] = s->pool[first + (size_t)n - 1];
	return max;
}

/* ---- Kernel addresses: user/record/symbols/kallsyms.c. */

int sb_sym_kernel(struct sb_symbolizer *s, uint64_t ip, struct sb_frame_sym *out)
{
	const struct sb_ksym *k;
	int ret;

	if (!s->kallsyms.loaded) {
		ret = sb_kallsyms_load(&s->kallsyms, KERNEL_MODULE);
		if (ret)
			return ret;
	}
	ret = unknown_frame(s, s->kernel, ip, out);
	k = sb_kallsyms_find(&s->kallsyms, ip);
	if (!k)
		return ret;
	out->function = s->kallsyms.names + k->name;
	out->module = s->kallsyms.names + k->module;
	return 1;
}

/* ---- Life cycle. */

struct sb_symbolizer *sb_sym_new(void)
{
	struct sb_symbolizer *s;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	sb_hashmap_init(&s->module_index);
	sb_hashmap_init(&s->procs);
	sb_hashmap_init(&s->strings);
	sb_hashmap_init(&s->cache);
	s->empty = intern(s, "");
	s->unknown = intern(s, UNKNOWN_MODULE);
	s->kernel = intern(s, KERNEL_MODULE);
	if (!s->empty || !s->unknown || !s->kernel) {
		sb_sym_free(s);
		return NULL;
	}
	return s;
}

void sb_sym_free(struct sb_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_modules; i++)
		module_free(s->modules[i]);
	free(s->modules);
	for (i = 0; i < s->procs.cap; i++)
		if (s->procs.slots[i].used)
			proc_free((struct proc *)(uintptr_t)s->procs.slots[i].value);
	for (i = 0; i < s->strings.cap; i++)
		if (s->strings.slots[i].used)
			free((char *)(uintptr_t)s->strings.slots[i].value);
	sb_hashmap_free(&s->module_index);
	sb_hashmap_free(&s->procs);
	sb_hashmap_free(&s->strings);
	sb_hashmap_free(&s->cache);
	free(s->pool);
	sb_kallsyms_free(&s->kallsyms);
	free(s);
}
