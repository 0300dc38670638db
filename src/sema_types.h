/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the semantic passes share: the context of a walk, the type helpers, and the checks and
 * lowerings the rows of src/funcs.c name. Only src/sema*.c and src/funcs.c include it.
 */
#ifndef AOT_SEMA_TYPES_H
#define AOT_SEMA_TYPES_H

#include "frontend.h"
#include "meta.h"

#define sema_error(ctx, loc, hint, ...)                                                            \
	do {                                                                                       \
		if ((ctx)->report)                                                                 \
			diag_error((ctx)->d, loc, hint, __VA_ARGS__);                              \
	} while (0)

struct sema_ctx {
	struct program *prog;
	struct probe_env *env;
	struct diags *d;
	struct arena *a;
	struct node *probe;	 /* the NODE_PROBE being checked */
	bool report;		 /* only the last walk reports: earlier ones just learn map types */
	struct node *assign_rhs; /* the call that is the whole right side of a map assignment */
	int loops;		 /* depth of while/unroll around the statement being checked */
	bool reads_args;	 /* the probe being checked reads args, argN or retval */
	bool tseries_warned;	 /* unstable_tseries's warning was given (once a program) */
	/* variables assigned since the innermost if's else branch began (block scoping) */
	struct var_info **assigned;
	uint32_t nassigned, capassigned;
	/* the getopt() calls, one per name: the program's named parameters */
	struct sema_getopt {
		const char *name, *help; /* help NULL if none */
	} * getopts;
	uint32_t ngetopts, capgetopts;
	/* sizeof($var) calls, sized again once the last walk knows each variable's final type */
	struct sema_sizeof {
		struct node *n;
		struct var_info *var;
		struct sema_sizeof *next;
	} * sizeofs;
	/* casts to an integer or pointer type, for sema_cast_finish */
	struct sema_cast {
		struct node *n;
		struct sema_cast *next;
	} * casts;
};

/* sizeof($var) is the size of the type $var ends with, later assignments that widen it too. */
void sema_sizeof_finish(struct sema_ctx *ctx);
/* 0.27's "Unnecessary cast" warnings, once every variable has its final type */
void sema_cast_finish(struct sema_ctx *ctx);

/* ---- types (sema_types.c) ---- */

struct type type_int(uint32_t size, bool is_signed);
struct type type_str(uint32_t size);
/*
 * A value only user space renders (kstack, ksym, ...): size bytes, laid out per
 * src/common/meta.h.
 */
struct type type_buf(enum aot_kind render, uint32_t size, uint32_t arg);
bool type_equal(const struct type *a, const struct type *b);
/* The type a value takes when stored in a map or variable: ints widen to 64 bits. */
struct type type_storage(struct arena *a, const struct type *t);
/*
 * Merges b into a for two values that share a slot: same kind, strings grow to the larger.
 * false if they cannot share one.
 */
bool type_merge(struct arena *a, struct type *into, const struct type *b);
/* A tuple of n element types, laid out as bpftrace 0.17 lays tuples out (natural alignment). */
struct type type_tuple(struct arena *a, const struct type *elems, uint32_t n);
const char *type_name(struct arena *a, const struct type *t);
bool type_is_agg(const struct type *t);

/* ---- sema_narrow.c: the narrow types of bpftrace 0.27 ---- */

/* The type 0.27 gives n where a program sees it (typeof, sizeof): literals at their smallest. */
struct type sema_narrow(struct sema_ctx *ctx, const struct node *n);
/* A slot (variable, map) given rhs: its narrow type widens to hold both, as 0.27's does. */
struct type sema_narrow_of(struct sema_ctx *ctx, const struct type *narrow,
			   const struct type *full);
void sema_narrow_assign(struct sema_ctx *ctx, struct type *into, bool *into_lit,
			const struct node *rhs);
/* l op r of constants (+ - * / % << >> & | ^) into v; false for another op or a division by 0. */
bool sema_fold_op(int op, int64_t l, int64_t r, int64_t *v);
/* Integer literals and operators on them only: what 0.27 folds when compiling. */
bool sema_is_literal(const struct node *n);

/* ---- sema.c: the walks and statements ---- */

