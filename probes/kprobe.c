// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe:FUNC[+OFFSET] and kretprobe:FUNC. Targets come from available_filter_functions (what
 * ftrace can trace), falling back to kallsyms' text symbols; each target is one program in its
 * canonical "kprobe/FUNC" section, attached with one link.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "meta.h"
#include "probe_internal.h"

#define KPROBE_LIST_HINT "list what can be probed: aotrace -l 'kprobe:*'"
#define KPROBE_NONE_HINT                                                                           \
	"trace a tracepoint instead (aotrace -l 'tracepoint:*'), or run a kernel with CONFIG_KPROBES"

/* Kernels built without CONFIG_KPROBES have no kprobe_events file in tracefs. */
static int kprobe_supported(struct probe_env *env, struct probe_err *err)
{
	const char *root = probe_env_tracefs(env, err);
	char path[128];

	if (!root)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	if (access(path, F_OK)) {
		probe_err_set(err, KPROBE_NONE_HINT, "this kernel has no kprobes (no %s)", path);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Traceable function names matching pattern, from the first source that can be read. */
static int kprobe_collect(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			  size_t *n)
{
	const char *root = probe_env_tracefs(env, NULL);
	char path[128], line[512], name[256], type;
	struct probe_names names = { .a = a };
	bool kallsyms = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/available_filter_functions",
		 root ? root : "/sys/kernel/tracing");
	f = fopen(path, "r");
	if (!f) {
		f = fopen("/proc/kallsyms", "r");
		kallsyms = true;
	}
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;

		if (kallsyms) {
			if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
			    (type != 't' && type != 'T'))
				continue;
		} else if (sscanf(line, "%255s", name) != 1) {
			continue;
		}
		if (probe_wildcard_match(pattern, name))
			probe_names_add(&names, arena_strdup(a, name));
	}
	fclose(f);
	/* Static functions of the same name appear once per copy: one target each. */
	*n = probe_names_finish(&names, out);
	return 0;
}

/*
 * Whether this kernel's traceable functions are known and func is not one of them. bpftrace
 * 0.27 matches a named function against them too ("No matches for kprobe md_flush_request" on
 * Debian's 6.12 without md_mod loaded), where the kernel takes a kprobe on a function it does
 * not have through tracefs, for a module that may bring it later, and the probe never fires.
 */
static bool kprobe_untraceable(struct probe_env *env, const char *func)
{
	const char *root = probe_env_tracefs(env, NULL);
	char path[128], line[512];
	size_t len = strlen(func);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/available_filter_functions",
		 root ? root : "/sys/kernel/tracing");
	f = fopen(path, "r");
	if (!f)
		return false;
	/* "name" or "name [module]" */
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, func, len) &&
			(line[len] == '\n' || line[len] == ' ' || line[len] == '\t');
	fclose(f);
	return !found;
}

static int kprobe_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			size_t *n, struct probe_err *err)
{
	int ret;

	*out = NULL;
	*n = 0;
	/*
	 * One function (or an offset into one) needs no list, and no kprobes on this kernel:
	 * --emit-elf builds for other hosts. Where the kernel lists what it can trace, a function
	 * it lacks is missing, as in bpftrace 0.27 (an object keeps it: --missing-probes).
	 */
	if (!probe_has_wildcard(pattern)) {
		char func[256];

		snprintf(func, sizeof(func), "%s", pattern);
		func[strcspn(func, "+")] = 0;
		if (kprobe_supported(env, NULL) == 0 && kprobe_untraceable(env, func)) {
			probe_err_set(err, KPROBE_LIST_HINT,
				      "no traceable function %s on this kernel", func);
			err->missing = arena_strdup(a, pattern);
			return 0;
		}
		*out = arena_alloc(a, sizeof(char *));
		(*out)[0] = arena_strdup(a, pattern);
		*n = 1;
		return 1;
	}
	ret = kprobe_supported(env, err);
	if (ret)
		return ret;
	ret = kprobe_collect(env, a, pattern, out, n);
	if (ret) {
		probe_err_set(err, NULL, "cannot read the traceable functions: %s", strerror(-ret));
		return ret;
	}
	return (int)*n;
}

static char *kprobe_section(struct arena *a, const char *target)
{
	return arena_printf(a, "kprobe/%s", target);
}

static char *kretprobe_section(struct arena *a, const char *target)
{
	return arena_printf(a, "kretprobe/%s", target);
}

static int kprobe_args(struct probe_env *env, struct arena *a, const char *target,
		       struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	(void)env, (void)target, (void)err;
	return probe_regs_args(a, false, false, args, nargs);
}

static int kretprobe_args(struct probe_env *env, struct arena *a, const char *target,
			  struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	(void)env, (void)target, (void)err;
	return probe_regs_args(a, true, false, args, nargs);
}

