// SPDX-License-Identifier: GPL-2.0
/*
 * Lowering, the last step of the semantic pass on a program that checked clean: every place a
 * value meets a slot of another type gets an explicit NODE_CAST, and the layouts of maps and
 * printf records go into the metadata the runtime reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "conv.h"
#include "ctypes.h"
#include "meta.h"
#include "sema_types.h"

/* Turns n into a cast of (a copy of) itself, keeping its place in its list. */
static void lower_cast(struct sema_ctx *ctx, struct node *n, const struct type *to)
{
	struct node *copy, *next = n->next;

	if (n->type.kind == TYPE_NONE || to->kind == TYPE_NONE || type_equal(&n->type, to))
		return;
	copy = arena_alloc(ctx->a, sizeof(*copy));
	*copy = *n;
	copy->next = NULL;
	*n = (struct node){
		.kind = NODE_CAST, .loc = copy->loc, .type = *to, .lhs = copy, .next = next
	};
}

static void lower_to_int64(struct sema_ctx *ctx, struct node *n, bool is_signed)
{
	struct type t = type_int(8, is_signed);

	if (n->type.kind == TYPE_INT || n->type.kind == TYPE_BOOL)
		lower_cast(ctx, n, &t);
}

static void lower_cast_int64(struct sema_ctx *ctx, struct node *n)
{
	lower_to_int64(ctx, n, n->type.is_signed);
}

/* An operand of a binary operator: as in C, an unsigned int narrower than 64 bits is an int64. */
static void lower_promote_int64(struct sema_ctx *ctx, struct node *n)
{
	lower_to_int64(ctx, n, type_int_signed64(&n->type));
}

static struct aot_type lower_meta_type(struct aot_meta *m, const struct type *t);

/*
 * A bitfield member: an INT of the bytes that hold its bits, signed only where the field fills
 * its declared type, as bpftrace 0.27 reads it (and cg_core_bitfield does).
 */
static struct aot_type lower_bitfield(struct aot_meta *m, const struct cmember *cm)
{
	struct aot_type at = { .kind = AOT_K_INT,
			       .size = (cm->bit_off + cm->bit_size + 7) / 8,
			       .is_signed = cm->type.is_signed && cm->bit_size == 8 * cm->type.size,
			       .elems = AOT_INT_BITS(cm->bit_off, cm->bit_size) };
	int e;

	aot_meta_set_version(m, AOT_META_VERSION_BITFIELD);
	if (cm->type.enm && (e = aot_meta_add_enum(m, cm->type.enm->names, cm->type.enm->vals,
						   cm->type.enm->n)) >= 0)
		at.nelems = AOT_INT_ENUM(e);
	return at;
}

/*
 * A value of a C type (a struct member, an array's items): a _Bool is the byte bpftrace 0.27
 * reads and prints it as, 0 or 1; the language's bool prints true or false.
 */
static struct aot_type lower_c_type(struct aot_meta *m, const struct type *t)
{
	if (t->kind == TYPE_BOOL)
		return (struct aot_type){ .kind = AOT_K_INT, .size = 1 };
	return lower_meta_type(m, t);
}

/* `int :0` in a C definition: no bits, nothing to print (libclang gives it bit_size 0). */
static bool lower_no_member(const struct cmember *cm)
{
	return !*cm->name && !cm->bit_size && cm->type.kind != TYPE_RECORD;
}

/*
 * The named members of a struct value, in order; an anonymous struct or union member's own
 * members take its place, as bpftrace prints them, and an unnamed bitfield prints as `. = 7`,
 * as bpftrace 0.27 prints it. Adds to m->elems from first on; returns how many.
 */
static uint32_t lower_record_members(struct aot_meta *m, struct crecord *r, uint32_t base,
				     int first, uint32_t n)
{
	if (!r || !ctypes_complete(r))
		return n;
	for (uint32_t i = 0; i < r->nmembers && n < AOT_META_MAX_TUPLE; i++) {
		const struct cmember *cm = &r->members[i];
		struct aot_type et;

		if (lower_no_member(cm))
			continue;
		if (!*cm->name && cm->type.kind == TYPE_RECORD) {
			n = lower_record_members(m, cm->type.rec, base + cm->off, first, n);
			continue;
		}
		/* The recursion may grow m->elems: index it only afterwards. */
		et = cm->bit_size ? lower_bitfield(m, cm) : lower_c_type(m, &cm->type);
		m->elems[first + n].offset = base + cm->off;
		m->elems[first + n].type = et;
		m->elems[first + n].name = strdup(cm->name);
		n++;
	}
	return n;
}

