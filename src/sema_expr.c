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
#include "ctypes.h"
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
	/* not in str($N), as 0.27 has it; once: the first walk makes the node a literal */
	if (n->num <= (uint64_t)ctx->prog->opts->nparams)
		val = ctx->prog->opts->params[n->num - 1];
	if (!*val && n->type.kind != TYPE_STR)
		diag_warn(ctx->d, n->loc,
			  "it is 0 here (\"\" in str()); pass positional parameters after the "
			  "script: aotrace script.bt ARG1 ARG2",
			  "Positional parameter $%llu is empty or not provided.",
			  (unsigned long long)n->num);
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
/* $t.N: element N of a tuple, $r.name: a record's; codegen reads it at field_off. */
static void sema_tuple_field(struct sema_ctx *ctx, struct node *n)
{
	const struct type *t = &n->lhs->type;
	char *end;
	unsigned long i = strtoul(n->name, &end, 10);

	if (t->names) {
		for (i = 0; i < t->nelems && strcmp(t->names[i], n->name); i++)
			;
		if (i == t->nelems) {
			char *list = arena_strdup(ctx->a, "");

			for (uint32_t k = 0; k < t->nelems; k++)
				list = arena_printf(ctx->a, "%s%s%s", list, k ? ", " : "",
						    t->names[k]);
			sema_error(ctx, n->loc, arena_printf(ctx->a, "its fields: %s", list),
				   "the record has no field '%s'", n->name);
			return;
		}
		n->is_arrow = false;
		n->idx = (uint32_t)i;
		n->field_off = t->offsets[i];
		n->type = t->elems[i];
		return;
	}
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
		/* args.name (bpftrace 0.19 and later) and args->name are the same */
		n->is_arrow = true;
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

/* Comparisons and logical operators: bool, as in bpftrace 0.24 and later. */
static bool sema_op_is_bool(int op)
{
	return op == OP_EQ || op == OP_NE || op == '<' || op == '>' || op == OP_LE || op == OP_GE ||
	       op == OP_AND || op == OP_OR;
}

static const struct type sema_bool = { .kind = TYPE_BOOL, .size = 1 };

static void sema_cast(struct sema_ctx *ctx, struct node *n);
static bool sema_type_text(struct sema_ctx *ctx, struct node *n, const char *text,
			   struct type *out);

/*
 * (pid_t)-1 parses as pid_t minus 1, as the parser cannot tell a type from a name: where the left
 * side is a type (a kernel typedef, typeof() given to a macro) and the operator can start an
 * operand (- + * &), it is a cast of that operand, as in bpftrace 0.27.
 */
static bool sema_binop_is_cast(struct sema_ctx *ctx, struct node *n)
{
	struct node *l = n->lhs, *operand;
	struct type t;
	bool report = ctx->report, is_type;

	if (n->op != '-' && n->op != '+' && n->op != '*' && n->op != '&')
		return false;
	if (l->kind == NODE_BUILTIN) {
		if (func_find(l->name, FUNC_BARE) || sema_var(ctx, l->name, false))
			return false;
		ctx->report = false;
		is_type = sema_type_text(ctx, l, l->name, &t);
		ctx->report = report;
		if (!is_type)
			return false;
	} else if (l->kind != NODE_TYPE || !l->type_expr) {
		return false;
	}
	operand = n->rhs;
	if (n->op != '+') {
		operand = node_new(ctx->a, NODE_UNOP, n->rhs->loc);
		operand->op = n->op;
		operand->lhs = n->rhs;
	}
	n->kind = NODE_CAST;
	n->op = 0;
	n->cast_type = l->kind == NODE_BUILTIN ? l->name : NULL;
	n->type_expr = l->kind == NODE_BUILTIN ? NULL : l->type_expr;
	n->lhs = operand;
	n->rhs = NULL;
	sema_cast(ctx, n);
	return true;
}

/* What a pointer points to, by name (struct sock, uint8, void), its BTF id resolved. */
static const char *sema_pointee_name(struct sema_ctx *ctx, struct type *ptr)
{
	const struct type *p = ctypes_pointee(ctypes_get(ctx->prog, ctx->env), ptr);

	return p ? ctypes_name(ctx->a, p) : "void";
}

static bool sema_same_pointer(struct sema_ctx *ctx, struct type *a, struct type *b)
{
	return a->kind == TYPE_PTR && b->kind == TYPE_PTR &&
	       !strcmp(sema_pointee_name(ctx, a), sema_pointee_name(ctx, b));
}

static void sema_binop(struct sema_ctx *ctx, struct node *n)
{
	const struct type *l = &n->lhs->type, *r = &n->rhs->type;

	if (sema_binop_is_cast(ctx, n))
		return;
	sema_expr(ctx, n->lhs);
	sema_expr(ctx, n->rhs);
	n->type = sema_op_is_bool(n->op) ? sema_bool : type_int(8, true);
	if (l->kind == TYPE_NONE || r->kind == TYPE_NONE)
		return;
	if ((n->op == '/' || n->op == '%') && sema_is_literal(n->lhs) && sema_is_literal(n->rhs)) {
		int64_t v;

		/* bpftrace 0.27 folds literals, and refuses this one; at run time it is 1 */
		if (sema_const_int(n->rhs, &v) && !v)
			sema_error(ctx, n->loc, NULL, "%s by zero between literals",
				   n->op == '/' ? "division" : "modulo");
	}
	/* $N == "str" in an object that reads $N where it runs: $N is a string */
	if (r->kind == TYPE_STR)
		sema_posparam_as_str(ctx, n->lhs);
	if (l->kind == TYPE_STR)
		sema_posparam_as_str(ctx, n->rhs);
	/*
	 * buf() values compare by length and bytes; ksym values (func of a kprobe) by address, as
	 * bpftrace 0.27 compares them, and usym values by address and pid (0.27 compares where the
	 * two values are kept: a usym equals only itself)
	 */
	if ((n->op == OP_EQ || n->op == OP_NE) && l->kind == TYPE_BUF && r->kind == TYPE_BUF &&
	    l->render == r->render &&
	    (l->render == AOT_K_BUF || l->render == AOT_K_KSYM || l->render == AOT_K_USYM))
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
		if (ctx->report && l->kind == TYPE_PTR && r->kind == TYPE_PTR) {
			const char *ln = sema_pointee_name(ctx, &n->lhs->type),
				   *rn = sema_pointee_name(ctx, &n->rhs->type);

			if (strcmp(ln, rn))
				diag_warn(ctx->d, n->loc,
					  arena_printf(ctx->a, "left (%s), right (%s)", ln, rn),
					  "comparison of distinct pointer types: %s, %s", ln, rn);
		}
		return;
	case OP_AND:
	case OP_OR:
		return;
	default:
		if (l->kind == TYPE_PTR || r->kind == TYPE_PTR) {
			sema_record_ptr_arith(ctx, n);
			return;
		}
		/*
		 * As in C (narrow unsigned ints widened to int64): unsigned wins; but a
		 * difference is signed, as in bpftrace 0.26 and
		 * later ((uint64)1 - (uint64)2 is -1).
		 */
		n->type.is_signed = (type_int_signed64(l) && type_int_signed64(r)) || n->op == '-';
		/* as in bpftrace 0.27, >> is a logical shift, except between literals (-16 >> 2) */
		if (n->op == OP_SHR && !sema_is_literal(n))
			n->type.is_signed = false;
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
		if (lv->type.kind == TYPE_PTR) { /* it moves by an element, as p += 1 */
			sema_record_ptr_incdec(ctx, n, &lv->type);
			n->type = lv->type;
			return;
		}
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
	if (n->op == '&' && n->lhs->kind == NODE_MAP) {
		/* bpftrace 0.26 passes maps to C functions of imported .bpf.c files with it */
		sema_error(ctx, n->loc, "aotrace has no C functions to pass a map to yet",
			   "'&%s': the address of a map is not supported", n->lhs->name);
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
		if (n->op == '!') {
			n->type = sema_bool;
			return;
		}
		/*
		 * As in bpftrace 0.27, -x and ~x of an unsigned x are unsigned and keep its width
		 * (-(uint8)1 is 255); of a signed one they are int64.
		 */
		if (sema_is_int(&n->lhs->type) && !n->lhs->type.is_signed &&
		    n->lhs->type.kind != TYPE_BOOL) {
			struct type t = sema_narrow(ctx, n->lhs);

			n->type = type_int(t.kind == TYPE_INT ? t.size : 8, false);
		}
		return;
	default:
		sema_unsupported(ctx, n,
				 arena_printf(ctx->a, "the unary operator '%s'",
					      sema_op_name(ctx->a, n->op)));
	}
}

/* c ? a : b, c ?: b (a is c), if c { a } else { b } (a and b are block expressions) */
static void sema_ternary(struct sema_ctx *ctx, struct node *n)
{
	struct node *then = n->lhs ? n->lhs : n->cond;

	sema_expr(ctx, n->cond);
	sema_need_int(ctx, n->cond, "a condition");
	if (n->lhs)
		sema_expr(ctx, n->lhs);
	sema_expr(ctx, n->rhs);
	if (then->type.kind == TYPE_NONE || n->rhs->type.kind == TYPE_NONE ||
	    (!n->lhs && !sema_is_int(&n->cond->type)))
		return;
	if (then->type.kind == TYPE_VOID || n->rhs->type.kind == TYPE_VOID) {
		sema_error(ctx, (then->type.kind == TYPE_VOID ? then : n->rhs)->loc,
			   "the value of a block is its last expression, written without ';'",
			   "this branch has no value");
		return;
	}
	n->type = type_storage(ctx->a, &then->type);
	if (!type_merge(ctx->a, &n->type, &n->rhs->type)) {
		sema_error(ctx, n->loc, NULL, "the branches of %s have different types: %s and %s",
			   n->lhs && n->lhs->kind == NODE_BLOCK ? "if"
			   : n->lhs				? "?:"
								: "?:",
			   type_name(ctx->a, &then->type), type_name(ctx->a, &n->rhs->type));
		return;
	}
	if (n->type.kind == TYPE_INT)
		n->type.is_signed = then->type.is_signed && n->rhs->type.is_signed;
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

/*
 * A type by its text: an integer name, bool, string, string[N], TYPE[N] (an array of integers),
 * or what the type universe knows (structs, pointers, kernel typedefs such as uint64_t). false
 * after an error.
 */
static bool sema_type_text(struct sema_ctx *ctx, struct node *n, const char *text, struct type *out)
{
	const char *br = strchr(text, '['), *missing = NULL;

	if (br) {
		unsigned long len = strtoul(br + 1, NULL, 10);
		char *base = arena_strndup(ctx->a, text, (size_t)(br - text));
		struct type *et;

		if (!strcmp(base, "string")) {
			*out = type_str((uint32_t)len);
			return true;
		}
		if (!sema_type_text(ctx, n, base, out))
			return false;
		if (out->kind != TYPE_INT && out->kind != TYPE_BOOL && out->kind != TYPE_PTR) {
			sema_error(ctx, n->loc, "arrays are of integers or pointers: (uint8[8])x",
				   "an array of %s is not supported", type_name(ctx->a, out));
			return false;
		}
		et = arena_alloc(ctx->a, sizeof(*et));
		*et = *out;
		/* no length: it comes from the value cast, (uint8[])x */
		*out = (struct type){ .kind = TYPE_ARRAY,
				      .nelems = (uint32_t)len,
				      .size = (uint32_t)len *
					      (et->kind == TYPE_BOOL ? 1 : et->size),
				      .pointee = et };
		return true;
	}
	for (size_t i = 0; i < sizeof(int_casts) / sizeof(int_casts[0]); i++) {
		if (!strcmp(text, int_casts[i].name)) {
			*out = type_int(int_casts[i].size, int_casts[i].is_signed);
			return true;
		}
	}
	if (!strcmp(text, "bool")) {
		*out = (struct type){ .kind = TYPE_BOOL, .size = 1 };
		return true;
	}
	if (!strcmp(text, "string")) {
		*out = type_str(ctx->prog->opts->strlen_max);
		return true;
	}
	if (ctypes_parse(ctypes_get(ctx->prog, ctx->env), text, out, &missing)) {
		sema_error(
			ctx, n->loc,
			"types come from the kernel's BTF, the script's C definitions and #include",
			"unknown type '%s'", missing ? missing : text);
		return false;
	}
	return true;
}

bool sema_type_named(struct sema_ctx *ctx, struct node *n, struct type *out)
{
	struct node *e = n->type_expr;

	if (!e)
		return sema_type_text(ctx, n, n->cast_type, out);
	if (e->kind == NODE_TYPE)
		return sema_type_text(ctx, e, e->cast_type, out);
	/* typeof(expr): its type; the expression itself is never evaluated (no code for it) */
	sema_expr(ctx, e);
	if (e->type.kind == TYPE_NONE)
		return false;
	if (e->type.kind == TYPE_VOID || type_is_agg(&e->type)) {
		sema_error(ctx, e->loc, NULL, "typeof() cannot take %s",
			   e->kind == NODE_CALL ? arena_printf(ctx->a, "%s()", e->name)
						: type_name(ctx->a, &e->type));
		return false;
	}
	*out = sema_narrow(ctx, e);
	return true;
}

static bool sema_is_int_array(const struct type *t)
{
	return t->kind == TYPE_ARRAY && t->pointee &&
	       (t->pointee->kind == TYPE_INT || t->pointee->kind == TYPE_BOOL);
}

static uint32_t sema_size(const struct type *t)
{
	return t->kind == TYPE_BOOL ? 1 : t->size;
}

/*
 * A cast to a type of typeof() or to an array, as bpftrace 0.19 and later: an integer to an
 * array of integers of the same size ((uint8[8])x) and back ((uint64)$arr), integers among
 * themselves, a value to its own type.
 */
static void sema_cast_to(struct sema_ctx *ctx, struct node *n, struct type *t)
{
	struct type *lt = &n->lhs->type;
	bool lint = sema_is_int(lt) && lt->kind != TYPE_PTR;

	if (lt->kind == TYPE_NONE)
		return;
	/* a string's bytes, its NUL too, as bytes: (int8[])"hello", (uint8[4])"abc" (0.27) */
	if (sema_is_int_array(t) && lt->kind == TYPE_STR && sema_size(t->pointee) == 1 &&
	    (!t->nelems || t->nelems == lt->size)) {
		t->nelems = lt->size;
		t->size = lt->size;
		n->type = *t;
		return;
	}
	if (sema_is_int_array(t) && lint) {
		uint32_t esize = sema_size(t->pointee);

		if (!t->nelems && esize && sema_size(lt) % esize == 0) {
			t->nelems = sema_size(lt) / esize;
			t->size = sema_size(lt);
		}
	}
	if ((sema_is_int_array(t) && lint) ||
	    ((t->kind == TYPE_INT || t->kind == TYPE_BOOL) && sema_is_int_array(lt))) {
		if (sema_size(t) != sema_size(lt)) {
			sema_error(ctx, n->loc, "an integer and an array cast to each other whole",
				   "cannot cast %s (%u bytes) to %s (%u bytes)",
				   ctypes_name(ctx->a, lt), sema_size(lt), ctypes_name(ctx->a, t),
				   sema_size(t));
			return;
		}
		n->type = *t;
		return;
	}
	if ((t->kind == TYPE_INT || t->kind == TYPE_BOOL) && sema_is_int(lt)) {
		n->type = *t;
		return;
	}
	if (t->kind == TYPE_PTR && sema_is_int(lt)) {
		n->type = *t;
		n->type.is_user = lt->kind == TYPE_PTR ? lt->is_user : n->lhs->is_user;
		n->is_user = n->type.is_user;
		return;
	}
	if (type_equal(t, lt) || (t->kind == TYPE_STR && lt->kind == TYPE_STR)) {
		n->type = *t;
		return;
	}
	sema_error(ctx, n->loc, NULL, "cannot cast %s to %s", ctypes_name(ctx->a, lt),
		   ctypes_name(ctx->a, t));
}

static void sema_cast_type(struct sema_ctx *ctx, struct node *n);

/* A cast, kept for sema_cast_finish once the last walk has typed it. */
static void sema_cast(struct sema_ctx *ctx, struct node *n)
{
	struct sema_cast *c;

	sema_cast_type(ctx, n);
	if (!ctx->report || (n->type.kind != TYPE_INT && n->type.kind != TYPE_PTR))
		return;
	c = arena_alloc(ctx->a, sizeof(*c));
	*c = (struct sema_cast){ n, ctx->casts };
	ctx->casts = c;
}

/*
 * bpftrace 0.27 warns of a cast to the type its operand has already. An integer operand counts
 * where its type is 0.27's for sure: a variable or map (at its narrow type), a literal, a
 * builtin; a pointer wherever the two types are the same.
 */
void sema_cast_finish(struct sema_ctx *ctx)
{
	struct sema_cast *order = NULL, *next;

	for (struct sema_cast *c = ctx->casts; c; c = next) { /* in the program's order */
		next = c->next;
		c->next = order;
		order = c;
	}
	ctx->casts = order;
	for (const struct sema_cast *c = ctx->casts; c; c = c->next) {
		struct node *n = c->n, *e = n->lhs;
		struct type t = e->type;

		if (n->type.kind == TYPE_INT) {
			if (e->kind != NODE_VAR && e->kind != NODE_MAP && e->kind != NODE_BUILTIN &&
			    !sema_is_literal(e))
				continue;
			t = sema_narrow(ctx, e);
			if (t.kind != TYPE_INT || t.size != n->type.size ||
			    t.is_signed != n->type.is_signed)
				continue;
		} else if (t.kind != TYPE_PTR || t.is_ctx ||
			   !sema_same_pointer(ctx, &t, &n->type)) {
			continue;
		}
		diag_warn(ctx->d, n->loc, "leave the cast out",
			  "Unnecessary cast: expression is already of type %s",
			  t.kind == TYPE_PTR
				  ? arena_printf(ctx->a, "%s *", sema_pointee_name(ctx, &t))
				  : ctypes_name(ctx->a, &t));
	}
}

static void sema_cast_type(struct sema_ctx *ctx, struct node *n)
{
	struct type t;

	sema_expr(ctx, n->lhs);
	if (n->type_expr || strchr(n->cast_type, '[') || sema_is_int_array(&n->lhs->type)) {
		if (sema_type_named(ctx, n, &t))
			sema_cast_to(ctx, n, &t);
		return;
	}
	if (!strcmp(n->cast_type, "bool")) {
		/* not the kernel's typedef of _Bool: (bool)5 is true */
		sema_need_int(ctx, n->lhs, "a cast to bool");
		n->type = sema_bool;
		return;
	}
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

static void sema_tuple_type(struct sema_ctx *ctx, struct node *n, uint32_t count);

/* (a, b), and records (x = a, y = b): elements stored at their storage types. */
static void sema_tuple(struct sema_ctx *ctx, struct node *n)
{
	uint32_t count = 0;

	for (struct node *e = n->args; e; e = e->next) {
		sema_expr(ctx, e);
		if (e->type.kind == TYPE_NONE)
			return;
		count++;
	}
	sema_tuple_type(ctx, n, count);
}

/* The type of tuple or record literal n from its count elements' types. */
static void sema_tuple_type(struct sema_ctx *ctx, struct node *n, uint32_t count)
{
	struct type *elems;
	char **names = NULL;
	uint32_t i = 0;

	elems = arena_alloc(ctx->a, (count ? count : 1) * sizeof(*elems));
	if (n->args && n->args->kind == NODE_NAMED)
		names = arena_alloc(ctx->a, count * sizeof(*names));
	for (struct node *e = n->args; e; e = e->next) {
		if (type_is_agg(&e->type) || e->type.kind == TYPE_VOID) {
			sema_error(ctx, e->loc, NULL, "a %s cannot hold %s",
				   names ? "record" : "tuple", type_name(ctx->a, &e->type));
			return;
		}
		if (names)
			names[i] = e->name;
		elems[i++] = e->type; /* as bpftrace: (int8)1 stays one byte */
	}
	n->type = type_tuple(ctx->a, elems, count);
	n->type.names = names;
}

void sema_record_order(struct sema_ctx *ctx, const struct type *into, struct node *rhs)
{
	struct node *list = NULL, **tail = &list;
	uint32_t n = into->nelems;

	if (rhs->kind != NODE_TUPLE || into->kind != TYPE_TUPLE || !into->names ||
	    rhs->type.kind != TYPE_TUPLE || !rhs->type.names || rhs->type.nelems != n)
		return;
	/* every member of the held record, once: else the merge says what differs */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = 0;

		while (k < n && strcmp(rhs->type.names[k], into->names[i]))
			k++;
		if (k == n)
			return;
	}
	if (!rhs->reordered) {
		uint32_t w = 0;

		for (struct node *e = rhs->args; e; e = e->next)
			e->written = w++;
	}
	rhs->reordered = true;
	for (uint32_t i = 0; i < n; i++) {
		struct node **at = &rhs->args;

		while (strcmp((*at)->name, into->names[i]))
			at = &(*at)->next;
		*tail = *at;
		*at = (*at)->next;
		tail = &(*tail)->next;
		*tail = NULL;
	}
	rhs->args = list;
	for (struct node *e = list; e; e = e->next)
		if (e->lhs->kind == NODE_TUPLE) {
			uint32_t i = 0;

			while (strcmp(into->names[i], e->name))
				i++;
			sema_record_order(ctx, &into->elems[i], e->lhs);
			e->type = e->lhs->type;
		}
	sema_tuple_type(ctx, rhs, n);
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
	bool tuple_key;

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
	/*
	 * @m[$k] with $k = (a, b) is @m[a, b], as in bpftrace 0.22 and later: the tuple's elements
	 * are the keys (a record's too).
	 */
	tuple_key = nkeys == 1 && key.kind == TYPE_TUPLE && key.nelems > 1 && !key.names &&
		    (m->nkeys == UINT32_MAX || m->nkeys > 1);
	if (tuple_key)
		nkeys = key.nelems;
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
	case TYPE_TSERIES:
		sema_error(ctx, n->loc, arena_printf(ctx->a, "print(%s) prints it", m->name),
			   "%s holds a %s() aggregation, which cannot be read in an expression",
			   m->name, type_name(ctx->a, &m->value));
		break;
	default:
		n->type = m->value;
	}
}

/* A constant integer expression: literals and + - * / << >> & | of them. */
static bool sema_fold_int(const struct node *n, int64_t *v)
{
	int64_t l, r;

	if (sema_const_int(n, v))
		return true;
	if (n->kind == NODE_CAST && n->lhs)
		return sema_fold_int(n->lhs, v);
	if (n->kind != NODE_BINOP || !sema_fold_int(n->lhs, &l) || !sema_fold_int(n->rhs, &r))
		return false;
	return sema_fold_op(n->op, l, r, v);
}

/*
 * x[i]: a tuple's element i ($t[0] is $t.0: i must be a constant), a byte of a string value
 * or an element of an array value ($s[0], "/"[0]: an int8; as in bpftrace 0.25 and later, a
 * constant index must be in bounds and another one past the end gives 0), or memory through a
 * pointer or an array (sema_record.c).
 */
static void sema_index(struct sema_ctx *ctx, struct node *n)
{
	struct type *lt = &n->lhs->type;
	uint32_t count;
	int64_t i;

	if (lt->kind == TYPE_TUPLE) {
		if (!sema_fold_int(n->rhs, &i)) {
			sema_error(ctx, n->rhs->loc, "write the element's number: $t[0] or $t.0",
				   "a tuple's index must be a constant");
			return;
		}
		n->kind = NODE_FIELD;
		n->name = arena_printf(ctx->a, "%lld", (long long)i);
		n->rhs = NULL;
		sema_tuple_field(ctx, n);
		return;
	}
	if ((lt->kind == TYPE_STR || sema_is_int_array(lt)) && !node_is_addressable(n->lhs)) {
		if (n->rhs->type.kind != TYPE_NONE && !sema_is_int(&n->rhs->type)) {
			sema_error(ctx, n->rhs->loc, NULL, "an index needs an integer, not %s",
				   type_name(ctx->a, &n->rhs->type));
			return;
		}
		count = lt->kind == TYPE_STR ? lt->size : lt->nelems;
		if (sema_fold_int(n->rhs, &i) && (i < 0 || (uint64_t)i >= count)) {
			sema_error(ctx, n->rhs->loc, NULL,
				   "the index %lld is out of bounds: %s has %u element%s",
				   (long long)i, ctypes_name(ctx->a, lt), count,
				   count == 1 ? "" : "s");
			return;
		}
		n->is_value = true;
		n->type = lt->kind == TYPE_STR ? type_int(1, true) : *lt->pointee;
		return;
	}
	sema_record_index(ctx, n);
}

void sema_expr(struct sema_ctx *ctx, struct node *n)
{
	switch (n->kind) {
	case NODE_INT: {
		struct cenum *en = n->type.kind == TYPE_INT ? n->type.enm : NULL;

		n->type = type_int(8, n->num <= INT64_MAX);
		n->type.enm = en; /* an enumerator's (sema_record_ident) */
		break;
	}
	case NODE_BOOL:
		n->type = (struct type){ .kind = TYPE_BOOL, .size = 1 };
		break;
	case NODE_NAMED:
		sema_expr(ctx, n->lhs);
		n->type = n->lhs->type;
		break;
	case NODE_BLOCK:
		sema_block_value(ctx, n);
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

		if (v && v->declared && v->type.kind == TYPE_NONE) {
			/* bpftrace 0.27 warns and reads the zero of the type given later */
			diag_warn(ctx->d, n->loc, NULL, "Variable used before it was assigned: %s",
				  n->name);
			v->type = type_int(8, true);
			v->read_early = n->loc;
		}
		if (!v || v->type.kind == TYPE_NONE) {
			if (sema_var(ctx, arena_printf(ctx->a, " %s", n->name), false))
				sema_error(
					ctx, n->loc,
					arena_printf(ctx->a,
						     "declare it before that block: let %s;",
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
		sema_var_used(ctx, v, n->loc);
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
		sema_index(ctx, n);
		break;
	case NODE_TYPE:
		sema_error(ctx, n->loc,
			   "typeof() names a type: in a cast (typeof(x))y, let $v: typeof(x), "
			   "sizeof(typeof(x)), or an argument of a macro that uses it so",
			   "a type is not a value");
		break;
	default:
		sema_error(ctx, n->loc, NULL, "expected an expression, found a %s",
			   node_kind_name(n->kind));
	}
}
