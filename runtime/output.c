// SPDX-License-Identifier: GPL-2.0
/*
 * What text and JSON output have in common: a formatted piece goes out in one write, a map is
 * whatever the format's format_map makes of it, and the callbacks bpftrace does not vary by
 * format are written once, here. Warnings are text on stderr in
 * both formats, as bpftrace's are: rt_report().
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt.h"

/* Writes what b holds to the program output in one fwrite, and frees it. */
void output_write(struct output *o, struct rt_buf *b)
{
	if (b->len)
		fwrite(b->s, 1, b->len, o->f);
	rt_buf_free(b);
}

void output_map(struct output *o, const struct output_map *m)
{
	struct rt_buf b = { 0 };

	o->ops->format_map(&b, m);
	output_write(o, &b);
}

static uint64_t output_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The "CPU" of the runtime's own lines: no CPU of an event (those are 16-bit) */
#define OUTPUT_OWN_CPU 0x10000u

static void output_put_cpu(struct output *o, unsigned int cpu, const char *text, size_t len);

/* Hands the held pieces, in their order, to output_put_cpu again (some may be held anew). */
static void output_replay(struct output *o)
{
	struct rt_buf *held = o->lines.held;
	size_t at = 0;
	uint32_t rec[2];

	o->lines.held = NULL;
	while (held && at + sizeof(rec) <= held->len) {
		memcpy(rec, held->s + at, sizeof(rec));
		at += sizeof(rec);
		output_put_cpu(o, rec[0], held->s + at, rec[1]);
		at += rec[1];
	}
	if (held) {
		rt_buf_free(held);
		free(held);
	}
}

static void output_put_cpu(struct output *o, unsigned int cpu, const char *text, size_t len)
{
	struct output_lines *l = &o->lines;
	uint32_t rec[2] = { cpu, (uint32_t)len };

	if (!len)
		return;
	if (l->open && l->open != cpu + 1) {
		if (!l->held)
			l->held = calloc(1, sizeof(*l->held));
		if (l->held) {
			rt_buf_add(l->held, (const char *)rec, sizeof(rec));
			rt_buf_add(l->held, text, len);
			return;
		}
		/* no memory to hold it: write it torn rather than lose it */
	}
	fwrite(text, 1, len, o->f);
	if (text[len - 1] != '\n') {
		if (!l->open) {
			l->open = cpu + 1;
			l->open_since = output_now_ns();
		}
	} else if (l->open) {
		l->open = 0;
		output_replay(o);
	}
}

void output_put(struct output *o, const char *text, size_t len)
{
	output_put_cpu(o, o->cpu, text, len);
}

void output_put_own(struct output *o, const char *text, size_t len)
{
	output_put_cpu(o, OUTPUT_OWN_CPU, text, len);
}

bool output_lines_held(const struct output *o)
{
	return o->lines.held != NULL;
}

void output_lines_flush(struct output *o, bool force)
{
	if (!force && (!o->lines.held ||
		       output_now_ns() - o->lines.open_since < OUTPUT_LINE_WAIT_MS * 1000000ull))
		return;
	/* The open line is given up on: it stays as printed, the others follow (and when forced,
	 * any line they leave open is given up on too). */
	do {
		o->lines.open = 0;
		output_replay(o);
	} while (force && o->lines.held);
}

/* bpftrace prints the two blank lines before the maps whatever the format. */
/* Text: the two blank lines before the maps at exit (JSON has none since bpftrace 0.27). */
void output_maps_begin(struct output *o)
{
	fputs("\n\n", o->f);
}

void output_maps_end(struct output *o)
{
	fflush(o->f);
}

/* The hist/lhist buckets to print: first to last non-empty; first is -1 when all are empty. */
void output_hist_span(const struct output_entry *e, int64_t *first, int64_t *last)
{
	*first = *last = -1;
	for (int64_t i = 0; i < e->nbuckets; i++) {
		if (e->buckets[i]) {
			if (*first < 0)
				*first = i;
			*last = i;
		}
	}
}

void output_time(struct rt_buf *b, uint64_t ns, bool utc, const char *fmt, int digits)
{
	time_t secs = (time_t)(ns / 1000000000ull);
	uint64_t frac = ns % 1000000000ull;
	char s[64];
	struct tm tm;

	if (!(utc ? gmtime_r(&secs, &tm) : localtime_r(&secs, &tm)) ||
	    !strftime(s, sizeof(s), fmt, &tm))
		s[0] = 0;
	rt_buf_add(b, s, strlen(s));
	if (digits > 0) {
		for (int i = digits; i < 9; i++)
			frac /= 10;
		rt_buf_printf(b, ".%0*" PRIu64, digits, frac);
	}
}
