/*
 * MPI ranks from the launcher's environment. mpiexec (Hydra, Open MPI's
 * prterun), PMIx and srun tell each process its rank in environment
 * variables; a process's /proc/PID/environ is what it was given at exec, so
 * it is read when a process is first traced (-p) and at each exec sync, and a
 * forked child inherits its parent's claim until it execs. At finish the rank
 * rule numbers the profile by these claims; launchers and helpers, which
 * carry no rank, are numbered after the MPI ranks (they usually complete no
 * region call and so get no rank at all). The MPI library is recognised by
 * the file name of the first one a traced process maps; its code never runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "record/maps.h"
#include "record/sources/mpi_ranks.h"
#include "record/sources/sources.h"
#include "util/utf8.h"

/* Environments are small; a larger one is read this far (launchers put their variables first). */
#define ENVIRON_MAX (1 << 20)
/* "No claim": a process whose environment (after an exec) names no rank. */
#define NO_CLAIM SB_MPI_N_VARS

static const char *const rank_var[SB_MPI_N_VARS] = {
	"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
};
static const char *const size_var[SB_MPI_N_VARS] = {
	"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS",
};

const char *sb_mpi_var_name(enum sb_mpi_var var)
{
	return var < SB_MPI_N_VARS ? rank_var[var] : "";
}

/* The value of the first entry NAME=... in env[0..n), its length in *len; NULL when absent. */
static const char *env_value(const char *env, size_t n, const char *name, size_t *len)
{
	size_t name_len = strlen(name), pos = 0;

	while (pos < n) {
		const char *entry = env + pos, *nul = memchr(entry, 0, n - pos);
		size_t entry_len = nul ? (size_t)(nul - entry) : n - pos;

		if (entry_len > name_len && !memcmp(entry, name, name_len) && entry[name_len] == '=') {
			*len = entry_len - name_len - 1;
			return entry + name_len + 1;
		}
		pos += entry_len + 1;
	}
	return NULL;
}

/* A plain decimal (digits only, at most 10 of them) below limit. 0 or -EINVAL. */
static int parse_below(const char *s, size_t len, uint64_t limit, uint32_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!s || !len || len > 10)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v >= limit)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* The claim of one variable pair: the rank must be valid; a size only when valid and above it. */
static int claim_of(const char *env, size_t n, enum sb_mpi_var var, struct sb_mpi_claim *out)
{
	const char *rank, *size;
	size_t rank_len = 0, size_len = 0;
	uint32_t r, sz;

	rank = env_value(env, n, rank_var[var], &rank_len);
	if (parse_below(rank, rank_len, SB_MAX_RANK, &r))
		return 0;
	*out = (struct sb_mpi_claim){ .rank = r, .var = var };
	size = env_value(env, n, size_var[var], &size_len);
	if (!size || parse_below(size, size_len, (uint64_t)SB_MAX_RANK + 1, &sz) || !sz)
		return 1;
	if (r >= sz)
		return 0;
	out->size = sz;
	return 1;
}

int sb_mpi_env_parse(const char *env, size_t n, struct sb_mpi_claim *out)
{
	struct sb_mpi_claim c;
	int var;

	for (var = 0; var < SB_MPI_N_VARS; var++) {
		if (claim_of(env, n, var, &c)) {
			*out = c;
			return 1;
		}
	}
	return 0;
}

/* tgid's entry, made (with no claim and nothing learned) when it has none; NULL: -ENOMEM. */
static struct sb_mpi_seen *seen_of(struct sb_mpi_ranks *s, uint32_t tgid)
{
	uint64_t *at = sb_hashmap_get(&s->index_of, tgid, 0);
	struct sb_mpi_seen *seen;

	if (at)
		return &s->seen[*at];
	seen = realloc(s->seen, (s->n_seen + 1) * sizeof(*seen));
	if (!seen)
		return NULL;
	s->seen = seen;
	if (sb_hashmap_put(&s->index_of, tgid, 0, s->n_seen))
		return NULL;
	seen[s->n_seen] = (struct sb_mpi_seen){ .tgid = tgid, .claim = { .var = NO_CLAIM },
						.own_rank = -1, .own_size = -1 };
	return &seen[s->n_seen++];
}

