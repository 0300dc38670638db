// SPDX-License-Identifier: GPL-2.0
/*
 * Parser shapes (node kinds and fields, not golden dumps), error reporting and recovery, the
 * bpftrace tools installed on the host, and the expected diagnostics of tests/errors/.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arena.h"
#include "frontend.h"

struct parse_fixture {
	struct arena *a;
	struct source src;
	struct diags d;
	struct program prog;
	int err;
};

static void parse_text(struct parse_fixture *fx, const char *name, char *text, size_t len)
{
	memset(fx, 0, sizeof(*fx));
	fx->a = arena_new();
	fx->src.name = (char *)name;
	fx->src.text = text;
	fx->src.len = len;
	diags_init(&fx->d, &fx->src);
	fx->prog.arena = fx->a;
	fx->prog.src = &fx->src;
	fx->err = parse_program(&fx->prog, &fx->d);
}

static void parse_str(struct parse_fixture *fx, const char *text)
{
	parse_text(fx, "test.bt", (char *)text, strlen(text));
}

static void parse_done(struct parse_fixture *fx)
{
	diags_free(&fx->d);
	arena_free(fx->a);
}

static char *parse_printed(const struct parse_fixture *fx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	diags_print(&fx->d, f);
	fclose(f);
	return buf;
}

/* Parses a program that must be clean and returns its first probe's first statement. */
static struct node *first_stmt(struct parse_fixture *fx, const char *text)
{
	struct node *probe;

	parse_str(fx, text);
	if (fx->err) {
		char *s = parse_printed(fx);

		print_error("%s", s);
		free(s);
		fail();
	}
	probe = fx->prog.root->body;
	assert_non_null(probe);
	assert_int_equal(probe->kind, NODE_PROBE);
	assert_int_equal(probe->body->kind, NODE_BLOCK);
	assert_non_null(probe->body->body);
	return probe->body->body;
}

/* The expression assigned by a first statement `$x = EXPR`. */
static struct node *assigned(struct parse_fixture *fx, const char *text)
{
	struct node *s = first_stmt(fx, text);

	assert_int_equal(s->kind, NODE_ASSIGN);
	return s->rhs;
}

/* config = { ... }: both spellings of the tool scripts, and the probe after the block. */
static void test_config_block(void **state)
{
	static const char *const texts[] = {
		"config = { missing_probes = \"ignore\" }\nBEGIN { }\n",
		"config = {\n  missing_probes = ignore;\n  max_strlen = 16;\n}\nBEGIN { }\n",
		"config={missing_probes=ignore;max_strlen=16;}BEGIN { }\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct parse_fixture fx;
		struct node *c, *v;

		parse_str(&fx, texts[i]);
		assert_int_equal(fx.err, 0);
		c = fx.prog.root->body;
		assert_int_equal(c->kind, NODE_CONFIG);
		v = c->args;
		assert_int_equal(v->kind, NODE_CONFIG_VAR);
		assert_string_equal(v->name, "missing_probes");
		assert_string_equal(v->str, "ignore");
		assert_int_equal(v->op, i ? TOK_IDENT : TOK_STR);
		v = v->next;
		if (i) {
			assert_string_equal(v->name, "max_strlen");
			assert_int_equal(v->op, TOK_INT);
			assert_int_equal(v->num, 16);
			assert_string_equal(v->str, "16");
			v = v->next;
		}
		assert_null(v);
		assert_int_equal(c->next->kind, NODE_PROBE);
		assert_null(c->next->next);
		parse_done(&fx);
	}
}

