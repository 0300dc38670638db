// SPDX-License-Identifier: GPL-2.0
/*
 * The list of links a run made. Probe types add to it as they attach; the runtime destroys it
 * whole at exit, so a probe that fails halfway leaves nothing attached. What attaching leaves out
 * is reported through the runtime's reporter, which the list carries.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "probe_internal.h"

/* Room for one more of n elements of size elem in *v, which holds *cap: 0 or -ENOMEM. */
static int links_room(void *v, size_t *cap, size_t n, size_t elem, size_t first)
{
	void **pv = v, *nv;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	nv = realloc(*pv, ncap * elem);
	if (!nv)
		return -ENOMEM;
	*pv = nv;
	*cap = ncap;
	return 0;
}

int probe_links_add(struct probe_links *l, struct bpf_link *link)
{
	if (links_room(&l->v, &l->cap, l->n, sizeof(*l->v), 16)) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	l->v[l->n++] = link;
	return 0;
}

int probe_links_add_fd(struct probe_links *l, int fd)
{
	if (links_room(&l->fds, &l->cap_fds, l->nfds, sizeof(*l->fds), 4)) {
		close(fd);
		return -ENOMEM;
	}
	l->fds[l->nfds++] = fd;
	return 0;
}

void probe_links_warn(struct probe_links *l, const char *fmt, ...)
{
	va_list ap;

	if (!l->warn)
		return;
	va_start(ap, fmt);
	l->warn(l->warn_ctx, fmt, ap);
	va_end(ap);
}

int probe_links_add_result(struct probe_links *l, struct bpf_link *link, struct probe_err *err,
			   const char *hint, const char *what)
{
	int ret = libbpf_get_error(link);

	if (ret) {
		probe_err_set(err, hint, "cannot attach %s: %s", what, strerror(-ret));
		return ret;
	}
	return probe_links_add(l, link);
}

int probe_links_add_timer(struct probe_links *l, int fd, uint64_t period_ns,
			  const struct aot_probe *probe)
{
	if (links_room(&l->timers, &l->cap_timers, l->ntimers, sizeof(*l->timers), 8))
		return -ENOMEM;
	l->timers[l->ntimers++] = (struct probe_timer){ fd, period_ns, probe };
	return 0;
}

/*
 * By probe: pointers into the metadata's array of probes, which is in script order. Timers of one
 * probe (one per CPU) tie; their order does not matter.
 */
static int links_timer_cmp(const void *x, const void *y)
{
	const struct probe_timer *a = x, *b = y;

	return a->probe < b->probe ? -1 : a->probe > b->probe;
}

static uint64_t links_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* How often starting the timers is tried again when it took too long (see below). */
#define LINKS_START_TRIES 5

int probe_links_start_timers(struct probe_links *l)
{
	uint64_t shortest = UINT64_MAX, start;
	int ret = 0;

	/* Attach order is not script order for the probe types that run newest first. */
	qsort(l->timers, l->ntimers, sizeof(*l->timers), links_timer_cmp);
	for (size_t i = 0; i < l->ntimers; i++)
		if (l->timers[i].period_ns < shortest)
			shortest = l->timers[i].period_ns;
	/*
	 * Timers of one period tick in the order they were started only if starting them all took
	 * less than that period: a loop this process was preempted in for longer (a loaded host)
	 * is done again, which is harmless while the programs are inert.
	 */
	for (int tries = 0; tries < LINKS_START_TRIES; tries++) {
		ret = 0;
		start = links_now_ns();
		for (size_t i = 0; i < l->ntimers; i++) {
			uint64_t period = l->timers[i].period_ns;

			/* A new period from now: the kernel starts the timer over with a whole one.
			 */
			if (ioctl(l->timers[i].fd, PERF_EVENT_IOC_PERIOD, &period) && !ret)
				ret = -errno;
		}
		if (l->ntimers < 2 || links_now_ns() - start < shortest / 4)
			break;
	}
	return ret;
}

/* The links v[from] on (one, or one per CPU for a kernel address) watch addr. */
int probe_links_add_watch(struct probe_links *l, size_t from, uint64_t addr)
{
	for (size_t i = from; i < l->n; i++) {
		if (links_room(&l->watches, &l->cap_watches, l->nwatches, sizeof(*l->watches), 4))
			return -ENOMEM;
		l->watches[l->nwatches++] = (struct probe_watch){ i, addr };
	}
	return 0;
}

size_t probe_links_unwatch(struct probe_links *l, uint64_t addr)
{
	size_t n = 0;

	for (size_t i = 0; i < l->nwatches; i++) {
		struct probe_watch *w = &l->watches[i];

		if (w->addr != addr || w->link >= l->n || !l->v[w->link])
			continue;
		bpf_link__destroy(l->v[w->link]);
		l->v[w->link] = NULL;
		n++;
	}
	return n;
}

void probe_links_destroy(struct probe_links *l)
{
	for (size_t i = 0; i < l->n; i++)
		bpf_link__destroy(l->v[i]);
	for (size_t i = 0; i < l->nfds; i++)
		close(l->fds[i]);
	free(l->v);
	free(l->fds);
	free(l->timers);
	free(l->watches);
	memset(l, 0, sizeof(*l));
}
