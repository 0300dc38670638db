// SPDX-License-Identifier: GPL-2.0
/*
 * Code generation driver: sets up the LLVM module for the BPF target, has the other cg_* files
 * fill it (maps, one function per probe match), adds the license and metadata sections, runs
 * the O2 pipeline and emits the ELF object into memory.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "arena.h"
#include "cg_internal.h"
#include "meta.h"

#define CG_TRIPLE "bpfel"
/* "generic" is v1 before LLVM 20; v3 has 32-bit subregisters and all jump kinds. */
#define CG_CPU "v3"

void cg_error(struct cg *cg, struct loc loc, const char *hint, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error(cg->d, loc, hint, "%s", msg);
}

/*
 * LLVM's default handler exits the process on an error (the BPF backend reports a stack over
 * 512 bytes that way), so errors become diagnostics here. A stack too small is only noted in
 * the first pass, which cg_compile follows with one in scratch mode.
 */
static void cg_llvm_diag(LLVMDiagnosticInfoRef di, void *arg)
{
	struct cg *cg = arg;
	char *desc, *fn;
	bool stack;
	int len;

	if (LLVMGetDiagInfoSeverity(di) != LLVMDSError)
		return;
	desc = LLVMGetDiagInfoDescription(di);
	stack = strstr(desc, "stack limit") != NULL;
	if (stack && !cg->scratch_mode) {
		cg->stack_over = true;
	} else if (!stack) {
		cg_error(cg, (struct loc){ 0 }, NULL, "BPF backend: %s", desc);
	} else if (!cg->stack_reported) {
		/* reported for each stack slot out of range: say it once */
		cg->stack_reported = true;
		fn = strstr(desc, "in function ");
		fn = fn ? fn + strlen("in function ") : "";
		len = (int)strcspn(fn, " ");
		cg_error(cg, (struct loc){ 0 },
			 "use fewer or shorter strings (max_strlen) in one probe",
			 "program %.*s needs more than the 512 bytes of BPF stack", len, fn);
	}
	LLVMDisposeMessage(desc);
}

static LLVMTargetMachineRef cg_target_machine(struct cg *cg)
{
	LLVMTargetRef target;
	char *err = NULL;

	LLVMInitializeBPFTargetInfo();
	LLVMInitializeBPFTarget();
	LLVMInitializeBPFTargetMC();
	LLVMInitializeBPFAsmPrinter();
	if (LLVMGetTargetFromTriple(CG_TRIPLE, &target, &err)) {
		cg_error(cg, (struct loc){ 0 }, NULL, "LLVM has no BPF target: %s", err);
		LLVMDisposeMessage(err);
		return NULL;
	}
	return LLVMCreateTargetMachine(target, CG_TRIPLE, CG_CPU, "", LLVMCodeGenLevelDefault,
				       LLVMRelocStatic, LLVMCodeModelDefault);
}

/* A constant byte array global in its own section. */
static LLVMValueRef cg_bytes_global(struct cg *cg, const char *name, const char *section,
				    const void *data, size_t size)
{
	LLVMValueRef init = LLVMConstStringInContext(cg->ctx, data, (unsigned)size, true);
	LLVMValueRef g = LLVMAddGlobal(cg->mod, LLVMTypeOf(init), name);

	LLVMSetInitializer(g, init);
	LLVMSetSection(g, section);
	LLVMSetAlignment(g, 8);
	LLVMSetLinkage(g, LLVMExternalLinkage);
	return g;
}

static void cg_license(struct cg *cg)
{
	const char *license = cg->prog->opts->license ? cg->prog->opts->license : "GPL";

	/* No debug info: libbpf needs no BTF for it, and bpftool shows no DATASEC noise. */
	cg_bytes_global(cg, "_license", "license", license, strlen(license) + 1);
}

/*
 * The metadata goes in as plain bytes with no debug info, so the BPF backend gives it no BTF
 * DATASEC (libbpf would try to make a map of it) and libbpf skips the section as unknown.
 */
static int cg_meta(struct cg *cg)
{
	void *buf = NULL;
	size_t size = 0;
	int ret;

	if (!cg->prog->meta)
		return 0;
	ret = aot_meta_write(cg->prog->meta, &buf, &size);
	if (ret < 0) {
		cg_error(cg, (struct loc){ 0 }, NULL, "cannot serialise metadata: %s",
			 strerror(-ret));
		return ret;
	}
	LLVMSetGlobalConstant(cg_bytes_global(cg, "aot_meta", AOT_META_SECTION, buf, size), true);
	free(buf);
	return 0;
}