static void test_probe_shape(void **state)
{
	struct parse_fixture fx;
	struct node *root, *probe, *a;

	(void)state;
	parse_str(
		&fx,
		"#include <linux/sched.h>\nstruct x { int a; };\n"
		"kprobe:vfs_read, tracepoint:syscalls:sys_enter_open* /pid == 1/ { @n = count() }\n"
		"BEGIN { }\n");
	assert_int_equal(fx.err, 0);
	root = fx.prog.root;
	assert_int_equal(root->kind, NODE_PROGRAM);
	assert_int_equal(root->body->kind, NODE_INCLUDE);
	assert_string_equal(root->body->str, "#include <linux/sched.h>");
	assert_int_equal(root->body->next->kind, NODE_CDEF);
	probe = root->body->next->next;
	assert_int_equal(probe->kind, NODE_PROBE);
	a = probe->args;
	assert_int_equal(a->kind, NODE_ATTACH);
	assert_string_equal(a->str, "kprobe:vfs_read");
	assert_string_equal(a->provider, "kprobe");
	assert_string_equal(a->target, "vfs_read");
	a = a->next;
	assert_string_equal(a->provider, "tracepoint");
	assert_string_equal(a->target, "syscalls:sys_enter_open*");
	assert_null(a->next);
	assert_int_equal(probe->cond->kind, NODE_BINOP);
	assert_int_equal(probe->cond->op, OP_EQ);
	assert_int_equal(probe->body->body->kind, NODE_ASSIGN);
	assert_int_equal(probe->body->body->rhs->kind, NODE_CALL);
	probe = probe->next;
	assert_string_equal(probe->args->provider, "BEGIN");
	assert_string_equal(probe->args->target, "");
	assert_null(probe->cond);
	assert_null(probe->body->body);
	assert_int_equal(probe->loc.line, 4);
	assert_null(probe->next);
	parse_done(&fx);
}

static void test_precedence(void **state)
{
	struct parse_fixture fx;
	struct node *e;

	(void)state;
	/* 1 + 2 * 3 << 1 == 14 && !$a || $b  ->  ((((1 + (2*3)) << 1) == 14) && !$a) || $b */
	e = assigned(&fx, "BEGIN { $x = 1 + 2 * 3 << 1 == 14 && !$a || $b; }");
	assert_int_equal(e->op, OP_OR);
	assert_int_equal(e->rhs->kind, NODE_VAR);
	e = e->lhs;
	assert_int_equal(e->op, OP_AND);
	assert_int_equal(e->rhs->kind, NODE_UNOP);
	assert_int_equal(e->rhs->op, '!');
	e = e->lhs;
	assert_int_equal(e->op, OP_EQ);
	e = e->lhs;
	assert_int_equal(e->op, OP_SHL);
	e = e->lhs;
	assert_int_equal(e->op, '+');
	assert_int_equal(e->rhs->op, '*');
	parse_done(&fx);

	/* Left associativity and a right-nested ternary. */
	e = assigned(&fx, "BEGIN { $x = 8 - 4 - 2; }");
	assert_int_equal(e->op, '-');
	assert_int_equal(e->lhs->op, '-');
	assert_int_equal(e->rhs->num, 2);
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = $a ? 1 : $b ? 2 : 3; }");
	assert_int_equal(e->kind, NODE_TERNARY);
	assert_int_equal(e->cond->kind, NODE_VAR);
	assert_int_equal(e->lhs->num, 1);
	assert_int_equal(e->rhs->kind, NODE_TERNARY);
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = 1 | 2 ^ 3 & 4; }");
	assert_int_equal(e->op, '|');
	assert_int_equal(e->rhs->op, '^');
	assert_int_equal(e->rhs->rhs->op, '&');
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = 1 < 2 != 3 >= 4; }");
	assert_int_equal(e->op, OP_NE);
	assert_int_equal(e->lhs->op, '<');
	assert_int_equal(e->rhs->op, OP_GE);
	parse_done(&fx);
}

