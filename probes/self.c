// SPDX-License-Identifier: GPL-2.0
/*
 * self:signal:SIGUSR1 (bpftrace 0.22 and later): a program with no kernel attach point, run by
 * the runtime with BPF_PROG_TEST_RUN each time the aotrace process itself gets SIGUSR1. A raw_tp
 * program without a target, as BEGIN and END are.
 */
#include <errno.h>
#include <string.h>

#include "arena.h"
#include "meta.h"
#include "probe_internal.h"

/* The one trigger and the one signal bpftrace 0.27 has. */
#define SELF_TARGET "signal:SIGUSR1"
#define SELF_HINT "write it as self:signal:SIGUSR1"

/* Takes exactly "signal:SIGUSR1" and says, as bpftrace 0.27 does, which part is wrong. */
static int self_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		      size_t *n, struct probe_err *err)
{
	const char *colon = strchr(pattern, ':');
	size_t parts = 1;

	(void)env;
	*out = NULL;
	*n = 0;
	for (const char *c = pattern; *c; c++)
		parts += *c == ':';
	if (parts != 2) {
		probe_err_set(err, SELF_HINT, "self probe type requires 2 arguments, found %zu",
			      parts);
		return -EINVAL;
	}
	if (strncmp(pattern, "signal:", 7)) {
		probe_err_set(err, SELF_HINT, "%.*s is not a supported trigger",
			      (int)(colon - pattern), pattern);
		return -EINVAL;
	}
	if (strcmp(colon + 1, "SIGUSR1")) {
		probe_err_set(err, SELF_HINT, "%s is not a supported signal", colon + 1);
		return -EINVAL;
	}
	return probe_perf_one_target(a, pattern, out, n);
}

/* -l 'self:*': the one probe, where the pattern matches it. */
static int self_list(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		     size_t *n, struct probe_err *err)
{
	(void)env;
	(void)err;
	*out = NULL;
	*n = 0;
	if (!probe_wildcard_match(pattern, SELF_TARGET))
		return 0;
	return probe_perf_one_target(a, SELF_TARGET, out, n);
}

static char *self_section(struct arena *a, const char *target)
{
	(void)target;
	return arena_strdup(a, "raw_tp");
}

const struct probe_type probe_self = {
	.name = "self",
	.flags = AOT_PROBE_SIGNAL,
	.has_target = true,
	.list_all = "*",
	.match = self_match,
	.list = self_list,
	.section = self_section,
};
