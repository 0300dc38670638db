// SPDX-License-Identifier: GPL-2.0
/*
 * The semantic pass: types every expression, resolves builtins, functions, maps and variables,
 * and checks what the probe types provide. It walks the program twice: the first walk only
 * learns the types of maps (a map may be read in a probe above the one that assigns it), the
 * second reports. Lowering (sema_lower.c) then makes conversions explicit and lays out records.
 * This file holds the walks, the statements and variable scopes; expressions are in
 * sema_expr.c, identifiers in sema_builtins.c, calls in sema_calls.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "arena.h"
#include "meta.h"
#include "parser.h"
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

struct var_info *sema_var(struct sema_ctx *ctx, const char *name, bool create)
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

const struct probe_type *sema_probe_lacks(struct sema_ctx *ctx, uint32_t needs)
{
	for (struct node *ap = ctx->probe->args; ap; ap = ap->next)
		for (uint32_t i = 0; i < ap->nmatches; i++)
			if ((ap->matches[i].pt->builtins & needs) != needs)
				return ap->matches[i].pt;
	return NULL;
}

bool sema_func_allowed(struct sema_ctx *ctx, struct node *n, const struct func_def *f)
{
	bool call = n->kind == NODE_CALL;
	const struct probe_type *lacking;

	if (f->flags & FUNC_MISSING) {
		sema_error(ctx, n->loc, "see aotrace(8) for what aotrace has",
			   "%s%s is bpftrace's, and aotrace does not have it yet", n->name,
			   call ? "()" : "");
		n->type = type_int(8, false); /* no errors that follow from it */
		return false;
	}
	if ((f->flags & FUNC_UNSAFE) && !ctx->prog->opts->unsafe)
		sema_error(ctx, n->loc, "run with --unsafe to allow it", "%s%s is an unsafe %s",
			   n->name, call ? "()" : "", call ? "function" : "builtin");
	if (f->needs && (lacking = sema_probe_lacks(ctx, f->needs))) {
		sema_error(ctx, n->loc, NULL,
			   call ? "%s() is not available in %s probes"
				: "'%s' is not available in %s probes",
			   n->name, lacking->name);
		return false;
	}
	return true;
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

/*
 * `c ? a : b;` on its own is `if (c) { a; } else { b; }`: its branches may be calls without a
 * value (1 ? printf("yes\n") : printf("no\n")), as in bpftrace.
 */
static void sema_normalise_ternary(struct sema_ctx *ctx, struct node *n)
{
	struct node *t = n->lhs, *branch[2];

	/* a ?: b keeps its value: its left side is no branch */
	if (n->kind != NODE_EXPR_STMT || t->kind != NODE_TERNARY || !t->lhs)
		return;
	for (int i = 0; i < 2; i++) {
		struct node *e = i ? t->rhs : t->lhs, *s = node_new(ctx->a, NODE_EXPR_STMT, e->loc);

		s->lhs = e;
		branch[i] = node_new(ctx->a, NODE_BLOCK, e->loc);
		branch[i]->body = s;
	}
	n->kind = NODE_IF;
	n->cond = t->cond;
	n->body = branch[0];
	n->else_body = branch[1];
	n->lhs = NULL;
}

/*
 * ctx is read only where it is (direct loads of the context, cg_core_read): a copy in a
 * variable or map would be read as kernel memory, which a perf event's context is not.
 */
static bool sema_not_ctx(struct sema_ctx *ctx, struct node *rhs)
{
	if (rhs->type.kind != TYPE_PTR || !rhs->type.is_ctx)
		return true;
	sema_error(ctx, rhs->loc,
		   "read its members where it is: ctx->name, or cast it: (uint64)ctx",
		   "ctx cannot be kept in a variable or map");
	return false;
}

