// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of code generation: programs through the whole pipeline, codegen included, then
 * asserting on the ELF as libbpf sees it (programs, sections, map types and sizes, BTF, the
 * metadata section), and, when running as root, that the kernel loads it and that a BEGIN
 * program's test run writes the ring buffer record the metadata describes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gelf.h>

#include "arena.h"
#include "frontend.h"
#include "meta.h"
#include "probe.h"
#include "testlib.h"

/* Through codegen, the ELF opened with libbpf. */
static struct tl_build *build_strlen(const char *text, uint32_t strlen_max)
{
	AOT_COMPILE_OPTS(o, .strlen_max = strlen_max);

	return tl_build(text, &o, AOT_PASS_ALL);
}

static struct tl_build *build(const char *text)
{
	return build_strlen(text, 0);
}

/* The bytes of an ELF section by name, or NULL. */
static const void *elf_section(struct tl_build *c, const char *name, size_t *size)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const void *ret = NULL;

	elf_version(EV_CURRENT);
	e = elf_memory((char *)c->elf, c->elf_size);
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		gelf_getshdr(scn, &sh);
		if (strcmp(elf_strptr(e, shstrndx, sh.sh_name), name))
			continue;
		data = elf_getdata(scn, NULL);
		*size = data->d_size;
		ret = data->d_buf;
		break;
	}
	elf_end(e);
	return ret;
}

static bool can_load(void)
{
	return geteuid() == 0;
}

static void test_begin_printf_elf(void **state)
{
	struct tl_build *c = build("BEGIN { printf(\"%d %s\\n\", pid, comm); exit(); }");
	struct bpf_program *p;
	struct bpf_map *m;
	struct aot_meta *meta = NULL;
	const struct btf *btf;
	const void *sec;
	size_t size = 0;
	char err[128];
	int n;

	(void)state;
	assert_int_equal(c->ret, 0);
	assert_non_null(c->obj);
	p = bpf_object__find_program_by_name(c->obj, "BEGIN");
	assert_non_null(p);
	assert_string_equal(bpf_program__section_name(p), "raw_tp");
	assert_int_equal(bpf_program__type(p), BPF_PROG_TYPE_RAW_TRACEPOINT);
	m = bpf_object__find_map_by_name(c->obj, AOT_EVENTS_MAP);
	assert_non_null(m);
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_RINGBUF);
	assert_int_equal(bpf_map__max_entries(m), 256 * 1024);
	/* no .rodata/.data maps: constants are immediates; besides the ring buffer only the
	 * run state (stop flag, the one data section) and the lost-event counter */
	n = 0;
	bpf_object__for_each_map(m, c->obj)
	{
		if (strcmp(bpf_map__name(m), AOT_STATE_SECTION))
			assert_null(strchr(bpf_map__name(m), '.'));
		n++;
	}
	assert_int_equal(n, 3);
	assert_null(bpf_object__find_map_by_name(c->obj, AOT_STATE_MAP));
	m = bpf_object__find_map_by_name(c->obj, AOT_STATE_SECTION);
	assert_non_null(m);
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_ARRAY);
	assert_int_equal(bpf_map__max_entries(m), 1);
	assert_int_equal(bpf_map__value_size(m), sizeof(struct aot_state));
	m = bpf_object__find_map_by_name(c->obj, AOT_LOST_MAP);
	assert_non_null(m);
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_PERCPU_ARRAY);

	btf = bpf_object__btf(c->obj);
	assert_non_null(btf);
	assert_true(btf__find_by_name_kind(btf, "BEGIN", BTF_KIND_FUNC) > 0);

	sec = elf_section(c, "license", &size);
	assert_non_null(sec);
	assert_string_equal(sec, "GPL");
	sec = elf_section(c, AOT_META_SECTION, &size);
	assert_non_null(sec);
	assert_int_equal(aot_meta_read(sec, size, &meta, err, sizeof(err)), 0);
	assert_int_equal(meta->nprobes, 1);
	assert_string_equal(meta->probes[0].prog, "BEGIN");
	assert_int_equal(meta->nfmts, 1);
	aot_meta_free(meta);
	/* the metadata must not turn into a map */
	assert_true(btf__find_by_name_kind(btf, AOT_META_SECTION, BTF_KIND_DATASEC) < 0);
	tl_free(c);
}

