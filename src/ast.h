/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AST: what the parser builds and the semantic passes annotate. One node struct serves every
 * kind (chibicc style); each kind's comment names the fields it uses. Sema fills `type` and the
 * resolved-* fields; codegen reads them and never looks names up again.
 */
#ifndef AOT_AST_H
#define AOT_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "aotcc.h"
#include "funcs.h"
#include "types.h"

struct arena;
struct probe_type;
struct cmember;
struct ctypes;

struct source {
	char *name; /* "stdin", "-e", or the file path */
	char *text; /* NUL-terminated */
	size_t len;
};

/*
 * 1-based line and column; len is the width of the caret underline (at least 1). file: which
 * source (0 the program's, else an imported file: diags_file()); exp: 0, or the macro expansion
 * the node was made by (diags_expansion()), whose call a diagnostic points at too.
 */
struct loc {
	uint32_t line, col, len;
	uint32_t file, exp;
};

enum node_kind {
	/* expressions */
	NODE_INT,      /* num */
	NODE_STR,      /* str (unescaped, NUL-terminated), str_len */
	NODE_BUILTIN,  /* name; func (sema) */
	NODE_POSPARAM, /* num = N for $N; is_count for $# */
	NODE_VAR,      /* name ("$x"); var (sema) */
	NODE_MAP,      /* name ("@x" or "@"); args = key expressions or NULL; map (sema) */
	NODE_CALL,     /* name; args; func (sema); idx = format index for printf (sema);
			* field_off: str($N + k) of a $N read where the object runs, k (sema) */
	NODE_BINOP,    /* op; lhs; rhs; num: pointer + or - integer, the pointee's size (sema) */
	NODE_UNOP,     /* op; lhs = operand; is_post for x++ and x-- */
	NODE_TERNARY,  /* cond; lhs = then (NULL for `cond ?: else`, whose value is cond's);
			* rhs = else. An if expression is one with BLOCK values */
	NODE_FIELD,    /* lhs; name; is_arrow; type (sema). For args->name the offset can differ per
			* match of a wildcard: look the name up in probe_match.args. func: the
			* builtin (arg0, retval) sema made into args->name of a hidden arg */
	NODE_INDEX,    /* lhs; rhs */
	NODE_CAST,     /* cast_type text ("uint8", "struct task_struct *"); lhs. Sema also inserts
			* implicit casts (cast_type NULL) wherever a value meets a slot of another
			* type: INT->INT resizes (extending by the source's sign), STR->STR copies
			* and zero-pads or truncates (keeping a NUL), TUPLE->TUPLE element-wise. */
	NODE_TUPLE,    /* args; a record when they are NODE_NAMED: (a = 1, b = 2) */
	NODE_BOOL,     /* num: true (1) or false (0) */
	NODE_NAMED,    /* name; lhs = the value: an element of a record, `name = value` */
	NODE_RANGE,    /* lhs = start; rhs = end: the START..END of a for loop */
	NODE_TYPE,     /* cast_type: a type written where typeof() takes a type or expression */
	/* statements */
	NODE_EXPR_STMT, /* lhs; is_discard for `_ = lhs` */
	NODE_LET,	/* lhs = VAR; rhs = initial value or NULL; cast_type or type_expr: the
			 * declared type, if any */
	NODE_ASSIGN,	/* lhs (MAP or VAR); op = 0 or the operator of `op=`, `++`, `--`; rhs;
			 * num: `p += i` on a pointer, the pointee's size (sema) */
	NODE_IF,	/* cond; body; else_body (BLOCK or IF) or NULL */
	NODE_WHILE,	/* cond; body */
	NODE_UNROLL,	/* num (count); body; cond: the count written as $N (sema makes num) */
	NODE_FOR,	/* lhs = VAR; rhs = MAP or RANGE; body */
	NODE_BREAK,
	NODE_CONTINUE,
	NODE_RETURN,
	NODE_BLOCK, /* body = first statement, chained by next; lhs: the value of a block
		     * expression ({ stmts; expr }), NULL for a block statement */
	/* top level */
	NODE_ATTACH,  /* str = attach point as written; provider, target; matches (expand) */
	NODE_PROBE,   /* args = ATTACH list; cond = predicate or NULL; body = BLOCK; vars (sema) */
	NODE_CDEF,    /* str = C text (struct/union/enum/typedef definition) */
	NODE_INCLUDE, /* str = "#include ..." line */
	NODE_PROGRAM, /* body = first top-level item (CDEF, INCLUDE, PROBE), chained by next */
	NODE_MAPDECL, /* let @m = KIND(N): name = "@m"; str = KIND ("lruhash"); num = N */
	NODE_CONFIG,  /* config = { ... }: args = its NODE_CONFIG_VARs */
	NODE_CONFIG_VAR, /* key = value: name = key; str = the value as written (a string's
			  * contents); op = TOK_INT, TOK_STR or TOK_IDENT; num = TOK_INT's value */
	NODE_IMPORT,	 /* import "path";: str = the path as written. Gone from the program once
			  * parse_program has run (import.c puts the imported items in its place) */
	NODE_MACRO,	 /* macro NAME(params) { body }: name; args = params (VAR, MAP or BUILTIN
			  * for a plain identifier); body = BLOCK, its lhs the value or NULL. Gone
			  * from the program once macro_expand has run */
};