/* How many named members lower_record_members gives r. */
static uint32_t lower_record_count(struct crecord *r)
{
	uint32_t n = 0;

	if (!r || !ctypes_complete(r))
		return 0;
	for (uint32_t i = 0; i < r->nmembers; i++) {
		const struct cmember *cm = &r->members[i];

		if (lower_no_member(cm))
			continue;
		n += !*cm->name && cm->type.kind == TYPE_RECORD ? lower_record_count(cm->type.rec)
								: 1;
	}
	return n < AOT_META_MAX_TUPLE ? n : AOT_META_MAX_TUPLE;
}

static struct aot_type lower_meta_type(struct aot_meta *m, const struct type *t)
{
	struct aot_type at = { .size = t->size, .is_signed = t->is_signed };
	int first;

	switch (t->kind) {
	case TYPE_INT:
		at.kind = AOT_K_INT;
		if (t->enm) {
			int e = aot_meta_add_enum(m, t->enm->names, t->enm->vals, t->enm->n);

			if (e >= 0)
				at.nelems = AOT_INT_ENUM(e);
		}
		break;
	case TYPE_PTR: /* an address: an integer that text shows in hex */
		at.kind = AOT_K_INT;
		at.size = 8;
		at.is_signed = 0;
		at.nelems = AOT_INT_ADDRESS;
		break;
	case TYPE_BOOL:
		at.kind = AOT_K_BOOL;
		break;
	case TYPE_STR:
		at.kind = AOT_K_STR;
		if (!t->size) /* a struct's char c[0]: prints as nothing */
			aot_meta_set_version(m, AOT_META_VERSION_EMPTY_ARRAY);
		break;
	case TYPE_BUF:
		at.kind = t->render;
		if (t->render == AOT_K_KSTACK || t->render == AOT_K_USTACK) {
			at.nelems = t->render_arg & 0xffff;
			at.elems = t->render_arg >> 16;
		} else if (t->render == AOT_K_TIMESTAMP) {
			at.elems = t->render_arg;
		}
		break;
	case TYPE_TUPLE:
		/* a record (a = 1, b = 2) prints as a struct does: { .a = 1, .b = 2 } */
		at.kind = t->names ? AOT_K_RECORD : AOT_K_TUPLE;
		first = aot_meta_add_elems(m, t->nelems);
		if (first < 0)
			return (struct aot_type){ 0 };
		at.nelems = t->nelems;
		at.elems = (uint32_t)first;
		for (uint32_t i = 0; i < t->nelems; i++) {
			/* The recursion may grow m->elems: index it only afterwards. */
			struct aot_type et = lower_meta_type(m, &t->elems[i]);

			m->elems[first + i].offset = t->offsets[i];
			m->elems[first + i].type = et;
			if (t->names)
				m->elems[first + i].name = strdup(t->names[i]);
		}
		break;
	case TYPE_RECORD:
		at = (struct aot_type){ .kind = AOT_K_RECORD, .size = t->rec ? t->rec->size : 0 };
		at.nelems = lower_record_count(t->rec);
		first = aot_meta_add_elems(m, at.nelems);
		if (first < 0)
			return (struct aot_type){ 0 };
		at.elems = (uint32_t)first;
		lower_record_members(m, t->rec, 0, first, 0);
		break;
	case TYPE_ARRAY: {
		struct aot_type et;

		if (!t->pointee)
			return (struct aot_type){ 0 };
		first = aot_meta_add_elems(m, 1);
		if (first < 0)
			return (struct aot_type){ 0 };
		/* int z[0] prints as [], as bpftrace 0.27 prints it */
		if (!t->nelems)
			aot_meta_set_version(m, AOT_META_VERSION_EMPTY_ARRAY);
		et = lower_c_type(m, t->pointee);
		at = (struct aot_type){ .kind = AOT_K_ARRAY,
					.size = et.size * t->nelems,
					.nelems = t->nelems,
					.elems = (uint32_t)first };
		m->elems[first].type = et;
		break;
	}
	default:
		at.kind = AOT_K_NONE;
	}
	return at;
}

