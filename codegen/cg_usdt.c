// SPDX-License-Identifier: GPL-2.0
/*
 * USDT arguments: each location of a probe describes its arguments in the ELF note
 * ("-4@%edi", "8@-8(%rbp)", "-4@$5"); probes/usdt.c turns them into probe_arg locations and
 * this file reads them from struct pt_regs, user memory or constants as 64-bit integers. The
 * stack arguments of uprobes and kprobes (sarg0..N, probes/regs.c) are such locations too.
 */
#include "cg_internal.h"

/* A value of |size| bytes in the low bits of v, widened to 64 bits by its sign. */
static LLVMValueRef cg_usdt_widen(struct cg *cg, LLVMValueRef v, int size)
{
	unsigned bytes = (unsigned)(size < 0 ? -size : size);
	LLVMValueRef t;

	if (!bytes || bytes >= 8)
		return v;
	t = LLVMBuildTrunc(cg->b, v, LLVMIntTypeInContext(cg->ctx, bytes * 8), "usdt.trunc");
	return size < 0 ? LLVMBuildSExt(cg->b, t, cg->t_i64, "")
			: LLVMBuildZExt(cg->b, t, cg->t_i64, "");
}

/* The 8-byte register at offset in struct pt_regs. */
static LLVMValueRef cg_usdt_reg(struct cg *cg, uint32_t offset)
{
	LLVMValueRef v = LLVMBuildLoad2(cg->b, cg->t_i64, cg_gep(cg, cg->ctxp, offset), "usdt.reg");

	LLVMSetAlignment(v, 8);
	return v;
}

/* |size| bytes of user (or kernel) memory at addr, zero-extended (0 where the read fails). */
static LLVMValueRef cg_usdt_mem(struct cg *cg, LLVMValueRef addr, int size, bool user)
{
	unsigned bytes = (unsigned)(size < 0 ? -size : size);
	LLVMValueRef buf = cg_alloca_zero(cg, 8, "usdt.mem"), args[3], v;

	if (!bytes || bytes > 8)
		bytes = 8;
	args[0] = buf;
	args[1] = cg_i32(cg, bytes);
	args[2] = LLVMBuildIntToPtr(cg->b, addr, cg->t_ptr, "");
	cg_helper(cg, user ? CG_H_PROBE_READ_USER : CG_H_PROBE_READ_KERNEL, cg->t_i64, args, 3);
	v = LLVMBuildLoad2(cg->b, cg->t_i64, buf, "");
	LLVMSetAlignment(v, 8);
	return v;
}

LLVMValueRef cg_usdt_arg(struct cg *cg, const struct probe_arg *arg, struct node *n)
{
	LLVMValueRef addr, bias;

	switch (arg->loc) {
	case PROBE_ARG_CONST:
		return cg_usdt_widen(cg, cg_i64(cg, (uint64_t)arg->loc_value), arg->loc_size);
	case PROBE_ARG_REG:
		return cg_usdt_widen(cg, cg_usdt_reg(cg, arg->offset), arg->loc_size);
	case PROBE_ARG_MEM:
	case PROBE_ARG_KMEM:
		addr = LLVMBuildAdd(cg->b, cg_usdt_reg(cg, arg->offset),
				    cg_i64(cg, (uint64_t)arg->loc_value), "usdt.addr");
		return cg_usdt_widen(
			cg, cg_usdt_mem(cg, addr, arg->loc_size, arg->loc == PROBE_ARG_MEM),
			arg->loc_size);
	case PROBE_ARG_PCREL:
		/*
		 * The load bias is page aligned, and the ip is the probe's address or one past
		 * it (after the breakpoint): rounding down removes the difference.
		 */
		bias = LLVMBuildSub(cg->b, cg_usdt_reg(cg, arg->offset), cg_i64(cg, arg->loc_pc),
				    "");
		bias = LLVMBuildAnd(cg->b, bias, cg_i64(cg, ~(uint64_t)0xfff), "usdt.bias");
		addr = LLVMBuildAdd(cg->b, bias, cg_i64(cg, (uint64_t)arg->loc_value), "usdt.addr");
		return cg_usdt_widen(cg, cg_usdt_mem(cg, addr, arg->loc_size, true), arg->loc_size);
	default:
		cg_error(cg, n->loc, "read it with uprobe and reg() instead",
			 "%s: aotrace cannot read the USDT argument %s", cg->match->name,
			 arg->decl);
		return cg_i64(cg, 0);
	}
}
