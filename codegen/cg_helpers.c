// SPDX-License-Identifier: GPL-2.0
/*
 * BPF helper calls, and -k's reports of their failures: with -k (or -kk for reads), a helper's
 * error return sends an event naming the call site in the script, which the runtime prints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "cg_internal.h"
#include "meta.h"

/* BPF helpers are called through their id as a constant address, as libbpf's headers do. */
/*
 * -k and -kk (bpftrace's): the helpers whose failures are reported where they happen, with the
 * level that turns each on (reads only with -kk, as they fail routinely on unmapped memory).
 */
static const struct {
	const char *name;
	uint32_t level;
} cg_checked[] = {
	[CG_H_MAP_LOOKUP] = { "map_lookup_elem", 2 }, /* a read of a missing key */
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
	const struct source *src = cg->d ? diags_source(cg->d, cg->loc) : NULL;
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

static bool cg_helper_checked(struct cg *cg, enum cg_helper id)
{
	return (size_t)id < sizeof(cg_checked) / sizeof(cg_checked[0]) && cg_checked[id].level &&
	       cg->prog->opts->helper_check >= cg_checked[id].level && cg->events;
}

void cg_helper_failed(struct cg *cg, enum cg_helper id, LLVMValueRef ret)
{
	int idx;
	LLVMValueRef ev;

	if (!cg_helper_checked(cg, id) || (idx = cg_helper_site(cg, id)) < 0)
		return;
	ev = cg_alloca(cg, sizeof(struct aot_event_hdr) + 8, "helper.err");
	cg_event_hdr(cg, ev, AOT_EV_FORMAT, (uint32_t)idx);
	LLVMBuildStore(cg->b, ret, cg_gep(cg, ev, sizeof(struct aot_event_hdr)));
	cg_event_output(cg, ev, sizeof(struct aot_event_hdr) + 8);
}

/* -k: when the helper's return ret is an error, an event says where (the runtime prints it). */
static void cg_helper_check(struct cg *cg, enum cg_helper id, LLVMValueRef ret)
{
	LLVMBasicBlockRef failed, done;
	LLVMValueRef bad;

	if (!cg_helper_checked(cg, id))
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
	cg_helper_failed(cg, id, ret);
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

/*
 * extern RET name(PARAMS...) __ksym __weak: a kfunc the program calls, with the prototype in
 * debug info that makes the backend write its BTF FUNC in .ksyms (libbpf compares it with the
 * kernel's: the kinds must agree, pointees of records by kind only). Weak, so that an object
 * loads where the kernel lacks it: the address of the extern is then 0 (cg_kfunc_exists).
 */
LLVMValueRef cg_kfunc_extern(struct cg *cg, const char *name, LLVMTypeRef *fty, LLVMTypeRef ret,
			     LLVMMetadataRef ret_di, LLVMTypeRef *params,
			     LLVMMetadataRef *params_di, unsigned nparams)
{
	LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
	LLVMMetadataRef types[6], sty, sp;

	*fty = LLVMFunctionType(ret, params, nparams, false);
	if (fn)
		return fn;
	fn = LLVMAddFunction(cg->mod, name, *fty);
	LLVMSetLinkage(fn, LLVMExternalWeakLinkage);
	LLVMSetSection(fn, ".ksyms");
	types[0] = ret_di;
	for (unsigned i = 0; i < nparams && i < 5; i++)
		types[i + 1] = params_di[i];
	sty = LLVMDIBuilderCreateSubroutineType(cg->dib, cg->di_file, types, nparams + 1,
						LLVMDIFlagPrototyped);
	sp = LLVMDIBuilderCreateFunction(cg->dib, cg->di_file, name, strlen(name), name,
					 strlen(name), cg->di_file, 0, sty, false, false, 0,
					 LLVMDIFlagPrototyped, true);
	LLVMSetSubprogram(fn, sp);
	return fn;
}

/* Whether the kernel has the weak kfunc fn (libbpf resolves the extern's address to 0 if not). */
LLVMValueRef cg_kfunc_exists(struct cg *cg, LLVMValueRef fn)
{
	return LLVMBuildICmp(cg->b, LLVMIntNE, fn, LLVMConstNull(cg->t_ptr), "kfunc.exists");
}
