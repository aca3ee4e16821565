/* Whether this machine counts an event for a thread: open a probe event on the caller, close it. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters/events.h"

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"

static int paranoid_level(void)
{
	FILE *f = fopen(PARANOID, "r");
	int level = -99;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = -99;
		fclose(f);
	}
	return level;
}

static int probe_open(const struct sb_counter_event *ev)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.config1 = ev->config1;
	attr.config2 = ev->config2;
	attr.disabled = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

/*
 * The kernel answers ENOENT, EOPNOTSUPP or ENODEV when no PMU takes the event;
 * EINVAL too when it has no core PMU at all (then cycles fails as well),
 * otherwise EINVAL means this PMU rejects the encoding.
 */
static bool no_pmu_errno(int e)
{
	struct sb_counter_event cycles = {
		.name = "cycles", .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES, .hardware = true,
	};

	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
		return true;
	return e == EINVAL && probe_open(&cycles) != 0;
}

int sb_counter_event_check(const struct sb_counter_event *ev, struct sb_error *err)
{
	int ret = probe_open(ev);

	if (!ret)
		return 0;
	if (ret == -EACCES || ret == -EPERM)
		return sb_fail(err, -ret, "%s: not permitted to count it (perf_event_open: %s; "
			       "perf_event_paranoid is %d: run as root or lower it)",
			       ev->name, strerror(-ret), paranoid_level());
	if (ev->hardware && no_pmu_errno(-ret))
		return sb_fail(err, -ret, "%s: this machine has no hardware PMU that counts it "
			       "(no PMU, or virtualization hides it: perf_event_open: %s); software "
			       "events (page-faults, context-switches, task-clock, cpu-clock, "
			       "cpu-migrations, ...) work", ev->name, strerror(-ret));
	return sb_fail(err, -ret, "%s: cannot be counted here (perf_event_open: %s)", ev->name,
		       strerror(-ret));
}
