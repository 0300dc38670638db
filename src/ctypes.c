// SPDX-License-Identifier: GPL-2.0
/*
 * The type universe: names to types, from the script's C definitions first and the kernel's BTF
 * second. BTF records are filled only when a member is looked up, so naming task_struct does not
 * convert the kernel's whole type graph. Everything lives in the program's arena; the BTF object
 * belongs to the probe environment, which outlives code generation.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ctypes.h"
#include "probe.h"

struct ctypes {
	struct arena *a;
	struct probe_env *env;
	struct program *prog;
	struct btf *btf;
	bool btf_tried;
	const char *btf_why;
	struct ctypes_c *c; /* the script's C definitions, or NULL */
	/* BTF records made so far, so that every use of one id shares one crecord */
	struct crecord **recs;
	uint32_t nrecs, caprecs;
	/* BTF enums made so far (an ENUM or ENUM64 id each), likewise */
	struct cenum **enums;
	uint32_t *enum_ids;
	uint32_t nenums, capenums;
};

struct ctypes *ctypes_get(struct program *prog, struct probe_env *env)
{
	if (!prog->ctypes) {
		prog->ctypes = arena_alloc(prog->arena, sizeof(*prog->ctypes));
		prog->ctypes->a = prog->arena;
		prog->ctypes->env = env;
		prog->ctypes->prog = prog;
	}
	return prog->ctypes;
}

void ctypes_set_c(struct ctypes *ct, struct ctypes_c *c)
{
	ct->c = c;
}

struct ctypes_c *ctypes_get_c(struct ctypes *ct)
{
	return ct->c;
}

struct arena *ctypes_arena(struct ctypes *ct)
{
	return ct->a;
}

struct program *ctypes_program(struct ctypes *ct)
{
	return ct->prog;
}

const struct btf *ctypes_btf(struct ctypes *ct, const char **why)
{
	if (!ct->btf_tried) {
		struct probe_err err = { { 0 }, { 0 } };

		ct->btf_tried = true;
		if (ct->env)
			ct->btf = probe_env_vmlinux_btf(ct->env, &err);
		if (!ct->btf)
			ct->btf_why = ct->env ? arena_strdup(ct->a, err.msg)
					      : "no kernel BTF in this context";
	}
	if (why)
		*why = ct->btf_why;
	return ct->btf;
}

static struct crecord *ctypes_btf_record(struct ctypes *ct, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(ct->btf, id);
	const char *name = btf__name_by_offset(ct->btf, t->name_off);
	struct crecord *r;

	/* A forward declaration stands for the definition of the same name, if BTF has one. */
	if (btf_is_fwd(t) && name && *name) {
		int def = btf__find_by_name_kind(ct->btf, name,
						 btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT);

		if (def > 0)
			id = (uint32_t)def;
	}
	for (uint32_t i = 0; i < ct->nrecs; i++)
		if (ct->recs[i]->btf_id == id)
			return ct->recs[i];
	t = btf__type_by_id(ct->btf, id);
	r = arena_alloc(ct->a, sizeof(*r));
	r->name = arena_strdup(ct->a, name ? name : "");
	r->btf_id = id;
	r->ct = ct;
	r->defined = !btf_is_fwd(t);
	r->is_union = btf_is_fwd(t) ? btf_kflag(t) : btf_is_union(t);
	r->size = r->defined ? t->size : 0;
	if (ct->nrecs == ct->caprecs) {
		uint32_t cap = ct->caprecs ? ct->caprecs * 2 : 32;

		ct->recs = arena_grow(ct->a, ct->recs, ct->nrecs, cap, sizeof(*ct->recs));
		ct->caprecs = cap;
	}
	ct->recs[ct->nrecs++] = r;
	return r;
}

/* Skips typedefs and qualifiers; notes a "user" type tag (__user) on the way. */
static uint32_t ctypes_btf_skip(const struct btf *btf, uint32_t id, bool *is_user)
{
	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t)
			return 0;
		if (btf_is_type_tag(t) && is_user &&
		    !strcmp(btf__name_by_offset(btf, t->name_off), "user"))
			*is_user = true;
		if (!btf_is_mod(t) && !btf_is_typedef(t) && !btf_is_type_tag(t))
			return id;
		id = t->type;
	}
	return 0;
}

