// SPDX-License-Identifier: GPL-2.0
/*
 * Typed memory reads. A member of a record from the kernel's BTF is reached through the
 * llvm.preserve.{struct,union}.access.index intrinsics, tagged with debug-info types built here
 * from the same BTF, so the BPF backend emits CO-RE relocations and libbpf fixes the offsets for
 * the kernel the ELF is loaded on. Records of the script's own C definitions have fixed offsets.
 * The bytes are then copied with bpf_probe_read_kernel (or _user for user memory).
 */
#include <bpf/btf.h>
#include <string.h>

#include "arena.h"
#include "cg_core.h"
#include "ctypes.h"
#include "meta.h"

#define CG_CORE_VALUE_MAX 512 /* bytes of a struct read whole: print(*p), $x = *p */
#define CG_CORE_READ_USER 112
#define CG_CORE_READ_KERNEL 113
#define CG_CORE_CURRENT_TASK 35

/* DWARF encodings (DW_ATE_*) and tags (DW_TAG_*) */
#define CG_CORE_ATE_BOOLEAN 0x02
#define CG_CORE_ATE_FLOAT 0x04
#define CG_CORE_ATE_SIGNED 0x05
#define CG_CORE_ATE_SIGNED_CHAR 0x06
#define CG_CORE_ATE_UNSIGNED 0x08
#define CG_CORE_TAG_STRUCT 0x13
#define CG_CORE_TAG_UNION 0x17

/* A BTF record as LLVM sees it: its debug-info type and a layout for the intrinsics. */
struct cg_core_rec {
	uint32_t btf_id;
	LLVMMetadataRef di;
	LLVMTypeRef lty; /* packed struct of byte arrays, one per member (plus padding) */
	uint32_t *gep;	 /* member index -> field index in lty */
	struct cg_core_rec *next;
};

/* Debug-info types made for BTF ids, shared by every access of one module. */
struct cg_core_di {
	uint32_t btf_id;
	LLVMMetadataRef di;
	struct cg_core_di *next;
};

struct cg_core {
	LLVMModuleRef mod; /* the caches below belong to this module */
	struct cg_core_rec *recs;
	struct cg_core_di *dis;
	unsigned md_access;
};

static struct cg_core *cg_core_state(struct cg *cg)
{
	if (!cg->core || cg->core->mod != cg->mod) {
		cg->core = arena_alloc(cg->prog->arena, sizeof(*cg->core));
		cg->core->mod = cg->mod;
		cg->core->md_access =
			LLVMGetMDKindIDInContext(cg->ctx, "llvm.preserve.access.index", 26);
	}
	return cg->core;
}

static LLVMMetadataRef cg_core_di_btf(struct cg *cg, const struct btf *btf, uint32_t id);

static LLVMMetadataRef cg_core_di_basic(struct cg *cg, const char *name, uint64_t bits,
					unsigned enc)
{
	if (!name || !*name)
		name = "int";
	return LLVMDIBuilderCreateBasicType(cg->dib, name, strlen(name), bits, enc, LLVMDIFlagZero);
}

static LLVMMetadataRef cg_core_di_record(struct cg *cg, const struct btf *btf, uint32_t id,
					 const struct btf_type *t)
{
	const char *name = btf__name_by_offset(btf, t->name_off);
	uint16_t n = btf_vlen(t);
	const struct btf_member *m = btf_members(t);
	LLVMMetadataRef *members = arena_alloc(cg->prog->arena, (n + 1) * sizeof(*members));

	(void)id;
	for (uint16_t i = 0; i < n; i++) {
		const char *mn = btf__name_by_offset(btf, m[i].name_off);
		uint32_t bits = btf_member_bit_offset(t, i), bsize = btf_member_bitfield_size(t, i);
		LLVMMetadataRef mt = cg_core_di_btf(cg, btf, m[i].type);
		__s64 sz = btf__resolve_size(btf, m[i].type);

		if (!mn)
			mn = "";
		if (bsize)
			members[i] = LLVMDIBuilderCreateBitFieldMemberType(
				cg->dib, cg->di_file, mn, strlen(mn), cg->di_file, 0, bsize, bits,
				0, LLVMDIFlagZero, mt);
		else
			members[i] = LLVMDIBuilderCreateMemberType(
				cg->dib, cg->di_file, mn, strlen(mn), cg->di_file, 0,
				(uint64_t)(sz > 0 ? sz : 0) * 8, 0, bits, LLVMDIFlagZero, mt);
	}
	if (!name)
		name = "";
	if (btf_is_union(t))
		return LLVMDIBuilderCreateUnionType(cg->dib, cg->di_file, name, strlen(name),
						    cg->di_file, 0, (uint64_t)t->size * 8, 0,
						    LLVMDIFlagZero, members, n, 0, "", 0);
	return LLVMDIBuilderCreateStructType(cg->dib, cg->di_file, name, strlen(name), cg->di_file,
					     0, (uint64_t)t->size * 8, 0, LLVMDIFlagZero, NULL,
					     members, n, 0, NULL, "", 0);
}

