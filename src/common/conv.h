/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The conversions of a printf format (printf, system, cat, debugf): one parser that sema checks
 * a format with and the runtime formats it with, so the two never disagree on where a conversion
 * ends or what it takes. Part of the shared floor.
 */
#ifndef AOT_CONV_H
#define AOT_CONV_H

#include <stdbool.h>

#define AOT_CONV_MAX_WIDTH 4096 /* wider fields and precisions are clamped to this */

/* What a conversion prints. */
enum aot_conv_arg {
	AOT_CONV_UNKNOWN = 0, /* not a conversion aotrace knows: a compile error */
	AOT_CONV_PERCENT,     /* "%%": a '%', no argument */
	AOT_CONV_INT,	      /* d i u x X o c p */
	AOT_CONV_STR,	      /* s: a string, or any value user space renders as text */
	AOT_CONV_BUF,	      /* r, rx, rh: a buf() */
	AOT_CONV_GFP,	      /* gr: an integer as GFP flag names (bpftrace 0.27) */
};

/* One conversion: "%" flags width ("." precision) length conv. */
struct aot_conv {
	char flags[6]; /* of "-+ #0", each once, in the order written */
	int nflags;
	int width;	/* -1: none */
	int precision;	/* -1: none */
	char length[3]; /* "", "hh", "h", "l", "ll", "z", "j" or "t" */
	char conv;	/* the conversion character; 0 if the format ends first */
	char buf_mode;	/* %rx: 'x' (every byte as \xNN), %rh: 'h' (hex bytes and spaces), else 0 */
	enum aot_conv_arg arg;
};

/*
 * Parses the conversion whose '%' is at s; returns the text after it. A length modifier goes
 * only with an integer conversion (%ld; never %ls, %lc or %lr): with another it is unknown.
 */
const char *aot_conv_parse(const char *s, struct aot_conv *c);

/* The next conversion of fmt at or after s (skipping text), or NULL if there is none. */
const char *aot_conv_next(const char *s, struct aot_conv *c, const char **start);

#endif
