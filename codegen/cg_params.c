// SPDX-License-Identifier: GPL-2.0
/*
 * Positional parameters of an object compiled for later (--emit-elf): $N and $# are reads from
 * AOT_PARAMS_MAP, which the runtime fills from the command line of the host that runs it
 * (layout in src/common/meta.h). Compiled to run at once, they are constants (cg_expr.c).
 */
#include <stddef.h>

#include "cg_internal.h"
#include "meta.h"

/* The map, made on first use: programs without $N carry none. */
static LLVMValueRef cg_params_map(struct cg *cg)
{
	LLVMValueRef map = LLVMGetNamedGlobal(cg->mod, AOT_PARAMS_MAP);
	struct type elems[2] = {
		{ .kind = TYPE_INT, .size = 8 },
		{ .kind = TYPE_STR, .size = AOT_PARAM_STR_MAX },
	};
	uint32_t offsets[2] = { offsetof(struct aot_param, num), offsetof(struct aot_param, str) };
	struct type slot = { .kind = TYPE_TUPLE,
			     .size = sizeof(struct aot_param),
			     .nelems = 2,
			     .elems = elems,
			     .offsets = offsets };
	struct cg_mapdef def = {
		.type = CG_MAP_ARRAY,
		.max_entries = cg->prog->meta->nparams + 1,
		.key = cg_di_int(cg, 4, false),
		.value = cg_di_type(cg, &slot, "aot_param"),
	};

	return map ? map : cg_map_global(cg, AOT_PARAMS_MAP, &def);
}

LLVMValueRef cg_params_read(struct cg *cg, struct node *n)
{
	uint32_t slot = n->is_count ? 0 : (uint32_t)n->num;
	LLVMValueRef key = cg_alloca(cg, 4, "param.key"), p, found, res;
	LLVMBasicBlockRef hit = cg_block(cg, "param.hit"), done = cg_block(cg, "param.done");
	bool is_str = n->type.kind == TYPE_STR;

	LLVMSetAlignment(LLVMBuildStore(cg->b, cg_i32(cg, slot), key), 4);
	p = cg_map_lookup(cg, cg_params_map(cg), key);
	/* A missing slot (cannot happen: the array has them all) reads as 0 or "". */
	res = is_str ? cg_alloca_zero(cg, n->type.size, "param.str")
		     : cg_alloca_zero(cg, 8, "param.num");
	found = LLVMBuildICmp(cg->b, LLVMIntNE, p, LLVMConstNull(cg->t_ptr), "");
	LLVMBuildCondBr(cg->b, found, hit, done);
	LLVMPositionBuilderAtEnd(cg->b, hit);
	if (is_str) {
		uint32_t size = n->type.size < AOT_PARAM_STR_MAX ? n->type.size : AOT_PARAM_STR_MAX;

		cg_memcpy(cg, res, 8, cg_gep(cg, p, offsetof(struct aot_param, str)), 8, size);
	} else {
		cg_memcpy(cg, res, 8, p, 8, 8);
	}
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
	if (is_str)
		return res;
	return LLVMBuildLoad2(cg->b, cg->t_i64, res, "param");
}
