/* A stand-in uprobe tracer for the header tests: traps this process's probes, logs their sites. */
#ifndef SELFTRACE_H
#define SELFTRACE_H

/*
 * It reads the probes' notes from each loaded object's file, replaces each
 * probe's nop with a trap, and decodes the argument register the note names,
 * the way a kernel uprobe and libbpf would. That checks the notes, not only
 * that they exist: wrong pc, register or semaphore shows up as a wrong log.
 * The includer defines _GNU_SOURCE first (ucontext register names).
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "scope_bpf.h"

#define ST_MAX_PROBES 4096
#define ST_MAX_SEMS 16
#define ST_MAX_EVENTS 4096
#define ST_SKIP 77	/* exit status meaning "could not patch code here" */

struct st_probe {
	uintptr_t pc;
	int is_end;
	int reg;	/* index into the signal context's registers */
};

struct st_sem {
	unsigned short *addr;
	int is_end;
};

struct st_event {
	int is_end;
	const struct scope_bpf_site *site;
};

static struct st_probe st_probes[ST_MAX_PROBES];
static int st_nprobes;
static struct st_sem st_sems[ST_MAX_SEMS];
static int st_nsems;
static struct st_event st_events[ST_MAX_EVENTS];
static volatile int st_nevents;
static int st_error;

#if defined(__x86_64__)
static const unsigned char st_nop[] = { 0x90 };
static const unsigned char st_trap[] = { 0xcc };	/* int3 */

static int st_reg(const char *arg)
{
	static const struct { const char *name; int reg; } regs[] = {
		{ "8@%rax", REG_RAX }, { "8@%rbx", REG_RBX }, { "8@%rcx", REG_RCX },
		{ "8@%rdx", REG_RDX }, { "8@%rsi", REG_RSI }, { "8@%rdi", REG_RDI },
		{ "8@%rbp", REG_RBP }, { "8@%r8", REG_R8 }, { "8@%r9", REG_R9 },
		{ "8@%r10", REG_R10 }, { "8@%r11", REG_R11 }, { "8@%r12", REG_R12 },
		{ "8@%r13", REG_R13 }, { "8@%r14", REG_R14 }, { "8@%r15", REG_R15 },
	};
	size_t i;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(arg, regs[i].name))
			return regs[i].reg;
	return -1;
}

/* int3 leaves the pc after itself, which is also where the 1-byte nop would have. */
static uintptr_t st_trap_pc(ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
}

static void st_resume(ucontext_t *uc)
{
	(void)uc;
}

static uint64_t st_get(ucontext_t *uc, int reg)
{
	return (uint64_t)uc->uc_mcontext.gregs[reg];
}
#elif defined(__aarch64__)
static const unsigned char st_nop[] = { 0x1f, 0x20, 0x03, 0xd5 };
static const unsigned char st_trap[] = { 0x00, 0x00, 0x20, 0xd4 };	/* brk #0 */

static int st_reg(const char *arg)
{
	char *end;
	long r;

	if (strncmp(arg, "8@x", 3))
		return -1;
	r = strtol(arg + 3, &end, 10);
	return *end || r < 0 || r > 30 ? -1 : (int)r;
}

static uintptr_t st_trap_pc(ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.pc;
}

static void st_resume(ucontext_t *uc)
{
	uc->uc_mcontext.pc += 4;
}

static uint64_t st_get(ucontext_t *uc, int reg)
{
	return (uint64_t)uc->uc_mcontext.regs[reg];
}
#else
#error "selftrace.h: x86-64 or arm64 only"
#endif

static void st_fail(const char *what, const char *detail)
{
	fprintf(stderr, "selftrace: %s: %s\n", what, detail);
	st_error = 1;
}

static void st_on_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = (ucontext_t *)ctx;
	uintptr_t pc = st_trap_pc(uc);
	int i;

	(void)sig;
	(void)si;
	for (i = 0; i < st_nprobes; i++) {
		if (st_probes[i].pc != pc)
			continue;
		if (st_nevents < ST_MAX_EVENTS) {
			st_events[st_nevents].is_end = st_probes[i].is_end;
			st_events[st_nevents].site = (const struct scope_bpf_site *)
				(uintptr_t)st_get(uc, st_probes[i].reg);
		}
		st_nevents++;
		st_resume(uc);
		return;
	}
	abort();	/* a trap that is not ours */
}