static void assert_map(struct tl_build *c, const char *name, enum bpf_map_type type,
		       uint32_t key_size, uint32_t value_size)
{
	struct map_info *mi = tl_find_map(c, name);
	struct bpf_map *m;

	assert_non_null(mi);
	m = bpf_object__find_map_by_name(c->obj, mi->elf_name);
	assert_non_null(m);
	assert_int_equal(bpf_map__type(m), type);
	assert_int_equal(bpf_map__key_size(m), key_size);
	assert_int_equal(bpf_map__value_size(m), value_size);
	assert_int_equal(bpf_map__max_entries(m), 4096);
}

static void test_maps(void **state)
{
	struct tl_build *c =
		build("BEGIN { @c = count(); @s[pid] = sum(5); @lo = min(3); @hi = max(3);"
		      " @a[1, \"ab\"] = avg(7); @v = 5; @str[\"k\"] = comm; @v += 2; @v++;"
		      " printf(\"%d\\n\", @v); }");

	(void)state;
	assert_int_equal(c->ret, 0);
	assert_non_null(c->obj);
	assert_map(c, "@c", BPF_MAP_TYPE_PERCPU_HASH, 8, 8);
	assert_map(c, "@s", BPF_MAP_TYPE_PERCPU_HASH, tl_find_map(c, "@s")->key.size, 8);
	assert_map(c, "@lo", BPF_MAP_TYPE_PERCPU_HASH, 8, 16);
	assert_map(c, "@hi", BPF_MAP_TYPE_PERCPU_HASH, 8, 16);
	assert_map(c, "@a", BPF_MAP_TYPE_PERCPU_HASH, tl_find_map(c, "@a")->key.size, 16);
	assert_int_equal(tl_find_map(c, "@a")->key.kind, TYPE_TUPLE);
	assert_map(c, "@v", BPF_MAP_TYPE_HASH, 8, tl_find_map(c, "@v")->value.size);
	assert_map(c, "@str", BPF_MAP_TYPE_HASH, 2, 16);
	if (can_load())
		assert_int_equal(bpf_object__load(c->obj), 0);
	tl_free(c);
}

static void test_tracepoint_loads(void **state)
{
	struct tl_build *c =
		build("tracepoint:syscalls:sys_enter_openat /pid > 0 && comm != \"x\"/ {"
		      " @[comm, args->flags] = count();"
		      " printf(\"%s %s\\n\", probe, str(args->filename)); }");
	struct bpf_program *p;

	(void)state;
	assert_int_equal(c->ret, 0);
	assert_non_null(c->obj);
	p = bpf_object__next_program(c->obj, NULL);
	assert_non_null(p);
	assert_string_equal(bpf_program__section_name(p), "tracepoint/syscalls/sys_enter_openat");
	assert_int_equal(bpf_program__type(p), BPF_PROG_TYPE_TRACEPOINT);
	if (can_load())
		assert_int_equal(bpf_object__load(c->obj), 0);
	tl_free(c);
}

static void test_interval_and_several_probes(void **state)
{
	struct tl_build *c = build("interval:ms:100 { @t = count(); if (@x > 2) { exit(); } }"
				   " END { $s = \"a\"; $s = \"bc\"; @x = $s == \"bc\" ? 1 : -1; }");
	struct bpf_program *p;

	(void)state;
	assert_int_equal(c->ret, 0);
	assert_non_null(c->obj);
	p = bpf_object__next_program(c->obj, NULL);
	assert_string_equal(bpf_program__section_name(p), "perf_event");
	assert_int_equal(bpf_program__type(p), BPF_PROG_TYPE_PERF_EVENT);
	p = bpf_object__next_program(c->obj, p);
	assert_non_null(p);
	assert_string_equal(bpf_program__name(p), "END");
	if (can_load())
		assert_int_equal(bpf_object__load(c->obj), 0);
	tl_free(c);
}

