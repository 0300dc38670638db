// SPDX-License-Identifier: GPL-2.0
/*
 * The parser: recursive descent from tokens to the AST (prog->root). Each function is named
 * after its grammar rule, written above it. It reports every syntax error it can, recovering
 * at the next ';', '}' or probe, and returns -EINVAL if it reported any.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
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

static const char *const parse_keywords[] = {
	"if", "else", "while", "unroll", "for", "break", "continue", "return",
};

/* Integer type names a bare `(name)` always casts to, whatever follows it. */
static const char *const parse_int_types[] = {
	"int8",	 "int16",  "int32",  "int64", "uint8", "uint16", "uint32", "uint64",
	"int",	 "bool",   "char",   "short", "long",  "u8",	 "u16",	   "u32",
	"u64",	 "s8",	   "s16",    "s32",   "s64",   "void",
};

static bool parse_in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(s, list[i]))
			return true;
	}
	return false;
}

#define PARSE_IN(s, list) parse_in_list((s), (list), sizeof(list) / sizeof((list)[0]))

/* ---- tokens ---- */

static void parse_next(struct parser *p)
{
	p->prev = p->tok;
	if (p->nahead) {
		p->tok = p->ahead[0];
		memmove(p->ahead, p->ahead + 1, (size_t)--p->nahead * sizeof(p->ahead[0]));
	} else {
		p->tok = lexer_next(p->lx);
	}
}

/*
 * The token n places after the current one (n >= 1). Callers never look past a '}', so tokens
 * after a probe's closing brace are always lexed in top-level mode.
 */
static const struct token *parse_peek(struct parser *p, int n)
{
	if (n > PARSE_LOOKAHEAD)
		n = PARSE_LOOKAHEAD;
	while (p->nahead < n)
		p->ahead[p->nahead++] = lexer_next(p->lx);
	return &p->ahead[n - 1];
}

static bool tok_is(const struct token *t, int op)
{
	return t->kind == TOK_PUNCT && t->op == op && !t->is_assign;
}

static bool parse_is(const struct parser *p, int op)
{
	return tok_is(&p->tok, op);
}

static bool tok_is_word(const struct token *t, const char *w)
{
	return t->kind == TOK_IDENT && !strcmp(t->text, w);
}

static bool parse_is_word(const struct parser *p, const char *w)
{
	return tok_is_word(&p->tok, w);
}

/* How a token is named in "found ..." messages. */
static const char *tok_describe(struct parser *p, const struct token *t)
{
	const char *text = t->text ? t->text : "";
	int n = (int)strcspn(text, "\n");

	if (n > 40)
		n = 40;
	switch (t->kind) {
	case TOK_EOF:
		return "end of input";
	case TOK_INT:
		return arena_printf(p->a, "integer %.*s", n, text);
	case TOK_STR:
		return arena_printf(p->a, "string %.*s", n, text);
	case TOK_IDENT:
		if (PARSE_IN(text, parse_keywords))
			return arena_printf(p->a, "'%s'", text);
		return arena_printf(p->a, "identifier '%.*s'", n, text);
	case TOK_VAR:
		return arena_printf(p->a, "variable '%.*s'", n, text);
	case TOK_MAP:
		return arena_printf(p->a, "map '%.*s'", n, text);
	case TOK_POSPARAM:
		return arena_printf(p->a, "parameter '%.*s'", n, text);
	case TOK_ATTACH:
		return arena_printf(p->a, "attach point '%.*s'", n, text);
	case TOK_CDEF:
		return "a C definition";
	default:
		return arena_printf(p->a, "'%.*s'", n, text);
	}
}

/* ---- errors ---- */

