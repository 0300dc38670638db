// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of the standard library bpftrace 0.18 to 0.27 added (docs/stdlib.md of 0.27.1):
 * has_key, len, strlen, nsecs(clock), pid(init), and the builtins made of curtask's members (ppid,
 * pcomm).
 */
#include <string.h>

#include "arena.h"
#include "funcs.h"
#include "sema_types.h"

/* x->name, typed by the record x points to. */
static struct node *sema_stdlib_member(struct sema_ctx *ctx, struct node *lhs, const char *name)
{
	struct node *f = node_new(ctx->a, NODE_FIELD, lhs->loc);

	f->name = arena_strdup(ctx->a, name);
	f->is_arrow = true;
	f->lhs = lhs;
	return f;
}

/*
 * ppid, pcomm: curtask->real_parent->tgid and ->comm, as bpftrace 0.27 defines them. The node
 * becomes that member; the record's types come from the kernel's BTF.
 */
void sema_bi_parent(struct sema_ctx *ctx, struct node *n)
{
	struct node *task = node_new(ctx->a, NODE_BUILTIN, n->loc);

	task->name = arena_strdup(ctx->a, "curtask");
	task->func = FN_CURTASK;
	n->kind = NODE_FIELD;
	n->is_arrow = true;
	n->lhs = sema_stdlib_member(ctx, task, "real_parent");
	n->name = arena_strdup(ctx->a, n->func == FN_PPID ? "tgid" : "comm");
	n->func = FN_NONE;
	sema_expr(ctx, n);
}

/*
 * has_key(@m, key): the map must have keys; the key is checked as a read of @m[key] is. That
 * element is n->lhs, made on the first walk; the arguments stay as written.
 */
void sema_fn_has_key(struct sema_ctx *ctx, struct node *n)
{
	struct node *m = n->args;

	n->type = func_defs[n->func].type;
	if (m->kind != NODE_MAP || m->args) {
		sema_error(ctx, m->loc, "write has_key(@map, key)",
			   "has_key() takes a map with keys and a key");
		return;
	}
	if (!sema_map(ctx, m)->nkeys) {
		sema_error(ctx, m->loc, "a map without keys has one value: compare it instead",
			   "%s has no keys", m->name);
		return;
	}
	if (!n->lhs) {
		n->lhs = node_new(ctx->a, NODE_MAP, m->loc);
		n->lhs->name = m->name;
		n->lhs->args = m->next;
	}
	sema_expr(ctx, n->lhs);
}

/* strlen(s): the bytes of a string before its NUL; a literal's length is a literal. */
void sema_fn_strlen(struct sema_ctx *ctx, struct node *n)
{
	struct node *s = n->args;

	sema_expr(ctx, s);
	n->type = func_defs[n->func].type;
	if (s->kind == NODE_STR) {
		n->kind = NODE_INT;
		n->num = strnlen(s->str, s->str_len);
		n->args = NULL;
		return;
	}
	if (s->type.kind != TYPE_NONE && s->type.kind != TYPE_STR)
		sema_error(ctx, s->loc, NULL, "strlen() needs a string, not %s",
			   type_name(ctx->a, &s->type));
}

/* nsecs(clock): the clock is a name, as in kstack(perf). */
void sema_fn_nsecs(struct sema_ctx *ctx, struct node *n)
{
	static const struct {
		const char *name;
		enum func_clock clock;
	} clocks[] = {
		{ "monotonic", FUNC_CLOCK_MONOTONIC },
		{ "boot", FUNC_CLOCK_BOOT },
		{ "tai", FUNC_CLOCK_TAI },
		/* bpftrace's TAI from the boot clock and an offset, for kernels before 6.1 */
		{ "sw_tai", FUNC_CLOCK_TAI },
	};
	struct node *a = n->args;

	n->type = func_defs[n->func].type;
	n->idx = FUNC_CLOCK_MONOTONIC;
	if (!a)
		return;
	for (size_t i = 0; a->kind == NODE_BUILTIN && i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcmp(a->name, clocks[i].name)) {
			n->idx = clocks[i].clock;
			return;
		}
	sema_error(ctx, a->loc, "clocks: monotonic, boot, tai", "nsecs(): unknown clock '%s'",
		   a->kind == NODE_BUILTIN ? a->name : "(an expression)");
}

/*
 * pid(ns), tid(ns): aotrace's ids are the init namespace's (bpf_get_current_pid_tgid). Those
 * of the caller's namespace (bpftrace 0.27's bare pid inside a container) would need the
 * namespace's device and inode from the runtime: not yet.
 */
void sema_fn_pid_ns(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	n->type = func_defs[n->func].type;
	if (!a || (a->kind == NODE_BUILTIN && !strcmp(a->name, "init")))
		return;
	if (a->kind == NODE_BUILTIN && !strcmp(a->name, "curr_ns")) {
		sema_error(
			ctx, a->loc,
			arena_printf(ctx->a, "%s and %s(init) are ids in the init namespace",
				     n->name, n->name),
			"%s(curr_ns): ids in the pid namespace of the caller are not supported yet",
			n->name);
		return;
	}
	sema_error(ctx, a->loc, "namespaces: init, curr_ns", "%s(): unknown namespace '%s'",
		   n->name, a->kind == NODE_BUILTIN ? a->name : "(an expression)");
}

/* len(@map): the number of elements, of a whole map; bpftrace's len of a stack is not here yet. */
void sema_fn_len(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	n->type = func_defs[n->func].type;
	if (a->kind != NODE_MAP) {
		sema_expr(ctx, a);
		sema_error(ctx, a->loc, "write len(@map)", "len() takes a whole map%s",
			   a->type.kind == TYPE_BUF ? " (the depth of a stack is not supported yet)"
						    : "");
		return;
	}
	sema_fn_whole_map(ctx, n);
}