/*
 * The debug-info type of a BTF type, as libbpf's CO-RE matching needs it: records with every
 * member (by name, offset and kind), arrays, enums by name; pointers need only be pointers.
 */
static LLVMMetadataRef cg_core_di_btf(struct cg *cg, const struct btf *btf, uint32_t id)
{
	struct cg_core *core = cg_core_state(cg);
	const struct btf_type *t;
	struct cg_core_di *e;
	LLVMMetadataRef di = NULL;
	const char *name;

	/* Typedefs and qualifiers do not matter to the matching. */
	while ((t = btf__type_by_id(btf, id)) &&
	       (btf_is_mod(t) || btf_is_typedef(t) || btf_is_type_tag(t) || btf_is_decl_tag(t)))
		id = t->type;
	if (!id || !t)
		return cg_core_di_basic(cg, "char", 8, CG_CORE_ATE_SIGNED_CHAR);
	for (e = core->dis; e; e = e->next)
		if (e->btf_id == id)
			return e->di;
	name = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_INT: {
		unsigned enc = btf_int_encoding(t);

		di = cg_core_di_basic(cg, name, (uint64_t)t->size * 8,
				      enc & BTF_INT_BOOL     ? CG_CORE_ATE_BOOLEAN
				      : enc & BTF_INT_CHAR   ? CG_CORE_ATE_SIGNED_CHAR
				      : enc & BTF_INT_SIGNED ? CG_CORE_ATE_SIGNED
							     : CG_CORE_ATE_UNSIGNED);
		break;
	}
	case BTF_KIND_FLOAT:
		di = cg_core_di_basic(cg, name, (uint64_t)t->size * 8, CG_CORE_ATE_FLOAT);
		break;
	case BTF_KIND_PTR:
		di = cg_di_ptr(cg, NULL);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		LLVMMetadataRef sub = LLVMDIBuilderGetOrCreateSubrange(cg->dib, 0, a->nelems);
		__s64 sz = btf__resolve_size(btf, id);

		di = LLVMDIBuilderCreateArrayType(cg->dib, (uint64_t)(sz > 0 ? sz : 0) * 8, 0,
						  cg_core_di_btf(cg, btf, a->type), &sub, 1);
		break;
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		di = LLVMDIBuilderCreateEnumerationType(
			cg->dib, cg->di_file, name ? name : "", name ? strlen(name) : 0,
			cg->di_file, 0, (uint64_t)t->size * 8, 0, NULL, 0,
			cg_core_di_basic(cg, "unsigned int", (uint64_t)t->size * 8,
					 CG_CORE_ATE_UNSIGNED));
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		di = cg_core_di_record(cg, btf, id, t);
		break;
	case BTF_KIND_FWD:
		di = LLVMDIBuilderCreateForwardDecl(
			cg->dib, btf_kflag(t) ? CG_CORE_TAG_UNION : CG_CORE_TAG_STRUCT,
			name ? name : "", name ? strlen(name) : 0, cg->di_file, cg->di_file, 0, 0,
			0, 0, "", 0);
		break;
	default:
		di = cg_core_di_basic(cg, "char", 8, CG_CORE_ATE_SIGNED_CHAR);
		break;
	}
	e = arena_alloc(cg->prog->arena, sizeof(*e));
	e->btf_id = id;
	e->di = di;
	e->next = core->dis;
	core->dis = e;
	return di;
}

