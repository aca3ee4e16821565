/* Shared by the fuzz targets: hand the input to a reader as a file, then check what came back. */
#ifndef SB_FUZZ_H
#define SB_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/index_rules.h"
#include "model/model.h"
#include "util/error.h"

static char fuzz_path[256];

static void fuzz_unlink(void)
{
	unlink(fuzz_path);
}

/*
 * The input as a file the readers can open by name (HDF5 cannot open a memfd
 * through /proc). In SB_FUZZ_TMPDIR when set: a crash skips atexit, so
 * tests/fuzz/run.sh gives each run a folder and removes it after.
 */
static const char *fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	const char *dir;

	if (fd < 0) {
		dir = getenv("SB_FUZZ_TMPDIR");
		if (!dir)
			dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		snprintf(fuzz_path, sizeof(fuzz_path), "%s/sb-fuzz-XXXXXX", dir);
		fd = mkstemp(fuzz_path);
		if (fd < 0)
			abort();
		atexit(fuzz_unlink);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	return fuzz_path;
}

/*
 * What every reader promises: on failure one line naming the file and an
 * empty profile; on success an index that follows FORMAT.md, each pair's
 * calls by start, none ending before it starts, statistics that count them.
 */
static void fuzz_check(const char *path, int ret, const struct sb_profile *p,
		       const struct sb_error *err)
{
	size_t i, n = strlen(path);
	const struct sb_pair *q;
	const struct sb_event *e;
	char why[256];
	uint64_t k;

	if (ret) {
		if (ret >= 0 || strncmp(err->msg, path, n) || strncmp(err->msg + n, ": ", 2) ||
		    strchr(err->msg, '\n') || p->n_regions || p->n_pairs || p->events)
			abort();
		return;
	}
	if (!p->events || !p->format || sb_profile_check_index(p, why, sizeof(why)))
		abort();
	for (i = 0; i < p->n_pairs; i++) {
		q = &p->pairs[i];
		if (q->stats.count != q->count)
			abort();
		/* An aggregate's rows count calls it summed: there are no events to check. */
		for (k = 0; k < q->count && !p->agg.on; k++) {
			e = &p->events[q->offset + k];
			if (e->end < e->start || (k && e->start < e[-1].start))
				abort();
		}
	}
}

#endif
