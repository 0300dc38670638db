/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output interface: everything the runtime shows the user goes through one struct of
 * callbacks, so that text and JSON differ in one file each and callers never ask which is on.
 */
#ifndef AOT_OUTPUT_H
#define AOT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "meta.h"

/* One map entry with the per-CPU values folded into one. */
struct output_entry {
	const void *key;   /* map->key bytes; NULL for a scalar map */
	const void *value; /* AOT_AGG_NONE: map->value bytes */
	uint64_t val;	   /* an aggregation's result (two's complement when val_signed) */
	uint64_t seq;	   /* position in the kernel's iteration order */
};

/* A whole map, entries already in the order to print them. */
struct output_map {
	const struct aot_meta *meta; /* for tuple elements */
	const struct aot_map *map;
	const struct output_entry *entries;
	size_t n;
	bool val_signed; /* how to read output_entry.val */
};

struct output;

struct output_ops {
	/* "Attaching N probes..." */
	void (*attached)(struct output *o, unsigned int nprobes);
	/* The text of one printf() event. */
	void (*printf)(struct output *o, const char *text, size_t len);
	/* Around the maps printed at exit. */
	void (*maps_begin)(struct output *o);
	void (*map)(struct output *o, const struct output_map *m);
	void (*maps_end)(struct output *o);
	/* Something the user should know that is not fatal: lost or malformed events. */
	void (*warning)(struct output *o, const char *msg);
};

struct output {
	const struct output_ops *ops;
	FILE *f;   /* program output: -o FILE or stdout */
	FILE *err; /* warnings: stderr */
};

extern const struct output_ops output_text_ops;

/* Formats a map as text lines, as bpftrace does; the text output and tests use it. */
struct rt_buf;
void output_text_map(struct rt_buf *b, const struct output_map *m);

#endif
