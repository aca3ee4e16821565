/*
 * Temporary files beside outputs, as root in a folder others can write to: a
 * link planted at any name we might use is never followed, the victim file it
 * points at stays as it was, and the output goes to the user who ran sudo.
 */
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fixtures.h"

#include "cmd/cli.h"
#include "io/tmpfile.h"

#define VICTIM_TEXT "root's own file\n"
#define NAME_CHARS 12

/*
 * The names are random; to plant links where they will be tried, this program
 * takes getrandom()'s place: with fake_random set, call n fills its buffer with
 * byte n, so the n-th name tried ends in 12 times the n-th character of the
 * names' alphabet (which wraps after 62).
 */
static bool fake_random;
static unsigned char fake_next;

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	if (!fake_random)
		return syscall(SYS_getrandom, buf, len, flags);
	memset(buf, fake_next++, len);
	return (ssize_t)len;
}

/* The n-th name sb_tmpfile_create() tries for path under fake_random (n from 0). */
static char *candidate(const char *path, int n)
{
	static const char alphabet[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static char buf[4][600];
	static int next;
	char *b = buf[next++ % 4], tail[NAME_CHARS + 1];

	memset(tail, alphabet[n % 62], NAME_CHARS);
	tail[NAME_CHARS] = 0;
	snprintf(b, sizeof(buf[0]), "%s.tmp.%s", path, tail);
	return b;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void assert_text(const char *path, const char *text)
{
	char *got = slurp(path);

	assert_non_null(got);
	assert_string_equal(got, text);
	free(got);
}

static bool is_link(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISLNK(st.st_mode);
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/*
 * An attacker's links at the names we try first, and at the name the old code
 * used (OUT.tmp.PID): to root's victim file, and dangling (where following it
 * would create a file of the attacker's choosing).
 */
static void plant(const char *out, const char *victim, const char *dangling)
{
	char old_name[600];

	write_text(victim, VICTIM_TEXT);
	snprintf(old_name, sizeof(old_name), "%s.tmp.%d", out, (int)getpid());
	assert_int_equal(symlink(victim, old_name), 0);
	assert_int_equal(symlink(victim, candidate(out, 0)), 0);
	assert_int_equal(symlink(dangling, candidate(out, 1)), 0);
	fake_random = true;
	fake_next = 0;
}

/* The links are still links, their targets untouched, and out is our own regular file. */
static void assert_untouched(const char *out, const char *victim, const char *dangling)
{
	struct stat st;

	fake_random = false;
	assert_text(victim, VICTIM_TEXT);
	assert_false(exists(dangling));
	assert_true(is_link(candidate(out, 0)));
	assert_true(is_link(candidate(out, 1)));
	assert_int_equal(lstat(out, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

static void test_create_skips_planted_links(void **state)
{
	const char *out = tmp_path("create.out"), *victim = tmp_path("create.victim");
	const char *dangling = tmp_path("create.dangling");
	struct sb_error err = { .msg = "" };
	struct stat st;
	char *tmp;
	int fd;

	(void)state;
	plant(out, victim, dangling);
	fd = sb_tmpfile_create(out, 0666, &tmp);
	assert_true(fd >= 0);
	/* The third name: the first two were taken by links. */
	assert_string_equal(tmp, candidate(out, 2));
	assert_int_equal(lstat(tmp, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(write(fd, "new", 3), 3);
	assert_int_equal(sb_tmpfile_commit(fd, tmp, out, &err), 0);
	close(fd);
	free(tmp);
	assert_untouched(out, victim, dangling);
	assert_text(out, "new");
}

/* Every name taken: an error, never a write through a link. */
static void test_create_gives_up_when_every_name_is_a_link(void **state)
{
	const char *out = tmp_path("taken.out"), *victim = tmp_path("taken.victim");
	char *tmp = (char *)"unchanged";
	int fd;

	(void)state;
	write_text(victim, VICTIM_TEXT);
	for (int i = 0; i < 62; i++)
		assert_int_equal(symlink(victim, candidate(out, i)), 0);
	fake_random = true;
	fake_next = 0;
	fd = sb_tmpfile_create(out, 0666, &tmp);
	fake_random = false;
	assert_int_equal(fd, -EEXIST);
	assert_null(tmp);
	assert_text(victim, VICTIM_TEXT);
	assert_false(exists(out));
}

static void build_profile(struct sb_profile *p)
{
	static const struct fx_call calls[] = { { "main", 0, 100, 0, -1, 0 } };

	fx_call_tree(p, calls, 1, SB_COL_CALL_ID);
}

static void test_profile_write_never_follows_planted_links(void **state)
{
	const char *out = tmp_path("profile.h5"), *victim = tmp_path("profile.victim");
	const char *dangling = tmp_path("profile.dangling");
	struct sb_error err = { .msg = "" };
	struct sb_profile p, back;

	(void)state;
	plant(out, victim, dangling);
	build_profile(&p);
	if (fx_write_h5(out, &p, &err))
		fail_msg("%s", err.msg);
	sb_profile_free(&p);
	assert_untouched(out, victim, dangling);
	sb_profile_init(&back);
	if (sb_h5_read(out, &back, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(back.n_events, 1);
	sb_profile_free(&back);
}

static void test_report_output_never_follows_planted_links(void **state)
{
	const char *out = tmp_path("report.txt"), *victim = tmp_path("report.victim");
	const char *dangling = tmp_path("report.dangling");
	struct sb_error err = { .msg = "" };
	struct sb_output o;

	(void)state;
	plant(out, victim, dangling);
	assert_int_equal(sb_output_open(&o, out, SB_OUTPUT_REPLACE, &err), 0);
	fputs("report\n", o.f);
	if (sb_output_commit(&o, &err))
		fail_msg("%s", err.msg);
	assert_untouched(out, victim, dangling);
	assert_text(out, "report\n");
}

/* Someone swaps the temporary name for a link while we write: nothing is renamed into place. */
static void test_swapped_name_is_not_renamed_into_place(void **state)
{
	const char *out = tmp_path("swap.out"), *victim = tmp_path("swap.victim");
	const char *moved = tmp_path("swap.moved");
	struct sb_error err = { .msg = "" };
	char *tmp;
	int fd;

	(void)state;
	write_text(victim, VICTIM_TEXT);
	write_text(out, "old\n");
	fd = sb_tmpfile_create(out, 0666, &tmp);
	assert_true(fd >= 0);
	assert_int_equal(rename(tmp, moved), 0);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(sb_tmpfile_commit(fd, tmp, out, &err), -EEXIST);
	expect_has(err.msg, "replaced while it was written");
	/* The planted link is not ours to remove either. */
	sb_tmpfile_discard(fd, tmp);
	assert_true(is_link(tmp));
	close(fd);
	free(tmp);
	assert_text(out, "old\n");
	assert_text(victim, VICTIM_TEXT);
}

/* A failed write leaves no temporary file behind, and the old output as it was. */
static void test_abort_removes_only_our_file(void **state)
{
	const char *out = tmp_path("abort.txt");
	struct sb_error err = { .msg = "" };
	struct sb_output o;
	int before = count_tmp_files();

	(void)state;
	write_text(out, "old\n");
	assert_int_equal(sb_output_open(&o, out, SB_OUTPUT_REPLACE, &err), 0);
	fputs("half", o.f);
	sb_output_abort(&o);
	assert_int_equal(count_tmp_files(), before);
	assert_text(out, "old\n");
}

static void assert_owner(const char *path, uid_t uid, gid_t gid)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_gid, gid);
}

/* Root through sudo writes files that belong to the user who ran sudo. */
static void test_outputs_belong_to_the_sudo_user(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_output o;
	struct sb_profile p;

	(void)state;
	if (geteuid() != 0)
		skip();
	set_sudo("12345", "23456");
	build_profile(&p);
	if (fx_write_h5(tmp_path("sudo.h5"), &p, &err))
		fail_msg("%s", err.msg);
	sb_profile_free(&p);
	assert_int_equal(sb_output_open(&o, tmp_path("sudo.txt"), SB_OUTPUT_REPLACE, &err), 0);
	fputs("x\n", o.f);
	assert_int_equal(sb_output_commit(&o, &err), 0);
	clear_sudo();
	assert_owner(tmp_path("sudo.h5"), 12345, 23456);
	assert_owner(tmp_path("sudo.txt"), 12345, 23456);
}

/* Not under sudo, or sudo run by root, or a SUDO_UID that is not a number: root's file. */
static void test_no_sudo_user_means_no_chown(void **state)
{
	static const char *const uids[] = { "0", "12x", "" };
	struct sb_error err = { .msg = "" };
	struct sb_output o;

	(void)state;
	if (geteuid() != 0)
		skip();
	for (size_t i = 0; i < 3; i++) {
		set_sudo(uids[i], "23456");
		assert_int_equal(sb_output_open(&o, tmp_path("nosudo.txt"), SB_OUTPUT_REPLACE,
						&err), 0);
		assert_int_equal(sb_output_commit(&o, &err), 0);
		clear_sudo();
		assert_owner(tmp_path("nosudo.txt"), 0, 0);
	}
}

/* The spill's file has no name at all: nothing in the folder, before or after. */
static void test_anonymous_file_leaves_no_name(void **state)
{
	int before = count_tmp_files(), fd;

	(void)state;
	fd = sb_tmpfile_anon(tmp_dir);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "spill", 5), 5);
	assert_int_equal(count_tmp_files(), before);
	close(fd);
	assert_int_equal(sb_tmpfile_anon("/nonexistent/scope-bpf"), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_skips_planted_links),
		cmocka_unit_test(test_create_gives_up_when_every_name_is_a_link),
		cmocka_unit_test(test_profile_write_never_follows_planted_links),
		cmocka_unit_test(test_report_output_never_follows_planted_links),
		cmocka_unit_test(test_swapped_name_is_not_renamed_into_place),
		cmocka_unit_test(test_abort_removes_only_our_file),
		cmocka_unit_test(test_outputs_belong_to_the_sudo_user),
		cmocka_unit_test(test_no_sudo_user_means_no_chown),
		cmocka_unit_test(test_anonymous_file_leaves_no_name),
	};

	return cmocka_run_group_tests_name("tmpfile", tests, tmp_setup, tmp_teardown);
}