static void test_postfix_and_primary(void **state)
{
	struct parse_fixture fx;
	struct node *e, *s;

	(void)state;
	e = assigned(&fx, "tracepoint:a:b { $x = args->filename; }");
	assert_int_equal(e->kind, NODE_FIELD);
	assert_true(e->is_arrow);
	assert_string_equal(e->name, "filename");
	assert_int_equal(e->lhs->kind, NODE_BUILTIN);
	assert_string_equal(e->lhs->name, "args");
	parse_done(&fx);

	e = assigned(&fx, "BEGIN { $x = $s->a.b[2]; }");
	assert_int_equal(e->kind, NODE_INDEX);
	assert_int_equal(e->rhs->num, 2);
	assert_int_equal(e->lhs->kind, NODE_FIELD);
	assert_false(e->lhs->is_arrow);
	assert_string_equal(e->lhs->name, "b");
	assert_true(e->lhs->lhs->is_arrow);
	parse_done(&fx);

	e = assigned(&fx, "BEGIN { @m[pid, comm, 1] = 1; }");
	(void)e;
	s = fx.prog.root->body->body->body;
	assert_int_equal(s->lhs->kind, NODE_MAP);
	assert_string_equal(s->lhs->name, "@m");
	assert_int_equal(s->lhs->args->kind, NODE_BUILTIN);
	assert_int_equal(s->lhs->args->next->kind, NODE_BUILTIN);
	assert_int_equal(s->lhs->args->next->next->kind, NODE_INT);
	assert_null(s->lhs->args->next->next->next);
	parse_done(&fx);

	e = assigned(&fx, "BEGIN { $t = (1, \"two\", $3, $#); }");
	assert_int_equal(e->kind, NODE_TUPLE);
	assert_int_equal(e->args->kind, NODE_INT);
	assert_int_equal(e->args->next->kind, NODE_STR);
	assert_string_equal(e->args->next->str, "two");
	assert_int_equal(e->args->next->next->kind, NODE_POSPARAM);
	assert_int_equal(e->args->next->next->num, 3);
	assert_true(e->args->next->next->next->is_count);
	parse_done(&fx);

	e = assigned(&fx, "BEGIN { $t = $u.1; }");
	assert_int_equal(e->kind, NODE_FIELD);
	assert_string_equal(e->name, "1");
	parse_done(&fx);

	s = first_stmt(&fx, "BEGIN { printf(\"%d %s\\n\", pid, str(arg0)); }");
	assert_int_equal(s->kind, NODE_EXPR_STMT);
	assert_int_equal(s->lhs->kind, NODE_CALL);
	assert_string_equal(s->lhs->name, "printf");
	assert_int_equal(s->lhs->args->next->next->kind, NODE_CALL);
	parse_done(&fx);

	s = first_stmt(&fx, "BEGIN { exit(); }");
	assert_int_equal(s->lhs->kind, NODE_CALL);
	assert_null(s->lhs->args);
	parse_done(&fx);
}

/* The statements of bpftrace 0.21 to 0.27: let, for over a range, heads without parentheses. */
static void test_syntax027_statements(void **state)
{
	struct parse_fixture fx;
	struct node *s;

	(void)state;
	s = first_stmt(&fx, "BEGIN { let $x: uint16 = 5; let $y; let $z: typeof($x); }");
	assert_int_equal(s->kind, NODE_LET);
	assert_int_equal(s->lhs->kind, NODE_VAR);
	assert_string_equal(s->lhs->name, "$x");
	assert_string_equal(s->cast_type, "uint16");
	assert_int_equal(s->rhs->num, 5);
	s = s->next;
	assert_int_equal(s->kind, NODE_LET);
	assert_null(s->cast_type);
	assert_null(s->type_expr);
	assert_null(s->rhs);
	s = s->next;
	assert_null(s->cast_type);
	assert_int_equal(s->type_expr->kind, NODE_VAR);
	parse_done(&fx);

	parse_str(&fx, "BEGIN { for ($i : 1..$n + 0) { } }");
	assert_int_equal(fx.err, -EINVAL); /* a bound is one operand: 1..($n + 0) */
	parse_done(&fx);
	s = first_stmt(&fx, "BEGIN { for $i : 1..($n + 1) { } for ($kv : @m) { } }");
	assert_int_equal(s->kind, NODE_FOR);
	assert_int_equal(s->rhs->kind, NODE_RANGE);
	assert_int_equal(s->rhs->lhs->num, 1);
	assert_int_equal(s->rhs->rhs->kind, NODE_BINOP);
	assert_int_equal(s->next->rhs->kind, NODE_MAP);
	parse_done(&fx);

	/* Without parentheses a condition is one operand, so that its '{' ends it. */
	s = first_stmt(&fx, "BEGIN { if !$x { } else if $y { } while @z[1] { } unroll 3 { } }");
	assert_int_equal(s->kind, NODE_IF);
	assert_int_equal(s->cond->kind, NODE_UNOP);
	assert_int_equal(s->else_body->kind, NODE_IF);
	assert_int_equal(s->else_body->cond->kind, NODE_VAR);
	assert_int_equal(s->next->kind, NODE_WHILE);
	assert_int_equal(s->next->cond->kind, NODE_MAP);
	assert_int_equal(s->next->next->kind, NODE_UNROLL);
	assert_int_equal(s->next->next->num, 3);
	parse_done(&fx);

	s = first_stmt(&fx, "BEGIN { _ = 1 + 2; }");
	assert_int_equal(s->kind, NODE_EXPR_STMT);
	assert_true(s->is_discard);
	assert_int_equal(s->lhs->op, '+');
	parse_done(&fx);
}

