/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the semantic passes share: the context of a walk, the builtin and function tables, and
 * the type helpers. Only src/sema*.c include it.
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
	/* variables assigned since the innermost if's else branch began (block scoping) */
	struct var_info **assigned;
	uint32_t nassigned, capassigned;
};

/* ---- builtins (sema_builtins.c) ---- */

struct sema_builtin {
	const char *name;
	enum builtin id;
	struct type type;
	uint32_t needs;	  /* enum probe_builtins the probe type must provide; 0: every probe */
	bool unsupported; /* recognised, but not compiled yet */
};

struct sema_func {
	const char *name;
	enum func id;
	int min_args, max_args;
	bool unsupported;
};

const struct sema_builtin *sema_builtin_find(const char *name);
const struct sema_func *sema_func_find(const char *name);

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
/* Natural-alignment layout of a tuple of n element types. */
struct type type_tuple(struct arena *a, const struct type *elems, uint32_t n);
const char *type_name(struct arena *a, const struct type *t);
bool type_is_agg(const struct type *t);

/* ---- sema.c: the walks and statements ---- */

struct map_info *sema_map(struct sema_ctx *ctx, struct node *n);
/* The variable name of the current probe; created (untyped) if create, else NULL if none. */
struct var_info *sema_var(struct sema_ctx *ctx, const char *name, bool create);
void sema_unsupported(struct sema_ctx *ctx, struct node *n, const char *what);
/* Does every match of the current probe provide these builtins? Names the first that doesn't. */
const struct probe_type *sema_probe_lacks(struct sema_ctx *ctx, uint32_t needs);

/* ---- sema_expr.c: expressions ---- */

void sema_expr(struct sema_ctx *ctx, struct node *n);
void sema_map_keys(struct sema_ctx *ctx, struct node *n);
bool sema_is_int(const struct type *t);
void sema_need_int(struct sema_ctx *ctx, struct node *n, const char *what);
const char *sema_op_name(struct arena *a, int op);
/* $N used as a string (str($N), $N == "x") in an object that reads $N where it runs. */
void sema_posparam_as_str(struct sema_ctx *ctx, struct node *n);

/* ---- sema_builtins.c: identifiers ---- */

void sema_builtin(struct sema_ctx *ctx, struct node *n);
/* args->name (hidden: arg0, retval): the field must exist, with one type, in every match. */
void sema_args_field(struct sema_ctx *ctx, struct node *n, bool hidden);

/* ---- calls (sema_calls.c) ---- */

void sema_call(struct sema_ctx *ctx, struct node *n, bool is_stmt);
/* An integer literal after sema (a negative one is '-' of a literal); false if n is none. */
bool sema_const_int(const struct node *n, int64_t *v);
/* @m = lhist(...): records the bounds in the map, which must be the same at every use. */
void sema_lhist_params(struct sema_ctx *ctx, struct map_info *m, struct node *call);

/* ---- lowering (sema_lower.c) ---- */

/* After a clean check: implicit casts, map and printf layouts into the metadata. */
int sema_lower(struct sema_ctx *ctx);
int sema_printf_check(struct sema_ctx *ctx, struct node *call);

#endif
