// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the kernel symbol index: synthetic kallsyms text (unsorted modules, aliases, BPF
 * symbols, undefined entries), lookups at the edges of symbols, and synthetic perf records
 * (KSYMBOL adds and removes, LOST) fed to the record handler as the ring buffers would.
 */
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ksyms.h"

static const char kallsyms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n" /* alias: the first one listed wins */
	"ffffffff81000100 t do_one\n"
	"ffffffff81000200 T do_two\n"
	"0000000000000000 A fixed_percpu_data\n" /* address 0: skipped */
	"ffffffffc0002000 t mod_b\t[mymod]\n"
	"ffffffffc0001000 t mod_a\t[mymod]\n" /* modules need not be sorted */
	"ffffffffc0010000 t bpf_prog_0123456789abcdef_old\t[bpf]\n"
	"ffffffffc0003000 T mod_c\t[other]\n";

static const char *lookup(struct ksyms *k, uint64_t addr, uint64_t *off)
{
	*off = ~0ull;
	return ksyms__lookup(k, addr, off);
}

static void expect(struct ksyms *k, uint64_t addr, const char *name, uint64_t off)
{
	uint64_t o;
	const char *n = lookup(k, addr, &o);

	if (!name) {
		if (n)
			fail_msg("%#llx: got %s, want nothing", (unsigned long long)addr, n);
		return;
	}
	if (!n || strcmp(n, name) || o != off)
		fail_msg("%#llx: got %s+%llu, want %s+%llu", (unsigned long long)addr,
			 n ? n : "(null)", (unsigned long long)o, name, (unsigned long long)off);
}

static void test_parse_and_lookup(void **state)
{
	struct ksyms *k = ksyms__new(NULL);
	struct ksyms_stats st;

	(void)state;
	assert_non_null(k);
	assert_int_equal(ksyms__parse(k, kallsyms_text, strlen(kallsyms_text)), 0);
	ksyms__stats(k, &st);
	assert_int_equal(st.nsyms, 6); /* 8 lines, one alias, one at 0, one BPF symbol apart */
	assert_int_equal(st.nbpf, 1);
	expect(k, 0xffffffff80ffffff, NULL, 0);
	expect(k, 0xffffffff81000000, "_text", 0);
	expect(k, 0xffffffff810000ff, "_text", 0xff);
	expect(k, 0xffffffff81000100, "do_one", 0);
	expect(k, 0xffffffff81000250, "do_two", 0x50);
	expect(k, 0xffffffffc0001010, "mod_a", 0x10);
	expect(k, 0xffffffffc0002fff, "mod_b", 0xfff);
	expect(k, 0xffffffffc0003001, "mod_c", 1);
	/* The last symbol covers at most a page. */
	expect(k, 0xffffffffc0003000 + 4096, NULL, 0);
	/* A BPF symbol seen only in kallsyms: no length known, so at most a page. */
	expect(k, 0xffffffffc0010008, "bpf_prog_0123456789abcdef_old", 8);
	ksyms__stats(k, &st);
	assert_int_equal(st.scans, 0); /* parsed from text: the file was never read */
	ksyms__free(k);
}

/*
 * The three-level index against a plain scan: 1000 symbols at random gaps (many 64-symbol
 * blocks and a partial last one), probed at each symbol, just before and after it, and at
 * random points, plus a BPF symbol above them all.
 */
static void test_index_matches_scan(void **state)
{
	enum { N = 1000, PROBES = 20000 };
	static uint64_t addrs[N];
	struct ksyms *k = ksyms__new(NULL);
	size_t cap = N * 48 + 128, len = 0;
	char *text = malloc(cap), want[32];
	uint64_t a = 0xffffffff81000000ull;

	(void)state;
	assert_non_null(k);
	assert_non_null(text);
	srand(7);
	for (int i = 0; i < N; i++) {
		a += 1 + (uint64_t)(rand() % 3000);
		addrs[i] = a;
		len += snprintf(text + len, cap - len, "%llx t s%d\n", (unsigned long long)a, i);
	}
	len += snprintf(text + len, cap - len, "%llx t bpf_prog_x\t[bpf]\n",
			(unsigned long long)(a + 0x100000));
	assert_int_equal(ksyms__parse(k, text, len), 0);
	for (int p = 0; p < PROBES; p++) {
		uint64_t at, lo = addrs[0] - 2, span = a + 8192 - lo;
		int i;

		if (p < 3 * N)
			at = addrs[p / 3] + (uint64_t)(p % 3) - 1;
		else
			at = lo + (uint64_t)rand() % span;
		for (i = N - 1; i >= 0 && addrs[i] > at; i--)
			;
		if (i < 0 || (i == N - 1 && at - addrs[i] >= 4096)) {
			expect(k, at, NULL, 0);
			continue;
		}
		snprintf(want, sizeof(want), "s%d", i);
		expect(k, at, want, at - addrs[i]);
	}
	expect(k, a + 0x100000 + 16, "bpf_prog_x", 16);
	free(text);
	ksyms__free(k);
}

