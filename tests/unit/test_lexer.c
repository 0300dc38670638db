// SPDX-License-Identifier: GPL-2.0
/*
 * Lexer token streams: literals, escapes, variables and maps, every operator, comments, and
 * the top-level mode that returns attach points and C definitions whole.
 */
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

struct lex_fixture {
	struct arena *a;
	struct source src;
	struct diags d;
	struct lexer *lx;
};

static void lex_open(struct lex_fixture *fx, const char *text, bool toplevel)
{
	fx->a = arena_new();
	fx->src.name = "test.bt";
	fx->src.text = (char *)text;
	fx->src.len = strlen(text);
	diags_init(&fx->d, &fx->src);
	fx->lx = lexer_new(fx->a, &fx->src, &fx->d);
	lexer_set_toplevel(fx->lx, toplevel);
}

static void lex_close(struct lex_fixture *fx)
{
	diags_free(&fx->d);
	arena_free(fx->a);
}

/* Lexes the whole text and returns the token texts joined by '|' (arena-owned). */
static char *lex_texts(struct lex_fixture *fx, const char *text, bool toplevel)
{
	char *s = "";
	struct token t;
	int guard = 0;

	lex_open(fx, text, toplevel);
	for (t = lexer_next(fx->lx); t.kind != TOK_EOF && guard < 1000;
	     t = lexer_next(fx->lx), guard++)
		s = arena_printf(fx->a, "%s%s%s", s, *s ? "|" : "", t.text);
	return s;
}

static struct token lex_one(struct lex_fixture *fx, const char *text)
{
	lex_open(fx, text, false);
	return lexer_next(fx->lx);
}

static void test_integers(void **state)
{
	static const struct {
		const char *text;
		uint64_t v;
	} cases[] = {
		{ "0", 0 },
		{ "42", 42 },
		{ "1_000_000", 1000000 },
		{ "1__0", 10 },
		{ "0x1F", 31 },
		{ "0XfF", 255 },
		{ "010", 8 },
		{ "2e3", 2000 },
		{ "1e6", 1000000 },
		{ "100u", 100 },
		{ "100ull", 100 },
		{ "7ul", 7 },
		{ "'a'", 'a' },
		{ "'\\n'", '\n' },
		{ "18446744073709551615", UINT64_MAX },
		/* bpftrace 0.24's durations, in nanoseconds */
		{ "5ns", 5 },
		{ "2us", 2000 },
		{ "3ms", 3000000 },
		{ "1s", 1000000000 },
		{ "1m", 60000000000ULL },
		{ "1h", 3600000000000ULL },
		{ "1d", 86400000000000ULL },
		{ "1_000ms", 1000000000 },
		{ "0xff_ff", 65535 },
		{ "9l", 9 },
		{ "9ll", 9 },
	};
	struct lex_fixture fx;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct token t = lex_one(&fx, cases[i].text);

		assert_int_equal(t.kind, TOK_INT);
		assert_int_equal(t.num, cases[i].v);
		assert_int_equal(t.loc.len, strlen(cases[i].text));
		assert_int_equal(fx.d.nerrors, 0);
		assert_int_equal(lexer_next(fx.lx).kind, TOK_EOF);
		lex_close(&fx);
	}
}

/* Literals bpftrace 0.17 took and 0.27 refuses: the value, and a warning with today's form. */
static void test_old_integers(void **state)
{
	static const struct {
		const char *text;
		uint64_t v;
		const char *hint;
	} cases[] = {
		{ "10e3", 10000, "write 10000" },
		{ "1e0", 1, "write 1" },
		{ "100ULL", 100, "write 100ull" },
		{ "7lu", 7, "write 7ul" },
		{ "5000000000u", 5000000000ULL, "write 5000000000ul" },
	};
	struct lex_fixture fx;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct token t = lex_one(&fx, cases[i].text);

		assert_int_equal(t.kind, TOK_INT);
		assert_int_equal(t.num, cases[i].v);
		assert_int_equal(fx.d.nerrors, 0);
		assert_int_equal(fx.d.n, 1);
		assert_int_equal(fx.d.v[0].level, DIAG_WARNING);
		assert_string_equal(fx.d.v[0].hint, cases[i].hint);
		lex_close(&fx);
	}
}

static void test_bad_integers(void **state)
{
	static const char *const bad[] = {
		"09",	"0x",	"0xffu", "1K", "1_000_",       "18446744073709551616",
		"5e20", "1uuu", "0b101", "1z", "20000000000d", "99999999999999999999ns",
		"1sec",
	};
	struct lex_fixture fx;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct token t = lex_one(&fx, bad[i]);

		assert_int_equal(t.kind, TOK_ERROR);
		assert_int_equal(fx.d.nerrors, 1);
		/* One token for the whole literal, so one error. */
		assert_int_equal(lexer_next(fx.lx).kind, TOK_EOF);
		lex_close(&fx);
	}
}

