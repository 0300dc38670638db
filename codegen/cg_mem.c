// SPDX-License-Identifier: GPL-2.0
/*
 * Memory for the values of expressions: stack buffers and their lifetimes, the scratch value that
 * stands in for the stack when 512 bytes are not enough, where variables live, and the typed
 * loads, stores and copies between them that keep the value convention of cg_internal.h.
 */
#include <stdlib.h>
#include <string.h>

#include "cg_internal.h"

static void cg_lifetime(struct cg *cg, const char *which, LLVMValueRef p, uint32_t size)
{
	unsigned id = LLVMLookupIntrinsicID(which, strlen(which));
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, &cg->t_ptr, 1);
	LLVMValueRef args[] = { cg_i64(cg, size), p };

	LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
}

static void cg_temp_track(struct cg *cg, struct cg_temp t)
{
	if (cg->ntemps == cg->captemps) {
		uint32_t cap = cg->captemps ? cg->captemps * 2 : 16;
		struct cg_temp *v = realloc(cg->temps, cap * sizeof(*v));

		/* without the record the space is just not shared: correct, only bigger */
		if (!v)
			return;
		cg->temps = v;
		cg->captemps = cap;
	}
	cg->temps[cg->ntemps++] = t;
	if (!t.scratch)
		cg_lifetime(cg, "llvm.lifetime.start", t.p, t.size);
}

/* In the entry block, so the stack frame is static and the backend can size it. */
LLVMValueRef cg_stack_alloca(struct cg *cg, uint32_t size, const char *name)
{
	LLVMBuilderRef ab = LLVMCreateBuilderInContext(cg->ctx);
	LLVMTypeRef ty = LLVMArrayType2(cg->t_i8, size ? size : 1);
	LLVMValueRef p;

	LLVMPositionBuilderAtEnd(ab, cg->alloca_bb);
	p = LLVMBuildAlloca(ab, ty, name);
	LLVMSetAlignment(p, 8);
	LLVMDisposeBuilder(ab);
	if (cg->stmt_depth)
		cg_temp_track(cg, (struct cg_temp){ .p = p, .size = size ? size : 1 });
	return p;
}

/*
 * The function's pointer to the scratch value, looked up once between the entry block and
 * start (it returns 0 if the lookup fails, which a one-entry array never does) and kept in a
 * stack slot. Each use reloads it (volatile: the optimiser may not merge the reloads) and adds
 * its offset there: addresses made once and kept would be spilled, one stack slot each.
 */
static LLVMValueRef cg_scratch_slot(struct cg *cg)
{
	LLVMBuilderRef b = cg->b, sb;
	LLVMBasicBlockRef null_bb;
	LLVMValueRef key, args[2], p;

	if (cg->scratch_base)
		return cg->scratch_base;
	if (!cg->scratch)
		cg->scratch = LLVMAddGlobal(cg->mod, cg->t_i8, "aot_scratch.placeholder");
	cg->scratch_look = cg_block(cg, "scratch");
	null_bb = cg_block(cg, "scratch.null");
	cg->scratch_bb = cg_block(cg, "scratch.ok");
	sb = LLVMCreateBuilderInContext(cg->ctx);
	LLVMPositionBuilderAtEnd(sb, cg->alloca_bb);
	key = LLVMBuildAlloca(sb, cg->t_i32, "scratch.key");
	cg->scratch_base = LLVMBuildAlloca(sb, cg->t_ptr, "scratch.slot");
	LLVMPositionBuilderAtEnd(sb, cg->scratch_look);
	LLVMBuildStore(sb, cg_i32(cg, 0), key);
	args[0] = cg->scratch;
	args[1] = key;
	cg->b = sb; /* cg_helper builds with cg->b */
	p = cg_helper(cg, CG_H_MAP_LOOKUP, cg->t_ptr, args, 2);
	cg->b = b;
	LLVMBuildCondBr(sb, LLVMBuildIsNull(sb, p, ""), null_bb, cg->scratch_bb);
	LLVMPositionBuilderAtEnd(sb, null_bb);
	LLVMBuildRet(sb, cg_i32(cg, 0));
	LLVMPositionBuilderAtEnd(sb, cg->scratch_bb);
	LLVMSetVolatile(LLVMBuildStore(sb, p, cg->scratch_base), true);
	LLVMDisposeBuilder(sb);
	return cg->scratch_base;
}

