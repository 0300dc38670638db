// SPDX-License-Identifier: GPL-2.0
/*
 * The emitters of builtins (pid, comm, probe, ...) and of printf, exit, str and delete, which the
 * rows of src/funcs.c name, and the format events printf's family shares. Aggregations (count,
 * sum, ...) live with the maps.
 */
#include <stddef.h>
#include <string.h>

#include "arena.h"
#include "cg_internal.h"
#include "ctypes.h"
#include "meta.h"
#include "probe.h"

static LLVMValueRef cg_call0(struct cg *cg, enum cg_helper id)
{
	return cg_helper(cg, id, cg->t_i64, NULL, 0);
}

static LLVMValueRef cg_hi32(struct cg *cg, LLVMValueRef v)
{
	return LLVMBuildLShr(cg->b, v, cg_i64(cg, 32), "");
}

static LLVMValueRef cg_lo32(struct cg *cg, LLVMValueRef v)
{
	return LLVMBuildAnd(cg->b, v, cg_i64(cg, 0xffffffff), "");
}

/*
 * pid and tid, as bpftrace 0.27 defines them: in the pid namespace of the process that runs the
 * program (curr_ns, the default), or in the initial one (init). The runtime writes the device and
 * inode of its namespace into struct aot_state, 0 when that is the initial namespace: then, or
 * with (init), the ids come from bpf_get_current_pid_tgid; otherwise from
 * bpf_get_ns_current_pid_tgid, which gives 0 for a task outside that namespace.
 */
static LLVMValueRef cg_pid_tid(struct cg *cg, struct node *n, bool pid)
{
	LLVMBasicBlockRef init, ns, done, from[2];
	LLVMValueRef ino, info, args[4], ids, v[2], phi;

	if (n->args && n->args->kind == NODE_BUILTIN && !strcmp(n->args->name, "init")) {
		ids = cg_call0(cg, CG_H_GET_CURRENT_PID_TGID);
		return pid ? cg_hi32(cg, ids) : cg_lo32(cg, ids);
	}
	init = cg_block(cg, "pidns.init");
	ns = cg_block(cg, "pidns.ns");
	done = cg_block(cg, "pidns.done");
	ino = cg_state_load(cg, offsetof(struct aot_state, pidns_ino), "pidns.ino");
	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, ino, cg_i64(cg, 0), ""), init, ns);
	LLVMPositionBuilderAtEnd(cg->b, init);
	ids = cg_call0(cg, CG_H_GET_CURRENT_PID_TGID);
	v[0] = pid ? cg_hi32(cg, ids) : cg_lo32(cg, ids);
	from[0] = LLVMGetInsertBlock(cg->b);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, ns);
	/* struct bpf_pidns_info { u32 pid (the thread's); u32 tgid; } */
	info = cg_alloca_zero(cg, 8, "pidns.info");
	args[0] = cg_state_load(cg, offsetof(struct aot_state, pidns_dev), "pidns.dev");
	args[1] = ino;
	args[2] = info;
	args[3] = cg_i64(cg, 8);
	cg_helper(cg, CG_H_GET_NS_CURRENT_PID_TGID, cg->t_i64, args, 4);
	v[1] = LLVMBuildZExt(cg->b,
			     LLVMBuildLoad2(cg->b, cg->t_i32, cg_gep(cg, info, pid ? 4 : 0), ""),
			     cg->t_i64, "");
	from[1] = LLVMGetInsertBlock(cg->b);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
	phi = LLVMBuildPhi(cg->b, cg->t_i64, pid ? "pid" : "tid");
	LLVMAddIncoming(phi, v, from, 2);
	return phi;
}

LLVMValueRef cg_bi_pid(struct cg *cg, struct node *n)
{
	return cg_pid_tid(cg, n, true);
}

LLVMValueRef cg_bi_tid(struct cg *cg, struct node *n)
{
	return cg_pid_tid(cg, n, false);
}

LLVMValueRef cg_bi_uid(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_lo32(cg, cg_call0(cg, CG_H_GET_CURRENT_UID_GID));
}

