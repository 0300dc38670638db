// SPDX-License-Identifier: GPL-2.0
/*
 * Diagnostics: every pass appends errors and warnings here with a location and an optional
 * hint; the driver prints them all at once, each with its source line and a caret under it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define DIAG_TABSTOP 8

void diags_init(struct diags *d, const struct source *src)
{
	memset(d, 0, sizeof(*d));
	d->src = src;
}

void diags_free(struct diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].msg);
		free(d->v[i].hint);
	}
	free(d->v);
	d->v = NULL;
	d->n = d->cap = d->nerrors = 0;
	for (uint32_t i = 0; i < d->nexps; i++)
		free(d->exps[i].macro);
	free(d->exps);
	free(d->files);
	d->exps = NULL;
	d->files = NULL;
	d->nexps = d->nfiles = 0;
}

/* Grows *v of *n elements of size to hold one more; aborts without memory, as diag_add. */
static void *diag_grow(void *v, uint32_t n, size_t size)
{
	void *p = realloc(v, (n + 1) * size);

	if (!p)
		abort();
	return p;
}

uint32_t diags_file(struct diags *d, const struct source *src)
{
	if (src == d->src)
		return 0;
	for (uint32_t i = 0; i < d->nfiles; i++)
		if (d->files[i] == src)
			return i + 1;
	d->files = diag_grow(d->files, d->nfiles, sizeof(*d->files));
	d->files[d->nfiles++] = src;
	return d->nfiles;
}

static char *diag_strdup(const char *s);

uint32_t diags_expansion(struct diags *d, struct loc call, const char *macro)
{
	d->exps = diag_grow(d->exps, d->nexps, sizeof(*d->exps));
	d->exps[d->nexps].call = call;
	d->exps[d->nexps].macro = diag_strdup(macro);
	return ++d->nexps;
}

const struct source *diags_source(const struct diags *d, struct loc loc)
{
	return loc.file && loc.file <= d->nfiles ? d->files[loc.file - 1] : d->src;
}

static char *diag_strdup(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	p = strdup(s);
	if (!p)
		abort();
	return p;
}

static void diag_add(struct diags *d, enum diag_level level, struct loc loc, const char *hint,
		     const char *fmt, va_list ap)
{
	struct diag *dg;
	char *msg;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct diag *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			abort();
		d->v = v;
		d->cap = cap;
	}
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	/* Said once: a macro's body is checked in each expansion, a diagnostic for each. */
	for (size_t i = 0; i < d->n; i++) {
		const struct loc *l = &d->v[i].loc;

		if (d->v[i].level == level && l->line == loc.line && l->col == loc.col &&
		    l->len == loc.len && l->file == loc.file && !strcmp(d->v[i].msg, msg)) {
			free(msg);
			return;
		}
	}
	dg = &d->v[d->n++];
	dg->level = level;
	dg->loc = loc;
	dg->msg = msg;
	dg->hint = diag_strdup(hint);
	if (level == DIAG_ERROR)
		d->nerrors++;
}

void diag_error(struct diags *d, struct loc loc, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_add(d, DIAG_ERROR, loc, hint, fmt, ap);
	va_end(ap);
}

void diag_warn(struct diags *d, struct loc loc, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_add(d, DIAG_WARNING, loc, hint, fmt, ap);
	va_end(ap);
}

/* Finds line `line` (1-based) in the source; returns its start and sets *len (no newline). */
const char *diag_line(const struct source *src, unsigned int line, size_t *len)
{
	const char *p, *end, *nl;
	unsigned int cur = 1;

	if (!src || !src->text)
		return NULL;
	p = src->text;
	end = src->text + src->len;
	while (cur < line) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
		cur++;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	*len = nl ? (size_t)(nl - p) : (size_t)(end - p);
	if (*len && p[*len - 1] == '\r')
		(*len)--;
	return p;
}

/*
 * Visual width of bytes [0, n) of a line once tabs are expanded, starting at column `start`: to
 * the next tab stop, or to tab columns more where tab is not 0 (as bpftrace's excerpts).
 */
static size_t diag_width(const char *s, size_t n, size_t start, size_t tab)
{
	size_t w = start, i;

	for (i = 0; i < n; i++)
		w = s[i] != '\t' ? w + 1 : tab ? w + tab : (w / DIAG_TABSTOP + 1) * DIAG_TABSTOP;
	return w - start;
}

/* The source line of loc with its tabs expanded, then a line marking loc: indent, mark, ~~. */
static void diag_snippet(const struct source *src, struct loc loc, FILE *f, const char *indent,
			 char mark, size_t tab)
{
	size_t len, col, end, i, lead, width;
	const char *line = diag_line(src, loc.line, &len);

	if (!line)
		return;
	fputs(indent, f);
	for (i = 0; i < len; i++) {
		if (line[i] == '\t')
			fprintf(f, "%*s",
				(int)diag_width(line + i, 1, diag_width(line, i, 0, tab), tab), "");
		else
			fputc(line[i], f);
	}
	fputc('\n', f);

	col = loc.col ? loc.col - 1 : 0;
	if (col > len)
		col = len;
	end = col + (loc.len ? loc.len : 1);
	if (end > len)
		end = len;
	lead = diag_width(line, col, 0, tab);
	width = end > col ? diag_width(line + col, end - col, lead, tab) : 1;
	fprintf(f, "%s%*s%c", indent, (int)lead, "", mark);
	for (i = 1; i < width; i++)
		fputc('~', f);
	fputc('\n', f);
}

char *diag_excerpt(const struct source *src, struct loc loc)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	diag_snippet(src, loc, f, "", '~', 4); /* bpftrace makes each tab 4 spaces */
	if (fclose(f))
		return NULL;
	/* without the last newline */
	if (size && buf[size - 1] == '\n')
		buf[size - 1] = '\0';
	return buf;
}

static const char *diag_name(const struct diags *d, struct loc loc)
{
	const struct source *src = diags_source(d, loc);

	return src && src->name ? src->name : "<input>";
}

void diags_print(const struct diags *d, FILE *f)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct diag *dg = &d->v[i];
		const char *lvl = dg->level == DIAG_ERROR ? "error" : "warning";
		struct loc at = dg->loc;

		if (dg->level != DIAG_ERROR && d->no_warnings)
			continue;
		if (at.line == 0) {
			fprintf(f, "%s: %s: %s\n", diag_name(d, at), lvl, dg->msg);
		} else {
			fprintf(f, "%s:%u:%u: %s: %s\n", diag_name(d, at), at.line, at.col, lvl,
				dg->msg);
			diag_snippet(diags_source(d, at), at, f, "    ", '^', 0);
		}
		if (dg->hint)
			fprintf(f, "hint: %s\n", dg->hint);
		/* the calls of the macros it was expanded from, innermost first */
		for (uint32_t hops = 0; at.exp && at.exp <= d->nexps && hops < 64; hops++) {
			const struct diag_expansion *e = &d->exps[at.exp - 1];

			at = e->call;
			fprintf(f, "%s:%u:%u: note: in expansion of macro '%s'\n", diag_name(d, at),
				at.line, at.col, e->macro);
			diag_snippet(diags_source(d, at), at, f, "    ", '^', 0);
		}
	}
}
