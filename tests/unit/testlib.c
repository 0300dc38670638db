// SPDX-License-Identifier: GPL-2.0
/*
 * The unit tests' way into the compiler: the driver's passes in order over a text, stopping at
 * the first that reports errors, so each test asserts on what a real compilation produces.
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "codegen.h"
#include "frontend.h"
#include "meta.h"
#include "probe.h"
#include "testlib.h"

struct tl_build *tl_build(const char *text, const struct tl_opts *opts)
{
	const struct tl_opts none = { 0 };
	struct tl_build *b = calloc(1, sizeof(*b));

	if (!opts)
		opts = &none;
	b->src.name = "test.bt";
	b->src.text = (char *)text;
	b->src.len = strlen(text);
	b->prog.src = &b->src;
	b->prog.arena = arena_new();
	b->prog.meta = aot_meta_new();
	b->prog.params = opts->params;
	b->prog.nparams = opts->nparams;
	b->prog.strlen_max = opts->strlen_max ? opts->strlen_max : 64;
	b->env = probe_env__new();
	diags_init(&b->d, &b->src);
	b->ret = parse_program(&b->prog, &b->d);
	if (!b->ret)
		b->ret = expand_probes(&b->prog, b->env, &b->d);
	if (!b->ret)
		b->ret = sema_check(&b->prog, b->env, &b->d);
	if (!opts->codegen)
		return b;
	if (!b->ret)
		b->ret = cg_compile(&b->prog, NULL, &b->d, &b->elf, &b->elf_size);
	if (b->ret)
		diags_print(&b->d, stderr);
	else
		b->obj = bpf_object__open_mem(b->elf, b->elf_size, NULL);
	return b;
}

void tl_free(struct tl_build *b)
{
	bpf_object__close(b->obj);
	free(b->elf);
	diags_free(&b->d);
	probe_env__free(b->env);
	aot_meta_free(b->prog.meta);
	arena_free(b->prog.arena);
	free(b);
}

bool tl_has_error(const struct tl_build *b, const char *needle)
{
	for (size_t i = 0; i < b->d.n; i++)
		if (b->d.v[i].level == DIAG_ERROR && strstr(b->d.v[i].msg, needle))
			return true;
	return false;
}

struct map_info *tl_find_map(const struct tl_build *b, const char *name)
{
	for (struct map_info *m = b->prog.maps; m; m = m->next)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}
