// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of what the runtime prints: the printf engine's conversions, flags, widths and
 * precisions against C printf, and map lines as bpftrace 0.17 prints them (keys of every kind,
 * each aggregation folded over CPUs, the sort orders, blank lines).
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

#include "rt.h"

/* A render context with no symbol services, for metadata m. */
#define R(m) (&(struct rt_render){.meta = (m)})

static struct aot_type t_int(uint32_t size, uint32_t sig)
{
	return (struct aot_type){.kind = AOT_K_INT, .size = size, .is_signed = sig};
}

static struct aot_type t_str(uint32_t size)
{
	return (struct aot_type){.kind = AOT_K_STR, .size = size};
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
	struct rt_buf b = {0};
	uint8_t payload[8] = {0};
	int e = aot_meta_add_elems(m, 1);
	struct aot_fmt f = {AOT_FMT_PRINTF, (char *)fmt, {AOT_K_TUPLE, 8, 0, 1, e}};

	m->elems[e] = (struct aot_elem){0, t};
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
	struct rt_buf b = {0};
	char payload[64] = {0};
	int e = aot_meta_add_elems(m, 1);
	struct aot_fmt f = {AOT_FMT_PRINTF, (char *)fmt, {AOT_K_TUPLE, size, 0, 1, e}};

	m->elems[e] = (struct aot_elem){0, t_str(size)};
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
	fmt_int("%p", u64, 0, "(nil)");
	fmt_int("%hhd", u64, 300, "44");
	fmt_int("%hd", u64, 70000, "4464");
	fmt_int("%d", s32, 0xffffffff, "-1"); /* sign-extended from 4 bytes */
	fmt_int("%d", s8, 0xff, "-1");
	fmt_int("%u", t_int(4, 0), 0xffffffff, "4294967295");
	fmt_int("%d", u64, 0x100000005ULL, "5"); /* truncated to int, as bpftrace's C printf */
	/* flags, widths, precisions */
	fmt_int("[%5d]", s64, 42, "[   42]");
	fmt_int("[%-5d]", s64, 42, "[42   ]");
	fmt_int("[%05d]", s64, 42, "[00042]");
	fmt_int("[%+d]", s64, 42, "[+42]");
	fmt_int("[% d]", s64, 42, "[ 42]");
	fmt_int("[%.3d]", s64, 42, "[042]");
	fmt_int("[%8.3d]", s64, 42, "[     042]");
	fmt_int("[%-08x]", u64, 255, "[ff      ]");
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
	struct rt_buf b = {0};
	uint8_t payload[8] = {1};
	int e = aot_meta_add_elems(m, 1);
	struct aot_fmt f = {AOT_FMT_PRINTF, "%999999999d|%.99999999d", {AOT_K_TUPLE, 8, 0, 1, e}};

	(void)state;
	m->elems[e] = (struct aot_elem){0, t_int(8, 1)};
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
	fmt_str("[%.2s]", "abc", 16, "[ab]");
	fmt_str("[%5.1s]", "abc", 16, "[    a]");
	/* A full buffer has no NUL: the engine must stop at its size. */
	fmt_str("[%s]", "abcdefgh", 4, "[abcd]");
	fmt_str("[%-6s]", "abcdefgh", 4, "[abcd  ]");
	fmt_str("[%d]", "xy", 8, "[xy]"); /* a string given to %d prints as text */
}

