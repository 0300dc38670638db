// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the metadata section: a round trip through aot_meta_write and aot_meta_read, then
 * every truncation and a long list of corruptions, each of which must be rejected with a
 * one-line reason and no out-of-bounds read (run under ASan).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "meta.h"
#include "policy.h"

static struct aot_type t_int(uint32_t size, uint32_t sig)
{
	return (struct aot_type){ .kind = AOT_K_INT, .size = size, .is_signed = sig };
}

static struct aot_type t_str(uint32_t size)
{
	return (struct aot_type){ .kind = AOT_K_STR, .size = size };
}

/* A meta with two probes, maps of every kind of key, a format with a nested tuple. */
static struct aot_meta *build(void)
{
	struct aot_meta *m = aot_meta_new();
	int e, inner;

	assert_non_null(m);
	assert_int_equal(aot_meta_add_probe(m, &(struct aot_probe){ .prog = "begin",
								    .type = "BEGIN",
								    .name = "BEGIN",
								    .flags = AOT_PROBE_BEGIN }),
			 0);
	assert_int_equal(
		aot_meta_add_probe(
			m, &(struct aot_probe){ .prog = "tp_openat",
						.type = "tracepoint",
						.target = "syscalls:sys_enter_openat",
						.name = "tracepoint:syscalls:sys_enter_openat" }),
		1);
	/* printf("%d %s %d\n", a, s, (b, (c, "x"))): outer tuple first, inner after it */
	e = aot_meta_add_elems(m, 3);
	inner = aot_meta_add_elems(m, 2);
	assert_int_equal(e, 0);
	assert_int_equal(inner, 3);
	m->elems[e] = (struct aot_elem){ 0, t_int(8, 1) };
	m->elems[e + 1] = (struct aot_elem){ 8, t_str(16) };
	m->elems[e + 2] = (struct aot_elem){ 24, { AOT_K_TUPLE, 24, 0, 2, inner } };
	m->elems[inner] = (struct aot_elem){ 0, t_int(4, 0) };
	m->elems[inner + 1] = (struct aot_elem){ 8, t_str(16) };
	assert_int_equal(aot_meta_add_fmt(m, &(struct aot_fmt){ AOT_FMT_PRINTF,
								"%d %s %d\n",
								{ AOT_K_TUPLE, 48, 0, 3, e } }),
			 0);
	assert_int_equal(aot_meta_add_map(m, &(struct aot_map){ .name = "@",
								.elf_name = "m0",
								.agg = AOT_AGG_COUNT,
								.nkeys = 1,
								.key = t_str(16) }),
			 0);
	e = aot_meta_add_elems(m, 2);
	m->elems[e] = (struct aot_elem){ 0, t_int(8, 0) };
	m->elems[e + 1] = (struct aot_elem){ 8, t_str(8) };
	assert_int_equal(aot_meta_add_map(m, &(struct aot_map){ .name = "@x",
								.elf_name = "m1",
								.agg = AOT_AGG_AVG,
								.nkeys = 2,
								.key = { AOT_K_TUPLE, 16, 0, 2, e },
								.value = t_int(8, 1) }),
			 1);
	assert_int_equal(aot_meta_add_map(m, &(struct aot_map){ .name = "@s",
								.elf_name = "m2",
								.value = t_int(4, 1) }),
			 2);
	m->nparams = 2;
	return m;
}

static void type_equal(const struct aot_type *a, const struct aot_type *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->is_signed, b->is_signed);
	assert_int_equal(a->nelems, b->nelems);
	assert_int_equal(a->elems, b->elems);
}

