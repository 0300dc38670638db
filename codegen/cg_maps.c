// SPDX-License-Identifier: GPL-2.0
/*
 * Maps: BTF-defined map globals in ".maps" (the layout libbpf's __uint/__type macros produce),
 * and the helper calls that read, write and aggregate into them, plus the ring buffer that
 * carries printf and exit events to the runtime. Value layouts are those of runtime/meta.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "cg_internal.h"
#include "meta.h"


static const struct type cg_scalar_key = {.kind = TYPE_INT, .size = 8};

/* __uint(name, val): a pointer to an array of val ints; only the element count matters. */
static LLVMMetadataRef cg_map_uint_field(struct cg *cg, const char *name, uint32_t val,
					 uint32_t off)
{
	LLVMMetadataRef sub = LLVMDIBuilderGetOrCreateSubrange(cg->dib, 0, val);
	LLVMMetadataRef arr = LLVMDIBuilderCreateArrayType(cg->dib, (uint64_t)val * 32, 32,
							   cg_di_c_int(cg), &sub, 1);

	return LLVMDIBuilderCreateMemberType(cg->dib, cg->di_file, name, strlen(name), cg->di_file,
					     0, 64, 64, (uint64_t)off * 8, LLVMDIFlagZero,
					     cg_di_ptr(cg, arr));
}

/* __type(name, T): a pointer to T. */
static LLVMMetadataRef cg_map_type_field(struct cg *cg, const char *name, LLVMMetadataRef ty,
					 uint32_t off)
{
	return LLVMDIBuilderCreateMemberType(cg->dib, cg->di_file, name, strlen(name), cg->di_file,
					     0, 64, 64, (uint64_t)off * 8, LLVMDIFlagZero,
					     cg_di_ptr(cg, ty));
}

LLVMValueRef cg_map_global(struct cg *cg, const char *name, const struct cg_mapdef *def)
{
	LLVMMetadataRef members[4], st;
	LLVMTypeRef fields[4], ty;
	LLVMValueRef g;
	unsigned n = 0;

	members[n++] = cg_map_uint_field(cg, "type", def->type, 0);
	members[n++] = cg_map_uint_field(cg, "max_entries", def->max_entries, 8);
	if (def->key) {
		members[n] = cg_map_type_field(cg, "key", def->key, n * 8);
		n++;
	}
	if (def->value) {
		members[n] = cg_map_type_field(cg, "value", def->value, n * 8);
		n++;
	}
	for (unsigned i = 0; i < n; i++)
		fields[i] = cg->t_ptr;
	ty = LLVMStructTypeInContext(cg->ctx, fields, n, false);
	g = LLVMAddGlobal(cg->mod, ty, name);
	LLVMSetInitializer(g, LLVMConstNull(ty));
	LLVMSetSection(g, ".maps");
	LLVMSetAlignment(g, 8);
	LLVMSetLinkage(g, LLVMExternalLinkage);
	st = LLVMDIBuilderCreateStructType(cg->dib, cg->di_file, "", 0, cg->di_file, 0, n * 64, 64,
					   LLVMDIFlagZero, NULL, members, n, 0, NULL, NULL, 0);
	cg_di_global(cg, g, name, st);
	return g;
}

static bool cg_is_agg(const struct type *t)
{
	return t->kind >= TYPE_COUNT && t->kind <= TYPE_AVG;
}

static uint32_t cg_value_size(const struct type *t)
{
	switch (t->kind) {
	case TYPE_COUNT:
	case TYPE_SUM:
		return 8;
	case TYPE_MIN:
	case TYPE_MAX:
	case TYPE_AVG:
		return 16;
	default:
		return t->size;
	}
}

static const struct type *cg_map_key_type(const struct map_info *mi)
{
	return mi->nkeys ? &mi->key : &cg_scalar_key;
}

int cg_maps_define(struct cg *cg)
{
	struct arena *a = cg->prog->arena;
	struct cg_mapdef def;

	for (struct map_info *mi = cg->prog->maps; mi; mi = mi->next) {
		const struct type *kt = cg_map_key_type(mi);

		if (!kt->size || !cg_value_size(&mi->value)) {
			cg_error(cg, mi->first_use, NULL, "map %s has no known key or value type",
				 mi->name);
			continue;
		}
		def = (struct cg_mapdef){
			.type = cg_is_agg(&mi->value) ? CG_MAP_PERCPU_HASH : CG_MAP_HASH,
			.max_entries = CG_MAP_MAX_ENTRIES,
			.key = cg_di_type(cg, kt, arena_printf(a, "%s_key", mi->elf_name)),
			.value =
				cg_di_type(cg, &mi->value, arena_printf(a, "%s_val", mi->elf_name)),
		};
		cg_map_global(cg, mi->elf_name, &def);
	}
	def = (struct cg_mapdef){.type = CG_MAP_RINGBUF, .max_entries = CG_EVENTS_SIZE};
	cg->events = cg_map_global(cg, AOT_EVENTS_MAP, &def);
	return 0;
}

