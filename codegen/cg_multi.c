// SPDX-License-Identifier: GPL-2.0
/*
 * Multi programs: one program serves every target of a wildcard, so `probe` cannot be a constant.
 * The runtime gives each target an attach cookie unique in the run and writes the target's name
 * into a hash map at that cookie before attaching; the program looks its own name up.
 */
#include <string.h>

#include "arena.h"
#include "cg_internal.h"
#include "meta.h"

#define CG_H_GET_ATTACH_COOKIE 174

static bool cg_has_multi(const struct program *prog)
{
	for (struct node *p = prog->root->body; p; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		for (struct node *ap = p->args; ap; ap = ap->next)
			for (uint32_t i = 0; i < ap->nmatches; i++)
				if (ap->matches[i].is_multi)
					return true;
	}
	return false;
}

void cg_multi_define(struct cg *cg)
{
	struct type key = { .kind = TYPE_INT, .size = 8 };
	struct type name = { .kind = TYPE_STR, .size = AOT_PROBE_NAME_MAX };
	struct cg_mapdef def;
	uint32_t targets = 0;

	if (!cg_has_multi(cg->prog))
		return;
	/* Room for every target known now, and for hosts where the pattern matches more. */
	for (struct node *p = cg->prog->root->body; p; p = p->next)
		for (struct node *ap = p->kind == NODE_PROBE ? p->args : NULL; ap; ap = ap->next)
			for (uint32_t i = 0; i < ap->nmatches; i++)
				targets += ap->matches[i].ntargets;
	def = (struct cg_mapdef){
		.type = CG_MAP_HASH,
		.max_entries = targets * 2 + 1024,
		.key = cg_di_type(cg, &key, "aot_probe_id"),
		.value = cg_di_type(cg, &name, "aot_probe_name"),
	};
	cg_map_global(cg, AOT_PROBE_NAMES_MAP, &def);
}

LLVMValueRef cg_multi_probe_name(struct cg *cg, struct node *n)
{
	LLVMValueRef map = LLVMGetNamedGlobal(cg->mod, AOT_PROBE_NAMES_MAP);
	LLVMValueRef key = cg_alloca(cg, 8, "probe.id");
	LLVMValueRef buf = cg_alloca_zero(cg, n->type.size, "probe.name");
	LLVMValueRef args[2] = { cg->ctxp };
	LLVMValueRef cookie, p, found;
	LLVMBasicBlockRef copy = cg_block(cg, "probe.found"), done = cg_block(cg, "probe.done");

	cookie = cg_helper(cg, CG_H_GET_ATTACH_COOKIE, cg->t_i64, args, 1);
	/* A session's one cookie per target names its entry; the return's name is beside it. */
	if (cg->session_return)
		cookie = LLVMBuildOr(cg->b, cookie,
				     LLVMConstInt(cg->t_i64, AOT_PROBE_NAME_RETURN, 0), "");
	LLVMBuildStore(cg->b, cookie, key);
	args[0] = map;
	args[1] = key;
	p = cg_helper(cg, CG_H_MAP_LOOKUP, cg->t_ptr, args, 2);
	found = LLVMBuildICmp(cg->b, LLVMIntNE, p, LLVMConstNull(cg->t_ptr), "");
	LLVMBuildCondBr(cg->b, found, copy, done);
	LLVMPositionBuilderAtEnd(cg->b, copy);
	/* Map values are 8-byte aligned: word copies, not a byte-by-byte unrolled loop. */
	cg_memcpy(cg, buf, 8, p, 8,
		  n->type.size < AOT_PROBE_NAME_MAX ? n->type.size : AOT_PROBE_NAME_MAX);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
	return buf;
}
