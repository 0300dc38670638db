// SPDX-License-Identifier: GPL-2.0
/*
 * Debug info for the BPF backend, which turns it into .BTF and .BTF.ext: a compile unit, a
 * subprogram per program function (its BTF FUNC, which the verifier checks), and the types of
 * map keys and values so that bpftool can print the maps.
 */
#include <stdio.h>
#include <string.h>

#include "cg_internal.h"

/* DWARF base type encodings (DW_ATE_*). */
#define CG_ATE_BOOLEAN 0x02
#define CG_ATE_SIGNED 0x05
#define CG_ATE_SIGNED_CHAR 0x06
#define CG_ATE_UNSIGNED 0x08

void cg_di_init(struct cg *cg)
{
	const char *name = cg->prog->src && cg->prog->src->name ? cg->prog->src->name : "aotrace";
	unsigned version = LLVMDebugMetadataVersion();

	cg->dib = LLVMCreateDIBuilder(cg->mod);
	cg->di_file = LLVMDIBuilderCreateFile(cg->dib, name, strlen(name), "", 0);
	cg->di_cu = LLVMDIBuilderCreateCompileUnit(
		cg->dib, LLVMDWARFSourceLanguageC, cg->di_file, "aotrace", 7, true, "", 0, 0, "", 0,
		LLVMDWARFEmissionFull, 0, false, false, "", 0, "", 0);
	/* Without this flag the module counts as having no debug info, and no BTF comes out. */
	LLVMAddModuleFlag(cg->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
			  LLVMValueAsMetadata(LLVMConstInt(cg->t_i32, version, false)));
	/*
	 * BTF is all a BPF loader reads; the DWARF the AsmPrinter would also write is dead weight
	 * (a fifth of a small object). Its DWARF writer stays off for a module that asks for
	 * CodeView without a "Dwarf Version"; CodeView itself is only written for Windows targets.
	 */
	LLVMAddModuleFlag(cg->mod, LLVMModuleFlagBehaviorWarning, "CodeView", 8,
			  LLVMValueAsMetadata(LLVMConstInt(cg->t_i32, 1, false)));
}

static LLVMMetadataRef cg_di_basic(struct cg *cg, const char *name, uint32_t bits, unsigned ate)
{
	return LLVMDIBuilderCreateBasicType(cg->dib, name, strlen(name), bits, ate, LLVMDIFlagZero);
}

LLVMMetadataRef cg_di_int(struct cg *cg, uint32_t size, bool is_signed)
{
	char name[8];

	snprintf(name, sizeof(name), "%c%u", is_signed ? 's' : 'u', size * 8);
	return cg_di_basic(cg, name, size * 8, is_signed ? CG_ATE_SIGNED : CG_ATE_UNSIGNED);
}

LLVMMetadataRef cg_di_c_int(struct cg *cg)
{
	return cg_di_basic(cg, "int", 32, CG_ATE_SIGNED);
}

LLVMMetadataRef cg_di_ptr(struct cg *cg, LLVMMetadataRef pointee)
{
	return LLVMDIBuilderCreatePointerType(cg->dib, pointee, 64, 64, 0, NULL, 0);
}

static LLVMMetadataRef cg_di_struct(struct cg *cg, const char *name, uint32_t size,
				    LLVMMetadataRef *members, unsigned n)
{
	return LLVMDIBuilderCreateStructType(cg->dib, cg->di_file, name, strlen(name), cg->di_file,
					     0, (uint64_t)size * 8, 64, LLVMDIFlagZero, NULL,
					     members, n, 0, NULL, NULL, 0);
}

static LLVMMetadataRef cg_di_member(struct cg *cg, const char *name, LLVMMetadataRef ty,
				    uint32_t size, uint32_t off)
{
	return LLVMDIBuilderCreateMemberType(cg->dib, cg->di_file, name, strlen(name), cg->di_file,
					     0, (uint64_t)size * 8, 8, (uint64_t)off * 8,
					     LLVMDIFlagZero, ty);
}

LLVMMetadataRef cg_di_struct_u64s(struct cg *cg, const char *name, const char *const *fields,
				  const bool *is_signed, unsigned n)
{
	LLVMMetadataRef members[8];

	for (unsigned i = 0; i < n && i < 8; i++)
		members[i] = cg_di_member(cg, fields[i], cg_di_int(cg, 8, is_signed[i]), 8, i * 8);
	return cg_di_struct(cg, name, n * 8, members, n);
}

