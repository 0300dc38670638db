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
		/* an if expression: $x = if c { 1 } else { 2 } */
		return !parse_is_keyword(t->text) || !strcmp(t->text, "if");
	case TOK_PUNCT:
		if (t->is_assign)
			return false;
		/* '{': a block expression */
		return t->op == '(' || t->op == '!' || t->op == '~' || t->op == '-' ||
		       t->op == '*' || t->op == '&' || t->op == OP_INC || t->op == OP_DEC ||
		       t->op == '{';
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

/*
 * type = ("struct" | "union" | "enum")? IDENT "*"* ("[" INT? "]")?
 * as text: "struct task_struct *", "uint8[8]", "string[]"
 */
char *parse_type(struct parser *p)
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
	if (parse_is(p, '[')) {
		parse_next(p);
		if (p->tok.kind == TOK_INT) {
			s = arena_printf(p->a, "%s[%llu]", s, (unsigned long long)p->tok.num);
			parse_next(p);
		} else {
			s = arena_printf(p->a, "%s[]", s);
		}
		if (!parse_expect(p, ']', "']' after the array's length", NULL))
			return NULL;
	}
	return s;
}

/* A name that is a builtin or a literal, never a type: typeof(pid) is pid's type. */
static bool parse_is_value_name(const char *s)
{
	return func_find(s, FUNC_BARE) || !strcmp(s, "true") || !strcmp(s, "false");
}