/* The CO-RE view of a BTF record: its debug-info type and an LLVM layout for elementtype. */
static struct cg_core_rec *cg_core_rec(struct cg *cg, struct crecord *r)
{
	struct cg_core *core = cg_core_state(cg);
	const struct btf *btf = ctypes_btf(r->ct, NULL);
	LLVMTypeRef *fields;
	struct cg_core_rec *cr;
	uint32_t nf = 0, cur = 0;

	for (cr = core->recs; cr; cr = cr->next)
		if (cr->btf_id == r->btf_id)
			return cr;
	if (!btf || !ctypes_complete(r))
		return NULL;
	cr = arena_alloc(cg->prog->arena, sizeof(*cr));
	cr->btf_id = r->btf_id;
	cr->di = cg_core_di_btf(cg, btf, r->btf_id);
	cr->gep = arena_alloc(cg->prog->arena, (r->nmembers + 1) * sizeof(*cr->gep));
	fields = arena_alloc(cg->prog->arena, (2 * r->nmembers + 2) * sizeof(*fields));
	/* Only the fallback without relocation would use these offsets; keep them true anyway. */
	for (uint32_t i = 0; i < r->nmembers && !r->is_union; i++) {
		const struct cmember *m = &r->members[i];
		uint32_t size = m->type.size;

		if (m->bit_size || m->off < cur || !size) {
			cr->gep[i] = nf ? nf - 1 : 0;
			continue;
		}
		if (m->off > cur)
			fields[nf++] = LLVMArrayType2(cg->t_i8, m->off - cur);
		cr->gep[i] = nf;
		fields[nf++] = LLVMArrayType2(cg->t_i8, size);
		cur = m->off + size;
	}
	if (r->size > cur)
		fields[nf++] = LLVMArrayType2(cg->t_i8, r->size - cur);
	cr->lty = LLVMStructTypeInContext(cg->ctx, fields, nf, true);
	cr->next = core->recs;
	core->recs = cr;
	return cr;
}

static LLVMValueRef cg_core_intrinsic(struct cg *cg, const char *name, LLVMValueRef *args,
				      unsigned nargs)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMTypeRef tys[2] = { cg->t_ptr, cg->t_ptr };
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, tys, 2);

	return LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(fn), fn, args, nargs, "");
}

/*
 * Whether the object is for this kernel only: a program aotrace runs itself, with this kernel's
 * own types (no AOTRACE_BTF). Its members are at the offsets that kernel's BTF gives, fixed:
 * the object has no CO-RE relocation, so loading it needs no parse of the kernel's BTF (10 ms
 * and 10 MiB in libbpf). The object cache keys a cached object by that BTF's identity.
 * --emit-elf objects, for other kernels too, keep the relocations.
 */
static bool cg_core_fixed(const struct cg *cg)
{
	return !cg->prog->opts->emit_elf && !cg->prog->opts->btf_path;
}

/* The address of member m of the record at base. */
static LLVMValueRef cg_core_member(struct cg *cg, LLVMValueRef base, const struct cmember *m)
{
	struct crecord *r = m->parent;
	struct cg_core_rec *cr;
	LLVMValueRef call, args[3];

	if (!r->btf_id || m->bit_size || cg_core_fixed(cg) || !(cr = cg_core_rec(cg, r)))
		return cg_gep(cg, base, m->off);
	args[0] = base;
	if (r->is_union) {
		args[1] = cg_i32(cg, m->index);
		call = cg_core_intrinsic(cg, "llvm.preserve.union.access.index", args, 2);
	} else {
		args[1] = cg_i32(cg, cr->gep[m->index]);
		args[2] = cg_i32(cg, m->index);
		call = cg_core_intrinsic(cg, "llvm.preserve.struct.access.index", args, 3);
		LLVMAddCallSiteAttribute(
			call, 1,
			LLVMCreateTypeAttribute(cg->ctx,
						LLVMGetEnumAttributeKindForName("elementtype", 11),
						cr->lty));
	}
	LLVMSetMetadata(call, cg_core_state(cg)->md_access, LLVMMetadataAsValue(cg->ctx, cr->di));
	return call;
}

