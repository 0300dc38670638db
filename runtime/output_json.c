// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output, following bpftrace 0.27's -f json: one object per line, {"type": T, "data": D},
 * with T one of attached_probes, printf, time, cat, syscall, join, value, map, hist, stats,
 * lost_events; helper_error (-k) has its fields at the top level, as bpftrace's. Built with
 * the streaming writer in json.c; one fwrite per line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

/* Starts a line: {"type": "T", "data": ... */
/* {"type": T, with the rest of the line to come */
static void json_line_head(struct json_writer *w, struct rt_buf *b, const char *type)
{
	json_init(w, b);
	json_object_begin(w);
	json_key(w, "type", 4);
	json_string(w, type, strlen(type));
}

static void json_line_begin(struct json_writer *w, struct rt_buf *b, const char *type)
{
	json_line_head(w, b, type);
	json_key(w, "data", 4);
}

static void json_line_end(struct output *o, struct json_writer *w, struct rt_buf *b)
{
	json_object_end(w);
	rt_buf_add(b, "\n", 1);
	output_write(o, b);
}

/* {"type": T, "data": {"field": n}}, or with "count": n before "data" as bpftrace 0.27 has it */
static void json_counter(struct output *o, const char *type, bool count_too, const char *field,
			 uint64_t n)
{
	struct json_writer w;
	struct rt_buf b = { 0 };

	json_line_head(&w, &b, type);
	if (count_too) {
		json_key(&w, "count", 5);
		json_uint(&w, n);
	}
	json_key(&w, "data", 4);
	json_object_begin(&w);
	json_key(&w, field, strlen(field));
	json_uint(&w, n);
	json_object_end(&w);
	json_line_end(o, &w, &b);
}

/* bpftrace 0.27 puts no blank lines before the maps in JSON, as 0.17 did. */
static void json_maps_begin(struct output *o)
{
	(void)o;
}

static void json_attached(struct output *o, unsigned int nprobes)
{
	json_counter(o, "attached_probes", true, "probes", nprobes);
	fflush(o->f);
}

static void json_text(struct output *o, const char *type, const char *text, size_t len)
{
	struct json_writer w;
	struct rt_buf b = { 0 };

	json_line_begin(&w, &b, type);
	json_string(&w, text, len);
	json_line_end(o, &w, &b);
}

static void json_printf(struct output *o, const char *text, size_t len)
{
	json_text(o, "printf", text, len);
}

static void json_message(struct output *o, enum output_msg kind, const char *text, size_t len)
{
	static const char *const types[] = {
		[OUTPUT_MSG_TIME] = "time",
		[OUTPUT_MSG_CAT] = "cat",
		[OUTPUT_MSG_SYSCALL] = "syscall",
		[OUTPUT_MSG_JOIN] = "join",
	};

	json_text(o, types[kind], text, len);
}

static void json_value(struct output *o, const struct rt_render *r, const struct aot_type *t,
		       const void *data)
{
	struct json_writer w;
	struct rt_buf b = { 0 };

	json_line_begin(&w, &b, "value");
	rt_value_json(&w, r, t, data);
	json_line_end(o, &w, &b);
}

/* A map's folded integer, written as render.c writes an integer value (quoted past 2^53). */
static void json_map_int(struct json_writer *w, const struct output_map *m, uint64_t v,
			 bool is_signed)
{
	struct aot_type t = { .kind = AOT_K_INT, .size = 8, .is_signed = is_signed };
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	rt_value_json(w, m->r, &t, le);
}

/* hist/lhist buckets as [{"min": a, "max": b, "count": n},{...}], the empty ends cut off. */
static void json_hist(struct json_writer *w, const struct output_map *m,
		      const struct output_entry *e)
{
	const struct aot_map *map = m->map;
	bool lin = map->agg == AOT_AGG_LHIST;
	int64_t lbuckets = lin ? (map->lhist_max - map->lhist_min) / map->lhist_step : 0;
	int64_t first, last, i;

	output_hist_span(e, &first, &last);
	json_array_begin(w, true);
	for (i = first; first >= 0 && i <= last; i++) {
		json_object_begin(w);
		if (i == 0) {
			json_key(w, "max", 3);
			json_map_int(w, m, (uint64_t)(lin ? map->lhist_min - 1 : -1), true);
		} else if (lin && i == lbuckets + 1) {
			json_key(w, "min", 3);
			json_map_int(w, m, (uint64_t)map->lhist_max, true);
		} else if (lin) {
			json_key(w, "min", 3);
			json_map_int(w, m, (uint64_t)((i - 1) * map->lhist_step + map->lhist_min),
				     true);
			json_key(w, "max", 3);
			json_map_int(w, m, (uint64_t)(i * map->lhist_step + map->lhist_min - 1),
				     true);
		} else {
			json_key(w, "min", 3);
			json_map_int(w, m, aot_hist_upper((uint32_t)map->hist_k, (uint32_t)i - 1),
				     false);
			json_key(w, "max", 3);
			json_map_int(w, m, aot_hist_upper((uint32_t)map->hist_k, (uint32_t)i) - 1,
				     false);
		}
		json_key(w, "count", 5);
		json_uint(w, lin ? e->buckets[i] : e->buckets[i] / m->div);
		json_object_end(w);
	}
	json_array_end(w);
}

