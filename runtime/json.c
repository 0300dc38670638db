// SPDX-License-Identifier: GPL-2.0
/*
 * A small streaming JSON writer for the JSON output: callers say begin/key/value/end and the
 * writer places separators and escapes strings. Spacing follows bpftrace's -f json byte for byte
 * (", " and ": " in objects, "," inside tuples) so that tools comparing the two see no change.
 */
#include <inttypes.h>

#include "rt.h"

void json_init(struct json_writer *w, struct rt_buf *b)
{
	*w = (struct json_writer){ .b = b };
	w->first[0] = true;
}

/* Separator before a new item at the current level. */
static void json_sep(struct json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->first[w->depth])
		rt_buf_add(w->b, ", ", w->compact[w->depth] ? 1 : 2);
	w->first[w->depth] = false;
}

static void json_open(struct json_writer *w, char c, bool compact)
{
	json_sep(w);
	rt_buf_add(w->b, &c, 1);
	/* Deeper than any value we write: keep writing, flat, rather than overflow. */
	if (w->depth + 1 < JSON_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
	w->compact[w->depth] = compact;
	w->spaced[w->depth] = false;
}

static void json_close(struct json_writer *w, char c)
{
	if (w->spaced[w->depth])
		rt_buf_add(w->b, " ", 1);
	w->spaced[w->depth] = false;
	rt_buf_add(w->b, &c, 1);
	if (w->depth)
		w->depth--;
}

void json_object_begin(struct json_writer *w)
{
	json_open(w, '{', false);
}

void json_object_begin_spaced(struct json_writer *w)
{
	json_open(w, '{', false);
	rt_buf_add(w->b, " ", 1);
	w->spaced[w->depth] = true;
}

void json_object_end(struct json_writer *w)
{
	json_close(w, '}');
}

void json_array_begin(struct json_writer *w, bool compact)
{
	json_open(w, '[', compact);
}

void json_array_end(struct json_writer *w)
{
	json_close(w, ']');
}

void json_escape(struct rt_buf *b, const char *s, size_t n)
{
	size_t i, start = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];
		const char *esc = NULL;

		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		default:
			if (c >= 0x20)
				continue;
		}
		rt_buf_add(b, s + start, i - start);
		start = i + 1;
		if (esc)
			rt_buf_add(b, esc, 2);
		else
			rt_buf_printf(b, "\\u%04x", c);
	}
	rt_buf_add(b, s + start, n - start);
}

void json_key(struct json_writer *w, const char *k, size_t n)
{
	json_sep(w);
	rt_buf_add(w->b, "\"", 1);
	json_escape(w->b, k, n);
	rt_buf_add(w->b, "\": ", 3);
	w->after_key = true;
}

void json_raw(struct json_writer *w, const char *s, size_t n)
{
	json_sep(w);
	rt_buf_add(w->b, s, n);
}

void json_string(struct json_writer *w, const char *s, size_t n)
{
	json_sep(w);
	rt_buf_add(w->b, "\"", 1);
	json_escape(w->b, s, n);
	rt_buf_add(w->b, "\"", 1);
}

void json_int(struct json_writer *w, int64_t v)
{
	json_sep(w);
	rt_buf_printf(w->b, "%" PRId64, v);
}

void json_uint(struct json_writer *w, uint64_t v)
{
	json_sep(w);
	rt_buf_printf(w->b, "%" PRIu64, v);
}

void json_bool(struct json_writer *w, bool v)
{
	json_sep(w);
	rt_buf_add(w->b, v ? "true" : "false", v ? 4 : 5);
}
