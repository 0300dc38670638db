// SPDX-License-Identifier: GPL-2.0
/*
 * The lexer: turns source text into tokens on demand for the parser. At the top level it
 * returns raw attach points and C definitions whole, since their spelling (paths, wildcards,
 * C syntax) is not bpftrace's; inside predicates and blocks it returns ordinary tokens.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "frontend.h"
#include "units.h"

struct lexer {
	struct arena *a;
	const struct source *src;
	struct diags *d;
	const char *p, *end;
	const char *line_start;
	uint32_t line;
	uint32_t file; /* loc.file of its tokens */
	bool toplevel;
	/* The last top-level token was an attach point: a '/' now opens a predicate. */
	bool after_attach;
};

struct lexer *lexer_new(struct arena *a, const struct source *src, struct diags *d)
{
	struct lexer *lx = arena_alloc(a, sizeof(*lx));

	lx->a = a;
	lx->src = src;
	lx->d = d;
	lx->file = diags_file(d, src);
	lx->p = src->text;
	lx->end = src->text + src->len;
	lx->line_start = src->text;
	lx->line = 1;
	lx->toplevel = true;
	/* A script may start with "#!/usr/bin/env bpftrace": a comment to us. */
	if (src->len >= 2 && src->text[0] == '#' && src->text[1] == '!') {
		while (lx->p < lx->end && *lx->p != '\n')
			lx->p++;
	}
	return lx;
}

void lexer_set_toplevel(struct lexer *lx, bool toplevel)
{
	lx->toplevel = toplevel;
	lx->after_attach = false;
}

static int lx_peek(const struct lexer *lx, size_t i)
{
	return lx->p + i < lx->end ? (unsigned char)lx->p[i] : -1;
}

/* Advances one byte, keeping the line count. */
static void lx_adv(struct lexer *lx)
{
	if (lx->p >= lx->end)
		return;
	if (*lx->p == '\n') {
		lx->line++;
		lx->line_start = lx->p + 1;
	}
	lx->p++;
}

static struct loc lx_loc(const struct lexer *lx)
{
	struct loc l = { lx->line, (uint32_t)(lx->p - lx->line_start) + 1, 1, lx->file, 0 };

	return l;
}

static bool lx_is_ident_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool lx_is_ident(int c)
{
	return lx_is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Skips blanks and comments; reports an unterminated block comment. */
static void lx_skip_space(struct lexer *lx)
{
	for (;;) {
		int c = lx_peek(lx, 0);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			lx_adv(lx);
		} else if (c == '/' && lx_peek(lx, 1) == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx_adv(lx);
		} else if (c == '/' && lx_peek(lx, 1) == '*') {
			struct loc l = lx_loc(lx);

			l.len = 2;
			lx_adv(lx);
			lx_adv(lx);
			while (lx->p < lx->end && !(lx_peek(lx, 0) == '*' && lx_peek(lx, 1) == '/'))
				lx_adv(lx);
			if (lx->p >= lx->end) {
				diag_error(lx->d, l, "close it with '*/'", "unterminated comment");
				return;
			}
			lx_adv(lx);
			lx_adv(lx);
		} else {
			return;
		}
	}
}

static struct token lx_make(struct lexer *lx, enum tok_kind kind, const char *start, struct loc l)
{
	struct token t = { .kind = kind, .loc = l };
	size_t n = (size_t)(lx->p - start);

	/* A token spanning lines underlines to the end of its first line (diag clips it). */
	t.loc.len = n ? (uint32_t)n : 1;
	t.text = arena_strndup(lx->a, start, n);
	return t;
}

/* ---- top level ---- */

/* "#include <x.h>", "#define X 1", ...: one line, with backslash continuations. */
static struct token lx_preproc(struct lexer *lx, const char *start, struct loc l)
{
	while (lx->p < lx->end && *lx->p != '\n') {
		if (*lx->p == '\\' && lx_peek(lx, 1) == '\n')
			lx_adv(lx);
		lx_adv(lx);
	}
	return lx_make(lx, TOK_CDEF, start, l);
}

static bool lx_word_is(const char *p, const char *end, const char *w);

