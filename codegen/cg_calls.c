// SPDX-License-Identifier: GPL-2.0
/*
 * The emitters of the functions beyond printf, str, exit and delete: map events (print, clear,
 * zero), user-space formats (time, join, print of a value), the values only user space renders
 * (stacks, symbols, addresses, buffers), and the helpers with effects (signal, override).
 * Rendered values follow the layouts at the top of src/common/meta.h.
 */
#include <string.h>

#include <stddef.h>

#include "cg_internal.h"
#include "meta.h"
#include "probe.h"

static LLVMValueRef cg_zero_of(struct cg *cg, const struct node *n)
{
	return cg_type_is_buf(&n->type) ? cg_alloca_zero(cg, n->type.size, "") : cg_i64(cg, 0);
}

static LLVMValueRef cg_ptr(struct cg *cg, LLVMValueRef v)
{
	return LLVMBuildIntToPtr(cg->b, v, cg->t_ptr, "");
}

/* bpf_probe_read_{kernel,user}(dst, len, src) */
static void cg_probe_read(struct cg *cg, LLVMValueRef dst, LLVMValueRef len, LLVMValueRef src,
			  bool user)
{
	LLVMValueRef args[] = { dst, len, src };

	cg_helper(cg, user ? CG_H_PROBE_READ_USER : CG_H_PROBE_READ_KERNEL, cg->t_i64, args, 3);
}

/* A header-only event: clear(@m), zero(@m). */
static void cg_header_event(struct cg *cg, uint32_t kind, uint32_t index)
{
	LLVMValueRef ev = cg_alloca(cg, sizeof(struct aot_event_hdr), "ev");

	cg_event_hdr(cg, ev, kind, index);
	cg_event_output(cg, ev, sizeof(struct aot_event_hdr));
}

/* print(@m [, top [, div]]): AOT_EV_PRINT_MAP with struct { u64 top; u64 div; }. */
LLVMValueRef cg_fn_print(struct cg *cg, struct node *n)
{
	struct node *m = n->args, *top, *div;
	LLVMValueRef ev;

	if (!(m->kind == NODE_MAP && !m->args))
		return cg_fmt_event(cg, n, n->args);
	top = m->next;
	div = top ? top->next : NULL;
	ev = cg_alloca(cg, sizeof(struct aot_event_hdr) + 16, "print");
	cg_event_hdr(cg, ev, AOT_EV_PRINT_MAP, m->map->meta_idx);
	LLVMBuildStore(cg->b, top ? cg_expr(cg, top) : cg_i64(cg, 0), cg_gep(cg, ev, 8));
	LLVMBuildStore(cg->b, div ? cg_expr(cg, div) : cg_i64(cg, 0), cg_gep(cg, ev, 16));
	cg_event_output(cg, ev, sizeof(struct aot_event_hdr) + 16);
	return cg_i64(cg, 0);
}

LLVMValueRef cg_fn_clear(struct cg *cg, struct node *n)
{
	cg_header_event(cg, AOT_EV_CLEAR, n->args->map->meta_idx);
	return cg_i64(cg, 0);
}

/* unwatch(addr): AOT_EV_UNWATCH with the address; the runtime removes its watchpoints. */
LLVMValueRef cg_fn_unwatch(struct cg *cg, struct node *n)
{
	LLVMValueRef ev = cg_alloca(cg, sizeof(struct aot_event_hdr) + 8, "unwatch");

	cg_event_hdr(cg, ev, AOT_EV_UNWATCH, 0);
	LLVMBuildStore(cg->b, cg_expr(cg, n->args), cg_gep(cg, ev, 8));
	cg_event_output(cg, ev, sizeof(struct aot_event_hdr) + 8);
	return cg_i64(cg, 0);
}

LLVMValueRef cg_fn_zero(struct cg *cg, struct node *n)
{
	cg_header_event(cg, AOT_EV_ZERO, n->args->map->meta_idx);
	return cg_i64(cg, 0);
}

