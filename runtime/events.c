// SPDX-License-Identifier: GPL-2.0
/*
 * Event loop: polls the ring buffer AOT_EVENTS_MAP and a signalfd together, so that a signal
 * needs no handler and no global. Each record is an aot_event_hdr and a payload: formats go to
 * actions.c, map events to maps.c, exit() ends the loop, anything else is counted as malformed.
 * Also polled: the kernel symbol subscription (so its buffers never overflow between lookups),
 * and the lost-event counter the programs keep (AOT_LOST_MAP), reported once per wake-up.
 * Each record names its CPU, so that output.c keeps a line printed in pieces whole.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ksyms.h"
#include "rt.h"

#define EVENTS_LOST_POLL_MS 1000
/*
 * How long one pass of the event loop takes records before it looks at signals again. libbpf
 * 1.4's ring_buffer__consume returns only once the ring is empty, and under a printf flood the
 * programs refill it as fast as we drain it: a Ctrl-C waited 14 s, or for good, while a
 * syscall storm ran. Time, not a count of records: on a machine loaded to 16 runnable tasks
 * per core 4096 records took up to 1.2 s.
 */
#define EVENTS_PASS_MS 50
/*
 * Ring buffer pages (bpftrace 0.27's perf_rb_pages default, 16 MiB of 4 KiB pages) and the most
 * bytes we ask for.
 */
#define EVENTS_RB_PAGES 4096
#define EVENTS_RB_MAX (1ull << 30)

/* print(@map, top, div)'s payload. */
struct events_print_map {
	uint64_t top, div;
};

int rt_events_handle(void *ctx, void *data, size_t size)
{
	struct rt *rt = ctx;
	const char *payload = (const char *)data + sizeof(struct aot_event_hdr);
	struct events_print_map pm;
	struct aot_event_hdr hdr;
	uint64_t addr;
	int err;

	if (size < sizeof(hdr)) {
		rt->malformed++;
		return 0;
	}
	memcpy(&hdr, data, sizeof(hdr));
	size -= sizeof(hdr);
	/*
	 * As bpftrace 0.27: what other CPUs (or later probes) put in the ring buffer after an
	 * exit() is not shown, until END runs; a probe that ran on in the meantime printed no line.
	 */
	if (rt->after_exit)
		return 0;
	rt->out.cpu = hdr.cpu;
	switch (hdr.kind) {
	case AOT_EV_EXIT:
		/* The first exit() decides the status, even one in END after a signal. */
		if (!rt->exit_called && size >= sizeof(rt->exit_code))
			memcpy(&rt->exit_code, payload, sizeof(rt->exit_code));
		rt->exit_called = true;
		rt->exiting = true;
		rt->after_exit = true;
		return 0;
	case AOT_EV_PRINTF:
	case AOT_EV_FORMAT:
		if (hdr.index >= rt->meta->nfmts ||
		    (hdr.kind == AOT_EV_PRINTF && rt->meta->fmts[hdr.index].kind != AOT_FMT_PRINTF))
			break;
		err = rt_action_run(rt, &rt->meta->fmts[hdr.index], payload, size);
		return err == -EINVAL ? (rt->malformed++, 0) : 0;
	case AOT_EV_PRINT_MAP:
		if (hdr.index >= rt->meta->nmaps || size < sizeof(pm))
			break;
		memcpy(&pm, payload, sizeof(pm));
		rt_maps_print_one(rt, hdr.index, pm.top, pm.div);
		return 0;
	case AOT_EV_UNWATCH:
		if (size < sizeof(uint64_t))
			break;
		memcpy(&addr, payload, sizeof(addr));
		probe_links_unwatch(&rt->links, addr);
		return 0;
	case AOT_EV_CLEAR:
	case AOT_EV_ZERO:
		if (hdr.index >= rt->meta->nmaps)
			break;
		rt_maps_clear(rt, hdr.index, hdr.kind == AOT_EV_ZERO);
		return 0;
	default:
		break;
	}
	rt->malformed++;
	return 0;
}

void rt_events_report_lost(struct rt *rt)
{
	uint64_t *vals, total = 0;
	uint32_t key = 0;
	int ncpus, i;

	if (rt->lost_fd < 0)
		return;
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		return;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return;
	if (!bpf_map_lookup_elem(rt->lost_fd, &key, vals)) {
		for (i = 0; i < ncpus; i++)
			total += vals[i];
		/* The counter only grows: report what is new since last time. */
		if (total > rt->lost) {
			rt->out.ops->lost(&rt->out, total - rt->lost);
			rt->lost = total;
		}
	}
	free(vals);
}