/*
 * What may follow a definition's closing brace: __attribute__((...)) any number of times (as
 * bpftrace 0.26 takes `struct s { ... } __attribute__((packed));`), then an optional ';'.
 */
static void lx_cdef_tail(struct lexer *lx)
{
	for (;;) {
		const char *save = lx->p, *save_ls = lx->line_start;
		uint32_t save_line = lx->line;
		int depth = 0;

		lx_skip_space(lx);
		if (lx_peek(lx, 0) == ';') {
			lx_adv(lx);
			return;
		}
		if (!lx_word_is(lx->p, lx->end, "__attribute__")) {
			lx->p = save;
			lx->line_start = save_ls;
			lx->line = save_line;
			return;
		}
		for (size_t i = 0; i < strlen("__attribute__"); i++)
			lx_adv(lx);
		lx_skip_space(lx);
		/* the balanced ((...)): what is inside is clang's to read */
		while (lx->p < lx->end) {
			int c = lx_peek(lx, 0);

			if (!depth && c != '(')
				break;
			depth += c == '(' ? 1 : c == ')' ? -1 : 0;
			lx_adv(lx);
			if (!depth)
				break;
		}
	}
}

/*
 * struct/union/enum definitions run to their closing brace, its attributes and an optional ';'
 * (bpftrace does not insist on it); a typedef runs to the ';' outside braces.
 */
static struct token lx_cdef(struct lexer *lx, const char *start, struct loc l, bool is_typedef)
{
	int depth = 0;
	bool opened = false;

	while (lx->p < lx->end) {
		int c = lx_peek(lx, 0);

		if (c == '/' && (lx_peek(lx, 1) == '/' || lx_peek(lx, 1) == '*')) {
			lx_skip_space(lx);
			continue;
		}
		if (c == '{') {
			depth++;
			opened = true;
		} else if (c == '}') {
			depth--;
			if (depth <= 0 && !is_typedef) {
				lx_adv(lx);
				lx_cdef_tail(lx);
				return lx_make(lx, TOK_CDEF, start, l);
			}
		} else if (c == ';' && depth <= 0) {
			lx_adv(lx);
			return lx_make(lx, TOK_CDEF, start, l);
		}
		lx_adv(lx);
	}
	l.len = (uint32_t)strcspn(start, " \t\n{");
	diag_error(lx->d, l, opened ? "a '}' is missing" : "end it with ';'",
		   "unterminated C definition");
	return lx_make(lx, TOK_ERROR, start, l);
}

static bool lx_word_is(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - p) < n || memcmp(p, w, n))
		return false;
	/* "struct foo" is C; "struct:..." or "structx" would be an attach point. */
	return p + n == end || !(lx_is_ident(p[n]) || p[n] == ':');
}

static struct token lx_next_toplevel(struct lexer *lx)
{
	const char *start = lx->p;
	struct loc l = lx_loc(lx);
	int c = lx_peek(lx, 0);
	bool after_attach = lx->after_attach;

	lx->after_attach = false;
	if (c == '{' || c == '}' || c == ',' || (c == '/' && after_attach)) {
		struct token t;

		lx_adv(lx);
		t = lx_make(lx, TOK_PUNCT, start, l);
		t.op = c;
		return t;
	}
	if (c == '#')
		return lx_preproc(lx, start, l);
	if (lx_word_is(lx->p, lx->end, "struct") || lx_word_is(lx->p, lx->end, "union") ||
	    lx_word_is(lx->p, lx->end, "enum"))
		return lx_cdef(lx, start, l, false);
	if (lx_word_is(lx->p, lx->end, "typedef"))
		return lx_cdef(lx, start, l, true);
	/* "config={...}": the word alone, for the parser's config block (parse_config.c). */
	if (lx_word_is(lx->p, lx->end, "config")) {
		for (size_t i = 0; i < strlen("config"); i++)
			lx_adv(lx);
		return lx_make(lx, TOK_ATTACH, start, l);
	}

