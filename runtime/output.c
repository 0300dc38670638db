// SPDX-License-Identifier: GPL-2.0
/*
 * What text and JSON output have in common: a formatted piece goes out in one write, a map is
 * whatever the format's format_map makes of it, and the callbacks bpftrace does not vary by
 * format (the blank lines before the maps, warnings) are written once, here.
 */
#include <stdio.h>

#include "rt.h"

/* Writes what b holds to the program output in one fwrite, and frees it. */
void output_write(struct output *o, struct rt_buf *b)
{
	if (b->len)
		fwrite(b->s, 1, b->len, o->f);
	rt_buf_free(b);
}

void output_map(struct output *o, const struct output_map *m)
{
	struct rt_buf b = { 0 };

	o->ops->format_map(&b, m);
	output_write(o, &b);
}

/* bpftrace prints the two blank lines before the maps whatever the format. */
void output_maps_begin(struct output *o)
{
	fputs("\n\n", o->f);
}

void output_maps_end(struct output *o)
{
	fflush(o->f);
}

/* Warnings go to stderr as text in both formats, as bpftrace's do. */
void output_warning(struct output *o, const char *msg)
{
	fprintf(o->err, "WARNING: %s\n", msg);
}

/* The hist/lhist buckets to print: first to last non-empty; first is -1 when all are empty. */
void output_hist_span(const struct output_entry *e, int64_t *first, int64_t *last)
{
	*first = *last = -1;
	for (int64_t i = 0; i < e->nbuckets; i++) {
		if (e->buckets[i]) {
			if (*first < 0)
				*first = i;
			*last = i;
		}
	}
}
