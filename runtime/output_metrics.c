// SPDX-License-Identifier: GPL-2.0
/*
 * Maps as Prometheus metrics, in the text exposition format (0.0.4) or in OpenMetrics 1.0: one
 * metric family per map, one series per key with the key's parts as labels, hist() and lhist()
 * as histograms with cumulative "le" buckets. The metrics server (metrics.c) formats each
 * scrape with it from the same folded entries and key rendering the printed maps use.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static const char *const metrics_type_names[] = {
	[OUTPUT_METRIC_COUNTER] = "counter",
	[OUTPUT_METRIC_GAUGE] = "gauge",
	[OUTPUT_METRIC_HISTOGRAM] = "histogram",
};

enum output_metric_type output_metrics_type(const struct aot_map *map)
{
	switch (map->agg) {
	case AOT_AGG_COUNT:
		return OUTPUT_METRIC_COUNTER;
	case AOT_AGG_SUM:
		/* A sum of signed values may go down, which a counter must never do. */
		return map->value.is_signed ? OUTPUT_METRIC_GAUGE : OUTPUT_METRIC_COUNTER;
	case AOT_AGG_MIN:
	case AOT_AGG_MAX:
	case AOT_AGG_AVG:
	case AOT_AGG_STATS:
		return OUTPUT_METRIC_GAUGE;
	case AOT_AGG_HIST:
	case AOT_AGG_LHIST:
		return OUTPUT_METRIC_HISTOGRAM;
	case AOT_AGG_TSERIES: /* its own series of values over time: no one sample */
		return OUTPUT_METRIC_NONE;
	default:
		return map->value.kind == AOT_K_INT || map->value.kind == AOT_K_BOOL
			       ? OUTPUT_METRIC_GAUGE
			       : OUTPUT_METRIC_NONE;
	}
}

static bool metrics_name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

bool output_metrics_prefix_ok(const char *prefix)
{
	for (const char *c = prefix; *c; c++)
		if (!metrics_name_char(*c, c == prefix))
			return false;
	return true;
}

void output_metrics_name(struct rt_buf *b, const char *prefix, const struct aot_map *map)
{
	const char *name = map->name[0] == '@' ? map->name + 1 : map->name;
	struct rt_buf raw = { 0 };
	size_t n;

	/* bpftrace's anonymous map @ has no name of its own. */
	rt_buf_printf(&raw, "%s%s", prefix, *name ? name : "map");
	if (!raw.s)
		return;
	n = raw.len;
	/* A counter's samples add _total: @bytes_total is family aotrace_bytes, not
	 * ..._total_total. */
	if (output_metrics_type(map) == OUTPUT_METRIC_COUNTER && n > 6 &&
	    !strcmp(raw.s + n - 6, "_total"))
		n -= 6;
	if (raw.s[0] >= '0' && raw.s[0] <= '9')
		rt_buf_add(b, "_", 1);
	for (size_t i = 0; i < n; i++) {
		char c = metrics_name_char(raw.s[i], false) ? raw.s[i] : '_';

		rt_buf_add(b, &c, 1);
	}
	rt_buf_free(&raw);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0 if none starts there. */
static size_t metrics_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* No overlong forms, no surrogates, nothing past U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * Appends text escaped as the formats want it: backslash and newline always, double quotes
 * where quoted (label values, OpenMetrics HELP). A byte that is not UTF-8 becomes the text
 * \xNN (its backslash escaped too): Prometheus refuses a whole scrape over one invalid byte.
 */
static void metrics_escape(struct rt_buf *b, const char *s, size_t n, bool quotes)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		len = metrics_utf8_len(p + i, n - i);
		if (!len) {
			rt_buf_printf(b, "\\\\x%02x", p[i++]);
			continue;
		}
		if (p[i] == '\\')
			rt_buf_add(b, "\\\\", 2);
		else if (p[i] == '\n')
			rt_buf_add(b, "\\n", 2);
		else if (p[i] == '"' && quotes)
			rt_buf_add(b, "\\\"", 2);
		else
			rt_buf_add(b, s + i, len);
		i += len;
	}
}