	/* An attach point: everything up to a blank, '{', ',' or '}', with "quoted parts". */
	while (lx->p < lx->end) {
		c = lx_peek(lx, 0);
		if (isspace(c) || c == '{' || c == ',' || c == '}' || c == '\0')
			break;
		if (c == '/' && (lx_peek(lx, 1) == '/' || lx_peek(lx, 1) == '*'))
			break;
		if (c == '"') {
			struct loc ql = lx_loc(lx);

			lx_adv(lx);
			while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n')
				lx_adv(lx);
			if (lx_peek(lx, 0) != '"') {
				diag_error(lx->d, ql, "close it with '\"'",
					   "unterminated quoted part in attach point");
				return lx_make(lx, TOK_ERROR, start, l);
			}
		}
		lx_adv(lx);
	}
	if (lx->p == start) {
		/* A NUL byte: the only thing the loop above refuses to start with. */
		lx_adv(lx);
		diag_error(lx->d, l, NULL, "invalid character in program");
		return lx_make(lx, TOK_ERROR, start, l);
	}
	lx->after_attach = true;
	return lx_make(lx, TOK_ATTACH, start, l);
}

/* ---- inside blocks ---- */

static int lx_digit_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Accumulates one digit; returns false on overflow of 64 bits. */
static bool lx_acc(uint64_t *v, unsigned int base, int digit)
{
	if (*v > (UINT64_MAX - (uint64_t)digit) / base)
		return false;
	*v = *v * base + (uint64_t)digit;
	return true;
}

/* Reports a literal bpftrace 0.17 took and 0.27 refuses: kept, with the spelling of today. */
static void lx_number_old(struct lexer *lx, const struct token *t, const char *fmt,
			  const char *modern)
{
	diag_warn(lx->d, t->loc, arena_printf(lx->a, "write %s", modern), fmt, t->text);
}

/*
 * Integers as bpftrace 0.27 takes them: decimal with '_' separators, 0x hex, 0-prefixed octal,
 * a power of ten with a one-digit coefficient (1e6), C suffixes (u is 32 bits, l and ll 63,
 * ul and ull 64) and durations (ns us ms s m h d: the value in nanoseconds, 1s is 1000000000).
 * The forms only 0.17 took (10e3, 1e0, 5U, 5L, 5000000000u) are kept with a warning.
 */
static struct token lx_number(struct lexer *lx, const char *start, struct loc l)
{
	uint64_t v = 0, coef = 0, exp = 0;
	bool overflow = false, is_exp = false, trailing_us = false, is_hex = false;
	const char *bad = NULL, *sfx_start;
	char sfx[4] = "";
	size_t nsfx = 0;
	struct token t;

