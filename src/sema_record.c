// SPDX-License-Identifier: GPL-2.0
/*
 * Semantic checks of typed memory: `(struct task_struct *)curtask`, `p->a.b`, `*p`, `&p->x`,
 * `p[i]`, and identifiers that are kernel or C constants. Types come from the program's type
 * universe (ctypes.h); codegen turns the resolved member paths into CO-RE relocated reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "ctypes.h"
#include "sema_record.h"

#define SEMA_RECORD_MAX_PATH 8

#ifndef sema_error
#define sema_error(ctx, loc, hint, ...)                                                            \
	do {                                                                                       \
		if ((ctx)->report)                                                                 \
			diag_error((ctx)->d, loc, hint, __VA_ARGS__);                              \
	} while (0)
#endif

static bool sema_record_is_int(const struct type *t)
{
	return t->kind == TYPE_INT || t->kind == TYPE_BOOL || t->kind == TYPE_PTR;
}

static void sema_record_need_int(struct sema_ctx *ctx, struct node *n, const char *what)
{
	if (n->type.kind != TYPE_NONE && !sema_record_is_int(&n->type))
		sema_error(ctx, n->loc, NULL, "%s needs an integer, not %s", what,
			   ctypes_name(ctx->a, &n->type));
}

static struct ctypes *sema_record_ct(struct sema_ctx *ctx)
{
	return ctypes_get(ctx->prog, ctx->env);
}

/* Identifiers the script uses that are neither builtins nor arguments: candidate macros. */
static void sema_record_wanted(struct sema_ctx *ctx, struct node *n, const char ***v, uint32_t *nv,
			       uint32_t *cap)
{
	for (; n; n = n->next) {
		if (n->kind == NODE_BUILTIN && !func_find(n->name, FUNC_BARE)) {
			if (*nv + 1 >= *cap) {
				uint32_t c = *cap ? *cap * 2 : 16;
				const char **w = arena_alloc(ctx->a, c * sizeof(*w));

				if (*nv)
					memcpy(w, *v, *nv * sizeof(*w));
				*v = w;
				*cap = c;
			}
			(*v)[(*nv)++] = n->name;
		}
		sema_record_wanted(ctx, n->lhs, v, nv, cap);
		sema_record_wanted(ctx, n->rhs, v, nv, cap);
		sema_record_wanted(ctx, n->cond, v, nv, cap);
		sema_record_wanted(ctx, n->args, v, nv, cap);
		if (n->kind != NODE_PROGRAM) {
			sema_record_wanted(ctx, n->body, v, nv, cap);
			sema_record_wanted(ctx, n->else_body, v, nv, cap);
		}
	}
}

/*
 * Whether the C definitions hold anything once BPFTRACE_HAVE_BTF is defined, as it is where the
 * kernel has BTF: bpftrace's tools put their #include lines under #ifndef BPFTRACE_HAVE_BTF, and
 * then need no C parser at all (libclang would cost 70 MiB of memory to find that out). Only
 * the plain #ifdef/#ifndef BPFTRACE_HAVE_BTF, #else and #endif are read here; anything active
 * in between, or another conditional, goes to the C parser.
 */
static bool sema_record_c_needed(struct sema_ctx *ctx)
{
	bool active[8] = { true }, have_btf = ctypes_btf(sema_record_ct(ctx), NULL) != NULL;
	uint32_t depth = 0;

	for (struct node *p = ctx->prog->root->body; p; p = p->next) {
		const char *t = p->str;
		bool ifdef = false;

		if (p->kind != NODE_CDEF && p->kind != NODE_INCLUDE)
			continue;
		if (p->kind == NODE_CDEF && ((ifdef = !strcmp(t, "#ifdef BPFTRACE_HAVE_BTF")) ||
					     !strcmp(t, "#ifndef BPFTRACE_HAVE_BTF"))) {
			if (!have_btf || ++depth == sizeof(active) / sizeof(active[0]))
				return true;
			active[depth] = active[depth - 1] && ifdef;
		} else if (p->kind == NODE_CDEF && !strcmp(t, "#else") && depth) {
			active[depth] = active[depth - 1] && !active[depth];
		} else if (p->kind == NODE_CDEF && !strcmp(t, "#endif") && depth) {
			depth--;
		} else if (active[depth] || !strncmp(t, "#if", 3) || !strncmp(t, "#el", 3)) {
			/* an inactive #if would nest: left to the C parser too */
			return true;
		}
	}
	return depth != 0;
}

