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
#include <sys/syscall.h>
#include <unistd.h>

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

static int interval_match(struct probe_env *env, struct arena *a, const char *pattern,
			  char ***out, size_t *n, struct probe_err *err)
{
	(void)env;
	*out = NULL;
	*n = 0;
	if (!interval_period_ns(pattern)) {
		probe_err_set(err, INTERVAL_HINT, "invalid interval '%s'", pattern);
		return -EINVAL;
	}
	*out = arena_alloc(a, sizeof(char *));
	(*out)[0] = arena_strdup(a, pattern);
	*n = 1;
	return 1;
}

static char *interval_section(struct arena *a, const char *target)
{
	(void)target;
	return arena_strdup(a, "perf_event");
}

static int interval_attach(struct bpf_program *prog, const struct aot_probe *p,
			   struct bpf_link **link, struct probe_err *err)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = interval_period_ns(p->target),
	};
	int fd, ret;

	if (!attr.sample_period) {
		probe_err_set(err, INTERVAL_HINT, "invalid interval '%s'", p->target);
		return -EINVAL;
	}
	fd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		probe_err_set(err, "check kernel.perf_event_paranoid and CAP_PERFMON",
			      "cannot open a cpu-clock perf event for interval:%s: %s", p->target,
			      strerror(errno));
		return ret;
	}
	/* The link owns the perf event fd from here on and closes it on destroy. */
	*link = bpf_program__attach_perf_event(prog, fd);
	ret = libbpf_get_error(*link);
	if (ret) {
		*link = NULL;
		close(fd);
		probe_err_set(err, NULL, "cannot attach interval:%s: %s", p->target, strerror(-ret));
	}
	return ret;
}

const struct probe_type probe_interval = {
	.name = "interval",
	.spellings = (const char *const[]){ "i", NULL },
	.has_target = true,
	.match = interval_match,
	.section = interval_section,
	.attach = interval_attach,
};
