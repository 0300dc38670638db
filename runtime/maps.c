// SPDX-License-Identifier: GPL-2.0
/*
 * Map printing at exit: reads every map the metadata names, folds per-CPU values by the map's
 * aggregation (layouts in meta.h), sorts entries the way bpftrace 0.17 does, and hands each map
 * to the output. Maps print in name order; entries with integer values ascending by value, the
 * rest by key; ties keep the kernel's iteration order, as bpftrace's sort does for small maps.
 * hist/lhist entries (one BPF entry per key and bucket) are grouped by key and sorted by their
 * total count, avg/stats by average; ties there go by the key's bytes, as bpftrace's std::map.
 * Also print(@map, top, div), clear() and zero() for the events that ask for them. A keyless
 * hist may be a per-CPU array of its buckets (meta.h): read as the hash it replaces.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rt.h"

/* Bytes of one CPU's value for an aggregation. */
static size_t maps_value_size(const struct aot_map *map)
{
	switch (map->agg) {
	case AOT_AGG_COUNT:
	case AOT_AGG_SUM:
		return 8;
	case AOT_AGG_HIST:
	case AOT_AGG_LHIST:
		return 8;
	case AOT_AGG_MIN:
	case AOT_AGG_MAX:
	case AOT_AGG_AVG:
	case AOT_AGG_STATS:
		return 16;
	case AOT_AGG_TSERIES:
		return 24;
	default:
		return map->value.size;
	}
}

static uint64_t maps_get64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

struct maps_sort {
	const struct aot_meta *meta;
	const struct aot_map *map;
	bool by_value, val_signed;
	size_t key_bytes; /* > 0: ties are broken by the key's bytes, not the kernel's order */
};

static bool maps_is_hist(const struct aot_map *map)
{
	return map->agg == AOT_AGG_HIST || map->agg == AOT_AGG_LHIST;
}

/*
 * Whether a hist map's values hold the sum of their bucket's values after the count: objects
 * compiled before the sums were added have an 8-byte value, and the BPF map's size says so.
 */
static bool maps_hist_has_sum(const struct aot_map *map, size_t stride)
{
	return maps_is_hist(map) && stride >= 16;
}

/* Whether the BPF key is the user key and a u64 after it: a hist's bucket, a tseries' slot. */
static bool maps_has_slot(const struct aot_map *map)
{
	return maps_is_hist(map) || map->agg == AOT_AGG_TSERIES;
}

/* The user key's bytes in a hist map's BPF key, before the u64 bucket index. */
static size_t maps_hist_prefix(const struct aot_map *map)
{
	return map->nkeys ? ((size_t)map->key.size + 7) & ~(size_t)7 : 0;
}

static int maps_cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Orders two keys of type t: integers as unsigned 64-bit, strings bytewise, tuples in turn. */
static int maps_cmp_key(const struct aot_meta *m, const struct aot_type *t, const uint8_t *a,
			const uint8_t *b)
{
	uint32_t i;
	int c;

	switch (t->kind) {
	case AOT_K_INT:
	case AOT_K_BOOL:
		return maps_cmp_u64(rt_value_int(t, a), rt_value_int(t, b));
	case AOT_K_STR:
		c = strncmp((const char *)a, (const char *)b, t->size);
		return c < 0 ? -1 : c > 0;
	case AOT_K_TUPLE:
		for (i = 0; i < t->nelems; i++) {
			const struct aot_elem *e = &m->elems[t->elems + i];

			c = maps_cmp_key(m, &e->type, a + e->offset, b + e->offset);
			if (c)
				return c;
		}
		return 0;
	default:
		return 0;
	}
}

static int maps_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct output_entry *a = pa, *b = pb;
	const struct maps_sort *s = ctx;
	int c;

	if (s->by_value) {
		if (s->val_signed)
			c = (int64_t)a->val < (int64_t)b->val ? -1
							      : (int64_t)a->val > (int64_t)b->val;
		else
			c = maps_cmp_u64(a->val, b->val);
	} else {
		c = maps_cmp_key(s->meta, &s->map->key, a->key, b->key);
	}
	if (c)
		return c;
	if (s->key_bytes && a->key && b->key) {
		c = memcmp(a->key, b->key, s->key_bytes);
		if (c)
			return c < 0 ? -1 : 1;
	}
	return maps_cmp_u64(a->seq, b->seq); /* stable: ties keep the kernel's order */
}