/* The address off bytes into the scratch value, made where it is asked for. */
static LLVMValueRef cg_scratch_at(struct cg *cg, uint32_t off, const char *name)
{
	LLVMValueRef base = LLVMBuildLoad2(cg->b, cg->t_ptr, cg_scratch_slot(cg), "scratch");
	LLVMValueRef idx = cg_i64(cg, off);

	LLVMSetVolatile(base, true);
	return LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, base, &idx, 1, name);
}

/* The next 8-aligned range of the scratch value; a temporary's is reused after its statement. */
static LLVMValueRef cg_scratch_alloca(struct cg *cg, uint32_t size, const char *name)
{
	uint32_t off = cg->scratch_off;
	LLVMValueRef p = cg_scratch_at(cg, off, name);

	cg->scratch_off += (size + 7) / 8 * 8;
	if (cg->scratch_off > cg->scratch_max)
		cg->scratch_max = cg->scratch_off;
	if (cg->stmt_depth)
		cg_temp_track(cg,
			      (struct cg_temp){
				      .p = p, .size = size, .scratch = true, .scratch_off = off });
	return p;
}

LLVMValueRef cg_alloca(struct cg *cg, uint32_t size, const char *name)
{
	if (size > cg->stack_max)
		return cg_scratch_alloca(cg, size, name);
	return cg_stack_alloca(cg, size, name);
}

void cg_entry_close(struct cg *cg, LLVMBasicBlockRef start)
{
	LLVMPositionBuilderAtEnd(cg->b, cg->alloca_bb);
	LLVMSetCurrentDebugLocation2(cg->b, NULL);
	if (!cg->scratch_base) {
		LLVMBuildBr(cg->b, start);
		return;
	}
	LLVMBuildBr(cg->b, cg->scratch_look);
	LLVMPositionBuilderAtEnd(cg->b, cg->scratch_bb);
	LLVMBuildBr(cg->b, start);
	cg->scratch_base = NULL;
}

uint32_t cg_temps_begin(struct cg *cg)
{
	cg->stmt_depth++;
	return cg->ntemps;
}

void cg_temps_end(struct cg *cg, uint32_t mark)
{
	uint32_t off = cg->scratch_off;

	for (uint32_t i = mark; i < cg->ntemps; i++) {
		const struct cg_temp *t = &cg->temps[i];

		if (!t->scratch)
			cg_lifetime(cg, "llvm.lifetime.end", t->p, t->size);
		else if (t->scratch_off < off)
			off = t->scratch_off;
	}
	cg->scratch_off = off;
	cg->ntemps = mark;
	cg->stmt_depth--;
}

LLVMValueRef cg_alloca_zero(struct cg *cg, uint32_t size, const char *name)
{
	LLVMValueRef p = cg_alloca(cg, size, name);

	cg_memset0(cg, p, size, 8);
	return p;
}

LLVMValueRef cg_gep(struct cg *cg, LLVMValueRef p, uint64_t off)
{
	LLVMValueRef idx = cg_i64(cg, off);

	if (!off)
		return p;
	return LLVMBuildInBoundsGEP2(cg->b, cg->t_i8, p, &idx, 1, "");
}

/*
 * The BPF backend expands memset and memcpy into at most 128 stores, and the optimiser merges
 * neighbouring memsets: where buffers are in the scratch value, bigger and side by side, copies
 * and clears of big buffers go in volatile pieces (which it leaves alone) that each fit.
 */
#define CG_MEM_PIECE 512

static void cg_mem_volatile(struct cg *cg, LLVMValueRef call)
{
	LLVMSetOperand(call, 3, LLVMConstInt(cg->t_i1, 1, false));
}