static void str_equal(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void test_round_trip(void **state)
{
	struct aot_meta *m = build(), *r;
	char err[256];
	size_t size;
	void *buf;
	uint32_t i;

	(void)state;
	assert_int_equal(aot_meta_write(m, &buf, &size), 0);
	assert_memory_equal(buf, "AOTMETA", 8);
	assert_int_equal(aot_meta_read(buf, size, &r, err, sizeof(err)), 0);
	assert_int_equal(r->version, AOT_META_VERSION_BASE);
	assert_int_equal(r->nparams, 2);
	assert_int_equal(r->nprobes, m->nprobes);
	for (i = 0; i < m->nprobes; i++) {
		str_equal(r->probes[i].prog, m->probes[i].prog);
		str_equal(r->probes[i].type, m->probes[i].type);
		str_equal(r->probes[i].target, m->probes[i].target);
		str_equal(r->probes[i].name, m->probes[i].name);
		assert_int_equal(r->probes[i].flags, m->probes[i].flags);
	}
	assert_null(r->probes[0].target);
	assert_int_equal(r->nmaps, m->nmaps);
	for (i = 0; i < m->nmaps; i++) {
		str_equal(r->maps[i].name, m->maps[i].name);
		str_equal(r->maps[i].elf_name, m->maps[i].elf_name);
		assert_int_equal(r->maps[i].agg, m->maps[i].agg);
		assert_int_equal(r->maps[i].nkeys, m->maps[i].nkeys);
		type_equal(&r->maps[i].key, &m->maps[i].key);
		type_equal(&r->maps[i].value, &m->maps[i].value);
	}
	assert_int_equal(r->nfmts, 1);
	str_equal(r->fmts[0].fmt, m->fmts[0].fmt);
	type_equal(&r->fmts[0].args, &m->fmts[0].args);
	assert_int_equal(r->nelems, m->nelems);
	for (i = 0; i < m->nelems; i++) {
		assert_int_equal(r->elems[i].offset, m->elems[i].offset);
		type_equal(&r->elems[i].type, &m->elems[i].type);
	}
	aot_meta_free(r);
	aot_meta_free(m);
	free(buf);
}

static void test_empty(void **state)
{
	struct aot_meta *m = aot_meta_new(), *r;
	size_t size;
	void *buf;

	(void)state;
	assert_int_equal(aot_meta_write(m, &buf, &size), 0);
	assert_int_equal(aot_meta_read(buf, size, &r, NULL, 0), 0);
	assert_int_equal(r->nprobes + r->nmaps + r->nfmts + r->nelems, 0);
	aot_meta_free(r);
	aot_meta_free(m);
	free(buf);
}

/* Reads a copy of exactly len bytes, so that ASan catches any read past them. */
static int read_copy(const void *buf, size_t len, char *err, size_t errlen)
{
	struct aot_meta *r = NULL;
	void *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, buf, len);
	ret = aot_meta_read(copy, len, &r, err, errlen);
	if (!ret)
		aot_meta_free(r);
	else
		assert_null(r);
	free(copy);
	return ret;
}

static void expect_reject(const void *buf, size_t len, const char *what)
{
	char err[256] = "";

	if (read_copy(buf, len, err, sizeof(err)) != -EINVAL)
		fail_msg("accepted a section that should fail with \"%s\" (%zu bytes)",
			 what ? what : "", len);
	assert_true(err[0] != '\0');
	assert_null(strchr(err, '\n'));
	if (what && !strstr(err, what))
		fail_msg("error \"%s\" does not mention \"%s\"", err, what);
}

static void test_truncations(void **state)
{
	struct aot_meta *m = build();
	size_t size, len;
	uint8_t *buf;

	(void)state;
	assert_int_equal(aot_meta_write(m, (void **)&buf, &size), 0);
	/* Every prefix: the total size field makes each one a detectable truncation. */
	for (len = 0; len < size; len++)
		expect_reject(buf, len, NULL);
	/* Extra bytes past total_size are ignored (ELF sections may be padded). */
	{
		uint8_t *big = calloc(1, size + 16);

		memcpy(big, buf, size);
		assert_int_equal(read_copy(big, size + 16, NULL, 0), 0);
		free(big);
	}
	aot_meta_free(m);
	free(buf);
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * The config block's run-time settings survive the trip; a section without them (header word
 * 20 zero, as objects from before the config block) reads as none; a record that overruns the
 * section is rejected; a longer record of a newer writer is read as far as this reader knows.
 */
