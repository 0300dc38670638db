// SPDX-License-Identifier: GPL-2.0
/*
 * Text output, byte for byte what bpftrace prints: the "Attached" line (0.27, on stderr), printf
 * and action text as is, and maps as "@name[key]: value" lines, hist/lhist as bucket lines with
 * 52-wide bars, stats as "{ .count = C, .average = A, .total = T }", tseries as a graph over
 * time, as bpftrace 0.27 prints them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

#define TEXT_BAR_WIDTH 52

static void text_attached(struct output *o, unsigned int nprobes)
{
	/* bpftrace 0.27 says it on stderr; 0.17 said "Attaching N probes..." on stdout. */
	(void)o;
	fprintf(stderr, "Attached %u probe%s\n", nprobes, nprobes == 1 ? "" : "s");
}

static void text_printf(struct output *o, const char *text, size_t len)
{
	output_put(o, text, len);
}

static void text_message(struct output *o, enum output_msg kind, const char *text, size_t len)
{
	output_put(o, text, len);
	/* Only join() ends its text with a newline; time, cat and system print theirs as is. */
	if (kind == OUTPUT_MSG_JOIN)
		output_put(o, "\n", 1);
}

/*
 * As bpftrace: "LOC: WARNING: Failed to HELPER: strerror (RET)" (or ": RET" for a return that
 * is no error code), the line and the ~ under it.
 */
static void text_helper_error(struct output *o, const struct output_helper_error *e)
{
	struct rt_buf b = { 0 };

	if (e->ret < 0)
		rt_buf_printf(&b, "%s: WARNING: Failed to %s: %s (%" PRId64 ")\n%s\n", e->loc,
			      e->helper, strerror(e->ret > -4096 ? (int)-e->ret : 0), e->ret,
			      e->excerpt);
	else /* a failure that is no error code: a missing map key reads as 0 */
		rt_buf_printf(&b, "%s: WARNING: Failed to %s: %" PRId64 "\n%s\n", e->loc, e->helper,
			      e->ret, e->excerpt);
	output_put(o, b.s, b.len);
	rt_buf_free(&b);
}

/*
 * As bpftrace 0.27: "script.bt:3:5-30: ERROR: text" on the error stream, one newline at the end
 * of the text being the line's own.
 */
static void text_diag(struct output *o, const struct output_diag *d)
{
	size_t len = d->len && d->text[d->len - 1] == '\n' ? d->len - 1 : d->len;
	struct rt_buf b = { 0 };

	rt_buf_printf(&b, "%s: %s: ", d->loc, d->error ? "ERROR" : "WARNING");
	rt_buf_add(&b, d->text, len);
	rt_buf_add(&b, "\n", 1);
	if (d->expanded)
		rt_buf_add(&b, d->expanded, strlen(d->expanded));
	/* after the output of the events before it, as bpftrace 0.27 (stdout to a pipe) */
	if (o->f)
		fflush(o->f);
	if (!b.oom)
		fwrite(b.s, 1, b.len, o->err ? o->err : stderr);
	rt_buf_free(&b);
}

static void text_value(struct output *o, const struct rt_render *r, const struct aot_type *t,
		       const void *data)
{
	struct rt_buf b = { 0 };

	rt_value_text(&b, r, t, data, false);
	rt_buf_add(&b, "\n", 1);
	output_write(o, &b);
}

/*
 * A hist bucket as bpftrace 0.27 heads it: "[v]" for a bucket of one value, else from the
 * bound below it to its own, "[2, 4)", "[3584K, 4M)" (meta.h's aot_hist_label).
 */
static void text_hist_range(struct rt_buf *b, uint32_t k, uint32_t i)
{
	char lo[32], hi[32];

	aot_hist_label(lo, sizeof(lo), k, i - 1);
	if (i <= 2u << k) {
		rt_buf_printf(b, "[%s]", lo);
		return;
	}
	aot_hist_label(hi, sizeof(hi), k, i);
	rt_buf_printf(b, "[%s, %s)", lo, hi);
}

