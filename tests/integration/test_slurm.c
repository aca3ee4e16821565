/*
 * srun --scope-bpf on a real Slurm: the test starts munged, slurmctld and two
 * slurmd (nodes n1 and n2 on this host) and scope-bpfd, from configurations
 * it writes in its own folder, and an unprivileged user of its own runs
 * `srun --scope-bpf -N 2 -n 4 --mpi=pmi2 mpi_ranks` (MPICH through Slurm's
 * PMI2, its calls timed by the PMPI library each task's client preloads, as
 * root's record does). The plugin records each task through the daemon, each node merges
 * its tasks into prof.NODE.h5, the last one both nodes' into prof.h5: 4
 * ranks with mpi_ranks' known counts and MPI calls, the job in the metadata and in
 * report's header, the files the user's. Every daemon started is stopped by
 * its pid.
 */
#include <dirent.h>
#include <glob.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>

#include "harness.h"
#include "test_user.h"

enum { MUNGED, SLURMCTLD, SLURMD1, SLURMD2, SCOPE_BPFD, N_DAEMONS };

static pid_t daemons[N_DAEMONS];
static char conf[300], munge_sock[300], bpfd_sock[300], submit_dir[300];

static int64_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A file of the build folder beside scope-bpf (its absolute path: Slurm's daemons chdir). */
static const char *beside_scope_bpf(const char *name, char *buf, size_t size)
{
	char dir[PATH_MAX];

	if (!realpath(scope_bin(), dir))
		fail_msg("%s: %s", scope_bin(), strerror(errno));
	snprintf(buf, size, "%s/%s", dirname(dir), name);
	return buf;
}

static int write_file(const char *name, const char *text)
{
	char path[300];
	FILE *f = fopen(tmp_file(name, path, sizeof(path)), "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Ports of our own, apart from a Slurm the machine may run (6817, 6818). */
static int write_slurm_conf(void)
{
	int port = 20000 + (int)(getpid() % 2000) * 3;
	char text[4096], so[600], bin[600];

	snprintf(text, sizeof(text),
		 "ClusterName=sbtest\nSlurmctldHost=localhost\nSlurmUser=root\n"
		 "SlurmctldPort=%d\nAuthType=auth/munge\nAuthInfo=socket=%s\n"
		 "StateSaveLocation=%s/state\nSlurmdSpoolDir=%s/spool-%%n\n"
		 "SlurmctldPidFile=%s/slurmctld.pid\nSlurmdPidFile=%s/slurmd-%%n.pid\n"
		 "SlurmctldLogFile=%s/slurmctld.log\nSlurmdLogFile=%s/slurmd-%%n.log\n"
		 "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nMpiDefault=pmi2\n"
		 "SchedulerType=sched/builtin\nSelectType=select/cons_tres\n"
		 "SelectTypeParameters=CR_Core\nReturnToService=2\n"
		 "SlurmdParameters=config_overrides\nPlugStackConfig=%s/plugstack.conf\n"
		 "NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=%d CPUs=4\n"
		 "NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=%d CPUs=4\n"
		 "PartitionName=p Nodes=n1,n2 Default=YES MaxTime=10 State=UP\n",
		 port, munge_sock, tmp_dir, tmp_dir, tmp_dir, tmp_dir, tmp_dir, tmp_dir, tmp_dir,
		 port + 1, port + 2);
	if (write_file("slurm.conf", text))
		return -1;
	snprintf(text, sizeof(text), "required %s bin=%s\n",
		 beside_scope_bpf("spank_scope_bpf.so", so, sizeof(so)),
		 beside_scope_bpf("scope-bpf", bin, sizeof(bin)));
	return write_file("plugstack.conf", text);
}

/* Waits up to 30 s for path to exist. */
static bool wait_for_file(const char *path)
{
	int i;

	for (i = 0; i < 3000 && access(path, F_OK); i++)
		sleep_ms(10);
	return !access(path, F_OK);
}

static int start_munged(void)
{
	char key[300], log[300], pid[300], seed[300], sock_arg[320], key_arg[320], log_arg[320],
		pid_arg[320], seed_arg[320];
	char *argv[] = { "/usr/sbin/munged", "-F", "-f", sock_arg, key_arg, log_arg, pid_arg,
			 seed_arg, NULL };
	unsigned char bytes[128];
	int fd = -1;

	fd = open(tmp_file("munge.key", key, sizeof(key)), O_WRONLY | O_CREAT | O_EXCL, 0400);
	if (fd < 0 || getentropy(bytes, sizeof(bytes)) ||
	    write(fd, bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes) || close(fd))
		return -1;
	snprintf(sock_arg, sizeof(sock_arg), "--socket=%s", tmp_file("munge.sock", munge_sock,
								      sizeof(munge_sock)));
	snprintf(key_arg, sizeof(key_arg), "--key-file=%s", key);
	snprintf(log_arg, sizeof(log_arg), "--log-file=%s", tmp_file("munged.log", log, sizeof(log)));
	snprintf(pid_arg, sizeof(pid_arg), "--pid-file=%s", tmp_file("munged.pid", pid, sizeof(pid)));
	snprintf(seed_arg, sizeof(seed_arg), "--seed-file=%s",
		 tmp_file("munged.seed", seed, sizeof(seed)));
	daemons[MUNGED] = spawn(argv, tmp_file("munged.err", log, sizeof(log)), NULL);
	return wait_for_file(munge_sock) ? 0 : -1;
}

static int start_slurm(void)
{
	char spool[300], state[300];
	char *ctld[] = { "/usr/sbin/slurmctld", "-D", "-i", "-f", conf, NULL };
	char *n1[] = { "/usr/sbin/slurmd", "-D", "-f", conf, "-N", "n1", NULL };
	char *n2[] = { "/usr/sbin/slurmd", "-D", "-f", conf, "-N", "n2", NULL };
	char err[300];

	tmp_file("slurm.conf", conf, sizeof(conf));
	if (mkdir(tmp_file("state", state, sizeof(state)), 0700) ||
	    mkdir(tmp_file("spool-n1", spool, sizeof(spool)), 0700) ||
	    mkdir(tmp_file("spool-n2", spool, sizeof(spool)), 0700) || write_slurm_conf())
		return -1;
	daemons[SLURMCTLD] = spawn(ctld, tmp_file("slurmctld.err", err, sizeof(err)), NULL);
	daemons[SLURMD1] = spawn(n1, tmp_file("slurmd-n1.err", err, sizeof(err)), NULL);
	daemons[SLURMD2] = spawn(n2, tmp_file("slurmd-n2.err", err, sizeof(err)), NULL);
	return 0;
}

static int start_scope_bpfd(void)
{
	char bpfd[600], policy[300], tmp_env[320];
	char *argv[] = { "/usr/bin/env", tmp_env, bpfd, "--foreground", "--socket", bpfd_sock,
			 "--policy", policy, NULL };
	char log[300];

	beside_scope_bpf("scope-bpfd", bpfd, sizeof(bpfd));
	/* Two nodes on one host: one daemon records the tasks of both. */
	if (write_file("policy", "max-recordings 8\nmax-duration 120\n"))
		return -1;
	tmp_file("policy", policy, sizeof(policy));
	tmp_file("scope-bpfd.sock", bpfd_sock, sizeof(bpfd_sock));
	snprintf(tmp_env, sizeof(tmp_env), "TMPDIR=%s", tmp_dir);
	daemons[SCOPE_BPFD] = spawn(argv, tmp_file("scope-bpfd.log", log, sizeof(log)), NULL);
	return wait_for_file(bpfd_sock) ? 0 : -1;
}

/* Whether this machine has the Slurm and munge that the test starts. */
static bool have_slurm(void)
{
	return !access("/usr/sbin/slurmctld", X_OK) && !access("/usr/sbin/slurmd", X_OK) &&
	       !access("/usr/sbin/munged", X_OK) && in_path("srun") && in_path("sinfo");
}

static int setup(void **state)
{
	char spank[600];

	if (geteuid() != 0 || !have_slurm() ||
	    access(beside_scope_bpf("spank_scope_bpf.so", spank, sizeof(spank)), R_OK))
		return 0;
	if (setup_tmp(state) || chmod(tmp_dir, 0755) || make_user("sbslm"))
		return -1;
	tmp_file("u", submit_dir, sizeof(submit_dir));
	if (mkdir(submit_dir, 0700) || chown(submit_dir, user.uid, user.gid))
		return -1;
	setenv("SLURM_CONF", tmp_file("slurm.conf", conf, sizeof(conf)), 1);
	return start_munged() || start_slurm() || start_scope_bpfd() ? -1 : 0;
}

static int teardown(void **state)
{
	int i;

	for (i = N_DAEMONS - 1; i >= 0; i--) {
		if (daemons[i] <= 0)
			continue;
		kill(daemons[i], SIGTERM);
		wait_status(daemons[i]);
	}
	remove_user();
	return tmp_dir[0] ? teardown_tmp(state) : 0;
}

/* Without Slurm, root or the plugin: a skip, except under CI, which names what is missing. */
static void require_slurm(void)
{
	char spank[600];
	const char *missing = geteuid() ? "root (to start Slurm's daemons and make a user)" :
			      !have_slurm() ? "Debian's slurm-wlm and munge (tools/install-deps.sh)" :
			      access(beside_scope_bpf("spank_scope_bpf.so", spank, sizeof(spank)),
				     R_OK) ? "spank_scope_bpf.so (libslurm-dev)" : NULL;

	if (!missing)
		return;
	if (!strcmp(env_or("CI", ""), "true"))
		fail_msg("test_slurm needs %s, and CI=true forbids skipping", missing);
	fprintf(stderr, "skipping: test_slurm needs %s\n", missing);
	skip();
}

/* Both nodes registered and idle (slurmd's registration takes a second or two). */
static bool nodes_idle(void)
{
	char *argv[] = { "/usr/bin/sinfo", "-h", "-o", "%t %D", NULL };
	char line[64] = "";
	FILE *out;
	pid_t pid;
	int fd = -1, i;

	for (i = 0; i < 60; i++) {
		pid = spawn(argv, NULL, &fd);
		out = fdopen(fd, "r");
		if (!out || !fgets(line, sizeof(line), out))
			line[0] = 0;
		if (out)
			fclose(out);
		wait_status(pid);
		if (!strcmp(line, "idle 2\n"))
			return true;
		sleep_ms(500);
	}
	fprintf(stderr, "sinfo: '%s'\n", line);
	return false;
}

/* argv as the test user in submit_dir, with the daemon's socket; stderr to err_path. */
static int run_user(char *const argv[], const char *err_path)
{
	pid_t pid = fork();
	int fd = -1;

	if (pid == 0) {
		fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(125);
		umask(077);
		if (setgroups(0, NULL) || setgid(user.gid) || setuid(user.uid) || chdir(submit_dir))
			_exit(126);
		setenv("SCOPE_BPF_SOCKET", bpfd_sock, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	return wait_status(pid);
}

/* The folder of step STEP that the plugin made in base: scope-bpf.JOB.STEP; the job's id. */
static long step_folder(const char *base, int step, char *dir, size_t size)
{
	char pattern[400];
	long job = -1;
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/scope-bpf.*.%d", base, step);
	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1) {
		snprintf(dir, size, "%s", g.gl_pathv[0]);
		job = strtol(strrchr(g.gl_pathv[0], '/') + strlen("/scope-bpf."), NULL, 10);
	}
	if (g.gl_pathc)
		globfree(&g);
	return job;
}

static void assert_users_file(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(st.st_uid, user.uid);
	assert_int_equal(st.st_mode & 0077, 0);
}

/* The header of `scope-bpf report` on the step's profile names the job and its step. */
static void assert_report_names_job(const char *prof, long job)
{
	char *argv[] = { (char *)scope_bin(), "report", (char *)prof, NULL };
	char text[8192] = "", want[128];
	size_t n;
	FILE *out;
	pid_t pid;
	int fd = -1;

	pid = spawn(argv, NULL, &fd);
	out = fdopen(fd, "r");
	assert_non_null(out);
	n = fread(text, 1, sizeof(text) - 1, out);
	text[n] = 0;
	fclose(out);
	assert_int_equal(wait_status(pid), 0);
	snprintf(want, sizeof(want), "job       slurm %ld step 0 on n[1-2]\n", job);
	if (!strstr(text, want))
		fail_msg("report's header lacks '%s':\n%s", want, text);
}

/* The MPI_Barrier calls of a rank: regions "mpi:barrier kind=... comm=...". */
static uint64_t barriers(const struct sb_profile *p, uint32_t rank)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank == rank &&
		    !strncmp(p->regions[p->pairs[i].region].name, "mpi:barrier ", 12))
			n += p->pairs[i].count;
	return n;
}

static void srun_scope_bpf_records_the_step(void **state)
{
	char app[600], err[300], dir[400], prof[500], node[500], rank[16];
	char *argv[] = { "srun", "--scope-bpf", "-N", "2", "-n", "4", "--mpi=pmi2", app, NULL };
	struct sb_profile p;
	int64_t start = now_mono();
	long job;
	uint32_t r;

	(void)state;
	require_slurm();
	assert_true(nodes_idle());
	snprintf(app, sizeof(app), "%s/mpi_ranks", realpath(env_or("APPS", "build/apps"), dir));
	if (run_user(argv, tmp_file("srun.txt", err, sizeof(err)))) {
		echo_stderr(err, 1);
		fail_msg("srun --scope-bpf failed");
	}
	job = step_folder(submit_dir, 0, dir, sizeof(dir));
	assert_true(job > 0);
	/* The merges ran in the tasks: srun has waited for them. */
	snprintf(prof, sizeof(prof), "%s/prof.h5", dir);
	fprintf(stderr, "srun --scope-bpf -N 2 -n 4 and the merges: %.1f s\n",
		(double)(now_mono() - start) / 1e9);
	assert_users_file(prof);
	snprintf(node, sizeof(node), "%s/prof.n1.h5", dir);
	assert_users_file(node);
	snprintf(node, sizeof(node), "%s/prof.n2.h5", dir);
	assert_users_file(node);

	load_profile(prof, &p);
	assert_int_equal(sb_profile_ranks_recorded(&p), 4);
	for (r = 0; r < 4; r++) {
		assert_int_equal(must_pair(&p, "setup", r)->count, 1);
		assert_int_equal(must_pair(&p, "work", r)->count, r + 1);
		assert_int_equal(barriers(&p, r), 1);
	}
	snprintf(rank, sizeof(rank), "%ld", job);
	/* Each task's client preloaded the PMPI library, as root's record does. */
	assert_string_equal(meta_str(&p, "mpi_calls_path"), "pmpi");
	assert_string_equal(meta_str(&p, "SLURM_JOB_ID"), rank);
	assert_string_equal(meta_str(&p, "SLURM_STEP_ID"), "0");
	assert_string_equal(meta_str(&p, "SLURM_STEP_NODELIST"), "n[1-2]");
	assert_string_equal(meta_str(&p, "SLURM_NTASKS"), "4");
	assert_non_null(meta_str(&p, "SLURM_PROCID"));
	assert_string_equal(meta_str(&p, "user"), user.name);
	assert_string_equal(meta_str(&p, "working_directory"), submit_dir);
	sb_profile_free(&p);
	assert_report_names_job(prof, job);
}

/*
 * sbatch --scope-bpf: each srun step of the script is recorded into a folder
 * of its own under dir= (relative to the submit folder), the script itself
 * is not; a task's exit status is its program's.
 */
static void sbatch_scope_bpf_records_the_scripts_steps(void **state)
{
	char script[400], text[1200], app[600], err[300], base[400], dir[500], prof[600];
	char *argv[] = { "sbatch", "--wait", "--scope-bpf=dir=batch", "-N", "1", "-n", "2",
			 script, NULL };
	struct sb_profile p;
	long job;
	glob_t g;
	FILE *f;
	int fd;

	(void)state;
	require_slurm();
	assert_true(nodes_idle());
	snprintf(app, sizeof(app), "%s/count", realpath(env_or("APPS", "build/apps"), dir));
	snprintf(text, sizeof(text), "#!/bin/sh\nsrun %s 300 || exit 1\n"
		 "srun -n 1 sh -c 'exit 3'; [ $? -eq 3 ] || exit 2\n", app);
	snprintf(script, sizeof(script), "%s/job.sh", submit_dir);
	fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0755);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	if (run_user(argv, tmp_file("sbatch.txt", err, sizeof(err)))) {
		echo_stderr(err, 1);
		fail_msg("sbatch --wait --scope-bpf failed (exit 2: the status was not the task's)");
	}
	snprintf(base, sizeof(base), "%s/batch", submit_dir);
	job = step_folder(base, 0, dir, sizeof(dir));
	assert_true(job > 0);
	snprintf(prof, sizeof(prof), "%s/prof.h5", dir);
	assert_users_file(prof);
	load_profile(prof, &p);
	assert_int_equal(sb_profile_ranks_recorded(&p), 2);
	assert_int_equal(must_pair(&p, "tick", 0)->count, 300);
	assert_int_equal(must_pair(&p, "tick", 1)->count, 300);
	sb_profile_free(&p);
	/* The second step has its own folder; the script's (batch) step has none. */
	assert_int_equal(step_folder(base, 1, dir, sizeof(dir)), job);
	snprintf(prof, sizeof(prof), "%s/prof.h5", dir);
	assert_users_file(prof);
	snprintf(prof, sizeof(prof), "%s/scope-bpf.*", base);
	assert_int_equal(glob(prof, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 2);
	globfree(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(srun_scope_bpf_records_the_step),
		cmocka_unit_test(sbatch_scope_bpf_records_the_scripts_steps),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
