/*
 * CUDA runtime calls timed on the host, the parts that need no kernel: region
 * names and tags per docs/CUDA.md's grammar, stream labels, and the look-up
 * of the probed functions (one probe per address) in the installed libcudart.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/sources/cuda_host_lib.h"
#include "record/sources/cuda_host_names.h"

static void format(const struct sb_cuda_host_event *e, const char *kernel, const char *stream,
		   const char *want_name, const char *want_tags)
{
	char name[SB_CUDA_HOST_NAME_MAX], tags[SB_CUDA_HOST_TAGS_MAX];

	assert_int_equal(sb_cuda_host_format(e, kernel, stream, name, sizeof(name), tags,
					     sizeof(tags)), 0);
	assert_string_equal(name, want_name);
	assert_string_equal(tags, want_tags);
}

static void test_launch_name_and_tags(void **state)
{
	struct sb_cuda_host_event e = { .op = SB_CUDA_HOST_LAUNCH, .bytes = -1,
					.grid = { 64, 1, 1 }, .block = { 256, 2, 1 } };

	(void)state;
	format(&e, "_Z6scalePfi", "0",
	       "cuda:launch kernel=_Z6scalePfi grid=64x1x1 block=256x2x1 stream=0",
	       "cuda,cuda.operation:launch,cuda.kernel:_Z6scalePfi,cuda.grid:64x1x1,"
	       "cuda.block:256x2x1,cuda.stream:0");
}

static void test_copies_sets_and_allocations(void **state)
{
	struct sb_cuda_host_event e = { .op = SB_CUDA_HOST_MEMCPY, .bytes = 4096, .kind = 1 };

	(void)state;
	format(&e, "", "0", "cuda:memcpy bytes=4096 kind=host-to-device",
	       "cuda,cuda.operation:memcpy,cuda.bytes:4096,cuda.copy_kind:host-to-device");
	e.op = SB_CUDA_HOST_MEMCPY_ASYNC;
	e.kind = 3;
	format(&e, "", "2", "cuda:memcpy_async bytes=4096 kind=device-to-device stream=2",
	       "cuda,cuda.operation:memcpy_async,cuda.bytes:4096,cuda.copy_kind:device-to-device,"
	       "cuda.stream:2");
	e.kind = 9;	/* no cudaMemcpyKind */
	format(&e, "", "per-thread", "cuda:memcpy_async bytes=4096 kind=unknown stream=per-thread",
	       "cuda,cuda.operation:memcpy_async,cuda.bytes:4096,cuda.copy_kind:unknown,"
	       "cuda.stream:per-thread");
	e.op = SB_CUDA_HOST_MEMSET_ASYNC;
	format(&e, "", "legacy", "cuda:memset_async bytes=4096 stream=legacy",
	       "cuda,cuda.operation:memset_async,cuda.bytes:4096,cuda.stream:legacy");
	e.op = SB_CUDA_HOST_MALLOC;
	format(&e, "", "0", "cuda:malloc bytes=4096",
	       "cuda,cuda.operation:malloc,cuda.bytes:4096");
}

static void test_synchronizations_and_free(void **state)
{
	struct sb_cuda_host_event e = { .op = SB_CUDA_HOST_STREAM_SYNCHRONIZE, .bytes = -1 };

	(void)state;
	format(&e, "", "1", "cuda:stream_synchronize stream=1",
	       "cuda,cuda.operation:stream_synchronize,cuda.stream:1");
	e.op = SB_CUDA_HOST_DEVICE_SYNCHRONIZE;
	format(&e, "", "1", "cuda:device_synchronize", "cuda,cuda.operation:device_synchronize");
	e.op = SB_CUDA_HOST_EVENT_SYNCHRONIZE;
	format(&e, "", "1", "cuda:event_synchronize", "cuda,cuda.operation:event_synchronize");
	e.op = SB_CUDA_HOST_FREE;
	format(&e, "", "0", "cuda:free", "cuda,cuda.operation:free");
}

static void test_every_operation_is_named(void **state)
{
	unsigned int op;
	size_t i;

	(void)state;
	for (op = 0; op < SB_CUDA_HOST_N_OPS; op++)
		assert_non_null(sb_cuda_host_op_name(op));
	assert_null(sb_cuda_host_op_name(SB_CUDA_HOST_N_OPS));
	/* Every probed function is an operation; the per-thread forms are flagged. */
	for (i = 0; i < sb_cuda_host_n_funcs; i++) {
		assert_true((sb_cuda_host_funcs[i].cookie & SB_CUDA_OP_MASK) < SB_CUDA_HOST_N_OPS);
		assert_int_equal(!!(sb_cuda_host_funcs[i].cookie & SB_CUDA_PER_THREAD),
				 strstr(sb_cuda_host_funcs[i].symbol, "_pt") != NULL);
	}
}