/* Operators: single-character ones are their ASCII code; the rest follow. */
enum op {
	OP_EQ = 256, /* == */
	OP_NE,	     /* != */
	OP_LE,	     /* <= */
	OP_GE,	     /* >= */
	OP_AND,	     /* && */
	OP_OR,	     /* || */
	OP_SHL,	     /* << */
	OP_SHR,	     /* >> */
	OP_INC,	     /* ++ */
	OP_DEC,	     /* -- */
	OP_ARROW,    /* -> (a token only, never in the AST) */
	OP_RANGE,    /* .. (a token only: for ($i : a..b)) */
};

/*
 * A scratch variable, one per `$name` and scope in a probe. When its block ends, its name gets a
 * leading space no `$name` has: it keeps its storage, but no later `$name` finds it.
 */
struct var_info {
	char *name;
	struct type type;
	struct var_info *next;
	struct loc first; /* where it was declared or first assigned */
	bool declared;	  /* by let */
	bool typed;	  /* let $x: TYPE: the type is fixed, values convert to it */
	bool assigned;	  /* given a value somewhere in its probe */
	/* let $x, read before any value: an int64 0 there, as bpftrace 0.27 reads its zero */
	struct loc read_early;
	/* the integer type bpftrace 0.27 gives it (sema_narrow.c), TYPE_NONE if not an integer;
	 * narrow_lit: every value it was given is a literal that is never negative */
	struct type narrow;
	bool narrow_lit;
	/*
	 * line != 0: first assigned inside both branches of the if here, it outlives the if as in
	 * bpftrace 0.21 and earlier; its next use says so once (0.22 and later refuse it).
	 */
	struct loc kept_by;
};

/* A map, one per distinct `@name` in the program. */
struct map_info {
	char *name;	      /* "@x", "@" */
	char *elf_name;	      /* C identifier of the map in the ELF: "AT_x", "AT_" */
	uint32_t meta_idx;    /* index in aot_meta.maps */
	uint32_t nkeys;	      /* 0: a scalar map (one u64 key 0) */
	struct type key;      /* the key as stored: the key expr's type, or a TUPLE if nkeys > 1 */
	struct type value;    /* INT/STR/TUPLE for plain values, COUNT..AVG for aggregations */
	struct loc first_use; /* for "declared here" notes */
	int64_t lhist_min, lhist_max, lhist_step; /* value LHIST: the literal parameters */
	uint32_t hist_k;			  /* value HIST: k of hist(v, k), 0..5 */
	bool hist_k_set;			  /* a hist() call has given it */
	/* value TSERIES: ns per interval, intervals kept (0: not yet given), enum aot_tseries_fn */
	int64_t tseries_interval, tseries_count, tseries_fn;
	const struct node *decl; /* its MAPDECL (let @m = lruhash(N)), or NULL */
	struct type narrow;	 /* as var_info.narrow, of its values */
	bool narrow_lit;
	bool lastkey; /* codegen: counted through a per-CPU last-key cache (cg_lastkey.c) */
	struct map_info *next;
};

struct node {
	enum node_kind kind;
	struct loc loc;
	struct type type; /* sema */
	struct node *next;

	char *name;
	char *str;
	size_t str_len;
	uint64_t num;
	int op;
	bool is_post, is_arrow, is_count;
	bool is_discard; /* EXPR_STMT: `_ = expr` */
	bool open_last;	 /* BLOCK: its last statement is an expression with no ';' after it */
	bool divzero;	 /* BINOP, ASSIGN of / or %: idx is the warning of a divisor of 0 */
	/* TUPLE: a record literal put in another order (sema_record_order); NAMED: written is its
	 * place as written, where it is evaluated */
	bool reordered;
	uint32_t written;
	bool is_value; /* INDEX: into a string value of ours ($s[0]), not into memory (sema) */
	bool is_user;  /* CALL str(): the pointer is into user memory (probe_read_user_str) */
	char *cast_type;
	/* CAST, LET, CALL sizeof: a type written typeof(x): x (an expression or a NODE_TYPE) */
	struct node *type_expr;
	char *provider, *target; /* NODE_ATTACH: "tracepoint", "syscalls:sys_enter_open*" */