	if (lx_peek(lx, 0) == '0' && (lx_peek(lx, 1) == 'x' || lx_peek(lx, 1) == 'X')) {
		is_hex = true;
		lx_adv(lx);
		lx_adv(lx);
		if (lx_digit_val(lx_peek(lx, 0)) >= 16)
			bad = "expected hex digits after '0x'";
		while (lx_digit_val(lx_peek(lx, 0)) < 16 || lx_peek(lx, 0) == '_') {
			if (lx_peek(lx, 0) != '_')
				overflow |= !lx_acc(&v, 16, lx_digit_val(lx_peek(lx, 0)));
			trailing_us = lx_peek(lx, 0) == '_';
			lx_adv(lx);
		}
	} else {
		bool octal = lx_peek(lx, 0) == '0' && isdigit(lx_peek(lx, 1));

		while (isdigit(lx_peek(lx, 0)) || lx_peek(lx, 0) == '_') {
			int c = lx_peek(lx, 0);

			trailing_us = c == '_';
			if (c != '_' && octal && c >= '8')
				bad = "invalid digit in octal integer";
			else if (c != '_')
				overflow |= !lx_acc(&v, octal ? 8 : 10, c - '0');
			lx_adv(lx);
		}
		if (!octal && (lx_peek(lx, 0) == 'e' || lx_peek(lx, 0) == 'E') &&
		    isdigit(lx_peek(lx, 1))) {
			is_exp = true;
			coef = v;
			lx_adv(lx);
			while (isdigit(lx_peek(lx, 0)) || lx_peek(lx, 0) == '_') {
				if (lx_peek(lx, 0) != '_')
					overflow |= !lx_acc(&exp, 10, lx_peek(lx, 0) - '0');
				trailing_us = lx_peek(lx, 0) == '_';
				lx_adv(lx);
			}
			for (uint64_t e = exp; e > 0 && !overflow && v; e--)
				overflow |= !lx_acc(&v, 10, 0);
		}
	}
	if (trailing_us && !bad) {
		struct loc ul = lx_loc(lx);

		ul.col--;
		diag_error(lx->d, ul, "write the digits without it",
			   "trailing underscore in integer literal");
		t = lx_make(lx, TOK_ERROR, start, l);
		return t;
	}
	/* The suffix: letters and digits up to the next other character. */
	sfx_start = lx->p;
	while (lx_is_ident(lx_peek(lx, 0)))
		lx_adv(lx);
	nsfx = (size_t)(lx->p - sfx_start);
	t = lx_make(lx, TOK_INT, start, l);
	if (!bad && nsfx && is_hex) {
		bad = "a hex integer takes no suffix";
	} else if (!bad && nsfx) {
		const struct aot_int_suffix *sf = NULL;
		bool old_case = false;

		if (nsfx < sizeof(sfx)) {
			for (size_t i = 0; i < nsfx; i++)
				sfx[i] = (char)tolower((unsigned char)sfx_start[i]);
			sfx[nsfx] = 0;
			old_case = memcmp(sfx, sfx_start, nsfx) != 0;
			/* C's lu and llu: bpftrace 0.17 took them, 0.27 spells them ul and ull */
			if (!strcmp(sfx, "lu") || !strcmp(sfx, "llu")) {
				memmove(sfx + 1, sfx, nsfx - 1);
				sfx[0] = 'u';
				old_case = true;
			}
			sf = aot_int_suffix(sfx, strlen(sfx));
			if (sf && sf->unit > 1 && old_case)
				sf = NULL; /* 1S is no duration */
		}
		if (!sf) {
			struct loc sl = l;

			sl.col += (uint32_t)(sfx_start - start);
			sl.len = (uint32_t)nsfx;
			diag_error(lx->d, sl,
				   "suffixes: u, l, ll, ul, ull; durations ns, us, ms, s, m, h, d",
				   "invalid integer suffix '%.*s'", (int)nsfx, sfx_start);
			t.kind = TOK_ERROR;
			return t;
		}
		if (old_case)
			lx_number_old(
				lx, &t,
				"'%s': bpftrace 0.27 spells integer suffixes u, l, ul, ll, ull",
				arena_printf(lx->a, "%.*s%s", (int)(sfx_start - start), start,
					     sfx));
		if (!overflow && sf->unit > 1) {
			overflow = v > UINT64_MAX / sf->unit;
			v *= sf->unit;
		} else if (!overflow && v > sf->max && sf->max == UINT32_MAX) {
			lx_number_old(
				lx, &t, "'%s': in bpftrace 0.27 the suffix u means 32 bits",
				arena_printf(lx->a, "%.*sul", (int)(sfx_start - start), start));
		} else if (!overflow && v > sf->max) {
			overflow = true;
		}
	}
	if (!bad && !overflow && is_exp && (coef == 0 || coef > 9))
		lx_number_old(lx, &t,
			      "'%s': in bpftrace 0.27 the coefficient of a power of ten is 1 to 9",
			      arena_printf(lx->a, "%" PRIu64, v));
	else if (!bad && !overflow && is_exp && exp == 0)
		lx_number_old(lx, &t, "'%s': bpftrace 0.27 takes exponents from 1 on",
			      arena_printf(lx->a, "%" PRIu64, v));
	if (bad || overflow) {
		diag_error(lx->d, t.loc,
			   bad ? "integers are decimal (1_000, 1e6), hex (0x1f) or octal (017)"
			       : "the largest integer is 18446744073709551615",
			   "%s", bad ? bad : "integer literal too large");
		t.kind = TOK_ERROR;
	}
	t.num = v;
	return t;
}

