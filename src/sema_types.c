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
	       (t->kind >= TYPE_STATS && t->kind <= TYPE_TSERIES);
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
	if (a->nelems != b->nelems || !a->names != !b->names)
		return false;
	for (uint32_t i = 0; i < a->nelems; i++)
		if (!type_equal(&a->elems[i], &b->elems[i]) ||
		    (a->names && strcmp(a->names[i], b->names[i])))
			return false;
	return true;
}

/*
 * The alignment bpftrace 0.17 gives a type inside a tuple (SizedType::GetAlignment): strings 1,
 * anything of 1 or 2 bytes its size, byte arrays (buf, usym, ntop, strftime, macaddr,
 * cgroup_path) and anything up to 4 bytes 4, an array its element's, a tuple its largest
 * element's, the rest 8.
 */
static uint32_t type_align(const struct type *t)
{
	uint32_t size = t->kind == TYPE_BOOL ? 1 : t->size, align = 1;

	switch (t->kind) {
	case TYPE_STR:
		return 1;
	case TYPE_TUPLE:
		for (uint32_t i = 0; i < t->nelems; i++)
			if (type_align(&t->elems[i]) > align)
				align = type_align(&t->elems[i]);
		return align;
	case TYPE_ARRAY:
		return t->pointee ? type_align(t->pointee) : 1;
	default:
		break;
	}
	if (size <= 2)
		return size ? size : 1;
	if (size <= 4)
		return 4;
	if (t->kind == TYPE_BUF && (t->render == AOT_K_USYM || t->render == AOT_K_INET ||
				    t->render == AOT_K_BUF || t->render == AOT_K_TIMESTAMP ||
				    t->render == AOT_K_MACADDR || t->render == AOT_K_CGROUP_PATH))
		return 4;
	return 8;
}

/*
 * Laid out as bpftrace 0.17 lays out a tuple (Struct::CreateTuple): each element at its
 * alignment (type_align), the whole padded to the largest.
 */
struct type type_tuple(struct arena *a, const struct type *elems, uint32_t n)
{
	struct type t = { .kind = TYPE_TUPLE, .nelems = n };
	uint32_t off = 0, max_align = 1;

	t.elems = arena_alloc(a, n * sizeof(*t.elems));
	t.offsets = arena_alloc(a, n * sizeof(*t.offsets));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t align = type_align(&elems[i]);

		if (align > max_align)
			max_align = align;
		off = (off + align - 1) / align * align;
		t.elems[i] = elems[i];
		t.offsets[i] = off;
		off += elems[i].kind == TYPE_BOOL ? 1 : elems[i].size;
	}
	t.size = (off + max_align - 1) / max_align * max_align;
	return t;
}

struct type type_storage(struct arena *a, const struct type *t)
{
	struct type st;

	(void)a;
	switch (t->kind) {
	case TYPE_INT:
		/* a user pointer held as an integer stays one (str($p) reads user memory) */
		st = type_int(8, t->is_signed);
		st.is_user = t->is_user;
		st.enm = t->enm;
		return st;
	case TYPE_BOOL:
		return (struct type){ .kind = TYPE_BOOL, .size = 1 };
	default:
		/* a tuple keeps its elements' own types: ((int8)1, "a") is 3 bytes, as in
		 * bpftrace; a record its names too */
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
	case TYPE_INT: /* only in tuples are they narrower than 64 bits: grow as strings do */
		/* values of one enum print by its names; of two, or of none, as numbers */
		if (into->enm != b->enm)
			into->enm = NULL;
		/* fallthrough */
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
		char **names = into->names;

		if (into->nelems != b->nelems || !into->names != !b->names)
			return false;
		for (uint32_t i = 0; names && i < into->nelems; i++)
			if (strcmp(names[i], b->names[i]))
				return false;
		elems = arena_alloc(a, into->nelems * sizeof(*elems));
		for (uint32_t i = 0; i < into->nelems; i++) {
			elems[i] = into->elems[i];
			if (!type_merge(a, &elems[i], &b->elems[i]))
				return false;
		}
		*into = type_tuple(a, elems, into->nelems);
		into->names = names;
		return true;
	}
	default:
		return true;
	}
}

const char *type_name(struct arena *a, const struct type *t)
{
	static const char *const names[] = {
		[TYPE_NONE] = "none",	  [TYPE_VOID] = "void",	      [TYPE_BOOL] = "bool",
		[TYPE_COUNT] = "count",	  [TYPE_SUM] = "sum",	      [TYPE_MIN] = "min",
		[TYPE_MAX] = "max",	  [TYPE_AVG] = "avg",	      [TYPE_PTR] = "pointer",
		[TYPE_RECORD] = "record", [TYPE_STATS] = "stats",     [TYPE_HIST] = "hist",
		[TYPE_LHIST] = "lhist",	  [TYPE_TSERIES] = "tseries",
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
			s = arena_printf(a, "%s%s%s%s%s", s, i ? ", " : "",
					 t->names ? t->names[i] : "", t->names ? " = " : "",
					 type_name(a, &t->elems[i]));
		return arena_printf(a, "%s)", s);
	case TYPE_BUF:
		s = aot_render_kind_name(t->render);
		return s ? s : "bytes";
	default:
		return names[t->kind];
	}
}
