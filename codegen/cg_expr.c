// SPDX-License-Identifier: GPL-2.0
/*
 * Expressions: each AST expression becomes an i64 (INT, BOOL) or a pointer to a stack buffer
 * (STR, TUPLE), following the types sema annotated; builtins and calls go to their rows'
 * emitters. The buffers and typed memory they use are in cg_mem.c, helper calls in cg_helpers.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cg_core.h"
#include "cg_internal.h"
#include "ctypes.h"
#include "meta.h"
#include "probe.h"

LLVMValueRef cg_i64(struct cg *cg, uint64_t v)
{
	return LLVMConstInt(cg->t_i64, v, false);
}

LLVMValueRef cg_i32(struct cg *cg, uint32_t v)
{
	return LLVMConstInt(cg->t_i32, v, false);
}

bool cg_type_is_buf(const struct type *t)
{
	return t->kind == TYPE_STR || t->kind == TYPE_TUPLE || t->kind == TYPE_BUF ||
	       t->kind == TYPE_RECORD || t->kind == TYPE_ARRAY;
}

/* BPF cpu v3 has no signed division: divide magnitudes and fix the sign. */
static LLVMValueRef cg_sdivrem(struct cg *cg, LLVMValueRef l, LLVMValueRef r, bool is_rem)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef zero = cg_i64(cg, 0);
	LLVMValueRef nl = LLVMBuildICmp(b, LLVMIntSLT, l, zero, "");
	LLVMValueRef nr = LLVMBuildICmp(b, LLVMIntSLT, r, zero, "");
	LLVMValueRef ul = LLVMBuildSelect(b, nl, LLVMBuildNeg(b, l, ""), l, "");
	LLVMValueRef ur = LLVMBuildSelect(b, nr, LLVMBuildNeg(b, r, ""), r, "");
	LLVMValueRef q, neg;

	if (is_rem) {
		q = LLVMBuildURem(b, ul, ur, "");
		neg = nl;
	} else {
		q = LLVMBuildUDiv(b, ul, ur, "");
		neg = LLVMBuildXor(b, nl, nr, "");
	}
	return LLVMBuildSelect(b, neg, LLVMBuildNeg(b, q, ""), q, "");
}

/*
 * Division by zero yields 0. Dividing by zero is undefined in LLVM IR (the BPF instruction
 * would give 0), so divide by 1 instead and select 0 afterwards.
 */
static LLVMValueRef cg_divrem(struct cg *cg, LLVMValueRef l, LLVMValueRef r, bool is_rem,
			      bool is_signed)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef rz = LLVMBuildICmp(b, LLVMIntEQ, r, cg_i64(cg, 0), "divzero");
	LLVMValueRef r1 = LLVMBuildSelect(b, rz, cg_i64(cg, 1), r, "");
	LLVMValueRef v;

	if (is_signed)
		v = cg_sdivrem(cg, l, r1, is_rem);
	else
		v = is_rem ? LLVMBuildURem(b, l, r1, "") : LLVMBuildUDiv(b, l, r1, "");
	/* 1, as bpftrace 0.27 (which warns: cg_divzero_warn) */
	return LLVMBuildSelect(b, rz, cg_i64(cg, 1), v, "");
}

void cg_divzero_warn(struct cg *cg, struct node *n, LLVMValueRef r)
{
	if (n->divzero)
		cg_fmt_event_if_zero(cg, n, r);
}

LLVMValueRef cg_arith(struct cg *cg, int op, LLVMValueRef l, LLVMValueRef r, bool is_signed)
{
	LLVMBuilderRef b = cg->b;

	switch (op) {
	case '+':
		return LLVMBuildAdd(b, l, r, "");
	case '-':
		return LLVMBuildSub(b, l, r, "");
	case '*':
		return LLVMBuildMul(b, l, r, "");
	case '/':
		return cg_divrem(cg, l, r, false, is_signed);
	case '%':
		return cg_divrem(cg, l, r, true, is_signed);
	case '&':
		return LLVMBuildAnd(b, l, r, "");
	case '|':
		return LLVMBuildOr(b, l, r, "");
	case '^':
		return LLVMBuildXor(b, l, r, "");
	case OP_SHL:
		/* a shift by 64 or more is poison in LLVM; BPF masks the amount the same way */
		return LLVMBuildShl(b, l, LLVMBuildAnd(b, r, cg_i64(cg, 63), ""), "");
	case OP_SHR:
		r = LLVMBuildAnd(b, r, cg_i64(cg, 63), "");
		return is_signed ? LLVMBuildAShr(b, l, r, "") : LLVMBuildLShr(b, l, r, "");
	default:
		return NULL;
	}
}