/*
 * The intervals that have a value, as bpftrace 0.27.1 writes them, without spaces and with the
 * interval's start in UTC: [{"interval_start":"2025-01-02 03:04:05.000000000","value":5}]
 */
static void json_tseries(struct json_writer *w, const struct output_map *m,
			 const struct output_entry *e)
{
	struct rt_buf s = { 0 };
	const char *sep = "[";

	for (uint32_t i = 0; i < e->nbuckets; i++) {
		if (!e->tseries_set[i])
			continue;
		rt_buf_printf(&s, "%s{\"interval_start\":\"", sep);
		sep = ",";
		output_time(&s, (e->tseries_first + i) * (uint64_t)m->map->tseries_interval, true,
			    "%Y-%m-%d %H:%M:%S", 9);
		if (m->map->value.is_signed)
			rt_buf_printf(&s, "\",\"value\":%" PRId64 "}", (int64_t)e->buckets[i]);
		else
			rt_buf_printf(&s, "\",\"value\":%" PRIu64 "}", e->buckets[i]);
	}
	rt_buf_printf(&s, "%s]", *sep == '[' ? "[" : "");
	json_raw(w, s.s, s.len);
	rt_buf_free(&s);
}

static void json_map_value(struct json_writer *w, const struct output_map *m,
			   const struct output_entry *e)
{
	switch (m->map->agg) {
	case AOT_AGG_NONE:
		/* Integers print from val, which print()'s divisor has divided (not addresses). */
		if (m->map->value.kind != AOT_K_INT || m->map->value.nelems == AOT_INT_ADDRESS)
			rt_value_json(w, m->r, &m->map->value, e->value);
		else
			json_map_int(w, m, e->val, m->val_signed);
		break;
	case AOT_AGG_HIST:
	case AOT_AGG_LHIST:
		json_hist(w, m, e);
		break;
	case AOT_AGG_TSERIES:
		json_tseries(w, m, e);
		break;
	case AOT_AGG_STATS:
		json_object_begin(w);
		json_key(w, "count", 5);
		json_map_int(w, m, (uint64_t)e->count, true);
		json_key(w, "average", 7);
		json_map_int(w, m, e->val, true);
		json_key(w, "total", 5);
		json_map_int(w, m, (uint64_t)e->total, true);
		json_object_end(w);
		break;
	default:
		json_map_int(w, m, e->val, m->val_signed);
		break;
	}
}

/*
 * A key as bpftrace 0.27 writes it: its text (the elements of a tuple key joined by ", ", as
 * text output shows them), with every space taken out, strings' and stacks' own too:
 * @[1, "a b"] is "1,ab". Compacts s in place; returns the new length.
 */
static size_t json_key_unspaced(char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ')
			s[n++] = s[i];
	return n;
}

void output_json_map(struct rt_buf *b, const struct output_map *m)
{
	const struct aot_map *map = m->map;
	const char *type = "map";
	struct rt_buf key = { 0 };
	struct json_writer w;
	size_t i;

	/* An empty map prints nothing at all in JSON; an avg() or stats() one {}, as 0.27. */
	if (!m->n && map->agg != AOT_AGG_AVG && map->agg != AOT_AGG_STATS)
		return;
	if (map->agg == AOT_AGG_HIST || map->agg == AOT_AGG_LHIST)
		type = "hist";
	else if (map->agg == AOT_AGG_AVG || map->agg == AOT_AGG_STATS)
		type = "stats";
	else if (map->agg == AOT_AGG_TSERIES)
		type = "tseries";
	json_line_begin(&w, b, type);
	json_object_begin(&w);
	json_key(&w, map->name, strlen(map->name));
	if (map->nkeys || !m->n)
		json_object_begin(&w);
	for (i = 0; i < m->n; i++) {
		const struct output_entry *e = &m->entries[i];

		if (map->nkeys && e->key) {
			rt_buf_reset(&key);
			rt_key_text(&key, m->r, &map->key, e->key, ", ");
			json_key(&w, key.s ? key.s : "", json_key_unspaced(key.s, key.len));
		}
		json_map_value(&w, m, e);
		if (!map->nkeys)
			break;
	}
	if (map->nkeys || !m->n)
		json_object_end(&w);
	json_object_end(&w);
	json_object_end(&w);
	rt_buf_add(b, "\n", 1);
	rt_buf_free(&key);
}

