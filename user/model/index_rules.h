/* The index rules of FORMAT.md, checked the same way by readers and the writer. */
#ifndef SB_INDEX_RULES_H
#define SB_INDEX_RULES_H

#include <stddef.h>

#include "model/model.h"

/*
 * Rows inside the events, not overlapping, covering every event, at least one
 * call each, one row per (rank, region), every region with a row; an
 * aggregate's rows count calls and point at no event. Returns 0,
 * or -EINVAL (-ENOMEM) with the broken rule in why.
 */
int sb_profile_check_index(const struct sb_profile *p, char *why, size_t len);

#endif
