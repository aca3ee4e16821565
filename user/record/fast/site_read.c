/* Reading a site descriptor from a traced process (site_read.h). */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "record/fast/layout.h"
#include "record/fast/site_read.h"

static int read_remote(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EFAULT;
}

/* Read a page at a time, so a string that ends just before an unmapped page is still read. */
int sb_read_remote_string(pid_t pid, uint64_t addr, char *out, size_t size)
{
	size_t got = 0, chunk;
	ssize_t n;

	struct iovec local, remote;

	while (got < size - 1) {
		chunk = 4096 - ((addr + got) & 4095);
		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		local = (struct iovec){ out + got, chunk };
		remote = (struct iovec){ (void *)(uintptr_t)(addr + got), chunk };
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			break;
		if (memchr(out + got, 0, (size_t)n))
			return 0;
		got += (size_t)n;
	}
	out[got] = 0;
	return got ? 0 : -EFAULT;
}

int sb_fast_site_read(pid_t pid, uint64_t addr, struct sb_fast_site *s)
{
	struct scope_bpf_site d;
	int ret;

	memset(s, 0, sizeof(*s));
	if (addr & 7)
		return -EINVAL;
	ret = read_remote(pid, addr, &d, sizeof(d));
	if (ret)
		return ret;
	if (d.magic != SCOPE_BPF_SITE_MAGIC || d.version != SCOPE_BPF_SITE_VERSION || !d.name)
		return -EINVAL;
	ret = sb_read_remote_string(pid, (uint64_t)(uintptr_t)d.name, s->name, sizeof(s->name));
	if (ret || !s->name[0])
		return ret ? ret : -EINVAL;
	if (d.file)
		sb_read_remote_string(pid, (uint64_t)(uintptr_t)d.file, s->file, sizeof(s->file));
	if (d.tags)
		sb_read_remote_string(pid, (uint64_t)(uintptr_t)d.tags, s->tags, sizeof(s->tags));
	s->line = d.line;
	return 0;
}
