/* Exports in protobuf formats: Perfetto's native trace and pprof's profile.proto (docs/EXPORTS.md). */
#ifndef SB_PROTO_EXPORT_H
#define SB_PROTO_EXPORT_H

#include <stdio.h>

#include "util/error.h"
#include "model/model.h"

/*
 * A Perfetto trace (perfetto.protos.Trace): a process track per rank, a
 * thread track per thread with the calls as nested slices, counter tracks
 * per thread for the per-call metrics, a track per GPU device and stream.
 * Streamed: memory beyond p is O(threads * (regions + depth)). Returns the
 * number of calls left out because they overlap a call of their thread
 * without nesting (corrupt input), or -errno with the cause in err.
 */
int sb_export_perfetto(FILE *f, const struct sb_profile *p, struct sb_error *err);

/*
 * A gzipped pprof profile (perftools.profiles.Profile) of the CPU and
 * off-CPU samples, the region path as the outermost frames. -EINVAL when p
 * has no samples, as for the other exports of samples.
 */
int sb_export_pprof(FILE *f, const struct sb_profile *p, struct sb_error *err);

#endif