/* Orders raw hist entries by their key prefix, so that one key's buckets come together. */
static int maps_cmp_prefix(const void *pa, const void *pb, void *ctx)
{
	const struct output_entry *a = pa, *b = pb;
	size_t n = *(const size_t *)ctx;
	int c = n ? memcmp(a->key, b->key, n) : 0;

	return c ? c : maps_cmp_u64(a->seq, b->seq);
}

void rt_maps_entries_free(struct output_entry *ents, size_t n)
{
	size_t i;

	for (i = 0; ents && i < n; i++)
		free((void *)ents[i].buckets);
	free(ents);
}

/* Buckets a hist or lhist entry has: bpftrace's 65 log2 ones, or lhist's range plus two. */
static uint32_t maps_nbuckets(const struct aot_map *map)
{
	if (map->agg == AOT_AGG_HIST)
		return aot_hist_nbuckets((uint32_t)map->hist_k);
	return (uint32_t)((map->lhist_max - map->lhist_min) / map->lhist_step) + 2;
}

/*
 * Groups raw hist entries (val = the bucket's count, total = the sum of its values, value = the
 * key's bucket index) into one entry per key with its buckets; counts and sums add up into val
 * (for sorting) and total. 0 or -ENOMEM.
 */
static int maps_group_hist(const struct aot_map *map, struct output_entry *raw, size_t *n)
{
	size_t prefix = maps_hist_prefix(map), i, k = 0;
	uint32_t nb = maps_nbuckets(map);

	qsort_r(raw, *n, sizeof(*raw), maps_cmp_prefix, &prefix);
	for (i = 0; i < *n; i++) {
		uint64_t bucket = maps_get64((const uint8_t *)raw[i].key + prefix);
		uint64_t count = raw[i].val;
		int64_t sum = raw[i].total;
		struct output_entry *e;

		if (!k || (prefix && memcmp(raw[k - 1].key, raw[i].key, prefix))) {
			uint64_t *b = calloc(nb, sizeof(*b));

			if (!b) {
				*n = k;
				return -ENOMEM;
			}
			e = &raw[k];
			*e = (struct output_entry){
				.key = raw[i].key, .seq = k, .buckets = b, .nbuckets = nb
			};
			k++;
		}
		e = &raw[k - 1];
		if (bucket < nb) {
			((uint64_t *)e->buckets)[bucket] += count;
			e->val += count;
			e->total = (int64_t)((uint64_t)e->total + (uint64_t)sum);
		}
	}
	*n = k;
	return 0;
}

int rt_maps_fold(const struct aot_meta *m, const struct aot_map *map, const void *keys,
		 size_t key_size, const void *vals, size_t stride, int ncpus, size_t n,
		 struct output_entry **out, size_t *nout, bool *val_signed)
{
	struct maps_sort s = { .meta = m, .map = map };
	struct output_entry *ents;
	size_t i, k = 0;
	int cpu;

