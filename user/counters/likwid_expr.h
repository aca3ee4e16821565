/*
 * LIKWID metric formulas: + - * / and parentheses over numbers (1.E-06,
 * 1.0E-06, 64), counter names (FIXC1, PMC3:EDGEDETECT, CBOX0C0:STATE=0x3F),
 * `time` and `inverseClock`, compiled once and evaluated per region and thread.
 */
#ifndef SB_COUNTERS_LIKWID_EXPR_H
#define SB_COUNTERS_LIKWID_EXPR_H

#include <stdbool.h>

#include "util/error.h"

/*
 * Compile text; counter names are looked up in names[0..n_names). A name
 * at index >= n_counted is a counter the group lists but does not count
 * per thread: it evaluates to NaN. Errors say what is wrong at which
 * column ("unknown counter X", "unbalanced parenthesis").
 */
struct sb_likwid_expr *sb_likwid_expr_compile(const char *text, char *const *names,
					      unsigned int n_names, unsigned int n_counted,
					      struct sb_error *err);

/* Whether the formula reads a counter at index >= n_counted (so it is always NaN). */
bool sb_likwid_expr_uncounted(const struct sb_likwid_expr *e);

/* The value for counts[i] of names[i]; NaN on a division by zero or an uncounted counter. */
double sb_likwid_expr_eval(const struct sb_likwid_expr *e, const double *counts, double time_s,
			   double inverse_clock);

void sb_likwid_expr_free(struct sb_likwid_expr *e);

#endif
