/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser internals shared by parser.c (tokens, errors, statements, top level) and
 * parse_expr.c (expressions). Nothing outside the parser includes this.
 */
#ifndef AOT_PARSER_H
#define AOT_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "frontend.h"

/* Deeper nesting than this is a fuzzer's input, not a script; stop before the stack does. */
#define PARSE_MAX_DEPTH 200
#define PARSE_LOOKAHEAD 8

struct parser {
	struct arena *a;
	struct lexer *lx;
	struct diags *d;
	struct token tok;  /* the current token */
	struct token prev; /* the last one consumed, for "after X" messages */
	struct token ahead[PARSE_LOOKAHEAD];
	int nahead;
	/* An error was reported and we have not resynchronised yet: stay quiet meanwhile. */
	bool panic;
	/* Inside `/ ... /`: a '/' followed by '{' ends the predicate instead of dividing. */
	bool in_pred;
	int depth;
	/*
	 * A block ran into the next probe's attach point: every open block ends there and the
	 * probe's block restarts top-level lexing at reopen_loc.
	 */
	bool reopen;
	struct loc reopen_loc;
};

bool parse_in_list(const char *s, const char *const *list, size_t n);
/* list is an array (not a pointer) whose size is known here. */
#define PARSE_IN(s, list) parse_in_list((s), (list), sizeof(list) / sizeof((list)[0]))
/* if, else, while, ...: identifiers that never name a builtin or a function. */
bool parse_is_keyword(const char *s);

void parse_next(struct parser *p);
const struct token *parse_peek(struct parser *p, int n);
bool tok_is(const struct token *t, int op);
bool parse_is(const struct parser *p, int op);
bool tok_is_word(const struct token *t, const char *w);
bool parse_is_word(const struct parser *p, const char *w);
const char *tok_describe(struct parser *p, const struct token *t);
void parse_error_at(struct parser *p, const struct token *t, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool parse_expect(struct parser *p, int op, const char *what, const char *hint);
struct node *parse_new(struct parser *p, enum node_kind kind, const struct token *t);

/* parser.c */
struct node *parse_block(struct parser *p, bool probe_body);
/* A block expression: its last statement, an expression without ';', is its value (n->lhs). */
struct node *parse_block_value(struct parser *p);
/* The same at top level (a macro's body): its '}' hands the rest back to top-level lexing. */
struct node *parse_block_toplevel_value(struct parser *p);
/* if, while: "(" expr ")" or one operand; NULL after an error. */
struct node *parse_cond(struct parser *p, const char *kw);
/* A type after ':' or in typeof(): into n->cast_type or n->type_expr; false after an error. */
bool parse_type_into(struct parser *p, struct node *n);

/* parse_config.c: config = { key = value; ... }, at the word "config" */
struct node *parse_config(struct parser *p);

/* parse_macro.c: macro NAME(params) { body }, the word "macro" the current token */
struct node *parse_macro(struct parser *p);

/* parse_expr.c */
bool tok_starts_expr(const struct token *t);
bool parse_need_operand(struct parser *p, const struct token *op);
struct node *parse_primary(struct parser *p);
struct node *parse_unary(struct parser *p);
struct node *parse_expr(struct parser *p);
/* type text, as a cast writes it: "struct task_struct *", "uint8[8]"; NULL after an error */
char *parse_type(struct parser *p);
/* Does a type start here, followed by the token closer (a ')' or ...)? */
bool parse_at_type(struct parser *p, int closer);

#endif
