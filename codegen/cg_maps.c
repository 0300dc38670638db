// SPDX-License-Identifier: GPL-2.0
/*
 * Maps: BTF-defined map globals in ".maps" (the layout libbpf's __uint/__type macros produce),
 * and the helper calls that read, write and aggregate into them, plus the ring buffer that
 * carries printf and exit events to the runtime. Value layouts are those of src/common/meta.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "cg_internal.h"
#include "meta.h"

static const struct type cg_scalar_key = { .kind = TYPE_INT, .size = 8 };

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
	LLVMMetadataRef members[5], st;
	LLVMTypeRef fields[5], ty;
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
	if (def->map_flags) {
		members[n] = cg_map_uint_field(cg, "map_flags", def->map_flags, n * 8);
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

int cg_maps_scratch(struct cg *cg)
{
	struct type val = { .kind = TYPE_STR, .size = cg->scratch_max };
	struct cg_mapdef def;
	LLVMValueRef g;

	if (!cg->scratch)
		return 0;
	if (cg->scratch_max > CG_SCRATCH_MAX) {
		cg_error(cg, (struct loc){ 0 },
			 "use fewer or shorter strings (max_strlen) in one probe",
			 "the program needs %u bytes of scratch space, more than the %u of the "
			 "per-CPU map that holds what does not fit in the 512 bytes of BPF stack",
			 cg->scratch_max, CG_SCRATCH_MAX);
		return -E2BIG;
	}
	def = (struct cg_mapdef){
		.type = CG_MAP_PERCPU_ARRAY,
		.max_entries = 1,
		.key = cg_di_int(cg, 4, false),
		.value = cg_di_type(cg, &val, "aot_scratch_val"),
	};
	g = cg_map_global(cg, AOT_SCRATCH_MAP, &def);
	LLVMReplaceAllUsesWith(cg->scratch, g);
	LLVMDeleteGlobal(cg->scratch);
	cg->scratch = g;
	return 0;
}

static bool cg_is_agg(const struct type *t)
{
	return (t->kind >= TYPE_COUNT && t->kind <= TYPE_AVG) ||
	       (t->kind >= TYPE_STATS && t->kind <= TYPE_TSERIES);
}

static bool cg_is_hist(const struct type *t)
{
	return t->kind == TYPE_HIST || t->kind == TYPE_LHIST;
}

/* Maps whose BPF key is the user key and a u64 after it: a hist's bucket, a tseries' slot. */
static bool cg_has_slot(const struct type *t)
{
	return cg_is_hist(t) || t->kind == TYPE_TSERIES;
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
	case TYPE_STATS:
	case TYPE_HIST:
	case TYPE_LHIST:
		return 16;
	case TYPE_TSERIES:
		return 24;
	default:
		return t->size;
	}
}

static const struct type *cg_map_key_type(const struct map_info *mi)
{
	return mi->nkeys ? &mi->key : &cg_scalar_key;
}

static uint32_t cg_round8(uint32_t n)
{
	return (n + 7) / 8 * 8;
}

/* A hist/lhist/tseries map's BPF key: the user key padded to 8 bytes, then the u64 bucket. */
static struct type cg_hist_key_type(struct cg *cg, const struct map_info *mi)
{
	struct arena *a = cg->prog->arena;
	struct type t = { .kind = TYPE_TUPLE, .nelems = 2 };

	if (!mi->nkeys)
		return cg_scalar_key;
	t.elems = arena_alloc(a, 2 * sizeof(*t.elems));
	t.offsets = arena_alloc(a, 2 * sizeof(*t.offsets));
	t.elems[0] = mi->key;
	t.elems[1] = cg_scalar_key;
	t.offsets[0] = 0;
	t.offsets[1] = cg_round8(mi->key.size);
	t.size = t.offsets[1] + 8;
	return t;
}

static uint32_t cg_max_entries(struct cg *cg)
{
	return cg->prog->opts->map_keys_max;
}

/*
 * A hist/lhist without keys and not declared with let: a per-CPU array indexed by bucket,
 * whose lookup the verifier inlines (no hash, nothing to insert first); meta.h's layouts.
 */
static bool cg_hist_is_array(const struct map_info *mi)
{
	return cg_is_hist(&mi->value) && !mi->nkeys && !mi->decl;
}

/* Buckets of a hist (bpftrace's 65 log2 ones) or lhist (its range plus below and above). */
static uint32_t cg_hist_nbuckets(const struct map_info *mi)
{
	int64_t step = mi->lhist_step ? mi->lhist_step : 1;

	if (mi->value.kind == TYPE_HIST)
		return aot_hist_nbuckets(mi->hist_k);
	return (uint32_t)((mi->lhist_max - mi->lhist_min) / step) + 2;
}

