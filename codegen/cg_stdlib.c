// SPDX-License-Identifier: GPL-2.0
/*
 * The emitters of the standard library bpftrace 0.18 to 0.27 added (src/sema_stdlib.c checks
 * them): jiffies, has_key, strlen, assert.
 */
#include "cg_internal.h"

LLVMValueRef cg_bi_jiffies(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_helper(cg, CG_H_JIFFIES64, cg->t_i64, NULL, 0);
}

/* has_key(@m, k): 1 if the lookup of the element finds it. */
LLVMValueRef cg_fn_has_key(struct cg *cg, struct node *n)
{
	struct node *m = n->lhs; /* @m[k], made by sema */
	LLVMValueRef p = cg_map_lookup(cg, cg_map_ref(cg, m->map), cg_map_key(cg, m));

	return LLVMBuildZExt(cg->b,
			     LLVMBuildICmp(cg->b, LLVMIntNE, p, LLVMConstNull(cg->t_ptr), ""),
			     cg->t_i64, "has_key");
}

/*
 * strlen(s): the bytes before the first NUL, or the buffer's size if it has none. Unrolled
 * over the buffer, each byte a branch to the end: the verifier sees one path per length,
 * where a branchless sum (which LLVM turns into diamonds) gave it one per combination.
 */
LLVMValueRef cg_fn_strlen(struct cg *cg, struct node *n)
{
	struct node *s = n->args;
	uint32_t size = s->type.size;
	LLVMValueRef p = cg_expr(cg, s), phi, len, z8 = LLVMConstInt(cg->t_i8, 0, 0);
	LLVMBasicBlockRef join = cg_block(cg, "strlen.join"), here = LLVMGetInsertBlock(cg->b);

	LLVMPositionBuilderAtEnd(cg->b, join);
	phi = LLVMBuildPhi(cg->b, cg->t_i64, "strlen");
	LLVMPositionBuilderAtEnd(cg->b, here);
	for (uint32_t i = 0; i < size; i++) {
		LLVMValueRef c = LLVMBuildLoad2(cg->b, cg->t_i8, cg_gep(cg, p, i), "");
		LLVMBasicBlockRef next = cg_block(cg, "strlen.byte");

		LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, c, z8, ""), join, next);
		len = cg_i64(cg, i);
		LLVMAddIncoming(phi, &len, &here, 1);
		LLVMPositionBuilderAtEnd(cg->b, next);
		here = next;
	}
	len = cg_i64(cg, size); /* no NUL in the buffer */
	LLVMBuildBr(cg->b, join);
	LLVMAddIncoming(phi, &len, &here, 1);
	LLVMPositionBuilderAtEnd(cg->b, join);
	return phi;
}

/* assert(cond, msg): when cond is 0, errorf's event with msg, then exit(1)'s. */
LLVMValueRef cg_fn_assert(struct cg *cg, struct node *n)
{
	LLVMBasicBlockRef failed = cg_block(cg, "assert.failed"), ok = cg_block(cg, "assert.ok");
	struct node one = { .kind = NODE_INT, .num = 1, .type = { .kind = TYPE_INT, .size = 8 } };
	struct node exit = { .kind = NODE_CALL, .func = FN_EXIT, .args = &one, .loc = n->loc };

	LLVMBuildCondBr(cg->b, cg_cond(cg, n->args), ok, failed);
	LLVMPositionBuilderAtEnd(cg->b, failed);
	cg_fmt_event(cg, n, n->args->next);
	cg_fn_exit(cg, &exit);
	LLVMBuildBr(cg->b, ok);
	LLVMPositionBuilderAtEnd(cg->b, ok);
	return cg_i64(cg, 0);
}

LLVMValueRef cg_fn_nothing(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_i64(cg, 0);
}