static void test_settings(void **state)
{
	struct aot_meta *m = aot_meta_new(), *r;
	uint8_t *b;
	size_t size;
	void *buf;
	uint32_t off;

	(void)state;
	m->settings[AOT_SET_MISSING] = AOT_MISSING_IGNORE + 1;
	m->settings[AOT_SET_LOG_SIZE] = 4096;
	assert_int_equal(aot_meta_write(m, &buf, &size), 0);
	assert_int_equal(aot_meta_read(buf, size, &r, NULL, 0), 0);
	for (int i = 0; i < AOT_SET_N; i++)
		assert_int_equal(r->settings[i], m->settings[i]);
	aot_meta_free(r);

	b = buf;
	off = get32(b + 20);
	assert_true(off >= 64 && off + 4 * (1 + AOT_SET_N) <= size);
	put32(b + off, AOT_SET_N + 1000);
	expect_reject(buf, size, "setting");
	put32(b + off, 1); /* an older writer that knew one setting */
	assert_int_equal(aot_meta_read(buf, size, &r, NULL, 0), 0);
	assert_int_equal(r->settings[AOT_SET_MISSING], AOT_MISSING_IGNORE + 1);
	assert_int_equal(r->settings[AOT_SET_LOG_SIZE], 0);
	aot_meta_free(r);
	put32(b + 20, 0);
	assert_int_equal(aot_meta_read(buf, size, &r, NULL, 0), 0);
	for (int i = 0; i < AOT_SET_N; i++)
		assert_int_equal(r->settings[i], 0);
	aot_meta_free(r);
	put32(b + 20, (uint32_t)size);
	expect_reject(buf, size, "settings");
	aot_meta_free(m);
	free(buf);
}

/* Writes v at off of a fresh copy and expects the reader to reject it mentioning what. */
static void corrupt(const uint8_t *buf, size_t size, size_t off, uint32_t v, const char *what)
{
	uint8_t *c = malloc(size);

	memcpy(c, buf, size);
	put32(c + off, v);
	expect_reject(c, size, what);
	free(c);
}

/* Offsets of records in the layout documented in meta.c. */
#define HDR_PROBES 24
#define HDR_MAPS 32
#define HDR_FMTS 40
#define HDR_ELEMS 48
#define HDR_STRTAB 56
#define MAP_SIZE 80 /* 16 + two types + lhist min, max, step */
#define ELEM_SIZE 28
#define FMT_SIZE 28

