// SPDX-License-Identifier: GPL-2.0
/*
 * rawtracepoint:[MODULE:]NAME: a raw tracepoint (a raw_tp program), its arguments arg0..argN
 * and, as in bpftrace 0.27, args->name, typed and named from the kernel's (or the module's)
 * __bpf_trace_NAME function (read with bpf_probe_read_kernel, as a raw_tp program must);
 * named rawtracepoint:vmlinux:NAME or rawtracepoint:MODULE:NAME as 0.27 names it. tp_btf:NAME: the
 * same tracepoint as a BTF-typed tp_btf program. Targets of both are the kernel's "btf_trace_NAME"
 * typedefs in its BTF; the context of both is the array of u64 arguments.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kmods.h"
#include "types.h"
#include "meta.h"
#include "probe_internal.h"

#define RAW_PREFIX "btf_trace_"

/*
 * Patterns: NAME (vmlinux's and every module's, as bpftrace 0.27's rawtracepoint:*:NAME),
 * vmlinux:NAME, MODULE:NAME, a wildcard of either part; targets are "NAME" for vmlinux's and
 * "MODULE:NAME". bpftrace 0.17's CATEGORY:NAME, where CATEGORY is no module, is vmlinux's NAME.
 */
static int rawtp_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		       size_t *n, struct probe_err *err)
{
	struct probe_names names = { .a = a };
	const char *colon = strchr(pattern, ':'), *name = colon ? colon + 1 : pattern;
	char *mod = colon ? arena_printf(a, "%.*s", (int)(colon - pattern), pattern) : "*";
	struct probe_kmods *mods;
	struct btf *btf;

	*out = NULL;
	*n = 0;
	btf = probe_env_vmlinux_btf(env, err);
	if (!btf)
		return -ENOENT;
	/* the modules' BTF (every module's parsed) only where the pattern may name a module */
	mods = strcmp(mod, "vmlinux") ? probe_env_kmods(env) : NULL;
	if (mods && colon && !probe_has_wildcard(mod) && !probe_kmods_find(mods, mod))
		mod = "vmlinux";
	if (probe_wildcard_match(mod, "vmlinux"))
		probe_btf_names(btf, 1, BTF_KIND_TYPEDEF, RAW_PREFIX, name, "", &names);
	for (size_t i = 0; mods && i < mods->n; i++)
		if (probe_wildcard_match(mod, mods->v[i].name))
			probe_btf_names(mods->v[i].btf, btf__type_cnt(btf), BTF_KIND_TYPEDEF,
					RAW_PREFIX, name, arena_printf(a, "%s:", mods->v[i].name),
					&names);
	*n = probe_names_finish(&names, out);
	return (int)*n;
}

static char *rawtp_section(struct arena *a, const char *target)
{
	return probe_kmod_section(a, "raw_tp", target);
}

/* arg0..argN-1: the tracepoint's arguments after its leading `void *` context. */
static int rawtp_args(struct probe_env *env, struct arena *a, const char *target,
		      struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	struct btf *btf = probe_env_vmlinux_btf(env, err);
	const struct btf_type *t;
	const char *name;
	char mod[64];
	bool in_mod = probe_kmod_target(target, mod, sizeof(mod), &name);
	struct probe_kmod *k;
	uint32_t n;
	int id;

	if (!btf)
		return -ENOENT;
	/* a module's tracepoint: its typedef is in the module's BTF */
	if (in_mod && (k = probe_kmods_find(probe_env_kmods(env), mod)))
		btf = k->btf;
	id = btf__find_by_name_kind(btf, arena_printf(a, RAW_PREFIX "%s", name), BTF_KIND_TYPEDEF);
	t = id < 0 ? NULL : btf__type_by_id(btf, btf__resolve_type(btf, (uint32_t)id));
	while (t && btf_is_ptr(t))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1) {
		probe_err_set(err, NULL, "the kernel's BTF does not describe raw tracepoint %s",
			      target);
		return -ENOENT;
	}
	n = btf_vlen(t) - 1;
	*args = arena_alloc(a, (n ? n : 1) * sizeof(**args));
	for (uint32_t i = 0; i < n; i++) {
		struct probe_arg *arg = &(*args)[i];

		arg->name = arena_printf(a, "arg%u", i);
		arg->decl = arg->name;
		arg->offset = 8 * i;
		arg->type = (struct type){ .kind = TYPE_INT, .size = 8 };
		arg->hidden = true;
	}
	*nargs = n;
	return 0;
}

