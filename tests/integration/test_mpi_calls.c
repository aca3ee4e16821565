/*
 * Integration: record `mpiexec -n 4 mpi_calls` (and mpi_ops) and check every
 * MPI call the app makes (tests/apps/mpi_calls.c, mpi_ops.c) is one region
 * call, named per the grammar, with its bytes, peer, root and tag, nested in
 * the user region around it.
 */
#include <limits.h>

#include "harness.h"

#include "analysis/mpi.h"

#define RANKS 4
/* 3 send, 3 recv, sendrecv, 2 allreduce, reduce, gather, 3 isend, 3 irecv, 2 wait,
 * 2 waitall, barrier, init, finalize */
#define MPI_CALLS_PER_RANK 24
/* mpi_ops: p2p 12, any 8, icoll 8, vcoll 10, rma 16, io 10, init, finalize */
#define MPI_OPS_PER_RANK 66
#define WORLD 0x44000000	/* MPICH's MPI_COMM_WORLD, as the comm= value */

struct mpi_name {
	char op[32];
	char kind[32];
	long long bytes;
	int peer, root, tag, comm;
	char request[32];	/* "" when none */
};

/* FORMAT.md's grammar: all six keys in order, request= on waits only, nothing else. */
static bool parse_mpi(const char *name, struct mpi_name *m)
{
	int end = -1, req_end = -1;

	m->request[0] = 0;
	if (sscanf(name, "mpi:%31[a-z_] kind=%31[a-z-] bytes=%lld peer=%d root=%d tag=%d comm=%d%n",
		   m->op, m->kind, &m->bytes, &m->peer, &m->root, &m->tag, &m->comm, &end) != 7 ||
	    end < 0)
		return false;
	if (!name[end])
		return true;
	if (strcmp(m->kind, "wait") ||
	    sscanf(name + end, " request=%31[a-z_]%n", m->request, &req_end) != 1 || req_end < 0)
		return false;
	return !name[end + req_end];
}

static void check_tags(const struct sb_region *r, const struct mpi_name *m)
{
	char want[512], req[64] = "";

	if (m->request[0])
		snprintf(req, sizeof(req), ",\"mpi.request:%s\"", m->request);
	snprintf(want, sizeof(want),
		 "[\"mpi\",\"mpi.kind:%s\",\"mpi.operation:%s\",\"mpi.bytes:%lld\","
		 "\"mpi.peer:%d\",\"mpi.root:%d\",\"mpi.tag:%d\",\"mpi.communicator:%d\"%s]",
		 m->kind, m->op, m->bytes, m->peer, m->root, m->tag, m->comm, req);
	assert_string_equal(r->tags, want);
}

static int record_app_mpi(const char *out, const char *mpi, const char *name, const char *arg)
{
	char app[512], *argv[16];
	int n = 0;

	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = (char *)mpi;
	argv[n++] = "--";
	argv[n++] = (char *)mpiexec_mpich();
	argv[n++] = "-n";
	argv[n++] = "4";
	argv[n++] = (char *)app_path(name, app, sizeof(app));
	argv[n++] = (char *)arg;
	argv[n] = NULL;
	return run(argv);
}

static int record_mpi(const char *out, const char *mpi)
{
	return record_app_mpi(out, mpi, "mpi_calls", NULL);
}

/* The MPI rank behind a profile rank: its sends go to (r+1)%4. */
static int mpi_rank_of(const struct sb_profile *p, uint32_t rank)
{
	struct mpi_name m;
	size_t i;

	for (i = 0; i < p->n_pairs; i++) {
		if (p->pairs[i].rank == rank && parse_mpi(p->regions[p->pairs[i].region].name, &m) &&
		    !strcmp(m.op, "send"))
			return (m.peer + RANKS - 1) % RANKS;
	}
	fail_msg("rank %u made no MPI_Send", rank);
	return -1;
}

