// SPDX-License-Identifier: GPL-2.0
/*
 * A growable text buffer for the runtime's formatting: printf events and map lines are built in
 * one and handed to the output whole. Out of memory makes it stop growing rather than fail every
 * caller: the text is cut short and oom says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

void rt_buf_reset(struct rt_buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void rt_buf_free(struct rt_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

/* Makes room for n more bytes and a NUL; false if it cannot. */
static bool rt_buf_grow(struct rt_buf *b, size_t n)
{
	size_t cap;
	char *s;

	if (b->oom)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void rt_buf_add(struct rt_buf *b, const char *s, size_t n)
{
	if (!rt_buf_grow(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void rt_buf_vprintf(struct rt_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || !rt_buf_grow(b, n))
		return;
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	b->len += n;
}

void rt_buf_printf(struct rt_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rt_buf_vprintf(b, fmt, ap);
	va_end(ap);
}
