// SPDX-License-Identifier: GPL-2.0
/*
 * Attach: each probe of the metadata goes to its probe type's attach callback. BEGIN and END
 * have none: they are SEC("raw_tp") programs with no target, run once with BPF_PROG_TEST_RUN
 * and a zero-size context, which executes them in our own process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "arena.h"
#include "probe.h"
#include "rt.h"

static const char *attach_name(const struct aot_probe *p)
{
	return p->name ? p->name : p->prog;
}

/* The program and probe type of a probe, or an error already reported. */
static int attach_lookup(struct rt *rt, const struct aot_probe *p, struct bpf_program **prog,
			 const struct probe_type **pt)
{
	*prog = bpf_object__find_program_by_name(rt->obj, p->prog);
	if (!*prog) {
		fprintf(stderr, "ERROR: probe %s: no program '%s' in the object\n", attach_name(p),
			p->prog);
		return -ENOENT;
	}
	*pt = probe_type_find(p->type);
	if (!*pt) {
		fprintf(stderr, "ERROR: probe %s: unknown probe type '%s'\n", attach_name(p),
			p->type);
		return -ENOENT;
	}
	return 0;
}

/*
 * Whether a probe's target (or a multi probe's pattern) exists on this kernel, asked of its
 * probe type the way the compiler expanded it: 1 yes, 0 no, -errno when it cannot tell (the
 * attach then says what is wrong).
 */
static int attach_target_exists(struct probe_env **env, const struct probe_type *pt,
				const struct aot_probe *p)
{
	struct probe_err perr = { 0 };
	struct arena *a;
	char **targets;
	size_t n = 0;
	int ret;

	/*
	 * Kernel targets only: a user binary's functions are not the kernel's to lack (and its
	 * symbol table would be read once per probe).
	 */
	if (!pt->has_target || !pt->match || !p->target || !*p->target || (pt->builtins & PB_USER))
		return 1;
	if (!*env && !(*env = probe_env__new()))
		return -ENOMEM;
	a = arena_new();
	if (!a)
		return -ENOMEM;
	ret = pt->match(*env, a, p->target, &targets, &n, &perr);
	arena_free(a);
	return ret < 0 ? ret : n > 0;
}

/*
 * A probe whose target is missing here (compiled elsewhere, or a function the kernel cannot
 * trace): an error, or skipped. why: the probe type's reason, or NULL.
 */
static int attach_missing(struct rt *rt, uint32_t i, struct bpf_program *prog, const char *why)
{
	const struct aot_probe *p = &rt->meta->probes[i];
	char reason[256], msg[512];

	if (why && *why)
		snprintf(reason, sizeof(reason), "%s", why);
	else
		snprintf(reason, sizeof(reason), "no such %s on this kernel", p->type);
	if (rt->opts->missing == AOT_MISSING_ERROR) {
		fprintf(stderr, "ERROR: probe %s: %s\n", attach_name(p), reason);
		fprintf(stderr, "HINT: --missing-probes=warn skips it\n");
		return -ENOENT;
	}
	if (rt->opts->missing == AOT_MISSING_WARN) {
		snprintf(msg, sizeof(msg), "probe %s: %s, skipped", attach_name(p), reason);
		rt->out.ops->warning(&rt->out, msg);
	}
	bpf_program__set_autoload(prog, false);
	rt->skipped[i] = true;
	rt->nskipped++;
	return 0;
}

int rt_prepare(struct rt *rt)
{
	const struct probe_type *pt;
	struct bpf_program *prog;
	struct probe_env *env = NULL;
	int err = 0;

	rt->skipped = calloc(rt->meta->nprobes ? rt->meta->nprobes : 1, sizeof(*rt->skipped));
	if (!rt->skipped)
		return -ENOMEM;
	for (uint32_t i = 0; i < rt->meta->nprobes; i++) {
		const struct aot_probe *p = &rt->meta->probes[i];
		struct probe_err perr = { 0 };

		err = attach_lookup(rt, p, &prog, &pt);
		if (err)
			break;
		if (attach_target_exists(&env, pt, p) == 0) {
			err = attach_missing(rt, i, prog, NULL);
			if (err)
				break;
			continue;
		}
		if (!pt->prepare)
			continue;
		err = pt->prepare(prog, p, &perr);
		if (err) {
			fprintf(stderr, "ERROR: probe %s: %s\n", attach_name(p),
				perr.msg[0] ? perr.msg : strerror(-err));
			break;
		}
	}
	probe_env__free(env);
	return err;
}