int sb_mpi_ranks_claim(struct sb_mpi_ranks *s, uint32_t tgid, const struct sb_mpi_claim *c)
{
	struct sb_mpi_seen *seen = seen_of(s, tgid);

	if (!seen)
		return -ENOMEM;
	seen->claim = *c;
	return 0;
}

int sb_mpi_ranks_learned(struct sb_mpi_ranks *s, uint32_t tgid, int32_t rank, int32_t size)
{
	struct sb_mpi_seen *seen = seen_of(s, tgid);

	if (!seen)
		return -ENOMEM;
	if (rank >= 0 && (uint32_t)rank < SB_MAX_RANK)
		seen->own_rank = rank;
	if (size > 0 && (uint32_t)size <= SB_MAX_RANK)
		seen->own_size = size;
	return 0;
}

/* The variable the ranks come from: the most trusted one any process claimed by; NO_CLAIM if none. */
static enum sb_mpi_var ranks_var(const struct sb_mpi_ranks *s)
{
	enum sb_mpi_var best = NO_CLAIM;
	size_t i;

	for (i = 0; i < s->n_seen; i++)
		if (s->seen[i].claim.var < best)
			best = s->seen[i].claim.var;
	return best;
}

static uint32_t at_least(uint32_t size, uint32_t n)
{
	return n > size ? n : size;
}

/*
 * The world size: the largest any process learned from MPI_Comm_size, size
 * given by var or rank + 1 of the rank it goes by.
 */
static uint32_t world_size(const struct sb_mpi_ranks *s, enum sb_mpi_var var)
{
	uint32_t size = 0;
	size_t i;

	for (i = 0; i < s->n_seen; i++) {
		const struct sb_mpi_seen *seen = &s->seen[i];
		const struct sb_mpi_claim *c = &seen->claim;

		if (seen->own_size > 0)
			size = at_least(size, (uint32_t)seen->own_size);
		if (seen->own_rank >= 0)
			size = at_least(size, (uint32_t)seen->own_rank + 1);
		if (var == NO_CLAIM || c->var != var)
			continue;
		size = at_least(size, c->size);
		size = at_least(size, c->rank + 1);
	}
	return size;
}

struct candidate {
	uint32_t rank;
	bool learned;		/* from MPI_Comm_rank, not the environment */
	size_t seen;		/* order of the claim */
	size_t i;		/* index in tgids */
};

static int cmp_candidate(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->learned != y->learned)
		return x->learned ? -1 : 1;
	return x->seen < y->seen ? -1 : x->seen > y->seen;
}

/*
 * The processes of tgids that learned their rank or claim one by var, by
 * rank, those that learned it first, then order of claim.
 */
static struct candidate *candidates(const struct sb_mpi_ranks *s, enum sb_mpi_var var,
				    const uint32_t *tgids, size_t n, size_t *n_cand)
{
	struct candidate *cand = calloc(n + 1, sizeof(*cand));
	const struct sb_mpi_seen *seen;
	size_t i;

	*n_cand = 0;
	if (!cand)
		return NULL;
	for (i = 0; i < n; i++) {
		uint64_t *at = sb_hashmap_get(&s->index_of, tgids[i], 0);

		if (!at)
			continue;
		seen = &s->seen[*at];
		if (seen->own_rank >= 0)
			cand[(*n_cand)++] = (struct candidate){ (uint32_t)seen->own_rank, true, *at, i };
		else if (var != NO_CLAIM && seen->claim.var == var)
			cand[(*n_cand)++] = (struct candidate){ seen->claim.rank, false, *at, i };
	}
	qsort(cand, *n_cand, sizeof(*cand), cmp_candidate);
	return cand;
}

