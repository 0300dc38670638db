// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of what the runtime prints: the printf engine's conversions, flags, widths and
 * precisions against C printf, map lines as bpftrace 0.17 prints them (keys of every kind,
 * each aggregation folded over CPUs, the sort orders, blank lines), and maps as Prometheus
 * metrics (names, types, labels and their escapes, histogram buckets, the series limit).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ksyms.h"
#include "rt.h"

/* A render context with no symbol services, for metadata m. */
#define R(m) (&(struct rt_render){ .meta = (m) })

static struct aot_type t_int(uint32_t size, uint32_t sig)
{
	return (struct aot_type){ .kind = AOT_K_INT, .size = size, .is_signed = sig };
}

static struct aot_type t_str(uint32_t size)
{
	return (struct aot_type){ .kind = AOT_K_STR, .size = size };
}

static void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

/* Formats fmt with one integer argument of the given type, and compares with expected. */
static void fmt_int(const char *fmt, struct aot_type t, uint64_t v, const char *expected)
{
	struct aot_meta *m = aot_meta_new();
	struct rt_buf b = { 0 };
	uint8_t payload[8] = { 0 };
	int e = aot_meta_add_elems(m, 1);
	struct aot_fmt f = { AOT_FMT_PRINTF, (char *)fmt, { AOT_K_TUPLE, 8, 0, 1, e } };

	m->elems[e] = (struct aot_elem){ 0, t };
	put64(payload, v);
	assert_int_equal(rt_printf_format(&b, R(m), &f, payload, sizeof(payload)), 0);
	if (strcmp(b.s ? b.s : "", expected))
		fail_msg("printf(\"%s\", %#llx): got \"%s\", want \"%s\"", fmt,
			 (unsigned long long)v, b.s, expected);
	rt_buf_free(&b);
	aot_meta_free(m);
}

static void fmt_str(const char *fmt, const char *s, uint32_t size, const char *expected)
{
	struct aot_meta *m = aot_meta_new();
	struct rt_buf b = { 0 };
	char payload[64] = { 0 };
	int e = aot_meta_add_elems(m, 1);
	struct aot_fmt f = { AOT_FMT_PRINTF, (char *)fmt, { AOT_K_TUPLE, size, 0, 1, e } };

	m->elems[e] = (struct aot_elem){ 0, t_str(size) };
	memcpy(payload, s, strlen(s) < size ? strlen(s) : size);
	assert_int_equal(rt_printf_format(&b, R(m), &f, payload, size), 0);
	if (strcmp(b.s ? b.s : "", expected))
		fail_msg("printf(\"%s\", \"%s\"): got \"%s\", want \"%s\"", fmt, s, b.s, expected);
	rt_buf_free(&b);
	aot_meta_free(m);
}

static void test_printf_ints(void **state)
{
	struct aot_type s64 = t_int(8, 1), u64 = t_int(8, 0), s32 = t_int(4, 1), s8 = t_int(1, 1);

	(void)state;
	fmt_int("%d", s64, 42, "42");
	fmt_int("%i", s64, -7, "-7");
	fmt_int("%d", s64, (uint64_t)-1, "-1");
	fmt_int("%u", s64, (uint64_t)-1, "4294967295"); /* C printf of a 64-bit value as %u */
	fmt_int("%lu", s64, (uint64_t)-1, "18446744073709551615");
	fmt_int("%llu", u64, 2, "2");
	fmt_int("%ld", s64, (uint64_t)-3, "-3");
	fmt_int("%lld", s64, (uint64_t)-4, "-4");
	fmt_int("%x", s64, (uint64_t)-1, "ffffffff");
	fmt_int("%X", u64, 255, "FF");
	fmt_int("%lx", u64, 255, "ff");
	fmt_int("%llx", u64, 0x123456789aULL, "123456789a");
	fmt_int("%o", u64, 8, "10");
	fmt_int("%c", u64, 65, "A");
	fmt_int("%p", u64, 4096, "0x1000");
	fmt_int("%p", u64, 0, "0"); /* a C++ stream's null pointer, as bpftrace 0.27 */
	fmt_int("%hhd", u64, 300, "44");
	fmt_int("%hd", u64, 70000, "4464");
	fmt_int("%d", s32, 0xffffffff, "-1"); /* sign-extended from 4 bytes */
	fmt_int("%d", s8, 0xff, "-1");
	fmt_int("%u", t_int(4, 0), 0xffffffff, "4294967295");
	fmt_int("%d", u64, 0x100000005ULL, "5"); /* truncated to int, as bpftrace's C printf */
	/* flags, widths, precisions as bpftrace 0.27 (C++ streams): no precision, no ' ' */
	fmt_int("[%5d]", s64, 42, "[   42]");
	fmt_int("[%-5d]", s64, 42, "[42   ]");
	fmt_int("[%05d]", s64, 42, "[00042]");
	fmt_int("[%+d]", s64, 42, "[+42]");
	fmt_int("[% d]", s64, 42, "[42]");
	fmt_int("[%.3d]", s64, 42, "[42]");
	fmt_int("[%8.3d]", s64, 42, "[      42]");
	fmt_int("[%06d]", s64, (uint64_t)-42, "[000-42]"); /* the fill before the sign */
	fmt_int("[%#08x]", u64, 255, "[00000xff]");
	fmt_int("[%-08x]", u64, 255, "[ff000000]"); /* - and 0: zeros after */
	fmt_int("[%#x]", u64, 255, "[0xff]");
	fmt_int("[%5c]", u64, 'z', "[    z]");
	fmt_int("[%-4lld|]", s64, (uint64_t)-1, "[-1  |]");
	/* text around, %% and what is not a conversion */
	fmt_int("a%%b %d c\n", s64, 1, "a%b 1 c\n");
	fmt_int("%d %d", s64, 1, "1 %d"); /* no argument left: printed as written */
	fmt_int("%q %d", s64, 3, "%q 3"); /* unknown conversion kept, takes no argument */
	fmt_int("%d%", s64, 3, "3%");	  /* a lone % at the end */
}

static void test_printf_width_clamp(void **state)
{
	struct aot_meta *m = aot_meta_new();
	struct rt_buf b = { 0 };
	uint8_t payload[8] = { 1 };
	int e = aot_meta_add_elems(m, 1);
	struct aot_fmt f = { AOT_FMT_PRINTF,
			     "%999999999d|%.99999999d",
			     { AOT_K_TUPLE, 8, 0, 1, e } };

	(void)state;
	m->elems[e] = (struct aot_elem){ 0, t_int(8, 1) };
	assert_int_equal(rt_printf_format(&b, R(m), &f, payload, 8), 0);
	/* A huge width is clamped rather than allocating a gigabyte of spaces. */
	assert_int_equal(b.len, 4096 + 12);
	assert_string_equal(b.s + b.len - 13, "1|%.99999999d"); /* no argument left for it */
	rt_buf_free(&b);
	aot_meta_free(m);
}

static void test_printf_strings(void **state)
{
	(void)state;
	fmt_str("%s", "abc", 16, "abc");
	fmt_str("[%10s]", "abc", 16, "[       abc]");
	fmt_str("[%-10s]", "abc", 16, "[abc       ]");
	fmt_str("[%.2s]", "abc", 16, "[abc]"); /* bpftrace 0.27 ignores the precision */
	fmt_str("[%5.1s]", "abc", 16, "[  abc]");
	fmt_str("[%05s]", "abc", 16, "[00abc]");
	/* A full buffer has no NUL: the engine must stop at its size. */
	fmt_str("[%s]", "abcdefgh", 4, "[abcd]");
	fmt_str("[%-6s]", "abcdefgh", 4, "[abcd  ]");
	fmt_str("[%d]", "xy", 8, "[xy]"); /* a string given to %d prints as text */
}

