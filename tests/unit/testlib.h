/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the compiler's unit tests share: a program compiled from text through the same passes as
 * the driver, up to sema or through codegen, and lookups on the result.
 */
#ifndef AOT_TESTLIB_H
#define AOT_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ast.h"
#include "diag.h"

struct bpf_object;
struct probe_env;

struct tl_opts {
	char **params; /* positional parameters */
	int nparams;
	uint32_t strlen_max; /* 0: 64 */
	bool codegen;	     /* also compile to an ELF and open it with libbpf */
};

struct tl_build {
	struct source src;
	struct program prog;
	struct diags d;
	struct probe_env *env;
	void *elf; /* codegen only */
	size_t elf_size;
	struct bpf_object *obj;
	int ret; /* of the last pass run */
};

/* opts may be NULL: sema only, no parameters. Diagnostics are printed when codegen fails. */
struct tl_build *tl_build(const char *text, const struct tl_opts *opts);
void tl_free(struct tl_build *b);
/* Some error's message contains needle. */
bool tl_has_error(const struct tl_build *b, const char *needle);
struct map_info *tl_find_map(const struct tl_build *b, const char *name);

#endif
