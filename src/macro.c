// SPDX-License-Identifier: GPL-2.0
/*
 * Macro expansion, the end of the parse pass: every call of a bpftrace macro becomes a copy of
 * its body, a block (a block expression when the body ends in a value). Hygiene as bpftrace
 * 0.22+ defines it: a $var the body makes is its own in each expansion (renamed), a $var or @map
 * parameter stands for the caller's, a plain parameter for the argument expression, and the
 * body reaches no other map. The macros themselves leave the program. What bpftrace 0.27's
 * standard library makes macros of its builtins, cpu() and __builtin_cpu, becomes the builtin.
 */
#include <errno.h>
#include <string.h>

#include "arena.h"
#include "frontend.h"
#include "funcs.h"

/* Expansions in one program: more is a macro that doubles itself level after level. */
#define MACRO_MAX_EXPANSIONS 10000
#define MACRO_MAX_NESTING 64
/* Nodes the expansions may make: m(m(m(x))) of macro m(x) { x + x } doubles at each level. */
#define MACRO_MAX_NODES 100000

struct macro_ctx {
	struct arena *a;
	struct diags *d;
	struct node *macros; /* the NODE_MACRO items, chained by next */
	/* the macros being expanded, outermost first: a call of one of them is recursion */
	const struct node *active[MACRO_MAX_NESTING];
	int nactive;
	unsigned expansions;
	unsigned long nodes; /* made by expansions so far */
	bool too_big;	     /* MACRO_MAX_NODES reached and reported */
};

/* One expansion: the macro and its arguments, in the order of its parameters. */
struct macro_bind {
	const struct node *macro;
	struct node **args;
	unsigned serial;
	uint32_t exp; /* the loc.exp of the nodes it makes */
};

static struct node *macro_find(const struct macro_ctx *c, const char *name)
{
	for (struct node *m = c->macros; m; m = m->next)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

static unsigned macro_count(const struct node *list)
{
	unsigned n = 0;

	for (; list; list = list->next)
		n++;
	return n;
}

/* The argument for the parameter of this kind and name, or NULL if it is not one. */
static struct node *macro_arg(const struct macro_bind *b, enum node_kind kind, const char *name)
{
	unsigned i = 0;

