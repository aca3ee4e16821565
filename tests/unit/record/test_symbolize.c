/* Tests of symbolization against this very process: its PIE code, inlined calls, libraries, a dead child, the kernel. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/maps.h"
#include "record/symbols/symbolize.h"

/* noipa keeps GCC from cloning (foo.constprop.0) or folding the functions under test. */
#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noinline, noipa))
#endif

/* Tgids no real process has (pid_max is at most 2^22), for made-up snapshots. */
#define FAKE_TGID 0x7f000001u
#define FAKE_CHILD 0x7f000002u

static void *recorded_ra;
static int target_line, helper_line, caller_line;
/* Unknown argument, used result: no constant folding, and no tail call to record_ra. */
static volatile int arg = 1, sink;

NOIPA static int record_ra(int x)
{
	recorded_ra = __builtin_return_address(0);
	return x + 1;
}

/* Work after the call keeps it from becoming a tail jump with a foreign return address. */
NOIPA static int sb_test_target(int x)
{
	int r;

	target_line = __LINE__; r = record_ra(x);
	return r * 5;
}

static inline __attribute__((always_inline)) int sb_test_inlined_helper(int x)
{
	int r;

	helper_line = __LINE__; r = record_ra(x);
	return r * 3;
}

NOIPA static int sb_test_inline_caller(int x)
{
	int r;

	caller_line = __LINE__; r = sb_test_inlined_helper(x);
	return r + 7;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

static void snapshot_pid(struct sb_symbolizer *s, pid_t pid, uint32_t as)
{
	struct sb_map *maps;
	size_t n;

	assert_int_equal(sb_maps_read(pid, &maps, &n), 0);
	assert_true(n > 0);
	assert_int_equal(sb_sym_snapshot(s, as, maps, n), 0);
	sb_maps_free(maps, n);
}

static int setup(void **state)
{
	struct sb_symbolizer *s = sb_sym_new();

	if (!s)
		return -1;
	snapshot_pid(s, getpid(), (uint32_t)getpid());
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	sb_sym_free(*state);
	return 0;
}

static void test_maps_list_this_binary_executable(void **state)
{
	uint64_t ip = (uint64_t)(uintptr_t)&sb_test_target;
	char exe[PATH_MAX];
	struct sb_map *maps;
	size_t n, i;
	bool found = false;
	ssize_t len;

	(void)state;
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(len > 0);
	exe[len] = 0;
	assert_int_equal(sb_maps_read(getpid(), &maps, &n), 0);
	for (i = 0; i < n; i++) {
		assert_true(maps[i].path[0] == '/');
		assert_true(maps[i].inode != 0);
		if (ip >= maps[i].start && ip < maps[i].end) {
			assert_true(maps[i].exec);
			assert_string_equal(maps[i].path, exe);
			found = true;
		}
	}
	assert_true(found);
	sb_maps_free(maps, n);
	assert_int_equal(sb_maps_read(-1, &maps, &n), -ENOENT);
}

static void test_noinline_function_gives_name_file_and_line(void **state)
{
	struct sb_frame_sym f[8];
	char exe[PATH_MAX];
	ssize_t len;
	int n;

	sink = sb_test_target(arg);
	n = sb_sym_user(*state, (uint32_t)getpid(), (uint64_t)(uintptr_t)recorded_ra, true, f, 8);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "sb_test_target");
	assert_true(ends_with(f[0].file, "test_symbolize.c"));
	assert_int_equal(f[0].line, target_line);
	assert_false(f[0].inlined);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(len > 0);
	exe[len] = 0;
	assert_string_equal(f[0].module, exe);

	/* The entry point, as a leaf IP: same function, a line at or before the call. */
	n = sb_sym_user(*state, (uint32_t)getpid(), (uint64_t)(uintptr_t)&sb_test_target, false, f, 8);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "sb_test_target");
	assert_true(f[0].line > 0 && f[0].line <= target_line);
}

