// SPDX-License-Identifier: GPL-2.0
/*
 * Expressions: each AST expression becomes an i64 (INT, BOOL) or a pointer to a stack buffer
 * (STR, TUPLE), following the types sema annotated. Also the memory primitives the other
 * codegen files build on: stack buffers, typed loads and stores, helper calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cg_core.h"
#include "arena.h"
#include "cg_internal.h"
#include "ctypes.h"
#include "meta.h"

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
	       t->kind == TYPE_RECORD;
}

/* BPF helpers are called through their id as a constant address, as libbpf's headers do. */
/*
 * -k and -kk (bpftrace's): the helpers whose failures are reported where they happen, with the
 * level that turns each on (reads only with -kk, as they fail routinely on unmapped memory).
 */
static const struct {
	const char *name;
	uint32_t level;
} cg_checked[] = {
	[CG_H_MAP_UPDATE] = { "map_update_elem", 1 },
	[CG_H_MAP_DELETE] = { "map_delete_elem", 1 },
	[CG_H_GET_STACKID] = { "get_stackid", 1 },
	[CG_H_OVERRIDE_RETURN] = { "override_return", 1 },
	[CG_H_SEND_SIGNAL] = { "send_signal", 1 },
	[CG_H_PROBE_READ_USER] = { "probe_read_user", 2 },
	[CG_H_PROBE_READ_KERNEL] = { "probe_read_kernel", 2 },
	[CG_H_PROBE_READ_USER_STR] = { "probe_read_user_str", 2 },
	[CG_H_PROBE_READ_KERNEL_STR] = { "probe_read_kernel_str", 2 },
};

/*
 * The format (AOT_FMT_HELPER_ERROR) naming this call site: made once per site and helper, so
 * that a body compiled again (scratch mode, one copy per attach point) reuses it.
 */
static int cg_helper_site(struct cg *cg, enum cg_helper id)
{
	struct aot_meta *m = cg->prog->meta;
	const struct source *src = cg->d ? cg->d->src : NULL;
	char *excerpt = diag_excerpt(src, cg->loc), *text;
	struct aot_fmt f = { .kind = AOT_FMT_HELPER_ERROR };
	int idx, first;

	text = arena_printf(cg->prog->arena, "%s\n%u\n%u\n%s:%u:%u-%u\n%s", cg_checked[id].name,
			    cg->loc.line, cg->loc.col, src && src->name ? src->name : "-e",
			    cg->loc.line, cg->loc.col,
			    cg->loc.col + (cg->loc.len ? cg->loc.len : 1), excerpt ? excerpt : "");
	free(excerpt);
	for (uint32_t i = 0; i < m->nfmts; i++)
		if (m->fmts[i].kind == AOT_FMT_HELPER_ERROR && !strcmp(m->fmts[i].fmt, text))
			return (int)i;
	first = aot_meta_add_elems(m, 1);
	if (first < 0)
		return first;
	m->elems[first] =
		(struct aot_elem){ .offset = 0,
				   .type = { .kind = AOT_K_INT, .size = 8, .is_signed = 1 } };
	f.fmt = text;
	f.args = (struct aot_type){ .kind = AOT_K_TUPLE, .size = 8, .nelems = 1, .elems = first };
	idx = aot_meta_add_fmt(m, &f);
	return idx;
}

