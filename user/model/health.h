/* What a recording could not keep: the recorder's loss counters, each with what it means and why. */
#ifndef SB_HEALTH_H
#define SB_HEALTH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

/*
 * How the recording was made (string metadata): "command" (it launched the
 * command), "attached" (record -p), "system-wide" (record -a); a merge of
 * recordings made differently says "mixed". Files without it do not say.
 */
#define SB_META_RECORD_SCOPE "record_scope"
#define SB_RECORD_SCOPE_COMMAND "command"

/* One int64 metadata key the recorder writes when calls or samples went unrecorded. */
struct sb_health_key {
	const char *key;	/* metadata key */
	const char *label;	/* after the count: "events were lost" */
	const char *brief;	/* in one-line summaries: "lost" */
	const char *hint;	/* the likely cause, and what it did to the numbers */
};

/* Every loss counter, in the order reports show them. */
extern const struct sb_health_key sb_health_keys[];
extern const size_t sb_health_n_keys;

/* The counter's value in p's metadata; 0 when absent or not an int. */
int64_t sb_health_value(const struct sb_profile *p, const char *key);

/*
 * k's label and hint as they hold for p: where they name attaching to a
 * running process as a cause, a recording that launched its command has
 * words of its own.
 */
const char *sb_health_label(const struct sb_profile *p, const struct sb_health_key *k);
const char *sb_health_hint(const struct sb_profile *p, const struct sb_health_key *k);

/*
 * One "indentwarning: N label (key): hint" line for every non-zero counter,
 * plus the regions named by regions_open_at_start when there are some.
 * Returns the number of lines that are warnings (0: the recording kept all).
 */
size_t sb_health_print(FILE *f, const struct sb_profile *p, const char *indent);

/*
 * "N lost" and ", N brief" for every other non-zero counter, in buf (always
 * NUL-terminated when len > 0), from p's metadata alone, so the recorder can
 * append it to its one-line summary. Returns what snprintf would: the length
 * the whole text needs.
 */
size_t sb_health_summary(const struct sb_profile *p, char *buf, size_t len);

#endif