LLVMValueRef cg_bi_gid(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_hi32(cg, cg_call0(cg, CG_H_GET_CURRENT_UID_GID));
}

/* nsecs, nsecs(clock): the clock sema chose (enum func_clock). */
LLVMValueRef cg_bi_nsecs(struct cg *cg, struct node *n)
{
	static const enum cg_helper helpers[] = {
		[FUNC_CLOCK_MONOTONIC] = CG_H_KTIME_GET_NS,
		[FUNC_CLOCK_BOOT] = CG_H_KTIME_GET_BOOT_NS,
		[FUNC_CLOCK_TAI] = CG_H_KTIME_GET_TAI_NS,
	};

	return cg_call0(cg, helpers[n->idx < FUNC_CLOCK__NUM ? n->idx : FUNC_CLOCK_MONOTONIC]);
}

LLVMValueRef cg_bi_cpu(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_lo32(cg, cg_call0(cg, CG_H_GET_SMP_PROCESSOR_ID));
}

LLVMValueRef cg_bi_rand(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_lo32(cg, cg_call0(cg, CG_H_GET_PRANDOM_U32));
}

/* "N/A", "[unknown]": comm(pid)'s answers when it has none, as bpftrace 0.27's. */
static void cg_comm_none(struct cg *cg, LLVMValueRef buf, const char *text)
{
	cg_store_cstr(cg, buf, text, strlen(text), 16);
}

/*
 * comm(pid): task = bpf_task_from_pid(pid); its comm read; bpf_task_release(task). No task: a
 * warning with the pid and "N/A"; no such kfunc in this kernel: a warning and "[unknown]".
 */
static LLVMValueRef cg_comm_of_pid(struct cg *cg, struct node *n)
{
	struct crecord *task_rec = n->mpath[0]->parent;
	LLVMMetadataRef task_di = cg_core_record_ptr_di(cg, task_rec), int_di = cg_di_c_int(cg);
	LLVMTypeRef from_ty, release_ty;
	LLVMValueRef from = cg_kfunc_extern(cg, "bpf_task_from_pid", &from_ty, cg->t_ptr, task_di,
					    &cg->t_i32, &int_di, 1);
	LLVMValueRef release =
		cg_kfunc_extern(cg, "bpf_task_release", &release_ty, LLVMVoidTypeInContext(cg->ctx),
				NULL, &cg->t_ptr, &task_di, 1);
	LLVMBasicBlockRef have = cg_block(cg, "comm.kfunc"), none = cg_block(cg, "comm.nokfunc"),
			  found = cg_block(cg, "comm.task"), missing = cg_block(cg, "comm.notask"),
			  done = cg_block(cg, "comm.done");
	LLVMValueRef buf = cg_alloca_zero(cg, n->type.size, "comm.pid"), pid, task, args[3];
	struct node unsupported = *n;

	pid = LLVMBuildTrunc(cg->b, cg_expr(cg, n->args), cg->t_i32, "pid");
	LLVMBuildCondBr(cg->b, cg_kfunc_exists(cg, from), have, none);
	LLVMPositionBuilderAtEnd(cg->b, none);
	unsupported.idx = n->field_off;
	cg_fmt_event(cg, &unsupported, NULL);
	cg_comm_none(cg, buf, "[unknown]");
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, have);
	task = LLVMBuildCall2(cg->b, from_ty, from, &pid, 1, "task");
	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, task, LLVMConstNull(cg->t_ptr), ""),
			missing, found);
	LLVMPositionBuilderAtEnd(cg->b, found);
	args[0] = buf;
	args[1] = cg_i64(cg, 16);
	args[2] = cg_core_path(cg, task, n->mpath, n->npath);
	cg_helper(cg, CG_H_PROBE_READ_KERNEL, cg->t_i64, args, 3);
	LLVMBuildCall2(cg->b, release_ty, release, &task, 1, "");
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, missing);
	cg_fmt_event(cg, n, n->args);
	cg_comm_none(cg, buf, "N/A");
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
	return buf;
}