/* A map's type and size: as declared (let @m = lruhash(N)), else by what it holds. */
static void cg_map_kind(struct cg *cg, const struct map_info *mi, struct cg_mapdef *def)
{
	const struct node *d = mi->decl;
	bool percpu = cg_is_agg(&mi->value);

	def->type = percpu ? CG_MAP_PERCPU_HASH : CG_MAP_HASH;
	def->max_entries = cg_max_entries(cg);
	if (!d)
		return;
	def->max_entries = (uint32_t)d->num;
	if (strstr(d->str, "lru"))
		def->type = percpu ? CG_MAP_LRU_PERCPU_HASH : CG_MAP_LRU_HASH;
}

/* The maps of builtins: elapsed's start time, kstack's and ustack's stack traces. */
static void cg_maps_builtin(struct cg *cg)
{
	static const char *const state_fields[] = { "start_ns",	 "stopped",   "ncpus", "cpid",
						    "pidns_dev", "pidns_ino", "tai_ns" };
	enum { NFIELDS = sizeof(state_fields) / sizeof(*state_fields) };
	static const bool state_signed[NFIELDS] = { false };
	struct type frames = { .kind = TYPE_STR, .size = 8 * AOT_STACK_MAX_DEPTH };
	struct cg_mapdef def;

	/*
	 * Always: it holds the stop flag every program checks first. A global in a data section
	 * of its own, which libbpf makes a one-entry array: the programs read it at its address
	 * (BPF_PSEUDO_MAP_VALUE), with no lookup.
	 */
	LLVMTypeRef st_fields[NFIELDS], st;

	for (int i = 0; i < NFIELDS; i++)
		st_fields[i] = cg->t_i64;
	st = LLVMStructTypeInContext(cg->ctx, st_fields, NFIELDS, false);

	cg->state = LLVMAddGlobal(cg->mod, st, AOT_STATE_MAP);
	LLVMSetInitializer(cg->state, LLVMConstNull(st));
	LLVMSetSection(cg->state, AOT_STATE_SECTION);
	LLVMSetAlignment(cg->state, 8);
	LLVMSetLinkage(cg->state, LLVMExternalLinkage);
	cg_di_global(cg, cg->state, AOT_STATE_MAP,
		     cg_di_struct_u64s(cg, "aot_state", state_fields, state_signed, NFIELDS));
	def = (struct cg_mapdef){
		.type = CG_MAP_PERCPU_ARRAY,
		.max_entries = 1,
		.key = cg_di_int(cg, 4, false),
		.value = cg_di_int(cg, 8, false),
	};
	cg->lost = cg_map_global(cg, AOT_LOST_MAP, &def);
	if (cg->prog->nmaps) {
		def.max_entries = cg->prog->nmaps * AOT_ERR_NKINDS;
		cg->errors = cg_map_global(cg, AOT_ERRORS_MAP, &def);
	}
	def = (struct cg_mapdef){
		.type = CG_MAP_STACK_TRACE,
		.max_entries = cg_max_entries(cg),
		.key = cg_di_int(cg, 4, false),
		.value = cg_di_type(cg, &frames, "aot_frames"),
	};
	if (cg->prog->uses_kstack)
		cg->kstacks = cg_map_global(cg, AOT_KSTACK_MAP, &def);
	if (cg->prog->uses_ustack)
		cg->ustacks = cg_map_global(cg, AOT_USTACK_MAP, &def);
	/* max_entries 0: libbpf makes it one entry per possible CPU */
	def = (struct cg_mapdef){
		.type = CG_MAP_PERF_EVENT_ARRAY,
		.key = cg_di_int(cg, 4, false),
		.value = cg_di_int(cg, 4, false),
	};
	if (cg->prog->uses_skboutput)
		cg->skb = cg_map_global(cg, AOT_SKB_MAP, &def);
}

/*
 * ustack(build_id)'s stack trace map: the kernel stores each frame as a struct
 * aot_stack_build_id (32 bytes) instead of an address. Made by the first call that captures
 * one, as sema only raises the metadata version for it.
 */
LLVMValueRef cg_map_ustack_build_id(struct cg *cg)
{
	struct type frames = { .kind = TYPE_STR,
			       .size = sizeof(struct aot_stack_build_id) * AOT_STACK_MAX_DEPTH };
	struct cg_mapdef def = {
		.type = CG_MAP_STACK_TRACE,
		.max_entries = cg_max_entries(cg),
		.key = cg_di_int(cg, 4, false),
		.map_flags = CG_BPF_F_STACK_BUILD_ID,
	};

	if (!cg->ustacks_bid) {
		def.value = cg_di_type(cg, &frames, "aot_build_id_frames");
		cg->ustacks_bid = cg_map_global(cg, AOT_USTACK_BUILDID_MAP, &def);
	}
	return cg->ustacks_bid;
}