void sema_record_cdefs(struct sema_ctx *ctx)
{
	const char **wanted = NULL;
	uint32_t n = 0, cap = 0;
	bool any = false;

	for (struct node *p = ctx->prog->root->body; p; p = p->next) {
		if (p->kind == NODE_CDEF || p->kind == NODE_INCLUDE)
			any = true;
		else if (p->kind == NODE_PROBE)
			sema_record_wanted(ctx, p, &wanted, &n, &cap);
	}
	if (any && !sema_record_c_needed(ctx))
		any = false;
	if (ctx->prog->opts->includes && ctx->prog->opts->includes[0])
		any = true; /* --include FILE */
	if (!any)
		return;
	if (!wanted)
		wanted = arena_alloc(ctx->a, sizeof(*wanted));
	wanted[n] = NULL;
	ctypes_parse_c(sema_record_ct(ctx), ctx->d, wanted);
}

bool sema_record_ident(struct sema_ctx *ctx, struct node *n)
{
	struct cenum *en;
	int64_t v;

	if (!ctypes_const(sema_record_ct(ctx), n->name, &v, &en))
		return false;
	n->kind = NODE_INT;
	n->num = (uint64_t)v;
	n->type = type_int(8, true);
	n->type.enm = en; /* an enumerator prints by its name, as in bpftrace 0.27 */
	return true;
}

void sema_record_curtask(struct sema_ctx *ctx, struct node *n)
{
	const char *missing;

	if (ctypes_parse(sema_record_ct(ctx), "struct task_struct *", &n->type, &missing))
		n->type = type_int(8, false);
}

void sema_record_ctx(struct sema_ctx *ctx, struct node *n, const char *ctx_type)
{
	const char *missing;

	if (ctypes_parse(sema_record_ct(ctx), arena_printf(ctx->a, "%s *", ctx_type), &n->type,
			 &missing)) {
		sema_error(ctx, n->loc, "the kernel's BTF describes it", "ctx: no type %s",
			   ctx_type);
		n->type = type_int(8, false);
		return;
	}
	n->type.is_ctx = true;
}

/*
 * The record x.name or x->name reads from; NULL (reported) if there is none. As in bpftrace
 * 0.25 and later, '.' on a pointer to a record follows it and '->' on a record value is '.':
 * n->is_arrow ends up saying which of the two it is.
 */
static struct crecord *sema_record_of(struct sema_ctx *ctx, struct node *n)
{
	struct type *lt = &n->lhs->type;
	const struct type *pt = NULL;
	const char *op = n->is_arrow ? "->" : ".";

	if (lt->kind == TYPE_PTR)
		pt = ctypes_pointee(sema_record_ct(ctx), lt);
	if (pt && pt->kind == TYPE_RECORD) {
		n->is_arrow = true;
		return pt->rec;
	}
	if (lt->kind == TYPE_RECORD) {
		n->is_arrow = false;
		return lt->rec;
	}
	if (lt->kind == TYPE_INT && n->is_arrow)
		sema_error(ctx, n->loc, "cast it to a pointer first: ((struct name *)x)->member",
			   "'->' needs a pointer to a struct or union, not %s",
			   ctypes_name(ctx->a, lt));
	else
		sema_error(ctx, n->loc, NULL, "'%s%s': %s is not a %sstruct or union", op, n->name,
			   ctypes_name(ctx->a, lt), n->is_arrow ? "pointer to a " : "");
	return NULL;
}

/*
 * args->name whose tracepoint field is a pointer to a record ("struct __kernel_timespec * rqtp"):
 * the field is an integer in the context, its declaration says what it points at.
 */