/* time([fmt]): the format is in the metadata, the event has no arguments. */
LLVMValueRef cg_fn_time(struct cg *cg, struct node *n)
{
	return cg_fmt_event(cg, n, NULL);
}

/*
 * join(argv [, sep]): AOT_JOIN_MAX strings read straight into the ring buffer record (16 of
 * them would not fit the stack), stopping at the array's NULL.
 */
LLVMValueRef cg_fn_join(struct cg *cg, struct node *n)
{
	const uint32_t hdr = sizeof(struct aot_event_hdr), len = AOT_JOIN_ARG_LEN;
	const uint32_t size = hdr + AOT_JOIN_MAX * len;
	LLVMValueRef argv = cg_expr(cg, n->args), rec, slot, p, args[3];
	LLVMBasicBlockRef done, stop = cg_block(cg, "join.stop"), next;

	rec = cg_event_reserve(cg, size, &done);
	cg_event_hdr(cg, rec, AOT_EV_FORMAT, n->idx);
	/* the runtime stops at the first empty string: clearing each first byte is enough */
	for (uint32_t i = 0; i < AOT_JOIN_MAX; i++)
		LLVMBuildStore(cg->b, LLVMConstInt(cg->t_i8, 0, false),
			       cg_gep(cg, rec, hdr + i * len));
	slot = cg_alloca(cg, 8, "argp");
	for (uint32_t i = 0; i < AOT_JOIN_MAX; i++) {
		LLVMValueRef at = LLVMBuildAdd(cg->b, argv, cg_i64(cg, i * 8), "");

		LLVMBuildStore(cg->b, cg_i64(cg, 0), slot);
		cg_probe_read(cg, slot, cg_i64(cg, 8), cg_ptr(cg, at), n->is_user);
		p = LLVMBuildLoad2(cg->b, cg->t_i64, slot, "arg");
		next = cg_block(cg, "join.next");
		LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, p, cg_i64(cg, 0), ""), stop,
				next);
		LLVMPositionBuilderAtEnd(cg->b, next);
		args[0] = cg_gep(cg, rec, hdr + i * len);
		args[1] = cg_i64(cg, len);
		args[2] = cg_ptr(cg, p);
		cg_helper(cg, n->is_user ? CG_H_PROBE_READ_USER_STR : CG_H_PROBE_READ_KERNEL_STR,
			  cg->t_i64, args, 3);
	}
	LLVMBuildBr(cg->b, stop);
	LLVMPositionBuilderAtEnd(cg->b, stop);
	cg_event_submit(cg, rec, done);
	return cg_i64(cg, 0);
}

/* A rendered value of one or two u64s. */
static LLVMValueRef cg_u64_pair(struct cg *cg, uint32_t size, LLVMValueRef a, LLVMValueRef b)
{
	LLVMValueRef buf = cg_alloca(cg, size, "rendered");

	LLVMBuildStore(cg->b, a, buf);
	if (size >= 16)
		LLVMBuildStore(cg->b, b ? b : cg_i64(cg, 0), cg_gep(cg, buf, 8));
	return buf;
}

static LLVMValueRef cg_pid(struct cg *cg)
{
	LLVMValueRef v = cg_helper(cg, CG_H_GET_CURRENT_PID_TGID, cg->t_i64, NULL, 0);

	return LLVMBuildLShr(cg->b, v, cg_i64(cg, 32), "pid");
}

/*
 * For len(): the stack's depth, from bpf_get_stack into a buffer of the deepest stack, in bits
 * 32-39 of a valid id (the runtime reads the id's low 32 bits).
 */
