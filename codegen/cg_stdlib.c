// SPDX-License-Identifier: GPL-2.0
/*
 * The emitters of the standard library bpftrace 0.18 to 0.27 added (src/sema_stdlib.c checks
 * them): jiffies, has_key, strlen, assert, ncpus, cpid, has_cpid.
 */
#include <stddef.h>

#include "cg_internal.h"
#include "meta.h"

LLVMValueRef cg_bi_jiffies(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_helper(cg, CG_H_JIFFIES64, cg->t_i64, NULL, 0);
}

/*
 * usermode in a probe with registers (sema folded the others): 1 when the code segment's
 * privilege bits in the interrupted registers are 3, user mode (x86-64's struct pt_regs: cs is
 * its 18th u64, at the start of a perf event's context too).
 */
LLVMValueRef cg_bi_usermode(struct cg *cg, struct node *n)
{
	LLVMValueRef cs = LLVMBuildLoad2(cg->b, cg->t_i64, cg_gep(cg, cg->ctxp, 17 * 8), "cs");

	(void)n;
	LLVMSetAlignment(cs, 8);
	cs = LLVMBuildAnd(cg->b, cs, cg_i64(cg, 3), "");
	return LLVMBuildZExt(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, cs, cg_i64(cg, 3), ""),
			     cg->t_i64, "usermode");
}

/* ncpus: the possible CPUs the runtime wrote into the run's struct aot_state. */
LLVMValueRef cg_bi_ncpus(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_state_load(cg, offsetof(struct aot_state, ncpus), "ncpus");
}

LLVMValueRef cg_bi_has_cpid(struct cg *cg, struct node *n)
{
	LLVMValueRef cpid = cg_state_load(cg, offsetof(struct aot_state, cpid), "cpid");

	(void)n;
	return LLVMBuildZExt(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, cpid, cg_i64(cg, 0), ""),
			     cg->t_i64, "has_cpid");
}

/* cpid: -c's child, or 0 and a warning of the call site (its format is n->idx) without one. */
LLVMValueRef cg_bi_cpid(struct cg *cg, struct node *n)
{
	LLVMValueRef cpid = cg_state_load(cg, offsetof(struct aot_state, cpid), "cpid");

	cg_fmt_event_if_zero(cg, n, cpid);
	return cpid;
}

/* is_err(p): 1 if p, as an int64, is a kernel error code (-4095 to -1), as IS_ERR() says. */
LLVMValueRef cg_fn_is_err(struct cg *cg, struct node *n)
{
	LLVMValueRef v = cg_expr(cg, n->args);

	if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind)
		v = LLVMBuildPtrToInt(cg->b, v, cg->t_i64, "");
	return LLVMBuildZExt(
		cg->b,
		LLVMBuildAnd(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, v, cg_i64(cg, 0), ""),
			     LLVMBuildICmp(cg->b, LLVMIntSGE, v, cg_i64(cg, (uint64_t)-4095), ""),
			     ""),
		cg->t_i64, "is_err");
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

/* The address of a value's bytes: a buffer's own, or a stack copy of a scalar. */
static LLVMValueRef cg_memcmp_bytes(struct cg *cg, struct node *a)
{
	LLVMValueRef v = cg_expr(cg, a), p;

	if (cg_type_is_buf(&a->type))
		return v;
	p = cg_alloca(cg, 8, "memcmp.arg");
	cg_store(cg, p, &a->type, 8, v, &a->type);
	return p;
}

/*
 * memcmp(l, r, count): the difference of the first bytes that differ (as signed chars), 0 if
 * the first count bytes are the same. Unrolled over the n->idx bytes it may compare (only
 * count's, when count is a literal): a branch per byte, as strlen() has.
 */
LLVMValueRef cg_fn_memcmp(struct cg *cg, struct node *n)
{
	struct node *count = n->args->next->next;
	LLVMValueRef lp = cg_memcmp_bytes(cg, n->args), rp = cg_memcmp_bytes(cg, n->args->next);
	LLVMValueRef c = cg_expr(cg, count), res, lb, rb, zero = cg_i64(cg, 0), dl, dr;
	LLVMBasicBlockRef join = cg_block(cg, "memcmp.join"),
			  differ = cg_block(cg, "memcmp.differ");
	LLVMBasicBlockRef here = LLVMGetInsertBlock(cg->b), next;
	bool literal = LLVMIsConstant(c);
	uint64_t size = n->idx;

	if (literal && LLVMConstIntGetZExtValue(c) < size)
		size = LLVMConstIntGetZExtValue(c);
	LLVMPositionBuilderAtEnd(cg->b, join);
	res = LLVMBuildPhi(cg->b, cg->t_i64, "memcmp");
	LLVMPositionBuilderAtEnd(cg->b, differ);
	dl = LLVMBuildPhi(cg->b, cg->t_i8, "l");
	dr = LLVMBuildPhi(cg->b, cg->t_i8, "r");
	LLVMPositionBuilderAtEnd(cg->b, here);
	for (uint64_t i = 0; i < size; i++) {
		if (!literal) { /* past count: the same */
			next = cg_block(cg, "memcmp.in");
			LLVMBuildCondBr(cg->b,
					LLVMBuildICmp(cg->b, LLVMIntUGE, cg_i64(cg, i), c, ""),
					join, next);
			LLVMAddIncoming(res, &zero, &here, 1);
			LLVMPositionBuilderAtEnd(cg->b, next);
			here = next;
		}
		lb = LLVMBuildLoad2(cg->b, cg->t_i8, cg_gep(cg, lp, i), "");
		rb = LLVMBuildLoad2(cg->b, cg->t_i8, cg_gep(cg, rp, i), "");
		next = cg_block(cg, "memcmp.byte");
		LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, lb, rb, ""), differ, next);
		LLVMAddIncoming(dl, &lb, &here, 1);
		LLVMAddIncoming(dr, &rb, &here, 1);
		LLVMPositionBuilderAtEnd(cg->b, next);
		here = next;
	}
	LLVMBuildBr(cg->b, join);
	LLVMAddIncoming(res, &zero, &here, 1);
	LLVMPositionBuilderAtEnd(cg->b, differ);
	if (!size) { /* nothing to compare: differ has no way in */
		LLVMBuildUnreachable(cg->b);
	} else {
		LLVMValueRef d = LLVMBuildSub(cg->b, LLVMBuildSExt(cg->b, dl, cg->t_i64, ""),
					      LLVMBuildSExt(cg->b, dr, cg->t_i64, ""), "");

		LLVMBuildBr(cg->b, join);
		LLVMAddIncoming(res, &d, &differ, 1);
	}
	LLVMPositionBuilderAtEnd(cg->b, join);
	return res;
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