static LLVMMetadataRef cg_di_agg(struct cg *cg, const struct type *t)
{
	static const char *const minmax[] = { "val", "is_set" };
	static const char *const avg[] = { "total", "count" };
	static const char *const hist[] = { "count", "sum" };
	static const char *const tseries[] = { "val", "meta", "epoch" };
	static const bool s_u[] = { true, false, false }, u_s[] = { false, true };

	if (cg->di_agg[t->kind])
		return cg->di_agg[t->kind];
	switch (t->kind) {
	case TYPE_COUNT:
		cg->di_agg[t->kind] = cg_di_int(cg, 8, false);
		break;
	case TYPE_SUM:
		/* not cached: signedness varies per map */
		return cg_di_int(cg, 8, t->is_signed);
	case TYPE_MIN:
		cg->di_agg[t->kind] = cg_di_struct_u64s(cg, "aot_min", minmax, s_u, 2);
		break;
	case TYPE_MAX:
		cg->di_agg[t->kind] = cg_di_struct_u64s(cg, "aot_max", minmax, s_u, 2);
		break;
	case TYPE_HIST:
		cg->di_agg[t->kind] = cg_di_struct_u64s(cg, "aot_hist", hist, u_s, 2);
		break;
	case TYPE_TSERIES:
		cg->di_agg[t->kind] = cg_di_struct_u64s(cg, "aot_tseries", tseries, s_u, 3);
		break;
	default:
		cg->di_agg[t->kind] = cg_di_struct_u64s(cg, "aot_avg", avg, s_u, 2);
		break;
	}
	return cg->di_agg[t->kind];
}

LLVMMetadataRef cg_di_type(struct cg *cg, const struct type *t, const char *name)
{
	LLVMMetadataRef sub, members[64];
	char fname[16];

	switch (t->kind) {
	case TYPE_INT:
		return cg_di_int(cg, t->size, t->is_signed);
	case TYPE_BOOL:
		return cg_di_basic(cg, "bool", 8, CG_ATE_BOOLEAN);
	case TYPE_STR:
	case TYPE_RECORD: /* a struct by value: its bytes, rendered from the metadata's members */
	case TYPE_BUF:	  /* rendered values: bytes laid out per src/common/meta.h */
	case TYPE_ARRAY:  /* an array value (pton()) */
		sub = LLVMDIBuilderGetOrCreateSubrange(cg->dib, 0, t->size);
		return LLVMDIBuilderCreateArrayType(cg->dib, (uint64_t)t->size * 8, 8,
						    cg_di_basic(cg, "char", 8, CG_ATE_SIGNED_CHAR),
						    &sub, 1);
	case TYPE_TUPLE:
		for (uint32_t i = 0; i < t->nelems && i < 64; i++) {
			const struct type *e = &t->elems[i];

			snprintf(fname, sizeof(fname), "f%u", i);
			members[i] = cg_di_member(cg, fname, cg_di_type(cg, e, fname), e->size,
						  t->offsets[i]);
		}
		return cg_di_struct(cg, name, t->size, members, t->nelems < 64 ? t->nelems : 64);
	case TYPE_COUNT:
	case TYPE_SUM:
	case TYPE_MIN:
	case TYPE_MAX:
	case TYPE_AVG:
		return cg_di_agg(cg, t);
	case TYPE_STATS: /* struct { s64 total; u64 count; }, as avg */
		return cg_di_agg(cg, &(struct type){ .kind = TYPE_AVG });
	case TYPE_HIST:
	case TYPE_LHIST: /* struct { u64 count; s64 sum; } per bucket */
		return cg_di_agg(cg, &(struct type){ .kind = TYPE_HIST });
	case TYPE_TSERIES: /* struct { s64 val; u64 meta; u64 epoch; } per interval slot */
		return cg_di_agg(cg, t);
	default:
		return cg_di_int(cg, t->size ? t->size : 8, false);
	}
}

void cg_di_func(struct cg *cg, LLVMValueRef fn, const char *name, struct loc loc)
{
	LLVMMetadataRef voidp = cg_di_ptr(cg, NULL);
	LLVMMetadataRef types[2] = { cg_di_c_int(cg), voidp };
	LLVMMetadataRef fty, sp;

	fty = LLVMDIBuilderCreateSubroutineType(cg->dib, cg->di_file, types, 2,
						LLVMDIFlagPrototyped);
	sp = LLVMDIBuilderCreateFunction(cg->dib, cg->di_file, name, strlen(name), name,
					 strlen(name), cg->di_file, loc.line, fty, false, true,
					 loc.line, LLVMDIFlagPrototyped, true);
	/*
	 * The kernel rejects a BTF FUNC with an unnamed argument; the backend takes argument
	 * names from the subprogram's retained parameter variables.
	 */
	LLVMDIBuilderCreateParameterVariable(cg->dib, sp, "ctx", 3, 1, cg->di_file, loc.line, voidp,
					     true, LLVMDIFlagZero);
	LLVMSetSubprogram(fn, sp);
	cg->di_sp = sp;
}

void cg_di_set_loc(struct cg *cg, struct loc loc)
{
	if (!cg->di_sp)
		return;
	LLVMSetCurrentDebugLocation2(cg->b, LLVMDIBuilderCreateDebugLocation(
						    cg->ctx, loc.line, loc.col, cg->di_sp, NULL));
}

void cg_di_global(struct cg *cg, LLVMValueRef g, const char *name, LLVMMetadataRef ty)
{
	LLVMMetadataRef gve;

	gve = LLVMDIBuilderCreateGlobalVariableExpression(
		cg->dib, cg->di_cu, name, strlen(name), name, strlen(name), cg->di_file, 0, ty,
		false, LLVMDIBuilderCreateExpression(cg->dib, NULL, 0), NULL, 0);
	LLVMGlobalSetMetadata(g, LLVMGetMDKindIDInContext(cg->ctx, "dbg", 3), gve);
}