static LLVMValueRef cg_stack_depth(struct cg *cg, LLVMValueRef id, bool user)
{
	LLVMValueRef args[4], n, depth;

	args[0] = cg->ctxp;
	args[1] = cg_alloca(cg, 8 * AOT_STACK_MAX_DEPTH, "stack.frames");
	args[2] = cg_i64(cg, 8 * AOT_STACK_MAX_DEPTH);
	args[3] = cg_i64(cg, user ? CG_BPF_F_USER_STACK : 0);
	n = cg_helper(cg, CG_H_GET_STACK, cg->t_i64, args, 4);
	depth = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntSGT, n, cg_i64(cg, 0), ""),
				LLVMBuildLShr(cg->b, n, cg_i64(cg, 3), ""), cg_i64(cg, 0), "");
	return LLVMBuildSelect(
		cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, id, cg_i64(cg, 0), ""), id,
		LLVMBuildOr(cg->b, id, LLVMBuildShl(cg->b, depth, cg_i64(cg, 32), ""), ""),
		"stack.id");
}

/*
 * kstack/ustack: the stack id from bpf_get_stackid, a negative errno if it failed;
 * ustack(build_id)'s is in a stack map of its own.
 */
static LLVMValueRef cg_stack(struct cg *cg, struct node *n, bool user)
{
	LLVMValueRef map = user ? cg->ustacks : cg->kstacks, args[3], id;

	if (n->type.render_arg >> 16 == AOT_STACK_MODE_BUILD_ID)
		map = cg_map_ustack_build_id(cg);
	if (!map) {
		cg_error(cg, n->loc, "this is a bug in aotrace", "%s has no stack map", n->name);
		return cg_zero_of(cg, n);
	}
	args[0] = cg->ctxp;
	args[1] = map;
	args[2] = cg_i64(cg, user ? CG_BPF_F_USER_STACK : 0);
	id = cg_helper(cg, CG_H_GET_STACKID, cg->t_i64, args, 3);
	if (cg->prog->uses_stack_len)
		id = cg_stack_depth(cg, id, user);
	return cg_u64_pair(cg, user ? 16 : 8, id, user ? cg_pid(cg) : NULL);
}

/*
 * len(kstack), len(ustack): the frames the stack had when it was taken, which its value carries
 * above the id (cg_stack), at most the frames it prints; 0 for a stack that could not be read.
 */
LLVMValueRef cg_stack_len(struct cg *cg, struct node *a)
{
	uint32_t limit = a->type.render_arg & 0xffff;
	LLVMValueRef id = LLVMBuildLoad2(cg->b, cg->t_i64, cg_expr(cg, a), "stack.id"), depth;

	depth = LLVMBuildAnd(cg->b, LLVMBuildLShr(cg->b, id, cg_i64(cg, 32), ""), cg_i64(cg, 0xff),
			     "stack.depth");
	depth = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, id, cg_i64(cg, 0), ""),
				cg_i64(cg, 0), depth, "");
	if (limit && limit < AOT_STACK_MAX_DEPTH)
		depth = LLVMBuildSelect(
			cg->b, LLVMBuildICmp(cg->b, LLVMIntUGT, depth, cg_i64(cg, limit), ""),
			cg_i64(cg, limit), depth, "stack.len");
	return depth;
}

/*
 * A pointer a helper may return NULL for, null-checked where the verifier sees it (it refuses
 * arithmetic on a pointer not checked): the pointer on one path, 0 on the other. An empty asm
 * hides that the two are the same value, or LLVM folds the check away.
 */
static LLVMValueRef cg_checked_null(struct cg *cg, LLVMValueRef p)
{
	LLVMBasicBlockRef from = LLVMGetInsertBlock(cg->b), some = cg_block(cg, "nonnull"),
			  done = cg_block(cg, "nullchecked"), blocks[2];
	LLVMTypeRef fty = LLVMFunctionType(cg->t_i64, &cg->t_i64, 1, false);
	LLVMValueRef same = LLVMGetInlineAsm(fty, "", 0, "=r,0", 4, false, false,
					     LLVMInlineAsmDialectATT, false),
		     vals[2], phi;

	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, p, cg_i64(cg, 0), ""), done, some);
	LLVMPositionBuilderAtEnd(cg->b, some);
	vals[1] = LLVMBuildCall2(cg->b, fty, same, &p, 1, "");
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
	phi = LLVMBuildPhi(cg->b, cg->t_i64, "checked");
	vals[0] = cg_i64(cg, 0);
	blocks[0] = from;
	blocks[1] = some;
	LLVMAddIncoming(phi, vals, blocks, 2);
	return phi;
}

