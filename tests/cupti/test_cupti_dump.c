/* Unit: SCOPE_BPF_CUPTI_DUMP writes what the probes carry, in the layout dump.h gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dump.h"

static void test_batches_and_names_in_order(void **state)
{
	char path[] = "/tmp/sb-cupti-dump.XXXXXX", name[32];
	struct sb_cuda_rec recs[3], back[3];
	struct sb_cuda_dump_head h;
	FILE *f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	memset(recs, 0, sizeof(recs));
	recs[0].kind = SB_CUDA_KERNEL;
	recs[0].name_id = 4;
	recs[2].bytes = 77;
	setenv("SCOPE_BPF_CUPTI_DUMP", path, 1);
	sb_cuda_dump_open();
	sb_cuda_dump_name(4, "_Z5scalePfi");
	sb_cuda_dump_batch(recs, 3);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(&h, sizeof(h), 1, f), 1);
	assert_memory_equal(h.tag, "NAME", 4);
	assert_int_equal(h.value, 4);
	assert_int_equal(h.bytes, 11);
	assert_int_equal(fread(name, 1, h.bytes, f), 11);
	assert_memory_equal(name, "_Z5scalePfi", 11);
	assert_int_equal(fread(&h, sizeof(h), 1, f), 1);
	assert_memory_equal(h.tag, "BTCH", 4);
	assert_int_equal(h.value, 3);
	assert_int_equal(h.bytes, 3 * sizeof(struct sb_cuda_rec));
	assert_int_equal(fread(back, sizeof(back[0]), 3, f), 3);
	assert_memory_equal(back, recs, sizeof(recs));
	assert_int_equal(fread(&h, 1, 1, f), 0);
	fclose(f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches_and_names_in_order),
	};

	return cmocka_run_group_tests_name("cupti_dump", tests, NULL, NULL);
}