	*out = NULL;
	*nout = 0;
	if (map->agg == AOT_AGG_TSERIES) {
		*val_signed = map->value.is_signed;
		return rt_tseries_fold(map, keys, key_size, vals, stride, ncpus, n, out, nout);
	}
	s.val_signed =
		map->agg == AOT_AGG_MIN || map->agg == AOT_AGG_MAX || map->agg == AOT_AGG_AVG ||
		map->agg == AOT_AGG_STATS ||
		((map->agg == AOT_AGG_SUM || map->agg == AOT_AGG_NONE) && map->value.is_signed);
	s.by_value = map->agg != AOT_AGG_NONE || map->value.kind == AOT_K_INT ||
		     map->value.kind == AOT_K_BOOL;
	if (maps_is_hist(map) || map->agg == AOT_AGG_AVG || map->agg == AOT_AGG_STATS)
		s.key_bytes = maps_is_hist(map) ? maps_hist_prefix(map) : map->nkeys ? key_size : 0;
	*val_signed = s.val_signed;
	ents = calloc(n ? n : 1, sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const uint8_t *v = (const uint8_t *)vals + i * stride * ncpus;
		struct output_entry *e = &ents[k];
		uint64_t acc = 0, cnt = 0, hsum = 0;
		bool set = false;

		e->seq = k;
		e->key = map->nkeys ? (const uint8_t *)keys + i * key_size : NULL;
		e->value = v;
		for (cpu = 0; cpu < ncpus; cpu++) {
			const uint8_t *c = v + cpu * stride;
			uint64_t x = maps_get64(c);

			switch (map->agg) {
			case AOT_AGG_COUNT:
			case AOT_AGG_SUM:
				acc += x;
				break;
			case AOT_AGG_MIN:
			case AOT_AGG_MAX:
				if (!maps_get64(c + 8))
					break;
				if (!set || (map->agg == AOT_AGG_MIN ? (int64_t)x < (int64_t)acc
								     : (int64_t)x > (int64_t)acc))
					acc = x;
				set = true;
				break;
			case AOT_AGG_AVG:
			case AOT_AGG_STATS:
				acc += x;
				cnt += maps_get64(c + 8);
				break;
			case AOT_AGG_HIST:
			case AOT_AGG_LHIST:
				acc += x;
				if (maps_hist_has_sum(map, stride))
					hsum += maps_get64(c + 8);
				break;
			default:
				break;
			}
		}
		if (map->agg == AOT_AGG_NONE)
			acc = rt_value_int(&map->value, v);
		if (map->agg == AOT_AGG_AVG || map->agg == AOT_AGG_STATS) {
			e->total = (int64_t)acc;
			e->count = (int64_t)cnt;
			acc = cnt ? (uint64_t)((int64_t)acc / (int64_t)cnt) : 0;
		}
		/*
		 * Set on no CPU: zero() cleared it (the programs create an entry with its first
		 * value). bpftrace prints 0 then, and the next min() or max() sets it anew.
		 */
		e->val = acc;
		if (maps_is_hist(map)) {
			e->total = (int64_t)hsum;
			/* Every bucket is an entry of its own: grouped below. */
			e->key = (const uint8_t *)keys + i * key_size;
			k++;
			continue;
		}
		k++;
		if (!map->nkeys)
			break; /* a scalar map has one value, whatever its key */
	}
	/*
	 * bpftrace 0.17 keeps a count() without keys in a per-CPU array, which always holds its
	 * one value: it prints @: 0 before the first count, and after clear() or delete(), which
	 * zero it. 0.27 prints @: 0 in print(), and nothing at exit (maps_print_map).
	 */
	if (map->agg == AOT_AGG_COUNT && !map->nkeys && !k)
		ents[k++] = (struct output_entry){ .val = 0 };
	if (maps_is_hist(map) && maps_group_hist(map, ents, &k)) {
		rt_maps_entries_free(ents, k);
		return -ENOMEM;
	}
	qsort_r(ents, k, sizeof(*ents), maps_cmp, &s);
	*out = ents;
	*nout = k;
	return 0;
}

void rt_maps_top_div(const struct aot_map *map, struct output_entry *ents, size_t *n, uint64_t top,
		     uint64_t div, bool val_signed)
{
	size_t i;

	/* bpftrace's print() keeps the last top entries, except of a stats() or tseries() map. */
	if (top && *n > top && map->agg != AOT_AGG_STATS && map->agg != AOT_AGG_TSERIES) {
		for (i = 0; i < *n - top; i++)
			free((void *)ents[i].buckets);
		memmove(ents, ents + (*n - top), top * sizeof(*ents));
		*n = top;
	}
	/* hist divides its counts when printed; lhist, stats and non-integers never divide. */
	if (div <= 1 || maps_has_slot(map) || map->agg == AOT_AGG_STATS ||
	    (map->agg == AOT_AGG_NONE && map->value.kind != AOT_K_INT))
		return;
	for (i = 0; i < *n; i++) {
		if (val_signed)
			ents[i].val = (uint64_t)((int64_t)ents[i].val / (int64_t)div);
		else
			ents[i].val /= div;
	}
}

