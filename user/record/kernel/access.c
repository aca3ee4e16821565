/* Ask the kernel for a uprobe on a file nobody maps, so nothing is ever patched (access.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "record/detach.h"
#include "record/kernel/access.h"

#define UPROBE_TYPE "/sys/bus/event_source/devices/uprobe/type"

static int uprobe_type(void)
{
	FILE *f = fopen(UPROBE_TYPE, "re");
	int type = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

/* A page-long private file: a uprobe at its offset 0 is registered, and never hit. */
static int scratch_file(char *path, size_t size)
{
	static const char page[4096];
	int fd = memfd_create("scope-bpf-uprobe-access", MFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page)) {
		close(fd);
		return -EIO;
	}
	snprintf(path, size, "/proc/self/fd/%d", fd);
	return fd;
}

int sb_kernel_uprobe_access(struct sb_detach *held, struct sb_error *err)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .disabled = 1 };
	int type = uprobe_type(), fd, ev, code;
	char path[64];

	if (type < 0)
		return 0;
	fd = scratch_file(path, sizeof(path));
	if (fd < 0)
		return 0;	/* not a matter of rights: the real attach says what it is */
	attr.type = (__u32)type;
	attr.config1 = (__u64)(unsigned long)path;
	ev = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	code = errno;
	close(fd);
	/*
	 * Its close waits out RCU grace periods (about 0.1 s, most of a start):
	 * held is let go at the end (the guardian closes it). Closed at once
	 * only when it cannot be kept.
	 */
	if (ev >= 0) {
		sb_detach_keep_fd(held, ev);
		return 0;
	}
	if (code != EACCES && code != EPERM)
		return 0;
	return sb_fail(err, code, "the kernel refused to create a uprobe (%s): this kernel lets "
		       "only root or CAP_SYS_ADMIN create them, and every marker is one; run with "
		       "sudo", strerror(code));
}