/* -k: when the helper's return ret is an error, an event says where (the runtime prints it). */
static void cg_helper_check(struct cg *cg, enum cg_helper id, LLVMValueRef ret)
{
	LLVMBasicBlockRef failed, done;
	LLVMValueRef ev, bad;
	int idx;

	if ((size_t)id >= sizeof(cg_checked) / sizeof(cg_checked[0]) || !cg_checked[id].level ||
	    cg->prog->opts->helper_check < cg_checked[id].level || !cg->events)
		return;
	idx = cg_helper_site(cg, id);
	if (idx < 0)
		return;
	bad = LLVMBuildICmp(cg->b, LLVMIntSLT, ret, cg_i64(cg, 0), "");
	/* -EEXIST from an update only means another CPU created the entry first (BPF_NOEXIST) */
	if (id == CG_H_MAP_UPDATE)
		bad = LLVMBuildAnd(
			cg->b, bad,
			LLVMBuildICmp(cg->b, LLVMIntNE, ret, cg_i64(cg, (uint64_t)-EEXIST), ""),
			"");
	failed = cg_block(cg, "helper.failed");
	done = cg_block(cg, "helper.ok");
	LLVMBuildCondBr(cg->b, bad, failed, done);
	LLVMPositionBuilderAtEnd(cg->b, failed);
	ev = cg_alloca(cg, sizeof(struct aot_event_hdr) + 8, "helper.err");
	cg_event_hdr(cg, ev, AOT_EV_FORMAT, (uint32_t)idx);
	LLVMBuildStore(cg->b, ret, cg_gep(cg, ev, sizeof(struct aot_event_hdr)));
	cg_event_output(cg, ev, sizeof(struct aot_event_hdr) + 8);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}