static void test_corruptions(void **state)
{
	struct aot_meta *m = build();
	size_t size, maps, elems, fmts, probes, strtab;
	uint32_t strsize;
	uint8_t *buf;

	(void)state;
	assert_int_equal(aot_meta_write(m, (void **)&buf, &size), 0);
	probes = get32(buf + HDR_PROBES);
	maps = get32(buf + HDR_MAPS);
	fmts = get32(buf + HDR_FMTS);
	elems = get32(buf + HDR_ELEMS);
	strtab = get32(buf + HDR_STRTAB);
	strsize = get32(buf + HDR_STRTAB + 4);

	/* header */
	corrupt(buf, size, 0, 0x41414141, "magic");
	corrupt(buf, size, 8, AOT_META_VERSION + 1, "version");
	corrupt(buf, size, 8, AOT_META_VERSION_MIN - 1, "version");
	/* The oldest version still read (its records are the same): read as that version. */
	{
		uint8_t *c = malloc(size);
		struct aot_meta *r;

		memcpy(c, buf, size);
		put32(c + 8, AOT_META_VERSION_MIN);
		assert_int_equal(aot_meta_read(c, size, &r, NULL, 0), 0);
		assert_int_equal(r->version, AOT_META_VERSION_MIN);
		aot_meta_free(r);
		free(c);
	}
	corrupt(buf, size, 12, size + 1, "total size");
	corrupt(buf, size, 12, 10, "total size");
	/* tables: offsets and counts */
	corrupt(buf, size, HDR_PROBES, size, "probe records");
	corrupt(buf, size, HDR_PROBES, 0xfffffff0, "probe records");
	corrupt(buf, size, HDR_PROBES + 4, 0xffffffff, "probe records");
	corrupt(buf, size, HDR_MAPS + 4, 1000, "map records");
	corrupt(buf, size, HDR_FMTS, 8, "overlap the header");
	corrupt(buf, size, HDR_ELEMS + 4, 0x10000000, "element records");
	corrupt(buf, size, HDR_STRTAB + 4, strsize + 1, "string table");
	/* strings: out of the table, unterminated, required but missing */
	corrupt(buf, size, probes, strsize, "string offset");
	corrupt(buf, size, probes + 4, 0x7fffffff, "string offset");
	corrupt(buf, size, HDR_STRTAB + 4, strsize - 1, "unterminated");
	corrupt(buf, size, maps + 4, AOT_META_NOSTR, "missing string");
	corrupt(buf, size, fmts + 4, AOT_META_NOSTR, "missing string");
	{
		/* A string running into the end of the table without its NUL. */
		uint8_t *c = malloc(size);

		memcpy(c, buf, size);
		c[strtab + strsize - 1] = 'x';
		expect_reject(c, size, "unterminated");
		free(c);
	}
	/* probe flags, map aggregation, format kind */
	corrupt(buf, size, probes + 16, 1u << 31, "flags"); /* a bit no flag uses */
	corrupt(buf, size, maps + 8, 77, "aggregation");
	corrupt(buf, size, maps + 8, AOT_AGG_LHIST, "lhist(0, 0, 0) out of range"); /* step 0 */
	corrupt(buf, size, maps + 8, AOT_AGG_TSERIES, "tseries(..., 0, 0) fn 0 out of range");
	corrupt(buf, size, fmts, 99, "kind");
	/* types: kind, sizes */
	corrupt(buf, size, maps + 16, 99, "kind");		   /* map 0 key kind */
	corrupt(buf, size, maps + 16 + 4, 0, "string of 0 bytes"); /* map 0 key size */
	corrupt(buf, size, maps + 16 + 4, 0x7fffffff, "bytes");
	corrupt(buf, size, maps + MAP_SIZE * 2 + 36 + 4, 3, "integer of 3 bytes"); /* @s value */
	corrupt(buf, size, maps + MAP_SIZE + 16 + 12, 1, "key is not a tuple");	   /* @x nelems */
	corrupt(buf, size, maps + 12, 1000, "not a tuple");			   /* @ nkeys */
	corrupt(buf, size, fmts + 8, AOT_K_INT, "integer of");
	/* tuples: element range, offsets inside the tuple, cycles, depth */
	corrupt(buf, size, fmts + 8 + 16, 5, "outside");	  /* args elems 5..8 of 7 */
	corrupt(buf, size, fmts + 8 + 16, 0xfffffffe, "outside"); /* wraps around */
	corrupt(buf, size, fmts + 8 + 12, 0xffffffff, "tuple of");
	corrupt(buf, size, fmts + 8 + 4, 20, "outside its tuple"); /* args size < elements */
	corrupt(buf, size, elems + ELEM_SIZE * 1, 40, "outside its tuple");
	corrupt(buf, size, elems + ELEM_SIZE * 2 + 4 + 16, 2, "outside its tuple"); /* inner -> 2 */
	corrupt(buf, size, elems + 24, 0x7fffffff, "outside the string table");	    /* a name */
	corrupt(buf, size, elems + 4, AOT_K_ARRAY, "do not fill");		    /* array kind */
	aot_meta_free(m);
	free(buf);
}

/*
 * A struct value with bitfields (bpftrace's tests/runtime/struct: x_0:1, x_1:1, x_2:2 of a u64,
 * and a 20-bit field in 3 bytes): the bits survive the trip in a version 8 object; a bitfield
 * whose bits leave its bytes, of no bits, of more than 8 bytes, with stray high bits, or in an
 * older object is refused.
 */
