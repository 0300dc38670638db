/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types and probe arguments: what the front end, codegen and the probe types all speak. A probe
 * type describes its targets' arguments in these terms (probes/), sema types expressions with
 * them (src/), codegen lays values out by them (codegen/). Part of the shared floor: it includes
 * nothing of either half.
 */
#ifndef AOT_TYPES_H
#define AOT_TYPES_H

#include <stdbool.h>
#include <stdint.h>

struct cenum;
struct crecord;
struct probe_type;

enum type_kind {
	TYPE_NONE = 0, /* statements, untyped */
	TYPE_VOID,     /* calls without a value: printf(), exit() */
	TYPE_INT,      /* size 1, 2, 4, 8; is_signed */
	TYPE_BOOL,     /* size 1 */
	TYPE_STR,      /* size = buffer bytes including the NUL */
	TYPE_TUPLE,    /* nelems elems at offsets, size = padded total */
	/* map value kinds made by aggregation calls; value layouts in src/common/meta.h */
	TYPE_COUNT,
	TYPE_SUM,
	TYPE_MIN,
	TYPE_MAX,
	TYPE_AVG,
	/* types from kernel BTF or the script's C definitions (src/ctypes.h) */
	TYPE_PTR,    /* size 8; pointee, btf_id, is_user */
	TYPE_RECORD, /* a struct or union: rec; reached through pointers, never a value */
	/* more aggregations (value layouts in src/common/meta.h) */
	TYPE_STATS,
	TYPE_HIST,
	TYPE_LHIST,
	TYPE_TSERIES,
	/* bytes of size that only user space renders: render says how (enum aot_kind) */
	TYPE_BUF,
	TYPE_ARRAY, /* nelems of *pointee (char arrays are STR instead) */
};

struct type {
	enum type_kind kind;
	uint32_t size;
	bool is_signed;
	uint32_t nelems;     /* TUPLE */
	struct type *elems;  /* TUPLE: arena-owned array */
	uint32_t *offsets;   /* TUPLE: byte offset of each element, natural alignment */
	char **names;	     /* TUPLE: the element names of a record ((a = 1, b = 2)), or NULL */
	uint32_t render;     /* BUF: enum aot_kind (src/common/meta.h) */
	uint32_t render_arg; /* BUF: kstack/ustack frame limit | mode << 16; timestamp fmt */
	struct type
		*pointee;    /* PTR: the pointed-to type (NULL: void, or see btf_id); ARRAY: elem */
	uint32_t btf_id;     /* PTR: the pointee's id in the kernel's BTF when pointee is NULL */
	bool is_user;	     /* PTR: points into user memory (probe_read_user) */
	bool is_ctx;	     /* PTR: the program's context (`ctx`): read with direct loads */
	struct crecord *rec; /* RECORD */
	bool is_lit;	     /* INT in a narrow tuple: a literal never negative (sema_narrow) */
	struct cenum *enm;   /* INT: the enum whose value it holds (printed by name), or NULL */
};

/*
 * Whether an operand makes arithmetic and comparisons signed: a signed int, or an unsigned one
 * narrower than 64 bits, which as in C is widened to int64 first (a uint32 such as pid plus
 * -5 is signed, as bpftrace 0.27 computes it).
 */
static inline bool type_int_signed64(const struct type *t)
{
	return t->is_signed || (t->kind == TYPE_INT && t->size < 8);
}

/* A tracepoint field (or, later, a BTF-typed argument) visible as args->name. */
struct probe_arg {
	char *name;
	char *decl; /* the declaration as the kernel spells it, for -lv: "const char * filename" */
	struct type type;
	uint32_t offset;  /* in the program's context */
	bool is_dataloc;  /* __data_loc: a u32 (len << 16 | offset) to the bytes */
	bool is_user_ptr; /* a pointer into user memory (char * from a syscall) */
	bool hidden;	  /* reached as a builtin (arg0, retval), not as args->name */
	/* USDT arguments: where the value is (0, PROBE_ARG_CTX: the context at offset). */
	uint8_t loc;	   /* enum probe_arg_loc */
	int8_t loc_size;   /* bytes of the value, negative if signed ("-4@%edi": -4) */
	int64_t loc_value; /* CONST: the value; MEM: the displacement; PCREL: the address in the
			      file */
	uint64_t loc_pc;   /* PCREL: the probe's address in the file (finds the load bias) */
};

/*
 * Where a USDT argument (or a stack argument, sarg0..N) lives. REG, MEM and KMEM name a register
 * by its offset in struct pt_regs (probe_arg.offset); MEM and PCREL values are read from user
 * memory, KMEM ones from the kernel's.
 */
enum probe_arg_loc {
	PROBE_ARG_CTX = 0, /* the context at offset, as loaded by type */
	PROBE_ARG_REG,	   /* a register: "-4@%edi" */
	PROBE_ARG_MEM,	   /* memory at register + loc_value: "8@-8(%rbp)" */
	PROBE_ARG_CONST,   /* loc_value: "-4@$5" */
	PROBE_ARG_PCREL,   /* memory at a global's address (load bias + loc_value): "8@g(%rip)" */
	PROBE_ARG_KMEM,	   /* like MEM, in kernel memory: a kprobe's stack arguments */
	PROBE_ARG_UNSUPPORTED, /* a form aotrace cannot read (decl says which) */
};

/* One concrete probe a wildcard attach point expanded to. */
struct probe_match {
	const struct probe_type *pt;
	char *target;  /* type-specific, no wildcards: "syscalls:sys_enter_openat", "s:1" */
	char *name;    /* what `probe` prints: "tracepoint:syscalls:sys_enter_openat" */
	char *section; /* canonical libbpf section: "tracepoint/syscalls/sys_enter_openat" */
	char *func;    /* ELF function name of its program */
	struct probe_arg *args;
	uint32_t nargs;
	uint32_t meta_idx; /* index in aot_meta.probes */
	bool is_multi;	/* one program for all targets (AOT_PROBE_MULTI): target is the pattern */
	char **targets; /* is_multi: the targets the pattern matched when compiling */
	uint32_t ntargets;
	bool alias_ok; /* expand: may share its attach point's function (alias group) */
	struct probe_match *alias_of; /* codegen: the match whose function this one aliases */
	bool func_const; /* `func` is AOT_FUNC_TAG | meta_idx: the kernel lacks bpf_get_func_ip */
};

#endif
