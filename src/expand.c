// SPDX-License-Identifier: GPL-2.0
/*
 * Probe expansion: AST attach points -> concrete probe matches. Each attach point names a probe
 * type (any of its spellings) and a target pattern; the probe type turns the pattern into
 * targets. The strategy is chosen here: one multi program for a wildcard on a multi-capable
 * type, matches that may share one function through ELF aliases (--expand), or one function
 * and section per match. The number of probes is capped (--max-probes).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arena.h"
#include "frontend.h"
#include "meta.h"
#include "probe.h"
#include "policy.h"
#include "tracing_multi.h"

struct expand_ctx {
	struct program *prog;
	struct probe_env *env;
	struct diags *d;
	int cookies; /* fentry attach cookies on this kernel: -1 not tried yet, 0 no, 1 yes */
	int cookie_helper, func_ip; /* bpf_get_attach_cookie, bpf_get_func_ip: the same */
	/* the current probe's wildcards that matched nothing, in order; tail: where to add */
	struct expand_empty *empty, **tail;
};

/* A wildcard attach point that matched nothing, with the probe type's reason (expand_probes). */
struct expand_empty {
	struct node *ap;
	const struct probe_type *pt;
	struct probe_err err;
	struct expand_empty *next;
};

/* A C identifier for the program's function, unique in the object: "tracepoint_syscalls_..." */
static char *expand_func_name(struct expand_ctx *ctx, const char *probe_name)
{
	struct aot_meta *m = ctx->prog->meta;
	char *name = arena_strdup(ctx->prog->arena, probe_name);
	unsigned suffix = 1;
	bool unique;

	for (char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p))
			*p = '_';
	for (;;) {
		unique = true;
		for (uint32_t i = 0; i < m->nprobes && unique; i++)
			unique = strcmp(m->probes[i].prog, name) != 0;
		if (unique)
			return name;
		name = arena_printf(ctx->prog->arena, "%s_%u", name, ++suffix);
	}
}