LLVMValueRef cg_core_path(struct cg *cg, LLVMValueRef base, const struct cmember *const *path,
			  uint32_t npath)
{
	for (uint32_t i = 0; i < npath; i++)
		base = cg_core_member(cg, base, path[i]);
	return base;
}

LLVMMetadataRef cg_core_btf_di(struct cg *cg, uint32_t id)
{
	const struct btf *btf = ctypes_btf(ctypes_get(cg->prog, NULL), NULL);

	return btf ? cg_core_di_btf(cg, btf, id) : NULL;
}

LLVMMetadataRef cg_core_record_ptr_di(struct cg *cg, struct crecord *r)
{
	struct cg_core_rec *cr = r && r->btf_id ? cg_core_rec(cg, r) : NULL;

	return cg_di_ptr(cg, cr ? cr->di : NULL);
}

static LLVMValueRef cg_core_ptr(struct cg *cg, LLVMValueRef v)
{
	return LLVMBuildIntToPtr(cg->b, v, cg->t_ptr, "");
}

/* The address of typed memory: a member, a dereference or an element; *user if user memory. */
static LLVMValueRef cg_core_addr(struct cg *cg, struct node *n, bool *user)
{
	LLVMValueRef base, idx;
	uint32_t esize;

	switch (n->kind) {
	case NODE_FIELD:
		if (n->is_arrow) {
			base = cg_core_ptr(cg, cg_expr(cg, n->lhs));
			*user = n->lhs->type.is_user;
		} else {
			base = cg_core_addr(cg, n->lhs, user);
		}
		for (uint32_t i = 0; i < n->npath; i++)
			base = cg_core_member(cg, base, n->mpath[i]);
		return base;
	case NODE_UNOP:
		*user = n->lhs->type.is_user;
		return cg_core_ptr(cg, cg_expr(cg, n->lhs));
	case NODE_INDEX:
		if (n->lhs->type.kind == TYPE_PTR) {
			base = cg_core_ptr(cg, cg_expr(cg, n->lhs));
			*user = n->lhs->type.is_user;
		} else {
			base = cg_core_addr(cg, n->lhs, user);
		}
		esize = n->type.kind == TYPE_BOOL ? 1 : n->type.size;
		idx = LLVMBuildMul(cg->b, cg_expr(cg, n->rhs), cg_i64(cg, esize), "");
		return LLVMBuildGEP2(cg->b, cg->t_i8, base, &idx, 1, "elem");
	default:
		cg_error(cg, n->loc, "this is a bug in aotrace", "%s has no address",
			 node_kind_name(n->kind));
		*user = false;
		return LLVMConstNull(cg->t_ptr);
	}
}

static void cg_core_copy(struct cg *cg, LLVMValueRef dst, uint32_t size, LLVMValueRef src,
			 bool user)
{
	LLVMValueRef args[3] = { dst, cg_i32(cg, size), src };

	cg_helper(cg, (enum cg_helper)(user ? CG_CORE_READ_USER : CG_CORE_READ_KERNEL), cg->t_i64,
		  args, 3);
}

/*
 * A bitfield: the bytes that hold it, shifted and masked (x86 is little-endian). As bpftrace
 * 0.27 reads it, it is negative only where it fills its declared type (`int a:32`; `int a:3`
 * holding 0b111 is 7), the rule sema_lower.c writes into the metadata of a struct value.
 * user: read with a helper from user (true) or kernel memory; NULL: addr is in our own memory.
 */
static LLVMValueRef cg_core_bitfield(struct cg *cg, LLVMValueRef addr, const struct cmember *m,
				     const bool *user)
{
	uint32_t bytes = (m->bit_off + m->bit_size + 7) / 8;
	struct type t = { .kind = TYPE_INT, .size = 8 };
	LLVMValueRef buf = cg_alloca_zero(cg, 8, "bits"), v;

	if (user)
		cg_core_copy(cg, buf, bytes, addr, *user);
	else
		cg_memcpy(cg, buf, 8, addr, 1, bytes);
	v = cg_load(cg, buf, &t, 8);
	v = LLVMBuildLShr(cg->b, v, cg_i64(cg, m->bit_off), "");
	if (m->bit_size < 64)
		v = LLVMBuildAnd(cg->b, v, cg_i64(cg, (1ull << m->bit_size) - 1), "");
	if (m->type.is_signed && m->bit_size < 64 && m->bit_size == 8 * m->type.size) {
		LLVMValueRef sh = cg_i64(cg, 64 - m->bit_size);

		v = LLVMBuildAShr(cg->b, LLVMBuildShl(cg->b, v, sh, ""), sh, "");
	}
	return v;
}