/*
 * percpu_kaddr("sym"[, cpu]): extern TYPE sym __ksym (typed, so that the verifier knows it is
 * per-CPU), then bpf_this_cpu_ptr(&sym) or bpf_per_cpu_ptr(&sym, cpu).
 */
LLVMValueRef cg_fn_percpu_kaddr(struct cg *cg, struct node *n)
{
	const char *name = n->args->str;
	LLVMValueRef sym = LLVMGetNamedGlobal(cg->mod, name), args[2];

	if (!sym) {
		sym = LLVMAddGlobal(cg->mod, cg->t_i8, name);
		LLVMSetLinkage(sym, LLVMExternalLinkage);
		LLVMSetSection(sym, ".ksyms");
		cg_di_global(cg, sym, name, cg_core_btf_di(cg, n->idx));
	}
	args[0] = sym;
	if (!n->args->next)
		return cg_helper(cg, CG_H_THIS_CPU_PTR, cg->t_i64, args, 1);
	args[1] = LLVMBuildAnd(cg->b, cg_expr(cg, n->args->next), cg_i64(cg, 0xffffffff), "cpu");
	return cg_checked_null(cg, cg_helper(cg, CG_H_PER_CPU_PTR, cg->t_i64, args, 2));
}

/* socket_cookie(sk): bpf_get_socket_cookie with the kernel's struct sock pointer. */
LLVMValueRef cg_fn_socket_cookie(struct cg *cg, struct node *n)
{
	LLVMValueRef sk = LLVMBuildIntToPtr(cg->b, cg_expr(cg, n->args), cg->t_ptr, "sk");

	return cg_helper(cg, CG_H_GET_SOCKET_COOKIE, cg->t_i64, &sk, 1);
}

/*
 * skboutput(path, skb, len, off): struct aot_skb_hdr and len bytes of the skb's data into this
 * CPU's ring of AOT_SKB_MAP (bpf_skb_output: flags = len << 32 | BPF_F_CURRENT_CPU); the helper's
 * return as uint32, as bpftrace 0.27 gives it.
 */
LLVMValueRef cg_fn_skboutput(struct cg *cg, struct node *n)
{
	struct node *skb = n->args->next, *len = skb->next, *off = len->next;
	LLVMValueRef hdr = cg_alloca(cg, sizeof(struct aot_skb_hdr), "skb.hdr"), args[5], ret;
	LLVMValueRef p = LLVMBuildIntToPtr(cg->b, cg_expr(cg, skb), cg->t_ptr, "skb");
	LLVMValueRef l = LLVMBuildAnd(cg->b, cg_expr(cg, len), cg_i64(cg, 0xffffffffu), "len");

	LLVMBuildStore(cg->b, LLVMConstInt(cg->t_i32, n->num - 1, false),
		       cg_gep(cg, hdr, offsetof(struct aot_skb_hdr, fmt)));
	LLVMBuildStore(cg->b, LLVMBuildTrunc(cg->b, l, cg->t_i32, ""),
		       cg_gep(cg, hdr, offsetof(struct aot_skb_hdr, len)));
	LLVMBuildStore(cg->b, cg_expr(cg, off), cg_gep(cg, hdr, offsetof(struct aot_skb_hdr, off)));
	LLVMBuildStore(cg->b, cg_helper(cg, CG_H_KTIME_GET_BOOT_NS, cg->t_i64, NULL, 0),
		       cg_gep(cg, hdr, offsetof(struct aot_skb_hdr, boot_ns)));
	args[0] = p;
	args[1] = cg->skb;
	args[2] = LLVMBuildOr(cg->b, LLVMBuildShl(cg->b, l, cg_i64(cg, 32), ""),
			      cg_i64(cg, 0xffffffffu), "flags");
	args[3] = hdr;
	args[4] = cg_i64(cg, sizeof(struct aot_skb_hdr));
	ret = cg_helper(cg, CG_H_SKB_OUTPUT, cg->t_i64, args, 5);
	return LLVMBuildAnd(cg->b, ret, cg_i64(cg, 0xffffffffu), "skboutput");
}

