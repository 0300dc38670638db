// SPDX-License-Identifier: GPL-2.0
/*
 * software:EVENT[:COUNT]: a program run every COUNT software events on every online CPU; the events
 * and their default counts are this file's table, the mechanism is perf.c's.
 */
#include <linux/perf_event.h>

#include "probe_internal.h"

/* bpftrace's events, spellings and default counts (its SW_PROBE_LIST). */
static const struct perf_counter software_events[] = {
	{ "cpu-clock", "cpu", PERF_COUNT_SW_CPU_CLOCK, 1000000 },
	{ "task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK, 1 },
	{ "page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS, 100 },
	{ "context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, 1000 },
	{ "cpu-migrations", NULL, PERF_COUNT_SW_CPU_MIGRATIONS, 1 },
	{ "minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN, 100 },
	{ "major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1 },
	{ "alignment-faults", NULL, PERF_COUNT_SW_ALIGNMENT_FAULTS, 1 },
	{ "emulation-faults", NULL, PERF_COUNT_SW_EMULATION_FAULTS, 1 },
	{ "dummy", NULL, PERF_COUNT_SW_DUMMY, 1 },
	{ "bpf-output", NULL, PERF_COUNT_SW_BPF_OUTPUT, 1 },
	{ NULL, NULL, 0, 0 },
};

static int software_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			  size_t *n, struct probe_err *err)
{
	(void)env;
	return probe_counter_match(software_events, "software", a, pattern, out, n, err);
}

static int software_list(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			 size_t *n, struct probe_err *err)
{
	(void)env, (void)err;
	return probe_counter_list(software_events, a, pattern, out, n);
}

static int software_attach(const struct probe_plan *plan, struct probe_links *links,
			   struct probe_err *err)
{
	return probe_counter_attach(software_events, PERF_TYPE_SOFTWARE, plan, links, err);
}

const struct probe_type probe_software = {
	.name = "software",
	.ctx_type = "struct bpf_perf_event_data",
	.spellings = (const char *const[]){ "s", NULL },
	.has_target = true,
	.newest_first = true,
	.list_all = "*",
	.match = software_match,
	.list = software_list,
	.section = probe_perf_section,
	/* a perf event's context starts with the registers it interrupted */
	.builtins = PB_REGS,
	.attach = software_attach,
};
