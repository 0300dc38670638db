// SPDX-License-Identifier: GPL-2.0
/*
 * Attach: each probe goes where its plan (plan.c) says: to its probe type's attach callback, to
 * its clone (clone.c), or, for BEGIN and END, nowhere: they are SEC("raw_tp") programs with no
 * target, run once with BPF_PROG_TEST_RUN and a zero-size context, which executes them in our
 * own process.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe.h"
#include "rt.h"

static const char *attach_name(const struct aot_probe *p)
{
	return p->name ? p->name : p->prog;
}

/*
 * A probe whose target is missing here (compiled elsewhere, or a function the kernel cannot
 * trace): an error, or skipped. why: the probe type's reason, or NULL.
 */
static int attach_missing(struct rt *rt, struct probe_plan *pp, const char *why)
{
	const struct aot_probe *p = pp->probe;
	char reason[256];

	if (why && *why)
		snprintf(reason, sizeof(reason), "%s", why);
	else
		snprintf(reason, sizeof(reason), "no such %s on this kernel", p->type);
	if (rt->opts->missing == AOT_MISSING_ERROR) {
		rt_report(&rt->out, RT_ERROR, "probe %s: %s", attach_name(p), reason);
		rt_report(&rt->out, RT_HINT, "--missing-probes=warn skips it");
		return -ENOENT;
	}
	if (rt->opts->missing == AOT_MISSING_WARN)
		rt_report(&rt->out, RT_WARN, "probe %s: %s, skipped", attach_name(p), reason);
	bpf_program__set_autoload(pp->prog, false);
	pp->strategy = PROBE_MISSING;
	return 0;
}

int rt_prepare(struct rt *rt)
{
	struct rt_plan *pl = &rt->plan;
	int err;

	err = rt_plan_init(pl, rt->meta, rt->obj, false);
	for (uint32_t i = 0; !err && i < pl->n; i++) {
		struct probe_err perr = { 0 };

		err = rt_plan_resolve(pl, i, &perr);
		if (err) {
			rt_report(&rt->out, RT_ERROR, "probe %s: %s", attach_name(pl->v[i].probe),
				  perr.msg);
			if (perr.hint[0])
				rt_report(&rt->out, RT_HINT, "%s", perr.hint);
		} else if (pl->v[i].strategy == PROBE_MISSING)
			err = attach_missing(rt, &pl->v[i], pl->v[i].why);
	}
	rt_plan_resolved(pl);
	return err;
}

static double attach_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void rt_progress_start(struct rt_progress *p, const struct output *out, const char *verb,
		       const char *noun)
{
	p->out = out;
	p->verb = verb;
	p->noun = noun;
	p->start = attach_now();
	p->next = p->start + 1.0;
}

/*
 * Loading copies and attaching can take long (a trampoline per fentry function, seconds under
 * emulation): past the first second, a line on stderr each second says how far it got.
 */
void rt_progress(struct rt_progress *p, uint32_t done, uint32_t total)
{
	double now = attach_now();

	if (now < p->next)
		return;
	rt_report(p->out, RT_TEXT, "%s: %u of %u %s (%.1f s)\n", p->verb, done, total, p->noun,
		  now - p->start);
	p->next = now + 1.0;
}

/* What a multi probe's attach leaves out, reported as the run's warnings are. */
static void attach_warn(void *ctx, const char *fmt, va_list ap)
{
	rt_vreport(ctx, RT_WARN, fmt, ap);
}

/* Attaches one probe as its plan says. 0, or -errno once reported. */
static int attach_one(struct rt *rt, uint32_t i)
{
	struct probe_plan *pp = &rt->plan.v[i];
	const struct aot_probe *p = pp->probe;
	struct probe_err perr = { 0 };
	size_t multi = rt->links.multi_targets;
	int err;

	if (!pp->type->attach) {
		rt_report(&rt->out, RT_ERROR, "probe %s: probe type '%s' cannot attach",
			  attach_name(p), pp->type->name);
		return -EOPNOTSUPP;
	}
	if (pp->strategy == PROBE_CLONE || pp->strategy == PROBE_TRACING_MULTI)
		err = rt_clone_attach(rt, i, &perr);
	else
		err = pp->type->attach(pp, &rt->links, &perr);
	/*
	 * "Attached N probes" counts a multi probe's targets, as bpftrace counts its probes, and
	 * a session's twice: its entry and its return probe (an fsession's one function is no
	 * multi target).
	 */
	multi = rt->links.multi_targets - multi;
	if (!err && pp->strategy == PROBE_SESSION)
		rt->nattached += 2 * (multi ? multi : 1);
	else if (!err)
		rt->nattached +=
			pp->strategy == PROBE_MULTI || pp->strategy == PROBE_FALLBACK ? multi : 1;
	/*
	 * A kprobe's function is only looked up here: missing, the kernel says ENOENT. A
	 * uprobe's binary must exist; a function it lacks is missing (perr.missing).
	 */
	if (err == -ENOENT && (!(pp->type->builtins & PB_USER) || perr.missing) &&
	    rt->opts->missing != AOT_MISSING_ERROR) {
		attach_missing(rt, pp, perr.msg);
		return 0;
	}
	if (err) {
		rt_report(&rt->out, RT_ERROR, "could not attach probe %s: %s", attach_name(p),
			  perr.msg[0] ? perr.msg : strerror(err < 0 ? -err : err));
		if (perr.hint[0])
			rt_report(&rt->out, RT_HINT, "%s", perr.hint);
		return err < 0 ? err : -err;
	}
	return 0;
}