static bool ctypes_btf_is_char(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name;

	if (!t || !btf_is_int(t) || t->size != 1)
		return false;
	name = btf__name_by_offset(btf, t->name_off);
	return name && strstr(name, "char");
}

/* The enum of BTF id (an ENUM or ENUM64), made on first use. */
static struct cenum *ctypes_btf_enum(struct ctypes *ct, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(ct->btf, id);
	const char *name = btf__name_by_offset(ct->btf, t->name_off);
	struct cenum *en;

	for (uint32_t i = 0; i < ct->nenums; i++)
		if (ct->enum_ids[i] == id)
			return ct->enums[i];
	en = arena_alloc(ct->a, sizeof(*en));
	en->name = arena_strdup(ct->a, name ? name : "");
	en->n = btf_vlen(t);
	en->names = arena_alloc(ct->a, (en->n + 1) * sizeof(*en->names));
	en->vals = arena_alloc(ct->a, (en->n + 1) * sizeof(*en->vals));
	for (uint32_t i = 0; i < en->n; i++) {
		if (btf_is_enum(t)) {
			const struct btf_enum *e = &btf_enum(t)[i];

			en->names[i] =
				arena_strdup(ct->a, btf__name_by_offset(ct->btf, e->name_off));
			en->vals[i] = btf_kflag(t) ? (int64_t)e->val : (int64_t)(uint32_t)e->val;
		} else {
			const struct btf_enum64 *e = &btf_enum64(t)[i];

			en->names[i] =
				arena_strdup(ct->a, btf__name_by_offset(ct->btf, e->name_off));
			en->vals[i] = (int64_t)btf_enum64_value(e);
		}
	}
	if (ct->nenums == ct->capenums) {
		uint32_t cap = ct->capenums ? ct->capenums * 2 : 16;

		ct->enums = arena_grow(ct->a, ct->enums, ct->nenums, cap, sizeof(*ct->enums));
		ct->enum_ids =
			arena_grow(ct->a, ct->enum_ids, ct->nenums, cap, sizeof(*ct->enum_ids));
		ct->capenums = cap;
	}
	ct->enums[ct->nenums] = en;
	ct->enum_ids[ct->nenums++] = id;
	return en;
}

const char *ctypes_enum_name(const struct cenum *en, int64_t val)
{
	for (uint32_t i = 0; en && i < en->n; i++)
		if (en->vals[i] == val)
			return en->names[i];
	return NULL;
}

struct type ctypes_from_btf(struct ctypes *ct, uint32_t id)
{
	const struct btf *btf = ct->btf;
	const struct btf_type *t;
	struct type out = { .kind = TYPE_NONE };
	bool is_user = false;

	if (!btf)
		return out;
	id = ctypes_btf_skip(btf, id, NULL);
	t = id ? btf__type_by_id(btf, id) : NULL;
	if (!t) {
		out.kind = TYPE_VOID;
		return out;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		if (t->size == 1 || t->size == 2 || t->size == 4 || t->size == 8)
			out = (struct type){ .kind = TYPE_INT,
					     .size = t->size,
					     .is_signed =
						     (btf_int_encoding(t) & BTF_INT_SIGNED) != 0 };
		if (btf_int_encoding(t) & BTF_INT_BOOL)
			out = (struct type){ .kind = TYPE_BOOL, .size = 1 };
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		out = (struct type){ .kind = TYPE_INT,
				     .size = t->size,
				     .is_signed = btf_kflag(t),
				     .enm = ctypes_btf_enum(ct, id) };
		break;
	case BTF_KIND_PTR: {
		uint32_t pid = ctypes_btf_skip(btf, t->type, &is_user);
		const struct btf_type *pt = pid ? btf__type_by_id(btf, pid) : NULL;

		out = (struct type){ .kind = TYPE_PTR, .size = 8, .is_user = is_user };
		/* Pointers to functions and void point at nothing we can read. */
		if (pt && !btf_is_func_proto(pt))
			out.btf_id = pid;
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FWD:
		out = (struct type){ .kind = TYPE_RECORD };
		out.rec = ctypes_btf_record(ct, id);
		out.size = out.rec->size;
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *arr = btf_array(t);

		if (ctypes_btf_is_char(btf, ctypes_btf_skip(btf, arr->type, NULL))) {
			out = (struct type){ .kind = TYPE_STR, .size = arr->nelems };
			break;
		}
		out = (struct type){ .kind = TYPE_ARRAY, .nelems = arr->nelems };
		out.pointee = arena_alloc(ct->a, sizeof(*out.pointee));
		*out.pointee = ctypes_from_btf(ct, arr->type);
		out.size = arr->nelems * out.pointee->size;
		break;
	}
	default:
		break;
	}
	return out;
}

