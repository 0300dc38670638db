// SPDX-License-Identifier: GPL-2.0
/*
 * Statements and program functions: every probe match becomes one function in its own ELF
 * section, taking the context pointer: scratch variables zeroed at entry, the predicate, the
 * body, return 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_internal.h"
#include "meta.h"
#include "probe.h"

static void cg_stmt(struct cg *cg, struct node *n);

void cg_stmts(struct cg *cg, struct node *block)
{
	for (struct node *s = block ? block->body : NULL; s; s = s->next)
		cg_stmt(cg, s);
}

static bool cg_is_agg_call(const struct node *n)
{
	return n && n->kind == NODE_CALL && (func_defs[n->func].flags & FUNC_AGG);
}

/* `lv = rhs`, `lv op= rhs`, `lv++`, `@m = count()` and the other aggregations. */
static void cg_assign(struct cg *cg, struct node *n)
{
	struct node *lv = n->lhs;
	const struct type *vt;
	LLVMValueRef v, cur, r, p, key = NULL;
	int op = n->op;

	if (lv->kind != NODE_VAR && lv->kind != NODE_MAP) {
		cg_error(cg, n->loc, NULL, "can only assign to a variable or a map");
		return;
	}
	if (cg_is_agg_call(n->rhs)) {
		if (lv->kind != NODE_MAP || op) {
			cg_error(cg, n->loc, NULL, "%s() can only be assigned to a map",
				 n->rhs->name);
			return;
		}
		cg_map_aggregate(cg, lv, n->rhs->args);
		return;
	}
	if (!op) {
		v = cg_expr(cg, n->rhs);
		vt = &n->rhs->type;
	} else {
		if (cg_type_is_buf(&lv->type)) {
			cg_error(cg, n->loc, NULL, "arithmetic assignment needs an integer");
			return;
		}
		/* the key once: @[rand] += 1 reads and writes one entry */
		if (lv->kind == NODE_MAP)
			key = cg_map_key(cg, lv);
		cur = key ? cg_map_read_at(cg, lv, key) : cg_expr(cg, lv);
		r = op == OP_INC || op == OP_DEC ? cg_i64(cg, 1) : cg_expr(cg, n->rhs);
		cg_divzero_warn(cg, n, r);
		if (op == OP_INC || op == OP_DEC)
			op = op == OP_INC ? '+' : '-';
		v = cg_arith(cg, op, cur, r, lv->type.is_signed);
		if (!v) {
			cg_error(cg, n->loc, NULL, "operator not supported yet");
			return;
		}
		vt = &lv->type;
	}
	if (lv->kind == NODE_MAP) {
		if (key)
			cg_map_write_at(cg, lv, key, v, vt);
		else
			cg_map_write(cg, lv, v, vt);
		return;
	}
	p = cg_var_ptr(cg, lv);
	cg_store(cg, p, lv->var ? &lv->var->type : &lv->type, 8, v, vt);
}

static void cg_if(struct cg *cg, struct node *n)
{
	LLVMBasicBlockRef then_bb = cg_block(cg, "if.then");
	LLVMBasicBlockRef else_bb = n->else_body ? cg_block(cg, "if.else") : NULL;
	LLVMBasicBlockRef join = cg_block(cg, "if.end");

	LLVMBuildCondBr(cg->b, cg_cond(cg, n->cond), then_bb, else_bb ? else_bb : join);
	LLVMPositionBuilderAtEnd(cg->b, then_bb);
	cg_stmts(cg, n->body);
	LLVMBuildBr(cg->b, join);
	if (else_bb) {
		LLVMMoveBasicBlockAfter(else_bb, LLVMGetInsertBlock(cg->b));
		LLVMPositionBuilderAtEnd(cg->b, else_bb);
		if (n->else_body->kind == NODE_IF)
			cg_stmt(cg, n->else_body);
		else
			cg_stmts(cg, n->else_body);
		LLVMBuildBr(cg->b, join);
	}
	LLVMMoveBasicBlockAfter(join, LLVMGetInsertBlock(cg->b));
	LLVMPositionBuilderAtEnd(cg->b, join);
}

/* A loop body with its break and continue targets; false (after an error) if nested too deep. */
static bool cg_loop_body(struct cg *cg, struct node *n, LLVMBasicBlockRef brk,
			 LLVMBasicBlockRef cont)
{
	if (cg->nloops == CG_MAX_LOOP_DEPTH) {
		cg_error(cg, n->loc, NULL, "loops nest deeper than %d", CG_MAX_LOOP_DEPTH);
		return false;
	}
	cg->loops[cg->nloops++] = (struct cg_loop){ .brk = brk, .cont = cont };
	cg_stmts(cg, n->body);
	cg->nloops--;
	return true;
}