LLVMValueRef cg_helper(struct cg *cg, enum cg_helper id, LLVMTypeRef ret, LLVMValueRef *args,
		       unsigned nargs)
{
	LLVMTypeRef params[5];
	LLVMTypeRef fty;
	LLVMValueRef fp, call;

	for (unsigned i = 0; i < nargs && i < 5; i++)
		params[i] = LLVMTypeOf(args[i]);
	fty = LLVMFunctionType(ret, params, nargs, false);
	fp = LLVMConstIntToPtr(cg_i64(cg, id), cg->t_ptr);
	call = LLVMBuildCall2(cg->b, fty, fp, args, nargs, "");
	/*
	 * The verifier turns map updates and deletes into direct calls of the map's own function,
	 * which returned int in older kernels (6.1; long in 6.12): an error's upper 32 bits are
	 * zero, so -E2BIG would read as 4294967289. Only the low 32 bits count.
	 */
	if (id == CG_H_MAP_UPDATE || id == CG_H_MAP_DELETE)
		call = LLVMBuildSExt(cg->b, LLVMBuildTrunc(cg->b, call, cg->t_i32, ""), cg->t_i64,
				     "");
	if (ret == cg->t_i64)
		cg_helper_check(cg, id, call);
	return call;
}

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
	if (cg->scratch_mode && size > CG_SCRATCH_MIN)
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
 * neighbouring memsets: in scratch mode, where buffers are bigger and lie side by side, copies
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

	if (!cg->scratch_mode || size <= CG_SCRATCH_MIN) {
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
	if (!cg->scratch_mode || size <= CG_SCRATCH_MIN) {
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

/* Truncates an i64 to t's width and extends it back, as storing and reloading would. */
static LLVMValueRef cg_int_norm(struct cg *cg, LLVMValueRef v, const struct type *t)
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
	return LLVMBuildSelect(b, rz, cg_i64(cg, 0), v, "");
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

static LLVMValueRef cg_zext(struct cg *cg, LLVMValueRef i1)
{
	return LLVMBuildZExt(cg->b, i1, cg->t_i64, "");
}

static LLVMValueRef cg_compare(struct cg *cg, struct node *n)
{
	const struct type *lt = &n->lhs->type, *rt = &n->rhs->type;
	bool is_signed = lt->is_signed && rt->is_signed;
	LLVMValueRef l = cg_expr(cg, n->lhs), r = cg_expr(cg, n->rhs), eq;
	LLVMIntPredicate pred;

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
	v = cg_arith(cg, n->op, l, r, n->type.is_signed);
	if (!v) {
		cg_error(cg, n->loc, NULL, "operator not supported yet");
		return cg_i64(cg, 0);
	}
	return cg_int_norm(cg, v, &n->type);
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

/* x++, ++x, x--, --x on a variable or map: the old value for post forms. */
static LLVMValueRef cg_incdec(struct cg *cg, struct node *n)
{
	struct node *lv = n->lhs;
	LLVMValueRef old, new;

	if (lv->kind != NODE_VAR && lv->kind != NODE_MAP) {
		cg_error(cg, n->loc, NULL, "++ and -- need a variable or a map");
		return cg_i64(cg, 0);
	}
	old = cg_expr(cg, lv);
	new = cg_arith(cg, n->op == OP_INC ? '+' : '-', old, cg_i64(cg, 1), false);
	if (lv->kind == NODE_VAR)
		cg_store(cg, cg_var_ptr(cg, lv), &lv->var->type, 8, new, &lv->type);
	else
		cg_map_write(cg, lv, new, &lv->type);
	return n->is_post ? old : cg_int_norm(cg, new, &lv->type);
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

static LLVMValueRef cg_ternary(struct cg *cg, struct node *n)
{
	LLVMBasicBlockRef then_bb = cg_block(cg, "tern.then"), else_bb = cg_block(cg, "tern.else");
	LLVMBasicBlockRef join = cg_block(cg, "tern.join"), from[2];
	bool is_buf = cg_type_is_buf(&n->type);
	LLVMValueRef c = cg_cond(cg, n->cond), res = NULL, vals[2], phi;

	if (is_buf)
		res = cg_alloca(cg, n->type.size, "tern");
	LLVMBuildCondBr(cg->b, c, then_bb, else_bb);
	for (int i = 0; i < 2; i++) {
		struct node *e = i ? n->rhs : n->lhs;

		LLVMPositionBuilderAtEnd(cg->b, i ? else_bb : then_bb);
		vals[i] = cg_expr(cg, e);
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
		/* copied out: values are 8-aligned, and ctx pointers must not flow anywhere */
		buf = cg_alloca(cg, arg->type.size, "ctxbuf");
		cg_memcpy(cg, buf, 8, p, cg_align_at(8, arg->offset), arg->type.size);
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
	if (n->lhs && n->lhs->kind == NODE_BUILTIN && n->lhs->builtin == BI_ARGS)
		return cg_args_field(cg, n);
	if (n->lhs && n->lhs->type.kind == TYPE_TUPLE)
		return cg_tuple_field(cg, n);
	if (n->lhs && !n->is_arrow && cg_is_value_record(n->lhs))
		return cg_value_field(cg, n);
	return cg_core_read(cg, n);
}

/* Sema makes every conversion explicit: widening strings and tuples, integer sizes, to bool. */
static LLVMValueRef cg_cast(struct cg *cg, struct node *n)
{
	const struct type *from = &n->lhs->type, *to = &n->type;
	LLVMValueRef v = cg_expr(cg, n->lhs), buf;

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

static LLVMValueRef cg_expr_node(struct cg *cg, struct node *n)
{
	switch (n->kind) {
	case NODE_INT:
		return cg_i64(cg, n->num);
	case NODE_STR:
		return cg_str_lit(cg, n->str, n->str_len, n->type.size);
	case NODE_BUILTIN:
		return cg_builtin(cg, n);
	case NODE_POSPARAM:
		return cg_posparam(cg, n);
	case NODE_VAR:
		return cg_load(cg, cg_var_ptr(cg, n), &n->var->type, 8);
	case NODE_MAP:
		return cg_map_read(cg, n);
	case NODE_CALL:
		return cg_call(cg, n);
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
	if (cg->for_ret) {
		LLVMBuildStore(cg->b, cg_i64(cg, 1), cg->for_ret);
		LLVMBuildRet(cg->b, cg_i32(cg, 1)); /* 1 stops the iteration */
	} else {
		LLVMBuildRet(cg->b, cg_i32(cg, 0));
	}
	LLVMPositionBuilderAtEnd(cg->b, cg_block(cg, "dead"));
}
