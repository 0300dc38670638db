// SPDX-License-Identifier: GPL-2.0
/*
 * The compiler's API (aotcc.h): options that carry their size, settings filled from the
 * environment under the caller's and then from their defaults, and a pipeline that runs up to
 * a named pass, goes on from there, and stops for good at the first pass with errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "frontend.h"

static struct aot_program *program(const char *text, const struct aot_compile_opts *opts)
{
	return aot_program__new("t.bt", text, strlen(text), opts);
}

/* The passes run up to the one asked for; a later call goes on where the first stopped. */
static void test_run_up_to_a_pass(void **state)
{
	struct aot_program *p = program("BEGIN { @x = 1; }", NULL);
	size_t size;

	(void)state;
	assert_non_null(p);
	assert_int_equal(aot_program__run(p, AOT_PASS_PARSE), 0);
	assert_non_null(aot_program__ast(p)->root);
	assert_null(aot_program__ast(p)->maps); /* sema has not run */
	assert_int_equal(aot_program__run(p, AOT_PASS_SEMA), 0);
	assert_non_null(aot_program__ast(p)->maps);
	assert_null(aot_program__elf(p, &size));
	assert_int_equal(aot_program__run(p, AOT_PASS_ALL), 0);
	assert_non_null(aot_program__elf(p, &size));
	assert_true(size > 0);
	aot_program__free(p);
}

/* A pass with errors stops the pipeline, now and on every later call. */
static void test_errors_stop_the_pipeline(void **state)
{
	struct aot_program *p = program("BEGIN { @x = nosuch; }", NULL);
	size_t size;

	(void)state;
	assert_int_equal(aot_program__run(p, AOT_PASS_ALL), -EINVAL);
	assert_int_equal(aot_program__diags(p)->nerrors, 1);
	assert_null(aot_program__elf(p, &size));
	assert_int_equal(aot_program__run(p, AOT_PASS_ALL), -EINVAL);
	assert_int_equal(aot_program__diags(p)->nerrors, 1);
	assert_int_equal(aot_program__list(p, false, stdout), -EINVAL);
	aot_program__free(p);
}

/* sz says how much of the struct the caller knows; what it does not know must be unset. */
static void test_opts_size(void **state)
{
	struct {
		struct aot_compile_opts o;
		char newer[8];
	} big = { .o = { .sz = sizeof(big) } };
	struct aot_compile_opts tiny = { .sz = 1 };
	struct aot_program *p;

	(void)state;
	p = program("BEGIN { }", &big.o);
	assert_non_null(p);
	aot_program__free(p);
	big.newer[3] = 1;
	errno = 0;
	assert_null(program("BEGIN { }", &big.o));
	assert_int_equal(errno, EINVAL);
	assert_null(program("BEGIN { }", &tiny));
	assert_int_equal(errno, EINVAL);
}

/* Unset settings get their default; one out of range is refused. */
static void test_defaults_and_ranges(void **state)
{
	AOT_COMPILE_OPTS(o, .max_probes = 7);

	(void)state;
	assert_int_equal(aot_compile_opts_resolve(&o), 0);
	assert_int_equal(o.strlen_max, AOT_STRLEN_DEFAULT);
	assert_int_equal(o.map_keys_max, AOT_MAP_KEYS_MAX_DEFAULT);
	assert_int_equal(o.max_probes, 7);
	o.strlen_max = AOT_STRLEN_LIMIT + 1;
	assert_int_equal(aot_compile_opts_resolve(&o), -EINVAL);
	errno = 0;
	assert_null(program("BEGIN { }", &o));
	assert_int_equal(errno, EINVAL);
}

/* The environment fills what the caller left unset, and nothing else. */
static void test_environment(void **state)
{
	FILE *err = fopen("/dev/null", "w");
	AOT_COMPILE_OPTS(o, .map_keys_max = 10);

	(void)state;
	setenv("BPFTRACE_STRLEN", "100", 1);
	setenv("BPFTRACE_MAP_KEYS_MAX", "not a number", 1); /* set by the caller: not read */
	unsetenv("BPFTRACE_MAX_PROBES");
	setenv("AOTRACE_BTF", "/saved/vmlinux", 1);
	assert_int_equal(aot_compile_opts_from_env(&o, err), 0);
	assert_int_equal(o.strlen_max, 100);
	assert_int_equal(o.map_keys_max, 10);
	assert_int_equal(o.max_probes, 0);
	assert_string_equal(o.btf_path, "/saved/vmlinux");

	setenv("BPFTRACE_MAX_PROBES", "12x", 1);
	assert_int_equal(aot_compile_opts_from_env(&o, err), -EINVAL);
	setenv("BPFTRACE_MAX_PROBES", "0", 1);
	assert_int_equal(aot_compile_opts_from_env(&o, err), -EINVAL);
	unsetenv("BPFTRACE_STRLEN");
	unsetenv("BPFTRACE_MAP_KEYS_MAX");
	unsetenv("BPFTRACE_MAX_PROBES");
	unsetenv("AOTRACE_BTF");
	fclose(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_up_to_a_pass),
		cmocka_unit_test(test_errors_stop_the_pipeline),
		cmocka_unit_test(test_opts_size),
		cmocka_unit_test(test_defaults_and_ranges),
		cmocka_unit_test(test_environment),
	};

	return cmocka_run_group_tests_name("pipeline", tests, NULL, NULL);
}
