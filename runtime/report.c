// SPDX-License-Identifier: GPL-2.0
/*
 * The one way the runtime speaks to the user besides the program's own output, as libbpf's
 * pr_warn: errors, warnings and hints on the output's error stream, each level with its one
 * prefix, warnings left out with --no-warnings. A JSON or coloured form of them goes here.
 */
#include <stdarg.h>
#include <stdio.h>

#include "rt.h"

static const char *const report_prefix[] = {
	[RT_ERROR] = "ERROR: ",
	[RT_WARN] = "WARNING: ",
	[RT_HINT] = "HINT: ",
	[RT_TEXT] = "",
};

void rt_vreport(const struct output *o, enum rt_level level, const char *fmt, va_list ap)
{
	FILE *f = o && o->err ? o->err : stderr;
	struct rt_buf b = { 0 };
	va_list ap2;

	if (level == RT_WARN && o && o->no_warnings)
		return;
	/*
	 * One write per report, so that a report stays whole beside what a command run with -c
	 * writes to the same stream.
	 */
	va_copy(ap2, ap);
	rt_buf_printf(&b, "%s", report_prefix[level]);
	rt_buf_vprintf(&b, fmt, ap);
	if (level != RT_TEXT)
		rt_buf_add(&b, "\n", 1);
	if (!b.oom) {
		fwrite(b.s, 1, b.len, f);
	} else {
		/* No memory for the buffer: the same text, in pieces. */
		fputs(report_prefix[level], f);
		vfprintf(f, fmt, ap2);
		if (level != RT_TEXT)
			fputc('\n', f);
	}
	va_end(ap2);
	rt_buf_free(&b);
}

void rt_report(const struct output *o, enum rt_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rt_vreport(o, level, fmt, ap);
	va_end(ap);
}
