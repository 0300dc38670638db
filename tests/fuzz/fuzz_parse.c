// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: script text through the lexer and the parser, then the diagnostics printer
 * (which re-reads source lines by the locations the parser recorded). Any input must end in a
 * tree or in diagnostics, never in a crash, a leak or undefined behaviour.
 */
#include <stdint.h>
#include <stdio.h>

#include "frontend.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *sink = fuzz_sink();
	struct fuzz_front f;

	if (fuzz_front_init(&f, data, size))
		return 0;
	parse_program(&f.prog, &f.d);
	if (sink && f.prog.root && !f.d.nerrors)
		ast_dump(f.prog.root, sink);
	fuzz_front_free(&f, sink);
	return 0;
}