int cg_maps_define(struct cg *cg)
{
	struct arena *a = cg->prog->arena;
	struct cg_mapdef def;

	for (struct map_info *mi = cg->prog->maps; mi; mi = mi->next) {
		const struct type *kt = cg_map_key_type(mi);
		struct type hk;

		if (cg_hist_is_array(mi)) {
			def = (struct cg_mapdef){
				.type = CG_MAP_PERCPU_ARRAY,
				.max_entries = cg_hist_nbuckets(mi),
				.key = cg_di_int(cg, 4, false),
				.value = cg_di_type(cg, &mi->value,
						    arena_printf(a, "%s_val", mi->elf_name)),
			};
			cg_map_global(cg, mi->elf_name, &def);
			continue;
		}
		if (cg_has_slot(&mi->value)) {
			hk = cg_hist_key_type(cg, mi);
			kt = &hk;
		}
		if (!kt->size || !cg_value_size(&mi->value)) {
			cg_error(cg, mi->first_use, NULL, "map %s has no known key or value type",
				 mi->name);
			continue;
		}
		def = (struct cg_mapdef){
			.key = cg_di_type(cg, kt, arena_printf(a, "%s_key", mi->elf_name)),
			.value =
				cg_di_type(cg, &mi->value, arena_printf(a, "%s_val", mi->elf_name)),
		};
		cg_map_kind(cg, mi, &def);
		cg_map_global(cg, mi->elf_name, &def);
	}
	def = (struct cg_mapdef){ .type = CG_MAP_RINGBUF, .max_entries = CG_EVENTS_SIZE };
	cg->events = cg_map_global(cg, AOT_EVENTS_MAP, &def);
	cg_maps_builtin(cg);
	return 0;
}

LLVMValueRef cg_map_ref(struct cg *cg, const struct map_info *mi)
{
	return LLVMGetNamedGlobal(cg->mod, mi->elf_name);
}

/*
 * The key in a stack buffer; tuple keys are zeroed first so pad bytes hash the same. extra bytes
 * follow the key, 8-aligned (a hist's bucket).
 */
static LLVMValueRef cg_map_key_ex(struct cg *cg, struct node *n, uint32_t extra)
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
	/* one key, or one tuple value holding all of them: @m[$k] with $k = (a, b) */
	if (mi->nkeys == 1 || !n->args->next) {
		v = cg_expr(cg, n->args);
		/*
		 * A builtin's string (comm) is already a zeroed stack buffer of the key's size that
		 * nothing writes again: it is the key, without a copy (per event: @[comm]).
		 */
		if (!extra && n->args->kind == NODE_BUILTIN && kt->kind == TYPE_STR &&
		    n->args->type.kind == TYPE_STR && n->args->type.size == kt->size &&
		    LLVMIsAAllocaInst(v))
			return v;
		if (extra) {
			buf = cg_alloca_zero(cg, cg_round8(kt->size) + extra, "key");
		} else {
			buf = cg_alloca(cg, kt->size, "key");
		}
		cg_store(cg, buf, kt, 8, v, &n->args->type);
		return buf;
	}
	buf = cg_alloca_zero(cg, cg_round8(kt->size) + extra, "key");
	for (a = n->args, i = 0; a && i < kt->nelems; a = a->next, i++) {
		v = cg_expr(cg, a);
		cg_store(cg, cg_gep(cg, buf, kt->offsets[i]), &kt->elems[i],
			 cg_align_at(8, kt->offsets[i]), v, &a->type);
	}
	return buf;
}

LLVMValueRef cg_map_key(struct cg *cg, struct node *n)
{
	return cg_map_key_ex(cg, n, 0);
}

LLVMValueRef cg_map_lookup(struct cg *cg, LLVMValueRef map, LLVMValueRef key)
{
	LLVMValueRef args[] = { map, key };

	return cg_helper(cg, CG_H_MAP_LOOKUP, cg->t_ptr, args, 2);
}

static LLVMValueRef cg_is_null(struct cg *cg, LLVMValueRef p);

