// SPDX-License-Identifier: GPL-2.0
/*
 * Sema of expressions: types each one bottom-up, resolves positional parameters, fields,
 * operators, casts, tuples and map reads, and hands identifiers to sema_builtins.c and calls to
 * sema_calls.c.
 */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "meta.h"
#include "probe.h"
#include "sema_record.h"
#include "sema_types.h"

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
	if (n->kind == NODE_POSPARAM && !n->is_count)
		n->type = type_str(AOT_PARAM_STR_MAX);
	(void)ctx;
}

/*
 * $N and $# become literals when the program runs at once: they are known when compiling. As in
 * bpftrace, $N is a number if its whole text is one, and its text in str($N) (which
 * sema_posparam_as_str marks first) or if it is no number; a $N not given is 0, or "" in str().
 */
static void sema_posparam(struct sema_ctx *ctx, struct node *n)
{
	const char *val = "";
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
	if (n->num == 0) {
		sema_error(ctx, n->loc, "they are $1, $2, ... and $# for their count",
			   "there is no positional parameter $0");
		n->type = type_int(8, true);
		return;
	}
	if (n->num > (uint64_t)ctx->prog->opts->nparams)
		/* once: the first walk makes the node a literal */
		diag_warn(
			ctx->d, n->loc,
			"pass positional parameters after the script: aotrace script.bt ARG1 ARG2",
			"positional parameter $%llu was not given: it is %s",
			(unsigned long long)n->num, n->type.kind == TYPE_STR ? "\"\"" : "0");
	else
		val = ctx->prog->opts->params[n->num - 1];
	if (n->num > ctx->prog->meta->nparams)
		ctx->prog->meta->nparams = (uint32_t)n->num;
	v = strtoll(val, &end, 0);
	if (n->type.kind != TYPE_STR && !*end) {
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
	if (func_defs[n->func].flags & FUNC_HIDDEN_ARG) {
		sema_args_field(ctx, n, true);
		return;
	}
	if (n->lhs->kind == NODE_BUILTIN && strcmp(n->lhs->name, "args") == 0) {
		n->lhs->func = FN_ARGS;
		if (!sema_func_allowed(ctx, n->lhs, &func_defs[FN_ARGS]))
			return;
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

const char *sema_op_name(struct arena *a, int op)
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
	/* buf() values compare by length and bytes */
	if ((n->op == OP_EQ || n->op == OP_NE) && l->kind == TYPE_BUF && r->kind == TYPE_BUF &&
	    l->render == AOT_K_BUF && r->render == AOT_K_BUF)
		return;
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

/*
 * $x++, ++$x, @m[k]--, ... as a value: the old value after, the new one before. As in
 * bpftrace, a map nothing else assigns becomes an int64 map starting at 0.
 */
static void sema_incdec(struct sema_ctx *ctx, struct node *n)
{
	struct node *lv = n->lhs;
	const char *op = sema_op_name(ctx->a, n->op);
	struct map_info *m;

	if (lv->kind == NODE_VAR) {
		sema_expr(ctx, lv);
		if (lv->type.kind == TYPE_PTR)
			sema_error(ctx, n->loc,
				   arena_printf(ctx->a, "write %s %s= 1 as a statement", lv->name,
						n->op == OP_INC ? "+" : "-"),
				   "%s on a pointer only as a statement", op);
		else
			sema_need_int(ctx, lv, arena_printf(ctx->a, "operator '%s'", op));
		n->type = sema_is_int(&lv->type) ? lv->type : type_int(8, true);
		return;
	}
	if (lv->kind != NODE_MAP) {
		sema_error(ctx, n->loc, NULL, "operator '%s' needs a variable or a map", op);
		return;
	}
	sema_map_keys(ctx, lv);
	m = lv->map;
	if (!m)
		return;
	if (m->value.kind == TYPE_NONE)
		m->value = type_int(8, true);
	if (m->value.kind != TYPE_INT) {
		sema_error(ctx, n->loc, NULL, "operator '%s' cannot take %s, which holds %s", op,
			   m->name, type_name(ctx->a, &m->value));
		return;
	}
	lv->type = m->value;
	n->type = m->value;
}

static void sema_unop(struct sema_ctx *ctx, struct node *n)
{
	if (n->op == OP_INC || n->op == OP_DEC) {
		sema_incdec(ctx, n);
		return;
	}
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
		elems[i++] = e->type; /* as bpftrace: (int8)1 stays one byte */
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
		    k->type.kind != TYPE_BUF && k->type.kind != TYPE_BOOL &&
		    k->type.kind != TYPE_ARRAY) {
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
