// SPDX-License-Identifier: GPL-2.0
/*
 * The builtins and functions of the language as data: name, resolved id, type, and what the
 * probe type must provide. Sema looks names up here; codegen has its own table keyed by id.
 * Then the sema of identifiers: builtins, the hidden arguments (arg0, retval), args fields.
 */
#include <string.h>

#include "arena.h"
#include "meta.h"
#include "probe.h"
#include "sema_record.h"
#include "sema_types.h"

/* clang-format would spread each one-line initialiser over four lines. */
/* clang-format off */
#define U64 { .kind = TYPE_INT, .size = 8 }
#define S64 { .kind = TYPE_INT, .size = 8, .is_signed = true }

#define RENDERED(k, n) { .kind = TYPE_BUF, .size = n, .render = k }
/* clang-format on */

static const struct sema_builtin builtins[] = {
	{ "pid", BI_PID, U64, 0, false },
	{ "tid", BI_TID, U64, 0, false },
	{ "uid", BI_UID, U64, 0, false },
	{ "gid", BI_GID, U64, 0, false },
	{ "nsecs", BI_NSECS, U64, 0, false },
	{ "cpu", BI_CPU, U64, 0, false },
	{ "comm", BI_COMM, { .kind = TYPE_STR, .size = 16 }, 0, false },
	{ "probe", BI_PROBE, { .kind = TYPE_STR }, 0, false },
	{ "args", BI_ARGS, { .kind = TYPE_NONE }, PB_ARGS, false },
	{ "elapsed", BI_ELAPSED, U64, 0, false },
	{ "retval", BI_RETVAL, S64, PB_RETVAL, false },
	/* a kernel symbol; sema makes it a user one (usym) in user-space probes */
	{ "func", BI_FUNC, RENDERED(AOT_K_KSYM, 8), PB_FUNC, false },
	{ "curtask", BI_CURTASK, U64, 0, false },
	{ "rand", BI_RAND, U64, 0, false },
	{ "cgroup", BI_CGROUP, U64, 0, false },
	{ "kstack", BI_KSTACK, RENDERED(AOT_K_KSTACK, 8), 0, false },
	{ "ustack", BI_USTACK, RENDERED(AOT_K_USTACK, 16), 0, false },
	{ "username", BI_USERNAME, RENDERED(AOT_K_USERNAME, 8), 0, false },
};

static const struct sema_func funcs[] = {
	{ "count", FN_COUNT, 0, 0, false },
	{ "sum", FN_SUM, 1, 1, false },
	{ "min", FN_MIN, 1, 1, false },
	{ "max", FN_MAX, 1, 1, false },
	{ "avg", FN_AVG, 1, 1, false },
	{ "stats", FN_STATS, 1, 1, false },
	{ "hist", FN_HIST, 1, 1, false },
	{ "lhist", FN_LHIST, 4, 4, false },
	{ "printf", FN_PRINTF, 1, 64, false },
	{ "exit", FN_EXIT, 0, 1, false },
	{ "str", FN_STR, 1, 2, false },
	{ "delete", FN_DELETE, 1, 1, false },
	{ "clear", FN_CLEAR, 1, 1, false },
	{ "zero", FN_ZERO, 1, 1, false },
	{ "print", FN_PRINT, 1, 3, false },
	{ "time", FN_TIME, 0, 1, false },
	{ "strftime", FN_STRFTIME, 2, 2, false },
	{ "buf", FN_BUF, 1, 2, false },
	{ "ksym", FN_KSYM, 1, 1, false },
	{ "usym", FN_USYM, 1, 1, false },
	{ "kaddr", FN_KADDR, 1, 1, false },
	{ "uaddr", FN_UADDR, 1, 1, false },
	{ "ntop", FN_NTOP, 1, 2, false },
	{ "join", FN_JOIN, 1, 2, false },
	{ "system", FN_SYSTEM, 1, 64, false },
	{ "cat", FN_CAT, 1, 64, false },
	{ "signal", FN_SIGNAL, 1, 1, false },
	{ "override", FN_OVERRIDE, 1, 1, false },
	{ "path", FN_PATH, 1, 1, false },
	{ "macaddr", FN_MACADDR, 1, 1, false },
	{ "cgroupid", FN_CGROUPID, 1, 1, false },
	{ "strncmp", FN_STRNCMP, 3, 3, false },
	{ "sizeof", FN_SIZEOF, 0, 1, false },
	{ "offsetof", FN_OFFSETOF, 2, 2, false },
	{ "reg", FN_REG, 1, 1, false },
	{ "kptr", FN_KPTR, 1, 1, false },
	{ "uptr", FN_UPTR, 1, 1, false },
	{ "kstack", FN_KSTACK, 0, 2, false },
	{ "ustack", FN_USTACK, 0, 2, false },
	{ "bswap", FN_BSWAP, 1, 1, false },
	{ "cgroup_path", FN_CGROUP_PATH, 1, 2, false },
};

