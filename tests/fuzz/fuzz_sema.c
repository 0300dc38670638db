// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: script text through parse -> expand -> sema with a real probe_env. Only
 * probe types that match in constant time and touch nothing but tracefs are let through
 * (BEGIN, END, interval, tracepoint without wildcards), so each input runs in microseconds
 * and the fuzzer explores the type checker rather than the kernel's directory listings.
 */
#include <stdint.h>
#include <string.h>

#include "frontend.h"
#include "fuzz_common.h"
#include "probe.h"

static struct probe_env *fuzz_env;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* One env for the whole run: it only caches the tracefs path and what it read. */
	fuzz_env = probe_env__new();
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
	AOT_COMPILE_OPTS(opts, .params = params, .nparams = 3, .env = fuzz_env);
	struct aot_program *prog = fuzz_program(data, size, &opts);

	if (!prog)
		return 0;
	if (!aot_program__run(prog, AOT_PASS_PARSE) && fuzz_program_allowed(aot_program__ast(prog)))
		aot_program__run(prog, AOT_PASS_SEMA);
	fuzz_program_free(prog, fuzz_sink());
	return 0;
}
