// SPDX-License-Identifier: GPL-2.0
/*
 * What the perf-event probe types share (interval, profile, software, hardware, watchpoint):
 * open one perf event per CPU (or on CPU 0 only) and attach the program to each.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "meta.h"
#include "probe_internal.h"
#include "units.h"

/* The online CPUs, from the kernel's "0-3,5" list; at most max of them. */
static int perf_online_cpus(int *cpus, int max)
{
	char buf[1024], *p = buf, *end;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int n = 0;

	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -errno ? -errno : -EIO;
	}
	fclose(f);
	while (*p && *p != '\n') {
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		for (long c = lo; c <= hi && n < max; c++)
			cpus[n++] = (int)c;
		if (*p == ',')
			p++;
	}
	return n;
}

/*
 * The period of a perf event that is a timer (cpu-clock, task-clock: interval, profile), which
 * the runtime restarts when the probes start; 0 for a counter. A frequency becomes the period
 * the kernel makes of it for these clocks.
 */
static uint64_t perf_timer_period(const struct perf_event_attr *attr)
{
	if (attr->type != PERF_TYPE_SOFTWARE ||
	    (attr->config != PERF_COUNT_SW_CPU_CLOCK && attr->config != PERF_COUNT_SW_TASK_CLOCK))
		return 0;
	if (attr->freq)
		return attr->sample_freq ? 1000000000ull / attr->sample_freq : 0;
	return attr->sample_period;
}

int probe_perf_attach_attr(const struct probe_plan *plan, struct perf_event_attr *attr,
			   bool all_cpus, struct probe_links *links, struct probe_err *err)
{
	const struct aot_probe *p = plan->probe;
	uint64_t timer = perf_timer_period(attr);
	int cpus[1024], ncpus = 1, ret;

	cpus[0] = 0;
	if (all_cpus) {
		ncpus = perf_online_cpus(cpus, (int)(sizeof(cpus) / sizeof(cpus[0])));
		if (ncpus <= 0) {
			probe_err_set(err, NULL, "cannot read the online CPUs");
			return ncpus ? ncpus : -ENOENT;
		}
	}
	attr->size = sizeof(*attr);
	for (int i = 0; i < ncpus; i++) {
		int fd = (int)syscall(__NR_perf_event_open, attr, -1, cpus[i], -1,
				      PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *link;

		if (fd < 0) {
			ret = -errno;
			probe_err_set(
				err,
				ret == -ENOENT || ret == -EOPNOTSUPP
					? "this machine does not expose that event (common in VMs)"
					: "check kernel.perf_event_paranoid and CAP_PERFMON",
				"cannot open the perf event of %s on CPU %d: %s", p->name, cpus[i],
				strerror(-ret));
			return ret;
		}
		/* The link owns the perf event fd from here on and closes it on destroy. */
		link = bpf_program__attach_perf_event(plan->prog, fd);
		ret = libbpf_get_error(link);
		if (ret) {
			close(fd);
			probe_err_set(err, NULL, "cannot attach %s on CPU %d: %s", p->name, cpus[i],
				      strerror(-ret));
			return ret;
		}
		ret = probe_links_add(links, link);
		if (!ret && timer)
			ret = probe_links_add_timer(links, fd, timer, p);
		if (ret)
			return ret;
	}
	return 0;
}

int probe_perf_attach(const struct probe_plan *plan, uint32_t type, uint64_t config,
		      uint64_t period, bool all_cpus, struct probe_links *links,
		      struct probe_err *err)
{
	struct perf_event_attr attr = {
		.type = type,
		.config = config,
		.sample_period = period,
	};

	return probe_perf_attach_attr(plan, &attr, all_cpus, links, err);
}

uint64_t probe_perf_rate(const char *target, bool *is_freq)
{
	const char *colon = strchr(target, ':');
	uint64_t n, unit;

	*is_freq = false;
	if (!colon) {
		n = aot_parse_duration(target, &unit);
		return n >= 1000 ? n : 0;
	}
	n = aot_parse_duration(colon + 1, &unit);
	if (!n || unit)
		return 0;
	for (const struct probe_time_unit *u = probe_time_units; u->name; u++) {
		if (strlen(u->name) != (size_t)(colon - target) ||
		    strncmp(target, u->name, (size_t)(colon - target)))
			continue;
		*is_freq = u->ns == 0;
		return *is_freq ? n : (n > UINT64_MAX / u->ns ? 0 : n * u->ns);
	}
	return 0;
}

char *probe_perf_section(struct arena *a, const char *target)
{
	(void)target;
	return arena_strdup(a, "perf_event");
}

int probe_perf_one_target(struct arena *a, const char *target, char ***out, size_t *n)
{
	*out = arena_alloc(a, sizeof(char *));
	(*out)[0] = arena_strdup(a, target);
	*n = 1;
	return 1;
}

/* "faults:100" -> the event and its count; NULL if the event is unknown or the count bad. */
static const struct perf_counter *counter_parse(const struct perf_counter *table,
						const char *target, uint64_t *count)
{
	const char *colon = strchr(target, ':');
	size_t len = colon ? (size_t)(colon - target) : strlen(target);
	char *end;

	for (const struct perf_counter *c = table; c->name; c++) {
		if ((strlen(c->name) != len || strncmp(c->name, target, len)) &&
		    (!c->alias || strlen(c->alias) != len || strncmp(c->alias, target, len)))
			continue;
		*count = c->default_count;
		if (colon) {
			*count = strtoull(colon + 1, &end, 10);
			if (*end || !*count)
				return NULL;
		}
		return c;
	}
	return NULL;
}

int probe_counter_match(const struct perf_counter *table, const char *type, struct arena *a,
			const char *pattern, char ***out, size_t *n, struct probe_err *err)
{
	uint64_t count;
	char names[512];
	size_t off = 0;

	*out = NULL;
	*n = 0;
	if (counter_parse(table, pattern, &count))
		return probe_perf_one_target(a, pattern, out, n);
	for (const struct perf_counter *c = table; c->name && off < sizeof(names); c++)
		off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", off ? ", " : "",
					c->name);
	probe_err_set(err, names, "unknown %s event or bad count in '%s'", type, pattern);
	return -EINVAL;
}