/*
 * Where bytes [off, off + len) of the string literal n are in the source: its escapes (\n,
 * \x41, \101) take more columns than the bytes they make. The whole literal if n did not come
 * from one quoted line (a positional parameter).
 */
static struct loc lower_str_loc(struct sema_ctx *ctx, const struct node *n, size_t off, size_t len)
{
	const char *text = ctx->prog->src->text, *line = text, *p;
	struct loc l = n->loc;
	size_t col = 0, digits;

	for (uint32_t i = 1; i < n->loc.line && line; i++)
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
	if (!line || n->loc.col < 1 || line[n->loc.col - 1] != '"')
		return l;
	p = line + n->loc.col; /* after the quote */
	for (size_t i = 0; i <= off + len && *p && *p != '\n'; i++) {
		if (i == off)
			col = (size_t)(p - line) + 1;
		if (i == off + len) {
			l.col = (uint32_t)col;
			l.len = (uint32_t)((size_t)(p - line) + 1 - col);
			return l;
		}
		if (*p != '\\') {
			p++;
		} else if (p[1] == 'x') {
			digits = strspn(p + 2, "0123456789abcdefABCDEF");
			p += 2 + (digits > 2 ? 2 : digits);
		} else if (p[1] >= '0' && p[1] <= '7') {
			digits = strspn(p + 1, "01234567");
			p += 1 + (digits > 3 ? 3 : digits);
		} else {
			p += 2;
		}
	}
	return l;
}

/* A conversion as written, for a message: control characters escaped as C writes them. */
static const char *lower_conv_text(struct sema_ctx *ctx, const char *start, const char *end)
{
	const char *s = "";

	for (const char *p = start; p < end; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\n')
			s = arena_printf(ctx->a, "%s\\n", s);
		else if (c == '\t')
			s = arena_printf(ctx->a, "%s\\t", s);
		else if (c < 32 || c > 126)
			s = arena_printf(ctx->a, "%s\\x%02x", s, c);
		else
			s = arena_printf(ctx->a, "%s%c", s, c);
	}
	return s;
}

/* What bpf_trace_printk formats (debugf), as bpftrace lets it: %d %u %x [l, ll], %p, %s. */
static bool lower_printk_conv(const struct aot_conv *c)
{
	if (c->nflags > 1 || (c->nflags && c->flags[0] != '-'))
		return false;
	if (c->conv == 'p' || c->conv == 's')
		return !c->length[0];
	return strchr("dux", c->conv) &&
	       (!c->length[0] || !strcmp(c->length, "l") || !strcmp(c->length, "ll"));
}