bool ctypes_complete(struct crecord *r)
{
	struct ctypes *ct = r->ct;
	const struct btf_type *t;
	const struct btf_member *m;

	if (r->complete)
		return true;
	if (!r->btf_id || !r->defined || !ctypes_btf(ct, NULL))
		return false;
	t = btf__type_by_id(ct->btf, r->btf_id);
	m = btf_members(t);
	r->nmembers = btf_vlen(t);
	r->members = arena_alloc(ct->a, (r->nmembers + 1) * sizeof(*r->members));
	for (uint32_t i = 0; i < r->nmembers; i++) {
		struct cmember *cm = &r->members[i];
		uint32_t bits = btf_member_bit_offset(t, i);

		cm->name = arena_strdup(ct->a, btf__name_by_offset(ct->btf, m[i].name_off));
		cm->type = ctypes_from_btf(ct, m[i].type);
		cm->bit_size = btf_member_bitfield_size(t, i);
		cm->off = bits / 8;
		cm->bit_off = bits % 8;
		cm->index = i;
		cm->parent = r;
	}
	r->complete = true;
	return true;
}

const struct type *ctypes_pointee(struct ctypes *ct, struct type *ptr)
{
	if (ptr->kind != TYPE_PTR)
		return NULL;
	if (!ptr->pointee && ptr->btf_id && ctypes_btf(ct, NULL)) {
		ptr->pointee = arena_alloc(ct->a, sizeof(*ptr->pointee));
		*ptr->pointee = ctypes_from_btf(ct, ptr->btf_id);
	}
	return ptr->pointee;
}

struct crecord *ctypes_record(struct ctypes *ct, const char *name, bool is_union)
{
	struct crecord *r = ct->c ? ctypes_c_record(ct->c, name, is_union) : NULL;
	int id;

	if (r)
		return r;
	if (!ctypes_btf(ct, NULL))
		return NULL;
	id = btf__find_by_name_kind(ct->btf, name, is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT);
	if (id <= 0)
		return NULL;
	return ctypes_btf_record(ct, (uint32_t)id);
}

static const struct {
	const char *name;
	uint8_t size;
	bool is_signed;
} ctypes_ints[] = {
	{ "int8", 1, true },
	{ "int16", 2, true },
	{ "int32", 4, true },
	{ "int64", 8, true },
	{ "uint8", 1, false },
	{ "uint16", 2, false },
	{ "uint32", 4, false },
	{ "uint64", 8, false },
	{ "char", 1, true },
	{ "short", 2, true },
	{ "int", 4, true },
	{ "long", 8, true },
	{ "u8", 1, false },
	{ "u16", 2, false },
	{ "u32", 4, false },
	{ "u64", 8, false },
	{ "s8", 1, true },
	{ "s16", 2, true },
	{ "s32", 4, true },
	{ "s64", 8, true },
	{ "unsigned", 4, false },
	{ "unsigned int", 4, false },
	{ "unsigned long", 8, false },
	{ "unsigned char", 1, false },
	{ "unsigned short", 2, false },
	{ "long long", 8, true },
	{ "unsigned long long", 8, false },
	{ "size_t", 8, false },
	{ "bool", 1, false },
};

