// SPDX-License-Identifier: GPL-2.0
/*
 * The expression half of the parser: bpftrace/C precedence from the ternary down to primaries,
 * casts and their ambiguity with parentheses, and the predicate's closing '/'. Statements and
 * the top level are in parser.c.
 */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "parser.h"

/* Integer type names a bare `(name)` always casts to, whatever follows it. */
static const char *const parse_int_types[] = {
	"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"int",	"bool",	 "char",  "short", "long",  "u8",     "u16",	"u32",
	"u64",	"s8",	 "s16",	  "s32",   "s64",   "void",
};

static struct node *parse_unary(struct parser *p);

/* From the start of a to the end of b, when both are on one line: the text a node spans. */
static struct loc parse_span(struct loc a, struct loc b)
{
	if (a.line == b.line && b.col >= a.col)
		a.len = b.col + b.len - a.col;
	return a;
}

bool tok_starts_expr(const struct token *t)
{
	switch (t->kind) {
	case TOK_INT:
	case TOK_STR:
	case TOK_VAR:
	case TOK_MAP:
	case TOK_POSPARAM:
	case TOK_ERROR:
		return true;
	case TOK_IDENT:
		return !parse_is_keyword(t->text);
	case TOK_PUNCT:
		if (t->is_assign)
			return false;
		return t->op == '(' || t->op == '!' || t->op == '~' || t->op == '-' ||
		       t->op == '*' || t->op == '&' || t->op == OP_INC || t->op == OP_DEC;
	default:
		return false;
	}
}

/* Checks that an operand follows operator token `op`, naming the operator if not. */
bool parse_need_operand(struct parser *p, const struct token *op)
{
	if (tok_starts_expr(&p->tok))
		return true;
	parse_error_at(p, &p->tok, NULL, "expected an expression after '%s', found %s", op->text,
		       tok_describe(p, &p->tok));
	return false;
}

/* args = "(" (expr ("," expr)*)? ")"   -- the '(' is current; returns the list, *ok */
static struct node *parse_args(struct parser *p, int close, bool *ok)
{
	struct node *head = NULL, **tail = &head;
	const char *closer = close == ')' ? "')'" : "']'";

	*ok = true;
	parse_next(p);
	if (parse_is(p, close)) {
		parse_next(p);
		return NULL;
	}
	for (;;) {
		struct token sep = p->prev;
		struct node *e;

		if (!parse_need_operand(p, &sep)) {
			*ok = false;
			return head;
		}
		e = parse_expr(p);
		if (!e) {
			*ok = false;
			return head;
		}
		*tail = e;
		tail = &e->next;
		if (parse_is(p, ',')) {
			parse_next(p);
			continue;
		}
		if (parse_is(p, close)) {
			parse_next(p);
			return head;
		}
		parse_error_at(p, &p->tok, NULL, "expected ',' or %s, found %s", closer,
			       tok_describe(p, &p->tok));
		*ok = false;
		return head;
	}
}

/* type = ("struct" | "union" | "enum")? IDENT "*"*   -- as text: "struct task_struct *" */
static char *parse_type(struct parser *p)
{
	char *s;

	if (parse_is_word(p, "struct") || parse_is_word(p, "union") || parse_is_word(p, "enum")) {
		const char *kw = p->tok.text;

		parse_next(p);
		if (p->tok.kind != TOK_IDENT) {
			parse_error_at(p, &p->tok, NULL,
				       "expected a type name after '%s', found %s", kw,
				       tok_describe(p, &p->tok));
			return NULL;
		}
		s = arena_printf(p->a, "%s %s", kw, p->tok.text);
	} else {
		s = p->tok.text;
	}
	parse_next(p);
	if (parse_is(p, '*'))
		s = arena_printf(p->a, "%s ", s);
	while (parse_is(p, '*')) {
		s = arena_printf(p->a, "%s*", s);
		parse_next(p);
	}
	return s;
}

/*
 * Is the '(' at the current token the start of a cast? `(struct x *)`, `(int8 *)` and
 * `(uint32)` always are; `(name)` is when an operand follows that cannot continue an
 * expression, as in `(pid_t)$x`, and otherwise it is a parenthesised builtin.
 */
