// SPDX-License-Identifier: GPL-2.0
/*
 * The parser's part of bpftrace's hygienic macros (0.22 and later): a top-level
 * `macro NAME(params) { body }` becomes a NODE_MACRO. What a call of it means is macro.c's.
 */
#include <string.h>

#include "arena.h"
#include "parser.h"

#define MACRO_HINT "a macro is written: macro name($var, @map, expr) { ... }"

/* An error in the parameter list: skip to the body, still parse it to get back to top level. */
static struct node *parse_macro_fail(struct parser *p)
{
	while (p->tok.kind != TOK_EOF && !parse_is(p, '{'))
		parse_next(p);
	if (parse_is(p, '{'))
		parse_block_toplevel_value(p);
	else
		lexer_set_toplevel(p->lx, true);
	return NULL;
}

/* Whether a parameter of this name came before, in the list that starts at first. */
static bool parse_macro_dup(const struct node *first, const char *name)
{
	for (const struct node *q = first; q; q = q->next)
		if (!strcmp(q->name, name))
			return true;
	return false;
}

/* param = VAR | MAP | IDENT */
static struct node *parse_macro_param(struct parser *p, const struct node *first)
{
	static const enum node_kind kinds[] = {
		[TOK_VAR] = NODE_VAR, [TOK_MAP] = NODE_MAP, [TOK_IDENT] = NODE_BUILTIN
	};
	struct node *n;

	if ((p->tok.kind != TOK_VAR && p->tok.kind != TOK_MAP && p->tok.kind != TOK_IDENT) ||
	    (p->tok.kind == TOK_IDENT && parse_is_keyword(p->tok.text))) {
		parse_error_at(p, &p->tok, MACRO_HINT,
			       "expected a parameter ($var, @map or a name), found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	if (parse_macro_dup(first, p->tok.text)) {
		parse_error_at(p, &p->tok, NULL, "parameter '%s' is named twice", p->tok.text);
		return NULL;
	}
	n = parse_new(p, kinds[p->tok.kind], &p->tok);
	n->name = p->tok.text;
	parse_next(p);
	return n;
}

/* macro = "macro" IDENT "(" (param ("," param)*)? ")" block_value */
struct node *parse_macro(struct parser *p)
{
	struct node *n = parse_new(p, NODE_MACRO, &p->tok), **tail = &n->args;

	lexer_set_toplevel(p->lx, false);
	parse_next(p);
	if (p->tok.kind != TOK_IDENT || parse_is_keyword(p->tok.text)) {
		parse_error_at(p, &p->tok, MACRO_HINT, "expected the macro's name, found %s",
			       tok_describe(p, &p->tok));
		return parse_macro_fail(p);
	}
	n->name = p->tok.text;
	n->loc = p->tok.loc;
	parse_next(p);
	if (!parse_expect(p, '(', "'(' after the macro's name", MACRO_HINT))
		return parse_macro_fail(p);
	while (!parse_is(p, ')')) {
		struct node *param = parse_macro_param(p, n->args);

		if (!param)
			return parse_macro_fail(p);
		*tail = param;
		tail = &param->next;
		if (!parse_is(p, ','))
			break;
		parse_next(p);
	}
	if (!parse_expect(p, ')', "')' after the parameters", MACRO_HINT))
		return parse_macro_fail(p);
	if (!parse_is(p, '{')) {
		parse_error_at(p, &p->tok, MACRO_HINT,
			       "expected '{' for the macro's body, found %s",
			       tok_describe(p, &p->tok));
		return parse_macro_fail(p);
	}
	n->body = parse_block_toplevel_value(p);
	return n->body ? n : NULL;
}
