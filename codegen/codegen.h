/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code generation: a checked, expanded program becomes the bytes of a BPF ELF object. The only
 * folder that includes the LLVM C API headers (llvm-c/).
 */
#ifndef AOT_CODEGEN_H
#define AOT_CODEGEN_H

#include <stddef.h>

struct program;
struct diags;

/*
 * 0, or -errno with a diagnostic in d. *elf is malloc'd. What to dump and where come from
 * prog->opts (dump, dump_out, emit_llvm).
 */
int cg_compile(struct program *prog, struct diags *d, void **elf, size_t *elf_size);

#endif