static bool parse_at_cast(struct parser *p)
{
	const struct token *t = parse_peek(p, 1), *after;
	int n = 2;

	if (t->kind != TOK_IDENT || parse_is_keyword(t->text))
		return false;
	if (!strcmp(t->text, "struct") || !strcmp(t->text, "union") || !strcmp(t->text, "enum"))
		return true;
	while (n < PARSE_LOOKAHEAD && tok_is(parse_peek(p, n), '*'))
		n++;
	if (!tok_is(parse_peek(p, n), ')'))
		return false;
	if (n > 2 || PARSE_IN(t->text, parse_int_types))
		return true;
	if (n >= PARSE_LOOKAHEAD)
		return false;
	after = parse_peek(p, n + 1);
	return after->kind == TOK_INT || after->kind == TOK_STR || after->kind == TOK_VAR ||
	       after->kind == TOK_MAP || after->kind == TOK_POSPARAM ||
	       (after->kind == TOK_IDENT && !parse_is_keyword(after->text)) || tok_is(after, '(');
}

/* sizeof = "sizeof" "(" (type | expr) ")"   -- a CALL "sizeof" with cast_type or one arg */
static struct node *parse_sizeof(struct parser *p, struct node *n)
{
	const struct token *t = parse_peek(p, 1);
	bool is_type = false;

	if (t->kind == TOK_IDENT &&
	    (!strcmp(t->text, "struct") || !strcmp(t->text, "union") || !strcmp(t->text, "enum") ||
	     PARSE_IN(t->text, parse_int_types)))
		is_type = true;
	if (!is_type) {
		bool ok;

		n->args = parse_args(p, ')', &ok);
		return ok ? n : NULL;
	}
	parse_next(p);
	n->cast_type = parse_type(p);
	if (!n->cast_type || !parse_expect(p, ')', "')' after the type", NULL))
		return NULL;
	return n;
}

/*
 * offsetof = "offsetof" "(" type "," IDENT ("." IDENT)* ")"   -- a CALL "offsetof" with
 * cast_type and one NODE_STR argument, the member path ("a.b")
 */
static struct node *parse_offsetof(struct parser *p, struct node *n)
{
	struct node *f;

	parse_next(p);
	n->cast_type = parse_type(p);
	if (!n->cast_type ||
	    !parse_expect(p, ',', "',' after the type", "offsetof(struct name, member)"))
		return NULL;
	f = parse_new(p, NODE_STR, &p->tok);
	f->str = NULL;
	do {
		if (f->str)
			parse_next(p); /* the '.' */
		if (p->tok.kind != TOK_IDENT) {
			parse_error_at(p, &p->tok, NULL, "expected a member name, found %s",
				       tok_describe(p, &p->tok));
			return NULL;
		}
		f->str = f->str ? arena_printf(p->a, "%s.%s", f->str, p->tok.text) : p->tok.text;
		parse_next(p);
	} while (parse_is(p, '.'));
	f->str_len = strlen(f->str);
	n->args = f;
	if (!parse_expect(p, ')', "')' after the member", NULL))
		return NULL;
	return n;
}

/*
 * primary = INT | STR | "$N" | "$#" | VAR | MAP ("[" expr ("," expr)* "]")?
 *         | IDENT "(" args ")" | "sizeof" "(" (type | expr) ")" | IDENT
 *         | "(" expr ("," expr)* ")"
 */
struct node *parse_primary(struct parser *p)
{
	struct token t = p->tok;
	struct node *n;
	bool ok;

