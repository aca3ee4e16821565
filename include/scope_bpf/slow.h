/*
 * The fast path's slow paths: what a marker runs once per process, thread or
 * site, or when its ring looks full (making or finding the memory, claiming
 * a slot, announcing a site, waking the recorder), and the C library they
 * call. Private, like impl.h, which includes it.
 */
#ifndef SCOPE_BPF_SLOW_H
#define SCOPE_BPF_SLOW_H

#include <stddef.h>
#include <stdint.h>

#include "state.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The C library, declared under names of our own (asm labels): strict C99
 * declares none of these, and no declaration of the program's can clash.
 */
struct scope_bpf_impl_timespec {
	long sec;
	long nsec;
};
extern long scope_bpf_impl_syscall(long nr, ...) __asm__("syscall");
extern void *scope_bpf_impl_mmap(void *addr, size_t len, int prot, int flags, int fd,
				 long off) __asm__("mmap");
extern int scope_bpf_impl_munmap(void *addr, size_t len) __asm__("munmap");
extern int scope_bpf_impl_madvise(void *addr, size_t len, int advice) __asm__("madvise");
extern int scope_bpf_impl_ftruncate(int fd, long len) __asm__("ftruncate");
extern int scope_bpf_impl_close(int fd) __asm__("close");
extern int scope_bpf_impl_open(const char *path, int flags, ...) __asm__("open");
extern long scope_bpf_impl_read(int fd, void *buf, size_t len) __asm__("read");
extern long scope_bpf_impl_readlink(const char *path, char *buf, size_t len) __asm__("readlink");
extern int scope_bpf_impl_getpid(void) __asm__("getpid");
extern int scope_bpf_impl_clock_gettime(int clock, struct scope_bpf_impl_timespec *ts)
	__asm__("clock_gettime");
extern int scope_bpf_impl_atfork(void (*prepare)(void), void (*parent)(void),
				 void (*child)(void)) __asm__("pthread_atfork");

#ifdef __x86_64__
#define SCOPE_BPF_IMPL_SYS_GETTID 186
#define SCOPE_BPF_IMPL_SYS_MEMFD 319
#define SCOPE_BPF_IMPL_SYS_YIELD 24
#define SCOPE_BPF_IMPL_SYS_GETDENTS 217
#else
#define SCOPE_BPF_IMPL_SYS_GETTID 178
#define SCOPE_BPF_IMPL_SYS_MEMFD 279
#define SCOPE_BPF_IMPL_SYS_YIELD 124
#define SCOPE_BPF_IMPL_SYS_GETDENTS 61
#endif
#define SCOPE_BPF_IMPL_MFD_FLAGS 3	/* MFD_CLOEXEC | MFD_ALLOW_SEALING */
#define SCOPE_BPF_IMPL_O_RDONLY_CLOEXEC 02000000
#define SCOPE_BPF_IMPL_PROT_RW 3	/* PROT_READ | PROT_WRITE */
#define SCOPE_BPF_IMPL_MAP_SHARED 1
#define SCOPE_BPF_IMPL_MAP_PRIVATE_ANON 0x22	/* MAP_PRIVATE | MAP_ANONYMOUS */
#define SCOPE_BPF_IMPL_MADV_WIPEONFORK 18
#define SCOPE_BPF_IMPL_CLOCK_MONOTONIC 1

/*
 * The process's memory. Default visibility, so the executable and its
 * libraries share one (each has its own semaphores and thread-local view).
 */
struct scope_bpf_impl_fast_proc {
	struct scope_bpf_impl_fast_hdr *hdr;
	int pid;		/* the process hdr belongs to: a forked child has another */
	int fd;
	int owned;		/* this copy made the memory (and closes its fd in a child) */
	int lock;		/* 0, or the pid of the process whose thread holds it */
	int failed_pid;		/* the process could not make it: markers take the probe */
};
__attribute__((weak)) struct scope_bpf_impl_fast_proc scope_bpf_impl_fast_proc;
/* Whether this object has registered its fork handler. */
__attribute__((weak, visibility("hidden"))) int scope_bpf_impl_fast_forkwatch;