void cg_memset0(struct cg *cg, LLVMValueRef p, uint32_t size, unsigned align)
{
	LLVMValueRef zero = LLVMConstInt(cg->t_i8, 0, false);

	if (size <= cg->stack_max && size <= CG_MEM_PIECE) {
		if (size)
			LLVMBuildMemSet(cg->b, p, zero, cg_i64(cg, size), align);
		return;
	}
	for (uint32_t off = 0; off < size; off += CG_MEM_PIECE) {
		uint32_t n = size - off < CG_MEM_PIECE ? size - off : CG_MEM_PIECE;

		cg_mem_volatile(cg, LLVMBuildMemSet(cg->b, cg_gep(cg, p, off), zero, cg_i64(cg, n),
						    cg_align_at(align, off)));
	}
}

void cg_memcpy(struct cg *cg, LLVMValueRef dst, unsigned dalign, LLVMValueRef src, unsigned salign,
	       uint32_t size)
{
	if (size <= cg->stack_max && size <= CG_MEM_PIECE) {
		if (size)
			LLVMBuildMemCpy(cg->b, dst, dalign, src, salign, cg_i64(cg, size));
		return;
	}
	for (uint32_t off = 0; off < size; off += CG_MEM_PIECE) {
		uint32_t n = size - off < CG_MEM_PIECE ? size - off : CG_MEM_PIECE;

		cg_mem_volatile(cg, LLVMBuildMemCpy(cg->b, cg_gep(cg, dst, off),
						    cg_align_at(dalign, off), cg_gep(cg, src, off),
						    cg_align_at(salign, off), cg_i64(cg, n)));
	}
}

/* The alignment known at base + off; the verifier rejects misaligned stack accesses. */
unsigned cg_align_at(unsigned base, uint64_t off)
{
	uint64_t low = off & -off;

	if (!off || low >= base)
		return base;
	return (unsigned)low;
}

static LLVMValueRef cg_int_ext(struct cg *cg, LLVMValueRef v, bool is_signed)
{
	if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 64)
		return v;
	return is_signed ? LLVMBuildSExt(cg->b, v, cg->t_i64, "")
			 : LLVMBuildZExt(cg->b, v, cg->t_i64, "");
}

LLVMValueRef cg_int_norm(struct cg *cg, LLVMValueRef v, const struct type *t)
{
	if (t->kind != TYPE_INT || !t->size || t->size >= 8)
		return v;
	v = LLVMBuildTrunc(cg->b, v, LLVMIntTypeInContext(cg->ctx, t->size * 8), "");
	return cg_int_ext(cg, v, t->is_signed);
}

LLVMValueRef cg_load(struct cg *cg, LLVMValueRef p, const struct type *t, unsigned align)
{
	uint32_t size = t->kind == TYPE_BOOL ? 1 : t->size;
	LLVMValueRef v;

	if (cg_type_is_buf(t))
		return p;
	if (!size || size > 8)
		size = 8;
	v = LLVMBuildLoad2(cg->b, LLVMIntTypeInContext(cg->ctx, size * 8), p, "");
	LLVMSetAlignment(v, align < size ? align : size);
	return cg_int_ext(cg, v, t->kind == TYPE_INT && t->is_signed);
}

static bool cg_type_same_layout(const struct type *a, const struct type *b)
{
	if (a->kind != b->kind || a->size != b->size)
		return false;
	if (a->kind != TYPE_TUPLE)
		return true;
	if (a->nelems != b->nelems)
		return false;
	for (uint32_t i = 0; i < a->nelems; i++)
		if (a->offsets[i] != b->offsets[i] ||
		    !cg_type_same_layout(&a->elems[i], &b->elems[i]))
			return false;
	return true;
}