/* printf("...", args): each conversion known (src/common/conv.h) and given a value it prints. */
int sema_printf_check(struct sema_ctx *ctx, struct node *call)
{
	static const char *const hint =
		"conversions: %d %i %u %x %X %o %c %p (with hh h l ll z j t), %s, %r %rx %rh, %gr, %%";
	const char *fmt = call->args->str, *p = fmt, *start;
	struct node *arg = call->args->next;
	int nconv = 0, nargs = 0, ret = 0;
	struct aot_conv c;

	for (struct node *a = arg; a; a = a->next)
		nargs++;
	while ((p = aot_conv_next(p, &c, &start))) {
		struct loc at =
			lower_str_loc(ctx, call->args, (size_t)(start - fmt), (size_t)(p - start));
		const struct type *t;
		bool ok;

		if (c.arg == AOT_CONV_PERCENT)
			continue;
		nconv++;
		if (c.arg == AOT_CONV_UNKNOWN) {
			if (!c.conv)
				diag_error(ctx->d, at, "write %% for a percent sign",
					   "%s: the format ends in the conversion '%s'", call->name,
					   lower_conv_text(ctx, start, p));
			else
				diag_error(ctx->d, at, hint, "%s: unknown conversion '%s'",
					   call->name, lower_conv_text(ctx, start, p));
			ret = -EINVAL;
		}
		if (c.arg != AOT_CONV_UNKNOWN && call->func == FN_DEBUGF &&
		    !lower_printk_conv(&c)) {
			diag_error(ctx->d, at,
				   "bpf_trace_printk takes %d %u %x (with l or ll), %p and %s",
				   "debugf: bpf_trace_printk cannot print '%s'",
				   lower_conv_text(ctx, start, p));
			ret = -EINVAL;
		}
		if (!arg)
			continue;
		if (c.arg == AOT_CONV_UNKNOWN) {
			arg = arg->next;
			continue;
		}
		t = &arg->type;
		switch (c.arg) {
		case AOT_CONV_INT:
			ok = t->kind == TYPE_INT || t->kind == TYPE_BOOL || t->kind == TYPE_PTR;
			break;
		case AOT_CONV_GFP: /* %gr: GFP flags, an integer */
			ok = t->kind == TYPE_INT;
			break;
		case AOT_CONV_STR: /* any value, as text (bpftrace 0.27: %s of 5 is 5) */
			ok = true;
			break;
		default: /* %r: the bytes of a buf() */
			ok = t->kind == TYPE_BUF && t->render == AOT_K_BUF;
			break;
		}
		if (!ok && t->kind != TYPE_NONE) {
			diag_error(ctx->d, arg->loc,
				   c.arg == AOT_CONV_INT   ? "use %s for strings, %r for buffers"
				   : c.arg == AOT_CONV_GFP ? "%gr prints GFP flags, an integer"
				   : c.arg == AOT_CONV_STR
					   ? "use %d, %u or %x for integers"
					   : "%r prints a buf(): use %s for strings",
				   "%s: '%.*s' cannot print %s", call->name, (int)(p - start),
				   start, type_name(ctx->a, t));
			ret = -EINVAL;
		}
		arg = arg->next;
	}
	if (!ret && call->func == FN_DEBUGF && nargs > 3) {
		diag_error(ctx->d, call->loc, "bpf_trace_printk takes at most 3 arguments",
			   "debugf: %d arguments", nargs);
		return -EINVAL;
	}
	if (!ret && nconv != nargs) {
		diag_error(ctx->d, call->loc, NULL,
			   "%s: the format has %d conversion%s but %d argument%s follow%s",
			   call->name, nconv, nconv == 1 ? "" : "s", nargs, nargs == 1 ? "" : "s",
			   nargs == 1 ? "s" : "");
		return -EINVAL;
	}
	return ret;
}

/*
 * A format event: its arguments (from first on) laid out as a TUPLE in the metadata, cast to
 * their storage types; call->idx is the format's index.
 */
static int lower_fmt(struct sema_ctx *ctx, struct node *call, struct node *first,
		     enum aot_fmt_kind kind, const char *text)
{
	struct type *elems, layout;
	struct aot_fmt fmt;
	uint32_t n = 0, i = 0;
	int idx;

	for (struct node *a = first; a; a = a->next)
		n++;
	elems = arena_alloc(ctx->a, (n ? n : 1) * sizeof(*elems));
	for (struct node *a = first; a; a = a->next)
		elems[i++] = type_storage(ctx->a, &a->type);
	layout = type_tuple(ctx->a, elems, n);
	i = 0;
	for (struct node *a = first; a; a = a->next)
		lower_cast(ctx, a, &layout.elems[i++]);
	fmt = (struct aot_fmt){ .kind = kind, .fmt = (char *)text };
	fmt.args = lower_meta_type(ctx->prog->meta, &layout);
	idx = aot_meta_add_fmt(ctx->prog->meta, &fmt);
	if (idx < 0)
		return idx;
	call->idx = (uint32_t)idx;
	return 0;
}

static int lower_expr(struct sema_ctx *ctx, struct node *n);
static int lower_stmt(struct sema_ctx *ctx, struct node *n);

/* The columns n's subtree spans on line `line`: [*from, *to). */
static void lower_extent(const struct node *n, uint32_t line, uint32_t *from, uint32_t *to)
{
	for (; n; n = n->next) {
		if (n->loc.line == line && !n->loc.exp) {
			if (n->loc.col < *from)
				*from = n->loc.col;
			if (n->loc.col + n->loc.len > *to)
				*to = n->loc.col + n->loc.len;
		}
		lower_extent(n->lhs, line, from, to);
		lower_extent(n->rhs, line, from, to);
		lower_extent(n->cond, line, from, to);
		lower_extent(n->args, line, from, to);
	}
}

