// SPDX-License-Identifier: GPL-2.0
/*
 * watchpoint:ADDR:LEN:MODE: a hardware breakpoint (a perf event of PERF_TYPE_BREAKPOINT) that
 * runs the program when the CPU reads (r), writes (w) or executes (x) the LEN bytes at ADDR.
 * With -p the address is in that process; without, it is a kernel address, watched on every CPU.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "meta.h"
#include "probe_internal.h"

#define WATCH_HINT                                                                                 \
	"write it as watchpoint:0xADDRESS:LENGTH:MODE, LENGTH 1, 2, 4 or 8, MODE r, w, rw or x"

/* x86-64: the kernel's half of the address space starts here. */
#define WATCH_KERNEL_START 0xffff800000000000ull

struct watch {
	uint64_t addr;
	uint32_t len;
	uint32_t type; /* HW_BREAKPOINT_R | _W, or _X */
};

/* "0x1000:8:rw" -> its parts; 0 or -EINVAL with err set. */
static int watch_parse(const char *target, struct watch *w, struct probe_err *err)
{
	const char *s = target;
	char *end;

	memset(w, 0, sizeof(*w));
	w->addr = strtoull(s, &end, 0);
	if (end == s || *end != ':') {
		if (strchr(target, '+'))
			probe_err_set(
				err,
				"watch an absolute address (read it from the program or /proc/kallsyms)",
				"watchpoint:FUNCTION+argN is not supported");
		else
			probe_err_set(err, WATCH_HINT, "bad watchpoint address in '%s'", target);
		return -EINVAL;
	}
	s = end + 1;
	w->len = (uint32_t)strtoul(s, &end, 10);
	if (end == s || *end != ':' || (w->len != 1 && w->len != 2 && w->len != 4 && w->len != 8)) {
		probe_err_set(err, WATCH_HINT, "bad watchpoint length in '%s'", target);
		return -EINVAL;
	}
	for (s = end + 1; *s; s++) {
		uint32_t bit = *s == 'r'   ? HW_BREAKPOINT_R
			       : *s == 'w' ? HW_BREAKPOINT_W
			       : *s == 'x' ? HW_BREAKPOINT_X
					   : 0;

		if (!bit || (w->type & bit)) {
			probe_err_set(err, WATCH_HINT, "bad watchpoint mode in '%s'", target);
			return -EINVAL;
		}
		w->type |= bit;
	}
	if (!w->type) {
		probe_err_set(err, WATCH_HINT, "the watchpoint '%s' has no mode", target);
		return -EINVAL;
	}
	if ((w->type & HW_BREAKPOINT_X) && w->type != HW_BREAKPOINT_X) {
		probe_err_set(err, "watch execution in a probe of its own",
			      "a watchpoint cannot watch execution together with reads or writes");
		return -EINVAL;
	}
	if (w->type == HW_BREAKPOINT_X && w->len != sizeof(long)) {
		probe_err_set(err, "give length 8 with mode x",
			      "an execution watchpoint's length is %zu", sizeof(long));
		return -EINVAL;
	}
	return 0;
}

static const char *watch_mode(uint32_t type)
{
	switch (type) {
	case HW_BREAKPOINT_R:
		return "r";
	case HW_BREAKPOINT_W:
		return "w";
	case HW_BREAKPOINT_RW:
		return "rw";
	default:
		return "x";
	}
}

static int watch_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		       size_t *n, struct probe_err *err)
{
	struct watch w;

	(void)env;
	*out = NULL;
	*n = 0;
	if (watch_parse(pattern, &w, err))
		return -EINVAL;
	/* One spelling per watchpoint, so `probe` and the section name say the same. */
	return probe_perf_one_target(a,
				     arena_printf(a, "0x%llx:%u:%s", (unsigned long long)w.addr,
						  w.len, watch_mode(w.type)),
				     out, n);
}

/* Why the kernel refused a breakpoint, in the user's terms. */
static void watch_refused(const struct watch *w, int ret, struct probe_err *err)
{
	if (ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ENODEV)
		probe_err_set(err,
			      "virtual machines often lack them; run on a machine that has them",
			      "this machine exposes no hardware breakpoints (%s)", strerror(-ret));
	else if (ret == -ENOSPC)
		probe_err_set(err, "x86 has 4 debug registers; watch fewer addresses",
			      "every hardware breakpoint register is in use");
	else if (ret == -EINVAL && w->type == HW_BREAKPOINT_R)
		probe_err_set(err, "use mode rw", "x86 cannot watch reads alone");
	else if (ret == -EINVAL)
		probe_err_set(
			err,
			"check that the address is aligned to the length and belongs to the target",
			"the kernel refused the address (%s)", strerror(-ret));
	else
		probe_err_set(err, "check kernel.perf_event_paranoid and CAP_PERFMON", "%s",
			      strerror(-ret));
}

static int watch_attach(const struct probe_plan *plan, struct probe_links *links,
			struct probe_err *err)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
	};
	const struct aot_probe *p = plan->probe;
	size_t from = links->n;
	struct bpf_link *link;
	struct watch w;
	int fd, ret;

	if (watch_parse(p->target, &w, err))
		return -EINVAL;
	attr.bp_addr = w.addr;
	attr.bp_len = w.len;
	attr.bp_type = w.type;
	if (links->pid <= 0) {
		/* A kernel address, on every CPU; refusals come back as the perf open's errno. */
		struct probe_err perr = { { 0 }, { 0 } };

		if (w.addr < WATCH_KERNEL_START) {
			probe_err_set(err, "give the process: aotrace -p PID",
				      "a user-space address needs a process");
			return -EINVAL;
		}

		ret = probe_perf_attach_attr(plan, &attr, true, links, &perr);
		if (ret)
			watch_refused(&w, ret, err);
		return ret ? ret : probe_links_add_watch(links, from, w.addr);
	}
	fd = (int)syscall(__NR_perf_event_open, &attr, links->pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ESRCH)
			probe_err_set(err, NULL, "no process %d", links->pid);
		else
			watch_refused(&w, ret, err);
		return ret;
	}
	link = bpf_program__attach_perf_event(plan->prog, fd);
	ret = libbpf_get_error(link);
	if (ret) {
		close(fd);
		probe_err_set(err, NULL, "cannot attach %s: %s", p->name, strerror(-ret));
		return ret;
	}
	ret = probe_links_add(links, link);
	return ret ? ret : probe_links_add_watch(links, from, w.addr);
}

const struct probe_type probe_watchpoint = {
	.name = "watchpoint",
	.ctx_type = "struct bpf_perf_event_data",
	.spellings = (const char *const[]){ "w", NULL },
	.has_target = true,
	.builtins = PB_REGS,
	.match = watch_match,
	.section = probe_perf_section,
	.attach = watch_attach,
};