/*
 * The ring buffer's size, set before load: BPFTRACE_PERF_RB_PAGES pages (4096) for the one
 * ring all CPUs share, rounded up to the power of two the kernel wants, as bpftrace 0.27.1
 * sizes its own (measured: 8 pages make 32 KiB, 1024 make 4 MiB, the default 16 MiB). With
 * 0.17's 64 pages per CPU, opensnoop lost a thousand events in 3 s of a busy machine that
 * 0.27.1 printed all of. The ring is kernel memory (ring.c maps a window of it): a program that
 * prints no formats (only maps, exit) keeps its object's small ring unless the pages are asked
 * for, so as not to hold 16 MiB of the kernel's for nothing.
 */
int rt_events_size(struct rt *rt)
{
	struct bpf_map *map = bpf_object__find_map_by_name(rt->obj, AOT_EVENTS_MAP);
	unsigned long long pages = rt->opts->rb_pages ? rt->opts->rb_pages : EVENTS_RB_PAGES;
	unsigned long long bytes, size;
	long page = sysconf(_SC_PAGESIZE);

	if (!map || (!rt->opts->rb_pages && rt->meta && !rt->meta->nfmts))
		return 0;
	if (page <= 0)
		page = 4096;
	bytes = pages * page;
	for (size = page; size < bytes && size < EVENTS_RB_MAX;)
		size *= 2;
	return bpf_map__set_max_entries(map, size);
}

/* CLOCK_MONOTONIC_COARSE, read from the vDSO: cheap enough to look at after every record. */
static uint64_t events_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The ring's callback: one record, and once the pass is over a stop (libbpf keeps the records
 * after this one in the ring, for the next pass).
 */
static int events_sample(void *ctx, void *data, size_t size)
{
	struct rt *rt = ctx;
	int err = rt_events_handle(ctx, data, size);

	if (!err && rt->pass_end_ns && events_now_ns() >= rt->pass_end_ns)
		return -EAGAIN;
	return err;
}

/* Handles records for up to ms milliseconds (0: until the ring is empty). 0 or -errno. */
static int events_consume(struct rt *rt, unsigned int ms)
{
	int err;

	if (rt->pcap) {
		err = rt_pcap__consume(rt->pcap);
		if (err < 0 && err != -EINTR)
			return err;
	}
	if (!rt->rb)
		return 0;
	rt->pass_end_ns = ms ? events_now_ns() + ms * 1000000ull : 0;
	err = rt_ring__consume(rt->rb);
	rt->pass_end_ns = 0;
	return err == -EAGAIN || err > 0 ? 0 : err;
}

int rt_events_open(struct rt *rt)
{
	struct bpf_map *map = bpf_object__find_map_by_name(rt->obj, AOT_EVENTS_MAP);
	int err;

	/* A program that never prints nor exits has no ring buffer: we only wait for signals. */
	if (!map)
		return 0;
	rt->rb = rt_ring__new(bpf_map__fd(map), events_sample, rt, &err);
	if (!rt->rb) {
		rt_report(&rt->out, RT_ERROR, "could not open the event ring buffer: %s",
			  strerror(-err));
		return err;
	}
	return 0;
}

/* Consumes the pending signals: SIGUSR1 asks for the maps, any other ends the run. */
static void events_signals(struct rt *rt)
{
	struct signalfd_siginfo si;

	while (rt->sigfd >= 0 && read(rt->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1)
			atomic_store(&rt->maps_asked, true);
		else if (!rt->exiting) {
			rt_signal_first((int)si.ssi_signo, (pid_t)si.ssi_pid);
			rt->exiting = true;
		}
	}
}

/* async-signal-safe: written once before any reader, read by a handler with plain loads. */
static volatile sig_atomic_t signal_first_no;
static volatile pid_t signal_first_pid;
static volatile uint64_t signal_first_ns;

void rt_signal_first(int signo, pid_t pid)
{
	signal_first_pid = pid;
	signal_first_ns = events_now_ns();
	signal_first_no = signo;
}

bool rt_signal_is_repeat(int signo, pid_t pid)
{
	return signal_first_no == signo && signal_first_pid == pid &&
	       events_now_ns() - signal_first_ns < RT_SIGNAL_REPEAT_NS;
}

