/* libFuzzer target: the .spt reader on any bytes. */
#include "fuzz.h"
#include "spt_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct sb_error err = { { 0 } };
	struct sb_profile p;
	int ret;

	ret = sb_spt_read(path, &p, &err);
	fuzz_check(path, ret, &p, &err);
	sb_profile_free(&p);
	return 0;
}
