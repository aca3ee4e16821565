/*
 * The ordered merge over transports (record/transport/merge.c), with
 * synthetic backends: a record held at T is not released while any
 * backend's watermark is at or below T, records come out in time order
 * (one thread's in the order they were held), and the final flush releases
 * every record held. Then the merge with the fast path's nester, as
 * sources/fast.c drives them: a kernel call waits for the marker records of
 * its thread that are still in the rings.
 */
#include "fixtures.h"
#include "record/fast/nest.h"
#include "record/transport/merge.h"

struct order {
	int number[8];
	int n;
};

/* A backend whose watermark the test sets; counts its deliveries and notes their order. */
struct fake {
	struct sb_transport t;
	int64_t watermark;
	int delivered;
	struct order *order;	/* where deliveries note their backend's number */
	int number;
	int fail;		/* deliver returns this */
};

static int fake_deliver(struct sb_transport *t)
{
	struct fake *f = (struct fake *)t;

	f->delivered++;
	if (f->order && f->order->n < 8)
		f->order->number[f->order->n++] = f->number;
	return f->fail;
}

static int64_t fake_watermark(const struct sb_transport *t)
{
	return ((const struct fake *)t)->watermark;
}

static void fake_init(struct fake *f, const char *name, int number)
{
	memset(f, 0, sizeof(*f));
	f->t = (struct sb_transport){ name, fake_deliver, fake_watermark };
	f->watermark = INT64_MIN;
	f->number = number;
}

struct rec {
	int64_t time;
	uint32_t tid;
	uint32_t seq;		/* the order it was held in, per thread */
};

struct seen {
	struct rec got[4096];
	size_t n;
	int64_t bound;		/* every record released must be earlier than this */
	int fail_at;		/* return -EIO at this record (1-based), 0: never */
};

static int note(void *ctx, const void *data, size_t size)
{
	struct seen *s = ctx;

	assert_int_equal(size, sizeof(struct rec));
	assert_true(s->n < 4096);
	memcpy(&s->got[s->n++], data, size);
	assert_true(s->got[s->n - 1].time < s->bound);
	return s->fail_at && (int)s->n == s->fail_at ? -EIO : 0;
}

static void hold(struct sb_merge *m, int64_t time, uint32_t tid, uint32_t seq)
{
	struct rec r = { time, tid, seq };

	assert_int_equal(sb_merge_hold(m, time, &r, sizeof(r)), 0);
}

/* The watermark is the least of the backends'; none proven holds everything. */
static void test_watermark_is_the_least(void **state)
{
	struct fake kernel, fast;
	struct sb_merge m;

	(void)state;
	sb_merge_init(&m);
	fake_init(&fast, "fast", 0);
	fake_init(&kernel, "kernel", 1);
	assert_int_equal(sb_merge_add(&m, &fast.t), 0);
	assert_int_equal(sb_merge_add(&m, &kernel.t), 0);
	assert_true(sb_merge_watermark(&m) == INT64_MIN);
	kernel.watermark = 5000;
	assert_true(sb_merge_watermark(&m) == INT64_MIN);
	fast.watermark = 7000;
	assert_true(sb_merge_watermark(&m) == 5000);
	kernel.watermark = 9000;
	assert_true(sb_merge_watermark(&m) == 7000);
	sb_merge_free(&m);
}

