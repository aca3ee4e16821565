/* libFuzzer target: the JSON reader (and the JSON parser under it) on any bytes. */
#include "fuzz.h"
#include "io/json_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct sb_error err = { { 0 } };
	struct sb_profile p;
	int ret;

	ret = sb_json_read(path, &p, &err);
	fuzz_check(path, ret, &p, &err);
	sb_profile_free(&p);
	return 0;
}