/*
 * A number as OpenMetrics spells "le" values: Go's shortest %g, plus ".0" when that has neither
 * a point nor an exponent. A bucket's label must be spelled the same in every scrape and both
 * formats, or it would be another series.
 */
static void metrics_canonical(struct rt_buf *b, double v)
{
	char s[48], *e;
	int p, exp;

	if (isinf(v)) {
		rt_buf_add(b, v > 0 ? "+Inf" : "-Inf", 4);
		return;
	}
	for (p = 1; p < 17; p++) {
		snprintf(s, sizeof(s), "%.*e", p - 1, v);
		if (strtod(s, NULL) == v)
			break;
	}
	snprintf(s, sizeof(s), "%.*e", p - 1, v);
	e = strchr(s, 'e');
	exp = e ? atoi(e + 1) : 0;
	if (exp >= -4 && exp < 6)
		snprintf(s, sizeof(s), "%.*f", p - 1 - exp > 0 ? p - 1 - exp : 0, v);
	rt_buf_add(b, s, strlen(s));
	if (!strpbrk(s, ".e"))
		rt_buf_add(b, ".0", 2);
}

/*
 * A stack's frames as one label value: as printed, one frame a line, without the leading
 * newline and the indentation, which only make sense on a terminal.
 */
static void metrics_tidy_stack(struct rt_buf *out, const char *s, size_t n)
{
	size_t i = 0, start;
	bool first = true;

	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		start = i;
		while (i < n && s[i] != '\n')
			i++;
		if (i > start) {
			if (!first)
				rt_buf_add(out, "\n", 1);
			rt_buf_add(out, s + start, i - start);
			first = false;
		}
		i++;
	}
}

/* ,keyN="value" (without the comma for the first label). */
static void metrics_label(struct rt_buf *b, uint32_t idx, const struct rt_render *r,
			  const struct aot_type *t, const void *data)
{
	struct rt_buf v = { 0 }, tidy = { 0 };
	const char *s;
	size_t n;

	rt_value_text(&v, r, t, data, false);
	s = v.s ? v.s : "";
	n = v.len;
	if (t->kind == AOT_K_KSTACK || t->kind == AOT_K_USTACK) {
		metrics_tidy_stack(&tidy, s, n);
		s = tidy.s ? tidy.s : "";
		n = tidy.len;
	}
	rt_buf_printf(b, "%skey%u=\"", idx ? "," : "", idx);
	metrics_escape(b, s, n, true);
	rt_buf_add(b, "\"", 1);
	rt_buf_free(&v);
	rt_buf_free(&tidy);
}

/* The labels of an entry's key, without braces: a tuple's elements are key0, key1, ... */
static void metrics_key_labels(struct rt_buf *b, const struct output_map *m,
			       const struct output_entry *e)
{
	const struct aot_map *map = m->map;
	const uint8_t *key = e->key;

	if (!map->nkeys || !key)
		return;
	if (map->key.kind != AOT_K_TUPLE) {
		metrics_label(b, 0, m->r, &map->key, key);
		return;
	}
	/* The metadata reader checked that the elements lie inside the key. */
	for (uint32_t i = 0; i < map->key.nelems; i++) {
		const struct aot_elem *el = &m->r->meta->elems[map->key.elems + i];

		metrics_label(b, i, m->r, &el->type, key + el->offset);
	}
}

/* name{labels,extra} (braces only when there is a label). */
static void metrics_series(struct rt_buf *b, const char *name, const char *suffix,
			   const struct rt_buf *labels, const char *extra)
{
	bool any = labels->len || extra;

	rt_buf_printf(b, "%s%s%s", name, suffix, any ? "{" : "");
	if (labels->len)
		rt_buf_add(b, labels->s, labels->len);
	if (extra)
		rt_buf_printf(b, "%s%s", labels->len ? "," : "", extra);
	rt_buf_add(b, any ? "} " : " ", any ? 2 : 1);
}

/* Buckets of a hist/lhist entry below the one above lhist's max (hist has none above). */
static uint32_t metrics_finite(const struct aot_map *map, const struct output_entry *e)
{
	return map->agg == AOT_AGG_HIST ? e->nbuckets : e->nbuckets - 1;
}