struct map_info *sema_map(struct sema_ctx *ctx, struct node *n);
/* The variable name of the current probe; created (untyped) if create, else NULL if none. */
struct var_info *sema_var(struct sema_ctx *ctx, const char *name, bool create);
void sema_unsupported(struct sema_ctx *ctx, struct node *n, const char *what);
/* A variable read or assigned at loc: the note of the if/else rule of bpftrace <= 0.21. */
void sema_var_used(struct sema_ctx *ctx, struct var_info *v, struct loc loc);
/* { stmts; value }: a block expression, its declarations local to it. */
void sema_block_value(struct sema_ctx *ctx, struct node *n);
/* Does every match of the current probe provide these builtins? Names the first that doesn't. */
const struct probe_type *sema_probe_lacks(struct sema_ctx *ctx, uint32_t needs);
/*
 * Is the builtin or call n of row f allowed here? An unsafe one without --unsafe is reported; one
 * whose probe types lack what it needs is reported and false, and is checked no further.
 */
bool sema_func_allowed(struct sema_ctx *ctx, struct node *n, const struct func_def *f);

/* ---- sema_expr.c: expressions ---- */

void sema_expr(struct sema_ctx *ctx, struct node *n);
/* The type a cast, let or sizeof names (cast_type text, or typeof()); false after an error. */
bool sema_type_named(struct sema_ctx *ctx, struct node *n, struct type *out);
void sema_map_keys(struct sema_ctx *ctx, struct node *n);
bool sema_is_int(const struct type *t);
void sema_need_int(struct sema_ctx *ctx, struct node *n, const char *what);
const char *sema_op_name(struct arena *a, int op);
/* $N used as a string (str($N), $N == "x") in an object that reads $N where it runs. */
void sema_posparam_as_str(struct sema_ctx *ctx, struct node *n);

/* ---- sema_builtins.c: identifiers, and the checks of builtins' rows ---- */

/*
 * A record literal given to a variable or map that holds a record of the same member names in
 * another order ($a = (x = 1, y = 2); $a = (y = 3, x = 4)): its members, and those of record
 * literals in it, put in the held order, as bpftrace 0.27 takes it; else left as it is.
 */
void sema_record_order(struct sema_ctx *ctx, const struct type *into, struct node *rhs);
void sema_builtin(struct sema_ctx *ctx, struct node *n);
/* dw_ustack, bare or called: the error that says aotrace has no DWARF unwinding. */
void sema_dw_ustack(struct sema_ctx *ctx, struct node *n);
/* args->name (hidden: arg0, retval): the field must exist, with one type, in every match. */
void sema_args_field(struct sema_ctx *ctx, struct node *n, bool hidden);
void sema_bi_probe(struct sema_ctx *ctx, struct node *n);
/* args as a value: becomes a record of the probe's fields. */
void sema_bi_args(struct sema_ctx *ctx, struct node *n);
void sema_bi_func(struct sema_ctx *ctx, struct node *n);
void sema_bi_elapsed(struct sema_ctx *ctx, struct node *n);
void sema_bi_ctx(struct sema_ctx *ctx, struct node *n);
void sema_bi_hidden_arg(struct sema_ctx *ctx, struct node *n);

/* ---- sema_calls.c: calls, and the checks of functions' rows ---- */