static LLVMValueRef cg_map_ref(struct cg *cg, const struct map_info *mi)
{
	return LLVMGetNamedGlobal(cg->mod, mi->elf_name);
}

/* The key in a stack buffer; tuple keys are zeroed first so pad bytes hash the same. */
static LLVMValueRef cg_map_key(struct cg *cg, struct node *n)
{
	const struct map_info *mi = n->map;
	const struct type *kt = cg_map_key_type(mi);
	LLVMValueRef buf, v;
	struct node *a;
	uint32_t i;

	if (!mi->nkeys) {
		buf = cg_alloca(cg, 8, "key");
		LLVMBuildStore(cg->b, cg_i64(cg, 0), buf);
		return buf;
	}
	if (mi->nkeys == 1) {
		v = cg_expr(cg, n->args);
		buf = cg_alloca(cg, kt->size, "key");
		cg_store(cg, buf, kt, 8, v, &n->args->type);
		return buf;
	}
	buf = cg_alloca_zero(cg, kt->size, "key");
	for (a = n->args, i = 0; a && i < kt->nelems; a = a->next, i++) {
		v = cg_expr(cg, a);
		cg_store(cg, cg_gep(cg, buf, kt->offsets[i]), &kt->elems[i],
			 cg_align_at(8, kt->offsets[i]), v, &a->type);
	}
	return buf;
}

static LLVMValueRef cg_map_lookup(struct cg *cg, LLVMValueRef map, LLVMValueRef key)
{
	LLVMValueRef args[] = {map, key};

	return cg_helper(cg, CG_H_MAP_LOOKUP, cg->t_ptr, args, 2);
}

static void cg_map_update(struct cg *cg, LLVMValueRef map, LLVMValueRef key, LLVMValueRef val,
			  uint64_t flags)
{
	LLVMValueRef args[] = {map, key, val, cg_i64(cg, flags)};

	cg_helper(cg, CG_H_MAP_UPDATE, cg->t_i64, args, 4);
}

LLVMBasicBlockRef cg_block(struct cg *cg, const char *name)
{
	return LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, name);
}

static LLVMValueRef cg_is_null(struct cg *cg, LLVMValueRef p)
{
	return LLVMBuildICmp(cg->b, LLVMIntEQ, p, LLVMConstNull(cg->t_ptr), "isnull");
}

LLVMValueRef cg_map_read(struct cg *cg, struct node *n)
{
	const struct type *vt = &n->map->value;
	LLVMBasicBlockRef hit, miss, join;
	LLVMValueRef p, v, res = NULL, phi, vals[2];
	LLVMBasicBlockRef from[2];

	if (cg_is_agg(vt)) {
		cg_error(cg, n->loc, "print the map at exit instead",
			 "reading an aggregation map in an expression is not supported yet");
		return cg_type_is_buf(&n->type) ? cg_alloca_zero(cg, n->type.size, "")
						: cg_i64(cg, 0);
	}
	p = cg_map_lookup(cg, cg_map_ref(cg, n->map), cg_map_key(cg, n));
	hit = cg_block(cg, "map.hit");
	miss = cg_block(cg, "map.miss");
	join = cg_block(cg, "map.join");
	if (cg_type_is_buf(vt))
		res = cg_alloca(cg, vt->size, "mapval");
	LLVMBuildCondBr(cg->b, cg_is_null(cg, p), miss, hit);

	LLVMPositionBuilderAtEnd(cg->b, hit);
	v = NULL;
	if (res)
		cg_memcpy(cg, res, 8, p, 8, vt->size);
	else
		v = cg_load(cg, p, vt, 8);
	LLVMBuildBr(cg->b, join);

	LLVMPositionBuilderAtEnd(cg->b, miss);
	if (res)
		cg_memset0(cg, res, vt->size, 8);
	LLVMBuildBr(cg->b, join);

	LLVMPositionBuilderAtEnd(cg->b, join);
	if (res)
		return res;
	phi = LLVMBuildPhi(cg->b, cg->t_i64, "mapval");
	vals[0] = v;
	vals[1] = cg_i64(cg, 0);
	from[0] = hit;
	from[1] = miss;
	LLVMAddIncoming(phi, vals, from, 2);
	return phi;
}

void cg_map_write(struct cg *cg, struct node *n, LLVMValueRef val, const struct type *vt)
{
	const struct type *mt = &n->map->value;
	LLVMValueRef key = cg_map_key(cg, n);
	LLVMValueRef buf = cg_alloca(cg, mt->size, "val");

	cg_store(cg, buf, mt, 8, val, vt);
	cg_map_update(cg, cg_map_ref(cg, n->map), key, buf, CG_BPF_ANY);
}

void cg_map_delete(struct cg *cg, struct node *n)
{
	LLVMValueRef args[] = {cg_map_ref(cg, n->map), cg_map_key(cg, n)};

	cg_helper(cg, CG_H_MAP_DELETE, cg->t_i64, args, 2);
}

