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
#include "parser.h"

static const char *const parse_keywords[] = {
	"if", "else", "while", "unroll", "for", "break", "continue", "return", "let",
};

bool parse_in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(s, list[i]))
			return true;
	}
	return false;
}

bool parse_is_keyword(const char *s)
{
	return PARSE_IN(s, parse_keywords);
}

/* ---- tokens ---- */

void parse_next(struct parser *p)
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
const struct token *parse_peek(struct parser *p, int n)
{
	if (n > PARSE_LOOKAHEAD)
		n = PARSE_LOOKAHEAD;
	while (p->nahead < n)
		p->ahead[p->nahead++] = lexer_next(p->lx);
	return &p->ahead[n - 1];
}

bool tok_is(const struct token *t, int op)
{
	return t->kind == TOK_PUNCT && t->op == op && !t->is_assign;
}

bool parse_is(const struct parser *p, int op)
{
	return tok_is(&p->tok, op);
}

bool tok_is_word(const struct token *t, const char *w)
{
	return t->kind == TOK_IDENT && !strcmp(t->text, w);
}

bool parse_is_word(const struct parser *p, const char *w)
{
	return tok_is_word(&p->tok, w);
}

/* How a token is named in "found ..." messages. */
const char *tok_describe(struct parser *p, const struct token *t)
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
		if (parse_is_keyword(text))
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
void parse_error_at(struct parser *p, const struct token *t, const char *hint, const char *fmt, ...)
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

bool parse_expect(struct parser *p, int op, const char *what, const char *hint)
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

struct node *parse_new(struct parser *p, enum node_kind kind, const struct token *t)
{
	return node_new(p->a, kind, t->loc);
}

/* ---- statements ---- */

/*
 * cond = "(" expr ")" | unary   -- if, while: without parentheses the condition is one operand
 * (`if $x {`, `while !@done {`), as in bpftrace 0.24 and later, so that its '{' ends it.
 */
struct node *parse_cond(struct parser *p, const char *kw)
{
	struct node *c;

	if (parse_is(p, '(')) {
		parse_next(p);
		if (!parse_need_operand(p, &p->prev))
			return NULL;
		c = parse_expr(p);
		if (!c || !parse_expect(p, ')', "')' after the condition", NULL))
			return NULL;
		return c;
	}
	if (!tok_starts_expr(&p->tok) || parse_is(p, '{')) {
		parse_error_at(p, &p->tok, NULL, "expected a condition after '%s', found %s", kw,
			       tok_describe(p, &p->tok));
		return NULL;
	}
	return parse_unary(p);
}

/* The '{' of a loop's or if's body; parenthesized: whether the head had parentheses. */
static bool parse_body_open(struct parser *p, const char *kw, bool parenthesized)
{
	if (parse_is(p, '{'))
		return true;
	if (parenthesized) {
		parse_error_at(
			p, &p->tok, "bpftrace needs braces around the body, even for one statement",
			"expected '{' after '%s (...)', found %s", kw, tok_describe(p, &p->tok));
	} else {
		parse_error_at(
			p, &p->tok,
			arena_printf(
				p->a,
				"without parentheses the condition is one operand: write %s (...) { ... }",
				kw),
			"expected '{' after the condition of '%s', found %s", kw,
			tok_describe(p, &p->tok));
	}
	return false;
}

/* cond_block = cond block   -- shared by if and while; fills n->cond and n->body */
static bool parse_cond_block(struct parser *p, struct node *n, const char *kw)
{
	bool parenthesized = parse_is(p, '(');

	n->cond = parse_cond(p, kw);
	if (!n->cond || !parse_body_open(p, kw, parenthesized))
		return false;
	n->body = parse_block(p, false);
	return n->body != NULL;
}

/* if_stmt = "if" cond block ("else" (if_stmt | block))? */
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
			       "expected '{' or 'if' after 'else', found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	return n->else_body ? n : NULL;
}

/* unroll_stmt = "unroll" ("(" count ")" | count) block   -- count = INT | "$N" */
static struct node *parse_unroll(struct parser *p)
{
	struct node *n = parse_new(p, NODE_UNROLL, &p->tok);
	bool parenthesized;

