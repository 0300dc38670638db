// SPDX-License-Identifier: GPL-2.0
/*
 * interval:UNIT:N fires every N units (s, ms, us, hz) on one CPU, interval:1s every second
 * (bpftrace 0.24's durations): a software cpu-clock perf event with that period, to which a
 * BPF_PROG_TYPE_PERF_EVENT program is attached.
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
#include "units.h"

#define INTERVAL_HINT                                                                               \
	"write it as interval:1s, interval:100ms, interval:hz:99 (or interval:s:1, interval:ms:N, " \
	"interval:us:N)"

/* The period in nanoseconds of "s:1", "ms:100", "us:500", "hz:99", "1s", "100ms"; 0 if malformed.
 */
static uint64_t interval_period_ns(const char *target)
{
	bool is_freq;
	uint64_t n = probe_perf_rate(target, &is_freq);

	if (is_freq)
		return n > 1000000000ull ? 0 : 1000000000ull / n;
	return n;
}

static int interval_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			  size_t *n, struct probe_err *err)
{
	(void)env;
	*out = NULL;
	*n = 0;
	if (!interval_period_ns(pattern)) {
		uint64_t unit, ns = aot_parse_duration(pattern, &unit);

		if (ns && ns < 1000)
			probe_err_set(err, "interval:1us is the shortest",
				      "interval '%s' is %llu nanoseconds: less than 1000", pattern,
				      (unsigned long long)ns);
		else
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
	.list = probe_time_list,
	.section = probe_perf_section,
	/* a perf event's context starts with the registers it interrupted */
	.builtins = PB_REGS,
	.attach = interval_attach,
};
