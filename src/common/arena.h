/* SPDX-License-Identifier: GPL-2.0 */
/* A bump allocator: the AST, types and everything a compilation makes are freed in one go. */
#ifndef AOT_ARENA_H
#define AOT_ARENA_H

#include <stddef.h>

struct arena;

struct arena *arena_new(void);
void arena_free(struct arena *a);
/* Zeroed memory; aborts on out-of-memory like a failed malloc in a compiler would crash anyway. */
void *arena_alloc(struct arena *a, size_t size);
/* A new array of cap elements of size bytes holding the first n of old (which stays). */
void *arena_grow(struct arena *a, const void *old, size_t n, size_t cap, size_t size);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