LLVMValueRef cg_bi_comm(struct cg *cg, struct node *n)
{
	uint32_t size = n->type.size ? n->type.size : 16;
	/*
	 * Zeroed first: 6.1's helper copies with strscpy, which leaves the bytes after the NUL as
	 * they were, and a map key of comm must hash the same whenever the name is the same (in
	 * a 6.1 guest, @[comm] = count() held one key per stack garbage, printed as many lines).
	 */
	LLVMValueRef buf, args[2];

	if (n->args && n->npath)
		return cg_comm_of_pid(cg, n);
	buf = cg_alloca_zero(cg, size, "comm");
	args[0] = buf;
	args[1] = cg_i64(cg, size);
	cg_helper(cg, CG_H_GET_CURRENT_COMM, cg->t_i64, args, 2);
	return buf;
}

/* probe: the match's name; "begin" and "end" for BEGIN and END, as bpftrace 0.27 names them. */
LLVMValueRef cg_bi_probe(struct cg *cg, struct node *n)
{
	const char *name = cg->match ? cg->match->name : "";

	if (cg->match && (cg->match->pt->flags & (AOT_PROBE_BEGIN | AOT_PROBE_END)))
		name = cg->match->pt->flags & AOT_PROBE_BEGIN ? "begin" : "end";
	if (cg->match && cg->match->is_multi)
		return cg_multi_probe_name(cg, n);
	return cg_str_lit(cg, name, strlen(name), n->type.size);
}

/* elapsed: now minus the start time the runtime wrote into the run's struct aot_state. */
LLVMValueRef cg_bi_elapsed(struct cg *cg, struct node *n)
{
	LLVMValueRef start;

	if (!cg->state) {
		cg_error(cg, n->loc, "this is a bug in aotrace", "elapsed has no state map");
		return cg_i64(cg, 0);
	}
	start = cg_state_load(cg, offsetof(struct aot_state, start_ns), "start");
	return LLVMBuildSub(cg->b, cg_call0(cg, CG_H_KTIME_GET_NS), start, "elapsed");
}

LLVMValueRef cg_bi_curtask(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_call0(cg, CG_H_GET_CURRENT_TASK);
}

LLVMValueRef cg_bi_numaid(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_lo32(cg, cg_call0(cg, CG_H_GET_NUMA_NODE_ID));
}

/* ctx as a value: its address (members are read from it directly: cg_core_read). */
LLVMValueRef cg_bi_ctx(struct cg *cg, struct node *n)
{
	(void)n;
	return LLVMBuildPtrToInt(cg->b, cg->ctxp, cg->t_i64, "ctx");
}

LLVMValueRef cg_bi_cgroup(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_call0(cg, CG_H_GET_CURRENT_CGROUP_ID);
}

/* A rendered value made of u64s: the layouts of src/common/meta.h. */
static LLVMValueRef cg_u64s(struct cg *cg, LLVMValueRef a, LLVMValueRef b)
{
	LLVMValueRef buf = cg_alloca(cg, b ? 16 : 8, "rendered");

	LLVMBuildStore(cg->b, a, buf);
	if (b)
		LLVMBuildStore(cg->b, b, cg_gep(cg, buf, 8));
	return buf;
}

LLVMValueRef cg_bi_username(struct cg *cg, struct node *n)
{
	return cg_u64s(cg, cg_bi_uid(cg, n), NULL);
}

/*
 * func: the traced function's address, for the runtime to name. In kernel probes the helper
 * knows it; a uprobe's pt_regs ip is the probed address, but a uretprobe's is the address it
 * returns to, so there the helper gives the function (bpftrace's answer), where the kernel
 * has it for uprobes (6.6); compiled to run on an older kernel that is an error.
 */