static int ctypes_base(struct ctypes *ct, const char *name, struct type *out)
{
	int id;

	for (size_t i = 0; i < sizeof(ctypes_ints) / sizeof(ctypes_ints[0]); i++) {
		if (!strcmp(name, ctypes_ints[i].name)) {
			*out = (struct type){ .kind = TYPE_INT,
					      .size = ctypes_ints[i].size,
					      .is_signed = ctypes_ints[i].is_signed };
			return 0;
		}
	}
	if (!strcmp(name, "void")) {
		*out = (struct type){ .kind = TYPE_VOID };
		return 0;
	}
	if (!strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6)) {
		bool is_union = name[0] == 'u';
		struct crecord *r = ctypes_record(ct, name + (is_union ? 6 : 7), is_union);

		if (!r)
			return -ENOENT;
		*out = (struct type){ .kind = TYPE_RECORD, .size = r->size, .rec = r };
		return 0;
	}
	if (!strncmp(name, "enum ", 5)) {
		*out = (struct type){ .kind = TYPE_INT, .size = 4, .is_signed = false };
		/* a value of an enum is a uint64, as in bpftrace 0.27 (sizeof(enum X) is 8) */
		out->size = 8;
		if (ct->c && (out->enm = ctypes_c_enum(ct->c, name + 5)))
			return 0;
		if (ctypes_btf(ct, NULL) &&
		    ((id = btf__find_by_name_kind(ct->btf, name + 5, BTF_KIND_ENUM)) > 0 ||
		     (id = btf__find_by_name_kind(ct->btf, name + 5, BTF_KIND_ENUM64)) > 0))
			out->enm = ctypes_btf_enum(ct, (uint32_t)id);
		return 0;
	}
	if (ct->c && ctypes_c_typedef(ct->c, name, out))
		return 0;
	if (ctypes_btf(ct, NULL) &&
	    (id = btf__find_by_name_kind(ct->btf, name, BTF_KIND_TYPEDEF)) > 0) {
		*out = ctypes_from_btf(ct, (uint32_t)id);
		return out->kind == TYPE_NONE ? -ENOENT : 0;
	}
	return -ENOENT;
}

int ctypes_parse(struct ctypes *ct, const char *text, struct type *out, const char **missing)
{
	size_t len = strlen(text);
	int stars = 0, err;
	char *base;

	while (len && (text[len - 1] == '*' || text[len - 1] == ' ')) {
		stars += text[len - 1] == '*';
		len--;
	}
	base = arena_strndup(ct->a, text, len);
	err = ctypes_base(ct, base, out);
	if (err) {
		*missing = base;
		return err;
	}
	for (int i = 0; i < stars; i++) {
		struct type *p = arena_alloc(ct->a, sizeof(*p));

		*p = *out;
		*out = (struct type){ .kind = TYPE_PTR,
				      .size = 8,
				      .pointee = p->kind == TYPE_VOID ? NULL : p };
	}
	return 0;
}

uint32_t ctypes_member(struct crecord *r, const char *name, const struct cmember **path,
		       uint32_t max)
{
	if (!max || (!r->complete && !ctypes_complete(r)))
		return 0;
	for (uint32_t i = 0; i < r->nmembers; i++) {
		const struct cmember *m = &r->members[i];

		if (*m->name && !strcmp(m->name, name)) {
			path[0] = m;
			return 1;
		}
	}
	/* Members of anonymous structs and unions are members of the record itself. */
	for (uint32_t i = 0; i < r->nmembers; i++) {
		const struct cmember *m = &r->members[i];
		uint32_t n;

		if (*m->name || m->type.kind != TYPE_RECORD)
			continue;
		n = ctypes_member(m->type.rec, name, path + 1, max - 1);
		if (n) {
			path[0] = m;
			return n + 1;
		}
	}
	return 0;
}