	for (const struct node *q = b->macro->args; q; q = q->next, i++)
		if (q->kind == kind && !strcmp(q->name, name))
			return b->args[i];
	return NULL;
}

static struct node *macro_copy_list(struct macro_ctx *c, const struct node *n,
				    const struct macro_bind *b);
static struct node *macro_copy(struct macro_ctx *c, const struct node *n,
			       const struct macro_bind *b);

/*
 * A type the body writes with a parameter the call gave typeof(T) for ((t)x, (t *)x, let $v: t,
 * sizeof(t)): T in its place, as bpftrace 0.27 substitutes types. typeof(expr) stands for the
 * expression's type, which takes no '*' or '[N]' after it.
 */
static void macro_subst_type(struct macro_ctx *c, struct node *copy, const struct macro_bind *b)
{
	const char *text = copy->cast_type;
	size_t len = strcspn(text, " *[");
	const struct node *arg;
	unsigned i = 0;

	for (const struct node *q = b->macro->args; q; q = q->next, i++) {
		if (q->kind != NODE_BUILTIN || strlen(q->name) != len ||
		    strncmp(q->name, text, len))
			continue;
		arg = b->args[i];
		if (arg->kind != NODE_TYPE)
			return;
		if (arg->type_expr->kind == NODE_TYPE) {
			copy->cast_type =
				arena_printf(c->a, "%s%s", arg->type_expr->cast_type, text + len);
			return;
		}
		if (text[len]) {
			diag_error(c->d, copy->loc,
				   "cast to the expression's type, then take its address",
				   "'%s': %s stands for typeof() of an expression, which takes no "
				   "'*' or '[N]'",
				   text, q->name);
			return;
		}
		copy->cast_type = NULL;
		copy->type_expr = macro_copy(c, arg->type_expr, NULL);
		return;
	}
}

/*
 * offsetof(t, member) in a body whose parameter member the call gave a member's name (b, or
 * a.b): that name in its place, as bpftrace 0.27 substitutes it (its container_of macro).
 */
static void macro_subst_member(struct macro_ctx *c, struct node *copy, const struct macro_bind *b)
{
	struct node *s = copy->args;
	const char *path;
	size_t len;
	unsigned i = 0;

	if (!s || s->kind != NODE_STR || !s->str)
		return;
	len = strcspn(s->str, ".");
	for (const struct node *q = b->macro->args; q; q = q->next, i++) {
		if (q->kind != NODE_BUILTIN || strlen(q->name) != len ||
		    strncmp(q->name, s->str, len))
			continue;
		path = node_member_path(c->a, b->args[i]);
		if (path) {
			s->str = arena_printf(c->a, "%s%s", path, s->str + len);
			s->str_len = strlen(s->str);
		}
		return;
	}
}

/*
 * A copy of one node (its next not followed) with b's substitutions made, or a plain copy when
 * b is NULL (an argument, which belongs to the caller).
 */
static struct node *macro_copy(struct macro_ctx *c, const struct node *n,
			       const struct macro_bind *b)
{
	struct node *copy, *arg;

	if (!n || c->too_big)
		return NULL;
	if (++c->nodes > MACRO_MAX_NODES) {
		c->too_big = true;
		diag_error(c->d, n->loc, "bind an argument used many times: let $v = x;",
			   "macro expansions make more than %u nodes", MACRO_MAX_NODES);
		return NULL;
	}
	if (b && n->kind == NODE_BUILTIN && (arg = macro_arg(b, NODE_BUILTIN, n->name)))
		return macro_copy(c, arg, NULL);
	/* t[N] of a parameter the call gave a type for (sizeof(t[2])): an array of N of it */
	if (b && n->kind == NODE_INDEX && n->lhs->kind == NODE_BUILTIN && n->rhs &&
	    n->rhs->kind == NODE_INT && (arg = macro_arg(b, NODE_BUILTIN, n->lhs->name)) &&
	    arg->kind == NODE_TYPE && arg->type_expr && arg->type_expr->kind == NODE_TYPE) {
		copy = macro_copy(c, arg, NULL);
		if (copy && copy->type_expr)
			copy->type_expr->cast_type =
				arena_printf(c->a, "%s[%llu]", arg->type_expr->cast_type,
					     (unsigned long long)n->rhs->num);
		return copy;
	}
	/* typeof(x) of a parameter the call gave an expression for: typeof() of that expression */
	if (b && n->kind == NODE_TYPE && n->cast_type &&
	    (arg = macro_arg(b, NODE_BUILTIN, n->cast_type)) && arg->kind != NODE_TYPE)
		return macro_copy(c, arg, NULL);
	copy = arena_alloc(c->a, sizeof(*copy));
	*copy = *n;
	copy->next = NULL;
	if (b)
		copy->loc.exp = b->exp;
	if (b && n->kind == NODE_VAR) {
		arg = macro_arg(b, NODE_VAR, n->name);
		copy->name =
			arg ? arg->name
			    : arena_printf(c->a, "%s@%s.%u", n->name, b->macro->name, b->serial);
	} else if (b && n->kind == NODE_MAP) {
		arg = macro_arg(b, NODE_MAP, n->name);
		if (arg) {
			copy->name = arg->name;
		} else {
			diag_error(c->d, copy->loc,
				   arena_printf(c->a, "pass the map in: macro %s(..., %s)",
						b->macro->name, n->name),
				   "macro '%s' uses %s, which is not one of its parameters",
				   b->macro->name, n->name);
		}
	}
	copy->lhs = macro_copy(c, n->lhs, b);
	copy->rhs = macro_copy(c, n->rhs, b);
	copy->cond = macro_copy(c, n->cond, b);
	copy->type_expr = macro_copy(c, n->type_expr, b);
	copy->body = macro_copy_list(c, n->body, b);
	copy->else_body = macro_copy_list(c, n->else_body, b);
	copy->args = macro_copy_list(c, n->args, b);
	if (b && copy->cast_type && !copy->type_expr)
		macro_subst_type(c, copy, b);
	if (b && n->kind == NODE_CALL && !strcmp(n->name, "offsetof"))
		macro_subst_member(c, copy, b);
	return copy;
}

static struct node *macro_copy_list(struct macro_ctx *c, const struct node *n,
				    const struct macro_bind *b)
{
	struct node *first = NULL, **tail = &first;

	for (; n && !c->too_big; n = n->next) {
		*tail = macro_copy(c, n, b);
		if (!*tail)
			break;
		tail = &(*tail)->next;
	}
	return first;
}

static void macro_walk_list(struct macro_ctx *c, struct node **np);

/*
 * Do the arguments (a list) fit m's parameters, in number and in kind? When report, says why
 * not: each argument of the wrong kind.
 */
static bool macro_args_fit(struct macro_ctx *c, const struct node *m, const struct node *call,
			   bool report)
{
	unsigned nparams = macro_count(m->args), nargs = macro_count(call->args);
	const struct node *a = call->args;
	bool ok = true;

	if (nparams != nargs) {
		if (report)
			diag_error(c->d, call->loc,
				   arena_printf(c->a, "macro %s is defined at line %u", m->name,
						m->loc.line),
				   "macro '%s' takes %u argument%s, %u given", m->name, nparams,
				   nparams == 1 ? "" : "s", nargs);
		return false;
	}
	for (const struct node *q = m->args; q; q = q->next, a = a->next) {
		if (q->kind == NODE_VAR && a->kind != NODE_VAR) {
			if (report)
				diag_error(c->d, a->loc, "pass a scratch variable such as $x",
					   "macro '%s' takes a variable for %s", m->name, q->name);
			ok = false;
		} else if (q->kind == NODE_MAP && (a->kind != NODE_MAP || a->args)) {
			if (report)
				diag_error(c->d, a->loc, "pass a map without keys such as @m",
					   "macro '%s' takes a map for %s", m->name, q->name);
			ok = false;
		}
	}
	return ok;
}

/*
 * The definition of the macro call names that its arguments fit (macros of one name may differ
 * in their parameters), or NULL after saying why the first of that name does not.
 */
static const struct node *macro_pick(struct macro_ctx *c, const struct node *call)
{
	const struct node *first = NULL;

	for (const struct node *m = c->macros; m; m = m->next) {
		if (strcmp(m->name, call->name))
			continue;
		if (macro_args_fit(c, m, call, false))
			return m;
		first = first ? first : m;
	}
	macro_args_fit(c, first, call, true);
	return NULL;
}

/* "a > b > a": the macros being expanded, then m, for the error that m recurses. */
static char *macro_chain(struct macro_ctx *c, const struct node *m)
{
	char *s = "";

	for (int k = 0; k < c->nactive; k++)
		s = arena_printf(c->a, "%s%s > ", s, c->active[k]->name);
	return arena_printf(c->a, "%s%s", s, m->name);
}

/*
 * The expansion of call (a CALL or a bare name) of a macro: a BLOCK, its lhs the value; NULL
 * after an error. The arguments are expanded first, in the caller's scope.
 */
static struct node *macro_expand_call(struct macro_ctx *c, struct node *call)
{
	struct macro_bind b = { 0 };
	struct node *inst;
	unsigned i = 0;

