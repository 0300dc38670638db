// SPDX-License-Identifier: GPL-2.0
/*
 * Diagnostics formatting: the exact text of errors, warnings, hints and carets, with tabs in
 * the source line expanded so the caret lines up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diag.h"

/* Prints d and compares the whole text. */
static void assert_printed(const struct diags *d, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	diags_print(d, f);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_error_with_caret(void **state)
{
	struct source src = { "x.bt", "BEGIN { @x = 1 +; }\n", 20 };
	struct diags d;

	(void)state;
	diags_init(&d, &src);
	diag_error(&d, (struct loc){ 1, 17, 1 }, NULL, "expected an expression after '%s'", "+");
	assert_int_equal(d.nerrors, 1);
	assert_printed(&d, "x.bt:1:17: error: expected an expression after '+'\n"
			   "    BEGIN { @x = 1 +; }\n"
			   "                    ^\n");
	diags_free(&d);
}

static void test_tabs_len_and_hint(void **state)
{
	const char *text = "BEGIN {\n\t@x\t= foo;\n}\n";
	struct source src = { "t.bt", (char *)text, strlen(text) };
	struct diags d;

	(void)state;
	diags_init(&d, &src);
	/* "foo" is at byte column 7 of line 2; after tab expansion it starts at column 19. */
	diag_error(&d, (struct loc){ 2, 7, 3 }, "did you mean 'pid'?", "unknown builtin 'foo'");
	assert_printed(&d, "t.bt:2:7: error: unknown builtin 'foo'\n"
			   "            @x      = foo;\n"
			   "                      ^~~\n"
			   "hint: did you mean 'pid'?\n");
	diags_free(&d);
}

static void test_warning_and_no_location(void **state)
{
	struct source src = { "w.bt", "kprobe:f { @x = 1; }", 20 };
	struct diags d;

	(void)state;
	diags_init(&d, &src);
	diag_warn(&d, (struct loc){ 1, 12, 2 }, NULL, "map '%s' is never read", "@x");
	diag_error(&d, (struct loc){ 0, 0, 0 }, "load a BTF file", "no BTF");
	assert_int_equal(d.nerrors, 1);
	assert_int_equal(d.n, 2);
	assert_printed(&d, "w.bt:1:12: warning: map '@x' is never read\n"
			   "    kprobe:f { @x = 1; }\n"
			   "               ^~\n"
			   "w.bt: error: no BTF\n"
			   "hint: load a BTF file\n");
	diags_free(&d);
}

/* A caret past the end of the line (end of input) or a span running off it is clipped. */
static void test_clipping(void **state)
{
	struct source src = { "c.bt", "BEGIN {\n  @x = 1", 16 };
	struct diags d;

	(void)state;
	diags_init(&d, &src);
	diag_error(&d, (struct loc){ 2, 9, 1 }, NULL, "eof");
	diag_error(&d, (struct loc){ 2, 3, 40 }, NULL, "long");
	diag_error(&d, (struct loc){ 7, 1, 1 }, NULL, "no such line");
	assert_printed(&d, "c.bt:2:9: error: eof\n"
			   "      @x = 1\n"
			   "            ^\n"
			   "c.bt:2:3: error: long\n"
			   "      @x = 1\n"
			   "      ^~~~~~\n"
			   "c.bt:7:1: error: no such line\n");
	diags_free(&d);
}

static void test_many(void **state)
{
	struct source src = { "m.bt", "x", 1 };
	struct diags d;
	int i;

	(void)state;
	diags_init(&d, &src);
	for (i = 0; i < 1000; i++)
		diag_error(&d, (struct loc){ 1, 1, 1 }, i % 2 ? "h" : NULL, "error %d", i);
	assert_int_equal(d.n, 1000);
	assert_int_equal(d.nerrors, 1000);
	assert_string_equal(d.v[999].msg, "error 999");
	diags_free(&d);
	assert_int_equal(d.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_with_caret),
		cmocka_unit_test(test_tabs_len_and_hint),
		cmocka_unit_test(test_warning_and_no_location),
		cmocka_unit_test(test_clipping),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