static void cg_store_aligned(struct cg *cg, LLVMValueRef p, const struct type *dt, unsigned dalign,
			     LLVMValueRef val, const struct type *vt, unsigned salign)
{
	uint32_t size, n;
	LLVMValueRef s;

	if (cg_type_is_buf(dt) != cg_type_is_buf(vt)) {
		cg_error(cg, (struct loc){ 0 }, "this is a bug in aotrace",
			 "cannot store a value of type kind %d as kind %d", vt->kind, dt->kind);
		return;
	}
	switch (dt->kind) {
	case TYPE_STR:
	case TYPE_BUF:
	case TYPE_RECORD:
	case TYPE_ARRAY:
		n = dt->size < vt->size ? dt->size : vt->size;
		cg_memcpy(cg, p, dalign, val, salign, n);
		cg_memset0(cg, cg_gep(cg, p, n), dt->size - n, cg_align_at(dalign, n));
		return;
	case TYPE_TUPLE:
		if (cg_type_same_layout(dt, vt)) {
			cg_memcpy(cg, p, dalign, val, salign, dt->size);
			return;
		}
		/* zero the pad bytes: tuples end up in map keys and are compared bytewise */
		cg_memset0(cg, p, dt->size, dalign);
		for (uint32_t i = 0; i < dt->nelems && i < vt->nelems; i++) {
			unsigned ea = cg_align_at(salign, vt->offsets[i]);
			LLVMValueRef ev =
				cg_load(cg, cg_gep(cg, val, vt->offsets[i]), &vt->elems[i], ea);

			cg_store_aligned(cg, cg_gep(cg, p, dt->offsets[i]), &dt->elems[i],
					 cg_align_at(dalign, dt->offsets[i]), ev, &vt->elems[i],
					 ea);
		}
		return;
	default:
		size = dt->kind == TYPE_BOOL ? 1 : dt->size;
		if (!size || size > 8)
			size = 8;
		if (size < 8)
			val = LLVMBuildTrunc(cg->b, val, LLVMIntTypeInContext(cg->ctx, size * 8),
					     "");
		s = LLVMBuildStore(cg->b, val, p);
		LLVMSetAlignment(s, dalign < size ? dalign : size);
		return;
	}
}

void cg_store(struct cg *cg, LLVMValueRef p, const struct type *dt, unsigned align,
	      LLVMValueRef val, const struct type *vt)
{
	cg_store_aligned(cg, p, dt, align, val, vt, 8);
}

/* Constant bytes go in as immediate stores: no .rodata map for libbpf to create. */
void cg_store_cstr(struct cg *cg, LLVMValueRef p, const char *s, size_t len, uint32_t size)
{
	uint32_t off = 0;

	while (off < size) {
		uint32_t chunk = 8;
		uint64_t v = 0;

		while (chunk > size - off)
			chunk /= 2;
		for (uint32_t i = 0; i < chunk; i++)
			if (off + i < len)
				v |= (uint64_t)(unsigned char)s[off + i] << (8 * i);
		LLVMSetAlignment(
			LLVMBuildStore(
				cg->b,
				LLVMConstInt(LLVMIntTypeInContext(cg->ctx, chunk * 8), v, false),
				cg_gep(cg, p, off)),
			chunk);
		off += chunk;
	}
}

LLVMValueRef cg_str_lit(struct cg *cg, const char *s, size_t len, uint32_t size)
{
	LLVMValueRef buf;

	if (!size)
		size = (uint32_t)len + 1;
	buf = cg_alloca(cg, size, "str");
	cg_store_cstr(cg, buf, s, len, size);
	return buf;
}

static struct cg_var *cg_var_slot(struct cg *cg, const struct var_info *vi)
{
	for (uint32_t i = 0; i < cg->nvars; i++)
		if (cg->vars[i].info == vi)
			return &cg->vars[i];
	return NULL;
}

LLVMValueRef cg_var_addr(struct cg *cg, const struct cg_var *v)
{
	return v->scratch ? cg_scratch_at(cg, v->scratch_off, "") : v->ptr;
}

LLVMValueRef cg_var_ptr(struct cg *cg, struct node *n)
{
	struct cg_var *slot = n->var ? cg_var_slot(cg, n->var) : NULL;

	if (!slot) {
		cg_error(cg, n->loc, "this is a bug in aotrace", "variable %s has no storage",
			 n->name);
		return cg_alloca_zero(cg, n->type.size ? n->type.size : 8, "");
	}
	return cg_var_addr(cg, slot);
}