/* lhist bounds: multiples of 1M or 1K get a suffix. */
static void text_lhist_label(struct rt_buf *b, int64_t n)
{
	if (n && n % 1048576 == 0)
		rt_buf_printf(b, "%" PRId64 "M", n / 1048576);
	else if (n && n % 1024 == 0)
		rt_buf_printf(b, "%" PRId64 "K", n / 1024);
	else
		rt_buf_printf(b, "%" PRId64, n);
}

/* One bucket line: label in 16 columns, count in 8, and the bar scaled to the largest. */
static void text_bucket(struct rt_buf *b, struct rt_buf *label, uint64_t v, uint64_t shown,
			uint64_t max)
{
	int width = (int)((float)v / (float)max * TEXT_BAR_WIDTH);
	char bar[TEXT_BAR_WIDTH + 1];

	if (width < 0 || width > TEXT_BAR_WIDTH)
		width = width < 0 ? 0 : TEXT_BAR_WIDTH;
	memset(bar, '@', width);
	bar[width] = '\0';
	rt_buf_printf(b, "%-16s%8" PRIu64 " |%-52s|\n", label->s ? label->s : "", shown, bar);
}

static void text_hist(struct rt_buf *b, const struct output_map *m, const struct output_entry *e)
{
	const struct aot_map *map = m->map;
	bool lin = map->agg == AOT_AGG_LHIST;
	int64_t lbuckets = lin ? (map->lhist_max - map->lhist_min) / map->lhist_step : 0;
	struct rt_buf label = { 0 };
	uint64_t max = 0;
	int64_t first, last, i;

	output_hist_span(e, &first, &last);
	for (i = first; first >= 0 && i <= last; i++)
		if (e->buckets[i] > max)
			max = e->buckets[i];
	for (i = first; first >= 0 && i <= last; i++) {
		rt_buf_reset(&label);
		if (lin && i == 0) {
			rt_buf_add(&label, "(..., ", 6);
			text_lhist_label(&label, map->lhist_min);
			rt_buf_add(&label, ")", 1);
		} else if (lin && i == lbuckets + 1) {
			rt_buf_add(&label, "[", 1);
			text_lhist_label(&label, map->lhist_max);
			rt_buf_add(&label, ", ...)", 6);
		} else if (lin && map->lhist_step == 1) {
			/* bpftrace 0.27 names a bucket of one value by that value. */
			rt_buf_add(&label, "[", 1);
			text_lhist_label(&label, i - 1 + map->lhist_min);
			rt_buf_add(&label, "]", 1);
		} else if (lin) {
			rt_buf_add(&label, "[", 1);
			text_lhist_label(&label, (i - 1) * map->lhist_step + map->lhist_min);
			rt_buf_add(&label, ", ", 2);
			text_lhist_label(&label, i * map->lhist_step + map->lhist_min);
			rt_buf_add(&label, ")", 1);
		} else if (i == 0) {
			rt_buf_add(&label, "(..., 0)", 8);
		} else {
			text_hist_range(&label, (uint32_t)map->hist_k, (uint32_t)i);
		}
		/* print()'s divisor applies to hist counts but not to their bars. */
		text_bucket(b, &label, e->buckets[i], lin ? e->buckets[i] : e->buckets[i] / m->div,
			    max);
	}
	rt_buf_free(&label);
}

/* bpftrace 0.27's time series graph: its width, and the columns of the min above its left */
#define TEXT_TSERIES_WIDTH 53
#define TEXT_TSERIES_PAD 21

/*
 * a - b as bpftrace's distance() has it, for a of either signedness and b an int64: its cases
 * all come to the difference in 64-bit two's complement.
 */
static int64_t text_tseries_dist(uint64_t a, int64_t b)
{
	return (int64_t)(a - (uint64_t)b);
}

static bool text_tseries_less(uint64_t a, uint64_t b, bool sig)
{
	return sig ? (int64_t)a < (int64_t)b : a < b;
}

static void text_tseries_num(char *s, size_t n, uint64_t v, bool sig, bool have)
{
	if (!have)
		snprintf(s, n, "null");
	else if (sig)
		snprintf(s, n, "%" PRId64, (int64_t)v);
	else
		snprintf(s, n, "%" PRIu64, v);
}