/* while (cond) { ... }: a bounded loop, as the verifier of kernels >= 5.3 accepts. */
static void cg_while(struct cg *cg, struct node *n)
{
	LLVMBasicBlockRef cond_bb = cg_block(cg, "while.cond"), body = cg_block(cg, "while.body");
	LLVMBasicBlockRef end = cg_block(cg, "while.end");
	uint32_t mark;
	LLVMValueRef c;

	LLVMBuildBr(cg->b, cond_bb);
	LLVMPositionBuilderAtEnd(cg->b, cond_bb);
	mark = cg_temps_begin(cg);
	c = cg_cond(cg, n->cond);
	cg_temps_end(cg, mark);
	LLVMBuildCondBr(cg->b, c, body, end);
	LLVMPositionBuilderAtEnd(cg->b, body);
	cg_loop_body(cg, n, end, cond_bb);
	LLVMBuildBr(cg->b, cond_bb);
	LLVMMoveBasicBlockAfter(end, LLVMGetInsertBlock(cg->b));
	LLVMPositionBuilderAtEnd(cg->b, end);
}

/* unroll (N) { ... }: the body N times over; continue goes to the next copy. */
static void cg_unroll(struct cg *cg, struct node *n)
{
	LLVMBasicBlockRef end = cg_block(cg, "unroll.end"), next;

	for (uint64_t i = 0; i < n->num; i++) {
		next = cg_block(cg, "unroll.next");
		if (!cg_loop_body(cg, n, end, next))
			break;
		LLVMBuildBr(cg->b, next);
		LLVMPositionBuilderAtEnd(cg->b, next);
	}
	LLVMBuildBr(cg->b, end);
	LLVMMoveBasicBlockAfter(end, LLVMGetInsertBlock(cg->b));
	LLVMPositionBuilderAtEnd(cg->b, end);
}

/*
 * A string or tuple element is a pointer, and the rest of codegen copies from such pointers as
 * 8-aligned (cg_store, printf's and map keys' copies). Tuples pack their strings (("a", comm)
 * has comm at 2, as in bpftrace), so an element at an offset that is not a multiple of 8 is
 * copied out to an aligned buffer; on the stack, the verifier refuses a misaligned access.
 */
LLVMValueRef cg_tuple_field(struct cg *cg, struct node *n)
{
	LLVMValueRef t = cg_expr(cg, n->lhs), p = cg_gep(cg, t, n->field_off), buf;
	unsigned align = cg_align_at(8, n->field_off);

	if (!cg_type_is_buf(&n->type) || align == 8)
		return cg_load(cg, p, &n->type, align);
	buf = cg_alloca(cg, n->type.size, "field");
	cg_memcpy(cg, buf, 8, p, align, n->type.size);
	return buf;
}

/*
 * The debug info of a for callback: int cb(void *map, void *key, void *value, void *frame) for
 * bpf_for_each_map_elem, int cb(u64 index, void *frame) for bpf_loop.
 */
static void cg_for_di(struct cg *cg, LLVMValueRef fn, const char *name, struct loc loc, bool range)
{
	static const char *const map_params[] = { "map", "key", "value", "frame" };
	static const char *const range_params[] = { "index", "frame" };
	const char *const *params = range ? range_params : map_params;
	unsigned nparams = range ? 2 : 4;
	LLVMMetadataRef voidp = cg_di_ptr(cg, NULL);
	LLVMMetadataRef types[5] = { cg_di_c_int(cg), voidp, voidp, voidp, voidp }, fty, sp;

	if (range)
		types[1] = cg_di_int(cg, 8, false);
	fty = LLVMDIBuilderCreateSubroutineType(cg->dib, cg->di_file, types, nparams + 1,
						LLVMDIFlagPrototyped);
	sp = LLVMDIBuilderCreateFunction(cg->dib, cg->di_file, name, strlen(name), name,
					 strlen(name), cg->di_file, loc.line, fty, true, true,
					 loc.line, LLVMDIFlagPrototyped, true);
	for (unsigned i = 0; i < nparams; i++)
		LLVMDIBuilderCreateParameterVariable(cg->dib, sp, params[i], strlen(params[i]),
						     i + 1, cg->di_file, loc.line, types[i + 1],
						     true, LLVMDIFlagZero);
	LLVMSetSubprogram(fn, sp);
	cg->di_sp = sp;
}