LLVMValueRef cg_fn_kstack(struct cg *cg, struct node *n)
{
	return cg_stack(cg, n, false);
}

LLVMValueRef cg_fn_ustack(struct cg *cg, struct node *n)
{
	return cg_stack(cg, n, true);
}

LLVMValueRef cg_fn_sym(struct cg *cg, struct node *n)
{
	LLVMValueRef addr = cg_expr(cg, n->args);

	return cg_u64_pair(cg, n->type.size, addr, n->type.size >= 16 ? cg_pid(cg) : NULL);
}

/* strftime(fmt, ns): the time; the format is in the metadata. */
LLVMValueRef cg_fn_strftime(struct cg *cg, struct node *n)
{
	return cg_u64_pair(cg, 8, cg_expr(cg, n->args->next), NULL);
}

/* Copies a byte value (a char array) or reads size bytes at a pointer into dst. */
static void cg_bytes_from(struct cg *cg, LLVMValueRef dst, uint32_t size, struct node *a, bool user)
{
	LLVMValueRef v = cg_expr(cg, a);

	if (cg_type_is_buf(&a->type)) {
		cg_memcpy(cg, dst, 1, v, 8, size < a->type.size ? size : a->type.size);
		return;
	}
	cg_probe_read(cg, dst, cg_i64(cg, size), cg_ptr(cg, v), user);
}

/* ntop([af,] addr): struct { u64 af; u8 addr[16]; } */
LLVMValueRef cg_fn_ntop(struct cg *cg, struct node *n)
{
	struct node *addr = n->args->next ? n->args->next : n->args;
	LLVMValueRef buf = cg_alloca_zero(cg, 24, "inet"), af, v;

	af = addr != n->args ? cg_expr(cg, n->args) : NULL;
	if (cg_type_is_buf(&addr->type)) {
		cg_memcpy(cg, cg_gep(cg, buf, 8), 8, cg_expr(cg, addr), 8, addr->type.size);
		if (!af)
			af = cg_i64(cg, addr->type.size == 16 ? 10 : 2);
	} else {
		v = LLVMBuildTrunc(cg->b, cg_expr(cg, addr), cg->t_i32, "");
		LLVMSetAlignment(LLVMBuildStore(cg->b, v, cg_gep(cg, buf, 8)), 8);
		if (!af)
			af = cg_i64(cg, 2); /* AF_INET */
	}
	LLVMBuildStore(cg->b, af, buf);
	return buf;
}

/* pton("addr"): the bytes sema parsed. */
LLVMValueRef cg_fn_pton(struct cg *cg, struct node *n)
{
	return cg_str_lit(cg, n->str, n->str_len, n->type.size);
}

LLVMValueRef cg_fn_macaddr(struct cg *cg, struct node *n)
{
	LLVMValueRef buf = cg_alloca_zero(cg, 8, "mac");

	cg_bytes_from(cg, buf, 6, n->args, n->is_user);
	return buf;
}

/*
 * buf(p, n) and buf(s [, n]): struct { u32 len; u8 data[]; }, len at most the type's room. A
 * string's bytes are copied whole when sema knew the length; a length known only when it runs
 * is read with bpf_probe_read_kernel, whose length may vary, from the string's buffer.
 */