/* The expressions of bpftrace 0.22 to 0.27. */
static void test_syntax027_expressions(void **state)
{
	struct parse_fixture fx;
	struct node *e;

	(void)state;
	/* a ?: b keeps a as the condition, with no then */
	e = assigned(&fx, "BEGIN { $x = $a ?: $b ?: 3; }");
	assert_int_equal(e->kind, NODE_TERNARY);
	assert_null(e->lhs);
	assert_int_equal(e->cond->kind, NODE_VAR);
	assert_int_equal(e->rhs->kind, NODE_TERNARY);
	parse_done(&fx);

	/* a block's last expression without ';' is its value */
	e = assigned(&fx, "BEGIN { $x = { let $b = 1; $b + 1 }; }");
	assert_int_equal(e->kind, NODE_BLOCK);
	assert_int_equal(e->body->kind, NODE_LET);
	assert_null(e->body->next);
	assert_int_equal(e->lhs->op, '+');
	parse_done(&fx);

	e = assigned(&fx, "BEGIN { $x = if $a { 1 } else if ($b) { 2 } else { 3 }; }");
	assert_int_equal(e->kind, NODE_TERNARY);
	assert_int_equal(e->lhs->kind, NODE_BLOCK);
	assert_int_equal(e->lhs->lhs->num, 1);
	assert_int_equal(e->rhs->kind, NODE_TERNARY);
	assert_int_equal(e->rhs->rhs->lhs->num, 3);
	parse_done(&fx);

	e = assigned(&fx, "BEGIN { $x = (a = 1, b = \"x\"); }");
	assert_int_equal(e->kind, NODE_TUPLE);
	assert_int_equal(e->args->kind, NODE_NAMED);
	assert_string_equal(e->args->name, "a");
	assert_int_equal(e->args->lhs->num, 1);
	assert_string_equal(e->args->next->name, "b");
	parse_done(&fx);

	e = assigned(&fx, "BEGIN { $x = (1,); }");
	assert_int_equal(e->kind, NODE_TUPLE);
	assert_int_equal(e->args->num, 1);
	assert_null(e->args->next);
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = (); }");
	assert_int_equal(e->kind, NODE_TUPLE);
	assert_null(e->args);
	parse_done(&fx);

	e = assigned(&fx, "BEGIN { $x = true; }");
	assert_int_equal(e->kind, NODE_BOOL);
	assert_int_equal(e->num, 1);
	parse_done(&fx);

	e = assigned(&fx, "BEGIN { $x = 1s + 20ms; }");
	assert_int_equal(e->lhs->num, 1000000000);
	assert_int_equal(e->rhs->num, 20000000);
	parse_done(&fx);

	e = assigned(&fx, "BEGIN { $x = (uint8[8])$y; }");
	assert_int_equal(e->kind, NODE_CAST);
	assert_string_equal(e->cast_type, "uint8[8]");
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = (typeof($y))1; }");
	assert_int_equal(e->kind, NODE_CAST);
	assert_null(e->cast_type);
	assert_int_equal(e->type_expr->kind, NODE_VAR);
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = sizeof(typeof(struct task_struct)); }");
	assert_int_equal(e->kind, NODE_CALL);
	assert_int_equal(e->type_expr->kind, NODE_TYPE);
	assert_string_equal(e->type_expr->cast_type, "struct task_struct");
	parse_done(&fx);
}