/* A PERF_RECORD_KSYMBOL as the kernel writes it (8-byte aligned, name NUL-terminated). */
static size_t ksymbol_rec(uint8_t *buf, uint64_t addr, uint32_t len, uint16_t flags,
			  const char *name)
{
	struct perf_event_header h = { .type = PERF_RECORD_KSYMBOL, .misc = 0 };
	uint16_t type = PERF_RECORD_KSYMBOL_TYPE_BPF;
	size_t n = 24 + strlen(name) + 1;

	n = (n + 7) & ~(size_t)7;
	memset(buf, 0, n);
	h.size = n;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 8, &addr, 8);
	memcpy(buf + 16, &len, 4);
	memcpy(buf + 20, &type, 2);
	memcpy(buf + 22, &flags, 2);
	memcpy(buf + 24, name, strlen(name));
	return n;
}

static void test_ksymbol_records(void **state)
{
	struct ksyms *k = ksyms__new(NULL);
	uint8_t rec[128];
	size_t n;
	struct ksyms_stats st;

	(void)state;
	assert_int_equal(ksyms__parse(k, kallsyms_text, strlen(kallsyms_text)), 0);
	/* A program loaded after the scan, inside mymod's range: its own name, exact size. */
	n = ksymbol_rec(rec, 0xffffffffc0001800, 0x40, 0, "bpf_prog_aaaaaaaaaaaaaaaa_new");
	ksyms__handle_record(k, rec, n);
	expect(k, 0xffffffffc0001800, "bpf_prog_aaaaaaaaaaaaaaaa_new", 0);
	expect(k, 0xffffffffc000183f, "bpf_prog_aaaaaaaaaaaaaaaa_new", 0x3f);
	/* Past its end it is not the program: the module symbol before it again. */
	expect(k, 0xffffffffc0001840, "mod_a", 0x840);
	/* A second one right after, then the first goes away. */
	n = ksymbol_rec(rec, 0xffffffffc0001840, 0x10, 0, "bpf_prog_bbbbbbbbbbbbbbbb_f");
	ksyms__handle_record(k, rec, n);
	expect(k, 0xffffffffc0001845, "bpf_prog_bbbbbbbbbbbbbbbb_f", 5);
	n = ksymbol_rec(rec, 0xffffffffc0001800, 0x40, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
			"bpf_prog_aaaaaaaaaaaaaaaa_new");
	ksyms__handle_record(k, rec, n);
	expect(k, 0xffffffffc0001800, "mod_a", 0x800);
	expect(k, 0xffffffffc0001845, "bpf_prog_bbbbbbbbbbbbbbbb_f", 5);
	/* The old kallsyms BPF symbol unloads too. */
	n = ksymbol_rec(rec, 0xffffffffc0010000, 0x100, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
			"bpf_prog_0123456789abcdef_old");
	ksyms__handle_record(k, rec, n);
	expect(k, 0xffffffffc0010008, NULL, 0); /* mod_c, the last symbol, ends a page on */
	/* Truncated and unknown records are ignored. */
	ksyms__handle_record(k, rec, 4);
	n = ksymbol_rec(rec, 0xffffffffc0001900, 0x10, 0, "x");
	rec[20] = 9; /* unknown ksym type */
	ksyms__handle_record(k, rec, n);
	expect(k, 0xffffffffc0001900, "mod_a", 0x900);
	ksyms__stats(k, &st);
	assert_int_equal(st.nbpf, 1);
	assert_int_equal(st.lost, 0);
	ksyms__free(k);
}

/* After PERF_RECORD_LOST the next lookup reads the file again; before, never. */
static void test_lost_rescans(void **state)
{
	char path[] = "/tmp/test_ksyms_XXXXXX";
	int fd = mkstemp(path);
	struct ksyms_opts o = { .sz = sizeof(o), .path = path };
	struct perf_event_header lost[3] = { { .type = PERF_RECORD_LOST, .size = 24 } };
	struct ksyms *k;
	struct ksyms_stats st;
	uint64_t off;
	int i;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, kallsyms_text, strlen(kallsyms_text)),
			 (ssize_t)strlen(kallsyms_text));
	close(fd);
	k = ksyms__new(&o);
	for (i = 0; i < 1000; i++)
		assert_non_null(lookup(k, 0xffffffff81000100 + i % 256, &off));
	ksyms__stats(k, &st);
	assert_int_equal(st.scans, 1);
	ksyms__handle_record(k, lost, sizeof(lost));
	ksyms__stats(k, &st);
	assert_int_equal(st.scans, 1); /* lazily: nothing read until a lookup needs it */
	assert_int_equal(st.lost, 1);
	expect(k, 0xffffffff81000201, "do_two", 1);
	ksyms__stats(k, &st);
	assert_int_equal(st.scans, 2);
	ksyms__free(k);
	unlink(path);
}

/* The live index on this host, when we may open perf events: a known symbol resolves. */
static void test_live_host(void **state)
{
	struct ksyms_opts o = { .sz = sizeof(o), .live = true };
	struct ksyms *k = ksyms__new(&o);
	FILE *f;
	char line[256];
	unsigned long long addr = 0;
	uint64_t off;
	const char *n;

	(void)state;
	if (!k)
		skip();
	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " T schedule\n") && sscanf(line, "%llx", &addr) == 1)
			break;
	if (f)
		fclose(f);
	if (!addr) {
		ksyms__free(k);
		skip();
	}
	n = lookup(k, addr + 1, &off);
	assert_non_null(n);
	assert_string_equal(n, "schedule");
	assert_int_equal(off, 1);
	assert_true(ksyms__fd(k) >= 0);
	ksyms__free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_lookup), cmocka_unit_test(test_index_matches_scan),
		cmocka_unit_test(test_ksymbol_records),	 cmocka_unit_test(test_lost_rescans),
		cmocka_unit_test(test_live_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
