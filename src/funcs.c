// SPDX-License-Identifier: GPL-2.0
/*
 * The builtins and functions of the language as one table: what each is called, how it is
 * written, where it is allowed, and the functions that check, lower and emit it (src/funcs.h).
 * Sema looks names up here; everything after it reaches the row by the id in node->func.
 */
#include <string.h>

#include "cg_funcs.h"
#include "funcs.h"
#include "meta.h"
#include "probe.h"
#include "sema_record.h"
#include "sema_types.h"

/* clang-format would spread each row over several lines: the table reads best as a table. */
/* clang-format off */
#define BUILTIN(more) .flags = FUNC_BARE | (more)
#define CALL(min, max, more) .flags = FUNC_CALL | (more), .min_args = (min), .max_args = (max)

#define U64 { .kind = TYPE_INT, .size = 8 }
#define U32 { .kind = TYPE_INT, .size = 4 }
#define BOOL { .kind = TYPE_BOOL, .size = 1 }
#define RENDERED(k, n) { .kind = TYPE_BUF, .size = n, .render = k }
#define AGG(k, n) { .kind = k, .size = n }

const struct func_def func_defs[FN__NUM] = {
	/* builtins */
	/*
	 * pid(init), tid(init) of bpftrace 0.27 are pid and tid: the init namespace's ids, uint32
	 * as in 0.27 (0.17's were uint64)
	 */
	[FN_PID] = { "pid", BUILTIN(FUNC_CALL), .max_args = 1, .type = U32,
		     .check = sema_fn_pid_ns, .lower = sema_lower_names, .emit = cg_bi_pid },
	[FN_TID] = { "tid", BUILTIN(FUNC_CALL), .max_args = 1, .type = U32,
		     .check = sema_fn_pid_ns, .lower = sema_lower_names, .emit = cg_bi_tid },
	[FN_UID] = { "uid", BUILTIN(FUNC_NULLARY), .type = U64, .emit = cg_bi_uid },
	[FN_GID] = { "gid", BUILTIN(FUNC_NULLARY), .type = U64, .emit = cg_bi_gid },
	/* nsecs is nsecs(monotonic); nsecs(boot), nsecs(tai) as bpftrace 0.27 (n->idx: the clock) */
	[FN_NSECS] = { "nsecs", BUILTIN(FUNC_CALL), .max_args = 1, .type = U64,
		       .check = sema_fn_nsecs, .lower = sema_lower_names, .emit = cg_bi_nsecs },
	[FN_CPU] = { "cpu", BUILTIN(FUNC_NULLARY | FUNC_WRAPPED), .type = U64, .emit = cg_bi_cpu },
	/* comm(pid) of bpftrace 0.27 too: another task's, through the kfunc bpf_task_from_pid */
	[FN_COMM] = { "comm", BUILTIN(FUNC_CALL | FUNC_WRAPPED), .max_args = 1,
		      .type = { .kind = TYPE_STR, .size = 16 }, .check = sema_fn_comm,
		      .lower = sema_lower_comm, .emit = cg_bi_comm },
	/* a string as long as the longest name of the probe's matches */
	[FN_PROBE] = { "probe", BUILTIN(FUNC_NULLARY | FUNC_WRAPPED), .type = { .kind = TYPE_STR },
		       .check = sema_bi_probe, .emit = cg_bi_probe },
	/* the tracepoint's or function's arguments: args.name (sema_field), or all as a record */
	[FN_ARGS] = { "args", BUILTIN(0), .needs = PB_ARGS, .check = sema_bi_args },
	[FN_ELAPSED] = { "elapsed", BUILTIN(FUNC_NULLARY | FUNC_WRAPPED), .type = U64,
			 .check = sema_bi_elapsed, .emit = cg_bi_elapsed },
	/* arg0..argN, sarg0..sargN and retval: typed by the probe type's hidden arguments */
	[FN_RETVAL] = { "retval", BUILTIN(FUNC_HIDDEN_ARG | FUNC_NULLARY | FUNC_WRAPPED),
			.needs = PB_RETVAL, .check = sema_bi_hidden_arg },
	[FN_ARG] = { "arg", BUILTIN(FUNC_NUMBERED | FUNC_HIDDEN_ARG), .needs = PB_ARGN,
		     .check = sema_bi_hidden_arg },
	[FN_SARG] = { "sarg", BUILTIN(FUNC_NUMBERED | FUNC_HIDDEN_ARG), .needs = PB_ARGN,
		      .check = sema_bi_hidden_arg },
	/* a kernel symbol; its check makes it a user one (usym) in user-space probes */
	[FN_FUNC] = { "func", BUILTIN(FUNC_NULLARY | FUNC_WRAPPED), .needs = PB_FUNC,
		      .type = RENDERED(AOT_K_KSYM, 8), .check = sema_bi_func, .emit = cg_bi_func },
	[FN_CURTASK] = { "curtask", BUILTIN(FUNC_NULLARY), .type = U64, .check = sema_record_curtask,
			 .emit = cg_bi_curtask },
	[FN_RAND] = { "rand", BUILTIN(FUNC_NULLARY), .type = U64, .emit = cg_bi_rand },
	[FN_CGROUP] = { "cgroup", BUILTIN(FUNC_NULLARY), .type = U64, .emit = cg_bi_cgroup },
	[FN_USERNAME] = { "username", BUILTIN(FUNC_NULLARY), .type = RENDERED(AOT_K_USERNAME, 8),
			  .emit = cg_bi_username },
	[FN_NUMAID] = { "numaid", BUILTIN(FUNC_NULLARY), .type = U64, .emit = cg_bi_numaid },
	/* the program's context, typed by the probe type (probe_type.ctx_type) */
	[FN_CTX] = { "ctx", BUILTIN(0), .check = sema_bi_ctx, .emit = cg_bi_ctx },
	/* builtins that are also functions: kstack is kstack() */
	[FN_KSTACK] = { "kstack", BUILTIN(FUNC_CALL), .max_args = 2,
			.type = RENDERED(AOT_K_KSTACK, 8), .check = sema_fn_kstack,
			.lower = sema_lower_names, .emit = cg_fn_kstack },
	[FN_USTACK] = { "ustack", BUILTIN(FUNC_CALL), .max_args = 2,
			.type = RENDERED(AOT_K_USTACK, 16), .check = sema_fn_ustack,
			.lower = sema_lower_names, .emit = cg_fn_ustack },

	/* aggregations: emitted by the map assignment they are the value of (cg_map_aggregate) */
	[FN_COUNT] = { "count", CALL(0, 0, FUNC_AGG), .type = AGG(TYPE_COUNT, 8),
		       .check = sema_fn_aggregation },
	[FN_SUM] = { "sum", CALL(1, 1, FUNC_AGG), .type = AGG(TYPE_SUM, 8),
		     .check = sema_fn_aggregation },
	[FN_MIN] = { "min", CALL(1, 1, FUNC_AGG), .type = AGG(TYPE_MIN, 16),
		     .check = sema_fn_aggregation },
	[FN_MAX] = { "max", CALL(1, 1, FUNC_AGG), .type = AGG(TYPE_MAX, 16),
		     .check = sema_fn_aggregation },
	[FN_AVG] = { "avg", CALL(1, 1, FUNC_AGG), .type = AGG(TYPE_AVG, 16),
		     .check = sema_fn_aggregation },
	[FN_STATS] = { "stats", CALL(1, 1, FUNC_AGG), .type = AGG(TYPE_STATS, 16),
		       .check = sema_fn_aggregation },
	/* hist(v[, k]): 2^k buckets per power of two (bpftrace 0.21) */
	[FN_HIST] = { "hist", CALL(1, 2, FUNC_AGG), .type = AGG(TYPE_HIST, 16),
		      .check = sema_fn_hist },
	[FN_LHIST] = { "lhist", CALL(4, 4, FUNC_AGG), .type = AGG(TYPE_LHIST, 16),
		       .check = sema_fn_lhist },
	/* bpftrace 0.27's time series: the value of each interval (meta.h's AOT_AGG_TSERIES) */
	[FN_TSERIES] = { "tseries", CALL(3, 4, FUNC_AGG), .type = AGG(TYPE_TSERIES, 24),
			 .check = sema_fn_tseries },

	/* output and control: statements */
	[FN_PRINTF] = { "printf", CALL(1, 64, FUNC_VOID), .check = sema_fn_formatted,
			.lower = sema_lower_printf, .emit = cg_fn_formatted },
	[FN_PRINT] = { "print", CALL(1, 3, FUNC_VOID), .check = sema_fn_print,
		       .lower = sema_lower_print, .emit = cg_fn_print },
	[FN_TIME] = { "time", CALL(0, 1, FUNC_VOID), .check = sema_fn_time,
		      .lower = sema_lower_time, .emit = cg_fn_time },
	[FN_JOIN] = { "join", CALL(1, 2, FUNC_VOID), .check = sema_fn_join,
		      .lower = sema_lower_join, .emit = cg_fn_join },
	[FN_CAT] = { "cat", CALL(1, 64, FUNC_VOID), .check = sema_fn_formatted,
		     .lower = sema_lower_cat, .emit = cg_fn_formatted },
	[FN_SYSTEM] = { "system", CALL(1, 64, FUNC_VOID | FUNC_UNSAFE), .check = sema_fn_formatted,
			.lower = sema_lower_system, .emit = cg_fn_formatted },
	/* to the kernel's trace_pipe, with bpf_trace_printk: nothing for the runtime */
	[FN_DEBUGF] = { "debugf", CALL(1, 4, FUNC_VOID), .check = sema_fn_debugf,
			.emit = cg_fn_debugf },
	[FN_EXIT] = { "exit", CALL(0, 1, FUNC_VOID), .check = sema_fn_exit, .emit = cg_fn_exit },
	[FN_SIGNAL] = { "signal", CALL(1, 1, FUNC_VOID | FUNC_UNSAFE), .check = sema_fn_signal,
			.emit = cg_fn_signal },
	/* to the current thread rather than its process */
	[FN_SIGNAL_THREAD] = { "signal_thread", CALL(1, 1, FUNC_VOID | FUNC_UNSAFE),
			       .check = sema_fn_signal, .emit = cg_fn_signal },
	[FN_OVERRIDE] = { "override", CALL(1, 1, FUNC_VOID | FUNC_UNSAFE), .needs = PB_OVERRIDE,
			  .check = sema_fn_int_arg, .emit = cg_fn_override },

	/* maps, named rather than read */
	/* true when there was an element to delete, as bpftrace 0.27 (a statement in 0.17) */
	[FN_DELETE] = { "delete", CALL(1, 2, 0), .type = BOOL, .check = sema_fn_delete,
			.emit = cg_fn_delete },
	[FN_CLEAR] = { "clear", CALL(1, 1, FUNC_VOID), .check = sema_fn_whole_map,
		       .lower = sema_lower_names, .emit = cg_fn_clear },
	[FN_ZERO] = { "zero", CALL(1, 1, FUNC_VOID), .check = sema_fn_whole_map,
		      .lower = sema_lower_names, .emit = cg_fn_zero },

	/* values */
	[FN_STR] = { "str", CALL(1, 2, 0), .check = sema_fn_str, .emit = cg_fn_str },
	[FN_BUF] = { "buf", CALL(1, 2, 0), .check = sema_fn_buf, .emit = cg_fn_buf },
	[FN_STRFTIME] = { "strftime", CALL(2, 2, 0), .check = sema_fn_strftime,
			  .lower = sema_lower_strftime, .emit = cg_fn_strftime },
	[FN_KSYM] = { "ksym", CALL(1, 1, 0), .type = RENDERED(AOT_K_KSYM, 8),
		      .check = sema_fn_int_arg, .emit = cg_fn_sym },
	[FN_USYM] = { "usym", CALL(1, 1, 0), .type = RENDERED(AOT_K_USYM, 16),
		      .check = sema_fn_int_arg, .emit = cg_fn_sym },
	/* the id is resolved to a path by the runtime, in its cgroup2 hierarchy */
	[FN_CGROUP_PATH] = { "cgroup_path", CALL(1, 2, 0), .type = RENDERED(AOT_K_CGROUP_PATH, 8),
			     .check = sema_fn_cgroup_path, .emit = cg_fn_sym },
	/* the errno is turned into text by the runtime */
	[FN_STRERROR] = { "strerror", CALL(1, 1, 0), .type = RENDERED(AOT_K_STRERROR, 8),
			  .check = sema_fn_int_arg, .emit = cg_fn_sym },
	[FN_NTOP] = { "ntop", CALL(1, 2, 0), .type = RENDERED(AOT_K_INET, 24),
		      .check = sema_fn_ntop, .emit = cg_fn_ntop },
	/* the address is parsed while compiling; the bytes are constants */
	[FN_PTON] = { "pton", CALL(1, 1, 0), .check = sema_fn_pton, .lower = sema_lower_names,
		      .emit = cg_fn_pton },
	[FN_MACADDR] = { "macaddr", CALL(1, 1, 0), .type = RENDERED(AOT_K_MACADDR, 6),
			 .check = sema_fn_macaddr, .emit = cg_fn_macaddr },
	[FN_PATH] = { "path", CALL(1, 2, 0), .check = sema_fn_path, .emit = cg_fn_path },
	[FN_STRNCMP] = { "strncmp", CALL(3, 3, 0), .type = U64, .check = sema_fn_strncmp,
			 .emit = cg_fn_strncmp },
	/* a bool, as bpftrace 0.27 prints it */
	[FN_STRCONTAINS] = { "strcontains", CALL(2, 2, 0), .type = BOOL,
			     .check = sema_fn_strcontains, .emit = cg_fn_strcontains },
	/* bpf_probe_write_user; true when written (0.27's docs: bool) */
	[FN_WRITE_USER] = { "write_user", CALL(3, 3, FUNC_UNSAFE), .type = BOOL,
			    .check = sema_fn_write_user, .emit = cg_fn_write_user },
	[FN_STR_CONCAT] = { "str_concat", CALL(2, 2, 0), .check = sema_fn_str_concat,
			    .emit = cg_fn_str_concat },
	/* the index of the first occurrence, -1 if none (bpftrace 0.27) */
	[FN_STRSTR] = { "strstr", CALL(2, 2, 0), .type = { .kind = TYPE_INT, .size = 8,
							  .is_signed = true },
			.check = sema_fn_strcontains, .emit = cg_fn_strstr },
	[FN_BSWAP] = { "bswap", CALL(1, 1, 0), .check = sema_fn_bswap, .emit = cg_fn_bswap },
	[FN_REG] = { "reg", CALL(1, 1, 0), .needs = PB_REGS, .check = sema_fn_reg,
		     .emit = cg_fn_reg },
	[FN_KPTR] = { "kptr", CALL(1, 1, 0), .check = sema_fn_kptr, .emit = cg_fn_identity },
	[FN_UPTR] = { "uptr", CALL(1, 1, 0), .check = sema_fn_uptr, .emit = cg_fn_identity },
	[FN_UADDR] = { "uaddr", CALL(1, 1, FUNC_WRAPPED), .check = sema_fn_uaddr, .emit = cg_fn_uaddr },

	/* the standard library of bpftrace 0.18 to 0.27 (src/sema_stdlib.c, codegen/cg_stdlib.c) */
	[FN_JIFFIES] = { "jiffies", BUILTIN(FUNC_NULLARY), .type = U64, .emit = cg_bi_jiffies },
	/*
	 * task->real_parent->tgid and ->comm, task->group_leader->comm and ->pid (task: the
	 * argument, or curtask): the node becomes the member
	 */
	[FN_PPID] = { "ppid", BUILTIN(FUNC_CALL), .max_args = 1, .check = sema_bi_parent },
	[FN_PCOMM] = { "pcomm", BUILTIN(FUNC_CALL), .max_args = 1, .check = sema_bi_parent },
	[FN_LEADER_COMM] = { "leader_comm", BUILTIN(FUNC_CALL), .max_args = 1,
			     .check = sema_bi_parent },
	[FN_LEADER_TID] = { "leader_tid", BUILTIN(FUNC_CALL), .max_args = 1,
			    .check = sema_bi_parent },
	/* whether the probe interrupted user code: its registers' cs, or folded (sema) */
	[FN_USERMODE] = { "usermode", BUILTIN(FUNC_CALL | FUNC_WRAPPED),
			  .type = { .kind = TYPE_INT, .size = 1 }, .check = sema_bi_usermode,
			  .emit = cg_bi_usermode },
	/* a kernel error code in a pointer (ERR_PTR) */
	[FN_IS_ERR] = { "is_err", CALL(1, 1, 0), .type = BOOL, .check = sema_fn_is_err,
			.emit = cg_fn_is_err },
	[FN_HAS_KEY] = { "has_key", CALL(2, 2, 0), .type = BOOL, .check = sema_fn_has_key,
			 .lower = sema_lower_has_key, .emit = cg_fn_has_key },
	/* the number is turned into text by the runtime */
	[FN_SIGNAL_NAME] = { "signal_name", CALL(1, 1, 0), .type = RENDERED(AOT_K_SIGNAL, 8),
			     .check = sema_fn_int_arg, .emit = cg_fn_sym },
	[FN_SYSCALL_NAME] = { "syscall_name", CALL(1, 1, 0), .type = RENDERED(AOT_K_SYSCALL, 8),
			      .check = sema_fn_int_arg, .emit = cg_fn_sym },
	/* named parameters: the node becomes the value's literal, known when compiling */
	[FN_GETOPT] = { "getopt", CALL(1, 3, 0), .check = sema_fn_getopt },
	/* the elements bpf_for_each_map_elem visits */
	[FN_LEN] = { "len", CALL(1, 1, 0), .type = U64, .check = sema_fn_len,
		     .lower = sema_lower_len, .emit = cg_fn_len },
	[FN_STRLEN] = { "strlen", CALL(1, 1, 0), .type = U64, .check = sema_fn_strlen,
			.emit = cg_fn_strlen },

	/* bpftrace 0.17 has them, aotrace not yet: using one is an error that says so */
	/* removes the watchpoints at an address: AOT_EV_UNWATCH, done by the runtime */
	[FN_UNWATCH] = { "unwatch", CALL(1, 1, FUNC_VOID), .check = sema_fn_int_arg,
			 .emit = cg_fn_unwatch },
	/* an skb's data to a pcap file: a perf event array sample (AOT_SKB_MAP), bpf_skb_output */
	[FN_SKBOUTPUT] = { "skboutput", CALL(4, 4, 0), .type = U32, .check = sema_fn_skboutput,
			   .emit = cg_fn_skboutput },

	/* the run's struct aot_state, which the runtime fills before BEGIN */
	[FN_NCPUS] = { "ncpus", BUILTIN(FUNC_CALL | FUNC_WRAPPED), .type = U64, .emit = cg_bi_ncpus },
	/* -c's child; cpid warns when there is none, as bpftrace 0.27 does */
	[FN_CPID] = { "cpid", BUILTIN(FUNC_CALL | FUNC_WRAPPED), .type = U32, .lower = sema_lower_cpid,
		      .emit = cg_bi_cpid },
	[FN_HAS_CPID] = { "has_cpid", BUILTIN(FUNC_CALL), .type = BOOL, .emit = cg_bi_has_cpid },
	/* answered while compiling (src/sema_meta.c): the node becomes a literal */
	[FN_PROBETYPE] = { "probetype", BUILTIN(FUNC_CALL | FUNC_WRAPPED), .check = sema_bi_probetype },
	/*
	 * the settings that reach the program, as bpftrace 0.27's record of them: the node becomes
	 * that record of literals (src/sema_stdlib.c)
	 */
	[FN_CONFIG] = { "config", BUILTIN(FUNC_NULLARY | FUNC_WRAPPED), .check = sema_bi_config },
	[FN_STRCAP] = { "strcap", CALL(1, 1, 0), .check = sema_fn_strcap },
	[FN_DEFAULT_STR_LENGTH] = { "default_str_length", CALL(0, 0, 0),
				    .check = sema_fn_default_str_length },
	[FN_IS_ARRAY] = { "is_array", CALL(1, 1, 0), .check = sema_fn_is_type },
	[FN_IS_INTEGER] = { "is_integer", CALL(1, 1, 0), .check = sema_fn_is_type },
	[FN_IS_LITERAL] = { "is_literal", CALL(1, 1, FUNC_WRAPPED), .check = sema_fn_is_type },
	[FN_IS_PTR] = { "is_ptr", CALL(1, 1, 0), .check = sema_fn_is_type },
	[FN_IS_STR] = { "is_str", CALL(1, 1, 0), .check = sema_fn_is_type },
	[FN_IS_UNSIGNED_INTEGER] = { "is_unsigned_integer", CALL(1, 1, 0),
				     .check = sema_fn_is_type },
	[FN_KFUNC_ALLOWED] = { "kfunc_allowed", CALL(1, 1, 0), .check = sema_fn_kfunc_allowed },
	[FN_KFUNC_EXIST] = { "kfunc_exist", CALL(1, 1, 0), .check = sema_fn_kfunc_exist },
	/* rewritten into has_key() and an assignment (src/sema_stdlib.c) */
	[FN_FIND] = { "find", CALL(3, 3, 0), .check = sema_fn_find },
	/* stdlib/meta.bt's macro: rewritten into a cast of the address less offsetof() */
	[FN_CONTAINER_OF] = { "container_of", CALL(3, 3, 0), .check = sema_fn_container_of },
	/* import "lib.bpf.c": sema_call finds the name in prog->cfuncs, not here (no flags) */
	[FN_CFUNC] = { "(imported C function)", .check = sema_fn_cfunc, .emit = cg_fn_cfunc },
	[FN_MEMCMP] = { "memcmp", CALL(3, 3, 0), .check = sema_fn_memcmp,
			.lower = sema_lower_memcmp, .emit = cg_fn_memcmp },

	/* diagnostics (src/sema_assert.c): reported by the runtime with the call's location */
	[FN_ERRORF] = { "errorf", CALL(1, 64, FUNC_VOID), .check = sema_fn_formatted,
			.lower = sema_lower_diagf, .emit = cg_fn_formatted },
	[FN_WARNF] = { "warnf", CALL(1, 64, FUNC_VOID), .check = sema_fn_formatted,
		       .lower = sema_lower_diagf, .emit = cg_fn_formatted },
	/* errorf("assert failed: %s", msg) and exit(1) when the condition is false */
	[FN_ASSERT] = { "assert", CALL(2, 2, FUNC_VOID), .check = sema_fn_assert,
			.lower = sema_lower_assert, .emit = cg_fn_assert },
	/* errors of the compilation */
	/* a check while compiling: the argument is not evaluated */
	[FN_ASSERT_STR] = { "assert_str", CALL(1, 1, FUNC_VOID), .check = sema_fn_assert_str,
			    .lower = sema_lower_names, .emit = cg_fn_nothing },
	[FN_STATIC_ASSERT] = { "static_assert", CALL(2, 2, FUNC_VOID),
			       .check = sema_fn_static_assert, .lower = sema_lower_names,
			       .emit = cg_fn_nothing },
	[FN_FAIL] = { "fail", CALL(1, 64, FUNC_VOID), .check = sema_fn_fail,
		      .lower = sema_lower_names, .emit = cg_fn_nothing },

	/* resolved while compiling: sema makes them literals */
	[FN_KADDR] = { "kaddr", CALL(1, 1, 0), .check = sema_fn_kaddr },
	/* bpf_get_socket_cookie(sk) of a struct sock pointer, in fentry programs */
	[FN_SOCKET_COOKIE] = { "socket_cookie", CALL(1, 1, 0), .type = U64,
			       .check = sema_fn_socket_cookie, .emit = cg_fn_socket_cookie },
	/* a per-CPU kernel variable's address on this or that CPU (n->idx: its BTF type) */
	[FN_PERCPU_KADDR] = { "percpu_kaddr", CALL(1, 2, 0), .check = sema_fn_percpu_kaddr,
			      .lower = sema_lower_percpu_kaddr, .emit = cg_fn_percpu_kaddr },
	[FN_CGROUPID] = { "cgroupid", CALL(1, 1, 0), .check = sema_fn_cgroupid },
	[FN_SIZEOF] = { "sizeof", CALL(0, 1, FUNC_TYPE_ARG), .check = sema_fn_sizeof },
	[FN_OFFSETOF] = { "offsetof", CALL(2, 2, FUNC_TYPE_ARG), .check = sema_fn_offsetof },
};
/* clang-format on */

