// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of bpftrace 0.27's diagnostics in the language (docs/stdlib.md): errorf() and
 * warnf(), printfs that the runtime reports as an error or warning of their call site; assert(),
 * an errorf and exit(1) when its condition is false; fail() and static_assert(), errors of the
 * compilation itself.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "funcs.h"
#include "sema_types.h"

/*
 * The columns a call takes on its line, from its name to its closing parenthesis (bpftrace's
 * location spans the whole call: stdin:1:9-29). The name's length if it does not end there.
 */
static uint32_t sema_call_width(const struct source *src, struct loc loc)
{
	const char *p, *end;
	size_t len;
	int depth = 0;

	p = loc.line ? diag_line(src, loc.line, &len) : NULL;
	if (!p || len < loc.col - 1)
		return loc.len;
	end = p + len;
	/* a builtin (cpid) without parentheses is its name */
	if (p + loc.col - 1 + loc.len >= end || p[loc.col - 1 + loc.len] != '(')
		return loc.len;
	for (const char *c = p + loc.col - 1; c < end; c++) {
		if (*c == '"') {
			for (c++; c < end && *c != '"'; c++)
				if (*c == '\\' && c + 1 < end)
					c++;
		} else if (*c == '(') {
			depth++;
		} else if (*c == ')' && --depth == 0) {
			return (uint32_t)(c - (p + loc.col - 1)) + 1;
		}
	}
	return loc.len;
}

/* At run time bpftrace 0.27 names a -e program "stdin", as it names one read from stdin. */
static const char *sema_site_file(struct sema_ctx *ctx, struct loc loc)
{
	const struct source *src = diags_source(ctx->d, loc);

	return src && src->name && strcmp(src->name, "-e") ? src->name : "stdin";
}

/*
 * "FILE:L:C-E: LEVEL: expanded from", the source line and ~ under the call, for the call at loc
 * and each macro call it was expanded from, innermost first, as bpftrace 0.27 prints them after
 * an errorf() in a macro (assert() is one of its standard library). Lines end in RS.
 */
static const char *sema_expanded_from(struct sema_ctx *ctx, struct loc at, const char *level)
{
	const char *out = "";

	for (uint32_t hops = 0; hops < 64; hops++) {
		const struct source *src = diags_source(ctx->d, at);
		struct loc wide = at;
		char *excerpt;

		wide.len = sema_call_width(src, at);
		excerpt = diag_excerpt(src, wide);
		for (char *c = excerpt; c && *c; c++)
			if (*c == '\n')
				*c = AOT_SITE_RS;
		out = arena_printf(ctx->a, "%s%s:%u:%u-%u: %s: expanded from%c%s%c", out,
				   sema_site_file(ctx, at), at.line, at.col, at.col + wide.len,
				   level, AOT_SITE_RS, excerpt ? excerpt : "", AOT_SITE_RS);
		free(excerpt);
		if (!at.exp || at.exp > ctx->d->nexps)
			break;
		at = ctx->d->exps[at.exp - 1].call;
	}
	return out;
}

/*
 * The calls that are macros of bpftrace 0.27's stdlib/base.bt, whose errorf() or warnf() its
 * reports name: assert()'s errorf at line 6, columns 5-37; cpid's warnf without a child at line
 * 208, columns 5-51; comm(pid)'s "No such process" at line 176, columns 7-46. The call is then
 * the place it was expanded from, through the macro at via when its argument is not a variable
 * (comm(arg_pid) at line 188 calls comm($pid)).
 */
static const struct sema_stdlib_site {
	enum func func;
	uint32_t line, col, end;
	uint32_t via_line, via_col;
	const char *via; /* the macro's call as its line shows it */
} sema_stdlib_sites[] = {
	{ FN_ASSERT, 6, 5, 37 },
	{ FN_CPID, 208, 5, 51 },
	{ FN_COMM, 176, 7, 46, 188, 3, "  comm($pid)" },
};

static const struct sema_stdlib_site *sema_stdlib_site(enum func func)
{
	for (size_t i = 0; i < sizeof(sema_stdlib_sites) / sizeof(sema_stdlib_sites[0]); i++)
		if (sema_stdlib_sites[i].func == func)
			return &sema_stdlib_sites[i];
	return NULL;
}

