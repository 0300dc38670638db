// SPDX-License-Identifier: GPL-2.0
/*
 * The narrow types of bpftrace 0.27, where a program can see them: typeof(), sizeof() and the
 * width of -x and ~x. Values stay 64 bits wide in registers and slots (type_storage); beside that,
 * each variable and map remembers the type 0.27 would give it, and literals get the smallest
 * signed type that holds them.
 */
#include "arena.h"
#include "sema_types.h"

bool sema_fold_op(int op, int64_t l, int64_t r, int64_t *v)
{
	switch (op) {
	case '+':
		*v = (int64_t)((uint64_t)l + (uint64_t)r);
		return true;
	case '-':
		*v = (int64_t)((uint64_t)l - (uint64_t)r);
		return true;
	case '*':
		*v = (int64_t)((uint64_t)l * (uint64_t)r);
		return true;
	case '/':
	case '%':
		if (!r || (l == INT64_MIN && r == -1))
			return false;
		*v = op == '/' ? l / r : l % r;
		return true;
	case OP_SHL:
		*v = (int64_t)((uint64_t)l << (r & 63));
		return true;
	case OP_SHR:
		*v = l >> (r & 63);
		return true;
	case '&':
		*v = l & r;
		return true;
	case '|':
		*v = l | r;
		return true;
	case '^':
		*v = l ^ r;
		return true;
	default:
		return false;
	}
}

/* A literal expression: integers and operators on them, folded as 0.27 folds them. */
static bool narrow_literal(const struct node *n, int64_t *v, bool *is_big)
{
	int64_t l, r;
	bool big;

	*is_big = false;
	switch (n->kind) {
	case NODE_INT:
		if (n->type.enm) /* an enumerator is an int64 of its enum in 0.27, no literal */
			return false;
		*v = (int64_t)n->num;
		*is_big = n->num > INT64_MAX;
		return true;
	case NODE_UNOP:
		if ((n->op != '-' && n->op != '~') || !narrow_literal(n->lhs, &l, &big) || big)
			return false;
		*v = n->op == '-' ? (int64_t)(0 - (uint64_t)l) : ~l;
		return true;
	case NODE_BINOP:
		if (!narrow_literal(n->lhs, &l, &big) || big || !narrow_literal(n->rhs, &r, &big) ||
		    big)
			return false;
		break;
	default:
		return false;
	}
	return sema_fold_op(n->op, l, r, v);
}

bool sema_is_literal(const struct node *n)
{
	int64_t v;
	bool big;

	return narrow_literal(n, &v, &big);
}

/* 0, 1 and -1 are int8, 128 and -129 int16, ...; past INT64_MAX a literal is a uint64. */
static struct type narrow_literal_type(int64_t v, bool is_big)
{
	if (is_big)
		return type_int(8, false);
	if (v >= INT8_MIN && v <= INT8_MAX)
		return type_int(1, true);
	if (v >= INT16_MIN && v <= INT16_MAX)
		return type_int(2, true);
	if (v >= INT32_MIN && v <= INT32_MAX)
		return type_int(4, true);
	return type_int(8, true);
}

struct type sema_narrow(struct sema_ctx *ctx, const struct node *n)
{
	struct type t, *elems;
	int64_t v;
	bool big;
	uint32_t count = 0, i = 0;

	if (narrow_literal(n, &v, &big))
		return narrow_literal_type(v, big);
	switch (n->kind) {
	case NODE_VAR:
		if (n->var)
			return sema_narrow_of(ctx, &n->var->narrow, &n->type);
		break;
	case NODE_MAP:
		if (n->map)
			return sema_narrow_of(ctx, &n->map->narrow, &n->type);
		break;
	case NODE_NAMED:
		return sema_narrow(ctx, n->lhs);
	case NODE_TERNARY:
		/* literals all three: folded when compiling */
		if (n->lhs && narrow_literal(n->cond, &v, &big) && sema_is_literal(n->lhs) &&
		    sema_is_literal(n->rhs))
			return sema_narrow(ctx, v || big ? n->lhs : n->rhs);
		break;
	case NODE_BLOCK:
		if (n->lhs)
			return sema_narrow(ctx, n->lhs);
		break;
	case NODE_UNOP:
		/* -x and ~x keep an unsigned x's width in their value, but 0.27 sizes them 8 */
		if ((n->op == '-' || n->op == '~') && n->type.kind == TYPE_INT)
			return type_int(8, n->type.is_signed);
		break;
	case NODE_TUPLE:
		if (n->type.kind != TYPE_TUPLE)
			break;
		for (const struct node *e = n->args; e; e = e->next)
			count++;
		elems = arena_alloc(ctx->a, (count ? count : 1) * sizeof(*elems));
		for (const struct node *e = n->args; e; e = e->next, i++) {
			elems[i] = sema_narrow(ctx, e);
			elems[i].is_lit =
				narrow_literal(e->kind == NODE_NAMED ? e->lhs : e, &v, &big) &&
				v >= 0 && !big;
		}
		t = type_tuple(ctx->a, elems, count);
		t.names = n->type.names;
		return t;
	default:
		break;
	}
	return n->type;
}