/* What does not fit in the 512 bytes of stack goes to a per-CPU scratch map, up to 32 KiB. */
static void test_stack_overflow_uses_scratch_map(void **state)
{
	/* str() of an address (str(0) of a literal is the string "0", as bpftrace 0.27) */
	const char *big = "BEGIN { $a = str(nsecs); $b = str(nsecs + 1); $c = str(nsecs + 2);"
			  " printf(\"%s %s %s\\n\", $a, $b, $c); }";
	struct tl_build *c = build_strlen(big, 200);
	struct bpf_map *m;

	(void)state;
	assert_int_equal(c->ret, 0);
	m = bpf_object__find_map_by_name(c->obj, AOT_SCRATCH_MAP);
	assert_non_null(m);
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_PERCPU_ARRAY);
	assert_int_equal(bpf_map__max_entries(m), 1);
	assert_true(bpf_map__value_size(m) >= 3 * 200 && bpf_map__value_size(m) <= 32768);
	if (can_load())
		assert_int_equal(bpf_object__load(c->obj), 0);
	tl_free(c);

	/* a program that fits keeps its code: no scratch map */
	c = build_strlen(big, 64);
	assert_int_equal(c->ret, 0);
	assert_null(bpf_object__find_map_by_name(c->obj, AOT_SCRATCH_MAP));
	tl_free(c);
}

static void test_scratch_limit_is_a_diagnostic(void **state)
{
	struct tl_build *c;
	char text[8192];
	size_t n = 0;

	(void)state;
	n += (size_t)snprintf(text + n, sizeof(text) - n, "BEGIN {");
	for (int i = 0; i < 170; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " $v%d = str(nsecs + %d);", i, i);
	snprintf(text + n, sizeof(text) - n, " printf(\"%%s %%s\\n\", $v0, $v169); }");
	c = build_strlen(text, 200);
	assert_int_not_equal(c->ret, 0);
	assert_true(tl_has_error(c, "scratch space"));
	tl_free(c);
}

struct rec_seen {
	uint32_t kind, index;
	int64_t num;
	char str[8];
	uint32_t off_num, off_str;
	int n;
};

static int on_record(void *ctx, void *data, size_t size)
{
	struct rec_seen *r = ctx;
	const struct aot_event_hdr *h = data;

	if (size < sizeof(*h))
		return 0;
	r->kind = h->kind;
	r->index = h->index;
	if (h->kind == AOT_EV_PRINTF && size >= sizeof(*h) + r->off_str + 3) {
		memcpy(&r->num, (char *)data + sizeof(*h) + r->off_num, sizeof(r->num));
		memcpy(r->str, (char *)data + sizeof(*h) + r->off_str, 3);
	}
	r->n++;
	return 0;
}

/* The record a BEGIN program writes is the one the format's layout in the metadata says. */
static void test_begin_test_run_record(void **state)
{
	struct tl_build *c = build("BEGIN { printf(\"%d %s\\n\", -42, \"ab\"); }");
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct rec_seen seen = { 0 };
	const struct aot_fmt *f;
	struct ring_buffer *rb;

	(void)state;
	assert_int_equal(c->ret, 0);
	if (!can_load()) {
		tl_free(c);
		skip();
	}
	assert_int_equal(bpf_object__load(c->obj), 0);
	f = &c->prog->meta->fmts[0];
	assert_int_equal(f->args.nelems, 2);
	seen.off_num = c->prog->meta->elems[f->args.elems].offset;
	seen.off_str = c->prog->meta->elems[f->args.elems + 1].offset;
	rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(c->obj, AOT_EVENTS_MAP)),
			      on_record, &seen, NULL);
	assert_non_null(rb);
	assert_int_equal(
		bpf_prog_test_run_opts(
			bpf_program__fd(bpf_object__find_program_by_name(c->obj, "BEGIN")), &opts),
		0);
	assert_true(ring_buffer__consume(rb) >= 1);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.kind, AOT_EV_PRINTF);
	assert_int_equal(seen.index, 0);
	assert_int_equal(seen.num, -42);
	assert_string_equal(seen.str, "ab");
	ring_buffer__free(rb);
	tl_free(c);
}