static bool maps_is_percpu(enum bpf_map_type t)
{
	return t == BPF_MAP_TYPE_PERCPU_HASH || t == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       t == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

/* Reads a whole map: keys and per-CPU values, bounded so that a map filling up still ends. */
struct maps_dump {
	int fd, ncpus;
	size_t key_size, stride, n;
	uint8_t *keys, *vals;
	bool hist_array; /* a keyless hist's per-CPU array: u32 key = bucket (meta.h) */
	/*
	 * A count()'s last-key cache (meta.h, AOT_LASTKEY_PREFIX), fd -1 if none: each CPU's
	 * value as merged into the entries; the first n_map entries are the map's own, the
	 * rest keys only a cache held.
	 */
	int lc_fd;
	size_t lc_stride, n_map;
	uint8_t *lc;
};

/* A keyless hist kept, since metadata version 4, as a per-CPU array indexed by bucket. */
static bool maps_hist_array(const struct aot_map *map, const struct bpf_map *bm)
{
	return maps_is_hist(map) && !map->nkeys && bpf_map__type(bm) == BPF_MAP_TYPE_PERCPU_ARRAY;
}

/* The count of entry i of a dump on every CPU together. */
static uint64_t maps_dump_count(const struct maps_dump *d, size_t i)
{
	const uint8_t *v = d->vals + i * d->stride * d->ncpus;
	uint64_t n = 0;

	for (int cpu = 0; cpu < d->ncpus; cpu++)
		n += maps_get64(v + cpu * d->stride);
	return n;
}

/*
 * A hist array's dump as the hash of older objects would give it: a u64 bucket key per entry,
 * and only the buckets holding something. A hash keeps the entries zero() left at 0 (their map
 * prints as one, with no bucket lines, where an empty one prints nothing): once zero() found
 * something in the array (rt->zeroed, until clear()), every bucket is an entry.
 */
static int maps_hist_array_keys(const struct rt *rt, const struct aot_map *map, struct maps_dump *d)
{
	bool all = rt->zeroed && rt->zeroed[map - rt->meta->maps];
	uint8_t *keys = calloc(d->n ? d->n : 1, 8);
	size_t i, k = 0;

	if (!keys)
		return -ENOMEM;
	for (i = 0; i < d->n; i++) {
		uint32_t bucket;

		if (!all && !maps_dump_count(d, i))
			continue;
		memcpy(&bucket, d->keys + i * d->key_size, sizeof(bucket));
		for (int b = 0; b < 8; b++)
			keys[k * 8 + b] = (uint8_t)((uint64_t)bucket >> (8 * b));
		memmove(d->vals + k * d->stride * d->ncpus, d->vals + i * d->stride * d->ncpus,
			d->stride * d->ncpus);
		k++;
	}
	free(d->keys);
	d->keys = keys;
	d->key_size = 8;
	d->n = k;
	return 0;
}

static void maps_dump_free(struct maps_dump *d)
{
	free(d->keys);
	free(d->vals);
	free(d->lc);
}

/*
 * The map's last-key cache, if it has one: its fd, else -1. One of the wrong type or size holds
 * counts we cannot read: -EINVAL (warned about if warn), as printing without them would be wrong.
 */
static int maps_lastkey_open(struct rt *rt, const struct aot_map *map, bool warn,
			     struct maps_dump *d)
{
	const struct bpf_map *bm;
	char name[128];

	if (map->agg != AOT_AGG_COUNT || strncmp(map->elf_name, "AT_", 3) ||
	    snprintf(name, sizeof(name), "%s%s", AOT_LASTKEY_PREFIX, map->elf_name + 3) >=
		    (int)sizeof(name))
		return -1;
	bm = bpf_object__find_map_by_name(rt->obj, name);
	if (!bm)
		return -1;
	if (bpf_map__type(bm) != BPF_MAP_TYPE_PERCPU_ARRAY ||
	    bpf_map__value_size(bm) < AOT_LASTKEY_KEY_OFF + d->key_size) {
		if (warn)
			rt_report(&rt->out, RT_WARN,
				  "map %s: its last-key cache %s has the wrong type or size",
				  map->name, name);
		return -EINVAL;
	}
	d->lc_stride = (bpf_map__value_size(bm) + 7) & ~(size_t)7;
	return bpf_map__fd(bm);
}

/* Reads every CPU's cache entry into buf: 0, or -errno. */
static int maps_lastkey_read(const struct maps_dump *d, uint8_t *buf)
{
	uint32_t zero = 0;

	return bpf_map_lookup_elem(d->lc_fd, &zero, buf) ? -errno : 0;
}

/* Whether a CPU's entry changed key between two reads (or was changing at one of them). */
static bool maps_lastkey_moved(const struct maps_dump *d, const uint8_t *a, const uint8_t *b)
{
	for (int cpu = 0; cpu < d->ncpus; cpu++) {
		uint64_t sa = maps_get64(a + cpu * d->lc_stride),
			 sb = maps_get64(b + cpu * d->lc_stride);

		if (sa != sb || (sa & 1))
			return true;
	}
	return false;
}

/*
 * Adds each CPU's pending count to that CPU's value at its key, an entry of its own if new and
 * the map has room for it (max keys): where it has none, moving the count into the map fails,
 * and the key is never in it.
 */
static void maps_lastkey_merge(struct maps_dump *d, size_t max)
{
	d->n_map = d->n;
	for (int cpu = 0; cpu < d->ncpus; cpu++) {
		const uint8_t *e = d->lc + cpu * d->lc_stride;
		uint64_t pending = maps_get64(e + AOT_LASTKEY_PENDING_OFF);
		uint8_t *v;
		size_t i;

		if (!pending)
			continue;
		for (i = 0; i < d->n; i++)
			if (!memcmp(d->keys + i * d->key_size, e + AOT_LASTKEY_KEY_OFF,
				    d->key_size))
				break;
		if (i == d->n && d->n >= max)
			continue;
		if (i == d->n) {
			memcpy(d->keys + i * d->key_size, e + AOT_LASTKEY_KEY_OFF, d->key_size);
			memset(d->vals + i * d->stride * d->ncpus, 0, d->stride * d->ncpus);
			d->n++;
		}
		v = d->vals + (i * d->ncpus + cpu) * d->stride;
		pending += maps_get64(v);
		for (int b = 0; b < 8; b++)
			v[b] = (uint8_t)(pending >> (8 * b));
	}
}

/* After clear() or zero() of the entries: the caches hold nothing pending either. */
static void maps_lastkey_reset(const struct maps_dump *d)
{
	uint32_t zero = 0;

	if (d->lc_fd < 0)
		return;
	for (int cpu = 0; cpu < d->ncpus; cpu++)
		memset(d->lc + cpu * d->lc_stride + AOT_LASTKEY_PENDING_OFF, 0, 8);
	bpf_map_update_elem(d->lc_fd, &zero, d->lc, BPF_ANY);
}

/*
 * The map in a few bpf() calls (BPF_MAP_LOOKUP_BATCH, 5.6+), as a scraper reading 5,000 keys
 * every few seconds wants: the kernel walks the buckets in the order get_next_key does, so
 * printing sorts ties the same. 0, or -errno if the kernel cannot (nothing kept: walk instead).
 */
static int maps_dump_batch(struct maps_dump *d, size_t cap)
{
	/* Where a batch ended: a hash map's u32 bucket, another map's key. */
	size_t tsize = d->key_size > 8 ? d->key_size : 8;
	uint8_t *tokens = calloc(2, tsize);
	void *in = NULL, *out = tokens;
	int err = 0;

	if (!tokens)
		return -ENOMEM;
	while (d->n < cap) {
		__u32 count = (__u32)(cap - d->n);

		err = bpf_map_lookup_batch(d->fd, in, out, d->keys + d->n * d->key_size,
					   d->vals + d->n * d->stride * d->ncpus, &count, NULL);
		err = err ? -errno : 0;
		d->n += count;
		if (err)
			break;
		in = out;
		out = out == tokens ? tokens + tsize : tokens;
	}
	free(tokens);
	if (err == -ENOENT) /* the end of the map */
		err = 0;
	if (err)
		d->n = 0;
	return err;
}

/* The map key by key, where the kernel has no batch lookup for it. */
static void maps_dump_walk(struct maps_dump *d, size_t cap)
{
	void *prev = NULL;

	while (d->n < cap && !bpf_map_get_next_key(d->fd, prev, d->keys + d->n * d->key_size)) {
		prev = d->keys + d->n * d->key_size;
		if (bpf_map_lookup_elem(d->fd, prev, d->vals + d->n * d->stride * d->ncpus))
			continue; /* deleted meanwhile; keep walking from it */
		d->n++;
	}
}

/* Reads the whole map; -ENOENT when it cannot be (warned about if warn). */
static int maps_dump(struct rt *rt, const struct aot_map *map, bool warn, struct maps_dump *d)
{
	const struct bpf_map *bm = bpf_object__find_map_by_name(rt->obj, map->elf_name);
	size_t cap;

	memset(d, 0, sizeof(*d));
	d->ncpus = 1;
	d->lc_fd = -1;
	if (!bm) {
		if (warn)
			rt_report(&rt->out, RT_WARN, "map %s: no BPF map '%s' in the object",
				  map->name, map->elf_name);
		return -ENOENT;
	}
	d->fd = bpf_map__fd(bm);
	d->key_size = bpf_map__key_size(bm);
	d->stride = bpf_map__value_size(bm);
	if (maps_is_percpu(bpf_map__type(bm))) {
		d->ncpus = libbpf_num_possible_cpus();
		if (d->ncpus <= 0)
			return d->ncpus ? d->ncpus : -EINVAL;
		d->stride = (d->stride + 7) & ~(size_t)7; /* the kernel pads each CPU's value */
	}
	d->hist_array = maps_hist_array(map, bm);
	/* Never read past what the kernel gives us, whatever the metadata claims. */
	if ((map->nkeys && d->key_size < map->key.size) || d->stride < maps_value_size(map) ||
	    (d->hist_array ? d->key_size != 4
			   : maps_has_slot(map) && d->key_size < maps_hist_prefix(map) + 8)) {
		if (warn)
			rt_report(&rt->out, RT_WARN,
				  "map %s: its metadata does not match the BPF map's sizes",
				  map->name);
		return -ENOENT;
	}
	/* Programs may still be adding keys: bound the walk so it always ends. */
	cap = bpf_map__max_entries(bm) + 1;
	d->lc_fd = maps_lastkey_open(rt, map, warn, d);
	if (d->lc_fd == -EINVAL)
		return -ENOENT;
	d->keys = calloc(cap + (size_t)d->ncpus, d->key_size);
	d->vals = calloc(cap + (size_t)d->ncpus, d->stride * d->ncpus);
	if (d->lc_fd >= 0)
		d->lc = calloc(2 * (size_t)d->ncpus, d->lc_stride);
	if (!d->keys || !d->vals || (d->lc_fd >= 0 && !d->lc)) {
		maps_dump_free(d);
		return -ENOMEM;
	}
	/*
	 * With a last-key cache: its entries read before and after the map's, again while a CPU
	 * moved its count into the map meanwhile (a few times: a torn read only misplaces a
	 * moment's counts, where waiting could take as long as events come).
	 */
	for (int tries = 0;; tries++) {
		uint8_t *before = d->lc ? d->lc + d->ncpus * d->lc_stride : NULL;

		if (before && maps_lastkey_read(d, before))
			before = NULL;
		d->n = 0;
		if (maps_dump_batch(d, cap))
			maps_dump_walk(d, cap);
		if (!before || maps_lastkey_read(d, d->lc)) {
			if (d->lc)
				memset(d->lc, 0, d->ncpus * d->lc_stride);
			break;
		}
		if (!maps_lastkey_moved(d, before, d->lc) || tries == 4)
			break;
	}
	if (d->lc)
		maps_lastkey_merge(d, bpf_map__max_entries(bm));
	else
		d->n_map = d->n;
	return 0;
}

int rt_maps_read(struct rt *rt, const struct aot_map *map, bool warn, struct rt_map_read *r)
{
	struct maps_dump d;
	int err;

	memset(r, 0, sizeof(*r));
	err = maps_dump(rt, map, warn, &d);
	if (err)
		return err;
	if (d.hist_array && (err = maps_hist_array_keys(rt, map, &d))) {
		maps_dump_free(&d);
		return err;
	}
	free(d.lc); /* merged into keys and vals */
	r->keys = d.keys;
	r->vals = d.vals;
	r->has_sum = maps_hist_has_sum(map, d.stride);
	err = rt_maps_fold(rt->meta, map, d.keys, d.key_size, d.vals, d.stride, d.ncpus, d.n,
			   &r->ents, &r->n, &r->val_signed);
	if (err)
		rt_maps_read_free(r);
	return err;
}

void rt_maps_read_free(struct rt_map_read *r)
{
	rt_maps_entries_free(r->ents, r->n);
	free(r->keys);
	free(r->vals);
	memset(r, 0, sizeof(*r));
}

static int maps_print_map(struct rt *rt, const struct aot_map *map, uint64_t top, uint64_t div,
			  bool all)
{
	struct rt_map_read r;
	struct output_map om;
	int err;

	err = rt_maps_read(rt, map, true, &r);
	if (err)
		return err == -ENOENT ? 0 : err;
	/*
	 * The maps printed all together (at exit, on SIGUSR1) leave out a count() without keys that
	 * never counted (or was cleared, not zeroed), as bpftrace 0.27 does; print() shows @: 0.
	 */
	if (all && map->agg == AOT_AGG_COUNT && !map->nkeys && r.n == 1 && !r.ents[0].val &&
	    !(rt->zeroed && rt->zeroed[map - rt->meta->maps])) {
		rt_maps_read_free(&r);
		return 0;
	}
	rt_maps_top_div(map, r.ents, &r.n, top, div, r.val_signed);
	om = (struct output_map){ .r = &rt->render,
				  .map = map,
				  .entries = r.ents,
				  .n = r.n,
				  .val_signed = r.val_signed,
				  .div = div ? div : 1 };
	/*
	 * print(@x) of a map without keys that holds nothing yet: its zero value, as bpftrace
	 * 0.27 prints it (@x: 0, @s: with an empty string); a hist has no lines to print then
	 */
	if (!all && !map->nkeys && !r.n && map->agg != AOT_AGG_HIST && map->agg != AOT_AGG_LHIST &&
	    map->agg != AOT_AGG_TSERIES) {
		void *zero = calloc(1, map->value.size ? map->value.size : 1);
		struct output_entry none = { .value = zero };

		if (!zero) {
			rt_maps_read_free(&r);
			return -ENOMEM;
		}
		om.entries = &none;
		om.n = 1;
		output_map(&rt->out, &om);
		free(zero);
		rt_maps_read_free(&r);
		return 0;
	}
	output_map(&rt->out, &om);
	rt_maps_read_free(&r);
	return 0;
}

int rt_maps_print_one(struct rt *rt, uint32_t i, uint64_t top, uint64_t div)
{
	if (i >= rt->meta->nmaps)
		return -EINVAL;
	return maps_print_map(rt, &rt->meta->maps[i], top, div, false);
}

int rt_maps_clear(struct rt *rt, uint32_t i, bool zero)
{
	const struct aot_map *map;
	struct maps_dump d;
	size_t k;
	int err;

	if (i >= rt->meta->nmaps)
		return -EINVAL;
	map = &rt->meta->maps[i];
	err = maps_dump(rt, map, true, &d);
	if (err)
		return err == -ENOENT ? 0 : err;
	/* A count() without keys is an array too: zero() of a value keeps it, as in a hash. */
	if (d.hist_array || (map->agg == AOT_AGG_COUNT && !map->nkeys)) {
		/* What a hash would keep: zero() keeps its entries, clear() drops them. */
		if (!rt->zeroed)
			rt->zeroed = calloc(rt->meta->nmaps, 1);
		for (k = 0; rt->zeroed && k < d.n; k++)
			if (zero && maps_dump_count(&d, k))
				rt->zeroed[i] = 1;
		if (rt->zeroed && !zero)
			rt->zeroed[i] = 0;
	}
	memset(d.vals, 0, d.stride * d.ncpus);
	/* zero() keeps the keys only a last-key cache held too; clear() has none to drop */
	for (k = 0; k < (zero ? d.n : d.n_map); k++) {
		const void *key = d.keys + k * d.key_size;

		/* Arrays cannot lose their entries: clearing one zeroes it. */
		if (zero || bpf_map_delete_elem(d.fd, key))
			bpf_map_update_elem(d.fd, key, d.vals, BPF_ANY);
	}
	maps_lastkey_reset(&d);
	maps_dump_free(&d);
	return 0;
}

static int maps_cmp_name(const void *a, const void *b)
{
	const struct aot_map *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

int rt_maps_print(struct rt *rt)
{
	const struct aot_map **order;
	uint32_t i;
	int err = 0;

	order = calloc(rt->meta->nmaps ? rt->meta->nmaps : 1, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < rt->meta->nmaps; i++)
		order[i] = &rt->meta->maps[i];
	qsort(order, rt->meta->nmaps, sizeof(*order), maps_cmp_name);
	for (i = 0; i < rt->meta->nmaps && !err; i++)
		err = maps_print_map(rt, order[i], 0, 0, true);
	free(order);
	return err;
}