/* An update whose failures are counted per map: the key limit (-E2BIG), or anything else. */
static void cg_map_update(struct cg *cg, const struct map_info *mi, LLVMValueRef map,
			  LLVMValueRef key, LLVMValueRef val, uint64_t flags)
{
	LLVMValueRef args[] = { map, key, val, cg_i64(cg, flags) };
	LLVMValueRef ret = cg_helper(cg, CG_H_MAP_UPDATE, cg->t_i64, args, 4);
	LLVMBasicBlockRef failed, full, other, done;

	if (!cg->errors || !mi)
		return;
	failed = cg_block(cg, "upd.failed");
	full = cg_block(cg, "upd.full");
	other = cg_block(cg, "upd.other");
	done = cg_block(cg, "upd.done");
	/* -EEXIST only means another CPU created the entry first (BPF_NOEXIST). */
	LLVMBuildCondBr(
		cg->b,
		LLVMBuildAnd(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, ret, cg_i64(cg, 0), ""),
			     LLVMBuildICmp(cg->b, LLVMIntNE, ret, cg_i64(cg, (uint64_t)-17), ""),
			     ""),
		failed, done);
	LLVMPositionBuilderAtEnd(cg->b, failed);
	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, ret, cg_i64(cg, (uint64_t)-7), ""),
			full, other);
	LLVMPositionBuilderAtEnd(cg->b, full);
	cg_count_in(cg, cg->errors, mi->meta_idx * AOT_ERR_NKINDS + AOT_ERR_MAP_FULL);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, other);
	cg_count_in(cg, cg->errors, mi->meta_idx * AOT_ERR_NKINDS + AOT_ERR_MAP_UPDATE);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}

void cg_count_in(struct cg *cg, LLVMValueRef map, uint32_t idx)
{
	LLVMValueRef key = cg_alloca(cg, 4, "cnt.key"), args[2], p, v;
	LLVMBasicBlockRef hit = cg_block(cg, "cnt.hit"), done = cg_block(cg, "cnt.done");

	LLVMBuildStore(cg->b, cg_i32(cg, idx), key);
	args[0] = map;
	args[1] = key;
	p = cg_helper(cg, CG_H_MAP_LOOKUP, cg->t_ptr, args, 2);
	LLVMBuildCondBr(cg->b, cg_is_null(cg, p), done, hit);
	LLVMPositionBuilderAtEnd(cg->b, hit);
	v = LLVMBuildLoad2(cg->b, cg->t_i64, p, "");
	LLVMBuildStore(cg->b, LLVMBuildAdd(cg->b, v, cg_i64(cg, 1), ""), p);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}

/*
 * A field of the run's struct aot_state, read or written at its address: volatile, since the
 * runtime changes it under the programs and nothing in the module stores it otherwise.
 */
LLVMValueRef cg_state_load(struct cg *cg, uint32_t off, const char *name)
{
	LLVMValueRef v = LLVMBuildLoad2(cg->b, cg->t_i64, cg_gep(cg, cg->state, off), name);

	LLVMSetVolatile(v, true);
	LLVMSetAlignment(v, 8);
	return v;
}

void cg_stop_check(struct cg *cg)
{
	LLVMValueRef stopped = cg_state_load(cg, offsetof(struct aot_state, stopped), "stopped");
	LLVMBasicBlockRef stop = cg_block(cg, "stop"), go = cg_block(cg, "go");

	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, stopped, cg_i64(cg, 0), ""), stop,
			go);
	LLVMPositionBuilderAtEnd(cg->b, stop);
	LLVMBuildRet(cg->b, cg_i32(cg, 0));
	LLVMPositionBuilderAtEnd(cg->b, go);
}

void cg_stop_set(struct cg *cg)
{
	LLVMValueRef st = LLVMBuildStore(
		cg->b, cg_i64(cg, 1), cg_gep(cg, cg->state, offsetof(struct aot_state, stopped)));

	LLVMSetVolatile(st, true);
	LLVMSetAlignment(st, 8);
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

	if (cg_is_hist(vt) || vt->kind == TYPE_STATS) {
		cg_error(cg, n->loc, "print the map instead",
			 "a %s map cannot be read in an expression",
			 vt->kind == TYPE_STATS ? "stats" : "histogram");
		return cg_i64(cg, 0);
	}
	return cg_map_read_at(cg, n, cg_map_key(cg, n));
}

LLVMValueRef cg_map_read_at(struct cg *cg, struct node *n, LLVMValueRef key)
{
	const struct type *vt = &n->map->value;
	LLVMBasicBlockRef hit, miss, join;
	LLVMValueRef p, v, res = NULL, phi, vals[2];
	LLVMBasicBlockRef from[2];

	p = cg_map_lookup(cg, cg_map_ref(cg, n->map), key);
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
	else if (cg_is_agg(vt))
		v = cg_agg_value(cg, p, vt);
	else
		v = cg_load(cg, p, vt, 8);
	hit = LLVMGetInsertBlock(cg->b);
	LLVMBuildBr(cg->b, join);

	LLVMPositionBuilderAtEnd(cg->b, miss);
	if (res)
		cg_memset0(cg, res, vt->size, 8);
	/* -kk, as bpftrace 0.17: "Failed to map_lookup_elem: 0" where the key is missing */
	cg_helper_failed(cg, CG_H_MAP_LOOKUP, cg_i64(cg, 0));
	miss = LLVMGetInsertBlock(cg->b);
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
	cg_map_write_at(cg, n, cg_map_key(cg, n), val, vt);
}