const char *sema_call_site(struct sema_ctx *ctx, const struct node *n, const char *fmt)
{
	const struct source *src = diags_source(ctx->d, n->loc);
	const char *level = n->func == FN_WARNF || n->func == FN_CPID || n->func == FN_COMM
				    ? "WARNING"
				    : "ERROR";
	const char *file = sema_site_file(ctx, n->loc), *from = "";
	const struct sema_stdlib_site *site = sema_stdlib_site(n->func);
	struct loc at = n->loc;
	uint32_t end = at.col + sema_call_width(src, at);

	if (site) {
		from = sema_expanded_from(ctx, at, level);
		if (site->via && n->args && n->args->kind != NODE_VAR) {
			size_t len = strlen(site->via) - 2;
			char *tilde = arena_alloc(ctx->a, len + 1);

			memset(tilde, '~', len);
			from = arena_printf(
				ctx->a, "stdlib/base.bt:%u:%u-%zu: %s: expanded from%c%s%c  %s%c%s",
				site->via_line, site->via_col, site->via_col + len, level,
				AOT_SITE_RS, site->via, AOT_SITE_RS, tilde, AOT_SITE_RS, from);
		}
		file = "stdlib/base.bt";
		at = (struct loc){ .line = site->line, .col = site->col };
		end = site->end;
	} else if (at.exp && at.exp <= ctx->d->nexps) {
		from = sema_expanded_from(ctx, ctx->d->exps[at.exp - 1].call, level);
	}
	return arena_printf(ctx->a, "%s:%u:%u-%u%s%s\n%u\n%u\n%s\n%s", file, at.line, at.col, end,
			    from[0] ? (char[]){ AOT_SITE_US, 0 } : "", from, at.line, at.col, file,
			    fmt);
}

static void sema_assert_args(struct sema_ctx *ctx, struct node *first)
{
	for (struct node *a = first; a; a = a->next)
		sema_expr(ctx, a);
}

const char *sema_site_excerpt(struct sema_ctx *ctx, struct loc at, const char *fmt)
{
	const char *file = sema_site_file(ctx, at);
	char *excerpt = diag_excerpt(diags_source(ctx->d, at), at);
	const char *site;

	for (char *c = excerpt; c && *c; c++)
		if (*c == '\n')
			*c = AOT_SITE_RS;
	site = arena_printf(ctx->a, "%s:%u:%u-%u%c%s%c\n%u\n%u\n%s\n%s", file, at.line, at.col,
			    at.col + at.len, AOT_SITE_US, excerpt ? excerpt : "", AOT_SITE_RS,
			    at.line, at.col, file, fmt);
	free(excerpt);
	return site;
}

/* assert(condition, message): an integer or bool, and a string. */
void sema_fn_assert(struct sema_ctx *ctx, struct node *n)
{
	struct node *cond = n->args, *msg = cond->next;

	sema_assert_args(ctx, n->args);
	sema_need_int(ctx, cond, "the condition of assert()");
	if (msg->type.kind != TYPE_NONE && msg->type.kind != TYPE_STR)
		sema_error(ctx, msg->loc, NULL, "assert()'s message is a string, not %s",
			   type_name(ctx->a, &msg->type));
}

/* ---- known while compiling: fail(), static_assert() ---- */

/* The value of a literal, or of operators on literals; false if it is not known. */
static bool sema_comptime(const struct node *n, int64_t *v)
{
	int64_t l, r;

	if (!n)
		return false;
	if (n->kind == NODE_BOOL || n->kind == NODE_INT) {
		*v = (int64_t)n->num;
		return true;
	}
	if (n->kind == NODE_CAST)
		return sema_comptime(n->lhs, v);
	if (n->kind == NODE_UNOP && !n->is_post && sema_comptime(n->lhs, &l)) {
		switch (n->op) {
		case '!':
			*v = !l;
			return true;
		case '-':
			*v = (int64_t)(0 - (uint64_t)l);
			return true;
		case '~':
			*v = ~l;
			return true;
		}
		return false;
	}
	if (n->kind != NODE_BINOP)
		return false;
	if (n->lhs->kind == NODE_STR && n->rhs->kind == NODE_STR &&
	    (n->op == OP_EQ || n->op == OP_NE)) {
		bool same = n->lhs->str_len == n->rhs->str_len &&
			    !memcmp(n->lhs->str, n->rhs->str, n->lhs->str_len);

		*v = n->op == OP_EQ ? same : !same;
		return true;
	}
	if (!sema_comptime(n->lhs, &l) || !sema_comptime(n->rhs, &r))
		return false;
	switch (n->op) {
	case OP_EQ:
		*v = l == r;
		break;
	case OP_NE:
		*v = l != r;
		break;
	case '<':
		*v = l < r;
		break;
	case '>':
		*v = l > r;
		break;
	case OP_LE:
		*v = l <= r;
		break;
	case OP_GE:
		*v = l >= r;
		break;
	case OP_AND:
		*v = l && r;
		break;
	case OP_OR:
		*v = l || r;
		break;
	case '+':
		*v = (int64_t)((uint64_t)l + (uint64_t)r);
		break;
	case '-':
		*v = (int64_t)((uint64_t)l - (uint64_t)r);
		break;
	case '*':
		*v = (int64_t)((uint64_t)l * (uint64_t)r);
		break;
	case '/':
		*v = r ? l / r : 0;
		break;
	case '%':
		*v = r ? l % r : 0;
		break;
	case '&':
		*v = l & r;
		break;
	case '|':
		*v = l | r;
		break;
	case '^':
		*v = l ^ r;
		break;
	case OP_SHL:
		*v = (int64_t)((uint64_t)l << (r & 63));
		break;
	case OP_SHR:
		*v = l >> (r & 63);
		break;
	default:
		return false;
	}
	return true;
}

