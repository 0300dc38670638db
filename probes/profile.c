// SPDX-License-Identifier: GPL-2.0
/*
 * profile:hz:N, profile:s/ms/us:N, profile:10ms: sampling on every online CPU with a cpu-clock
 * perf event, by frequency (hz) or by period.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "meta.h"
#include "probe_internal.h"

#define PROFILE_HINT                                                                               \
	"write it as profile:hz:N, profile:10ms (a duration), profile:s:N, profile:ms:N or "       \
	"profile:us:N"

static int profile_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			 size_t *n, struct probe_err *err)
{
	bool is_freq;

	(void)env;
	*out = NULL;
	*n = 0;
	if (!probe_perf_rate(pattern, &is_freq)) {
		probe_err_set(err, PROFILE_HINT, "invalid profile rate '%s'", pattern);
		return -EINVAL;
	}
	return probe_perf_one_target(a, pattern, out, n);
}

static int profile_attach(const struct probe_plan *plan, struct probe_links *links,
			  struct probe_err *err)
{
	bool is_freq = false;
	uint64_t rate = probe_perf_rate(plan->probe->target, &is_freq);
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = is_freq,
		.sample_period = rate, /* sample_freq shares the field */
	};

	if (!rate) {
		probe_err_set(err, PROFILE_HINT, "invalid profile rate '%s'", plan->probe->target);
		return -EINVAL;
	}
	return probe_perf_attach_attr(plan, &attr, true, links, err);
}

const struct probe_type probe_profile = {
	.name = "profile",
	.ctx_type = "struct bpf_perf_event_data",
	.spellings = (const char *const[]){ "p", NULL },
	.has_target = true,
	.match = profile_match,
	.list = probe_time_list,
	.section = probe_perf_section,
	/* a perf event's context starts with the registers it interrupted */
	.builtins = PB_REGS,
	.attach = profile_attach,
};
