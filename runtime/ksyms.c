// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols (ksyms.h). kallsyms is read once into one sorted array of (address, name
 * offset) with every name in one buffer; a symbol ends where the next one starts. BPF symbols
 * live apart in a small sorted overlay with exact lengths, kept current from the perf side-band
 * records PERF_RECORD_KSYMBOL (adds and removes) and PERF_RECORD_BPF_EVENT (program loads: we
 * fetch the program's JITed layout and line info at once, while it still exists). Only a
 * PERF_RECORD_LOST makes the next lookup read kallsyms again.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "ksyms.h"

#define KSYMS_PATH "/proc/kallsyms"
#define KSYMS_ONLINE "/sys/devices/system/cpu/online"
#define KSYMS_UNSIZED_MAX 4096 /* a symbol with no known end covers at most a page */
#define KSYMS_MAX_CPUS 4096
#define KSYMS_LINE 8			      /* addresses in a cache line */
#define KSYMS_BLOCK (KSYMS_LINE * KSYMS_LINE) /* addresses under one top-level entry */

/* One kallsyms symbol while the index is built. */
struct ksyms_sym {
	uint64_t addr;
	uint32_t name;	/* offset in ksyms.pool */
	uint32_t order; /* position in kallsyms, to keep the first of aliases */
};

/* A BPF program (or trampoline, dispatcher) symbol; len 0 while its length is unknown. */
struct ksyms_bpf {
	uint64_t addr;
	uint32_t len;
	char *name;
};

/* What we fetched of a loaded BPF program: its functions' JITed ranges and line info. */
struct ksyms_prog {
	uint32_t id, btf_id;
	uint32_t nfuncs;
	uint64_t *addrs;
	uint32_t *lens;
	struct bpf_prog_linfo *linfo;
	struct btf *btf; /* loaded on the first source-line query */
};

struct ksyms_ring {
	int fd;
	void *base; /* the control page, then the data pages */
};

struct ksyms {
	char *path;
	size_t nsyms;
	/*
	 * A search touches few cache lines: a binary search of the top level (every
	 * KSYMS_BLOCK-th address: 15 KB for 122k symbols, which stays in cache), then one line of
	 * mid (every KSYMS_LINE-th address), then one line of addrs, then the name's offset.
	 * addrs and mid are padded with UINT64_MAX to whole blocks and cache-line aligned.
	 */
	uint64_t *addrs, *mid, *top;
	uint32_t *names; /* offsets in pool, by symbol */
	size_t ntop;
	char *pool;
	struct ksyms_bpf *bpf;
	size_t nbpf, cap_bpf;
	struct ksyms_prog *progs;
	size_t nprogs, cap_progs;
	struct ksyms_ring *rings;
	int nrings, epfd;
	size_t page_size, data_size;
	bool loaded, stale;
	uint8_t *rec; /* a record that wraps around the ring end, copied whole */
	struct ksyms_stats st;
};

/* The BPF overlay */

/* Index of the first overlay entry at or after addr. */
static size_t ksyms_bpf_find(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nbpf;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->bpf[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void ksyms_bpf_add(struct ksyms *k, uint64_t addr, uint32_t len, const char *name,
			  size_t namelen)
{
	size_t i = ksyms_bpf_find(k, addr);
	char *n = strndup(name, namelen);

	if (!n)
		return;
	if (i < k->nbpf && k->bpf[i].addr == addr) {
		/* The same address again (a record older than our scan): the newest wins. */
		free(k->bpf[i].name);
		k->bpf[i].name = n;
		if (len)
			k->bpf[i].len = len;
		return;
	}
	if (k->nbpf == k->cap_bpf) {
		size_t cap = k->cap_bpf ? 2 * k->cap_bpf : 64;
		struct ksyms_bpf *b = realloc(k->bpf, cap * sizeof(*b));

		if (!b) {
			free(n);
			return;
		}
		k->bpf = b;
		k->cap_bpf = cap;
	}
	memmove(&k->bpf[i + 1], &k->bpf[i], (k->nbpf - i) * sizeof(*k->bpf));
	k->bpf[i] = (struct ksyms_bpf){ .addr = addr, .len = len, .name = n };
	k->nbpf++;
}

static void ksyms_bpf_remove(struct ksyms *k, uint64_t addr)
{
	size_t i = ksyms_bpf_find(k, addr);

	if (i >= k->nbpf || k->bpf[i].addr != addr)
		return;
	free(k->bpf[i].name);
	memmove(&k->bpf[i], &k->bpf[i + 1], (k->nbpf - i - 1) * sizeof(*k->bpf));
	k->nbpf--;
}

static void ksyms_bpf_clear(struct ksyms *k)
{
	size_t i;

	for (i = 0; i < k->nbpf; i++)
		free(k->bpf[i].name);
	k->nbpf = 0;
}

/* Program info */

static void ksyms_prog_free(struct ksyms_prog *p)
{
	free(p->addrs);
	free(p->lens);
	bpf_prog_linfo__free(p->linfo);
	btf__free(p->btf);
}

static void ksyms_prog_forget(struct ksyms *k, uint32_t id)
{
	size_t i;

	for (i = 0; i < k->nprogs; i++) {
		if (k->progs[i].id != id)
			continue;
		ksyms_prog_free(&k->progs[i]);
		k->progs[i] = k->progs[--k->nprogs];
		return;
	}
}

/*
 * Fetches a program's JITed function addresses and lengths and its line info, and gives the
 * overlay symbols at those addresses their exact lengths. Programs gone meanwhile are skipped.
 */
static void ksyms_prog_fetch(struct ksyms *k, uint32_t id)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info), nf, nl, nli, njli, lrs, jlrs, i;
	void *li = NULL, *jli = NULL;
	struct ksyms_prog p = { .id = id };
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return;
	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		goto out;
	nf = info.nr_jited_ksyms;
	nl = info.nr_jited_func_lens;
	nli = info.nr_line_info;
	njli = info.nr_jited_line_info;
	lrs = info.line_info_rec_size;
	jlrs = info.jited_line_info_rec_size;
	if (!nf || nf != nl)
		goto out;
	p.addrs = calloc(nf, sizeof(*p.addrs));
	p.lens = calloc(nf, sizeof(*p.lens));
	if (nli && njli) {
		li = calloc(nli, lrs);
		jli = calloc(njli, jlrs);
	}
	if (!p.addrs || !p.lens || (nli && njli && (!li || !jli)))
		goto out;
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = nf;
	info.jited_ksyms = (uintptr_t)p.addrs;
	info.nr_jited_func_lens = nl;
	info.jited_func_lens = (uintptr_t)p.lens;
	if (li) {
		info.nr_line_info = nli;
		info.line_info_rec_size = lrs;
		info.line_info = (uintptr_t)li;
		info.nr_jited_line_info = njli;
		info.jited_line_info_rec_size = jlrs;
		info.jited_line_info = (uintptr_t)jli;
	}
	len = sizeof(info);
	if (bpf_prog_get_info_by_fd(fd, &info, &len) || info.nr_jited_ksyms != nf)
		goto out;
	p.nfuncs = nf;
	p.btf_id = info.btf_id;
	if (li)
		p.linfo = bpf_prog_linfo__new(&info); /* copies what it needs */
	for (i = 0; i < nf; i++) {
		size_t j = ksyms_bpf_find(k, p.addrs[i]);

		if (j < k->nbpf && k->bpf[j].addr == p.addrs[i])
			k->bpf[j].len = p.lens[i];
	}
	if (k->nprogs == k->cap_progs) {
		size_t cap = k->cap_progs ? 2 * k->cap_progs : 16;
		struct ksyms_prog *a = realloc(k->progs, cap * sizeof(*a));

		if (!a)
			goto out;
		k->progs = a;
		k->cap_progs = cap;
	}
	ksyms_prog_forget(k, id);
	k->progs[k->nprogs++] = p;
	p = (struct ksyms_prog){};
out:
	ksyms_prog_free(&p);
	free(li);
	free(jli);
	close(fd);
}

/* Every program loaded before our scan, for its lengths and line info. */
static void ksyms_prog_fetch_all(struct ksyms *k)
{
	uint32_t id = 0;

	while (!bpf_prog_get_next_id(id, &id))
		ksyms_prog_fetch(k, id);
}

/* Records */

void ksyms__handle_record(struct ksyms *k, const void *rec, size_t len)
{
	const struct perf_event_header *h = rec;
	const uint8_t *p = rec;

	if (len < sizeof(*h) || h->size > len)
		return;
	k->st.records++;
	switch (h->type) {
	case PERF_RECORD_KSYMBOL: {
		uint64_t addr;
		uint32_t slen;
		uint16_t type, flags;
		const char *name = (const char *)p + 24;

		if (len < 25)
			return;
		memcpy(&addr, p + 8, 8);
		memcpy(&slen, p + 16, 4);
		memcpy(&type, p + 20, 2);
		memcpy(&flags, p + 22, 2);
		if (type != PERF_RECORD_KSYMBOL_TYPE_BPF && type != PERF_RECORD_KSYMBOL_TYPE_OOL)
			return;
		if (flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER)
			ksyms_bpf_remove(k, addr);
		else
			ksyms_bpf_add(k, addr, slen, name, strnlen(name, len - 24));
		return;
	}
	case PERF_RECORD_BPF_EVENT: {
		uint16_t type;
		uint32_t id;

		if (len < 16)
			return;
		memcpy(&type, p + 8, 2);
		memcpy(&id, p + 12, 4);
		if (type == PERF_BPF_EVENT_PROG_LOAD)
			ksyms_prog_fetch(k, id);
		else if (type == PERF_BPF_EVENT_PROG_UNLOAD)
			ksyms_prog_forget(k, id);
		return;
	}
	case PERF_RECORD_LOST:
		/* We no longer know what changed: read kallsyms again before the next lookup. */
		k->st.lost++;
		k->stale = true;
		return;
	default:
		return;
	}
}

static void ksyms_ring_drain(struct ksyms *k, struct ksyms_ring *r)
{
	struct perf_event_mmap_page *mp = r->base;
	uint8_t *data = (uint8_t *)r->base + k->page_size;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	size_t mask = k->data_size - 1;

	/* The common case, once per lookup: nothing new, and no write to the shared page. */
	if (tail >= head)
		return;
	while (tail < head) {
		size_t off = tail & mask;
		/* Records are 8-byte aligned, so a header never wraps; a record may. */
		const struct perf_event_header *h = (const void *)(data + off);
		size_t len = h->size;
		const void *rec = h;

		if (len < sizeof(*h) || len > head - tail)
			break;
		if (off + len > k->data_size) {
			size_t first = k->data_size - off;

			memcpy(k->rec, data + off, first);
			memcpy(k->rec + first, data, len - first);
			rec = k->rec;
		}
		ksyms__handle_record(k, rec, len);
		tail += len;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

/* Applies what the rings hold: memory reads only, cheap enough for every lookup. */
static void ksyms_drain(struct ksyms *k)
{
	int i;

	for (i = 0; i < k->nrings; i++)
		ksyms_ring_drain(k, &k->rings[i]);
}

int ksyms__update(struct ksyms *k)
{
	struct epoll_event evs[16];

	/* Empty the readiness too, or a level-triggered poller would spin. */
	if (k->epfd >= 0)
		while (epoll_wait(k->epfd, evs, 16, 0) == 16)
			;
	ksyms_drain(k);
	return 0;
}

int ksyms__fd(const struct ksyms *k)
{
	return k->epfd;
}

/* Online CPUs from "0-3,5" into cpus; returns how many, or -errno. */
static int ksyms_online_cpus(int *cpus, int max)
{
	char buf[1024], *s = buf, *end;
	int fd = open(KSYMS_ONLINE, O_RDONLY | O_CLOEXEC), n = 0;
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -EINVAL;
	buf[len] = '\0';
	while (*s && *s != '\n') {
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		for (; a <= b && n < max; a++)
			cpus[n++] = (int)a;
		if (*s == ',')
			s++;
	}
	return n;
}

static int ksyms_subscribe(struct ksyms *k, int pages)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.ksymbol = 1,
		.bpf_event = 1,
		/* Wake on every record: a program's info must be fetched before it can go. */
		.watermark = 1,
		.wakeup_watermark = 1,
	};
	int *cpus, n, i, err = 0;

	cpus = calloc(KSYMS_MAX_CPUS, sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	n = ksyms_online_cpus(cpus, KSYMS_MAX_CPUS);
	if (n <= 0) {
		err = n ? n : -ENODEV;
		goto out;
	}
	k->data_size = (size_t)pages * k->page_size;
	k->rec = malloc(k->data_size);
	k->rings = calloc(n, sizeof(*k->rings));
	k->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!k->rec || !k->rings || k->epfd < 0) {
		err = k->epfd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct ksyms_ring *r = &k->rings[k->nrings];
		struct epoll_event ev = { .events = EPOLLIN };

		r->fd = syscall(__NR_perf_event_open, &attr, -1, cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (r->fd < 0) {
			err = -errno;
			goto out;
		}
		r->base = mmap(NULL, k->page_size + k->data_size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, r->fd, 0);
		if (r->base == MAP_FAILED) {
			err = -errno;
			close(r->fd);
			goto out;
		}
		k->nrings++;
		ev.data.u32 = i;
		if (epoll_ctl(k->epfd, EPOLL_CTL_ADD, r->fd, &ev)) {
			err = -errno;
			goto out;
		}
	}
out:
	free(cpus);
	return err;
}

static void ksyms_unsubscribe(struct ksyms *k)
{
	int i;

	for (i = 0; i < k->nrings; i++) {
		munmap(k->rings[i].base, k->page_size + k->data_size);
		close(k->rings[i].fd);
	}
	free(k->rings);
	k->rings = NULL;
	k->nrings = 0;
	if (k->epfd >= 0)
		close(k->epfd);
	k->epfd = -1;
}

/* The kallsyms index */

static int ksyms_cmp(const void *a, const void *b)
{
	const struct ksyms_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int ksyms_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void ksyms_index_free(struct ksyms *k)
{
	free(k->pool);
	free(k->addrs);
	free(k->mid);
	free(k->top);
	free(k->names);
	k->pool = NULL;
	k->addrs = k->mid = k->top = NULL;
	k->names = NULL;
	k->nsyms = k->ntop = 0;
}

/* How many of the KSYMS_LINE sorted addresses at line are at or below addr. */
static size_t ksyms_line_count(const uint64_t *line, uint64_t addr)
{
	size_t c = 0;

	for (size_t i = 0; i < KSYMS_LINE; i++)
		c += line[i] <= addr;
	return c;
}

int ksyms__parse(struct ksyms *k, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t cap = len / 32 + 16, n = 0, used = 0, i, j, padded;
	struct ksyms_sym *syms = malloc(cap * sizeof(*syms));
	char *pool = malloc(len + 1);
	bool sorted = true;

	if (!syms || !pool) {
		free(syms);
		free(pool);
		return -ENOMEM;
	}
	ksyms_bpf_clear(k);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *name, *nend, *mod = NULL;
		uint64_t addr = 0;
		int d;
		char type;

		if (!nl)
			nl = end;
		/* "ffffffff81000000 T _text" and maybe "\t[module]" */
		while (p < nl && (d = ksyms_hex(*p)) >= 0) {
			addr = addr << 4 | (uint64_t)d;
			p++;
		}
		if (nl - p < 4 || p[0] != ' ' || p[2] != ' ')
			goto next;
		type = p[1];
		name = p + 3;
		nend = memchr(name, '\t', nl - name);
		if (nend)
			mod = nend + 1;
		else
			nend = nl;
		if (!addr || nend == name || type == 'U' || type == 'u')
			goto next;
		if (mod && nl - mod == 5 && !memcmp(mod, "[bpf]", 5)) {
			ksyms_bpf_add(k, addr, 0, name, nend - name);
			goto next;
		}
		if (n == cap) {
			struct ksyms_sym *s = realloc(syms, 2 * cap * sizeof(*s));

			if (!s) {
				free(syms);
				free(pool);
				return -ENOMEM;
			}
			syms = s;
			cap *= 2;
		}
		if (n && addr < syms[n - 1].addr)
			sorted = false;
		syms[n] = (struct ksyms_sym){ .addr = addr, .name = (uint32_t)used, .order = n };
		memcpy(pool + used, name, nend - name);
		used += nend - name;
		pool[used++] = '\0';
		n++;
	next:
		p = nl + 1;
	}
	/* vmlinux comes sorted; modules' symbols may not. */
	if (!sorted)
		qsort(syms, n, sizeof(*syms), ksyms_cmp);
	/* Aliases share an address: keep the first kallsyms lists. */
	for (i = j = 0; i < n; i++)
		if (!j || syms[i].addr != syms[j - 1].addr)
			syms[j++] = syms[i];
	ksyms_index_free(k);
	k->pool = pool;
	k->ntop = (j + KSYMS_BLOCK - 1) / KSYMS_BLOCK;
	padded = (k->ntop ? k->ntop : 1) * KSYMS_BLOCK;
	k->addrs = aligned_alloc(64, padded * sizeof(*k->addrs));
	k->mid = aligned_alloc(64, padded / KSYMS_LINE * sizeof(*k->mid));
	k->top = malloc((k->ntop ? k->ntop : 1) * sizeof(*k->top));
	k->names = malloc((j ? j : 1) * sizeof(*k->names));
	if (!k->addrs || !k->mid || !k->top || !k->names) {
		free(syms);
		ksyms_index_free(k);
		return -ENOMEM;
	}
	for (i = 0; i < padded; i++)
		k->addrs[i] = i < j ? syms[i].addr : UINT64_MAX;
	for (i = 0; i < j; i++)
		k->names[i] = syms[i].name;
	for (i = 0; i < padded / KSYMS_LINE; i++)
		k->mid[i] = k->addrs[i * KSYMS_LINE];
	for (i = 0; i < k->ntop; i++)
		k->top[i] = k->addrs[i * KSYMS_BLOCK];
	k->nsyms = j;
	free(syms);
	k->loaded = true;
	k->stale = false;
	return 0;
}

int ksyms__load(struct ksyms *k)
{
	size_t len = 0, cap = 8 << 20;
	char *buf = NULL, *b;
	ssize_t r;
	int fd, err;

	if (k->loaded && !k->stale)
		return 0;
	/* Records queued before the scan are older than it: apply them first. */
	ksyms_drain(k);
	fd = open(k->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	k->st.scans++;
	do {
		if (!buf || len == cap) {
			cap = buf ? 2 * cap : cap;
			b = realloc(buf, cap);
			if (!b) {
				err = -ENOMEM;
				goto out;
			}
			buf = b;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto out;
		}
		len += r;
	} while (r > 0);
	err = ksyms__parse(k, buf, len);
	if (!err)
		ksyms_prog_fetch_all(k);
out:
	free(buf);
	close(fd);
	return err;
}

/* Lookups */

static const char *ksyms_lookup_bpf(const struct ksyms *k, uint64_t addr, uint64_t *off)
{
	const struct ksyms_bpf *b, *last = k->nbpf ? &k->bpf[k->nbpf - 1] : NULL;
	uint64_t len;
	size_t i;

	/* Most lookups are kernel text, below or above every BPF symbol: no search. */
	if (!last || addr < k->bpf[0].addr ||
	    (addr > last->addr && addr - last->addr >= (last->len ? last->len : KSYMS_UNSIZED_MAX)))
		return NULL;
	i = ksyms_bpf_find(k, addr + 1);
	if (!i)
		return NULL;
	b = &k->bpf[i - 1];
	len = b->len;
	if (!len) {
		/* Unknown length (a trampoline seen only in kallsyms): up to the next one. */
		len = KSYMS_UNSIZED_MAX;
		if (i < k->nbpf && k->bpf[i].addr - b->addr < len)
			len = k->bpf[i].addr - b->addr;
	}
	if (addr - b->addr >= len)
		return NULL;
	*off = addr - b->addr;
	return b->name;
}

const char *ksyms__lookup(struct ksyms *k, uint64_t addr, uint64_t *offset)
{
	const uint64_t *top;
	size_t n, i;
	const char *name;
	uint64_t end, off;

	ksyms_drain(k);
	if ((!k->loaded || k->stale) && ksyms__load(k) && !k->loaded)
		return NULL;
	name = ksyms_lookup_bpf(k, addr, &off);
	if (name) {
		*offset = off;
		return name;
	}
	if (!k->ntop || addr < k->top[0])
		return NULL;
	/* The block whose first address is the last at or below addr (without branches: the
	 * CPU then overlaps the memory reads of consecutive lookups)... */
	top = k->top;
	for (n = k->ntop; n > 1; n -= n / 2)
		top = top[n / 2] <= addr ? top + n / 2 : top;
	/* ...its line in mid, then the symbol's line in addrs: at least one is at or below. */
	i = (size_t)(top - k->top) * KSYMS_LINE;
	i = (i + ksyms_line_count(k->mid + i, addr) - 1) * KSYMS_LINE;
	i += ksyms_line_count(k->addrs + i, addr) - 1;
	end = i + 1 < k->nsyms ? k->addrs[i + 1] : k->addrs[i] + KSYMS_UNSIZED_MAX;
	if (addr >= end)
		return NULL;
	*offset = addr - k->addrs[i];
	return k->pool + k->names[i];
}

int ksyms__srcline(struct ksyms *k, uint64_t addr, char *buf, size_t len)
{
	size_t i;
	uint32_t f;

	for (i = 0; i < k->nprogs; i++) {
		struct ksyms_prog *p = &k->progs[i];

		for (f = 0; f < p->nfuncs; f++) {
			const struct bpf_line_info *li;
			const char *file;

			if (addr < p->addrs[f] || addr - p->addrs[f] >= p->lens[f])
				continue;
			if (!p->linfo || !p->btf_id)
				return -ENOENT;
			li = bpf_prog_linfo__lfind_addr_func(p->linfo, addr, f, 0);
			if (!li)
				return -ENOENT;
			if (!p->btf)
				p->btf = btf__load_from_kernel_by_id(p->btf_id);
			if (!p->btf) {
				p->btf_id = 0; /* do not retry */
				return -ENOENT;
			}
			file = btf__name_by_offset(p->btf, li->file_name_off);
			snprintf(buf, len, "%s:%u", file ? file : "?",
				 BPF_LINE_INFO_LINE_NUM(li->line_col));
			return 0;
		}
	}
	return -ENOENT;
}

void ksyms__stats(const struct ksyms *k, struct ksyms_stats *st)
{
	*st = k->st;
	st->nsyms = k->nsyms;
	st->nbpf = k->nbpf;
	st->nprogs = k->nprogs;
}

struct ksyms *ksyms__new(const struct ksyms_opts *opts)
{
	struct ksyms_opts o = {};
	struct ksyms *k = calloc(1, sizeof(*k));
	int pages;

	if (!k)
		return NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	k->epfd = -1;
	k->page_size = sysconf(_SC_PAGESIZE);
	k->path = strdup(o.path ? o.path : KSYMS_PATH);
	if (!k->path) {
		free(k);
		return NULL;
	}
	/*
	 * 256 KiB a CPU: a burst of a few hundred program loads (four records each) fits even
	 * when we are slow to drain (a busy or emulated machine); pages are only touched as
	 * records arrive, so a quiet run pays almost nothing for them.
	 */
	pages = o.ring_pages > 0 ? o.ring_pages : 64;
	if (pages & (pages - 1))
		pages = 64;
	/* Without a subscription we still work, only BPF symbols age: the caller is told. */
	if (o.live && ksyms_subscribe(k, pages)) {
		int err = errno;

		ksyms_unsubscribe(k);
		ksyms__free(k);
		errno = err ? err : EPERM;
		return NULL;
	}
	return k;
}

void ksyms__free(struct ksyms *k)
{
	size_t i;

	if (!k)
		return;
	ksyms_unsubscribe(k);
	ksyms_bpf_clear(k);
	for (i = 0; i < k->nprogs; i++)
		ksyms_prog_free(&k->progs[i]);
	free(k->progs);
	free(k->bpf);
	ksyms_index_free(k);
	free(k->rec);
	free(k->path);
	free(k);
}
