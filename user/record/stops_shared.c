/*
 * One stop signal, many recorders. Every recorder whose programs hold a
 * process at exec sends it SIGSTOP; the first SIGCONT would let it run while
 * the others still attach, and they would miss its first calls (under -a with
 * --ranks, several recorders hold every rank). So a recorder that finds
 * another recorder's stops map (same name, same layout) holding the process
 * first forgets its own stop, then looks again: whoever looks last and finds
 * no other resumes it. Alone, it resumes first and forgets after, as always:
 * a recorder that dies in between leaves the stop to its guardian.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "record/guardian.h"
#include "record/stops_shared.h"
#include "region.h"

static __u32 map_id(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* Whether a stops map of another recorder holds tgid. */
static bool held_elsewhere(__u32 own_id, __u32 tgid)
{
	struct bpf_map_info info;
	__u32 id = 0, len;
	struct sb_stop st;
	bool held = false;
	int fd;

	while (!held && !bpf_map_get_next_id(id, &id)) {
		if (id == own_id)
			continue;
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		held = !bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, "stops") &&
		       info.type == BPF_MAP_TYPE_HASH && info.key_size == sizeof(tgid) &&
		       info.value_size == sizeof(st) && !bpf_map_lookup_elem(fd, &tgid, &st);
		close(fd);
	}
	return held;
}

void sb_stops_resume(int stops_fd, pid_t pid, uint32_t seq)
{
	__u32 own = map_id(stops_fd);

	if (!held_elsewhere(own, (__u32)pid)) {
		kill(pid, SIGCONT);
		sb_stops_done(stops_fd, (uint32_t)pid, seq);
		return;
	}
	sb_stops_done(stops_fd, (uint32_t)pid, seq);
	if (!held_elsewhere(own, (__u32)pid))
		kill(pid, SIGCONT);
}