/* Reports at token t unless we are already recovering or the lexer reported t itself. */
static void parse_error_at(struct parser *p, const struct token *t, const char *hint,
			   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void parse_error_at(struct parser *p, const struct token *t, const char *hint,
			   const char *fmt, ...)
{
	struct loc loc = t->loc;
	char msg[512];
	va_list ap;

	/* Right after a token the lexer rejected, what follows is usually fallout from it. */
	if (p->panic || t->kind == TOK_ERROR || p->prev.kind == TOK_ERROR) {
		p->panic = true;
		return;
	}
	/* Point just past the last real token, not at a blank line at the end of the file. */
	if (t->kind == TOK_EOF && p->prev.text) {
		loc = p->prev.loc;
		loc.col += p->prev.loc.len;
		loc.len = 1;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error(p->d, loc, hint, "%s", msg);
	p->panic = true;
}

static bool parse_expect(struct parser *p, int op, const char *what, const char *hint)
{
	if (parse_is(p, op)) {
		parse_next(p);
		return true;
	}
	parse_error_at(p, &p->tok, hint, "expected %s, found %s", what, tok_describe(p, &p->tok));
	return false;
}

/*
 * Skips to a statement boundary: past the next ';', or up to the '}' that closes the current
 * block, stepping over nested blocks whole.
 */
static void parse_sync_stmt(struct parser *p)
{
	int depth = 0;
	bool moved = false;

	while (p->tok.kind != TOK_EOF) {
		if (parse_is(p, '{')) {
			depth++;
		} else if (parse_is(p, '}')) {
			if (depth == 0)
				break;
			/* A nested block just ended: what follows is a new statement. */
			if (--depth == 0) {
				parse_next(p);
				break;
			}
		} else if (parse_is(p, ';') && depth == 0) {
			parse_next(p);
			break;
		} else if (depth == 0 && moved &&
			   (parse_is_word(p, "if") || parse_is_word(p, "while") ||
			    parse_is_word(p, "unroll") || parse_is_word(p, "for"))) {
			break;
		}
		parse_next(p);
		moved = true;
	}
	p->panic = false;
}

static struct node *parse_new(struct parser *p, enum node_kind kind, const struct token *t)
{
	return node_new(p->a, kind, t->loc);
}

/* ---- expressions ---- */

static struct node *parse_expr(struct parser *p);
static struct node *parse_unary(struct parser *p);

static bool tok_starts_expr(const struct token *t)
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
		return !PARSE_IN(t->text, parse_keywords);
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
static bool parse_need_operand(struct parser *p, const struct token *op)
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
			parse_error_at(p, &p->tok, NULL, "expected a type name after '%s', found %s",
				       kw, tok_describe(p, &p->tok));
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

	if (t->kind != TOK_IDENT || PARSE_IN(t->text, parse_keywords))
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
	       (after->kind == TOK_IDENT && !PARSE_IN(after->text, parse_keywords)) ||
	       tok_is(after, '(');
}

/* sizeof = "sizeof" "(" (type | expr) ")"   -- a CALL "sizeof" with cast_type or one arg */
static struct node *parse_sizeof(struct parser *p, struct node *n)
{
	const struct token *t = parse_peek(p, 1);
	bool is_type = false;

	if (t->kind == TOK_IDENT && (!strcmp(t->text, "struct") || !strcmp(t->text, "union") ||
				     !strcmp(t->text, "enum") || PARSE_IN(t->text, parse_int_types)))
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
 * primary = INT | STR | "$N" | "$#" | VAR | MAP ("[" expr ("," expr)* "]")?
 *         | IDENT "(" args ")" | "sizeof" "(" (type | expr) ")" | IDENT
 *         | "(" expr ("," expr)* ")"
 */
static struct node *parse_primary(struct parser *p)
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
				parse_error_at(p, &open, "write @map[key], or @map for a map without keys",
					       "expected a key expression between '[' and ']'");
				return NULL;
			}
		}
		return n;
	case TOK_IDENT:
		if (PARSE_IN(t.text, parse_keywords))
			break;
		if (tok_is(parse_peek(p, 1), '(')) {
			n = parse_new(p, NODE_CALL, &t);
			n->name = t.text;
			parse_next(p);
			if (!strcmp(t.text, "sizeof"))
				return parse_sizeof(p, n);
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
			if (p->tok.kind != TOK_IDENT && (p->tok.kind != TOK_INT || t.op == OP_ARROW)) {
				parse_error_at(p, &p->tok, NULL, "expected a field name after '%s', found %s",
					       t.text, tok_describe(p, &p->tok));
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
static struct node *parse_expr(struct parser *p)
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

/* ---- statements ---- */

static struct node *parse_block(struct parser *p, bool probe_body);

/* cond_block = "(" expr ")" block   -- shared by if and while; fills n->cond and n->body */
static bool parse_cond_block(struct parser *p, struct node *n, const char *kw)
{
	char what[64];

	snprintf(what, sizeof(what), "'(' after '%s'", kw);
	if (!parse_expect(p, '(', what, NULL))
		return false;
	if (!parse_need_operand(p, &p->prev))
		return false;
	n->cond = parse_expr(p);
	if (!n->cond || !parse_expect(p, ')', "')' after the condition", NULL))
		return false;
	if (!parse_is(p, '{')) {
		parse_error_at(p, &p->tok, "bpftrace needs braces around the body, even for one statement",
			       "expected '{' after '%s (...)', found %s", kw, tok_describe(p, &p->tok));
		return false;
	}
	n->body = parse_block(p, false);
	return n->body != NULL;
}

/* if_stmt = "if" "(" expr ")" block ("else" (if_stmt | block))? */
static struct node *parse_if(struct parser *p)
{
	struct node *n = parse_new(p, NODE_IF, &p->tok);

	parse_next(p);
	if (!parse_cond_block(p, n, "if"))
		return NULL;
	if (!parse_is_word(p, "else"))
		return n;
	parse_next(p);
	if (parse_is_word(p, "if")) {
		n->else_body = parse_if(p);
	} else if (parse_is(p, '{')) {
		n->else_body = parse_block(p, false);
	} else {
		parse_error_at(p, &p->tok, "bpftrace needs braces: else { ... }",
			       "expected '{' or 'if' after 'else', found %s", tok_describe(p, &p->tok));
		return NULL;
	}
	return n->else_body ? n : NULL;
}

/* unroll_stmt = "unroll" "(" INT ")" block */
static struct node *parse_unroll(struct parser *p)
{
	struct node *n = parse_new(p, NODE_UNROLL, &p->tok);

	parse_next(p);
	if (!parse_expect(p, '(', "'(' after 'unroll'", NULL))
		return NULL;
	if (p->tok.kind != TOK_INT) {
		parse_error_at(p, &p->tok, "write unroll(N) { ... } with N from 1 to 100",
			       "expected an integer count after 'unroll (', found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->num = p->tok.num;
	parse_next(p);
	if (!parse_expect(p, ')', "')' after the unroll count", NULL))
		return NULL;
	if (!parse_is(p, '{')) {
		parse_error_at(p, &p->tok, NULL, "expected '{' after 'unroll (...)', found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->body = parse_block(p, false);
	return n->body ? n : NULL;
}

/* while_stmt = "while" "(" expr ")" block */
static struct node *parse_while(struct parser *p)
{
	struct node *n = parse_new(p, NODE_WHILE, &p->tok);

	parse_next(p);
	return parse_cond_block(p, n, "while") ? n : NULL;
}

/* for_stmt = "for" "(" VAR ":" MAP ")" block */
static struct node *parse_for(struct parser *p)
{
	struct node *n = parse_new(p, NODE_FOR, &p->tok);
	const char *hint = "a map loop is written for ($kv : @map) { ... }";

	parse_next(p);
	if (!parse_expect(p, '(', "'(' after 'for'", hint))
		return NULL;
	if (p->tok.kind != TOK_VAR) {
		parse_error_at(p, &p->tok, hint, "expected a variable after 'for (', found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->lhs = parse_primary(p);
	if (!parse_expect(p, ':', "':' after the loop variable", hint))
		return NULL;
	if (p->tok.kind != TOK_MAP) {
		parse_error_at(p, &p->tok, hint, "expected a map to iterate over, found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->rhs = parse_new(p, NODE_MAP, &p->tok);
	n->rhs->name = p->tok.text;
	parse_next(p);
	if (!parse_expect(p, ')', "')' after the map", hint))
		return NULL;
	if (!parse_is(p, '{')) {
		parse_error_at(p, &p->tok, NULL, "expected '{' after 'for (...)', found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->body = parse_block(p, false);
	return n->body ? n : NULL;
}

static bool node_is_lvalue(const struct node *n)
{
	return n->kind == NODE_MAP || n->kind == NODE_VAR;
}

/*
 * simple_stmt = lvalue ("=" | "+=" | "-=" | ...) expr
 *             | ("++" | "--") lvalue | lvalue ("++" | "--")
 *             | expr
 * lvalue = MAP ("[" expr ("," expr)* "]")? | VAR
 */
static struct node *parse_simple_stmt(struct parser *p)
{
	struct node *e = parse_expr(p), *n;
	struct token t = p->tok;

	if (!e)
		return NULL;
	if (t.kind == TOK_PUNCT && (t.is_assign || t.op == '=')) {
		n = node_new(p->a, NODE_ASSIGN, e->loc);
		n->lhs = e;
		n->op = t.is_assign ? t.op : 0;
		if (!node_is_lvalue(e)) {
			/* Not fatal: the right-hand side can still be checked. */
			diag_error(p->d, e->loc, "only maps (@x, @x[k]) and variables ($x) can be assigned",
				   "cannot assign to this %s", e->kind == NODE_BUILTIN ? "builtin" :
				   "expression");
		}
		parse_next(p);
		if (!parse_need_operand(p, &t))
			return NULL;
		n->rhs = parse_expr(p);
		return n->rhs ? n : NULL;
	}
	if (e->kind == NODE_UNOP && (e->op == OP_INC || e->op == OP_DEC) && node_is_lvalue(e->lhs)) {
		n = node_new(p->a, NODE_ASSIGN, e->lhs->loc);
		n->lhs = e->lhs;
		n->op = e->op;
		n->is_post = e->is_post;
		return n;
	}
	n = node_new(p->a, NODE_EXPR_STMT, e->loc);
	n->lhs = e;
	return n;
}

/*
 * stmt = block | if_stmt | unroll_stmt | while_stmt | for_stmt
 *      | "break" | "continue" | "return" | simple_stmt
 * Sets *braced for the forms that end with a block and need no ';'.
 */
static struct node *parse_stmt(struct parser *p, bool *braced)
{
	struct token t = p->tok;
	struct node *n;

	*braced = true;
	if (parse_is(p, '{'))
		return parse_block(p, false);
	if (parse_is_word(p, "if"))
		return parse_if(p);
	if (parse_is_word(p, "unroll"))
		return parse_unroll(p);
	if (parse_is_word(p, "while"))
		return parse_while(p);
	if (parse_is_word(p, "for"))
		return parse_for(p);
	*braced = false;
	if (parse_is_word(p, "break") || parse_is_word(p, "continue") ||
	    parse_is_word(p, "return")) {
		n = parse_new(p, t.text[0] == 'b' ? NODE_BREAK :
				 t.text[0] == 'c' ? NODE_CONTINUE : NODE_RETURN, &t);
		parse_next(p);
		return n;
	}
	if (parse_is_word(p, "else")) {
		parse_error_at(p, &t, NULL, "'else' without a matching 'if'");
		return NULL;
	}
	if (!tok_starts_expr(&t)) {
		parse_error_at(p, &t, NULL, "expected a statement, found %s", tok_describe(p, &t));
		return NULL;
	}
	return parse_simple_stmt(p);
}

/*
 * An attach point at the start of a statement ("kprobe:f", "END {", "BEGIN,") is never code:
 * the block before it lacks its '}'.
 */
static bool parse_at_next_probe(struct parser *p)
{
	const struct token *next;

	if (p->tok.kind != TOK_IDENT || PARSE_IN(p->tok.text, parse_keywords))
		return false;
	next = parse_peek(p, 1);
	return tok_is(next, ':') || tok_is(next, '{') || tok_is(next, ',');
}

/* block = "{" (stmt (";" | <after a braced stmt>))* stmt? "}" */
static struct node *parse_block(struct parser *p, bool probe_body)
{
	struct token open = p->tok;
	struct node *n, **tail;

	n = parse_new(p, NODE_BLOCK, &open);
	tail = &n->body;
	if (++p->depth > PARSE_MAX_DEPTH) {
		parse_error_at(p, &open, NULL, "blocks nested too deeply");
		p->depth--;
		return NULL;
	}
	parse_next(p); /* '{' */
	while (!p->reopen && !parse_is(p, '}') && p->tok.kind != TOK_EOF) {
		struct node *s;
		bool braced;

		if (parse_at_next_probe(p)) {
			char hint[96];

			snprintf(hint, sizeof(hint), "the '{' at line %u, column %u is never closed",
				 open.loc.line, open.loc.col);
			p->panic = false;
			parse_error_at(p, &p->tok, hint, "expected '}' before the next probe");
			p->panic = false;
			p->reopen = true;
			p->reopen_loc = p->tok.loc;
			break;
		}

		if (parse_is(p, ';')) {
			parse_next(p);
			continue;
		}
		s = parse_stmt(p, &braced);
		if (!s) {
			parse_sync_stmt(p);
			continue;
		}
		*tail = s;
		tail = &s->next;
		if (braced || parse_is(p, '}'))
			continue;
		if (parse_is(p, ';')) {
			parse_next(p);
			continue;
		}
		if (p->tok.kind == TOK_EOF)
			break; /* reported below as the missing '}' */
		parse_error_at(p, &p->tok,
			       p->tok.kind == TOK_PUNCT && (p->tok.is_assign || p->tok.op == '=') ?
				       "an assignment is a statement, not an expression" :
				       NULL,
			       "expected ';' or '}' after statement, found %s",
			       tok_describe(p, &p->tok));
		parse_sync_stmt(p);
	}
	p->depth--;
	if (p->reopen) {
		if (probe_body) {
			lexer_reset(p->lx, p->reopen_loc, true);
			p->nahead = 0;
			p->reopen = false;
			parse_next(p);
		}
		return n;
	}
	if (p->tok.kind == TOK_EOF) {
		char hint[96];

		snprintf(hint, sizeof(hint), "the '{' at line %u, column %u is never closed",
			 open.loc.line, open.loc.col);
		/* Always worth saying, even right after another error. */
		p->panic = false;
		parse_error_at(p, &p->tok, hint, "expected '}' before end of input");
		return n;
	}
	/* The closing brace of a probe hands the rest of the file back to top-level lexing. */
	if (probe_body)
		lexer_set_toplevel(p->lx, true);
	parse_next(p);
	return n;
}

/* ---- top level ---- */

/* attach = ATTACH   -- provider:target, or a bare BEGIN/END */
static struct node *parse_attach(struct parser *p)
{
	struct node *n = parse_new(p, NODE_ATTACH, &p->tok);
	const char *colon = strchr(p->tok.text, ':');

	n->str = p->tok.text;
	if (colon) {
		n->provider = arena_strndup(p->a, n->str, (size_t)(colon - n->str));
		n->target = arena_strdup(p->a, colon + 1);
	} else {
		n->provider = n->str;
		n->target = arena_strdup(p->a, "");
	}
	parse_next(p);
	return n;
}

/* Top-level recovery: on to the next '{' (whose block we still check) or end of input. */
static void parse_sync_probe(struct parser *p)
{
	while (p->tok.kind != TOK_EOF && !parse_is(p, '{'))
		parse_next(p);
	p->panic = false;
}

/* predicate = "/" expr "/" */
static struct node *parse_predicate(struct parser *p)
{
	struct token open = p->tok;
	struct node *n;

	lexer_set_toplevel(p->lx, false);
	parse_next(p);
	if (!parse_need_operand(p, &open))
		return NULL;
	p->in_pred = true;
	n = parse_expr(p);
	p->in_pred = false;
	if (!n)
		return NULL;
	if (!parse_expect(p, '/', "'/' to end the predicate",
			  "a predicate is written /expr/ between the attach points and the '{'"))
		return NULL;
	return n;
}

/* probe = attach ("," attach)* predicate? block */
static struct node *parse_probe(struct parser *p)
{
	struct node *n = parse_new(p, NODE_PROBE, &p->tok), **tail = &n->args;

	*tail = parse_attach(p);
	tail = &(*tail)->next;
	for (;;) {
		if (parse_is(p, ',')) {
			parse_next(p);
			if (p->tok.kind != TOK_ATTACH) {
				parse_error_at(p, &p->tok, NULL,
					       "expected an attach point after ',', found %s",
					       tok_describe(p, &p->tok));
				break;
			}
			*tail = parse_attach(p);
			tail = &(*tail)->next;
			continue;
		}
		if (p->tok.kind == TOK_ATTACH) {
			parse_error_at(p, &p->tok, "separate attach points with ','",
				       "expected ',', '/' or '{' after attach point, found %s",
				       tok_describe(p, &p->tok));
		}
		break;
	}
	if (!p->panic && parse_is(p, '/')) {
		n->cond = parse_predicate(p);
		if (n->cond && !parse_is(p, '{'))
			parse_error_at(p, &p->tok, NULL, "expected '{' after the predicate, found %s",
				       tok_describe(p, &p->tok));
		/* Skip what is left of a bad predicate, lexing as in a block, up to the '{'. */
		while (p->tok.kind != TOK_EOF && !parse_is(p, '{'))
			parse_next(p);
	} else if (!parse_is(p, '{')) {
		parse_error_at(p, &p->tok, "a probe is written: attach_point /predicate/ { ... }",
			       "expected '{' after attach point, found %s", tok_describe(p, &p->tok));
		parse_sync_probe(p);
	}
	if (!parse_is(p, '{')) {
		p->panic = false;
		lexer_set_toplevel(p->lx, true);
		return n;
	}
	p->panic = false;
	lexer_set_toplevel(p->lx, false);
	n->body = parse_block(p, true);
	return n;
}

/* program = (cdef | include | probe)* */
static struct node *parse_program_items(struct parser *p)
{
	struct node *prog = node_new(p->a, NODE_PROGRAM, p->tok.loc), **tail = &prog->body;

	while (p->tok.kind != TOK_EOF) {
		struct node *n = NULL;

		p->panic = false;
		switch (p->tok.kind) {
		case TOK_CDEF:
			n = parse_new(p, strncmp(p->tok.text, "#include", 8) ? NODE_CDEF :
						 NODE_INCLUDE, &p->tok);
			n->str = p->tok.text;
			parse_next(p);
			break;
		case TOK_ATTACH:
			n = parse_probe(p);
			break;
		case TOK_ERROR:
			parse_next(p);
			break;
		default:
			if (parse_is(p, '{')) {
				parse_error_at(p, &p->tok, "a probe is written: attach_point { ... }",
					       "expected an attach point before '{'");
				/* Still check the block's contents. */
				p->panic = false;
				lexer_set_toplevel(p->lx, false);
				parse_block(p, true);
			} else {
				parse_error_at(p, &p->tok,
					       parse_is(p, '}') ? "this '}' closes nothing" : NULL,
					       "unexpected %s at top level", tok_describe(p, &p->tok));
				parse_next(p);
			}
			break;
		}
		if (n) {
			*tail = n;
			tail = &n->next;
		}
	}
	return prog;
}

int parse_program(struct program *prog, struct diags *d)
{
	struct parser p = { .a = prog->arena, .d = d };
	size_t before = d->nerrors;

	p.lx = lexer_new(prog->arena, prog->src, d);
	lexer_set_toplevel(p.lx, true);
	parse_next(&p);
	prog->root = parse_program_items(&p);
	return d->nerrors > before ? -EINVAL : 0;
}
