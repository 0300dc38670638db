// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the verifier-rejection report on synthetic verifier logs: the script line found from
 * the last line-info comment (quoted from the source we were given), the tail of the log, the
 * whole log with -v, the hint, and logs with no or malformed line info.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt.h"

static const char *script = "BEGIN {\n\t$i = 0;\n\twhile ($i < 5) {\n\t\t$i = $i * 1;\n\t}\n}\n";

static const char *loop_log = "func#0 @0\n"
			      "0: R1=ctx() R10=fp0\n"
			      "; $i = 0; @ loop.bt:2\n"
			      "0: (b7) r1 = 0\n"
			      "; $i = $i * 1; @ loop.bt:4\n"
			      "1: (05) goto pc-1\n"
			      "1: (05) goto pc-1\n"
			      "infinite loop detected at insn 1\n"
			      "cur state: R1=0 R10=fp0\n"
			      "old state: R1=0 R10=fp0\n"
			      "processed 9 insns (limit 1000000) max_states_per_insn 0\n";

/* Runs the report with stderr sent to a temporary file; returns what it printed (malloc'd). */
static char *report(const char *obj_name, const char *source, int verbose, const char *log)
{
	struct aot_run_opts o = {
		.sz = sizeof(o), .obj_name = obj_name, .source = source, .verbose = verbose
	};
	struct rt rt = { .opts = &o };
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	long len;
	char *text;

	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	rt_verifier_report(&rt, "BEGIN", "BEGIN", log, -22);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	len = ftell(tmp);
	text = calloc(1, len + 1);
	rewind(tmp);
	assert_int_equal(fread(text, 1, len, tmp), (size_t)len);
	fclose(tmp);
	return text;
}

static void test_line_from_source(void **state)
{
	char *t = report("loop.bt", script, 0, loop_log);

	(void)state;
	assert_non_null(strstr(t, "ERROR: the kernel's verifier rejected probe BEGIN"));
	/* The last line-info comment wins, quoted from the source without its indentation. */
	assert_non_null(strstr(t, "\n  loop.bt:4: $i = $i * 1;\n"));
	assert_non_null(strstr(t, "  verifier: infinite loop detected at insn 1\n"));
	assert_null(strstr(t, "verifier: 0: R1=ctx()"));
	assert_non_null(strstr(t, "(-v shows the whole verifier log)"));
	assert_non_null(strstr(t, "HINT: the verifier sees a loop"));
	free(t);
}

static void test_line_from_btf_text(void **state)
{
	/* No source given and no such file: the text the verifier quotes from BTF. */
	char *t = report("/nonexistent/loop.bt", NULL, 0, loop_log);

	(void)state;
	assert_non_null(strstr(t, "\n  /nonexistent/loop.bt:4: $i = $i * 1;\n"));
	free(t);
}

static void test_verbose_whole_log(void **state)
{
	char *t = report("loop.bt", script, 1, loop_log);

	(void)state;
	assert_non_null(strstr(t, "the verifier's log:\nfunc#0 @0\n"));
	assert_non_null(strstr(t, "processed 9 insns"));
	assert_null(strstr(t, "-v shows"));
	free(t);
}

static void test_no_line_info(void **state)
{
	char *t = report("-e", NULL, 0, "0: (85) call bpf_foo#999\nunknown func bpf_foo#999");

	(void)state;
	assert_null(strstr(t, "-e:"));
	assert_non_null(strstr(t, "  verifier: unknown func bpf_foo#999\n"));
	assert_non_null(strstr(t, "HINT: this kernel lacks a BPF helper"));
	free(t);
}

static void test_malformed_line_info(void **state)
{
	/* Comments without a line number, an empty file name, or a line past the source's end. */
	char *t = report("x.bt", "BEGIN {}\n", 0,
			 "; a @ x.bt:\n; @ :\n;  @ x.bt:99\nR1 invalid mem access 'scalar'\n");

	(void)state;
	assert_non_null(strstr(t, "  at x.bt:99\n"));
	assert_non_null(strstr(t, "HINT: if the program looks valid"));
	free(t);
	t = report("x.bt", NULL, 0, "");
	assert_non_null(strstr(t, "HINT: "));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_from_source),
		cmocka_unit_test(test_line_from_btf_text),
		cmocka_unit_test(test_verbose_whole_log),
		cmocka_unit_test(test_no_line_info),
		cmocka_unit_test(test_malformed_line_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
