/* "Did you mean": the known word closest to a mistyped one. */
#ifndef SB_SUGGEST_H
#define SB_SUGGEST_H

#include <getopt.h>
#include <stddef.h>

#include "util/error.h"

/*
 * The name in names[0..n) nearest to word by edit distance (insertions,
 * deletions, substitutions, and swaps of neighbours), when it is near enough to
 * be a typo: at most 2 edits and fewer than word has letters. NULL otherwise.
 */
const char *sb_suggest(const char *word, const char *const *names, size_t n);

/*
 * err says arg ("--sortt", "--sortt=x") is an unknown option, with the nearest
 * long option of longopts (NULL-terminated, as getopt_long() takes) when there is
 * one: "--sortt: unknown option; did you mean --sort?". Returns -EINVAL.
 */
int sb_unknown_option(const char *arg, const struct option *longopts, struct sb_error *err);

#endif