/*
 * The "le" of bucket i: the largest integer it holds. hist: bucket 0 holds the negative values,
 * 1 holds 0, k + 2 holds [2^k, 2^(k+1)); lhist: bucket 0 holds what is below min, i holds
 * [min + (i-1) step, min + i step).
 */
static double metrics_le(const struct aot_map *map, uint32_t i)
{
	if (map->agg == AOT_AGG_HIST)
		return i == 0 ? -1 : (double)(aot_hist_upper((uint32_t)map->hist_k, i) - 1);
	return (double)(map->lhist_min + (int64_t)i * map->lhist_step - 1);
}

/* Whether bucket i may hold a negative value (its lower bound is below 0, or it has none). */
static bool metrics_negative(const struct aot_map *map, uint32_t i)
{
	if (i == 0)
		return true;
	return map->agg == AOT_AGG_LHIST && map->lhist_min + (int64_t)(i - 1) * map->lhist_step < 0;
}

/*
 * The buckets a histogram series shows, [*lo, *hi): from the first that cannot hold a negative
 * value (or the first holding anything, if lower) to the last holding anything. The low end
 * stays put and the high end only grows while the counts do, so series come and never go; a
 * bucket left out at either end holds nothing, so the cumulative counts are exact.
 */
static void metrics_hist_span(const struct aot_map *map, const struct output_entry *e, uint32_t *lo,
			      uint32_t *hi)
{
	uint32_t finite = metrics_finite(map, e), i;

	for (*lo = 0; *lo < finite && metrics_negative(map, *lo); (*lo)++)
		;
	for (i = 0; i < *lo; i++)
		if (e->buckets[i])
			break;
	*lo = i;
	for (*hi = finite; *hi > *lo && !e->buckets[*hi - 1]; (*hi)--)
		;
	if (*hi == *lo && *lo < finite)
		*hi = *lo + 1;
}

/*
 * A histogram's _sum must only grow (OpenMetrics: no sum where a bucket may hold negative
 * values), so it, and _count with it, is shown only while no value that may be negative was
 * seen, and only where the object keeps sums at all.
 */
static bool metrics_hist_sum(const struct output_map *m, const struct output_entry *e)
{
	if (!m->has_sum)
		return false;
	for (uint32_t i = 0; i < e->nbuckets; i++)
		if (e->buckets[i] && metrics_negative(m->map, i))
			return false;
	return true;
}

/* How many series an entry makes (a histogram's buckets, _sum and _count each count). */
static uint64_t metrics_entry_series(const struct output_map *m, const struct output_entry *e)
{
	uint32_t lo, hi;

	switch (m->map->agg) {
	case AOT_AGG_STATS:
		return 3;
	case AOT_AGG_HIST:
	case AOT_AGG_LHIST:
		metrics_hist_span(m->map, e, &lo, &hi);
		return (hi - lo) + 1 + (metrics_hist_sum(m, e) ? 2 : 0);
	default:
		return 1;
	}
}

static void metrics_value(struct rt_buf *b, uint64_t v, bool is_signed)
{
	if (is_signed)
		rt_buf_printf(b, "%" PRId64 "\n", (int64_t)v);
	else
		rt_buf_printf(b, "%" PRIu64 "\n", v);
}

/*
 * The le="..." label of each bucket of a map, spelled once per scrape rather than once per key
 * (finding a number's shortest spelling takes up to 17 snprintf calls). NULL: no memory.
 */
static char (*metrics_les(const struct aot_map *map, uint32_t nb))[32]
{
	char(*les)[32] = calloc(nb ? nb : 1, sizeof(*les));
	struct rt_buf b = { 0 };

	for (uint32_t i = 0; les && i < nb; i++) {
		rt_buf_reset(&b);
		rt_buf_add(&b, "le=\"", 4);
		metrics_canonical(&b, metrics_le(map, i));
		rt_buf_add(&b, "\"", 1);
		snprintf(les[i], sizeof(les[i]), "%s", b.s ? b.s : "");
	}
	rt_buf_free(&b);
	return les;
}