LLVMValueRef cg_fn_buf(struct cg *cg, struct node *n)
{
	uint32_t room = n->type.size - 4;
	LLVMValueRef buf = cg_alloca_zero(cg, n->type.size, "buf"), len, big, p;
	struct node *a = n->args;
	bool is_str = a->type.kind == TYPE_STR;

	p = cg_expr(cg, a);
	if (is_str && (!a->next || a->next->kind == NODE_INT)) {
		cg_memcpy(cg, cg_gep(cg, buf, 4), 4, p, 8, room);
		LLVMSetAlignment(LLVMBuildStore(cg->b, cg_i32(cg, room), buf), 4);
		return buf;
	}
	len = cg_expr(cg, a->next);
	big = LLVMBuildICmp(cg->b, LLVMIntUGT, len, cg_i64(cg, room), "");
	len = LLVMBuildSelect(cg->b, big, cg_i64(cg, room), len, "buflen");
	LLVMSetAlignment(LLVMBuildStore(cg->b, LLVMBuildTrunc(cg->b, len, cg->t_i32, ""), buf), 4);
	cg_probe_read(cg, cg_gep(cg, buf, 4), len, is_str ? p : cg_ptr(cg, p),
		      !is_str && n->is_user);
	return buf;
}

LLVMValueRef cg_fn_signal(struct cg *cg, struct node *n)
{
	LLVMValueRef sig = LLVMBuildTrunc(cg->b, cg_expr(cg, n->args), cg->t_i32, "");

	cg_helper(cg, n->func == FN_SIGNAL_THREAD ? CG_H_SEND_SIGNAL_THREAD : CG_H_SEND_SIGNAL,
		  cg->t_i64, &sig, 1);
	return cg_i64(cg, 0);
}

/*
 * write_user(dst, src, len): bpf_probe_write_user of len bytes of the value src holds (sema:
 * a literal len, at most its size) to the user address dst; true when it wrote them.
 */
LLVMValueRef cg_fn_write_user(struct cg *cg, struct node *n)
{
	struct node *dst = n->args, *src = dst->next;
	LLVMValueRef args[3], ret;

	args[0] = LLVMBuildIntToPtr(cg->b, cg_expr(cg, dst), cg->t_ptr, "");
	args[1] = cg_expr(cg, src);
	args[2] = cg_i32(cg, (uint32_t)src->next->num);
	ret = cg_helper(cg, CG_H_PROBE_WRITE_USER, cg->t_i64, args, 3);
	return LLVMBuildZExt(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, ret, cg_i64(cg, 0), ""),
			     cg->t_i64, "written");
}

LLVMValueRef cg_fn_override(struct cg *cg, struct node *n)
{
	LLVMValueRef args[] = { cg->ctxp, cg_expr(cg, n->args) };

	cg_helper(cg, CG_H_OVERRIDE_RETURN, cg->t_i64, args, 2);
	return cg_i64(cg, 0);
}

/* path(p): bpf_d_path, which the verifier allows only in some kfunc probes. */
LLVMValueRef cg_fn_path(struct cg *cg, struct node *n)
{
	LLVMValueRef buf = cg_alloca_zero(cg, n->type.size, "path");
	LLVMValueRef args[] = { cg_ptr(cg, cg_expr(cg, n->args)), buf, cg_i32(cg, n->type.size) };

	cg_helper(cg, CG_H_D_PATH, cg->t_i64, args, 3);
	return buf;
}