/* The calls of the region named exactly so on a rank, all nested in parent (NULL: top level). */
static uint64_t calls_in(const struct sb_profile *p, uint32_t rank, const char *name,
			 const char *parent)
{
	const struct sb_pair *pair = must_pair(p, name, rank);
	const char *got;
	size_t i;

	for (i = pair->offset; i < pair->offset + pair->count; i++) {
		got = parent_region(p, rank, &p->events[i]);
		if (parent)
			assert_string_equal(got, parent);
		else
			assert_null(got);
	}
	return pair->count;
}

static void expect(const struct sb_profile *p, uint32_t rank, uint64_t calls, const char *parent,
		   const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	assert_int_equal(calls_in(p, rank, name, parent), calls);
}

static void check_rank(const struct sb_profile *p, uint32_t rank)
{
	int r = mpi_rank_of(p, rank), next = (r + 1) % RANKS, prev = (r + RANKS - 1) % RANKS;
	const char *p2p = "kind=point-to-point", *coll = "kind=collective";

	expect(p, rank, 3, "exchange", "mpi:send %s bytes=800 peer=%d root=-1 tag=7 comm=%d", p2p,
	       next, WORLD);
	expect(p, rank, 3, "exchange", "mpi:recv %s bytes=800 peer=%d root=-1 tag=7 comm=%d", p2p,
	       prev, WORLD);
	expect(p, rank, 1, "shift", "mpi:sendrecv %s bytes=40 peer=%d root=-1 tag=3 comm=%d", p2p,
	       next, WORLD);
	expect(p, rank, 2, "reduce", "mpi:allreduce %s bytes=8 peer=-1 root=-1 tag=-1 comm=%d",
	       coll, WORLD);
	expect(p, rank, 1, "reduce", "mpi:reduce %s bytes=16 peer=-1 root=2 tag=-1 comm=%d", coll,
	       WORLD);
	expect(p, rank, 1, "reduce", "mpi:gather %s bytes=8 peer=-1 root=1 tag=-1 comm=%d", coll,
	       WORLD);
	expect(p, rank, 1, "nonblocking", "mpi:isend %s bytes=200 peer=%d root=-1 tag=11 comm=%d",
	       p2p, next, WORLD);
	expect(p, rank, 1, "nonblocking", "mpi:irecv %s bytes=200 peer=%d root=-1 tag=11 comm=%d",
	       p2p, prev, WORLD);
	expect(p, rank, 1, "nonblocking",
	       "mpi:wait kind=wait bytes=200 peer=%d root=-1 tag=11 comm=%d request=isend", next, WORLD);
	expect(p, rank, 1, "nonblocking",
	       "mpi:wait kind=wait bytes=200 peer=%d root=-1 tag=11 comm=%d request=irecv", prev, WORLD);
	expect(p, rank, 1, "nonblocking", "mpi:isend %s bytes=8 peer=%d root=-1 tag=12 comm=%d",
	       p2p, next, WORLD);
	expect(p, rank, 1, "nonblocking", "mpi:isend %s bytes=8 peer=%d root=-1 tag=12 comm=%d",
	       p2p, prev, WORLD);
	expect(p, rank, 1, "nonblocking", "mpi:irecv %s bytes=8 peer=%d root=-1 tag=12 comm=%d",
	       p2p, prev, WORLD);
	expect(p, rank, 1, "nonblocking", "mpi:irecv %s bytes=8 peer=%d root=-1 tag=12 comm=%d",
	       p2p, next, WORLD);
	/* One wait for two requests: bytes summed, the peers differ. */
	expect(p, rank, 1, "nonblocking",
	       "mpi:waitall kind=wait bytes=16 peer=-1 root=-1 tag=12 comm=%d request=irecv", WORLD);
	expect(p, rank, 1, "nonblocking",
	       "mpi:waitall kind=wait bytes=16 peer=-1 root=-1 tag=12 comm=%d request=isend", WORLD);
	expect(p, rank, 1, NULL, "mpi:barrier %s bytes=0 peer=-1 root=-1 tag=-1 comm=%d", coll, WORLD);
	expect(p, rank, 1, NULL, "mpi:init %s bytes=0 peer=-1 root=-1 tag=-1 comm=%d", coll, WORLD);
	expect(p, rank, 1, NULL, "mpi:finalize %s bytes=0 peer=-1 root=-1 tag=-1 comm=%d", coll,
	       WORLD);
}