/* Byte by byte up to the shorter buffer, stopping at the first NUL: strings end there. */
static LLVMValueRef cg_str_eq(struct cg *cg, LLVMValueRef a, uint32_t sa, LLVMValueRef bp,
			      uint32_t sb)
{
	uint32_t n = sa < sb ? sa : sb;
	LLVMBasicBlockRef cur = LLVMGetInsertBlock(cg->b), join = cg_block(cg, "streq.join"), next;
	LLVMValueRef phi, t = LLVMConstInt(cg->t_i1, 1, false), f = LLVMConstInt(cg->t_i1, 0, 0);
	LLVMValueRef ca, cb;

	LLVMPositionBuilderAtEnd(cg->b, join);
	phi = LLVMBuildPhi(cg->b, cg->t_i1, "streq");
	LLVMPositionBuilderAtEnd(cg->b, cur);
	for (uint32_t i = 0; i < n; i++) {
		ca = LLVMBuildLoad2(cg->b, cg->t_i8, cg_gep(cg, a, i), "");
		cb = LLVMBuildLoad2(cg->b, cg->t_i8, cg_gep(cg, bp, i), "");
		next = cg_block(cg, "streq.nul");
		LLVMAddIncoming(phi, &f, (LLVMBasicBlockRef[]){ LLVMGetInsertBlock(cg->b) }, 1);
		LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, ca, cb, ""), next, join);
		LLVMPositionBuilderAtEnd(cg->b, next);
		next = cg_block(cg, "streq.next");
		LLVMAddIncoming(phi, &t, (LLVMBasicBlockRef[]){ LLVMGetInsertBlock(cg->b) }, 1);
		LLVMBuildCondBr(
			cg->b,
			LLVMBuildICmp(cg->b, LLVMIntEQ, ca, LLVMConstInt(cg->t_i8, 0, 0), ""), join,
			next);
		LLVMPositionBuilderAtEnd(cg->b, next);
	}
	LLVMAddIncoming(phi, &t, (LLVMBasicBlockRef[]){ LLVMGetInsertBlock(cg->b) }, 1);
	LLVMBuildBr(cg->b, join);
	LLVMMoveBasicBlockAfter(join, LLVMGetInsertBlock(cg->b));
	LLVMPositionBuilderAtEnd(cg->b, join);
	return phi;
}

LLVMValueRef cg_bytes_eq(struct cg *cg, LLVMValueRef a, LLVMValueRef bp, uint32_t n)
{
	uint32_t off = 0;
	LLVMValueRef eq = LLVMConstInt(cg->t_i1, 1, false);

	while (off < n) {
		uint32_t chunk = 8;
		LLVMTypeRef ty;
		LLVMValueRef va, vb;

		while (chunk > n - off || cg_align_at(8, off) < chunk)
			chunk /= 2;
		ty = LLVMIntTypeInContext(cg->ctx, chunk * 8);
		va = LLVMBuildLoad2(cg->b, ty, cg_gep(cg, a, off), "");
		vb = LLVMBuildLoad2(cg->b, ty, cg_gep(cg, bp, off), "");
		LLVMSetAlignment(va, chunk);
		LLVMSetAlignment(vb, chunk);
		eq = LLVMBuildAnd(cg->b, eq, LLVMBuildICmp(cg->b, LLVMIntEQ, va, vb, ""), "");
		off += chunk;
	}
	return eq;
}

/*
 * Two buf() values: their lengths and bytes. The bytes past a length are zero (cg_fn_buf clears
 * the whole value first), so equal lengths leave nothing to compare past the shorter room.
 */
