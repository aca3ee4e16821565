/* The recorder's life cycle: load, follow the targets, record, end at one instant, write. */
#ifndef SB_RECORDER_H
#define SB_RECORDER_H

#include "cmd/record_opts.h"

/*
 * Record what o asks for, with every wanted data source. Returns the exit
 * status: the launched command's, or 0/1/2 for the recorder's own outcome,
 * after saying why on stderr.
 */
int sb_record(const struct record_opts *o);

/* One line on stderr, "scope-bpf record: " first. */
void record_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