/* Writes out what the last batch of events printed, as -B asks. */
static void events_flush(struct rt *rt, bool force_lines)
{
	output_lines_flush(&rt->out, force_lines);
	if (rt->opts->buffering != AOT_BUF_FULL)
		fflush(rt->out.f);
}

static void events_drain(struct rt *rt, unsigned int ms)
{
	events_consume(rt, ms);
	rt_events_report_lost(rt);
	events_flush(rt, true);
}

/*
 * SIGUSR1: the script's self:signal:SIGUSR1 probes run, as in bpftrace 0.22 and later. A script
 * without one prints every map as the run's end prints them, without the blank lines before
 * them, as bpftrace 0.17 does (0.22 and later print nothing then). Not once the run is ending:
 * its end prints the maps anyway.
 */
static void events_maps_asked(struct rt *rt)
{
	int err;

	if (rt->exiting || !atomic_exchange(&rt->maps_asked, false))
		return;
	if (rt_has_flagged(rt, AOT_PROBE_SIGNAL)) {
		/* Their output comes with the next pass over the ring buffer. */
		if (rt_run_flagged(rt, AOT_PROBE_SIGNAL))
			rt->exiting = true;
		return;
	}
	output_lines_flush(&rt->out, true);
	err = rt_maps_print(rt);
	if (err)
		rt_report(&rt->out, RT_ERROR, "printing the maps: %s", strerror(-err));
	fflush(rt->out.f);
}

int rt_events_loop(struct rt *rt)
{
	struct pollfd fds[6];
	int n = 0, pid_at = -1, err, ksyms_fd = rt->syms.ksyms ? ksyms__fd(rt->syms.ksyms) : -1;

	if (rt->sigfd >= 0)
		fds[n++] = (struct pollfd){ .fd = rt->sigfd, .events = POLLIN };
	if (rt->rb)
		fds[n++] = (struct pollfd){ .fd = rt_ring__fd(rt->rb), .events = POLLIN };
	if (ksyms_fd >= 0)
		fds[n++] = (struct pollfd){ .fd = ksyms_fd, .events = POLLIN };
	if (rt->pcap)
		fds[n++] = (struct pollfd){ .fd = rt_pcap__fd(rt->pcap), .events = POLLIN };
	/* -c CMD: the run ends when it exits (its pidfd becomes readable). */
	if (rt->child.pidfd >= 0)
		fds[n++] = (struct pollfd){ .fd = rt->child.pidfd, .events = POLLIN };
	/* -p PID: so does it when that process exits, as in bpftrace. */
	if (rt->pid_fd >= 0) {
		pid_at = n;
		fds[n++] = (struct pollfd){ .fd = rt->pid_fd, .events = POLLIN };
	}
	/* BEGIN may already have asked to exit; a SIGUSR1 may have come while attaching. */
	events_drain(rt, EVENTS_PASS_MS);
	events_maps_asked(rt);
	while (!rt->exiting) {
		/* A full ring buffer wakes nobody: look at the lost counter every second. */
		int timeout = rt->lost_fd >= 0 ? EVENTS_LOST_POLL_MS : -1;

		/* Text held behind another CPU's open line waits at most OUTPUT_LINE_WAIT_MS. */
		if (output_lines_held(&rt->out))
			timeout = OUTPUT_LINE_WAIT_MS;

		if (ksyms_fd >= 0)
			rt_syms_update(&rt->syms);
		rt_events_report_lost(rt);
		if (poll(fds, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		events_signals(rt);
		if (rt->child.pid && rt_child_done(&rt->child))
			rt->exiting = true;
		if (pid_at >= 0 && fds[pid_at].revents)
			rt->exiting = true;
		err = events_consume(rt, EVENTS_PASS_MS);
		if (err < 0 && err != -EINTR)
			return err;
		events_flush(rt, false);
		events_maps_asked(rt);
	}
	return 0;
}

void rt_events_drain(struct rt *rt)
{
	events_drain(rt, 0);
}

void rt_events_close(struct rt *rt)
{
	rt_ring__free(rt->rb);
	rt->rb = NULL;
	rt_pcap__free(rt->pcap);
	rt->pcap = NULL;
	output_lines_flush(&rt->out, true);
	rt_buf_free(&rt->text);
	if (rt->malformed)
		rt_report(&rt->out, RT_WARN, "%llu malformed events were dropped",
			  (unsigned long long)rt->malformed);
}