/*
 * fmt with the literal arguments from a, as printf would write them: each conversion with its
 * flags and width, the length modifiers dropped (the values are 64-bit here).
 */
static const char *sema_format_literals(struct sema_ctx *ctx, const char *fmt, struct node *a)
{
	const char *s = "";

	while (*fmt) {
		size_t plain = strcspn(fmt, "%");
		char spec[32];
		size_t k = 0;
		char conv;

		s = arena_printf(ctx->a, "%s%.*s", s, (int)plain, fmt);
		fmt += plain;
		if (!*fmt)
			break;
		if (fmt[1] == '%') {
			s = arena_printf(ctx->a, "%s%%", s);
			fmt += 2;
			continue;
		}
		spec[k++] = *fmt++;
		while (*fmt && strchr("-+ #0123456789.", *fmt) && k < sizeof(spec) - 4)
			spec[k++] = *fmt++;
		fmt += strspn(fmt, "hlzjt");
		conv = *fmt ? *fmt++ : 's';
		if (!a) {
			spec[k] = '\0';
			s = arena_printf(ctx->a, "%s%s%c", s, spec, conv);
			continue;
		}
		if (a->kind == NODE_STR) {
			spec[k++] = 's';
			spec[k] = '\0';
			s = arena_printf(ctx->a, "%s%s", s, arena_printf(ctx->a, spec, a->str));
		} else {
			if (conv != 'c') {
				spec[k++] = 'l';
				spec[k++] = 'l';
			}
			spec[k++] = strchr("diuxXoc", conv) ? conv : 'd';
			spec[k] = '\0';
			s = arena_printf(ctx->a, "%s%s", s,
					 conv == 'c'
						 ? arena_printf(ctx->a, spec, (int)a->num)
						 : arena_printf(ctx->a, spec, (long long)a->num));
		}
		a = a->next;
	}
	return s;
}

/*
 * fail(fmt, args...): an error of the compilation where it is written, its text formatted
 * from literal arguments (bpftrace 0.27 fails wherever the check visits it: aotrace has no
 * `if comptime` to skip it).
 */
void sema_fn_fail(struct sema_ctx *ctx, struct node *n)
{
	struct node *fmt = n->args;

	sema_assert_args(ctx, n->args);
	if (fmt->kind != NODE_STR) {
		sema_error(ctx, fmt->loc, "write the format as a string literal",
			   "fail() needs a literal format string");
		return;
	}
	for (struct node *a = fmt->next; a; a = a->next)
		if (a->kind != NODE_STR && a->kind != NODE_INT && a->kind != NODE_BOOL) {
			sema_error(ctx, a->loc, "fail() formats its message while compiling",
				   "fail()'s arguments are literals");
			return;
		}
	sema_error(ctx, n->loc, NULL, "%s", sema_format_literals(ctx, fmt->str, fmt->next));
}

/* static_assert(condition, message): the condition is known while compiling, and true. */
/*
 * assert_str(v) (bpftrace 0.27's stdlib): v must be string-like, a string, an array or a
 * pointer, else the error 0.27.1 gives; checked while compiling, v is not evaluated.
 */
void sema_fn_assert_str(struct sema_ctx *ctx, struct node *n)
{
	struct node *v = n->args;

	sema_expr(ctx, v);
	if (v->type.kind != TYPE_NONE && v->type.kind != TYPE_STR && v->type.kind != TYPE_ARRAY &&
	    v->type.kind != TYPE_PTR)
		sema_error(ctx, v->loc, NULL,
			   "string-like values must be either strings, arrays or pointers");
	else if ((v->type.kind == TYPE_PTR || v->type.kind == TYPE_ARRAY) &&
		 (!v->type.pointee || v->type.pointee->kind != TYPE_INT ||
		  v->type.pointee->size != 1))
		sema_error(ctx, v->loc, NULL, "string-like %s must point to a char-like type",
			   v->type.kind == TYPE_PTR ? "pointers" : "arrays");
}

void sema_fn_static_assert(struct sema_ctx *ctx, struct node *n)
{
	struct node *cond = n->args, *msg = cond->next;
	int64_t v;

	sema_assert_args(ctx, n->args);
	if (msg->kind != NODE_STR) {
		sema_error(ctx, msg->loc, NULL, "static_assert()'s message is a string literal");
		return;
	}
	if (!sema_comptime(cond, &v))
		sema_error(ctx, cond->loc,
			   "static_assert() checks literals and what is made of them",
			   "static_assert(): the condition is not known while compiling");
	else if (!v)
		sema_error(ctx, n->loc, NULL, "%s", msg->str);
}