static void test_printf_tuple_and_short(void **state)
{
	struct aot_meta *m = aot_meta_new();
	struct rt_buf b = { 0 };
	uint8_t payload[32] = { 0 };
	int e = aot_meta_add_elems(m, 2), in = aot_meta_add_elems(m, 2);
	struct aot_fmt f = { AOT_FMT_PRINTF, "%d %s!", { AOT_K_TUPLE, 32, 0, 2, e } };

	(void)state;
	m->elems[e] = (struct aot_elem){ 0, t_int(4, 1) };
	m->elems[e + 1] = (struct aot_elem){ 8, { AOT_K_TUPLE, 24, 0, 2, in } };
	m->elems[in] = (struct aot_elem){ 0, t_int(8, 0) };
	m->elems[in + 1] = (struct aot_elem){ 8, t_str(16) };
	put64(payload, (uint32_t)-5);
	put64(payload + 8, 7);
	memcpy(payload + 16, "hi", 3);
	assert_int_equal(rt_printf_format(&b, R(m), &f, payload, sizeof(payload)), 0);
	assert_string_equal(b.s, "-5 (7, hi)!");
	/* A payload shorter than the argument tuple is refused, not read past. */
	assert_int_equal(rt_printf_format(&b, R(m), &f, payload, 31), -EINVAL);
	rt_buf_free(&b);
	aot_meta_free(m);
}

/* Maps: entries as the kernel would hand them over, folded, sorted and formatted. */
struct map_case {
	struct aot_meta *m;
	struct aot_map map;
	uint8_t keys[16][24];
	uint8_t vals[16][2][16]; /* up to 2 CPUs of up to 16 bytes */
	size_t n;
};

/* How map_render formats: as the printed maps (text, JSON) or as metrics (Prometheus text,
 * OpenMetrics) with this family and series limit. */
struct map_format {
	bool json, metrics, openmetrics;
	uint64_t max_series;
	const char *name, *help; /* the metric family */
	size_t left;		 /* out: entries the series limit left out */
};

/* Folds, cuts to top, divides and formats a case; returns the malloc'd text. */
static char *map_render_as(struct map_case *c, size_t key_size, size_t stride, int ncpus,
			   uint64_t top, uint64_t div, struct map_format *fmt)
{
	uint8_t keys[16 * 24], vals[16 * 2 * 16];
	struct output_entry *ents;
	struct output_map om;
	struct rt_buf b = { 0 };
	size_t i, n;
	bool val_signed;

	for (i = 0; i < c->n; i++) {
		memcpy(keys + i * key_size, c->keys[i], key_size);
		memcpy(vals + i * stride * ncpus, c->vals[i][0], stride);
		if (ncpus > 1)
			memcpy(vals + i * stride * ncpus + stride, c->vals[i][1], stride);
	}
	assert_int_equal(rt_maps_fold(c->m, &c->map, keys, key_size, vals, stride, ncpus, c->n,
				      &ents, &n, &val_signed),
			 0);
	rt_maps_top_div(&c->map, ents, &n, top, div, val_signed);
	om = (struct output_map){ R(c->m), &c->map, ents, n, val_signed, div ? div : 1 };
	/* hist values hold their sums after the counts (an object from before: only counts) */
	om.has_sum = stride >= 16;
	if (fmt->metrics) {
		struct output_metrics o = { fmt->openmetrics, fmt->max_series };
		struct output_metrics_family f = { (char *)fmt->name, (char *)fmt->help,
						   output_metrics_type(&c->map) };

		fmt->left = output_metrics_map(&b, &o, &f, &om);
		output_metrics_end(&b, &o);
	} else if (fmt->json) {
		output_json_map(&b, &om);
	} else {
		output_text_map(&b, &om);
	}
	rt_maps_entries_free(ents, n);
	return b.s ? b.s : strdup("");
}

static char *map_render(struct map_case *c, size_t key_size, size_t stride, int ncpus, uint64_t top,
			uint64_t div, bool json)
{
	struct map_format fmt = { .json = json };

	return map_render_as(c, key_size, stride, ncpus, top, div, &fmt);
}

static void map_expect_full(struct map_case *c, size_t key_size, size_t stride, int ncpus,
			    uint64_t top, uint64_t div, bool json, const char *expected)
{
	char *got = map_render(c, key_size, stride, ncpus, top, div, json);

	if (strcmp(got, expected))
		fail_msg("map %s: got\n%s\nwant\n%s", c->map.name, got, expected);
	free(got);
}

static void map_expect(struct map_case *c, size_t key_size, size_t stride, int ncpus,
		       const char *expected)
{
	map_expect_full(c, key_size, stride, ncpus, 0, 0, false, expected);
}

static void test_map_scalar_aggs(void **state)
{
	struct map_case c = { .m = aot_meta_new(), .n = 1 };

	(void)state;
	c.map = (struct aot_map){ .name = "@a", .value = t_int(8, 1) };
	put64(c.vals[0][0], (uint64_t)-5);
	map_expect(&c, 8, 8, 1, "@a: -5\n");

	c.map = (struct aot_map){ .name = "@c", .agg = AOT_AGG_COUNT };
	put64(c.vals[0][0], 3);
	put64(c.vals[0][1], 4);
	map_expect(&c, 8, 8, 2, "@c: 7\n");

	c.map = (struct aot_map){ .name = "@s", .agg = AOT_AGG_SUM, .value = t_int(8, 1) };
	put64(c.vals[0][0], (uint64_t)-10);
	put64(c.vals[0][1], 3);
	map_expect(&c, 8, 8, 2, "@s: -7\n");

	c.map = (struct aot_map){ .name = "@u", .agg = AOT_AGG_SUM, .value = t_int(8, 0) };
	put64(c.vals[0][0], (uint64_t)-1);
	put64(c.vals[0][1], 0);
	map_expect(&c, 8, 8, 2, "@u: 18446744073709551615\n");

	/* min/max: a CPU that never set its value does not count */
	c.map = (struct aot_map){ .name = "@mn", .agg = AOT_AGG_MIN, .value = t_int(8, 1) };
	put64(c.vals[0][0], (uint64_t)-3);
	put64(c.vals[0][0] + 8, 1);
	put64(c.vals[0][1], (uint64_t)-100);
	put64(c.vals[0][1] + 8, 0);
	map_expect(&c, 8, 16, 2, "@mn: -3\n");
	c.map = (struct aot_map){ .name = "@mx", .agg = AOT_AGG_MAX, .value = t_int(8, 1) };
	put64(c.vals[0][0], (uint64_t)-9);
	put64(c.vals[0][0] + 8, 1);
	put64(c.vals[0][1], (uint64_t)-4);
	put64(c.vals[0][1] + 8, 1);
	map_expect(&c, 8, 16, 2, "@mx: -4\n");
	/* an entry set on no CPU is one zero() cleared: 0, as bpftrace prints it */
	put64(c.vals[0][0] + 8, 0);
	put64(c.vals[0][1] + 8, 0);
	map_expect(&c, 8, 16, 2, "@mx: 0\n");

	/* avg: total / count over all CPUs (bpftrace 0.27: no blank line after the map) */
	c.map = (struct aot_map){ .name = "@e", .agg = AOT_AGG_AVG, .value = t_int(8, 1) };
	put64(c.vals[0][0], (uint64_t)-20);
	put64(c.vals[0][0] + 8, 2);
	put64(c.vals[0][1], 6);
	put64(c.vals[0][1] + 8, 1);
	map_expect(&c, 8, 16, 2, "@e: -4\n");

	/* string and tuple values */
	c.map = (struct aot_map){ .name = "@t", .value = t_str(8) };
	memcpy(c.vals[0][0], "foo", 4);
	map_expect(&c, 8, 8, 1, "@t: foo\n");

	/* empty: nothing (bpftrace 0.27; 0.17 printed a blank line), a count() without keys 0 */
	c.n = 0;
	c.map = (struct aot_map){ .name = "@z", .agg = AOT_AGG_SUM, .value = t_int(8, 1) };
	map_expect(&c, 8, 8, 1, "");
	c.map = (struct aot_map){ .name = "@z", .agg = AOT_AGG_COUNT };
	map_expect(&c, 8, 8, 1, "@z: 0\n");
	aot_meta_free(c.m);
}

