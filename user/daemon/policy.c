/* scope-bpfd's policy file: see policy.h and docs/CLUSTERS.md. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/policy.h"

#define LINE_MAX_BYTES 1024
#define MAX_RECORDINGS 1000

void sb_policy_defaults(struct sb_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->max_recordings = 4;
	p->max_buffer = 1ull << 30;
}

struct line {
	const char *name;
	unsigned no;
	char *word[4];
	int n;
	struct sb_error *err;
	unsigned seen;		/* bit per setting: each may be given once */
};

/* The policy's line l is bad: "file:line: cause". */
#define bad(l, ...) sb_fail_line((l)->err, EINVAL, (l)->name, (l)->no, __VA_ARGS__)

static int parse_count(struct line *l, unsigned *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(l->word[1], &end, 10);
	if (errno || *end || end == l->word[1] || v < 1 || v > MAX_RECORDINGS)
		return bad(l, "%s: '%s' is not a number from 1 to 1000", l->word[0], l->word[1]);
	*out = (unsigned)v;
	return 0;
}

/* A size in bytes with an optional K, M or G (powers of 1024), at least 1 MiB. */
static int parse_size(struct line *l, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	errno = 0;
	v = strtoull(l->word[1], &end, 10);
	if (*end == 'K' || *end == 'M' || *end == 'G')
		shift = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
	if (shift)
		end++;
	if (errno || *end || end == l->word[1] || l->word[1][0] == '-' || v > (1ull << 40) ||
	    (v << shift) < (1ull << 20))
		return bad(l, "%s: '%s' is not a size from 1M to 1024G (a number with K, M or G)",
			   l->word[0], l->word[1]);
	*out = v << shift;
	return 0;
}

static int parse_seconds(struct line *l, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(l->word[1], &end);
	if (errno || *end || end == l->word[1] || !(v >= 0 && v <= 1e7))
		return bad(l, "%s: '%s' is not a number of seconds from 0 to 10000000", l->word[0],
			   l->word[1]);
	*out = v;
	return 0;
}

static int parse_grant(struct sb_policy *p, struct line *l, enum sb_grant what)
{
	struct group *g = getgrnam(l->word[1]);
	size_t *n = &p->n_groups[what];

	if (!g)
		return bad(l, "%s: no such group '%s'", l->word[0], l->word[1]);
	if (*n == SB_POLICY_MAX_GROUPS)
		return bad(l, "%s: more than %d groups", l->word[0], SB_POLICY_MAX_GROUPS);
	p->groups[what][(*n)++] = g->gr_gid;
	return 0;
}

static const char *const settings[] = {
	"max-recordings", "max-buffer", "max-duration", "allow-system-wide",
	"allow-kernel-stacks",
};

static int parse_setting(struct sb_policy *p, struct line *l)
{
	size_t i;

	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (!strcmp(l->word[0], settings[i]))
			break;
	if (i == sizeof(settings) / sizeof(settings[0]))
		return bad(l, "unknown setting '%s'", l->word[0]);
	if (l->n != 2)
		return bad(l, "%s: takes one value, %s", l->word[0],
			   l->n < 2 ? "none given" : "more given");
	/* A grant may name one group per line, a limit only once. */
	if (i < 3 && (l->seen & (1u << i)))
		return bad(l, "%s: given twice", l->word[0]);
	l->seen |= 1u << i;
	switch (i) {
	case 0:
		return parse_count(l, &p->max_recordings);
	case 1:
		return parse_size(l, &p->max_buffer);
	case 2:
		return parse_seconds(l, &p->max_duration);
	case 3:
		return parse_grant(p, l, SB_GRANT_SYSTEM_WIDE);
	default:
		return parse_grant(p, l, SB_GRANT_KERNEL_STACKS);
	}
}

/* Words of one line without its comment; more than fit counts as one too many. */
static void split(struct line *l, char *text)
{
	char *save = NULL, *w;

	text[strcspn(text, "#\n")] = 0;
	l->n = 0;
	for (w = strtok_r(text, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
		if (l->n == 4)
			break;
		l->word[l->n++] = w;
	}
}

int sb_policy_parse(struct sb_policy *p, FILE *f, const char *name, struct sb_error *err)
{
	struct line l = { .name = name, .err = err };
	char text[LINE_MAX_BYTES + 2];
	size_t len;
	int ret;

	while (fgets(text, sizeof(text), f)) {
		l.no++;
		len = strlen(text);
		if (len > LINE_MAX_BYTES || (len && text[len - 1] != '\n' && !feof(f)))
			return bad(&l, "line longer than %d bytes", LINE_MAX_BYTES);
		split(&l, text);
		if (!l.n)
			continue;
		ret = parse_setting(p, &l);
		if (ret)
			return ret;
	}
	if (ferror(f))
		return sb_fail(err, EIO, "%s: read error", name);
	return 0;
}

int sb_policy_load(struct sb_policy *p, const char *path, struct sb_error *err)
{
	struct stat st;
	FILE *f;
	int fd, ret;

	sb_policy_defaults(p);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return sb_fail(err, errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return sb_fail(err, EPERM, "%s: must be a regular file owned by root and writable "
			       "by root only", path);
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return sb_fail(err, ENOMEM, "%s: %s", path, strerror(ENOMEM));
	}
	ret = sb_policy_parse(p, f, path, err);
	fclose(f);
	return ret;
}

bool sb_policy_grants(const struct sb_policy *p, enum sb_grant what, const gid_t *groups,
		      size_t n)
{
	size_t i, k;

	for (i = 0; i < p->n_groups[what]; i++)
		for (k = 0; k < n; k++)
			if (p->groups[what][i] == groups[k])
				return true;
	return false;
}
