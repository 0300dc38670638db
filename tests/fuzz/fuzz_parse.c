// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: script text through the lexer, the parser and macro expansion, then the AST
 * dump and the diagnostics printer (which re-reads source lines by the locations the parser
 * recorded). Any input must end in a tree or in diagnostics, never in a crash, a leak or
 * undefined behaviour.
 */
#include <stdint.h>
#include <stdio.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *sink = fuzz_sink();
	AOT_COMPILE_OPTS(opts, .dump = sink ? AOT_DUMP_AST : 0, .dump_out = sink);
	struct aot_program *prog = fuzz_program(data, size, &opts);

	if (!prog)
		return 0;
	aot_program__run(prog, AOT_PASS_PARSE);
	fuzz_program_free(prog, sink);
	return 0;
}