void cg_map_write_at(struct cg *cg, struct node *n, LLVMValueRef key, LLVMValueRef val,
		     const struct type *vt)
{
	const struct type *mt = &n->map->value;
	LLVMValueRef buf = cg_alloca(cg, mt->size, "val");

	cg_store(cg, buf, mt, 8, val, vt);
	cg_map_update(cg, n->map, cg_map_ref(cg, n->map), key, buf, CG_BPF_ANY);
}

LLVMValueRef cg_map_delete(struct cg *cg, struct node *n)
{
	LLVMValueRef args[] = { cg_map_ref(cg, n->map), cg_map_key(cg, n) };
	LLVMValueRef ret = cg_helper(cg, CG_H_MAP_DELETE, cg->t_i64, args, 2);
	LLVMBasicBlockRef failed, done;

	/* Deleting a key that is not there is counted; the runtime mentions it with -v. */
	if (!cg->errors)
		return ret;
	failed = cg_block(cg, "del.failed");
	done = cg_block(cg, "del.done");
	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, ret, cg_i64(cg, 0), ""), failed,
			done);
	LLVMPositionBuilderAtEnd(cg->b, failed);
	cg_count_in(cg, cg->errors, n->map->meta_idx * AOT_ERR_NKINDS + AOT_ERR_MAP_DELETE);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
	return ret;
}

/*
 * Folds v into the per-CPU value at p, by the aggregation's value kind (the map's value type,
 * which its row gave); no atomics needed, only this CPU writes its copy.
 */
static void cg_agg_apply(struct cg *cg, LLVMValueRef p, enum type_kind kind, LLVMValueRef v,
			 bool is_signed)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef p1 = cg_gep(cg, p, 8), cur, set, take, cmp;

	switch (kind) {
	case TYPE_COUNT:
	case TYPE_SUM:
		if (kind == TYPE_COUNT)
			v = cg_i64(cg, 1);
		cur = LLVMBuildLoad2(b, cg->t_i64, p, "cur");
		LLVMBuildStore(b, LLVMBuildAdd(b, cur, v, ""), p);
		break;
	case TYPE_HIST:
	case TYPE_LHIST:
		/* The bucket's count (the bucket is in the key), and the sum of its values:
		 * Prometheus's histogram _sum. */
		cur = LLVMBuildLoad2(b, cg->t_i64, p, "count");
		LLVMBuildStore(b, LLVMBuildAdd(b, cur, cg_i64(cg, 1), ""), p);
		cur = LLVMBuildLoad2(b, cg->t_i64, p1, "sum");
		LLVMBuildStore(b, LLVMBuildAdd(b, cur, v, ""), p1);
		break;
	case TYPE_MIN:
	case TYPE_MAX:
		cur = LLVMBuildLoad2(b, cg->t_i64, p, "cur");
		set = LLVMBuildLoad2(b, cg->t_i64, p1, "is_set");
		if (kind == TYPE_MIN)
			cmp = LLVMBuildICmp(b, is_signed ? LLVMIntSLT : LLVMIntULT, v, cur, "");
		else
			cmp = LLVMBuildICmp(b, is_signed ? LLVMIntSGT : LLVMIntUGT, v, cur, "");
		take = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntEQ, set, cg_i64(cg, 0), ""), cmp,
				   "take");
		LLVMBuildStore(b, LLVMBuildSelect(b, take, v, cur, ""), p);
		LLVMBuildStore(b, cg_i64(cg, 1), p1);
		break;
	case TYPE_AVG:
	case TYPE_STATS:
		cur = LLVMBuildLoad2(b, cg->t_i64, p, "total");
		LLVMBuildStore(b, LLVMBuildAdd(b, cur, v, ""), p);
		cur = LLVMBuildLoad2(b, cg->t_i64, p1, "count");
		LLVMBuildStore(b, LLVMBuildAdd(b, cur, cg_i64(cg, 1), ""), p1);
		break;
	default:
		break;
	}
}

LLVMValueRef cg_agg_value(struct cg *cg, LLVMValueRef p, const struct type *vt)
{
	LLVMValueRef v = LLVMBuildLoad2(cg->b, cg->t_i64, p, "agg");

	if (vt->kind == TYPE_AVG)
		return cg_arith(cg, '/', v, LLVMBuildLoad2(cg->b, cg->t_i64, cg_gep(cg, p, 8), "n"),
				vt->is_signed);
	return v;
}

