/* The timed samples of a recording, kept in bounded memory until the end (sample_log.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/tmpfile.h"
#include "record/sources/sample_log.h"

#define RINGBUF_HDR 8	/* what the kernel puts before each ring record */
#define READ_CHUNK 1024

int sb_sample_log_init(struct sb_sample_log *l, const char *dir, uint64_t max, size_t mem)
{
	memset(l, 0, sizeof(*l));
	l->max = max;
	l->mem = mem ? mem : 1;
	l->dir = strdup(dir);
	l->buf = malloc(l->mem * sizeof(*l->buf));
	if (!l->dir || !l->buf) {
		sb_sample_log_free(l);
		return -ENOMEM;
	}
	return 0;
}

/* The buffer to the file, created on first use; on failure its records are dropped. */
static void flush_buffer(struct sb_sample_log *l)
{
	int fd;

	if (!l->file && !l->error) {
		fd = sb_tmpfile_anon(l->dir);
		l->file = fd >= 0 ? fdopen(fd, "w+") : NULL;
		if (!l->file) {
			l->error = fd < 0 ? fd : -errno;
			if (fd >= 0)
				close(fd);
		}
	}
	/* At the end, as a read back may have moved the position. */
	if (l->file && !l->error && (fseek(l->file, 0, SEEK_END) ||
	    fwrite(l->buf, sizeof(*l->buf), l->n_buf, l->file) != l->n_buf))
		l->error = errno ? -errno : -EIO;
	/* A short write leaves part of a batch in the file: the batch counts as lost whole. */
	if (l->error)
		l->dropped += l->n_buf;
	else
		l->n_file += l->n_buf;
	l->n_buf = 0;
}

void sb_sample_log_add(struct sb_sample_log *l, const struct sb_sample_event *e)
{
	if (sb_sample_log_count(l) >= l->max) {
		l->dropped++;
		return;
	}
	if (l->n_buf == l->mem)
		flush_buffer(l);
	l->buf[l->n_buf++] = *e;
}

uint64_t sb_sample_log_count(const struct sb_sample_log *l)
{
	return l->n_file + l->n_buf;
}

/* The records written to the file, in chunks. */
static int each_in_file(struct sb_sample_log *l,
			int (*fn)(void *ctx, const struct sb_sample_event *e), void *ctx)
{
	struct sb_sample_event chunk[READ_CHUNK];
	uint64_t left = l->n_file;
	size_t want, i;
	int ret;

	if (!left)
		return 0;
	if (fflush(l->file) || fseek(l->file, 0, SEEK_SET))
		return -errno;
	while (left) {
		want = left < READ_CHUNK ? (size_t)left : READ_CHUNK;
		if (fread(chunk, sizeof(*chunk), want, l->file) != want)
			return ferror(l->file) ? -EIO : -ENODATA;
		for (i = 0; i < want; i++) {
			ret = fn(ctx, &chunk[i]);
			if (ret)
				return ret;
		}
		left -= want;
	}
	return 0;
}

int sb_sample_log_each(struct sb_sample_log *l,
		       int (*fn)(void *ctx, const struct sb_sample_event *e), void *ctx)
{
	size_t i;
	int ret;

	ret = each_in_file(l, fn, ctx);
	for (i = 0; !ret && i < l->n_buf; i++)
		ret = fn(ctx, &l->buf[i]);
	return ret;
}

void sb_sample_log_free(struct sb_sample_log *l)
{
	if (l->file)
		fclose(l->file);
	free(l->buf);
	free(l->dir);
	memset(l, 0, sizeof(*l));
}

__u32 sb_sample_ring_bytes(int hz, int ncpu)
{
	uint64_t want = (uint64_t)(hz > 0 ? hz : 0) * (uint64_t)(ncpu > 0 ? ncpu : 1) *
			(sizeof(struct sb_sample_event) + RINGBUF_HDR) * SB_SAMPLE_RING_SECONDS;
	__u32 bytes = SB_SAMPLE_RING_MIN;

	while (bytes < SB_SAMPLE_RING_MAX && bytes < want)
		bytes <<= 1;
	return bytes;
}
