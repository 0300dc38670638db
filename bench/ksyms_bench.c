// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols, aotrace's index against libbcc's kernel symbol cache on the same machine:
 * build time (read and index /proc/kallsyms), lookups per second on the same random addresses,
 * and the CPU time aotrace spends per 1000 BPF program load/unload events while it follows them.
 *
 *   ksyms_bench [lookups] [load/unload events]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <bcc/bcc_syms.h>
#include <bpf/bpf.h>

#include "ksyms.h"

#define BUILD_RUNS 5

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Random addresses inside text symbols of kallsyms (read here, once, for the bench alone). */
static uint64_t *sample_addrs(size_t n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	uint64_t *text = NULL, *out;
	size_t ntext = 0, cap = 0, i;
	char line[512], type;
	unsigned long long a;

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c", &a, &type) != 2 || (type != 't' && type != 'T') || !a)
			continue;
		if (ntext == cap) {
			cap = cap ? 2 * cap : 4096;
			text = realloc(text, cap * sizeof(*text));
		}
		text[ntext++] = a;
	}
	fclose(f);
	out = malloc(n * sizeof(*out));
	srand(42);
	for (i = 0; i < n && ntext; i++)
		out[i] = text[rand() % ntext] + rand() % 16;
	free(text);
	return out;
}

/* A trivial socket filter: every load is a JITed program with a kallsyms entry. */
static int load_prog(void)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },			  /* exit */
	};

	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "bench_prog", "GPL", insns, 2, NULL);
}

int main(int argc, char **argv)
{
	size_t nlook = argc > 1 ? strtoul(argv[1], NULL, 0) : 5000000;
	int nload = argc > 2 ? atoi(argv[2]) : 1000;
	struct ksyms_opts lo = { .sz = sizeof(lo), .live = true, .ring_pages = 64 };
	double t[BUILD_RUNS], t0, c0, sink = 0;
	struct bcc_symbol sym;
	struct ksyms_stats st;
	struct ksyms *k;
	uint64_t *addrs, off;
	size_t i, hits = 0;
	void *bcc;
	int r, status;
	pid_t child;

	addrs = sample_addrs(nlook);
	if (!addrs)
		return 1;

	/* 1. build: open + read + index, fresh each time */
	for (r = 0; r < BUILD_RUNS; r++) {
		k = ksyms__new(NULL);
		t0 = now_s();
		if (ksyms__load(k))
			return 1;
		t[r] = now_s() - t0;
		ksyms__stats(k, &st);
		ksyms__free(k);
	}
	qsort(t, BUILD_RUNS, sizeof(double), cmp_double);
	printf("aotrace ksyms: build %.1f ms (median of %d; min %.1f), %zu symbols\n",
	       t[BUILD_RUNS / 2] * 1e3, BUILD_RUNS, t[0] * 1e3, st.nsyms);
	/* the index alone, from kallsyms text already in memory */
	{
		FILE *f = fopen("/proc/kallsyms", "r");
		size_t cap = 16 << 20, len;
		char *text = malloc(cap);

		len = fread(text, 1, cap, f);
		fclose(f);
		for (r = 0; r < BUILD_RUNS; r++) {
			k = ksyms__new(NULL);
			t0 = now_s();
			ksyms__parse(k, text, len);
			t[r] = now_s() - t0;
			ksyms__free(k);
		}
		free(text);
		qsort(t, BUILD_RUNS, sizeof(double), cmp_double);
		printf("aotrace ksyms: index from text in memory %.1f ms (median of %d)\n",
		       t[BUILD_RUNS / 2] * 1e3, BUILD_RUNS);
	}
	for (r = 0; r < BUILD_RUNS; r++) {
		t0 = now_s();
		bcc = bcc_symcache_new(-1, NULL);
		/* bcc loads kallsyms on the first lookup */
		bcc_symcache_resolve(bcc, addrs[0], &sym);
		t[r] = now_s() - t0;
		bcc_free_symcache(bcc, -1);
	}
	qsort(t, BUILD_RUNS, sizeof(double), cmp_double);
	printf("bcc symcache(-1): build %.1f ms (median of %d; min %.1f)\n",
	       t[BUILD_RUNS / 2] * 1e3, BUILD_RUNS, t[0] * 1e3);

	/* 2. lookups, live index (each lookup also checks the perf rings) and bcc */
	k = ksyms__new(&lo);
	if (!k) {
		perror("ksyms__new");
		return 1;
	}
	ksyms__load(k);
	t0 = now_s();
	for (i = 0; i < nlook; i++) {
		const char *n = ksyms__lookup(k, addrs[i], &off);

		hits += n != NULL;
		sink += off;
	}
	t0 = now_s() - t0;
	printf("aotrace ksyms: %.1f M lookups/s (%zu of %zu resolved)\n", nlook / t0 / 1e6, hits,
	       nlook);
	bcc = bcc_symcache_new(-1, NULL);
	hits = 0;
	t0 = now_s();
	for (i = 0; i < nlook; i++) {
		if (!bcc_symcache_resolve(bcc, addrs[i], &sym))
			hits++;
		sink += sym.offset;
	}
	t0 = now_s() - t0;
	printf("bcc symcache(-1): %.1f M lookups/s (%zu of %zu resolved)\n", nlook / t0 / 1e6, hits,
	       nlook);
	bcc_free_symcache(bcc, -1);

	/* 3. follow nload program loads and unloads made by a child */
	child = fork();
	if (!child) {
		for (r = 0; r < nload; r++) {
			int fd = load_prog();

			if (fd < 0)
				_exit(1);
			close(fd);
		}
		_exit(0);
	}
	c0 = cpu_s();
	t0 = now_s();
	for (;;) {
		struct pollfd p = { .fd = ksyms__fd(k), .events = POLLIN };

		poll(&p, 1, 50);
		ksyms__update(k);
		if (waitpid(child, &status, WNOHANG) == child)
			break;
	}
	ksyms__update(k);
	c0 = cpu_s() - c0;
	t0 = now_s() - t0;
	ksyms__stats(k, &st);
	printf("aotrace ksyms following %d loads + %d unloads: %.1f ms CPU per 1000 events "
	       "(%llu records, %llu lost, %u kallsyms reads, child %s)\n",
	       nload, nload, c0 * 1e3 / (2.0 * nload) * 1000, (unsigned long long)st.records,
	       (unsigned long long)st.lost, st.scans,
	       WIFEXITED(status) && !WEXITSTATUS(status) ? "ok" : "failed");
	ksyms__free(k);
	free(addrs);
	return sink < 0;
}
