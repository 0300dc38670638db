/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output interface: everything the runtime shows the user goes through one struct of
 * callbacks, so that text and JSON differ in one file each and callers never ask which is on.
 */
#ifndef AOT_OUTPUT_H
#define AOT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "meta.h"

struct rt_render; /* rt.h: what rendering values needs (metadata, symbols, stacks) */

/* One map entry with the per-CPU values folded into one. */
struct output_entry {
	const void *key;   /* map->key bytes; NULL for a scalar map */
	const void *value; /* AOT_AGG_NONE: map->value bytes */
	uint64_t val;	   /* an aggregation's result (two's complement when val_signed) */
	uint64_t seq;	   /* position in the kernel's iteration order */
	/* HIST/LHIST: count per bucket, indexed as in meta.h (nbuckets of them) */
	const uint64_t *buckets;
	uint32_t nbuckets;
	/* STATS/AVG: folded over the CPUs (val holds the average); HIST/LHIST: total is the sum of
	 * the values (when rt_map_read.has_sum) */
	int64_t count, total;
	/*
	 * TSERIES: nbuckets rows, one per interval from tseries_first on; buckets holds their
	 * values and tseries_set[i] whether interval i had one (rt_tseries_fold).
	 */
	const uint8_t *tseries_set;
	uint64_t tseries_first;
};

/* A whole map, entries already in the order to print them and cut to print()'s top. */
struct output_map {
	const struct rt_render *r; /* metadata (tuple elements) and the value renderers */
	const struct aot_map *map;
	const struct output_entry *entries;
	size_t n;
	bool val_signed; /* how to read output_entry.val */
	uint64_t div;	 /* print()'s divisor for hist counts, already applied to val; >= 1 */
	bool has_sum;	 /* hist/lhist: output_entry.total holds the sum of the values */
};

/* Text that user-space actions produce, named as bpftrace's JSON "type" names them. */
enum output_msg {
	OUTPUT_MSG_TIME,    /* time() */
	OUTPUT_MSG_CAT,	    /* cat() */
	OUTPUT_MSG_SYSCALL, /* system() */
	OUTPUT_MSG_JOIN,    /* join() */
};

struct output;
struct rt_buf;

/* Where and how a helper failed (AOT_FMT_HELPER_ERROR). */
struct output_helper_error {
	const char *helper;  /* "map_update_elem" */
	int64_t ret;	     /* its return value, -errno */
	unsigned line, col;  /* in the script */
	const char *loc;     /* "script.bt:3:5-12" */
	const char *excerpt; /* the source line and a line of ~ under the call */
};

/* errorf()/warnf() (AOT_FMT_ERRORF/WARNF): the formatted text and the call site. */
struct output_diag {
	bool error;	    /* errorf, else warnf */
	const char *loc;    /* "script.bt:3:5-30" */
	const char *file;   /* "script.bt" */
	unsigned line, col; /* of the call */
	const char *text;   /* as printf formatted it, not NUL-ended */
	size_t len;
	/* NULL, or "x.bt:7:3-8: ERROR: expanded from\n", line, ~ line: for each macro call */
	const char *expanded;
};

/* --test: the result of one test: probe, the whole run's names and verdicts so far. */
struct output_test {
	const char *const *names; /* every test's name (test:NAME), in the script's order */
	const bool *passed;	  /* verdicts of names[0..index] */
	size_t n, index;
	uint64_t duration_ns; /* the kernel's time of its one run */
	const char *captured; /* what it printed (text), shown when it failed */
	size_t captured_len;
};

/* --bench: one bench: probe's average time per run over iters runs. */
struct output_bench {
	const char *const *names; /* every bench's name, in the script's order */
	size_t n, index;
	uint64_t average_ns, iters;
};

struct output_ops {
	/* "Attached N probes" (text: on stderr) */
	void (*attached)(struct output *o, unsigned int nprobes);
	/* The text of one printf() event. */
	void (*printf)(struct output *o, const char *text, size_t len);
	/* The text of time(), cat(), system() or join(). */
	void (*message)(struct output *o, enum output_msg kind, const char *text, size_t len);
	/* print(value): one value of type t. */
	void (*value)(struct output *o, const struct rt_render *r, const struct aot_type *t,
		      const void *data);
	/* Around the maps printed at exit; print(@map) calls output_map() alone. */
	void (*maps_begin)(struct output *o);
	/* Formats one map into b (nothing at all for a map the format does not print). */
	void (*format_map)(struct rt_buf *b, const struct output_map *m);
	void (*maps_end)(struct output *o);
	/* Events the programs could not hand over (ring buffer full), since the last report. */
	void (*lost)(struct output *o, uint64_t n);
	/* -k: a BPF helper failed at a call site of the script. */
	void (*helper_error)(struct output *o, const struct output_helper_error *e);
	/* errorf()/warnf(): text, on the error stream; JSON, a line of the output */
	void (*diag)(struct output *o, const struct output_diag *d);
	/* --test and --bench, as bpftrace 0.27 reports them */
	void (*test_result)(struct output *o, const struct output_test *t);
	void (*bench_result)(struct output *o, const struct output_bench *b);
};