/* The column of `op=` before rhs on its line (skipping blanks), or dflt when it is not there. */
static uint32_t lower_op_col(struct sema_ctx *ctx, const struct node *n, const struct node *rhs,
			     uint32_t dflt)
{
	const char *p = NULL;
	uint32_t from = rhs->loc.col, to = 0;
	size_t len = 0;

	lower_extent(&(struct node){ .lhs = (struct node *)rhs }, n->loc.line, &from, &to);
	p = diag_line(diags_source(ctx->d, n->loc), n->loc.line, &len);
	if (!p || from < 4 || len < from - 1)
		return dflt;
	while (from > 3 && (p[from - 2] == ' ' || p[from - 2] == '\t'))
		from--;
	return p[from - 2] == '=' && p[from - 3] == n->op ? from - 2 : dflt;
}

#define LOWER_DIVZERO                                                                              \
	"Divide or modulo by 0 detected. This can lead to unexpected results. 1 is being used as " \
	"the result."

/*
 * a / b, a % b (and /=, %=) with a divisor not known to be non-zero: as bpftrace 0.27, 1 is
 * the result when it is 0, and the runtime warns with the expression's place each time.
 */
static int lower_divzero(struct sema_ctx *ctx, struct node *n, struct node *divisor)
{
	struct node site = *n;
	uint32_t from = n->loc.col, to = n->loc.col + n->loc.len;
	int64_t v;

	if ((n->op != '/' && n->op != '%') || n->type.kind == TYPE_PTR ||
	    (sema_const_int(divisor, &v) && v))
		return 0;
	n->divzero = true;
	if (n->loc.exp) /* in a macro: where it was called from */
		return lower_fmt(ctx, n, NULL, AOT_FMT_WARNF,
				 sema_call_site(ctx,
						&(struct node){ .loc = n->loc, .func = FN_WARNF },
						LOWER_DIVZERO));
	site.next = NULL;
	lower_extent(&site, n->loc.line, &from, &to);
	if (n->kind == NODE_ASSIGN) /* $x /= y: from the operator, as bpftrace 0.27 */
		from = lower_op_col(ctx, n, divisor, from);
	site.loc.col = from;
	site.loc.len = to - from;
	return lower_fmt(ctx, n, NULL, AOT_FMT_WARNF,
			 sema_site_excerpt(ctx, site.loc, LOWER_DIVZERO));
}

/* p + i, p - i, p += i: i (an int64 by now) counts elements of size bytes. */
static void lower_scale(struct sema_ctx *ctx, struct node *i, uint64_t size)
{
	struct node *copy, *k, *next = i->next;

	if (size <= 1)
		return;
	copy = arena_alloc(ctx->a, sizeof(*copy));
	*copy = *i;
	copy->next = NULL;
	k = node_new(ctx->a, NODE_INT, i->loc);
	k->num = size;
	k->type = type_int(8, true);
	*i = (struct node){ .kind = NODE_BINOP,
			    .op = '*',
			    .loc = copy->loc,
			    .type = type_int(8, copy->type.is_signed),
			    .lhs = copy,
			    .rhs = k,
			    .next = next };
}

static int lower_list(struct sema_ctx *ctx, struct node *n)
{
	int ret = 0;

	for (; n && !ret; n = n->next)
		ret = lower_expr(ctx, n);
	return ret;
}

static void lower_map_keys(struct sema_ctx *ctx, struct node *n)
{
	struct map_info *m = n->map;
	uint32_t i = 0;

	/* one key, or one tuple value holding all of them: @m[$k] with $k = (a, b) */
	if (m->nkeys == 1 || (n->args && !n->args->next)) {
		lower_cast(ctx, n->args, &m->key);
		return;
	}
	for (struct node *k = n->args; k; k = k->next)
		lower_cast(ctx, k, &m->key.elems[i++]);
}

/* join(argv): AOT_JOIN_MAX strings read from the array of pointers. */
static int lower_join(struct sema_ctx *ctx, struct node *call)
{
	struct type strs[AOT_JOIN_MAX], all, layout;
	struct aot_fmt fmt;
	int idx;

	for (int i = 0; i < AOT_JOIN_MAX; i++)
		strs[i] = type_str(
			AOT_JOIN_ARG_LEN); /* not strlen: bpftrace prints long arguments whole */
	all = type_tuple(ctx->a, strs, AOT_JOIN_MAX);
	layout = type_tuple(ctx->a, &all, 1);
	fmt = (struct aot_fmt){ .kind = AOT_FMT_JOIN,
				.fmt = call->args->next ? call->args->next->str : " " };
	fmt.args = lower_meta_type(ctx->prog->meta, &layout);
	idx = aot_meta_add_fmt(ctx->prog->meta, &fmt);
	if (idx < 0)
		return idx;
	call->idx = (uint32_t)idx;
	lower_cast_int64(ctx, call->args);
	return 0;
}

