// SPDX-License-Identifier: GPL-2.0
/*
 * The consumer of the event ring (a BPF_MAP_TYPE_RINGBUF map), in place of libbpf's ring_buffer.
 * libbpf maps the whole data area twice, so that a record that wraps reads as one piece, and the
 * kernel puts every page of both mappings in our RSS: 32 MiB for the 16 MiB ring bpftrace 0.27
 * sizes. The kernel's own mapping of the ring already holds the data pages twice in a row, so a
 * window of RING_WINDOW bytes mapped at the record's offset shows any record whole; the window
 * moves (a munmap and an mmap) once per RING_WINDOW bytes of events.
 * The protocol is the kernel's (Documentation/bpf/ringbuf.rst): an 8-byte header per record,
 * its length with a busy and a discard bit, records 8-byte aligned, positions that only grow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "rt.h"

/* How much of the data area is mapped at once, unless the whole (doubled) ring is smaller. */
#define RING_WINDOW (1ul << 20)
#define RING_HDR 8u

struct rt_ring {
	int fd;
	size_t page;
	uint64_t size, mask; /* of the data area: a power of two */
	uint64_t *consumer;  /* the consumer page, the one page we may write */
	uint64_t *producer;  /* the producer page */
	/* The window: data bytes [win_off, win_off + win_len) of the doubled area. */
	uint8_t *win;
	uint64_t win_off, win_len;
	rt_ring_fn fn;
	void *ctx;
};

static void ring_unmap_window(struct rt_ring *r)
{
	if (r->win)
		munmap(r->win, r->win_len);
	r->win = NULL;
	r->win_len = 0;
}

/*
 * Makes data bytes [off, off + len) of the doubled area readable; 0 or -errno. The kernel's
 * mapping starts with the consumer and the producer page, then the data twice.
 */
static int ring_window(struct rt_ring *r, uint64_t off, uint64_t len)
{
	uint64_t start, want;
	void *p;

	if (r->win && off >= r->win_off && off + len <= r->win_off + r->win_len)
		return 0;
	ring_unmap_window(r);
	if (2 * r->size <= 2 * RING_WINDOW) {
		start = 0;
		want = 2 * r->size;
	} else {
		start = off & ~(uint64_t)(r->page - 1);
		want = off + len - start;
		if (want < RING_WINDOW)
			want = RING_WINDOW;
		want = (want + r->page - 1) & ~(uint64_t)(r->page - 1);
		if (start + want > 2 * r->size)
			want = 2 * r->size - start;
	}
	p = mmap(NULL, want, PROT_READ, MAP_SHARED, r->fd, (off_t)(2 * r->page + start));
	if (p == MAP_FAILED)
		return -errno;
	r->win = p;
	r->win_off = start;
	r->win_len = want;
	return 0;
}

struct rt_ring *rt_ring__new(int map_fd, rt_ring_fn fn, void *ctx, int *errp)
{
	struct bpf_map_info info = {};
	uint32_t ilen = sizeof(info);
	struct rt_ring *r;
	long page = sysconf(_SC_PAGESIZE);
	int err;

	r = calloc(1, sizeof(*r));
	if (!r) {
		*errp = -ENOMEM;
		return NULL;
	}
	r->fd = map_fd;
	r->fn = fn;
	r->ctx = ctx;
	r->page = page > 0 ? (size_t)page : 4096;
	r->consumer = MAP_FAILED;
	r->producer = MAP_FAILED;
	if (bpf_map_get_info_by_fd(map_fd, &info, &ilen)) {
		err = -errno;
		goto fail;
	}
	err = -EINVAL;
	if (info.type != BPF_MAP_TYPE_RINGBUF || !info.max_entries ||
	    (info.max_entries & (info.max_entries - 1)) || info.max_entries % r->page)
		goto fail;
	r->size = info.max_entries;
	r->mask = r->size - 1;
	r->consumer = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (r->consumer == MAP_FAILED) {
		err = -errno;
		goto fail;
	}
	r->producer = mmap(NULL, r->page, PROT_READ, MAP_SHARED, map_fd, (off_t)r->page);
	if (r->producer == MAP_FAILED) {
		err = -errno;
		goto fail;
	}
	return r;
fail:
	rt_ring__free(r);
	*errp = err;
	return NULL;
}

int rt_ring__fd(const struct rt_ring *r)
{
	return r->fd;
}

/*
 * Hands each committed record to fn, in order, until the ring is empty or fn returns < 0 (that
 * record counts as consumed: the next call starts after it). The records fn has seen, or fn's
 * error, or -errno.
 */
int rt_ring__consume(struct rt_ring *r)
{
	uint64_t cons = __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);
	int n = 0, err;

	for (;;) {
		uint64_t prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		bool progress = false;

		while (cons < prod) {
			uint64_t off = cons & r->mask;
			uint32_t hdr, len;
			const uint8_t *rec;

			err = ring_window(r, off, RING_HDR);
			if (err)
				return err;
			rec = r->win + (off - r->win_off);
			hdr = __atomic_load_n((const uint32_t *)rec, __ATOMIC_ACQUIRE);
			if (hdr & BPF_RINGBUF_BUSY_BIT)
				return n;
			len = hdr & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
			err = ring_window(r, off, RING_HDR + (uint64_t)len);
			if (err)
				return err;
			rec = r->win + (off - r->win_off);
			cons += (RING_HDR + (uint64_t)len + 7) & ~7ull;
			progress = true;
			if (!(hdr & BPF_RINGBUF_DISCARD_BIT)) {
				err = r->fn(r->ctx, (void *)(rec + RING_HDR), len);
				n++;
				if (err < 0) {
					__atomic_store_n(r->consumer, cons, __ATOMIC_RELEASE);
					return err;
				}
			}
			__atomic_store_n(r->consumer, cons, __ATOMIC_RELEASE);
		}
		if (!progress)
			return n;
	}
}

void rt_ring__free(struct rt_ring *r)
{
	if (!r)
		return;
	ring_unmap_window(r);
	if (r->producer != MAP_FAILED)
		munmap(r->producer, r->page);
	if (r->consumer != MAP_FAILED)
		munmap(r->consumer, r->page);
	free(r);
}
