// SPDX-License-Identifier: GPL-2.0
/*
 * Sema of builtins (pid, comm, args, arg0, ...): an identifier is a builtin, a C constant of the
 * script's definitions, or unknown. A builtin's row (src/funcs.c) gives its type and what the
 * probe types must provide; the checks here are those of the builtins that need more.
 */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ctypes.h"
#include "meta.h"
#include "probe.h"
#include "sema_record.h"
#include "sema_types.h"

/* Does some match of the current probe provide one of these builtins? */
static bool sema_probe_lacks_any(struct sema_ctx *ctx, uint32_t has)
{
	for (struct node *ap = ctx->probe->args; ap; ap = ap->next)
		for (uint32_t i = 0; i < ap->nmatches; i++)
			if (ap->matches[i].pt->builtins & has)
				return true;
	return false;
}

static uint32_t sema_probe_name_size(struct sema_ctx *ctx)
{
	uint32_t size = 1;

	for (struct node *ap = ctx->probe->args; ap; ap = ap->next)
		for (uint32_t i = 0; i < ap->nmatches; i++) {
			const struct probe_match *m = &ap->matches[i];

			if (strlen(m->name) + 1 > size)
				size = (uint32_t)strlen(m->name) + 1;
			for (uint32_t j = 0; j < m->ntargets; j++)
				if (strlen(m->targets[j]) + 1 > size)
					size = (uint32_t)strlen(m->targets[j]) + 1;
			/* Targets unknown until run time: leave room for ordinary names. */
			if (m->is_multi && !m->ntargets && size < 64)
				size = 64;
		}
	/* A multi probe's names come from a map of AOT_PROBE_NAME_MAX-byte values at run time. */
	return size < AOT_PROBE_NAME_MAX ? size : AOT_PROBE_NAME_MAX;
}

/* probe: a string as long as the longest name of the probe's matches. */
void sema_bi_probe(struct sema_ctx *ctx, struct node *n)
{
	n->type = type_str(sema_probe_name_size(ctx));
}

/*
 * func: a user-space probe's function is a user symbol, resolved in the traced process. A probe
 * left out for matching nothing here (missing_probes) has no probe type to say so: its kprobe
 * or kfunc func stays a kernel symbol (xfsdist.bt's @name, also set to a ksym in BEGIN).
 */
void sema_bi_func(struct sema_ctx *ctx, struct node *n)
{
	bool matched = false;

	for (struct node *ap = ctx->probe->args; ap; ap = ap->next)
		matched |= ap->nmatches > 0;
	if (matched && !sema_probe_lacks(ctx, PB_USER))
		n->type = type_buf(AOT_K_USYM, 16, 0);
	else if (sema_probe_lacks_any(ctx, PB_USER))
		sema_error(ctx, n->loc, "split the probe into kernel and user parts",
			   "'func' cannot be both a kernel and a user symbol");
}

/*
 * ctx: the program's context, typed by the probe type (struct pt_regs * in kprobes and
 * uprobes, struct bpf_perf_event_data * in perf event probes) or by its target (struct
 * bpf_iter__task * in iter:task); the same in every match.
 */
void sema_bi_ctx(struct sema_ctx *ctx, struct node *n)
{
	const char *type = NULL;

	for (struct node *ap = ctx->probe->args; ap; ap = ap->next) {
		for (uint32_t i = 0; i < ap->nmatches; i++) {
			const struct probe_type *pt = ap->matches[i].pt;
			const char *t = pt->ctx_type_of
						? pt->ctx_type_of(ctx->a, ap->matches[i].target)
						: pt->ctx_type;

			if (!t) {
				sema_error(ctx, n->loc,
					   pt->builtins & PB_ARGS
						   ? "read its fields with args->name"
						   : NULL,
					   "'ctx' is not available in %s probes", pt->name);
				return;
			}
			if (type && strcmp(type, t)) {
				sema_error(ctx, n->loc, "split the probe",
					   "'ctx' cannot be both %s and %s", type, t);
				return;
			}
			type = t;
		}
	}
	if (type)
		sema_record_ctx(ctx, n, type);
}

void sema_bi_elapsed(struct sema_ctx *ctx, struct node *n)
{
	(void)n;
	ctx->prog->uses_elapsed = true;
}