static void test_strings(void **state)
{
	struct lex_fixture fx;
	struct token t;

	(void)state;
	t = lex_one(&fx, "\"a\\tb\\n\\\\\\\"\\x41\\101\\0z\"");
	assert_int_equal(t.kind, TOK_STR);
	assert_int_equal(t.str_len, 10);
	assert_memory_equal(t.str, "a\tb\n\\\"AA\0z", 10);
	assert_int_equal(fx.d.nerrors, 0);
	lex_close(&fx);

	t = lex_one(&fx, "\"abc\n\"");
	assert_int_equal(t.kind, TOK_ERROR);
	assert_int_equal(fx.d.nerrors, 1);
	assert_string_equal(fx.d.v[0].msg, "unterminated string");
	lex_close(&fx);

	t = lex_one(&fx, "\"a\\qb\"");
	assert_int_equal(t.kind, TOK_ERROR);
	assert_string_equal(fx.d.v[0].msg, "unknown escape sequence '\\q'");
	assert_int_equal(fx.d.v[0].loc.col, 3);
	lex_close(&fx);
}

static void test_names(void **state)
{
	struct lex_fixture fx;
	struct token t;

	(void)state;
	assert_string_equal(lex_texts(&fx, "$x @y @ $1 $# pid args->f $_a1 @_", false),
			    "$x|@y|@|$1|$#|pid|args|->|f|$_a1|@_");
	lex_close(&fx);

	t = lex_one(&fx, "$12");
	assert_int_equal(t.kind, TOK_POSPARAM);
	assert_int_equal(t.num, 12);
	lex_close(&fx);
	t = lex_one(&fx, "$#");
	assert_int_equal(t.kind, TOK_POSPARAM);
	assert_true(t.is_count);
	lex_close(&fx);
	t = lex_one(&fx, "@");
	assert_int_equal(t.kind, TOK_MAP);
	assert_string_equal(t.text, "@");
	lex_close(&fx);
	t = lex_one(&fx, "$ x");
	assert_int_equal(t.kind, TOK_ERROR);
	assert_int_equal(fx.d.nerrors, 1);
	lex_close(&fx);
}

static void test_operators(void **state)
{
	static const struct {
		const char *text;
		int op;
		bool is_assign;
	} ops[] = {
		{ "<<=", OP_SHL, true },   { ">>=", OP_SHR, true },   { "+=", '+', true },
		{ "-=", '-', true },	   { "*=", '*', true },	      { "/=", '/', true },
		{ "%=", '%', true },	   { "&=", '&', true },	      { "|=", '|', true },
		{ "^=", '^', true },	   { "->", OP_ARROW, false }, { "++", OP_INC, false },
		{ "--", OP_DEC, false },   { "<<", OP_SHL, false },   { ">>", OP_SHR, false },
		{ "<=", OP_LE, false },	   { ">=", OP_GE, false },    { "==", OP_EQ, false },
		{ "!=", OP_NE, false },	   { "&&", OP_AND, false },   { "||", OP_OR, false },
		{ "=", '=', false },	   { "?", '?', false },	      { ":", ':', false },
		{ ".", '.', false },	   { "~", '~', false },	      { "!", '!', false },
		{ "<", '<', false },	   { "%", '%', false },	      { "[", '[', false },
		{ "..", OP_RANGE, false },
	};
	struct lex_fixture fx;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct token t = lex_one(&fx, ops[i].text);

		assert_int_equal(t.kind, TOK_PUNCT);
		assert_int_equal(t.op, ops[i].op);
		assert_int_equal(t.is_assign, ops[i].is_assign);
		assert_int_equal(t.loc.len, strlen(ops[i].text));
		lex_close(&fx);
	}
	/* Longest match, and a+++b is a ++ + b as in C. */
	assert_string_equal(lex_texts(&fx, "a+++b<<=c>>d", false), "a|++|+|b|<<=|c|>>|d");
	lex_close(&fx);
}

