// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: script text through the lexer and the parser, then the diagnostics printer
 * (which re-reads source lines by the locations the parser recorded). Any input must end in a
 * tree or in diagnostics, never in a crash, a leak or undefined behaviour.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "frontend.h"
#include "meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct source src = { .name = "fuzz.bt" };
	struct program prog = { .src = &src, .strlen_max = 64 };
	struct diags d;

	if (!sink)
		sink = fopen("/dev/null", "w");
	/* The driver hands the front end NUL-terminated text; so do we. */
	src.text = malloc(size + 1);
	if (!src.text)
		return 0;
	memcpy(src.text, data, size);
	src.text[size] = 0;
	src.len = size;
	prog.arena = arena_new();
	prog.meta = aot_meta_new();
	diags_init(&d, &src);
	parse_program(&prog, &d);
	if (sink && prog.root && !d.nerrors)
		ast_dump(prog.root, sink);
	if (sink)
		diags_print(&d, sink);
	diags_free(&d);
	aot_meta_free(prog.meta);
	arena_free(prog.arena);
	free(src.text);
	return 0;
}