static void sema_record_arg_ptr(struct sema_ctx *ctx, struct node *f)
{
	const char *decl = NULL, *missing;
	struct type t;
	char *s, *e;

	if (f->kind != NODE_FIELD || !f->lhs || f->lhs->kind != NODE_BUILTIN ||
	    f->lhs->func != FN_ARGS || f->type.kind != TYPE_INT || f->type.size != 8)
		return;
	for (struct node *ap = ctx->probe->args; ap && !decl; ap = ap->next)
		for (uint32_t i = 0; i < ap->nmatches && !decl; i++)
			for (uint32_t k = 0; k < ap->matches[i].nargs; k++)
				if (!strcmp(ap->matches[i].args[k].name, f->name))
					decl = ap->matches[i].args[k].decl;
	if (!decl || !strchr(decl, '*'))
		return;
	s = arena_strdup(ctx->a, decl);
	while (!strncmp(s, "const ", 6))
		s += 6;
	e = strrchr(s, '*');
	e[1] = 0;
	if (ctypes_parse(sema_record_ct(ctx), s, &t, &missing) || t.kind != TYPE_PTR)
		return;
	t.is_user = f->is_user;
	f->type = t;
}

void sema_record_kept(struct sema_ctx *ctx, struct node *v)
{
	struct type before = v->type;

	sema_record_arg_ptr(ctx, v);
	if (v->type.kind == TYPE_PTR && (!v->type.pointee || v->type.pointee->kind != TYPE_RECORD))
		v->type = before;
}

void sema_record_field(struct sema_ctx *ctx, struct node *n)
{
	sema_record_arg_ptr(ctx, n->lhs);
	const struct cmember *path[SEMA_RECORD_MAX_PATH];
	const struct cmember *m;
	struct crecord *r;
	bool user;

	if (n->lhs->type.kind == TYPE_NONE)
		return;
	r = sema_record_of(ctx, n);
	if (!r)
		return;
	if (!ctypes_complete(r) && !r->complete) {
		sema_error(ctx, n->loc, "define it in the script, or #include its header",
			   "struct %s has no definition, only a declaration", r->name);
		return;
	}
	n->npath = ctypes_member(r, n->name, path, SEMA_RECORD_MAX_PATH);
	if (!n->npath) {
		sema_error(ctx, n->loc, ctypes_member_hint(ctx->a, r, n->name),
			   "%s %s has no member '%s'", r->is_union ? "union" : "struct", r->name,
			   n->name);
		return;
	}
	n->mpath = arena_alloc(ctx->a, n->npath * sizeof(*n->mpath));
	memcpy(n->mpath, path, n->npath * sizeof(*n->mpath));
	m = path[n->npath - 1];
	if (m->bit_size && ((m->type.kind != TYPE_INT && m->type.kind != TYPE_BOOL) ||
			    m->bit_size + m->bit_off > 64)) {
		sema_error(ctx, n->loc, NULL, "the bitfield '%s' is too wide to read", n->name);
		return;
	}
	/* The memory read from is the user's if the pointer followed points there. */
	user = n->is_arrow ? n->lhs->type.is_user : n->lhs->is_user;
	n->is_user = user;
	n->type = m->type;
	/* a _Bool member is 0 or 1, as bpftrace 0.27 reads and prints it */
	if (n->type.kind == TYPE_BOOL)
		n->type = type_int(1, false);
	if (n->type.kind == TYPE_PTR)
		n->type.is_user = n->type.is_user || user;
	if (ctx->prog->opts->emit_elf && !r->btf_id && ctx->report)
		diag_warn(
			ctx->d, n->loc, "the offset is fixed: define only records the kernel lacks",
			"struct %s comes from the script, not the kernel's BTF: its layout is not "
			"relocated on other kernels",
			r->name);
}

/* Where a cast's type is written: "(enum Foo)" of "(enum Foo)3", as 0.27 marks it. */
static struct loc sema_record_cast_loc(const struct node *n)
{
	struct loc l = n->loc;

	if (n->lhs->loc.line == l.line && n->lhs->loc.col > l.col)
		l.len = n->lhs->loc.col - l.col;
	return l;
}