/* Folds v into the per-CPU value at p; no atomics needed, only this CPU writes its copy. */
static void cg_agg_apply(struct cg *cg, LLVMValueRef p, enum func fn, LLVMValueRef v,
			 bool is_signed)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef p1 = cg_gep(cg, p, 8), cur, set, take, cmp;

	switch (fn) {
	case FN_COUNT:
	case FN_SUM:
		cur = LLVMBuildLoad2(b, cg->t_i64, p, "cur");
		LLVMBuildStore(b, LLVMBuildAdd(b, cur, fn == FN_COUNT ? cg_i64(cg, 1) : v, ""), p);
		break;
	case FN_MIN:
	case FN_MAX:
		cur = LLVMBuildLoad2(b, cg->t_i64, p, "cur");
		set = LLVMBuildLoad2(b, cg->t_i64, p1, "is_set");
		if (fn == FN_MIN)
			cmp = LLVMBuildICmp(b, is_signed ? LLVMIntSLT : LLVMIntULT, v, cur, "");
		else
			cmp = LLVMBuildICmp(b, is_signed ? LLVMIntSGT : LLVMIntUGT, v, cur, "");
		take = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntEQ, set, cg_i64(cg, 0), ""), cmp,
				   "take");
		LLVMBuildStore(b, LLVMBuildSelect(b, take, v, cur, ""), p);
		LLVMBuildStore(b, cg_i64(cg, 1), p1);
		break;
	case FN_AVG:
		cur = LLVMBuildLoad2(b, cg->t_i64, p, "total");
		LLVMBuildStore(b, LLVMBuildAdd(b, cur, v, ""), p);
		cur = LLVMBuildLoad2(b, cg->t_i64, p1, "count");
		LLVMBuildStore(b, LLVMBuildAdd(b, cur, cg_i64(cg, 1), ""), p1);
		break;
	default:
		break;
	}
}

/*
 * Look up; if missing, insert zeros with BPF_NOEXIST and look up again (another CPU may have
 * inserted first, which is fine); then fold the value in place.
 */
void cg_map_aggregate(struct cg *cg, struct node *n, enum func fn, struct node *arg)
{
	const struct type *vt = &n->map->value;
	LLVMValueRef map = cg_map_ref(cg, n->map), v = NULL, key, p, p2, zero, phi, vals[2];
	LLVMBasicBlockRef init, apply, done, from[2];

	if (arg)
		v = cg_expr(cg, arg);
	key = cg_map_key(cg, n);
	p = cg_map_lookup(cg, map, key);
	from[0] = LLVMGetInsertBlock(cg->b);
	init = cg_block(cg, "agg.init");
	apply = cg_block(cg, "agg.apply");
	done = cg_block(cg, "agg.done");
	LLVMBuildCondBr(cg->b, cg_is_null(cg, p), init, apply);

	LLVMPositionBuilderAtEnd(cg->b, init);
	zero = cg_alloca_zero(cg, cg_value_size(vt), "agg.zero");
	cg_map_update(cg, map, key, zero, CG_BPF_NOEXIST);
	p2 = cg_map_lookup(cg, map, key);
	from[1] = LLVMGetInsertBlock(cg->b);
	LLVMBuildCondBr(cg->b, cg_is_null(cg, p2), done, apply);

	LLVMPositionBuilderAtEnd(cg->b, apply);
	phi = LLVMBuildPhi(cg->b, cg->t_ptr, "aggval");
	vals[0] = p;
	vals[1] = p2;
	LLVMAddIncoming(phi, vals, from, 2);
	cg_agg_apply(cg, phi, fn, v, vt->is_signed);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}

LLVMValueRef cg_event_reserve(struct cg *cg, uint32_t size, LLVMBasicBlockRef *done)
{
	LLVMValueRef args[] = {cg->events, cg_i64(cg, size), cg_i64(cg, 0)};
	LLVMValueRef rec = cg_helper(cg, CG_H_RINGBUF_RESERVE, cg->t_ptr, args, 3);
	LLVMBasicBlockRef ok = cg_block(cg, "ev.ok");

	*done = cg_block(cg, "ev.done");
	/* A full ring buffer drops the event; the runtime reports lost events. */
	LLVMBuildCondBr(cg->b, cg_is_null(cg, rec), *done, ok);
	LLVMPositionBuilderAtEnd(cg->b, ok);
	return rec;
}

void cg_event_submit(struct cg *cg, LLVMValueRef rec, LLVMBasicBlockRef done)
{
	LLVMValueRef args[] = {rec, cg_i64(cg, 0)};

	cg_helper(cg, CG_H_RINGBUF_SUBMIT, cg->t_void, args, 2);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}

void cg_event_output(struct cg *cg, LLVMValueRef data, uint32_t size)
{
	LLVMValueRef args[] = {cg->events, data, cg_i64(cg, size), cg_i64(cg, 0)};

	cg_helper(cg, CG_H_RINGBUF_OUTPUT, cg->t_i64, args, 4);
}