static void test_printf_tuple_and_short(void **state)
{
	struct aot_meta *m = aot_meta_new();
	struct rt_buf b = {0};
	uint8_t payload[32] = {0};
	int e = aot_meta_add_elems(m, 2), in = aot_meta_add_elems(m, 2);
	struct aot_fmt f = {AOT_FMT_PRINTF, "%d %s!", {AOT_K_TUPLE, 32, 0, 2, e}};

	(void)state;
	m->elems[e] = (struct aot_elem){0, t_int(4, 1)};
	m->elems[e + 1] = (struct aot_elem){8, {AOT_K_TUPLE, 24, 0, 2, in}};
	m->elems[in] = (struct aot_elem){0, t_int(8, 0)};
	m->elems[in + 1] = (struct aot_elem){8, t_str(16)};
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

/* Folds, cuts to top, divides and formats a case; returns the malloc'd text. */
static char *map_render(struct map_case *c, size_t key_size, size_t stride, int ncpus,
			uint64_t top, uint64_t div, bool json)
{
	uint8_t keys[16 * 24], vals[16 * 2 * 16];
	struct output_entry *ents;
	struct output_map om;
	struct rt_buf b = {0};
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
	om = (struct output_map){R(c->m), &c->map, ents, n, val_signed, div ? div : 1};
	if (json)
		output_json_map(&b, &om);
	else
		output_text_map(&b, &om);
	rt_maps_entries_free(ents, n);
	return b.s ? b.s : strdup("");
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
	struct map_case c = {.m = aot_meta_new(), .n = 1};

	(void)state;
	c.map = (struct aot_map){.name = "@a", .value = t_int(8, 1)};
	put64(c.vals[0][0], (uint64_t)-5);
	map_expect(&c, 8, 8, 1, "@a: -5\n");

	c.map = (struct aot_map){.name = "@c", .agg = AOT_AGG_COUNT};
	put64(c.vals[0][0], 3);
	put64(c.vals[0][1], 4);
	map_expect(&c, 8, 8, 2, "@c: 7\n");

	c.map = (struct aot_map){.name = "@s", .agg = AOT_AGG_SUM, .value = t_int(8, 1)};
	put64(c.vals[0][0], (uint64_t)-10);
	put64(c.vals[0][1], 3);
	map_expect(&c, 8, 8, 2, "@s: -7\n");

	c.map = (struct aot_map){.name = "@u", .agg = AOT_AGG_SUM, .value = t_int(8, 0)};
	put64(c.vals[0][0], (uint64_t)-1);
	put64(c.vals[0][1], 0);
	map_expect(&c, 8, 8, 2, "@u: 18446744073709551615\n");

	/* min/max: a CPU that never set its value does not count */
	c.map = (struct aot_map){.name = "@mn", .agg = AOT_AGG_MIN, .value = t_int(8, 1)};
	put64(c.vals[0][0], (uint64_t)-3);
	put64(c.vals[0][0] + 8, 1);
	put64(c.vals[0][1], (uint64_t)-100);
	put64(c.vals[0][1] + 8, 0);
	map_expect(&c, 8, 16, 2, "@mn: -3\n");
	c.map = (struct aot_map){.name = "@mx", .agg = AOT_AGG_MAX, .value = t_int(8, 1)};
	put64(c.vals[0][0], (uint64_t)-9);
	put64(c.vals[0][0] + 8, 1);
	put64(c.vals[0][1], (uint64_t)-4);
	put64(c.vals[0][1] + 8, 1);
	map_expect(&c, 8, 16, 2, "@mx: -4\n");
	/* never set anywhere: an empty map, which bpftrace shows as a blank line */
	put64(c.vals[0][0] + 8, 0);
	put64(c.vals[0][1] + 8, 0);
	map_expect(&c, 8, 16, 2, "\n");

	/* avg: total / count over all CPUs, and a blank line after the map */
	c.map = (struct aot_map){.name = "@e", .agg = AOT_AGG_AVG, .value = t_int(8, 1)};
	put64(c.vals[0][0], (uint64_t)-20);
	put64(c.vals[0][0] + 8, 2);
	put64(c.vals[0][1], 6);
	put64(c.vals[0][1] + 8, 1);
	map_expect(&c, 8, 16, 2, "@e: -4\n\n");

	/* string and tuple values */
	c.map = (struct aot_map){.name = "@t", .value = t_str(8)};
	memcpy(c.vals[0][0], "foo", 4);
	map_expect(&c, 8, 8, 1, "@t: foo\n");

	/* empty */
	c.n = 0;
	c.map = (struct aot_map){.name = "@z", .agg = AOT_AGG_COUNT};
	map_expect(&c, 8, 8, 1, "\n");
	aot_meta_free(c.m);
}

static void test_map_keys_and_sort(void **state)
{
	struct map_case c = {.m = aot_meta_new(), .n = 3};
	int e;

	(void)state;
	/* int keys, count values: ascending by value, ties in kernel order */
	c.map = (struct aot_map){
		.name = "@b", .agg = AOT_AGG_COUNT, .nkeys = 1, .key = t_int(8, 1)};
	put64(c.keys[0], 1);
	put64(c.vals[0][0], 2);
	put64(c.keys[1], 2);
	put64(c.vals[1][0], 1);
	put64(c.keys[2], (uint64_t)-3);
	put64(c.vals[2][0], 2);
	map_expect(&c, 8, 8, 1, "@b[2]: 1\n@b[1]: 2\n@b[-3]: 2\n");

	/* signed sums sort as signed */
	c.map = (struct aot_map){.name = "@s",
				 .agg = AOT_AGG_SUM,
				 .nkeys = 1,
				 .key = t_int(8, 1),
				 .value = t_int(8, 1)};
	put64(c.vals[0][0], (uint64_t)-4);
	put64(c.vals[1][0], 5);
	put64(c.vals[2][0], (uint64_t)-9);
	map_expect(&c, 8, 8, 1, "@s[-3]: -9\n@s[1]: -4\n@s[2]: 5\n");

	/* string values sort by key: integers as unsigned, so -3 comes last, as in bpftrace */
	c.map = (struct aot_map){.name = "@v", .nkeys = 1, .key = t_int(8, 1), .value = t_str(8)};
	memcpy(c.vals[0][0], "c", 2);
	memcpy(c.vals[1][0], "b", 2);
	memcpy(c.vals[2][0], "a", 2);
	map_expect(&c, 8, 8, 1, "@v[1]: c\n@v[2]: b\n@v[-3]: a\n");

	/* string keys */
	c.map = (struct aot_map){.name = "@k", .nkeys = 1, .key = t_str(16), .value = t_str(8)};
	memset(c.keys, 0, sizeof(c.keys));
	memcpy(c.keys[0], "bash", 5);
	memcpy(c.keys[1], "abc", 4);
	memcpy(c.keys[2], "abcdefghijklmnop", 16); /* full: no NUL */
	map_expect(&c, 16, 8, 1, "@k[abc]: b\n@k[abcdefghijklmnop]: a\n@k[bash]: c\n");

	/* multi-key: "[a, b]", sorted key by key */
	e = aot_meta_add_elems(c.m, 2);
	c.m->elems[e] = (struct aot_elem){0, t_int(4, 0)};
	c.m->elems[e + 1] = (struct aot_elem){8, t_str(8)};
	c.map = (struct aot_map){
		.name = "@u", .nkeys = 2, .key = {AOT_K_TUPLE, 16, 0, 2, e}, .value = t_str(8)};
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

		c.m->elems[in] = (struct aot_elem){0, t_int(1, 1)};
		c.m->elems[in + 1] = (struct aot_elem){1, t_str(3)};
		c.m->elems[out] = (struct aot_elem){0, t_int(2, 0)};
		c.m->elems[out + 1] = (struct aot_elem){2, {AOT_K_TUPLE, 4, 0, 2, in}};
		c.map = (struct aot_map){.name = "@w",
					 .nkeys = 1,
					 .key = t_int(8, 0),
					 .value = {AOT_K_TUPLE, 6, 0, 2, out}};
		c.n = 1;
		put64(c.keys[0], 7);
		memset(c.vals[0][0], 0, 16);
		c.vals[0][0][0] = 3;
		c.vals[0][0][2] = 0xfe;
		memcpy(c.vals[0][0] + 3, "xyz", 3);
		map_expect(&c, 8, 8, 1, "@w[7]: (3, (-2, xyz))\n");
	}

	/* bool values print as true/false */
	c.map = (struct aot_map){.name = "@o", .value = {AOT_K_BOOL, 1, 0, 0, 0}};
	c.n = 1;
	c.vals[0][0][0] = 1;
	map_expect(&c, 8, 8, 1, "@o: true\n");
	aot_meta_free(c.m);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