/* strncmp(a, b, n): 0 if the first n bytes match up to a NUL, else 1. */
LLVMValueRef cg_fn_strncmp(struct cg *cg, struct node *n)
{
	struct node *a = n->args, *b = a->next;
	LLVMValueRef pa = cg_expr(cg, a), pb = cg_expr(cg, b), ca, cb, phi;
	uint64_t len = b->next->kind == NODE_INT ? b->next->num : 0;
	LLVMBasicBlockRef join = cg_block(cg, "strncmp.join"), next,
			  cur = LLVMGetInsertBlock(cg->b);
	LLVMValueRef one = cg_i64(cg, 1), zero = cg_i64(cg, 0);

	if (len > a->type.size)
		len = a->type.size;
	if (len > b->type.size)
		len = b->type.size;
	LLVMPositionBuilderAtEnd(cg->b, join);
	phi = LLVMBuildPhi(cg->b, cg->t_i64, "strncmp");
	LLVMPositionBuilderAtEnd(cg->b, cur);
	for (uint64_t i = 0; i < len; i++) {
		ca = LLVMBuildLoad2(cg->b, cg->t_i8, cg_gep(cg, pa, i), "");
		cb = LLVMBuildLoad2(cg->b, cg->t_i8, cg_gep(cg, pb, i), "");
		next = cg_block(cg, "strncmp.same");
		LLVMAddIncoming(phi, &one, (LLVMBasicBlockRef[]){ LLVMGetInsertBlock(cg->b) }, 1);
		LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, ca, cb, ""), next, join);
		LLVMPositionBuilderAtEnd(cg->b, next);
		next = cg_block(cg, "strncmp.next");
		LLVMAddIncoming(phi, &zero, (LLVMBasicBlockRef[]){ LLVMGetInsertBlock(cg->b) }, 1);
		LLVMBuildCondBr(
			cg->b,
			LLVMBuildICmp(cg->b, LLVMIntEQ, ca, LLVMConstInt(cg->t_i8, 0, 0), ""), join,
			next);
		LLVMPositionBuilderAtEnd(cg->b, next);
	}
	LLVMAddIncoming(phi, &zero, (LLVMBasicBlockRef[]){ LLVMGetInsertBlock(cg->b) }, 1);
	LLVMBuildBr(cg->b, join);
	LLVMMoveBasicBlockAfter(join, LLVMGetInsertBlock(cg->b));
	LLVMPositionBuilderAtEnd(cg->b, join);
	return phi;
}

/*
 * strcontains(h, n): 1 if the string n occurs in the string h (an empty n always does), else 0;
 * strstr(h, n) (index): the position of its first occurrence (0 for an empty n), else -1. The
 * search is unrolled over both buffers; a literal n's bytes are constants, and its search ends
 * at its length.
 */
static LLVMValueRef cg_str_search(struct cg *cg, struct node *n, bool index)
{
	struct node *h = n->args, *nd = h->next;
	bool lit = nd->kind == NODE_STR;
	uint32_t hs = h->type.size, ns = lit ? (uint32_t)nd->str_len : nd->type.size;
	LLVMValueRef ph = cg_expr(cg, h), pn = lit ? NULL : cg_expr(cg, nd), hc, nc, phi, one;
	LLVMValueRef zero = cg_i64(cg, index ? -1 : 0), z8 = LLVMConstInt(cg->t_i8, 0, 0);
	LLVMBasicBlockRef join = cg_block(cg, "strcontains.join"), next_j, next, here;

	here = LLVMGetInsertBlock(cg->b);
	LLVMPositionBuilderAtEnd(cg->b, join);
	phi = LLVMBuildPhi(cg->b, cg->t_i64, "strcontains");
	LLVMPositionBuilderAtEnd(cg->b, here);
#define CG_TO(v, bb)                                                                               \
	LLVMAddIncoming(phi, &(v), (LLVMBasicBlockRef[]){ LLVMGetInsertBlock(cg->b) }, 1);         \
	LLVMBuildBr(cg->b, bb)
	if (lit && !ns) {
		one = cg_i64(cg, index ? 0 : 1);
		CG_TO(one, join);
		goto out;
	}
	for (uint32_t j = 0; j < hs; j++) {
		/* what a match at j gives */
		one = cg_i64(cg, index ? j : 1);
		next_j = cg_block(cg, "strcontains.nextpos");
		for (uint32_t i = 0; i < ns; i++) {
			if (lit) {
				nc = LLVMConstInt(cg->t_i8, (unsigned char)nd->str[i], 0);
			} else {
				/* the end of n: every byte so far matched */
				nc = LLVMBuildLoad2(cg->b, cg->t_i8, cg_gep(cg, pn, i), "");
				next = cg_block(cg, "strcontains.byte");
				LLVMAddIncoming(phi, &one,
						(LLVMBasicBlockRef[]){ LLVMGetInsertBlock(cg->b) },
						1);
				LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, nc, z8, ""),
						join, next);
				LLVMPositionBuilderAtEnd(cg->b, next);
			}
			if (j + i >= hs) { /* h ends before n does */
				LLVMBuildBr(cg->b, next_j);
				break;
			}
			hc = LLVMBuildLoad2(cg->b, cg->t_i8, cg_gep(cg, ph, j + i), "");
			next = cg_block(cg, "strcontains.same");
			LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, hc, nc, ""), next,
					next_j);
			LLVMPositionBuilderAtEnd(cg->b, next);
			if (i + 1 == ns) { /* all of n matched (a literal, or n fills its buffer) */
				CG_TO(one, join);
				LLVMPositionBuilderAtEnd(cg->b, cg_block(cg, "dead"));
				LLVMBuildBr(cg->b, next_j);
			}
		}
		LLVMPositionBuilderAtEnd(cg->b, next_j);
		/* h ended here without a match */
		hc = LLVMBuildLoad2(cg->b, cg->t_i8, cg_gep(cg, ph, j), "");
		next = cg_block(cg, "strcontains.on");
		LLVMAddIncoming(phi, &zero, (LLVMBasicBlockRef[]){ LLVMGetInsertBlock(cg->b) }, 1);
		LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, hc, z8, ""), join, next);
		LLVMPositionBuilderAtEnd(cg->b, next);
	}
	CG_TO(zero, join);
