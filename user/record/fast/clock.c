/*
 * The fast path's raw counter on CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns(),
 * so that its region records nest with the kernel path's within 1 us.
 *
 * Why piecewise-linear on measured pairs: the kernel's own TSC scale (the
 * perf_event mmap page's time_mult/time_shift) is sched_clock's rate, and
 * CLOCK_MONOTONIC runs at the timekeeper's rate, which NTP slews by up to
 * 500 ppm and which even without NTP differs from the nominal one by the
 * clocksource's rounding and refined calibration (7 ppm on the machine this
 * was written on): at a 10 ms pass that alone is 70 ns, over the seconds
 * before the first sample tens of us. So each sample measures a
 * (counter, CLOCK_MONOTONIC) pair, the tightest of a few reads (its error is
 * half its width, a few tens of ns), and a raw value between two samples is
 * interpolated between them: within a pass CLOCK_MONOTONIC is linear in the
 * counter up to the timekeeper's per-tick steering (below 1 ppm), so the error
 * stays that of the pairs however the rate drifts over minutes. Past the
 * newest pair (records written after the pass's sample) and before the oldest
 * (records written before the recorder adopted the memory) the rate measured
 * over the last one to two seconds extrapolates; the kernel's scale only
 * serves until that baseline is 50 ms long, and without a perf page a 2 ms
 * baseline taken at init does.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/fast/clock.h"
#include "record/fast/layout.h"

#define NSEC_PER_SEC 1000000000LL
#define COARSE_EVERY_NS NSEC_PER_SEC	/* spacing of the coarse ring: a minute of history */
#define SETTLE_NS NSEC_PER_SEC		/* a baseline this long knows the rate to ~0.05 ppm */
#define TRUST_SPAN_NS (50 * 1000000LL)	/* measured beats the kernel's scale (~1 ppm) from here */
#define INIT_SPAN_NS (2 * 1000000LL)	/* the first rate's baseline without a kernel scale */
#define PAIR_READS 5			/* reads per sample; the tightest counts */
#define PAIR_MAX_WIDTH_NS 1000		/* a wider pair (preempted between reads) is no point */

static struct sb_fast_clock_point *at(struct sb_fast_clock_ring *r, uint32_t i)
{
	return &r->p[(r->start + i) % SB_FAST_CLOCK_POINTS];
}

static const struct sb_fast_clock_point *cat(const struct sb_fast_clock_ring *r, uint32_t i)
{
	return &r->p[(r->start + i) % SB_FAST_CLOCK_POINTS];
}

static void push(struct sb_fast_clock_ring *r, uint64_t raw, int64_t ns)
{
	struct sb_fast_clock_point *p;

	if (r->n < SB_FAST_CLOCK_POINTS) {
		p = at(r, r->n++);
	} else {
		p = at(r, 0);
		r->start = (r->start + 1) % SB_FAST_CLOCK_POINTS;
	}
	p->raw = raw;
	p->ns = ns;
	p->mult = 0;
}

/* ns per count << 32 from a to b (b later on both clocks). */
static uint64_t slope(const struct sb_fast_clock_point *a, uint64_t raw, int64_t ns)
{
	unsigned __int128 m = ((unsigned __int128)(uint64_t)(ns - a->ns) << 32) / (raw - a->raw);

	return m > UINT64_MAX ? UINT64_MAX : (uint64_t)m;
}

static int64_t clamp(__int128 v)
{
	if (v > INT64_MAX)
		return INT64_MAX;
	if (v < INT64_MIN)
		return INT64_MIN;
	return (int64_t)v;
}

/* ns moved d counts back at rate mult; < 2^96 ns, so no overflow. */
static int64_t back(int64_t ns, uint64_t d, uint64_t mult)
{
	return clamp((__int128)ns - (__int128)(((unsigned __int128)d * mult) >> 32));
}

/* raw on the line through p at rate mult, which holds for every raw in [p->raw, hi): remembered. */
static int64_t along(struct sb_fast_clock *c, const struct sb_fast_clock_point *p, uint64_t hi,
		     uint64_t mult, uint64_t raw)
{
	c->memo = (struct sb_fast_clock_memo){ .gen = c->gen, .lo = p->raw, .hi = hi,
					       .ns = p->ns, .mult = mult };
	return sb_fast_clock_on(p->ns, raw - p->raw, mult);
}

