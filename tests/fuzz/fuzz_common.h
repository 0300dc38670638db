/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the front-end fuzz targets share: each input becomes a NUL-terminated script with a
 * fresh program, arena, metadata and diagnostics, set up and torn down the same way every run.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend.h"

/* One run of the front end; prog and d point at src, so it stays where it was set up. */
struct fuzz_front {
	struct source src;
	struct program prog;
	struct diags d;
};

/* The input as the script "fuzz.bt", ready for parse_program(). 0, or -ENOMEM. */
int fuzz_front_init(struct fuzz_front *f, const uint8_t *data, size_t size);
/* Prints the diagnostics to sink (when there is one), as the driver would, and frees it all. */
void fuzz_front_free(struct fuzz_front *f, FILE *sink);
/* /dev/null, opened on first use: the targets print there so that printing is fuzzed too. */
FILE *fuzz_sink(void);

#endif