LLVMValueRef cg_bi_func(struct cg *cg, struct node *n)
{
	LLVMValueRef ip;

	if (n->type.kind == TYPE_BUF && n->type.render == AOT_K_USYM) {
		if (cg->match && cg->match->pt && !strcmp(cg->match->pt->name, "uretprobe")) {
			if (!cg->prog->opts->emit_elf && !probe_uprobe_func_ip())
				cg_error(cg, n->loc,
					 "run func in the uprobe and keep it in a map by tid, as "
					 "sslsnoop.bt does",
					 "func in a uretprobe needs bpf_get_func_ip for uprobes "
					 "(Linux 6.6), which this kernel lacks");
			ip = cg_helper(cg, CG_H_GET_FUNC_IP, cg->t_i64, &cg->ctxp, 1);
		} else {
			ip = LLVMBuildLoad2(cg->b, cg->t_i64, cg_gep(cg, cg->ctxp, 16 * 8), "ip");
		}
		return cg_u64s(cg, ip, cg_bi_pid(cg, n));
	}
	/* Without the helper (5.10) a program of one target knows it: the runtime names it. */
	if (cg->match && cg->match->func_const)
		return cg_u64s(cg, cg_i64(cg, AOT_FUNC_TAG | cg->match->meta_idx), NULL);
	ip = cg_helper(cg, CG_H_GET_FUNC_IP, cg->t_i64, &cg->ctxp, 1);
	return cg_u64s(cg, ip, NULL);
}

const struct probe_arg *cg_probe_arg(struct cg *cg, const struct node *field)
{
	const struct probe_match *m = cg->match;

	if (!m || !field || field->kind != NODE_FIELD || !field->lhs ||
	    field->lhs->kind != NODE_BUILTIN || field->lhs->func != FN_ARGS)
		return NULL;
	for (uint32_t i = 0; i < m->nargs; i++)
		if (!strcmp(m->args[i].name, field->name))
			return &m->args[i];
	return NULL;
}

/* The metadata's view of a type, back as an AST type (printf record layouts live there). */
static void cg_type_from_aot(struct cg *cg, const struct aot_type *at, struct type *t)
{
	const struct aot_meta *m = cg->prog->meta;
	static const enum type_kind kinds[] = {
		[AOT_K_INT] = TYPE_INT,
		[AOT_K_STR] = TYPE_STR,
		[AOT_K_TUPLE] = TYPE_TUPLE,
		[AOT_K_BOOL] = TYPE_BOOL,
	};

	*t = (struct type){
		.kind = at->kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[at->kind] : TYPE_NONE,
		.size = at->size,
		.is_signed = at->is_signed,
	};
	if (at->kind >= AOT_K_KSTACK) {
		/* rendered by user space: bytes to codegen */
		t->kind = TYPE_BUF;
		t->render = at->kind;
		return;
	}
	if (t->kind != TYPE_TUPLE || at->elems + (uint64_t)at->nelems > m->nelems)
		return;
	t->nelems = at->nelems;
	t->elems = arena_alloc(cg->prog->arena, at->nelems * sizeof(*t->elems));
	t->offsets = arena_alloc(cg->prog->arena, at->nelems * sizeof(*t->offsets));
	for (uint32_t i = 0; i < at->nelems; i++) {
		t->offsets[i] = m->elems[at->elems + i].offset;
		cg_type_from_aot(cg, &m->elems[at->elems + i].type, &t->elems[i]);
	}
}

void cg_event_hdr(struct cg *cg, LLVMValueRef p, uint32_t kind, uint32_t index)
{
	LLVMValueRef cpu = cg_call0(cg, CG_H_GET_SMP_PROCESSOR_ID);

	cpu = LLVMBuildTrunc(cg->b, cpu, cg->t_i16, "cpu");
	LLVMSetAlignment(LLVMBuildStore(cg->b, LLVMConstInt(cg->t_i16, kind, 0), p), 2);
	LLVMSetAlignment(LLVMBuildStore(cg->b, cpu, cg_gep(cg, p, 2)), 2);
	LLVMSetAlignment(LLVMBuildStore(cg->b, cg_i32(cg, index), cg_gep(cg, p, 4)), 4);
}

/*
 * printf(fmt, args...): a ring buffer record of the header and the arguments laid out as the
 * format's TUPLE in the metadata; the runtime formats it. The other formats (system, cat,
 * print(value), time) are the same record with AOT_EV_FORMAT.
 */