static void test_stream_labels(void **state)
{
	char buf[32];

	(void)state;
	sb_cuda_stream_label(0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	sb_cuda_stream_label(SB_CUDA_STREAM_LEGACY, 0, buf, sizeof(buf));
	assert_string_equal(buf, "legacy");
	sb_cuda_stream_label(SB_CUDA_STREAM_PER_THREAD, 0, buf, sizeof(buf));
	assert_string_equal(buf, "per-thread");
	sb_cuda_stream_label(0x7f0012345000ULL, 3, buf, sizeof(buf));
	assert_string_equal(buf, "3");
}

/* A kernel name longer than a region name holds is cut; the rest of the name stays. */
static void test_long_kernel_name_is_cut(void **state)
{
	struct sb_cuda_host_event e = { .op = SB_CUDA_HOST_LAUNCH, .grid = { 1, 1, 1 },
					.block = { 1, 1, 1 } };
	char kernel[2000], name[SB_CUDA_HOST_NAME_MAX], tags[SB_CUDA_HOST_TAGS_MAX];

	(void)state;
	memset(kernel, 'k', sizeof(kernel) - 1);
	kernel[sizeof(kernel) - 1] = 0;
	assert_int_equal(sb_cuda_host_format(&e, kernel, "0", name, sizeof(name), tags,
					     sizeof(tags)), 0);
	assert_int_equal(strspn(name + strlen("cuda:launch kernel="), "k"), SB_CUDA_KERNEL_SHOWN);
	assert_non_null(strstr(name, " grid=1x1x1 block=1x1x1 stream=0"));
}

static void test_bad_operation_and_small_buffers(void **state)
{
	struct sb_cuda_host_event e = { .op = SB_CUDA_HOST_N_OPS };
	char name[16], tags[SB_CUDA_HOST_TAGS_MAX];

	(void)state;
	assert_int_equal(sb_cuda_host_format(&e, "", "0", name, sizeof(name), tags, sizeof(tags)),
			 -EINVAL);
	e.op = SB_CUDA_HOST_MEMCPY;
	assert_int_equal(sb_cuda_host_format(&e, "", "0", name, sizeof(name), tags, sizeof(tags)),
			 -ENOSPC);
	assert_int_equal(sb_cuda_host_format(&e, "", "0", tags, sizeof(tags), name, sizeof(name)),
			 -ENOSPC);
}

static void test_library_names(void **state)
{
	(void)state;
	assert_true(sb_cuda_host_lib_name("/usr/local/cuda/lib64/libcudart.so.13"));
	assert_true(sb_cuda_host_lib_name("libcudart.so"));
	assert_false(sb_cuda_host_lib_name("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
	assert_false(sb_cuda_host_lib_name("/opt/cuda/lib64/libcudart_static.a"));
}

static void test_other_files_are_no_runtime(void **state)
{
	struct sb_lib_funcs f;

	(void)state;
	assert_int_equal(sb_cuda_host_lib_read("/proc/self/exe", false, &f), 0);
	assert_int_equal(sb_cuda_host_lib_read("/proc/self/exe", true, &f), 0);
	assert_int_equal(f.n, 0);
	assert_int_equal(sb_cuda_host_lib_read("/nonexistent/libcudart.so.13", false, &f), -ENOENT);
}

/* The toolkit's libcudart (where it is installed): every function found, one probe per address. */
static void test_installed_runtime_one_probe_per_address(void **state)
{
	const char *path = getenv("SB_TEST_LIBCUDART");
	bool per_thread = false, launch = false;
	struct sb_lib_funcs f;
	uint32_t i, j;

	(void)state;
	if (!path)
		path = "/usr/local/cuda/lib64/libcudart.so";
	if (access(path, R_OK))
		skip();
	assert_int_equal(sb_cuda_host_lib_read(path, false, &f), 1);
	assert_int_equal(f.n, sb_cuda_host_n_funcs);
	for (i = 0; i < f.n; i++) {
		assert_true(f.offset[i] != 0);
		for (j = 0; j < i; j++)
			assert_true(f.offset[i] != f.offset[j]);
		per_thread |= !!(f.cookie[i] & SB_CUDA_PER_THREAD);
		launch |= f.cookie[i] == SB_CUDA_HOST_LAUNCH && !strcmp(f.name[i], "cudaLaunchKernel");
	}
	assert_true(per_thread);
	assert_true(launch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_name_and_tags),
		cmocka_unit_test(test_copies_sets_and_allocations),
		cmocka_unit_test(test_synchronizations_and_free),
		cmocka_unit_test(test_every_operation_is_named),
		cmocka_unit_test(test_stream_labels),
		cmocka_unit_test(test_long_kernel_name_is_cut),
		cmocka_unit_test(test_bad_operation_and_small_buffers),
		cmocka_unit_test(test_library_names),
		cmocka_unit_test(test_other_files_are_no_runtime),
		cmocka_unit_test(test_installed_runtime_one_probe_per_address),
	};

	return cmocka_run_group_tests_name("cuda_host", tests, NULL, NULL);
}
