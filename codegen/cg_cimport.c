// SPDX-License-Identifier: GPL-2.0
/*
 * import "lib.bpf.c": calls of its functions, and its bitcode (src/cimport.c) linked into the
 * module before optimising. Its functions become internal there, so that the inliner may put
 * them into their callers and drop them; what stays is a static subprogram, which the verifier
 * checks at each call with the caller's state.
 */
#include <errno.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include "arena.h"
#include "cg_internal.h"

static LLVMTypeRef cg_cfunc_type(struct cg *cg, const struct type *t)
{
	return t->kind == TYPE_PTR ? cg->t_ptr : LLVMIntTypeInContext(cg->ctx, t->size * 8);
}

/* A call: each argument as its parameter's type, the value in codegen's 64 bits. */
LLVMValueRef cg_fn_cfunc(struct cg *cg, struct node *n)
{
	const struct cfunc *cf = &cg->prog->cfuncs[n->idx];
	LLVMTypeRef params[16], ret, fty;
	LLVMValueRef args[16], fn, v;
	uint32_t i = 0;

	if (cf->nparams > 16) {
		cg_error(cg, n->loc, NULL, "%s() has more than 16 parameters", cf->name);
		return cg_i64(cg, 0);
	}
	for (i = 0; i < cf->nparams; i++)
		params[i] = cg_cfunc_type(cg, &cf->params[i]);
	ret = cf->ret_void ? cg->t_void : cg_cfunc_type(cg, &cf->ret);
	fty = LLVMFunctionType(ret, params, cf->nparams, false);
	fn = LLVMGetNamedFunction(cg->mod, cf->name);
	if (!fn)
		fn = LLVMAddFunction(cg->mod, cf->name, fty);
	i = 0;
	for (struct node *a = n->args; a; a = a->next, i++) {
		v = cg_expr(cg, a);
		if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind)
			v = LLVMBuildPtrToInt(cg->b, v, cg->t_i64, "");
		if (cf->params[i].kind == TYPE_PTR)
			v = LLVMBuildIntToPtr(cg->b, v, cg->t_ptr, "");
		else
			v = LLVMBuildIntCast2(cg->b, v, params[i], a->type.is_signed, "");
		args[i] = v;
	}
	v = LLVMBuildCall2(cg->b, fty, fn, args, cf->nparams, "");
	if (cf->ret_void)
		return cg_i64(cg, 0);
	if (cf->ret.kind == TYPE_PTR)
		return LLVMBuildPtrToInt(cg->b, v, cg->t_i64, cf->name);
	return LLVMBuildIntCast2(cg->b, v, cg->t_i64, cf->ret.is_signed, cf->name);
}

/* One file's bitcode into the module. 0 or -EINVAL, reported at its import. */
static int cg_cimport_link(struct cg *cg, const struct cimport *ci)
{
	LLVMMemoryBufferRef buf =
		LLVMCreateMemoryBufferWithMemoryRangeCopy(ci->bitcode, ci->bitcode_size, ci->path);
	LLVMModuleRef m = NULL;
	LLVMValueRef f, g, next;
	const char **defined;
	size_t n = 0, cap = 0;

	if (LLVMParseBitcodeInContext2(cg->ctx, buf, &m)) {
		LLVMDisposeMemoryBuffer(buf);
		cg_error(cg, ci->loc, "was it compiled by another clang than 19?",
			 "cannot read the bitcode clang made of %s", ci->path);
		return -EINVAL;
	}
	LLVMDisposeMemoryBuffer(buf);
	LLVMSetTarget(m, LLVMGetTarget(cg->mod));
	LLVMSetDataLayout(m, LLVMGetDataLayoutStr(cg->mod));
	/* Its license, if it has one, is the program's: aotrace writes that. */
	for (g = LLVMGetFirstGlobal(m); g; g = next) {
		const char *sec = LLVMGetSection(g);

		next = LLVMGetNextGlobal(g);
		if (sec && !strcmp(sec, "license"))
			LLVMDeleteGlobal(g);
	}
	for (f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f))
			cap++;
	defined = arena_alloc(cg->prog->arena, (cap ? cap : 1) * sizeof(*defined));
	for (f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		size_t len;

		if (!LLVMIsDeclaration(f))
			defined[n++] = arena_strdup(cg->prog->arena, LLVMGetValueName2(f, &len));
	}
	if (LLVMLinkModules2(cg->mod, m)) {
		cg_error(cg, ci->loc, "rename what it shares with the program",
			 "cannot link %s into the program", ci->path);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		f = LLVMGetNamedFunction(cg->mod, defined[i]);
		if (f && !LLVMIsDeclaration(f))
			LLVMSetLinkage(f, LLVMInternalLinkage);
	}
	return 0;
}

int cg_cimports(struct cg *cg)
{
	for (uint32_t i = 0; i < cg->prog->ncimports; i++)
		if (cg_cimport_link(cg, &cg->prog->cimports[i]))
			return -EINVAL;
	return 0;
}
