// SPDX-License-Identifier: GPL-2.0
/*
 * BEGIN and END: programs with no kernel attach point. They are raw_tp programs without a
 * target (libbpf's autoattach skips a bare SEC("raw_tp")), which the runtime executes once with
 * BPF_PROG_TEST_RUN, in its own process context, before the other probes start or at exit.
 */
#include "meta.h"
#include "probe.h"
#include "arena.h"
#include "probe_internal.h"

static char *begin_end_section(struct arena *a, const char *target)
{
	(void)target;
	return arena_strdup(a, "raw_tp");
}

const struct probe_type probe_begin = {
	.name = "BEGIN",
	.flags = AOT_PROBE_BEGIN,
	.section = begin_end_section,
};

const struct probe_type probe_end = {
	.name = "END",
	.flags = AOT_PROBE_END,
	.section = begin_end_section,
};