static void test_every_call_is_a_region(void **state)
{
	uint64_t mpi_calls[RANKS] = { 0 }, children = 0;
	const struct sb_pair *exchange;
	struct mpi_name m;
	struct sb_profile p;
	char out[300];
	uint32_t rank;
	size_t i;

	(void)state;
	require_bpf();
	assert_int_equal(record_mpi(tmp_file("mpi_calls.h5", out, sizeof(out)), "--mpi"), 0);
	load_profile(out, &p);
	assert_int_equal(sb_profile_rank_count(&p), RANKS);
	for (i = 0; i < p.n_regions; i++) {
		if (strncmp(p.regions[i].name, "mpi:", 4))
			continue;
		if (!parse_mpi(p.regions[i].name, &m))
			fail_msg("'%s' does not parse with the grammar", p.regions[i].name);
		check_tags(&p.regions[i], &m);
	}
	for (i = 0; i < p.n_pairs; i++) {
		if (!strncmp(p.regions[p.pairs[i].region].name, "mpi:", 4))
			mpi_calls[p.pairs[i].rank] += p.pairs[i].count;
	}
	for (rank = 0; rank < RANKS; rank++) {
		/* Exactly the calls made: none counted twice (MPI_X is PMPI_X), none missed. */
		assert_int_equal(mpi_calls[rank], MPI_CALLS_PER_RANK);
		check_rank(&p, rank);
		/* The user region's own time is what its MPI calls left. */
		exchange = must_pair(&p, "exchange", rank);
		children = 0;
		for (i = 0; i < p.n_pairs; i++) {
			if (p.pairs[i].rank == rank &&
			    (!strncmp(p.regions[p.pairs[i].region].name, "mpi:send ", 9) ||
			     !strncmp(p.regions[p.pairs[i].region].name, "mpi:recv ", 9)))
				children += (uint64_t)p.pairs[i].stats.total;
		}
		assert_int_equal(exchange->exclusive_total, exchange->stats.total - (int64_t)children);
	}
	assert_int_equal(meta_int(&p, "lost_events"), 0);
	sb_profile_free(&p);
}

static void test_no_mpi_records_only_user_regions(void **state)
{
	struct sb_profile p;
	char out[300];
	size_t i;

	(void)state;
	require_bpf();
	assert_int_equal(record_mpi(tmp_file("no_mpi.h5", out, sizeof(out)), "--no-mpi"), 0);
	load_profile(out, &p);
	assert_int_equal(sb_profile_rank_count(&p), RANKS);
	for (i = 0; i < p.n_regions; i++)
		assert_true(strncmp(p.regions[i].name, "mpi:", 4) != 0);
	for (i = 0; i < RANKS; i++)
		assert_int_equal(must_pair(&p, "exchange", (uint32_t)i)->count, 3);
	sb_profile_free(&p);
}

/* --mpi=all: the polling calls too, named by the same grammar; the rest as without it. */
static void test_mpi_all_adds_polling_calls(void **state)
{
	uint64_t mpi_calls[RANKS] = { 0 };
	struct sb_profile p;
	char out[300];
	uint32_t rank;
	size_t i;

	(void)state;
	require_bpf();
	assert_int_equal(record_mpi(tmp_file("mpi_all.h5", out, sizeof(out)), "--mpi=all"), 0);
	load_profile(out, &p);
	assert_int_equal(sb_profile_rank_count(&p), RANKS);
	for (i = 0; i < p.n_pairs; i++) {
		if (!strncmp(p.regions[p.pairs[i].region].name, "mpi:", 4))
			mpi_calls[p.pairs[i].rank] += p.pairs[i].count;
	}
	for (rank = 0; rank < RANKS; rank++) {
		assert_int_equal(mpi_calls[rank], MPI_CALLS_PER_RANK + 2);
		expect(&p, rank, 1, NULL,
		       "mpi:iprobe kind=point-to-point bytes=-1 peer=-1 root=-1 tag=99 comm=%d", WORLD);
		expect(&p, rank, 1, NULL,
		       "mpi:wtime kind=point-to-point bytes=-1 peer=-1 root=-1 tag=-1 comm=-1");
	}
	sb_profile_free(&p);
}