/*
 * As bpftrace 0.27.1 draws it (output/text.cpp): a row per interval, its time, a '*' placed
 * between the smallest and the largest value (widened by one each way when they are equal), a
 * '.' on the 0 where the values cross it, and the value ('-' for an interval without one).
 * The time has the fraction of a second the interval needs; a single row counts as ns.
 */
static void text_tseries(struct rt_buf *b, const struct output_map *m, const struct output_entry *e)
{
	bool sig = m->map->value.is_signed, have = false;
	uint64_t lo = 0, hi = 0,
		 interval = e->nbuckets > 1 ? (uint64_t)m->map->tseries_interval : 0;
	int digits = interval >= 1000000000ull ? 0
		     : interval >= 1000000     ? 3
		     : interval >= 1000	       ? 6
					       : 9;
	const char *unit = !digits ? "" : digits == 3 ? ".ms" : digits == 6 ? ".\xce\xbcs" : ".ns";
	int tsize = 8 + (digits ? 1 + digits : 0), zero = 0;
	char lo_s[24], hi_s[24], head[24], line[TEXT_TSERIES_WIDTH];
	uint32_t i;

	if (!e->nbuckets) {
		rt_buf_add(b, "<no data>", 9);
		return;
	}
	for (i = 0; i < e->nbuckets; i++) {
		uint64_t v = e->buckets[i];

		if (!e->tseries_set[i])
			continue;
		if (!have || text_tseries_less(v, lo, sig))
			lo = v;
		if (!have || text_tseries_less(hi, v, sig))
			hi = v;
		have = true;
	}
	if (have && lo == hi) {
		if (sig ? (int64_t)lo > INT64_MIN : lo > 0)
			lo--;
		if (sig ? (int64_t)hi < INT64_MAX : hi < UINT64_MAX)
			hi++;
	}
	text_tseries_num(lo_s, sizeof(lo_s), lo, sig, have);
	text_tseries_num(hi_s, sizeof(hi_s), hi, sig, have);
	snprintf(head, sizeof(head), "hh:mm:ss%s", unit);
	rt_buf_printf(b, "%*s%-*s%*s\n", tsize + 1, "", TEXT_TSERIES_PAD, lo_s,
		      TEXT_TSERIES_WIDTH - TEXT_TSERIES_PAD, hi_s);
	memset(line, '_', sizeof(line));
	rt_buf_printf(b, "%-*s|%.*s|\n", tsize + 1, head, TEXT_TSERIES_WIDTH - 2, line);
	/* the float arithmetic of bpftrace's, for the same rounding */
	if (have && text_tseries_dist(lo, 0) < 0 && text_tseries_dist(0, (int64_t)hi) < 0)
		zero = (int)((float)TEXT_TSERIES_WIDTH * (float)text_tseries_dist(lo, 0) /
			     (float)text_tseries_dist(lo, (int64_t)hi));
	for (i = 0; i < e->nbuckets; i++) {
		int at = TEXT_TSERIES_WIDTH / 2;

		output_time(b, (e->tseries_first + i) * (uint64_t)m->map->tseries_interval, false,
			    "%H:%M:%S", digits);
		memset(line, ' ', sizeof(line));
		line[0] = line[TEXT_TSERIES_WIDTH - 1] = '|';
		if (zero > 0 && zero < TEXT_TSERIES_WIDTH)
			line[zero] = '.';
		if (!e->tseries_set[i]) {
			rt_buf_printf(b, " %.*s -\n", TEXT_TSERIES_WIDTH, line);
			continue;
		}
		if (lo != hi)
			at = (int)((float)(TEXT_TSERIES_WIDTH - 1) *
				   (float)text_tseries_dist(lo, (int64_t)e->buckets[i]) /
				   (float)text_tseries_dist(lo, (int64_t)hi));
		at = at < 0 ? 0 : at > TEXT_TSERIES_WIDTH - 1 ? TEXT_TSERIES_WIDTH - 1 : at;
		line[at] = '*';
		text_tseries_num(head, sizeof(head), e->buckets[i], sig, true);
		rt_buf_printf(b, " %.*s %s\n", TEXT_TSERIES_WIDTH, line, head);
	}
	memset(line, '_', sizeof(line));
	line[0] = line[TEXT_TSERIES_WIDTH - 1] = 'v';
	rt_buf_printf(b, "%*s %.*s\n", tsize, "", TEXT_TSERIES_WIDTH, line);
	rt_buf_printf(b, "%*s %-*s%*s\n", tsize, "", TEXT_TSERIES_PAD, lo_s,
		      TEXT_TSERIES_WIDTH - TEXT_TSERIES_PAD, hi_s);
}