/* Levenshtein distance, bounded: names further than a few edits apart are no help anyway. */
static unsigned ctypes_distance(const char *x, const char *y)
{
	size_t lx = strlen(x), ly = strlen(y);
	unsigned row[64], prev, tmp;

	if (lx >= 63 || ly >= 63)
		return 99;
	for (size_t j = 0; j <= ly; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= lx; i++) {
		prev = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= ly; j++) {
			unsigned best = prev + (x[i - 1] != y[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[ly];
}

static void ctypes_hint_collect(struct arena *a, struct crecord *r, const char *name, char **out,
				unsigned *n)
{
	size_t nl = strlen(name);

	for (uint32_t i = 0; i < r->nmembers && *n < 5; i++) {
		const struct cmember *m = &r->members[i];
		unsigned limit = nl < 4 ? 1 : nl < 8 ? 2 : 3;

		if (!*m->name) {
			if (m->type.kind == TYPE_RECORD && ctypes_complete(m->type.rec))
				ctypes_hint_collect(a, m->type.rec, name, out, n);
			continue;
		}
		if (ctypes_distance(m->name, name) <= limit ||
		    (nl >= 3 && (strstr(m->name, name) || strstr(name, m->name)))) {
			*out = arena_printf(a, "%s%s'%s'", *out, *n ? ", " : "", m->name);
			(*n)++;
		}
	}
}

const char *ctypes_member_hint(struct arena *a, struct crecord *r, const char *name)
{
	char *s = arena_strdup(a, "");
	unsigned n = 0;

	if (!ctypes_complete(r) && !r->complete)
		return NULL;
	ctypes_hint_collect(a, r, name, &s, &n);
	if (!n)
		return NULL;
	return arena_printf(a, "did you mean %s?", s);
}

bool ctypes_const(struct ctypes *ct, const char *name, int64_t *val, struct cenum **en)
{
	uint32_t nr;

	if (en)
		*en = NULL;
	if (ct->c && ctypes_c_const(ct->c, name, val, en))
		return true;
	if (!ctypes_btf(ct, NULL))
		return false;
	nr = btf__type_cnt(ct->btf);
	for (uint32_t id = 1; id < nr; id++) {
		const struct btf_type *t = btf__type_by_id(ct->btf, id);

		if (btf_is_enum(t)) {
			const struct btf_enum *e = btf_enum(t);

			for (uint16_t i = 0; i < btf_vlen(t); i++) {
				if (!strcmp(btf__name_by_offset(ct->btf, e[i].name_off), name)) {
					*val = btf_kflag(t) ? (int64_t)e[i].val
							    : (int64_t)(uint32_t)e[i].val;
					if (en)
						*en = ctypes_btf_enum(ct, id);
					return true;
				}
			}
		} else if (btf_is_enum64(t)) {
			const struct btf_enum64 *e = btf_enum64(t);

			for (uint16_t i = 0; i < btf_vlen(t); i++) {
				if (!strcmp(btf__name_by_offset(ct->btf, e[i].name_off), name)) {
					*val = (int64_t)btf_enum64_value(&e[i]);
					if (en)
						*en = ctypes_btf_enum(ct, id);
					return true;
				}
			}
		}
	}
	return false;
}

const char *ctypes_name(struct arena *a, const struct type *t)
{
	switch (t->kind) {
	case TYPE_PTR:
		if (t->pointee)
			return arena_printf(a, "%s *", ctypes_name(a, t->pointee));
		if (t->btf_id)
			return "a pointer";
		return "void *";
	case TYPE_RECORD:
		return arena_printf(a, "%s %s", t->rec->is_union ? "union" : "struct",
				    *t->rec->name ? t->rec->name : "(anonymous)");
	case TYPE_ARRAY:
		return arena_printf(a, "%s[%u]", t->pointee ? ctypes_name(a, t->pointee) : "?",
				    t->nelems);
	case TYPE_INT:
		return arena_printf(a, "%sint%u", t->is_signed ? "" : "u", t->size * 8);
	case TYPE_STR:
		return arena_printf(a, "char[%u]", t->size);
	case TYPE_BOOL:
		return "bool";
	case TYPE_VOID:
		return "void";
	default:
		return "a value";
	}
}