static LLVMValueRef cg_buf_eq(struct cg *cg, LLVMValueRef a, uint32_t sa, LLVMValueRef bp,
			      uint32_t sb)
{
	return cg_bytes_eq(cg, a, bp, sa < sb ? sa : sb);
}

static LLVMValueRef cg_zext(struct cg *cg, LLVMValueRef i1)
{
	return LLVMBuildZExt(cg->b, i1, cg->t_i64, "");
}

static LLVMValueRef cg_compare(struct cg *cg, struct node *n)
{
	const struct type *lt = &n->lhs->type, *rt = &n->rhs->type;
	bool is_signed = type_int_signed64(lt) && type_int_signed64(rt);
	LLVMValueRef l = cg_expr(cg, n->lhs), r = cg_expr(cg, n->rhs), eq;
	LLVMIntPredicate pred;

	if (lt->kind == TYPE_BUF && rt->kind == TYPE_BUF && (n->op == OP_EQ || n->op == OP_NE)) {
		eq = cg_buf_eq(cg, l, lt->size, r, rt->size);
		if (n->op == OP_NE)
			eq = LLVMBuildNot(cg->b, eq, "");
		return cg_zext(cg, eq);
	}
	if (lt->kind == TYPE_STR || rt->kind == TYPE_STR) {
		if (lt->kind != rt->kind || (n->op != OP_EQ && n->op != OP_NE)) {
			cg_error(cg, n->loc, NULL,
				 "strings compare only with == and != to strings");
			return cg_i64(cg, 0);
		}
		eq = cg_str_eq(cg, l, lt->size, r, rt->size);
		if (n->op == OP_NE)
			eq = LLVMBuildNot(cg->b, eq, "");
		return cg_zext(cg, eq);
	}
	switch (n->op) {
	case OP_EQ:
		pred = LLVMIntEQ;
		break;
	case OP_NE:
		pred = LLVMIntNE;
		break;
	case '<':
		pred = is_signed ? LLVMIntSLT : LLVMIntULT;
		break;
	case '>':
		pred = is_signed ? LLVMIntSGT : LLVMIntUGT;
		break;
	case OP_LE:
		pred = is_signed ? LLVMIntSLE : LLVMIntULE;
		break;
	default:
		pred = is_signed ? LLVMIntSGE : LLVMIntUGE;
		break;
	}
	return cg_zext(cg, LLVMBuildICmp(cg->b, pred, l, r, ""));
}

/* a && b, a || b: b runs only when a does not decide. */
static LLVMValueRef cg_logical(struct cg *cg, struct node *n)
{
	bool is_and = n->op == OP_AND;
	LLVMBasicBlockRef rhs_bb = cg_block(cg, is_and ? "and.rhs" : "or.rhs");
	LLVMBasicBlockRef join = cg_block(cg, is_and ? "and.join" : "or.join");
	LLVMValueRef l = cg_cond(cg, n->lhs), r, phi, vals[2];
	LLVMBasicBlockRef from[2];

	from[0] = LLVMGetInsertBlock(cg->b);
	if (is_and)
		LLVMBuildCondBr(cg->b, l, rhs_bb, join);
	else
		LLVMBuildCondBr(cg->b, l, join, rhs_bb);
	LLVMMoveBasicBlockAfter(rhs_bb, from[0]);
	LLVMPositionBuilderAtEnd(cg->b, rhs_bb);
	r = cg_cond(cg, n->rhs);
	from[1] = LLVMGetInsertBlock(cg->b);
	LLVMBuildBr(cg->b, join);
	LLVMMoveBasicBlockAfter(join, from[1]);
	LLVMPositionBuilderAtEnd(cg->b, join);
	phi = LLVMBuildPhi(cg->b, cg->t_i1, "");
	vals[0] = LLVMConstInt(cg->t_i1, !is_and, false);
	vals[1] = r;
	LLVMAddIncoming(phi, vals, from, 2);
	return cg_zext(cg, phi);
}