	macro_walk_list(c, &call->args);
	b.macro = macro_pick(c, call);
	if (!b.macro)
		return NULL;
	for (int k = 0; k < c->nactive; k++) {
		if (c->active[k] == b.macro) {
			diag_error(c->d, call->loc,
				   arena_printf(c->a, "a macro cannot expand into itself: %s",
						macro_chain(c, b.macro)),
				   "macro '%s' calls itself", b.macro->name);
			return NULL;
		}
	}
	if (c->nactive == MACRO_MAX_NESTING || ++c->expansions > MACRO_MAX_EXPANSIONS) {
		diag_error(c->d, call->loc, NULL, "too many macro expansions (more than %u)",
			   c->nactive == MACRO_MAX_NESTING ? MACRO_MAX_NESTING
							   : MACRO_MAX_EXPANSIONS);
		return NULL;
	}
	b.args = arena_alloc(c->a, (macro_count(call->args) + 1) * sizeof(*b.args));
	for (struct node *a = call->args; a; a = a->next)
		b.args[i++] = a;
	b.serial = c->expansions;
	b.exp = diags_expansion(c->d, call->loc, b.macro->name);
	inst = macro_copy(c, b.macro->body, &b);
	if (!inst)
		return NULL;
	c->active[c->nactive++] = b.macro;
	macro_walk_list(c, &inst->body);
	macro_walk_list(c, &inst->lhs);
	c->nactive--;
	return inst;
}

/* Is name() of no arguments a builtin (FUNC_NULLARY, 0.27's library macro name())? */
static bool macro_nullary(const char *name)
{
	return func_defs[func_find(name, FUNC_BARE)].flags & FUNC_NULLARY;
}

/*
 * Does n, a CALL or a bare name, call a macro? A macro of the name whose parameters do not fit
 * leaves a builtin or function of the name to it, as bpftrace 0.27's user macros hide its
 * standard library's of the same parameters only: macro cpu(x) keeps cpu() the builtin.
 */
static bool macro_called(struct macro_ctx *c, const struct node *n)
{
	if ((n->kind != NODE_CALL && n->kind != NODE_BUILTIN) || !macro_find(c, n->name))
		return false;
	if (!func_find(n->name, n->kind == NODE_CALL ? FUNC_CALL : FUNC_BARE) &&
	    !(n->kind == NODE_CALL && !n->args && macro_nullary(n->name)))
		return true;
	for (const struct node *m = c->macros; m; m = m->next)
		if (!strcmp(m->name, n->name) && macro_args_fit(c, m, n, false))
			return true;
	return false;
}

/*
 * A builtin as bpftrace 0.27's standard library macros define it, once no macro of the
 * script's took the name: __builtin_cpu is cpu, and cpu() of no arguments the builtin cpu.
 */
static void macro_builtin(struct node *n)
{
	const char *plain;
	enum func id;

	if (n->kind != NODE_CALL && n->kind != NODE_BUILTIN)
		return;
	plain = func_unwrap(n->name, n->kind == NODE_CALL ? FUNC_CALL : FUNC_BARE);
	if (plain)
		n->name = (char *)plain;
	if (n->kind != NODE_CALL || n->args || n->cast_type || n->type_expr)
		return;
	/* __builtin_cpu() too, as 0.27 takes it */
	plain = func_unwrap(n->name, FUNC_BARE);
	if (plain)
		n->name = (char *)plain;
	id = func_find(n->name, FUNC_BARE);
	if (id && (func_defs[id].flags & (FUNC_CALL | FUNC_NULLARY)))
		n->kind = NODE_BUILTIN;
}

/*
 * A block expression as a statement (an argument put where the body has `x;`) is the block
 * statement with its value as the last statement: `{ printf("hi") };` is as good as
 * `{ printf("hi"); }`, whose printf needs no value.
 */
static void macro_unvalue(struct macro_ctx *c, struct node **np)
{
	struct node *stmt = *np, *block = stmt->lhs, **tail = &block->body;

	if (block->lhs) {
		while (*tail)
			tail = &(*tail)->next;
		*tail = node_new(c->a, NODE_EXPR_STMT, block->lhs->loc);
		(*tail)->lhs = block->lhs;
		block->lhs = NULL;
	}
	block->next = stmt->next;
	*np = block;
}

/* Expands every macro call in *np (one node, its next not followed). */
static void macro_walk(struct macro_ctx *c, struct node **np)
{
	struct node *n = *np, *inst;

	/* A call as a statement may be one without a value: the block takes its place. */
	if (n->kind == NODE_EXPR_STMT && !n->is_discard && macro_called(c, n->lhs)) {
		inst = macro_expand_call(c, n->lhs);
		if (!inst)
			return;
		n->lhs = inst;
		macro_unvalue(c, np);
		return;
	}
	if (macro_called(c, n)) {
		inst = macro_expand_call(c, n);
		if (!inst)
			return;
		if (!inst->lhs) {
			diag_error(c->d, n->loc,
				   "a macro has a value when its body ends in an expression "
				   "without ';'",
				   "macro '%s' has no value", n->name);
			return;
		}
		/* a body that is only a value is that value: printf(m()) of macro m() { "%d" } */
		if (!inst->body)
			inst = inst->lhs;
		inst->next = n->next;
		*np = inst;
		return;
	}
	macro_builtin(n);
	macro_walk_list(c, &n->lhs);
	if (n->kind == NODE_EXPR_STMT && !n->is_discard && n->lhs && n->lhs->kind == NODE_BLOCK)
		macro_unvalue(c, np);
	macro_walk_list(c, &n->rhs);
	macro_walk_list(c, &n->cond);
	macro_walk_list(c, &n->type_expr);
	macro_walk_list(c, &n->body);
	macro_walk_list(c, &n->else_body);
	macro_walk_list(c, &n->args);
}

static void macro_walk_list(struct macro_ctx *c, struct node **np)
{
	for (; *np; np = &(*np)->next)
		macro_walk(c, np);
}

/* An earlier macro of n's name and parameter kinds: a call could not tell them apart. */
static const struct node *macro_same(const struct macro_ctx *c, const struct node *n)
{
	for (const struct node *m = c->macros; m; m = m->next) {
		const struct node *p = m->args, *q = n->args;

		if (strcmp(m->name, n->name))
			continue;
		while (p && q && p->kind == q->kind) {
			p = p->next;
			q = q->next;
		}
		if (!p && !q)
			return m;
	}
	return NULL;
}

/* Moves the macros out of the program into c->macros; reports a name defined twice. */
static void macro_collect(struct macro_ctx *c, struct node *root)
{
	struct node **np = &root->body, **tail = &c->macros;

	while (*np) {
		struct node *n = *np;
		const struct node *prev;

		if (n->kind != NODE_MACRO) {
			np = &n->next;
			continue;
		}
		*np = n->next;
		n->next = NULL;
		prev = macro_same(c, n);
		if (prev) {
			diag_error(c->d, n->loc,
				   arena_printf(c->a, "the first is at line %u", prev->loc.line),
				   "macro '%s' is defined twice with these parameters", n->name);
			continue;
		}
		*tail = n;
		tail = &n->next;
	}
}

int macro_expand(struct program *prog, struct diags *d)
{
	struct macro_ctx c = { .a = prog->arena, .d = d };
	size_t before = d->nerrors;

	if (!prog->root)
		return 0;
	macro_collect(&c, prog->root);
	for (struct node *n = prog->root->body; n; n = n->next) {
		if (n->kind != NODE_PROBE)
			continue;
		macro_walk_list(&c, &n->cond);
		macro_walk_list(&c, &n->body);
	}
	return d->nerrors > before ? -EINVAL : 0;
}