static void expand_type_list(struct expand_ctx *ctx, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (const struct probe_type *const *pt = probe_types; *pt && off < len; pt++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", (*pt)->name);
	(void)ctx;
}

static int expand_add_meta(struct expand_ctx *ctx, struct probe_match *m, uint32_t flags)
{
	struct aot_probe mp = {
		.prog = m->func,
		.type = (char *)m->pt->name,
		.target = m->target,
		.name = m->name,
		.flags = m->pt->flags | flags | (ctx->prog->opts->unsafe ? AOT_PROBE_UNSAFE : 0),
	};
	int ret = aot_meta_add_probe(ctx->prog->meta, &mp);

	if (ret < 0)
		return ret;
	m->meta_idx = (uint32_t)ret;
	return 0;
}

static int expand_multi(struct expand_ctx *ctx, struct node *ap, const struct probe_type *pt,
			char **targets, size_t ntargets)
{
	struct arena *a = ctx->prog->arena;
	struct probe_match *m = arena_alloc(a, sizeof(*m));

	ap->matches = m;
	ap->nmatches = 1;
	m->pt = pt;
	m->is_multi = true;
	m->target = arena_strdup(a, ap->target);
	m->name = arena_printf(a, "%s:%s", pt->name, ap->target);
	m->section = pt->multi_section(a, ap->target);
	m->func = expand_func_name(ctx, m->name);
	/* Each target's name, as `probe` will print it. */
	m->targets = arena_alloc(a, ntargets * sizeof(char *));
	m->ntargets = (uint32_t)ntargets;
	for (size_t i = 0; i < ntargets; i++)
		m->targets[i] = pt->probe_name ? pt->probe_name(a, ap->target, targets[i])
					       : arena_printf(a, "%s:%s", pt->name, targets[i]);
	return expand_add_meta(ctx, m, AOT_PROBE_MULTI);
}

/*
 * Whether the matches of a wildcard may share one function as ELF aliases (codegen groups them
 * by body). Only aotrace's runtime loads aliases, so auto wants them only for a run here (not
 * --emit-elf, which a generic libbpf loader must load) and only where the kernel gives fentry
 * programs the attach cookies that name each target.
 */
static bool expand_alias_ok(struct expand_ctx *ctx, const struct probe_type *pt, size_t ntargets)
{
	const struct program *prog = ctx->prog;

	if (!pt->can_alias || ntargets < 2 || prog->opts->expand == AOT_EXPAND_FULL)
		return false;
	if (prog->opts->expand == AOT_EXPAND_ALIAS)
		return true;
	if (prog->opts->emit_elf)
		return false;
	if (ctx->cookies < 0)
		ctx->cookies = probe_kfunc_cookies_supported(ctx->env);
	return ctx->cookies > 0;
}

/*
 * Whether a wildcard may be one multi program here: an object for other hosts always is (the
 * host that runs it says what it lacks); compiled to run here, not where kprobe programs
 * cannot read attach cookies (5.10): the fallback of one link per target could not tell its
 * targets apart, so each match gets a program of its own, as with --no-multi.
 */
static bool expand_multi_ok(struct expand_ctx *ctx)
{
	if (ctx->prog->opts->emit_elf)
		return true;
	if (ctx->cookie_helper < 0)
		ctx->cookie_helper = probe_attach_cookie_helper();
	return ctx->cookie_helper > 0;
}

/*
 * Whether `func` of a match is a constant of its program (AOT_FUNC_TAG): where the kernel this
 * compiles for lacks bpf_get_func_ip (5.10) and the program has this target alone.
 */
static bool expand_func_const(struct expand_ctx *ctx, const struct probe_type *pt, bool alias)
{
	if (!(pt->builtins & PB_FUNC) || (pt->builtins & PB_USER) || alias ||
	    ctx->prog->opts->emit_elf)
		return false;
	if (ctx->func_ip < 0)
		ctx->func_ip = probe_func_ip_helper();
	return ctx->func_ip == 0;
}

/*
 * The probes an attach point attaches, as the limit counts them: one for a wildcard with one
 * multi link (kprobe_multi, uprobe_multi, or an alias group reading no argument where the
 * kernel makes tracing multi links), one per match otherwise; none for BEGIN and the like.
 */
static uint32_t expand_probe_count(const struct program *prog, struct probe_env *env,
				   const struct node *ap)
{
	const struct probe_match *m = ap->matches;
	const char *links = getenv("AOTRACE_MULTI_LINKS");

	if (!ap->nmatches || !m->pt->has_target)
		return 0;
	if (m->is_multi)
		return 1;
	if (ap->nmatches > 1 && m->alias_ok &&
	    (prog->meta->probes[m->meta_idx].flags & AOT_PROBE_NO_ARGS) &&
	    !(links && !strcmp(links, "0")) && env && probe_tracing_multi_supported(env))
		return 1;
	return ap->nmatches;
}

/*
 * The probe limit, as bpftrace's BPFTRACE_MAX_PROBES: an error naming the widest wildcard.
 * After sema, which says which trampoline probes read no argument (one tracing multi link).
 */
int expand_check_limit(struct program *prog, struct probe_env *env, struct diags *d)
{
	uint32_t max = prog->opts->max_probes, total = 0, widest_n = 0;
	struct node *ap = NULL;

	for (struct node *p = prog->root->body; p; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		for (struct node *a = p->args; a; a = a->next) {
			uint32_t n = expand_probe_count(prog, env, a);

			total += n;
			if (n > widest_n) {
				widest_n = n;
				ap = a;
			}
		}
	}
	if (total <= max)
		return 0;
	diag_error(d, ap ? ap->loc : (struct loc){ 0 },
		   arena_printf(
			   prog->arena,
			   "a multi-capable probe type attaches a whole wildcard with one link "
			   "(kprobe:%s instead of kfunc:%s); or raise the limit with --max-probes "
			   "N or BPFTRACE_MAX_PROBES, knowing that each probe costs attach and "
			   "detach time",
			   ap && ap->target ? ap->target : "PATTERN",
			   ap && ap->target ? ap->target : "PATTERN"),
		   "%u probes exceed the limit of %u%s%s", total, max, ap ? " (" : "",
		   ap ? arena_printf(prog->arena, "%s:%s matches %u)", ap->provider, ap->target,
				     ap->nmatches)
		      : "");
	return -E2BIG;
}

/* Nothing matches ap: an error, or a warning that it is skipped. err: the type's reason. */
static void expand_nomatch(struct expand_ctx *ctx, struct node *ap, const struct probe_type *pt,
			   const struct probe_err *err, bool skipped)
{
	struct arena *a = ctx->prog->arena;
	const char *hint =
		err->hint[0]
			? err->hint
			: arena_printf(a, "list what exists with: aotrace -l '%s:*'", pt->name);
	/* The probe type may know better why nothing matched. */
	const char *msg = err->msg[0] ? arena_strdup(a, err->msg)
				      : arena_printf(a, "no %s matches '%s'", pt->name, ap->target);

	if (skipped)
		diag_warn(ctx->d, ap->loc, "--missing-probes=error makes this an error",
			  "%s; skipping it", msg);
	else
		diag_error(ctx->d, ap->loc, hint, "%s", msg);
}

/*
 * What bpftrace 0.27 does with an attach point that matches nothing when compiling: the policy
 * the command line, environment or config block set, else error (its default). aotrace's own
 * default, warn, is for an object run on another host (runtime/attach.c).
 */
static enum aot_missing_policy expand_policy(const struct program *prog)
{
	if (prog->opts->missing_set || prog->meta->settings[AOT_SET_MISSING])
		return prog->opts->missing;
	return AOT_MISSING_ERROR;
}

/* Keeps why an attach point matched nothing, for expand_probes to report. */
static int expand_keep_empty(struct expand_ctx *ctx, struct node *ap, const struct probe_type *pt,
			     const struct probe_err *err)
{
	struct expand_empty *e = arena_alloc(ctx->prog->arena, sizeof(*e));

	if (!e)
		return -ENOMEM;
	*e = (struct expand_empty){ .ap = ap, .pt = pt, .err = *err };
	*ctx->tail = e;
	ctx->tail = &e->next;
	return 0;
}

/*
 * $1..$N in an attach point (uprobe:$1:malloc, tracepoint:syscalls:$2) are replaced by the
 * positional parameters' text before matching, as bpftrace does; $# by their number. An object
 * written with --emit-elf keeps the names given when compiling.
 */
static char *expand_params(struct expand_ctx *ctx, struct node *ap, const char *s)
{
	struct arena *a = ctx->prog->arena;
	char *out = arena_strdup(a, ""), *end;
	const char *p;

	while ((p = strchr(s, '$'))) {
		unsigned long n;

		out = arena_printf(a, "%s%.*s", out, (int)(p - s), s);
		if (p[1] == '#') {
			out = arena_printf(a, "%s%d", out, ctx->prog->opts->nparams);
			s = p + 2;
			continue;
		}
		n = strtoul(p + 1, &end, 10);
		if (end == p + 1 || !n) {
			diag_error(ctx->d, ap->loc, "parameters are written $1, $2, ... or $#",
				   "'$' in attach point '%s' is not a positional parameter",
				   ap->str);
			return NULL;
		}
		if (n > (unsigned long)ctx->prog->opts->nparams) {
			diag_error(ctx->d, ap->loc,
				   "positional parameters follow the program: aotrace -e PROGRAM "
				   "ARG1 ARG2 ..., or aotrace SCRIPT ARG1 ...",
				   "attach point '%s' uses $%lu, which is not given", ap->str, n);
			return NULL;
		}
		out = arena_printf(a, "%s%s", out, ctx->prog->opts->params[n - 1]);
		s = end;
	}
	return arena_printf(a, "%s%s", out, s);
}

static int expand_attach(struct expand_ctx *ctx, struct node *ap)
{
	struct arena *a = ctx->prog->arena;
	const struct probe_type *pt = probe_type_find(ap->provider);
	struct probe_err err = { { 0 }, { 0 } };
	char **targets = NULL, hint[512];
	size_t ntargets = 0;
	bool alias_ok;
	int ret;

	if (strchr(ap->str, '$')) {
		char *str = expand_params(ctx, ap, ap->str);

		if (!str)
			return -EINVAL;
		ast_attach_set(a, ap, str);
		pt = probe_type_find(ap->provider);
	}
	if (!pt) {
		expand_type_list(ctx, hint, sizeof(hint));
		diag_error(ctx->d, ap->loc, arena_printf(a, "probe types: %s", hint),
			   "unknown probe type '%s'", ap->provider);
		return -EINVAL;
	}
	if (!pt->has_target) {
		if (ap->target && *ap->target) {
			diag_error(ctx->d, ap->loc,
				   arena_printf(a, "write it as just %s", pt->name),
				   "%s takes no target", pt->name);
			return -EINVAL;
		}
		targets = arena_alloc(a, sizeof(char *));
		targets[0] = "";
		ntargets = 1;
	} else {
		if (!ap->target || !*ap->target) {
			diag_error(ctx->d, ap->loc, NULL, "%s probe needs a target", pt->name);
			return -EINVAL;
		}
		if (pt->alone && probe_has_wildcard(ap->target)) {
			diag_error(ctx->d, ap->loc,
				   arena_printf(a, "list them with: aotrace -l '%s:*'", pt->name),
				   "%s probe type does not support wildcards", pt->name);
			return -EINVAL;
		}
		ret = pt->match(ctx->env, a, ap->target, &targets, &ntargets, &err);
		/*
		 * A multi program resolves its pattern where it attaches, so an object for other
		 * hosts can be built here even when this kernel cannot list the targets.
		 */
		if (ret == -EOPNOTSUPP && ctx->prog->opts->emit_elf && pt->multi_section &&
		    !ctx->prog->opts->no_multi && probe_has_wildcard(ap->target)) {
			diag_warn(ctx->d, ap->loc, "the targets are found on the host that runs it",
				  "%s; compiling %s:%s unchecked", err.msg, pt->name, ap->target);
			return expand_multi(ctx, ap, pt, NULL, 0);
		}
		if (ret < 0) {
			diag_error(ctx->d, ap->loc, err.hint[0] ? err.hint : NULL, "%s", err.msg);
			return ret;
		}
		/*
		 * An object for other hosts keeps a function this host's library lacks: the
		 * host that runs it attaches it or skips it, per --missing-probes.
		 */
		if (ntargets == 0 && err.missing && ctx->prog->opts->emit_elf &&
		    ctx->prog->opts->missing != AOT_MISSING_ERROR) {
			if (ctx->prog->opts->missing == AOT_MISSING_WARN)
				diag_warn(ctx->d, ap->loc,
					  "the host that runs it attaches it or skips it, per "
					  "--missing-probes",
					  "%s; compiling it unchecked", err.msg);
			targets = arena_alloc(a, sizeof(char *));
			targets[0] = (char *)err.missing;
			ntargets = 1;
		}
		if (ntargets == 0) {
			/*
			 * Scripts list spellings for several kernels (lookup_fast.constprop.*): a
			 * wildcard that matches nothing here is skipped silently if another attach
			 * point of its probe matches, as bpftrace 0.27 does whatever the policy; a
			 * name that is not here, with missing_probes warn or ignore
			 * (expand_probes).
			 */
			if (probe_has_wildcard(ap->target) ||
			    expand_policy(ctx->prog) != AOT_MISSING_ERROR)
				return expand_keep_empty(ctx, ap, pt, &err);
			expand_nomatch(ctx, ap, pt, &err, false);
			return -ENOENT;
		}
	}

	/*
	 * A wildcard on a multi-capable type is one program for all its targets: one link
	 * where the kernel has multi links, one link per target of the same program where not.
	 */
	if (pt->multi_section && !ctx->prog->opts->no_multi && probe_has_wildcard(ap->target) &&
	    expand_multi_ok(ctx)) {
		return expand_multi(ctx, ap, pt, targets, ntargets);
	}

	ap->matches = arena_alloc(a, ntargets * sizeof(*ap->matches));
	ap->nmatches = (uint32_t)ntargets;
	alias_ok = expand_alias_ok(ctx, pt, ntargets);
	for (size_t i = 0; i < ntargets; i++) {
		struct probe_match *m = &ap->matches[i];

		m->pt = pt;
		m->alias_ok = alias_ok;
		m->func_const = expand_func_const(ctx, pt, alias_ok);
		m->target = targets[i];
		m->name = pt->probe_name   ? pt->probe_name(a, ap->target, targets[i])
			  : pt->has_target ? arena_printf(a, "%s:%s", pt->name, targets[i])
					   : arena_strdup(a, pt->name);
		m->section = pt->section(a, targets[i]);
		m->func = expand_func_name(ctx, m->name);
		ret = expand_add_meta(ctx, m, err.flags);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * A probe of a type that runs alone (iter, whose run reads its iterator and ends) is the only
 * one of its program but for BEGIN and END, as in bpftrace 0.27.
 */
static void expand_check_alone(struct program *prog, struct diags *d)
{
	const struct probe_match *alone = NULL;
	const struct node *other = NULL;

	for (const struct node *p = prog->root->body; p; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		for (const struct node *ap = p->args; ap; ap = ap->next)
			for (uint32_t i = 0; i < ap->nmatches; i++) {
				const struct probe_match *m = &ap->matches[i];

				if (m->pt->flags & (AOT_PROBE_BEGIN | AOT_PROBE_END))
					continue;
				if (!alone && m->pt->alone)
					alone = m;
				else if (!other)
					other = ap;
			}
	}
	if (alone && other)
		diag_error(d, other->loc, "run the other probes in another aotrace",
			   "%s cannot be mixed with other probes, not even another %s probe "
			   "(BEGIN and END are allowed)",
			   alone->name, alone->pt->name);
}

int expand_probes(struct program *prog, struct probe_env *env, struct diags *d)
{
	struct expand_ctx ctx = {
		.prog = prog, .env = env, .d = d, .cookies = -1, .cookie_helper = -1, .func_ip = -1
	};
	size_t errors = d->nerrors;
	enum aot_missing_policy policy = expand_policy(prog);

	for (struct node *p = prog->root->body; p; p = p->next) {
		size_t before = d->nerrors;
		uint32_t matched = 0;

		if (p->kind != NODE_PROBE)
			continue;
		ctx.empty = NULL;
		ctx.tail = &ctx.empty;
		for (struct node *ap = p->args; ap; ap = ap->next) {
			if (expand_attach(&ctx, ap) == -ENOMEM)
				return -ENOMEM;
			matched += ap->nmatches;
		}
		if (d->nerrors > before)
			continue;
		/*
		 * Beside a match, a wildcard that matched nothing is left out silently and a name
		 * with a warning (missing_probes = warn). A probe where nothing matches fails,
		 * or is left out, with a warning unless ignore, as in bpftrace 0.27.
		 */
		if (!matched && ctx.empty && policy == AOT_MISSING_ERROR)
			expand_nomatch(&ctx, ctx.empty->ap, ctx.empty->pt, &ctx.empty->err, false);
		else if (!matched && ctx.empty && policy == AOT_MISSING_WARN)
			diag_warn(d, p->args->loc, "it is left out: its block never runs",
				  "no attach point of this probe exists here");
		for (struct expand_empty *e = ctx.empty; matched && e; e = e->next)
			if (policy == AOT_MISSING_WARN && !probe_has_wildcard(e->ap->target))
				expand_nomatch(&ctx, e->ap, e->pt, &e->err, true);
	}
	if (d->nerrors == errors)
		expand_check_alone(prog, d);
	return d->nerrors > errors ? -EINVAL : 0;
}

int expand_list(struct probe_env *env, const struct node *root, bool verbose, FILE *out)
{
	struct arena *a = arena_new();
	const char *prev = NULL;

	if (!a)
		return -ENOMEM;
	for (const struct node *p = root->body; p; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		for (const struct node *ap = p->args; ap; ap = ap->next)
			for (uint32_t i = 0; i < ap->nmatches; i++)
				probe_list_match(env, a, &ap->matches[i], verbose, &prev, out);
	}
	arena_free(a);
	return 0;
}
