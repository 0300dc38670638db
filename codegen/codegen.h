/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code generation: a checked, expanded program becomes the bytes of a BPF ELF object. The only
 * folder that includes the LLVM C API headers (llvm-c/).
 */
#ifndef AOT_CODEGEN_H
#define AOT_CODEGEN_H

#include <stddef.h>
#include <stdio.h>

struct program;
struct diags;

enum cg_dump {
	CG_DUMP_IR = 1 << 0,	 /* LLVM IR before optimisation */
	CG_DUMP_IR_OPT = 1 << 1, /* after optimisation */
	CG_DUMP_ASM = 1 << 2,	 /* BPF assembly */
};

struct cg_opts {
	size_t sz;
	unsigned dump; /* enum cg_dump */
	FILE *dump_out;
	const char *emit_llvm; /* --emit-llvm: write PATH.original.ll and PATH.optimized.ll */
};

/* 0, or -errno with a diagnostic in d. *elf is malloc'd. */
int cg_compile(struct program *prog, const struct cg_opts *opts, struct diags *d, void **elf,
	       size_t *elf_size);

#endif
