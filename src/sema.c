// SPDX-License-Identifier: GPL-2.0
/*
 * The semantic pass: types every expression, resolves builtins, functions, maps and variables,
 * and checks what the probe types provide. It walks the program twice: the first walk only
 * learns the types of maps (a map may be read in a probe above the one that assigns it), the
 * second reports. Lowering (sema_lower.c) then makes conversions explicit and lays out records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "meta.h"
#include "probe.h"
#include "sema_record.h"
#include "sema_types.h"

static void sema_block(struct sema_ctx *ctx, struct node *n);

void sema_unsupported(struct sema_ctx *ctx, struct node *n, const char *what)
{
	sema_error(ctx, n->loc, "aotrace compiles a part of the language so far; see aotrace(8)",
		   "%s is not supported yet", what);
}

struct map_info *sema_map(struct sema_ctx *ctx, struct node *n)
{
	struct map_info **pp = &ctx->prog->maps, *m;

	for (; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->name, n->name) == 0)
			return *pp;
	m = arena_alloc(ctx->a, sizeof(*m));
	m->name = arena_strdup(ctx->a, n->name);
	m->elf_name = arena_printf(ctx->a, "AT_%s", n->name + 1);
	m->nkeys = UINT32_MAX; /* not seen with keys yet */
	m->first_use = n->loc;
	*pp = m;
	ctx->prog->nmaps++;
	return m;
}

static struct var_info *sema_var(struct sema_ctx *ctx, const char *name, bool create)
{
	struct var_info **pp = &ctx->probe->vars, *v;

	for (; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->name, name) == 0)
			return *pp;
	if (!create)
		return NULL;
	v = arena_alloc(ctx->a, sizeof(*v));
	v->name = arena_strdup(ctx->a, name);
	*pp = v;
	return v;
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