/*
 * len(@m): what bpf_for_each_map_elem returns, the number of elements it visited, with a
 * callback (one per object) that asks for the next each time.
 */
LLVMValueRef cg_fn_len(struct cg *cg, struct node *n)
{
	static const char name[] = "aot_len_next";
	LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name), args[4];

	if (n->args->kind != NODE_MAP || n->args->args)
		return cg_stack_len(cg, n->args);

	if (!fn) {
		LLVMTypeRef params[4] = { cg->t_ptr, cg->t_ptr, cg->t_ptr, cg->t_ptr };
		LLVMBasicBlockRef here = LLVMGetInsertBlock(cg->b);
		LLVMMetadataRef sp = cg->di_sp;

		fn = LLVMAddFunction(cg->mod, name, LLVMFunctionType(cg->t_i32, params, 4, false));
		LLVMSetLinkage(fn, LLVMInternalLinkage);
		LLVMSetSection(fn, ".text");
		cg_for_di(cg, fn, name, n->loc, false);
		LLVMPositionBuilderAtEnd(cg->b,
					 LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry"));
		cg_di_set_loc(cg, n->loc);
		LLVMBuildRet(cg->b, cg_i32(cg, 0));
		cg->di_sp = sp;
		LLVMPositionBuilderAtEnd(cg->b, here);
		cg_di_set_loc(cg, n->loc);
	}
	args[0] = cg_map_ref(cg, n->args->map);
	args[1] = fn;
	args[2] = LLVMConstNull(cg->t_ptr);
	args[3] = cg_i64(cg, 0);
	return cg_helper(cg, CG_H_FOR_EACH_MAP_ELEM, cg->t_i64, args, 4);
}

/* $kv = (key, value) at the start of the callback; aggregations give this CPU's value. */
static void cg_for_kv(struct cg *cg, struct node *n, LLVMValueRef key, LLVMValueRef val)
{
	const struct type *kv = &n->lhs->var->type, *mt = &n->rhs->map->value;
	LLVMValueRef p = cg_var_ptr(cg, n->lhs), v;

	v = cg_load(cg, key, &kv->elems[0], 8);
	cg_store(cg, cg_gep(cg, p, kv->offsets[0]), &kv->elems[0], 8, v, &kv->elems[0]);
	if (cg_type_is_buf(mt) || mt->kind == TYPE_INT || mt->kind == TYPE_BOOL)
		v = cg_load(cg, val, mt, 8);
	else
		v = cg_agg_value(cg, val, mt);
	cg_store(cg, cg_gep(cg, p, kv->offsets[1]), &kv->elems[1], cg_align_at(8, kv->offsets[1]),
		 v, &kv->elems[1]);
}

/*
 * for ($kv : @m) { ... }: the body becomes a static callback of bpf_for_each_map_elem; for ($i :
 * a..b) { ... } one of bpf_loop (kernel 5.17), as bpftrace makes them. The probe's variables
 * stay in the probe's frame: the callback gets a frame of pointers to them (and the context
 * pointer first), so both read and write the same storage. A range's start follows them.
 */