bool parse_at_type(struct parser *p, int closer)
{
	const struct token *t = &p->tok;
	int n = 1;

	if (t->kind != TOK_IDENT || parse_is_keyword(t->text) || parse_is_value_name(t->text))
		return false;
	if (!strcmp(t->text, "struct") || !strcmp(t->text, "union") || !strcmp(t->text, "enum"))
		return true;
	while (n < PARSE_LOOKAHEAD && tok_is(parse_peek(p, n), '*'))
		n++;
	if (n + 2 < PARSE_LOOKAHEAD && tok_is(parse_peek(p, n), '[')) {
		n++;
		if (parse_peek(p, n)->kind == TOK_INT)
			n++;
		if (!tok_is(parse_peek(p, n), ']'))
			return false;
		n++;
	}
	return n < PARSE_LOOKAHEAD && tok_is(parse_peek(p, n), closer) &&
	       !tok_is(parse_peek(p, 1), '(');
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
	/* (typeof(x))y: a type, and nothing else starts with typeof( */
	if (!strcmp(t->text, "typeof") && tok_is(parse_peek(p, 2), '('))
		return true;
	while (n < PARSE_LOOKAHEAD && tok_is(parse_peek(p, n), '*'))
		n++;
	/* (uint8[8])x: an integer as an array of integers */
	if (n + 3 < PARSE_LOOKAHEAD && tok_is(parse_peek(p, n), '[') &&
	    (tok_is(parse_peek(p, n + 1), ']') ||
	     (parse_peek(p, n + 1)->kind == TOK_INT && tok_is(parse_peek(p, n + 2), ']'))))
		return tok_is(parse_peek(p, n + (tok_is(parse_peek(p, n + 1), ']') ? 2 : 3)), ')');
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
	int k = 2;

	if (t->kind == TOK_IDENT &&
	    (!strcmp(t->text, "struct") || !strcmp(t->text, "union") || !strcmp(t->text, "enum") ||
	     PARSE_IN(t->text, parse_int_types)))
		is_type = true;
	/* NAME *...): a pointer type, such as a macro's type parameter makes (sizeof(t *)) */
	while (k < PARSE_LOOKAHEAD && tok_is(parse_peek(p, k), '*'))
		k++;
	if (t->kind == TOK_IDENT && !parse_is_keyword(t->text) && !parse_is_value_name(t->text) &&
	    k > 2 && k < PARSE_LOOKAHEAD && tok_is(parse_peek(p, k), ')'))
		is_type = true;
	if (tok_is_word(t, "typeof") && tok_is(parse_peek(p, 2), '(')) {
		parse_next(p);
		if (!parse_type_into(p, n))
			return NULL;
		return parse_expect(p, ')', "')' after the type", NULL) ? n : NULL;
	}
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
 * record = "(" IDENT "=" expr ("," IDENT "=" expr)* ")"   -- the '(' is consumed: a TUPLE of
 * NODE_NAMED elements
 */
static struct node *parse_record(struct parser *p, const struct token *open)
{
	struct node *n = parse_new(p, NODE_TUPLE, open), **tail = &n->args;

	for (;;) {
		struct node *e;

		if (p->tok.kind != TOK_IDENT || !tok_is(parse_peek(p, 1), '=')) {
			parse_error_at(p, &p->tok, "a record is written (name = value, ...)",
				       "expected 'name = value', found %s",
				       tok_describe(p, &p->tok));
			return NULL;
		}
		e = parse_new(p, NODE_NAMED, &p->tok);
		e->name = p->tok.text;
		for (struct node *o = n->args; o; o = o->next) {
			if (!strcmp(o->name, e->name)) {
				parse_error_at(p, &p->tok, NULL,
					       "the record already has a field '%s'", e->name);
				return NULL;
			}
		}
		parse_next(p);
		parse_next(p); /* '=' */
		if (!parse_need_operand(p, &p->prev))
			return NULL;
		e->lhs = parse_expr(p);
		if (!e->lhs)
			return NULL;
		*tail = e;
		tail = &e->next;
		if (!parse_is(p, ','))
			break;
		parse_next(p);
	}
	return parse_expect(p, ')', "',' or ')' in the record", NULL) ? n : NULL;
}

/*
 * paren = "(" ")" | record | "(" expr ")" | "(" expr "," (expr ("," expr)* ","?)? ")"
 * -- the empty tuple, a record, a parenthesized expression, a tuple ((1,) has one element)
 */
static struct node *parse_paren(struct parser *p)
{
	struct token t = p->tok;
	struct node *n, *tuple, **tail;

	parse_next(p);
	if (parse_is(p, ')')) {
		parse_next(p);
		return parse_new(p, NODE_TUPLE, &t);
	}
	if (p->tok.kind == TOK_IDENT && tok_is(parse_peek(p, 1), '='))
		return parse_record(p, &t);
	if (!parse_need_operand(p, &t))
		return NULL;
	n = parse_expr(p);
	if (!n)
		return NULL;
	if (!parse_is(p, ',')) {
		if (!parse_expect(p, ')', "')'", NULL))
			return NULL;
		return n;
	}
	tuple = parse_new(p, NODE_TUPLE, &t);
	tuple->args = n;
	tail = &n->next;
	while (parse_is(p, ',')) {
		struct token comma = p->tok;

		parse_next(p);
		if (parse_is(p, ')'))
			break; /* (a,) and (a, b,) */
		if (!parse_need_operand(p, &comma))
			return NULL;
		*tail = parse_expr(p);
		if (!*tail)
			return NULL;
		tail = &(*tail)->next;
	}
	if (!parse_expect(p, ')', "')'", NULL))
		return NULL;
	return tuple;
}

/*
 * if_expr = "if" cond block_value "else" (if_expr | block_value)   -- a TERNARY of the blocks
 */
static struct node *parse_if_expr(struct parser *p)
{
	struct node *n = parse_new(p, NODE_TERNARY, &p->tok);

	parse_next(p);
	n->cond = parse_cond(p, "if");
	if (!n->cond)
		return NULL;
	if (!parse_is(p, '{')) {
		parse_error_at(p, &p->tok, NULL, "expected '{' after the condition, found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->lhs = parse_block_value(p);
	if (!n->lhs)
		return NULL;
	if (!parse_is_word(p, "else")) {
		parse_error_at(p, &p->tok, "an if with a value is written if c { a } else { b }",
			       "expected 'else' after the if expression's block, found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	parse_next(p);
	if (parse_is_word(p, "if"))
		n->rhs = parse_if_expr(p);
	else if (parse_is(p, '{'))
		n->rhs = parse_block_value(p);
	else
		parse_error_at(p, &p->tok, NULL, "expected '{' or 'if' after 'else', found %s",
			       tok_describe(p, &p->tok));
	return n->rhs ? n : NULL;
}

/*
 * primary = INT | STR | "$N" | "$#" | VAR | MAP ("[" expr ("," expr)* "]")?
 *         | IDENT "(" args ")" | "sizeof" "(" (type | expr) ")" | IDENT
 *         | "true" | "false" | paren | block_value | if_expr
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
		if (!strcmp(t.text, "if"))
			return parse_if_expr(p);
		if (parse_is_keyword(t.text))
			break;
		if ((!strcmp(t.text, "true") || !strcmp(t.text, "false")) &&
		    !tok_is(parse_peek(p, 1), '(')) {
			n = parse_new(p, NODE_BOOL, &t);
			n->num = t.text[0] == 't';
			parse_next(p);
			return n;
		}
		/* typeof(x) as a value: a type passed to a macro, my_macro(typeof(uint8), $x) */
		if (!strcmp(t.text, "typeof") && tok_is(parse_peek(p, 1), '(')) {
			n = parse_new(p, NODE_TYPE, &t);
			if (!parse_type_into(p, n))
				return NULL;
			n->loc = parse_span(n->loc, p->prev.loc);
			return n;
		}
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
		if (parse_is(p, '('))
			return parse_paren(p);
		if (parse_is(p, '{'))
			return parse_block_value(p);
		break;
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
struct node *parse_unary(struct parser *p)
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
		if (!parse_type_into(p, n) || !parse_expect(p, ')', "')' to end the cast", NULL)) {
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

/* ternary = logical_or ("?" expr? ":" ternary)?   -- `a ?: b` is a ? a : b, a evaluated once */
static struct node *parse_ternary(struct parser *p)
{
	struct node *cond = parse_binary(p, 0), *n;
	struct token t = p->tok;

	if (!cond || !parse_is(p, '?'))
		return cond;
	parse_next(p);
	n = parse_new(p, NODE_TERNARY, &t);
	n->cond = cond;
	if (parse_is(p, ':')) {
		parse_next(p);
		if (!parse_need_operand(p, &p->prev))
			return NULL;
		n->rhs = parse_ternary(p);
		return n->rhs ? n : NULL;
	}
	if (!parse_need_operand(p, &t))
		return NULL;
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
