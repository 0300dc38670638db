// SPDX-License-Identifier: GPL-2.0
/*
 * The parser's rule for bpftrace 0.23's config block at the top of a script. It only records
 * each key and value as written; src/config.c checks them against the settings table.
 */
#include <string.h>

#include "arena.h"
#include "parser.h"

static const char *const config_hint = "a config block is: config = { key = value; ... }";

/* From a's start to b's end when both are on one line, else a's own range. */
static struct loc config_span(struct loc a, struct loc b)
{
	if (a.line == b.line && b.col >= a.col)
		a.len = b.col + b.len - a.col;
	return a;
}

/* config_var = IDENT "=" (IDENT | STR | INT) */
static struct node *parse_config_var(struct parser *p)
{
	struct node *n = parse_new(p, NODE_CONFIG_VAR, &p->tok);

	if (p->tok.kind != TOK_IDENT) {
		parse_error_at(p, &p->tok, config_hint, "expected a config key, found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->name = p->tok.text;
	parse_next(p);
	if (!parse_expect(p, '=', "'=' after the config key", config_hint))
		return NULL;
	switch (p->tok.kind) {
	case TOK_IDENT:
		n->str = p->tok.text;
		break;
	case TOK_STR:
		n->str = p->tok.str;
		break;
	case TOK_INT:
		n->str = arena_printf(p->a, "%llu", (unsigned long long)p->tok.num);
		n->num = p->tok.num;
		break;
	default:
		parse_error_at(p, &p->tok, config_hint,
			       "expected a value (a word, a string or a number), found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->op = p->tok.kind;
	n->loc = config_span(n->loc, p->tok.loc);
	parse_next(p);
	return n;
}

/* config = "config" "=" "{" (config_var (";" config_var)* ";"?)? "}" */
struct node *parse_config(struct parser *p)
{
	struct node *n = parse_new(p, NODE_CONFIG, &p->tok), **tail = &n->args;
	bool ok;

	lexer_set_toplevel(p->lx, false);
	parse_next(p);
	ok = parse_expect(p, '=', "'=' after 'config'", config_hint) &&
	     parse_expect(p, '{', "'{' to open the config block", config_hint);
	while (ok && !parse_is(p, '}') && p->tok.kind != TOK_EOF) {
		struct node *v = parse_config_var(p);

		if (!v) {
			ok = false;
			break;
		}
		*tail = v;
		tail = &v->next;
		if (!parse_is(p, ';'))
			break;
		parse_next(p);
	}
	if (ok && !parse_is(p, '}'))
		ok = parse_expect(p, '}', "'}' or ';' after a config value", config_hint);
	/* After an error, resume after the block's '}'. */
	while (!parse_is(p, '}') && p->tok.kind != TOK_EOF)
		parse_next(p);
	/* The token after '}' starts the next item: lexed as one. */
	lexer_set_toplevel(p->lx, true);
	if (parse_is(p, '}'))
		parse_next(p);
	return ok ? n : NULL;
}
