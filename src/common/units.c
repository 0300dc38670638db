// SPDX-License-Identifier: GPL-2.0
/*
 * The integer suffixes of bpftrace 0.27 (units.h): C's u, l, ll, ul, ull and the durations
 * ns, us, ms, s, m, h and d, whose values are in nanoseconds.
 */
#include <string.h>

#include "units.h"

static const struct aot_int_suffix units_suffixes[] = {
	{ "u", UINT32_MAX, 1 },
	{ "ul", UINT64_MAX, 1 },
	{ "ull", UINT64_MAX, 1 },
	{ "l", INT64_MAX, 1 },
	{ "ll", INT64_MAX, 1 },
	{ "ns", UINT64_MAX, 1 },
	{ "us", UINT64_MAX, 1000 },
	{ "ms", UINT64_MAX, 1000000 },
	{ "s", UINT64_MAX, 1000000000 },
	{ "m", UINT64_MAX, 60000000000ULL },
	{ "h", UINT64_MAX, 3600000000000ULL },
	{ "d", UINT64_MAX, 86400000000000ULL },
};

const struct aot_int_suffix *aot_int_suffix(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(units_suffixes) / sizeof(units_suffixes[0]); i++)
		if (strlen(units_suffixes[i].s) == n && !memcmp(units_suffixes[i].s, s, n))
			return &units_suffixes[i];
	return NULL;
}

uint64_t aot_parse_duration(const char *s, uint64_t *unit)
{
	const struct aot_int_suffix *sf;
	uint64_t v = 0;
	const char *p = s;

	*unit = 0;
	if (*p < '0' || *p > '9')
		return 0;
	for (; (*p >= '0' && *p <= '9') || *p == '_'; p++) {
		if (*p == '_')
			continue;
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p[-1] == '_')
		return 0;
	if (!*p)
		return v;
	sf = aot_int_suffix(p, strlen(p));
	if (!sf || sf->unit == 1 || v > sf->max / sf->unit)
		return 0;
	*unit = sf->unit;
	return v * sf->unit;
}
