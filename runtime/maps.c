// SPDX-License-Identifier: GPL-2.0
/*
 * Map printing at exit: reads every map the metadata names, folds per-CPU values by the map's
 * aggregation (layouts in meta.h), sorts entries the way bpftrace 0.17 does, and hands each map
 * to the output. Maps print in name order; entries with integer values ascending by value, the
 * rest by key; ties keep the kernel's iteration order, as bpftrace's sort does for small maps.
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
	case AOT_AGG_MIN:
	case AOT_AGG_MAX:
	case AOT_AGG_AVG:
		return 16;
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
	const struct output_entry *base; /* for the tie-break on original position */
};

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
	return maps_cmp_u64(a->seq, b->seq); /* stable: ties keep the kernel's order */
}

int rt_maps_fold(const struct aot_meta *m, const struct aot_map *map, const void *keys,
		 size_t key_size, const void *vals, size_t stride, int ncpus, size_t n,
		 struct output_entry **out, size_t *nout, bool *val_signed)
{
	struct maps_sort s = {.meta = m, .map = map};
	struct output_entry *ents;
	size_t i, k = 0;
	int cpu;

	*out = NULL;
	*nout = 0;
	s.val_signed =
		map->agg == AOT_AGG_MIN || map->agg == AOT_AGG_MAX || map->agg == AOT_AGG_AVG ||
		((map->agg == AOT_AGG_SUM || map->agg == AOT_AGG_NONE) && map->value.is_signed);
	s.by_value = map->agg != AOT_AGG_NONE || map->value.kind == AOT_K_INT ||
		     map->value.kind == AOT_K_BOOL;
	*val_signed = s.val_signed;
	ents = calloc(n ? n : 1, sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const uint8_t *v = (const uint8_t *)vals + i * stride * ncpus;
		struct output_entry *e = &ents[k];
		uint64_t acc = 0, cnt = 0;
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
				acc += x;
				cnt += maps_get64(c + 8);
				break;
			default:
				break;
			}
		}
		if (map->agg == AOT_AGG_NONE)
			acc = rt_value_int(&map->value, v);
		if (map->agg == AOT_AGG_AVG)
			acc = cnt ? (uint64_t)((int64_t)acc / (int64_t)cnt) : 0;
		if ((map->agg == AOT_AGG_MIN || map->agg == AOT_AGG_MAX) && !set)
			continue; /* never set on any CPU: nothing to show */
		e->val = acc;
		k++;
		if (!map->nkeys)
			break; /* a scalar map has one value, whatever its key */
	}
	qsort_r(ents, k, sizeof(*ents), maps_cmp, &s);
	*out = ents;
	*nout = k;
	return 0;
}

static bool maps_is_percpu(enum bpf_map_type t)
{
	return t == BPF_MAP_TYPE_PERCPU_HASH || t == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       t == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static void maps_warn(struct rt *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void maps_warn(struct rt *rt, const char *fmt, ...)
{
	struct rt_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	rt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (b.s)
		rt->out.ops->warning(&rt->out, b.s);
	rt_buf_free(&b);
}

static int maps_print_one(struct rt *rt, const struct aot_map *map)
{
	const struct bpf_map *bm = bpf_object__find_map_by_name(rt->obj, map->elf_name);
	size_t key_size, stride, n = 0, cap, nents;
	uint8_t *keys = NULL, *vals = NULL;
	struct output_entry *ents = NULL;
	struct output_map om;
	int fd, ncpus = 1, err = 0;
	bool val_signed;
	void *prev;

	if (!bm) {
		maps_warn(rt, "map %s: no BPF map '%s' in the object", map->name, map->elf_name);
		return 0;
	}
	fd = bpf_map__fd(bm);
	key_size = bpf_map__key_size(bm);
	stride = bpf_map__value_size(bm);
	if (maps_is_percpu(bpf_map__type(bm))) {
		ncpus = libbpf_num_possible_cpus();
		if (ncpus <= 0)
			return ncpus ? ncpus : -EINVAL;
		stride = (stride + 7) & ~(size_t)7; /* the kernel pads each CPU's value to 8 */
	}
	/* Never read past what the kernel gives us, whatever the metadata claims. */
	if ((map->nkeys && key_size < map->key.size) || stride < maps_value_size(map)) {
		maps_warn(rt, "map %s: its metadata does not match the BPF map's sizes", map->name);
		return 0;
	}
	/* Programs may still be adding keys: bound the walk so it always ends. */
	cap = bpf_map__max_entries(bm) + 1;
	keys = calloc(cap, key_size);
	vals = calloc(cap, stride * ncpus);
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	prev = NULL;
	while (n < cap && !bpf_map_get_next_key(fd, prev, keys + n * key_size)) {
		prev = keys + n * key_size;
		if (bpf_map_lookup_elem(fd, prev, vals + n * stride * ncpus))
			continue; /* deleted meanwhile; keep walking from it */
		n++;
	}
	err = rt_maps_fold(rt->meta, map, keys, key_size, vals, stride, ncpus, n, &ents, &nents,
			   &val_signed);
	if (err)
		goto out;
	om = (struct output_map){.meta = rt->meta,
				 .map = map,
				 .entries = ents,
				 .n = nents,
				 .val_signed = val_signed};
	rt->out.ops->map(&rt->out, &om);
out:
	free(ents);
	free(keys);
	free(vals);
	return err;
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
		err = maps_print_one(rt, order[i]);
	free(order);
	return err;
}