/* A record at T waits while one backend is at or below T, whichever one. */
static void test_held_until_every_backend_passed(void **state)
{
	struct fake kernel, fast;
	struct seen s = { .bound = INT64_MAX };
	struct sb_merge m;

	(void)state;
	sb_merge_init(&m);
	fake_init(&fast, "fast", 0);
	fake_init(&kernel, "kernel", 1);
	sb_merge_add(&m, &fast.t);
	sb_merge_add(&m, &kernel.t);
	hold(&m, 1000, 7, 0);
	kernel.watermark = 50000;	/* the kernel's ring is read far past it */
	fast.watermark = 999;		/* the rings are not */
	assert_int_equal(sb_merge_release(&m, sb_merge_watermark(&m), note, &s), 0);
	assert_int_equal(s.n, 0);
	fast.watermark = 1000;		/* at T is not past T: a record at T may still come */
	assert_int_equal(sb_merge_release(&m, sb_merge_watermark(&m), note, &s), 0);
	assert_int_equal(s.n, 0);
	fast.watermark = 60000;
	kernel.watermark = 900;		/* now the other way round */
	assert_int_equal(sb_merge_release(&m, sb_merge_watermark(&m), note, &s), 0);
	assert_int_equal(s.n, 0);
	kernel.watermark = 1001;
	assert_int_equal(sb_merge_release(&m, sb_merge_watermark(&m), note, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.got[0].time, 1000);
	assert_int_equal(m.n_held, 0);
	sb_merge_free(&m);
}

/*
 * Records of four threads held out of time order (as two backends deliver
 * them) while the watermarks move in uneven steps: each release gives only
 * records below the least watermark, in time order, each thread's in the
 * order held, and the final flush gives the rest: nothing is lost.
 */
static void test_released_in_time_order_nothing_lost(void **state)
{
	struct fake kernel, fast;
	struct seen s = { 0 };
	uint32_t seq[4] = { 0 }, last_seq[4];
	int64_t last_time[4], t;
	struct sb_merge m;
	size_t i;
	int round;

	(void)state;
	sb_merge_init(&m);
	fake_init(&fast, "fast", 0);
	fake_init(&kernel, "kernel", 1);
	sb_merge_add(&m, &fast.t);
	sb_merge_add(&m, &kernel.t);
	srand(25);
	for (round = 0; round < 40; round++) {
		/*
		 * Each round holds records up to 3000 ns ahead of where the
		 * watermarks go, none below where they were: a watermark says
		 * nothing earlier is still to come.
		 */
		for (i = 0; i < 50; i++) {
			uint32_t tid = (uint32_t)(rand() % 4);

			t = (int64_t)round * 1000 + 500 + rand() % 3000;
			/* Equal times in one thread keep their order: the same time twice at times. */
			hold(&m, t, tid, seq[tid]++);
			if (rand() % 8 == 0)
				hold(&m, t, tid, seq[tid]++);
		}
		fast.watermark = (int64_t)round * 1000 + rand() % 1500;
		kernel.watermark = (int64_t)round * 1000 + rand() % 1500;
		s.bound = sb_merge_watermark(&m);
		assert_int_equal(sb_merge_release(&m, s.bound, note, &s), 0);
	}
	/* The rounds released most, not all: the last ones are ahead of the watermarks. */
	assert_true(s.n > 0 && m.n_held > 0);
	s.bound = INT64_MAX;
	assert_int_equal(sb_merge_release(&m, INT64_MAX, note, &s), 0);
	assert_int_equal(m.n_held, 0);
	/* Every record held came out once. */
	assert_int_equal(s.n, seq[0] + seq[1] + seq[2] + seq[3]);
	for (i = 0; i < 4; i++) {
		last_time[i] = INT64_MIN;
		last_seq[i] = 0;
	}
	for (i = 0; i < s.n; i++) {
		struct rec *r = &s.got[i];

		assert_true(i == 0 || r->time >= s.got[i - 1].time);
		assert_true(r->time >= last_time[r->tid]);
		if (r->time == last_time[r->tid])
			assert_true(r->seq > last_seq[r->tid]);
		last_time[r->tid] = r->time;
		last_seq[r->tid] = r->seq;
	}
	sb_merge_free(&m);
}

/* A release never gives a record at or past its bound, however the records were held. */
static void test_release_stops_at_the_bound(void **state)
{
	struct seen s = { .bound = 300 };
	struct sb_merge m;

	(void)state;
	sb_merge_init(&m);
	hold(&m, 500, 1, 0);
	hold(&m, 100, 1, 1);
	hold(&m, 300, 2, 0);
	hold(&m, 200, 2, 1);
	assert_int_equal(sb_merge_release(&m, 300, note, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.got[0].time, 100);
	assert_int_equal(s.got[1].time, 200);
	assert_int_equal(m.n_held, 2);
	/* Held after a release, earlier than what stayed: it goes first. */
	hold(&m, 250, 3, 0);
	s.bound = INT64_MAX;
	assert_int_equal(sb_merge_release(&m, INT64_MAX, note, &s), 0);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.got[2].time, 250);
	assert_int_equal(s.got[3].time, 300);
	assert_int_equal(s.got[4].time, 500);
	sb_merge_free(&m);
}

/* The consumer's error stops the release; the record it failed on is released, the rest held. */
static void test_error_stops_the_release(void **state)
{
	struct seen s = { .bound = INT64_MAX, .fail_at = 2 };
	struct sb_merge m;

	(void)state;
	sb_merge_init(&m);
	hold(&m, 1, 1, 0);
	hold(&m, 2, 1, 1);
	hold(&m, 3, 1, 2);
	assert_int_equal(sb_merge_release(&m, INT64_MAX, note, &s), -EIO);
	assert_int_equal(s.n, 2);
	assert_int_equal(m.n_held, 1);
	s.fail_at = 0;
	assert_int_equal(sb_merge_release(&m, INT64_MAX, note, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.got[2].time, 3);
	sb_merge_free(&m);
}

/* Backends deliver in the order added (the rings before the kernel's ring); errors are passed on. */
static void test_deliver_in_order_added(void **state)
{
	struct fake kernel, fast, third;
	struct order order = { { 0 }, 0 };
	struct sb_merge m;

	(void)state;
	sb_merge_init(&m);
	fake_init(&fast, "fast", 1);
	fake_init(&kernel, "kernel", 2);
	fake_init(&third, "third", 3);
	fast.order = kernel.order = third.order = &order;
	sb_merge_add(&m, &fast.t);
	sb_merge_add(&m, &kernel.t);
	sb_merge_add(&m, &third.t);
	kernel.fail = -EIO;
	assert_int_equal(sb_merge_deliver(&m), -EIO);
	/* The one after a failing backend still delivers. */
	assert_int_equal(order.n, 3);
	assert_int_equal(order.number[0], 1);
	assert_int_equal(order.number[1], 2);
	assert_int_equal(order.number[2], 3);
	assert_int_equal(third.delivered, 1);
	sb_merge_free(&m);
}

/* Records still held at the end are freed with the merge. */
static void test_free_with_records_held(void **state)
{
	struct sb_merge m;

	(void)state;
	sb_merge_init(&m);
	hold(&m, 10, 1, 0);
	hold(&m, 5, 1, 1);
	sb_merge_free(&m);
	assert_int_equal(m.n_held, 0);
	assert_null(m.held);
}

/* The nester's calls, as the collector would get them. */
struct calls {
	struct sb_call_event call[16];
	int n;
};

static int collect_call(void *ctx, const void *event, size_t size)
{
	struct calls *c = ctx;

	assert_int_equal(size, sizeof(struct sb_call_event));
	assert_true(c->n < 16);
	memcpy(&c->call[c->n++], event, size);
	return 0;
}

static const struct sb_call_event *call_named(const struct calls *c, uint64_t name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->call[i].name_hash == name)
			return &c->call[i];
	fail_msg("no call of name %#llx", (unsigned long long)name);
	return NULL;
}

/*
 * Issue 25's misplacement: an OpenMP call of thread 7 ([150, 160], the
 * kernel's ring read far past it) while the marker region it ran in (b,
 * begun at 145) is still in the rings. Placed by the kernel's watermark it
 * would hang under a; the least watermark holds it until b is in.
 */
static void test_kernel_call_waits_for_the_rings(void **state)
{
	struct sb_call_event k = {
		.type = SB_EV_CALL, .tgid = 42, .tid = 7, .depth = 0, .site = 1, .start = 150,
		.end = 160, .call_id = 900, .parent_id = -1, .name_hash = 0x99,
	};
	struct fake kernel, fast;
	struct calls got = { .n = 0 };
	struct sb_fast_nest *n = sb_fast_nest_new(42, collect_call, &got);
	struct sb_merge m;

	(void)state;
	assert_non_null(n);
	sb_merge_init(&m);
	fake_init(&fast, "fast", 0);
	fake_init(&kernel, "kernel", 1);
	sb_merge_add(&m, &fast.t);
	sb_merge_add(&m, &kernel.t);
	/* The rings' pass that began at 140 brought a's begin; the kernel's ring is read to 1000. */
	assert_int_equal(sb_fast_nest_begin(n, 7, 100, 0xa, 0x1000), 0);
	fast.watermark = 140;
	assert_int_equal(sb_fast_nest_kernel_call(n, &k), 0);
	kernel.watermark = 1000;
	assert_int_equal(sb_fast_nest_settle(n, sb_merge_watermark(&m)), 0);
	assert_int_equal(got.n, 0);
	/* The next pass (begun at 300) brings b and its end, and a's. */
	assert_int_equal(sb_fast_nest_begin(n, 7, 145, 0xb, 0x2000), 0);
	fast.watermark = 300;
	assert_int_equal(sb_fast_nest_settle(n, sb_merge_watermark(&m)), 0);
	assert_int_equal(got.n, 1);
	assert_int_equal(sb_fast_nest_end(n, 7, 170, 0xb, 0x2000), 0);
	assert_int_equal(sb_fast_nest_end(n, 7, 180, 0xa, 0x1000), 0);
	assert_int_equal(got.n, 3);
	assert_int_equal(call_named(&got, 0x99)->parent_id, call_named(&got, 0xb)->call_id);
	assert_int_equal(call_named(&got, 0xb)->parent_id, call_named(&got, 0xa)->call_id);
	sb_fast_nest_free(n);
	sb_merge_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watermark_is_the_least),
		cmocka_unit_test(test_held_until_every_backend_passed),
		cmocka_unit_test(test_released_in_time_order_nothing_lost),
		cmocka_unit_test(test_release_stops_at_the_bound),
		cmocka_unit_test(test_error_stops_the_release),
		cmocka_unit_test(test_deliver_in_order_added),
		cmocka_unit_test(test_free_with_records_held),
		cmocka_unit_test(test_kernel_call_waits_for_the_rings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