/* One escape after a backslash; returns the byte, or -1 after reporting a bad escape. */
static int lx_escape(struct lexer *lx)
{
	struct loc l = lx_loc(lx);
	int c = lx_peek(lx, 0), v = 0, n;

	l.col--; /* the backslash */
	l.len = 2;
	switch (c) {
	case 'n':
		lx_adv(lx);
		return '\n';
	case 't':
		lx_adv(lx);
		return '\t';
	case 'r':
		lx_adv(lx);
		return '\r';
	case '\\':
		lx_adv(lx);
		return '\\';
	case '"':
		lx_adv(lx);
		return '"';
	case '\'':
		lx_adv(lx);
		return '\'';
	case 'x':
		lx_adv(lx);
		for (n = 0; n < 2 && lx_digit_val(lx_peek(lx, 0)) < 16; n++) {
			v = v * 16 + lx_digit_val(lx_peek(lx, 0));
			lx_adv(lx);
		}
		if (n == 0) {
			diag_error(lx->d, l, "write \\x followed by one or two hex digits",
				   "invalid hex escape");
			return -1;
		}
		return v;
	default:
		if (c >= '0' && c <= '7') {
			for (n = 0; n < 3 && lx_peek(lx, 0) >= '0' && lx_peek(lx, 0) <= '7'; n++) {
				v = v * 8 + (lx_peek(lx, 0) - '0');
				lx_adv(lx);
			}
			if (v > 255) {
				l.len = 4;
				diag_error(lx->d, l, NULL, "octal escape out of range");
				return -1;
			}
			return v;
		}
		if (c < 0 || c == '\n') {
			diag_error(lx->d, l, NULL, "backslash at the end of a line in a string");
			return -1;
		}
		lx_adv(lx);
		diag_error(lx->d, l, "known escapes: \\n \\t \\r \\\\ \\\" \\xNN \\NNN",
			   "unknown escape sequence '\\%c'", isprint(c) ? c : '?');
		return -1;
	}
}

/* "..." with C escapes, or a 'c' character constant (an integer). */
static struct token lx_quoted(struct lexer *lx, const char *start, struct loc l)
{
	int quote = lx_peek(lx, 0);
	char *buf = arena_alloc(lx->a, (size_t)(lx->end - lx->p) + 1);
	size_t n = 0;
	bool bad = false;
	struct token t;

	lx_adv(lx);
	while (lx->p < lx->end && *lx->p != quote && *lx->p != '\n') {
		if (*lx->p == '\\') {
			int c;

			lx_adv(lx);
			c = lx_escape(lx);
			if (c < 0)
				bad = true;
			else
				buf[n++] = (char)c;
		} else {
			buf[n++] = *lx->p;
			lx_adv(lx);
		}
	}
	if (lx_peek(lx, 0) != quote) {
		t = lx_make(lx, TOK_ERROR, start, l);
		diag_error(lx->d, l,
			   quote == '"' ? "strings cannot span lines; close it with '\"'" : NULL,
			   quote == '"' ? "unterminated string"
					: "unterminated character constant");
		return t;
	}
	lx_adv(lx);
	t = lx_make(lx, quote == '"' ? TOK_STR : TOK_INT, start, l);
	buf[n] = '\0';
	if (quote == '\'') {
		if (n != 1 && !bad) {
			diag_error(lx->d, t.loc, "use \"...\" for strings",
				   "a character constant holds exactly one character");
			bad = true;
		}
		t.num = n ? (unsigned char)buf[0] : 0;
	} else {
		t.str = buf;
		t.str_len = n;
	}
	if (bad)
		t.kind = TOK_ERROR;
	return t;
}

struct lx_punct {
	const char *s;
	int op;
	bool is_assign;
};

/* Longest first, so that "<<=" wins over "<<" and "<". */
static const struct lx_punct lx_puncts[] = {
	{ "<<=", OP_SHL, true },   { ">>=", OP_SHR, true }, { "->", OP_ARROW, false },
	{ "..", OP_RANGE, false }, { "++", OP_INC, false }, { "--", OP_DEC, false },
	{ "+=", '+', true },	   { "-=", '-', true },	    { "*=", '*', true },
	{ "/=", '/', true },	   { "%=", '%', true },	    { "&=", '&', true },
	{ "|=", '|', true },	   { "^=", '^', true },	    { "<<", OP_SHL, false },
	{ ">>", OP_SHR, false },   { "<=", OP_LE, false },  { ">=", OP_GE, false },
	{ "==", OP_EQ, false },	   { "!=", OP_NE, false },  { "&&", OP_AND, false },
	{ "||", OP_OR, false },
};

static const char lx_single[] = "(){}[],;:?.+-*/%&|^!~<>=";