/*
 * Probes run in script order on an event they share, as in bpftrace: the probes of types the
 * kernel runs oldest first are attached first to last, then those it runs newest first (struct
 * probe_plan.newest_first) last to first.
 */
int rt_attach(struct rt *rt)
{
	struct rt_plan *pl = &rt->plan;
	struct rt_progress progress;
	uint32_t done = 0;
	int err;

	rt_progress_start(&progress, &rt->out, "attaching", "probes");
	rt->links.verbose = rt->opts->verbose;
	rt->links.pid = rt->opts->pid;
	rt->links.warn = attach_warn;
	rt->links.warn_ctx = &rt->out;
	rt->links.names_map = bpf_object__find_map_by_name(rt->obj, AOT_PROBE_NAMES_MAP);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < pl->n; k++) {
			uint32_t i = pass ? pl->n - 1 - k : k;
			struct probe_plan *pp = &pl->v[i];

			/* BEGIN and END are run by rt_run_flagged(), not attached; test: and bench:
			 * not here. */
			if (pp->strategy == PROBE_RUN_ONCE && !pass &&
			    !(pp->flags & (AOT_PROBE_TEST | AOT_PROBE_BENCH)))
				rt->nattached++;
			if (pp->strategy == PROBE_MISSING || pp->strategy == PROBE_RUN_ONCE ||
			    pp->strategy == PROBE_IN_SESSION || pp->strategy == PROBE_NO_SESSION ||
			    pp->newest_first != (pass == 1))
				continue;
			/* Ctrl-C: what is attached so far is released on the way out. */
			if (atomic_load(&rt->interrupted))
				return 0;
			rt_progress(&progress, done++, pl->n);
			err = attach_one(rt, i);
			if (err)
				return err;
		}
	}
	return 0;
}

bool rt_has_flagged(const struct rt *rt, uint32_t flag)
{
	for (uint32_t i = 0; i < rt->plan.n; i++)
		if (rt->plan.v[i].strategy == PROBE_RUN_ONCE && (rt->plan.v[i].flags & flag))
			return true;
	return false;
}

/* The input of an XDP program's test run: the kernel wants at least an Ethernet header. */
#define ATTACH_XDP_DATA 14

int rt_run_probe(struct rt *rt, const struct probe_plan *pp, uint32_t repeat,
		 struct rt_test_run *res)
{
	char data[ATTACH_XDP_DATA] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	int err;

	/* test: and bench: are XDP programs (test_bench.c); a raw_tp's run takes no data. */
	if (pp->flags & (AOT_PROBE_TEST | AOT_PROBE_BENCH)) {
		topts.data_in = data;
		topts.data_size_in = sizeof(data);
		topts.repeat = repeat;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(pp->prog), &topts);
	if (err) {
		err = -errno;
		rt_report(&rt->out, RT_ERROR, "could not run probe %s: %s", attach_name(pp->probe),
			  strerror(-err));
		return err;
	}
	if (res) {
		res->retval = topts.retval;
		res->duration_ns = topts.duration;
	}
	return 0;
}

int rt_run_flagged(struct rt *rt, uint32_t flag)
{
	const struct rt_plan *pl = &rt->plan;
	int err;

	for (uint32_t i = 0; i < pl->n; i++) {
		const struct probe_plan *pp = &pl->v[i];

		if (pp->strategy != PROBE_RUN_ONCE || !(pp->flags & flag))
			continue;
		err = rt_run_probe(rt, pp, 1, NULL);
		if (err)
			return err;
	}
	return 0;
}

void rt_detach(struct rt *rt)
{
	probe_links_destroy(&rt->links);
	rt_clone_close(rt);
}
