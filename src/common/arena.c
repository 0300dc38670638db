// SPDX-License-Identifier: GPL-2.0
/*
 * The bump allocator behind a compilation: the AST, types, names and strings all come from one
 * arena and are released together by arena_free(), so passes never free piecemeal.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

#define ARENA_CHUNK (64 * 1024)
#define ARENA_ALIGN 16

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	/* Keep the payload 16-byte aligned whatever the header size is. */
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

struct arena {
	struct arena_chunk *head;
};

static void *arena_xmalloc(size_t size)
{
	void *p = malloc(size);

	if (!p) {
		/* A compiler that cannot allocate cannot report either; fail loudly. */
		fputs("aotrace: out of memory\n", stderr);
		abort();
	}
	return p;
}

struct arena *arena_new(void)
{
	struct arena *a = arena_xmalloc(sizeof(*a));

	a->head = NULL;
	return a;
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->head;
	size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	void *p;

	if (need < size) {
		fputs("aotrace: allocation too large\n", stderr);
		abort();
	}
	if (!c || c->size - c->used < need) {
		size_t csize = need > ARENA_CHUNK ? need : ARENA_CHUNK;

		c = arena_xmalloc(sizeof(*c) + csize);
		c->size = csize;
		c->used = 0;
		/*
		 * A big one-off allocation goes behind the current chunk so the space left in the
		 * current chunk stays usable for the small ones that follow.
		 */
		if (need > ARENA_CHUNK && a->head) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = c->data + c->used;
	c->used += need;
	memset(p, 0, size);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void *arena_grow(struct arena *a, const void *old, size_t n, size_t cap, size_t size)
{
	void *p = arena_alloc(a, cap * size);

	if (n)
		memcpy(p, old, n * size);
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *tmp, *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&tmp, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("aotrace: out of memory\n", stderr);
		abort();
	}
	p = arena_strndup(a, tmp, (size_t)n);
	free(tmp);
	return p;
}
