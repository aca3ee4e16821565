/* libFuzzer target: format detection and the HDF5 reader, through sb_profile_read. */
#include "fuzz.h"
#include "io/profile_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * libhdf5 is not instrumented and trusts its files more than we do: a crash
 * whose top frames are inside it is HDF5's, listed in hdf5_crashers.txt,
 * not a bug of ours (see docs/FORMAT.md).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct sb_error err = { { 0 } };
	struct sb_profile p;
	int ret;

	ret = sb_profile_read(path, &p, &err);
	fuzz_check(path, ret, &p, &err);
	sb_profile_free(&p);
	return 0;
}
