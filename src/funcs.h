/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The builtins (pid, comm, ...) and functions (printf, count, ...) of the language: one row each
 * in src/funcs.c, indexed by id. Sema finds a name's row and checks each use by it, lowering and
 * codegen reach the row again through node->func. Adding one is a row and its check and emitter.
 */
#ifndef AOT_FUNCS_H
#define AOT_FUNCS_H

#include <stdint.h>

#include "types.h"

struct cg;
struct node;
struct sema_ctx;
/*
 * LLVMValueRef is a pointer to this opaque struct: the table names codegen's emitters without
 * including LLVM's headers, which only codegen/ does.
 */
struct LLVMOpaqueValue;

/* The ids, in no meaningful order: nothing tests a range of them. */
enum func {
	FN_NONE = 0,
	/* builtins */
	FN_PID,
	FN_TID,
	FN_UID,
	FN_GID,
	FN_NSECS,
	FN_ELAPSED,
	FN_CPU,
	FN_COMM,
	FN_PROBE,
	FN_ARGS, /* `args` itself; also marks the object of args->name */
	FN_RETVAL,
	FN_FUNC,
	FN_ARG,	 /* arg0..argN */
	FN_SARG, /* sarg0..sargN */
	FN_CURTASK,
	FN_RAND,
	FN_CGROUP,
	FN_USERNAME,
	FN_NUMAID,
	FN_CTX,
	/* both: kstack is kstack() */
	FN_KSTACK,
	FN_USTACK,
	/* functions */
	FN_COUNT,
	FN_SUM,
	FN_MIN,
	FN_MAX,
	FN_AVG,
	FN_STATS,
	FN_HIST,
	FN_LHIST,
	FN_PRINTF,
	FN_EXIT,
	FN_DELETE,
	FN_CLEAR,
	FN_ZERO,
	FN_PRINT,
	FN_STR,
	FN_TIME,
	FN_STRFTIME,
	FN_BUF,
	FN_KSYM,
	FN_USYM,
	FN_KADDR,
	FN_UADDR,
	FN_NTOP,
	FN_JOIN,
	FN_SYSTEM,
	FN_CAT,
	FN_SIGNAL,
	FN_OVERRIDE,
	FN_PATH,
	FN_MACADDR,
	FN_CGROUPID,
	FN_STRNCMP,
	FN_SIZEOF,
	FN_OFFSETOF,
	FN_REG,
	FN_KPTR,
	FN_UPTR,
	FN_BSWAP,
	FN_CGROUP_PATH,
	FN_STRERROR,
	FN_STRCONTAINS,
	FN_STRSTR,
	FN_STR_CONCAT,
	FN_WRITE_USER,
	FN_PTON,
	FN_DEBUGF,
	/* the standard library of bpftrace 0.18 to 0.27 */
	FN_JIFFIES,
	FN_PPID,
	FN_PCOMM,
	FN_LEADER_COMM,
	FN_LEADER_TID,
	FN_USERMODE,
	FN_IS_ERR,
	FN_HAS_KEY,
	FN_STRLEN,
	FN_SIGNAL_NAME,
	FN_SYSCALL_NAME,
	FN_GETOPT,
	FN_LEN,
	FN_SIGNAL_THREAD,
	/* bpftrace 0.17's that came later here */
	FN_CPID,
	FN_UNWATCH,
	FN_SKBOUTPUT,
	/* bpftrace 0.27's standard library */
	FN_NCPUS,
	FN_HAS_CPID,
	FN_PROBETYPE,
	FN_ERRORF,
	FN_WARNF,
	FN_ASSERT,
	FN_ASSERT_STR,
	FN_STATIC_ASSERT,
	FN_FAIL,
	FN_FIND,
	FN_CONTAINER_OF,
	FN_MEMCMP,
	FN_STRCAP,
	FN_DEFAULT_STR_LENGTH,
	FN_TSERIES,
	FN_IS_ARRAY,
	FN_IS_INTEGER,
	FN_IS_LITERAL,
	FN_IS_PTR,
	FN_IS_STR,
	FN_IS_UNSIGNED_INTEGER,
	FN_PERCPU_KADDR,
	FN_SOCKET_COOKIE,
	FN_KFUNC_ALLOWED,
	FN_KFUNC_EXIST,
	FN_CONFIG,
	/* a function of an imported .bpf.c (node->idx: prog->cfuncs[idx]); no name to find */
	FN_CFUNC,
	FN__NUM
};