	switch (t.kind) {
	case TOK_INT:
	case TOK_ERROR: /* already reported: stand in a 0 and carry on */
		n = parse_new(p, NODE_INT, &t);
		n->num = t.num;
		parse_next(p);
		return n;
	case TOK_STR:
		n = parse_new(p, NODE_STR, &t);
		n->str = t.str;
		n->str_len = t.str_len;
		parse_next(p);
		return n;
	case TOK_POSPARAM:
		n = parse_new(p, NODE_POSPARAM, &t);
		n->num = t.num;
		n->is_count = t.is_count;
		parse_next(p);
		return n;
	case TOK_VAR:
		n = parse_new(p, NODE_VAR, &t);
		n->name = t.text;
		parse_next(p);
		return n;
	case TOK_MAP:
		n = parse_new(p, NODE_MAP, &t);
		n->name = t.text;
		parse_next(p);
		if (parse_is(p, '[')) {
			struct token open = p->tok;

			n->args = parse_args(p, ']', &ok);
			if (!ok)
				return NULL;
			if (!n->args) {
				parse_error_at(p, &open,
					       "write @map[key], or @map for a map without keys",
					       "expected a key expression between '[' and ']'");
				return NULL;
			}
			n->loc = parse_span(n->loc, p->prev.loc); /* @map[key] whole */
		}
		return n;
	case TOK_IDENT:
		if (parse_is_keyword(t.text))
			break;
		if (tok_is(parse_peek(p, 1), '(')) {
			n = parse_new(p, NODE_CALL, &t);
			n->name = t.text;
			parse_next(p);
			if (!strcmp(t.text, "sizeof"))
				return parse_sizeof(p, n);
			if (!strcmp(t.text, "offsetof"))
				return parse_offsetof(p, n);
			n->args = parse_args(p, ')', &ok);
			return ok ? n : NULL;
		}
		n = parse_new(p, NODE_BUILTIN, &t);
		n->name = t.text;
		parse_next(p);
		return n;
	case TOK_PUNCT:
		if (!parse_is(p, '('))
			break;
		parse_next(p);
		if (!parse_need_operand(p, &t))
			return NULL;
		n = parse_expr(p);
		if (!n)
			return NULL;
		if (parse_is(p, ',')) {
			struct node *tuple = parse_new(p, NODE_TUPLE, &t), **tail = &n->next;

			tuple->args = n;
			while (parse_is(p, ',')) {
				struct token comma = p->tok;

				parse_next(p);
				if (!parse_need_operand(p, &comma))
					return NULL;
				*tail = parse_expr(p);
				if (!*tail)
					return NULL;
				tail = &(*tail)->next;
			}
			n = tuple;
		}
		if (!parse_expect(p, ')', "')'", NULL))
			return NULL;
		return n;
	default:
		break;
	}
	parse_error_at(p, &t, NULL, "expected an expression, found %s", tok_describe(p, &t));
	return NULL;
}

/* postfix = primary ("[" expr "]" | "." (IDENT | INT) | "->" IDENT | "++" | "--")* */
static struct node *parse_postfix(struct parser *p)
{
	struct node *n = parse_primary(p), *m;

	while (n) {
		struct token t = p->tok;

		if (parse_is(p, '[')) {
			parse_next(p);
			m = parse_new(p, NODE_INDEX, &t);
			m->lhs = n;
			if (!parse_need_operand(p, &t))
				return NULL;
			m->rhs = parse_expr(p);
			if (!m->rhs || !parse_expect(p, ']', "']'", NULL))
				return NULL;
			n = m;
		} else if (parse_is(p, '.') || parse_is(p, OP_ARROW)) {
			parse_next(p);
			/* Tuple elements are numbered: $t.0 */
			if (p->tok.kind != TOK_IDENT &&
			    (p->tok.kind != TOK_INT || t.op == OP_ARROW)) {
				parse_error_at(p, &p->tok, NULL,
					       "expected a field name after '%s', found %s", t.text,
					       tok_describe(p, &p->tok));
				return NULL;
			}
			m = parse_new(p, NODE_FIELD, &p->tok);
			m->lhs = n;
			m->name = p->tok.text;
			m->is_arrow = t.op == OP_ARROW;
			parse_next(p);
			n = m;
		} else if (parse_is(p, OP_INC) || parse_is(p, OP_DEC)) {
			parse_next(p);
			m = parse_new(p, NODE_UNOP, &t);
			m->loc = parse_span(n->loc, t.loc); /* $x++ whole */
			m->op = t.op;
			m->is_post = true;
			m->lhs = n;
			n = m;
		} else {
			break;
		}
	}
	return n;
}

/*
 * unary = ("!" | "~" | "-" | "*" | "&" | "++" | "--") unary
 *       | "(" type ")" unary
 *       | postfix
 */
static struct node *parse_unary(struct parser *p)
{
	struct token t = p->tok;
	struct node *n = NULL;

	if (++p->depth > PARSE_MAX_DEPTH) {
		parse_error_at(p, &t, NULL, "expression nested too deeply");
		goto out;
	}
	if (t.kind == TOK_PUNCT && !t.is_assign &&
	    (t.op == '!' || t.op == '~' || t.op == '-' || t.op == '*' || t.op == '&' ||
	     t.op == OP_INC || t.op == OP_DEC)) {
		parse_next(p);
		if (!parse_need_operand(p, &t))
			goto out;
		n = parse_new(p, NODE_UNOP, &t);
		n->op = t.op;
		n->lhs = parse_unary(p);
		if (!n->lhs)
			n = NULL;
		goto out;
	}
	if (parse_is(p, '(') && parse_at_cast(p)) {
		parse_next(p);
		n = parse_new(p, NODE_CAST, &t);
		n->cast_type = parse_type(p);
		if (!n->cast_type || !parse_expect(p, ')', "')' to end the cast", NULL)) {
			n = NULL;
			goto out;
		}
		if (!parse_need_operand(p, &p->prev)) {
			n = NULL;
			goto out;
		}
		n->lhs = parse_unary(p);
		if (!n->lhs)
			n = NULL;
		goto out;
	}
	n = parse_postfix(p);
out:
	p->depth--;
	return n;
}