static void test_inlined_call_gives_helper_then_caller(void **state)
{
	struct sb_frame_sym f[8];
	int n;

	sink = sb_test_inline_caller(arg);
	n = sb_sym_user(*state, (uint32_t)getpid(), (uint64_t)(uintptr_t)recorded_ra, true, f, 8);
	assert_int_equal(n, 2);
	assert_string_equal(f[0].function, "sb_test_inlined_helper");
	assert_true(f[0].inlined);
	assert_true(ends_with(f[0].file, "test_symbolize.c"));
	assert_int_equal(f[0].line, helper_line);
	assert_string_equal(f[1].function, "sb_test_inline_caller");
	assert_false(f[1].inlined);
	assert_true(ends_with(f[1].file, "test_symbolize.c"));
	assert_int_equal(f[1].line, caller_line);
	assert_ptr_equal(f[0].module, f[1].module);
	assert_int_equal(f[0].offset, f[1].offset);

	/* max 1: the real function is kept, not the innermost inlined frame. */
	n = sb_sym_user(*state, (uint32_t)getpid(), (uint64_t)(uintptr_t)recorded_ra, true, f, 1);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "sb_test_inline_caller");
	assert_int_equal(sb_sym_user(*state, (uint32_t)getpid(), 0, true, f, 0), -EINVAL);
}

static void test_second_lookup_comes_from_cache(void **state)
{
	struct sb_frame_sym a[8], b[8];
	int n;

	sink = sb_test_inline_caller(arg);
	n = sb_sym_user(*state, (uint32_t)getpid(), (uint64_t)(uintptr_t)recorded_ra, true, a, 8);
	assert_int_equal(sb_sym_user(*state, (uint32_t)getpid(), (uint64_t)(uintptr_t)recorded_ra,
				     true, b, 8), n);
	/* The very same strings: nothing was resolved or copied again. */
	assert_ptr_equal(a[0].function, b[0].function);
	assert_ptr_equal(a[0].file, b[0].file);
}

static void check_library_function(struct sb_symbolizer *s, const char *name, const char *lib)
{
	struct sb_frame_sym f[8];
	void *addr = dlsym(RTLD_DEFAULT, name);
	int n;

	assert_non_null(addr);
	n = sb_sym_user(s, (uint32_t)getpid(), (uint64_t)(uintptr_t)addr, false, f, 8);
	assert_true(n >= 1);
	assert_string_equal(f[n - 1].function, name);
	assert_false(f[n - 1].inlined);
	assert_non_null(strstr(f[n - 1].module, lib));
}

static void test_shared_library_functions_resolve(void **state)
{
	check_library_function(*state, "_cmocka_run_group_tests", "/libcmocka.so");
	/*
	 * Not strlen: an IFUNC, resolved to __strlen_avx2 or a sibling. Nor fork: it has
	 * global aliases (__fork, __libc_fork) and either is as right as the other.
	 */
	check_library_function(*state, "getenv", "/libc.so");
}

static void test_exited_process_still_resolves(void **state)
{
	struct sb_frame_sym f[8];
	int fds[2], status, n;
	char c, proc[32];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fds[1]);
		/* Wait for the parent's kill; never return into cmocka. */
		(void)!read(fds[0], &c, 1);
		_exit(0);
	}
	close(fds[0]);
	snapshot_pid(*state, pid, (uint32_t)pid);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fds[1]);
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	assert_int_equal(access(proc, F_OK), -1);

	sink = sb_test_target(arg);
	n = sb_sym_user(*state, (uint32_t)pid, (uint64_t)(uintptr_t)recorded_ra, true, f, 8);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].function, "sb_test_target");
	assert_int_equal(f[0].line, target_line);
}