	parse_next(p);
	parenthesized = parse_is(p, '(');
	if (parenthesized)
		parse_next(p);
	if (p->tok.kind == TOK_POSPARAM && !p->tok.is_count) {
		n->cond = parse_primary(p);
		if (!n->cond)
			return NULL;
	} else if (p->tok.kind != TOK_INT) {
		parse_error_at(p, &p->tok, "write unroll(N) { ... } with N from 1 to 100",
			       parenthesized
				       ? "expected an integer count after 'unroll (', found %s"
				       : "expected an integer count after 'unroll', found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	} else {
		n->num = p->tok.num;
		parse_next(p);
	}
	if (parenthesized && !parse_expect(p, ')', "')' after the unroll count", NULL))
		return NULL;
	if (!parse_is(p, '{')) {
		parse_error_at(p, &p->tok, NULL, "expected '{' after 'unroll (...)', found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->body = parse_block(p, false);
	return n->body ? n : NULL;
}

/* while_stmt = "while" cond block */
static struct node *parse_while(struct parser *p)
{
	struct node *n = parse_new(p, NODE_WHILE, &p->tok);

	parse_next(p);
	return parse_cond_block(p, n, "while") ? n : NULL;
}

/*
 * for_stmt = "for" ("(" for_head ")" | for_head) block
 * for_head = VAR ":" (MAP | unary ".." unary)
 */
static struct node *parse_for(struct parser *p)
{
	struct node *n = parse_new(p, NODE_FOR, &p->tok);
	const char *hint =
		"loops are written for ($kv : @map) { ... } and for ($i : 0..10) { ... }";
	bool parenthesized;
	struct token first;

	parse_next(p);
	parenthesized = parse_is(p, '(');
	if (parenthesized)
		parse_next(p);
	if (p->tok.kind != TOK_VAR) {
		parse_error_at(p, &p->tok, hint,
			       parenthesized ? "expected a variable after 'for (', found %s"
					     : "expected a variable after 'for', found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->lhs = parse_primary(p);
	if (!parse_expect(p, ':', "':' after the loop variable", hint))
		return NULL;
	first = p->tok;
	if (p->tok.kind == TOK_MAP && !tok_is(parse_peek(p, 1), OP_RANGE)) {
		n->rhs = parse_new(p, NODE_MAP, &p->tok);
		n->rhs->name = p->tok.text;
		parse_next(p);
	} else if (tok_starts_expr(&p->tok)) {
		n->rhs = parse_new(p, NODE_RANGE, &first);
		n->rhs->lhs = parse_unary(p);
		if (!n->rhs->lhs)
			return NULL;
		if (!parse_is(p, OP_RANGE)) {
			parse_error_at(
				p, &p->tok, hint,
				"expected a map or a range START..END to iterate over, found %s",
				tok_describe(p, &first));
			return NULL;
		}
		parse_next(p);
		if (!parse_need_operand(p, &p->prev))
			return NULL;
		n->rhs->rhs = parse_unary(p);
		if (!n->rhs->rhs)
			return NULL;
	} else {
		parse_error_at(p, &p->tok, hint,
			       "expected a map or a range START..END to iterate over, found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	if (parenthesized &&
	    !parse_expect(p, ')',
			  n->rhs->kind == NODE_MAP ? "')' after the map" : "')' after the range",
			  hint))
		return NULL;
	if (!parse_is(p, '{')) {
		parse_error_at(p, &p->tok, NULL,
			       parenthesized ? "expected '{' after 'for (...)', found %s"
					     : "expected '{' after the loop's head, found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->body = parse_block(p, false);
	return n->body ? n : NULL;
}

/*
 * type = ("struct" | "union" | "enum")? IDENT ("*" | "[" INT? "]")*
 *      | "typeof" "(" (type | expr) ")"
 * The text goes to n->cast_type ("struct task_struct *", "uint8[8]"); a typeof's argument to
 * n->type_expr. false after an error.
 */
bool parse_type_into(struct parser *p, struct node *n)
{
	if (parse_is_word(p, "typeof") && tok_is(parse_peek(p, 1), '(')) {
		struct token open;

		parse_next(p);
		open = p->tok;
		parse_next(p);
		if (parse_at_type(p, ')')) {
			n->type_expr = parse_new(p, NODE_TYPE, &p->tok);
			n->type_expr->cast_type = parse_type(p);
			if (!n->type_expr->cast_type)
				return false;
		} else {
			if (!parse_need_operand(p, &open))
				return false;
			n->type_expr = parse_expr(p);
			if (!n->type_expr)
				return false;
		}
		return parse_expect(p, ')', "')' to end typeof(...)", NULL);
	}
	if (p->tok.kind != TOK_IDENT || parse_is_keyword(p->tok.text)) {
		parse_error_at(p, &p->tok, NULL, "expected a type, found %s",
			       tok_describe(p, &p->tok));
		return false;
	}
	n->cast_type = parse_type(p);
	return n->cast_type != NULL;
}

/* let_stmt = "let" VAR (":" type)? ("=" expr)? */
static struct node *parse_let(struct parser *p)
{
	struct node *n = parse_new(p, NODE_LET, &p->tok);
	const char *hint = "declarations are written let $x; let $x = value; let $x: type = value;";

	parse_next(p);
	if (p->tok.kind != TOK_VAR) {
		parse_error_at(p, &p->tok, hint, "expected a variable after 'let', found %s",
			       tok_describe(p, &p->tok));
		return NULL;
	}
	n->lhs = parse_primary(p);
	if (parse_is(p, ':')) {
		parse_next(p);
		if (!parse_type_into(p, n))
			return NULL;
	}
	if (p->tok.kind == TOK_PUNCT && p->tok.op == '=' && !p->tok.is_assign) {
		struct token eq = p->tok;

		parse_next(p);
		if (!parse_need_operand(p, &eq))
			return NULL;
		n->rhs = parse_expr(p);
		if (!n->rhs)
			return NULL;
	}
	return n;
}

static bool node_is_lvalue(const struct node *n)
{
	return n->kind == NODE_MAP || n->kind == NODE_VAR;
}

/*
 * simple_stmt = lvalue ("=" | "+=" | "-=" | ...) expr
 *             | ("++" | "--") lvalue | lvalue ("++" | "--")
 *             | "_" "=" expr
 *             | expr
 * lvalue = MAP ("[" expr ("," expr)* "]")? | VAR
 */
static struct node *parse_simple_stmt(struct parser *p)
{
	struct node *e = parse_expr(p), *n;
	struct token t = p->tok;

	if (!e)
		return NULL;
	if (t.kind == TOK_PUNCT && t.op == '=' && !t.is_assign && e->kind == NODE_BUILTIN &&
	    !strcmp(e->name, "_")) {
		/* `_ = expr`: the value is dropped on purpose, without a warning */
		n = node_new(p->a, NODE_EXPR_STMT, e->loc);
		n->is_discard = true;
		parse_next(p);
		if (!parse_need_operand(p, &t))
			return NULL;
		n->lhs = parse_expr(p);
		return n->lhs ? n : NULL;
	}
	if (t.kind == TOK_PUNCT && (t.is_assign || t.op == '=')) {
		n = node_new(p->a, NODE_ASSIGN, e->loc);
		n->lhs = e;
		n->op = t.is_assign ? t.op : 0;
		if (!node_is_lvalue(e)) {
			/* Not fatal: the right-hand side can still be checked. */
			diag_error(p->d, e->loc,
				   "only maps (@x, @x[k]) and variables ($x) can be assigned",
				   "cannot assign to this %s",
				   e->kind == NODE_BUILTIN ? "builtin" : "expression");
		}
		parse_next(p);
		if (!parse_need_operand(p, &t))
			return NULL;
		n->rhs = parse_expr(p);
		return n->rhs ? n : NULL;
	}
	if (e->kind == NODE_UNOP && (e->op == OP_INC || e->op == OP_DEC) &&
	    node_is_lvalue(e->lhs)) {
		n = node_new(p->a, NODE_ASSIGN, e->is_post ? e->loc : e->lhs->loc);
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
 *      | "break" | "continue" | "return" expr? | let_stmt | simple_stmt
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
		n = parse_new(p,
			      t.text[0] == 'b'	 ? NODE_BREAK
			      : t.text[0] == 'c' ? NODE_CONTINUE
						 : NODE_RETURN,
			      &t);
		parse_next(p);
		/* return EXPR: the probe's program returns it (bpftrace 0.25 and later) */
		if (n->kind == NODE_RETURN && !parse_is(p, ';') && !parse_is(p, '}') &&
		    tok_starts_expr(&p->tok)) {
			n->lhs = parse_expr(p);
			if (!n->lhs)
				return NULL;
		}
		return n;
	}
	if (parse_is_word(p, "let"))
		return parse_let(p);
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

	if (p->tok.kind != TOK_IDENT || parse_is_keyword(p->tok.text))
		return false;
	next = parse_peek(p, 1);
	return tok_is(next, ':') || tok_is(next, '{') || tok_is(next, ',');
}

/*
 * block = "{" (stmt (";" | <after a braced stmt>))* stmt? "}"
 * As a block expression (value), a last expression statement without its ';' is the block's
 * value, n->lhs: `{ let $b = 1; $b + 1 }`.
 */
/* The last statement of a block, or NULL. */
static struct node **parse_last_stmt(struct node *block)
{
	struct node **at = &block->body;

	if (!*at)
		return NULL;
	while ((*at)->next)
		at = &(*at)->next;
	return at;
}

static bool parse_if_can_value(const struct node *s);

/* Whether a block has a value: an expression last with no ';' after it, or an if/else that has. */
static bool parse_block_can_value(struct node *b)
{
	struct node **last = parse_last_stmt(b);

	return b->open_last || (last && parse_if_can_value(*last));
}

/* Whether an if/else statement has a value in every branch (an if without else has none). */
static bool parse_if_can_value(const struct node *s)
{
	if (s->kind != NODE_IF || !s->else_body || !parse_block_can_value(s->body))
		return false;
	return s->else_body->kind == NODE_IF ? parse_if_can_value(s->else_body)
					     : parse_block_can_value(s->else_body);
}

static void parse_if_to_value(struct node *s);

/* A block that parse_block_can_value said has a value: that value moved to its lhs. */
static void parse_block_to_value(struct node *b)
{
	struct node **last = parse_last_stmt(b);

	if (b->open_last) {
		b->lhs = (*last)->lhs;
		b->open_last = false;
	} else {
		parse_if_to_value(*last);
		b->lhs = *last;
	}
	*last = NULL;
}

/*
 * An if/else statement that ends a value block, made its value ({ ...; if c { a } else { b } },
 * as bpftrace 0.27 takes it): a TERNARY of its branches' values, as if_expr builds one. Only
 * where parse_if_can_value said every branch has one.
 */
static void parse_if_to_value(struct node *s)
{
	struct node *then = s->body, *other = s->else_body;

	parse_block_to_value(then);
	if (other->kind == NODE_IF)
		parse_if_to_value(other);
	else
		parse_block_to_value(other);
	s->kind = NODE_TERNARY;
	s->lhs = then;
	s->rhs = other;
	s->body = s->else_body = NULL;
}

static struct node *parse_block_in(struct parser *p, bool probe_body, bool value)
{
	struct token open = p->tok;
	struct node *n, **tail, **last = NULL;
	bool last_open = false;

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

			snprintf(hint, sizeof(hint),
				 "the '{' at line %u, column %u is never closed", open.loc.line,
				 open.loc.col);
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
		last_open = false;
		if (!s) {
			parse_sync_stmt(p);
			continue;
		}
		last = tail;
		*tail = s;
		tail = &s->next;
		if (braced)
			continue;
		if (parse_is(p, '}')) {
			last_open = true;
			continue;
		}
		if (parse_is(p, ';')) {
			parse_next(p);
			continue;
		}
		if (p->tok.kind == TOK_EOF)
			break; /* reported below as the missing '}' */
		parse_error_at(p, &p->tok,
			       p->tok.kind == TOK_PUNCT && (p->tok.is_assign || p->tok.op == '=')
				       ? "an assignment is a statement, not an expression"
				       : NULL,
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
	if (last_open && (*last)->kind == NODE_EXPR_STMT && !(*last)->is_discard)
		n->open_last = true;
	if (value && n->open_last) {
		n->lhs = (*last)->lhs;
		*last = NULL;
	} else if (value && last && parse_if_can_value(*last)) {
		/* { ...; if c { a } else { b } }: the if is the value, as in bpftrace 0.27 */
		parse_if_to_value(*last);
		n->lhs = *last;
		*last = NULL;
	}
	/* The closing brace of a probe hands the rest of the file back to top-level lexing. */
	if (probe_body)
		lexer_set_toplevel(p->lx, true);
	parse_next(p);
	return n;
}

struct node *parse_block(struct parser *p, bool probe_body)
{
	return parse_block_in(p, probe_body, false);
}

struct node *parse_block_value(struct parser *p)
{
	return parse_block_in(p, false, true);
}

struct node *parse_block_toplevel_value(struct parser *p)
{
	return parse_block_in(p, true, true);
}

/* ---- top level ---- */

/* attach = ATTACH   -- provider:target, or a bare BEGIN/END */
static struct node *parse_attach(struct parser *p)
{
	struct node *n = parse_new(p, NODE_ATTACH, &p->tok);

	ast_attach_set(p->a, n, p->tok.text);
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
			parse_error_at(p, &p->tok, NULL,
				       "expected '{' after the predicate, found %s",
				       tok_describe(p, &p->tok));
		/* Skip what is left of a bad predicate, lexing as in a block, up to the '{'. */
		while (p->tok.kind != TOK_EOF && !parse_is(p, '{'))
			parse_next(p);
	} else if (!parse_is(p, '{')) {
		parse_error_at(p, &p->tok, "a probe is written: attach_point /predicate/ { ... }",
			       "expected '{' after attach point, found %s",
			       tok_describe(p, &p->tok));
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

/* mapdecl = "let" MAP "=" IDENT "(" INT ")" ";"   (bpftrace 0.25: let @m = lruhash(100);) */
/* The token of a declaration's part (a map, a map type, a number), or NULL with an error. */
static const struct token *parse_mapdecl_part(struct parser *p, enum tok_kind kind,
					      const char *what, struct token *out)
{
	if (p->tok.kind != kind) {
		parse_error_at(p, &p->tok, "a map is declared at top level: let @m = hash(100);",
			       "expected %s, found %s", what, tok_describe(p, &p->tok));
		return NULL;
	}
	*out = p->tok;
	parse_next(p);
	return out;
}

static struct node *parse_mapdecl(struct parser *p)
{
	const char *hint = "a map is declared at top level: let @m = hash(100);";
	struct node *n = parse_new(p, NODE_MAPDECL, &p->tok);
	struct token map, kind, num;
	bool ok;

	lexer_set_toplevel(p->lx, false);
	parse_next(p);
	ok = parse_mapdecl_part(p, TOK_MAP, "a map after 'let'", &map) &&
	     parse_expect(p, '=', "'=' after the map", hint) &&
	     parse_mapdecl_part(p, TOK_IDENT, "a map type", &kind) &&
	     parse_expect(p, '(', "'(' after the map type", hint) &&
	     parse_mapdecl_part(p, TOK_INT, "the number of entries", &num);
	ok = ok && parse_expect(p, ')', "')' after the number of entries", hint);
	/* The token after ';' starts the next item: lexed as one. */
	lexer_set_toplevel(p->lx, true);
	ok = ok && parse_expect(p, ';', "';' after the declaration", hint);
	if (!ok) {
		/* Resume at the next line that may start an item. */
		while (p->tok.kind != TOK_EOF && p->tok.kind != TOK_ATTACH &&
		       p->tok.kind != TOK_CDEF)
			parse_next(p);
		return NULL;
	}
	n->name = map.text;
	n->str = kind.text;
	n->num = num.num;
	return n;
}

/* import = "import" STR ";" */
static struct node *parse_import(struct parser *p)
{
	const char *hint = "an import is: import \"file.bt\";";
	struct node *n = parse_new(p, NODE_IMPORT, &p->tok);
	bool ok = true;

	lexer_set_toplevel(p->lx, false);
	parse_next(p);
	if (p->tok.kind != TOK_STR) {
		parse_error_at(p, &p->tok, hint,
			       "expected a path in quotes after 'import', found %s",
			       tok_describe(p, &p->tok));
		ok = false;
	} else {
		n->str = p->tok.str;
		if (p->tok.loc.line == n->loc.line && p->tok.loc.col > n->loc.col)
			n->loc.len = p->tok.loc.col + p->tok.loc.len - n->loc.col;
		parse_next(p);
		/* The token after ';' starts the next item: lexed as one. */
		lexer_set_toplevel(p->lx, true);
		ok = parse_expect(p, ';', "';' after the import", hint);
	}
	/* Not again after the ';': that would forget that its lookahead was an attach point. */
	if (!ok) {
		lexer_set_toplevel(p->lx, true);
		while (p->tok.kind != TOK_EOF && p->tok.kind != TOK_ATTACH &&
		       p->tok.kind != TOK_CDEF)
			parse_next(p);
		return NULL;
	}
	return n;
}

/*
 * item = probe
 * A top-level word the lexer returns as an attach point. Items of bpftrace 0.20 and later that
 * start with a word (config = { ... }, import "x";, macro m() { ... }, let @m = hash(N);) are
 * told apart here, by that word, before a probe is assumed.
 */
static struct node *parse_item(struct parser *p)
{
	if (!strcmp(p->tok.text, "let"))
		return parse_mapdecl(p);
	if (!strcmp(p->tok.text, "config"))
		return parse_config(p);
	if (!strcmp(p->tok.text, "macro"))
		return parse_macro(p);
	if (!strcmp(p->tok.text, "import"))
		return parse_import(p);
	return parse_probe(p);
}

/* program = (cdef | include | item)* */
static struct node *parse_program_items(struct parser *p)
{
	struct node *prog = node_new(p->a, NODE_PROGRAM, p->tok.loc), **tail = &prog->body;

	while (p->tok.kind != TOK_EOF) {
		struct node *n = NULL;

		p->panic = false;
		switch (p->tok.kind) {
		case TOK_CDEF:
			n = parse_new(
				p, strncmp(p->tok.text, "#include", 8) ? NODE_CDEF : NODE_INCLUDE,
				&p->tok);
			n->str = p->tok.text;
			/* struct s { ... } needs no ';' in a script, but does in C */
			if (p->tok.text[0] != '#' && p->tok.text[strlen(p->tok.text) - 1] != ';')
				n->str = arena_printf(p->a, "%s;", p->tok.text);
			parse_next(p);
			break;
		case TOK_ATTACH:
			n = parse_item(p);
			break;
		case TOK_ERROR:
			parse_next(p);
			break;
		default:
			if (parse_is(p, '{')) {
				parse_error_at(p, &p->tok,
					       "a probe is written: attach_point { ... }",
					       "expected an attach point before '{'");
				/* Still check the block's contents. */
				p->panic = false;
				lexer_set_toplevel(p->lx, false);
				parse_block(p, true);
			} else {
				parse_error_at(p, &p->tok,
					       parse_is(p, '}') ? "this '}' closes nothing" : NULL,
					       "unexpected %s at top level",
					       tok_describe(p, &p->tok));
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

struct node *parse_source(struct program *prog, const struct source *src, struct diags *d)
{
	struct parser p = { .a = prog->arena, .d = d };

	p.lx = lexer_new(prog->arena, src, d);
	lexer_set_toplevel(p.lx, true);
	parse_next(&p);
	return parse_program_items(&p);
}

int parse_program(struct program *prog, struct diags *d)
{
	size_t before = d->nerrors;

	prog->root = parse_source(prog, prog->src, d);
	import_resolve(prog, prog->root, d);
	return d->nerrors > before ? -EINVAL : 0;
}
