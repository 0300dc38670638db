// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing multi links: the kernel's side of attaching one fentry/fexit program to a whole alias
 * group (runtime/clone.c decides and loads; here are the kernel calls and the feature probe).
 * bpf_attr's link_create.tracing_multi is written by hand: libbpf 1.4 has no field for it.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe_internal.h"
#include "tracing_multi.h"

/*
 * link_create as Linux 7.2 lays it out: prog_fd, target_fd, attach_type, flags, then at byte 16
 * the union member tracing_multi { __aligned_u64 ids, cookies; __u32 cnt; }.
 */
struct tracing_multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t ids, cookies;
	uint32_t cnt;
};

int probe_tracing_multi_type(int attach_type)
{
	if (attach_type == BPF_TRACE_FENTRY)
		return PROBE_TRACE_FENTRY_MULTI;
	if (attach_type == BPF_TRACE_FEXIT)
		return PROBE_TRACE_FEXIT_MULTI;
	return 0;
}

int probe_tracing_multi_link(int prog_fd, int multi_type, const uint32_t *ids,
			     const uint64_t *cookies, uint32_t cnt)
{
	/* The kernel checks that the bytes past what it knows are zero: a whole bpf_attr. */
	union {
		struct tracing_multi_attr l;
		union bpf_attr attr;
	} a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.l.prog_fd = (uint32_t)prog_fd;
	a.l.attach_type = (uint32_t)multi_type;
	a.l.ids = (uint64_t)(uintptr_t)ids;
	a.l.cookies = (uint64_t)(uintptr_t)cookies;
	a.l.cnt = cnt;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

bool probe_tracing_multi_supported(struct probe_env *env)
{
	static const struct bpf_insn ret0[] = {
		{ .code = 0xb7, .dst_reg = 0 }, /* r0 = 0 */
		{ .code = 0x95 },		/* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = PROBE_TRACE_FENTRY_MULTI);
	struct btf *btf;
	uint32_t id;
	uint64_t cookie = 1;
	int prog, link, id_or_err;

	if (env->tracing_multi)
		return env->tracing_multi > 0;
	env->tracing_multi = -ENOENT;
	btf = probe_env_vmlinux_btf(env, NULL);
	id_or_err = btf ? btf__find_by_name_kind(btf, "vfs_read", BTF_KIND_FUNC) : -ENOENT;
	if (id_or_err < 0)
		return false;
	id = (uint32_t)id_or_err;
	/* No attach BTF id: the link names the functions (the kernel refuses one here). */
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "aot_try", "GPL", ret0, 2, &opts);
	if (prog < 0) {
		env->tracing_multi = -errno;
		return false;
	}
	/* A real, short-lived attach: a kernel may know the type and still refuse the link. */
	link = probe_tracing_multi_link(prog, PROBE_TRACE_FENTRY_MULTI, &id, &cookie, 1);
	if (link >= 0)
		close(link);
	close(prog);
	env->tracing_multi = link >= 0 ? 1 : link;
	return link >= 0;
}