/*
 * The slow paths: emitted only where a marker uses them (static inline), so a
 * translation unit that includes this header without marking anything has no
 * code and no probe; cold and never inlined, so the markers stay small. GCC's
 * C front end warns about noinline on an inline function, which is what is
 * meant here.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
#define SCOPE_BPF_IMPL_ONCE static inline __attribute__((cold, noinline))

SCOPE_BPF_IMPL_ONCE
uint64_t scope_bpf_impl_mono(void)
{
	struct scope_bpf_impl_timespec ts;

	scope_bpf_impl_clock_gettime(SCOPE_BPF_IMPL_CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.sec * 1000000000ull + (uint64_t)ts.nsec;
}

/* The counter the kernel keeps time with, when it does; else clock_gettime(). */
SCOPE_BPF_IMPL_ONCE
uint32_t scope_bpf_impl_fast_clock(void)
{
#if defined(__x86_64__)
	static const char want[] = "tsc\n";
	const uint32_t counter = SCOPE_BPF_IMPL_CLOCK_TSC;
#else
	static const char want[] = "arch_sys_counter\n";
	const uint32_t counter = SCOPE_BPF_IMPL_CLOCK_CNTVCT;
#endif
	char got[sizeof(want)];
	long n = -1;
	int fd;

	fd = scope_bpf_impl_open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
				 SCOPE_BPF_IMPL_O_RDONLY_CLOEXEC);
	if (fd >= 0) {
		n = scope_bpf_impl_read(fd, got, sizeof(got));
		scope_bpf_impl_close(fd);
	}
	if (n == (long)sizeof(want) - 1 && !__builtin_memcmp(got, want, sizeof(want) - 1))
		return counter;
	return SCOPE_BPF_IMPL_CLOCK_MONO;
}

/* Memory another process made (the parent, before a fork) is not this one's to write. */
SCOPE_BPF_IMPL_ONCE
void scope_bpf_impl_fast_forget(struct scope_bpf_impl_fast_proc *p, int pid)
{
	if (p->hdr && p->pid != pid) {
		scope_bpf_impl_munmap(p->hdr, SCOPE_BPF_IMPL_FAST_SIZE);
		if (p->owned)
			scope_bpf_impl_close(p->fd);
		p->hdr = 0;
	}
}

/* In a forked child: a thread that had no slot in the parent may have one here. */
SCOPE_BPF_IMPL_ONCE
void scope_bpf_impl_fast_child(void)
{
	struct scope_bpf_impl_fast_proc *p = &scope_bpf_impl_fast_proc;
	struct scope_bpf_impl_fast_tls blank = { &scope_bpf_impl_fast_blank, 0 };

	scope_bpf_impl_fast_tls = blank;
	p->lock = 0;
	scope_bpf_impl_fast_forget(p, scope_bpf_impl_getpid());
}

/*
 * The lock holds its holder's pid: one a child finds held by its parent's
 * pid was copied by a fork that skipped the handler while another thread of
 * the parent held it, and no thread of the child ever will release it.
 * (Objects built with an older header hold it as 1.)
 */