static void sema_assign_map(struct sema_ctx *ctx, struct node *n)
{
	struct node *rhs = n->rhs;
	struct map_info *m;
	bool is_agg;

	ctx->assign_rhs = rhs;
	sema_expr(ctx, rhs);
	sema_record_kept(ctx, rhs);
	ctx->assign_rhs = NULL;
	sema_map_keys(ctx, n->lhs);
	m = n->lhs->map;
	if (!m || rhs->type.kind == TYPE_NONE || !sema_not_ctx(ctx, rhs))
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
	if (rhs->kind == NODE_CALL && rhs->func == FN_HIST)
		sema_hist_params(ctx, m, rhs);
	if (rhs->kind == NODE_CALL && rhs->func == FN_TSERIES)
		sema_tseries_params(ctx, m, rhs);
	sema_record_order(ctx, &m->value, rhs);
	if (!is_agg && !n->op)
		sema_narrow_assign(ctx, &m->narrow, &m->narrow_lit, rhs);
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

/*
 * A variable the if/else rule of bpftrace 0.21 and earlier kept alive (both branches assigned
 * it): its first use after the if says, once, how to write it for 0.22 and later.
 */
void sema_var_used(struct sema_ctx *ctx, struct var_info *v, struct loc loc)
{
	if (!v->kept_by.line || !ctx->report)
		return;
	diag_warn(ctx->d, loc, arena_printf(ctx->a, "declare it before the if: let %s;", v->name),
		  "variable %s outlives the if at line %u, which assigns it in every branch: "
		  "bpftrace 0.22 and later end it with the branches",
		  v->name, v->kept_by.line);
	v->kept_by.line = 0;
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

static void sema_var_hide(struct sema_ctx *ctx, struct var_info *v)
{
	v->name = arena_printf(ctx->a, " %s", v->name);
}

/*
 * Ends the scope of the variables first assigned or declared since the from-th: they keep their
 * storage but lose their name (a leading space no $name has). keep_since: variables among the
 * first `upto`, assigned without a declaration, that were assigned again since that mark stay
 * (both branches of an if/else, as bpftrace 0.21 and earlier scoped them; kept_by says where).
 */
static void sema_vars_end_scope(struct sema_ctx *ctx, uint32_t from, uint32_t upto,
				uint32_t keep_since, struct loc kept_by)
{
	uint32_t i = 0;

	for (struct var_info *v = ctx->probe->vars; v; v = v->next, i++) {
		if (i < from || v->name[0] == ' ')
			continue;
		if (i < upto && !v->declared && sema_was_assigned(ctx, keep_since, v)) {
			if (!v->kept_by.line)
				v->kept_by = kept_by;
			continue;
		}
		sema_var_hide(ctx, v);
	}
}

/* Ends the scope of the variables declared (let) since the from-th. */
static void sema_vars_end_declared(struct sema_ctx *ctx, uint32_t from)
{
	uint32_t i = 0;

	for (struct var_info *v = ctx->probe->vars; v; v = v->next, i++)
		if (i >= from && v->declared && v->name[0] != ' ')
			sema_var_hide(ctx, v);
}

/* A block whose first assignments and declarations are local to it. */
static void sema_scoped_block(struct sema_ctx *ctx, struct node *n)
{
	uint32_t mark = sema_nvars(ctx);

	sema_block(ctx, n);
	sema_vars_end_scope(ctx, mark, 0, 0, n->loc);
}

/* { stmts; value }: its statements in a scope of their own, then its value. */
void sema_block_value(struct sema_ctx *ctx, struct node *n)
{
	uint32_t mark = sema_nvars(ctx);

	sema_block(ctx, n);
	if (n->lhs) {
		sema_expr(ctx, n->lhs);
		n->type = n->lhs->type;
	} else {
		n->type = (struct type){ .kind = TYPE_VOID };
	}
	sema_vars_end_scope(ctx, mark, 0, 0, n->loc);
}

static void sema_if(struct sema_ctx *ctx, struct node *n)
{
	uint32_t mark = sema_nvars(ctx), mark_then, amark;

	sema_expr(ctx, n->cond);
	sema_need_int(ctx, n->cond, "a condition");
	sema_block(ctx, n->body);
	if (!n->else_body) {
		sema_vars_end_scope(ctx, mark, 0, 0, n->loc);
		return;
	}
	/* The then-block's declarations end with it; the else-block may reuse the names. */
	sema_vars_end_declared(ctx, mark);
	mark_then = sema_nvars(ctx);
	amark = ctx->nassigned;
	if (n->else_body->kind == NODE_IF)
		sema_if(ctx, n->else_body);
	else
		sema_block(ctx, n->else_body);
	sema_vars_end_scope(ctx, mark, mark_then, amark, n->loc);
}

/* A new variable of the current scope: refused where one of the name is visible already. */
static struct var_info *sema_var_declare(struct sema_ctx *ctx, struct node *var, const char *what)
{
	struct var_info *v = sema_var(ctx, var->name, false);

	if (v) {
		sema_error(ctx, var->loc,
			   arena_printf(ctx->a,
					"%s is first assigned at line %u, column %u; give "
					"this one another name",
					var->name, v->first.line, v->first.col),
			   "%s shadows the variable %s: bpftrace does not allow it", what,
			   var->name);
		return v;
	}
	v = sema_var(ctx, var->name, true);
	v->first = var->loc;
	v->declared = true;
	return v;
}

/*
 * for ($i : a..b) { ... }: $i from a up to b - 1, both evaluated once, before the loop; the
 * body becomes a callback of bpf_loop (codegen). $i has the type of a and b.
 */
static void sema_for_range(struct sema_ctx *ctx, struct node *n)
{
	struct node *r = n->rhs;
	struct var_info *v;

	sema_expr(ctx, r->lhs);
	sema_expr(ctx, r->rhs);
	for (struct node *e = r->lhs; e; e = e == r->lhs ? r->rhs : NULL) {
		if (e->type.kind != TYPE_NONE && e->type.kind != TYPE_INT &&
		    e->type.kind != TYPE_BOOL)
			sema_error(ctx, e->loc, NULL, "a range's bounds are integers, not %s",
				   type_name(ctx->a, &e->type));
	}
	v = sema_var_declare(ctx, n->lhs, "the loop variable");
	v->type = type_int(8, r->lhs->type.is_signed || r->rhs->type.is_signed ||
				      r->lhs->type.kind != TYPE_INT);
	n->lhs->var = v;
	n->lhs->type = v->type;
	v->assigned = true;
	r->type = v->type;
}

/*
 * for ($kv : @m) { ... }: $kv is the tuple (key, value). The body becomes a callback of
 * bpf_for_each_map_elem, so reading the per-CPU aggregations is by the current CPU's copy.
 */
static void sema_for(struct sema_ctx *ctx, struct node *n)
{
	struct map_info *m;
	uint32_t mark = sema_nvars(ctx);
	struct type elems[2];
	struct var_info *v;

	if (n->rhs->kind == NODE_RANGE) {
		sema_for_range(ctx, n);
		goto body;
	}
	m = sema_map(ctx, n->rhs);
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
	case TYPE_TSERIES:
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
	v = sema_var_declare(ctx, n->lhs, "the loop variable");
	v->type = type_tuple(ctx->a, elems, 2);
	n->lhs->var = v;
	n->lhs->type = v->type;
	v->assigned = true;
body:
	ctx->loops++;
	sema_block(ctx, n->body);
	ctx->loops--;
	sema_vars_end_scope(ctx, mark, 0, 0, n->loc);
}

/*
 * Can a variable declared with a type (let $x: uint8) hold rhs? Integers convert, but a literal
 * must be in the type's range and another value must not be wider; strings must fit.
 */
static bool sema_fits_declared(struct sema_ctx *ctx, const struct type *decl, struct node *rhs)
{
	const struct type *t = &rhs->type;
	int64_t v;

	switch (decl->kind) {
	case TYPE_INT:
		if (!sema_is_int(t))
			return false;
		if (sema_const_int(rhs, &v)) {
			uint64_t max =
				decl->size == 8 ? UINT64_MAX : (1ULL << (decl->size * 8)) - 1;

			if (decl->is_signed)
				return decl->size == 8 ||
				       (v >= -(int64_t)(max / 2) - 1 && v <= (int64_t)(max / 2));
			/* a literal above INT64_MAX reads as negative here */
			return rhs->kind == NODE_INT ? rhs->num <= max : v >= 0;
		}
		return (t->kind == TYPE_BOOL ? 1 : t->size) <= decl->size;
	case TYPE_STR:
		return t->kind == TYPE_STR && t->size <= decl->size;
	default: {
		struct type merged = *decl;

		return type_merge(ctx->a, &merged, t) && type_equal(&merged, decl);
	}
	}
}

/*
 * bpftrace 0.17 gave comparisons int64 values, 0.27 bool ones: a slot that gets both holds
 * int64, with a warning that says how 0.27 wants it written.
 */
static bool sema_merge_bool(struct sema_ctx *ctx, struct type *into, struct node *rhs,
			    const char *slot)
{
	const struct type *b = &rhs->type;

	if (!((into->kind == TYPE_INT && b->kind == TYPE_BOOL) ||
	      (into->kind == TYPE_BOOL && b->kind == TYPE_INT)))
		return false;
	if (ctx->report)
		diag_warn(ctx->d, rhs->loc,
			  arena_printf(ctx->a, "convert it: (int64)(...)%s",
				       b->kind == TYPE_BOOL ? "" : ", or assign true or false"),
			  "%s holds %s and gets %s here: bpftrace 0.27 refuses mixing bools and "
			  "integers, aotrace stores int64",
			  slot, type_name(ctx->a, into), type_name(ctx->a, b));
	*into = type_int(8, into->kind == TYPE_INT ? into->is_signed : b->is_signed);
	return true;
}

/* $x = rhs, $x op= rhs, let $x = rhs: n is the statement, var the VAR node. */
static void sema_assign_var(struct sema_ctx *ctx, struct node *n, struct node *var,
			    struct node *rhs, struct var_info *v)
{
	var->var = v;
	v->assigned = true;
	sema_note_assigned(ctx, v);
	if (rhs->type.kind == TYPE_NONE || !sema_not_ctx(ctx, rhs))
		return;
	if (rhs->type.kind == TYPE_VOID || type_is_agg(&rhs->type)) {
		sema_error(ctx, rhs->loc, NULL, "cannot assign %s to a variable",
			   rhs->kind == NODE_CALL ? arena_printf(ctx->a, "%s()", rhs->name)
						  : type_name(ctx->a, &rhs->type));
		return;
	}
	if (n->op && v->declared && v->type.kind == TYPE_NONE && sema_is_int(&rhs->type)) {
		diag_warn(ctx->d, var->loc, NULL, "Variable used before it was assigned: %s",
			  var->name);
		v->type = type_int(8, true);
		v->read_early = var->loc;
	}
	if (n->op && (v->type.kind == TYPE_NONE || !sema_is_int(&rhs->type))) {
		sema_error(ctx, n->loc, NULL,
			   v->type.kind == TYPE_NONE
				   ? "variable %s is updated before it is assigned"
				   : "'op=' on %s needs an integer",
			   var->name);
		return;
	}
	if (n->op && v->type.kind == TYPE_PTR) {
		sema_record_ptr_update(ctx, n, &v->type);
		var->type = v->type;
		return;
	}
	if (v->typed) {
		if (!n->op && !sema_fits_declared(ctx, &v->type, rhs)) {
			int64_t lit;

			if (sema_is_int(&rhs->type) && sema_const_int(rhs, &lit))
				sema_error(ctx, rhs->loc, "cast it to say which value it becomes",
					   "%s is out of the range of %s, the declared type of %s",
					   rhs->kind == NODE_INT
						   ? arena_printf(ctx->a, "%llu",
								  (unsigned long long)rhs->num)
						   : arena_printf(ctx->a, "%lld", (long long)lit),
					   type_name(ctx->a, &v->type), var->name);
			else
				sema_error(ctx, n->loc, NULL,
					   "variable %s is declared %s and cannot hold %s",
					   var->name, type_name(ctx->a, &v->type),
					   type_name(ctx->a, &rhs->type));
		}
		var->type = v->type;
		return;
	}
	sema_record_order(ctx, &v->type, rhs);
	if (!n->op)
		sema_narrow_assign(ctx, &v->narrow, &v->narrow_lit, rhs);
	if (v->read_early.line && !sema_is_int(&rhs->type)) {
		sema_error(ctx, rhs->loc,
			   arena_printf(ctx->a, "give it a type where it is declared: let %s: %s;",
					var->name,
					rhs->type.kind == TYPE_STR ? "string"
								   : type_name(ctx->a, &rhs->type)),
			   "variable %s was read at line %u as an integer before it is assigned, "
			   "and is given %s here",
			   var->name, v->read_early.line, type_name(ctx->a, &rhs->type));
		return;
	}
	if (!type_merge(ctx->a, &v->type, &rhs->type) &&
	    !sema_merge_bool(ctx, &v->type, rhs, arena_printf(ctx->a, "variable %s", var->name))) {
		sema_error(ctx, n->loc, NULL, "variable %s cannot hold both %s and %s", var->name,
			   type_name(ctx->a, &v->type), type_name(ctx->a, &rhs->type));
		return;
	}
	var->type = v->type;
}

/*
 * @m = { stmts; agg(...) }, an aggregation as a block's value (bpftrace 0.27): n becomes the
 * block, ending with @m = agg(...) in its scope. False if n is not that.
 */
static bool sema_agg_block(struct sema_ctx *ctx, struct node *n)
{
	struct node *b = n->rhs, *v = b->kind == NODE_BLOCK ? b->lhs : NULL, *a, *next, **tail;
	enum func id;

	if (n->op || n->lhs->kind != NODE_MAP || !v || v->kind != NODE_CALL)
		return false;
	id = func_find(v->name, FUNC_CALL);
	if (!id || !(func_defs[id].flags & FUNC_AGG))
		return false;
	a = node_new(ctx->a, NODE_ASSIGN, n->loc);
	*a = *n;
	a->rhs = v;
	a->next = NULL;
	for (tail = &b->body; *tail; tail = &(*tail)->next)
		;
	*tail = a;
	b->lhs = NULL;
	next = n->next;
	*n = *b;
	n->next = next;
	sema_scoped_block(ctx, n);
	return true;
}

static void sema_assign(struct sema_ctx *ctx, struct node *n)
{
	struct var_info *v;

	if (sema_agg_block(ctx, n))
		return;
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
	sema_record_kept(ctx, n->rhs);
	v = sema_var(ctx, n->lhs->name, true);
	if (!v->first.line)
		v->first = n->lhs->loc;
	sema_var_used(ctx, v, n->lhs->loc);
	sema_assign_var(ctx, n, n->lhs, n->rhs, v);
}

/* let $x, let $x: TYPE, let $x = v, let $x: TYPE = v */
static void sema_let(struct sema_ctx *ctx, struct node *n)
{
	struct var_info *v;
	struct type t;

	if (n->rhs) {
		sema_expr(ctx, n->rhs);
		sema_record_kept(ctx, n->rhs);
	}
	v = sema_var_declare(ctx, n->lhs, "the declaration");
	n->lhs->var = v;
	if ((n->cast_type || n->type_expr) && sema_type_named(ctx, n, &t)) {
		if (t.kind == TYPE_VOID || t.kind == TYPE_RECORD || type_is_agg(&t) ||
		    (t.kind == TYPE_STR && !t.size)) {
			sema_error(ctx, n->loc, NULL, "a variable cannot be declared %s",
				   type_name(ctx->a, &t));
			return;
		}
		v->type = t;
		v->typed = true;
		v->narrow = t.kind == TYPE_INT ? t : (struct type){ 0 };
		n->lhs->type = t;
	}
	if (n->rhs)
		sema_assign_var(ctx, n, n->lhs, n->rhs, v);
}

/*
 * An expression statement: its value, if it has one, is dropped, with a warning unless it is
 * written `_ = expr` (as bpftrace 0.25 and later warn).
 */
static void sema_expr_stmt(struct sema_ctx *ctx, struct node *n)
{
	struct node *e = n->lhs;
	size_t errors = ctx->d->nerrors;

	if (e->kind == NODE_CALL)
		sema_call(ctx, e, !n->is_discard);
	else
		sema_expr(ctx, e);
	if (n->is_discard) {
		/* a call without a value is reported by its check */
		if (e->type.kind == TYPE_VOID && e->kind != NODE_CALL)
			sema_error(ctx, e->loc, NULL, "this expression has no value to discard");
		return;
	}
	/*
	 * One that had an error is typed only so that nothing follows from it. delete() is a
	 * statement as often as not, as it was before it had a value.
	 */
	if (e->type.kind != TYPE_NONE && e->type.kind != TYPE_VOID && ctx->report &&
	    ctx->d->nerrors == errors && !(e->kind == NODE_CALL && e->func == FN_DELETE))
		diag_warn(ctx->d, e->loc, "drop it on purpose with _ = ...",
			  "Return value discarded.");
}

static void sema_stmt(struct sema_ctx *ctx, struct node *n)
{
	sema_normalise_update(ctx, n);
	sema_normalise_ternary(ctx, n);
	switch (n->kind) {
	case NODE_EXPR_STMT:
		sema_expr_stmt(ctx, n);
		break;
	case NODE_ASSIGN:
		sema_assign(ctx, n);
		break;
	case NODE_LET:
		sema_let(ctx, n);
		break;
	case NODE_IF:
		sema_if(ctx, n);
		break;
	case NODE_BLOCK:
		sema_scoped_block(ctx, n);
		break;
	case NODE_WHILE:
		if (ctx->report)
			diag_warn(
				ctx->d, n->loc,
				"for loops take ranges (for ($i : $start..$end) { ... }), which the "
				"verifier proves bounded more easily",
				"While loops are deprecated and may be removed in the future.");
		sema_expr(ctx, n->cond);
		sema_need_int(ctx, n->cond, "a loop condition");
		ctx->loops++;
		sema_scoped_block(ctx, n->body);
		ctx->loops--;
		break;
	case NODE_UNROLL:
		if (n->cond && n->cond->kind == NODE_POSPARAM) {
			sema_expr(ctx, n->cond);
			if (n->cond->kind != NODE_INT) {
				sema_error(ctx, n->cond->loc,
					   ctx->prog->opts->emit_elf
						   ? "with --emit-elf, $N is only known where the "
						     "object runs"
						   : NULL,
					   "unroll(%s) needs a number known when compiling",
					   ctx->prog->opts->emit_elf ? "$N" : "$N's text");
				break;
			}
		}
		if (n->cond)
			n->num = n->cond->num;
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
		if (!n->lhs)
			break;
		sema_expr(ctx, n->lhs);
		if (n->lhs->type.kind != TYPE_NONE && !sema_is_int(&n->lhs->type))
			sema_error(ctx, n->lhs->loc, NULL,
				   "probe return values can only be integers, not %s",
				   type_name(ctx->a, &n->lhs->type));
		break;
	default:
		sema_error(ctx, n->loc, NULL, "expected a statement, found a %s",
			   node_kind_name(n->kind));
	}
}

/*
 * Whether a statement never lets the next one run, as bpftrace 0.27 sees it: return, exit(),
 * break and continue (inside a loop), a block that has one, an if whose branches both have one.
 * Loops do not count: their body may not run.
 */
static bool sema_ends_flow(const struct node *n)
{
	switch (n->kind) {
	case NODE_RETURN:
	case NODE_BREAK:
	case NODE_CONTINUE:
		return true;
	case NODE_EXPR_STMT:
		return n->lhs && n->lhs->kind == NODE_CALL && n->lhs->func == FN_EXIT;
	case NODE_BLOCK:
		for (const struct node *s = n->body; s; s = s->next)
			if (sema_ends_flow(s))
				return true;
		return false;
	case NODE_IF:
		return n->body && n->else_body && sema_ends_flow(n->body) &&
		       sema_ends_flow(n->else_body);
	default:
		return false;
	}
}

static void sema_block(struct sema_ctx *ctx, struct node *n)
{
	bool warned = false;

	for (struct node *s = n->body; s; s = s->next) {
		sema_stmt(ctx, s);
		if (s->next && !warned && ctx->report && sema_ends_flow(s)) {
			diag_warn(ctx->d, s->next->loc, "the statements after it never run",
				  "Unreachable statement.");
			warned = true;
		}
	}
}

/*
 * A probe that reads no argument: its trampoline matches may share one tracing multi program
 * (AOT_PROBE_NO_ARGS), unless --no-multi asks for a program or clone per function.
 */
static void sema_flag_no_args(struct sema_ctx *ctx, struct node *p)
{
	if (ctx->prog->opts->no_multi)
		return;
	for (struct node *ap = p->args; ap; ap = ap->next)
		for (uint32_t i = 0; i < ap->nmatches; i++)
			if (ap->matches[i].pt->can_alias)
				ctx->prog->meta->probes[ap->matches[i].meta_idx].flags |=
					AOT_PROBE_NO_ARGS;
}

/*
 * let $x with no value ever given to it, as bpftrace 0.27 warns; the list is newest first, the
 * warnings come in the program's order.
 */
static void sema_never_assigned(struct sema_ctx *ctx, const struct var_info *v)
{
	if (!v)
		return;
	sema_never_assigned(ctx, v->next);
	if (v->declared && !v->assigned && v->read_early.line)
		sema_error(ctx, v->read_early,
			   arena_printf(ctx->a, "give it a type: let %s: int64;", v->name),
			   "variable %s is read but never assigned: its type is not known",
			   v->name);
	else if (v->declared && !v->assigned)
		diag_warn(ctx->d, v->first, "give it a value: let $x = ...",
			  "Variable %s was never assigned to.", v->name + (v->name[0] == ' '));
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
			ctx->reads_args = false;
			if (p->cond) {
				sema_expr(ctx, p->cond);
				sema_need_int(ctx, p->cond, "a predicate");
			}
			sema_block(ctx, p->body);
			if (ctx->report && !ctx->reads_args)
				sema_flag_no_args(ctx, p);
			if (ctx->report)
				sema_never_assigned(ctx, p->vars);
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

/* The map types a declaration names (let @m = lruhash(N)), as bpftrace 0.25 has them. */
static const char *const sema_map_kinds[] = { "hash", "lruhash", "percpuhash", "percpulruhash" };

/*
 * let @m = KIND(N): ties each declaration to its map, once the walks have typed the maps. A
 * per-CPU kind holds aggregations (count(), sum(), hist() ...), the others plain values.
 */
static void sema_mapdecls(struct sema_ctx *ctx)
{
	for (struct node *n = ctx->prog->root->body; n; n = n->next) {
		struct map_info *mi;
		bool percpu;

		if (n->kind != NODE_MAPDECL)
			continue;
		if (!PARSE_IN(n->str, sema_map_kinds)) {
			sema_error(ctx, n->loc,
				   "map types: hash, lruhash, percpuhash, percpulruhash",
				   "unknown map type '%s'", n->str);
			continue;
		}
		if (!n->num || n->num > UINT32_MAX) {
			sema_error(ctx, n->loc, "a map holds 1 to 4294967295 entries",
				   "%s cannot hold %" PRIu64 " entries", n->name, n->num);
			continue;
		}
		for (mi = ctx->prog->maps; mi && strcmp(mi->name, n->name); mi = mi->next)
			;
		if (!mi) {
			diag_warn(ctx->d, n->loc, "use it, or leave the declaration out",
				  "Unused map: %s", n->name);
			continue;
		}
		/* A later declaration of the same map wins, as in bpftrace. */
		mi->decl = n;
		percpu = !strncmp(n->str, "percpu", 6);
		if (percpu != type_is_agg(&mi->value))
			sema_error(
				ctx, mi->first_use,
				percpu ? "a per-CPU map holds count(), sum(), hist() and the "
					 "other aggregations: declare it hash(N) or lruhash(N)"
				       : "an aggregation is kept per CPU: declare it percpuhash(N) "
					 "or percpulruhash(N)",
				"%s is declared %s at line %u, but holds %s", n->name, n->str,
				n->loc.line, percpu ? "plain values" : "an aggregation");
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
	sema_sizeof_finish(&ctx);
	sema_cast_finish(&ctx);
	sema_mapdecls(&ctx);
	sema_getopt_finish(&ctx);
	if (d->nerrors > errors)
		return -EINVAL;
	return sema_lower(&ctx);
}
