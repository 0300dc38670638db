// SPDX-License-Identifier: GPL-2.0
/*
 * The unit tests' way into the compiler: the pipeline's passes over a text up to a named one,
 * stopping at the first that reports errors, so each test asserts on what a real compilation
 * produces.
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"
#include "testlib.h"

struct tl_build *tl_build(const char *text, const struct aot_compile_opts *opts, enum aot_pass last)
{
	struct tl_build *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->p = aot_program__new("test.bt", text, strlen(text), opts);
	if (!b->p) {
		free(b);
		return NULL;
	}
	b->prog = aot_program__ast(b->p);
	b->d = aot_program__diags(b->p);
	b->env = aot_program__env(b->p);
	b->ret = aot_program__run(b->p, last);
	if (last < AOT_PASS_CODEGEN)
		return b;
	if (b->ret)
		diags_print(b->d, stderr);
	b->elf = aot_program__elf(b->p, &b->elf_size);
	if (b->elf)
		b->obj = bpf_object__open_mem(b->elf, b->elf_size, NULL);
	return b;
}

void tl_free(struct tl_build *b)
{
	bpf_object__close(b->obj);
	aot_program__free(b->p);
	free(b);
}

bool tl_has_error(const struct tl_build *b, const char *needle)
{
	for (size_t i = 0; i < b->d->n; i++)
		if (b->d->v[i].level == DIAG_ERROR && strstr(b->d->v[i].msg, needle))
			return true;
	return false;
}

struct map_info *tl_find_map(const struct tl_build *b, const char *name)
{
	for (struct map_info *m = b->prog->maps; m; m = m->next)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}
