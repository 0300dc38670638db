// SPDX-License-Identifier: GPL-2.0
/*
 * The set-up and tear-down the front-end fuzz targets (fuzz_parse, fuzz_sema) share; each
 * target keeps only the passes it drives.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "fuzz_common.h"
#include "meta.h"

int fuzz_front_init(struct fuzz_front *f, const uint8_t *data, size_t size)
{
	*f = (struct fuzz_front){ .src = { .name = "fuzz.bt" } };
	/* The driver hands the front end NUL-terminated text; so do we. */
	f->src.text = malloc(size + 1);
	if (!f->src.text)
		return -ENOMEM;
	memcpy(f->src.text, data, size);
	f->src.text[size] = 0;
	f->src.len = size;
	f->prog = (struct program){ .src = &f->src, .strlen_max = 64 };
	f->prog.arena = arena_new();
	f->prog.meta = aot_meta_new();
	diags_init(&f->d, &f->src);
	return 0;
}

void fuzz_front_free(struct fuzz_front *f, FILE *sink)
{
	if (sink)
		diags_print(&f->d, sink);
	diags_free(&f->d);
	aot_meta_free(f->prog.meta);
	arena_free(f->prog.arena);
	free(f->src.text);
}

FILE *fuzz_sink(void)
{
	static FILE *sink;

	if (!sink)
		sink = fopen("/dev/null", "w");
	return sink;
}