static LLVMValueRef cg_binop(struct cg *cg, struct node *n)
{
	LLVMValueRef l, r, v;

	switch (n->op) {
	case OP_AND:
	case OP_OR:
		return cg_logical(cg, n);
	case OP_EQ:
	case OP_NE:
	case OP_LE:
	case OP_GE:
	case '<':
	case '>':
		return cg_compare(cg, n);
	default:
		break;
	}
	if (cg_type_is_buf(&n->lhs->type) || cg_type_is_buf(&n->rhs->type)) {
		cg_error(cg, n->loc, NULL, "arithmetic needs integer operands");
		return cg_i64(cg, 0);
	}
	l = cg_expr(cg, n->lhs);
	r = cg_expr(cg, n->rhs);
	cg_divzero_warn(cg, n, r);
	v = cg_arith(cg, n->op, l, r, n->type.is_signed);
	if (!v) {
		cg_error(cg, n->loc, NULL, "operator not supported yet");
		return cg_i64(cg, 0);
	}
	return cg_int_norm(cg, v, &n->type);
}

/* x++, ++x, x--, --x on a variable or map: the old value for post forms. */
static LLVMValueRef cg_incdec(struct cg *cg, struct node *n)
{
	struct node *lv = n->lhs;
	LLVMValueRef old, new, key = NULL;

	if (lv->kind != NODE_VAR && lv->kind != NODE_MAP) {
		cg_error(cg, n->loc, NULL, "++ and -- need a variable or a map");
		return cg_i64(cg, 0);
	}
	if (lv->kind == NODE_MAP)
		key = cg_map_key(cg, lv); /* once: its expressions run once */
	old = key ? cg_map_read_at(cg, lv, key) : cg_expr(cg, lv);
	/* a pointer (sema_record_ptr_incdec) moves by the size of what it points at */
	new = cg_arith(cg, n->op == OP_INC ? '+' : '-', old,
		       cg_i64(cg, lv->type.kind == TYPE_PTR ? n->num : 1), false);
	if (key)
		cg_map_write_at(cg, lv, key, new, &lv->type);
	else
		cg_store(cg, cg_var_ptr(cg, lv), &lv->var->type, 8, new, &lv->type);
	if (n->is_post || lv->type.kind == TYPE_PTR)
		return n->is_post ? old : new;
	return cg_int_norm(cg, new, &lv->type);
}

static LLVMValueRef cg_unop(struct cg *cg, struct node *n)
{
	LLVMValueRef v;

	if (n->op == OP_INC || n->op == OP_DEC)
		return cg_incdec(cg, n);
	if (n->op == '*' || n->op == '&')
		return cg_core_unop(cg, n);
	if (cg_type_is_buf(&n->lhs->type)) {
		cg_error(cg, n->loc, NULL, "operator needs an integer operand");
		return cg_i64(cg, 0);
	}
	v = cg_expr(cg, n->lhs);
	switch (n->op) {
	case '-':
		return cg_int_norm(cg, LLVMBuildNeg(cg->b, v, ""), &n->type);
	case '~':
		return cg_int_norm(cg, LLVMBuildNot(cg->b, v, ""), &n->type);
	case '!':
		return cg_zext(cg, LLVMBuildICmp(cg->b, LLVMIntEQ, v, cg_i64(cg, 0), ""));
	default:
		cg_error(cg, n->loc, NULL, "operator not supported yet");
		return cg_i64(cg, 0);
	}
}