/* Loads the object and runs its BEGIN program once. */
static void load_run_begin(struct tl_build *c)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	assert_int_equal(bpf_object__load(c->obj), 0);
	assert_int_equal(
		bpf_prog_test_run_opts(
			bpf_program__fd(bpf_object__find_program_by_name(c->obj, "BEGIN")), &opts),
		0);
}

/* The count of key (size bytes) summed over the CPUs of a per-CPU map of u64, or -1. */
static long long percpu_total(int fd, const void *key)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t *vals = calloc((size_t)ncpus, sizeof(*vals));
	long long total = -1;

	if (vals && !bpf_map_lookup_elem(fd, key, vals))
		for (int i = total = 0; i < ncpus; i++)
			total += (long long)vals[i];
	free(vals);
	return total;
}

/*
 * A last-key cache (meta.h): the last key's events stay in the cache until another key comes,
 * which moves them into the map; the object says metadata version 5.
 */
static void test_lastkey_cache(void **state)
{
	struct tl_build *c = build("BEGIN { @[\"a\", 2] = count(); @[\"a\", 2] = count(); "
				   "@[\"b\", 3] = count(); @x[nsecs] = count(); }");
	struct map_info *mi = tl_find_map(c, "@"), *mx = tl_find_map(c, "@x");
	int ncpus = libbpf_num_possible_cpus(), fd, lc, found = 0;
	uint32_t zero = 0, stride;
	uint8_t key[64] = { 0 }, *vals;
	size_t size;
	const uint8_t *meta;

	(void)state;
	assert_int_equal(c->ret, 0);
	assert_true(mi && mi->lastkey);
	assert_true(mx && !mx->lastkey); /* nsecs changes from one event to the next */
	meta = elf_section(c, AOT_META_SECTION, &size);
	assert_true(meta && size > 12);
	assert_int_equal(meta[8], AOT_META_VERSION_LASTKEY);
	assert_null(bpf_object__find_map_by_name(c->obj, AOT_LASTKEY_PREFIX "x"));
	if (!can_load()) {
		tl_free(c);
		skip();
	}
	load_run_begin(c);
	fd = bpf_map__fd(bpf_object__find_map_by_name(c->obj, mi->elf_name));
	lc = bpf_map__fd(bpf_object__find_map_by_name(c->obj, AOT_LASTKEY_PREFIX));
	assert_true(lc >= 0);
	key[0] = 'a';
	key[mi->key.offsets[1]] = 2;
	assert_int_equal(percpu_total(fd, key), 2);
	key[0] = 'b';
	key[mi->key.offsets[1]] = 3;
	assert_int_equal(percpu_total(fd, key), -1); /* still in the cache */
	stride = (bpf_map__value_size(bpf_object__find_map_by_name(c->obj, AOT_LASTKEY_PREFIX)) +
		  7) &
		 ~7u;
	vals = calloc((size_t)ncpus, stride);
	assert_int_equal(bpf_map_lookup_elem(lc, &zero, vals), 0);
	for (int i = 0; i < ncpus; i++) {
		const uint8_t *e = vals + (size_t)i * stride;
		uint64_t seq, pending;

		memcpy(&seq, e, 8);
		memcpy(&pending, e + AOT_LASTKEY_PENDING_OFF, 8);
		if (!pending)
			continue;
		found++;
		assert_int_equal(pending, 1);
		assert_int_equal(seq, 4); /* two key changes, each an odd and an even step */
		assert_memory_equal(e + AOT_LASTKEY_KEY_OFF, key, mi->key.size);
	}
	assert_int_equal(found, 1);
	free(vals);
	tl_free(c);
}

