/* Metadata about the host and the traced process, read from uname(2) and /proc. */
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "record/sysinfo.h"
#include "util/utf8.h"
#include "util/version.h"

#define ENV_MAX (1 << 20)

static void cpu_model(char *buf, size_t size)
{
	char line[512], *colon;
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(buf, size, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) || !(colon = strchr(line, ':')))
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, size, "%s", colon);
		break;
	}
	fclose(f);
}

/* This boot's id: profiles of one boot share one CLOCK_MONOTONIC (merge needs no shift). */
static int boot_id(struct sb_profile *p)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	char id[64] = "";
	bool ok;

	if (!f)
		return 0;
	ok = fgets(id, sizeof(id), f) != NULL;
	fclose(f);
	id[strcspn(id, "\n")] = 0;
	return ok && *id ? sb_profile_set_str(p, "boot_id", id) : 0;
}

int sb_sysinfo_host(struct sb_profile *p)
{
	char buf[1024], chip[256];
	struct utsname u;
	struct tm tm;
	time_t now = time(NULL);
	int ret = 0;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S+00:00", &tm);
	ret |= sb_profile_set_str(p, "timestamp", buf);
	if (!uname(&u)) {
		ret |= sb_profile_set_str(p, "hostname", u.nodename);
		snprintf(buf, sizeof(buf), "%s %s %s %s %s", u.sysname, u.nodename, u.release,
			 u.version, u.machine);
		ret |= sb_profile_set_str(p, "uname", buf);
		snprintf(buf, sizeof(buf), "%s-%s-%s", u.sysname, u.release, u.machine);
		ret |= sb_profile_set_str(p, "platform", buf);
		ret |= sb_profile_set_str(p, "kernel_release", u.release);
	}
	cpu_model(chip, sizeof(chip));
	ret |= sb_profile_set_str(p, "chip_information", chip);
	ret |= sb_profile_set_int(p, "total_cores", sysconf(_SC_NPROCESSORS_ONLN));
	ret |= sb_profile_set_int(p, "num_nodes", 1);
	ret |= sb_profile_set_str(p, "source", "scope-bpf");
	ret |= sb_profile_set_str(p, "scope_bpf_version", SCOPE_BPF_VERSION);
	ret |= boot_id(p);
	return ret ? -ENOMEM : 0;
}

/* The traced process's environment: OMP_NUM_THREADS and the batch system's SLURM_*. */
static int environment(struct sb_profile *p, pid_t pid)
{
	char path[64], *env, *v, *end;
	size_t n;
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	env = malloc(ENV_MAX + 1);
	if (!env) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(env, 1, ENV_MAX, f);
	fclose(f);
	env[n] = 0;
	for (v = env; v < env + n; v = end + 1) {
		end = v + strlen(v);
		if (!strncmp(v, "OMP_NUM_THREADS=", 16) && atoll(v + 16) > 0)
			ret |= sb_profile_set_int(p, "omp_num_threads", atoll(v + 16));
		if (strncmp(v, "SLURM_", 6) || !strchr(v, '=') || !sb_utf8_printable(v))
			continue;
		*strchr(v, '=') = 0;
		ret |= sb_profile_set_str(p, v, v + strlen(v) + 1);
	}
	free(env);
	return ret;
}

int sb_sysinfo_process(struct sb_profile *p, pid_t pid, const char *command)
{
	char path[64], cwd[4096];
	struct passwd *pw;
	struct stat st;
	ssize_t n;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (!stat(path, &st) && (pw = getpwuid(st.st_uid)))
		ret |= sb_profile_set_str(p, "user", pw->pw_name);
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
	n = readlink(path, cwd, sizeof(cwd) - 1);
	if (n > 0) {
		cwd[n] = 0;
		sb_utf8_sanitize(cwd);
		ret |= sb_profile_set_str(p, "working_directory", cwd);
	}
	if (command)
		ret |= sb_profile_set_str(p, "command", command);
	ret |= environment(p, pid);
	return ret ? -ENOMEM : 0;
}