const struct probe_type *sema_probe_lacks(struct sema_ctx *ctx, uint32_t needs)
{
	for (struct node *ap = ctx->probe->args; ap; ap = ap->next)
		for (uint32_t i = 0; i < ap->nmatches; i++)
			if ((ap->matches[i].pt->builtins & needs) != needs)
				return ap->matches[i].pt;
	return NULL;
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

static void sema_args_field(struct sema_ctx *ctx, struct node *n, bool hidden);

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

static void sema_builtin(struct sema_ctx *ctx, struct node *n)
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

static bool sema_is_number(const char *s)
{
	char *end;

	strtoll(s, &end, 0);
	return *s && !*end;
}

/*
 * An object compiled for later (--emit-elf) reads $N and $# where it runs, from
 * AOT_PARAMS_MAP (codegen/cg_params.c, src/common/meta.h). $N is an int there unless it is used
 * as a string: str($N), compared with a string, or given a non-numeric value when compiling.
 */
static void sema_posparam_late(struct sema_ctx *ctx, struct node *n)
{
	if (n->is_count) {
		n->type = type_int(8, true);
		return;
	}
	if (n->num == 0 || n->num > 1000) {
		sema_error(ctx, n->loc, "they are $1, $2, ... up to $1000",
			   "there is no positional parameter $%llu", (unsigned long long)n->num);
		n->type = type_int(8, true);
		return;
	}
	if (n->num > ctx->prog->meta->nparams)
		ctx->prog->meta->nparams = (uint32_t)n->num;
	if (n->type.kind == TYPE_STR)
		return;
	if (n->num <= (uint64_t)ctx->prog->opts->nparams &&
	    !sema_is_number(ctx->prog->opts->params[n->num - 1]))
		n->type = type_str(AOT_PARAM_STR_MAX);
	else
		n->type = type_int(8, true);
}

void sema_posparam_as_str(struct sema_ctx *ctx, struct node *n)
{
	if (ctx->prog->opts->emit_elf && n->kind == NODE_POSPARAM && !n->is_count)
		n->type = type_str(AOT_PARAM_STR_MAX);
}

/* $N and $# become literals when the program runs at once: they are known when compiling. */
static void sema_posparam(struct sema_ctx *ctx, struct node *n)
{
	const char *val;
	char *end;
	long long v;

	if (ctx->prog->opts->emit_elf) {
		sema_posparam_late(ctx, n);
		return;
	}
	if (n->is_count) {
		n->kind = NODE_INT;
		n->num = (uint64_t)ctx->prog->opts->nparams;
		n->type = type_int(8, true);
		return;
	}
	if (n->num == 0 || n->num > (uint64_t)ctx->prog->opts->nparams) {
		sema_error(
			ctx, n->loc,
			"pass positional parameters after the script: aotrace script.bt ARG1 ARG2",
			"positional parameter $%llu was not given", (unsigned long long)n->num);
		n->type = type_int(8, true);
		return;
	}
	if (n->num > ctx->prog->meta->nparams)
		ctx->prog->meta->nparams = (uint32_t)n->num;
	val = ctx->prog->opts->params[n->num - 1];
	v = strtoll(val, &end, 0);
	if (*val && !*end) {
		n->kind = NODE_INT;
		n->num = (uint64_t)v;
		n->type = type_int(8, true);
	} else {
		n->kind = NODE_STR;
		n->str = arena_strdup(ctx->a, val);
		n->str_len = strlen(val);
		n->type = type_str((uint32_t)n->str_len + 1);
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
static void sema_args_field(struct sema_ctx *ctx, struct node *n, bool hidden)
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

/* $t.N: element N of a tuple; codegen reads it at field_off. */
static void sema_tuple_field(struct sema_ctx *ctx, struct node *n)
{
	const struct type *t = &n->lhs->type;
	char *end;
	unsigned long i = strtoul(n->name, &end, 10);

	if (n->is_arrow || !*n->name || *end || i >= t->nelems) {
		sema_error(ctx, n->loc,
			   arena_printf(ctx->a, "its elements are .0 to .%u", t->nelems - 1),
			   "%s has no element '%s'", type_name(ctx->a, t), n->name);
		return;
	}
	n->idx = (uint32_t)i;
	n->field_off = t->offsets[i];
	n->type = t->elems[i];
}

static void sema_field(struct sema_ctx *ctx, struct node *n)
{
	if (n->builtin == BI_ARG || n->builtin == BI_RETVAL) {
		sema_args_field(ctx, n, true);
		return;
	}
	if (n->lhs->kind == NODE_BUILTIN && strcmp(n->lhs->name, "args") == 0) {
		const struct probe_type *lacking;

		n->lhs->builtin = BI_ARGS;
		if ((lacking = sema_probe_lacks(ctx, PB_ARGS))) {
			sema_error(ctx, n->lhs->loc, NULL, "'args' is not available in %s probes",
				   lacking->name);
			return;
		}
		if (!n->is_arrow)
			sema_error(ctx, n->loc, arena_printf(ctx->a, "write args->%s", n->name),
				   "args is a pointer: use '->'");
		sema_args_field(ctx, n, false);
		return;
	}
	sema_expr(ctx, n->lhs);
	if (n->lhs->type.kind == TYPE_TUPLE) {
		sema_tuple_field(ctx, n);
		return;
	}
	sema_record_field(ctx, n);
}

bool sema_is_int(const struct type *t)
{
	return t->kind == TYPE_INT || t->kind == TYPE_BOOL || t->kind == TYPE_PTR;
}

void sema_need_int(struct sema_ctx *ctx, struct node *n, const char *what)
{
	if (n->type.kind != TYPE_NONE && !sema_is_int(&n->type))
		sema_error(ctx, n->loc, NULL, "%s needs an integer, not %s", what,
			   type_name(ctx->a, &n->type));
}

static const char *sema_op_name(struct arena *a, int op)
{
	static const char *const names[] = { "==", "!=", "<=", ">=", "&&",
					     "||", "<<", ">>", "++", "--" };

	if (op >= OP_EQ && op <= OP_DEC)
		return names[op - OP_EQ];
	return arena_printf(a, "%c", op);
}

static void sema_binop(struct sema_ctx *ctx, struct node *n)
{
	const struct type *l = &n->lhs->type, *r = &n->rhs->type;

	sema_expr(ctx, n->lhs);
	sema_expr(ctx, n->rhs);
	n->type = type_int(8, true);
	if (l->kind == TYPE_NONE || r->kind == TYPE_NONE)
		return;
	/* $N == "str" in an object that reads $N where it runs: $N is a string */
	if (r->kind == TYPE_STR)
		sema_posparam_as_str(ctx, n->lhs);
	if (l->kind == TYPE_STR)
		sema_posparam_as_str(ctx, n->rhs);
	if (l->kind == TYPE_STR || r->kind == TYPE_STR) {
		if ((n->op == OP_EQ || n->op == OP_NE) && l->kind == r->kind)
			return;
		sema_error(ctx, n->loc,
			   l->kind == r->kind ? "strings compare with == and != only" : NULL,
			   "operator '%s' cannot take %s and %s", sema_op_name(ctx->a, n->op),
			   type_name(ctx->a, l), type_name(ctx->a, r));
		return;
	}
	if (!sema_is_int(l) || !sema_is_int(r)) {
		sema_error(ctx, n->loc, NULL, "operator '%s' cannot take %s and %s",
			   sema_op_name(ctx->a, n->op), type_name(ctx->a, l), type_name(ctx->a, r));
		return;
	}
	switch (n->op) {
	case OP_EQ:
	case OP_NE:
	case '<':
	case '>':
	case OP_LE:
	case OP_GE:
	case OP_AND:
	case OP_OR:
		return;
	default:
		if (l->kind == TYPE_PTR || r->kind == TYPE_PTR) {
			sema_record_ptr_arith(ctx, n);
			return;
		}
		/* As in C and bpftrace: unsigned wins. */
		n->type.is_signed = l->is_signed && r->is_signed;
	}
}

static void sema_unop(struct sema_ctx *ctx, struct node *n)
{
	sema_expr(ctx, n->lhs);
	n->type = type_int(8, true);
	if (n->op == '*' || n->op == '&') {
		sema_record_unop(ctx, n);
		return;
	}
	switch (n->op) {
	case '!':
	case '~':
	case '-':
		sema_need_int(ctx, n->lhs, arena_printf(ctx->a, "operator '%c'", n->op));
		if (n->op == '~')
			n->type.is_signed = n->lhs->type.is_signed;
		return;
	case OP_INC:
	case OP_DEC:
		sema_unsupported(ctx, n,
				 "++ and -- inside an expression (use them as a statement)");
		return;
	default:
		sema_unsupported(ctx, n,
				 arena_printf(ctx->a, "the unary operator '%s'",
					      sema_op_name(ctx->a, n->op)));
	}
}

static void sema_ternary(struct sema_ctx *ctx, struct node *n)
{
	sema_expr(ctx, n->cond);
	sema_need_int(ctx, n->cond, "a condition");
	sema_expr(ctx, n->lhs);
	sema_expr(ctx, n->rhs);
	if (n->lhs->type.kind == TYPE_NONE || n->rhs->type.kind == TYPE_NONE)
		return;
	n->type = type_storage(ctx->a, &n->lhs->type);
	if (!type_merge(ctx->a, &n->type, &n->rhs->type) || n->type.kind == TYPE_TUPLE) {
		sema_error(ctx, n->loc, NULL, "the branches of ?: have different types: %s and %s",
			   type_name(ctx->a, &n->lhs->type), type_name(ctx->a, &n->rhs->type));
		return;
	}
	if (n->type.kind == TYPE_INT)
		n->type.is_signed = n->lhs->type.is_signed && n->rhs->type.is_signed;
}

static const struct {
	const char *name;
	uint32_t size;
	bool is_signed;
} int_casts[] = {
	{ "int8", 1, true },	{ "int16", 2, true },	{ "int32", 4, true },
	{ "int64", 8, true },	{ "uint8", 1, false },	{ "uint16", 2, false },
	{ "uint32", 4, false }, { "uint64", 8, false },
};

static void sema_cast(struct sema_ctx *ctx, struct node *n)
{
	sema_expr(ctx, n->lhs);
	if (sema_record_cast(ctx, n))
		return;
	for (size_t i = 0; i < sizeof(int_casts) / sizeof(int_casts[0]); i++) {
		if (strcmp(n->cast_type, int_casts[i].name) == 0) {
			sema_need_int(ctx, n->lhs, "an integer cast");
			n->type = type_int(int_casts[i].size, int_casts[i].is_signed);
			return;
		}
	}
	sema_unsupported(ctx, n, arena_printf(ctx->a, "a cast to '%s'", n->cast_type));
}

static void sema_tuple(struct sema_ctx *ctx, struct node *n)
{
	struct type *elems;
	uint32_t count = 0, i = 0;

	for (struct node *e = n->args; e; e = e->next) {
		sema_expr(ctx, e);
		if (e->type.kind == TYPE_NONE)
			return;
		count++;
	}
	elems = arena_alloc(ctx->a, count * sizeof(*elems));
	for (struct node *e = n->args; e; e = e->next) {
		if (type_is_agg(&e->type) || e->type.kind == TYPE_VOID) {
			sema_error(ctx, e->loc, NULL, "a tuple cannot hold %s",
				   type_name(ctx->a, &e->type));
			return;
		}
		elems[i++] = type_storage(ctx->a, &e->type);
	}
	n->type = type_tuple(ctx->a, elems, count);
}

/* The type of a map's keys as one value: the key itself, or a tuple of several. */
static struct type sema_key_type(struct sema_ctx *ctx, struct node *keys, uint32_t *nkeys)
{
	struct type *elems;
	uint32_t n = 0, i = 0;

	for (struct node *k = keys; k; k = k->next)
		n++;
	*nkeys = n;
	if (n == 0)
		return (struct type){ .kind = TYPE_NONE };
	if (n == 1)
		return type_storage(ctx->a, &keys->type);
	elems = arena_alloc(ctx->a, n * sizeof(*elems));
	for (struct node *k = keys; k; k = k->next)
		elems[i++] = type_storage(ctx->a, &k->type);
	return type_tuple(ctx->a, elems, n);
}

void sema_map_keys(struct sema_ctx *ctx, struct node *n)
{
	struct map_info *m = sema_map(ctx, n);
	struct type key;
	uint32_t nkeys;

	n->map = m;
	for (struct node *k = n->args; k; k = k->next) {
		sema_expr(ctx, k);
		if (k->type.kind == TYPE_NONE)
			return;
		if (k->type.kind != TYPE_INT && k->type.kind != TYPE_PTR &&
		    k->type.kind != TYPE_STR && k->type.kind != TYPE_TUPLE &&
		    k->type.kind != TYPE_BUF && k->type.kind != TYPE_BOOL) {
			sema_error(ctx, k->loc, NULL, "a map key cannot be %s",
				   type_name(ctx->a, &k->type));
			return;
		}
	}
	key = sema_key_type(ctx, n->args, &nkeys);
	if (m->nkeys == UINT32_MAX) {
		m->nkeys = nkeys;
		m->key = key;
		return;
	}
	if (m->nkeys != nkeys) {
		sema_error(ctx, n->loc,
			   arena_printf(ctx->a, "%s was first used with %u key%s at line %u",
					m->name, m->nkeys, m->nkeys == 1 ? "" : "s",
					m->first_use.line),
			   "%s used with %u key%s", m->name, nkeys, nkeys == 1 ? "" : "s");
		return;
	}
	if (nkeys && !type_merge(ctx->a, &m->key, &key))
		sema_error(ctx, n->loc, NULL, "%s has keys of type %s, not %s", m->name,
			   type_name(ctx->a, &m->key), type_name(ctx->a, &key));
}

/* @x read as a value. */
static void sema_map_read(struct sema_ctx *ctx, struct node *n)
{
	struct map_info *m;

	sema_map_keys(ctx, n);
	m = n->map;
	switch (m->value.kind) {
	case TYPE_NONE:
		sema_error(ctx, n->loc,
			   arena_printf(ctx->a, "assign it somewhere: %s = ...", m->name),
			   "%s is read but never assigned", m->name);
		break;
	case TYPE_COUNT:
		n->type = type_int(8, false);
		break;
	case TYPE_SUM:
	case TYPE_MIN:
	case TYPE_MAX:
	case TYPE_AVG:
		/* per-CPU maps: the value of the CPU running the probe, as bpftrace reads it */
		n->type = type_int(8, m->value.is_signed);
		break;
	case TYPE_STATS:
	case TYPE_HIST:
	case TYPE_LHIST:
		sema_error(ctx, n->loc, arena_printf(ctx->a, "print(%s) prints it", m->name),
			   "%s holds a %s() aggregation, which cannot be read in an expression",
			   m->name, type_name(ctx->a, &m->value));
		break;
	default:
		n->type = m->value;
	}
}

void sema_expr(struct sema_ctx *ctx, struct node *n)
{
	switch (n->kind) {
	case NODE_INT:
		n->type = type_int(8, n->num <= INT64_MAX);
		break;
	case NODE_STR:
		n->type = type_str((uint32_t)n->str_len + 1);
		break;
	case NODE_BUILTIN:
		sema_builtin(ctx, n);
		break;
	case NODE_POSPARAM:
		sema_posparam(ctx, n);
		break;
	case NODE_VAR: {
		struct var_info *v = sema_var(ctx, n->name, false);

		if (!v || v->type.kind == TYPE_NONE) {
			if (sema_var(ctx, arena_printf(ctx->a, " %s", n->name), false))
				sema_error(
					ctx, n->loc,
					arena_printf(ctx->a,
						     "assign it before that block: %s = ...",
						     n->name),
					"variable %s was assigned only inside a block that has ended",
					n->name);
			else
				sema_error(
					ctx, n->loc,
					arena_printf(ctx->a, "assign it first: %s = ...", n->name),
					"variable %s is used before it is assigned", n->name);
			break;
		}
		n->var = v;
		n->type = v->type;
		break;
	}
	case NODE_MAP:
		sema_map_read(ctx, n);
		break;
	case NODE_CALL:
		sema_call(ctx, n, false);
		break;
	case NODE_BINOP:
		sema_binop(ctx, n);
		break;
	case NODE_UNOP:
		sema_unop(ctx, n);
		break;
	case NODE_TERNARY:
		sema_ternary(ctx, n);
		break;
	case NODE_FIELD:
		sema_field(ctx, n);
		break;
	case NODE_CAST:
		sema_cast(ctx, n);
		break;
	case NODE_TUPLE:
		sema_tuple(ctx, n);
		break;
	case NODE_INDEX:
		sema_expr(ctx, n->lhs);
		sema_expr(ctx, n->rhs);
		sema_record_index(ctx, n);
		break;
	default:
		sema_error(ctx, n->loc, NULL, "expected an expression, found a %s",
			   node_kind_name(n->kind));
	}
}

/* `x++`, `x--` and `x op= v` on their own become ASSIGN with op and a value. */
static void sema_normalise_update(struct sema_ctx *ctx, struct node *n)
{
	struct node *one;

	if (n->kind == NODE_EXPR_STMT && n->lhs->kind == NODE_UNOP &&
	    (n->lhs->op == OP_INC || n->lhs->op == OP_DEC) &&
	    (n->lhs->lhs->kind == NODE_MAP || n->lhs->lhs->kind == NODE_VAR)) {
		struct node *u = n->lhs;

		n->kind = NODE_ASSIGN;
		n->op = u->op;
		n->lhs = u->lhs;
		n->rhs = NULL;
	}
	if (n->kind != NODE_ASSIGN || (n->op != OP_INC && n->op != OP_DEC))
		return;
	one = node_new(ctx->a, NODE_INT, n->loc);
	one->num = 1;
	n->op = n->op == OP_INC ? '+' : '-';
	n->rhs = one;
}

static void sema_assign_map(struct sema_ctx *ctx, struct node *n)
{
	struct node *rhs = n->rhs;
	struct map_info *m;
	bool is_agg;

	ctx->assign_rhs = rhs;
	sema_expr(ctx, rhs);
	ctx->assign_rhs = NULL;
	sema_map_keys(ctx, n->lhs);
	m = n->lhs->map;
	if (!m || rhs->type.kind == TYPE_NONE)
		return;
	is_agg = type_is_agg(&rhs->type);
	if (rhs->type.kind == TYPE_VOID) {
		sema_error(ctx, rhs->loc, NULL, "%s() has no value to assign", rhs->name);
		return;
	}
	if (n->op && (is_agg || !sema_is_int(&rhs->type))) {
		sema_error(ctx, n->loc, NULL, "'%s=' needs an integer",
			   sema_op_name(ctx->a, n->op));
		return;
	}
	if (rhs->kind == NODE_CALL && rhs->func == FN_LHIST)
		sema_lhist_params(ctx, m, rhs);
	if (m->value.kind == TYPE_NONE) {
		m->value = is_agg ? rhs->type : type_storage(ctx->a, &rhs->type);
		n->lhs->type = m->value;
		return;
	}
	if (n->op && m->value.kind == TYPE_PTR) {
		sema_record_ptr_update(ctx, n, &m->value);
		n->lhs->type = m->value;
		return;
	}
	if (is_agg != type_is_agg(&m->value) || (is_agg && m->value.kind != rhs->type.kind) ||
	    (!is_agg && !type_merge(ctx->a, &m->value, &rhs->type)) ||
	    (n->op && !sema_is_int(&m->value))) {
		sema_error(ctx, n->loc,
			   arena_printf(ctx->a, "%s was first given %s at line %u", m->name,
					type_name(ctx->a, &m->value), m->first_use.line),
			   "%s cannot hold both %s and %s", m->name, type_name(ctx->a, &m->value),
			   type_name(ctx->a, &rhs->type));
		return;
	}
	n->lhs->type = m->value;
}

/* Remembered for block scoping: a variable both branches of an if assign outlives the if. */
static void sema_note_assigned(struct sema_ctx *ctx, struct var_info *v)
{
	if (ctx->nassigned == ctx->capassigned) {
		uint32_t cap = ctx->capassigned ? ctx->capassigned * 2 : 32;
		struct var_info **p = arena_alloc(ctx->a, cap * sizeof(*p));

		if (ctx->nassigned)
			memcpy(p, ctx->assigned, ctx->nassigned * sizeof(*p));
		ctx->assigned = p;
		ctx->capassigned = cap;
	}
	ctx->assigned[ctx->nassigned++] = v;
}

static uint32_t sema_nvars(struct sema_ctx *ctx)
{
	uint32_t n = 0;

	for (struct var_info *v = ctx->probe->vars; v; v = v->next)
		n++;
	return n;
}

static bool sema_was_assigned(struct sema_ctx *ctx, uint32_t since, struct var_info *v)
{
	for (uint32_t i = since; i < ctx->nassigned; i++)
		if (ctx->assigned[i] == v)
			return true;
	return false;
}

/*
 * Ends the scope of the variables first assigned since the from-th: they keep their storage
 * but lose their name (a leading space no $name has). keep_since: variables among the first
 * `upto` that were assigned again since that mark stay (both branches of an if/else).
 */
static void sema_vars_end_scope(struct sema_ctx *ctx, uint32_t from, uint32_t upto,
				uint32_t keep_since)
{
	uint32_t i = 0;

	for (struct var_info *v = ctx->probe->vars; v; v = v->next, i++) {
		if (i < from || v->name[0] == ' ')
			continue;
		if (i < upto && sema_was_assigned(ctx, keep_since, v))
			continue;
		v->name = arena_printf(ctx->a, " %s", v->name);
	}
}

/* A block whose first assignments are local to it. */
static void sema_scoped_block(struct sema_ctx *ctx, struct node *n)
{
	uint32_t mark = sema_nvars(ctx);

	sema_block(ctx, n);
	sema_vars_end_scope(ctx, mark, 0, 0);
}

static void sema_if(struct sema_ctx *ctx, struct node *n)
{
	uint32_t mark = sema_nvars(ctx), mark_then, amark;

	sema_expr(ctx, n->cond);
	sema_need_int(ctx, n->cond, "a condition");
	sema_block(ctx, n->body);
	if (!n->else_body) {
		sema_vars_end_scope(ctx, mark, 0, 0);
		return;
	}
	mark_then = sema_nvars(ctx);
	amark = ctx->nassigned;
	if (n->else_body->kind == NODE_IF)
		sema_if(ctx, n->else_body);
	else
		sema_block(ctx, n->else_body);
	sema_vars_end_scope(ctx, mark, mark_then, amark);
}

/*
 * for ($kv : @m) { ... }: $kv is the tuple (key, value). The body becomes a callback of
 * bpf_for_each_map_elem, so reading the per-CPU aggregations is by the current CPU's copy.
 */
static void sema_for(struct sema_ctx *ctx, struct node *n)
{
	struct map_info *m = sema_map(ctx, n->rhs);
	uint32_t mark = sema_nvars(ctx);
	struct type elems[2];
	struct var_info *v;

	n->rhs->map = m;
	if (n->rhs->args) {
		sema_error(ctx, n->rhs->loc,
			   arena_printf(ctx->a, "write for (%s : %s)", n->lhs->name, m->name),
			   "for iterates over a whole map, without a key");
		return;
	}
	switch (m->value.kind) {
	case TYPE_NONE:
		sema_error(ctx, n->rhs->loc,
			   arena_printf(ctx->a, "assign it somewhere: %s = ...", m->name),
			   "%s is read but never assigned", m->name);
		return;
	case TYPE_COUNT:
	case TYPE_SUM:
	case TYPE_MIN:
	case TYPE_MAX:
		elems[1] = type_int(8, m->value.kind != TYPE_COUNT && m->value.is_signed);
		break;
	case TYPE_AVG:
	case TYPE_STATS:
	case TYPE_HIST:
	case TYPE_LHIST:
		sema_error(ctx, n->rhs->loc, NULL, "for cannot iterate over a %s() map",
			   type_name(ctx->a, &m->value));
		return;
	default:
		elems[1] = m->value;
	}
	if (m->nkeys == UINT32_MAX || m->key.kind == TYPE_NONE)
		elems[0] = type_int(8, false);
	else
		elems[0] = m->key;
	v = sema_var(ctx, n->lhs->name, true);
	v->type = type_tuple(ctx->a, elems, 2);
	n->lhs->var = v;
	n->lhs->type = v->type;
	ctx->loops++;
	sema_block(ctx, n->body);
	ctx->loops--;
	sema_vars_end_scope(ctx, mark, 0, 0);
}

static void sema_assign(struct sema_ctx *ctx, struct node *n)
{
	struct var_info *v;

	sema_normalise_update(ctx, n);
	if (n->lhs->kind == NODE_MAP) {
		sema_assign_map(ctx, n);
		return;
	}
	if (n->lhs->kind != NODE_VAR) {
		sema_error(ctx, n->lhs->loc, NULL, "cannot assign to a %s",
			   node_kind_name(n->lhs->kind));
		return;
	}
	sema_expr(ctx, n->rhs);
	v = sema_var(ctx, n->lhs->name, true);
	n->lhs->var = v;
	sema_note_assigned(ctx, v);
	if (n->rhs->type.kind == TYPE_NONE)
		return;
	if (n->rhs->type.kind == TYPE_VOID || type_is_agg(&n->rhs->type)) {
		sema_error(ctx, n->rhs->loc, NULL, "cannot assign %s to a variable",
			   n->rhs->kind == NODE_CALL ? arena_printf(ctx->a, "%s()", n->rhs->name)
						     : type_name(ctx->a, &n->rhs->type));
		return;
	}
	if (n->op && (v->type.kind == TYPE_NONE || !sema_is_int(&n->rhs->type))) {
		sema_error(ctx, n->loc, NULL,
			   v->type.kind == TYPE_NONE
				   ? "variable %s is updated before it is assigned"
				   : "'op=' on %s needs an integer",
			   n->lhs->name);
		return;
	}
	if (n->op && v->type.kind == TYPE_PTR) {
		sema_record_ptr_update(ctx, n, &v->type);
		n->lhs->type = v->type;
		return;
	}
	if (!type_merge(ctx->a, &v->type, &n->rhs->type)) {
		sema_error(ctx, n->loc, NULL, "variable %s cannot hold both %s and %s", v->name,
			   type_name(ctx->a, &v->type), type_name(ctx->a, &n->rhs->type));
		return;
	}
	n->lhs->type = v->type;
}

static void sema_stmt(struct sema_ctx *ctx, struct node *n)
{
	sema_normalise_update(ctx, n);
	switch (n->kind) {
	case NODE_EXPR_STMT:
		if (n->lhs->kind == NODE_CALL)
			sema_call(ctx, n->lhs, true);
		else
			sema_expr(ctx, n->lhs);
		break;
	case NODE_ASSIGN:
		sema_assign(ctx, n);
		break;
	case NODE_IF:
		sema_if(ctx, n);
		break;
	case NODE_BLOCK:
		sema_scoped_block(ctx, n);
		break;
	case NODE_WHILE:
		sema_expr(ctx, n->cond);
		sema_need_int(ctx, n->cond, "a loop condition");
		ctx->loops++;
		sema_scoped_block(ctx, n->body);
		ctx->loops--;
		break;
	case NODE_UNROLL:
		if (n->num < 1 || n->num > 100)
			sema_error(ctx, n->loc, "unroll takes a count from 1 to 100",
				   "unroll(%llu) is out of range", (unsigned long long)n->num);
		ctx->loops++;
		sema_scoped_block(ctx, n->body);
		ctx->loops--;
		break;
	case NODE_FOR:
		sema_for(ctx, n);
		break;
	case NODE_BREAK:
	case NODE_CONTINUE:
		if (!ctx->loops)
			sema_error(ctx, n->loc, NULL, "%s outside a loop",
				   n->kind == NODE_BREAK ? "break" : "continue");
		break;
	case NODE_RETURN:
		break;
	default:
		sema_error(ctx, n->loc, NULL, "expected a statement, found a %s",
			   node_kind_name(n->kind));
	}
}

static void sema_block(struct sema_ctx *ctx, struct node *n)
{
	for (struct node *s = n->body; s; s = s->next)
		sema_stmt(ctx, s);
}

static void sema_walk(struct sema_ctx *ctx)
{
	for (struct node *p = ctx->prog->root->body; p; p = p->next) {
		switch (p->kind) {
		case NODE_PROBE:
			/* Variables live in their probe and are typed in order, afresh each walk.
			 */
			ctx->probe = p;
			p->vars = NULL;
			ctx->nassigned = 0;
			if (p->cond) {
				sema_expr(ctx, p->cond);
				sema_need_int(ctx, p->cond, "a predicate");
			}
			sema_block(ctx, p->body);
			break;
		case NODE_CDEF:
		case NODE_INCLUDE:
			/* parsed before the walks: sema_record_cdefs() */
			break;
		default:
			break;
		}
	}
}

int sema_check(struct program *prog, struct probe_env *env, struct diags *d)
{
	struct sema_ctx ctx = { .prog = prog, .env = env, .d = d, .a = prog->arena };
	size_t errors = d->nerrors;

	sema_record_cdefs(&ctx);
	sema_walk(&ctx);
	ctx.report = true;
	sema_walk(&ctx);
	if (d->nerrors > errors)
		return -EINVAL;
	return sema_lower(&ctx);
}
