/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the front-end fuzz targets share: each input becomes a program of the compiler's API
 * (aotcc.h), run through the same pipeline as the driver's and torn down the same way.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "aotcc.h"

/* The input as the script "fuzz.bt", to compile with opts. NULL when out of memory. */
struct aot_program *fuzz_program(const uint8_t *data, size_t size,
				 const struct aot_compile_opts *opts);
/* Prints the diagnostics to sink (when there is one), as the driver would, and frees prog. */
void fuzz_program_free(struct aot_program *prog, FILE *sink);
/* /dev/null, opened on first use: the targets print there so that printing is fuzzed too. */
FILE *fuzz_sink(void);

#endif