static void test_comments_and_locations(void **state)
{
	struct lex_fixture fx;
	struct token t;

	(void)state;
	lex_open(&fx, "// one\n  /* two\n three */ x /* */\n\ty", false);
	t = lexer_next(fx.lx);
	assert_string_equal(t.text, "x");
	assert_int_equal(t.loc.line, 3);
	assert_int_equal(t.loc.col, 11);
	t = lexer_next(fx.lx);
	assert_string_equal(t.text, "y");
	assert_int_equal(t.loc.line, 4);
	assert_int_equal(t.loc.col, 2);
	assert_int_equal(lexer_next(fx.lx).kind, TOK_EOF);
	assert_int_equal(fx.d.nerrors, 0);
	lex_close(&fx);

	lex_open(&fx, "x /* never closed", false);
	lexer_next(fx.lx);
	assert_int_equal(lexer_next(fx.lx).kind, TOK_EOF);
	assert_int_equal(fx.d.nerrors, 1);
	assert_string_equal(fx.d.v[0].msg, "unterminated comment");
	lex_close(&fx);
}

static void test_attach_points(void **state)
{
	struct lex_fixture fx;

	(void)state;
	assert_string_equal(lex_texts(&fx,
				      "uprobe:/bin/bash:readline,kprobe:vfs_*\n"
				      "tracepoint:syscalls:sys_enter_open*  usdt:/p:prov:name "
				      "interval:s:1 BEGIN kprobe:f+16{",
				      true),
			    "uprobe:/bin/bash:readline|,|kprobe:vfs_*|tracepoint:syscalls:"
			    "sys_enter_open*|usdt:/p:prov:name|interval:s:1|BEGIN|kprobe:f+16|{");
	lex_close(&fx);

	/* Quoted parts keep their blanks; a '/' after an attach point opens the predicate. */
	lex_open(&fx, "uprobe:\"/a b/c\":f /pid/ {", true);
	{
		struct token t = lexer_next(fx.lx);

		assert_int_equal(t.kind, TOK_ATTACH);
		assert_string_equal(t.text, "uprobe:\"/a b/c\":f");
		t = lexer_next(fx.lx);
		assert_int_equal(t.kind, TOK_PUNCT);
		assert_int_equal(t.op, '/');
		lexer_set_toplevel(fx.lx, false);
		t = lexer_next(fx.lx);
		assert_int_equal(t.kind, TOK_IDENT);
		t = lexer_next(fx.lx);
		assert_int_equal(t.op, '/');
		t = lexer_next(fx.lx);
		assert_int_equal(t.op, '{');
	}
	lex_close(&fx);

	assert_string_equal(lex_texts(&fx, "BEGIN // c\n/* d */ END", true), "BEGIN|END");
	lex_close(&fx);
}

static void test_c_definitions(void **state)
{
	struct lex_fixture fx;
	struct token t;

	(void)state;
	lex_open(&fx,
		 "#!/usr/bin/env bpftrace\n#include <linux/sched.h>\n"
		 "struct a { int x; struct { int y; } z; };\n"
		 "typedef unsigned int u32_t;\n"
		 "union u { int a; }\n"
		 "#define X \\\n  1\n"
		 "BEGIN {",
		 true);
	t = lexer_next(fx.lx);
	assert_int_equal(t.kind, TOK_CDEF);
	assert_string_equal(t.text, "#include <linux/sched.h>");
	assert_int_equal(t.loc.line, 2);
	t = lexer_next(fx.lx);
	assert_int_equal(t.kind, TOK_CDEF);
	assert_string_equal(t.text, "struct a { int x; struct { int y; } z; };");
	t = lexer_next(fx.lx);
	assert_string_equal(t.text, "typedef unsigned int u32_t;");
	t = lexer_next(fx.lx);
	assert_string_equal(t.text, "union u { int a; }");
	t = lexer_next(fx.lx);
	assert_string_equal(t.text, "#define X \\\n  1");
	t = lexer_next(fx.lx);
	assert_int_equal(t.kind, TOK_ATTACH);
	assert_int_equal(t.loc.line, 8);
	assert_int_equal(fx.d.nerrors, 0);
	lex_close(&fx);

	lex_open(&fx, "struct a { int x;", true);
	assert_int_equal(lexer_next(fx.lx).kind, TOK_ERROR);
	assert_int_equal(lexer_next(fx.lx).kind, TOK_EOF);
	assert_int_equal(fx.d.nerrors, 1);
	lex_close(&fx);
}

static void test_invalid_characters(void **state)
{
	struct lex_fixture fx;

	(void)state;
	/* Each bad character is one error token; lexing goes on after it. */
	assert_string_equal(lex_texts(&fx, "a # b \xc3\xa9 c ` d", false), "a|#|b|\xc3\xa9|c|`|d");
	assert_int_equal(fx.d.nerrors, 3);
	lex_close(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_bad_integers),
		cmocka_unit_test(test_old_integers),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_comments_and_locations),
		cmocka_unit_test(test_attach_points),
		cmocka_unit_test(test_c_definitions),
		cmocka_unit_test(test_invalid_characters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
