// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the attach plan (runtime/plan.c): programs compiled here, opened (not loaded), and
 * each probe resolved as a run and --explain resolve it: its program, strategy and targets.
 * Kernel facts (tracefs, uprobe_multi) are asked of this host; where it lacks them, the test
 * checks what still holds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <cmocka.h>

#include "rt.h"
#include "testlib.h"

struct planned {
	struct tl_build *b;
	struct aot_meta *m;
	struct rt_plan pl;
};

/* text compiled with opts and its metadata read back, ready to plan. */
static void plan_open(struct planned *x, const char *text, const struct aot_compile_opts *opts)
{
	const void *sec;
	char msg[128];
	size_t len;

	memset(x, 0, sizeof(*x));
	x->b = tl_build(text, opts, AOT_PASS_ALL);
	assert_int_equal(x->b->ret, 0);
	assert_non_null(x->b->obj);
	assert_int_equal(rt_elf_section(x->b->elf, x->b->elf_size, AOT_META_SECTION, &sec, &len),
			 0);
	assert_int_equal(aot_meta_read(sec, len, &x->m, msg, sizeof(msg)), 0);
}

static void plan_close(struct planned *x)
{
	rt_plan_free(&x->pl);
	aot_meta_free(x->m);
	tl_free(x->b);
}

/* Resolves every probe; returns the first error, 0 if none. */
static int plan_all(struct planned *x, bool list_all)
{
	int ret = 0;

	assert_int_equal(rt_plan_init(&x->pl, x->m, x->b->obj, list_all), 0);
	for (uint32_t i = 0; i < x->pl.n; i++) {
		struct probe_err err = { 0 };
		int r = rt_plan_resolve(&x->pl, i, &err);

		if (r && !ret)
			ret = r;
	}
	rt_plan_resolved(&x->pl);
	return ret;
}

static const struct probe_plan *plan_find(const struct planned *x, const char *type)
{
	for (uint32_t i = 0; i < x->pl.n; i++)
		if (!strcmp(x->pl.v[i].probe->type, type))
			return &x->pl.v[i];
	fail_msg("no %s probe in the plan", type);
	return NULL;
}

static bool have_tracefs(void)
{
	return !access("/sys/kernel/tracing/events/syscalls/sys_enter_openat", F_OK);
}

static void test_begin_end_tracepoint(void **state)
{
	const struct probe_plan *pp;
	struct planned x;

	(void)state;
	plan_open(&x,
		  "BEGIN { printf(\"hi\\n\"); } END { printf(\"bye\\n\"); }"
		  " tracepoint:syscalls:sys_enter_openat { @ = count(); }",
		  NULL);
	assert_int_equal(plan_all(&x, false), 0);
	pp = plan_find(&x, "BEGIN");
	assert_int_equal(pp->strategy, PROBE_RUN_ONCE);
	assert_true(pp->flags & AOT_PROBE_BEGIN);
	assert_ptr_equal(pp->prog, bpf_object__find_program_by_name(x.b->obj, pp->probe->prog));
	pp = plan_find(&x, "END");
	assert_int_equal(pp->strategy, PROBE_RUN_ONCE);
	assert_true(pp->flags & AOT_PROBE_END);
	pp = plan_find(&x, "tracepoint");
	assert_int_equal(pp->strategy, PROBE_SINGLE);
	assert_non_null(pp->type);
	if (have_tracefs())
		assert_int_equal(pp->ntargets, 1);
	plan_close(&x);
}

/* A target this kernel lacks is PROBE_MISSING before anything loads; a lost program, broken. */
static void test_missing_and_broken(void **state)
{
	const struct probe_plan *pp;
	struct probe_err err = { 0 };
	struct planned x;
	char *prog, *target;

	(void)state;
	plan_open(&x, "tracepoint:syscalls:sys_enter_openat { @ = count(); }", NULL);
	prog = x.m->probes[0].prog;
	target = x.m->probes[0].target;
	x.m->probes[0].target = "syscalls:sys_enter_no_such_call";
	assert_int_equal(plan_all(&x, false), 0);
	pp = &x.pl.v[0];
	if (have_tracefs()) {
		assert_int_equal(pp->strategy, PROBE_MISSING);
		assert_int_equal(pp->ntargets, 0);
	}
	rt_plan_free(&x.pl);

	x.m->probes[0].prog = "no_such_program";
	assert_int_equal(rt_plan_init(&x.pl, x.m, x.b->obj, false), 0);
	assert_int_equal(rt_plan_resolve(&x.pl, 0, &err), -ENOENT);
	assert_string_equal(err.msg, "no program 'no_such_program' in the object");
	assert_int_equal(x.pl.v[0].strategy, PROBE_BROKEN);
	assert_null(x.pl.v[0].prog);
	assert_non_null(x.pl.v[0].type);
	x.m->probes[0].prog = prog;
	x.m->probes[0].target = target;
	plan_close(&x);
}

/*
 * A uprobe wildcard is one multi program: a multi link where the kernel has them, else one link
 * per target (AOTRACE_MULTI_LINKS=0 asks for that). A run lists no user binary's functions;
 * --explain counts them.
 */
static void test_uprobe_multi(void **state)
{
	const struct probe_plan *pp;
	struct planned x;

	(void)state;
	plan_open(&x, "uprobe:libc:mall* { @ = count(); }", NULL);
	assert_int_equal(plan_all(&x, false), 0);
	pp = plan_find(&x, "uprobe");
	assert_true(pp->strategy == PROBE_MULTI || pp->strategy == PROBE_FALLBACK);
	assert_null(pp->targets);
	assert_int_equal(pp->ntargets, -1);
	rt_plan_free(&x.pl);

	assert_int_equal(plan_all(&x, true), 0);
	pp = plan_find(&x, "uprobe");
	assert_true(pp->ntargets > 0);
	assert_non_null(pp->targets);
	rt_plan_free(&x.pl);

	setenv("AOTRACE_MULTI_LINKS", "0", 1);
	assert_int_equal(plan_all(&x, false), 0);
	unsetenv("AOTRACE_MULTI_LINKS");
	pp = plan_find(&x, "uprobe");
	assert_int_equal(pp->strategy, PROBE_FALLBACK);
	assert_int_equal(bpf_program__expected_attach_type(pp->prog), 0);
	plan_close(&x);
}

/* kfunc matches sharing one body are an alias group: each probe a clone of its template. */
static void test_kfunc_alias(void **state)
{
	AOT_COMPILE_OPTS(opts, .expand = AOT_EXPAND_ALIAS);
	struct planned x;

	(void)state;
	if (access("/sys/kernel/btf/vmlinux", F_OK))
		skip();
	plan_open(&x, "kfunc:vfs_read* { @[probe] = count(); }", &opts);
	assert_true(x.m->nprobes > 1);
	assert_int_equal(plan_all(&x, false), 0);
	for (uint32_t i = 0; i < x.pl.n; i++) {
		assert_int_equal(x.pl.v[i].strategy, PROBE_CLONE);
		assert_int_equal(x.pl.v[i].ntargets, 1);
		assert_non_null(x.pl.v[i].prog);
	}
	plan_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_begin_end_tracepoint),
		cmocka_unit_test(test_missing_and_broken),
		cmocka_unit_test(test_uprobe_multi),
		cmocka_unit_test(test_kfunc_alias),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