static int kprobe_attach_common(const struct probe_plan *plan, bool retprobe,
				struct probe_links *links, struct probe_err *err)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .retprobe = retprobe);
	const struct aot_probe *p = plan->probe;
	char func[256], *plus;
	struct probe_env *env;
	int ret;

	snprintf(func, sizeof(func), "%s", p->target);
	plus = strchr(func, '+');
	if (plus) {
		*plus = 0;
		opts.offset = strtoull(plus + 1, NULL, 0);
	}
	ret = probe_links_add_result(links,
				     bpf_program__attach_kprobe_opts(plan->prog, func, &opts), err,
				     KPROBE_LIST_HINT, p->name);
	if (ret != -ENOENT && ret != -EOPNOTSUPP && ret != -EINVAL)
		return ret;
	/* Say what the kernel lacks rather than an errno, when that is the reason. */
	env = probe_env__new();
	/* No kprobes at all is not a missing function (--missing-probes): say which it is. */
	if (env && kprobe_supported(env, err) == -EOPNOTSUPP) {
		ret = -EOPNOTSUPP;
	} else if (env) {
		/*
		 * The kernel refuses a function ftrace cannot trace (notrace, or only inlined
		 * copies, as blk_account_io_start on 6.12) with EINVAL, one it does not have with
		 * ENOENT: both are a missing target for --missing-probes, as scripts for several
		 * kernels name such functions.
		 */
		struct arena *a = arena_new();
		char **names = NULL;
		size_t n = 1;

		if (a && !kprobe_collect(env, a, func, &names, &n) && !n) {
			if (ret == -EINVAL)
				probe_err_set(err, KPROBE_LIST_HINT,
					      "%s is not traceable on this kernel (notrace or "
					      "inlined)",
					      func);
			else
				probe_err_set(err, KPROBE_LIST_HINT,
					      "no function %s on this kernel", func);
			ret = -ENOENT;
		}
		arena_free(a);
	}
	probe_env__free(env);
	return ret;
}

struct kprobe_multi_ctx {
	struct bpf_program *prog;
	bool retprobe;
	uint32_t session; /* a session link's attach type, or 0 */
};

static int kprobe_multi_one(void *c, const char *name, uint64_t cookie, struct probe_links *links,
			    struct probe_err *err)
{
	struct kprobe_multi_ctx *ctx = c;
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .retprobe = ctx->retprobe, .bpf_cookie = cookie);

	return probe_links_add_result(
		links, bpf_program__attach_kprobe_opts(ctx->prog, name, &opts), err, NULL, name);
}

static int kprobe_multi_many(void *c, const char **names, const uint64_t *cookies, size_t n,
			     struct probe_multi_link *link)
{
	struct kprobe_multi_ctx *ctx = c;
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = names, .cnt = n,
		    .cookies = (const __u64 *)cookies, .retprobe = ctx->retprobe);
	int ret;

	if (ctx->session) {
		link->fd = probe_session_kprobe_link(bpf_program__fd(ctx->prog), ctx->session,
						     names, cookies, n);
		return link->fd < 0 ? link->fd : 0;
	}
	link->link = bpf_program__attach_kprobe_multi_opts(ctx->prog, NULL, &opts);
	ret = libbpf_get_error(link->link);
	if (ret)
		link->link = NULL;
	return ret;
}

static const struct probe_multi_ops kprobe_multi_ops = {
	.attach_multi = kprobe_multi_many,
	.attach_one = kprobe_multi_one,
};

/*
 * Drops from names (sorted, arena-owned by a) the functions kprobes must not touch, from debugfs
 * when it is there. The names themselves are the plan's: they are left as they are.
 */
static void kprobe_drop_blacklisted(struct arena *a, char **names, size_t *n)
{
	FILE *f = fopen("/sys/kernel/debug/kprobes/blacklist", "r");
	char line[512], name[256];
	bool *bad;
	size_t kept = 0;

	if (!f)
		return;
	bad = arena_alloc(a, (*n ? *n : 1) * sizeof(*bad));
	while (fgets(line, sizeof(line), f)) {
		char **hit;

		if (sscanf(line, "%*s %255s", name) != 1)
			continue;
		hit = bsearch(&(const char *){ name }, names, *n, sizeof(char *), probe_name_cmp);
		if (hit)
			bad[hit - names] = true; /* names are sorted: mark, compact below */
	}
	fclose(f);
	for (size_t i = 0; i < *n; i++)
		if (!bad[i])
			names[kept++] = names[i];
	*n = kept;
}

/*
 * A multi program: every function the pattern matches on this kernel, as the plan listed them
 * (or listed now, where it did not).
 */
static int kprobe_attach_multi(const struct probe_plan *plan, bool retprobe,
			       struct probe_links *links, struct probe_err *err)
{
	struct kprobe_multi_ctx ctx = {
		.prog = plan->prog,
		.retprobe = retprobe,
		.session = plan->strategy == PROBE_SESSION ? plan->type->session_attach : 0,
	};
	struct probe_env *env = NULL;
	struct arena *a = arena_new();
	char **names = NULL;
	size_t n = 0;
	int ret = -ENOMEM;