/* The calls of the regions whose name starts with prefix on a rank, all nested in parent. */
static uint64_t calls_prefixed(const struct sb_profile *p, uint32_t rank, const char *prefix,
			       const char *parent)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->n_pairs; i++) {
		const char *name = p->regions[p->pairs[i].region].name;

		if (p->pairs[i].rank == rank && !strncmp(name, prefix, strlen(prefix)))
			n += calls_in(p, rank, name, parent);
	}
	return n;
}

static void check_p2p_and_waits(const struct sb_profile *p, uint32_t rank)
{
	int next = ((int)rank + 1) % RANKS, prev = ((int)rank + RANKS - 1) % RANKS;
	const char *p2p = "kind=point-to-point";

	expect(p, rank, 1, "p2p", "mpi:bsend %s bytes=16 peer=%d root=-1 tag=21 comm=%d", p2p, next,
	       WORLD);
	expect(p, rank, 1, "p2p", "mpi:rsend %s bytes=16 peer=%d root=-1 tag=22 comm=%d", p2p, next,
	       WORLD);
	expect(p, rank, 1, "p2p", "mpi:issend %s bytes=12 peer=%d root=-1 tag=23 comm=%d", p2p,
	       next, WORLD);
	expect(p, rank, 1, "p2p",
	       "mpi:wait kind=wait bytes=12 peer=%d root=-1 tag=23 comm=%d request=issend", next,
	       WORLD);
	expect(p, rank, 1, "p2p", "mpi:probe %s bytes=-1 peer=%d root=-1 tag=24 comm=%d", p2p, prev,
	       WORLD);
	/* The first MPI_Waitany has both receives: peers differ, bytes agree, not summed. */
	expect(p, rank, 1, "any",
	       "mpi:waitany kind=wait bytes=32 peer=-1 root=-1 tag=31 comm=%d request=irecv", WORLD);
	assert_int_equal(calls_prefixed(p, rank, "mpi:waitany kind=wait bytes=32 peer=", "any"), 2);
	expect(p, rank, 1, "any",
	       "mpi:waitsome kind=wait bytes=32 peer=%d root=-1 tag=31 comm=%d request=isend", next,
	       WORLD);
	expect(p, rank, 1, "any",
	       "mpi:waitsome kind=wait bytes=32 peer=%d root=-1 tag=31 comm=%d request=isend", prev,
	       WORLD);
}