void output_text_map(struct rt_buf *b, const struct output_map *m)
{
	const struct aot_map *map = m->map;
	uint32_t vk = map->value.kind;
	/* Values that end in a newline of their own, or none at all, are not separated. */
	bool nosep = map->agg == AOT_AGG_NONE &&
		     (vk == AOT_K_KSTACK || vk == AOT_K_USTACK || vk == AOT_K_KSYM ||
		      vk == AOT_K_USYM || vk == AOT_K_INET);
	const char *name;
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct output_entry *e = &m->entries[i];

		if (i && !nosep)
			rt_buf_add(b, "\n", 1);
		rt_buf_add(b, map->name, strlen(map->name));
		if (map->nkeys && e->key) {
			rt_buf_add(b, "[", 1);
			rt_key_text(b, m->r, &map->key, e->key, ", ");
			rt_buf_add(b, "]", 1);
		}
		/* bpftrace 0.27 heads a hist with "@h:", 0.17 had a space after the colon. */
		if (map->agg == AOT_AGG_HIST || map->agg == AOT_AGG_LHIST ||
		    map->agg == AOT_AGG_TSERIES)
			rt_buf_add(b, ":", 1);
		else
			rt_buf_add(b, ": ", 2);
		switch (map->agg) {
		case AOT_AGG_NONE:
			/* Integers from val, which print()'s divisor divided (not addresses). */
			if (map->value.kind != AOT_K_INT || map->value.nelems == AOT_INT_ADDRESS)
				rt_value_text(b, m->r, &map->value, e->value, false);
			else if ((name = aot_meta_enum_name(m->r->meta, &map->value,
							    (int64_t)e->val)))
				rt_buf_add(b, name, strlen(name)); /* @: ONE, as 0.27 */
			else if (m->val_signed)
				rt_buf_printf(b, "%" PRId64, (int64_t)e->val);
			else
				rt_buf_printf(b, "%" PRIu64, e->val);
			break;
		case AOT_AGG_HIST:
		case AOT_AGG_LHIST:
			rt_buf_add(b, "\n", 1);
			text_hist(b, m, e);
			break;
		case AOT_AGG_TSERIES:
			rt_buf_add(b, "\n", 1);
			text_tseries(b, m, e);
			break;
		case AOT_AGG_STATS:
			rt_buf_printf(b,
				      "{ .count = %" PRId64 ", .average = %" PRId64
				      ", .total = %" PRId64 " }",
				      e->count, (int64_t)e->val, e->total);
			break;
		default:
			if (m->val_signed)
				rt_buf_printf(b, "%" PRId64, (int64_t)e->val);
			else
				rt_buf_printf(b, "%" PRIu64, e->val);
			break;
		}
	}
	/*
	 * bpftrace 0.17 ended avg() and stats() maps with one more blank line, and an empty map
	 * with a blank line; 0.27 does neither.
	 */
	if (m->n)
		rt_buf_add(b, "\n", 1);
}

static void text_lost(struct output *o, uint64_t n)
{
	char line[48];
	int len = snprintf(line, sizeof(line), "Lost %" PRIu64 " events\n", n);

	output_put_own(o, line, (size_t)len);
}

#define TEXT_GREEN "\033[32m"
#define TEXT_RED "\033[31m"
#define TEXT_PLAIN "\033[0m"

static const char *text_tests(size_t n)
{
	return n == 1 ? "test" : "tests";
}