static void test_map_keys_and_sort(void **state)
{
	struct map_case c = { .m = aot_meta_new(), .n = 3 };
	int e;

	(void)state;
	/* int keys, count values: ascending by value, ties in kernel order */
	c.map = (struct aot_map){
		.name = "@b", .agg = AOT_AGG_COUNT, .nkeys = 1, .key = t_int(8, 1)
	};
	put64(c.keys[0], 1);
	put64(c.vals[0][0], 2);
	put64(c.keys[1], 2);
	put64(c.vals[1][0], 1);
	put64(c.keys[2], (uint64_t)-3);
	put64(c.vals[2][0], 2);
	map_expect(&c, 8, 8, 1, "@b[2]: 1\n@b[1]: 2\n@b[-3]: 2\n");

	/* signed sums sort as signed */
	c.map = (struct aot_map){ .name = "@s",
				  .agg = AOT_AGG_SUM,
				  .nkeys = 1,
				  .key = t_int(8, 1),
				  .value = t_int(8, 1) };
	put64(c.vals[0][0], (uint64_t)-4);
	put64(c.vals[1][0], 5);
	put64(c.vals[2][0], (uint64_t)-9);
	map_expect(&c, 8, 8, 1, "@s[-3]: -9\n@s[1]: -4\n@s[2]: 5\n");

	/* string values sort by key: integers as unsigned, so -3 comes last, as in bpftrace */
	c.map = (struct aot_map){ .name = "@v", .nkeys = 1, .key = t_int(8, 1), .value = t_str(8) };
	memcpy(c.vals[0][0], "c", 2);
	memcpy(c.vals[1][0], "b", 2);
	memcpy(c.vals[2][0], "a", 2);
	map_expect(&c, 8, 8, 1, "@v[1]: c\n@v[2]: b\n@v[-3]: a\n");

	/* string keys */
	c.map = (struct aot_map){ .name = "@k", .nkeys = 1, .key = t_str(16), .value = t_str(8) };
	memset(c.keys, 0, sizeof(c.keys));
	memcpy(c.keys[0], "bash", 5);
	memcpy(c.keys[1], "abc", 4);
	memcpy(c.keys[2], "abcdefghijklmnop", 16); /* full: no NUL */
	map_expect(&c, 16, 8, 1, "@k[abc]: b\n@k[abcdefghijklmnop]: a\n@k[bash]: c\n");

	/* multi-key: "[a, b]", sorted key by key */
	e = aot_meta_add_elems(c.m, 2);
	c.m->elems[e] = (struct aot_elem){ 0, t_int(4, 0) };
	c.m->elems[e + 1] = (struct aot_elem){ 8, t_str(8) };
	c.map = (struct aot_map){
		.name = "@u", .nkeys = 2, .key = { AOT_K_TUPLE, 16, 0, 2, e }, .value = t_str(8)
	};
	memset(c.keys, 0, sizeof(c.keys));
	put64(c.keys[0], 2);
	memcpy(c.keys[0] + 8, "a", 2);
	put64(c.keys[1], 1);
	memcpy(c.keys[1] + 8, "b", 2);
	put64(c.keys[2], 1);
	memcpy(c.keys[2] + 8, "a", 2);
	map_expect(&c, 16, 8, 1, "@u[1, a]: a\n@u[1, b]: b\n@u[2, a]: c\n");

	/* tuple values, nested */
	{
		int in = aot_meta_add_elems(c.m, 2);
		int out = aot_meta_add_elems(c.m, 2);

		c.m->elems[in] = (struct aot_elem){ 0, t_int(1, 1) };
		c.m->elems[in + 1] = (struct aot_elem){ 1, t_str(3) };
		c.m->elems[out] = (struct aot_elem){ 0, t_int(2, 0) };
		c.m->elems[out + 1] = (struct aot_elem){ 2, { AOT_K_TUPLE, 4, 0, 2, in } };
		c.map = (struct aot_map){ .name = "@w",
					  .nkeys = 1,
					  .key = t_int(8, 0),
					  .value = { AOT_K_TUPLE, 6, 0, 2, out } };
		c.n = 1;
		put64(c.keys[0], 7);
		memset(c.vals[0][0], 0, 16);
		c.vals[0][0][0] = 3;
		c.vals[0][0][2] = 0xfe;
		memcpy(c.vals[0][0] + 3, "xyz", 3);
		map_expect(&c, 8, 8, 1, "@w[7]: (3, (-2, xyz))\n");
	}

	/* bool values print as true/false */
	c.map = (struct aot_map){ .name = "@o", .value = { AOT_K_BOOL, 1, 0, 0, 0 } };
	c.n = 1;
	c.vals[0][0][0] = 1;
	map_expect(&c, 8, 8, 1, "@o: true\n");
	aot_meta_free(c.m);
}

/* Bucket lines as bpftrace 0.17 printed them on this host (copied from its output). */
#define AT52 "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@"
#define SP52 "                                                    "

static void test_map_hist(void **state)
{
	struct map_case c = { .m = aot_meta_new() };
	static const uint64_t buckets[] = { 0, 1, 4, 8 };
	size_t i;

	(void)state;
	/* hist(-1), hist(0), hist(5), hist(100): a scalar map, key = the u64 bucket alone */
	c.map = (struct aot_map){ .name = "@h", .agg = AOT_AGG_HIST, .value = t_int(8, 1) };
	c.n = 4;
	for (i = 0; i < 4; i++) {
		put64(c.keys[i], buckets[3 - i]); /* the kernel's order is any order */
		put64(c.vals[i][0], 1);
		put64(c.vals[i][1], 0);
	}
	map_expect_full(&c, 8, 8, 2, 0, 0, false,
			"@h:\n"
			"(..., 0)               1 |" AT52 "|\n"
			"[0]                    1 |" AT52 "|\n"
			"[1]                    0 |" SP52 "|\n"
			"[2, 4)                 0 |" SP52 "|\n"
			"[4, 8)                 1 |" AT52 "|\n"
			"[8, 16)                0 |" SP52 "|\n"
			"[16, 32)               0 |" SP52 "|\n"
			"[32, 64)               0 |" SP52 "|\n"
			"[64, 128)              1 |" AT52 "|\n"
			"\n");
	map_expect_full(
		&c, 8, 8, 2, 0, 0, true,
		"{\"type\": \"hist\", \"data\": {\"@h\": [{\"max\": -1, \"count\": 1},"
		"{\"min\": 0, \"max\": 0, \"count\": 1},{\"min\": 1, \"max\": 1, \"count\": "
		"0},{\"min\": 2, \"max\": 3, \"count\": 0},{\"min\": 4, \"max\": 7, "
		"\"count\": 1},{\"min\": 8, \"max\": 15, \"count\": 0},{\"min\": 16, "
		"\"max\": 31, \"count\": 0},{\"min\": 32, \"max\": 63, \"count\": 0},"
		"{\"min\": 64, \"max\": 127, \"count\": 1}]}}\n");

	/* keyed: @hk[3] = hist(1024), @hk[4] = hist(3); a bar scales to the largest bucket */
	c.map = (struct aot_map){ .name = "@hk",
				  .agg = AOT_AGG_HIST,
				  .nkeys = 1,
				  .key = t_int(8, 1),
				  .value = t_int(8, 1) };
	c.n = 3;
	put64(c.keys[0], 3);
	put64(c.keys[0] + 8, 12);
	put64(c.vals[0][0], 1);
	put64(c.keys[1], 4);
	put64(c.keys[1] + 8, 3);
	put64(c.vals[1][0], 4);
	put64(c.keys[2], 4);
	put64(c.keys[2] + 8, 4);
	put64(c.vals[2][0], 1);
	map_expect_full(
		&c, 16, 8, 1, 0, 0, false,
		"@hk[3]:\n"
		"[1K, 2K)               1 |" AT52 "|\n"
		"\n"
		"@hk[4]:\n"
		"[2, 4)                 4 |" AT52 "|\n"
		"[4, 8)                 1 |@@@@@@@@@@@@@                                       |\n"
		"\n");
	/* print(@hk, 1, 2): the largest total only, counts halved, bars not */
	map_expect_full(
		&c, 16, 8, 1, 1, 2, false,
		"@hk[4]:\n"
		"[2, 4)                 2 |" AT52 "|\n"
		"[4, 8)                 0 |@@@@@@@@@@@@@                                       |\n"
		"\n");
	map_expect_full(
		&c, 16, 8, 1, 0, 0, true,
		"{\"type\": \"hist\", \"data\": {\"@hk\": {\"3\": [{\"min\": 1024, \"max\": "
		"2047, \"count\": 1}], \"4\": [{\"min\": 2, \"max\": 3, \"count\": 4},"
		"{\"min\": 4, \"max\": 7, \"count\": 1}]}}}\n");

	/* lhist(x, 0, 100, 10) of -5, 5, 37, 200 */
	c.map = (struct aot_map){ .name = "@l",
				  .agg = AOT_AGG_LHIST,
				  .value = t_int(8, 1),
				  .lhist_min = 0,
				  .lhist_max = 100,
				  .lhist_step = 10 };
	c.n = 4;
	memset(c.keys, 0, sizeof(c.keys));
	put64(c.keys[0], 0);
	put64(c.keys[1], 1);
	put64(c.keys[2], 4);
	put64(c.keys[3], 11);
	for (i = 0; i < 4; i++)
		put64(c.vals[i][0], 1);
	map_expect_full(&c, 8, 8, 1, 0, 0, false,
			"@l:\n"
			"(..., 0)               1 |" AT52 "|\n"
			"[0, 10)                1 |" AT52 "|\n"
			"[10, 20)               0 |" SP52 "|\n"
			"[20, 30)               0 |" SP52 "|\n"
			"[30, 40)               1 |" AT52 "|\n"
			"[40, 50)               0 |" SP52 "|\n"
			"[50, 60)               0 |" SP52 "|\n"
			"[60, 70)               0 |" SP52 "|\n"
			"[70, 80)               0 |" SP52 "|\n"
			"[80, 90)               0 |" SP52 "|\n"
			"[90, 100)              0 |" SP52 "|\n"
			"[100, ...)             1 |" AT52 "|\n"
			"\n");
	/* K and M labels of lhist(x, 0, 2M, 1M) */
	c.map.lhist_max = 2097152;
	c.map.lhist_step = 1048576;
	c.n = 1;
	put64(c.keys[0], 2);
	map_expect_full(&c, 8, 8, 1, 0, 0, false, "@l:\n[1M, 2M)               1 |" AT52 "|\n\n");
	c.map.lhist_max = 100;
	c.map.lhist_step = 10;
	put64(c.keys[0], 0);
	map_expect_full(
		&c, 8, 8, 1, 0, 0, true,
		"{\"type\": \"hist\", \"data\": {\"@l\": [{\"max\": -1, \"count\": 1}]}}\n");
	/* empty: nothing in text (bpftrace 0.27) nor in JSON */
	c.n = 0;
	map_expect_full(&c, 8, 8, 1, 0, 0, false, "");
	map_expect_full(&c, 8, 8, 1, 0, 0, true, "");
	aot_meta_free(c.m);
}

