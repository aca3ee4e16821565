/*
 * One stop signal, many recorders. Every recorder whose programs hold a
 * process at exec sends it SIGSTOP; the first SIGCONT would let it run while
 * the others still attach, and they would miss its first calls (under -a with
 * --ranks, several recorders hold every rank). So a recorder that finds
 * another recorder's stops map (same name, same layout) holding the process
 * first forgets its own stop, then looks again: whoever looks last and finds
 * no other resumes it. Alone, it resumes first and forgets after, as always:
 * a recorder that dies in between leaves the stop to its guardian.
 *
 * Listing every BPF map of the machine at each stop made an exec storm ten
 * times slower: the list is kept, with a descriptor per map, for a second.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "record/guardian.h"
#include "record/stops_shared.h"
#include "region.h"

#define RELIST_NS 1000000000LL

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static bool map_info(int fd, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return !bpf_obj_get_info_by_fd(fd, info, &len);
}

void sb_stops_shared_init(struct sb_stops_shared *s, int stops_fd)
{
	struct bpf_map_info info;

	memset(s, 0, sizeof(*s));
	s->stops_fd = stops_fd;
	s->own_id = map_info(stops_fd, &info) ? info.id : 0;
}

static void forget_others(struct sb_stops_shared *s)
{
	while (s->n_others > 0)
		close(s->others[--s->n_others]);
}

static bool is_stops_map(int fd)
{
	struct bpf_map_info info;

	return map_info(fd, &info) && !strcmp(info.name, "stops") &&
	       info.type == BPF_MAP_TYPE_HASH && info.key_size == sizeof(__u32) &&
	       info.value_size == sizeof(struct sb_stop);
}

/* Every other recorder's stops map, by BPF map id, once a second at most. */
static void list_others(struct sb_stops_shared *s)
{
	int64_t now = mono_ns();
	__u32 id = 0;
	int fd;

	if (s->listed_ns && now - s->listed_ns < RELIST_NS)
		return;
	forget_others(s);
	s->listed_ns = now;
	while (s->n_others < SB_STOPS_OTHERS_MAX && !bpf_map_get_next_id(id, &id)) {
		if (id == s->own_id)
			continue;
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue;
		if (is_stops_map(fd))
			s->others[s->n_others++] = fd;
		else
			close(fd);
	}
}

static bool held_elsewhere(const struct sb_stops_shared *s, __u32 tgid)
{
	struct sb_stop st;
	int i;

	for (i = 0; i < s->n_others; i++) {
		if (!bpf_map_lookup_elem(s->others[i], &tgid, &st))
			return true;
	}
	return false;
}

void sb_stops_resume(struct sb_stops_shared *s, pid_t pid, uint32_t seq)
{
	list_others(s);
	if (!held_elsewhere(s, (__u32)pid)) {
		kill(pid, SIGCONT);
		sb_stops_done(s->stops_fd, (uint32_t)pid, seq);
		return;
	}
	sb_stops_done(s->stops_fd, (uint32_t)pid, seq);
	if (!held_elsewhere(s, (__u32)pid))
		kill(pid, SIGCONT);
}

void sb_stops_shared_free(struct sb_stops_shared *s)
{
	forget_others(s);
}