/*
 * arg0..argN, sarg0..sargN and retval are context fields the probe type describes (registers,
 * trampoline slots): they become args->name of a hidden arg, and codegen reads them like any
 * field. The row's id stays on the node: the next walk knows it from that.
 */
void sema_bi_hidden_arg(struct sema_ctx *ctx, struct node *n)
{
	n->kind = NODE_FIELD;
	n->is_arrow = true;
	n->lhs = node_new(ctx->a, NODE_BUILTIN, n->loc);
	n->lhs->name = arena_strdup(ctx->a, "args");
	n->lhs->func = FN_ARGS;
	sema_args_field(ctx, n, true);
}

/*
 * dw_ustack, bpftrace 0.26's DWARF unwinding of user stacks (an unstable feature there): not in
 * aotrace, which says so and names what it has instead.
 */
void sema_dw_ustack(struct sema_ctx *ctx, struct node *n)
{
	sema_error(
		ctx, n->loc,
		"ustack unwinds with frame pointers; build the program with "
		"-fno-omit-frame-pointer, or use perf record --call-graph dwarf",
		"dw_ustack (DWARF unwinding of user stacks, unstable in bpftrace 0.26 and later) "
		"is not supported by aotrace");
}

void sema_builtin(struct sema_ctx *ctx, struct node *n)
{
	enum func id = func_find(n->name, FUNC_BARE);
	const struct func_def *f = &func_defs[id];

	if (!id && sema_record_ident(ctx, n))
		return;
	if (!id && !strcmp(n->name, "dw_ustack")) {
		sema_dw_ustack(ctx, n);
		return;
	}
	if (!id) {
		/* An upper-case name is most likely a C macro from a header this host lacks. */
		bool macro_like =
			strspn(n->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(n->name);

		sema_error(
			ctx, n->loc,
			macro_like
				? arena_printf(
					  ctx->a,
					  "if it is a macro from kernel headers (not installed here), define it in the script: #define %s ...",
					  n->name)
				: "builtins: pid tid uid gid nsecs cpu comm probe args ...",
			"unknown identifier '%s'", n->name);
		return;
	}
	n->func = id;
	n->type = f->type;
	if (sema_func_allowed(ctx, n, f) && f->check)
		f->check(ctx, n);
}

static struct probe_arg *sema_find_arg(struct probe_match *m, const char *name, bool hidden)
{
	for (uint32_t i = 0; i < m->nargs; i++)
		if (m->args[i].hidden == hidden && strcmp(m->args[i].name, name) == 0)
			return &m->args[i];
	return NULL;
}

static const char *sema_arg_names(struct sema_ctx *ctx, struct probe_match *m)
{
	char *s = arena_strdup(ctx->a, "");

	for (uint32_t i = 0; i < m->nargs; i++)
		if (!m->args[i].hidden)
			s = arena_printf(ctx->a, "%s%s%s", s, *s ? ", " : "", m->args[i].name);
	return s;
}

/* The arguments of a match, asked of its probe type on first use; false (reported) if that failed.
 */
static bool sema_match_args(struct sema_ctx *ctx, struct probe_match *m, struct node *n)
{
	struct probe_err err = { { 0 }, { 0 } };

	if (!m->args && m->pt->args &&
	    m->pt->args(ctx->env, ctx->a, m->target, &m->args, &m->nargs, &err)) {
		sema_error(ctx, n->loc, err.hint[0] ? err.hint : NULL, "%s", err.msg);
		return false;
	}
	return true;
}

/*
 * args as a value (print(args), $a = args, @m[args]), as in bpftrace 0.19 and later: a record of
 * the probe's fields, each read as args.name reads it. The node becomes that record.
 */
void sema_bi_args(struct sema_ctx *ctx, struct node *n)
{
	struct probe_match *m = ctx->probe->args->nmatches ? &ctx->probe->args->matches[0] : NULL;
	struct node **tail = &n->args;

	if (!m || !sema_match_args(ctx, m, n))
		return;
	n->args = NULL;
	for (uint32_t i = 0; i < m->nargs; i++) {
		struct node *e, *f;

		if (m->args[i].hidden)
			continue;
		e = node_new(ctx->a, NODE_NAMED, n->loc);
		e->name = m->args[i].name;
		f = e->lhs = node_new(ctx->a, NODE_FIELD, n->loc);
		f->name = m->args[i].name;
		f->is_arrow = true;
		f->lhs = node_new(ctx->a, NODE_BUILTIN, n->loc);
		f->lhs->name = n->name;
		*tail = e;
		tail = &e->next;
	}
	if (!n->args) {
		sema_error(ctx, n->loc, NULL, "%s has no arguments", m->name);
		return;
	}
	n->kind = NODE_TUPLE;
	n->func = FN_NONE;
	sema_expr(ctx, n);
}

/* args->name: the field must exist, with one type, in every match of the probe. */
/*
 * A tracepoint's pointer field (void * from the format file): its pointee from the declaration,
 * "const char *const * argv" read as char **; void where a name is not known.
 */
static void sema_arg_pointee(struct sema_ctx *ctx, const struct probe_arg *arg, struct type *t)
{
	const char *missing, *d = arg->decl;
	char *text = arena_alloc(ctx->a, arg->decl ? strlen(arg->decl) + 1 : 1), *o = text;
	size_t len = arg->decl ? strlen(arg->decl) - strlen(arg->name) : 0;
	struct type pt;

	if (t->kind != TYPE_PTR || t->pointee || t->btf_id || !len)
		return;
	/* the words before the name, but const and volatile */
	while (d < arg->decl + len) {
		size_t w = strcspn(d, " *");

		if (w && !(w == 5 && !strncmp(d, "const", 5)) &&
		    !(w == 8 && !strncmp(d, "volatile", 8)))
			o += sprintf(o, "%s%.*s", o == text ? "" : " ", (int)w, d);
		d += w;
		for (; *d == '*' || *d == ' '; d++)
			if (*d == '*')
				*o++ = '*';
	}
	*o = 0;
	if (ctypes_parse(ctypes_get(ctx->prog, ctx->env), text, &pt, &missing) ||
	    pt.kind != TYPE_PTR)
		return;
	pt.is_user = t->is_user;
	*t = pt;
}

void sema_args_field(struct sema_ctx *ctx, struct node *n, bool hidden)
{
	struct probe_arg *first = NULL;

	ctx->reads_args = true;
	/* bpftrace 0.25 deleted sargN; aotrace keeps it for the scripts of 0.17 */
	if (n->func == FN_SARG && ctx->report)
		diag_warn(ctx->d, n->loc,
			  arena_printf(ctx->a, "write *(uint64 *)(reg(\"sp\") + %lu)",
				       8 * (strtoul(n->name + 4, NULL, 10) + 1)),
			  "%s was removed in bpftrace 0.25", n->name);

	for (struct node *ap = ctx->probe->args; ap; ap = ap->next) {
		for (uint32_t i = 0; i < ap->nmatches; i++) {
			struct probe_match *m = &ap->matches[i];
			struct probe_arg *arg;

			if (!sema_match_args(ctx, m, n))
				return;
			arg = sema_find_arg(m, n->name, hidden);
			if (!arg && hidden) {
				sema_error(ctx, n->loc, NULL, "%s has no %s", m->name, n->name);
				return;
			}
			if (!arg) {
				sema_error(ctx, n->loc,
					   arena_printf(ctx->a, "its fields: %s",
							sema_arg_names(ctx, m)),
					   "%s has no field '%s'", m->name, n->name);
				return;
			}
			if (!first) {
				first = arg;
			} else if (!type_equal(&first->type, &arg->type) ||
				   first->is_dataloc != arg->is_dataloc) {
				sema_error(
					ctx, n->loc, "split the probe so each part has one type",
					"field '%s' has different types in the matched probes (%s in %s)",
					n->name, type_name(ctx->a, &arg->type), m->name);
				return;
			}
		}
	}
	if (!first)
		return;
	n->field_off = first->offset;
	n->is_user = first->is_user_ptr;
	n->type = first->is_dataloc ? type_str(ctx->prog->opts->strlen_max) : first->type;
	sema_arg_pointee(ctx, first, &n->type);
	/*
	 * In user-space probes, arg0..N and retval point into the traced process. The address
	 * space travels with the value into variables and maps: str($p), str(@m[tid]).
	 */
	if (first->hidden && !sema_probe_lacks(ctx, PB_USER))
		n->is_user = true;
	if (n->is_user && n->type.kind != TYPE_STR)
		n->type.is_user = true;
}
