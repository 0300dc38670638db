// SPDX-License-Identifier: GPL-2.0
/*
 * The attach plan: once the object is open and before it is loaded, each probe of the metadata
 * is resolved once into its probe type, program, strategy and targets on this kernel (struct
 * probe_plan). Prepare, attach, BEGIN/END and --explain read the plan; none works it out again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "arena.h"
#include "kmods.h"
#include "probe.h"
#include "rt.h"
#include "tracing_multi.h"

static int plan_prog_cmp(const void *x, const void *y)
{
	return strcmp(bpf_program__name(*(struct bpf_program *const *)x),
		      bpf_program__name(*(struct bpf_program *const *)y));
}

static int plan_prog_name_cmp(const void *name, const void *prog)
{
	return strcmp(name, bpf_program__name(*(struct bpf_program *const *)prog));
}

static struct bpf_program *plan_find_prog(const struct rt_plan *pl, const char *name)
{
	struct bpf_program **hit =
		bsearch(name, pl->progs, pl->nprogs, sizeof(*pl->progs), plan_prog_name_cmp);

	return hit ? *hit : NULL;
}

int rt_plan_init(struct rt_plan *pl, const struct aot_meta *m, struct bpf_object *obj,
		 bool list_all)
{
	struct bpf_program *prog;

	memset(pl, 0, sizeof(*pl));
	pl->v = calloc(m->nprobes ? m->nprobes : 1, sizeof(*pl->v));
	pl->a = arena_new();
	bpf_object__for_each_program(prog, obj) pl->nprogs++;
	pl->progs = calloc(pl->nprogs ? pl->nprogs : 1, sizeof(*pl->progs));
	if (!pl->v || !pl->a || !pl->progs) {
		rt_plan_free(pl);
		return -ENOMEM;
	}
	pl->nprogs = 0;
	bpf_object__for_each_program(prog, obj) pl->progs[pl->nprogs++] = prog;
	qsort(pl->progs, pl->nprogs, sizeof(*pl->progs), plan_prog_cmp);
	pl->n = m->nprobes;
	pl->obj = obj;
	pl->list_all = list_all;
	for (uint32_t i = 0; i < pl->n; i++)
		pl->v[i] = (struct probe_plan){ .probe = &m->probes[i], .ntargets = -1 };
	return 0;
}

/*
 * Whether the plan lists a probe's targets. A run lists the kernel's, to find the probes this
 * kernel lacks (--missing-probes) and to hand a multi kprobe its functions; a user binary's
 * functions are not the kernel's to lack (and its symbol table would be read once per probe).
 * --explain lists every probe's, to count them.
 */
static bool plan_lists(const struct rt_plan *pl, const struct probe_plan *pp)
{
	const struct probe_type *pt = pp->type;
	const char *target = pp->probe->target;

	if (!pt->has_target || !pt->match || !target)
		return false;
	return pl->list_all || (*target && !(pt->builtins & PB_USER));
}

/* The targets of a probe on this kernel, by its probe type's match, as the compiler found them. */
static void plan_targets(struct rt_plan *pl, struct probe_plan *pp)
{
	struct probe_err perr = { 0 };
	char **targets;
	size_t n = 0;
	int ret;

	if (!pp->type->has_target) {
		pp->ntargets = 1;
		return;
	}
	if (!plan_lists(pl, pp))
		return;
	if (!pl->env)
		pl->env = probe_env__new();
	ret = pl->env ? pp->type->match(pl->env, pl->a, pp->probe->target, &targets, &n, &perr)
		      : -ENOMEM;
	if (ret < 0) {
		/* Attaching lists them again, and says what is wrong. */
		pp->why = arena_strdup(pl->a, perr.msg[0] ? perr.msg : strerror(-ret));
		return;
	}
	pp->targets = targets;
	pp->ntargets = (long)n;
	/* Why nothing matched, when the probe type knows (a kprobe function not traceable here). */
	if (!n && perr.msg[0])
		pp->why = arena_strdup(pl->a, perr.msg);
}

static bool plan_session_member_ok(const struct probe_plan *pp)
{
	return pp->strategy == PROBE_MULTI || pp->strategy == PROBE_FALLBACK ||
	       pp->strategy == PROBE_SINGLE;
}

/*
 * The members of session program i: the entry and return probes on its pattern, before it in
 * the metadata (session.c adds it after them), that no session has taken yet.
 */
static bool plan_session_members(struct rt_plan *pl, uint32_t i, struct probe_plan **entry,
				 struct probe_plan **ret)
{
	const struct probe_plan *sp = &pl->v[i];

	*entry = *ret = NULL;
	for (uint32_t j = 0; j < i; j++) {
		struct probe_plan *pp = &pl->v[j];
		const struct aot_probe *p = pp->probe;

		if (!(p->flags & AOT_PROBE_IN_SESSION) || !pp->type || !p->target ||
		    strcmp(p->target, sp->probe->target) || pp->strategy == PROBE_IN_SESSION)
			continue;
		if (!*entry && pp->type == sp->type)
			*entry = pp;
		else if (!*ret && !strcmp(pp->type->name, sp->type->session_return))
			*ret = pp;
	}
	/*
	 * Members with nothing to attach here (missing, broken) have no session either; an
	 * fsession's are one function's each (PROBE_SINGLE).
	 */
	return *entry && *ret && plan_session_member_ok(*entry) && plan_session_member_ok(*ret);
}

