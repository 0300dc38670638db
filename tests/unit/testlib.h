/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the compiler's unit tests share: a program compiled from text through the pipeline the
 * driver uses (aotcc.h), up to a named pass, and lookups on the result.
 */
#ifndef AOT_TESTLIB_H
#define AOT_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aotcc.h"
#include "ast.h"
#include "diag.h"

struct bpf_object;

struct tl_build {
	struct aot_program *p;
	struct program *prog;  /* the passes' AST and annotations */
	const struct diags *d; /* their diagnostics */
	struct probe_env *env; /* the probe types' lookups they made */
	const void *elf;       /* through codegen only */
	size_t elf_size;
	struct bpf_object *obj; /* the ELF opened with libbpf */
	int ret;		/* of aot_program__run */
};

/*
 * text compiled with opts (NULL: defaults) up to pass last. Through codegen, the ELF is opened
 * with libbpf, and the diagnostics are printed when it fails.
 */
struct tl_build *tl_build(const char *text, const struct aot_compile_opts *opts,
			  enum aot_pass last);
void tl_free(struct tl_build *b);
/* Some error's message contains needle. */
bool tl_has_error(const struct tl_build *b, const char *needle);
struct map_info *tl_find_map(const struct tl_build *b, const char *name);

#endif
