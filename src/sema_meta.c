// SPDX-License-Identifier: GPL-2.0
/*
 * The functions of bpftrace 0.27's standard library that are answered while compiling: the
 * type predicates (is_str, is_ptr, is_array, is_integer, is_unsigned_integer, is_literal),
 * probetype, strcap, kfunc_exist, kfunc_allowed and default_str_length. Each call becomes a
 * literal; its argument is checked, never evaluated. An object written with --emit-elf keeps the
 * answers of the machine it was compiled on, as bpftrace's do.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "ctypes.h"
#include "funcs.h"
#include "probe.h"
#include "sema_types.h"

static void sema_meta_bool(struct node *n, bool v)
{
	n->kind = NODE_BOOL;
	n->num = v;
	n->args = NULL;
	n->type = (struct type){ .kind = TYPE_BOOL, .size = 1 };
}

static void sema_meta_int(struct node *n, uint64_t v)
{
	n->kind = NODE_INT;
	n->num = v;
	n->args = NULL;
	n->type = type_int(8, true);
}

/* bpftrace's literals: 1, -1, "a", true (a negative number is the negation of one). */
static bool sema_meta_is_literal(const struct node *a)
{
	if (a->kind == NODE_UNOP && a->op == '-')
		a = a->lhs;
	return a->kind == NODE_INT || a->kind == NODE_STR || a->kind == NODE_BOOL;
}

/* is_str(e), is_ptr(e), ...: what bpftrace 0.27's typeinfo(e).base_type says of e. */
void sema_fn_is_type(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;
	bool literal = sema_meta_is_literal(a), v = false;

	sema_expr(ctx, a);
	switch (n->func) {
	case FN_IS_LITERAL:
		v = literal;
		break;
	case FN_IS_STR:
		v = a->type.kind == TYPE_STR;
		break;
	case FN_IS_PTR:
		v = a->type.kind == TYPE_PTR;
		break;
	case FN_IS_ARRAY:
		v = a->type.kind == TYPE_ARRAY;
		break;
	case FN_IS_INTEGER:
		v = a->type.kind == TYPE_INT;
		break;
	case FN_IS_UNSIGNED_INTEGER:
		v = a->type.kind == TYPE_INT && !a->type.is_signed;
		break;
	default:
		break;
	}
	sema_meta_bool(n, v);
}

/* default_str_length(): the string length the run was compiled with (max_strlen), a literal. */
void sema_fn_default_str_length(struct sema_ctx *ctx, struct node *n)
{
	sema_meta_int(n, ctx->prog->opts->strlen_max);
}