	if (!a)
		goto out;
	if (plan->targets) {
		/* A copy of the list, which the blacklist may shorten. */
		n = (size_t)plan->ntargets;
		names = arena_alloc(a, (n ? n : 1) * sizeof(*names));
		memcpy(names, plan->targets, n * sizeof(*names));
	} else {
		env = probe_env__new();
		if (!env)
			goto out;
		ret = kprobe_supported(env, err);
		if (ret)
			goto out;
		ret = kprobe_collect(env, a, plan->probe->target, &names, &n);
		if (ret) {
			probe_err_set(err, NULL, "cannot read the traceable functions: %s",
				      strerror(-ret));
			goto out;
		}
	}
	kprobe_drop_blacklisted(a, names, &n);
	if (!n) {
		probe_err_set(err, KPROBE_LIST_HINT,
			      "no traceable function matches %s on this kernel", plan->probe->name);
		ret = -ENOENT;
		goto out;
	}
	ret = probe_multi_attach(plan, &kprobe_multi_ops, &ctx, names, "", n, links, err);
out:
	arena_free(a);
	probe_env__free(env);
	return ret;
}

static int kprobe_attach(const struct probe_plan *plan, struct probe_links *links,
			 struct probe_err *err)
{
	if (probe_plan_multi(plan))
		return kprobe_attach_multi(plan, false, links, err);
	return kprobe_attach_common(plan, false, links, err);
}

static int kretprobe_attach(const struct probe_plan *plan, struct probe_links *links,
			    struct probe_err *err)
{
	if (probe_plan_multi(plan))
		return kprobe_attach_multi(plan, true, links, err);
	return kprobe_attach_common(plan, true, links, err);
}

static int kprobe_prepare(struct probe_env *env, struct probe_plan *plan, struct probe_err *err)
{
	(void)env;
	return probe_multi_prepare(plan, probe_kprobe_multi_supported, err);
}

/*
 * Whether the kernel's fprobe runs on the function-graph tracer (6.14: "fprobe: Rewrite fprobe
 * on function-graph tracer"), told by its BTF: struct fprobe_hlist_node came with it. Before,
 * each fprobe had its own ftrace_ops (run newest first) and rethook, whose return handlers
 * run last pushed first, so the exits ran oldest first, as kretprobes do. Since, one table
 * holds every fprobe of a function, newest first, and the exits run from the function-graph
 * shadow stack in the order the entries pushed them: newest first too (7.2 printed 3214 for
 * probe_order.test's kretprobe wildcards attached first to last).
 */
static bool kprobe_fprobe_on_fgraph(struct probe_env *env)
{
	struct btf *btf = probe_env_vmlinux_btf(env, NULL);

	return btf && btf__find_by_name_kind(btf, "fprobe_hlist_node", BTF_KIND_STRUCT) >= 0;
}

static int kretprobe_prepare(struct probe_env *env, struct probe_plan *plan, struct probe_err *err)
{
	int ret = probe_multi_prepare(plan, probe_kprobe_multi_supported, err);

	/* A fallback's links are kretprobes: oldest first on every kernel. */
	if (!ret && plan->strategy == PROBE_MULTI)
		plan->newest_first = kprobe_fprobe_on_fgraph(env);
	return ret;
}

static char *kprobe_multi_section(struct arena *a, const char *pattern)
{
	return arena_printf(a, "kprobe.multi/%s", pattern);
}

static char *kretprobe_multi_section(struct arena *a, const char *pattern)
{
	return arena_printf(a, "kretprobe.multi/%s", pattern);
}

const struct probe_type probe_kprobe = {
	.name = "kprobe",
	.ctx_type = "struct pt_regs",
	.spellings = (const char *const[]){ "k", NULL },
	.has_target = true,
	.newest_first = true,
	.builtins = PB_ARGN | PB_FUNC | PB_REGS | PB_OVERRIDE,
	.list_all = "*",
	.match = kprobe_match,
	.section = kprobe_section,
	.multi_section = kprobe_multi_section,
	.session_return = "kretprobe",
	.session_attach = PROBE_KPROBE_SESSION,
	.args = kprobe_args,
	.attach = kprobe_attach,
	.prepare = kprobe_prepare,
};

const struct probe_type probe_kretprobe = {
	.name = "kretprobe",
	.ctx_type = "struct pt_regs",
	.spellings = (const char *const[]){ "kr", NULL },
	.has_target = true,
	.builtins = PB_RETVAL | PB_FUNC | PB_REGS,
	.match = kprobe_match,
	.section = kretprobe_section,
	.multi_section = kretprobe_multi_section,
	.args = kretprobe_args,
	.attach = kretprobe_attach,
	.prepare = kretprobe_prepare,
};
