/* Fresh pages for the test apps: one page fault per page touched (record -e, --memory). */
#ifndef APPS_PAGES_H
#define APPS_PAGES_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static inline long page_bytes(void)
{
	static long page;

	if (!page)
		page = sysconf(_SC_PAGESIZE);
	return page;
}

/* Pages never touched, no huge pages: touching each faults once. */
static inline char *fresh_pages(size_t pages)
{
	char *p = mmap(NULL, pages * page_bytes(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, pages * page_bytes(), MADV_NOHUGEPAGE);
	return p;
}

static inline void touch_pages(char *p, size_t pages)
{
	size_t i;

	for (i = 0; i < pages; i++)
		((volatile char *)p)[i * page_bytes()] = 1;
}

#endif
