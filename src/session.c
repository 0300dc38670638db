// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions, after probe expansion: an entry and a return probe on the same wildcard
 * (kprobe:vfs_* and kretprobe:vfs_*, uprobe:B:f* and uretprobe:B:f*), or on the same one
 * function of a type without multi programs (kfunc:F and kretfunc:F), get one more program that
 * serves both, for one session link where the kernel has them (kprobe 6.10, uprobe 6.13,
 * fsession 7.2). The two keep their own programs: the runtime loads those where it has no
 * session links.
 */
#include <errno.h>
#include <string.h>

#include "arena.h"
#include "frontend.h"
#include "meta.h"
#include "probe.h"

/*
 * Whether match i of ap may be half of a session: a multi program's, or the one match of an
 * attach point of a type that has no multi programs (a trampoline: an fsession is one function's).
 */
static bool session_candidate(const struct node *ap, uint32_t i)
{
	const struct probe_match *m = &ap->matches[i];

	return m->is_multi || (!m->pt->multi_section && ap->nmatches == 1);
}

/* The return probe on m's pattern that no session has yet, or NULL. */
static struct probe_match *session_find_return(struct program *prog, const struct probe_match *m,
					       struct node **probe)
{
	for (struct node *p = prog->root->body; p; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		for (struct node *ap = p->args; ap; ap = ap->next)
			for (uint32_t i = 0; i < ap->nmatches; i++) {
				struct probe_match *r = &ap->matches[i];

				if (!session_candidate(ap, i) || r->is_multi != m->is_multi ||
				    strcmp(r->pt->name, m->pt->session_return) ||
				    strcmp(r->target, m->target) || r->ntargets != m->ntargets ||
				    (prog->meta->probes[r->meta_idx].flags & AOT_PROBE_IN_SESSION))
					continue;
				*probe = p;
				return r;
			}
	}
	return NULL;
}

/*
 * The session program's section, as libbpf 1.5 and later name it: the entry's multi section
 * with "session" for "multi" (kprobe.session/vfs_*, uprobe.session/PATH:f*). An fsession keeps
 * the entry's "fentry/FUNC", by which libbpf 1.4 finds its function (it has no "fsession/"); the
 * runtime gives it its attach type.
 */
static char *session_section(struct arena *a, const char *multi)
{
	const char *dot = strstr(multi, ".multi/");

	if (!dot)
		return arena_strdup(a, multi);
	return arena_printf(a, "%.*s.session/%s", (int)(dot - multi), multi,
			    dot + strlen(".multi/"));
}

static int session_add(struct program *prog, struct node *ep, struct probe_match *e,
		       struct node *rp, struct probe_match *r, bool is_return_ctx)
{
	struct arena *a = prog->arena;
	struct session *s = arena_alloc(a, sizeof(*s)), **tail;
	struct aot_probe mp;
	int ret;

	if (!s)
		return -ENOMEM;
	*s = (struct session){ .entry_probe = ep,
			       .entry = e,
			       .return_probe = rp,
			       .ret = r,
			       .is_return_ctx = is_return_ctx };
	s->m = *e;
	s->m.name = arena_printf(a, "%s + %s", e->name, r->name);
	s->m.section = session_section(a, e->section);
	/* Probe programs are named after their type ("kprobe_vfs__"): no clash with these. */
	s->m.func = arena_printf(a, "session_%s", e->func);
	mp = (struct aot_probe){
		.prog = s->m.func,
		.type = (char *)e->pt->name,
		.target = e->target,
		.name = s->m.name,
		.flags = prog->meta->probes[e->meta_idx].flags | AOT_PROBE_SESSION,
	};
	ret = aot_meta_add_probe(prog->meta, &mp);
	if (ret < 0)
		return ret;
	s->m.meta_idx = (uint32_t)ret;
	prog->meta->probes[e->meta_idx].flags |= AOT_PROBE_IN_SESSION;
	prog->meta->probes[r->meta_idx].flags |= AOT_PROBE_IN_SESSION;
	for (tail = &prog->sessions; *tail; tail = &(*tail)->next)
		;
	*tail = s;
	return 0;
}

int session_pair(struct program *prog, struct probe_env *env)
{
	int args = -2; /* bpf_session_is_return's arguments here; -2: not looked up yet */

	/*
	 * An object for other hosts stays one that any libbpf loader runs as it is: a loader
	 * that knew the session section would attach both halves twice.
	 */
	if (prog->opts->no_session || prog->opts->emit_elf)
		return 0;
	for (struct node *p = prog->root->body; p; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		for (struct node *ap = p->args; ap; ap = ap->next)
			for (uint32_t i = 0; i < ap->nmatches; i++) {
				struct probe_match *e = &ap->matches[i], *r;
				struct node *rp = NULL;
				int ret;

				if (!session_candidate(ap, i) || !e->pt->session_return ||
				    (prog->meta->probes[e->meta_idx].flags & AOT_PROBE_IN_SESSION))
					continue;
				r = session_find_return(prog, e, &rp);
				if (!r)
					continue;
				/*
				 * Called as the kernel compiled for has it (no argument, or ctx);
				 * without it there are no sessions to run, nor to compile.
				 */
				if (args == -2)
					args = probe_session_kfunc_args(
						probe_env_vmlinux_btf(env, NULL));
				if (args < 0)
					return 0;
				ret = session_add(prog, p, e, rp, r, args == 1);
				if (ret)
					return ret;
			}
	}
	return 0;
}