static void cg_dump_module(struct cg *cg, const char *what)
{
	char *s = LLVMPrintModuleToString(cg->mod);

	fprintf(cg->prog->opts->dump_out, "; ---- %s ----\n%s", what, s);
	LLVMDisposeMessage(s);
}

/* --emit-llvm PATH: the module as it is now in PATH.SUFFIX.ll, as bpftrace names the files. */
static int cg_emit_llvm(struct cg *cg, const char *suffix)
{
	const char *base = cg->prog->opts->emit_llvm;
	char *path, *err = NULL;

	if (!base)
		return 0;
	path = arena_printf(cg->prog->arena, "%s.%s.ll", base, suffix);
	if (LLVMPrintModuleToFile(cg->mod, path, &err)) {
		cg_error(cg, (struct loc){ 0 }, NULL, "cannot write %s: %s", path, err);
		LLVMDisposeMessage(err);
		return -EIO;
	}
	return 0;
}

/* Emitting assembly runs the backend's IR passes, so it works on a copy of the module. */
static void cg_dump_asm(struct cg *cg, LLVMTargetMachineRef tm)
{
	LLVMModuleRef copy = LLVMCloneModule(cg->mod);
	LLVMMemoryBufferRef mb = NULL;
	char *err = NULL;

	if (LLVMTargetMachineEmitToMemoryBuffer(tm, copy, LLVMAssemblyFile, &err, &mb)) {
		fprintf(cg->prog->opts->dump_out, "; cannot emit assembly: %s\n", err);
		LLVMDisposeMessage(err);
	} else {
		fprintf(cg->prog->opts->dump_out, "; ---- BPF assembly ----\n%.*s",
			(int)LLVMGetBufferSize(mb), LLVMGetBufferStart(mb));
		LLVMDisposeMemoryBuffer(mb);
	}
	LLVMDisposeModule(copy);
}

