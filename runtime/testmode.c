// SPDX-License-Identifier: GPL-2.0
/*
 * --test and --bench (bpftrace 0.26 and later): instead of attaching anything, run each test:
 * probe once, or each bench: probe over and over, with BPF_PROG_TEST_RUN, and report them as
 * bpftrace 0.27 does. A test passes when its program returns 0 and printed no errorf() (as a
 * failed assert() does); what it printed is held back and shown only when it fails. A bench's
 * output is dropped; one that returns 1 is skipped, one that fails ends the run with status 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* The names and plan entries of the run-once probes with this flag, in the script's order. */
static size_t testmode_select(struct rt *rt, uint32_t flag, const char ***names,
			      const struct probe_plan ***pps)
{
	size_t n = 0;

	*names = calloc(rt->plan.n + 1, sizeof(**names));
	*pps = calloc(rt->plan.n + 1, sizeof(**pps));
	if (!*names || !*pps)
		return 0;
	for (uint32_t i = 0; i < rt->plan.n; i++) {
		const struct probe_plan *pp = &rt->plan.v[i];

		if (pp->strategy != PROBE_RUN_ONCE || !(pp->flags & flag))
			continue;
		(*names)[n] = pp->probe->target ? pp->probe->target : pp->probe->prog;
		(*pps)[n++] = pp;
	}
	return n;
}

/* What the programs print goes to a memory stream, as text, until restored. */
struct testmode_capture {
	FILE *f, *err, *mem;
	const struct output_ops *ops;
	char *text;
	size_t len;
};

static int testmode_capture_begin(struct rt *rt, struct testmode_capture *c)
{
	c->f = rt->out.f;
	c->err = rt->out.err;
	c->text = NULL;
	c->len = 0;
	c->mem = open_memstream(&c->text, &c->len);
	if (!c->mem)
		return -errno;
	rt->out.f = c->mem;
	rt->out.err = c->mem;
	/* What a test printed is text in JSON too, as in bpftrace 0.27. */
	c->ops = rt->out.ops;
	rt->out.ops = &output_text_ops;
	rt->out.nerrors = 0;
	return 0;
}

/* Takes what the run printed, and puts the streams back. */
static void testmode_capture_end(struct rt *rt, struct testmode_capture *c)
{
	rt_events_drain(rt);
	fclose(c->mem);
	rt->out.f = c->f;
	rt->out.err = c->err;
	rt->out.ops = c->ops;
	/*
	 * exit() in a test ends that test, not the run; what the tests after it print is not
	 * shown (events.c), as in bpftrace 0.27.1.
	 */
	rt->exiting = false;
}

static void testmode_capture_free(struct testmode_capture *c)
{
	free(c->text);
	c->text = NULL;
}

int rt_run_tests(struct rt *rt)
{
	const struct probe_plan **pps;
	const char **names;
	size_t n = testmode_select(rt, AOT_PROBE_TEST, &names, &pps);
	bool *passed = calloc(n + 1, sizeof(*passed));
	int status = 0, err = 0;

	if (!names || !pps || !passed) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct testmode_capture c;
		struct rt_test_run res = { 0 };

		err = testmode_capture_begin(rt, &c);
		if (err)
			goto out;
		err = rt_run_probe(rt, pps[i], 1, &res);
		testmode_capture_end(rt, &c);
		if (err) {
			testmode_capture_free(&c);
			goto out;
		}
		/* bpftrace 0.27.1 passes a test that called exit(2): no exit status counts. */
		passed[i] = res.retval == 0 && !rt->out.nerrors;
		rt->out.ops->test_result(&rt->out, &(struct output_test){
							   .names = names,
							   .passed = passed,
							   .n = n,
							   .index = i,
							   .duration_ns = res.duration_ns,
							   .captured = c.text,
							   .captured_len = c.len,
						   });
		testmode_capture_free(&c);
		if (!passed[i])
			status = 1;
	}
out:
	rt->exit_called = false;
	rt->exit_code = 0;
	free(names);
	free(pps);
	free(passed);
	return err ? err : status;
}

/* Runs of a bench grow until they take a millisecond in all, as bpftrace's do. */
static uint64_t testmode_more(uint64_t iters, uint64_t total_ns)
{
	if (total_ns < 1000)
		return iters * 1000;
	if (total_ns < 10000)
		return iters * 100;
	if (total_ns < 100000)
		return iters * 10;
	if (total_ns < 1000000)
		return iters * 2;
	return 0;
}

int rt_run_benches(struct rt *rt)
{
	const struct probe_plan **pps;
	const char **names;
	size_t n = testmode_select(rt, AOT_PROBE_BENCH, &names, &pps);
	int status = 0, err = 0;

	if (!names || !pps) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t iters = 1, more;

		for (;;) {
			struct testmode_capture c;
			struct rt_test_run res = { 0 };
			bool failed;

			err = testmode_capture_begin(rt, &c);
			if (err)
				goto out;
			err = rt_run_probe(rt, pps[i], (uint32_t)iters, &res);
			testmode_capture_end(rt, &c);
			testmode_capture_free(&c);
			if (err)
				goto out;
			failed = rt->out.nerrors != 0;
			if (!failed && res.retval != 0)
				break; /* skipped */
			more = testmode_more(iters, (uint64_t)res.duration_ns * iters);
			if (more && iters < UINT32_MAX / 1000) {
				iters = more;
				continue;
			}
			if (failed) {
				rt_report(&rt->out, RT_ERROR, "Benchmark '%s' failed.", names[i]);
				status = 1;
				break;
			}
			rt->out.ops->bench_result(&rt->out, &(struct output_bench){
								    .names = names,
								    .n = n,
								    .index = i,
								    .average_ns = res.duration_ns,
								    .iters = iters,
							    });
			break;
		}
	}
out:
	rt->exit_called = false;
	rt->exit_code = 0;
	free(names);
	free(pps);
	return err ? err : status;
}
