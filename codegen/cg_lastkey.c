// SPDX-License-Identifier: GPL-2.0
/*
 * Last-key caches: `@[comm] = count()` on every system call looks the same key up in a per-CPU
 * hash again and again, and that lookup (hashing the key, walking a bucket, comparing) is most of
 * what the event costs. A map counted only that way, with a key that stays the same while one
 * task runs (comm, pid, tid, uid, ...: cg_lastkey_plan), gets a per-CPU array of one entry
 * beside it (meta.h, AOT_LASTKEY_PREFIX): the last key counted on this CPU and how many events
 * of it are not in the hash yet. An event with that key adds 1 there; another key first moves
 * the pending count into the hash, inside a sequence count the runtime checks when it merges
 * the pending counts into what it prints.
 */
#include <string.h>

#include "arena.h"
#include "cg_internal.h"
#include "funcs.h"
#include "meta.h"

/* Limits of what is worth it: a key compared in a few loads. */
#define LASTKEY_KEY_MAX 64

/* Whether a key expression stays the same from one event to the next of the same task. */
static bool lastkey_stable(const struct node *k)
{
	switch (k->kind) {
	case NODE_INT:
	case NODE_STR:
	case NODE_BOOL:
	case NODE_POSPARAM:
		return true;
	case NODE_CAST:
		return lastkey_stable(k->lhs);
	case NODE_TUPLE:
		for (const struct node *a = k->args; a; a = a->next)
			if (!lastkey_stable(a->kind == NODE_NAMED ? a->lhs : a))
				return false;
		return true;
	case NODE_BUILTIN:
	case NODE_CALL:
		if (k->kind == NODE_CALL && k->args)
			return false;
		switch (k->func) {
		case FN_PID:
		case FN_TID:
		case FN_UID:
		case FN_GID:
		case FN_CPU:
		case FN_COMM:
		case FN_CGROUP:
		case FN_USERNAME:
		case FN_NUMAID:
		case FN_PPID:
		case FN_PCOMM:
			return true;
		default:
			return false;
		}
	default:
		return false;
	}
}

/* Per map while walking: counted with a stable key, or used some other way in a program. */
struct lastkey_use {
	bool counted, other;
};

static void lastkey_walk(struct lastkey_use *use, const struct node *n);

static void lastkey_walk_list(struct lastkey_use *use, const struct node *n)
{
	for (; n; n = n->next)
		lastkey_walk(use, n);
}

static void lastkey_mark(struct lastkey_use *use, const struct map_info *mi, bool counted)
{
	if (!mi)
		return;
	if (counted)
		use[mi->meta_idx].counted = true;
	else
		use[mi->meta_idx].other = true;
}

static void lastkey_walk(struct lastkey_use *use, const struct node *n)
{
	const struct node *m;
	bool stable = true;

	if (!n)
		return;
	switch (n->kind) {
	case NODE_ASSIGN:
		m = n->lhs;
		if (m->kind == NODE_MAP && !n->op && n->rhs && n->rhs->kind == NODE_CALL &&
		    n->rhs->func == FN_COUNT) {
			for (const struct node *k = m->args; k; k = k->next)
				stable = stable && lastkey_stable(k);
			lastkey_mark(use, m->map, stable);
			lastkey_walk_list(use, m->args);
			return;
		}
		break;
	case NODE_CALL:
		/* print(@m), clear(@m) and zero(@m) are the runtime's: events, no lookup */
		m = n->args;
		if ((n->func == FN_PRINT || n->func == FN_CLEAR || n->func == FN_ZERO) && m &&
		    m->kind == NODE_MAP && !m->args) {
			lastkey_walk_list(use, m->next);
			return;
		}
		break;
	case NODE_MAP:
		lastkey_mark(use, n->map, false);
		break;
	default:
		break;
	}
	lastkey_walk(use, n->lhs);
	lastkey_walk(use, n->rhs);
	lastkey_walk(use, n->cond);
	lastkey_walk_list(use, n->body);
	lastkey_walk(use, n->else_body);
	lastkey_walk_list(use, n->args);
	lastkey_walk(use, n->type_expr);
}

void cg_lastkey_plan(struct cg *cg)
{
	struct program *prog = cg->prog;
	struct lastkey_use *use;

	if (!prog->nmaps || prog->opts->lastkey == AOT_LASTKEY_OFF ||
	    (prog->opts->lastkey == AOT_LASTKEY_AUTO && prog->opts->emit_elf))
		return;
	use = arena_alloc(prog->arena, prog->nmaps * sizeof(*use));
	if (!use)
		return;
	memset(use, 0, prog->nmaps * sizeof(*use));
	for (struct node *p = prog->root->body; p; p = p->next)
		if (p->kind == NODE_PROBE) {
			lastkey_walk(use, p->cond);
			lastkey_walk_list(use, p->body);
		}
	for (struct map_info *mi = prog->maps; mi; mi = mi->next) {
		uint32_t ks = mi->nkeys ? mi->key.size : 8;

		/*
		 * Not an LRU map: a key the cache holds would evict another when it moves into
		 * the map, which the runtime's merge cannot tell.
		 */
		mi->lastkey = mi->meta_idx < prog->nmaps && use[mi->meta_idx].counted &&
			      !use[mi->meta_idx].other && mi->value.kind == TYPE_COUNT && ks &&
			      ks <= LASTKEY_KEY_MAX && !(mi->decl && strstr(mi->decl->str, "lru"));
		if (mi->lastkey)
			aot_meta_set_version(prog->meta, AOT_META_VERSION_LASTKEY);
	}
}