LLVMValueRef cg_fmt_event(struct cg *cg, struct node *n, struct node *first)
{
	const struct aot_meta *m = cg->prog->meta;
	const uint32_t hdr = sizeof(struct aot_event_hdr);
	LLVMValueRef vals[64], rec;
	LLVMBasicBlockRef done;
	struct type layout;
	struct node *a;
	uint32_t i, used = 0;

	if (!m || n->idx >= m->nfmts) {
		cg_error(cg, n->loc, "this is a bug in aotrace", "printf has no format metadata");
		return cg_i64(cg, 0);
	}
	cg_type_from_aot(cg, &m->fmts[n->idx].args, &layout);
	for (a = first, i = 0; a; a = a->next, i++) {
		if (i >= layout.nelems || i >= 64) {
			cg_error(cg, a->loc, NULL, "printf argument does not match the format");
			return cg_i64(cg, 0);
		}
		vals[i] = cg_expr(cg, a);
		used += layout.elems[i].size;
	}

	rec = cg_event_reserve(cg, hdr + layout.size, &done);
	cg_event_hdr(cg, rec,
		     m->fmts[n->idx].kind == AOT_FMT_PRINTF ? AOT_EV_PRINTF : AOT_EV_FORMAT,
		     n->idx);
	if (used != layout.size)
		cg_memset0(cg, cg_gep(cg, rec, hdr), layout.size, 8);
	for (a = first, i = 0; a; a = a->next, i++)
		cg_store(cg, cg_gep(cg, rec, hdr + layout.offsets[i]), &layout.elems[i],
			 cg_align_at(8, hdr + layout.offsets[i]), vals[i], &a->type);
	cg_event_submit(cg, rec, done);
	return cg_i64(cg, 0);
}

void cg_fmt_event_if_zero(struct cg *cg, struct node *n, LLVMValueRef v)
{
	LLVMBasicBlockRef zero = cg_block(cg, "warn.zero"), next = cg_block(cg, "warn.next");

	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, v, cg_i64(cg, 0), ""), zero, next);
	LLVMPositionBuilderAtEnd(cg->b, zero);
	cg_fmt_event(cg, n, NULL);
	LLVMBuildBr(cg->b, next);
	LLVMPositionBuilderAtEnd(cg->b, next);
}

/* exit([code]): tell the runtime, with the exit status, and end this probe's run here. */
LLVMValueRef cg_fn_exit(struct cg *cg, struct node *n)
{
	const uint32_t hdr = sizeof(struct aot_event_hdr);
	LLVMValueRef ev = cg_alloca(cg, hdr + 8, "exit");
	LLVMValueRef code = n->args ? cg_expr(cg, n->args) : cg_i64(cg, 0);

	cg_stop_set(cg);
	cg_event_hdr(cg, ev, AOT_EV_EXIT, 0);
	LLVMSetAlignment(LLVMBuildStore(cg->b, code, cg_gep(cg, ev, hdr)), 8);
	cg_event_output(cg, ev, hdr + 8);
	cg_ret0_and_continue(cg);
	return cg_i64(cg, 0);
}

/*
 * bpftrace 0.27's padding: str() reads into one byte more than its value holds when that is
 * under 1024 bytes, so that a string of max_strlen bytes or more fills the value with no NUL,
 * which prints with the truncation trailer. From 1024 bytes on it reads what the value holds.
 */
#define CG_STR_PAD_BELOW 1024