/* name is prefix followed by one or more digits */
static bool func_numbered(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);

	return !strncmp(name, prefix, len) && name[len] &&
	       strspn(name + len, "0123456789") == strlen(name + len);
}

/* bpftrace 0.27's spelling of the builtins its standard library wraps in macros */
#define FUNC_WRAP_PREFIX "__builtin_"

enum func func_find(const char *name, uint32_t form)
{
	bool wrapped = !strncmp(name, FUNC_WRAP_PREFIX, strlen(FUNC_WRAP_PREFIX));

	if (wrapped)
		name += strlen(FUNC_WRAP_PREFIX);
	for (int id = FN_NONE + 1; id < FN__NUM; id++) {
		const struct func_def *f = &func_defs[id];

		/* 0.27's __builtin_comm is a name: __builtin_comm(pid) is none of its calls */
		if (!(f->flags & form) ||
		    (wrapped && (!(f->flags & FUNC_WRAPPED) ||
				 ((form & FUNC_CALL) && (f->flags & FUNC_BARE)))))
			continue;
		if (f->flags & FUNC_NUMBERED ? func_numbered(name, f->name)
					     : !strcmp(f->name, name))
			return (enum func)id;
	}
	return FN_NONE;
}

const char *func_unwrap(const char *name, uint32_t form)
{
	enum func id = func_find(name, form);

	if (!id || strncmp(name, FUNC_WRAP_PREFIX, strlen(FUNC_WRAP_PREFIX)))
		return NULL;
	return func_defs[id].name;
}
