// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the metadata section reader, aot_meta_read(), on raw section bytes. What it
 * accepts is then used the way the runtime uses it: every format renders a payload (the input
 * bytes again) and every map's key and value types render as text, so a meta that passes the
 * reader's checks but breaks the printf engine or the value renderer is found too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meta.h"
#include "rt.h"

/* Renders a value of type t from the input (zero-padded to the type's size). */
static void fuzz_render(struct rt_buf *out, const struct rt_render *r, const struct aot_type *t,
			const uint8_t *data, size_t size)
{
	uint8_t *val = calloc(1, t->size ? t->size : 1);

	if (!val)
		return;
	memcpy(val, data, size < t->size ? size : t->size);
	rt_value_text(out, r, t, val, false);
	rt_value_text(out, r, t, val, true);
	rt_value_int(t, val);
	free(val);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aot_meta *m = NULL;
	struct rt_buf out = { 0 };
	struct rt_render r = { 0 }; /* no symbols: addresses render as hex */
	char err[256];
	uint32_t i;

	if (aot_meta_read(data, size, &m, err, sizeof(err))) {
		/* The reason must be one terminated line. */
		if (!memchr(err, 0, sizeof(err)) || strchr(err, '\n'))
			abort();
		return 0;
	}
	r.meta = m;
	for (i = 0; i < m->nfmts; i++) {
		rt_buf_reset(&out);
		rt_printf_format(&out, &r, &m->fmts[i], data, size);
	}
	for (i = 0; i < m->nmaps; i++) {
		rt_buf_reset(&out);
		fuzz_render(&out, &r, &m->maps[i].key, data, size);
		fuzz_render(&out, &r, &m->maps[i].value, data, size);
	}
	rt_buf_free(&out);
	aot_meta_free(m);
	return 0;
}