/*
 * Tuple keys have zeroed pad bytes (or equal keys would hash apart); counts add per CPU. In the
 * hash itself: without the last-key cache, which would hold both counts.
 */
static void test_tuple_key_padding(void **state)
{
	AOT_COMPILE_OPTS(o, .lastkey = AOT_LASTKEY_OFF);
	struct tl_build *c = tl_build("BEGIN { @[\"a\", 2] = count(); @[\"a\", 2] = count(); }", &o,
				      AOT_PASS_ALL);
	struct map_info *mi = tl_find_map(c, "@");
	uint8_t key[64], next[64];
	int ncpus = libbpf_num_possible_cpus(), fd, nkeys = 0;
	uint64_t *vals, total = 0;

	(void)state;
	assert_int_equal(c->ret, 0);
	if (!can_load()) {
		tl_free(c);
		skip();
	}
	assert_non_null(mi);
	assert_int_equal(mi->key.kind, TYPE_TUPLE);
	assert_true(mi->key.size <= sizeof(key) && mi->key.offsets[1] > mi->key.elems[0].size);
	load_run_begin(c);
	fd = bpf_map__fd(bpf_object__find_map_by_name(c->obj, mi->elf_name));
	vals = calloc((size_t)ncpus, sizeof(*vals));
	while (bpf_map_get_next_key(fd, nkeys ? key : NULL, next) == 0) {
		memcpy(key, next, mi->key.size);
		nkeys++;
	}
	assert_int_equal(nkeys, 1);
	assert_int_equal(key[0], (uint8_t)'a');
	for (uint32_t i = mi->key.elems[0].size; i < mi->key.offsets[1]; i++)
		assert_int_equal(key[i], 0);
	assert_int_equal(bpf_map_lookup_elem(fd, key, vals), 0);
	for (int i = 0; i < ncpus; i++)
		total += vals[i];
	assert_int_equal(total, 2);
	free(vals);
	tl_free(c);
}

/* -d ir, ir-opt and asm print each stage to the stream given, and change nothing in the ELF. */
static void test_dumps(void **state)
{
	const char *text = "BEGIN { printf(\"%d\\n\", pid); }";
	struct tl_build *c = build(text), *dumped;
	char *out = NULL;
	size_t len = 0;
	AOT_COMPILE_OPTS(o, .dump = AOT_DUMP_IR | AOT_DUMP_IR_OPT | AOT_DUMP_ASM,
			 .dump_out = open_memstream(&out, &len));

	(void)state;
	assert_int_equal(c->ret, 0);
	dumped = tl_build(text, &o, AOT_PASS_ALL);
	fclose(o.dump_out);
	assert_int_equal(dumped->ret, 0);
	assert_non_null(strstr(out, "define i32 @BEGIN(ptr %ctx)"));
	assert_non_null(strstr(out, "LLVM IR, optimised"));
	assert_non_null(strstr(out, "BPF assembly"));
	assert_non_null(strstr(out, "call 14"));
	assert_int_equal(dumped->elf_size, c->elf_size);
	assert_memory_equal(dumped->elf, c->elf, c->elf_size);
	free(out);
	tl_free(dumped);
	tl_free(c);
}

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_begin_printf_elf),
		cmocka_unit_test(test_maps),
		cmocka_unit_test(test_tracepoint_loads),
		cmocka_unit_test(test_interval_and_several_probes),
		cmocka_unit_test(test_stack_overflow_uses_scratch_map),
		cmocka_unit_test(test_scratch_limit_is_a_diagnostic),
		cmocka_unit_test(test_begin_test_run_record),
		cmocka_unit_test(test_tuple_key_padding),
		cmocka_unit_test(test_lastkey_cache),
		cmocka_unit_test(test_dumps),
	};

	libbpf_set_print(quiet_libbpf);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
