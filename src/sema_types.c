// SPDX-License-Identifier: GPL-2.0
/*
 * Type helpers of the semantic passes: construction, equality, the storage form a value takes in
 * a map or variable, merging the types of values that share a slot, and tuple layout.
 */
#include <string.h>

#include "arena.h"
#include "meta.h"
#include "sema_types.h"

struct type type_int(uint32_t size, bool is_signed)
{
	return (struct type){ .kind = TYPE_INT, .size = size, .is_signed = is_signed };
}

struct type type_str(uint32_t size)
{
	return (struct type){ .kind = TYPE_STR, .size = size };
}

bool type_is_agg(const struct type *t)
{
	return (t->kind >= TYPE_COUNT && t->kind <= TYPE_AVG) ||
	       (t->kind >= TYPE_STATS && t->kind <= TYPE_LHIST);
}

struct type type_buf(enum aot_kind render, uint32_t size, uint32_t arg)
{
	return (struct type){ .kind = TYPE_BUF, .size = size, .render = render, .render_arg = arg };
}

bool type_equal(const struct type *a, const struct type *b)
{
	if (a->kind != b->kind || a->size != b->size)
		return false;
	if (a->kind == TYPE_INT && a->is_signed != b->is_signed)
		return false;
	if (a->kind == TYPE_BUF && (a->render != b->render || a->render_arg != b->render_arg))
		return false;
	if (a->kind != TYPE_TUPLE)
		return true;
	if (a->nelems != b->nelems)
		return false;
	for (uint32_t i = 0; i < a->nelems; i++)
		if (!type_equal(&a->elems[i], &b->elems[i]))
			return false;
	return true;
}

struct type type_tuple(struct arena *a, const struct type *elems, uint32_t n)
{
	struct type t = { .kind = TYPE_TUPLE, .nelems = n };
	uint32_t off = 0, max_align = 1;

	t.elems = arena_alloc(a, n * sizeof(*t.elems));
	t.offsets = arena_alloc(a, n * sizeof(*t.offsets));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t align = elems[i].kind == TYPE_INT ? elems[i].size : 1;

		/* rendered values hold u64s, except short byte arrays (macaddr) */
		if (elems[i].kind == TYPE_TUPLE ||
		    (elems[i].kind == TYPE_BUF && elems[i].size >= 8))
			align = 8;
		if (align > max_align)
			max_align = align;
		off = (off + align - 1) / align * align;
		t.elems[i] = elems[i];
		t.offsets[i] = off;
		off += elems[i].size;
	}
	t.size = (off + max_align - 1) / max_align * max_align;
	return t;
}

struct type type_storage(struct arena *a, const struct type *t)
{
	struct type *elems;

	struct type st;

	switch (t->kind) {
	case TYPE_INT:
	case TYPE_BOOL:
		/* a user pointer held as an integer stays one (str($p) reads user memory) */
		st = type_int(8, t->is_signed);
		st.is_user = t->kind == TYPE_INT && t->is_user;
		return st;
	case TYPE_TUPLE:
		elems = arena_alloc(a, t->nelems * sizeof(*elems));
		for (uint32_t i = 0; i < t->nelems; i++)
			elems[i] = type_storage(a, &t->elems[i]);
		return type_tuple(a, elems, t->nelems);
	default:
		return *t;
	}
}

bool type_merge(struct arena *a, struct type *into, const struct type *b)
{
	if (into->kind == TYPE_NONE) {
		*into = type_storage(a, b);
		return true;
	}
	if (into->kind != b->kind)
		return false;
	switch (into->kind) {
	case TYPE_STR:
		if (b->size > into->size)
			into->size = b->size;
		return true;
	case TYPE_BUF:
		if (into->render != b->render)
			return false;
		if (into->render == AOT_K_BUF) {
			if (b->size > into->size)
				into->size = b->size;
			return true;
		}
		return into->size == b->size && into->render_arg == b->render_arg;
	case TYPE_TUPLE: {
		struct type *elems;

		if (into->nelems != b->nelems)
			return false;
		elems = arena_alloc(a, into->nelems * sizeof(*elems));
		for (uint32_t i = 0; i < into->nelems; i++) {
			elems[i] = into->elems[i];
			if (!type_merge(a, &elems[i], &b->elems[i]))
				return false;
		}
		*into = type_tuple(a, elems, into->nelems);
		return true;
	}
	default:
		return true;
	}
}

const char *type_name(struct arena *a, const struct type *t)
{
	static const char *const names[] = {
		[TYPE_NONE] = "none",	  [TYPE_VOID] = "void",	  [TYPE_BOOL] = "bool",
		[TYPE_COUNT] = "count",	  [TYPE_SUM] = "sum",	  [TYPE_MIN] = "min",
		[TYPE_MAX] = "max",	  [TYPE_AVG] = "avg",	  [TYPE_PTR] = "pointer",
		[TYPE_RECORD] = "record", [TYPE_STATS] = "stats", [TYPE_HIST] = "hist",
		[TYPE_LHIST] = "lhist",
	};
	const char *s;

	switch (t->kind) {
	case TYPE_INT:
		return arena_printf(a, "%sint%u", t->is_signed ? "" : "u", t->size * 8);
	case TYPE_STR:
		return arena_printf(a, "string[%u]", t->size);
	case TYPE_TUPLE:
		s = arena_strdup(a, "(");
		for (uint32_t i = 0; i < t->nelems; i++)
			s = arena_printf(a, "%s%s%s", s, i ? ", " : "", type_name(a, &t->elems[i]));
		return arena_printf(a, "%s)", s);
	case TYPE_BUF:
		s = aot_render_kind_name(t->render);
		return s ? s : "bytes";
	default:
		return names[t->kind];
	}
}
