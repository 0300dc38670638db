/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols that stay current: /proc/kallsyms parsed once into a compact sorted index, and
 * BPF program symbols kept up to date from PERF_RECORD_KSYMBOL/BPF_EVENT records (one dummy
 * software perf event per online CPU, opened before the scan). A full rescan happens only after
 * the kernel reports lost records. Used by the runtime's renderers and by bench/.
 */
#ifndef AOT_KSYMS_H
#define AOT_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksyms;

struct ksyms_opts {
	size_t sz;	  /* sizeof(struct ksyms_opts) */
	const char *path; /* NULL: /proc/kallsyms */
	bool live;	  /* subscribe to symbol changes (needs CAP_PERFMON or root) */
	int ring_pages;	  /* per-CPU ring buffer pages, a power of two; 0: 16 */
};

/* Subscribes (if live) but does not read kallsyms yet: the first lookup or ksyms__load does. */
struct ksyms *ksyms__new(const struct ksyms_opts *opts);
void ksyms__free(struct ksyms *k);
/* Reads kallsyms now if it was never read or records were lost. 0 or -errno. */
int ksyms__load(struct ksyms *k);
/* Builds the index from kallsyms-formatted text instead of the file (tests, benchmarks). */
int ksyms__parse(struct ksyms *k, const char *text, size_t len);

/*
 * The symbol containing addr, and the offset into it; NULL if none does. Applies pending
 * records first. The name stays valid until the next call into k.
 */
const char *ksyms__lookup(struct ksyms *k, uint64_t addr, uint64_t *offset);
/*
 * For an address inside a BPF program whose line info we have: "file:line" of its source.
 * 0, or -ENOENT.
 */
int ksyms__srcline(struct ksyms *k, uint64_t addr, char *buf, size_t len);

/* An fd that polls readable when records are waiting (-1 if not live); then call update. */
int ksyms__fd(const struct ksyms *k);
/* Applies every pending record. 0 or -errno. */
int ksyms__update(struct ksyms *k);
/* Applies one perf record (header included), as the ring buffers deliver them (tests). */
void ksyms__handle_record(struct ksyms *k, const void *rec, size_t len);

struct ksyms_stats {
	unsigned int scans;	/* times kallsyms was read */
	size_t nsyms;		/* symbols in the kallsyms index */
	size_t nbpf;		/* BPF symbols currently known */
	uint64_t records, lost; /* perf records applied, and LOST records seen */
	size_t nprogs;		/* BPF programs whose info we hold */
};
void ksyms__stats(const struct ksyms *k, struct ksyms_stats *st);

#endif