/* The newest point i of r with raw at or after it; r holds one at or before raw. */
static uint32_t find(const struct sb_fast_clock_ring *r, uint64_t raw)
{
	uint32_t lo = 0, hi = r->n - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (cat(r, mid)->raw <= raw)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Add to r if later than its newest on both clocks (and spaced by gap ns); 1 when added. */
static int add_to(struct sb_fast_clock_ring *r, uint64_t raw, int64_t ns, int64_t gap)
{
	struct sb_fast_clock_point *last = r->n ? at(r, r->n - 1) : NULL;

	if (last && (raw <= last->raw || ns - last->ns < gap))
		return 0;
	if (last)
		last->mult = slope(last, raw, ns);
	push(r, raw, ns);
	return 1;
}

/*
 * The rate for outside the points: over the newest coarse point at least
 * SETTLE_NS old (one to two seconds, so NTP's changes show), else over all
 * there is once that beats the kernel's scale.
 */
static void update_rate(struct sb_fast_clock *c)
{
	const struct sb_fast_clock_point *last = cat(&c->fine, c->fine.n - 1), *base = NULL;
	uint32_t i;

	for (i = c->coarse.n; i-- > 0;) {
		base = cat(&c->coarse, i);
		if (last->ns - base->ns >= SETTLE_NS)
			break;
	}
	if (!base || base->raw >= last->raw)
		return;
	if (last->ns - base->ns >= TRUST_SPAN_NS || !c->kernel_mult)
		c->mult = slope(base, last->raw, last->ns);
}

void sb_fast_clock_start(struct sb_fast_clock *c, uint32_t kind, uint64_t kernel_mult)
{
	memset(c, 0, sizeof(*c));
	c->gen = 1;
	c->kind = kind;
	c->kernel_mult = kernel_mult;
	c->mult = kernel_mult;
}

void sb_fast_clock_add(struct sb_fast_clock *c, uint64_t raw, int64_t ns)
{
	if (c->kind == SCOPE_BPF_IMPL_CLOCK_MONO || !add_to(&c->fine, raw, ns, 0))
		return;
	c->gen++;
	add_to(&c->coarse, raw, ns, c->coarse.n ? COARSE_EVERY_NS : 0);
	update_rate(c);
}

/*
 * Each span below maps every raw in it by one line, the one this conversion
 * takes for any raw there: [newest fine point, on), [fine point, next fine
 * point), [coarse point, next coarse point or oldest fine point).
 */
int64_t sb_fast_clock_convert(struct sb_fast_clock *c, uint64_t raw)
{
	const struct sb_fast_clock_ring *f = &c->fine, *k = &c->coarse;
	const struct sb_fast_clock_point *p, *next;
	uint32_t i;

	if (c->kind == SCOPE_BPF_IMPL_CLOCK_MONO)
		return raw > INT64_MAX ? INT64_MAX : (int64_t)raw;
	if (!f->n)
		return 0;
	p = cat(f, f->n - 1);
	if (raw >= p->raw)
		return along(c, p, UINT64_MAX, c->mult, raw);
	if (raw >= cat(f, 0)->raw) {
		i = find(f, raw);
		return along(c, cat(f, i), cat(f, i + 1)->raw, cat(f, i)->mult, raw);
	}
	/* Older than the last passes: the coarse ring, up to the oldest fine point. */
	next = cat(f, 0);
	if (!k->n || raw < cat(k, 0)->raw) {
		p = k->n ? cat(k, 0) : next;
		return back(p->ns, p->raw - raw, c->mult);
	}
	i = find(k, raw);
	p = cat(k, i);
	if (i + 1 < k->n && cat(k, i + 1)->raw <= next->raw)
		return along(c, p, cat(k, i + 1)->raw, p->mult, raw);
	return along(c, p, next->raw, slope(p, next->raw, next->ns), raw);
}

int sb_fast_clock_settled(const struct sb_fast_clock *c)
{
	if (c->kind == SCOPE_BPF_IMPL_CLOCK_MONO)
		return 1;
	return c->fine.n && c->coarse.n &&
	       cat(&c->fine, c->fine.n - 1)->ns - cat(&c->coarse, 0)->ns >= SETTLE_NS;
}

const char *sb_fast_clock_name(uint32_t kind)
{
	switch (kind) {
	case SCOPE_BPF_IMPL_CLOCK_TSC:
		return "tsc";
	case SCOPE_BPF_IMPL_CLOCK_CNTVCT:
		return "cntvct";
	case SCOPE_BPF_IMPL_CLOCK_MONO:
		return "monotonic";
	}
	return "unknown";
}

/* Whether word is one of the blank-separated words in [s, end). */
static int has_word(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);

	for (; s < end; s++) {
		if ((size_t)(end - s) < n)
			return 0;
		if (!memcmp(s, word, n) && (s + n == end || s[n] == ' ' || s[n] == '\t') &&
		    (s[-1] == ' ' || s[-1] == '\t' || s[-1] == ':'))
			return 1;
	}
	return 0;
}

int sb_fast_clock_check_tsc(const char *clocksource, const char *cpuinfo, char *why, size_t len)
{
	static const char *const need[] = { "constant_tsc", "nonstop_tsc" };
	const char *line, *end, *colon;
	size_t n = strcspn(clocksource, " \t\n");
	unsigned i;

	if (n != 3 || memcmp(clocksource, "tsc", 3))
		return sb_bad(why, len, "the kernel's clocksource is '%.*s', not tsc",
			      (int)(n > 32 ? 32 : n), clocksource);
	for (line = cpuinfo; *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		colon = memchr(line, ':', end - line);
		if (colon && !strncmp(line, "flags", 5) &&
		    line + 5 + strspn(line + 5, " \t") == colon)
			break;
	}
	if (!*line)
		return sb_bad(why, len, "/proc/cpuinfo has no flags line");
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!has_word(colon + 1, end, need[i]))
			return sb_bad(why, len, "the CPU lacks %s (/proc/cpuinfo)", need[i]);
	return 0;
}