static void test_fork_inherits_and_dlclose_keeps_old_mappings(void **state)
{
	struct sb_symbolizer *s = *state;
	void *lib = dlsym(RTLD_DEFAULT, "_cmocka_run_group_tests");
	struct sb_frame_sym f[8];
	struct sb_map *maps;
	size_t n, i, k;

	assert_int_equal(sb_sym_fork(s, FAKE_TGID, FAKE_CHILD), -ENOENT);
	assert_int_equal(sb_maps_read(getpid(), &maps, &n), 0);
	assert_int_equal(sb_sym_snapshot(s, FAKE_TGID, maps, n), 0);
	assert_int_equal(sb_sym_fork(s, FAKE_TGID, FAKE_CHILD), 0);
	/* As if libcmocka were closed: a later snapshot without it. */
	for (i = k = 0; i < n; i++) {
		if (strstr(maps[i].path, "/libcmocka.so")) {
			free(maps[i].path);
			continue;
		}
		maps[k++] = maps[i];
	}
	assert_true(k < n);
	assert_int_equal(sb_sym_snapshot(s, FAKE_CHILD, maps, k), 0);
	sb_maps_free(maps, k);

	assert_int_equal(sb_sym_user(s, FAKE_CHILD, (uint64_t)(uintptr_t)lib, false, f, 8), 1);
	assert_string_equal(f[0].function, "_cmocka_run_group_tests");
	sink = sb_test_target(arg);
	assert_int_equal(sb_sym_user(s, FAKE_CHILD, (uint64_t)(uintptr_t)recorded_ra, true, f, 8), 1);
	assert_string_equal(f[0].function, "sb_test_target");
}

static void test_address_in_no_mapping_is_unknown(void **state)
{
	struct sb_frame_sym f[8];

	assert_int_equal(sb_sym_user(*state, (uint32_t)getpid(), 0x10, false, f, 8), 1);
	assert_string_equal(f[0].module, "[unknown]");
	assert_string_equal(f[0].function, "");
	assert_string_equal(f[0].file, "");
	assert_int_equal(f[0].line, -1);
	assert_int_equal(f[0].offset, 0x10);
	assert_int_equal(sb_sym_user(*state, FAKE_TGID, 0x1234, true, f, 8), 1);
	assert_string_equal(f[0].module, "[unknown]");
	assert_int_equal(f[0].offset, 0x1234);
}

/* The mapping of this binary that holds ip, with its path replaced. */
static struct sb_map fake_mapping(uint64_t ip, const char *path)
{
	struct sb_map *maps, m = { 0 };
	struct stat st;
	size_t n, i;

	assert_int_equal(sb_maps_read(getpid(), &maps, &n), 0);
	for (i = 0; i < n; i++)
		if (ip >= maps[i].start && ip < maps[i].end)
			m = maps[i];
	assert_true(m.exec);
	m.path = strdup(path);
	sb_maps_free(maps, n);
	if (!stat(path, &st)) {
		m.dev = st.st_dev;
		m.inode = st.st_ino;
	}
	return m;
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t len;
	int in, out;

	in = open(from, O_RDONLY);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(in >= 0 && out >= 0);
	while ((len = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)len), len);
	close(in);
	close(out);
}

static void test_rebuilt_file_gives_module_offset_not_a_lie(void **state)
{
	char same[] = "/tmp/sb_sym_same_XXXXXX", rebuilt[] = "/tmp/sb_sym_rebuilt_XXXXXX";
	uint64_t ip = (uint64_t)(uintptr_t)&sb_test_target;
	struct sb_frame_sym f[8], self;
	struct sb_map m;
	Dl_info lib;

	/* Any other ELF file has another build id: libcmocka's will do. */
	assert_true(dladdr(dlsym(RTLD_DEFAULT, "_cmocka_run_group_tests"), &lib));
	close(mkstemp(same));
	close(mkstemp(rebuilt));
	copy_file("/proc/self/exe", same);
	copy_file("/proc/self/exe", rebuilt);
	assert_int_equal(sb_sym_user(*state, (uint32_t)getpid(), ip, false, &self, 1), 1);

	/* Control: an unchanged copy resolves like the original. */
	m = fake_mapping(ip, same);
	assert_int_equal(sb_sym_snapshot(*state, FAKE_TGID, &m, 1), 0);
	free(m.path);
	assert_int_equal(sb_sym_user(*state, FAKE_TGID, ip, false, f, 8), 1);
	assert_string_equal(f[0].function, "sb_test_target");
	assert_string_equal(f[0].module, same);

	/* Rebuilt after the snapshot: another build id on disk now. */
	m = fake_mapping(ip, rebuilt);
	assert_int_equal(sb_sym_snapshot(*state, FAKE_CHILD, &m, 1), 0);
	free(m.path);
	copy_file(lib.dli_fname, rebuilt);
	assert_int_equal(sb_sym_user(*state, FAKE_CHILD, ip, false, f, 8), 1);
	assert_string_equal(f[0].function, "");
	assert_string_equal(f[0].module, rebuilt);
	assert_int_equal(f[0].offset, self.offset);
	unlink(same);
	unlink(rebuilt);
}

