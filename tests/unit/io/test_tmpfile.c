/*
 * Temporary files beside outputs, as root in a folder others can write to: a
 * link planted at any name we might use is never followed, the victim file it
 * points at stays as it was, and under sudo every file is made with the rights
 * of the user who ran sudo: theirs, and only where they may write.
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
	assert_int_equal(sb_output_open(&o, out, &err), 0);
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
	assert_int_equal(sb_output_open(&o, out, &err), 0);
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

/*
 * The user sudo stands for in these tests: ids without an account, as the
 * kernel checks numbers. The scratch folder is opened for them to pass through.
 */
#define SUDO_UID 12345
#define SUDO_GID 23456
#define OTHER_UID 34567

static void act_for_sudo_user(void)
{
	assert_int_equal(chmod(tmp_dir, 0755), 0);
	set_sudo("12345", "23456");
}

/* A new folder in the scratch one: mode, owned by uid. */
static const char *folder(const char *name, mode_t mode, uid_t uid)
{
	const char *dir = tmp_path(name);

	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, mode), 0);
	assert_int_equal(chown(dir, uid, uid ? SUDO_GID : 0), 0);
	return dir;
}

static int entries(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *d;
	int n = 0;

	assert_non_null(dp);
	while ((d = readdir(dp)))
		n += strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
	closedir(dp);
	return n;
}

/* Root through sudo makes files that belong to the user who ran sudo, made by them. */
static void test_outputs_belong_to_the_sudo_user(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_output o;
	struct sb_profile p;

	(void)state;
	if (geteuid() != 0)
		skip();
	folder("mine", 0755, SUDO_UID);
	act_for_sudo_user();
	build_profile(&p);
	if (fx_write_h5(tmp_path("mine/sudo.h5"), &p, &err))
		fail_msg("%s", err.msg);
	sb_profile_free(&p);
	assert_int_equal(sb_output_open(&o, tmp_path("mine/sudo.txt"), &err), 0);
	fputs("x\n", o.f);
	assert_int_equal(sb_output_commit(&o, &err), 0);
	clear_sudo();
	assert_owner(tmp_path("mine/sudo.h5"), SUDO_UID, SUDO_GID);
	assert_owner(tmp_path("mine/sudo.txt"), SUDO_UID, SUDO_GID);
}

/*
 * A root file in a folder only root may write (/etc/profile.d): the sudo
 * user may not replace it, by any way of writing, and nothing is left there.
 */
static void test_sudo_user_cannot_replace_a_root_file(void **state)
{
	const char *victim = tmp_path("rootonly/f.sh");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	struct sb_output o;
	char *tmp;

	(void)state;
	if (geteuid() != 0)
		skip();
	folder("rootonly", 0755, 0);
	write_text(victim, VICTIM_TEXT);
	act_for_sudo_user();
	assert_int_equal(sb_tmpfile_check(victim, &err), -EACCES);
	expect_has(err.msg, "rootonly as user 12345 (SUDO_UID): Permission denied");
	assert_int_equal(sb_tmpfile_create(victim, 0666, &tmp), -EACCES);
	assert_int_equal(sb_output_open(&o, victim, &err), -EACCES);
	build_profile(&p);
	assert_int_equal(fx_write_h5(victim, &p, &err), -EACCES);
	sb_profile_free(&p);
	clear_sudo();
	assert_text(victim, VICTIM_TEXT);
	assert_owner(victim, 0, 0);
	assert_int_equal(entries(tmp_path("rootonly")), 1);
}

/*
 * In a sticky folder (/tmp) only a file's owner or the folder's may replace
 * it: told before any work, and the rename itself is the user's, which the
 * kernel refuses too.
 */
static void test_sticky_folder_keeps_other_users_files(void **state)
{
	const char *theirs = tmp_path("sticky/theirs"), *mine = tmp_path("sticky/mine");
	struct sb_error err = { .msg = "" };
	char *tmp;
	int fd;

	(void)state;
	if (geteuid() != 0)
		skip();
	folder("sticky", 01777, 0);
	write_text(theirs, VICTIM_TEXT);
	assert_int_equal(chown(theirs, OTHER_UID, OTHER_UID), 0);
	write_text(mine, "old\n");
	assert_int_equal(chown(mine, SUDO_UID, SUDO_GID), 0);
	act_for_sudo_user();
	assert_int_equal(sb_tmpfile_check(theirs, &err), -EPERM);
	expect_has(err.msg, "belongs to user 34567");
	assert_int_equal(sb_tmpfile_check(mine, &err), 0);
	fd = sb_tmpfile_create(theirs, 0666, &tmp);
	assert_true(fd >= 0);
	assert_int_equal(sb_tmpfile_commit(fd, tmp, theirs, &err), -EPERM);
	sb_tmpfile_discard(fd, tmp);
	close(fd);
	free(tmp);
	clear_sudo();
	assert_text(theirs, VICTIM_TEXT);
	assert_int_equal(entries(tmp_path("sticky")), 2);
}