/* As bpftrace: {"type": "helper_error", "helper": H, "retcode": R, "line": L, "col": C}. */
static void json_helper_error(struct output *o, const struct output_helper_error *e)
{
	struct json_writer w;
	struct rt_buf b = { 0 };

	json_init(&w, &b);
	json_object_begin(&w);
	json_key(&w, "type", 4);
	json_string(&w, "helper_error", 12);
	json_key(&w, "helper", 6);
	json_string(&w, e->helper, strlen(e->helper));
	json_key(&w, "retcode", 7);
	json_int(&w, e->ret);
	json_key(&w, "line", 4);
	json_uint(&w, e->line);
	json_key(&w, "col", 3);
	json_uint(&w, e->col);
	json_line_end(o, &w, &b);
}

/* As bpftrace: {"type": "errorf", "msg": M, "filename": F, "line": L, "col": C}. */
static void json_diag(struct output *o, const struct output_diag *d)
{
	const char *type = d->error ? "errorf" : "warnf";
	struct json_writer w;
	struct rt_buf b = { 0 };

	json_line_head(&w, &b, type);
	json_key(&w, "msg", 3);
	json_string(&w, d->text, d->len);
	json_key(&w, "filename", 8);
	json_string(&w, d->file, strlen(d->file));
	json_key(&w, "line", 4);
	json_uint(&w, d->line);
	json_key(&w, "col", 3);
	json_uint(&w, d->col);
	json_line_end(o, &w, &b);
}

static void json_lost(struct output *o, uint64_t n)
{
	json_counter(o, "lost_events", false, "events", n);
}

/* {"type": T, "data": {"NAME": { with the record's fields to come */
static void json_named_begin(struct json_writer *w, struct rt_buf *b, const char *type,
			     const char *name)
{
	json_line_begin(w, b, type);
	json_object_begin(w);
	json_key(w, name, strlen(name));
	json_object_begin(w);
}

static void json_named_end(struct output *o, struct json_writer *w, struct rt_buf *b)
{
	json_object_end(w);
	json_object_end(w);
	json_line_end(o, w, b);
}

/* {"type": "test_result", "data": {"NAME": {"duration": D, "passed": B, "output": S}}} */
static void json_test_result(struct output *o, const struct output_test *t)
{
	struct json_writer w;
	struct rt_buf b = { 0 };

	json_named_begin(&w, &b, "test_result", t->names[t->index]);
	json_key(&w, "duration", 8);
	json_uint(&w, t->duration_ns);
	json_key(&w, "passed", 6);
	json_bool(&w, t->passed[t->index]);
	json_key(&w, "output", 6);
	json_string(&w, t->captured ? t->captured : "", t->captured_len);
	json_named_end(o, &w, &b);
}

/* {"type": "benchmark_result", "data": {"NAME": {"average": NS, "iters": N}}} */
static void json_bench_result(struct output *o, const struct output_bench *r)
{
	struct json_writer w;
	struct rt_buf b = { 0 };

	json_named_begin(&w, &b, "benchmark_result", r->names[r->index]);
	json_key(&w, "average", 7);
	json_uint(&w, r->average_ns);
	json_key(&w, "iters", 5);
	json_uint(&w, r->iters);
	json_named_end(o, &w, &b);
}

const struct output_ops output_json_ops = {
	.attached = json_attached,
	.printf = json_printf,
	.message = json_message,
	.value = json_value,
	.maps_begin = json_maps_begin,
	.format_map = output_json_map,
	.maps_end = output_maps_end,
	.lost = json_lost,
	.helper_error = json_helper_error,
	.diag = json_diag,
	.test_result = json_test_result,
	.bench_result = json_bench_result,
};
