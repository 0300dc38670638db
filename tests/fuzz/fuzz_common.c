// SPDX-License-Identifier: GPL-2.0
/*
 * The set-up and tear-down the front-end fuzz targets (fuzz_parse, fuzz_sema) share; each
 * target says only how far down the pipeline its inputs go.
 */
#include "diag.h"
#include "fuzz_common.h"

struct aot_program *fuzz_program(const uint8_t *data, size_t size,
				 const struct aot_compile_opts *opts)
{
	/* The program copies the bytes, with the NUL the lexer stops at. */
	return aot_program__new("fuzz.bt", (const char *)data, size, opts);
}

void fuzz_program_free(struct aot_program *prog, FILE *sink)
{
	if (sink)
		diags_print(aot_program__diags(prog), sink);
	aot_program__free(prog);
}

FILE *fuzz_sink(void)
{
	static FILE *sink;

	if (!sink)
		sink = fopen("/dev/null", "w");
	return sink;
}
