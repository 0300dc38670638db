// SPDX-License-Identifier: GPL-2.0
/*
 * interval:UNIT:N fires every N units (s, ms, us, hz) on one CPU: a software cpu-clock perf
 * event with that period, to which a BPF_PROG_TYPE_PERF_EVENT program is attached.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "meta.h"
#include "probe_internal.h"

#define INTERVAL_HINT "write it as interval:s:N, interval:ms:N, interval:us:N or interval:hz:N"

/* The period in nanoseconds of "s:1", "ms:100", "us:500", "hz:99"; 0 if malformed. */
static uint64_t interval_period_ns(const char *target)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "s", 1000000000ull }, { "ms", 1000000ull }, { "us", 1000ull } };
	const char *colon = strchr(target, ':');
	char *end;
	unsigned long long n;

	if (!colon || !colon[1] || colon[1] == '-')
		return 0;
	n = strtoull(colon + 1, &end, 10);
	if (*end || n == 0)
		return 0;
	if ((size_t)(colon - target) == 2 && strncmp(target, "hz", 2) == 0)
		return n > 1000000000ull ? 0 : 1000000000ull / n;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].unit) == (size_t)(colon - target) &&
		    strncmp(target, units[i].unit, (size_t)(colon - target)) == 0)
			return n > UINT64_MAX / units[i].ns ? 0 : n * units[i].ns;
	return 0;
}

static int interval_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			  size_t *n, struct probe_err *err)
{
	(void)env;
	*out = NULL;
	*n = 0;
	if (!interval_period_ns(pattern)) {
		probe_err_set(err, INTERVAL_HINT, "invalid interval '%s'", pattern);
		return -EINVAL;
	}
	return probe_perf_one_target(a, pattern, out, n);
}

static int interval_attach(const struct probe_plan *plan, struct probe_links *links,
			   struct probe_err *err)
{
	uint64_t period = interval_period_ns(plan->probe->target);

	if (!period) {
		probe_err_set(err, INTERVAL_HINT, "invalid interval '%s'", plan->probe->target);
		return -EINVAL;
	}
	/* One CPU: an interval fires once per period, not once per CPU. */
	return probe_perf_attach(plan, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, period, 0,
				 links, err);
}

const struct probe_type probe_interval = {
	.name = "interval",
	.ctx_type = "struct bpf_perf_event_data",
	.spellings = (const char *const[]){ "i", NULL },
	.has_target = true,
	.match = interval_match,
	.section = probe_perf_section,
	.attach = interval_attach,
};