static void cg_for(struct cg *cg, struct node *n)
{
	struct cg saved = *cg;
	bool range = n->rhs->kind == NODE_RANGE;
	LLVMTypeRef params[4] = { cg->t_ptr, cg->t_ptr, cg->t_ptr, cg->t_ptr }, fty;
	LLVMValueRef frame, outer_frame, fn, args[4], start = NULL, end = NULL;
	LLVMBasicBlockRef entry, brk, cont, outer_bb;
	uint32_t ret_slot = cg->nvars + 1, start_slot = cg->nvars + 2;
	struct cg_var *vars;
	char name[64];

	if (range) {
		start = cg_expr(cg, n->rhs->lhs);
		end = cg_expr(cg, n->rhs->rhs);
		params[0] = cg->t_i64;
	}
	outer_bb = LLVMGetInsertBlock(cg->b);
	/* the frame, in the probe's function: on the stack, where the helpers want it;
	 * the context, the variables, the flag the body sets when it returns or exits, a
	 * range's start */
	frame = cg_stack_alloca(cg, 8 * (cg->nvars + (range ? 3 : 2)), "for.frame");
	LLVMBuildStore(cg->b, cg->ctxp, frame);
	for (uint32_t i = 0; i < cg->nvars; i++)
		LLVMBuildStore(cg->b, cg_var_addr(cg, &cg->vars[i]),
			       cg_gep(cg, frame, 8 * (i + 1)));
	LLVMBuildStore(cg->b, cg_i64(cg, 0), cg_gep(cg, frame, 8 * ret_slot));
	if (range)
		LLVMBuildStore(cg->b, start, cg_gep(cg, frame, 8 * start_slot));
	outer_frame = frame;

	snprintf(name, sizeof(name), "aot_for_%u", cg->nfor++);
	fty = LLVMFunctionType(cg->t_i32, params, range ? 2 : 4, false);
	fn = LLVMAddFunction(cg->mod, name, fty);
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	LLVMSetSection(fn, ".text");
	LLVMAddAttributeAtIndex(
		fn, LLVMAttributeFunctionIndex,
		LLVMCreateEnumAttribute(cg->ctx, LLVMGetEnumAttributeKindForName("nounwind", 8),
					0));
	vars = calloc(cg->nvars ? cg->nvars : 1, sizeof(*vars));
	if (!vars) {
		cg_error(cg, n->loc, NULL, "out of memory");
		return;
	}

	/* the callback; its scratch buffers come after those live in the probe */
	cg->fn = fn;
	cg->scratch_base = NULL;
	cg_for_di(cg, fn, name, n->loc, range);
	cg->alloca_bb = cg_block(cg, "entry");
	entry = cg_block(cg, "start");
	LLVMPositionBuilderAtEnd(cg->b, entry);
	cg_di_set_loc(cg, n->loc);
	frame = LLVMGetParam(fn, range ? 1 : 3);
	cg->ctxp = LLVMBuildLoad2(cg->b, cg->t_ptr, frame, "ctx");
	for (uint32_t i = 0; i < cg->nvars; i++) {
		vars[i].info = saved.vars[i].info;
		vars[i].ptr = LLVMBuildLoad2(cg->b, cg->t_ptr, cg_gep(cg, frame, 8 * (i + 1)), "");
	}
	cg->vars = vars;
	cg->for_ret = cg_gep(cg, frame, 8 * ret_slot);
	cg->stmt_depth = 0;
	cg->nloops = 0;
	if (range) {
		/* $i = start + index */
		LLVMValueRef s = LLVMBuildLoad2(cg->b, cg->t_i64, cg_gep(cg, frame, 8 * start_slot),
						"start");

		cg_store(cg, cg_var_ptr(cg, n->lhs), &n->lhs->var->type, 8,
			 LLVMBuildAdd(cg->b, s, LLVMGetParam(fn, 0), ""), &n->rhs->type);
	} else {
		cg_for_kv(cg, n, LLVMGetParam(fn, 1), LLVMGetParam(fn, 2));
	}
	brk = cg_block(cg, "for.break");
	cont = cg_block(cg, "for.continue");
	cg->loops[cg->nloops++] = (struct cg_loop){ .brk = brk, .cont = cont };
	cg_stmts(cg, n->body);
	LLVMBuildBr(cg->b, cont);
	LLVMPositionBuilderAtEnd(cg->b, brk);
	LLVMBuildRet(cg->b, cg_i32(cg, 1)); /* 1 stops the iteration */
	LLVMPositionBuilderAtEnd(cg->b, cont);
	LLVMBuildRet(cg->b, cg_i32(cg, 0));
	cg_entry_close(cg, entry);
	free(vars);

	/* back in the probe: the helper call */
	saved.temps = cg->temps;
	saved.ntemps = cg->ntemps;
	saved.captemps = cg->captemps;
	saved.nfor = cg->nfor;
	saved.stack_reported = cg->stack_reported;
	saved.scratch = cg->scratch;
	saved.scratch_max = cg->scratch_max;
	*cg = saved;
	LLVMPositionBuilderAtEnd(cg->b, outer_bb);
	cg_di_set_loc(cg, n->loc);
	if (range) {
		/* bpf_loop(end - start, cb, frame, 0) when start < end, as bpftrace calls it */
		LLVMValueRef iters = LLVMBuildTrunc(cg->b, LLVMBuildSub(cg->b, end, start, ""),
						    cg->t_i32, "iters");
		LLVMBasicBlockRef call = cg_block(cg, "for.range"), done = cg_block(cg, "for.done");

		LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntSGT, iters, cg_i32(cg, 0), ""),
				call, done);
		LLVMPositionBuilderAtEnd(cg->b, call);
		args[0] = iters;
		args[1] = fn;
		args[2] = outer_frame;
		args[3] = cg_i64(cg, 0);
		cg_helper(cg, CG_H_LOOP, cg->t_i64, args, 4);
		LLVMBuildBr(cg->b, done);
		LLVMPositionBuilderAtEnd(cg->b, done);
	} else {
		args[0] = cg_map_ref(cg, n->rhs->map);
		args[1] = fn;
		args[2] = outer_frame;
		args[3] = cg_i64(cg, 0);
		cg_helper(cg, CG_H_FOR_EACH_MAP_ELEM, cg->t_i64, args, 4);
	}
	/* the body returned or exited: so does the code around the loop */
	{
		LLVMBasicBlockRef ret = cg_block(cg, "for.returned"), on = cg_block(cg, "for.end");
		LLVMValueRef flag =
			LLVMBuildLoad2(cg->b, cg->t_i64, cg_gep(cg, outer_frame, 8 * ret_slot), "");

		LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, flag, cg_i64(cg, 0), ""),
				ret, on);
		LLVMPositionBuilderAtEnd(cg->b, ret);
		cg_ret_and_continue(cg, flag);
		LLVMBuildBr(cg->b, on);
		LLVMPositionBuilderAtEnd(cg->b, on);
	}
}