/* The first size - 1 bytes of path, NUL-terminated, or -errno. */
static int read_text(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (n + 1 < size && (got = read(fd, buf + n, size - 1 - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			got = -errno;
			close(fd);
			return (int)got;
		}
		n += (size_t)got;
	}
	buf[n] = 0;
	close(fd);
	return 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

#if defined(__x86_64__)
/* lfence: the read waits for what came before (the previous clock_gettime). */
static uint64_t read_counter(void)
{
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
}

/* The kernel's TSC scale from a perf_event page (any event, so a software one); 0 without. */
static uint64_t kernel_tsc_mult(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	volatile struct perf_event_mmap_page *pg;
	uint32_t seq, mult, shift, cap;
	long page = sysconf(_SC_PAGESIZE);
	void *map;
	int fd;

	fd = (int)syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	map = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	pg = map;
	do {
		seq = pg->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		cap = pg->cap_user_time;
		mult = pg->time_mult;
		shift = pg->time_shift;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq || (seq & 1));
	munmap(map, (size_t)page);
	if (!cap || !mult || shift > 63)
		return 0;
	return (uint64_t)(((unsigned __int128)mult << 32) >> shift);
}

static int kernel_mult(uint32_t kind, uint64_t *mult, char *why, size_t len)
{
	char src[64], cpuinfo[16384];
	int ret;

	if (kind != SCOPE_BPF_IMPL_CLOCK_TSC)
		return sb_bad(why, len, "an arm64 counter on an x86-64 machine");
	ret = read_text("/sys/devices/system/clocksource/clocksource0/current_clocksource", src,
			sizeof(src));
	if (ret)
		return sb_bad(why, len, "current_clocksource: %s", strerror(-ret));
	ret = read_text("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo));
	if (ret)
		return sb_bad(why, len, "/proc/cpuinfo: %s", strerror(-ret));
	ret = sb_fast_clock_check_tsc(src, cpuinfo, why, len);
	if (ret)
		return ret;
	*mult = kernel_tsc_mult();
	return 0;
}
#elif defined(__aarch64__)
static uint64_t read_counter(void)
{
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

/* The architectural counter's frequency is the kernel's scale: cntfrq_el0. */
static int kernel_mult(uint32_t kind, uint64_t *mult, char *why, size_t len)
{
	uint64_t freq;

	if (kind != SCOPE_BPF_IMPL_CLOCK_CNTVCT)
		return sb_bad(why, len, "an x86-64 counter on an arm64 machine");
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(freq));
	if (!freq)
		return sb_bad(why, len, "cntfrq_el0 is 0");
	*mult = (uint64_t)(((unsigned __int128)NSEC_PER_SEC << 32) / freq);
	return 0;
}
#else
static uint64_t read_counter(void)
{
	return 0;
}

static int kernel_mult(uint32_t kind, uint64_t *mult, char *why, size_t len)
{
	(void)kind;
	(void)mult;
	return sb_bad(why, len, "no raw counter known on this architecture");
}
#endif

void sb_fast_clock_sample(struct sb_fast_clock *c)
{
	uint64_t raw = 0, a, b, best = UINT64_MAX;
	int64_t ns = 0, t;
	int i;

	if (c->kind == SCOPE_BPF_IMPL_CLOCK_MONO)
		return;
	for (i = 0; i < PAIR_READS; i++) {
		a = read_counter();
		t = mono_ns();
		b = read_counter();
		if (b - a < best) {
			best = b - a;
			raw = a + best / 2;
			ns = t;
		}
	}
	if (c->mult && (((unsigned __int128)best * c->mult) >> 32) > PAIR_MAX_WIDTH_NS)
		return;
	sb_fast_clock_add(c, raw, ns);
}

int sb_fast_clock_init(struct sb_fast_clock *c, uint32_t kind, struct sb_error *err)
{
	struct timespec wait = { 0, INIT_SPAN_NS };
	uint64_t mult = 0;
	char why[256];

	if (kind == SCOPE_BPF_IMPL_CLOCK_MONO) {
		sb_fast_clock_start(c, kind, 0);
		return 0;
	}
	if (kind != SCOPE_BPF_IMPL_CLOCK_TSC && kind != SCOPE_BPF_IMPL_CLOCK_CNTVCT)
		return sb_fail(err, EINVAL, "fast path clock: unknown kind %u", kind);
	if (kernel_mult(kind, &mult, why, sizeof(why)))
		return sb_fail(err, EINVAL, "fast path clock %s: %s", sb_fast_clock_name(kind),
			       why);
	sb_fast_clock_start(c, kind, mult);
	sb_fast_clock_sample(c);
	if (!mult) {
		while (nanosleep(&wait, &wait) && errno == EINTR)
			;
		sb_fast_clock_sample(c);
	}
	return 0;
}
