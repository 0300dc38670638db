// SPDX-License-Identifier: GPL-2.0
/*
 * test:NAME and bench:NAME (bpftrace 0.26 and later): programs with no attach point that only
 * --test and --bench run, with BPF_PROG_TEST_RUN. They are XDP programs, as in bpftrace, since
 * the kernel repeats an XDP program's test run as often as asked (a raw_tp's runs only once)
 * and times it: --bench's average.
 */
#include <errno.h>
#include <string.h>

#include "arena.h"
#include "meta.h"
#include "probe_internal.h"

/* A name of letters, digits and _: it heads a line of --test's or --bench's report. */
static int test_bench_match(struct probe_env *env, struct arena *a, const char *pattern,
			    char ***out, size_t *n, struct probe_err *err)
{
	(void)env;
	*out = NULL;
	*n = 0;
	if (!*pattern || strspn(pattern, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789_") != strlen(pattern)) {
		probe_err_set(err,
			      "write it as test:NAME or bench:NAME, NAME of letters, digits "
			      "and _",
			      "invalid name '%s'", pattern);
		return -EINVAL;
	}
	return probe_perf_one_target(a, pattern, out, n);
}

static char *test_bench_section(struct arena *a, const char *target)
{
	(void)target;
	return arena_strdup(a, "xdp");
}

const struct probe_type probe_test = {
	.name = "test",
	.flags = AOT_PROBE_TEST,
	.has_target = true,
	.match = test_bench_match,
	.section = test_bench_section,
};

const struct probe_type probe_bench = {
	.name = "bench",
	.flags = AOT_PROBE_BENCH,
	.has_target = true,
	.match = test_bench_match,
	.section = test_bench_section,
};