static void test_casts(void **state)
{
	struct parse_fixture fx;
	struct node *e;

	(void)state;
	e = assigned(&fx, "BEGIN { $x = (struct task_struct *)curtask; }");
	assert_int_equal(e->kind, NODE_CAST);
	assert_string_equal(e->cast_type, "struct task_struct *");
	assert_int_equal(e->lhs->kind, NODE_BUILTIN);
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = (uint8)-1; }");
	assert_string_equal(e->cast_type, "uint8");
	assert_int_equal(e->lhs->kind, NODE_UNOP);
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = (int16 **) $p; }");
	assert_string_equal(e->cast_type, "int16 **");
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = ((struct sock *)arg0)->sk_state; }");
	assert_int_equal(e->kind, NODE_FIELD);
	assert_int_equal(e->lhs->kind, NODE_CAST);
	parse_done(&fx);
	/* A typedef name casts when an operand follows; a builtin in parentheses does not. */
	e = assigned(&fx, "BEGIN { $x = (pid_t)$y; }");
	assert_int_equal(e->kind, NODE_CAST);
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = (pid) - 1; }");
	assert_int_equal(e->kind, NODE_BINOP);
	assert_int_equal(e->lhs->kind, NODE_BUILTIN);
	parse_done(&fx);
	e = assigned(&fx, "BEGIN { $x = sizeof(struct foo) + sizeof($y); }");
	assert_int_equal(e->lhs->kind, NODE_CALL);
	assert_string_equal(e->lhs->cast_type, "struct foo");
	assert_null(e->lhs->args);
	assert_null(e->rhs->cast_type);
	assert_int_equal(e->rhs->args->kind, NODE_VAR);
	parse_done(&fx);
}

static void test_statements(void **state)
{
	struct parse_fixture fx;
	struct node *s;

	(void)state;
	s = first_stmt(&fx, "BEGIN { @x += 2; $y <<= 1; @c++; --$d; $e = $f++; "
			    "if ($a) { } else if ($b) { } else { @z = 1 } "
			    "unroll(4) { } while ($i < 3) { break; continue } "
			    "for ($kv : @m) { } { return } }");
	assert_int_equal(s->kind, NODE_ASSIGN);
	assert_int_equal(s->op, '+');
	assert_int_equal(s->rhs->num, 2);
	s = s->next;
	assert_int_equal(s->op, OP_SHL);
	assert_int_equal(s->lhs->kind, NODE_VAR);
	s = s->next;
	assert_int_equal(s->kind, NODE_ASSIGN);
	assert_int_equal(s->op, OP_INC);
	assert_true(s->is_post);
	assert_null(s->rhs);
	assert_int_equal(s->lhs->kind, NODE_MAP);
	s = s->next;
	assert_int_equal(s->op, OP_DEC);
	assert_false(s->is_post);
	s = s->next;
	assert_int_equal(s->op, 0);
	assert_int_equal(s->rhs->kind, NODE_UNOP);
	assert_int_equal(s->rhs->op, OP_INC);
	assert_true(s->rhs->is_post);
	s = s->next;
	assert_int_equal(s->kind, NODE_IF);
	assert_int_equal(s->cond->kind, NODE_VAR);
	assert_int_equal(s->body->kind, NODE_BLOCK);
	assert_int_equal(s->else_body->kind, NODE_IF);
	assert_int_equal(s->else_body->else_body->kind, NODE_BLOCK);
	assert_int_equal(s->else_body->else_body->body->kind, NODE_ASSIGN);
	s = s->next;
	assert_int_equal(s->kind, NODE_UNROLL);
	assert_int_equal(s->num, 4);
	s = s->next;
	assert_int_equal(s->kind, NODE_WHILE);
	assert_int_equal(s->cond->op, '<');
	assert_int_equal(s->body->body->kind, NODE_BREAK);
	assert_int_equal(s->body->body->next->kind, NODE_CONTINUE);
	s = s->next;
	assert_int_equal(s->kind, NODE_FOR);
	assert_string_equal(s->lhs->name, "$kv");
	assert_string_equal(s->rhs->name, "@m");
	s = s->next;
	assert_int_equal(s->kind, NODE_BLOCK);
	assert_int_equal(s->body->kind, NODE_RETURN);
	assert_null(s->next);
	parse_done(&fx);
}