/* Binary operators by precedence, loosest first: level i's operands are level i+1's. */
static const int parse_binary_ops[][5] = {
	{ OP_OR },
	{ OP_AND },
	{ '|' },
	{ '^' },
	{ '&' },
	{ OP_EQ, OP_NE },
	{ '<', '>', OP_LE, OP_GE },
	{ OP_SHL, OP_SHR },
	{ '+', '-' },
	{ '*', '/', '%' },
};

#define PARSE_BINARY_LEVELS ((int)(sizeof(parse_binary_ops) / sizeof(parse_binary_ops[0])))

static bool parse_binary_at(struct parser *p, int level)
{
	int i;

	if (p->tok.kind != TOK_PUNCT || p->tok.is_assign)
		return false;
	for (i = 0; i < 5 && parse_binary_ops[level][i]; i++) {
		if (p->tok.op != parse_binary_ops[level][i])
			continue;
		/* The '/' closing a predicate is followed by the probe's block. */
		if (p->in_pred && p->tok.op == '/') {
			const struct token *next = parse_peek(p, 1);

			if (tok_is(next, '{') || next->kind == TOK_EOF)
				return false;
		}
		return true;
	}
	return false;
}

/*
 * binary(i) = binary(i+1) (op(i) binary(i+1))*, one level per row of parse_binary_ops:
 *   logical_or  = logical_and ("||" logical_and)*
 *   logical_and = bit_or ("&&" bit_or)*
 *   bit_or = bit_xor ("|" bit_xor)*      bit_xor = bit_and ("^" bit_and)*
 *   bit_and = equality ("&" equality)*   equality = relational (("==" | "!=") relational)*
 *   relational = shift (("<" | ">" | "<=" | ">=") shift)*
 *   shift = additive (("<<" | ">>") additive)*
 *   additive = multiplicative (("+" | "-") multiplicative)*
 *   multiplicative = unary (("*" | "/" | "%") unary)*
 */
static struct node *parse_binary(struct parser *p, int level)
{
	struct node *lhs;

	if (level == PARSE_BINARY_LEVELS)
		return parse_unary(p);
	lhs = parse_binary(p, level + 1);
	while (lhs && parse_binary_at(p, level)) {
		struct token t = p->tok;
		struct node *n;

		parse_next(p);
		if (!parse_need_operand(p, &t))
			return NULL;
		n = parse_new(p, NODE_BINOP, &t);
		n->op = t.op;
		n->lhs = lhs;
		n->rhs = parse_binary(p, level + 1);
		if (!n->rhs)
			return NULL;
		lhs = n;
	}
	return lhs;
}

/* ternary = logical_or ("?" expr ":" ternary)? */
static struct node *parse_ternary(struct parser *p)
{
	struct node *cond = parse_binary(p, 0), *n;
	struct token t = p->tok;

	if (!cond || !parse_is(p, '?'))
		return cond;
	parse_next(p);
	if (!parse_need_operand(p, &t))
		return NULL;
	n = parse_new(p, NODE_TERNARY, &t);
	n->cond = cond;
	n->lhs = parse_expr(p);
	if (!n->lhs)
		return NULL;
	if (!parse_expect(p, ':', "':' in the conditional expression",
			  "a conditional is written cond ? then : else"))
		return NULL;
	if (!parse_need_operand(p, &p->prev))
		return NULL;
	n->rhs = parse_ternary(p);
	return n->rhs ? n : NULL;
}

/* expr = ternary */
struct node *parse_expr(struct parser *p)
{
	struct node *n;

	if (++p->depth > PARSE_MAX_DEPTH) {
		parse_error_at(p, &p->tok, NULL, "expression nested too deeply");
		p->depth--;
		return NULL;
	}
	n = parse_ternary(p);
	p->depth--;
	return n;
}