bool sema_record_cast(struct sema_ctx *ctx, struct node *n)
{
	struct type *lt = &n->lhs->type, t;
	const char *missing = NULL;

	if (ctypes_parse(sema_record_ct(ctx), n->cast_type, &t, &missing)) {
		sema_error(
			ctx, n->loc,
			"types come from the kernel's BTF, the script's C definitions and #include",
			"unknown type '%s'", missing);
		return true;
	}
	if (t.kind == TYPE_INT && lt->kind != TYPE_PTR && strspn(n->cast_type, "uint") >= 3 &&
	    strspn(n->cast_type + strspn(n->cast_type, "uint"), "0123456789") ==
		    strlen(n->cast_type + strspn(n->cast_type, "uint")))
		return false; /* sema_expr.c's own integer casts: int8 ... uint64 */
	if (lt->kind == TYPE_NONE)
		return true;
	switch (t.kind) {
	case TYPE_INT:
	case TYPE_BOOL:
		if (!sema_record_is_int(lt) && lt->kind != TYPE_PTR) {
			sema_error(ctx, n->loc, NULL, "cannot cast %s to %s",
				   ctypes_name(ctx->a, lt), n->cast_type);
			return true;
		}
		n->type = type_int(t.size ? t.size : 8, t.is_signed);
		n->type.enm = t.kind == TYPE_INT ? t.enm : NULL;
		/* as bpftrace 0.27: a number cast to an enum must be one of its values */
		if (n->type.enm && n->lhs->kind == NODE_INT &&
		    !ctypes_enum_name(n->type.enm, (int64_t)n->lhs->num))
			sema_error(ctx, sema_record_cast_loc(n), NULL,
				   "Enum: %s doesn't contain a variant value of %llu",
				   n->type.enm->name, (unsigned long long)n->lhs->num);
		return true;
	case TYPE_PTR:
		if (!sema_record_is_int(lt) && lt->kind != TYPE_PTR) {
			sema_error(ctx, n->loc, NULL, "cannot cast %s to a pointer",
				   ctypes_name(ctx->a, lt));
			return true;
		}
		n->type = t;
		n->type.is_user = lt->kind == TYPE_PTR ? lt->is_user : n->lhs->is_user;
		n->is_user = n->type.is_user;
		return true;
	default:
		sema_error(ctx, n->loc,
			   t.kind == TYPE_RECORD
				   ? arena_printf(ctx->a, "cast to a pointer: (%s *)", n->cast_type)
				   : NULL,
			   "cannot cast to %s", ctypes_name(ctx->a, &t));
		return true;
	}
}

void sema_record_unop(struct sema_ctx *ctx, struct node *n)
{
	struct type *lt = &n->lhs->type;
	const struct type *pt;

	if (n->op == '*')
		sema_record_arg_ptr(ctx, n->lhs); /* *args->rqtp is what it points at */
	if (lt->kind == TYPE_NONE)
		return;
	if (n->op == '&') {
		/* &$x: where the variable lives, on the BPF stack (bpftrace 0.25 and later) */
		if (n->lhs->kind == NODE_VAR) {
			n->type = (struct type){ .kind = TYPE_PTR, .size = 8 };
			n->type.pointee = arena_alloc(ctx->a, sizeof(*n->type.pointee));
			*n->type.pointee = *lt;
			/* an integer is held in 8 bytes, little-endian: its first ones are the
			 * width bpftrace 0.27 gives it ((uint32)7: 4), which p + 1 steps over */
			if (lt->kind == TYPE_INT) {
				struct type w = sema_narrow(ctx, n->lhs);

				if (w.kind == TYPE_INT)
					*n->type.pointee = w;
			}
			return;
		}
		if (!node_is_addressable(n->lhs)) {
			sema_error(
				ctx, n->loc, NULL,
				"'&' takes a variable, a member, an element or a dereference, not %s",
				n->lhs->kind == NODE_MAP ? "a map" : node_kind_name(n->lhs->kind));
			return;
		}
		n->type = (struct type){ .kind = TYPE_PTR, .size = 8, .is_user = n->lhs->is_user };
		n->type.pointee = arena_alloc(ctx->a, sizeof(*n->type.pointee));
		*n->type.pointee = *lt;
		return;
	}
	if (lt->kind == TYPE_INT) {
		/* bpftrace reads a u64 at an integer address: *kaddr("avenrun") (loads.bt) */
		n->type = type_int(8, false);
		n->is_user = lt->is_user;
		return;
	}
	if (lt->kind != TYPE_PTR) {
		sema_error(ctx, n->loc,
			   sema_record_is_int(lt) ? "cast it to a pointer first: *(uint32 *)x"
						  : NULL,
			   "cannot dereference %s: it is not a pointer", ctypes_name(ctx->a, lt));
		return;
	}
	pt = ctypes_pointee(sema_record_ct(ctx), lt);
	if (!pt || pt->kind == TYPE_VOID || pt->kind == TYPE_NONE) {
		sema_error(ctx, n->loc, "cast it to a pointer to what it points at: *(uint64 *)p",
			   "cannot dereference %s",
			   pt ? ctypes_name(ctx->a, lt) : "a void pointer");
		return;
	}
	n->type = *pt;
	n->is_user = lt->is_user;
	if (n->type.kind == TYPE_PTR)
		n->type.is_user = n->type.is_user || lt->is_user;
}