static void test_map_stats_json(void **state)
{
	struct map_case c = { .m = aot_meta_new(), .n = 1 };
	int e;

	(void)state;
	/* stats(5), stats(9) over two CPUs */
	c.map = (struct aot_map){ .name = "@s", .agg = AOT_AGG_STATS, .value = t_int(8, 1) };
	put64(c.vals[0][0], 5);
	put64(c.vals[0][0] + 8, 1);
	put64(c.vals[0][1], 9);
	put64(c.vals[0][1] + 8, 1);
	map_expect_full(&c, 8, 16, 2, 0, 0, false,
			"@s: { .count = 2, .average = 7, .total = 14 }\n");
	map_expect_full(&c, 8, 16, 2, 0, 0, true,
			"{\"type\": \"stats\", \"data\": {\"@s\": {\"count\": 2, \"average\": 7, "
			"\"total\": 14}}}\n");
	c.map.agg = AOT_AGG_AVG;
	c.map.name = "@a";
	map_expect_full(&c, 8, 16, 2, 0, 0, true, "{\"type\": \"stats\", \"data\": {\"@a\": 7}}\n");

	/*
	 * keyed counts: a JSON key is the key's text with every space left out, as bpftrace 0.27
	 * writes it ("1, a \"b" is "1,a\"b"); values are numbers
	 */
	e = aot_meta_add_elems(c.m, 2);
	c.m->elems[e] = (struct aot_elem){ 0, t_int(8, 1) };
	c.m->elems[e + 1] = (struct aot_elem){ 8, t_str(8) };
	c.map = (struct aot_map){
		.name = "@c", .agg = AOT_AGG_COUNT, .nkeys = 2, .key = { AOT_K_TUPLE, 16, 0, 2, e }
	};
	c.n = 3;
	memset(c.keys, 0, sizeof(c.keys));
	memset(c.vals, 0, sizeof(c.vals));
	put64(c.keys[0], 1);
	memcpy(c.keys[0] + 8, "a \"b", 4);
	put64(c.vals[0][0], 10);
	put64(c.keys[1], 2);
	memcpy(c.keys[1] + 8, "x", 1);
	put64(c.vals[1][0], 30);
	put64(c.keys[2], 3);
	memcpy(c.keys[2] + 8, "y", 1);
	put64(c.vals[2][0], 20);
	map_expect_full(&c, 16, 8, 1, 0, 0, true,
			"{\"type\": \"map\", \"data\": {\"@c\": {\"1,a\\\"b\": 10, \"3,y\": 20, "
			"\"2,x\": 30}}}\n");
	/* print(@c, 2, 10): the two largest, divided */
	map_expect_full(&c, 16, 8, 1, 2, 10, false, "@c[3, y]: 2\n@c[2, x]: 3\n");
	/* string values are quoted, escaped */
	c.map = (struct aot_map){ .name = "@v", .value = t_str(8) };
	c.n = 1;
	memcpy(c.vals[0][0], "a\n\t\x01", 5);
	map_expect_full(&c, 8, 8, 1, 0, 0, true,
			"{\"type\": \"map\", \"data\": {\"@v\": \"a\\n\\t\\u0001\"}}\n");
	aot_meta_free(c.m);
}

/* Renderers with hand-built values, symbols from a synthetic kallsyms, a fake stack map. */
static int fake_stack(struct rt_syms *s, bool user, int64_t id, uint64_t *ips)
{
	(void)s;
	if (user || id != 7)
		return -ENOENT;
	ips[0] = 0xffffffff81000110;
	ips[1] = 0xffffffff81000005;
	ips[2] = 0x1234;
	return 0;
}

static bool cgroup2_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, " cgroup2 ") != NULL;
	if (f)
		fclose(f);
	return found;
}

static void render_expect(const struct rt_render *r, struct aot_type t, const void *data,
			  const char *text, const char *json)
{
	struct rt_buf b = { 0 };
	struct json_writer w;

	rt_value_text(&b, r, &t, data, false);
	if (strcmp(b.s ? b.s : "", text))
		fail_msg("kind %u: got \"%s\", want \"%s\"", t.kind, b.s, text);
	rt_buf_reset(&b);
	json_init(&w, &b);
	rt_value_json(&w, r, &t, data);
	if (json && strcmp(b.s ? b.s : "", json))
		fail_msg("kind %u as JSON: got %s, want %s", t.kind, b.s, json);
	rt_buf_free(&b);
}