/* let $x = v is $x = v; let $x alone zeroes $x where it is, each time a loop runs it again. */
static void cg_let(struct cg *cg, struct node *n)
{
	const struct type *t = &n->lhs->var->type;
	uint32_t size = t->kind == TYPE_BOOL ? 1 : t->size;

	if (n->rhs) {
		cg_store(cg, cg_var_ptr(cg, n->lhs), t, 8, cg_expr(cg, n->rhs), &n->rhs->type);
		return;
	}
	cg_memset0(cg, cg_var_ptr(cg, n->lhs), size ? size : 8, 8);
}

static void cg_jump(struct cg *cg, struct node *n)
{
	struct cg_loop *l = cg->nloops ? &cg->loops[cg->nloops - 1] : NULL;

	if (!l) {
		cg_error(cg, n->loc, NULL, "%s outside a loop",
			 n->kind == NODE_BREAK ? "break" : "continue");
		return;
	}
	LLVMBuildBr(cg->b, n->kind == NODE_BREAK ? l->brk : l->cont);
	LLVMPositionBuilderAtEnd(cg->b, cg_block(cg, "dead"));
}

static void cg_stmt(struct cg *cg, struct node *n)
{
	uint32_t mark = cg_temps_begin(cg);

	cg_di_set_loc(cg, n->loc);
	cg->loc = n->loc;
	switch (n->kind) {
	case NODE_EXPR_STMT:
		cg_expr(cg, n->lhs);
		break;
	case NODE_ASSIGN:
		cg_assign(cg, n);
		break;
	case NODE_LET:
		cg_let(cg, n);
		break;
	case NODE_IF:
		cg_if(cg, n);
		break;
	case NODE_BLOCK:
		cg_stmts(cg, n);
		break;
	case NODE_RETURN:
		cg_ret_and_continue(cg, n->lhs ? cg_expr(cg, n->lhs) : NULL);
		break;
	case NODE_WHILE:
		cg_while(cg, n);
		break;
	case NODE_UNROLL:
		cg_unroll(cg, n);
		break;
	case NODE_FOR:
		cg_for(cg, n);
		break;
	case NODE_BREAK:
	case NODE_CONTINUE:
		cg_jump(cg, n);
		break;
	default:
		cg_error(cg, n->loc, NULL, "%s statements are not supported yet",
			 node_kind_name(n->kind));
		break;
	}
	cg_temps_end(cg, mark);
}

static int cg_vars(struct cg *cg, const struct node *probe)
{
	uint32_t n = 0;

	for (const struct var_info *vi = probe->vars; vi; vi = vi->next)
		n++;
	free(cg->vars);
	cg->vars = calloc(n ? n : 1, sizeof(*cg->vars));
	if (!cg->vars)
		return -ENOMEM;
	cg->nvars = n;
	n = 0;
	for (const struct var_info *vi = probe->vars; vi; vi = vi->next, n++) {
		uint32_t size = vi->type.kind == TYPE_BOOL ? 1 : vi->type.size;

		uint32_t off = cg->scratch_off;

		cg->vars[n].info = vi;
		cg->vars[n].ptr = cg_alloca_zero(cg, size ? size : 8, vi->name);
		if (!LLVMIsAAllocaInst(cg->vars[n].ptr)) {
			cg->vars[n].scratch = true;
			cg->vars[n].scratch_off = off;
		}
	}
	return 0;
}