void sema_record_index(struct sema_ctx *ctx, struct node *n)
{
	struct type *lt = &n->lhs->type;
	const struct type *et = NULL;

	sema_record_arg_ptr(ctx, n->lhs); /* args->rqtp[0] too */
	if (lt->kind == TYPE_NONE || n->rhs->type.kind == TYPE_NONE)
		return;
	sema_record_need_int(ctx, n->rhs, "an index");
	if (lt->kind == TYPE_PTR) {
		et = ctypes_pointee(sema_record_ct(ctx), lt);
		n->is_user = lt->is_user;
	} else if (lt->kind == TYPE_ARRAY && node_is_addressable(n->lhs)) {
		et = lt->pointee;
		n->is_user = n->lhs->is_user;
	} else if (lt->kind == TYPE_ARRAY) {
		/* an array value of ours (pton()): a constant index, as in bpftrace */
		int64_t i;

		if (!sema_const_int(n->rhs, &i) || i < 0 || (uint64_t)i >= lt->nelems) {
			sema_error(ctx, n->rhs->loc, NULL,
				   "the index of %s must be a literal from 0 to %u",
				   ctypes_name(ctx->a, lt), lt->nelems - 1);
			return;
		}
		et = lt->pointee;
	} else if (lt->kind == TYPE_STR && node_is_addressable(n->lhs)) {
		static struct type i8 = { .kind = TYPE_INT, .size = 1, .is_signed = true };

		et = &i8;
		n->is_user = n->lhs->is_user;
	} else {
		sema_error(ctx, n->loc, NULL, "cannot index %s: it is not a pointer or an array",
			   ctypes_name(ctx->a, lt));
		return;
	}
	if (!et || et->kind == TYPE_VOID || !et->size) {
		sema_error(ctx, n->loc,
			   "cast it to a pointer to what it points at: ((uint64 *)p)[i]",
			   "cannot index %s", ctypes_name(ctx->a, lt));
		return;
	}
	n->type = *et;
	if (n->type.kind == TYPE_PTR)
		n->type.is_user = n->type.is_user || n->is_user;
}

/* The size of what p points at: the step of p + 1 (1 for void, as in GNU C). */
static uint64_t sema_record_elem_size(struct sema_ctx *ctx, struct type *p)
{
	const struct type *et = ctypes_pointee(sema_record_ct(ctx), p);

	if (!et || et->kind == TYPE_VOID || et->kind == TYPE_NONE)
		return 1;
	if (et->kind == TYPE_RECORD)
		return et->rec && et->rec->size ? et->rec->size : 1;
	if (et->kind == TYPE_BOOL)
		return 1;
	return et->size ? et->size : 1;
}

static const char *sema_record_op(struct arena *a, int op)
{
	return op == OP_SHL ? "<<" : op == OP_SHR ? ">>" : arena_printf(a, "%c", op);
}

#define SEMA_PTR_ARITH_HINT                                                                        \
	"a pointer moves by elements with + and -; cast it for anything else: (int64)p"

void sema_record_ptr_arith(struct sema_ctx *ctx, struct node *n)
{
	struct type *l = &n->lhs->type, *r = &n->rhs->type;
	bool lp = l->kind == TYPE_PTR, rp = r->kind == TYPE_PTR;

	/* bpftrace refuses p - q too: the difference of addresses is (int64)p - (int64)q */
	if (lp == rp || !(n->op == '+' || (n->op == '-' && lp))) {
		ctypes_pointee(sema_record_ct(ctx), lp ? l : r); /* for the name */
		sema_error(ctx, n->loc, SEMA_PTR_ARITH_HINT, "operator '%s' cannot take %s and %s",
			   sema_record_op(ctx->a, n->op), ctypes_name(ctx->a, l),
			   ctypes_name(ctx->a, r));
		return;
	}
	n->type = lp ? *l : *r;
	n->num = sema_record_elem_size(ctx, &n->type);
}