/*
 * As bpftrace 0.27, colours always: a header before the first, RUN and OK or FAILED per test
 * (a failed test's non-empty lines between them), a summary after the last. The time in
 * parentheses is the scale of the unit bpftrace chose for it, which is what bpftrace prints.
 */
static void text_test_result(struct output *o, const struct output_test *t)
{
	uint64_t d = t->duration_ns, scale = 1;
	const char *unit = "ns";
	struct rt_buf b = { 0 };
	size_t failed = 0;

	if (d >= 1000000000ull)
		scale = 1000000000ull, unit = "s";
	else if (d >= 1000000ull)
		scale = 1000000ull, unit = "ms";
	else if (d >= 1000ull)
		scale = 1000ull, unit = "\xce\xbcs";
	if (t->index == 0)
		rt_buf_printf(&b, TEXT_GREEN "[==========]" TEXT_PLAIN " Running %zu tests.\n",
			      t->n);
	rt_buf_printf(&b, TEXT_GREEN "[ RUN      ]" TEXT_PLAIN " %s\n", t->names[t->index]);
	if (t->passed[t->index]) {
		rt_buf_printf(&b, TEXT_GREEN "[       OK ]" TEXT_PLAIN " %s", t->names[t->index]);
	} else {
		for (const char *l = t->captured, *end = l + t->captured_len; l < end;) {
			const char *nl = memchr(l, '\n', (size_t)(end - l));
			size_t len = nl ? (size_t)(nl - l) : (size_t)(end - l);

			if (len) {
				rt_buf_add(&b, l, len);
				rt_buf_add(&b, "\n", 1);
			}
			l += len + 1;
		}
		rt_buf_printf(&b, TEXT_RED "[  FAILED  ]" TEXT_PLAIN " %s", t->names[t->index]);
	}
	rt_buf_printf(&b, " (%" PRIu64 " %s)\n", scale, unit);
	if (t->index + 1 == t->n) {
		for (size_t i = 0; i < t->n; i++)
			failed += !t->passed[i];
		rt_buf_printf(&b, TEXT_GREEN "[==========]" TEXT_PLAIN " %zu %s ran.\n", t->n,
			      text_tests(t->n));
		rt_buf_printf(&b, TEXT_GREEN "[  PASSED  ]" TEXT_PLAIN " %zu %s.\n", t->n - failed,
			      text_tests(t->n - failed));
		if (failed) {
			rt_buf_printf(&b,
				      TEXT_RED "[  FAILED  ]" TEXT_PLAIN " %zu %s, listed below:\n",
				      failed, text_tests(failed));
			for (size_t i = 0; i < t->n; i++)
				if (!t->passed[i])
					rt_buf_printf(&b,
						      TEXT_RED "[  FAILED  ]" TEXT_PLAIN " %s\n",
						      t->names[i]);
		}
	}
	output_write(o, &b);
}

/* A table as bpftrace 0.27's: the header only where the first bench is reported. */
static void text_bench_result(struct output *o, const struct output_bench *r)
{
	size_t width = 40;
	struct rt_buf b = { 0 };

	for (size_t i = 0; i < r->n; i++)
		if (strlen(r->names[i]) > width)
			width = strlen(r->names[i]);
	if (r->index == 0) {
		rt_buf_printf(&b, "%-*s%-15s%s\n", (int)width + 1, "Benchmark", "Time(ns)",
			      "Iterations");
		for (size_t i = 0; i < width + 1 + 15 + strlen("Iterations"); i++)
			rt_buf_add(&b, "-", 1);
		rt_buf_add(&b, "\n", 1);
	}
	rt_buf_printf(&b, "%-*s%-15" PRIu64 "%" PRIu64 "\n", (int)width + 1, r->names[r->index],
		      r->average_ns, r->iters);
	output_write(o, &b);
}

const struct output_ops output_text_ops = {
	.attached = text_attached,
	.printf = text_printf,
	.message = text_message,
	.value = text_value,
	.maps_begin = output_maps_begin,
	.format_map = output_text_map,
	.maps_end = output_maps_end,
	.lost = text_lost,
	.helper_error = text_helper_error,
	.diag = text_diag,
	.test_result = text_test_result,
	.bench_result = text_bench_result,
};
