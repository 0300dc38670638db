// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: script text through parse -> expand -> sema with a real probe_env. Only
 * probe types that match in constant time and touch nothing but tracefs are let through
 * (BEGIN, END, interval, tracepoint without wildcards), so each input runs in microseconds
 * and the fuzzer explores the type checker rather than the kernel's directory listings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "frontend.h"
#include "meta.h"
#include "probe.h"

static struct probe_env *fuzz_env;
static FILE *fuzz_sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* One env for the whole run: it only caches the tracefs path and what it read. */
	fuzz_env = probe_env__new();
	fuzz_sink = fopen("/dev/null", "w");
	return 0;
}

static bool fuzz_attach_allowed(const struct node *ap)
{
	static const char *const allowed[] = { "BEGIN", "END", "interval", "tracepoint" };
	const struct probe_type *pt = probe_type_find(ap->provider ? ap->provider : "");

	if (!pt)
		return true; /* expand reports it: a cheap, interesting path */
	if (ap->target && strpbrk(ap->target, "*?[{"))
		return false;
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (!strcmp(pt->name, allowed[i]))
			return true;
	return false;
}

static bool fuzz_program_allowed(const struct program *prog)
{
	for (const struct node *p = prog->root ? prog->root->body : NULL; p; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		for (const struct node *ap = p->args; ap; ap = ap->next)
			if (!fuzz_attach_allowed(ap))
				return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *params[] = { "42", "str", "-1" };
	struct source src = { .name = "fuzz.bt" };
	struct program prog = { .src = &src, .strlen_max = 64, .params = params, .nparams = 3 };
	struct diags d;

	src.text = malloc(size + 1);
	if (!src.text)
		return 0;
	memcpy(src.text, data, size);
	src.text[size] = 0;
	src.len = size;
	prog.arena = arena_new();
	prog.meta = aot_meta_new();
	diags_init(&d, &src);
	if (!parse_program(&prog, &d) && !d.nerrors && fuzz_program_allowed(&prog) &&
	    !expand_probes(&prog, fuzz_env, &d) && !d.nerrors)
		sema_check(&prog, fuzz_env, &d);
	if (fuzz_sink)
		diags_print(&d, fuzz_sink);
	diags_free(&d);
	aot_meta_free(prog.meta);
	arena_free(prog.arena);
	free(src.text);
	return 0;
}
