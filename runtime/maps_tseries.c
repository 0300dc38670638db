// SPDX-License-Identifier: GPL-2.0
/*
 * tseries() maps made ready to print, as bpftrace 0.27.1 does it (bpfmap.cpp, util/tseries.cpp,
 * types_format.cpp): each slot's CPUs folded into the value of its latest interval, the slots
 * grouped by key, and every key's rows laid out over the intervals that end with the latest one
 * any key has. Layouts in meta.h (AOT_AGG_TSERIES); text and JSON render the rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* One slot of a key: its interval and its value folded over the CPUs. */
struct tseries_point {
	const uint8_t *key; /* the BPF key: the user key, then the u64 slot */
	uint64_t seq;	    /* the kernel's order, to keep the first of equal keys first */
	uint64_t epoch, val;
};

static uint64_t tseries_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* a < b, as int64 or as uint64: values are the type of tseries()'s argument. */
static bool tseries_less(uint64_t a, uint64_t b, bool is_signed)
{
	return is_signed ? (int64_t)a < (int64_t)b : a < b;
}

/*
 * A slot's value: of the CPUs that wrote its latest interval, the last value written (by its
 * time), or their sum, average, min or max. Interval 0 is a slot never written (or zeroed).
 */
static void tseries_reduce(const struct aot_map *map, const uint8_t *v, size_t stride, int ncpus,
			   struct tseries_point *pt)
{
	bool sig = map->value.is_signed;
	uint64_t latest = 0, val = 0, meta = 0;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		uint64_t e = tseries_get64(v + cpu * stride + 16);

		if (e > latest)
			latest = e;
	}
	for (int cpu = 0, first = 1; latest && cpu < ncpus; cpu++) {
		const uint8_t *c = v + cpu * stride;
		uint64_t x = tseries_get64(c), m = tseries_get64(c + 8);

		if (tseries_get64(c + 16) != latest)
			continue;
		if (first) {
			val = x;
			meta = m;
			first = 0;
			continue;
		}
		switch (map->tseries_fn) {
		case AOT_TSERIES_LAST:
			if (m > meta) {
				val = x;
				meta = m;
			}
			break;
		case AOT_TSERIES_AVG:
			val += x;
			meta += m;
			break;
		case AOT_TSERIES_SUM:
			val += x;
			break;
		case AOT_TSERIES_MIN:
			if (tseries_less(x, val, sig))
				val = x;
			break;
		case AOT_TSERIES_MAX:
			if (tseries_less(val, x, sig))
				val = x;
			break;
		}
	}
	if (latest && map->tseries_fn == AOT_TSERIES_AVG)
		val = !meta ? 0 : sig ? (uint64_t)((int64_t)val / (int64_t)meta) : val / meta;
	pt->epoch = latest;
	pt->val = latest ? val : 0;
}

/* By key (bpftrace keeps them in a std::map of their bytes), then in the kernel's order. */
static int tseries_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct tseries_point *a = pa, *b = pb;
	size_t n = *(const size_t *)ctx;
	int c = n ? memcmp(a->key, b->key, n) : 0;

	if (c)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The value of epoch among a key's points, which are sorted by epoch; false if none. */
static bool tseries_find(const struct tseries_point *pts, size_t n, uint64_t epoch, uint64_t *val)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pts[mid].epoch < epoch)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || pts[lo].epoch != epoch)
		return false;
	*val = pts[lo].val;
	return true;
}

static int tseries_cmp_epoch(const void *pa, const void *pb)
{
	const struct tseries_point *a = pa, *b = pb;

	if (a->epoch != b->epoch)
		return a->epoch < b->epoch ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * A key's points sorted by interval, only the first of each (bpftrace's emplace keeps the
 * first: two slots share an interval only where both are 0). Returns how many remain.
 */
static size_t tseries_dedup(struct tseries_point *pts, size_t n)
{
	size_t k = 0;

	qsort(pts, n, sizeof(*pts), tseries_cmp_epoch);
	for (size_t i = 0; i < n; i++)
		if (!k || pts[k - 1].epoch != pts[i].epoch)
			pts[k++] = pts[i];
	return k;
}

/*
 * One key's rows: from its first interval in [first, last] (or from last if it has none
 * there) to last, as in bpftrace's build_time_series. The values and the set flags share one
 * allocation, which buckets owns.
 */
static int tseries_rows(struct output_entry *e, const struct tseries_point *pts, size_t n,
			uint64_t first, uint64_t last)
{
	uint64_t from = last, nrows, *vals;
	uint8_t *set;

	if (first > last) { /* no interval yet: only zeroed slots */
		e->nbuckets = 0;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (pts[i].epoch >= first && pts[i].epoch < from)
			from = pts[i].epoch;
	nrows = last - from + 1;
	vals = calloc(nrows, sizeof(*vals) + 1);
	if (!vals)
		return -ENOMEM;
	set = (uint8_t *)(vals + nrows);
	for (uint64_t r = 0; r < nrows; r++)
		set[r] = tseries_find(pts, n, from + r, &vals[r]);
	e->buckets = vals;
	e->tseries_set = set;
	e->nbuckets = (uint32_t)nrows;
	e->tseries_first = from;
	return 0;
}

int rt_tseries_fold(const struct aot_map *map, const void *keys, size_t key_size, const void *vals,
		    size_t stride, int ncpus, size_t n, struct output_entry **out, size_t *nout)
{
	size_t prefix = map->nkeys ? ((size_t)map->key.size + 7) & ~(size_t)7 : 0;
	struct tseries_point *pts = calloc(n ? n : 1, sizeof(*pts));
	struct output_entry *ents = calloc(n ? n : 1, sizeof(*ents));
	size_t i, j, k = 0;
	uint64_t last = 0, first;
	int err = 0;

	*out = NULL;
	*nout = 0;
	if (!pts || !ents) {
		free(pts);
		free(ents);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		pts[i].key = (const uint8_t *)keys + i * key_size;
		pts[i].seq = i;
		tseries_reduce(map, (const uint8_t *)vals + i * stride * ncpus, stride, ncpus,
			       &pts[i]);
		if (pts[i].epoch > last)
			last = pts[i].epoch;
	}
	qsort_r(pts, n, sizeof(*pts), tseries_cmp, &prefix);
	/* The latest interval of all keys ends every key's rows; wraps as bpftrace's does. */
	first = last - (uint64_t)map->tseries_count + 1;
	for (i = 0; i < n && !err; i = j) {
		/* a scalar map's slots (no prefix) are all its one key's */
		for (j = i + 1; j < n && !memcmp(pts[i].key, pts[j].key, prefix); j++)
			;
		ents[k] = (struct output_entry){ .key = map->nkeys ? pts[i].key : NULL, .seq = k };
		err = tseries_rows(&ents[k], pts + i, tseries_dedup(pts + i, j - i), first, last);
		k++;
	}
	free(pts);
	if (err) {
		rt_maps_entries_free(ents, k);
		return err;
	}
	*out = ents;
	*nout = k;
	return 0;
}
