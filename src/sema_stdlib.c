// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of the standard library bpftrace 0.18 to 0.27 added (docs/stdlib.md of 0.27.1):
 * has_key, len, strlen, nsecs(clock), pid(init), and the builtins made of a task's members (ppid,
 * pcomm, leader_comm, leader_tid), usermode, is_err, and config's record of the settings.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "funcs.h"
#include "meta.h"
#include "probe.h"
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
 * ppid, pcomm, leader_comm, leader_tid, each with an optional task (curtask without one):
 * task->real_parent->tgid and ->comm, task->group_leader->comm and ->pid, as bpftrace 0.27
 * defines them. The node becomes that member; the record's types come from the kernel's BTF.
 */
void sema_bi_parent(struct sema_ctx *ctx, struct node *n)
{
	bool parent = n->func == FN_PPID || n->func == FN_PCOMM;
	struct node *task = n->args;

	if (!task) {
		task = node_new(ctx->a, NODE_BUILTIN, n->loc);
		task->name = arena_strdup(ctx->a, "curtask");
		task->func = FN_CURTASK;
	}
	n->args = NULL;
	n->kind = NODE_FIELD;
	n->is_arrow = true;
	n->lhs = sema_stdlib_member(ctx, task, parent ? "real_parent" : "group_leader");
	n->name = arena_strdup(ctx->a, n->func == FN_PPID	  ? "tgid"
				       : n->func == FN_LEADER_TID ? "pid"
								  : "comm");
	n->func = FN_NONE;
	sema_expr(ctx, n);
}

/*
 * usermode (bpftrace 0.27, x86-64): 1 when the probe interrupted user code, read from its
 * registers (cg_bi_usermode). A probe without registers answers as 0.27 folds it: 1 in BEGIN
 * and END, 0 elsewhere (tracepoints, kfuncs, ...).
 */
void sema_bi_usermode(struct sema_ctx *ctx, struct node *n)
{
	const struct probe_type *lacking = sema_probe_lacks(ctx, PB_REGS);

	n->type = func_defs[n->func].type;
	if (!lacking)
		return;
	n->kind = NODE_INT;
	n->num = !strcmp(lacking->name, "BEGIN") || !strcmp(lacking->name, "END");
}