static void test_bitfields(void **state)
{
	struct aot_meta *m = aot_meta_new(), *r;
	size_t size, elems;
	uint8_t *buf;
	int e = aot_meta_add_elems(m, 4);

	(void)state;
	m->elems[e] = (struct aot_elem){ 0, { AOT_K_INT, 1, 0, 0, AOT_INT_BITS(0, 1) } };
	m->elems[e + 1] = (struct aot_elem){ 0, { AOT_K_INT, 1, 0, 0, AOT_INT_BITS(1, 1) } };
	m->elems[e + 2] = (struct aot_elem){ 0, { AOT_K_INT, 1, 0, 0, AOT_INT_BITS(2, 2) } };
	m->elems[e + 3] = (struct aot_elem){ 4, { AOT_K_INT, 3, 1, 0, AOT_INT_BITS(4, 20) } };
	aot_meta_add_fmt(m,
			 &(struct aot_fmt){ AOT_FMT_PRINT_VALUE, "", { AOT_K_TUPLE, 8, 0, 4, e } });
	aot_meta_set_version(m, AOT_META_VERSION_BITFIELD);
	assert_int_equal(aot_meta_write(m, (void **)&buf, &size), 0);
	assert_int_equal(aot_meta_read(buf, size, &r, NULL, 0), 0);
	assert_int_equal(r->version, AOT_META_VERSION_BITFIELD);
	for (int i = 0; i < 4; i++)
		type_equal(&r->elems[e + i].type, &m->elems[e + i].type);
	assert_int_equal(AOT_INT_BIT_OFF(r->elems[e + 3].type.elems), 4);
	assert_int_equal(AOT_INT_BIT_SIZE(r->elems[e + 3].type.elems), 20);
	aot_meta_free(r);

	elems = get32(buf + HDR_ELEMS);
	corrupt(buf, size, 8, AOT_META_VERSION_BITFIELD - 1, "a bitfield in a version 7 object");
	corrupt(buf, size, elems + 4 + 16, AOT_INT_BITS(7, 2), "bits 7..9 outside its 1 bytes");
	corrupt(buf, size, elems + 4 + 16, AOT_INT_BITS(3, 0), "bitfield");
	corrupt(buf, size, elems + 4 + 16, AOT_INT_BITS(0, 1) | 1u << 16, "bitfield");
	corrupt(buf, size, elems + ELEM_SIZE * 3 + 4 + 16, AOT_INT_BITS(5, 20), "outside its 3");
	corrupt(buf, size, elems + ELEM_SIZE * 3 + 4 + 4, 9, "bitfield"); /* 9 bytes */
	corrupt(buf, size, elems + ELEM_SIZE * 3 + 4 + 4, 0, "bitfield");
	/* no longer a bitfield: a whole integer of 3 bytes is not one */
	corrupt(buf, size, elems + ELEM_SIZE * 3 + 4 + 16, 0, "integer of 3 bytes");
	aot_meta_free(m);
	free(buf);
}

/*
 * Enums (version 10): an INT of an enum survives the trip with its names, the same enum added
 * twice is one, an object without enums is written as before; an enum index past the table,
 * enumerators past theirs, a name outside the string table, a table that overruns the section
 * or an enum in an older object is refused.
 */
static void test_enums(void **state)
{
	char *names[] = { "ONE", "TWO", "OTHER" }, *other[] = { "A" };
	int64_t vals[] = { 1, 2, 99999 }, ovals[] = { -1 };
	struct aot_meta *m = aot_meta_new(), *r;
	size_t size, before, elems, tab;
	uint8_t *buf;
	void *plain;
	int e = aot_meta_add_elems(m, 2);

	(void)state;
	m->elems[e] = (struct aot_elem){ 0, t_int(8, 1) };
	m->elems[e + 1] = (struct aot_elem){ 8, t_int(4, 0) };
	aot_meta_add_fmt(
		m, &(struct aot_fmt){ AOT_FMT_PRINTF, "%s %s", { AOT_K_TUPLE, 16, 0, 2, e } });
	assert_int_equal(aot_meta_write(m, &plain, &before), 0);
	assert_int_equal(m->version, AOT_META_VERSION_BASE);
	assert_int_equal(aot_meta_add_enum(m, names, vals, 3), 0);
	assert_int_equal(aot_meta_add_enum(m, other, ovals, 1), 1);
	assert_int_equal(aot_meta_add_enum(m, names, vals, 3), 0);
	assert_int_equal(m->version, AOT_META_VERSION_ENUM);
	m->elems[e].type.nelems = AOT_INT_ENUM(0);
	m->elems[e + 1].type.nelems = AOT_INT_ENUM(1);
	assert_int_equal(aot_meta_write(m, (void **)&buf, &size), 0);
	assert_true(size > before);
	assert_int_equal(aot_meta_read(buf, size, &r, NULL, 0), 0);
	assert_int_equal(r->version, AOT_META_VERSION_ENUM);
	assert_int_equal(r->nenums, 2);
	assert_int_equal(r->nenumvals, 4);
	assert_string_equal(aot_meta_enum_name(r, &r->elems[e].type, 99999), "OTHER");
	assert_null(aot_meta_enum_name(r, &r->elems[e].type, 3));
	/* a 4-byte unsigned member holding -1 reads as 0xffffffff */
	assert_string_equal(aot_meta_enum_name(r, &r->elems[e + 1].type, 0xffffffff), "A");
	aot_meta_free(r);

	elems = get32(buf + HDR_ELEMS);
	tab = get32(buf + get32(buf + 20) + 4 + 4 * AOT_SET_ENUMS);
	assert_true(tab >= 64 && tab + 8 + 2 * 8 + 4 * 12 <= size);
	corrupt(buf, size, 8, AOT_META_VERSION_ENUM - 1, "enums in a version 9 object");
	corrupt(buf, size, elems + 4 + 12, AOT_INT_ENUM(2), "enum 2, but the object has 2");
	corrupt(buf, size, tab, 1000, "enum records");
	corrupt(buf, size, tab + 4, 1000, "enumerator records");
	corrupt(buf, size, tab + 8 + 8, 4, "enumerators 4..5 outside the 4"); /* first of A */
	corrupt(buf, size, tab + 8 + 4, 5, "outside the 4");		      /* n of Foo */
	corrupt(buf, size, tab + 8 + 16 + 8, 0x7fffffff, "outside the string table");
	corrupt(buf, size, tab + 8 + 16 + 8, AOT_META_NOSTR, "missing string");
	corrupt(buf, size, get32(buf + 20) + 4 + 4 * AOT_SET_ENUMS, (uint32_t)size, "enum table");
	aot_meta_free(m);
	free(buf);
	free(plain);
}