static void metrics_histogram(struct rt_buf *b, const char *name, const struct output_map *m,
			      const struct output_entry *e, const struct rt_buf *labels,
			      char (*les)[32])
{
	uint64_t cum = 0;
	uint32_t lo, hi, i;

	metrics_hist_span(m->map, e, &lo, &hi);
	for (i = lo; i < hi; i++) {
		cum += e->buckets[i];
		metrics_series(b, name, "_bucket", labels, les[i]);
		metrics_value(b, cum, false);
	}
	/* val is the count of every bucket, lhist's above max included. */
	metrics_series(b, name, "_bucket", labels, "le=\"+Inf\"");
	metrics_value(b, e->val, false);
	if (metrics_hist_sum(m, e)) {
		metrics_series(b, name, "_sum", labels, NULL);
		metrics_value(b, (uint64_t)e->total, true);
		metrics_series(b, name, "_count", labels, NULL);
		metrics_value(b, e->val, false);
	}
}

static void metrics_entry(struct rt_buf *b, const struct output_metrics_family *f,
			  const struct output_map *m, const struct output_entry *e, char (*les)[32])
{
	static const char *const stats[] = { "stat=\"count\"", "stat=\"average\"",
					     "stat=\"total\"" };
	struct rt_buf labels = { 0 };

	metrics_key_labels(&labels, m, e);
	switch (f->type) {
	case OUTPUT_METRIC_COUNTER:
		metrics_series(b, f->name, "_total", &labels, NULL);
		metrics_value(b, e->val, m->val_signed);
		break;
	case OUTPUT_METRIC_HISTOGRAM:
		metrics_histogram(b, f->name, m, e, &labels, les);
		break;
	default:
		if (m->map->agg != AOT_AGG_STATS) {
			metrics_series(b, f->name, "", &labels, NULL);
			metrics_value(b, e->val, m->val_signed);
			break;
		}
		/* stats(): count, average and total, as bpftrace prints them. */
		metrics_series(b, f->name, "", &labels, stats[0]);
		metrics_value(b, (uint64_t)e->count, true);
		metrics_series(b, f->name, "", &labels, stats[1]);
		metrics_value(b, e->val, true);
		metrics_series(b, f->name, "", &labels, stats[2]);
		metrics_value(b, (uint64_t)e->total, true);
		break;
	}
	rt_buf_free(&labels);
}

size_t output_metrics_map(struct rt_buf *b, const struct output_metrics *o,
			  const struct output_metrics_family *f, const struct output_map *m)
{
	const char *type = metrics_type_names[f->type];
	char(*les)[32] = NULL;
	uint64_t series = 0, n;
	size_t first = m->n;

	/*
	 * The text format names a counter by its samples (name_total), OpenMetrics by its family;
	 * either way Prometheus stores the samples as name_total.
	 */
	if (o->openmetrics) {
		rt_buf_printf(b, "# TYPE %s %s\n# HELP %s ", f->name, type, f->name);
		metrics_escape(b, f->help, strlen(f->help), true);
	} else {
		const char *total = f->type == OUTPUT_METRIC_COUNTER ? "_total" : "";

		rt_buf_printf(b, "# HELP %s%s ", f->name, total);
		metrics_escape(b, f->help, strlen(f->help), false);
		rt_buf_printf(b, "\n# TYPE %s%s %s", f->name, total, type);
	}
	rt_buf_add(b, "\n", 1);
	/* Entries are sorted by value, biggest last: past the limit, the biggest are kept. */
	while (first > 0) {
		n = metrics_entry_series(m, &m->entries[first - 1]);
		if (o->max_series && series + n > o->max_series)
			break;
		series += n;
		first--;
	}
	/* Every entry of a hist map has the same buckets. */
	if (f->type == OUTPUT_METRIC_HISTOGRAM && first < m->n) {
		les = metrics_les(m->map, m->entries[first].nbuckets);
		if (!les) {
			b->oom = true;
			return first;
		}
	}
	for (size_t i = first; i < m->n; i++)
		metrics_entry(b, f, m, &m->entries[i], les);
	free(les);
	return first;
}

void output_metrics_end(struct rt_buf *b, const struct output_metrics *o)
{
	if (o->openmetrics)
		rt_buf_add(b, "# EOF\n", 6);
}