SCOPE_BPF_IMPL_ONCE
void scope_bpf_impl_fast_lock(struct scope_bpf_impl_fast_proc *p, int pid)
{
	int held = 0;

	while (!__atomic_compare_exchange_n(&p->lock, &held, pid, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		if (held != pid && held != 1 &&
		    __atomic_compare_exchange_n(&p->lock, &held, pid, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
		scope_bpf_impl_syscall(SCOPE_BPF_IMPL_SYS_YIELD);
		held = 0;
	}
}

SCOPE_BPF_IMPL_ONCE
struct scope_bpf_impl_fast_hdr *scope_bpf_impl_fast_make(int pid)
{
	struct scope_bpf_impl_fast_proc *p = &scope_bpf_impl_fast_proc;
	struct scope_bpf_impl_fast_hdr *hdr;
	void *m = (void *)-1;
	int fd;

	fd = (int)scope_bpf_impl_syscall(SCOPE_BPF_IMPL_SYS_MEMFD, "scope-bpf-fast",
					 SCOPE_BPF_IMPL_MFD_FLAGS);
	if (fd >= 0 && !scope_bpf_impl_ftruncate(fd, (long)SCOPE_BPF_IMPL_FAST_SIZE))
		m = scope_bpf_impl_mmap(0, SCOPE_BPF_IMPL_FAST_SIZE, SCOPE_BPF_IMPL_PROT_RW,
					SCOPE_BPF_IMPL_MAP_SHARED, fd, 0);
	if (m == (void *)-1) {
		if (fd >= 0)
			scope_bpf_impl_close(fd);
		p->failed_pid = pid;
		return 0;
	}
	hdr = (struct scope_bpf_impl_fast_hdr *)m;
	hdr->version = SCOPE_BPF_IMPL_FAST_VERSION;
	hdr->pid = (uint32_t)pid;
	hdr->clock = scope_bpf_impl_fast_clock();
	hdr->slots = SCOPE_BPF_IMPL_FAST_SLOTS;
	hdr->ring = SCOPE_BPF_IMPL_FAST_RING;
	hdr->stack = SCOPE_BPF_IMPL_FAST_STACK;
	hdr->gen = (uint32_t)pid * 2654435761u | 1;
	hdr->size = SCOPE_BPF_IMPL_FAST_SIZE;
	__atomic_store_n(&hdr->magic, SCOPE_BPF_IMPL_FAST_MAGIC, __ATOMIC_RELEASE);
	p->fd = fd;
	p->owned = 1;
	p->pid = pid;
	__atomic_store_n(&p->hdr, hdr, __ATOMIC_RELEASE);
	SCOPE_BPF_IMPL_PROBE_SEM(fast_ready, scope_bpf_fast_semaphore, "8@%0 -4@%1", "r"(hdr),
				 "r"(fd));
	return hdr;
}

/* n as decimal digits at out; returns the end. */
static inline char *scope_bpf_impl_decimal(char *out, unsigned int n)
{
	char digits[10];
	int k = 0;

	do
		digits[k++] = (char)('0' + n % 10);
	while ((n /= 10));
	while (k)
		*out++ = digits[--k];
	return out;
}

/* Whether descriptor fd of this process is the fast path's memory (by its memfd name). */
SCOPE_BPF_IMPL_ONCE
int scope_bpf_impl_fast_is_ours(unsigned int fd)
{
	static const char want[] = "/memfd:scope-bpf-fast (deleted)";
	char path[32] = "/proc/self/fd/", link[sizeof(want)];
	long n;

	*scope_bpf_impl_decimal(path + 14, fd) = 0;
	n = scope_bpf_impl_readlink(path, link, sizeof(link));
	return n == (long)sizeof(want) - 1 && !__builtin_memcmp(link, want, sizeof(want) - 1);
}

/*
 * Another object of this process (a library loaded with dlopen, which does
 * not share the executable's symbols) may have made the memory already: find
 * it among the process's descriptors, so a thread keeps one ring.
 */
SCOPE_BPF_IMPL_ONCE
struct scope_bpf_impl_fast_hdr *scope_bpf_impl_fast_find(int pid)
{
	struct scope_bpf_impl_fast_proc *p = &scope_bpf_impl_fast_proc;
	struct scope_bpf_impl_fast_hdr *hdr = 0;
	unsigned short reclen;
	unsigned int fd;
	char buf[4096], *name;
	long n, at;
	void *m;
	int dir;

	dir = scope_bpf_impl_open("/proc/self/fd", SCOPE_BPF_IMPL_O_RDONLY_CLOEXEC);
	if (dir < 0)
		return 0;
	while (!hdr && (n = scope_bpf_impl_syscall(SCOPE_BPF_IMPL_SYS_GETDENTS, dir, buf,
						    sizeof(buf))) > 0) {
		/* struct linux_dirent64: ino, off, reclen (u16), type (u8), name. */
		for (at = 0; at + 19 < n && !hdr; at += reclen) {
			__builtin_memcpy(&reclen, buf + at + 16, sizeof(reclen));
			if (!reclen)
				break;
			name = buf + at + 19;
			for (fd = 0; *name >= '0' && *name <= '9'; name++)
				fd = fd * 10 + (unsigned int)(*name - '0');
			if (*name || (int)fd == dir || !scope_bpf_impl_fast_is_ours(fd))
				continue;
			m = scope_bpf_impl_mmap(0, SCOPE_BPF_IMPL_FAST_SIZE, SCOPE_BPF_IMPL_PROT_RW,
						SCOPE_BPF_IMPL_MAP_SHARED, (int)fd, 0);
			if (m == (void *)-1)
				continue;
			hdr = (struct scope_bpf_impl_fast_hdr *)m;
			if (__atomic_load_n(&hdr->magic, __ATOMIC_ACQUIRE) != SCOPE_BPF_IMPL_FAST_MAGIC ||
			    hdr->pid != (uint32_t)pid) {
				scope_bpf_impl_munmap(m, SCOPE_BPF_IMPL_FAST_SIZE);
				hdr = 0;
			} else {
				p->fd = (int)fd;
				p->owned = 0;
				p->pid = pid;
				__atomic_store_n(&p->hdr, hdr, __ATOMIC_RELEASE);
			}
		}
	}
	scope_bpf_impl_close(dir);
	return hdr;
}

/* The process's memory, made by the first thread that needs it; NULL when it cannot be. */
SCOPE_BPF_IMPL_ONCE
struct scope_bpf_impl_fast_hdr *scope_bpf_impl_fast_memory(void)
{
	struct scope_bpf_impl_fast_proc *p = &scope_bpf_impl_fast_proc;
	struct scope_bpf_impl_fast_hdr *hdr;
	int pid = scope_bpf_impl_getpid();

	if (!scope_bpf_impl_fast_forkwatch) {
		scope_bpf_impl_fast_forkwatch = 1;
		scope_bpf_impl_atfork(0, 0, scope_bpf_impl_fast_child);
	}
	scope_bpf_impl_fast_lock(p, pid);
	scope_bpf_impl_fast_forget(p, pid);
	hdr = __atomic_load_n(&p->hdr, __ATOMIC_ACQUIRE);
	if (!hdr && p->failed_pid != pid)
		hdr = scope_bpf_impl_fast_find(pid);
	if (!hdr && p->failed_pid != pid)
		hdr = scope_bpf_impl_fast_make(pid);
	__atomic_store_n(&p->lock, 0, __ATOMIC_RELEASE);
	return hdr;
}

/* This object's views, made once; NULL where the kernel would not wipe them in a child. */
SCOPE_BPF_IMPL_ONCE
struct scope_bpf_impl_fast_view *scope_bpf_impl_fast_views_get(void)
{
	struct scope_bpf_impl_fast_view *views, *none = 0;
	const size_t size = SCOPE_BPF_IMPL_FAST_SLOTS * sizeof(*views);
	void *m;

	views = __atomic_load_n(&scope_bpf_impl_fast_views, __ATOMIC_ACQUIRE);
	if (views)
		return views;
	m = scope_bpf_impl_mmap(0, size, SCOPE_BPF_IMPL_PROT_RW, SCOPE_BPF_IMPL_MAP_PRIVATE_ANON, -1,
				0);
	if (m == (void *)-1)
		return 0;
	views = (struct scope_bpf_impl_fast_view *)m;
	if (scope_bpf_impl_madvise(m, size, SCOPE_BPF_IMPL_MADV_WIPEONFORK) ||
	    !__atomic_compare_exchange_n(&scope_bpf_impl_fast_views, &none, views, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		scope_bpf_impl_munmap(m, size);
		return none;
	}
	return views;
}

/* A slot for this thread (the one another object of it holds, or a free one), and its view. */
SCOPE_BPF_IMPL_ONCE
struct scope_bpf_impl_fast_view *scope_bpf_impl_fast_claim(struct scope_bpf_impl_fast_hdr *hdr,
							    struct scope_bpf_impl_fast_view *views)
{
	struct scope_bpf_impl_fast_slot *slots = (struct scope_bpf_impl_fast_slot *)
		((char *)hdr + SCOPE_BPF_IMPL_FAST_SLOTS_AT);
	uint32_t tid = (uint32_t)scope_bpf_impl_syscall(SCOPE_BPF_IMPL_SYS_GETTID), free_tid;
	struct scope_bpf_impl_fast_view *v;
	int i, found = -1;

	for (i = 0; i < SCOPE_BPF_IMPL_FAST_SLOTS && found < 0; i++)
		if (__atomic_load_n(&slots[i].tid, __ATOMIC_ACQUIRE) == tid)
			found = i;
	for (i = 0; i < SCOPE_BPF_IMPL_FAST_SLOTS && found < 0; i++) {
		free_tid = 0;
		if (__atomic_compare_exchange_n(&slots[i].tid, &free_tid, tid, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			found = i;
	}
	if (found < 0)
		return 0;
	v = &views[found];
	v->ring = (struct scope_bpf_impl_fast_rec *)((char *)hdr + SCOPE_BPF_IMPL_FAST_RINGS_AT) +
		  (uint64_t)found * SCOPE_BPF_IMPL_FAST_RING;
	v->hdr = hdr;
	v->clock = hdr->clock;
	v->limit = 0;
	v->skip = 0;
	v->woke = 0;
	v->slot = &slots[found];
	return v;
}

/*
 * The ring looked too full to take need: read the recorder's tail again.
 * The limit stops at half a ring first, so that this runs once per half
 * ring written: past it, the recorder, which sleeps while nothing is
 * written, is woken (fast_wake), once per tail it has read to.
 */
SCOPE_BPF_IMPL_ONCE
int scope_bpf_impl_fast_room(struct scope_bpf_impl_fast_view *v, uint64_t need)
{
	uint64_t tail = __atomic_load_n(&v->slot->tail, __ATOMIC_ACQUIRE);

	if (need <= tail + SCOPE_BPF_IMPL_FAST_RING / 2) {
		v->limit = tail + SCOPE_BPF_IMPL_FAST_RING / 2;
		return 1;
	}
	if (v->woke != tail + 1) {
		v->woke = tail + 1;
		SCOPE_BPF_IMPL_PROBE_SEM(fast_wake, scope_bpf_fast_semaphore, "8@%0",
					 "r"(v->slot));
	}
	v->limit = tail + SCOPE_BPF_IMPL_FAST_RING;
	return need <= v->limit;
}

/* The kernel reads the descriptor and names it to the recorder, once per recording. */
SCOPE_BPF_IMPL_ONCE
void scope_bpf_impl_fast_announce(struct scope_bpf_site *site, uint32_t gen)
{
	SCOPE_BPF_IMPL_PROBE_SEM(fast_site, scope_bpf_fast_semaphore, "8@%0", "r"(site));
	site->announced = gen;
}

/*
 * A thread's first marker under a fast tracer, or its first in a child whose
 * fork skipped the handler (its view wiped): give it a slot in this process's
 * memory. NULL when it has none: no slot or no memory, and its markers fire
 * their probes (the kernel path).
 */
SCOPE_BPF_IMPL_ONCE
struct scope_bpf_impl_fast_view *scope_bpf_impl_fast_first(struct scope_bpf_impl_fast_tls *t)
{
	struct scope_bpf_impl_fast_view *views, *v = 0;
	struct scope_bpf_impl_fast_hdr *hdr = 0;

	if (t->none)
		return 0;
	views = scope_bpf_impl_fast_views_get();
	if (views)
		hdr = scope_bpf_impl_fast_memory();
	if (hdr)
		v = scope_bpf_impl_fast_claim(hdr, views);
	if (hdr && !v)
		__atomic_fetch_add(&hdr->unslotted, 1, __ATOMIC_RELAXED);
	t->view = v ? v : &scope_bpf_impl_fast_blank;
	t->none = !v;
	return v;
}
#pragma GCC diagnostic pop

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SCOPE_BPF_SLOW_H */