/*
 * Adds "NAME:" to l where the pattern's first part matches NAME, and its second part, if any,
 * an empty value: -l of a probe whose target is NAME:VALUE (software:*, interval:*:*).
 */
static void perf_list_name(struct probe_names *l, const char *pattern, const char *name)
{
	const char *colon = strchr(pattern, ':');
	char *first =
		arena_strndup(l->a, pattern, colon ? (size_t)(colon - pattern) : strlen(pattern));

	if (probe_wildcard_match(first, name) && (!colon || probe_wildcard_match(colon + 1, "")))
		probe_names_add(l, arena_printf(l->a, "%s:", name));
}

int probe_counter_list(const struct perf_counter *table, struct arena *a, const char *pattern,
		       char ***out, size_t *n)
{
	struct probe_names names = { .a = a };

	for (const struct perf_counter *c = table; c->name; c++) {
		perf_list_name(&names, pattern, c->name);
		if (c->alias)
			perf_list_name(&names, pattern, c->alias);
	}
	*n = probe_names_finish(&names, out);
	return (int)*n;
}

const struct probe_time_unit probe_time_units[] = {
	{ "hz", 0 }, { "s", 1000000000ull }, { "ms", 1000000ull }, { "us", 1000ull }, { NULL, 0 },
};

int probe_time_list(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		    size_t *n, struct probe_err *err)
{
	struct probe_names names = { .a = a };

	(void)env, (void)err;
	for (const struct probe_time_unit *u = probe_time_units; u->name; u++)
		perf_list_name(&names, pattern, u->name);
	*n = probe_names_finish(&names, out);
	return (int)*n;
}

int probe_counter_attach(const struct perf_counter *table, uint32_t type,
			 const struct probe_plan *plan, struct probe_links *links,
			 struct probe_err *err)
{
	uint64_t count;
	const struct perf_counter *c = counter_parse(table, plan->probe->target, &count);

	if (!c) {
		probe_err_set(err, NULL, "unknown event in '%s'", plan->probe->target);
		return -EINVAL;
	}
	return probe_perf_attach(plan, type, c->config, count, true, links, err);
}
