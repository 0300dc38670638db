// SPDX-License-Identifier: GPL-2.0
/*
 * A tiny libbpf loader built against `bpftool gen skeleton` output of an aotrace object
 * (tests/skeleton/run): open, load, attach through the skeleton, make the tracepoint fire, and
 * read the count the program kept in its map, folded over the CPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "aotprog.skel.h"

int main(void)
{
	struct aotprog *skel = aotprog__open_and_load();
	int ncpus = libbpf_num_possible_cpus(), fd, calls = 5, err;
	unsigned long long key = 0, *vals, total = 0;

	if (!skel) {
		fprintf(stderr, "skeleton: open and load failed\n");
		return 1;
	}
	err = aotprog__attach(skel);
	if (err || !skel->links.tracepoint_syscalls_sys_enter_getppid) {
		fprintf(stderr, "skeleton: attach failed: %d\n", err);
		aotprog__destroy(skel);
		return 1;
	}
	printf("skeleton: loaded and attached %s\n",
	       bpf_program__name(skel->progs.tracepoint_syscalls_sys_enter_getppid));
	for (int i = 0; i < calls; i++)
		getppid();
	/* @calls is a scalar count: per-CPU u64 values at key 0 (src/common/meta.h). */
	fd = bpf_map__fd(skel->maps.AT_calls);
	vals = calloc(ncpus, sizeof(*vals));
	if (vals && !bpf_map_lookup_elem(fd, &key, vals))
		for (int i = 0; i < ncpus; i++)
			total += vals[i];
	printf("skeleton: @calls = %llu\n", total);
	free(vals);
	aotprog__destroy(skel);
	return 0;
}