/*
 * bpftrace's log2 buckets: 0 for negative values, 1 for 0, k + 2 for [2^k, 2^(k+1)). Six
 * compare-and-shift steps instead of a loop the verifier would have to walk.
 */
static LLVMValueRef cg_log2_bucket(struct cg *cg, LLVMValueRef v)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef n = v, r = cg_i64(cg, 0), big, neg, zero;

	for (int s = 32; s >= 1; s /= 2) {
		big = LLVMBuildICmp(b, LLVMIntUGE, n, cg_i64(cg, 1ull << s), "");
		n = LLVMBuildSelect(b, big, LLVMBuildLShr(b, n, cg_i64(cg, s), ""), n, "");
		r = LLVMBuildSelect(b, big, LLVMBuildAdd(b, r, cg_i64(cg, s), ""), r, "");
	}
	r = LLVMBuildAdd(b, r, cg_i64(cg, 2), "");
	zero = LLVMBuildICmp(b, LLVMIntEQ, v, cg_i64(cg, 0), "");
	neg = LLVMBuildICmp(b, LLVMIntSLT, v, cg_i64(cg, 0), "");
	r = LLVMBuildSelect(b, zero, cg_i64(cg, 1), r, "");
	return LLVMBuildSelect(b, neg, cg_i64(cg, 0), r, "bucket");
}

/* lhist: 0 below min, 1 + (v - min) / step up to max, one bucket above max. */
static LLVMValueRef cg_linear_bucket(struct cg *cg, const struct map_info *mi, LLVMValueRef v)
{
	LLVMBuilderRef b = cg->b;
	int64_t lo = mi->lhist_min, hi = mi->lhist_max, step = mi->lhist_step ? mi->lhist_step : 1;
	LLVMValueRef below = LLVMBuildICmp(b, LLVMIntSLT, v, cg_i64(cg, (uint64_t)lo), "");
	LLVMValueRef above = LLVMBuildICmp(b, LLVMIntSGT, v, cg_i64(cg, (uint64_t)hi), "");
	LLVMValueRef in =
		LLVMBuildAdd(b,
			     LLVMBuildUDiv(b, LLVMBuildSub(b, v, cg_i64(cg, (uint64_t)lo), ""),
					   cg_i64(cg, (uint64_t)step), ""),
			     cg_i64(cg, 1), "");

	in = LLVMBuildSelect(b, above, cg_i64(cg, 1 + (uint64_t)((hi - lo) / step)), in, "");
	return LLVMBuildSelect(b, below, cg_i64(cg, 0), in, "bucket");
}

/*
 * hist(v, k) with k > 0, bpftrace 0.27's buckets (meta.h's aot_hist_nbuckets): 0 below 0, v + 1
 * below 2^k, else for v in [2^p, 2^(p+1)) 1 + ((p - k + 1) << k) + the k bits after v's top one.
 */
static LLVMValueRef cg_log2k_bucket(struct cg *cg, LLVMValueRef v, uint32_t k)
{
	LLVMBuilderRef b = cg->b;
	uint64_t mask = (1ull << k) - 1;
	LLVMValueRef n = v, p = cg_i64(cg, 0), big, shift, r;

	/* p: the position of v's top one (v >= 2^k here, where r is the result) */
	for (int s = 32; s >= 1; s /= 2) {
		big = LLVMBuildICmp(b, LLVMIntUGE, n, cg_i64(cg, 1ull << s), "");
		n = LLVMBuildSelect(b, big, LLVMBuildLShr(b, n, cg_i64(cg, s), ""), n, "");
		p = LLVMBuildSelect(b, big, LLVMBuildAdd(b, p, cg_i64(cg, s), ""), p, "");
	}
	shift = LLVMBuildSub(b, p, cg_i64(cg, k), "");
	/* below 2^k, shift is negative: r is not taken, but the shift must stay in range */
	shift = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, shift, cg_i64(cg, 0), ""),
				cg_i64(cg, 0), shift, "");
	r = LLVMBuildAdd(
		b, LLVMBuildShl(b, LLVMBuildAdd(b, shift, cg_i64(cg, 1), ""), cg_i64(cg, k), ""),
		LLVMBuildAdd(b,
			     LLVMBuildAnd(b, LLVMBuildLShr(b, v, shift, ""), cg_i64(cg, mask), ""),
			     cg_i64(cg, 1), ""),
		"");
	r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULE, v, cg_i64(cg, mask), ""),
			    LLVMBuildAdd(b, v, cg_i64(cg, 1), ""), r, "");
	return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, v, cg_i64(cg, 0), ""), cg_i64(cg, 0),
			       r, "bucket");
}

