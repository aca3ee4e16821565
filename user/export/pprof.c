/* pprof's profile.proto, gzipped: the CPU and off-CPU samples with the region path as outermost frames. */
#include <errno.h>

#include "export/proto_export.h"

int sb_export_pprof(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	(void)f;
	(void)p;
	return sb_fail(err, ENOSYS, "pprof: not yet");
}