static int cg_functions(struct cg *cg)
{
	int ret;

	for (struct node *p = cg->prog->root->body; p; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		ret = cg_probe(cg, p);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int cg_optimise_and_emit(struct cg *cg, LLVMTargetMachineRef tm, void **elf, size_t *size)
{
	LLVMPassBuilderOptionsRef pbo;
	LLVMMemoryBufferRef mb = NULL;
	LLVMErrorRef lerr;
	char *err = NULL;
	unsigned dump = cg->prog->opts->dump;

	if (LLVMVerifyModule(cg->mod, LLVMReturnStatusAction, &err)) {
		cg_error(cg, (struct loc){ 0 }, "this is a bug in aotrace", "invalid LLVM IR: %s",
			 err);
		LLVMDisposeMessage(err);
		return -EINVAL;
	}
	LLVMDisposeMessage(err);
	if (dump & AOT_DUMP_IR)
		cg_dump_module(cg, "LLVM IR");
	if (cg_emit_llvm(cg, "original"))
		return -EIO;

	/* The TargetMachine registers the BPF IR passes (CO-RE lowering among them). */
	pbo = LLVMCreatePassBuilderOptions();
	lerr = LLVMRunPasses(cg->mod, "default<O2>", tm, pbo);
	LLVMDisposePassBuilderOptions(pbo);
	if (lerr) {
		err = LLVMGetErrorMessage(lerr);
		cg_error(cg, (struct loc){ 0 }, NULL, "LLVM optimisation failed: %s", err);
		LLVMDisposeErrorMessage(err);
		return -EINVAL;
	}
	if (dump & AOT_DUMP_IR_OPT)
		cg_dump_module(cg, "LLVM IR, optimised");
	if (cg_emit_llvm(cg, "optimized"))
		return -EIO;
	if (dump & AOT_DUMP_ASM)
		cg_dump_asm(cg, tm);

	if (LLVMTargetMachineEmitToMemoryBuffer(tm, cg->mod, LLVMObjectFile, &err, &mb)) {
		cg_error(cg, (struct loc){ 0 }, NULL, "BPF object emission failed: %s", err);
		LLVMDisposeMessage(err);
		return -EINVAL;
	}
	*size = LLVMGetBufferSize(mb);
	*elf = malloc(*size);
	if (!*elf) {
		LLVMDisposeMemoryBuffer(mb);
		return -ENOMEM;
	}
	memcpy(*elf, LLVMGetBufferStart(mb), *size);
	LLVMDisposeMemoryBuffer(mb);
	return 0;
}

/* One compile from a fresh context; *stack_over: the stack was too small (not an error). */
static int cg_compile_pass(struct program *prog, struct diags *d, bool scratch_mode,
			   bool *stack_over, void **elf, size_t *elf_size)
{
	struct cg cg = { .prog = prog,
			 .d = d,
			 .scratch_mode = scratch_mode,
			 .stack_max = prog->opts->on_stack_limit };
	LLVMTargetMachineRef tm = NULL;
	LLVMTargetDataRef td;
	size_t errors = d->nerrors;
	char *dl;
	int ret = -EINVAL;

	*elf = NULL;
	*elf_size = 0;
	if (scratch_mode && cg.stack_max > CG_SCRATCH_MIN)
		cg.stack_max = CG_SCRATCH_MIN;

	cg.ctx = LLVMContextCreate();
	LLVMContextSetDiagnosticHandler(cg.ctx, cg_llvm_diag, &cg);
	tm = cg_target_machine(&cg);
	if (!tm)
		goto out;
	cg.mod = LLVMModuleCreateWithNameInContext(prog->src ? prog->src->name : "aotrace", cg.ctx);
	LLVMSetTarget(cg.mod, CG_TRIPLE);
	td = LLVMCreateTargetDataLayout(tm);
	dl = LLVMCopyStringRepOfTargetData(td);
	LLVMSetDataLayout(cg.mod, dl);
	LLVMDisposeMessage(dl);
	LLVMDisposeTargetData(td);

	cg.b = LLVMCreateBuilderInContext(cg.ctx);
	cg.t_i1 = LLVMInt1TypeInContext(cg.ctx);
	cg.t_i8 = LLVMInt8TypeInContext(cg.ctx);
	cg.t_i16 = LLVMInt16TypeInContext(cg.ctx);
	cg.t_i32 = LLVMInt32TypeInContext(cg.ctx);
	cg.t_i64 = LLVMInt64TypeInContext(cg.ctx);
	cg.t_ptr = LLVMPointerTypeInContext(cg.ctx, 0);
	cg.t_void = LLVMVoidTypeInContext(cg.ctx);
	cg_di_init(&cg);

	cg_lastkey_plan(&cg);
	ret = cg_maps_define(&cg);
	if (ret < 0)
		goto out;
	cg_lastkey_define(&cg);
	cg_alias_plan(&cg);
	cg_multi_define(&cg);
	ret = cg_functions(&cg);
	if (ret < 0)
		goto out;
	ret = cg_session_emit(&cg);
	if (ret < 0)
		goto out;
	ret = cg_maps_scratch(&cg);
	if (ret < 0)
		goto out;
	cg_license(&cg);
	ret = cg_meta(&cg);
	if (ret < 0)
		goto out;
	LLVMDIBuilderFinalize(cg.dib);
	ret = cg_cimports(&cg);
	if (ret < 0)
		goto out;
	if (d->nerrors > errors) {
		ret = -EINVAL;
		goto out;
	}
	ret = cg_optimise_and_emit(&cg, tm, elf, elf_size);
out:
	if (ret == 0 && d->nerrors > errors) {
		free(*elf);
		*elf = NULL;
		*elf_size = 0;
		ret = -EINVAL;
	}
	if (cg.dib)
		LLVMDisposeDIBuilder(cg.dib);
	if (cg.b)
		LLVMDisposeBuilder(cg.b);
	if (cg.mod)
		LLVMDisposeModule(cg.mod);
	if (tm)
		LLVMDisposeTargetMachine(tm);
	LLVMContextDispose(cg.ctx);
	free(cg.vars);
	free(cg.temps);
	*stack_over = cg.stack_over;
	return ret;
}

/*
 * Programs that fit in the 512 bytes of BPF stack compile once, as they always have. One that
 * does not is compiled again from the start (codegen keeps its state in struct cg and the
 * LLVM context, apart from alias planning, which gives the same result twice) in scratch mode.
 */
int cg_compile(struct program *prog, struct diags *d, void **elf, size_t *elf_size)
{
	bool stack_over = false;
	int ret;

	ret = cg_compile_pass(prog, d, false, &stack_over, elf, elf_size);
	if (ret < 0 || !stack_over)
		return ret;
	free(*elf);
	if (prog->opts->dump)
		fprintf(prog->opts->dump_out,
			"; ---- more than 512 bytes of stack: compiling again with "
			"big buffers in the %s map ----\n",
			AOT_SCRATCH_MAP);
	return cg_compile_pass(prog, d, true, &stack_over, elf, elf_size);
}
