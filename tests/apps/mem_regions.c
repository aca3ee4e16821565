/* Test app with known memory per region (record --memory). */

/*
 * A tracer reading memory per call must see, on the main thread, in order:
 *   "alloc64"  mallocs 64 MiB, writes all of it, frees it: the process's peak
 *              resident size grows by about 64 MiB, its resident size about 0
 *   "keep32"   mallocs 32 MiB and writes it, kept: resident size grows by
 *              about 32 MiB, the peak (64 MiB above) not at all
 *   "drop32"   frees those 32 MiB: about 32 MiB released
 *   "touch"    faults 4000 fresh pages (no huge pages) of a mapping kept:
 *              at least 4000 page faults, about 4000 pages resident more
 *   "outer"    1000 fresh pages itself, around "inner" (3000 pages): outer
 *              counts 4000 faults inclusive and about 1000 exclusive
 *   "idle"     nothing: about 0 of anything
 * The main thread waits 200 ms first, so a tracer that opens its thread's
 * slot when it first sees it run is ready.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pages.h"
#include "scope_bpf.h"

#define MIB (1024 * 1024)

static long page;

/* n bytes malloc'd and written, so every page is resident. */
static char *filled(size_t n)
{
	char *p = malloc(n);

	if (!p) {
		perror("malloc");
		exit(1);
	}
	memset(p, 1, n);
	/* The writes are used: the compiler may not drop them with the free. */
	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

int main(void)
{
	char *kept, *t = NULL, *o = NULL, *i = NULL;

	page = sysconf(_SC_PAGESIZE);
	usleep(200000);
	SCOPE_BPF_REGION("alloc64")
		free(filled(64 * MIB));
	SCOPE_BPF_REGION("keep32")
		kept = filled(32 * MIB);
	SCOPE_BPF_REGION("drop32")
		free(kept);
	t = fresh_pages(4000);
	o = fresh_pages(1000);
	i = fresh_pages(3000);
	SCOPE_BPF_REGION("touch")
		touch_pages(t, 4000);
	SCOPE_BPF_REGION("outer") {
		touch_pages(o, 1000);
		SCOPE_BPF_REGION("inner")
			touch_pages(i, 3000);
	}
	SCOPE_BPF_REGION("idle") {
	}
	munmap(t, 4000 * page);
	munmap(o, 1000 * page);
	munmap(i, 3000 * page);
	return 0;
}