LLVMValueRef cg_core_value_bitfield(struct cg *cg, LLVMValueRef addr, const struct cmember *m)
{
	return cg_core_bitfield(cg, addr, m, NULL);
}

/*
 * Whether a struct can be a value: its members are described to the runtime, within the
 * metadata's limits of members and nesting, and a bitfield as an integer of at most 8 bytes.
 */
static bool cg_core_printable(struct cg *cg, struct node *n, struct crecord *r, uint32_t depth)
{
	const char *hint = "print its members one by one: print(p->a), or printf(\"%d\", p->a)";

	if (!r || !ctypes_complete(r) || !r->size) {
		cg_error(cg, n->loc, hint, "struct %s is not defined", r ? r->name : "?");
		return false;
	}
	/* Copies of more than this are not emitted reliably yet (bpftrace 0.17 fails on them). */
	if (depth == 1 && r->size > CG_CORE_VALUE_MAX) {
		cg_error(cg, n->loc, hint, "%s %s is %u bytes: a struct value is at most %u bytes",
			 r->is_union ? "union" : "struct", *r->name ? r->name : "(anonymous)",
			 r->size, CG_CORE_VALUE_MAX);
		return false;
	}
	if (depth >= AOT_META_MAX_DEPTH || r->nmembers > AOT_META_MAX_TUPLE) {
		cg_error(cg, n->loc, hint,
			 "%s %s is too big to be a value (%u members, %u levels of structs)",
			 r->is_union ? "union" : "struct", *r->name ? r->name : "(anonymous)",
			 r->nmembers, depth);
		return false;
	}
	for (uint32_t i = 0; i < r->nmembers; i++) {
		const struct cmember *m = &r->members[i];
		const struct type *mt = &m->type;

		while (mt->kind == TYPE_ARRAY && mt->pointee)
			mt = mt->pointee;
		if (m->bit_size && ((mt->kind != TYPE_INT && mt->kind != TYPE_BOOL) ||
				    m->bit_off + m->bit_size > 64 ||
				    m->off + (m->bit_off + m->bit_size + 7) / 8 > r->size)) {
			cg_error(cg, n->loc, hint, "%s %s has the bitfield '%s', which %s",
				 r->is_union ? "union" : "struct", r->name, m->name,
				 m->bit_off + m->bit_size > 64 ? "spans more than 8 bytes"
							       : "is no integer aotrace can read");
			return false;
		}
		/* an anonymous member's members are printed as the record's own */
		if (mt->kind == TYPE_RECORD &&
		    !cg_core_printable(cg, n, mt->rec, *m->name ? depth + 1 : depth))
			return false;
	}
	return true;
}

/*
 * ctx->a.b: the offset of a member of the program's context, which the verifier lets only
 * direct loads at a constant offset read (it rewrites them for perf event contexts, whose
 * struct bpf_perf_event_data is not the memory there). -1 if n is not such a member.
 */
static int64_t cg_ctx_member_off(const struct node *n)
{
	int64_t off = 0;

	for (; n->kind == NODE_FIELD; n = n->lhs) {
		for (uint32_t i = 0; i < n->npath; i++) {
			if (n->mpath[i]->bit_size)
				return -1;
			off += n->mpath[i]->off;
		}
		if (n->is_arrow)
			return n->lhs->kind == NODE_BUILTIN && n->lhs->func == FN_CTX ? off : -1;
	}
	return -1;
}

/*
 * Whether n reads the context itself (ctx->ip), not memory a pointer read from it points at
 * (ctx->task->pid, an iter probe's task: kernel memory).
 */