static int rawtp_attach(const struct probe_plan *plan, struct probe_links *links,
			struct probe_err *err)
{
	const char *name;

	probe_kmod_target(plan->probe->target, NULL, 0, &name);
	return probe_links_add_result(links, bpf_program__attach_raw_tracepoint(plan->prog, name),
				      err, "list them with: aotrace -l 'rawtracepoint:*'",
				      plan->probe->name);
}

static char *tpbtf_section(struct arena *a, const char *target)
{
	return probe_kmod_section(a, "tp_btf", target);
}

/*
 * args->name from __bpf_trace_NAME(void *__data, PROTO), the kernel's own glue with the
 * tracepoint's parameters named and typed (or __probestub_NAME, of the same prototype), shifted
 * past __data; plus arg0..argN as 64-bit slots.
 */
static int tpbtf_args(struct probe_env *env, struct arena *a, const char *target,
		      struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	struct probe_arg *slots, *named = NULL, *v;
	uint32_t nslots, nnamed = 0, n = 0;
	struct probe_err ignored;
	const char *name;
	int ret = rawtp_args(env, a, target, &slots, &nslots, err), mod;

	if (ret)
		return ret;
	/*
	 * An event of a DEFINE_EVENT class has no glue of its own (__bpf_trace_CLASS), but 6.4
	 * and later give it __probestub_NAME with the same parameters. Older kernels may lack
	 * both in BTF: then only arg0..argN.
	 */
	/* "MODULE:__bpf_trace_NAME" for a module's: the kfunc target of the module's glue */
	probe_kmod_target(target, NULL, 0, &name);
	mod = (int)(name - target);
	probe_btf_func_args(env, a, arena_printf(a, "%.*s__bpf_trace_%s", mod, target, name),
			    &named, &nnamed, &ignored);
	if (!nnamed)
		probe_btf_func_args(env, a,
				    arena_printf(a, "%.*s__probestub_%s", mod, target, name),
				    &named, &nnamed, &ignored);
	v = arena_alloc(a, (nslots + nnamed + 1) * sizeof(*v));
	for (uint32_t i = 0; i < nnamed; i++) {
		if (named[i].offset < 8 || named[i].hidden)
			continue;
		v[n] = named[i];
		v[n].offset -= 8;
		n++;
	}
	memcpy(v + n, slots, nslots * sizeof(*v));
	*args = v;
	*nargs = n + nslots;
	return 0;
}

static int tpbtf_attach(const struct probe_plan *plan, struct probe_links *links,
			struct probe_err *err)
{
	return probe_links_add_result(
		links, bpf_program__attach_trace(plan->prog), err,
		"rawtracepoint:NAME (a raw_tp program) may work where tp_btf does not",
		plan->probe->name);
}

/*
 * As bpftrace 0.27 names it, with the BTF it comes from: rawtracepoint:vmlinux:NAME,
 * rawtracepoint:MODULE:NAME.
 */
static char *rawtp_probe_name(struct arena *a, const char *written, const char *target)
{
	const char *name;

	(void)written;
	if (probe_kmod_target(target, NULL, 0, &name))
		return arena_printf(a, "rawtracepoint:%s", target);
	return arena_printf(a, "rawtracepoint:vmlinux:%s", target);
}

const struct probe_type probe_rawtracepoint = {
	.name = "rawtracepoint",
	.spellings = (const char *const[]){ "rt", NULL },
	.builtins = PB_ARGS | PB_ARGN,
	.has_target = true,
	.list_all = "*",
	.match = rawtp_match,
	.section = rawtp_section,
	.args = tpbtf_args,
	.attach = rawtp_attach,
	.probe_name = rawtp_probe_name,
};

const struct probe_type probe_tp_btf = {
	.name = "tp_btf",
	.has_target = true,
	.builtins = PB_ARGS | PB_ARGN,
	.list_all = "*",
	.match = rawtp_match,
	.section = tpbtf_section,
	.args = tpbtf_args,
	.attach = tpbtf_attach,
};
