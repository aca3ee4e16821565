/*
 * Who a launched command runs as. sudo makes us root so BPF can load; the
 * command the user asked to profile must still run as that user, with their
 * groups and home, or it would write root's files and read what they may not.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/runas.h"
#include "util/sudo.h"

extern char **environ;

/* A user by name, else by number. */
static struct passwd *find_user(const char *user)
{
	struct passwd *pw = getpwnam(user);
	unsigned long id;

	if (!pw && sb_parse_id(user, &id))
		pw = getpwuid((uid_t)id);
	return pw;
}

static int user_groups(struct sb_runas *r, const char *name)
{
	int n = 0;

	/* The first call only says how many there are. */
	getgrouplist(name, r->gid, NULL, &n);
	r->groups = calloc(n > 0 ? (size_t)n : 1, sizeof(*r->groups));
	if (!r->groups)
		return -ENOMEM;
	if (getgrouplist(name, r->gid, r->groups, &n) < 0)
		return -EAGAIN;
	r->n_groups = n;
	return 0;
}

static bool is_identity_var(const char *s)
{
	return !strncmp(s, "HOME=", 5) || !strncmp(s, "USER=", 5) || !strncmp(s, "LOGNAME=", 8);
}

/* Our environment with HOME, USER and LOGNAME of the user: built here, since the child may not allocate. */
static int user_env(struct sb_runas *r, const char *name, const char *home)
{
	size_t n = 0, k = 0, len = strlen(name), hlen = strlen(home);
	char *s;

	while (environ && environ[n])
		n++;
	r->env = calloc(n + 4, sizeof(*r->env));
	/* Three strings, each with its NUL. */
	r->strings = malloc(sizeof("HOME=") + hlen + sizeof("USER=") + len + sizeof("LOGNAME=") + len);
	if (!r->env || !r->strings)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!is_identity_var(environ[i]))
			r->env[k++] = environ[i];
	s = r->strings;
	r->env[k++] = s;
	s += sprintf(s, "HOME=%s", home) + 1;
	r->env[k++] = s;
	s += sprintf(s, "USER=%s", name) + 1;
	r->env[k++] = s;
	sprintf(s, "LOGNAME=%s", name);
	return 0;
}

static int take_user(struct sb_runas *r, const struct passwd *pw, gid_t gid, struct sb_error *err)
{
	char *name = strdup(pw->pw_name), *home = strdup(pw->pw_dir ? pw->pw_dir : "/");
	int ret = -ENOMEM;

	r->change = true;
	r->uid = pw->pw_uid;
	r->gid = gid;
	if (name && home)
		ret = user_groups(r, name);
	if (!ret)
		ret = user_env(r, name, home);
	if (ret) {
		sb_fail(err, -ret, "user %s: cannot read its groups: %s", name ? name : "?",
			strerror(-ret));
		sb_runas_free(r);
	}
	free(name);
	free(home);
	return ret;
}

int sb_runas_resolve(struct sb_runas *r, const char *user, bool as_root, struct sb_error *err)
{
	struct passwd *pw;
	uid_t uid;
	gid_t gid;
	int sudo;

	memset(r, 0, sizeof(*r));
	if (user) {
		if (geteuid() != 0)
			return sb_fail(err, EPERM, "--user %s: only root can run a command as "
				       "another user", user);
		pw = find_user(user);
		if (!pw)
			return sb_fail(err, EINVAL, "--user %s: no such user", user);
		return take_user(r, pw, pw->pw_gid, err);
	}
	sudo = sb_sudo_user(&uid, &gid, err);
	if (sudo < 0)
		return sudo;
	if (as_root || !sudo)
		return 0;
	pw = getpwuid(uid);
	if (!pw)
		return sb_fail(err, EINVAL, "SUDO_UID=%u: no such user, so the command cannot run "
			       "as the one who ran sudo; give --user NAME or --as-root",
			       (unsigned)uid);
	return take_user(r, pw, gid == (gid_t)-1 ? pw->pw_gid : gid, err);
}

int sb_runas_apply(const struct sb_runas *r)
{
	if (!r->change)
		return 0;
	/* Groups and gid while still root; the uid last, after which there is no way back. */
	if (setgroups((size_t)r->n_groups, r->groups) || setgid(r->gid) || setuid(r->uid))
		return -errno;
	environ = r->env;
	return 0;
}

void sb_runas_free(struct sb_runas *r)
{
	free(r->groups);
	free(r->env);
	free(r->strings);
	memset(r, 0, sizeof(*r));
}