static LLVMValueRef cg_hist_bucket(struct cg *cg, const struct map_info *mi, LLVMValueRef v)
{
	if (mi->value.kind != TYPE_HIST)
		return cg_linear_bucket(cg, mi, v);
	return mi->hist_k ? cg_log2k_bucket(cg, v, mi->hist_k) : cg_log2_bucket(cg, v);
}

/*
 * A keyless hist's array: its bucket's entry always exists (the bucket is always below
 * max_entries), so a lookup the verifier inlines and the fold, nothing to insert.
 */
static void cg_hist_array_add(struct cg *cg, struct node *n, LLVMValueRef v)
{
	LLVMValueRef key = cg_alloca(cg, 4, "bucket"), p;
	LLVMBasicBlockRef apply = cg_block(cg, "hist.apply"), done = cg_block(cg, "hist.done");

	LLVMBuildStore(cg->b, LLVMBuildTrunc(cg->b, cg_hist_bucket(cg, n->map, v), cg->t_i32, ""),
		       key);
	p = cg_map_lookup(cg, cg_map_ref(cg, n->map), key);
	LLVMBuildCondBr(cg->b, cg_is_null(cg, p), done, apply);
	LLVMPositionBuilderAtEnd(cg->b, apply);
	cg_agg_apply(cg, p, n->map->value.kind, v, n->map->value.is_signed);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}

/* A tseries' moment: TAI time in ns and the interval it falls in. */
struct cg_tseries_now {
	LLVMValueRef now, epoch;
};

/*
 * The interval as bpftrace 0.27 counts it (sw_tai): TAI time is boot time plus the offset the
 * runtime wrote (aot_state.tai_ns), so that intervals begin on the wall clock's round numbers
 * on kernels without bpf_ktime_get_tai_ns too.
 */
static LLVMValueRef cg_tseries_slot(struct cg *cg, const struct map_info *mi,
				    struct cg_tseries_now *t)
{
	LLVMValueRef boot = cg_helper(cg, CG_H_KTIME_GET_BOOT_NS, cg->t_i64, NULL, 0);
	LLVMValueRef off = cg_state_load(cg, offsetof(struct aot_state, tai_ns), "tai_ns");

	t->now = LLVMBuildAdd(cg->b, boot, off, "now");
	t->epoch =
		LLVMBuildUDiv(cg->b, t->now, cg_i64(cg, (uint64_t)mi->tseries_interval), "epoch");
	return LLVMBuildURem(cg->b, t->epoch, cg_i64(cg, (uint64_t)mi->tseries_count), "slot");
}

/*
 * A slot holding another interval's value starts over; then the value is folded in as
 * bpftrace 0.27 folds it (meta.h): the last one with its time, or as sum, avg, min or max do.
 */
static void cg_tseries_apply(struct cg *cg, LLVMValueRef p, const struct map_info *mi,
			     LLVMValueRef v, const struct cg_tseries_now *t)
{
	static const enum type_kind fold[] = {
		[AOT_TSERIES_AVG] = TYPE_AVG,
		[AOT_TSERIES_MAX] = TYPE_MAX,
		[AOT_TSERIES_MIN] = TYPE_MIN,
		[AOT_TSERIES_SUM] = TYPE_SUM,
	};
	LLVMBuilderRef b = cg->b;
	LLVMValueRef pm = cg_gep(cg, p, 8), pe = cg_gep(cg, p, 16), stale;

	if (mi->tseries_fn == AOT_TSERIES_LAST) {
		LLVMBuildStore(b, v, p);
		LLVMBuildStore(b, t->now, pm);
	} else {
		stale = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildLoad2(b, cg->t_i64, pe, "epoch.was"),
				      t->epoch, "stale");
		LLVMBuildStore(b,
			       LLVMBuildSelect(b, stale, cg_i64(cg, 0),
					       LLVMBuildLoad2(b, cg->t_i64, p, ""), ""),
			       p);
		LLVMBuildStore(b,
			       LLVMBuildSelect(b, stale, cg_i64(cg, 0),
					       LLVMBuildLoad2(b, cg->t_i64, pm, ""), ""),
			       pm);
		cg_agg_apply(cg, p, fold[mi->tseries_fn], v, mi->value.is_signed);
	}
	LLVMBuildStore(b, t->epoch, pe);
}

/*
 * Look up; if missing, insert zeros with BPF_NOEXIST and look up again (another CPU may have
 * inserted first, which is fine); then fold the value in place (fold, or the map's own).
 */
static void cg_agg_fold(struct cg *cg, const struct map_info *mi, LLVMValueRef key,
			enum type_kind fold, LLVMValueRef v, const struct cg_tseries_now *now)
{
	const struct type *vt = &mi->value;
	LLVMValueRef map = cg_map_ref(cg, mi), p, p2, zero, phi, vals[2];
	LLVMBasicBlockRef init, apply, done, from[2];