static const char *lastkey_name(struct cg *cg, const struct map_info *mi)
{
	return arena_printf(cg->prog->arena, "%s%s", AOT_LASTKEY_PREFIX, mi->elf_name + 3);
}

void cg_lastkey_define(struct cg *cg)
{
	for (struct map_info *mi = cg->prog->maps; mi; mi = mi->next) {
		uint32_t ks = mi->nkeys ? mi->key.size : 8;
		struct type val = { .kind = TYPE_STR,
				    .size = AOT_LASTKEY_KEY_OFF + (ks + 7) / 8 * 8 };
		struct cg_mapdef def = {
			.type = CG_MAP_PERCPU_ARRAY,
			.max_entries = 1,
			.key = cg_di_int(cg, 4, false),
		};

		if (!mi->lastkey)
			continue;
		def.value = cg_di_type(
			cg, &val, arena_printf(cg->prog->arena, "%s_val", lastkey_name(cg, mi)));
		cg_map_global(cg, lastkey_name(cg, mi), &def);
	}
}

/* The cache's sequence count goes up by one, with an atomic add the runtime's reads order by. */
static void lastkey_seq_bump(struct cg *cg, LLVMValueRef c)
{
	LLVMBuildAtomicRMW(cg->b, LLVMAtomicRMWBinOpAdd, c, cg_i64(cg, 1),
			   LLVMAtomicOrderingSequentiallyConsistent, false);
}

void cg_lastkey_count(struct cg *cg, struct node *n)
{
	const struct map_info *mi = n->map;
	uint32_t ks = mi->nkeys ? mi->key.size : 8;
	LLVMValueRef key = cg_map_key(cg, n), zero = cg_alloca(cg, 4, "lc.idx"), c, pend, ck, st;
	LLVMBasicBlockRef body = cg_block(cg, "lc.body"), hit = cg_block(cg, "lc.hit");
	LLVMBasicBlockRef miss = cg_block(cg, "lc.miss"), flush = cg_block(cg, "lc.flush");
	LLVMBasicBlockRef set = cg_block(cg, "lc.set"), done = cg_block(cg, "lc.done");
	LLVMValueRef cache = LLVMGetNamedGlobal(cg->mod, lastkey_name(cg, mi));

	LLVMBuildStore(cg->b, cg_i32(cg, 0), zero);
	c = cg_map_lookup(cg, cache, zero);
	LLVMBuildCondBr(cg->b, LLVMBuildIsNull(cg->b, c, ""), done, body);

	LLVMPositionBuilderAtEnd(cg->b, body);
	pend = LLVMBuildLoad2(cg->b, cg->t_i64, cg_gep(cg, c, AOT_LASTKEY_PENDING_OFF), "pending");
	ck = cg_gep(cg, c, AOT_LASTKEY_KEY_OFF);
	/* pending == 0 is an empty cache (never used, or the runtime took the count) */
	LLVMBuildCondBr(cg->b,
			LLVMBuildAnd(cg->b,
				     LLVMBuildICmp(cg->b, LLVMIntNE, pend, cg_i64(cg, 0), ""),
				     cg_bytes_eq(cg, ck, key, ks), ""),
			hit, miss);

	LLVMPositionBuilderAtEnd(cg->b, hit);
	LLVMBuildStore(cg->b, LLVMBuildAdd(cg->b, pend, cg_i64(cg, 1), ""),
		       cg_gep(cg, c, AOT_LASTKEY_PENDING_OFF));
	LLVMBuildBr(cg->b, done);

	/* Odd sequence while the count moves to the hash and the key changes. */
	LLVMPositionBuilderAtEnd(cg->b, miss);
	lastkey_seq_bump(cg, c);
	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, pend, cg_i64(cg, 0), ""), flush,
			set);
	LLVMPositionBuilderAtEnd(cg->b, flush);
	cg_map_add_at(cg, mi, ck, pend);
	LLVMBuildBr(cg->b, set);
	LLVMPositionBuilderAtEnd(cg->b, set);
	cg_memcpy(cg, ck, 8, key, 8, ks);
	st = LLVMBuildStore(cg->b, cg_i64(cg, 1), cg_gep(cg, c, AOT_LASTKEY_PENDING_OFF));
	LLVMSetVolatile(st, true);
	lastkey_seq_bump(cg, c);
	LLVMBuildBr(cg->b, done);

	LLVMPositionBuilderAtEnd(cg->b, done);
}