static void test_render_kinds(void **state)
{
	static const char ktext[] = "ffffffff81000000 T _text\nffffffff81000100 t do_one\n"
				    "ffffffff81000200 T do_two\n";
	struct aot_meta *m = aot_meta_new();
	struct aot_probe p = { .prog = "p", .type = "tracepoint", .name = "tracepoint:a:b" };
	struct rt_syms syms;
	struct rt_render r = { .meta = m, .syms = &syms };
	uint8_t v[32] = { 0 };

	(void)state;
	rt_syms_init(&syms, NULL, 0);
	syms.ksyms = ksyms__new(NULL);
	assert_int_equal(ksyms__parse(syms.ksyms, ktext, strlen(ktext)), 0);
	syms.stack_read = fake_stack;
	aot_meta_add_probe(m, &p);

	put64(v, 0xffffffff81000105);
	render_expect(&r, (struct aot_type){ AOT_K_KSYM, 8 }, v, "do_one", "\"do_one\"");
	put64(v, 0x10);
	render_expect(&r, (struct aot_type){ AOT_K_KSYM, 8 }, v, "0x10", NULL);
	put64(v, 0);
	render_expect(&r, (struct aot_type){ AOT_K_KSYM, 8 }, v, "0", NULL);
	/* func as a constant (no bpf_get_func_ip): the function its probe's target names */
	aot_meta_add_probe(m, &(struct aot_probe){ .prog = "q",
						   .type = "kprobe",
						   .target = "vfs_read+4",
						   .name = "kprobe:x" });
	aot_meta_add_probe(m, &(struct aot_probe){ .prog = "s",
						   .type = "kfunc",
						   .target = "vmlinux:vfs_write",
						   .name = "kfunc:x" });
	put64(v, AOT_FUNC_TAG | 1);
	render_expect(&r, (struct aot_type){ AOT_K_KSYM, 8 }, v, "vfs_read", "\"vfs_read\"");
	put64(v, AOT_FUNC_TAG | 2);
	render_expect(&r, (struct aot_type){ AOT_K_KSYM, 8 }, v, "vfs_write", NULL);
	put64(v, AOT_FUNC_TAG | 3); /* no such probe: an address */
	render_expect(&r, (struct aot_type){ AOT_K_KSYM, 8 }, v, "0xa07f000000000003", NULL);
	put64(v, 7);
	render_expect(&r, (struct aot_type){ AOT_K_KSTACK, 8 }, v,
		      "\n        do_one+16\n        _text+5\n        0x1234\n", NULL);
	render_expect(&r, (struct aot_type){ AOT_K_KSTACK, 8, 0, 1, AOT_STACK_MODE_BPFTRACE }, v,
		      "\n        do_one+16\n", NULL);
	render_expect(&r, (struct aot_type){ AOT_K_KSTACK, 8, 0, 2, AOT_STACK_MODE_PERF }, v,
		      "\n\tffffffff81000110 do_one+16\n\tffffffff81000005 _text+5\n", NULL);
	render_expect(&r, (struct aot_type){ AOT_K_KSTACK, 8, 0, 0, AOT_STACK_MODE_RAW }, v,
		      "\nffffffff81000110\nffffffff81000005\n1234\n", NULL);
	put64(v, (uint64_t)-14); /* a failed bpf_get_stackid: nothing */
	render_expect(&r, (struct aot_type){ AOT_K_KSTACK, 8 }, v, "", "\"\"");

	memset(v, 0, sizeof(v));
	put64(v, 2); /* AF_INET */
	v[8] = 127, v[11] = 1;
	render_expect(&r, (struct aot_type){ AOT_K_INET, 24 }, v, "127.0.0.1", "\"127.0.0.1\"");
	put64(v, 10); /* AF_INET6 */
	memset(v + 8, 0, 16);
	v[23] = 1;
	render_expect(&r, (struct aot_type){ AOT_K_INET, 24 }, v, "::1", NULL);
	memcpy(v, "\x01\x02\x03\xaa\xbb\xcc", 6);
	render_expect(&r, (struct aot_type){ AOT_K_MACADDR, 6 }, v, "01:02:03:AA:BB:CC", NULL);
	memset(v, 0, sizeof(v));
	render_expect(&r, (struct aot_type){ AOT_K_USERNAME, 8 }, v, "root", "\"root\"");
	v[0] = 4;
	memcpy(v + 4,
	       "ab\x01"
	       "c",
	       4);
	render_expect(&r, (struct aot_type){ AOT_K_BUF, 12 }, v, "ab\\x01c", "[97,98,1,99]");
	memset(v, 0, sizeof(v));
	render_expect(&r, (struct aot_type){ AOT_K_PROBE, 8 }, v, "tracepoint:a:b", NULL);
	put64(v, 1);
	/* The text depends on this machine's cgroup mounts (compared with bpftrace end to end):
	 * the root cgroup is "/" in the cgroup2 hierarchy, which comes first. */
	{
		struct rt_buf b = { 0 };
		bool v2 = cgroup2_mounted();

		rt_value_text(&b, &r, &(struct aot_type){ AOT_K_CGROUP_PATH, 8 }, v, false);
		if (v2)
			assert_true(b.s && !strncmp(b.s, "unified:/", 9) &&
				    (!b.s[9] || b.s[9] == ','));
		else
			assert_false(b.s && !strncmp(b.s, "unified:", 8));
		rt_buf_free(&b);
	}
	rt_syms_fini(&syms);
	aot_meta_free(m);
}

/*
 * Values in JSON as bpftrace 0.27 writes them: an integer a double cannot hold exactly as a
 * string, an address unsigned, the language's bool as true/false, a struct with no spaces
 * inside its braces, an array of no items as [].
 */
static void test_render_json_values(void **state)
{
	struct aot_meta *m = aot_meta_new();
	uint8_t v[32] = { 0 };
	int e;

	(void)state;
	put64(v, 9007199254740992ull); /* 2^53 */
	render_expect(R(m), t_int(8, 0), v, "9007199254740992", "9007199254740992");
	put64(v, 9007199254740993ull);
	render_expect(R(m), t_int(8, 0), v, "9007199254740993", "\"9007199254740993\"");
	render_expect(R(m), t_int(8, 1), v, "9007199254740993", "\"9007199254740993\"");
	put64(v, (uint64_t)-9007199254740993ll);
	render_expect(R(m), t_int(8, 1), v, "-9007199254740993", "\"-9007199254740993\"");
	put64(v, 1ull << 63);
	render_expect(R(m), t_int(8, 0), v, "9223372036854775808", "9223372036854775808");
	render_expect(R(m), t_int(8, 1), v, "-9223372036854775808", "-9223372036854775808");
	put64(v, INT64_MAX);
	render_expect(R(m), t_int(8, 1), v, "9223372036854775807", "\"9223372036854775807\"");
	put64(v, UINT64_MAX);
	render_expect(R(m), t_int(8, 0), v, "18446744073709551615", "\"18446744073709551615\"");
	render_expect(R(m), t_int(8, 1), v, "-1", "-1");
	/* an address is unsigned, whatever an older object said of a pointer member */
	render_expect(R(m), (struct aot_type){ AOT_K_INT, 8, 1, AOT_INT_ADDRESS }, v,
		      "0xffffffffffffffff", "\"18446744073709551615\"");
	put64(v, 0x10);
	render_expect(R(m), (struct aot_type){ AOT_K_INT, 8, 1, AOT_INT_ADDRESS }, v, "0x10", "16");
	v[0] = 1;
	render_expect(R(m), (struct aot_type){ AOT_K_BOOL, 1 }, v, "true", "true");
	v[0] = 0;
	render_expect(R(m), (struct aot_type){ AOT_K_BOOL, 1 }, v, "false", "false");

	/* struct { int a; struct { _Bool b; } s; int z[0]; } */
	e = aot_meta_add_elems(m, 5);
	m->elems[e] = (struct aot_elem){ 0, t_int(4, 1), strdup("a") };
	m->elems[e + 1] = (struct aot_elem){ 4, { AOT_K_RECORD, 1, 0, 1, e + 3 }, strdup("s") };
	m->elems[e + 2] = (struct aot_elem){ 8, { AOT_K_ARRAY, 0, 0, 0, e + 4 }, strdup("z") };
	m->elems[e + 3] = (struct aot_elem){ 0, t_int(1, 0), strdup("b") };
	m->elems[e + 4] = (struct aot_elem){ 0, t_int(4, 1) };
	memset(v, 0, sizeof(v));
	v[0] = 7, v[4] = 1;
	render_expect(R(m), (struct aot_type){ AOT_K_RECORD, 8, 0, 3, e }, v,
		      "{ .a = 7, .s = { .b = 1 }, .z = [] }",
		      "{\"a\": 7, \"s\": {\"b\": 1}, \"z\": []}");
	aot_meta_free(m);
}