static struct token lx_next_block(struct lexer *lx)
{
	const char *start = lx->p;
	struct loc l = lx_loc(lx);
	int c = lx_peek(lx, 0);
	struct token t;
	size_t i;

	if (lx_is_ident_start(c)) {
		while (lx_is_ident(lx_peek(lx, 0)))
			lx_adv(lx);
		return lx_make(lx, TOK_IDENT, start, l);
	}
	if (isdigit(c))
		return lx_number(lx, start, l);
	if (c == '"' || c == '\'')
		return lx_quoted(lx, start, l);
	if (c == '$') {
		lx_adv(lx);
		c = lx_peek(lx, 0);
		if (c == '#') {
			lx_adv(lx);
			t = lx_make(lx, TOK_POSPARAM, start, l);
			t.is_count = true;
			return t;
		}
		if (isdigit(c)) {
			uint64_t v = 0;
			bool overflow = false;

			while (isdigit(lx_peek(lx, 0))) {
				overflow |= !lx_acc(&v, 10, lx_peek(lx, 0) - '0');
				lx_adv(lx);
			}
			t = lx_make(lx, TOK_POSPARAM, start, l);
			t.num = v;
			if (overflow || v > INT32_MAX) {
				diag_error(lx->d, t.loc, NULL,
					   "positional parameter number too large");
				t.kind = TOK_ERROR;
			}
			return t;
		}
		if (lx_is_ident_start(c)) {
			while (lx_is_ident(lx_peek(lx, 0)))
				lx_adv(lx);
			return lx_make(lx, TOK_VAR, start, l);
		}
		t = lx_make(lx, TOK_ERROR, start, l);
		diag_error(lx->d, t.loc, "variables are written $name, parameters $1 or $#",
			   "expected a variable name after '$'");
		return t;
	}
	if (c == '@') {
		lx_adv(lx);
		while (lx_is_ident(lx_peek(lx, 0)))
			lx_adv(lx);
		return lx_make(lx, TOK_MAP, start, l);
	}
	for (i = 0; i < sizeof(lx_puncts) / sizeof(lx_puncts[0]); i++) {
		size_t n = strlen(lx_puncts[i].s);

		if ((size_t)(lx->end - lx->p) >= n && !memcmp(lx->p, lx_puncts[i].s, n)) {
			while (n--)
				lx_adv(lx);
			t = lx_make(lx, TOK_PUNCT, start, l);
			t.op = lx_puncts[i].op;
			t.is_assign = lx_puncts[i].is_assign;
			return t;
		}
	}
	if (c > 0 && strchr(lx_single, c)) {
		lx_adv(lx);
		t = lx_make(lx, TOK_PUNCT, start, l);
		t.op = c;
		return t;
	}
	lx_adv(lx);
	/* Swallow the rest of a UTF-8 sequence so it is one error, not several. */
	while (lx->p < lx->end && ((unsigned char)*lx->p & 0xc0) == 0x80)
		lx_adv(lx);
	t = lx_make(lx, TOK_ERROR, start, l);
	if (c >= 0x20 && c < 0x7f)
		diag_error(lx->d, t.loc, NULL, "invalid character '%c'", c);
	else
		diag_error(lx->d, t.loc, NULL, "invalid character (byte 0x%02x)", c);
	return t;
}

struct token lexer_next(struct lexer *lx)
{
	struct token t;

	lx_skip_space(lx);
	if (lx->p >= lx->end) {
		t = lx_make(lx, TOK_EOF, lx->p, lx_loc(lx));
		t.text = arena_strdup(lx->a, "end of input");
		return t;
	}
	return lx->toplevel ? lx_next_toplevel(lx) : lx_next_block(lx);
}

void lexer_reset(struct lexer *lx, struct loc loc, bool toplevel)
{
	const char *p = lx->src->text;
	uint32_t line = 1;

	/* Only used on error paths, so walking from the start is fine. */
	while (line < loc.line && p < lx->end) {
		if (*p++ == '\n')
			line++;
	}
	lx->line = line;
	lx->line_start = p;
	lx->p = loc.col - 1 <= (size_t)(lx->end - p) ? p + loc.col - 1 : lx->end;
	lexer_set_toplevel(lx, toplevel);
}