enum func_flags {
	FUNC_BARE = 1 << 0,	/* written without parentheses: a builtin */
	FUNC_CALL = 1 << 1,	/* written as a call of min_args..max_args arguments: a function */
	FUNC_NUMBERED = 1 << 2, /* the name is a prefix, then digits: arg0, arg1, ... */
	FUNC_VOID = 1 << 3,	/* a call without a value: a statement only */
	FUNC_AGG = 1 << 4,	/* an aggregation: only the whole value of `@map = ...` */
	FUNC_UNSAFE = 1 << 5,	/* only with --unsafe */
	FUNC_TYPE_ARG = 1 << 6, /* may name a type (sizeof(struct x)): its check counts the args */
	/*
	 * A field of the context the probe type describes (arg0, retval): sema makes the node
	 * args->name of a hidden argument, marked with this row's id.
	 */
	FUNC_HIDDEN_ARG = 1 << 7,
	FUNC_MISSING = 1 << 8, /* bpftrace has it, aotrace not yet: an error that says so */
	/*
	 * bpftrace 0.27 also spells it __builtin_NAME (its standard library's macro NAME()
	 * expands to that), in the same form: __builtin_cpu, __builtin_uaddr(sym)
	 */
	FUNC_WRAPPED = 1 << 9,
	/* a builtin also written NAME() without arguments, as 0.27's library macro NAME() */
	FUNC_NULLARY = 1 << 10,
};

/* nsecs(clock): the clock, in the node's idx */
enum func_clock { FUNC_CLOCK_MONOTONIC, FUNC_CLOCK_BOOT, FUNC_CLOCK_TAI, FUNC_CLOCK__NUM };

struct func_def {
	const char *name;
	uint16_t flags; /* enum func_flags */
	uint8_t min_args, max_args;
	uint32_t needs; /* enum probe_builtins every probe of the use must provide (0: any) */
	/*
	 * The value's type: a builtin has it as it is; a function's check gives it to the call
	 * (sema_fn_int_arg, the aggregations), or computes one where it depends on the arguments.
	 */
	struct type type;
	/*
	 * Sema, once the name, the number of arguments, --unsafe and needs have passed: checks the
	 * use and types it. A call's check evaluates the arguments itself, since some are names
	 * rather than values (kstack(perf), clear(@m)); NULL: evaluate them all.
	 */
	void (*check)(struct sema_ctx *ctx, struct node *n);
	/* Lowering a call (sema_lower.c); NULL: lower the arguments and widen them to 64 bits. */
	int (*lower)(struct sema_ctx *ctx, struct node *n);
	/*
	 * Codegen: the value, in codegen's convention (codegen/cg_internal.h). NULL where nothing
	 * is emitted: sema made the use a literal (sizeof, kaddr) or a field (arg0), or it is only
	 * a map's value (aggregations, emitted by the assignment).
	 */
	struct LLVMOpaqueValue *(*emit)(struct cg *cg, struct node *n);
};

/* Indexed by enum func; row FN_NONE is all zeros. */
extern const struct func_def func_defs[FN__NUM];

/*
 * The id of name written bare (FUNC_BARE) or called (FUNC_CALL), FN_NONE if there is none.
 * __builtin_NAME is NAME where its row says so (FUNC_WRAPPED).
 */
enum func func_find(const char *name, uint32_t form);
/* The row's own name when name is one of its __builtin_ spellings in this form, else NULL. */
const char *func_unwrap(const char *name, uint32_t form);

#endif
