/* "Did you mean": optimal string alignment distance over short words. */
#include <errno.h>
#include <string.h>

#include "cmd/suggest.h"

#define WORD_MAX 64	/* longer words are nobody's typo of an option or a command */
#define NEAR_ENOUGH 2

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Edits from a[0..la) to b[0..lb), both at most WORD_MAX long. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t d[WORD_MAX + 1][WORD_MAX + 1];
	size_t i, j, cost;

	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			cost = a[i - 1] != b[j - 1];
			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb];
}

/* The nearest of names to word[0..len), or NULL when none is near enough. */
static const char *nearest(const char *word, size_t len, const char *const *names, size_t n)
{
	size_t i, d, best_d = NEAR_ENOUGH + 1;
	const char *best = NULL;

	if (len > WORD_MAX)
		return NULL;
	for (i = 0; i < n; i++) {
		if (strlen(names[i]) > WORD_MAX)
			continue;
		d = distance(word, len, names[i], strlen(names[i]));
		if (d < best_d && d < len) {
			best_d = d;
			best = names[i];
		}
	}
	return best;
}

const char *sb_suggest(const char *word, const char *const *names, size_t n)
{
	return nearest(word, strlen(word), names, n);
}

int sb_unknown_option(const char *arg, const struct option *longopts, struct sb_error *err)
{
	const char *names[128], *best = NULL, *name;
	size_t n = 0, len;

	if (!strncmp(arg, "--", 2) && longopts) {
		name = arg + 2;
		len = strcspn(name, "=");
		while (longopts[n].name && n < sizeof(names) / sizeof(names[0])) {
			names[n] = longopts[n].name;
			n++;
		}
		best = nearest(name, len, names, n);
		if (best)
			return sb_fail(err, EINVAL, "%.*s: unknown option; did you mean --%s?",
				       (int)(len + 2), arg, best);
	}
	return sb_fail(err, EINVAL, "%s: unknown option", arg);
}