static double attach_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void rt_progress_start(struct rt_progress *p, const char *verb, const char *noun)
{
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
	fprintf(stderr, "%s: %u of %u %s (%.1f s)\n", p->verb, done, total, p->noun,
		now - p->start);
	p->next = now + 1.0;
}

int rt_attach(struct rt *rt)
{
	const struct aot_meta *m = rt->meta;
	struct rt_progress progress;
	const struct probe_type *pt;
	struct bpf_program *prog;
	uint32_t i;
	int err;

	rt_progress_start(&progress, "attaching", "probes");
	rt->links.verbose = rt->opts->verbose;
	rt->links.no_warnings = rt->opts->no_warnings;
	rt->links.pid = rt->opts->pid;
	rt->links.names_map = bpf_object__find_map_by_name(rt->obj, AOT_PROBE_NAMES_MAP);
	for (i = 0; i < m->nprobes; i++) {
		const struct aot_probe *p = &m->probes[i];
		struct probe_err perr = { 0 };

		if (rt->skipped && rt->skipped[i])
			continue;
		/* Ctrl-C while attaching: what is attached so far is released on the way out. */
		if (atomic_load(&rt->interrupted))
			return 0;

		err = attach_lookup(rt, p, &prog, &pt);
		if (err)
			return err;
		if (!pt->attach) {
			if ((p->flags | pt->flags) & (AOT_PROBE_BEGIN | AOT_PROBE_END))
				continue; /* run by rt_run_flagged() */
			fprintf(stderr, "ERROR: probe %s: probe type '%s' cannot attach\n",
				attach_name(p), pt->name);
			return -EOPNOTSUPP;
		}
		rt_progress(&progress, i, m->nprobes);
		err = rt_clone_attach(rt, i, &perr);
		if (err == 1)
			err = pt->attach(prog, p, &rt->links, &perr);
		/* A kprobe's function is only looked up here: missing, the kernel says ENOENT. */
		if (err == -ENOENT && !(pt->builtins & PB_USER) &&
		    rt->opts->missing != AOT_MISSING_ERROR) {
			attach_missing(rt, i, prog, perr.msg);
			continue;
		}
		if (err) {
			fprintf(stderr, "ERROR: could not attach probe %s: %s\n", attach_name(p),
				perr.msg[0] ? perr.msg : strerror(err < 0 ? -err : err));
			if (perr.hint[0])
				fprintf(stderr, "HINT: %s\n", perr.hint);
			return err < 0 ? err : -err;
		}
	}
	return 0;
}

int rt_run_flagged(struct rt *rt, uint32_t flag)
{
	const struct probe_type *pt;
	struct bpf_program *prog;
	uint32_t i;
	int err;

	for (i = 0; i < rt->meta->nprobes; i++) {
		const struct aot_probe *p = &rt->meta->probes[i];
		LIBBPF_OPTS(bpf_test_run_opts, topts);

		if (rt->skipped && rt->skipped[i])
			continue;
		err = attach_lookup(rt, p, &prog, &pt);
		if (err)
			return err;
		if (pt->attach || !((p->flags | pt->flags) & flag))
			continue;
		err = bpf_prog_test_run_opts(bpf_program__fd(prog), &topts);
		if (err) {
			err = -errno;
			fprintf(stderr, "ERROR: could not run probe %s: %s\n", attach_name(p),
				strerror(-err));
			return err;
		}
	}
	return 0;
}

void rt_detach(struct rt *rt)
{
	probe_links_destroy(&rt->links);
	rt_clone_close(rt);
	free(rt->skipped);
	rt->skipped = NULL;
}