int sb_mpi_rank_rule(void *ctx, const uint32_t *tgids, size_t n, uint32_t *ranks)
{
	struct sb_mpi_ranks *s = ctx;
	enum sb_mpi_var var = ranks_var(s);
	uint64_t next = world_size(s, var);
	struct candidate *cand;
	bool *ranked;
	size_t n_cand, i;

	cand = candidates(s, var, tgids, n, &n_cand);
	ranked = calloc(n + 1, sizeof(*ranked));
	if (!cand || !ranked) {
		free(cand);
		free(ranked);
		return -ENOMEM;
	}
	for (i = 0; i < n_cand; i++) {
		if (i && cand[i].rank == cand[i - 1].rank)
			continue;
		ranks[cand[i].i] = cand[i].rank;
		ranked[cand[i].i] = true;
	}
	for (i = 0; i < n; i++)
		if (!ranked[i])
			ranks[i] = (uint32_t)next++;
	free(cand);
	free(ranked);
	return 0;
}

/* Only a version made of digits and dots is kept; anything else is no version. */
static void copy_version(const char *rest, char *version, size_t size)
{
	size_t len = strlen(rest);

	version[0] = 0;
	if (rest[0] != '.' || len < 2 || len >= size || strspn(rest + 1, "0123456789.") != len - 1)
		return;
	memcpy(version, rest + 1, len);
}

int sb_mpi_library_of(const char *path, char *name, size_t name_size, char *version,
		      size_t version_size)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

	if (!strncmp(base, "libmpich.so", 11)) {
		snprintf(name, name_size, "MPICH");
		copy_version(base + 11, version, version_size);
		return 1;
	}
	if (!strncmp(base, "libmpi.so", 9)) {
		copy_version(base + 9, version, version_size);
		/* Open MPI 3 to 5 all ship libmpi.so.40; Intel MPI and MVAPICH use other numbers. */
		snprintf(name, name_size, !strncmp(version, "40", 2) &&
			 (!version[2] || version[2] == '.') ? "Open MPI" : "libmpi");
		return 1;
	}
	return 0;
}

/* The first MPI library pid maps, unless one is known already. */
static int find_library(struct sb_mpi_ranks *s, pid_t pid)
{
	struct sb_map *maps;
	size_t n, i;

	if (s->library[0] || sb_maps_read(pid, &maps, &n))
		return 0;
	for (i = 0; i < n && !s->library[0]; i++) {
		if (!sb_mpi_library_of(maps[i].path, s->library, sizeof(s->library),
				       s->library_version, sizeof(s->library_version)))
			continue;
		s->library_path = strdup(maps[i].path);
		if (!s->library_path) {
			sb_maps_free(maps, n);
			return -ENOMEM;
		}
		sb_utf8_sanitize(s->library_path);
	}
	sb_maps_free(maps, n);
	return 0;
}

