/* record --annotations: which annotation libraries the command loads, and through which variable. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/annot_env.h"
#include "record/helper_lib.h"

struct annot_lib {
	const char *word;	/* in --annotations */
	unsigned bit;
	const char *var;	/* what the API reads */
	const char *file;
	const char *why;	/* when the library is not there */
};

static const struct annot_lib libs[] = {
	{ "nvtx", SB_ANNOT_NVTX, "NVTX_INJECTION64_PATH", "libscope_bpf_nvtx.so",
	  "it is built only where the CUDA toolkit's NVTX headers are (docs/ANNOTATIONS.md)" },
	{ "kokkos", SB_ANNOT_KOKKOS, "KOKKOS_TOOLS_LIBS", "libscope_bpf_kokkos.so",
	  "make did not build it (docs/ANNOTATIONS.md)" },
	{ "itt", SB_ANNOT_ITT, "INTEL_LIBITTNOTIFY64", "libscope_bpf_itt.so",
	  "make did not build it (docs/ANNOTATIONS.md)" },
};

#define N_LIBS (sizeof(libs) / sizeof(libs[0]))

static int parse_word(const char *w, size_t len, unsigned *mask, struct sb_error *err)
{
	size_t i;

	for (i = 0; i < N_LIBS; i++) {
		if (strlen(libs[i].word) == len && !strncmp(w, libs[i].word, len)) {
			*mask |= libs[i].bit;
			return 0;
		}
	}
	return sb_fail(err, EINVAL, "--annotations: '%.*s' is not nvtx, kokkos or itt (or all or "
		       "none alone)", (int)len, w);
}

int sb_annot_parse(const char *list, unsigned *mask, struct sb_error *err)
{
	const char *w = list, *comma;
	int ret;

	*mask = 0;
	if (!strcmp(list, "all")) {
		*mask = SB_ANNOT_ALL;
		return 0;
	}
	if (!strcmp(list, "none"))
		return 0;
	do {
		comma = strchr(w, ',');
		ret = parse_word(w, comma ? (size_t)(comma - w) : strlen(w), mask, err);
		if (ret)
			return ret;
		w = comma + 1;
	} while (comma);
	return 0;
}

static int set_one(const struct annot_lib *l, bool given, struct sb_error *err)
{
	char lib[PATH_MAX + 64], opt[64];
	const char *old = getenv(l->var);
	int ret;

	snprintf(opt, sizeof(opt), "--annotations=%s", l->word);
	ret = sb_helper_lib_locate(l->file, opt, l->why, lib, sizeof(lib), err);
	if (ret)
		return given ? ret : 0;
	if (old && *old && strcmp(old, lib)) {
		if (!given) {
			fprintf(stderr, "scope-bpf: %s is set (%s): its ranges go to that tool, not "
				"to this recording (%s replaces it)\n", l->var, old, opt);
			return 0;
		}
		fprintf(stderr, "scope-bpf: %s: %s was %s, now %s\n", opt, l->var, old, lib);
	}
	if (setenv(l->var, lib, 1))
		return sb_fail(err, errno, "%s: cannot set %s: %s", opt, l->var, strerror(errno));
	return 0;
}

int sb_annot_env_setup(unsigned mask, bool given, struct sb_error *err)
{
	size_t i;
	int ret;

	for (i = 0; i < N_LIBS; i++) {
		if (!(mask & libs[i].bit))
			continue;
		ret = set_one(&libs[i], given, err);
		if (ret)
			return ret;
	}
	return 0;
}