	p = cg_map_lookup(cg, map, key);
	from[0] = LLVMGetInsertBlock(cg->b);
	init = cg_block(cg, "agg.init");
	apply = cg_block(cg, "agg.apply");
	done = cg_block(cg, "agg.done");
	LLVMBuildCondBr(cg->b, cg_is_null(cg, p), init, apply);

	LLVMPositionBuilderAtEnd(cg->b, init);
	zero = cg_alloca_zero(cg, cg_value_size(vt), "agg.zero");
	cg_map_update(cg, mi, map, key, zero, CG_BPF_NOEXIST);
	p2 = cg_map_lookup(cg, map, key);
	from[1] = LLVMGetInsertBlock(cg->b);
	LLVMBuildCondBr(cg->b, cg_is_null(cg, p2), done, apply);

	LLVMPositionBuilderAtEnd(cg->b, apply);
	phi = LLVMBuildPhi(cg->b, cg->t_ptr, "aggval");
	vals[0] = p;
	vals[1] = p2;
	LLVMAddIncoming(phi, vals, from, 2);
	if (vt->kind == TYPE_TSERIES)
		cg_tseries_apply(cg, phi, mi, v, now);
	else
		cg_agg_apply(cg, phi, fold, v, vt->is_signed);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}

void cg_map_add_at(struct cg *cg, const struct map_info *mi, LLVMValueRef key, LLVMValueRef v)
{
	cg_agg_fold(cg, mi, key, TYPE_SUM, v, NULL);
}

void cg_map_aggregate(struct cg *cg, struct node *n, struct node *arg)
{
	const struct type *vt = &n->map->value;
	LLVMValueRef v = NULL, key;
	struct cg_tseries_now now = { 0 };

	if (n->map->lastkey) {
		cg_lastkey_count(cg, n);
		return;
	}
	if (arg)
		v = cg_expr(cg, arg);
	if (cg_hist_is_array(n->map)) {
		cg_hist_array_add(cg, n, v);
		return;
	}
	if (cg_has_slot(vt)) {
		LLVMValueRef bucket = vt->kind == TYPE_TSERIES ? cg_tseries_slot(cg, n->map, &now)
							       : cg_hist_bucket(cg, n->map, v);
		uint32_t off = n->map->nkeys ? cg_round8(n->map->key.size) : 0;

		key = cg_map_key_ex(cg, n, n->map->nkeys ? 8 : 0);
		LLVMSetAlignment(LLVMBuildStore(cg->b, bucket, cg_gep(cg, key, off)), 8);
	} else {
		key = cg_map_key(cg, n);
	}
	cg_agg_fold(cg, n->map, key, vt->kind, v, &now);
}

LLVMValueRef cg_event_reserve(struct cg *cg, uint32_t size, LLVMBasicBlockRef *done)
{
	LLVMValueRef args[] = { cg->events, cg_i64(cg, size), cg_i64(cg, 0) };
	LLVMValueRef rec = cg_helper(cg, CG_H_RINGBUF_RESERVE, cg->t_ptr, args, 3);
	LLVMBasicBlockRef ok = cg_block(cg, "ev.ok");

	LLVMBasicBlockRef lost = cg_block(cg, "ev.lost");

	*done = cg_block(cg, "ev.done");
	/* A full ring buffer drops the event; it is counted, and the runtime reports it. */
	LLVMBuildCondBr(cg->b, cg_is_null(cg, rec), lost, ok);
	LLVMPositionBuilderAtEnd(cg->b, lost);
	cg_count_in(cg, cg->lost, 0);
	LLVMBuildBr(cg->b, *done);
	LLVMPositionBuilderAtEnd(cg->b, ok);
	return rec;
}

void cg_event_submit(struct cg *cg, LLVMValueRef rec, LLVMBasicBlockRef done)
{
	LLVMValueRef args[] = { rec, cg_i64(cg, 0) };

	cg_helper(cg, CG_H_RINGBUF_SUBMIT, cg->t_void, args, 2);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}

void cg_event_output(struct cg *cg, LLVMValueRef data, uint32_t size)
{
	LLVMValueRef args[] = { cg->events, data, cg_i64(cg, size), cg_i64(cg, 0) };
	LLVMValueRef ret = cg_helper(cg, CG_H_RINGBUF_OUTPUT, cg->t_i64, args, 4);
	LLVMBasicBlockRef lost = cg_block(cg, "out.lost"), done = cg_block(cg, "out.done");

	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, ret, cg_i64(cg, 0), ""), lost,
			done);
	LLVMPositionBuilderAtEnd(cg->b, lost);
	cg_count_in(cg, cg->lost, 0);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}