/* c ? a : b; c ?: b, where c is evaluated once and is the value when true; if expressions */
static LLVMValueRef cg_ternary(struct cg *cg, struct node *n)
{
	LLVMBasicBlockRef then_bb = cg_block(cg, "tern.then"), else_bb = cg_block(cg, "tern.else");
	LLVMBasicBlockRef join = cg_block(cg, "tern.join"), from[2];
	bool is_buf = cg_type_is_buf(&n->type);
	LLVMValueRef c, cv = NULL, res = NULL, vals[2], phi;

	if (n->lhs) {
		c = cg_cond(cg, n->cond);
	} else {
		cv = cg_expr(cg, n->cond);
		c = LLVMBuildICmp(cg->b, LLVMIntNE, cv, cg_i64(cg, 0), "cond");
	}
	if (is_buf)
		res = cg_alloca(cg, n->type.size, "tern");
	LLVMBuildCondBr(cg->b, c, then_bb, else_bb);
	for (int i = 0; i < 2; i++) {
		struct node *e = i ? n->rhs : n->lhs ? n->lhs : n->cond;

		LLVMPositionBuilderAtEnd(cg->b, i ? else_bb : then_bb);
		vals[i] = i || n->lhs ? cg_expr(cg, e) : cg_int_norm(cg, cv, &n->type);
		if (is_buf)
			cg_store(cg, res, &n->type, 8, vals[i], &e->type);
		from[i] = LLVMGetInsertBlock(cg->b);
		LLVMBuildBr(cg->b, join);
	}
	LLVMMoveBasicBlockAfter(join, from[1]);
	LLVMPositionBuilderAtEnd(cg->b, join);
	if (is_buf)
		return res;
	phi = LLVMBuildPhi(cg->b, cg->t_i64, "");
	LLVMAddIncoming(phi, vals, from, 2);
	return phi;
}

static LLVMValueRef cg_tuple(struct cg *cg, struct node *n)
{
	const struct type *t = &n->type;
	LLVMValueRef buf = cg_alloca_zero(cg, t->size, "tuple"), v;
	uint32_t i = 0;

	if (n->reordered && t->nelems <= AOT_META_MAX_TUPLE) {
		/* a record put in the held order: its values still run in the order written */
		LLVMValueRef vals[AOT_META_MAX_TUPLE];
		struct node *at[AOT_META_MAX_TUPLE];

		for (struct node *a = n->args; a && i < t->nelems; a = a->next)
			at[i++] = a;
		for (uint32_t w = 0; w < i; w++)
			for (uint32_t k = 0; k < i; k++)
				if (at[k]->written == w)
					vals[k] = cg_expr(cg, at[k]);
		for (uint32_t k = 0; k < i; k++)
			cg_store(cg, cg_gep(cg, buf, t->offsets[k]), &t->elems[k],
				 cg_align_at(8, t->offsets[k]), vals[k], &at[k]->type);
		return buf;
	}
	for (struct node *a = n->args; a && i < t->nelems; a = a->next, i++) {
		v = cg_expr(cg, a);
		cg_store(cg, cg_gep(cg, buf, t->offsets[i]), &t->elems[i],
			 cg_align_at(8, t->offsets[i]), v, &a->type);
	}
	return buf;
}

/* Positional parameters are constants, unless the object is compiled for later (cg_params.c). */
static LLVMValueRef cg_posparam(struct cg *cg, struct node *n)
{
	const char *s = "";

	if (cg->prog->opts->emit_elf)
		return cg_params_read(cg, n);
	if (n->is_count)
		return cg_i64(cg, (uint64_t)cg->prog->opts->nparams);
	if (n->num >= 1 && n->num <= (uint64_t)cg->prog->opts->nparams)
		s = cg->prog->opts->params[n->num - 1];
	if (n->type.kind == TYPE_STR)
		return cg_str_lit(cg, s, strlen(s), n->type.size);
	return cg_i64(cg, (uint64_t)strtoll(s, NULL, 0));
}