/* Pieces of lines from two CPUs, interleaved as a shared ring buffer delivers them. */
static void test_lines_whole_per_cpu(void **state)
{
	static const struct {
		unsigned int cpu;
		const char *text;
	} in[] = {
		{ 0, "a1 " }, { 1, "b1 " },  { 0, "a2 " },  { 1, "b2\n" }, { 0, "a3\n" },
		{ 1, "c1 " }, { 0, "d1\n" }, { 1, "c2\n" }, { 0, "e1 " },  { 1, "f1\n" },
	};
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);
	struct output o = { .ops = &output_text_ops, .f = f, .err = stderr };

	(void)state;
	assert_non_null(f);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		o.cpu = in[i].cpu;
		o.ops->printf(&o, in[i].text, strlen(in[i].text));
	}
	/* CPU 0's "e1 " never ends its line: what waits behind it is written when forced */
	assert_true(output_lines_held(&o));
	output_lines_flush(&o, true);
	assert_false(output_lines_held(&o));
	fclose(f);
	assert_string_equal(text, "a1 a2 a3\nb1 b2\nc1 c2\nd1\ne1 f1\n");
	free(text);
}

/* Every level has its one prefix; --no-warnings leaves out warnings and nothing else. */
static void test_report(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct output o = { .ops = &output_text_ops, .f = stdout, .err = f };

	(void)state;
	assert_non_null(f);
	rt_report(&o, RT_ERROR, "probe %s: %s", "kprobe:x", "no such kprobe");
	rt_report(&o, RT_HINT, "--missing-probes=warn skips it");
	rt_report(&o, RT_WARN, "map %s is full", "@a");
	rt_report(&o, RT_TEXT, "  verifier: %d\n", 1);
	o.no_warnings = true;
	rt_report(&o, RT_WARN, "left out");
	rt_report(&o, RT_ERROR, "still said");
	fclose(f);
	assert_string_equal(text, "ERROR: probe kprobe:x: no such kprobe\n"
				  "HINT: --missing-probes=warn skips it\n"
				  "WARNING: map @a is full\n"
				  "  verifier: 1\n"
				  "ERROR: still said\n");
	free(text);
}

/* A case as metrics: compares the text, and the entries the series limit left out. */
static void metrics_expect(struct map_case *c, size_t key_size, size_t stride, int ncpus,
			   struct map_format fmt, size_t left, const char *expected)
{
	char *got;

	fmt.metrics = true;
	fmt.name = fmt.name ? fmt.name : "aotrace_m";
	fmt.help = fmt.help ? fmt.help : "help";
	got = map_render_as(c, key_size, stride, ncpus, 0, 0, &fmt);
	if (strcmp(got, expected))
		fail_msg("map %s as metrics: got\n%s\nwant\n%s", c->map.name, got, expected);
	assert_int_equal(fmt.left, left);
	free(got);
}

static void metrics_name_is(const char *prefix, struct aot_map map, const char *expected)
{
	struct rt_buf b = { 0 };

	output_metrics_name(&b, prefix, &map);
	assert_string_equal(b.s ? b.s : "", expected);
	rt_buf_free(&b);
}

static void test_metrics_names_types(void **state)
{
	struct aot_map count = { .name = "@syscalls", .agg = AOT_AGG_COUNT };
	struct aot_map usum = { .name = "@bytes_total", .agg = AOT_AGG_SUM, .value = t_int(8, 0) };
	struct aot_map ssum = { .name = "@ret_total", .agg = AOT_AGG_SUM, .value = t_int(8, 1) };
	struct aot_map str = { .name = "@s", .value = t_str(16) };

	(void)state;
	metrics_name_is("aotrace_", count, "aotrace_syscalls");
	metrics_name_is("", count, "syscalls");
	metrics_name_is("", (struct aot_map){ .name = "@", .agg = AOT_AGG_COUNT }, "map");
	metrics_name_is("ns:", (struct aot_map){ .name = "@a.b-c", .agg = AOT_AGG_MAX },
			"ns:a_b_c");
	metrics_name_is("9", count, "_9syscalls");
	/* a counter's samples add _total to the family name, which does not end in it twice */
	metrics_name_is("aotrace_", usum, "aotrace_bytes");
	metrics_name_is("aotrace_", ssum, "aotrace_ret_total");
	assert_int_equal(output_metrics_type(&count), OUTPUT_METRIC_COUNTER);
	assert_int_equal(output_metrics_type(&usum), OUTPUT_METRIC_COUNTER);
	/* a signed sum may go down: a gauge */
	assert_int_equal(output_metrics_type(&ssum), OUTPUT_METRIC_GAUGE);
	assert_int_equal(output_metrics_type(&(struct aot_map){ .agg = AOT_AGG_AVG }),
			 OUTPUT_METRIC_GAUGE);
	assert_int_equal(output_metrics_type(&(struct aot_map){ .agg = AOT_AGG_LHIST }),
			 OUTPUT_METRIC_HISTOGRAM);
	assert_int_equal(output_metrics_type(&(struct aot_map){ .value = t_int(4, 1) }),
			 OUTPUT_METRIC_GAUGE);
	assert_int_equal(output_metrics_type(&str), OUTPUT_METRIC_NONE);
	assert_true(output_metrics_prefix_ok(""));
	assert_true(output_metrics_prefix_ok("node_ebpf:"));
	assert_false(output_metrics_prefix_ok("9a"));
	assert_false(output_metrics_prefix_ok("a-b"));
}

