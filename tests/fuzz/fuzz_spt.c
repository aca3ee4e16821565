/* libFuzzer target: the .spt reader on any bytes, whole and as report reads it (calls left on disk). */
#include <stdlib.h>

#include "fuzz.h"
#include "analysis/calltree_stream.h"
#include "io/spt_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct sb_ct_opts o = { .rank = -1 };
	struct sb_error err = { { 0 } };
	struct sb_calltree t;
	struct sb_profile p;
	size_t n_events;
	int ret, lean;

	ret = sb_spt_read(path, &p, &err);
	fuzz_check(path, ret, &p, &err);
	n_events = p.n_events;
	sb_profile_free(&p);
	lean = sb_spt_read_tree(path, &p, &o, &t, &err);
	/* Both readers take or refuse the same files; the merged tree counts every call. */
	if (!lean != !ret || (!lean && (t.calls != n_events || p.events)))
		abort();
	if (lean)
		fuzz_check(path, lean, &p, &err);
	else
		sb_calltree_free(&t);
	sb_profile_free(&p);
	return 0;
}