const struct sema_builtin *sema_builtin_find(const char *name)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

const struct sema_func *sema_func_find(const char *name)
{
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (strcmp(funcs[i].name, name) == 0)
			return &funcs[i];
	return NULL;
}

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

/*
 * arg0..argN and retval are context fields the probe type describes (registers, trampoline
 * slots): they become args->name of a hidden arg, and codegen reads them like any field.
 */
static bool sema_hidden_arg(struct sema_ctx *ctx, struct node *n)
{
	const struct probe_type *lacking;
	uint32_t needs;
	const char *num = n->name + (strncmp(n->name, "sarg", 4) ? 3 : 4);
	size_t digits = strspn(num, "0123456789");

	if ((!strncmp(n->name, "arg", 3) || !strncmp(n->name, "sarg", 4)) && digits && !num[digits])
		needs = PB_ARGN;
	else if (strcmp(n->name, "retval") == 0)
		needs = PB_RETVAL;
	else
		return false;
	if ((lacking = sema_probe_lacks(ctx, needs))) {
		sema_error(ctx, n->loc, NULL, "'%s' is not available in %s probes", n->name,
			   lacking->name);
		return true;
	}
	n->kind = NODE_FIELD;
	n->builtin = needs == PB_ARGN ? BI_ARG : BI_RETVAL; /* remembered for the next walk */
	n->is_arrow = true;
	n->lhs = node_new(ctx->a, NODE_BUILTIN, n->loc);
	n->lhs->name = arena_strdup(ctx->a, "args");
	n->lhs->builtin = BI_ARGS;
	sema_args_field(ctx, n, true);
	return true;
}

void sema_builtin(struct sema_ctx *ctx, struct node *n)
{
	const struct sema_builtin *b;
	const struct probe_type *lacking;

	if (sema_hidden_arg(ctx, n))
		return;
	b = sema_builtin_find(n->name);

	if (!b && sema_record_ident(ctx, n))
		return;
	if (!b) {
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
	n->builtin = b->id;
	n->type = b->type;
	if (b->id == BI_CURTASK)
		sema_record_curtask(ctx, n);
	if (b->unsupported) {
		sema_unsupported(ctx, n, arena_printf(ctx->a, "the builtin '%s'", n->name));
		return;
	}
	if (b->needs && (lacking = sema_probe_lacks(ctx, b->needs))) {
		sema_error(ctx, n->loc, NULL, "'%s' is not available in %s probes", n->name,
			   lacking->name);
		return;
	}
	switch (b->id) {
	case BI_PROBE:
		n->type = type_str(sema_probe_name_size(ctx));
		break;
	case BI_FUNC:
		/* a user-space probe's function is a user symbol, resolved in the traced process */
		if (!sema_probe_lacks(ctx, PB_USER))
			n->type = type_buf(AOT_K_USYM, 16, 0);
		else if (sema_probe_lacks_any(ctx, PB_USER))
			sema_error(ctx, n->loc, "split the probe into kernel and user parts",
				   "'func' cannot be both a kernel and a user symbol");
		break;
	case BI_KSTACK:
		ctx->prog->uses_kstack = true;
		break;
	case BI_USTACK:
		ctx->prog->uses_ustack = true;
		break;
	case BI_ELAPSED:
		ctx->prog->uses_elapsed = true;
		break;
	default:
		break;
	}
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

/* args->name: the field must exist, with one type, in every match of the probe. */
void sema_args_field(struct sema_ctx *ctx, struct node *n, bool hidden)
{
	struct probe_arg *first = NULL;

	for (struct node *ap = ctx->probe->args; ap; ap = ap->next) {
		for (uint32_t i = 0; i < ap->nmatches; i++) {
			struct probe_match *m = &ap->matches[i];
			struct probe_err err = { { 0 }, { 0 } };
			struct probe_arg *arg;

			if (!m->args && m->pt->args &&
			    m->pt->args(ctx->env, ctx->a, m->target, &m->args, &m->nargs, &err)) {
				sema_error(ctx, n->loc, err.hint[0] ? err.hint : NULL, "%s",
					   err.msg);
				return;
			}
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
	/*
	 * In user-space probes, arg0..N and retval point into the traced process. The address
	 * space travels with the value into variables and maps: str($p), str(@m[tid]).
	 */
	if (first->hidden && !sema_probe_lacks(ctx, PB_USER))
		n->is_user = true;
	if (n->is_user && n->type.kind != TYPE_STR)
		n->type.is_user = true;
}