static void check_collectives(const struct sb_profile *p, uint32_t rank)
{
	const char *coll = "kind=collective";
	long long mine = 4 * ((long long)rank + 1);

	expect(p, rank, 1, "icoll", "mpi:ibarrier %s bytes=0 peer=-1 root=-1 tag=-1 comm=%d", coll,
	       WORLD);
	expect(p, rank, 1, "icoll",
	       "mpi:wait kind=wait bytes=0 peer=-1 root=-1 tag=-1 comm=%d request=ibarrier", WORLD);
	expect(p, rank, 1, "icoll", "mpi:ibcast %s bytes=64 peer=-1 root=0 tag=-1 comm=%d", coll,
	       WORLD);
	expect(p, rank, 1, "icoll",
	       "mpi:wait kind=wait bytes=64 peer=-1 root=0 tag=-1 comm=%d request=ibcast", WORLD);
	expect(p, rank, 1, "icoll", "mpi:iallreduce %s bytes=8 peer=-1 root=-1 tag=-1 comm=%d", coll,
	       WORLD);
	expect(p, rank, 1, "icoll",
	       "mpi:wait kind=wait bytes=8 peer=-1 root=-1 tag=-1 comm=%d request=iallreduce", WORLD);
	expect(p, rank, 1, "icoll", "mpi:ireduce %s bytes=8 peer=-1 root=3 tag=-1 comm=%d", coll,
	       WORLD);
	expect(p, rank, 1, "icoll",
	       "mpi:wait kind=wait bytes=8 peer=-1 root=3 tag=-1 comm=%d request=ireduce", WORLD);
	/* v collectives: the rank's own counts; whole arrays over the size it asked. */
	expect(p, rank, 1, "vcoll", "mpi:gatherv %s bytes=%lld peer=-1 root=0 tag=-1 comm=%d", coll,
	       mine, WORLD);
	expect(p, rank, 1, "vcoll", "mpi:scatterv %s bytes=%lld peer=-1 root=1 tag=-1 comm=%d", coll,
	       mine, WORLD);
	/* In place: its own entry of the receive counts, the same bytes. */
	expect(p, rank, 2, "vcoll", "mpi:allgatherv %s bytes=%lld peer=-1 root=-1 tag=-1 comm=%d",
	       coll, mine, WORLD);
	expect(p, rank, 1, "vcoll", "mpi:alltoallv %s bytes=40 peer=-1 root=-1 tag=-1 comm=%d", coll,
	       WORLD);
	expect(p, rank, 1, "vcoll",
	       "mpi:reduce_scatter %s bytes=80 peer=-1 root=-1 tag=-1 comm=%d", coll, WORLD);
	expect(p, rank, 1, "vcoll",
	       "mpi:reduce_scatter_block %s bytes=32 peer=-1 root=-1 tag=-1 comm=%d", coll, WORLD);
	expect(p, rank, 1, "vcoll", "mpi:scan %s bytes=4 peer=-1 root=-1 tag=-1 comm=%d", coll,
	       WORLD);
	expect(p, rank, 1, "vcoll", "mpi:exscan %s bytes=4 peer=-1 root=-1 tag=-1 comm=%d", coll,
	       WORLD);
	/* A communicator whose size the app never asked: unknown. */
	assert_int_equal(calls_prefixed(p, rank, "mpi:alltoallv kind=collective bytes=-1 peer=-1 "
					 "root=-1 tag=-1 comm=", "vcoll"), 1);
}

static void check_one_sided_and_io(const struct sb_profile *p, uint32_t rank)
{
	int next = ((int)rank + 1) % RANKS, prev = ((int)rank + RANKS - 1) % RANKS;
	const char *p2p = "kind=point-to-point", *coll = "kind=collective", *none = "root=-1 tag=-1";

	expect(p, rank, 1, "rma", "mpi:win_create %s bytes=64 peer=-1 %s comm=%d", coll, none, WORLD);
	expect(p, rank, 1, "rma", "mpi:win_allocate %s bytes=32 peer=-1 %s comm=%d", coll, none,
	       WORLD);
	expect(p, rank, 2, "rma", "mpi:win_free %s bytes=0 peer=-1 %s comm=-1", coll, none);
	expect(p, rank, 2, "rma", "mpi:win_fence %s bytes=0 peer=-1 %s comm=-1", coll, none);
	expect(p, rank, 1, "rma", "mpi:put %s bytes=8 peer=%d %s comm=-1", p2p, next, none);
	expect(p, rank, 1, "rma", "mpi:put %s bytes=4 peer=%d %s comm=-1", p2p, next, none);
	expect(p, rank, 1, "rma", "mpi:get %s bytes=8 peer=%d %s comm=-1", p2p, prev, none);
	expect(p, rank, 1, "rma", "mpi:accumulate %s bytes=4 peer=0 %s comm=-1", p2p, none);
	expect(p, rank, 1, "rma", "mpi:win_lock %s bytes=0 peer=0 %s comm=-1", p2p, none);
	expect(p, rank, 1, "rma", "mpi:win_unlock %s bytes=0 peer=0 %s comm=-1", p2p, none);
	expect(p, rank, 1, "rma", "mpi:win_flush %s bytes=0 peer=%d %s comm=-1", p2p, next, none);
	expect(p, rank, 1, "rma", "mpi:win_lock_all %s bytes=0 peer=-1 %s comm=-1", p2p, none);
	expect(p, rank, 1, "rma", "mpi:win_unlock_all %s bytes=0 peer=-1 %s comm=-1", p2p, none);
	expect(p, rank, 1, "rma", "mpi:win_flush_all %s bytes=0 peer=-1 %s comm=-1", p2p, none);
	expect(p, rank, 1, "io", "mpi:file_open %s bytes=0 peer=-1 %s comm=%d", coll, none, WORLD);
	expect(p, rank, 1, "io", "mpi:file_close %s bytes=0 peer=-1 %s comm=-1", coll, none);
	expect(p, rank, 1, "io", "mpi:file_write_at %s bytes=64 peer=-1 %s comm=-1", p2p, none);
	expect(p, rank, 1, "io", "mpi:file_read_at %s bytes=64 peer=-1 %s comm=-1", p2p, none);
	expect(p, rank, 1, "io", "mpi:file_write_at_all %s bytes=64 peer=-1 %s comm=-1", coll, none);
	expect(p, rank, 1, "io", "mpi:file_read_at_all %s bytes=64 peer=-1 %s comm=-1", coll, none);
	expect(p, rank, 1, "io", "mpi:file_write %s bytes=32 peer=-1 %s comm=-1", p2p, none);
	expect(p, rank, 1, "io", "mpi:file_read %s bytes=32 peer=-1 %s comm=-1", p2p, none);
	expect(p, rank, 1, "io", "mpi:file_write_all %s bytes=16 peer=-1 %s comm=-1", coll, none);
	expect(p, rank, 1, "io", "mpi:file_read_all %s bytes=16 peer=-1 %s comm=-1", coll, none);
}