/* args->name: a load from the context at the offset this match's tracepoint has. */
static LLVMValueRef cg_args_field(struct cg *cg, struct node *n)
{
	const struct probe_arg *arg = cg_probe_arg(cg, n);
	LLVMValueRef p, dl, off, buf, args[3];

	if (!arg) {
		cg_error(cg, n->loc, NULL, "%s has no argument '%s'",
			 cg->match ? cg->match->name : "this probe", n->name);
		return cg_type_is_buf(&n->type) ? cg_alloca_zero(cg, n->type.size, "")
						: cg_i64(cg, 0);
	}
	if (arg->loc != PROBE_ARG_CTX)
		return cg_usdt_arg(cg, arg, n);
	p = cg_gep(cg, cg->ctxp, arg->offset);
	if (!arg->is_dataloc && !cg_type_is_buf(&arg->type))
		return cg_load(cg, p, &arg->type, cg_align_at(8, arg->offset));
	if (!arg->is_dataloc) {
		/*
		 * Copied out with a helper, not a memcpy: the backend turns a memcpy into loads
		 * from one ctx + offset register it may share between uses (if (args->comm !=
		 * "") { print(args->comm) }), and the verifier refuses loads from a moved ctx
		 * pointer ("dereference of modified ctx ptr").
		 */
		buf = cg_alloca(cg, arg->type.size, "ctxbuf");
		args[0] = buf;
		args[1] = cg_i32(cg, arg->type.size);
		args[2] = p;
		cg_helper(cg, CG_H_PROBE_READ_KERNEL, cg->t_i64, args, 3);
		return buf;
	}
	/* __data_loc: a u32 (len << 16 | offset), the bytes at ctx + offset */
	dl = LLVMBuildLoad2(cg->b, cg->t_i32, p, "dataloc");
	LLVMSetAlignment(dl, 4);
	off = LLVMBuildAnd(cg->b, LLVMBuildZExt(cg->b, dl, cg->t_i64, ""), cg_i64(cg, 0xffff), "");
	buf = cg_alloca_zero(cg, n->type.size, "dataloc.str");
	args[0] = buf;
	args[1] = cg_i64(cg, n->type.size);
	args[2] = LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, cg->ctxp, &off, 1, "");
	cg_helper(cg, CG_H_PROBE_READ_KERNEL_STR, cg->t_i64, args, 3);
	return buf;
}

/*
 * A member of a struct value of ours ($x.a.b, @m[k].a: copied out of the kernel already): its
 * bytes are in our buffer, read with plain loads.
 */
static LLVMValueRef cg_value_field(struct cg *cg, struct node *n)
{
	struct node *root = n;
	uint32_t off = 0;

	for (; root->kind == NODE_FIELD && !root->is_arrow; root = root->lhs)
		for (uint32_t i = 0; i < root->npath; i++)
			off += root->mpath[i]->off;
	if (n->npath && n->mpath[n->npath - 1]->bit_size)
		return cg_core_value_bitfield(cg, cg_gep(cg, cg_expr(cg, root), off),
					      n->mpath[n->npath - 1]);
	return cg_load(cg, cg_gep(cg, cg_expr(cg, root), off), &n->type, 1);
}

/* Whether the record n names lives in our memory (a variable, a map value) or the kernel's. */
static bool cg_is_value_record(const struct node *n)
{
	while (n->kind == NODE_FIELD && !n->is_arrow)
		n = n->lhs;
	return n->type.kind == TYPE_RECORD && n->kind != NODE_FIELD && n->kind != NODE_UNOP &&
	       n->kind != NODE_INDEX;
}

static LLVMValueRef cg_field(struct cg *cg, struct node *n)
{
	if (n->lhs && n->lhs->kind == NODE_BUILTIN && n->lhs->func == FN_ARGS)
		return cg_args_field(cg, n);
	if (n->lhs && n->lhs->type.kind == TYPE_TUPLE)
		return cg_tuple_field(cg, n);
	if (n->lhs && !n->is_arrow && cg_is_value_record(n->lhs))
		return cg_value_field(cg, n);
	return cg_core_read(cg, n);
}

/*
 * $s[i] on a string or an array of ours: element i, 0 past the end (the index is checked where
 * it is not a constant, so the verifier sees every access in bounds).
 */