/* Nesting deeper than the limit is refused even without a cycle. */
static void test_depth(void **state)
{
	struct aot_meta *m = aot_meta_new(), *r;
	char err[256];
	uint32_t i, n = AOT_META_MAX_DEPTH + 2;
	size_t size;
	void *buf;
	int e = aot_meta_add_elems(m, n);

	(void)state;
	for (i = 0; i < n - 1; i++)
		m->elems[e + i] = (struct aot_elem){ 0, { AOT_K_TUPLE, 8, 0, 1, e + i + 1 } };
	m->elems[e + n - 1] = (struct aot_elem){ 0, t_int(8, 0) };
	aot_meta_add_fmt(m, &(struct aot_fmt){ AOT_FMT_PRINTF, "%d", { AOT_K_TUPLE, 8, 0, 1, e } });
	assert_int_equal(aot_meta_write(m, &buf, &size), 0);
	assert_int_equal(aot_meta_read(buf, size, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "deeper"));
	free(buf);
	aot_meta_free(m);
}

/* A tuple that contains itself at offset 0 fits its own bytes: only the cycle check stops it. */
static void test_cycle(void **state)
{
	struct aot_meta *m = aot_meta_new(), *r;
	char err[256];
	size_t size;
	void *buf;
	int e = aot_meta_add_elems(m, 2);

	(void)state;
	m->elems[e] = (struct aot_elem){ 0, { AOT_K_TUPLE, 8, 0, 2, e } };
	m->elems[e + 1] = (struct aot_elem){ 0, t_int(8, 0) };
	assert_int_equal(aot_meta_write(m, &buf, &size), 0);
	assert_int_equal(aot_meta_read(buf, size, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "contains itself"));
	free(buf);
	aot_meta_free(m);
}

/* Flips every byte of a valid section in turn: the reader may accept or reject, never crash. */
static void test_byte_flips(void **state)
{
	struct aot_meta *m = build();
	size_t size, i;
	uint8_t *buf;
	int bits[] = { 0x01, 0x80, 0xff };
	unsigned int b;

	(void)state;
	assert_int_equal(aot_meta_write(m, (void **)&buf, &size), 0);
	for (i = 0; i < size; i++) {
		for (b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
			uint8_t *c = malloc(size);
			char err[256] = "";
			int ret;

			memcpy(c, buf, size);
			c[i] ^= bits[b];
			ret = read_copy(c, size, err, sizeof(err));
			assert_true(ret == 0 || (ret == -EINVAL && err[0]));
			free(c);
		}
	}
	aot_meta_free(m);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),  cmocka_unit_test(test_empty),
		cmocka_unit_test(test_truncations), cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_depth),	    cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_byte_flips),  cmocka_unit_test(test_settings),
		cmocka_unit_test(test_bitfields),   cmocka_unit_test(test_enums),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