void sema_record_ptr_update(struct sema_ctx *ctx, struct node *n, struct type *p)
{
	struct type *r = &n->rhs->type;

	if ((n->op != '+' && n->op != '-') || r->kind == TYPE_PTR) {
		ctypes_pointee(sema_record_ct(ctx), p);
		if (r->kind == TYPE_PTR)
			ctypes_pointee(sema_record_ct(ctx), r);
		sema_error(ctx, n->loc, SEMA_PTR_ARITH_HINT, "'%s=' cannot take %s and %s",
			   sema_record_op(ctx->a, n->op), ctypes_name(ctx->a, p),
			   ctypes_name(ctx->a, r));
		return;
	}
	n->num = sema_record_elem_size(ctx, p);
}

void sema_record_ptr_incdec(struct sema_ctx *ctx, struct node *n, struct type *p)
{
	n->num = sema_record_elem_size(ctx, p);
}

/* The type of sizeof/offsetof; a record gets its members (BTF ones are filled lazily). */
static bool sema_record_named(struct sema_ctx *ctx, struct node *n, struct type *t)
{
	const char *missing = NULL;

	if (ctypes_parse(sema_record_ct(ctx), n->cast_type, t, &missing)) {
		sema_error(
			ctx, n->loc,
			"types come from the kernel's BTF, the script's C definitions and #include",
			"unknown type '%s'", missing ? missing : n->cast_type);
		return false;
	}
	if (t->kind == TYPE_RECORD && (!t->rec || !ctypes_complete(t->rec))) {
		sema_error(ctx, n->loc, "define it in the script, or #include its header",
			   "%s is declared but not defined", n->cast_type);
		return false;
	}
	return true;
}

bool sema_record_sizeof(struct sema_ctx *ctx, struct node *n, uint64_t *size)
{
	struct type t;
	char *br = n->cast_type ? strrchr(n->cast_type, '[') : NULL, *end;
	const char *whole = n->cast_type;
	unsigned long count = 1;
	bool ok;

	/* TYPE[N], as bpftrace 0.27 writes arrays (uint32*[10]: ten pointers): N of TYPE */
	if (br && (count = strtoul(br + 1, &end, 10), *end == ']' && !end[1])) {
		n->cast_type = arena_strndup(ctx->a, whole, (size_t)(br - whole));
	} else {
		count = 1;
	}
	ok = sema_record_named(ctx, n, &t);
	n->cast_type = (char *)whole;
	if (!ok)
		return false;
	*size = count * (t.kind == TYPE_RECORD ? t.rec->size : t.kind == TYPE_BOOL ? 1 : t.size);
	return true;
}

bool sema_record_offsetof(struct sema_ctx *ctx, struct node *n, uint64_t *off)
{
	const struct cmember *path[16];
	char *names = arena_strdup(ctx->a, n->args->str), *name, *save = NULL;
	struct type t;

	if (!sema_record_named(ctx, n, &t))
		return false;
	*off = 0;
	for (name = strtok_r(names, ".", &save); name; name = strtok_r(NULL, ".", &save)) {
		uint32_t depth;

		if (t.kind != TYPE_RECORD || !t.rec || !ctypes_complete(t.rec)) {
			sema_error(ctx, n->args->loc, NULL,
				   "offsetof(): '%s' is not in a struct or union", name);
			return false;
		}
		depth = ctypes_member(t.rec, name, path, 16);
		if (!depth) {
			sema_error(ctx, n->args->loc, ctypes_member_hint(ctx->a, t.rec, name),
				   "%s %s has no member '%s'", t.rec->is_union ? "union" : "struct",
				   t.rec->name, name);
			return false;
		}
		for (uint32_t i = 0; i < depth; i++)
			*off += path[i]->off;
		t = path[depth - 1]->type;
	}
	return true;
}