/*
 * A session program: one link where the kernel has session links, its members then left
 * unloaded (PROBE_IN_SESSION); else it is left unloaded and its members attach as they are.
 */
static int plan_session(struct rt_plan *pl, uint32_t i, struct probe_err *err)
{
	struct probe_plan *pp = &pl->v[i], *entry, *ret;
	int e;

	if (!plan_session_members(pl, i, &entry, &ret)) {
		pp->strategy = PROBE_NO_SESSION;
		bpf_program__set_autoload(pp->prog, false);
		return 0;
	}
	/* Its pattern's targets, as the entry's plan listed them. */
	pp->targets = entry->targets;
	pp->ntargets = entry->ntargets;
	pp->why = entry->why;
	pp->newest_first = pp->type->newest_first;
	if (!pl->env)
		pl->env = probe_env__new();
	if (!pl->env)
		return -ENOMEM;
	e = probe_session_prepare(pl->env, pp, probe_session_kfunc_args(bpf_object__btf(pl->obj)),
				  err);
	if (e || pp->strategy != PROBE_SESSION)
		return e;
	entry->strategy = ret->strategy = PROBE_IN_SESSION;
	bpf_program__set_autoload(entry->prog, false);
	bpf_program__set_autoload(ret->prog, false);
	return 0;
}

/*
 * An alias group reading no argument is one tracing multi program where the kernel makes such
 * links (tried once per plan); loading or linking may still fall back to clones (clone.c).
 * AOTRACE_MULTI_LINKS=0 asks for clones, as it asks kprobes for a link per function.
 */
static bool plan_tracing_multi(struct rt_plan *pl, const struct probe_plan *pp)
{
	const char *env = getenv("AOTRACE_MULTI_LINKS");

	char mod[64];
	const char *func;

	/* a module's function is an id of its module's BTF: a clone of its own (kmods.h) */
	if (!(pp->probe->flags & AOT_PROBE_NO_ARGS) || (env && !strcmp(env, "0")) ||
	    !probe_tracing_multi_type(bpf_program__expected_attach_type(pp->prog)) ||
	    (pp->probe->target && probe_kmod_target(pp->probe->target, mod, sizeof(mod), &func)))
		return false;
	if (!pl->env)
		pl->env = probe_env__new();
	return pl->env && probe_tracing_multi_supported(pl->env);
}

int rt_plan_resolve(struct rt_plan *pl, uint32_t i, struct probe_err *err)
{
	struct probe_plan *pp = &pl->v[i];
	const struct aot_probe *p = pp->probe;
	int ret;

	pp->strategy = PROBE_BROKEN;
	pp->prog = plan_find_prog(pl, p->prog);
	pp->type = probe_type_find(p->type);
	if (!pp->prog) {
		snprintf(err->msg, sizeof(err->msg), "no program '%s' in the object", p->prog);
		return -ENOENT;
	}
	if (!pp->type) {
		snprintf(err->msg, sizeof(err->msg), "unknown probe type '%s'", p->type);
		return -ENOENT;
	}
	pp->flags = p->flags | pp->type->flags;
	if (pp->flags & AOT_PROBE_RUN_BY_RUNTIME) {
		pp->strategy = PROBE_RUN_ONCE;
		pp->ntargets = 1;
		return 0;
	}
	if (p->flags & AOT_PROBE_SESSION)
		return plan_session(pl, i, err);
	plan_targets(pl, pp);
	if (pp->ntargets == 0) {
		pp->strategy = PROBE_MISSING;
		return 0;
	}
	if (p->flags & AOT_PROBE_ALIAS)
		pp->strategy = plan_tracing_multi(pl, pp) ? PROBE_TRACING_MULTI : PROBE_CLONE;
	else if (p->flags & AOT_PROBE_MULTI)
		pp->strategy = PROBE_MULTI; /* prepare may fall back to a link per target */
	else
		pp->strategy = PROBE_SINGLE;
	pp->newest_first = pp->type->newest_first;
	if (!pp->type->prepare)
		return 0;
	if (!pl->env)
		pl->env = probe_env__new();
	if (!pl->env)
		return -ENOMEM;
	ret = pp->type->prepare(pl->env, pp, err);
	if (ret && !err->msg[0])
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(-ret));
	return ret;
}

void rt_plan_resolved(struct rt_plan *pl)
{
	probe_env__free(pl->env);
	pl->env = NULL;
}

void rt_plan_free(struct rt_plan *pl)
{
	rt_plan_resolved(pl);
	/* the programs kfunc:bpf: probes attach to, held since prepare (probe.h) */
	for (uint32_t i = 0; pl->v && i < pl->n; i++)
		if (pl->v[i].attach_prog_fd > 0)
			close(pl->v[i].attach_prog_fd);
	arena_free(pl->a);
	free(pl->v);
	free(pl->progs);
	memset(pl, 0, sizeof(*pl));
}
