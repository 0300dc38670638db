// SPDX-License-Identifier: GPL-2.0
/*
 * hardware:EVENT[:COUNT]: a program run every COUNT hardware events on every online CPU; the events
 * and their default counts are this file's table, the mechanism is perf.c's.
 */
#include <linux/perf_event.h>

#include "probe_internal.h"

static const struct perf_counter hardware_events[] = {
	{ "cpu-cycles", "cycles", PERF_COUNT_HW_CPU_CYCLES, 1000000 },
	{ "instructions", NULL, PERF_COUNT_HW_INSTRUCTIONS, 1000000 },
	{ "cache-references", NULL, PERF_COUNT_HW_CACHE_REFERENCES, 1000000 },
	{ "cache-misses", NULL, PERF_COUNT_HW_CACHE_MISSES, 1000000 },
	{ "branch-instructions", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100000 },
	{ "branch-misses", NULL, PERF_COUNT_HW_BRANCH_MISSES, 100000 },
	{ "bus-cycles", NULL, PERF_COUNT_HW_BUS_CYCLES, 100000 },
	{ "frontend-stalls", NULL, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1000000 },
	{ "backend-stalls", NULL, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1000000 },
	{ "ref-cycles", NULL, PERF_COUNT_HW_REF_CPU_CYCLES, 1000000 },
	{ NULL, NULL, 0, 0 },
};

static int hardware_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			  size_t *n, struct probe_err *err)
{
	(void)env;
	return probe_counter_match(hardware_events, "hardware", a, pattern, out, n, err);
}

static int hardware_list(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			 size_t *n, struct probe_err *err)
{
	(void)env, (void)err;
	return probe_counter_list(hardware_events, a, pattern, out, n);
}

static int hardware_attach(const struct probe_plan *plan, struct probe_links *links,
			   struct probe_err *err)
{
	return probe_counter_attach(hardware_events, PERF_TYPE_HARDWARE, plan, links, err);
}

const struct probe_type probe_hardware = {
	.name = "hardware",
	.ctx_type = "struct bpf_perf_event_data",
	.spellings = (const char *const[]){ "h", NULL },
	.has_target = true,
	.list_all = "*",
	.match = hardware_match,
	.list = hardware_list,
	.section = probe_perf_section,
	/* a perf event's context starts with the registers it interrupted */
	.builtins = PB_REGS,
	.attach = hardware_attach,
};
