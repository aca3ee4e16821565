/*
 * Who ran us through sudo: the user whose command we launch and whose rights
 * our files are written with. sudo makes us root only so BPF can load; a user
 * allowed nothing but `sudo scope-bpf` must not get root's say over files.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/sudo.h"

bool sb_parse_id(const char *s, unsigned long *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && !*end && *v < (unsigned long)(uid_t)-1;
}

/* The id in environment variable name: 1, 0 when it is unset, -EINVAL with err when not an id. */
static int env_id(const char *name, const char *what, unsigned long *v, struct sb_error *err)
{
	const char *s = getenv(name);

	if (!s)
		return 0;
	if (!sb_parse_id(s, v))
		return sb_fail(err, EINVAL, "%s='%s': not a %s id (sudo sets it to the %cid of "
			       "the user who ran it); refusing to run as root for an unknown user",
			       name, s, what, what[0]);
	return 1;
}

int sb_sudo_user(uid_t *uid, gid_t *gid, struct sb_error *err)
{
	unsigned long u, g;
	int r;

	if (geteuid() != 0)
		return 0;
	r = env_id("SUDO_UID", "user", &u, err);
	if (r <= 0)
		return r;
	r = env_id("SUDO_GID", "group", &g, err);
	if (r < 0)
		return r;
	if (u == 0)
		return 0;
	*uid = (uid_t)u;
	*gid = r ? (gid_t)g : (gid_t)-1;
	return 1;
}

/*
 * The user's groups, their own gid first (the account's when SUDO_GID was
 * unset): what the kernel checks a file access against. A uid without an
 * account has only its gid. 0 or -errno, with *groups malloc'd.
 */
static int user_groups(uid_t uid, gid_t *gid, gid_t **groups, int *n)
{
	struct passwd pw, *found = NULL;
	char buf[4096];

	getpwuid_r(uid, &pw, buf, sizeof(buf), &found);
	if (*gid == (gid_t)-1 && !found)
		return -ESRCH;
	if (*gid == (gid_t)-1)
		*gid = pw.pw_gid;
	/* With room for none, the first call only says how many there are. */
	*n = 0;
	if (found)
		getgrouplist(pw.pw_name, *gid, NULL, n);
	if (*n < 1)
		*n = 1;
	*groups = calloc((size_t)*n, sizeof(**groups));
	if (!*groups)
		return -ENOMEM;
	(*groups)[0] = *gid;
	if (found && getgrouplist(pw.pw_name, *gid, *groups, n) < 0)
		return -EAGAIN;
	return 0;
}

static int save_groups(struct sb_sudo_fs *s)
{
	int n = getgroups(0, NULL);

	if (n < 0)
		return -errno;
	s->groups = calloc(n > 0 ? (size_t)n : 1, sizeof(*s->groups));
	if (!s->groups)
		return -ENOMEM;
	s->n_groups = getgroups(n, s->groups);
	return s->n_groups < 0 ? -errno : 0;
}

/*
 * The raw system call: glibc's setgroups() changes every thread (the
 * recorder's threads must keep root's), the kernel's only the caller.
 * setfsuid() and setfsgid() are per thread already; from uid 0 to another
 * they also drop the capabilities that bypass file permissions.
 */
static int become(uid_t uid, gid_t gid, const gid_t *groups, int n)
{
	if (syscall(SYS_setgroups, (size_t)n, groups))
		return -errno;
	setfsgid(gid);
	setfsuid(uid);
	/* Both say only what the id was: asking for an invalid one tells what it is now. */
	if ((gid_t)setfsgid((gid_t)-1) != gid || (uid_t)setfsuid((uid_t)-1) != uid)
		return -EPERM;
	return 0;
}

int sb_sudo_fs_enter(struct sb_sudo_fs *saved, struct sb_error *err)
{
	gid_t *groups = NULL;
	int n = 0, r;
	uid_t uid;
	gid_t gid;

	*saved = (struct sb_sudo_fs){ 0 };
	r = sb_sudo_user(&uid, &gid, err);
	if (r <= 0)
		return r;
	r = user_groups(uid, &gid, &groups, &n);
	if (r == -ESRCH)
		return sb_fail(err, EINVAL, "SUDO_GID is unset and SUDO_UID=%u has no account: "
			       "cannot tell whose group files are written with", (unsigned)uid);
	if (!r)
		r = save_groups(saved);
	if (!r) {
		saved->active = true;
		r = become(uid, gid, groups, n);
	}
	free(groups);
	if (r) {
		sb_sudo_fs_leave(saved);
		return sb_fail(err, r, "SUDO_UID=%u: cannot take the user's rights to write "
			       "files: %s", (unsigned)uid, strerror(-r));
	}
	return 0;
}

void sb_sudo_fs_leave(struct sb_sudo_fs *saved)
{
	int e = errno;

	if (saved->active) {
		setfsuid(geteuid());
		setfsgid(getegid());
		syscall(SYS_setgroups, (size_t)saved->n_groups, saved->groups);
	}
	free(saved->groups);
	*saved = (struct sb_sudo_fs){ 0 };
	errno = e;
}

int sb_sudo_fs_uid(uid_t *uid, struct sb_error *err)
{
	gid_t gid;
	int r = sb_sudo_user(uid, &gid, err);

	if (!r)
		*uid = geteuid();
	return r < 0 ? r : 0;
}
