/* Unit tests: a file's marker probes counted by name and by where their argument is, and found. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/probes.h"
#include "scope_bpf.h"

static volatile int sink;

/*
 * Never called with a tracer: what matters is the notes the markers leave in
 * this test's own file. One region the header's way (site in its register,
 * on x86-64), one begin with its site where an older header or another
 * compiler may leave it.
 */
static void __attribute__((noinline, used)) marked(void)
{
	SCOPE_BPF_REGION("marked") {
		sink++;
	}
}

#if defined(__x86_64__)
static void __attribute__((noinline, used)) begin_elsewhere(struct scope_bpf_site *site)
{
	if (scope_bpf_impl_sem(&scope_bpf_region_begin_semaphore))
		SCOPE_BPF_IMPL_PROBE_SEM(region_begin, scope_bpf_region_begin_semaphore, "8@%0",
					 "b"(site));
}

static void test_probes_counted_by_their_argument(void **state)
{
	const char *self = "/proc/self/exe";

	(void)state;
	assert_int_equal(sb_count_named_probes(self, SB_PROVIDER, "region_begin"), 2);
	assert_int_equal(sb_count_named_probes(self, SB_PROVIDER, "region_end"), 1);
	assert_int_equal(sb_count_probes_with_args(self, SB_PROVIDER, "region_begin", SB_SITE_ARG), 1);
	assert_int_equal(sb_count_probes_with_args(self, SB_PROVIDER, "region_begin", "8@%rbx"), 1);
	assert_int_equal(sb_count_probes_with_args(self, SB_PROVIDER, "region_end", SB_SITE_ARG), 1);
	/* A prefix of the argument string is not the argument. */
	assert_int_equal(sb_count_probes_with_args(self, SB_PROVIDER, "region_end", "8@%ra"), 0);
	assert_int_equal(sb_count_probes_with_args(self, "scope_bp", "region_end", NULL), 0);
}
#endif

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/*
 * Where a probe is in the file, for a plain uprobe (kernels without attach
 * cookies): its offset holds the probe's nop, its semaphore's two zero bytes
 * (a semaphore is 0 in the file), and no more sites are given than room.
 */
static void test_probe_sites_are_file_offsets(void **state)
{
	struct sb_probe_site sites[4];
	uint16_t sema;
	size_t len;
	char *elf;
	int n;

	(void)state;
	n = sb_probe_sites("/proc/self/exe", SB_PROVIDER, "region_end", NULL, sites, 4);
	assert_int_equal(n, 1);
	elf = read_file("/proc/self/exe", &len);
	assert_true(sites[0].offset < len && sites[0].ref_ctr_offset + 2 <= len);
	assert_int_equal((unsigned char)elf[sites[0].offset], 0x90);
	assert_true(sites[0].ref_ctr_offset > 0);
	memcpy(&sema, elf + sites[0].ref_ctr_offset, sizeof(sema));
	assert_int_equal(sema, 0);
	free(elf);
	assert_int_equal(sb_probe_sites("/proc/self/exe", SB_PROVIDER, NULL, NULL, sites, 1), 1);
	assert_int_equal(sb_probe_sites("/nonexistent", SB_PROVIDER, NULL, NULL, sites, 4),
			 -ENOENT);
}

/* Offset of the first n bytes at needle in hay; fails the test when absent. */
static size_t find_bytes(const char *hay, size_t len, const char *needle, size_t n)
{
	size_t i;

	for (i = 0; i + n <= len; i++)
		if (!memcmp(hay + i, needle, n))
			return i;
	fail_msg("%zu bytes not found", n);
	return 0;
}

/*
 * A note whose size ends inside its argument string: the argument is not
 * read past the note (it would match if it were), and nothing crashes.
 */
static void test_a_cut_note_is_not_read_past_its_end(void **state)
{
	/* Made at run time: as a constant, this test's file would hold it twice. */
	static char ours[] = "Scope_bpf\0region_end\0";
	char path[] = "/tmp/sb-probes-XXXXXX", args[32];
	size_t len, at, hdr, args_len;
	uint32_t descsz;
	char *elf;
	FILE *f;
	int fd;

	(void)state;
	ours[0] = 's';
	elf = read_file("/proc/self/exe", &len);
	at = find_bytes(elf, len, ours, sizeof(ours) - 1) + sizeof(ours) - 1;
	args_len = strnlen(elf + at, len - at) + 1;
	assert_true(args_len < sizeof(args));
	memcpy(args, elf + at, args_len);
	assert_int_equal(sb_count_probes_with_args("/proc/self/exe", SB_PROVIDER, "region_end", args),
			 1);
	/* The note's header (namesz, descsz, type, "stapsdt\0") sits before its three addresses. */
	hdr = at - (sizeof(ours) - 1) - 3 * sizeof(uint64_t) - 8 - 3 * sizeof(uint32_t);
	memcpy(&descsz, elf + hdr + sizeof(uint32_t), sizeof(descsz));
	assert_int_equal(descsz, 3 * sizeof(uint64_t) + sizeof(ours) - 1 + args_len);
	descsz -= 4;
	memcpy(elf + hdr + sizeof(uint32_t), &descsz, sizeof(descsz));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(elf, 1, len, f), len);
	fclose(f);
	assert_int_equal(sb_count_probes_with_args(path, SB_PROVIDER, "region_end", args), 0);
	unlink(path);
	free(elf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#if defined(__x86_64__)
		cmocka_unit_test(test_probes_counted_by_their_argument),
#endif
		cmocka_unit_test(test_probe_sites_are_file_offsets),
		cmocka_unit_test(test_a_cut_note_is_not_read_past_its_end),
	};

	marked();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
