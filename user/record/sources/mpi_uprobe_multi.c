/* Uprobe multi links through the bpf() system call: see mpi_uprobe_multi.h. */
#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/sources/mpi_uprobe_multi.h"

#define UPROBE_MULTI_RETURN 1u	/* BPF_F_UPROBE_MULTI_RETURN */

/* BPF_LINK_CREATE's attributes for a uprobe multi link, as Linux 6.6's union bpf_attr has them. */
struct uprobe_multi_attr {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__aligned_u64 path;
	__aligned_u64 offsets;
	__aligned_u64 ref_ctr_offsets;
	__aligned_u64 cookies;
	__u32 cnt;
	__u32 multi_flags;
	__u32 pid;
};

_Static_assert(sizeof(struct uprobe_multi_attr) <= sizeof(union bpf_attr),
	       "the kernel reads at most union bpf_attr's size here");

static int sys_bpf(int cmd, void *attr)
{
	long ret = syscall(__NR_bpf, cmd, attr, sizeof(union bpf_attr));

	return ret < 0 ? -errno : (int)ret;
}

int sb_uprobe_multi_link(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, uint32_t n, bool ret)
{
	struct uprobe_multi_attr u = {
		.prog_fd = (__u32)prog_fd,
		.attach_type = SB_TRACE_UPROBE_MULTI,
		.path = (__u64)(uintptr_t)path,
		.offsets = (__u64)(uintptr_t)offsets,
		.cookies = (__u64)(uintptr_t)cookies,
		.cnt = n,
		.multi_flags = ret ? UPROBE_MULTI_RETURN : 0,
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, &u, sizeof(u));
	return sys_bpf(BPF_LINK_CREATE, &attr);
}

/* A program that returns 0, loaded to be linked as a uprobe multi; its fd or -errno. */
static int load_empty(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.expected_attach_type = SB_TRACE_UPROBE_MULTI;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.insns = (__u64)(uintptr_t)insns;
	attr.license = (__u64)(uintptr_t)"GPL";
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

/*
 * A kernel with uprobe multi links refuses one on "/" as no regular file
 * (EBADF); one without refuses the attach type (EINVAL). The links made here
 * filter no process (pid 0), so the thread filtering of 6.6 to 6.9 does not
 * matter.
 */
bool sb_uprobe_multi_supported(void)
{
	uint64_t offset = 0, cookie = 0;
	int prog = load_empty(), link;

	if (prog < 0)
		return false;
	link = sb_uprobe_multi_link(prog, "/", &offset, &cookie, 1, false);
	if (link >= 0)
		close(link);
	close(prog);
	return link == -EBADF;
}