static int st_patch(uintptr_t pc, const unsigned char *bytes, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = pc & ~(uintptr_t)(page - 1);
	size_t span = pc + len - start;

	if (mprotect((void *)start, span, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	memcpy((void *)pc, bytes, len);
	__builtin___clear_cache((char *)pc, (char *)pc + len);
	if (mprotect((void *)start, span, PROT_READ | PROT_EXEC))
		return -errno;
	return 0;
}

static void st_add_sem(unsigned short *addr, int is_end)
{
	int i;

	for (i = 0; i < st_nsems; i++)
		if (st_sems[i].addr == addr)
			return;
	if (st_nsems == ST_MAX_SEMS) {
		st_fail("too many semaphores", "");
		return;
	}
	st_sems[st_nsems].addr = addr;
	st_sems[st_nsems].is_end = is_end;
	st_nsems++;
}

/* One note's description: pc, base, semaphore, then provider, name, argument. */
static void st_add_note(const char *desc, size_t len, uintptr_t bias, uint64_t base_addr,
			const char *path)
{
	uint64_t f[3];
	const char *prov = desc + sizeof(f), *name, *arg;
	const char *end = desc + len;
	uintptr_t adjust;
	struct st_probe *p;
	int is_end;

	if (len <= sizeof(f)) {
		st_fail("short note", path);
		return;
	}
	memcpy(f, desc, sizeof(f));
	name = prov + strnlen(prov, (size_t)(end - prov)) + 1;
	arg = name < end ? name + strnlen(name, (size_t)(end - name)) + 1 : end;
	if (arg >= end || strcmp(prov, "scope_bpf"))
		return;
	/* The fast path's own probes fire only under a fast-mode recorder: not traced here. */
	if (!strcmp(name, "fast_ready") || !strcmp(name, "fast_site") || !strcmp(name, "fast_wake"))
		return;
	is_end = !strcmp(name, "region_end");
	if (!is_end && strcmp(name, "region_begin")) {
		st_fail("unknown probe", name);
		return;
	}
	if (st_nprobes == ST_MAX_PROBES) {
		st_fail("too many probes", path);
		return;
	}
	/* What sdt tools do: a prelinked object moved by base - note base. */
	adjust = bias + (uintptr_t)(base_addr - f[1]);
	p = &st_probes[st_nprobes];
	p->pc = (uintptr_t)f[0] + adjust;
	p->is_end = is_end;
	p->reg = st_reg(arg);
	if (p->reg < 0) {
		st_fail("unexpected argument", arg);
		return;
	}
	if (!f[2]) {
		st_fail("probe without semaphore", path);
		return;
	}
	if (memcmp((const void *)p->pc, st_nop, sizeof(st_nop))) {
		st_fail("probe address does not hold a nop", path);
		return;
	}
	st_add_sem((unsigned short *)(f[2] + adjust), is_end);
	st_nprobes++;
}

static char *st_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = (char *)malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

static const Elf64_Shdr *st_section(const char *elf, const char *want)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(elf + eh->e_shoff);
	const char *names = elf + sh[eh->e_shstrndx].sh_offset;
	int i;

	for (i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, want))
			return &sh[i];
	return NULL;
}

/* Collects the probes of one loaded object from its file. */
static int st_scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
	const Elf64_Shdr *notes, *base;
	size_t len = 0, off;
	char *elf;

	(void)size;
	(void)data;
	elf = st_read_file(path, &len);
	if (!elf) {
		/* The vDSO has no file; the program itself must have one. */
		if (!strcmp(path, "/proc/self/exe"))
			st_fail("cannot read", path);
		return 0;
	}
	notes = st_section(elf, ".note.stapsdt");
	base = st_section(elf, ".stapsdt.base");
	if (notes && !base)
		st_fail("notes without .stapsdt.base", path);
	for (off = 0; notes && base && off + sizeof(Elf64_Nhdr) <= notes->sh_size;) {
		const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(elf + notes->sh_offset + off);
		const char *name = (const char *)(nh + 1);
		const char *desc = name + ((nh->n_namesz + 3) & ~3u);

		if (nh->n_type == 3 && nh->n_namesz == 8 && !memcmp(name, "stapsdt", 8))
			st_add_note(desc, nh->n_descsz, (uintptr_t)info->dlpi_addr,
				    base->sh_addr, path);
		off += sizeof(*nh) + ((nh->n_namesz + 3) & ~3u) + ((nh->n_descsz + 3) & ~3u);
	}
	free(elf);
	return 0;
}

/* Traps every probe; semaphores stay 0, so no probe should fire yet. */
static int st_install(void)
{
	struct sigaction sa;
	int i, err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = st_on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	dl_iterate_phdr(st_scan_object, NULL);
	for (i = 0; i < st_nprobes; i++) {
		err = st_patch(st_probes[i].pc, st_trap, sizeof(st_trap));
		if (err == -EACCES || err == -EPERM)
			return ST_SKIP;
		if (err) {
			st_fail("mprotect", strerror(-err));
			break;
		}
	}
	return st_error ? -1 : 0;
}

/*
 * Also a compiler barrier: the probes' asm does not clobber memory, so
 * without one the compiler may move the log's reads and resets across the
 * code under test.
 */
static void st_semaphores(int begin_on, int end_on)
{
	int i;

	__asm__ __volatile__("" ::: "memory");
	for (i = 0; i < st_nsems; i++)
		*st_sems[i].addr = (unsigned short)(st_sems[i].is_end ? end_on : begin_on);
	__asm__ __volatile__("" ::: "memory");
}

/* Checks what every marker must pass: a well-formed descriptor from this source file. */
static int st_site_ok(const struct scope_bpf_site *s, const char *file)
{
	size_t n = strlen(s->file), m = strlen(file);

	return s->magic == SCOPE_BPF_SITE_MAGIC && s->version == SCOPE_BPF_SITE_VERSION &&
	       !s->flags && s->line > 0 && s->name && s->name[0] &&
	       n >= m && !strcmp(s->file + n - m, file);
}

/* The log as text, "B:name E:name ...", for one comparison against the expected sequence. */
static void st_log(char *buf, size_t size, const char *file)
{
	size_t used = 0;
	int i, n;

	buf[0] = 0;
	if (st_nevents > ST_MAX_EVENTS) {
		snprintf(buf, size, "(log overflow)");
		return;
	}
	for (i = 0; i < st_nevents; i++) {
		const struct scope_bpf_site *s = st_events[i].site;

		if (!st_site_ok(s, file)) {
			snprintf(buf, size, "(bad site at event %d)", i);
			return;
		}
		n = snprintf(buf + used, size - used, "%s%s:%s", i ? " " : "",
			     st_events[i].is_end ? "E" : "B", s->name);
		if (n < 0 || (size_t)n >= size - used) {
			snprintf(buf, size, "(log too long)");
			return;
		}
		used += (size_t)n;
	}
}

#endif /* SELFTRACE_H */
