/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The semantic checks of typed memory: member access, pointers, dereference, casts to pointer
 * types, indexing, kernel constants, and the script's C definitions. sema.c calls these where
 * such nodes appear, after it has checked their operands.
 */
#ifndef AOT_SEMA_RECORD_H
#define AOT_SEMA_RECORD_H

#include "sema_types.h"

/* Before the walks: parses the program's C definitions and #includes, if it has any. */
void sema_record_cdefs(struct sema_ctx *ctx);
/* An identifier that is no builtin: a macro or enum constant becomes a NODE_INT. */
bool sema_record_ident(struct sema_ctx *ctx, struct node *n);
/* curtask: a struct task_struct * where the kernel has BTF, else an integer. */
void sema_record_curtask(struct sema_ctx *ctx, struct node *n);
/* ctx: a pointer to the context type of the probe's matches (all the same), is_ctx. */
void sema_record_ctx(struct sema_ctx *ctx, struct node *n, const char *ctx_type);
/* x.name and x->name on records (lhs already checked). */
void sema_record_field(struct sema_ctx *ctx, struct node *n);
/*
 * A value about to be kept in a variable or map: an args field that points at a struct
 * (args.rqtp) is that pointer, not the integer the context holds, as in bpftrace 0.27; so a
 * later $t = @rqtp[tid]; $t.tv_sec reads the member. Other fields stay integers.
 */
void sema_record_kept(struct sema_ctx *ctx, struct node *v);
/* A cast sema.c's integer casts do not cover; false if it is one of those (lhs checked). */
bool sema_record_cast(struct sema_ctx *ctx, struct node *n);
/* *p and &x (lhs checked). */
void sema_record_unop(struct sema_ctx *ctx, struct node *n);
/* x[i] (lhs and rhs checked). */
void sema_record_index(struct sema_ctx *ctx, struct node *n);
/*
 * Arithmetic with a pointer operand, as bpftrace allows it: p + i, i + p and p - i move p by i
 * elements (n->num: the element size lowering scales i by); the rest is refused. Comparisons
 * are not arithmetic: sema.c keeps them. (lhs and rhs checked, one a pointer.)
 */
void sema_record_ptr_arith(struct sema_ctx *ctx, struct node *n);
/* `p op= i` on a pointer variable or map p (op is n->op): as p = p op i, num as above. */
void sema_record_ptr_update(struct sema_ctx *ctx, struct node *n, struct type *p);
/* ++p, p-- as a value: n->num is the step, the size of what p points at */
void sema_record_ptr_incdec(struct sema_ctx *ctx, struct node *n, struct type *p);
/* sizeof(type) for types beyond the integers: records, pointers, typedefs. false on error. */
bool sema_record_sizeof(struct sema_ctx *ctx, struct node *n, uint64_t *size);
/* offsetof(struct r, a.b): the member's byte offset. false on error (reported). */
bool sema_record_offsetof(struct sema_ctx *ctx, struct node *n, uint64_t *off);

#endif
