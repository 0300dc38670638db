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

#include "meta.h" /* struct aot_state, the type of the skeleton's data_aot_state */

#include "aotprog.skel.h"

/* @calls is a scalar count: per-CPU u64 values at key 0 (src/common/meta.h). */
static unsigned long long loader_calls(struct aotprog *skel, int ncpus)
{
	unsigned long long key = 0, *vals = calloc(ncpus, sizeof(*vals)), total = 0;
	int fd = bpf_map__fd(skel->maps.AT_calls);

	if (vals && !bpf_map_lookup_elem(fd, &key, vals))
		for (int i = 0; i < ncpus; i++)
			total += vals[i];
	free(vals);
	return total;
}

int main(void)
{
	struct aotprog *skel = aotprog__open_and_load();
	int ncpus = libbpf_num_possible_cpus(), calls = 5, err;
	unsigned long long total;

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
	total = loader_calls(skel, ncpus);
	printf("skeleton: @calls = %llu\n", total);
	/* The stop flag is a global the programs read in place: set, they count nothing. */
	skel->data_aot_state->aot_state.stopped = AOT_STOPPED_ENDING;
	for (int i = 0; i < calls; i++)
		getppid();
	printf("skeleton: stopped, @calls = %llu\n", loader_calls(skel, ncpus) - total);
	aotprog__destroy(skel);
	return 0;
}
