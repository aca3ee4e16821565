/* Counter values per call, off the spill: appended, then mapped for reading in any order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/tmpfile.h"
#include "record/ctr_store.h"

/* Bytes of one call's values. */
static size_t call_bytes(const struct sb_ctr_store *s)
{
	return s->width * sizeof(int64_t);
}

int sb_ctr_store_init(struct sb_ctr_store *s, const char *dir)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->dir = strdup(dir);
	return s->dir ? 0 : -ENOMEM;
}

static int flush(struct sb_ctr_store *s)
{
	const char *p = (const char *)s->buf;
	size_t len = s->n_buf * call_bytes(s);
	off_t off = (off_t)((s->n - s->n_buf) * call_bytes(s));
	ssize_t w;

	if (s->fd < 0) {
		s->fd = sb_tmpfile_anon(s->dir);
		if (s->fd < 0)
			return s->error = s->fd;
	}
	while (len) {
		w = pwrite(s->fd, p, len, off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return s->error = w < 0 ? -errno : -ENOSPC;
		p += w;
		len -= (size_t)w;
		off += w;
	}
	s->n_buf = 0;
	return 0;
}

int sb_ctr_store_add(struct sb_ctr_store *s, const int64_t *values, size_t width,
		     int64_t *index)
{
	if (s->error)
		return s->error;
	if (!width || width > SB_CTR_VALUES || (s->width && width != s->width))
		return -EINVAL;
	s->width = width;
	if (s->n_buf == SB_CTR_STORE_BUF && flush(s))
		return s->error;
	memcpy(&s->buf[s->n_buf++ * width], values, call_bytes(s));
	*index = (int64_t)s->n++;
	return 0;
}

int sb_ctr_store_finish(struct sb_ctr_store *s)
{
	void *m;

	if (s->error)
		return s->error;
	/* Everything still in the buffer: read it there. */
	if (s->fd < 0) {
		s->map = s->buf;
		return 0;
	}
	if (s->n_buf && flush(s))
		return s->error;
	m = mmap(NULL, s->n * call_bytes(s), PROT_READ, MAP_PRIVATE, s->fd, 0);
	if (m == MAP_FAILED)
		return s->error = -errno;
	s->map = m;
	s->map_len = s->n * call_bytes(s);
	return 0;
}

const int64_t *sb_ctr_store_get(const struct sb_ctr_store *s, int64_t index)
{
	if (!s->map || index < 0 || (uint64_t)index >= s->n)
		return NULL;
	return &s->map[(uint64_t)index * s->width];
}

void sb_ctr_store_free(struct sb_ctr_store *s)
{
	if (s->map_len)
		munmap((void *)s->map, s->map_len);
	if (s->fd >= 0)
		close(s->fd);
	free(s->dir);
	s->dir = NULL;
	s->fd = -1;
	s->map = NULL;
	s->map_len = 0;
	s->n = s->n_buf = s->width = 0;
}