/* str(p [, len]): reads a NUL-terminated string from kernel or user memory. */
LLVMValueRef cg_fn_str(struct cg *cg, struct node *n)
{
	uint32_t size = n->type.size;
	uint32_t pad = size < CG_STR_PAD_BELOW ? size + 1 : size;
	const struct probe_arg *pa;
	struct node *a = n->args;
	LLVMValueRef buf, len, args[3];
	enum cg_helper id = CG_H_PROBE_READ_KERNEL_STR;

	if (!a || !size) {
		cg_error(cg, n->loc, NULL, "str() needs an argument");
		return cg_alloca_zero(cg, size ? size : 1, "");
	}
	buf = cg_alloca_zero(cg, a->type.kind == TYPE_STR ? size : pad, "str");
	if (a->type.kind == TYPE_STR && n->field_off) {
		/* str($N + k) in an object compiled for later: $N's text from byte k */
		uint32_t k = n->field_off < a->type.size ? n->field_off : a->type.size;
		uint32_t len = a->type.size - k < size ? a->type.size - k : size;

		cg_memcpy(cg, buf, 8, cg_gep(cg, cg_expr(cg, a), k), cg_align_at(8, k), len);
		return buf;
	}
	if (a->type.kind == TYPE_STR) {
		cg_store(cg, buf, &n->type, 8, cg_expr(cg, a), &a->type);
		return buf;
	}
	if (cg_type_is_buf(&a->type)) {
		cg_error(cg, a->loc, NULL, "str() needs a pointer or a string");
		return buf;
	}
	args[2] = LLVMBuildIntToPtr(cg->b, cg_expr(cg, a), cg->t_ptr, "");
	len = cg_i64(cg, pad);
	if (a->next) {
		LLVMValueRef l = cg_expr(cg, a->next);
		LLVMValueRef big = LLVMBuildICmp(cg->b, LLVMIntUGT, l, len, "");

		len = LLVMBuildSelect(cg->b, big, len, l, "strlen");
	}
	/* sema marks user pointers on the call; an args field is known here too */
	pa = cg_probe_arg(cg, a);
	if (n->is_user || (pa && pa->is_user_ptr))
		id = CG_H_PROBE_READ_USER_STR;
	args[0] = buf;
	args[1] = len;
	cg_helper(cg, id, cg->t_i64, args, 3);
	return buf;
}

/*
 * str_concat(a, b): a string of 1024 bytes (bpftrace 0.27's size, whatever max_strlen is), a's
 * text and then b's, each read up to its NUL into the room left, as 0.27's __bpf_str_concat
 * does. The buffer is twice that: the verifier bounds the second read's start and length each
 * on its own, and their sum only fits in two.
 */
LLVMValueRef cg_fn_str_concat(struct cg *cg, struct node *n)
{
	uint32_t size = n->type.size;
	LLVMValueRef buf = cg_alloca_zero(cg, 2 * size, "concat"), args[3], ret, len;

	args[0] = buf;
	args[1] = cg_i32(cg, size);
	args[2] = cg_expr(cg, n->args);
	ret = cg_helper(cg, CG_H_PROBE_READ_KERNEL_STR, cg->t_i64, args, 3);
	/* the bytes before a's NUL (0 if the read failed), at most size - 1 */
	len = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntSGT, ret, cg_i64(cg, 0), ""),
			      LLVMBuildSub(cg->b, ret, cg_i64(cg, 1), ""), cg_i64(cg, 0), "");
	len = LLVMBuildAnd(cg->b, len, cg_i64(cg, size - 1), "concat.len");
	args[0] = LLVMBuildGEP2(cg->b, cg->t_i8, buf, &len, 1, "");
	args[1] = LLVMBuildTrunc(cg->b, LLVMBuildSub(cg->b, cg_i64(cg, size), len, ""), cg->t_i32,
				 "");
	args[2] = cg_expr(cg, n->args->next);
	cg_helper(cg, CG_H_PROBE_READ_KERNEL_STR, cg->t_i64, args, 3);
	return buf;
}

LLVMValueRef cg_fn_delete(struct cg *cg, struct node *n)
{
	if (!n->args || n->args->kind != NODE_MAP || !n->args->map) {
		cg_error(cg, n->loc, NULL, "delete() needs a map element: delete(@m[key])");
		return cg_i64(cg, 0);
	}
	return LLVMBuildZExt(
		cg->b,
		LLVMBuildICmp(cg->b, LLVMIntEQ, cg_map_delete(cg, n->args), cg_i64(cg, 0), ""),
		cg->t_i64, "deleted");
}