/* The communication matrix is what mpi_ops sent: bsend, rsend, issend, send, isend to next. */
static void check_matrix(const struct sb_profile *p)
{
	struct sb_error err = { { 0 } };
	struct sb_mpi_report r;
	uint32_t from, to;

	assert_int_equal(sb_mpi_report_build(&r, p, &err), 0);
	assert_int_equal(r.n_ranks, RANKS);
	for (from = 0; from < RANKS; from++) {
		for (to = 0; to < RANKS; to++) {
			size_t cell = from * RANKS + to;
			bool next = to == (from + 1) % RANKS, prev = to == (from + RANKS - 1) % RANKS;

			assert_int_equal(r.matrix_bytes[cell], next ? 16 + 16 + 12 + 4 + 32 :
								  prev ? 32 : 0);
			assert_int_equal(r.matrix_msgs[cell], next ? 5 : prev ? 1 : 0);
		}
	}
	sb_mpi_report_free(&r);
}

/*
 * Every operation beyond mpi_calls: its name, kind, bytes, peer and root, in
 * its user region; the calls ROMIO makes inside file I/O are not counted.
 */
static void test_more_operations(void **state)
{
	uint64_t mpi_calls[RANKS] = { 0 };
	char out[300], data[300];
	struct sb_profile p;
	struct mpi_name m;
	uint32_t rank;
	size_t i, e;

	(void)state;
	require_bpf();
	tmp_file("mpi_ops.dat", data, sizeof(data));
	assert_int_equal(record_app_mpi(tmp_file("mpi_ops.h5", out, sizeof(out)), "--mpi",
					"mpi_ops", data), 0);
	load_profile(out, &p);
	assert_int_equal(sb_profile_rank_count(&p), RANKS);
	for (i = 0; i < p.n_pairs; i++) {
		const char *name = p.regions[p.pairs[i].region].name;

		if (strncmp(name, "mpi:", 4))
			continue;
		if (!parse_mpi(name, &m))
			fail_msg("'%s' does not parse with the grammar", name);
		check_tags(&p.regions[p.pairs[i].region], &m);
		mpi_calls[p.pairs[i].rank] += p.pairs[i].count;
		/* No MPI call inside another: the library's own calls are its caller's. */
		for (e = p.pairs[i].offset; e < p.pairs[i].offset + p.pairs[i].count; e++) {
			const char *parent = parent_region(&p, p.pairs[i].rank, &p.events[e]);

			if (parent && !strncmp(parent, "mpi:", 4))
				fail_msg("'%s' inside '%s'", name, parent);
		}
	}
	for (rank = 0; rank < RANKS; rank++) {
		assert_int_equal(mpi_calls[rank], MPI_OPS_PER_RANK);
		check_p2p_and_waits(&p, rank);
		check_collectives(&p, rank);
		check_one_sided_and_io(&p, rank);
	}
	check_matrix(&p);
	assert_int_equal(meta_int(&p, "lost_events"), 0);
	assert_int_equal(meta_int(&p, "depth_overflow_calls"), 0);
	sb_profile_free(&p);
}

