// SPDX-License-Identifier: GPL-2.0
/*
 * skboutput(): the samples of AOT_SKB_MAP (a perf event array: bpf_skb_output writes to nothing
 * else), read with libbpf's perf_buffer, appended to pcap files as bpftrace writes them: link
 * type RAW (IPv4 or IPv6 from the first byte), microsecond stamps of wall-clock time, each packet
 * whole (caplen = len). The file format is two fixed little structs (pcap-savefile(5)), written
 * here: libpcap, which bpftrace links for it, would bring libdbus and libibverbs into every run
 * for two fwrite calls. Each file named by a call is created (truncated) when the run starts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "rt.h"

#define PCAP_MAGIC_USEC 0xa1b2c3d4u
#define PCAP_LINKTYPE_RAW 101u
#define PCAP_SNAPLEN 65535u
#define PCAP_PAGES 64 /* per CPU, bpftrace's perf_rb_pages */

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct pcap_rec_hdr {
	uint32_t sec, usec, caplen, len;
};

struct rt_pcap {
	struct perf_buffer *pb;
	const struct aot_meta *meta;
	const struct output *out;
	FILE **files;	       /* per format index; NULL where it is no skboutput */
	uint64_t boot_wall_ns; /* CLOCK_REALTIME - CLOCK_BOOTTIME when the run started */
	uint64_t lost, bad;    /* samples the kernel dropped, samples we could not read */
	int err;	       /* the first write error, reported once */
};

static uint64_t pcap_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pcap_sample(void *ctx, int cpu, void *data, __u32 size)
{
	struct rt_pcap *p = ctx;
	struct aot_skb_hdr h;
	struct pcap_rec_hdr r;
	uint64_t ns, n;
	FILE *f;

	(void)cpu;
	if (size < sizeof(h)) {
		p->bad++;
		return;
	}
	memcpy(&h, data, sizeof(h));
	/* the kernel pads a sample to 8 bytes: the header says how much is packet */
	n = h.len < size - sizeof(h) ? h.len : size - sizeof(h);
	f = h.fmt < p->meta->nfmts ? p->files[h.fmt] : NULL;
	if (!f) {
		p->bad++;
		return;
	}
	if (h.off >= n)
		return; /* nothing past the offset: nothing to write, as bpftrace */
	ns = h.boot_ns + p->boot_wall_ns;
	r = (struct pcap_rec_hdr){ .sec = (uint32_t)(ns / 1000000000ull),
				   .usec = (uint32_t)(ns % 1000000000ull / 1000),
				   .caplen = (uint32_t)(n - h.off),
				   .len = (uint32_t)(n - h.off) };
	if ((fwrite(&r, sizeof(r), 1, f) != 1 ||
	     fwrite((const uint8_t *)data + sizeof(h) + h.off, n - h.off, 1, f) != 1) &&
	    !p->err) {
		p->err = errno ? errno : EIO;
		rt_report(p->out, RT_ERROR, "skboutput: cannot write %s: %s",
			  p->meta->fmts[h.fmt].fmt, strerror(p->err));
	}
}

static void pcap_lost(void *ctx, int cpu, __u64 cnt)
{
	(void)cpu;
	((struct rt_pcap *)ctx)->lost += cnt;
}

/* The file of format i, created with its header; a file two calls name is shared. */
static FILE *pcap_create(struct rt_pcap *p, uint32_t i)
{
	static const struct pcap_file_hdr fh = { .magic = PCAP_MAGIC_USEC,
						 .major = 2,
						 .minor = 4,
						 .snaplen = PCAP_SNAPLEN,
						 .linktype = PCAP_LINKTYPE_RAW };
	const char *path = p->meta->fmts[i].fmt;
	FILE *f;

	for (uint32_t j = 0; j < i; j++)
		if (p->files[j] && !strcmp(p->meta->fmts[j].fmt, path))
			return p->files[j];
	f = fopen(path, "we");
	if (!f || fwrite(&fh, sizeof(fh), 1, f) != 1) {
		rt_report(p->out, RT_ERROR, "skboutput: cannot create %s: %s", path,
			  strerror(errno ? errno : EIO));
		if (f)
			fclose(f);
		return NULL;
	}
	return f;
}

struct rt_pcap *rt_pcap__new(struct rt *rt, int *errp)
{
	struct bpf_map *map = bpf_object__find_map_by_name(rt->obj, AOT_SKB_MAP);
	struct rt_pcap *p;

	*errp = 0;
	if (!map)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p || !(p->files = calloc(rt->meta->nfmts ? rt->meta->nfmts : 1, sizeof(FILE *)))) {
		free(p);
		*errp = -ENOMEM;
		return NULL;
	}
	p->meta = rt->meta;
	p->out = &rt->out;
	p->boot_wall_ns = pcap_clock_ns(CLOCK_REALTIME) - pcap_clock_ns(CLOCK_BOOTTIME);
	for (uint32_t i = 0; i < rt->meta->nfmts; i++) {
		if (rt->meta->fmts[i].kind != AOT_FMT_SKBOUTPUT)
			continue;
		p->files[i] = pcap_create(p, i);
		if (!p->files[i]) {
			*errp = -EIO;
			rt_pcap__free(p);
			return NULL;
		}
	}
	p->pb = perf_buffer__new(bpf_map__fd(map), PCAP_PAGES, pcap_sample, pcap_lost, p, NULL);
	if (!p->pb) {
		*errp = -errno;
		rt_report(&rt->out, RT_ERROR, "skboutput: cannot open its perf buffers: %s",
			  strerror(errno));
		rt_pcap__free(p);
		return NULL;
	}
	return p;
}

int rt_pcap__fd(const struct rt_pcap *p)
{
	return perf_buffer__epoll_fd(p->pb);
}

int rt_pcap__consume(struct rt_pcap *p)
{
	int err = perf_buffer__consume(p->pb);

	return err < 0 ? err : 0;
}

void rt_pcap__free(struct rt_pcap *p)
{
	if (!p)
		return;
	if (p->pb)
		rt_pcap__consume(p);
	perf_buffer__free(p->pb);
	if (p->lost)
		rt_report(p->out, RT_WARN,
			  "skboutput: the kernel dropped %llu packets (a full perf buffer)",
			  (unsigned long long)p->lost);
	if (p->bad)
		rt_report(p->out, RT_WARN, "skboutput: %llu samples could not be read",
			  (unsigned long long)p->bad);
	for (uint32_t i = 0; i < p->meta->nfmts; i++) {
		bool shared = false;

		for (uint32_t j = 0; j < i && p->files[i]; j++)
			shared |= p->files[j] == p->files[i];
		if (p->files[i] && !shared)
			fclose(p->files[i]);
	}
	free(p->files);
	free(p);
}
