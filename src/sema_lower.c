// SPDX-License-Identifier: GPL-2.0
/*
 * Lowering, the last step of the semantic pass on a program that checked clean: every place a
 * value meets a slot of another type gets an explicit NODE_CAST, and the layouts of maps and
 * printf records go into the metadata the runtime reads.
 */
#include <errno.h>
#include <string.h>

#include "arena.h"
#include "meta.h"
#include "sema_types.h"

/* Turns n into a cast of (a copy of) itself, keeping its place in its list. */
static void lower_cast(struct sema_ctx *ctx, struct node *n, const struct type *to)
{
	struct node *copy, *next = n->next;

	if (n->type.kind == TYPE_NONE || to->kind == TYPE_NONE || type_equal(&n->type, to))
		return;
	copy = arena_alloc(ctx->a, sizeof(*copy));
	*copy = *n;
	copy->next = NULL;
	*n = (struct node){ .kind = NODE_CAST, .loc = copy->loc, .type = *to, .lhs = copy, .next = next };
}

static void lower_cast_int64(struct sema_ctx *ctx, struct node *n)
{
	struct type t = type_int(8, n->type.is_signed);

	if (n->type.kind == TYPE_INT || n->type.kind == TYPE_BOOL)
		lower_cast(ctx, n, &t);
}

static struct aot_type lower_meta_type(struct aot_meta *m, const struct type *t)
{
	struct aot_type at = { .size = t->size, .is_signed = t->is_signed };
	int first;

	switch (t->kind) {
	case TYPE_INT:
	case TYPE_PTR: /* an address, shown as an integer */
		at.kind = AOT_K_INT;
		break;
	case TYPE_BOOL:
		at.kind = AOT_K_BOOL;
		break;
	case TYPE_STR:
		at.kind = AOT_K_STR;
		break;
	case TYPE_TUPLE:
		at.kind = AOT_K_TUPLE;
		first = aot_meta_add_elems(m, t->nelems);
		if (first < 0)
			return (struct aot_type){ 0 };
		at.nelems = t->nelems;
		at.elems = (uint32_t)first;
		for (uint32_t i = 0; i < t->nelems; i++) {
			/* The recursion may grow m->elems: index it only afterwards. */
			struct aot_type et = lower_meta_type(m, &t->elems[i]);

			m->elems[first + i].offset = t->offsets[i];
			m->elems[first + i].type = et;
		}
		break;
	default:
		at.kind = AOT_K_NONE;
	}
	return at;
}

/* printf conversions: flags, width, precision, length, then one of these. */
static const char *printf_next_conv(const char *p, char *conv)
{
	for (; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		p++;
		p += strspn(p, "-+ #0");
		p += strspn(p, "0123456789");
		if (*p == '.') {
			p++;
			p += strspn(p, "0123456789");
		}
		p += strspn(p, "hlzjt");
		*conv = *p;
		return *p ? p + 1 : p;
	}
	return NULL;
}

int sema_printf_check(struct sema_ctx *ctx, struct node *call)
{
	const char *p = call->args->str;
	struct node *arg = call->args->next;
	int nconv = 0, nargs = 0;
	char conv;

	for (struct node *a = arg; a; a = a->next)
		nargs++;
	while ((p = printf_next_conv(p, &conv))) {
		nconv++;
		if (!strchr("diuxXocsp", conv) || !conv) {
			diag_error(ctx->d, call->args->loc, "conversions: %d %i %u %x %X %o %c %s %p %%",
				   "printf: unknown conversion '%%%c'", conv ? conv : ' ');
			return -EINVAL;
		}
		if (!arg)
			continue;
		if (arg->type.kind != TYPE_NONE) {
			bool want_str = conv == 's';
			bool is_str = arg->type.kind == TYPE_STR;

			if (want_str != is_str || (!is_str && arg->type.kind != TYPE_INT &&
						   arg->type.kind != TYPE_BOOL))
				diag_error(ctx->d, arg->loc, want_str ? "use %d, %u or %x for integers" : "use %s for strings",
					   "printf: %%%c cannot print %s", conv,
					   type_name(ctx->a, &arg->type));
		}
		arg = arg->next;
	}
	if (nconv != nargs) {
		diag_error(ctx->d, call->loc, NULL,
			   "printf: the format has %d conversion%s but %d argument%s follow%s", nconv,
			   nconv == 1 ? "" : "s", nargs, nargs == 1 ? "" : "s", nargs == 1 ? "s" : "");
		return -EINVAL;
	}
	return 0;
}

static int lower_printf(struct sema_ctx *ctx, struct node *call)
{
	struct type *elems, layout;
	struct aot_fmt fmt;
	uint32_t n = 0, i = 0;
	int idx;

	for (struct node *a = call->args->next; a; a = a->next)
		n++;
	elems = arena_alloc(ctx->a, (n ? n : 1) * sizeof(*elems));
	for (struct node *a = call->args->next; a; a = a->next)
		elems[i++] = type_storage(ctx->a, &a->type);
	layout = type_tuple(ctx->a, elems, n);
	i = 0;
	for (struct node *a = call->args->next; a; a = a->next)
		lower_cast(ctx, a, &layout.elems[i++]);
	fmt = (struct aot_fmt){ .kind = AOT_FMT_PRINTF, .fmt = call->args->str };
	fmt.args = lower_meta_type(ctx->prog->meta, &layout);
	idx = aot_meta_add_fmt(ctx->prog->meta, &fmt);
	if (idx < 0)
		return idx;
	call->idx = (uint32_t)idx;
	return 0;
}