/*
 * Lines kept whole across CPUs. All CPUs share one ring buffer, so when two CPUs each print a
 * line in pieces (execsnoop's printf then join), the pieces arrive interleaved. While one
 * CPU's line is open (its last piece had no newline), the pieces of other CPUs are held, in
 * order, and written once that line ends (output_put).
 */
struct output_lines {
	unsigned int open;   /* 1 + the CPU whose line is open; 0: none */
	uint64_t open_since; /* CLOCK_MONOTONIC ns when it opened */
	struct rt_buf *held; /* records { u32 cpu; u32 len; char text[len]; } */
};

struct output {
	const struct output_ops *ops;
	FILE *f;	      /* program output: -o FILE or stdout */
	FILE *err;	      /* errors, warnings and hints (rt_report): stderr */
	unsigned int cpu;     /* the CPU of the event being handled (events.c sets it) */
	bool no_warnings;     /* --no-warnings: rt_report() leaves warnings out */
	unsigned int nerrors; /* errorf() and failed assert() events so far (--test's verdicts) */
	struct output_lines lines;
};

extern const struct output_ops output_text_ops;
extern const struct output_ops output_json_ops;

/* Formats a map as bpftrace does, in text or as one JSON line: the two format_map ops. */
void output_text_map(struct rt_buf *b, const struct output_map *m);
void output_json_map(struct rt_buf *b, const struct output_map *m);

/*
 * output_metrics.c: maps as Prometheus metrics (the metrics server's scrapes). Each map is a
 * metric family of one of these types, decided by its aggregation; NONE: not a number, left out.
 */
enum output_metric_type {
	OUTPUT_METRIC_NONE = 0,
	OUTPUT_METRIC_COUNTER,
	OUTPUT_METRIC_GAUGE,
	OUTPUT_METRIC_HISTOGRAM,
};
enum output_metric_type output_metrics_type(const struct aot_map *map);
/* Appends the family name of a map: prefix, then the map's name made a valid metric name. */
void output_metrics_name(struct rt_buf *b, const char *prefix, const struct aot_map *map);
/* Whether prefix may begin a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*, or empty). */
bool output_metrics_prefix_ok(const char *prefix);

/* A map as a metric family, decided once for the whole run. */
struct output_metrics_family {
	char *name; /* "aotrace_syscalls" (a counter's samples add _total) */
	char *help; /* what the HELP line says: the map, its aggregation, its probes */
	enum output_metric_type type;
};

/* How a scrape wants its text. */
struct output_metrics {
	bool openmetrics;    /* OpenMetrics 1.0, else the text format 0.0.4 */
	uint64_t max_series; /* per family; 0: no limit */
};

/*
 * Appends the family's HELP and TYPE lines and its samples. Past max_series, the entries with
 * the smallest values are left out (as print(@map, top) keeps the biggest): returns how many.
 */
size_t output_metrics_map(struct rt_buf *b, const struct output_metrics *o,
			  const struct output_metrics_family *f, const struct output_map *m);
/* What ends a scrape's text (OpenMetrics: "# EOF"). */
void output_metrics_end(struct rt_buf *b, const struct output_metrics *o);

/* Prints a map with one write, formatted by the output's format_map. */
void output_map(struct output *o, const struct output_map *m);

/* output.c: what the formats share; the ops tables point at the callbacks that do not differ. */
void output_write(struct output *o, struct rt_buf *b);
void output_maps_begin(struct output *o);
void output_maps_end(struct output *o);
/* Writes printf/action text of the event's CPU, keeping lines whole across CPUs. */
void output_put(struct output *o, const char *text, size_t len);
/* Writes whole lines of the runtime's own ("Lost N events") between the programs' lines. */
void output_put_own(struct output *o, const char *text, size_t len);
/* True while text of other CPUs waits for an open line to end. */
bool output_lines_held(const struct output *o);
/* Writes the held text: when force, or once the open line has been open OUTPUT_LINE_WAIT_MS. */
void output_lines_flush(struct output *o, bool force);
#define OUTPUT_LINE_WAIT_MS 50
void output_hist_span(const struct output_entry *e, int64_t *first, int64_t *last);
/*
 * A time of ns since 1970 as strftime's fmt has it in local time (or UTC), then "." and its
 * first digits (1 to 9; 0: none) of the second's fraction: tseries' interval times.
 */
void output_time(struct rt_buf *b, uint64_t ns, bool utc, const char *fmt, int digits);

#endif
