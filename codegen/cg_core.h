/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Typed memory reads (cg_core.c): members of kernel records as BPF CO-RE relocations, pointer
 * dereference, indexing, and curtask. cg_expr.c and cg_builtins.c call into it.
 */
#ifndef AOT_CG_CORE_H
#define AOT_CG_CORE_H

#include "cg_internal.h"

/* The value of a member access, dereference or element (NODE_FIELD, '*', NODE_INDEX). */
LLVMValueRef cg_core_read(struct cg *cg, struct node *n);
/* A bitfield member m of a struct value of ours, whose bytes start at addr ($x.a of `int a:3`) */
LLVMValueRef cg_core_value_bitfield(struct cg *cg, LLVMValueRef addr, const struct cmember *m);
/* '*' and '&' */
LLVMValueRef cg_core_unop(struct cg *cg, struct node *n);
/* curtask: the current task_struct's address */
LLVMValueRef cg_core_curtask(struct cg *cg, struct node *n);

#endif