static void test_metrics_counters_labels(void **state)
{
	struct map_case c = { .m = aot_meta_new() };
	struct map_format om = { .openmetrics = true }, text = { 0 };
	int e = aot_meta_add_elems(c.m, 2);

	(void)state;
	/* @m[comm] = count(): label values escaped; a byte that is not UTF-8 becomes \x.. text */
	c.map = (struct aot_map){
		.name = "@m", .agg = AOT_AGG_COUNT, .nkeys = 1, .key = t_str(16)
	};
	c.n = 2;
	memcpy(c.keys[0], "a\"b\\c\nd", 8);
	put64(c.vals[0][0], 2);
	put64(c.vals[0][1], 1);
	memcpy(c.keys[1], "\xc3\xa9t\xe9", 5);
	put64(c.vals[1][0], 5);
	metrics_expect(&c, 16, 8, 2, text, 0,
		       "# HELP aotrace_m_total help\n"
		       "# TYPE aotrace_m_total counter\n"
		       "aotrace_m_total{key0=\"a\\\"b\\\\c\\nd\"} 3\n"
		       "aotrace_m_total{key0=\"\xc3\xa9t\\\\xe9\"} 5\n");
	metrics_expect(&c, 16, 8, 2, om, 0,
		       "# TYPE aotrace_m counter\n"
		       "# HELP aotrace_m help\n"
		       "aotrace_m_total{key0=\"a\\\"b\\\\c\\nd\"} 3\n"
		       "aotrace_m_total{key0=\"\xc3\xa9t\\\\xe9\"} 5\n"
		       "# EOF\n");
	/* HELP: the text format escapes backslash and newline, OpenMetrics double quotes too */
	text.help = om.help = "say \"hi\"\\\n";
	c.n = 0;
	metrics_expect(&c, 16, 8, 1, text, 0,
		       "# HELP aotrace_m_total say \"hi\"\\\\\\n\n"
		       "# TYPE aotrace_m_total counter\n");
	metrics_expect(&c, 16, 8, 1, om, 0,
		       "# TYPE aotrace_m counter\n"
		       "# HELP aotrace_m say \\\"hi\\\"\\\\\\n\n"
		       "# EOF\n");
	text.help = NULL;

	/* @s[pid, comm] = sum(signed): a tuple key is a label per element; a gauge */
	c.m->elems[e] = (struct aot_elem){ 0, t_int(4, 0) };
	c.m->elems[e + 1] = (struct aot_elem){ 8, t_str(8) };
	c.map = (struct aot_map){ .name = "@s",
				  .agg = AOT_AGG_SUM,
				  .nkeys = 2,
				  .key = { AOT_K_TUPLE, 16, 0, 2, (uint32_t)e },
				  .value = t_int(8, 1) };
	c.n = 1;
	put64(c.keys[0], 42);
	memcpy(c.keys[0] + 8, "sh", 3);
	put64(c.vals[0][0], (uint64_t)-7);
	metrics_expect(&c, 16, 8, 1, text, 0,
		       "# HELP aotrace_m help\n"
		       "# TYPE aotrace_m gauge\n"
		       "aotrace_m{key0=\"42\",key1=\"sh\"} -7\n");

	/* stats: three series per key; avg: the average */
	c.map = (struct aot_map){ .name = "@st", .agg = AOT_AGG_STATS, .value = t_int(8, 1) };
	put64(c.vals[0][0], 10);
	put64(c.vals[0][0] + 8, 4);
	metrics_expect(&c, 8, 16, 1, text, 0,
		       "# HELP aotrace_m help\n"
		       "# TYPE aotrace_m gauge\n"
		       "aotrace_m{stat=\"count\"} 4\n"
		       "aotrace_m{stat=\"average\"} 2\n"
		       "aotrace_m{stat=\"total\"} 10\n");
	c.map.agg = AOT_AGG_AVG;
	metrics_expect(&c, 8, 16, 1, text, 0,
		       "# HELP aotrace_m help\n"
		       "# TYPE aotrace_m gauge\n"
		       "aotrace_m 2\n");

	/* the series limit keeps the biggest values, as print(@m, top) */
	c.map = (struct aot_map){
		.name = "@k", .agg = AOT_AGG_COUNT, .nkeys = 1, .key = t_int(8, 0)
	};
	c.n = 3;
	for (int i = 0; i < 3; i++) {
		put64(c.keys[i], (uint64_t)i);
		put64(c.vals[i][0], (uint64_t)(10 - i));
	}
	text.max_series = 2;
	metrics_expect(&c, 8, 8, 1, text, 1,
		       "# HELP aotrace_m_total help\n"
		       "# TYPE aotrace_m_total counter\n"
		       "aotrace_m_total{key0=\"1\"} 9\n"
		       "aotrace_m_total{key0=\"0\"} 10\n");
	aot_meta_free(c.m);
}

/* Sets raw hist entry i: bucket b of the key k (a scalar map when k < 0), count, sum. */
static void hist_entry(struct map_case *c, int i, int64_t k, uint64_t b, uint64_t count,
		       int64_t sum)
{
	size_t at = 0;

	if (k >= 0) {
		put64(c->keys[i], (uint64_t)k);
		at = 8;
	}
	put64(c->keys[i] + at, b);
	put64(c->vals[i][0], count);
	put64(c->vals[i][0] + 8, (uint64_t)sum);
}

static void test_metrics_histograms(void **state)
{
	struct map_case c = { .m = aot_meta_new() };
	struct map_format text = { 0 }, om = { .openmetrics = true };
	char *got;

	(void)state;
	/* hist of 0, 5, 5, 100 and 1048575: le is the biggest integer a bucket holds; the buckets
	 * from 0 to the last holding a value, cumulative; +Inf, _sum, _count */
	c.map = (struct aot_map){ .name = "@h", .agg = AOT_AGG_HIST, .value = t_int(8, 1) };
	c.n = 4;
	hist_entry(&c, 0, -1, 1, 1, 0);
	hist_entry(&c, 1, -1, 4, 2, 10);
	hist_entry(&c, 2, -1, 8, 1, 100);
	hist_entry(&c, 3, -1, 21, 1, 1048575);
	metrics_expect(&c, 8, 16, 1, om, 0,
		       "# TYPE aotrace_m histogram\n"
		       "# HELP aotrace_m help\n"
		       "aotrace_m_bucket{le=\"0.0\"} 1\n"
		       "aotrace_m_bucket{le=\"1.0\"} 1\n"
		       "aotrace_m_bucket{le=\"3.0\"} 1\n"
		       "aotrace_m_bucket{le=\"7.0\"} 3\n"
		       "aotrace_m_bucket{le=\"15.0\"} 3\n"
		       "aotrace_m_bucket{le=\"31.0\"} 3\n"
		       "aotrace_m_bucket{le=\"63.0\"} 3\n"
		       "aotrace_m_bucket{le=\"127.0\"} 4\n"
		       "aotrace_m_bucket{le=\"255.0\"} 4\n"
		       "aotrace_m_bucket{le=\"511.0\"} 4\n"
		       "aotrace_m_bucket{le=\"1023.0\"} 4\n"
		       "aotrace_m_bucket{le=\"2047.0\"} 4\n"
		       "aotrace_m_bucket{le=\"4095.0\"} 4\n"
		       "aotrace_m_bucket{le=\"8191.0\"} 4\n"
		       "aotrace_m_bucket{le=\"16383.0\"} 4\n"
		       "aotrace_m_bucket{le=\"32767.0\"} 4\n"
		       "aotrace_m_bucket{le=\"65535.0\"} 4\n"
		       "aotrace_m_bucket{le=\"131071.0\"} 4\n"
		       "aotrace_m_bucket{le=\"262143.0\"} 4\n"
		       "aotrace_m_bucket{le=\"524287.0\"} 4\n"
		       "aotrace_m_bucket{le=\"1.048575e+06\"} 5\n"
		       "aotrace_m_bucket{le=\"+Inf\"} 5\n"
		       "aotrace_m_sum 1048685\n"
		       "aotrace_m_count 5\n"
		       "# EOF\n");
	/* a negative value: its bucket, and no _sum or _count (a sum must only grow) */
	c.n = 2;
	hist_entry(&c, 0, -1, 0, 2, -3);
	hist_entry(&c, 1, -1, 3, 1, 2);
	metrics_expect(&c, 8, 16, 1, text, 0,
		       "# HELP aotrace_m help\n"
		       "# TYPE aotrace_m histogram\n"
		       "aotrace_m_bucket{le=\"-1.0\"} 2\n"
		       "aotrace_m_bucket{le=\"0.0\"} 2\n"
		       "aotrace_m_bucket{le=\"1.0\"} 2\n"
		       "aotrace_m_bucket{le=\"3.0\"} 3\n"
		       "aotrace_m_bucket{le=\"+Inf\"} 3\n");
	/* the last bucket's le, 2^63 - 1, is the shortest form of the double nearest to it */
	c.n = 1;
	hist_entry(&c, 0, -1, 64, 1, INT64_MAX);
	got = map_render_as(&c, 8, 16, 1, 0, 0,
			    &(struct map_format){ .metrics = true, .name = "h", .help = "" });
	assert_non_null(strstr(got, "h_bucket{le=\"4.611686018427388e+18\"} 0\n"
				    "h_bucket{le=\"9.223372036854776e+18\"} 1\n"
				    "h_bucket{le=\"+Inf\"} 1\n"
				    "h_sum 9223372036854775807\n"));
	free(got);

	/* counts and sums fold over the CPUs: 2 and 3 on one, 3 on the other */
	c.n = 1;
	hist_entry(&c, 0, -1, 3, 2, 5);
	put64(c.vals[0][1], 1);
	put64(c.vals[0][1] + 8, 3);
	metrics_expect(&c, 8, 16, 2, text, 0,
		       "# HELP aotrace_m help\n"
		       "# TYPE aotrace_m histogram\n"
		       "aotrace_m_bucket{le=\"0.0\"} 0\n"
		       "aotrace_m_bucket{le=\"1.0\"} 0\n"
		       "aotrace_m_bucket{le=\"3.0\"} 3\n"
		       "aotrace_m_bucket{le=\"+Inf\"} 3\n"
		       "aotrace_m_sum 8\n"
		       "aotrace_m_count 3\n");
	memset(c.vals[0][1], 0, sizeof(c.vals[0][1]));

	/* an object from before hist values held sums: the buckets alone */
	c.n = 1;
	c.map.nkeys = 1;
	c.map.key = t_int(8, 0);
	hist_entry(&c, 0, 7, 2, 3, 0);
	metrics_expect(&c, 16, 8, 1, text, 0,
		       "# HELP aotrace_m help\n"
		       "# TYPE aotrace_m histogram\n"
		       "aotrace_m_bucket{key0=\"7\",le=\"0.0\"} 0\n"
		       "aotrace_m_bucket{key0=\"7\",le=\"1.0\"} 3\n"
		       "aotrace_m_bucket{key0=\"7\",le=\"+Inf\"} 3\n");

	/* lhist(v, 10, 40, 10) of 12, 12, 35, 50: [a, a+10) is le a+9, the values from max on
	 * count in +Inf alone; a value below min (here 3) may have been negative: no _sum */
	c.map = (struct aot_map){ .name = "@l",
				  .agg = AOT_AGG_LHIST,
				  .value = t_int(8, 1),
				  .lhist_min = 10,
				  .lhist_max = 40,
				  .lhist_step = 10 };
	c.n = 3;
	hist_entry(&c, 0, -1, 1, 2, 24);
	hist_entry(&c, 1, -1, 3, 1, 35);
	hist_entry(&c, 2, -1, 4, 1, 50);
	metrics_expect(&c, 8, 16, 1, text, 0,
		       "# HELP aotrace_m help\n"
		       "# TYPE aotrace_m histogram\n"
		       "aotrace_m_bucket{le=\"19.0\"} 2\n"
		       "aotrace_m_bucket{le=\"29.0\"} 2\n"
		       "aotrace_m_bucket{le=\"39.0\"} 3\n"
		       "aotrace_m_bucket{le=\"+Inf\"} 4\n"
		       "aotrace_m_sum 109\n"
		       "aotrace_m_count 4\n");
	c.n = 4;
	hist_entry(&c, 3, -1, 0, 1, 3);
	metrics_expect(&c, 8, 16, 1, text, 0,
		       "# HELP aotrace_m help\n"
		       "# TYPE aotrace_m histogram\n"
		       "aotrace_m_bucket{le=\"9.0\"} 1\n"
		       "aotrace_m_bucket{le=\"19.0\"} 3\n"
		       "aotrace_m_bucket{le=\"29.0\"} 3\n"
		       "aotrace_m_bucket{le=\"39.0\"} 4\n"
		       "aotrace_m_bucket{le=\"+Inf\"} 5\n");
	/* a histogram counts toward the series limit with each of its lines, whole or not at all */
	text.max_series = 4;
	metrics_expect(&c, 8, 16, 1, text, 1,
		       "# HELP aotrace_m help\n"
		       "# TYPE aotrace_m histogram\n");
	aot_meta_free(c.m);
}