	struct node *lhs, *rhs, *cond, *body, *else_body, *args;

	/* resolved by the semantic passes */
	enum func func; /* BUILTIN, CALL: the row of src/funcs.c */
	uint32_t idx;
	uint32_t field_off;
	struct var_info *var;
	struct map_info *map;
	struct var_info *vars;	     /* NODE_PROBE */
	struct probe_match *matches; /* NODE_ATTACH */
	uint32_t nmatches;
	/* NODE_FIELD on a record: the members from the record down to the named one (several when
	 * it is inside anonymous structs or unions) */
	const struct cmember **mpath;
	uint32_t npath;
};

/*
 * A whole compilation as the passes share it: what it was asked for (opts) and what the passes
 * made of it. Everything lives in the arena and dies with it.
 */
/*
 * An entry and a return probe on the same wildcard (kprobe:vfs_* and kretprobe:vfs_*) that one
 * session program serves too, where the kernel has session links (session.c, AOT_PROBE_SESSION).
 */
struct session {
	struct node *entry_probe, *return_probe; /* their NODE_PROBEs */
	struct probe_match *entry, *ret;
	struct probe_match m; /* the session program: func, section, meta_idx; its targets */
	bool is_return_ctx;   /* this kernel's bpf_session_is_return takes ctx (after 6.18) */
	struct session *next;
};

/* import "lib.bpf.c": a file of BPF C that clang compiles and codegen links in (cimport.c). */
struct cimport {
	const char *path;
	struct loc loc; /* the import's */
	void *bitcode;	/* LLVM bitcode, arena-owned */
	size_t bitcode_size;
};

/* A global function of an imported .bpf.c, which the script calls by name. */
struct cfunc {
	const char *name;
	const struct cimport *from;
	bool ret_void;
	struct type ret;     /* an integer or a pointer, unless ret_void */
	struct type *params; /* integers or pointers; kind TYPE_NONE: one aotrace cannot pass */
	const char **param_types; /* each parameter's C type, for errors */
	uint32_t nparams;
};

struct program {
	struct arena *arena;
	struct source *src;
	const struct aot_compile_opts *opts; /* every setting resolved (aotcc.h) */
	/* made by the passes */
	struct node *root;
	struct map_info *maps;
	uint32_t nmaps;
	struct aot_meta *meta;	  /* maps and formats from sema, probes from expansion */
	struct session *sessions; /* expansion: pairs of probes one session program serves */
	struct ctypes
		*ctypes;   /* the type universe (kernel BTF, C definitions), made on first use */
	bool uses_elapsed; /* sema: the program reads elapsed (codegen adds AOT_STATE_MAP) */
	bool uses_kstack, uses_ustack; /* sema: codegen adds the stack trace maps */
	bool uses_stack_len;	       /* sema: len() of a stack, whose depth its value carries */
	bool uses_skboutput;	       /* sema: codegen adds AOT_SKB_MAP */
	/*
	 * For the object cache: host_bound, a value was read from this boot's state (kaddr,
	 * uaddr, cgroupid), so the object is for this run only; deps, the files the C definitions
	 * included and the files and folders imported (arena strings), whose identity a cached
	 * object is checked against.
	 */
	bool host_bound;
	char **deps;
	uint32_t ndeps, capdeps;
	/* import: the .bpf.c files (import.c), compiled before sema with their functions */
	struct cimport *cimports;
	uint32_t ncimports;
	struct cfunc *cfuncs;
	uint32_t ncfuncs;
};

struct node *node_new(struct arena *a, enum node_kind kind, struct loc loc);
/* A member as a call writes it, a name (b) or a path (a.b): "b", "a.b"; NULL for other nodes. */
const char *node_member_path(struct arena *a, const struct node *n);
/* path is a file the object is made from (copied): the cache checks it is unchanged. */
void program_add_dep(struct program *prog, const char *path);
/*
 * Sets an attach point's text as written (str, which it keeps) and its split at the first ':'
 * into provider and target ("" for a bare BEGIN): the parser's, and again expansion's once $N
 * are replaced.
 */
void ast_attach_set(struct arena *a, struct node *ap, char *str);
const char *node_kind_name(enum node_kind kind);
/*
 * Whether n names typed memory of the kernel or a process (a member, an element, a
 * dereference), which has an address, rather than a value of ours.
 */
bool node_is_addressable(const struct node *n);
void ast_dump(const struct node *n, FILE *f);

#endif
