/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code generation internals shared by the codegen files, one section per file. Values follow
 * one convention: INT and BOOL expressions are i64 (extended per their type's signedness); STR
 * and TUPLE expressions are pointers to 8-byte aligned stack buffers of type.size bytes.
 */
#ifndef AOT_CG_INTERNAL_H
#define AOT_CG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include "ast.h"
#include "cg_funcs.h"
#include "codegen.h"
#include "diag.h"

/* BPF helper ids (include/uapi/linux/bpf.h); calls go to the constant address. */
enum cg_helper {
	CG_H_MAP_LOOKUP = 1,
	CG_H_MAP_UPDATE = 2,
	CG_H_MAP_DELETE = 3,
	CG_H_KTIME_GET_NS = 5,
	CG_H_GET_PRANDOM_U32 = 7,
	CG_H_GET_SMP_PROCESSOR_ID = 8,
	CG_H_GET_CURRENT_PID_TGID = 14,
	CG_H_GET_CURRENT_UID_GID = 15,
	CG_H_GET_CURRENT_COMM = 16,
	CG_H_TRACE_PRINTK = 6,
	CG_H_GET_STACKID = 27,
	CG_H_GET_STACK = 67,
	CG_H_PER_CPU_PTR = 153,
	CG_H_THIS_CPU_PTR = 154,
	CG_H_GET_CURRENT_TASK = 35,
	CG_H_PROBE_WRITE_USER = 36,
	CG_H_OVERRIDE_RETURN = 58,
	CG_H_GET_NUMA_NODE_ID = 42,
	CG_H_GET_SOCKET_COOKIE = 46,
	CG_H_GET_CURRENT_CGROUP_ID = 80,
	CG_H_SEND_SIGNAL_THREAD = 117,
	CG_H_GET_NS_CURRENT_PID_TGID = 120,
	CG_H_JIFFIES64 = 118,
	CG_H_KTIME_GET_BOOT_NS = 125,
	CG_H_SEQ_PRINTF = 126,
	CG_H_KTIME_GET_TAI_NS = 208,
	CG_H_SEND_SIGNAL = 109,
	CG_H_SKB_OUTPUT = 111,
	CG_H_PROBE_READ_USER = 112,
	CG_H_PROBE_READ_KERNEL = 113,
	CG_H_PROBE_READ_USER_STR = 114,
	CG_H_PROBE_READ_KERNEL_STR = 115,
	CG_H_RINGBUF_OUTPUT = 130,
	CG_H_RINGBUF_RESERVE = 131,
	CG_H_RINGBUF_SUBMIT = 132,
	CG_H_D_PATH = 147,
	CG_H_FOR_EACH_MAP_ELEM = 164,
	CG_H_GET_FUNC_IP = 173,
	CG_H_LOOP = 181,
};

/* BPF map types and update flags used here. */
#define CG_MAP_HASH 1
#define CG_MAP_ARRAY 2
#define CG_MAP_PERCPU_HASH 5
#define CG_MAP_PERCPU_ARRAY 6
#define CG_MAP_STACK_TRACE 7
#define CG_MAP_LRU_HASH 9
#define CG_MAP_LRU_PERCPU_HASH 10
#define CG_BPF_F_USER_STACK (1u << 8)
#define CG_BPF_F_STACK_BUILD_ID (1u << 5) /* map_flags: frames are build id + file offset */
#define CG_MAP_PERF_EVENT_ARRAY 4
#define CG_MAP_RINGBUF 27
#define CG_BPF_ANY 0
#define CG_BPF_NOEXIST 1
#define CG_EVENTS_SIZE (256 * 1024)

#define CG_MAX_LOOP_DEPTH 16

struct cg_var {
	const struct var_info *info;
	LLVMValueRef ptr;
	/* in the scratch value: its address is made where used, not kept live (and spilled) */
	bool scratch;
	uint32_t scratch_off;
};

/* A buffer that dies with its statement: a stack slot, or a range of the scratch value. */
struct cg_temp {
	LLVMValueRef p;
	uint32_t size;
	bool scratch;
	uint32_t scratch_off;
};

/*
 * Buffers of more than on_stack_limit bytes (a 1024-byte string) live in the one per-CPU value
 * of AOT_SCRATCH_MAP, which a PERCPU_ARRAY allows up to CG_SCRATCH_MAX bytes; the others on
 * the stack. Scratch mode: a program that still needs more than the 512 bytes of BPF stack is
 * compiled again with its buffers of more than CG_SCRATCH_MIN bytes there.
 */
#define CG_SCRATCH_MIN 16
#define CG_SCRATCH_MAX (32 * 1024)

struct cg {
	struct program *prog;
	struct diags *d;

	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMDIBuilderRef dib;
	LLVMMetadataRef di_file, di_cu;
	LLVMTypeRef t_i1, t_i8, t_i16, t_i32, t_i64, t_ptr, t_void;
	LLVMValueRef events;		      /* the ring buffer map */
	LLVMValueRef skb;		      /* AOT_SKB_MAP, where skboutput() is used */
	LLVMValueRef state, kstacks, ustacks; /* AOT_STATE_MAP and the stack maps, if used */
	/* AOT_USTACK_BUILDID_MAP, made by its first ustack(build_id) */
	LLVMValueRef ustacks_bid;
	LLVMValueRef lost, errors;		  /* AOT_LOST_MAP, AOT_ERRORS_MAP (NULL: no maps) */
	LLVMMetadataRef di_agg[TYPE_TSERIES + 1]; /* value structs of aggregations, made once */

	/* the program function being emitted */
	LLVMValueRef fn;
	LLVMValueRef ctxp;
	LLVMBasicBlockRef alloca_bb;
	LLVMMetadataRef di_sp;
	const struct node *probe;
	const struct probe_match *match;
	struct cg_var *vars;
	uint32_t nvars;
	/* stack temporaries of the statements being emitted, ended when their statement ends */
	struct cg_temp *temps;
	uint32_t ntemps, captemps;
	uint32_t stmt_depth;
	bool stack_reported;
	bool stack_over; /* the backend found the stack too small (reported in scratch mode) */
	bool scratch_mode;
	uint32_t stack_max; /* buffers of more bytes go to the scratch value (see CG_SCRATCH_MIN) */
	LLVMValueRef scratch;	   /* the map global; a placeholder until its size is known */
	LLVMValueRef scratch_base; /* the stack slot of this function's pointer to it, or NULL */
	LLVMBasicBlockRef scratch_look;	   /* this function's lookup of it, after the entry block */
	LLVMBasicBlockRef scratch_bb;	   /* after its null check, on to start */
	uint32_t scratch_off, scratch_max; /* bytes in use by this function, and by the biggest */
	/* targets of break and continue in the loops around the statement being emitted */
	struct cg_loop {
		LLVMBasicBlockRef brk, cont;
	} loops[CG_MAX_LOOP_DEPTH];
	uint32_t nloops;
	struct cg_core *core; /* cg_core.c: CO-RE debug types and layouts made so far */
	uint32_t nfor;	      /* for loops emitted so far: names their callbacks */
	bool session_return;  /* in a session program's return half: `probe` names the return */
	/* in a for callback: the u64 in the caller's frame set when the body returns or exits */
	LLVMValueRef for_ret;
	struct loc
		loc; /* the statement or expression being emitted: where -k says a helper failed */
};

/* ---- codegen.c ---- */

/* An error at loc; codegen goes on (with a dummy value) so every error gets reported. */
void cg_error(struct cg *cg, struct loc loc, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- cg_debug.c: debug info, from which the BPF backend writes .BTF and .BTF.ext ---- */

void cg_di_init(struct cg *cg);
LLVMMetadataRef cg_di_int(struct cg *cg, uint32_t size, bool is_signed);
/* C's int, as the map definition fields and the program return type have it. */
LLVMMetadataRef cg_di_c_int(struct cg *cg);
/* The BTF-visible type of a stored key or value; name is used for structs it creates. */
LLVMMetadataRef cg_di_type(struct cg *cg, const struct type *t, const char *name);
/* A struct of 64-bit fields, as the map value layouts of src/common/meta.h are. */
LLVMMetadataRef cg_di_struct_u64s(struct cg *cg, const char *name, const char *const *fields,
				  const bool *is_signed, unsigned n);
LLVMMetadataRef cg_di_ptr(struct cg *cg, LLVMMetadataRef pointee);
void cg_di_func(struct cg *cg, LLVMValueRef fn, const char *name, struct loc loc);
void cg_di_set_loc(struct cg *cg, struct loc loc);
void cg_di_global(struct cg *cg, LLVMValueRef g, const char *name, LLVMMetadataRef ty);

/* ---- cg_maps.c: BTF-defined maps and the helper calls that use them ---- */

/* A BTF-defined map global in .maps. */
struct cg_mapdef {
	uint32_t type;
	uint32_t max_entries;
	LLVMMetadataRef key, value; /* NULL: the map has none (ring buffer) */
	uint32_t map_flags;	    /* 0: none written */
};
LLVMValueRef cg_map_global(struct cg *cg, const char *name, const struct cg_mapdef *def);
/* AOT_USTACK_BUILDID_MAP, made on the first call. */
LLVMValueRef cg_map_ustack_build_id(struct cg *cg);
/* After every function: AOT_SCRATCH_MAP sized for the biggest user, if scratch mode used it. */
int cg_maps_scratch(struct cg *cg);

/* ---- cg_multi.c ---- */

/* The map of target names for multi programs, if the program has any. */
void cg_multi_define(struct cg *cg);
/* `probe` in a multi program: its target's name, looked up by attach cookie. */
LLVMValueRef cg_multi_probe_name(struct cg *cg, struct node *n);

/* ---- cg_session.c ---- */

/* One function for each session program (prog->sessions). 0 or -ENOMEM. */
int cg_session_emit(struct cg *cg);

/* ---- cg_alias.c: matches sharing one function through ELF aliases ---- */

/* Groups alias-eligible matches by body before any function is made (sets alias_of). */
void cg_alias_plan(struct cg *cg);
/* After lead's function: one alias of it per match of ap in its group. */
void cg_alias_emit(struct cg *cg, const struct node *ap, const struct probe_match *lead);

int cg_maps_define(struct cg *cg);
/* @x as a value: the stored value, or zero if the key is missing. */
LLVMValueRef cg_map_read(struct cg *cg, struct node *n);
/* @x = val, where val has type vt. */
void cg_map_write(struct cg *cg, struct node *n, LLVMValueRef val, const struct type *vt);
/*
 * The key of @x[k] in a buffer, and the read and write of @x at such a key: an update
 * (@x[k] += v, @x[k]++) makes the key once, so k runs once (@[rand] += 1 is one key).
 */
LLVMValueRef cg_map_key(struct cg *cg, struct node *n);
LLVMValueRef cg_map_read_at(struct cg *cg, struct node *n, LLVMValueRef key);
void cg_map_write_at(struct cg *cg, struct node *n, LLVMValueRef key, LLVMValueRef val,
		     const struct type *vt);
/* delete(@x[key]): the helper's return, 0 when there was an element */
LLVMValueRef cg_map_delete(struct cg *cg, struct node *n);
/* The BPF map of a map_info. */
LLVMValueRef cg_map_ref(struct cg *cg, const struct map_info *mi);
LLVMValueRef cg_map_lookup(struct cg *cg, LLVMValueRef map, LLVMValueRef key);
/* An i64 from the current CPU's value of an aggregation at p (count, sum, min, max, avg). */
LLVMValueRef cg_agg_value(struct cg *cg, LLVMValueRef p, const struct type *vt);
/* @x = count() and friends; arg is the call's argument or NULL. */
void cg_map_aggregate(struct cg *cg, struct node *n, struct node *arg);
/* Adds v to the count or sum of mi at key (a buffer), inserting the key if missing. */
void cg_map_add_at(struct cg *cg, const struct map_info *mi, LLVMValueRef key, LLVMValueRef v);

/* ---- cg_lastkey.c: per-CPU last-key caches of count() maps ---- */

/* Before any map is made: which maps get one (map_info.lastkey). */
void cg_lastkey_plan(struct cg *cg);
/* Their BPF maps. */
void cg_lastkey_define(struct cg *cg);
/* @x[k] = count() of such a map. */
void cg_lastkey_count(struct cg *cg, struct node *n);
/*
 * Reserves a ring buffer record of size bytes; code after it runs only if that worked, up to
 * cg_event_submit(), which joins the paths again at *done.
 */
LLVMValueRef cg_event_reserve(struct cg *cg, uint32_t size, LLVMBasicBlockRef *done);
void cg_event_submit(struct cg *cg, LLVMValueRef rec, LLVMBasicBlockRef done);
/* Copies size bytes at data into the ring buffer as one record. */
void cg_event_output(struct cg *cg, LLVMValueRef data, uint32_t size);
/* Adds 1 to slot idx of a per-CPU array of u64 counters. */
void cg_count_in(struct cg *cg, LLVMValueRef map, uint32_t idx);
/* The run's stop flag: a program's first act is to return if it is set; exit() sets it. */
/* Loads the u64 at off in the run's struct aot_state (AOT_STATE_SECTION). */
LLVMValueRef cg_state_load(struct cg *cg, uint32_t off, const char *name);
void cg_stop_check(struct cg *cg);
void cg_stop_set(struct cg *cg);
/* A new basic block in the current function. */
LLVMBasicBlockRef cg_block(struct cg *cg, const char *name);

/* ---- cg_params.c ---- */

/* $N or $# of an object compiled for later: read from AOT_PARAMS_MAP where it runs. */
LLVMValueRef cg_params_read(struct cg *cg, struct node *n);

/* ---- cg_helpers.c: BPF helper calls ---- */

/* A call of helper id; with -k, an event reports where a checked helper failed. */
LLVMValueRef cg_kfunc_extern(struct cg *cg, const char *name, LLVMTypeRef *fty, LLVMTypeRef ret,
			     LLVMMetadataRef ret_di, LLVMTypeRef *params,
			     LLVMMetadataRef *params_di, unsigned nparams);
LLVMValueRef cg_kfunc_exists(struct cg *cg, LLVMValueRef fn);
/* len(kstack), len(ustack): the frames of a stack value */
LLVMValueRef cg_stack_len(struct cg *cg, struct node *a);
/* The address of a member path (CO-RE relocated) of the record at base. */
LLVMValueRef cg_core_path(struct cg *cg, LLVMValueRef base, const struct cmember *const *path,
			  uint32_t npath);
/* The debug-info type of the kernel's BTF type id. */
LLVMMetadataRef cg_core_btf_di(struct cg *cg, uint32_t id);
/* A pointer to a kernel record in debug info (NULL: a plain pointer). */
LLVMMetadataRef cg_core_record_ptr_di(struct cg *cg, struct crecord *r);
LLVMValueRef cg_helper(struct cg *cg, enum cg_helper id, LLVMTypeRef ret, LLVMValueRef *args,
		       unsigned nargs);
/*
 * On a path where helper id failed (ret: what to report): the -k event naming the call site,
 * if -k or -kk asks for that helper. For helpers whose failure is no error return (a map
 * lookup's NULL).
 */
void cg_helper_failed(struct cg *cg, enum cg_helper id, LLVMValueRef ret);

/* ---- cg_mem.c: buffers, variables' storage, typed loads and stores ---- */

/*
 * A stack buffer in the entry block, 8-byte aligned. Inside a statement it is a temporary:
 * its lifetime ends with the statement, so the backend can share its stack slot. In scratch
 * mode a buffer of more than CG_SCRATCH_MIN bytes is in the scratch value instead.
 */
LLVMValueRef cg_alloca(struct cg *cg, uint32_t size, const char *name);
/* A buffer that must be on the stack (a helper takes only a stack pointer, or it holds one). */
LLVMValueRef cg_stack_alloca(struct cg *cg, uint32_t size, const char *name);
/* Ends the entry block of the function being emitted: on to start (through the scratch lookup). */
void cg_entry_close(struct cg *cg, LLVMBasicBlockRef start);
/* Brackets code whose temporaries die at its end; returns the mark to pass to cg_temps_end. */
uint32_t cg_temps_begin(struct cg *cg);
void cg_temps_end(struct cg *cg, uint32_t mark);
/* A zeroed stack buffer. */
LLVMValueRef cg_alloca_zero(struct cg *cg, uint32_t size, const char *name);
LLVMValueRef cg_gep(struct cg *cg, LLVMValueRef p, uint64_t off);
void cg_memset0(struct cg *cg, LLVMValueRef p, uint32_t size, unsigned align);
void cg_memcpy(struct cg *cg, LLVMValueRef dst, unsigned dalign, LLVMValueRef src, unsigned salign,
	       uint32_t size);
unsigned cg_align_at(unsigned base, uint64_t off);
/* Truncates an i64 to t's width and extends it back, as storing and reloading would. */
LLVMValueRef cg_int_norm(struct cg *cg, LLVMValueRef v, const struct type *t);
/* A value of the convention above from memory of type t. */
LLVMValueRef cg_load(struct cg *cg, LLVMValueRef p, const struct type *t, unsigned align);
/* Whether the n bytes at a and b (both 8-aligned) are the same: loads of 8, 4, 2 and 1 bytes. */
LLVMValueRef cg_bytes_eq(struct cg *cg, LLVMValueRef a, LLVMValueRef b, uint32_t n);
/* Stores val (of type vt) into memory of type dt: truncates, pads with zeros. */
void cg_store(struct cg *cg, LLVMValueRef p, const struct type *dt, unsigned align,
	      LLVMValueRef val, const struct type *vt);
/* A stack buffer of size bytes (len + 1 if 0) holding a constant string. */
LLVMValueRef cg_str_lit(struct cg *cg, const char *s, size_t len, uint32_t size);
/* Writes a constant string into a buffer of size bytes, zero-padded. */
void cg_store_cstr(struct cg *cg, LLVMValueRef p, const char *s, size_t len, uint32_t size);
/* The storage of a scratch variable. */
LLVMValueRef cg_var_ptr(struct cg *cg, struct node *n);
LLVMValueRef cg_var_addr(struct cg *cg, const struct cg_var *v);

/* ---- cg_cimport.c: import "lib.bpf.c" ---- */

/* Links each imported file's bitcode into the module. 0 or -EINVAL, reported. */
int cg_cimports(struct cg *cg);

/* ---- cg_expr.c: expressions ---- */

LLVMValueRef cg_expr(struct cg *cg, struct node *n);
/* An expression as an i1 truth value. */
LLVMValueRef cg_cond(struct cg *cg, struct node *n);
LLVMValueRef cg_i64(struct cg *cg, uint64_t v);
LLVMValueRef cg_i32(struct cg *cg, uint32_t v);
/* An integer binary operator on i64 values. */
LLVMValueRef cg_arith(struct cg *cg, int op, LLVMValueRef l, LLVMValueRef r, bool is_signed);
/* n / r, n %= r, ...: the warning of a divisor of 0 (n->divzero, sema_lower.c) when r is 0. */
void cg_divzero_warn(struct cg *cg, struct node *n, LLVMValueRef r);
bool cg_type_is_buf(const struct type *t);
/* Ends the probe's run (exit, return), also from a for body: the callback then stops the
 * iteration and flags the probe to return; emitting goes on in an unreachable block. */
void cg_ret0_and_continue(struct cg *cg);
/* In an iter probe (AOT_PROBE_ITER): a value read from the context that is 0 ends the program. */
void cg_iter_ctx_check(struct cg *cg, LLVMValueRef v);
/* return EXPR: the program returns v (an integer, cut to 32 bits); NULL: 0. */
void cg_ret_and_continue(struct cg *cg, LLVMValueRef v);

/* ---- cg_stmt.c: statements and program functions ---- */

int cg_probe(struct cg *cg, struct node *probe);
/* A program function: made, with its entry blocks; the builder at the returned start block. */
LLVMBasicBlockRef cg_fn_begin(struct cg *cg, const struct node *probe, const char *func,
			      const char *section);
/*
 * A probe's variables, predicate and body for match m where the builder is, ending in a return
 * of 0; after the check that the run has started and not stopped, if stop_check.
 */
int cg_probe_body(struct cg *cg, struct node *probe, const struct probe_match *m, bool stop_check);
/* Closes the function cg_fn_begin made (start: the block it returned). */
void cg_fn_end(struct cg *cg, LLVMBasicBlockRef start);
/* The statements of a block, in order. */
void cg_stmts(struct cg *cg, struct node *block);

/* ---- cg_builtins.c: emitters (cg_funcs.h), and the events of formats ---- */

void cg_event_hdr(struct cg *cg, LLVMValueRef p, uint32_t kind, uint32_t index);
/* A ring buffer record of a format (printf, system, cat, print, time): args from first on. */
LLVMValueRef cg_fmt_event(struct cg *cg, struct node *n, struct node *first);
/* n's format event without arguments (a run-time warning of its place), when v is 0. */
void cg_fmt_event_if_zero(struct cg *cg, struct node *n, LLVMValueRef v);

/* $t.N */
LLVMValueRef cg_tuple_field(struct cg *cg, struct node *n);
/* The probe argument args->name of the current match, or NULL. */
const struct probe_arg *cg_probe_arg(struct cg *cg, const struct node *field);

/* ---- cg_usdt.c ---- */

/* A USDT argument (arg->loc set) as an i64, from registers, user memory or a constant. */
LLVMValueRef cg_usdt_arg(struct cg *cg, const struct probe_arg *arg, struct node *n);

#endif
