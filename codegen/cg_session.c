// SPDX-License-Identifier: GPL-2.0
/*
 * Session programs (src/session.c pairs the probes): one function runs at a function's entry
 * and at its return, asks the kernel which (the kfunc bpf_session_is_return) and runs the entry
 * probe's body or the return probe's. The entry returns 0, which tells the kernel to run the
 * program at the return too.
 */
#include <string.h>

#include "arena.h"
#include "cg_internal.h"
#include "meta.h"

#define CG_DW_ATE_BOOLEAN 0x02

/*
 * extern bool bpf_session_is_return([void *ctx]) __ksym __weak: the kernel's prototype (ctx
 * on kernels newer than 6.18) or libbpf refuses the object; weak, so that a kernel without it still
 * loads the object's other programs (libbpf resolves every extern, used or not).
 */
static LLVMValueRef cg_session_kfunc(struct cg *cg, bool with_ctx, LLVMTypeRef *fty)
{
	LLVMMetadataRef bool_di = LLVMDIBuilderCreateBasicType(cg->dib, "bool", 4, 8,
							       CG_DW_ATE_BOOLEAN, LLVMDIFlagZero);
	LLVMMetadataRef ctx_di = cg_di_ptr(cg, NULL);

	return cg_kfunc_extern(cg, "bpf_session_is_return", fty, cg->t_i8, bool_di, &cg->t_ptr,
			       &ctx_di, with_ctx);
}

static int cg_session_fn(struct cg *cg, const struct session *s)
{
	LLVMBasicBlockRef start = cg_fn_begin(cg, s->entry_probe, s->m.func, s->m.section);
	LLVMBasicBlockRef entry = cg_block(cg, "session.entry"), ret = cg_block(cg, "session.ret");
	LLVMTypeRef fty;
	LLVMValueRef fn = cg_session_kfunc(cg, s->is_return_ctx, &fty), is_ret;
	int err;

	cg_stop_check(cg);
	is_ret = LLVMBuildCall2(cg->b, fty, fn, &cg->ctxp, s->is_return_ctx, "is_return");
	LLVMBuildCondBr(cg->b,
			LLVMBuildICmp(cg->b, LLVMIntNE, is_ret, LLVMConstInt(cg->t_i8, 0, 0), ""),
			ret, entry);
	LLVMPositionBuilderAtEnd(cg->b, entry);
	err = cg_probe_body(cg, s->entry_probe, s->entry, false);
	if (err < 0)
		return err;
	LLVMPositionBuilderAtEnd(cg->b, ret);
	cg_di_set_loc(cg, s->return_probe->loc);
	cg->session_return = true;
	err = cg_probe_body(cg, s->return_probe, s->ret, false);
	cg->session_return = false;
	if (err < 0)
		return err;
	cg_fn_end(cg, start);
	return 0;
}

int cg_session_emit(struct cg *cg)
{
	for (const struct session *s = cg->prog->sessions; s; s = s->next) {
		int err = cg_session_fn(cg, s);

		if (err < 0)
			return err;
	}
	return 0;
}
