// SPDX-License-Identifier: GPL-2.0
/*
 * The plain kernel operations under a tracepoint one-liner, the floor of its start and end
 * time: load of a 2-instruction tracepoint program, perf_event_open + bpf_link_create on
 * syscalls:sys_enter_openat, and the close() of the link and event (the tracepoint's release).
 *
 *   kernel_floor [RUNS]      prints one line per phase: median, min and max in ms
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>

#define MAX_RUNS 100
#define TP_ID "/sys/kernel/tracing/events/syscalls/sys_enter_openat/id"

static double floor_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int floor_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void floor_print(const char *what, double *v, int n)
{
	qsort(v, n, sizeof(*v), floor_cmp);
	printf("%s %.3f %.3f %.3f\n", what, v[n / 2], v[0], v[n - 1]);
}

/* One load, attach and release; the three durations in ms, or -errno. */
static int floor_once(int tp_id, double *load, double *attach, double *release)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },			  /* exit */
	};
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = tp_id,
		.sample_period = 1,
		.wakeup_events = 1,
	};
	int prog, pfd = -1, link = -1, err = 0;
	double t0, t1, t2, t3;

	t0 = floor_now();
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "floor", "GPL", insns, 2, NULL);
	if (prog < 0)
		return -errno;
	t1 = floor_now();
	pfd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		err = -errno;
		goto out;
	}
	link = bpf_link_create(prog, pfd, BPF_PERF_EVENT, NULL);
	if (link < 0) {
		err = -errno;
		goto out;
	}
	t2 = floor_now();
	close(link);
	close(pfd);
	link = pfd = -1;
	t3 = floor_now();
	*load = t1 - t0;
	*attach = t2 - t1;
	*release = t3 - t2;
out:
	if (link >= 0)
		close(link);
	if (pfd >= 0)
		close(pfd);
	close(prog);
	return err;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5, tp_id, i, err;
	double load[MAX_RUNS], attach[MAX_RUNS], release[MAX_RUNS];
	FILE *f;

	if (runs < 1 || runs > MAX_RUNS)
		runs = 5;
	f = fopen(TP_ID, "r");
	if (!f || fscanf(f, "%d", &tp_id) != 1) {
		fprintf(stderr, "kernel_floor: cannot read %s\n", TP_ID);
		return 1;
	}
	fclose(f);
	for (i = 0; i < runs; i++) {
		err = floor_once(tp_id, &load[i], &attach[i], &release[i]);
		if (err) {
			fprintf(stderr, "kernel_floor: %s\n", strerror(-err));
			return 1;
		}
	}
	floor_print("load", load, runs);
	floor_print("attach", attach, runs);
	floor_print("release", release, runs);
	return 0;
}
