// SPDX-License-Identifier: GPL-2.0
/*
 * Text output, byte for byte what bpftrace 0.17 prints: the "Attaching" line, printf text as
 * is, and at exit two blank lines then every map as "@name[key]: value" lines.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

static void text_attached(struct output *o, unsigned int nprobes)
{
	fprintf(o->f, "Attaching %u probe%s...\n", nprobes, nprobes == 1 ? "" : "s");
	fflush(o->f);
}

static void text_printf(struct output *o, const char *text, size_t len)
{
	fwrite(text, 1, len, o->f);
}

static void text_maps_begin(struct output *o)
{
	fputs("\n\n", o->f);
}

void output_text_map(struct rt_buf *b, const struct output_map *m)
{
	const struct aot_map *map = m->map;
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct output_entry *e = &m->entries[i];

		rt_buf_add(b, map->name, strlen(map->name));
		if (map->nkeys && e->key) {
			rt_buf_add(b, "[", 1);
			rt_value_text(b, m->meta, &map->key, e->key, true);
			rt_buf_add(b, "]", 1);
		}
		rt_buf_add(b, ": ", 2);
		if (map->agg == AOT_AGG_NONE)
			rt_value_text(b, m->meta, &map->value, e->value, false);
		else if (m->val_signed)
			rt_buf_printf(b, "%" PRId64, (int64_t)e->val);
		else
			rt_buf_printf(b, "%" PRIu64, e->val);
		rt_buf_add(b, "\n", 1);
	}
	/* bpftrace ends an empty map, and every avg() map, with a blank line. */
	if (!m->n || map->agg == AOT_AGG_AVG)
		rt_buf_add(b, "\n", 1);
}

static void text_map(struct output *o, const struct output_map *m)
{
	struct rt_buf b = {0};

	output_text_map(&b, m);
	if (b.len)
		fwrite(b.s, 1, b.len, o->f);
	rt_buf_free(&b);
}

static void text_maps_end(struct output *o)
{
	fflush(o->f);
}

static void text_warning(struct output *o, const char *msg)
{
	fprintf(o->err, "WARNING: %s\n", msg);
}

const struct output_ops output_text_ops = {
	.attached = text_attached,
	.printf = text_printf,
	.maps_begin = text_maps_begin,
	.map = text_map,
	.maps_end = text_maps_end,
	.warning = text_warning,
};
