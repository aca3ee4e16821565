/*
 * record -a: a process is traced when the file it runs is --exe's (whatever
 * it contains), or, without --exe, when it has scope_bpf probes or needs an
 * MPI library (DT_NEEDED; at the start also what it maps) and is no launcher;
 * then only when its name is --comm's and its MPI rank is in --ranks.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/elf_needed.h"
#include "record/maps.h"
#include "record/probes.h"
#include "record/sources/mpi_calls.h"
#include "record/sources/mpi_lib.h"
#include "record/sources/mpi_ranks.h"
#include "record/syswide.h"
#include "region.h"
#include "region.skel.h"

/* Launch helpers that are never ranks, beside the launchers themselves (sb_mpi_launcher). */
static const char *const helpers[] = {
	"hydra_pmi_proxy", "orted", "prted", "slurmstepd",
};

void sb_syswide_configure(const struct record_opts *o, struct region_bpf *skel)
{
	struct stat st;

	skel->rodata->trace_all = o->all;
	/* A file that cannot be read now is refused by sb_syswide_init. */
	if (o->all && o->exe && !stat(o->exe, &st))
		skel->rodata->exe_ino = st.st_ino;
	if (o->comm)
		snprintf((char *)skel->rodata->comm_filter, sizeof(skel->rodata->comm_filter), "%s",
			 o->comm);
}

int sb_syswide_init(struct sb_syswide *s, const struct record_opts *o, struct region_bpf *skel,
		    struct sb_error *err)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->skel = skel;
	sb_hashmap_init(&s->files);
	if (!o->exe)
		return 0;
	if (stat(o->exe, &st))
		return sb_fail(err, errno, "--exe %s: %s", o->exe, strerror(errno));
	s->exe_dev = st.st_dev;
	s->exe_ino = st.st_ino;
	return 0;
}

static bool is_helper(const char *exe)
{
	const char *base = strrchr(exe, '/');
	char *cmd[] = { (char *)exe, NULL };
	size_t i;

	base = base ? base + 1 : exe;
	for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
		if (!strcmp(base, helpers[i]))
			return true;
	}
	return sb_mpi_launcher(cmd);
}

static bool needs_mpi(const char *name)
{
	return sb_mpi_lib_name(name);
}

/* The file itself: probes, or an MPI library needed; launchers never. */
static bool file_traced(pid_t pid, const char *proc_exe)
{
	char link[64], exe[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	if (is_helper(exe))
		return false;
	return sb_count_probes(proc_exe) > 0 || sb_elf_needs(proc_exe, needs_mpi);
}

/* Whether pid's executable qualifies; stat says which file it is, for the cache and --exe. */
static bool exe_qualifies(struct sb_syswide *s, pid_t pid)
{
	char proc_exe[64];
	struct stat st;
	uint64_t *known;
	bool yes;

	snprintf(proc_exe, sizeof(proc_exe), "/proc/%d/exe", (int)pid);
	if (stat(proc_exe, &st))
		return false;
	if (s->o->exe)
		return st.st_dev == s->exe_dev && st.st_ino == s->exe_ino;
	known = sb_hashmap_get(&s->files, st.st_dev, st.st_ino);
	if (known)
		return *known == 2;
	yes = file_traced(pid, proc_exe);
	sb_hashmap_put(&s->files, st.st_dev, st.st_ino, yes ? 2 : 1);
	return yes;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* --comm and --ranks: what the process is, not what it runs. */
static bool process_wanted(struct sb_syswide *s, pid_t pid)
{
	struct sb_mpi_claim c;
	char path[64], comm[32] = "";
	FILE *f;

	if (s->o->comm) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		f = fopen(path, "re");
		if (!f)
			return false;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
		if (strcmp(comm, s->o->comm))
			return false;
	}
	if (!s->o->ranks)
		return true;
	return sb_mpi_claim_of(pid, &c) == 1 &&
	       bsearch(&c.rank, s->o->ranks, s->o->n_ranks, sizeof(c.rank), cmp_u32);
}

/* The file the kernel side held pid for, as it names it; false when not noted. */
static bool held_file(struct sb_syswide *s, pid_t pid, struct sb_file_key *key)
{
	int fd = bpf_map__fd(s->skel->maps.exec_files);
	__u32 tgid = (__u32)pid;

	if (bpf_map_lookup_elem(fd, &tgid, key))
		return false;
	bpf_map_delete_elem(fd, &tgid);
	return true;
}

bool sb_syswide_exec(struct sb_syswide *s, pid_t pid)
{
	struct sb_file_key key;
	bool yes = exe_qualifies(s, pid);
	__u32 verdict = yes ? SB_EXE_ASK : SB_EXE_NEVER;

	/* A full map only means stopping again for that file. */
	if (held_file(s, pid, &key))
		bpf_map_update_elem(bpf_map__fd(s->skel->maps.exe_verdicts), &key, &verdict,
				    BPF_ANY);
	return yes && process_wanted(s, pid);
}

/* Without --exe, a running process qualifies by what it maps too (libraries with probes, MPI). */
static bool maps_qualify(struct sb_syswide *s, pid_t pid)
{
	char path[4200], link[64], exe[4096];
	struct sb_map *maps;
	bool yes = false;
	uint64_t *known;
	size_t n, i;
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	len = readlink(link, exe, sizeof(exe) - 1);
	if (len <= 0 || (exe[len] = 0, is_helper(exe)) || sb_maps_read(pid, &maps, &n))
		return false;
	for (i = 0; i < n && !yes; i++) {
		if (!maps[i].exec)
			continue;
		known = sb_hashmap_get(&s->files, maps[i].dev, maps[i].inode);
		if (known) {
			yes = *known == 2;
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, maps[i].path);
		yes = sb_mpi_lib_name(maps[i].path) || sb_count_probes(path) > 0;
		sb_hashmap_put(&s->files, maps[i].dev, maps[i].inode, yes ? 2 : 1);
	}
	sb_maps_free(maps, n);
	return yes;
}

static bool running_wanted(struct sb_syswide *s, pid_t pid)
{
	bool yes = exe_qualifies(s, pid) || (!s->o->exe && maps_qualify(s, pid));

	return yes && process_wanted(s, pid);
}

pid_t *sb_syswide_scan(struct sb_syswide *s, size_t *n)
{
	pid_t *pids = NULL, *grown, pid, self = getpid();
	size_t cap = 0;
	struct dirent *d;
	DIR *dir;
	char *end;

	*n = 0;
	dir = opendir("/proc");
	if (!dir)
		return calloc(1, sizeof(*pids));
	while ((d = readdir(dir))) {
		pid = (pid_t)strtol(d->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self || !running_wanted(s, pid))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(pids, cap * sizeof(*pids));
			if (!grown)
				break;
			pids = grown;
		}
		pids[(*n)++] = pid;
	}
	closedir(dir);
	return pids ? pids : calloc(1, sizeof(*pids));
}

void sb_syswide_traced(struct sb_syswide *s)
{
	s->traced++;
}

bool sb_syswide_idle(struct sb_syswide *s)
{
	int fd = bpf_map__fd(s->skel->maps.procs);
	__u32 key, next, *prev = NULL;
	bool alive = false;

	if (!s->traced)
		return false;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		if (kill((pid_t)key, 0) && errno == ESRCH) {
			bpf_map_delete_elem(fd, &key);
			continue;
		}
		alive = true;
		prev = &key;
	}
	return !alive;
}

void sb_syswide_free(struct sb_syswide *s)
{
	sb_hashmap_free(&s->files);
}