/*
 * The type 0.27 gives a slot that holds both a and b: the larger of two of one sign; of two signs,
 * the unsigned one if the signed one is a literal that is never negative (literals are flexible),
 * else a signed one that holds both, else int64.
 */
static struct type narrow_merge(struct type a, bool a_lit, struct type b, bool b_lit)
{
	struct type s, u;
	bool s_lit;

	if (a.enm != b.enm) /* a slot keeps an enum only if all its values are of it */
		a.enm = b.enm = NULL;
	if (a.is_signed == b.is_signed)
		return a.size >= b.size ? a : b;
	s = a.is_signed ? a : b;
	u = a.is_signed ? b : a;
	s_lit = a.is_signed ? a_lit : b_lit;
	if (s_lit)
		return type_int(s.size > u.size ? s.size : u.size, false);
	if (s.size > u.size)
		return s;
	return type_int(u.size < 8 ? u.size * 2 : 8, true);
}

/*
 * A tuple slot that holds both a and b, element by element: integers as narrow_merge has them
 * (is_lit marks the literal ones), anything else the larger of the two (strings of two lengths).
 */
static struct type narrow_merge_tuple(struct sema_ctx *ctx, const struct type *a,
				      const struct type *b)
{
	struct type *elems = arena_alloc(ctx->a, a->nelems * sizeof(*elems)), t;

	for (uint32_t i = 0; i < a->nelems; i++) {
		const struct type *x = &a->elems[i], *y = &b->elems[i];

		if (x->kind == TYPE_INT && y->kind == TYPE_INT) {
			elems[i] = narrow_merge(*x, x->is_lit, *y, y->is_lit);
			elems[i].is_lit = x->is_lit && y->is_lit;
		} else if (x->kind == TYPE_TUPLE && y->kind == TYPE_TUPLE &&
			   x->nelems == y->nelems) {
			elems[i] = narrow_merge_tuple(ctx, x, y);
		} else {
			elems[i] = x->size >= y->size ? *x : *y;
		}
	}
	t = type_tuple(ctx->a, elems, a->nelems);
	t.names = a->names;
	return t;
}

/*
 * The narrow type of a slot of type full whose values had the narrow type narrow: the narrow
 * integers, the rest (strings that grew, say) as the slot has them; full itself where the two
 * do not match (narrow TYPE_NONE: not only integers were given to it).
 */
struct type sema_narrow_of(struct sema_ctx *ctx, const struct type *narrow, const struct type *full)
{
	if (narrow->kind == TYPE_TUPLE && full->kind == TYPE_TUPLE &&
	    narrow->nelems == full->nelems) {
		struct type *elems = arena_alloc(ctx->a, full->nelems * sizeof(*elems)), t;

		for (uint32_t i = 0; i < full->nelems; i++)
			elems[i] = sema_narrow_of(ctx, &narrow->elems[i], &full->elems[i]);
		t = type_tuple(ctx->a, elems, full->nelems);
		t.names = full->names;
		return t;
	}
	if (narrow->kind == TYPE_INT && full->kind == TYPE_INT)
		return *narrow;
	return *full;
}

void sema_narrow_assign(struct sema_ctx *ctx, struct type *into, bool *into_lit,
			const struct node *rhs)
{
	struct type t = sema_narrow(ctx, rhs);
	int64_t v;
	bool big, lit = narrow_literal(rhs, &v, &big) && v >= 0;

	if (t.kind == TYPE_TUPLE) {
		if (into->kind == TYPE_TUPLE && into->nelems == t.nelems)
			*into = narrow_merge_tuple(ctx, into, &t);
		else
			*into = t;
		*into_lit = false;
		return;
	}
	if (t.kind != TYPE_INT) {
		into->kind = TYPE_NONE;
		return;
	}
	if (into->kind != TYPE_INT) {
		*into = t;
		*into_lit = lit;
		return;
	}
	*into = narrow_merge(*into, *into_lit, t, lit);
	*into_lit = *into_lit && lit;
}
