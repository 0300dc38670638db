/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Diagnostics: every pass reports into one list with a location, a message and a hint; the
 * pipeline prints them and stops after the first pass that reported an error.
 */
#ifndef AOT_DIAG_H
#define AOT_DIAG_H

#include <stdbool.h>
#include <stdio.h>

#include "ast.h"

enum diag_level { DIAG_ERROR, DIAG_WARNING };

struct diag {
	enum diag_level level;
	struct loc loc; /* line 0: no location (a whole-program error) */
	char *msg;
	char *hint; /* NULL: none */
};

struct diags {
	const struct source *src;
	/* loc.file i > 0 is files[i - 1]: the imported files */
	const struct source **files;
	uint32_t nfiles;
	/* loc.exp i > 0 is exps[i - 1]: a macro's expansion, and the call that made it */
	struct diag_expansion {
		struct loc call;
		char *macro;
	} * exps;
	uint32_t nexps;
	struct diag *v;
	size_t n, cap;
	size_t nerrors;
	bool no_warnings; /* --no-warnings: diags_print leaves warnings out */
};

void diags_init(struct diags *d, const struct source *src);
/* The loc.file of src: 0 for the program's source; another is added (it must outlive d). */
uint32_t diags_file(struct diags *d, const struct source *src);
/* The source loc is in (loc.file). */
const struct source *diags_source(const struct diags *d, struct loc loc);
/* The text of line `line` of src (1-based) and its length without the newline; NULL if none. */
const char *diag_line(const struct source *src, unsigned int line, size_t *len);
/* A new loc.exp: an expansion of macro by the call at call. */
uint32_t diags_expansion(struct diags *d, struct loc call, const char *macro);
void diags_free(struct diags *d);
/* hint may be NULL. */
void diag_error(struct diags *d, struct loc loc, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_warn(struct diags *d, struct loc loc, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * file:line:col: error: message
 *     source line
 *     ^~~~
 * hint: ...
 * file:line:col: note: in expansion of macro 'm'    (for each macro expansion it is in)
 *     source line of the call
 *     ^~~~
 */
void diags_print(const struct diags *d, FILE *f);
/*
 * The source line of loc and a line of ~ under it, as bpftrace shows where a helper failed
 * (no trailing newline); malloc'd, NULL if out of memory.
 */
char *diag_excerpt(const struct source *src, struct loc loc);

#endif
