/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suffixes of integer literals, as bpftrace 0.27 reads them in programs (1s, 100ms, 5u) and
 * in attach points (interval:1s): the lexer and the probe types both use this one table. Part
 * of the shared floor.
 */
#ifndef AOT_UNITS_H
#define AOT_UNITS_H

#include <stddef.h>
#include <stdint.h>

struct aot_int_suffix {
	const char *s;
	uint64_t max;  /* the largest value before the unit applies: u is 32 bits */
	uint64_t unit; /* durations: nanoseconds per unit; 1 for the C suffixes */
};

/* The suffix spelled by the n bytes at s (lower case, as 0.27 takes them), or NULL. */
const struct aot_int_suffix *aot_int_suffix(const char *s, size_t n);

/*
 * A duration or a count as an attach point writes it: digits with '_' separators and an
 * optional suffix (1s, 100ms, 1_000, 20us; no suffix means the caller's unit). 0 if malformed
 * or too large.
 */
uint64_t aot_parse_duration(const char *s, uint64_t *unit);

#endif
