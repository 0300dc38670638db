// SPDX-License-Identifier: GPL-2.0
/*
 * Session links (kprobe 6.10, uprobe 6.13, fentry/fexit 7.2): one program at a function's entry
 * and return, by one link. Whether this kernel has them (by trying), the plan of a session
 * program (used, or left unloaded for its two probes), and the raw bpf(BPF_LINK_CREATE) that
 * libbpf 1.4 cannot make: the kprobe_multi and uprobe_multi layouts of link_create, with the
 * session attach type. An fsession is a trampoline's link, which libbpf makes.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "meta.h"
#include "probe_internal.h"

static int session_link_create(union bpf_attr *attr)
{
	int fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, attr, sizeof(*attr));

	return fd < 0 ? -errno : fd;
}

int probe_session_kprobe_link(int prog_fd, uint32_t attach_type, const char **syms,
			      const uint64_t *cookies, size_t n)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = (uint32_t)prog_fd;
	attr.link_create.attach_type = attach_type;
	attr.link_create.kprobe_multi.cnt = (uint32_t)n;
	attr.link_create.kprobe_multi.syms = (uint64_t)(uintptr_t)syms;
	attr.link_create.kprobe_multi.cookies = (uint64_t)(uintptr_t)cookies;
	return session_link_create(&attr);
}

int probe_session_uprobe_link(int prog_fd, uint32_t attach_type, const char *path,
			      const unsigned long *offsets, const uint64_t *cookies, size_t n,
			      int pid)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = (uint32_t)prog_fd;
	attr.link_create.attach_type = attach_type;
	attr.link_create.uprobe_multi.path = (uint64_t)(uintptr_t)path;
	attr.link_create.uprobe_multi.offsets = (uint64_t)(uintptr_t)offsets;
	attr.link_create.uprobe_multi.cookies = (uint64_t)(uintptr_t)cookies;
	attr.link_create.uprobe_multi.cnt = (uint32_t)n;
	attr.link_create.uprobe_multi.pid = pid > 0 ? (uint32_t)pid : 0;
	return session_link_create(&attr);
}

/*
 * An fsession program that returns 0, loaded for vfs_read: its fd, or -errno (a kernel without
 * fsession refuses the attach type with EINVAL; one without trampolines, EPERM or ENOTSUPP).
 */
static int session_fsession_test_prog(struct probe_env *env)
{
	static const struct bpf_insn ret0[] = {
		{ .code = 0xb7, .dst_reg = 0 }, /* r0 = 0 */
		{ .code = 0x95 },		/* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = PROBE_TRACE_FSESSION);
	struct btf *btf = probe_env_vmlinux_btf(env, NULL);
	int id = btf ? btf__find_by_name_kind(btf, "vfs_read", BTF_KIND_FUNC) : -ENOENT, fd;

	if (id < 0)
		return id;
	opts.attach_btf_id = (uint32_t)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "aot_try", "GPL", ret0, 2, &opts);
	return fd < 0 ? -errno : fd;
}

/*
 * Whether the kernel makes a session link of this attach type: a program that returns 0,
 * attached for a moment to vfs_read (kprobe, fsession); for uprobes, to "/", which a kernel
 * with uprobe sessions refuses with EBADF (no file to probe) and one without with EINVAL.
 */
static bool session_link_supported(struct probe_env *env, uint32_t attach_type)
{
	static const char *syms[] = { "vfs_read" };
	static const unsigned long offsets[] = { 0 };
	static const uint64_t cookies[] = { 0 };
	int prog, link;

	prog = attach_type == PROBE_TRACE_FSESSION
		       ? session_fsession_test_prog(env)
		       : probe_multi_test_prog((enum bpf_attach_type)attach_type);
	if (prog < 0)
		return false;
	if (attach_type == PROBE_TRACE_FSESSION)
		link = bpf_link_create(prog, 0, (enum bpf_attach_type)attach_type, NULL);
	else if (attach_type == PROBE_KPROBE_SESSION)
		link = probe_session_kprobe_link(prog, attach_type, syms, cookies, 1);
	else
		link = probe_session_uprobe_link(prog, attach_type, "/", offsets, cookies, 1, 0);
	if (link >= 0)
		close(link);
	close(prog);
	return link >= 0 || (attach_type == PROBE_UPROBE_SESSION && link == -EBADF);
}

int probe_session_kfunc_args(const struct btf *btf)
{
	const struct btf_type *t;
	int id;

	id = btf ? btf__find_by_name_kind(btf, "bpf_session_is_return", BTF_KIND_FUNC) : -1;
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) : -1;
}

bool probe_session_supported(struct probe_env *env, const struct probe_type *pt, int kfunc_args)
{
	int args = probe_session_kfunc_args(probe_env_vmlinux_btf(env, NULL));

	if (!pt->session_attach || args < 0 || (kfunc_args >= 0 && args != kfunc_args))
		return false;
	return session_link_supported(env, pt->session_attach);
}

int probe_session_prepare(struct probe_env *env, struct probe_plan *plan, int kfunc_args,
			  struct probe_err *err)
{
	const char *links = getenv("AOTRACE_SESSION_LINKS");
	int ret;

	/* AOTRACE_SESSION_LINKS=0 asks for the two probes on kernels that have sessions. */
	/* An fsession finds its function in the kernel's BTF: not a BPF program's (kfunc:bpf:). */
	if ((links && !strcmp(links, "0")) || probe_bpf_target(plan->probe->target) ||
	    !probe_session_supported(env, plan->type, kfunc_args)) {
		plan->strategy = PROBE_NO_SESSION;
		bpf_program__set_autoload(plan->prog, false);
		return 0;
	}
	plan->strategy = PROBE_SESSION;
	/*
	 * libbpf 1.4 knows no session section: the program's type is given here (an fsession's
	 * "fentry/FUNC" is a tracing program already, whose target libbpf finds by that name).
	 */
	ret = plan->type->session_attach == PROBE_TRACE_FSESSION
		      ? 0
		      : bpf_program__set_type(plan->prog, BPF_PROG_TYPE_KPROBE);
	if (!ret)
		ret = bpf_program__set_expected_attach_type(
			plan->prog, (enum bpf_attach_type)plan->type->session_attach);
	if (ret)
		probe_err_set(err, NULL, "cannot prepare the session program: %s", strerror(-ret));
	return ret;
}