static LLVMValueRef cg_value_index(struct cg *cg, struct node *n)
{
	LLVMValueRef s = cg_expr(cg, n->lhs), i = cg_expr(cg, n->rhs), in, p, v, res;
	LLVMBasicBlockRef read, join, from;
	const struct type *lt = &n->lhs->type;
	uint32_t esize = n->type.kind == TYPE_BOOL ? 1 : n->type.size;
	uint32_t count = lt->kind == TYPE_ARRAY ? lt->nelems : lt->size;

	if (LLVMIsAConstantInt(i)) {
		uint64_t k = LLVMConstIntGetZExtValue(i);

		if (k >= count)
			return cg_i64(cg, 0);
		return cg_load(cg, cg_gep(cg, s, k * esize), &n->type, cg_align_at(8, k * esize));
	}
	read = cg_block(cg, "idx.read");
	join = cg_block(cg, "idx.join");
	res = cg_alloca(cg, 8, "idx");
	LLVMBuildStore(cg->b, cg_i64(cg, 0), res);
	in = LLVMBuildICmp(cg->b, LLVMIntULT, i, cg_i64(cg, count), "inbounds");
	from = LLVMGetInsertBlock(cg->b);
	LLVMBuildCondBr(cg->b, in, read, join);
	LLVMMoveBasicBlockAfter(read, from);
	LLVMPositionBuilderAtEnd(cg->b, read);
	i = LLVMBuildMul(cg->b, i, cg_i64(cg, esize), "");
	p = LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, s, &i, 1, "");
	v = cg_load(cg, p, &n->type, esize <= 8 ? esize : 1);
	LLVMBuildStore(cg->b, v, res);
	LLVMBuildBr(cg->b, join);
	LLVMMoveBasicBlockAfter(join, read);
	LLVMPositionBuilderAtEnd(cg->b, join);
	return LLVMBuildLoad2(cg->b, cg->t_i64, res, "");
}

/* { stmts; value }: the statements, then the value. */
static LLVMValueRef cg_block_value(struct cg *cg, struct node *n)
{
	cg_stmts(cg, n);
	if (!n->lhs)
		return cg_i64(cg, 0);
	return cg_expr(cg, n->lhs);
}

/* Sema makes every conversion explicit: widening strings and tuples, integer sizes, to bool. */
static LLVMValueRef cg_cast(struct cg *cg, struct node *n)
{
	const struct type *from = &n->lhs->type, *to = &n->type;
	LLVMValueRef v = cg_expr(cg, n->lhs), buf;

	/* an integer as an array of integers and back: its bytes, as they are in memory */
	if (to->kind == TYPE_ARRAY && !cg_type_is_buf(from)) {
		buf = cg_alloca(cg, to->size, "cast");
		cg_store(cg, buf, &(struct type){ .kind = TYPE_INT, .size = to->size }, 8, v, from);
		return buf;
	}
	if (from->kind == TYPE_ARRAY && !cg_type_is_buf(to))
		return cg_load(cg, v,
			       &(struct type){ .kind = TYPE_INT,
					       .size = from->size,
					       .is_signed = to->is_signed },
			       8);

	if (cg_type_is_buf(to) != cg_type_is_buf(from)) {
		cg_error(cg, n->loc, NULL, "this cast is not supported yet");
		return cg_type_is_buf(to) ? cg_alloca_zero(cg, to->size, "") : cg_i64(cg, 0);
	}
	if (cg_type_is_buf(to)) {
		buf = cg_alloca(cg, to->size, "cast");
		cg_store(cg, buf, to, 8, v, from);
		return buf;
	}
	if (to->kind == TYPE_BOOL)
		return cg_zext(cg, LLVMBuildICmp(cg->b, LLVMIntNE, v, cg_i64(cg, 0), ""));
	return cg_int_norm(cg, v, to);
}

/* A builtin or a call: the emitter of its row in src/funcs.c. */
static LLVMValueRef cg_func(struct cg *cg, struct node *n)
{
	const struct func_def *f = &func_defs[n->func];

	if (f->emit)
		return f->emit(cg, n);
	if (n->kind == NODE_BUILTIN)
		cg_error(cg, n->loc, NULL, "builtin %s is not supported yet", n->name);
	else if (f->flags & FUNC_AGG)
		cg_error(cg, n->loc, "assign it to a map: @name = count()",
			 "%s() is only a map's value", n->name);
	else
		cg_error(cg, n->loc, NULL, "%s() is not supported yet", n->name);
	return cg_type_is_buf(&n->type) ? cg_alloca_zero(cg, n->type.size, "") : cg_i64(cg, 0);
}