static bool cg_reads_ctx(const struct node *n)
{
	while (n->kind == NODE_FIELD || n->kind == NODE_INDEX ||
	       (n->kind == NODE_UNOP && n->op == '*')) {
		const struct node *l = n->lhs;
		bool through_ptr = (n->kind == NODE_FIELD && n->is_arrow) || n->kind == NODE_UNOP ||
				   (n->kind == NODE_INDEX && l->type.kind == TYPE_PTR);

		if (through_ptr && !(l->kind == NODE_BUILTIN && l->func == FN_CTX))
			return false;
		n = l;
	}
	return n->kind == NODE_BUILTIN && n->func == FN_CTX;
}

LLVMValueRef cg_core_read(struct cg *cg, struct node *n)
{
	const struct type *t = &n->type;
	bool user = false;
	LLVMValueRef addr, buf, v;
	uint32_t size;
	int64_t off;

	if (cg_reads_ctx(n)) {
		off = cg_ctx_member_off(n);
		if (off < 0 || (t->kind != TYPE_INT && t->kind != TYPE_PTR)) {
			cg_error(cg, n->loc, "read its integer and pointer members: ctx->name",
				 "ctx can only be read a member at a time");
			return cg_type_is_buf(t) ? cg_alloca_zero(cg, t->size ? t->size : 1, "")
						 : cg_i64(cg, 0);
		}
		/* the u64 that holds it: perf event contexts allow only 8-byte loads */
		v = LLVMBuildLoad2(cg->b, cg->t_i64, cg_gep(cg, cg->ctxp, (uint64_t)off & ~7ull),
				   "ctx.member");
		LLVMSetAlignment(v, 8);
		if (off & 7)
			v = LLVMBuildLShr(cg->b, v, cg_i64(cg, (uint64_t)(off & 7) * 8), "");
		v = cg_int_norm(cg, v, t);
		cg_iter_ctx_check(cg, v);
		return v;
	}

	switch (t->kind) {
	case TYPE_INT:
	case TYPE_BOOL:
	case TYPE_PTR:
	case TYPE_STR:
		break;
	case TYPE_ARRAY:
	case TYPE_RECORD:
	case TYPE_TUPLE: /* *(&$t): a variable's own layout */
	case TYPE_BUF:
		/* A whole struct: its bytes, printed from the metadata's description of members. */
		if (t->kind == TYPE_RECORD && !cg_core_printable(cg, n, t->rec, 1))
			return cg_alloca_zero(cg, t->size ? t->size : 1, "rec");
		addr = cg_core_addr(cg, n, &user);
		buf = cg_alloca(cg, t->size, "rec");
		cg_core_copy(cg, buf, t->size, addr, user);
		return buf;
	default:
		cg_error(cg, n->loc, "read one of its members, or take its address with '&'",
			 "%s cannot be used as a value", ctypes_name(cg->prog->arena, t));
		return cg_i64(cg, 0);
	}
	addr = cg_core_addr(cg, n, &user);
	if (n->kind == NODE_FIELD && n->npath && n->mpath[n->npath - 1]->bit_size)
		return cg_core_bitfield(cg, addr, n->mpath[n->npath - 1], &user);
	size = t->kind == TYPE_BOOL ? 1 : t->size;
	buf = cg_alloca(cg, t->kind == TYPE_STR ? size : 8, "mem");
	cg_core_copy(cg, buf, size, addr, user);
	return cg_load(cg, buf, t, 8);
}

LLVMValueRef cg_core_unop(struct cg *cg, struct node *n)
{
	bool user = false;

	if (n->op == '&' && n->lhs->kind == NODE_VAR)
		return LLVMBuildPtrToInt(cg->b, cg_var_ptr(cg, n->lhs), cg->t_i64, "");
	if (n->op == '&')
		return LLVMBuildPtrToInt(cg->b, cg_core_addr(cg, n->lhs, &user), cg->t_i64, "");
	return cg_core_read(cg, n);
}

LLVMValueRef cg_core_curtask(struct cg *cg, struct node *n)
{
	(void)n;
	return cg_helper(cg, (enum cg_helper)CG_CORE_CURRENT_TASK, cg->t_i64, NULL, 0);
}
