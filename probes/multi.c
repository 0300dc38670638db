// SPDX-License-Identifier: GPL-2.0
/*
 * What kprobe and uprobe share for multi programs: probing whether the kernel has multi links
 * (by trying), giving each target a cookie and its name in the names map, finding the targets
 * a multi link refuses (one bad symbol fails the whole link) by bisection, and the fallback to
 * one link per target of the same program.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "meta.h"
#include "probe_internal.h"

/* A program that returns 0, loaded for the multi attach type: the kernel knows the type. */
int probe_multi_test_prog(enum bpf_attach_type type)
{
	const struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0 }, /* r0 = 0 */
		{ .code = 0x95 },		/* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);

	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &opts);
}

bool probe_kprobe_multi_supported(void)
{
	const char *syms[] = { "vfs_read" };
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .kprobe_multi.syms = syms, .kprobe_multi.cnt = 1);
	int prog = probe_multi_test_prog(BPF_TRACE_KPROBE_MULTI), link;

	if (prog < 0)
		return false;
	/* A real, short-lived attach: without CONFIG_FPROBE this is where it fails. */
	link = bpf_link_create(prog, 0, BPF_TRACE_KPROBE_MULTI, &lopts);
	if (link >= 0)
		close(link);
	close(prog);
	return link >= 0;
}

bool probe_uprobe_multi_supported(void)
{
	static const unsigned long offsets[] = { 0 };
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .uprobe_multi.path = "/",
		    .uprobe_multi.offsets = offsets, .uprobe_multi.cnt = 1);
	int prog = probe_multi_test_prog(BPF_TRACE_UPROBE_MULTI), link, err;

	if (prog < 0)
		return false;
	/* "/" is no file to probe: a kernel with uprobe_multi says EBADF, one without EINVAL. */
	link = bpf_link_create(prog, 0, BPF_TRACE_UPROBE_MULTI, &lopts);
	err = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(prog);
	return link >= 0 || err == -EBADF;
}

bool probe_attach_cookie_helper(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, NULL) == 1;
}

bool probe_func_ip_helper(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_func_ip, NULL) == 1;
}

bool probe_uprobe_func_ip(void)
{
	return probe_uprobe_multi_supported();
}

/*
 * The helpers a multi program calls to tell its targets apart, and the kernel that brought
 * them: a fallback program calls them too, so a kernel without them (5.10) cannot run it.
 */
static const struct {
	int id;
	const char *name, *since, *hint;
} multi_helpers[] = {
	{ BPF_FUNC_get_attach_cookie, "bpf_get_attach_cookie", "5.15",
	  "--no-multi compiles one program per match, each with its own name for `probe`" },
	{ BPF_FUNC_get_func_ip, "bpf_get_func_ip", "5.15", NULL },
};

/* Fails, naming the helper, when the program calls one of multi_helpers the kernel lacks. */
static int multi_fallback_helpers(const struct probe_plan *plan, struct probe_err *err)
{
	const struct bpf_insn *insns = bpf_program__insns(plan->prog);
	size_t n = bpf_program__insn_cnt(plan->prog);

	for (size_t h = 0; h < sizeof(multi_helpers) / sizeof(multi_helpers[0]); h++) {
		bool calls = false;

		for (size_t i = 0; i < n && !calls; i++)
			calls = insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == 0 &&
				insns[i].imm == multi_helpers[h].id;
		if (!calls ||
		    libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, multi_helpers[h].id, NULL) == 1)
			continue;
		probe_err_set(
			err, multi_helpers[h].hint,
			"this kernel has no %s multi links, and the program its targets share "
			"needs the helper %s (Linux %s), which it lacks too",
			plan->probe->type, multi_helpers[h].name, multi_helpers[h].since);
		return -EOPNOTSUPP;
	}
	return 0;
}

int probe_multi_prepare(struct probe_plan *plan, bool (*supported)(void), struct probe_err *err)
{
	const char *env = getenv("AOTRACE_MULTI_LINKS");
	int ret;

	if (!(plan->probe->flags & AOT_PROBE_MULTI))
		return 0;
	/*
	 * Without multi links the same code runs as an ordinary kprobe/uprobe, one per target.
	 * AOTRACE_MULTI_LINKS=0 asks for that on kernels that have them, to test the fallback.
	 */
	if ((!env || strcmp(env, "0")) && supported())
		return 0;
	plan->strategy = PROBE_FALLBACK;
	ret = multi_fallback_helpers(plan, err);
	return ret ? ret : bpf_program__set_expected_attach_type(plan->prog, 0);
}