#undef CG_TO
out:
	LLVMMoveBasicBlockAfter(join, LLVMGetInsertBlock(cg->b));
	LLVMPositionBuilderAtEnd(cg->b, join);
	return phi;
}

LLVMValueRef cg_fn_strcontains(struct cg *cg, struct node *n)
{
	return cg_str_search(cg, n, false);
}

LLVMValueRef cg_fn_strstr(struct cg *cg, struct node *n)
{
	return cg_str_search(cg, n, true);
}

/* reg("name"): a u64 of the pt_regs context at the offset sema found. */
LLVMValueRef cg_fn_reg(struct cg *cg, struct node *n)
{
	LLVMValueRef v = LLVMBuildLoad2(cg->b, cg->t_i64, cg_gep(cg, cg->ctxp, n->field_off), "");

	LLVMSetAlignment(v, 8);
	return v;
}

/*
 * uaddr("sym"): the variable's address in this match's binary, a constant. Sema checked every
 * match resolves it; a failure now means the binary changed in between.
 */
LLVMValueRef cg_fn_uaddr(struct cg *cg, struct node *n)
{
	const struct probe_match *m = cg->match;
	struct probe_err err = { { 0 }, { 0 } };
	uint64_t addr = 0, size;

	if (!m || !m->pt->variable ||
	    m->pt->variable(cg->prog->arena, m->target, n->args->str, &addr, &size, &err)) {
		cg_error(cg, n->loc, err.hint[0] ? err.hint : NULL, "uaddr(): %s",
			 err.msg[0] ? err.msg : "no binary to look the symbol up in");
		return cg_i64(cg, 0);
	}
	return cg_i64(cg, addr);
}

LLVMValueRef cg_fn_identity(struct cg *cg, struct node *n)
{
	return cg_expr(cg, n->args);
}

LLVMValueRef cg_fn_bswap(struct cg *cg, struct node *n)
{
	uint32_t bits = n->type.size * 8;
	LLVMTypeRef ty = LLVMIntTypeInContext(cg->ctx, bits);
	LLVMValueRef v = cg_expr(cg, n->args), fn;
	unsigned id = LLVMLookupIntrinsicID("llvm.bswap", strlen("llvm.bswap"));

	if (bits == 8)
		return LLVMBuildAnd(cg->b, v, cg_i64(cg, 0xff), "");
	if (bits < 64)
		v = LLVMBuildTrunc(cg->b, v, ty, "");
	fn = LLVMGetIntrinsicDeclaration(cg->mod, id, &ty, 1);
	v = LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(fn), fn, &v, 1, "bswap");
	return bits < 64 ? LLVMBuildZExt(cg->b, v, cg->t_i64, "") : v;
}
