// SPDX-License-Identifier: GPL-2.0
/*
 * Alias expansion: the matches of a wildcard that compile to the same code share one function,
 * and every other match is an ELF symbol alias of it (LLVMAddAlias2), so the object stays small
 * however many functions match. The code of a kfunc body differs between matches only where it
 * reads args (each function has its own argument slots), so matches are grouped by the slots
 * the body reads. `probe` reads the attach cookie's name, as in multi programs.
 */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cg_internal.h"
#include "meta.h"

/* The argument slots a body reads, in the order it reads them: equal shapes, equal code. */
struct cg_shape {
	uint32_t *offs;
	uint32_t n, cap;
	bool unique; /* the body depends on the match some other way: never shared */
};

static void cg_shape_add(struct cg_shape *s, uint32_t off)
{
	if (s->n == s->cap) {
		uint32_t ncap = s->cap ? s->cap * 2 : 8;
		uint32_t *v = realloc(s->offs, ncap * sizeof(*v));

		if (!v) {
			s->unique = true;
			return;
		}
		s->offs = v;
		s->cap = ncap;
	}
	s->offs[s->n++] = off;
}

static void cg_shape_walk(const struct probe_match *m, const struct node *n, struct cg_shape *s)
{
	for (; n; n = n->next) {
		if (n->kind == NODE_FIELD && n->lhs && n->lhs->kind == NODE_BUILTIN &&
		    n->lhs->func == FN_ARGS) {
			bool hidden = func_defs[n->func].flags & FUNC_HIDDEN_ARG;
			const struct probe_arg *a = NULL;

			for (uint32_t i = 0; i < m->nargs && !a; i++)
				if (m->args[i].hidden == hidden &&
				    !strcmp(m->args[i].name, n->name))
					a = &m->args[i];
			if (a)
				cg_shape_add(s, a->offset);
			else
				s->unique = true;
			continue;
		}
		if (n->kind == NODE_BUILTIN && n->func == FN_ARGS)
			s->unique = true; /* args as a whole: its layout is the match's */
		cg_shape_walk(m, n->lhs, s);
		cg_shape_walk(m, n->rhs, s);
		cg_shape_walk(m, n->cond, s);
		cg_shape_walk(m, n->body, s);
		cg_shape_walk(m, n->else_body, s);
		cg_shape_walk(m, n->args, s);
	}
}

static bool cg_shape_equal(const struct cg_shape *a, const struct cg_shape *b)
{
	return !a->unique && !b->unique && a->n == b->n &&
	       (!a->n || !memcmp(a->offs, b->offs, a->n * sizeof(*a->offs)));
}

/*
 * Flags an alias group's member for the runtime. An alias gets a short symbol name, since its
 * name is written twice per match (symbol and metadata) and the kernel keeps only 15 bytes of
 * it anyway; expansion makes names of letters, digits and '_', so "a.N" cannot clash.
 */
static void cg_alias_flag(struct cg *cg, struct probe_match *m)
{
	struct aot_probe *p = &cg->prog->meta->probes[m->meta_idx];
	char *name;

	p->flags |= AOT_PROBE_ALIAS;
	if (!m->alias_of)
		return;
	name = strdup(arena_printf(cg->prog->arena, "a.%u", m->meta_idx));
	if (!name)
		return;
	free(p->prog);
	p->prog = name;
	m->func = arena_strdup(cg->prog->arena, name);
}

/* Groups the matches of one attach point: each match points at its group's first. */
static void cg_alias_group(struct cg *cg, const struct node *probe, struct node *ap)
{
	struct cg_shape *shapes = calloc(ap->nmatches, sizeof(*shapes));
	struct probe_match **leaders = calloc(ap->nmatches, sizeof(*leaders));
	uint32_t *sizes = calloc(ap->nmatches, sizeof(*sizes)), nleaders = 0;

	if (!shapes || !leaders || !sizes)
		goto out;
	for (uint32_t i = 0; i < ap->nmatches; i++) {
		struct probe_match *m = &ap->matches[i];
		uint32_t g;

		cg_shape_walk(m, probe->cond, &shapes[i]);
		cg_shape_walk(m, probe->body, &shapes[i]);
		for (g = 0; g < nleaders; g++)
			if (cg_shape_equal(&shapes[leaders[g] - ap->matches], &shapes[i]))
				break;
		if (g == nleaders)
			leaders[nleaders++] = m;
		else
			m->alias_of = leaders[g];
		sizes[g]++;
	}
	/*
	 * Every member of a group of two or more names itself by attach cookie (there is one
	 * function for all of them) and is flagged for the runtime, which clones it per target.
	 */
	for (uint32_t i = 0; i < ap->nmatches; i++) {
		struct probe_match *m = &ap->matches[i], *lead = m->alias_of ? m->alias_of : m;
		uint32_t g;

		for (g = 0; leaders[g] != lead; g++)
			;
		if (sizes[g] < 2)
			continue;
		m->is_multi = true;
		m->targets = &m->name;
		m->ntargets = 1;
		cg_alias_flag(cg, m);
	}
out:
	for (uint32_t i = 0; shapes && i < ap->nmatches; i++)
		free(shapes[i].offs);
	free(shapes);
	free(leaders);
	free(sizes);
}

void cg_alias_plan(struct cg *cg)
{
	for (struct node *p = cg->prog->root->body; p; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		for (struct node *ap = p->args; ap; ap = ap->next)
			if (ap->nmatches > 1 && ap->matches[0].alias_ok)
				cg_alias_group(cg, p, ap);
	}
}

void cg_alias_emit(struct cg *cg, const struct node *ap, const struct probe_match *lead)
{
	LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, lead->func);

	if (!fn)
		return;
	for (uint32_t i = 0; i < ap->nmatches; i++) {
		const struct probe_match *m = &ap->matches[i];
		LLVMValueRef alias;

		if (m->alias_of != lead)
			continue;
		alias = LLVMAddAlias2(cg->mod, LLVMGlobalGetValueType(fn), 0, fn, m->func);
		LLVMSetLinkage(alias, LLVMExternalLinkage);
	}
}
