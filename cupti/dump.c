/* The records the library sends, also written to a file (dump.h). Callers hold the library's lock. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"

static int dump_fd = -1;

void sb_cuda_dump_open(void)
{
	const char *path = getenv("SCOPE_BPF_CUPTI_DUMP");

	if (!path || !*path)
		return;
	dump_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (dump_fd < 0)
		fprintf(stderr, "scope-bpf: SCOPE_BPF_CUPTI_DUMP=%s: cannot create: %s\n", path,
			strerror(errno));
}

/* A failed write ends the dump, with one line: the application goes on. */
static void put(const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (dump_fd >= 0 && len) {
		n = write(dump_fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "scope-bpf: SCOPE_BPF_CUPTI_DUMP: write failed: %s\n",
				n < 0 ? strerror(errno) : "no progress");
			close(dump_fd);
			dump_fd = -1;
			return;
		}
		p += n;
		len -= (size_t)n;
	}
}

void sb_cuda_dump_batch(const struct sb_cuda_rec *recs, __u32 n)
{
	struct sb_cuda_dump_head h = { { 'B', 'T', 'C', 'H' }, n, n * sizeof(*recs), 0 };

	if (dump_fd < 0)
		return;
	put(&h, sizeof(h));
	put(recs, h.bytes);
}

void sb_cuda_dump_name(__u32 id, const char *name)
{
	struct sb_cuda_dump_head h = { { 'N', 'A', 'M', 'E' }, id, 0, 0 };

	if (dump_fd < 0)
		return;
	h.bytes = (__u32)strnlen(name, SB_CUDA_NAME_MAX);
	put(&h, sizeof(h));
	put(name, h.bytes);
}