/*
 * record -p of a process that maps a library the kernel will not probe (a
 * trap where its MPI_Init begins): the refusal names the library as the
 * process maps it, not the descriptor the recorder opened it through
 * (/proc/self/fd/N), and says the cause in words.
 */
static void test_a_refused_library_is_named(void **state)
{
	char path[512], lib[512], real[PATH_MAX], pidstr[16], out[300], err[4096], line[16] = "";
	char *target[] = { (char *)app_path("refused_lib", path, sizeof(path)), NULL };
	pid_t pid;
	int fd = -1, status;

	(void)state;
	require_bpf();
	assert_non_null(realpath(app_path("libmpi_refused.so", lib, sizeof(lib)), real));
	pid = spawn(target, NULL, &fd);
	assert_true(pid > 0);
	assert_true(read(fd, line, sizeof(line) - 1) > 0);
	close(fd);
	assert_string_equal(line, "ready\n");
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	{
		char *argv[] = { (char *)scope_bin(), "record", "-q", "-d", "1", "-p", pidstr, "-o",
				 (char *)tmp_file("refused.h5", out, sizeof(out)), NULL };

		status = run(argv);
	}
	kill(pid, SIGKILL);
	wait_status(pid);
	read_stderr(err, sizeof(err));
	if (status != 2 || strstr(err, "/proc/self/fd/") || !strstr(err, real) ||
	    !strstr(err, "cannot attach to") || strstr(err, "Unknown error"))
		fail_msg("exit %d, said:\n%s", status, err);
}

/*
 * The same library loaded by a command record launched: the command runs on
 * without those probes, and the recording says so (exit 3, the source and
 * the library named) instead of looking complete.
 */
static void test_a_refused_library_of_a_command_is_said(void **state)
{
	char app[512], lib[512], real[PATH_MAX], out[300], err[4096];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o",
			 (char *)tmp_file("refused_cmd.h5", out, sizeof(out)), "--",
			 (char *)app_path("refused_lib", app, sizeof(app)), "mpi", "exit", NULL };
	struct sb_profile p;
	const char *why;
	int status;

	(void)state;
	require_bpf();
	assert_non_null(realpath(app_path("libmpi_refused.so", lib, sizeof(lib)), real));
	status = run(argv);
	read_stderr(err, sizeof(err));
	if (status != 3 || !strstr(err, "source_attach_failures") || !strstr(err, real))
		fail_msg("exit %d, said:\n%s", status, err);
	load_profile(out, &p);
	assert_true(meta_int(&p, "source_attach_failures") >= 1);
	why = meta_str(&p, "source_attach_failure");
	if (!why || strncmp(why, "mpi-calls: ", 11) || !strstr(why, real) ||
	    !strstr(why, "cannot attach to"))
		fail_msg("source_attach_failure: %s", why ? why : "(none)");
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_call_is_a_region),
		cmocka_unit_test(test_no_mpi_records_only_user_regions),
		cmocka_unit_test(test_mpi_all_adds_polling_calls),
		cmocka_unit_test(test_more_operations),
		cmocka_unit_test(test_a_refused_library_is_named),
		cmocka_unit_test(test_a_refused_library_of_a_command_is_said),
	};

	return cmocka_run_group_tests_name("mpi_calls", tests, setup_tmp, teardown_tmp);
}