/*
 * debugf(fmt, args...): bpf_trace_printk(fmt, size, args...) with the format on the stack,
 * integers as they are and strings by their buffer's address.
 */
LLVMValueRef cg_fn_debugf(struct cg *cg, struct node *n)
{
	struct node *f = n->args;
	LLVMValueRef args[5];
	unsigned nargs = 2;

	args[0] = cg_str_lit(cg, f->str, f->str_len, 0);
	args[1] = cg_i32(cg, (uint32_t)f->str_len + 1);
	for (struct node *a = f->next; a && nargs < 5; a = a->next) {
		LLVMValueRef v = cg_expr(cg, a);

		args[nargs++] =
			cg_type_is_buf(&a->type) ? LLVMBuildPtrToInt(cg->b, v, cg->t_i64, "") : v;
	}
	cg_helper(cg, CG_H_TRACE_PRINTK, cg->t_i64, args, nargs);
	return cg_i64(cg, 0);
}

/* The kernel's bpf_seq_printf takes at most this many arguments (MAX_BPRINTF_VARARGS). */
#define CG_SEQ_PRINTF_MAX_ARGS 12

/*
 * printf in an iter probe, as bpftrace has it: bpf_seq_printf(ctx->meta->seq, fmt, size, args,
 * 8 * n) into the iterator the runtime reads; the kernel formats it. Each argument is a u64: an
 * integer, or a string's address.
 */
static LLVMValueRef cg_seq_printf(struct cg *cg, struct node *n)
{
	struct node *f = n->args, *a;
	LLVMValueRef args[5], data = NULL, meta;
	uint32_t nargs = 0, i = 0;

	for (a = f->next; a; a = a->next)
		nargs++;
	if (nargs > CG_SEQ_PRINTF_MAX_ARGS) {
		cg_error(cg, n->loc, "split it into several printf calls",
			 "printf in an iter probe takes at most %d arguments (the kernel's "
			 "bpf_seq_printf)",
			 CG_SEQ_PRINTF_MAX_ARGS);
		return cg_i64(cg, 0);
	}
	if (nargs)
		data = cg_alloca(cg, 8 * nargs, "seq.args");
	for (a = f->next; a; a = a->next, i++) {
		LLVMValueRef v = cg_expr(cg, a);

		if (cg_type_is_buf(&a->type) && a->type.kind != TYPE_STR) {
			cg_error(cg, a->loc, "print its members one by one",
				 "printf in an iter probe formats in the kernel (bpf_seq_printf): "
				 "integers and strings only");
			return cg_i64(cg, 0);
		}
		if (cg_type_is_buf(&a->type))
			v = LLVMBuildPtrToInt(cg->b, v, cg->t_i64, "");
		LLVMSetAlignment(LLVMBuildStore(cg->b, v, cg_gep(cg, data, 8 * i)), 8);
	}
	meta = LLVMBuildLoad2(cg->b, cg->t_ptr, cg->ctxp, "meta");
	LLVMSetAlignment(meta, 8);
	LLVMSetVolatile(meta, true);
	args[0] = LLVMBuildLoad2(cg->b, cg->t_ptr, meta, "seq");
	LLVMSetAlignment(args[0], 8);
	args[1] = cg_str_lit(cg, f->str, f->str_len, 0);
	args[2] = cg_i32(cg, (uint32_t)f->str_len + 1);
	args[3] = data ? data : LLVMConstNull(cg->t_ptr);
	args[4] = cg_i32(cg, 8 * nargs);
	cg_helper(cg, CG_H_SEQ_PRINTF, cg->t_i64, args, 5);
	return cg_i64(cg, 0);
}

/* printf, system, cat: the arguments after the format. */
LLVMValueRef cg_fn_formatted(struct cg *cg, struct node *n)
{
	if (n->func == FN_PRINTF && cg->match && (cg->match->pt->flags & AOT_PROBE_ITER))
		return cg_seq_printf(cg, n);
	return cg_fmt_event(cg, n, n->args ? n->args->next : NULL);
}