/* Division inside a predicate, and a predicate ending right before the block. */
static void test_predicates(void **state)
{
	struct parse_fixture fx;
	struct node *probe;

	(void)state;
	parse_str(&fx, "kprobe:f /$1 / 2 > 1/{ }\nkprobe:g\n/(arg0 / 4)/\n{ }");
	assert_int_equal(fx.err, 0);
	probe = fx.prog.root->body;
	assert_int_equal(probe->cond->op, '>');
	assert_int_equal(probe->cond->lhs->op, '/');
	probe = probe->next;
	assert_int_equal(probe->cond->op, '/');
	assert_string_equal(probe->args->str, "kprobe:g");
	parse_done(&fx);
}

/* One input, several independent mistakes: each one reported once, in order. */
static void test_recovery(void **state)
{
	static const char *const want[] = {
		"expected an expression after '+', found ';'",
		"expected ';' or '}' after statement, found identifier 'printf'",
		"expected ')', found ';'",
		"expected '{' after 'if (...)', found map '@x'",
		"unexpected '}' at top level",
		"expected ',', '/' or '{' after attach point, found attach point 'kprobe:g'",
		"expected '}' before end of input",
	};
	struct parse_fixture fx;
	size_t i;

	(void)state;
	parse_str(&fx, "BEGIN { @x = 1 +; @y = 2 printf(\"a\"); $z = (1 + 2; @ok = 1 }\n"
		       "END { if (1) @x = 1; @w = 3; }\n"
		       "}\n"
		       "kprobe:f kprobe:g { @v = 1; }\n"
		       "BEGIN { @u = 1;");
	assert_int_equal(fx.err, -EINVAL);
	for (i = 0; i < fx.d.n && i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(fx.d.v[i].msg, want[i]);
	assert_int_equal(fx.d.n, sizeof(want) / sizeof(want[0]));
	/* The good statements around the errors are still in the tree. */
	assert_non_null(fx.prog.root->body->next);
	parse_done(&fx);
}

/* A block missing its '}' ends at the next probe, which is then parsed as a probe. */
static void test_missing_brace_before_probe(void **state)
{
	struct parse_fixture fx;
	struct node *probe;

	(void)state;
	parse_str(&fx, "BEGIN { if (1) { @x = 1;\nkprobe:f, END { @y = 1 +; }\ni:s:1 { }");
	assert_int_equal(fx.err, -EINVAL);
	assert_int_equal(fx.d.n, 2);
	assert_string_equal(fx.d.v[0].msg, "expected '}' before the next probe");
	assert_int_equal(fx.d.v[0].loc.line, 2);
	assert_string_equal(fx.d.v[1].msg, "expected an expression after '+', found ';'");
	probe = fx.prog.root->body;
	assert_int_equal(probe->body->body->kind, NODE_IF);
	probe = probe->next;
	assert_string_equal(probe->args->str, "kprobe:f");
	assert_string_equal(probe->args->next->str, "END");
	assert_string_equal(probe->next->args->str, "i:s:1");
	parse_done(&fx);
}

static void test_hostile_input(void **state)
{
	static const char *const inputs[] = {
		"",
		"{",
		"}",
		"/",
		",",
		"BEGIN",
		"BEGIN {",
		"BEGIN /",
		"BEGIN / {",
		"BEGIN ,",
		"BEGIN { ( }",
		"BEGIN { @[ }",
		"BEGIN { if ( }",
		"BEGIN { $x = (struct }",
		"BEGIN { $x = (int8 * * * * * * * * * * * *)1 }",
		"a /b/ c /d/ {",
		"BEGIN { else } }} {{ END",
		"BEGIN { \"\\",
		"struct",
		"#",
		"BEGIN { ' }",
		"BEGIN { sizeof(struct) }",
		"BEGIN { unroll (1) }",
		"BEGIN { for ( }",
	};
	struct parse_fixture fx;
	size_t i, n = 20000;
	char *deep = malloc(n + 32);

	(void)state;
	for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		parse_str(&fx, inputs[i]);
		assert_non_null(fx.prog.root);
		parse_done(&fx);
	}
	/* Nesting a fuzzer would try: reported, not a stack overflow. */
	strcpy(deep, "BEGIN { $x = ");
	memset(deep + strlen(deep), '(', n);
	strcpy(deep + 13 + n, "1; }");
	parse_str(&fx, deep);
	assert_int_equal(fx.err, -EINVAL);
	assert_string_equal(fx.d.v[0].msg, "expression nested too deeply");
	parse_done(&fx);
	memset(deep, '{', n);
	strcpy(deep, "BEGIN ");
	deep[n] = '\0';
	deep[6] = '{';
	parse_str(&fx, deep);
	assert_int_equal(fx.err, -EINVAL);
	parse_done(&fx);
	free(deep);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The first statement of the only probe after macro expansion (macros leave the program). */
static struct node *macro_first_stmt(struct parse_fixture *fx, const char *text)
{
	struct node *probe;

	parse_str(fx, text);
	assert_int_equal(fx->err, 0);
	assert_int_equal(macro_expand(&fx->prog, &fx->d), 0);
	probe = fx->prog.root->body;
	assert_int_equal(probe->kind, NODE_PROBE);
	assert_null(probe->next);
	return probe->body->body;
}

/*
 * Macros: a value is a block expression (the value alone when the body is only that), a
 * statement a block; arguments and hygiene; bpftrace 0.27's spellings of builtins.
 */
static void test_macros(void **state)
{
	struct parse_fixture fx;
	struct node *s, *blk;

	(void)state;
	s = macro_first_stmt(&fx, "macro m(x) { x + 1 } BEGIN { $a = m(2); }");
	assert_int_equal(s->kind, NODE_ASSIGN);
	blk = s->rhs;
	assert_int_equal(blk->kind, NODE_BINOP);
	assert_int_equal(blk->lhs->kind, NODE_INT);
	assert_int_equal(blk->lhs->num, 2);
	parse_done(&fx);

	s = macro_first_stmt(&fx, "macro m(x) { let $y = x; $y } BEGIN { $a = m(2); }");
	assert_int_equal(s->rhs->kind, NODE_BLOCK);
	assert_int_equal(s->rhs->lhs->kind, NODE_VAR);
	parse_done(&fx);

	/* cpu() and __builtin_cpu are the builtin cpu, unless a macro of the script takes cpu() */
	s = macro_first_stmt(&fx, "BEGIN { $a = cpu() + __builtin_cpu + uaddr(\"f\"); }");
	assert_int_equal(s->rhs->kind, NODE_BINOP);
	assert_int_equal(s->rhs->lhs->lhs->kind, NODE_BUILTIN);
	assert_string_equal(s->rhs->lhs->lhs->name, "cpu");
	assert_int_equal(s->rhs->lhs->rhs->kind, NODE_BUILTIN);
	assert_string_equal(s->rhs->lhs->rhs->name, "cpu");
	assert_int_equal(s->rhs->rhs->kind, NODE_CALL);
	parse_done(&fx);
	s = macro_first_stmt(&fx, "macro cpu(x) { x } BEGIN { $a = cpu() + cpu(5); }");
	assert_int_equal(s->rhs->lhs->kind, NODE_BUILTIN);
	assert_int_equal(s->rhs->rhs->kind, NODE_INT);
	parse_done(&fx);
	s = macro_first_stmt(&fx, "macro cpu() { 7 } BEGIN { $a = cpu() + cpu + __builtin_cpu; }");
	assert_int_equal(s->rhs->lhs->lhs->kind, NODE_INT);
	assert_int_equal(s->rhs->lhs->rhs->kind, NODE_INT);
	assert_int_equal(s->rhs->rhs->kind, NODE_BUILTIN);
	parse_done(&fx);

	/* the body's $v is its own; a $var parameter is the caller's */
	s = macro_first_stmt(&fx, "macro m($p) { $v = $p; $v } BEGIN { $v = m($w); }");
	blk = s->rhs;
	assert_int_equal(blk->body->kind, NODE_ASSIGN);
	assert_string_not_equal(blk->body->lhs->name, "$v");
	assert_string_equal(blk->body->rhs->name, "$w");
	assert_string_equal(blk->lhs->name, blk->body->lhs->name);
	parse_done(&fx);

	/* a statement macro is a block in the statement's place; @m is the caller's map */
	s = macro_first_stmt(&fx, "macro s(@m) { @m = 1; } BEGIN { s(@x); print(1); }");
	assert_int_equal(s->kind, NODE_BLOCK);
	assert_null(s->lhs);
	assert_int_equal(s->body->kind, NODE_ASSIGN);
	assert_string_equal(s->body->lhs->name, "@x");
	assert_int_equal(s->next->kind, NODE_EXPR_STMT);
	parse_done(&fx);

	/* a bare name calls a macro without parameters */
	s = macro_first_stmt(&fx, "macro one() { 1 } BEGIN { if one { exit(); } }");
	assert_int_equal(s->kind, NODE_IF);
	assert_int_equal(s->cond->kind, NODE_INT);
	parse_done(&fx);
}

/* Every tool script bpftrace ships must parse cleanly. */
static void test_bpftrace_tools(void **state)
{
	FILE *list = popen("dpkg -L bpftrace 2>/dev/null | grep '\\.bt$'", "r");
	char path[4096];
	int nfiles = 0, nfailed = 0;

	(void)state;
	if (!list) {
		print_message("skipping: cannot run dpkg\n");
		skip();
	}
	while (fgets(path, sizeof(path), list)) {
		struct parse_fixture fx;
		size_t len;
		char *text;

		path[strcspn(path, "\n")] = '\0';
		text = read_file(path, &len);
		if (!text)
			continue;
		parse_text(&fx, path, text, len);
		if (fx.err) {
			char *s = parse_printed(&fx);

			print_error("%s", s);
			free(s);
			nfailed++;
		}
		nfiles++;
		parse_done(&fx);
		free(text);
	}
	pclose(list);
	if (!nfiles) {
		print_message("skipping: bpftrace is not installed (no .bt tools found)\n");
		skip();
	}
	print_message("parsed %d bpftrace tools\n", nfiles);
	assert_int_equal(nfailed, 0);
}

/*
 * tests/errors/NAME.bt: its diagnostics must read exactly like NAME.err. A case the parser
 * accepts is one for a later pass (sema's), which tests/run.py checks through the whole driver.
 */
static void test_error_cases(void **state)
{
	const char *dir = AOT_SOURCE_ROOT "/tests/errors";
	DIR *d = opendir(dir);
	struct dirent *e;
	int ncases = 0, nfailed = 0, nlater = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[4096], name[4096];
		struct parse_fixture fx;
		size_t len, wlen, n = strlen(e->d_name);
		char *text, *want, *got;

		if (n < 4 || strcmp(e->d_name + n - 3, ".bt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		snprintf(name, sizeof(name), "tests/errors/%s", e->d_name);
		text = read_file(path, &len);
		assert_non_null(text);
		snprintf(path, sizeof(path), "%s/%.*s.err", dir, (int)(n - 3), e->d_name);
		want = read_file(path, &wlen);
		assert_non_null(want);
		parse_text(&fx, name, text, len);
		got = parse_printed(&fx);
		if (!fx.err && !fx.d.nerrors) {
			nlater++;
		} else if (!fx.err || strcmp(got, want)) {
			print_error("%s: got\n%s---- want\n%s", name, got, want);
			nfailed++;
		}
		ncases++;
		free(got);
		free(want);
		parse_done(&fx);
		free(text);
	}
	closedir(d);
	print_message("checked %d error cases (%d for later passes)\n", ncases - nlater, nlater);
	assert_true(ncases >= 10);
	assert_int_equal(nfailed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_shape),
		cmocka_unit_test(test_config_block),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_postfix_and_primary),
		cmocka_unit_test(test_syntax027_statements),
		cmocka_unit_test(test_syntax027_expressions),
		cmocka_unit_test(test_casts),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_predicates),
		cmocka_unit_test(test_recovery),
		cmocka_unit_test(test_missing_brace_before_probe),
		cmocka_unit_test(test_hostile_input),
		cmocka_unit_test(test_macros),
		cmocka_unit_test(test_bpftrace_tools),
		cmocka_unit_test(test_error_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