static void test_fork_shares_open_modules(void **state)
{
	char copy[] = "/tmp/sb_sym_fork_XXXXXX", next[PATH_MAX];
	uint64_t ip = (uint64_t)(uintptr_t)&sb_test_target;
	struct sb_frame_sym f[8];
	struct sb_map m;
	Dl_info lib;

	close(mkstemp(copy));
	copy_file("/proc/self/exe", copy);
	m = fake_mapping(ip, copy);
	assert_int_equal(sb_sym_snapshot(*state, FAKE_TGID, &m, 1), 0);
	free(m.path);
	assert_int_equal(sb_sym_user(*state, FAKE_TGID, ip, false, f, 8), 1);
	assert_int_equal(sb_sym_fork(*state, FAKE_TGID, FAKE_CHILD), 0);

	/* Replaced on disk after it was opened: the child must use the open module. */
	assert_true(dladdr(dlsym(RTLD_DEFAULT, "_cmocka_run_group_tests"), &lib));
	snprintf(next, sizeof(next), "%s.next", copy);
	copy_file(lib.dli_fname, next);
	assert_int_equal(rename(next, copy), 0);
	assert_int_equal(sb_sym_user(*state, FAKE_CHILD, ip + 1, false, f, 8), 1);
	assert_string_equal(f[0].function, "sb_test_target");
	unlink(copy);
}

static void test_unreadable_file_keeps_sanitized_module_name(void **state)
{
	uint64_t ip = (uint64_t)(uintptr_t)&sb_test_target;
	struct sb_frame_sym f[8];
	struct sb_map m;

	m = fake_mapping(ip, "/nonexistent/lib\xff\x01.so");
	assert_int_equal(sb_sym_snapshot(*state, FAKE_TGID, &m, 1), 0);
	assert_int_equal(sb_sym_user(*state, FAKE_TGID, m.start + 0x10, false, f, 8), 1);
	assert_string_equal(f[0].module, "/nonexistent/lib??.so");
	assert_string_equal(f[0].function, "");
	assert_int_equal(f[0].offset, m.pgoff + 0x10);
	free(m.path);
}

/* Address of a global text symbol in kallsyms, 0 when hidden (not privileged). */
static uint64_t kallsyms_address(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long addr;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && type == 'T' &&
		    !strcmp(sym, name))
			found = addr;
	fclose(f);
	return found;
}

static void test_kernel_address_gives_kallsyms_name(void **state)
{
	uint64_t addr = kallsyms_address("schedule");
	struct sb_frame_sym f;

	if (!addr)
		skip();
	assert_int_equal(sb_sym_kernel(*state, addr + 1, &f), 1);
	assert_string_equal(f.function, "schedule");
	assert_string_equal(f.module, "[kernel]");
	assert_int_equal(f.offset, addr + 1);
	assert_int_equal(sb_sym_kernel(*state, 0x10, &f), 1);
	assert_string_equal(f.function, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_list_this_binary_executable),
		cmocka_unit_test_setup_teardown(test_noinline_function_gives_name_file_and_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inlined_call_gives_helper_then_caller, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_lookup_comes_from_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_library_functions_resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exited_process_still_resolves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_inherits_and_dlclose_keeps_old_mappings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_address_in_no_mapping_is_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rebuilt_file_gives_module_offset_not_a_lie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_shares_open_modules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_file_keeps_sanitized_module_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_address_gives_kallsyms_name, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