void sema_call(struct sema_ctx *ctx, struct node *n, bool is_stmt);
/* An integer literal after sema (a negative one is '-' of a literal); false if n is none. */
bool sema_const_int(const struct node *n, int64_t *v);
/* @m = lhist(...): records the bounds in the map, which must be the same at every use. */
void sema_lhist_params(struct sema_ctx *ctx, struct map_info *m, struct node *call);
/* hist(v, k) into map m: its k, the same at every call. */
void sema_hist_params(struct sema_ctx *ctx, struct map_info *m, struct node *call);
/* count(), sum(n), ...: only the whole value of a map assignment; the row's type. */
void sema_fn_aggregation(struct sema_ctx *ctx, struct node *n);
void sema_fn_lhist(struct sema_ctx *ctx, struct node *n);
void sema_fn_hist(struct sema_ctx *ctx, struct node *n);
/* @m = tseries(...): its interval, count and fold are the map's, the same at each use */
void sema_tseries_params(struct sema_ctx *ctx, struct map_info *m, struct node *call);
void sema_fn_tseries(struct sema_ctx *ctx, struct node *n);
/* printf, system, cat: a literal format, its conversions matching the arguments. */
void sema_fn_formatted(struct sema_ctx *ctx, struct node *n);
void sema_fn_debugf(struct sema_ctx *ctx, struct node *n);
/* One integer argument; a value of the row's type, unless the call is a statement. */
void sema_fn_int_arg(struct sema_ctx *ctx, struct node *n);
void sema_fn_print(struct sema_ctx *ctx, struct node *n);
void sema_fn_time(struct sema_ctx *ctx, struct node *n);
void sema_fn_join(struct sema_ctx *ctx, struct node *n);
void sema_fn_exit(struct sema_ctx *ctx, struct node *n);
void sema_fn_signal(struct sema_ctx *ctx, struct node *n);
void sema_fn_delete(struct sema_ctx *ctx, struct node *n);
/* clear(@m), zero(@m): a whole map, named rather than read. */
void sema_fn_whole_map(struct sema_ctx *ctx, struct node *n);
void sema_fn_str(struct sema_ctx *ctx, struct node *n);
void sema_fn_buf(struct sema_ctx *ctx, struct node *n);
void sema_fn_strftime(struct sema_ctx *ctx, struct node *n);
void sema_fn_cgroup_path(struct sema_ctx *ctx, struct node *n);
void sema_fn_ntop(struct sema_ctx *ctx, struct node *n);
void sema_fn_pton(struct sema_ctx *ctx, struct node *n);
void sema_fn_macaddr(struct sema_ctx *ctx, struct node *n);
void sema_fn_path(struct sema_ctx *ctx, struct node *n);
void sema_fn_strncmp(struct sema_ctx *ctx, struct node *n);
void sema_fn_strcontains(struct sema_ctx *ctx, struct node *n);
void sema_fn_bswap(struct sema_ctx *ctx, struct node *n);
void sema_fn_reg(struct sema_ctx *ctx, struct node *n);
void sema_fn_kptr(struct sema_ctx *ctx, struct node *n);
void sema_fn_uptr(struct sema_ctx *ctx, struct node *n);
void sema_fn_kstack(struct sema_ctx *ctx, struct node *n);
void sema_fn_ustack(struct sema_ctx *ctx, struct node *n);
void sema_fn_kaddr(struct sema_ctx *ctx, struct node *n);
/* percpu_kaddr("sym"[, cpu]): n->idx the variable's BTF type */
void sema_fn_percpu_kaddr(struct sema_ctx *ctx, struct node *n);
int sema_lower_percpu_kaddr(struct sema_ctx *ctx, struct node *n);
void sema_fn_uaddr(struct sema_ctx *ctx, struct node *n);
void sema_fn_cgroupid(struct sema_ctx *ctx, struct node *n);
void sema_fn_sizeof(struct sema_ctx *ctx, struct node *n);
void sema_fn_offsetof(struct sema_ctx *ctx, struct node *n);

/* ---- sema_stdlib.c: the standard library of bpftrace 0.18 to 0.27 ---- */
/* ppid, pcomm: the node becomes curtask->real_parent->tgid or ->comm */
void sema_bi_parent(struct sema_ctx *ctx, struct node *n);
void sema_bi_usermode(struct sema_ctx *ctx, struct node *n);
/* config, config(), __builtin_config: the node becomes a record of the settings */
void sema_bi_config(struct sema_ctx *ctx, struct node *n);
void sema_fn_is_err(struct sema_ctx *ctx, struct node *n);
void sema_fn_cfunc(struct sema_ctx *ctx, struct node *n);
void sema_fn_skboutput(struct sema_ctx *ctx, struct node *n);
void sema_fn_container_of(struct sema_ctx *ctx, struct node *n);
void sema_fn_str_concat(struct sema_ctx *ctx, struct node *n);
void sema_fn_write_user(struct sema_ctx *ctx, struct node *n);
void sema_fn_assert_str(struct sema_ctx *ctx, struct node *n);
void sema_fn_has_key(struct sema_ctx *ctx, struct node *n);
/* find(@m, k, $v): the node becomes a block of has_key() and an assignment */
void sema_fn_find(struct sema_ctx *ctx, struct node *n);
/* memcmp(l, r, count): n->idx is the bytes it may compare */
void sema_fn_memcmp(struct sema_ctx *ctx, struct node *n);
void sema_fn_getopt(struct sema_ctx *ctx, struct node *n);
/* After the walks: a named parameter no getopt() reads is an error; so is --help, which lists. */
void sema_getopt_finish(struct sema_ctx *ctx);
void sema_fn_strlen(struct sema_ctx *ctx, struct node *n);
/* nsecs(clock): monotonic, boot, tai (sw_tai is tai); n->idx says which (enum func_clock) */
void sema_fn_nsecs(struct sema_ctx *ctx, struct node *n);
/* pid(init), tid(init): the namespace is a name; curr_ns is refused */
void sema_fn_pid_ns(struct sema_ctx *ctx, struct node *n);
/* len(@map): a whole map; len(kstack), len(ustack): a stack's frames */
void sema_fn_len(struct sema_ctx *ctx, struct node *n);
/* The first attach point's type, as bpftrace's probetype names it. */
const char *sema_probetype(struct sema_ctx *ctx);
bool sema_tracing_prog(struct sema_ctx *ctx);
void sema_fn_socket_cookie(struct sema_ctx *ctx, struct node *n);
/* Whether the probe's programs may call the kfunc (kfunc_allowed()). */
bool sema_kfunc_allowed(struct sema_ctx *ctx, const char *name);
/* comm, comm(): the current task's; comm(pid) another's (a string of 64, n->mpath its comm) */
void sema_fn_comm(struct sema_ctx *ctx, struct node *n);