/* printf, system, cat: the format and the arguments after it into the metadata. */
static int lower_formatted(struct sema_ctx *ctx, struct node *n, enum aot_fmt_kind kind)
{
	return lower_list(ctx, n->args->next)
		       ?: lower_fmt(ctx, n, n->args->next, kind, n->args->str);
}

int sema_lower_printf(struct sema_ctx *ctx, struct node *n)
{
	return lower_formatted(ctx, n, AOT_FMT_PRINTF);
}

int sema_lower_system(struct sema_ctx *ctx, struct node *n)
{
	return lower_formatted(ctx, n, AOT_FMT_SYSTEM);
}

int sema_lower_cat(struct sema_ctx *ctx, struct node *n)
{
	return lower_formatted(ctx, n, AOT_FMT_CAT);
}

int sema_lower_diagf(struct sema_ctx *ctx, struct node *n)
{
	return lower_list(ctx, n->args->next)
		       ?: lower_fmt(ctx, n, n->args->next,
				    n->func == FN_WARNF ? AOT_FMT_WARNF : AOT_FMT_ERRORF,
				    sema_call_site(ctx, n, n->args->str));
}

int sema_lower_assert(struct sema_ctx *ctx, struct node *n)
{
	int ret = lower_list(ctx, n->args);

	lower_cast_int64(ctx, n->args);
	return ret
		       ?: lower_fmt(ctx, n, n->args->next, AOT_FMT_ERRORF,
				    sema_call_site(ctx, n, "assert failed: %s"));
}

/* memcmp(l, r, count): l and r keep their bytes (no widening), count is an int64. */
int sema_lower_memcmp(struct sema_ctx *ctx, struct node *n)
{
	int ret = lower_list(ctx, n->args);

	lower_cast_int64(ctx, n->args->next->next);
	return ret;
}

/* cpid: the warning of its call site when there is no child (no arguments). */
int sema_lower_cpid(struct sema_ctx *ctx, struct node *n)
{
	return lower_fmt(ctx, n, NULL, AOT_FMT_WARNF,
			 sema_call_site(ctx, n, "No child command (`-c`); cpid is zero"));
}

/*
 * comm(pid): the warnings of its call site when no task has the pid (n->idx, the pid its
 * argument) and when the kernel has no bpf_task_from_pid (n->field_off).
 */
int sema_lower_comm(struct sema_ctx *ctx, struct node *n)
{
	struct node plain = *n;
	int ret;

	if (!n->args || !n->npath)
		return 0;
	ret = lower_expr(ctx, n->args)
		      ?: lower_fmt(ctx, n, n->args, AOT_FMT_WARNF,
				   sema_call_site(ctx, n, "No such process (pid=%d)"));
	if (ret)
		return ret;
	plain.func = FN_WARNF;
	plain.args = NULL;
	ret = lower_fmt(
		ctx, &plain, NULL, AOT_FMT_WARNF,
		sema_call_site(
			ctx, &plain,
			"'bpf_task_from_pid kfunc', which is used for getting the process comm, is not supported on your system."));
	n->field_off = plain.idx;
	return ret;
}

int sema_lower_time(struct sema_ctx *ctx, struct node *n)
{
	return lower_fmt(ctx, n, NULL, AOT_FMT_TIME, n->args ? n->args->str : "%H:%M:%S\n");
}

/* print(@m, top, div): two integers; print(value): a format of one argument. */
int sema_lower_print(struct sema_ctx *ctx, struct node *n)
{
	int ret;

	if (n->args->kind == NODE_MAP && !n->args->args) {
		ret = lower_list(ctx, n->args->next);
		for (struct node *a = n->args->next; a; a = a->next)
			lower_cast_int64(ctx, a);
		return ret;
	}
	ret = lower_list(ctx, n->args);
	return ret ?: lower_fmt(ctx, n, n->args, AOT_FMT_PRINT_VALUE, "");
}

int sema_lower_names(struct sema_ctx *ctx, struct node *n)
{
	(void)ctx;
	(void)n;
	return 0;
}