/* bpftrace's name of a probe type (probetypeName), where it is not aotrace's. */
static const char *sema_meta_probetype(const struct probe_type *pt)
{
	static const char *const names[][2] = {
		{ "BEGIN", "special" },	       { "END", "special" },	{ "self", "special" },
		{ "kfunc", "fentry" },	       { "kretfunc", "fexit" }, { "bench", "benchmark" },
		{ "tp_btf", "rawtracepoint" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(pt->name, names[i][0]))
			return names[i][1];
	return pt->name;
}

/* The probe type of the probe's first attach point that matched anything, or NULL. */
static const struct probe_match *sema_meta_first_match(struct sema_ctx *ctx)
{
	for (struct node *ap = ctx->probe->args; ap; ap = ap->next)
		if (ap->nmatches)
			return &ap->matches[0];
	return NULL;
}

/* probetype: the first attach point's type, as bpftrace names it ("none" if nothing matched). */
const char *sema_probetype(struct sema_ctx *ctx)
{
	const struct probe_match *m = sema_meta_first_match(ctx);

	return m ? sema_meta_probetype(m->pt) : "none";
}

void sema_bi_probetype(struct sema_ctx *ctx, struct node *n)
{
	const char *name = sema_probetype(ctx);

	n->kind = NODE_STR;
	n->str = arena_strdup(ctx->a, name);
	n->str_len = strlen(name);
	n->args = NULL;
	n->type = type_str((uint32_t)n->str_len + 1);
}

/* strcap(s): a string's capacity (its buffer with the NUL), an array's elements. */
void sema_fn_strcap(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	sema_expr(ctx, a);
	if (a->type.kind == TYPE_STR)
		sema_meta_int(n, a->type.size);
	else if (a->type.kind == TYPE_ARRAY)
		sema_meta_int(n, a->type.nelems);
	else if (a->type.kind != TYPE_NONE)
		sema_error(ctx, a->loc, "a pointer's string has no capacity: read it with str()",
			   "strcap() needs a string or an array, not %s",
			   type_name(ctx->a, &a->type));
}

/* The kfunc's name: a string literal, as bpftrace requires. */
static const char *sema_meta_kfunc_name(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	if (a->kind != NODE_STR) {
		sema_error(ctx, a->loc, "write the kfunc's name in quotes",
			   "%s() accepts a string literal only", n->name);
		return NULL;
	}
	return a->str;
}

/* The kfunc's BTF id in the kernel's BTF (0: none, or no BTF). */
static int sema_meta_kfunc_id(struct sema_ctx *ctx, const char *name)
{
	struct probe_err err = { 0 };
	struct btf *btf = probe_env_vmlinux_btf(ctx->env, &err);
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;

	return id > 0 ? id : 0;
}

/* kfunc_exist("name"): the kernel's BTF has a function of that name. */
void sema_fn_kfunc_exist(struct sema_ctx *ctx, struct node *n)
{
	const char *name = sema_meta_kfunc_name(ctx, n);

	if (name)
		sema_meta_bool(n, sema_meta_kfunc_id(ctx, name) > 0);
}

/* The program type of the probe's first attach point, from its section (UNSPEC if none). */
static enum bpf_prog_type sema_meta_prog_type(struct sema_ctx *ctx)
{
	const struct probe_match *m = sema_meta_first_match(ctx);
	enum bpf_prog_type type = BPF_PROG_TYPE_UNSPEC;
	enum bpf_attach_type attach;

	if (m && m->section)
		libbpf_prog_type_by_name(m->section, &type, &attach);
	return type;
}

/* Whether the probe runs as a tracing program (kfunc, kretfunc, iter), as some helpers need. */
bool sema_tracing_prog(struct sema_ctx *ctx)
{
	return sema_meta_prog_type(ctx) == BPF_PROG_TYPE_TRACING;
}

/*
 * socket_cookie(sk): a struct sock pointer, as bpftrace 0.27 requires, in a probe whose program
 * may call bpf_get_socket_cookie on one (a tracing program: kfunc, kretfunc, iter).
 */
void sema_fn_socket_cookie(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;
	const struct type *pt;

	n->type = type_int(8, false);
	sema_expr(ctx, a);
	if (a->type.kind == TYPE_NONE)
		return;
	pt = a->type.kind == TYPE_PTR ? ctypes_pointee(ctypes_get(ctx->prog, ctx->env), &a->type)
				      : NULL;
	if (!pt || pt->kind != TYPE_RECORD || !pt->rec || strcmp(pt->rec->name, "sock")) {
		sema_error(
			ctx, a->loc, "pass a struct sock pointer, e.g. args.sk",
			"socket_cookie() only supports 'struct sock *' as the argument (%s provided)",
			pt && pt->kind == TYPE_RECORD && pt->rec
				? arena_printf(ctx->a, "'%s %s *'",
					       pt->rec->is_union ? "union" : "struct",
					       pt->rec->name)
				: type_name(ctx->a, &a->type));
		return;
	}
	if (!sema_tracing_prog(ctx))
		sema_error(ctx, n->loc, "use it in kfunc (fentry) or kretfunc probes",
			   "socket_cookie() is not available in %s probes: the kernel gives "
			   "bpf_get_socket_cookie a struct sock only in tracing programs",
			   sema_probetype(ctx));
}

/*
 * kfunc_allowed("name"): as bpftrace decides it, the kernel does not refuse a program of the
 * probe's program type that calls the kfunc with "calling kernel function NAME is not
 * allowed" (any other failure of the tried load counts as allowed).
 */
bool sema_kfunc_allowed(struct sema_ctx *ctx, const char *name)
{
	enum bpf_prog_type type = sema_meta_prog_type(ctx);
	char log[4096] = "", *refusal;
	struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 1);
	int id, fd;

	id = sema_meta_kfunc_id(ctx, name);
	if (id <= 0 || type == BPF_PROG_TYPE_UNSPEC)
		return false;
	insns[0].imm = id;
	fd = bpf_prog_load(type, "aot_kfunc", "GPL", insns, sizeof(insns) / sizeof(insns[0]),
			   &opts);
	if (fd >= 0)
		close(fd);
	refusal = arena_printf(ctx->a, "calling kernel function %s is not allowed", name);
	return fd >= 0 || !strstr(log, refusal);
}

void sema_fn_kfunc_allowed(struct sema_ctx *ctx, struct node *n)
{
	const char *name = sema_meta_kfunc_name(ctx, n);

	if (name)
		sema_meta_bool(n, sema_kfunc_allowed(ctx, name));
}