/* One slot of a tseries map on two CPUs: { val, meta, epoch } each. */
static void ts_slot(uint8_t *v, const int64_t cpu0[3], const int64_t cpu1[3])
{
	for (int i = 0; i < 3; i++) {
		put64(v + 8 * i, (uint64_t)cpu0[i]);
		put64(v + 24 + 8 * i, (uint64_t)cpu1[i]);
	}
}

static char *ts_render(const struct aot_map *map, const uint8_t *keys, const uint8_t *vals,
		       size_t n, bool json)
{
	struct aot_meta *m = aot_meta_new();
	struct output_entry *ents;
	struct output_map om;
	struct rt_buf b = { 0 };
	size_t nents;
	bool sig;

	assert_int_equal(rt_maps_fold(m, map, keys, 8, vals, 24, 2, n, &ents, &nents, &sig), 0);
	rt_maps_top_div(map, ents, &nents, 1, 2, sig); /* print()'s top and div: ignored */
	om = (struct output_map){ R(m), map, ents, nents, sig, 1 };
	if (json)
		output_json_map(&b, &om);
	else
		output_text_map(&b, &om);
	rt_maps_entries_free(ents, nents);
	aot_meta_free(m);
	return b.s ? b.s : strdup("");
}

/*
 * tseries: the CPUs of a slot folded into its latest interval (a stale CPU left out), slots
 * never written left out, the window of count intervals ending at the latest, an interval
 * without a value; times in UTC (JSON) and, with TZ=UTC, local (text).
 */
static void test_map_tseries(void **state)
{
	struct aot_map map = { .name = "@",
			       .agg = AOT_AGG_TSERIES,
			       .value = t_int(8, 1),
			       .tseries_interval = 1000000000,
			       .tseries_count = 4 };
	uint8_t keys[4 * 8] = { 0 }, vals[4 * 48];
	char *got;

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	for (int i = 0; i < 4; i++)
		put64(keys + 8 * i, (uint64_t)i);
	map.tseries_fn = AOT_TSERIES_MAX;
	ts_slot(vals, (int64_t[]){ 5, 1, 100 }, (int64_t[]){ 9, 1, 100 });
	ts_slot(vals + 48, (int64_t[]){ 70, 1, 97 }, (int64_t[]){ -2, 1, 102 });
	ts_slot(vals + 96, (int64_t[]){ 0, 0, 0 }, (int64_t[]){ 0, 0, 0 });
	ts_slot(vals + 144, (int64_t[]){ 3, 1, 97 }, (int64_t[]){ 0, 0, 0 });
	got = ts_render(&map, keys, vals, 4, true);
	assert_string_equal(
		got, "{\"type\": \"tseries\", \"data\": {\"@\": ["
		     "{\"interval_start\":\"1970-01-01 00:01:40.000000000\",\"value\":9},"
		     "{\"interval_start\":\"1970-01-01 00:01:42.000000000\",\"value\":-2}]}}\n");
	free(got);
	got = ts_render(&map, keys, vals, 4, false);
	assert_string_equal(got,
			    "@:\n"
			    "         -2                                                  9\n"
			    "hh:mm:ss |___________________________________________________|\n"
			    "00:01:40 |        .                                          * 9\n"
			    "00:01:41 |        .                                          | -\n"
			    "00:01:42 *        .                                          | -2\n"
			    "         v___________________________________________________v\n"
			    "         -2                                                  9\n\n");
	free(got);
	/* avg adds the totals and counts of the CPUs; the last value is the one set last */
	map.tseries_fn = AOT_TSERIES_AVG;
	ts_slot(vals, (int64_t[]){ 10, 2, 5 }, (int64_t[]){ 5, 3, 5 });
	got = ts_render(&map, keys, vals, 1, true);
	assert_non_null(strstr(got, "00:00:05.000000000\",\"value\":3}]"));
	free(got);
	map.tseries_fn = AOT_TSERIES_LAST;
	ts_slot(vals, (int64_t[]){ 1, 50, 7 }, (int64_t[]){ 2, 40, 7 });
	got = ts_render(&map, keys, vals, 1, true);
	assert_non_null(strstr(got, "00:00:07.000000000\",\"value\":1}]"));
	free(got);
	/* zero(): every slot 0, no interval at all */
	ts_slot(vals, (int64_t[]){ 0, 0, 0 }, (int64_t[]){ 0, 0, 0 });
	got = ts_render(&map, keys, vals, 1, false);
	assert_string_equal(got, "@:\n<no data>\n");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_printf_ints),
		cmocka_unit_test(test_printf_width_clamp),
		cmocka_unit_test(test_printf_strings),
		cmocka_unit_test(test_printf_tuple_and_short),
		cmocka_unit_test(test_map_scalar_aggs),
		cmocka_unit_test(test_map_keys_and_sort),
		cmocka_unit_test(test_map_hist),
		cmocka_unit_test(test_map_tseries),
		cmocka_unit_test(test_map_stats_json),
		cmocka_unit_test(test_render_kinds),
		cmocka_unit_test(test_render_json_values),
		cmocka_unit_test(test_lines_whole_per_cpu),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_metrics_names_types),
		cmocka_unit_test(test_metrics_counters_labels),
		cmocka_unit_test(test_metrics_histograms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