static int lower_expr(struct sema_ctx *ctx, struct node *n);

static int lower_list(struct sema_ctx *ctx, struct node *n)
{
	int ret = 0;

	for (; n && !ret; n = n->next)
		ret = lower_expr(ctx, n);
	return ret;
}

static void lower_map_keys(struct sema_ctx *ctx, struct node *n)
{
	struct map_info *m = n->map;
	uint32_t i = 0;

	if (m->nkeys == 1) {
		lower_cast(ctx, n->args, &m->key);
		return;
	}
	for (struct node *k = n->args; k; k = k->next)
		lower_cast(ctx, k, &m->key.elems[i++]);
}

static int lower_expr(struct sema_ctx *ctx, struct node *n)
{
	int ret;

	if (!n)
		return 0;
	switch (n->kind) {
	case NODE_VAR:
		n->type = n->var->type;
		return 0;
	case NODE_MAP:
		ret = lower_list(ctx, n->args);
		lower_map_keys(ctx, n);
		return ret;
	case NODE_CALL:
		ret = lower_list(ctx, n->func == FN_PRINTF ? n->args->next : n->args);
		if (ret)
			return ret;
		if (n->func == FN_PRINTF)
			return lower_printf(ctx, n);
		for (struct node *a = n->args; a; a = a->next)
			lower_cast_int64(ctx, a);
		return 0;
	case NODE_BINOP:
		ret = lower_expr(ctx, n->lhs) ?: lower_expr(ctx, n->rhs);
		lower_cast_int64(ctx, n->lhs);
		lower_cast_int64(ctx, n->rhs);
		return ret;
	case NODE_UNOP:
		ret = lower_expr(ctx, n->lhs);
		lower_cast_int64(ctx, n->lhs);
		return ret;
	case NODE_TERNARY:
		ret = lower_expr(ctx, n->cond) ?: lower_expr(ctx, n->lhs) ?: lower_expr(ctx, n->rhs);
		lower_cast_int64(ctx, n->cond);
		lower_cast(ctx, n->lhs, &n->type);
		lower_cast(ctx, n->rhs, &n->type);
		return ret;
	case NODE_CAST:
		return lower_expr(ctx, n->lhs);
	case NODE_TUPLE: {
		uint32_t i = 0;

		ret = lower_list(ctx, n->args);
		for (struct node *e = n->args; e; e = e->next)
			lower_cast(ctx, e, &n->type.elems[i++]);
		return ret;
	}
	default:
		return 0;
	}
}

static int lower_stmt(struct sema_ctx *ctx, struct node *n)
{
	int ret = 0;

	switch (n->kind) {
	case NODE_EXPR_STMT:
		return lower_expr(ctx, n->lhs);
	case NODE_ASSIGN:
		ret = lower_expr(ctx, n->lhs) ?: lower_expr(ctx, n->rhs);
		if (n->lhs->kind == NODE_VAR)
			lower_cast(ctx, n->rhs, &n->lhs->var->type);
		else if (!type_is_agg(&n->lhs->map->value))
			lower_cast(ctx, n->rhs, &n->lhs->map->value);
		return ret;
	case NODE_IF:
		ret = lower_expr(ctx, n->cond);
		lower_cast_int64(ctx, n->cond);
		for (struct node *s = n->body->body; s && !ret; s = s->next)
			ret = lower_stmt(ctx, s);
		return ret ?: (n->else_body ? lower_stmt(ctx, n->else_body) : 0);
	case NODE_WHILE:
		ret = lower_expr(ctx, n->cond);
		lower_cast_int64(ctx, n->cond);
		return ret ?: lower_stmt(ctx, n->body);
	case NODE_UNROLL:
		return lower_stmt(ctx, n->body);
	case NODE_BLOCK:
		for (struct node *s = n->body; s && !ret; s = s->next)
			ret = lower_stmt(ctx, s);
		return ret;
	default:
		return 0;
	}
}

static int lower_maps(struct sema_ctx *ctx)
{
	static const uint32_t agg_of[] = {
		[TYPE_COUNT] = AOT_AGG_COUNT, [TYPE_SUM] = AOT_AGG_SUM, [TYPE_MIN] = AOT_AGG_MIN,
		[TYPE_MAX] = AOT_AGG_MAX,     [TYPE_AVG] = AOT_AGG_AVG,
	};
	struct aot_meta *meta = ctx->prog->meta;

	for (struct map_info *m = ctx->prog->maps; m; m = m->next) {
		struct aot_map am = { .name = m->name, .elf_name = m->elf_name, .nkeys = m->nkeys };
		struct type in = type_int(8, m->value.is_signed);
		int idx;

		if (type_is_agg(&m->value))
			am.agg = agg_of[m->value.kind];
		am.key = lower_meta_type(meta, &m->key);
		am.value = lower_meta_type(meta, am.agg ? &in : &m->value);
		idx = aot_meta_add_map(meta, &am);
		if (idx < 0)
			return idx;
		m->meta_idx = (uint32_t)idx;
	}
	return 0;
}

int sema_lower(struct sema_ctx *ctx)
{
	int ret = 0;

	for (struct node *p = ctx->prog->root->body; p && !ret; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		ctx->probe = p;
		if (p->cond) {
			ret = lower_expr(ctx, p->cond);
			lower_cast_int64(ctx, p->cond);
		}
		if (!ret)
			ret = lower_stmt(ctx, p->body);
	}
	return ret ?: lower_maps(ctx);
}