int sema_lower_len(struct sema_ctx *ctx, struct node *n)
{
	return n->args->kind == NODE_MAP && !n->args->args ? 0 : lower_expr(ctx, n->args);
}

int sema_lower_percpu_kaddr(struct sema_ctx *ctx, struct node *n)
{
	return n->args->next ? lower_expr(ctx, n->args->next) : 0;
}

int sema_lower_has_key(struct sema_ctx *ctx, struct node *n)
{
	return lower_expr(ctx, n->lhs);
}

int sema_lower_join(struct sema_ctx *ctx, struct node *n)
{
	return lower_expr(ctx, n->args) ?: lower_join(ctx, n);
}

int sema_lower_strftime(struct sema_ctx *ctx, struct node *n)
{
	int ret = lower_list(ctx, n->args->next);

	lower_cast_int64(ctx, n->args->next);
	return ret;
}

static int lower_call(struct sema_ctx *ctx, struct node *n)
{
	int ret;

	if (func_defs[n->func].lower)
		return func_defs[n->func].lower(ctx, n);
	ret = lower_list(ctx, n->args);
	for (struct node *a = n->args; a; a = a->next)
		lower_cast_int64(ctx, a);
	return ret;
}

static int lower_expr(struct sema_ctx *ctx, struct node *n)
{
	int ret;

	if (!n)
		return 0;
	switch (n->kind) {
	case NODE_VAR:
		n->type = n->var->type;
		return 0;
	case NODE_MAP:
		ret = lower_list(ctx, n->args);
		lower_map_keys(ctx, n);
		return ret;
	case NODE_CALL:
		return lower_call(ctx, n);
	case NODE_BUILTIN: /* cpid: a format of its own */
		return n->func && func_defs[n->func].lower ? func_defs[n->func].lower(ctx, n) : 0;
	case NODE_FIELD:
		if (n->lhs && n->lhs->kind != NODE_BUILTIN)
			return lower_expr(ctx, n->lhs);
		return 0;
	case NODE_BINOP:
		ret = lower_expr(ctx, n->lhs) ?: lower_expr(ctx, n->rhs) ?: lower_divzero(ctx, n, n->rhs);
		lower_promote_int64(ctx, n->lhs);
		lower_promote_int64(ctx, n->rhs);
		if (n->type.kind == TYPE_PTR) /* sema_record_ptr_arith */
			lower_scale(ctx, n->lhs->type.kind == TYPE_PTR ? n->rhs : n->lhs, n->num);
		return ret;
	case NODE_UNOP:
		ret = lower_expr(ctx, n->lhs);
		if (n->op != OP_INC && n->op != OP_DEC) /* their operand is a place */
			lower_cast_int64(ctx, n->lhs);
		return ret;
	case NODE_TERNARY:
		ret = lower_expr(ctx, n->cond) ?: lower_expr(ctx, n->lhs) ?: lower_expr(ctx, n->rhs);
		lower_cast_int64(ctx, n->cond);
		if (n->lhs)
			lower_cast(ctx, n->lhs, &n->type);
		lower_cast(ctx, n->rhs, &n->type);
		return ret;
	case NODE_NAMED:
		return lower_expr(ctx, n->lhs);
	case NODE_BLOCK:
		ret = 0;
		for (struct node *s = n->body; s && !ret; s = s->next)
			ret = lower_stmt(ctx, s);
		return ret ?: lower_expr(ctx, n->lhs);
	case NODE_INDEX:
		return lower_expr(ctx, n->lhs) ?: lower_expr(ctx, n->rhs);
	case NODE_CAST:
		return lower_expr(ctx, n->lhs);
	case NODE_TUPLE: {
		uint32_t i = 0;

		ret = lower_list(ctx, n->args);
		for (struct node *e = n->args; e; e = e->next)
			lower_cast(ctx, e, &n->type.elems[i++]);
		return ret;
	}
	default:
		return 0;
	}
}

