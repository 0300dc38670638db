// SPDX-License-Identifier: GPL-2.0
/*
 * Event loop: polls the ring buffer AOT_EVENTS_MAP and a signalfd together, so that a signal
 * needs no handler and no global. Each record is an aot_event_hdr and a payload; printf records
 * go through the printf engine to the output, exit() ends the loop, anything else is counted.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "rt.h"

int rt_events_handle(void *ctx, void *data, size_t size)
{
	struct rt *rt = ctx;
	struct aot_event_hdr hdr;
	const struct aot_fmt *f;

	if (size < sizeof(hdr)) {
		rt->malformed++;
		return 0;
	}
	memcpy(&hdr, data, sizeof(hdr));
	switch (hdr.kind) {
	case AOT_EV_EXIT:
		rt->exiting = true;
		return 0;
	case AOT_EV_PRINTF:
		if (hdr.index >= rt->meta->nfmts) {
			rt->malformed++;
			return 0;
		}
		f = &rt->meta->fmts[hdr.index];
		rt_buf_reset(&rt->text);
		if (rt_printf_format(&rt->text, rt->meta, f, (const char *)data + sizeof(hdr),
				     size - sizeof(hdr))) {
			rt->malformed++;
			return 0;
		}
		if (rt->text.len)
			rt->out.ops->printf(&rt->out, rt->text.s, rt->text.len);
		return 0;
	default:
		rt->malformed++;
		return 0;
	}
}

int rt_events_open(struct rt *rt)
{
	struct bpf_map *map = bpf_object__find_map_by_name(rt->obj, AOT_EVENTS_MAP);

	/* A program that never prints nor exits has no ring buffer: we only wait for signals. */
	if (!map)
		return 0;
	rt->rb = ring_buffer__new(bpf_map__fd(map), rt_events_handle, rt, NULL);
	if (!rt->rb) {
		int err = -errno;

		fprintf(stderr, "ERROR: could not open the event ring buffer: %s\n",
			strerror(-err));
		return err;
	}
	return 0;
}

/* Consumes a pending signal, if any; true if one came. */
static bool events_signalled(struct rt *rt)
{
	struct signalfd_siginfo si;

	return rt->sigfd >= 0 && read(rt->sigfd, &si, sizeof(si)) == sizeof(si);
}

int rt_events_loop(struct rt *rt)
{
	struct pollfd fds[2];
	int n = 0, err;

	if (rt->sigfd >= 0)
		fds[n++] = (struct pollfd){.fd = rt->sigfd, .events = POLLIN};
	if (rt->rb)
		fds[n++] = (struct pollfd){.fd = ring_buffer__epoll_fd(rt->rb), .events = POLLIN};
	/* BEGIN may already have asked to exit. */
	rt_events_drain(rt);
	while (!rt->exiting) {
		if (poll(fds, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (events_signalled(rt))
			rt->exiting = true;
		if (rt->rb) {
			err = ring_buffer__consume(rt->rb);
			if (err < 0 && err != -EINTR)
				return err;
		}
		fflush(rt->out.f);
	}
	return 0;
}

void rt_events_drain(struct rt *rt)
{
	if (rt->rb)
		ring_buffer__consume(rt->rb);
	fflush(rt->out.f);
}

void rt_events_close(struct rt *rt)
{
	char msg[96];

	ring_buffer__free(rt->rb);
	rt->rb = NULL;
	rt_buf_free(&rt->text);
	if (rt->malformed) {
		snprintf(msg, sizeof(msg), "%llu malformed events were dropped",
			 (unsigned long long)rt->malformed);
		rt->out.ops->warning(&rt->out, msg);
	}
}