LLVMBasicBlockRef cg_fn_begin(struct cg *cg, const struct node *probe, const char *func,
			      const char *section)
{
	LLVMTypeRef fty = LLVMFunctionType(cg->t_i32, &cg->t_ptr, 1, false);
	LLVMBasicBlockRef start;

	cg->fn = LLVMAddFunction(cg->mod, func, fty);
	LLVMSetSection(cg->fn, section);
	LLVMSetLinkage(cg->fn, LLVMExternalLinkage);
	/* BPF has no unwinding; without this the object gets an .eh_frame */
	LLVMAddAttributeAtIndex(
		cg->fn, LLVMAttributeFunctionIndex,
		LLVMCreateEnumAttribute(cg->ctx, LLVMGetEnumAttributeKindForName("nounwind", 8),
					0));
	cg->ctxp = LLVMGetParam(cg->fn, 0);
	LLVMSetValueName2(cg->ctxp, "ctx", 3);
	cg_di_func(cg, cg->fn, func, probe->loc);
	cg->alloca_bb = cg_block(cg, "entry");
	cg->scratch_base = NULL;
	cg->scratch_off = 0;
	start = cg_block(cg, "start");
	LLVMPositionBuilderAtEnd(cg->b, start);
	cg_di_set_loc(cg, probe->loc);
	return start;
}

void cg_fn_end(struct cg *cg, LLVMBasicBlockRef start)
{
	cg_entry_close(cg, start);
	cg->di_sp = NULL;
	cg->match = NULL;
}

int cg_probe_body(struct cg *cg, struct node *probe, const struct probe_match *m, bool stop_check)
{
	LLVMBasicBlockRef pred_false, body;
	int ret;

	cg->probe = probe;
	cg->match = m;
	ret = cg_vars(cg, probe);
	if (ret < 0)
		return ret;
	/*
	 * BEGIN runs before the run starts and END when it is already stopping, test and bench
	 * probes instead of a run, an iterator only when the run reads it after BEGIN, or when a
	 * pin of it is read after the run; every other program (self:signal too) waits for the
	 * start and stops with the end (struct aot_state.stopped).
	 */
	if (stop_check && !((m->pt->flags) & (AOT_PROBE_BEGIN | AOT_PROBE_END | AOT_PROBE_TEST |
					      AOT_PROBE_BENCH | AOT_PROBE_ITER)))
		cg_stop_check(cg);
	if (probe->cond) {
		uint32_t mark = cg_temps_begin(cg);
		LLVMValueRef c;

		cg_di_set_loc(cg, probe->cond->loc);
		c = cg_cond(cg, probe->cond);

		cg_temps_end(cg, mark);
		body = cg_block(cg, "body");
		pred_false = cg_block(cg, "pred.false");
		LLVMBuildCondBr(cg->b, c, body, pred_false);
		LLVMPositionBuilderAtEnd(cg->b, pred_false);
		LLVMBuildRet(cg->b, cg_i32(cg, 0));
		LLVMPositionBuilderAtEnd(cg->b, body);
	}
	cg_stmts(cg, probe->body);
	if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(cg->b)))
		LLVMBuildRet(cg->b, cg_i32(cg, 0));
	return 0;
}

static int cg_probe_fn(struct cg *cg, struct node *probe, const struct probe_match *m)
{
	LLVMBasicBlockRef start = cg_fn_begin(cg, probe, m->func, m->section);
	int ret = cg_probe_body(cg, probe, m, true);

	if (ret < 0)
		return ret;
	cg_fn_end(cg, start);
	return 0;
}

int cg_probe(struct cg *cg, struct node *probe)
{
	int ret;

	for (struct node *ap = probe->args; ap; ap = ap->next) {
		for (uint32_t i = 0; i < ap->nmatches; i++) {
			if (ap->matches[i].alias_of)
				continue; /* an alias of its group's function */
			ret = cg_probe_fn(cg, probe, &ap->matches[i]);
			if (ret < 0)
				return ret;
			cg_alias_emit(cg, ap, &ap->matches[i]);
		}
	}
	return 0;
}