/* sudo run by root is root; a SUDO_UID or SUDO_GID that names no one writes nothing. */
static void test_bad_sudo_ids_are_refused(void **state)
{
	static const char *const bad[][2] = { { "12x", "23456" }, { "", "23456" },
					      { "-1", "23456" }, { "12345", "abc" } };
	const char *out = tmp_path("nosudo.txt");
	struct sb_error err = { .msg = "" };
	struct sb_output o;
	char want[64];

	(void)state;
	if (geteuid() != 0)
		skip();
	set_sudo("0", "23456");
	assert_int_equal(sb_output_open(&o, out, &err), 0);
	assert_int_equal(sb_output_commit(&o, &err), 0);
	clear_sudo();
	assert_owner(out, 0, 0);
	assert_int_equal(unlink(out), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "%s='%s': not a", i < 3 ? "SUDO_UID" : "SUDO_GID",
			 bad[i][i < 3 ? 0 : 1]);
		set_sudo(bad[i][0], bad[i][1]);
		assert_int_equal(sb_tmpfile_check(out, &err), -EINVAL);
		expect_has(err.msg, want);
		assert_int_equal(sb_output_open(&o, out, &err), -EINVAL);
		expect_has(err.msg, want);
		clear_sudo();
		assert_false(exists(out));
	}
}

/* An output below a regular file can never be written: said before any work. */
static void test_folder_that_is_a_file_is_refused(void **state)
{
	const char *file = tmp_path("plain"), *out = tmp_path("plain/out.h5");
	struct sb_error err = { .msg = "" };

	(void)state;
	write_text(file, "not a folder\n");
	/* Executable: root's access(W_OK | X_OK) on it then succeeds, and said nothing. */
	assert_int_equal(chmod(file, 0755), 0);
	assert_int_equal(sb_tmpfile_check(out, &err), -ENOTDIR);
	expect_has(err.msg, "plain is not a directory");
	assert_int_equal(sb_h5_check_target(out, &err), -ENOTDIR);
	assert_int_equal(sb_tmpfile_check(tmp_path("none/out.h5"), &err), -ENOENT);
	expect_has(err.msg, "cannot create files in");
}

/* Another user's link is replaced, never followed, whoever the folder belongs to. */
static void test_output_replaces_links_of_other_users(void **state)
{
	const char *out = tmp_path("theirs.link"), *victim = tmp_path("theirs.victim");
	struct sb_error err = { .msg = "" };
	struct sb_output o;
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip();
	write_text(victim, VICTIM_TEXT);
	assert_int_equal(symlink(victim, out), 0);
	assert_int_equal(lchown(out, OTHER_UID, OTHER_UID), 0);
	assert_int_equal(sb_output_open(&o, out, &err), 0);
	assert_non_null(o.tmp);
	fputs("report\n", o.f);
	assert_int_equal(sb_output_commit(&o, &err), 0);
	assert_text(victim, VICTIM_TEXT);
	assert_int_equal(lstat(out, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_text(out, "report\n");
}

/* Our own link is followed, as a shell's > would; so is /dev/null, written in place. */
static void test_output_follows_our_own_links(void **state)
{
	const char *out = tmp_path("own.link"), *target = tmp_path("own.target");
	struct sb_error err = { .msg = "" };
	struct sb_output o;

	(void)state;
	write_text(target, "old\n");
	assert_int_equal(symlink(target, out), 0);
	assert_int_equal(sb_output_open(&o, out, &err), 0);
	assert_null(o.tmp);
	fputs("new\n", o.f);
	assert_int_equal(sb_output_commit(&o, &err), 0);
	assert_true(is_link(out));
	assert_text(target, "new\n");
	assert_int_equal(sb_output_open(&o, "/dev/null", &err), 0);
	assert_null(o.tmp);
	assert_int_equal(sb_output_commit(&o, &err), 0);
}

/* The file standard output already is (/dev/stdout) is written through it, never reopened. */
static void test_output_to_the_file_stdout_is(void **state)
{
	const char *file = tmp_path("stdout.txt");
	struct sb_error err = { .msg = "" };
	struct sb_output o;
	int saved = dup(STDOUT_FILENO), fd;

	(void)state;
	fflush(stdout);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	assert_int_equal(sb_output_open(&o, file, &err), 0);
	assert_ptr_equal(o.f, stdout);
	assert_null(o.path);
	assert_int_equal(sb_output_commit(&o, &err), 0);
	assert_int_equal(sb_output_open(&o, "/dev/stdout", &err), 0);
	assert_ptr_equal(o.f, stdout);
	sb_output_abort(&o);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
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
		cmocka_unit_test(test_sudo_user_cannot_replace_a_root_file),
		cmocka_unit_test(test_sticky_folder_keeps_other_users_files),
		cmocka_unit_test(test_bad_sudo_ids_are_refused),
		cmocka_unit_test(test_folder_that_is_a_file_is_refused),
		cmocka_unit_test(test_output_replaces_links_of_other_users),
		cmocka_unit_test(test_output_follows_our_own_links),
		cmocka_unit_test(test_output_to_the_file_stdout_is),
		cmocka_unit_test(test_anonymous_file_leaves_no_name),
	};

	return cmocka_run_group_tests_name("tmpfile", tests, tmp_setup, tmp_teardown);
}