static LLVMValueRef cg_expr_node(struct cg *cg, struct node *n)
{
	switch (n->kind) {
	case NODE_INT:
	case NODE_BOOL:
		return cg_i64(cg, n->num);
	case NODE_NAMED:
		return cg_expr(cg, n->lhs);
	case NODE_BLOCK:
		return cg_block_value(cg, n);
	case NODE_STR:
		return cg_str_lit(cg, n->str, n->str_len, n->type.size);
	case NODE_BUILTIN:
		return cg_func(cg, n);
	case NODE_POSPARAM:
		return cg_posparam(cg, n);
	case NODE_VAR:
		return cg_load(cg, cg_var_ptr(cg, n), &n->var->type, 8);
	case NODE_MAP:
		return cg_map_read(cg, n);
	case NODE_CALL:
		return cg_func(cg, n);
	case NODE_BINOP:
		return cg_binop(cg, n);
	case NODE_UNOP:
		return cg_unop(cg, n);
	case NODE_TERNARY:
		return cg_ternary(cg, n);
	case NODE_FIELD:
		return cg_field(cg, n);
	case NODE_CAST:
		return cg_cast(cg, n);
	case NODE_TUPLE:
		return cg_tuple(cg, n);
	case NODE_INDEX:
		if (n->is_value ||
		    (n->lhs->type.kind == TYPE_ARRAY && !node_is_addressable(n->lhs)))
			return cg_value_index(cg, n);
		return cg_core_read(cg, n);
	default:
		cg_error(cg, n->loc, NULL, "%s expressions are not supported yet",
			 node_kind_name(n->kind));
		return cg_type_is_buf(&n->type) ? cg_alloca_zero(cg, n->type.size, "")
						: cg_i64(cg, 0);
	}
}

LLVMValueRef cg_expr(struct cg *cg, struct node *n)
{
	struct loc outer = cg->loc;
	LLVMValueRef v;

	if (n->loc.line)
		cg->loc = n->loc;
	v = cg_expr_node(cg, n);
	cg->loc = outer;
	return v;
}

LLVMValueRef cg_cond(struct cg *cg, struct node *n)
{
	LLVMValueRef v;

	if (cg_type_is_buf(&n->type)) {
		cg_error(cg, n->loc,
			 "compare it with == or !=", "a string or tuple is no condition");
		return LLVMConstInt(cg->t_i1, 0, false);
	}
	v = cg_expr(cg, n);
	return LLVMBuildICmp(cg->b, LLVMIntNE, v, cg_i64(cg, 0), "cond");
}

void cg_ret0_and_continue(struct cg *cg)
{
	cg_ret_and_continue(cg, NULL);
}

/*
 * The kernel runs an iterator's program once more after the last object, with none (ctx->task
 * NULL), and refuses arithmetic on a context pointer not checked for NULL: as in bpftrace, a
 * read of an iter probe's context that gives 0 ends the program (ctx->fd 0 too).
 */
void cg_iter_ctx_check(struct cg *cg, LLVMValueRef v)
{
	LLVMBasicBlockRef none, some;

	if (!cg->match || !(cg->match->pt->flags & AOT_PROBE_ITER))
		return;
	none = cg_block(cg, "iter.none");
	some = cg_block(cg, "iter.some");
	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, v, cg_i64(cg, 0), ""), none, some);
	LLVMPositionBuilderAtEnd(cg->b, none);
	cg_ret0_and_continue(cg);
	LLVMBuildBr(cg->b, some); /* from the dead block cg_ret0_and_continue leaves */
	LLVMPositionBuilderAtEnd(cg->b, some);
}

/*
 * Inside a for loop's callback the probe's return value waits in the frame's slot, with bit 32
 * set so that a return of 0 is seen too; the code after the loop returns its low 32 bits.
 */
void cg_ret_and_continue(struct cg *cg, LLVMValueRef v)
{
	LLVMValueRef v32 = v ? LLVMBuildIntCast2(cg->b, v, cg->t_i32, false, "ret") : cg_i32(cg, 0);

	if (cg->for_ret) {
		LLVMValueRef slot = LLVMBuildOr(cg->b, LLVMBuildZExt(cg->b, v32, cg->t_i64, ""),
						cg_i64(cg, 1ull << 32), "");

		LLVMBuildStore(cg->b, slot, cg->for_ret);
		LLVMBuildRet(cg->b, cg_i32(cg, 1)); /* 1 stops the iteration */
	} else {
		LLVMBuildRet(cg->b, v32);
	}
	LLVMPositionBuilderAtEnd(cg->b, cg_block(cg, "dead"));
}
