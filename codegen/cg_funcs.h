/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emitters of builtins and functions that the rows of src/funcs.c name. No LLVM header here,
 * as the table is in the front end: LLVMValueRef is struct LLVMOpaqueValue *, so the definitions
 * (cg_builtins.c, cg_calls.c) match these declarations. Each returns the use's value.
 */
#ifndef AOT_CG_FUNCS_H
#define AOT_CG_FUNCS_H

struct cg;
struct node;
struct LLVMOpaqueValue;

/* ---- cg_builtins.c: builtins, and the functions of printf's family ---- */

struct LLVMOpaqueValue *cg_bi_pid(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_tid(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_uid(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_gid(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_nsecs(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_cpu(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_rand(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_comm(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_probe(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_elapsed(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_curtask(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_cgroup(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_username(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_func(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_numaid(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_ctx(struct cg *cg, struct node *n);
/* printf, system, cat: a format event of the arguments after the format */
struct LLVMOpaqueValue *cg_fn_formatted(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_exit(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_debugf(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_str(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_delete(struct cg *cg, struct node *n);

/* ---- cg_calls.c: the other functions ---- */

struct LLVMOpaqueValue *cg_fn_print(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_clear(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_unwatch(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_zero(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_time(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_join(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_kstack(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_percpu_kaddr(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_socket_cookie(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_ustack(struct cg *cg, struct node *n);
/* ksym, usym, cgroup_path, strerror: the value (and for usym the pid) */
struct LLVMOpaqueValue *cg_fn_sym(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_strftime(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_ntop(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_pton(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_macaddr(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_buf(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_signal(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_override(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_path(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_strncmp(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_strcontains(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_strstr(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_write_user(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_reg(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_uaddr(struct cg *cg, struct node *n);
/* kptr, uptr: the argument's value (sema marked the address space) */
struct LLVMOpaqueValue *cg_fn_identity(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_bswap(struct cg *cg, struct node *n);

/* cg_stdlib.c: the standard library of bpftrace 0.18 to 0.27 */
struct LLVMOpaqueValue *cg_bi_jiffies(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_usermode(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_is_err(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_cfunc(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_skboutput(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_str_concat(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_ncpus(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_cpid(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_bi_has_cpid(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_memcmp(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_has_key(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_strlen(struct cg *cg, struct node *n);
struct LLVMOpaqueValue *cg_fn_assert(struct cg *cg, struct node *n);
/* static_assert, fail: checked while compiling, nothing to run */
struct LLVMOpaqueValue *cg_fn_nothing(struct cg *cg, struct node *n);
/* cg_stmt.c, beside for over a map: bpf_for_each_map_elem with a callback that goes on */
struct LLVMOpaqueValue *cg_fn_len(struct cg *cg, struct node *n);

#endif