/* ---- sema_meta.c: answered while compiling; each call becomes a literal ---- */
void sema_fn_is_type(struct sema_ctx *ctx, struct node *n);
void sema_bi_probetype(struct sema_ctx *ctx, struct node *n);
void sema_fn_strcap(struct sema_ctx *ctx, struct node *n);
void sema_fn_default_str_length(struct sema_ctx *ctx, struct node *n);
void sema_fn_kfunc_exist(struct sema_ctx *ctx, struct node *n);
void sema_fn_kfunc_allowed(struct sema_ctx *ctx, struct node *n);

/* ---- sema_assert.c: errorf, warnf, assert, fail, static_assert ---- */
/*
 * The four lines of a call site (meta.h, AOT_FMT_ERRORF) then fmt: what errorf(), warnf() and
 * assert() name their format with.
 */
const char *sema_call_site(struct sema_ctx *ctx, const struct node *n, const char *fmt);
/*
 * The same for a place that is not a call (a / b): "FILE:L:C-E", then the source line and ~
 * under it, as bpftrace 0.27 prints its run-time warnings of an expression.
 */
const char *sema_site_excerpt(struct sema_ctx *ctx, struct loc at, const char *fmt);
void sema_fn_assert(struct sema_ctx *ctx, struct node *n);
void sema_fn_fail(struct sema_ctx *ctx, struct node *n);
void sema_fn_static_assert(struct sema_ctx *ctx, struct node *n);

/* ---- lowering (sema_lower.c) ---- */

/* After a clean check: implicit casts, map and printf layouts into the metadata. */
int sema_lower(struct sema_ctx *ctx);
int sema_printf_check(struct sema_ctx *ctx, struct node *call);
/* The lowerings of calls that rows name (the others: arguments widened to 64 bits). */
int sema_lower_printf(struct sema_ctx *ctx, struct node *n);
int sema_lower_system(struct sema_ctx *ctx, struct node *n);
int sema_lower_cat(struct sema_ctx *ctx, struct node *n);
int sema_lower_time(struct sema_ctx *ctx, struct node *n);
int sema_lower_print(struct sema_ctx *ctx, struct node *n);
int sema_lower_join(struct sema_ctx *ctx, struct node *n);
int sema_lower_strftime(struct sema_ctx *ctx, struct node *n);
/* clear(@m), kstack(perf): the arguments are names, not values; nothing to lower. */
int sema_lower_names(struct sema_ctx *ctx, struct node *n);
/* has_key(@m, k): the element sema made (n->lhs), no value read from it. */
int sema_lower_has_key(struct sema_ctx *ctx, struct node *n);
/* errorf(), warnf(): printf's layout, its format named by the call site */
int sema_lower_diagf(struct sema_ctx *ctx, struct node *n);
/* assert(cond, msg): the condition, and errorf("assert failed: %s", msg) */
int sema_lower_assert(struct sema_ctx *ctx, struct node *n);
int sema_lower_cpid(struct sema_ctx *ctx, struct node *n);
int sema_lower_comm(struct sema_ctx *ctx, struct node *n);
int sema_lower_len(struct sema_ctx *ctx, struct node *n);
int sema_lower_memcmp(struct sema_ctx *ctx, struct node *n);

#endif