/* The environment pid was given at its last exec, at most ENVIRON_MAX bytes; NULL if unreadable. */
static char *read_environ(pid_t pid, size_t *len)
{
	char path[64], *buf;
	ssize_t got = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(ENVIRON_MAX);
	*len = 0;
	while (buf && *len < ENVIRON_MAX) {
		got = read(fd, buf + *len, ENVIRON_MAX - *len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		*len += (size_t)got;
	}
	close(fd);
	if (buf && got < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int sb_mpi_claim_of(pid_t pid, struct sb_mpi_claim *out)
{
	size_t len;
	char *env = read_environ(pid, &len);
	int found;

	if (!env)
		return -1;
	found = sb_mpi_env_parse(env, len, out);
	free(env);
	return found;
}

/* What pid's own environment says; a process that names no rank (any longer) has no claim. */
static int read_claim(struct sb_mpi_ranks *s, pid_t pid)
{
	struct sb_mpi_claim c = { .var = NO_CLAIM };
	int found = sb_mpi_claim_of(pid, &c);

	if (found < 0 || (!found && !sb_hashmap_get(&s->index_of, pid, 0)))
		return 0;
	return sb_mpi_ranks_claim(s, pid, &c);
}

static int ranks_start(void *state, struct sb_source_env *env, struct sb_error *err)
{
	(void)err;
	env->coll->rank_rule = sb_mpi_rank_rule;
	env->coll->rank_rule_ctx = state;
	return 0;
}

static int ranks_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
			 struct sb_error *err)
{
	struct sb_mpi_ranks *s = state;
	struct sb_mpi_claim inherited;
	uint64_t *parent;
	int ret = 0;

	(void)env;
	if (ch->what == SB_PROC_FORK) {
		parent = sb_hashmap_get(&s->index_of, (uint32_t)ch->parent, 0);
		/* A copy: claiming may move the claims. */
		if (parent) {
			inherited = s->seen[*parent].claim;
			ret = sb_mpi_ranks_claim(s, (uint32_t)ch->pid, &inherited);
		}
	} else {
		ret = read_claim(s, ch->pid);
		if (!ret)
			ret = find_library(s, ch->pid);
	}
	return ret ? sb_fail(err, -ret, "process %d: MPI rank: out of memory", (int)ch->pid) : 0;
}

/* A process learned its rank in COMM_WORLD (mpi.bpf.h, after MPI_Comm_rank or _size returned). */
static int ranks_record(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	struct sb_mpi_rank_event e;

	(void)env;
	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	return sb_mpi_ranks_learned(state, e.tgid, e.rank, e.size);
}

/*
 * How many processes that learned their rank had the environment's rank by
 * var (agree) or another one; each disagreement is told on stderr (the
 * profile goes by what the process learned).
 */
static uint32_t count_learned(const struct sb_mpi_ranks *s, enum sb_mpi_var var, bool agree,
			      bool quiet)
{
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < s->n_seen; i++) {
		const struct sb_mpi_seen *seen = &s->seen[i];

		if (seen->own_rank < 0 || var == NO_CLAIM || seen->claim.var != var ||
		    (seen->claim.rank == (uint32_t)seen->own_rank) != agree)
			continue;
		n++;
		if (!agree && !quiet)
			fprintf(stderr, "scope-bpf: warning: process %u: %s says rank %u, "
				"MPI_Comm_rank says %d: the profile uses %d\n", seen->tgid,
				sb_mpi_var_name(var), seen->claim.rank, seen->own_rank,
				seen->own_rank);
	}
	return n;
}

static bool any_learned(const struct sb_mpi_ranks *s)
{
	size_t i;

	for (i = 0; i < s->n_seen; i++)
		if (s->seen[i].own_rank >= 0)
			return true;
	return false;
}

static int ranks_contribute(void *state, struct sb_source_env *env)
{
	struct sb_mpi_ranks *s = state;
	struct sb_profile *p = &env->coll->prof;
	enum sb_mpi_var var = ranks_var(s);
	bool learned = any_learned(s), quiet = env->opts && env->opts->quiet;
	int ret = 0;

	if (var != NO_CLAIM || learned) {
		ret |= sb_profile_set_int(p, "mpi_size", world_size(s, var));
		ret |= sb_profile_set_str(p, "mpi_rank_source",
					  var != NO_CLAIM ? sb_mpi_var_name(var) : "MPI_Comm_rank");
	}
	if (learned) {
		ret |= sb_profile_set_int(p, "mpi_ranks_confirmed",
					  count_learned(s, var, true, quiet));
		ret |= sb_profile_set_int(p, "mpi_ranks_disagreeing",
					  count_learned(s, var, false, quiet));
	}
	if (s->library[0]) {
		ret |= sb_profile_set_str(p, "mpi_library", s->library);
		if (s->library_version[0])
			ret |= sb_profile_set_str(p, "mpi_library_version", s->library_version);
		ret |= sb_profile_set_str(p, "mpi_library_path", s->library_path);
	}
	return ret ? -ENOMEM : 0;
}

void sb_mpi_ranks_free(struct sb_mpi_ranks *s)
{
	sb_hashmap_free(&s->index_of);
	free(s->seen);
	free(s->library_path);
	*s = (struct sb_mpi_ranks){ 0 };
}

static void ranks_free(void *state)
{
	sb_mpi_ranks_free(state);
}

const struct sb_source_ops sb_mpi_ranks_source = {
	.name = "mpi_ranks",
	.state_size = sizeof(struct sb_mpi_ranks),
	.start = ranks_start,
	.process = ranks_process,
	.record_type = SB_EV_MPI_RANK,
	.record = ranks_record,
	.contribute = ranks_contribute,
	.free = ranks_free,
};
