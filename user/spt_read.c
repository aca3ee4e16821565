/* Read scope-profiler native traces (.spt), every declared length checked against the file first. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5write.h"
#include "profile_read.h"
#include "spt_read.h"

/* The smallest region each version can store: lengths and a call count, no bytes. */
#define MIN_REGION_V1 (4 + 8)
#define MIN_REGION_V2 (4 + 4 + 4 + 8)

struct spt {
	const char *path;	/* for messages */
	struct sb_error *err;
	FILE *f;
	uint64_t size;
	uint64_t off;		/* bytes consumed */
	int version;
	bool big_endian;
	int32_t rank;
	struct sb_read_build build;
};

/* One region as the file lists it. */
struct spt_region {
	char *name;
	char *file;
	int32_t line;
	int64_t *starts;
	int64_t *ends;
};

static int corrupt(struct spt *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int corrupt(struct spt *s, const char *fmt, ...)
{
	char cause[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	return sb_fail(s->err, EINVAL, "%s: %s", s->path, cause);
}

static int nomem(struct spt *s)
{
	return sb_fail(s->err, ENOMEM, "%s: out of memory", s->path);
}

static uint64_t left(const struct spt *s)
{
	return s->size - s->off;
}

/* An unsigned integer of n bytes in the file's byte order. */
static uint64_t decode(const unsigned char *b, size_t n, bool big_endian)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)b[big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

/* The next n bytes (what: their meaning, for messages) into buf. */
static int take(struct spt *s, void *buf, uint64_t n, const char *what)
{
	if (n > left(s))
		return corrupt(s, "truncated: %s needs %llu bytes at offset %llu, the file has %llu left",
			       what, (unsigned long long)n, (unsigned long long)s->off,
			       (unsigned long long)left(s));
	if (n && fread(buf, 1, n, s->f) != n)
		return corrupt(s, "cannot read %s at offset %llu (did the file change?)", what,
			       (unsigned long long)s->off);
	s->off += n;
	return 0;
}

static int take_i32(struct spt *s, int32_t *v, const char *what)
{
	unsigned char b[4];
	int ret = take(s, b, sizeof(b), what);

	if (!ret)
		*v = (int32_t)(uint32_t)decode(b, sizeof(b), s->big_endian);
	return ret;
}

static int take_i64(struct spt *s, int64_t *v, const char *what)
{
	unsigned char b[8];
	int ret = take(s, b, sizeof(b), what);

	if (!ret)
		*v = (int64_t)decode(b, sizeof(b), s->big_endian);
	return ret;
}

/* Byte order is whichever makes the version read 1 or 2: the file does not say otherwise. */
static int read_header(struct spt *s, int64_t *count)
{
	unsigned char magic[8], ver[4];
	uint64_t le, be, min;
	int ret;

	ret = take(s, magic, sizeof(magic), "the magic");
	if (ret)
		return ret;
	if (memcmp(magic, "SCOPEPRF", sizeof(magic)))
		return corrupt(s, "not a scope-profiler native trace (no SCOPEPRF magic)");
	ret = take(s, ver, sizeof(ver), "the version");
	if (ret)
		return ret;
	le = decode(ver, sizeof(ver), false);
	be = decode(ver, sizeof(ver), true);
	if (le == 1 || le == 2) {
		s->version = (int)le;
	} else if (be == 1 || be == 2) {
		s->version = (int)be;
		s->big_endian = true;
	} else {
		return corrupt(s, "unsupported .spt version (reads %llu little-endian, %llu big-endian; this reader knows 1 and 2)",
			       (unsigned long long)le, (unsigned long long)be);
	}
	ret = take_i32(s, &s->rank, "the rank");
	if (!ret)
		ret = take_i64(s, count, "the region count");
	if (ret)
		return ret;
	if (s->rank < 0 || (uint32_t)s->rank >= SB_H5_MAX_RANK)
		return corrupt(s, "rank %d out of range", s->rank);
	if (*count < 0)
		return corrupt(s, "region count %lld is negative", (long long)*count);
	min = s->version == 1 ? MIN_REGION_V1 : MIN_REGION_V2;
	if ((uint64_t)*count > left(s) / min)
		return corrupt(s, "region count %lld is more than the %llu bytes left can hold",
			       (long long)*count, (unsigned long long)left(s));
	return 0;
}

/* A length-prefixed string of region i (what: which one); empty_ok for optional ones. */
static int read_str(struct spt *s, uint64_t i, const char *what, bool empty_ok, char **out)
{
	char desc[96];
	int32_t len;
	char *buf;
	int ret;

	snprintf(desc, sizeof(desc), "region %llu: the %s length", (unsigned long long)i, what);
	ret = take_i32(s, &len, desc);
	if (ret)
		return ret;
	if (len < 0)
		return corrupt(s, "region %llu: %s length %d is negative", (unsigned long long)i,
			       what, len);
	if ((uint64_t)len > left(s))
		return corrupt(s, "region %llu: %s length %d runs past the end of the file (%llu bytes left)",
			       (unsigned long long)i, what, len, (unsigned long long)left(s));
	if ((uint32_t)len > SB_SPT_MAX_STRING)
		return corrupt(s, "region %llu: %s length %d is over the %u-byte limit",
			       (unsigned long long)i, what, len, SB_SPT_MAX_STRING);
	if (!len && !empty_ok)
		return corrupt(s, "region %llu: empty %s", (unsigned long long)i, what);
	buf = malloc((size_t)len + 1);
	if (!buf)
		return nomem(s);
	snprintf(desc, sizeof(desc), "region %llu: the %s", (unsigned long long)i, what);
	ret = take(s, buf, (uint64_t)len, desc);
	buf[ret ? 0 : len] = '\0';
	if (!ret && memchr(buf, '\0', (size_t)len))
		ret = corrupt(s, "region %llu: %s contains a NUL byte", (unsigned long long)i,
			      what);
	else if (!ret && !sb_h5_utf8_valid(buf))
		ret = corrupt(s, "region %llu: %s is not valid UTF-8", (unsigned long long)i, what);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	return 0;
}

/* n int64 times, read in one piece and converted in place. */
static int read_times(struct spt *s, int64_t *v, uint64_t n, const char *what)
{
	const unsigned char *b = (const unsigned char *)v;
	uint64_t k;
	int ret;

	ret = take(s, v, n * sizeof(*v), what);
	if (ret)
		return ret;
	/* Each element is read whole before it is written: in place is safe. */
	for (k = 0; k < n; k++)
		v[k] = (int64_t)decode(b + k * sizeof(*v), sizeof(*v), s->big_endian);
	return 0;
}

static int read_calls(struct spt *s, uint64_t i, struct spt_region *r)
{
	char why[320], name[SB_READ_PRINTABLE];
	struct sb_read_calls c;
	int64_t n;
	int ret;

	ret = take_i64(s, &n, "a call count");
	if (ret)
		return ret;
	if (n < 0)
		return corrupt(s, "region %llu ('%s'): call count %lld is negative",
			       (unsigned long long)i,
			       sb_read_printable(r->name, name, sizeof(name)), (long long)n);
	if ((uint64_t)n > left(s) / (2 * sizeof(int64_t)))
		return corrupt(s, "region %llu ('%s'): call count %lld runs past the end of the file (%llu bytes left)",
			       (unsigned long long)i,
			       sb_read_printable(r->name, name, sizeof(name)), (long long)n,
			       (unsigned long long)left(s));
	r->starts = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
	r->ends = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
	if (!r->starts || !r->ends)
		return nomem(s);
	ret = read_times(s, r->starts, (uint64_t)n, "start times");
	if (!ret)
		ret = read_times(s, r->ends, (uint64_t)n, "end times");
	if (ret)
		return ret;
	c = (struct sb_read_calls){ (uint32_t)s->rank, r->name, r->file, r->line, NULL, r->starts,
				    r->ends, (uint64_t)n };
	ret = sb_read_build_add(&s->build, &c, why, sizeof(why));
	if (ret == -ENOMEM)
		return nomem(s);
	return ret ? corrupt(s, "%s", why) : 0;
}

static int read_region(struct spt *s, uint64_t i)
{
	struct spt_region r = { NULL, NULL, -1, NULL, NULL };
	char desc[64], name[SB_READ_PRINTABLE];
	int ret;

	ret = read_str(s, i, "name", false, &r.name);
	if (!ret && s->version == 2) {
		ret = read_str(s, i, "source file", true, &r.file);
		snprintf(desc, sizeof(desc), "region %llu: the source line", (unsigned long long)i);
		if (!ret)
			ret = take_i32(s, &r.line, desc);
		if (!ret && r.line < -1)
			ret = corrupt(s, "region %llu ('%s'): bad source line %d",
				      (unsigned long long)i,
				      sb_read_printable(r.name, name, sizeof(name)), r.line);
	}
	if (!ret)
		ret = read_calls(s, i, &r);
	free(r.name);
	free(r.file);
	free(r.starts);
	free(r.ends);
	return ret;
}

static int read_trace(struct spt *s)
{
	char why[320];
	int64_t count = 0, i;
	int ret;

	ret = read_header(s, &count);
	for (i = 0; i < count && !ret; i++)
		ret = read_region(s, (uint64_t)i);
	if (ret)
		return ret;
	if (left(s))
		return corrupt(s, "%llu bytes of trailing data after the last region",
			       (unsigned long long)left(s));
	ret = sb_read_build_finish(&s->build, why, sizeof(why));
	if (ret == -ENOMEM)
		return nomem(s);
	if (ret)
		return corrupt(s, "%s", why);
	/* One file is one rank's trace; the run had at least this many. */
	if (sb_profile_set_int(s->build.p, "mpi_size", (int64_t)s->rank + 1))
		return nomem(s);
	if (asprintf(&s->build.p->format, "scope-profiler native trace (v%d)", s->version) < 0) {
		s->build.p->format = NULL;
		return nomem(s);
	}
	/* Not from an HDF5 schema. */
	s->build.p->schema = 0;
	return 0;
}

static int open_trace(struct spt *s)
{
	struct stat st;
	int fd;

	/* Non-blocking: a FIFO given as the trace must not hang the open. */
	fd = open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return sb_fail(s->err, ENOENT, "%s: no such file", s->path);
		return sb_fail(s->err, errno, "%s: %s", s->path, strerror(errno));
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return sb_fail(s->err, EINVAL, "%s: not a regular file", s->path);
	}
	s->size = (uint64_t)st.st_size;
	s->f = fdopen(fd, "rb");
	if (!s->f) {
		close(fd);
		return nomem(s);
	}
	return 0;
}

int sb_spt_read(const char *path, struct sb_profile *p, struct sb_error *err)
{
	struct spt s = { .path = path, .err = err };
	int ret;

	sb_profile_init(p);
	sb_read_build_init(&s.build, p);
	ret = open_trace(&s);
	if (!ret)
		ret = read_trace(&s);
	if (s.f)
		fclose(s.f);
	sb_read_build_free(&s.build);
	if (ret)
		sb_profile_free(p);
	return ret;
}