/* is_err(p): a pointer, or an integer (0.27 casts it to int64 either way). */
void sema_fn_is_err(struct sema_ctx *ctx, struct node *n)
{
	struct node *p = n->args;

	sema_expr(ctx, p);
	n->type = func_defs[n->func].type;
	if (p->type.kind != TYPE_NONE && p->type.kind != TYPE_PTR && p->type.kind != TYPE_INT)
		sema_error(ctx, p->loc, "is_err() tells ERR_PTR values (-4095 to -1) apart",
			   "is_err() needs a pointer or an integer, not %s",
			   type_name(ctx->a, &p->type));
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
 * pid(ns), tid(ns): ns is curr_ns (the default: the namespace of the process that runs the
 * program) or init (codegen's cg_pid_tid).
 */
void sema_fn_pid_ns(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	n->type = func_defs[n->func].type;
	if (!a ||
	    (a->kind == NODE_BUILTIN && (!strcmp(a->name, "init") || !strcmp(a->name, "curr_ns"))))
		return;
	sema_error(ctx, a->loc, "namespaces: init, curr_ns", "%s(): unknown namespace '%s'",
		   n->name, a->kind == NODE_BUILTIN ? a->name : "(an expression)");
}

/* len(@map): the number of elements, of a whole map; len(kstack), len(ustack): its frames. */
void sema_fn_len(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	n->type = func_defs[n->func].type;
	if (a->kind != NODE_MAP || a->args) {
		sema_expr(ctx, a);
		if (a->type.kind == TYPE_BUF &&
		    (a->type.render == AOT_K_KSTACK || a->type.render == AOT_K_USTACK)) {
			ctx->prog->uses_stack_len = true;
			return;
		}
		if (a->kind == NODE_MAP)
			sema_fn_whole_map(ctx, n);
		else if (a->type.kind != TYPE_NONE)
			sema_error(ctx, a->loc, "write len(@map), len(kstack) or len(ustack)",
				   "len() takes a whole map or a stack, not %s",
				   type_name(ctx->a, &a->type));
		return;
	}
	sema_fn_whole_map(ctx, n);
}

/*
 * comm(pid), as bpftrace 0.27's standard library has it: the name of the task with that pid
 * (in the initial namespace), found with the kfunc bpf_task_from_pid, as a string of 64 bytes.
 * Only in probes whose programs may call it. n->mpath is task_struct's comm (CO-RE).
 */
void sema_fn_comm(struct sema_ctx *ctx, struct node *n)
{
	struct node *task, *field;

	n->type = func_defs[n->func].type;
	if (!n->args)
		return;
	sema_expr(ctx, n->args);
	if (n->args->type.kind != TYPE_INT) {
		sema_error(ctx, n->args->loc, "comm is the current task's name",
			   "comm(pid) takes an integer pid, not %s",
			   type_name(ctx->a, &n->args->type));
		return;
	}
	if (!sema_kfunc_allowed(ctx, "bpf_task_from_pid")) {
		sema_error(
			ctx, n->loc,
			"comm is the current task's name; comm(pid) works where kfunc_allowed(\"bpf_task_from_pid\") holds (tracepoint, kfunc, profile, interval, iter probes)",
			"comm(pid) is not supported in this probe type (%s): the kernel does not let its programs call bpf_task_from_pid",
			sema_probetype(ctx));
		return;
	}
	task = node_new(ctx->a, NODE_BUILTIN, n->loc);
	task->name = arena_strdup(ctx->a, "curtask");
	task->func = FN_CURTASK;
	field = sema_stdlib_member(ctx, task, "comm");
	sema_expr(ctx, field);
	if (!field->npath)
		return;
	n->mpath = field->mpath;
	n->npath = field->npath;
	n->type = (struct type){ .kind = TYPE_STR, .size = 64 };
}

/* ---- getopt(name, default[, help]): named parameters (bpftrace 0.27) ---- */

/* "--name" or "--name=..." of the command line: is it name's? */
static bool sema_getopt_is(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg + 2, name, n) && (arg[2 + n] == '\0' || arg[2 + n] == '=');
}

/* The value given for name, "" when it has no "=", NULL when not given (the last one counts). */
static const char *sema_getopt_value(const struct aot_compile_opts *o, const char *name)
{
	const char *val = NULL;

	for (int i = 0; i < o->nnamed; i++) {
		const char *eq = strchr(o->named[i], '=');

		if (sema_getopt_is(o->named[i], name))
			val = eq ? eq + 1 : "";
	}
	return val;
}

/* Remembers a getopt() of the program, once per name, for --help and unknown names. */
static void sema_getopt_note(struct sema_ctx *ctx, const struct node *name, const struct node *help)
{
	for (uint32_t i = 0; i < ctx->ngetopts; i++)
		if (!strcmp(ctx->getopts[i].name, name->str))
			return;
	if (ctx->ngetopts == ctx->capgetopts) {
		uint32_t cap = ctx->capgetopts ? 2 * ctx->capgetopts : 8;
		struct sema_getopt *v = arena_alloc(ctx->a, cap * sizeof(*v));

		if (ctx->ngetopts)
			memcpy(v, ctx->getopts, ctx->ngetopts * sizeof(*v));
		ctx->getopts = v;
		ctx->capgetopts = cap;
	}
	ctx->getopts[ctx->ngetopts++] =
		(struct sema_getopt){ .name = name->str, .help = help ? help->str : NULL };
}

/* The default's kind: a bool (also none given), an integer (negative: signed) or a string. */
static bool sema_getopt_default(struct node *def, struct node *n, bool *neg)
{
	*neg = def && def->kind == NODE_UNOP && def->op == '-' && def->lhs->kind == NODE_INT;
	if (!def) {
		n->kind = NODE_BOOL;
		n->num = 0;
		return true;
	}
	if (*neg || def->kind == NODE_INT || def->kind == NODE_BOOL) {
		n->kind = *neg ? NODE_INT : def->kind;
		n->num = *neg ? -def->lhs->num : def->num;
		return true;
	}
	if (def->kind == NODE_STR) {
		n->kind = NODE_STR;
		n->str = def->str;
		n->str_len = def->str_len;
		return true;
	}
	return false;
}

/* The command line's value into n, of the default's kind; false if it is not one. */
static bool sema_getopt_parse(struct node *n, const char *val, bool neg)
{
	char *end;

	switch (n->kind) {
	case NODE_BOOL:
		if (!*val || !strcmp(val, "true") || !strcmp(val, "1"))
			n->num = 1;
		else if (!strcmp(val, "false") || !strcmp(val, "0"))
			n->num = 0;
		else
			return false;
		return true;
	case NODE_INT:
		if (!*val)
			return false;
		if (neg || *val == '-')
			n->num = (uint64_t)strtoll(val, &end, 0);
		else
			n->num = strtoull(val, &end, 0);
		return !*end;
	default:
		n->str = (char *)val;
		n->str_len = strlen(val);
		return true;
	}
}

/*
 * getopt("name", default, "help"): the value of --name=value after "--" on the command line, or
 * the default, which is a literal and gives the type: none or a bool (--name alone is true), an
 * integer, a string. The node becomes that literal: the value is known when compiling (an
 * object of --emit-elf keeps the one given then).
 */
void sema_fn_getopt(struct sema_ctx *ctx, struct node *n)
{
	struct node *name = n->args, *def = name ? name->next : NULL;
	struct node *help = def ? def->next : NULL;
	struct node lit = { .loc = n->loc };
	const char *val;
	bool neg;

	if (name->kind != NODE_STR || !name->str_len || strchr(name->str, '=')) {
		sema_error(ctx, name->loc, "write getopt(\"name\", default)",
			   "getopt() takes the parameter's name as a string literal");
		return;
	}
	if (help && help->kind != NODE_STR) {
		sema_error(ctx, help->loc, NULL, "getopt()'s help text is a string literal");
		return;
	}
	if (!sema_getopt_default(def, &lit, &neg)) {
		sema_error(ctx, def->loc, "write a number, a string, true or false",
			   "getopt()'s default is a literal");
		return;
	}
	sema_getopt_note(ctx, name, help);
	val = sema_getopt_value(ctx->prog->opts, name->str);
	n->type = lit.kind == NODE_BOOL	 ? (struct type){ .kind = TYPE_BOOL, .size = 1 }
		  : lit.kind == NODE_INT ? type_int(8, neg)
					 : type_str((uint32_t)lit.str_len + 1);
	if (val && !sema_getopt_parse(&lit, val, neg)) {
		sema_error(ctx, n->loc,
			   arena_printf(ctx->a, "write --%s=%s", name->str,
					lit.kind == NODE_INT ? "NUMBER" : "true, or false"),
			   "program option --%s expects %s, given '%s'", name->str,
			   lit.kind == NODE_INT ? "an integer" : "a bool", val);
		return;
	}
	n->kind = lit.kind;
	n->num = lit.num;
	n->str = lit.kind == NODE_STR ? arena_strndup(ctx->a, lit.str, lit.str_len) : NULL;
	n->str_len = lit.str_len;
	if (lit.kind == NODE_STR)
		n->type = type_str((uint32_t)lit.str_len + 1);
	n->args = NULL;
	n->func = FN_NONE;
}

/* "--name: help" for each getopt() of the program, one a line. */
static char *sema_getopt_list(struct sema_ctx *ctx)
{
	char *s = "";

	for (uint32_t i = 0; i < ctx->ngetopts; i++) {
		const struct sema_getopt *g = &ctx->getopts[i];

		s = arena_printf(ctx->a, "%s%s--%s%s%s", s, i ? "\n  " : "", g->name,
				 g->help ? ": " : "", g->help ? g->help : "");
	}
	return *s ? s : "(none)";
}

void sema_getopt_finish(struct sema_ctx *ctx)
{
	const struct aot_compile_opts *o = ctx->prog->opts;
	struct loc none = { 0 };

	for (int i = 0; i < o->nnamed; i++) {
		bool known = false;

		if (!strcmp(o->named[i], "--help")) {
			diag_error(
				ctx->d, none,
				arena_printf(ctx->a, "they are:\n  %s", sema_getopt_list(ctx)),
				"-- --help: the program is not run; its named parameters follow");
			continue;
		}
		for (uint32_t k = 0; k < ctx->ngetopts && !known; k++)
			known = sema_getopt_is(o->named[i], ctx->getopts[k].name);
		if (!known)
			diag_error(ctx->d, none,
				   arena_printf(ctx->a, "the program's named parameters:\n  %s",
						sema_getopt_list(ctx)),
				   "unknown program option %s", o->named[i]);
	}
}

/* A new node of kind at loc: a variable, a map element, ... of the rewrites below. */
static struct node *sema_stdlib_node(struct sema_ctx *ctx, enum node_kind kind, struct loc loc,
				     const char *name)
{
	struct node *v = node_new(ctx->a, kind, loc);

	v->name = name ? arena_strdup(ctx->a, name) : NULL;
	return v;
}

/*
 * find(@m, key, $v): true and the element's value in $v if @m has key, else false and $v as it
 * was. The node becomes the block
 *
 *	{ $k = key; $f = has_key(@m, $k); if ($f) { $v = @m[$k]; } (bool)$f }
 *
 * with hidden $k and $f: the key is evaluated once, $v is typed by the assignment (and must be
 * declared before the call to be read after it, as in bpftrace 0.27).
 */
void sema_fn_find(struct sema_ctx *ctx, struct node *n)
{
	struct node *m = n->args, *key = m->next, *var = key->next, *s[3], *call, *elem, *cast;
	const char *k = arena_printf(ctx->a, "$find.k.%p", (void *)n);
	const char *f = arena_printf(ctx->a, "$find.f.%p", (void *)n);
	struct loc at = n->loc;

	if (m->kind != NODE_MAP || m->args) {
		sema_error(ctx, m->loc, "write find(@map, key, $var)",
			   "find() takes a map with keys, a key and a variable");
		return;
	}
	if (var->kind != NODE_VAR) {
		sema_error(ctx, var->loc, "declare one before: let $val;",
			   "find() stores the value in a variable");
		return;
	}
	key->next = NULL;
	/* $k = key; */
	s[0] = sema_stdlib_node(ctx, NODE_ASSIGN, at, NULL);
	s[0]->lhs = sema_stdlib_node(ctx, NODE_VAR, at, k);
	s[0]->rhs = key;
	/* $f = has_key(@m, $k); */
	call = sema_stdlib_node(ctx, NODE_CALL, at, "has_key");
	call->func = FN_HAS_KEY;
	call->args = sema_stdlib_node(ctx, NODE_MAP, m->loc, m->name);
	call->args->next = sema_stdlib_node(ctx, NODE_VAR, at, k);
	s[1] = sema_stdlib_node(ctx, NODE_ASSIGN, at, NULL);
	s[1]->lhs = sema_stdlib_node(ctx, NODE_VAR, at, f);
	s[1]->rhs = call;
	/* if ($f) { $v = @m[$k]; } */
	elem = sema_stdlib_node(ctx, NODE_MAP, m->loc, m->name);
	elem->args = sema_stdlib_node(ctx, NODE_VAR, at, k);
	s[2] = sema_stdlib_node(ctx, NODE_IF, at, NULL);
	s[2]->cond = sema_stdlib_node(ctx, NODE_VAR, at, f);
	s[2]->body = sema_stdlib_node(ctx, NODE_BLOCK, at, NULL);
	s[2]->body->body = sema_stdlib_node(ctx, NODE_ASSIGN, var->loc, NULL);
	s[2]->body->body->lhs = var;
	s[2]->body->body->rhs = elem;
	s[0]->next = s[1];
	s[1]->next = s[2];
	/* (bool)$f */
	cast = sema_stdlib_node(ctx, NODE_CAST, at, NULL);
	cast->cast_type = arena_strdup(ctx->a, "bool");
	cast->lhs = sema_stdlib_node(ctx, NODE_VAR, at, f);
	n->kind = NODE_BLOCK;
	n->func = FN_NONE;
	n->args = NULL;
	n->body = s[0];
	n->lhs = cast;
	sema_expr(ctx, n);
}

/* The bytes memcmp() may compare of an argument: any value held in bytes but a kernel record. */
static bool sema_memcmp_sized(const struct type *t)
{
	return t->kind != TYPE_NONE && t->kind != TYPE_VOID && t->kind != TYPE_RECORD &&
	       t->size > 0;
}

/*
 * memcmp(left, right, count): the first count bytes of two values, as bpftrace 0.27 compares
 * them (signed chars); at most the smaller value's size, which a literal count may not pass.
 */
void sema_fn_memcmp(struct sema_ctx *ctx, struct node *n)
{
	struct node *l = n->args, *r = l->next, *count = r->next;
	int64_t c;

	sema_expr(ctx, l);
	sema_expr(ctx, r);
	sema_expr(ctx, count);
	n->type = type_int(4, true);
	for (struct node *a = l; a != count; a = a->next)
		if (a->type.kind != TYPE_NONE && !sema_memcmp_sized(&a->type)) {
			sema_error(ctx, a->loc, "compare a value: a string, an array, a tuple, ...",
				   "memcmp() cannot compare %s", type_name(ctx->a, &a->type));
			return;
		}
	sema_need_int(ctx, count, "memcmp()'s count");
	n->idx = l->type.size < r->type.size ? l->type.size : r->type.size;
	if (sema_const_int(count, &c) && (c < 0 || (uint64_t)c > n->idx))
		sema_error(ctx, count->loc,
			   arena_printf(ctx->a, "the smaller argument has %u bytes", n->idx),
			   "memcmp() cannot compare %" PRId64 " bytes of these", c);
}

/* One field of config's record: a literal of kind NODE_BOOL, NODE_INT (num) or NODE_STR (str). */
struct sema_config_field {
	const char *name;
	enum node_kind kind;
	uint64_t num;
	const char *str;
};

/*
 * config, config() and __builtin_config (bpftrace 0.27): a record of the settings, with 0.27's
 * fields in its order, each a literal. The compiler's settings are as this compile resolved
 * them (command line, environment, config block); the runtime's as the config block gave them,
 * else 0.27's defaults, which the environment of the run may still change. The keys aotrace
 * only takes one value of (cpp_demangle, ...) or none of (max_bpf_progs, the unstable features
 * it lacks) show 0.27's defaults.
 */
void sema_bi_config(struct sema_ctx *ctx, struct node *n)
{
	static const char *const unstable[] = {
		[AOT_UNSTABLE_DEFAULT] = "warn",
		[AOT_UNSTABLE_WARN] = "warn",
		[AOT_UNSTABLE_ENABLE] = "enable",
		[AOT_UNSTABLE_ERROR] = "error",
	};
	static const char *const missing[] = {
		[AOT_MISSING_WARN] = "warn",
		[AOT_MISSING_ERROR] = "error",
		[AOT_MISSING_IGNORE] = "ignore",
	};
	const struct aot_compile_opts *o = ctx->prog->opts;
	const struct aot_meta *meta = ctx->prog->meta;
	const uint32_t *set = meta->settings;
	const struct sema_config_field fields[] = {
		{ "cpp_demangle", NODE_BOOL, 1, NULL },
		{ "lazy_symbolication", NODE_BOOL, set[AOT_SET_LAZY_SYMS] != 1, NULL },
		{ "print_maps_on_exit", NODE_BOOL, set[AOT_SET_PRINT_MAPS] != 1, NULL },
		{ "use_blazesym", NODE_BOOL, 0, NULL },
		{ "show_debug_info", NODE_BOOL, 0, NULL },
		{ "log_size", NODE_INT, set[AOT_SET_LOG_SIZE] ?: 1000000, NULL },
		{ "max_bpf_progs", NODE_INT, 1024, NULL },
		{ "max_cat_bytes", NODE_INT, set[AOT_SET_CAT_MAX] ?: 10240, NULL },
		{ "max_map_keys", NODE_INT, o->map_keys_max, NULL },
		{ "max_probes", NODE_INT, o->max_probes, NULL },
		{ "max_strlen", NODE_INT, o->strlen_max, NULL },
		{ "on_stack_limit", NODE_INT, o->on_stack_limit, NULL },
		{ "perf_rb_pages", NODE_INT, set[AOT_SET_RB_PAGES], NULL },
		{ "str_trunc_trailer", NODE_STR, 0, meta->trailer ?: AOT_TRAILER_DEFAULT },
		{ "unstable_import_statement", NODE_STR, 0, "error" },
		{ "unstable_tseries", NODE_STR, 0,
		  unstable[o->unstable_tseries <= AOT_UNSTABLE_ERROR ? o->unstable_tseries : 0] },
		{ "unstable_typeinfo", NODE_STR, 0, "error" },
		{ "unstable_dw_ustack", NODE_STR, 0, "warn" },
		/* as expand.c's policy: what was set, else 0.27's error */
		{ "missing_probes", NODE_STR, 0,
		  (o->missing_set || set[AOT_SET_MISSING]) && o->missing <= AOT_MISSING_IGNORE
			  ? missing[o->missing]
			  : "error" },
		{ "stack_mode", NODE_STR, 0,
		  aot_stack_mode_names[o->stack_mode && o->stack_mode <= AOT_STACK_MODE_COUNT
					       ? o->stack_mode - 1
					       : AOT_STACK_MODE_BPFTRACE] },
		{ "license", NODE_STR, 0, o->license ?: "GPL" },
	};
	struct node **tail = &n->args;

	n->args = NULL;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct sema_config_field *f = &fields[i];
		struct node *e = sema_stdlib_node(ctx, NODE_NAMED, n->loc, f->name);

		e->lhs = node_new(ctx->a, f->kind, n->loc);
		e->lhs->num = f->num;
		if (f->str) {
			e->lhs->str = arena_strdup(ctx->a, f->str);
			e->lhs->str_len = strlen(f->str);
		}
		*tail = e;
		tail = &e->next;
	}
	n->kind = NODE_TUPLE;
	n->func = FN_NONE;
	sema_expr(ctx, n);
}