/* Records a target's probe name in the names map at key. */
static int multi_name(struct bpf_map *map, uint64_t key, const char *type, const char *prefix,
		      const char *target, struct probe_err *err)
{
	char name[AOT_PROBE_NAME_MAX] = { 0 };

	snprintf(name, sizeof(name), "%s:%s%s", type, prefix, target);
	if (bpf_map__update_elem(map, &key, sizeof(key), name, sizeof(name), 0)) {
		probe_err_set(err, NULL, "cannot record the name of %s: %s", name, strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * Cookies for n targets, and each target's probe name in the names map; a session's return
 * type (ret_type, else NULL) names its half at cookie | AOT_PROBE_NAME_RETURN.
 */
static int multi_cookies(const char *type, const char *ret_type, char **names, const char *prefix,
			 size_t n, struct probe_links *links, uint64_t *cookies,
			 struct probe_err *err)
{
	struct bpf_map *map = links->names_map;
	int ret;

	for (size_t i = 0; i < n; i++) {
		cookies[i] = links->next_cookie++;
		if (!map)
			continue; /* the program does not use `probe` */
		ret = multi_name(map, cookies[i], type, prefix, names[i], err);
		if (!ret && ret_type)
			ret = multi_name(map, cookies[i] | AOT_PROBE_NAME_RETURN, ret_type, prefix,
					 names[i], err);
		if (ret)
			return ret;
	}
	return 0;
}

static void multi_link_close(struct probe_multi_link *l)
{
	bpf_link__destroy(l->link);
	if (l->fd >= 0)
		close(l->fd);
}

static int multi_link_add(struct probe_links *links, struct probe_multi_link *l)
{
	return l->link ? probe_links_add(links, l->link) : probe_links_add_fd(links, l->fd);
}

/*
 * A first signal while one probe attaches: a multi link over thousands of targets takes
 * tenths of a second per try, and the bisection below dozens of tries (uprobe:libc:*, one
 * target refused: 29 tries, 2.5 s here, 9 s on a busy machine), as does the fallback of one
 * link per target. Attaching stops at the next try instead of after the probe.
 */
static bool multi_stopped(const struct probe_links *links)
{
	return links->stop && atomic_load(links->stop);
}

/*
 * Marks in bad[] the targets try() refuses, by halving the set until the refusal is pinned
 * on single targets. Each probe attaches and detaches at once (cheap for multi links).
 */
static void multi_bisect(const struct probe_multi_ops *ops, void *ctx, char **names,
			 const uint64_t *cookies, size_t n, bool *bad,
			 const struct probe_links *links)
{
	struct probe_multi_link link = { .fd = -1 };

	if (!n || multi_stopped(links))
		return;
	if (ops->attach_multi(ctx, (const char **)names, cookies, n, &link) == 0) {
		multi_link_close(&link);
		return;
	}
	if (n == 1) {
		*bad = true;
		return;
	}
	multi_bisect(ops, ctx, names, cookies, n / 2, bad, links);
	multi_bisect(ops, ctx, names + n / 2, cookies + n / 2, n - n / 2, bad + n / 2, links);
}

int probe_multi_attach(const struct probe_plan *plan, const struct probe_multi_ops *ops, void *ctx,
		       char **names, const char *prefix, size_t n, struct probe_links *links,
		       struct probe_err *err)
{
	const struct aot_probe *p = plan->probe;
	uint64_t *cookies = calloc(n ? n : 1, sizeof(*cookies));
	bool *bad = NULL;
	struct probe_multi_link link = { .fd = -1 };
	size_t kept = 0;
	int ret;

	if (!cookies)
		return -ENOMEM;
	ret = multi_cookies(p->type,
			    plan->strategy == PROBE_SESSION ? plan->type->session_return : NULL,
			    names, prefix, n, links, cookies, err);
	if (ret)
		goto out;
	if (plan->strategy == PROBE_FALLBACK) {
		/* The fallback: the same program, one link per target, each with its cookie. */
		for (size_t i = 0; i < n && !ret && !multi_stopped(links); i++) {
			ret = ops->attach_one(ctx, names[i], cookies[i], links, err);
			links->multi_targets += !ret;
		}
		goto out;
	}
	ret = ops->attach_multi(ctx, (const char **)names, cookies, n, &link);
	if (ret == 0) {
		ret = multi_link_add(links, &link);
		links->multi_targets += ret ? 0 : n;
		goto out;
	}
	/* Some target is refused and fails the whole link: find which, and go on without them. */
	bad = calloc(n, sizeof(*bad));
	if (!bad) {
		ret = -ENOMEM;
		goto out;
	}
	if (n == 1) {
		bad[0] = true;
	} else {
		multi_bisect(ops, ctx, names, cookies, n / 2, bad, links);
		multi_bisect(ops, ctx, names + n / 2, cookies + n / 2, n - n / 2, bad + n / 2,
			     links);
	}
	/* Interrupted: the probe stays unattached, as the ones after it, and the run ends. */
	if (multi_stopped(links)) {
		ret = 0;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (bad[i]) {
			if (links->verbose)
				probe_links_warn(links,
						 "%s: skipping %s%s, which the kernel refuses",
						 p->name, prefix, names[i]);
			continue;
		}
		names[kept] = names[i];
		cookies[kept++] = cookies[i];
	}
	if (!kept) {
		probe_err_set(err, NULL, "the kernel refuses every target of %s (%s)", p->name,
			      strerror(-ret));
		goto out;
	}
	if (kept < n)
		probe_links_warn(links, "%s: %zu of %zu targets refused by the kernel%s", p->name,
				 n - kept, n, links->verbose ? "" : " (-v names them)");
	ret = ops->attach_multi(ctx, (const char **)names, cookies, kept, &link);
	if (ret) {
		probe_err_set(err, NULL, "cannot attach %s: %s", p->name, strerror(-ret));
		goto out;
	}
	ret = multi_link_add(links, &link);
	links->multi_targets += ret ? 0 : kept;
out:
	free(bad);
	free(cookies);
	return ret;
}