static int lower_stmt(struct sema_ctx *ctx, struct node *n)
{
	int ret = 0;

	switch (n->kind) {
	case NODE_EXPR_STMT:
		return lower_expr(ctx, n->lhs);
	case NODE_ASSIGN:
		ret = lower_expr(ctx, n->lhs) ?: lower_expr(ctx, n->rhs) ?: lower_divzero(ctx, n, n->rhs);
		if (n->op && n->lhs->type.kind == TYPE_PTR) { /* sema_record_ptr_update */
			lower_cast_int64(ctx, n->rhs);
			lower_scale(ctx, n->rhs, n->num);
		} else if (n->lhs->kind == NODE_VAR)
			lower_cast(ctx, n->rhs, &n->lhs->var->type);
		else if (!type_is_agg(&n->lhs->map->value))
			lower_cast(ctx, n->rhs, &n->lhs->map->value);
		return ret;
	case NODE_LET:
		if (!n->rhs)
			return 0;
		ret = lower_expr(ctx, n->rhs);
		lower_cast(ctx, n->rhs, &n->lhs->var->type);
		return ret;
	case NODE_IF:
		ret = lower_expr(ctx, n->cond);
		lower_cast_int64(ctx, n->cond);
		for (struct node *s = n->body->body; s && !ret; s = s->next)
			ret = lower_stmt(ctx, s);
		return ret ?: (n->else_body ? lower_stmt(ctx, n->else_body) : 0);
	case NODE_WHILE:
		ret = lower_expr(ctx, n->cond);
		lower_cast_int64(ctx, n->cond);
		return ret ?: lower_stmt(ctx, n->body);
	case NODE_FOR:
		if (n->rhs->kind == NODE_RANGE) {
			ret = lower_expr(ctx, n->rhs->lhs) ?: lower_expr(ctx, n->rhs->rhs);
			lower_cast(ctx, n->rhs->lhs, &n->rhs->type);
			lower_cast(ctx, n->rhs->rhs, &n->rhs->type);
		}
		return ret ?: lower_stmt(ctx, n->body);
	case NODE_UNROLL:
		return lower_stmt(ctx, n->body);
	case NODE_BLOCK:
		for (struct node *s = n->body; s && !ret; s = s->next)
			ret = lower_stmt(ctx, s);
		return ret;
	default:
		return 0;
	}
}

static int lower_maps(struct sema_ctx *ctx)
{
	static const uint32_t agg_of[] = {
		[TYPE_COUNT] = AOT_AGG_COUNT,	  [TYPE_SUM] = AOT_AGG_SUM,
		[TYPE_MIN] = AOT_AGG_MIN,	  [TYPE_MAX] = AOT_AGG_MAX,
		[TYPE_AVG] = AOT_AGG_AVG,	  [TYPE_STATS] = AOT_AGG_STATS,
		[TYPE_HIST] = AOT_AGG_HIST,	  [TYPE_LHIST] = AOT_AGG_LHIST,
		[TYPE_TSERIES] = AOT_AGG_TSERIES,
	};
	struct aot_meta *meta = ctx->prog->meta;

	for (struct map_info *m = ctx->prog->maps; m; m = m->next) {
		struct aot_map am = { .name = m->name,
				      .elf_name = m->elf_name,
				      .nkeys = m->nkeys,
				      .lhist_min = m->lhist_min,
				      .lhist_max = m->lhist_max,
				      .lhist_step = m->lhist_step };
		struct type in = type_int(8, m->value.is_signed);
		int idx;

		if (type_is_agg(&m->value))
			am.agg = agg_of[m->value.kind];
		if (am.agg == AOT_AGG_HIST) {
			am.hist_k = m->hist_k;
			if (m->hist_k)
				aot_meta_set_version(meta, AOT_META_VERSION_HISTK);
		}
		if (am.agg == AOT_AGG_TSERIES) {
			am.tseries_interval = m->tseries_interval;
			am.tseries_count = m->tseries_count;
			am.tseries_fn = m->tseries_fn;
		}
		am.key = lower_meta_type(meta, &m->key);
		am.value = lower_meta_type(meta, am.agg ? &in : &m->value);
		idx = aot_meta_add_map(meta, &am);
		if (idx < 0)
			return idx;
		m->meta_idx = (uint32_t)idx;
	}
	return 0;
}

int sema_lower(struct sema_ctx *ctx)
{
	int ret = 0;

	for (struct node *p = ctx->prog->root->body; p && !ret; p = p->next) {
		if (p->kind != NODE_PROBE)
			continue;
		ctx->probe = p;
		if (p->cond) {
			ret = lower_expr(ctx, p->cond);
			lower_cast_int64(ctx, p->cond);
		}
		if (!ret)
			ret = lower_stmt(ctx, p->body);
	}
	return ret ?: lower_maps(ctx);
}
