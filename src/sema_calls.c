// SPDX-License-Identifier: GPL-2.0
/*
 * Sema of function calls: argument counts and types, aggregations (only as a map's value), map
 * functions, the functions whose arguments are names rather than values (kstack(perf), reg("ip"),
 * sizeof(uint32)), and those resolved while compiling (kaddr, uaddr, cgroupid, signal names).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "probe.h"
#include "sema_record.h"
#include "sema_types.h"

bool sema_const_int(const struct node *n, int64_t *v)
{
	if (!n)
		return false;
	if (n->kind == NODE_INT) {
		*v = (int64_t)n->num;
		return true;
	}
	if (n->kind == NODE_UNOP && n->op == '-' && n->lhs->kind == NODE_INT) {
		*v = -(int64_t)n->lhs->num;
		return true;
	}
	return false;
}

static int sema_nargs(const struct node *n)
{
	int count = 0;

	for (const struct node *a = n->args; a; a = a->next)
		count++;
	return count;
}

static void sema_args(struct sema_ctx *ctx, struct node *first)
{
	for (struct node *a = first; a; a = a->next)
		sema_expr(ctx, a);
}

static bool sema_need_literal(struct sema_ctx *ctx, struct node *call, struct node *a,
			      const char *what)
{
	if (a && a->kind == NODE_STR)
		return true;
	sema_error(ctx, a ? a->loc : call->loc, "write it as a string literal: \"...\"",
		   "%s() needs a literal string as its %s", call->name, what);
	return false;
}

static void sema_need_str(struct sema_ctx *ctx, struct node *a, const char *what)
{
	if (a->type.kind != TYPE_NONE && a->type.kind != TYPE_STR)
		sema_error(ctx, a->loc, NULL, "%s needs a string, not %s", what,
			   type_name(ctx->a, &a->type));
}

static bool sema_is_whole_map(const struct node *a)
{
	return a && a->kind == NODE_MAP && !a->args;
}

/* clear(@m), zero(@m), print(@m): a whole map, named rather than read. */
static void sema_whole_map(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	if (!sema_is_whole_map(a)) {
		sema_error(ctx, a->loc, arena_printf(ctx->a, "write %s(@map)", n->name),
			   "%s() takes a whole map, without a key", n->name);
		return;
	}
	a->map = sema_map(ctx, a);
	if (a->map->value.kind == TYPE_NONE)
		sema_error(ctx, a->loc,
			   arena_printf(ctx->a, "assign it somewhere: %s = ...", a->name),
			   "%s is used but never assigned", a->name);
}

/* lhist(v, min, max, step): the bounds are literals, checked as bpftrace checks them. */
static void sema_lhist(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args->next;
	const char *names[] = { "min", "max", "step" };
	int64_t v[3];

	for (int i = 0; i < 3; i++, a = a->next) {
		if (!sema_const_int(a, &v[i])) {
			sema_error(ctx, a->loc, "lhist(value, min, max, step) takes literal bounds",
				   "lhist(): %s must be an integer literal", names[i]);
			return;
		}
	}
	if (v[0] < 0)
		sema_error(ctx, n->loc, NULL, "lhist(): min must be non-negative");
	else if (v[1] <= v[0])
		sema_error(ctx, n->loc, NULL, "lhist(): max must be greater than min");
	else if (v[2] <= 0)
		sema_error(ctx, n->loc, NULL, "lhist(): step must be at least 1");
	else if ((v[1] - v[0]) / v[2] > 1000)
		sema_error(ctx, n->loc, "use a larger step", "lhist(): more than 1000 buckets");
}

void sema_lhist_params(struct sema_ctx *ctx, struct map_info *m, struct node *call)
{
	struct node *a = call->args->next;
	int64_t lo = 0, hi = 0, step = 0;

	if (!sema_const_int(a, &lo) || !sema_const_int(a->next, &hi) ||
	    !sema_const_int(a->next->next, &step))
		return;
	if (!m->lhist_step) {
		m->lhist_min = lo;
		m->lhist_max = hi;
		m->lhist_step = step;
	} else if (m->lhist_min != lo || m->lhist_max != hi || m->lhist_step != step) {
		sema_error(ctx, call->loc,
			   arena_printf(ctx->a,
					"%s was first given lhist(..., %" PRId64 ", %" PRId64
					", %" PRId64 ")",
					m->name, m->lhist_min, m->lhist_max, m->lhist_step),
			   "%s gets lhist() with different bounds", m->name);
	}
}

static const struct {
	const char *name;
	uint32_t size;
	bool is_signed;
} sema_int_types[] = {
	{ "int8", 1, true },	{ "int16", 2, true },	{ "int32", 4, true },
	{ "int64", 8, true },	{ "uint8", 1, false },	{ "uint16", 2, false },
	{ "uint32", 4, false }, { "uint64", 8, false }, { "int", 4, true },
	{ "bool", 1, false },	{ "char", 1, true },	{ "short", 2, true },
	{ "long", 8, true },	{ "u8", 1, false },	{ "u16", 2, false },
	{ "u32", 4, false },	{ "u64", 8, false },	{ "s8", 1, true },
	{ "s16", 2, true },	{ "s32", 4, true },	{ "s64", 8, true },
};

/* sizeof(type) or sizeof(expr) becomes the literal. */
static void sema_sizeof(struct sema_ctx *ctx, struct node *n)
{
	uint64_t size = 0;

	if (n->cast_type) {
		for (size_t i = 0; i < sizeof(sema_int_types) / sizeof(sema_int_types[0]); i++)
			if (!strcmp(n->cast_type, sema_int_types[i].name))
				size = sema_int_types[i].size;
		n->type = type_int(8, false);
		if (!size && !sema_record_sizeof(ctx, n, &size))
			return;
	} else {
		if (sema_nargs(n) != 1) {
			sema_error(ctx, n->loc, NULL, "sizeof() takes one type or expression");
			return;
		}
		sema_expr(ctx, n->args);
		if (n->args->type.kind == TYPE_NONE)
			return;
		size = n->args->type.kind == TYPE_BOOL ? 1 : n->args->type.size;
		if (type_is_agg(&n->args->type) || n->args->type.kind == TYPE_VOID) {
			sema_error(ctx, n->args->loc, NULL, "sizeof() cannot take %s",
				   type_name(ctx->a, &n->args->type));
			return;
		}
	}
	n->kind = NODE_INT;
	n->num = size;
	n->args = NULL;
	n->type = type_int(8, false);
}

/* kstack, kstack(N), kstack(mode), kstack(mode, N); mode is perf, bpftrace or raw. */
static void sema_stack(struct sema_ctx *ctx, struct node *n)
{
	bool user = n->func == FN_USTACK;
	uint32_t mode = AOT_STACK_MODE_BPFTRACE, limit = 0;
	struct node *a = n->args;
	int64_t v;

	if (a && a->kind == NODE_BUILTIN) {
		if (!strcmp(a->name, "perf"))
			mode = AOT_STACK_MODE_PERF;
		else if (!strcmp(a->name, "raw"))
			mode = AOT_STACK_MODE_RAW;
		else if (strcmp(a->name, "bpftrace"))
			sema_error(ctx, a->loc, "modes: bpftrace, perf, raw",
				   "%s(): unknown mode '%s'", n->name, a->name);
		a = a->next;
	}
	if (a) {
		if (a->kind == NODE_POSPARAM)
			sema_expr(ctx, a);
		if (!sema_const_int(a, &v) || v < 1 || v > AOT_STACK_MAX_DEPTH) {
			sema_error(ctx, a->loc, NULL,
				   "%s(): the frame limit must be a literal from 1 to %d", n->name,
				   AOT_STACK_MAX_DEPTH);
			return;
		}
		limit = (uint32_t)v;
		if (a->next) {
			sema_error(ctx, a->next->loc, NULL, "%s() takes a mode and a frame limit",
				   n->name);
			return;
		}
	}
	if (user)
		ctx->prog->uses_ustack = true;
	else
		ctx->prog->uses_kstack = true;
	n->type = type_buf(user ? AOT_K_USTACK : AOT_K_KSTACK, user ? 16 : 8, limit | mode << 16);
}

/* kaddr("sym"): the address from /proc/kallsyms, as bpftrace resolves it when compiling. */
static void sema_kaddr(struct sema_ctx *ctx, struct node *n)
{
	n->type = type_int(8, false); /* even if it fails: no errors that follow from it */
	const char *want = n->args->str;
	char line[512], name[256], type;
	unsigned long long addr = 0;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f) {
		sema_error(ctx, n->loc, NULL, "kaddr(): cannot read /proc/kallsyms: %s",
			   strerror(errno));
		return;
	}
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && !strcmp(name, want))
			found = true;
	fclose(f);
	if (!found || !addr) {
		sema_error(ctx, n->args->loc, found ? "run as root to see kernel addresses" : NULL,
			   "kaddr(): %s kernel symbol '%s'", found ? "no address for the" : "no",
			   want);
		return;
	}
	n->kind = NODE_INT;
	n->num = addr;
	n->args = NULL;
	n->type = type_int(8, false);
}

/*
 * uaddr("sym"): a variable of the binary each match probes, looked up now (codegen looks it up
 * again per match). Its type is a user pointer sized by the symbol, as bpftrace types it: int8,
 * int16, int32 or int64 *, the last for any other size.
 */
static void sema_uaddr(struct sema_ctx *ctx, struct node *n)
{
	const char *name = n->args->str;
	const struct probe_match *first = NULL;
	uint64_t addr, size, first_size = 0;

	for (struct node *ap = ctx->probe->args; ap; ap = ap->next) {
		for (uint32_t i = 0; i < ap->nmatches; i++) {
			const struct probe_match *m = &ap->matches[i];
			struct probe_err err = { { 0 }, { 0 } };

			if (!m->pt->variable) {
				sema_error(ctx, n->loc,
					   "it names a variable of a uprobe's or usdt's binary",
					   "uaddr() is not available in %s probes", m->pt->name);
				return;
			}
			if (m->pt->variable(ctx->a, m->target, name, &addr, &size, &err)) {
				sema_error(ctx, n->args->loc, err.hint[0] ? err.hint : NULL,
					   "uaddr(): %s", err.msg);
				return;
			}
			if (first && size != first_size) {
				sema_error(ctx, n->args->loc,
					   "split the probe so each part has one",
					   "uaddr(): '%s' is %llu bytes in %s but %llu in %s", name,
					   (unsigned long long)first_size, first->name,
					   (unsigned long long)size, m->name);
				return;
			}
			first = m;
			first_size = size;
		}
	}
	n->type = (struct type){ .kind = TYPE_PTR, .size = 8, .is_user = true };
	n->type.pointee = arena_alloc(ctx->a, sizeof(*n->type.pointee));
	*n->type.pointee = type_int(
		first_size == 1 || first_size == 2 || first_size == 4 ? (uint32_t)first_size : 8,
		true);
	n->is_user = true;
}

/* cgroupid("/sys/fs/cgroup/..."): the cgroup's id is its inode's file handle, read now. */
static void sema_cgroupid(struct sema_ctx *ctx, struct node *n)
{
	n->type = type_int(8, false);
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, n->args->str, &h.fh, &mount_id, 0) < 0) {
		sema_error(ctx, n->args->loc, "give the path of a cgroup in /sys/fs/cgroup",
			   "cgroupid(): %s: %s", n->args->str, strerror(errno));
		return;
	}
	n->kind = NODE_INT;
	memcpy(&n->num, h.fh.f_handle, sizeof(n->num));
	n->args = NULL;
	n->type = type_int(8, false);
}

/* signal("SIGKILL"), signal("KILL") or signal(9). */
static void sema_signal(struct sema_ctx *ctx, struct node *n)
{
	static const struct {
		const char *name;
		int sig;
	} sigs[] = {
		{ "HUP", SIGHUP },	 { "INT", SIGINT },   { "QUIT", SIGQUIT },
		{ "ILL", SIGILL },	 { "TRAP", SIGTRAP }, { "ABRT", SIGABRT },
		{ "BUS", SIGBUS },	 { "FPE", SIGFPE },   { "KILL", SIGKILL },
		{ "USR1", SIGUSR1 },	 { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
		{ "PIPE", SIGPIPE },	 { "ALRM", SIGALRM }, { "TERM", SIGTERM },
		{ "CHLD", SIGCHLD },	 { "CONT", SIGCONT }, { "STOP", SIGSTOP },
		{ "TSTP", SIGTSTP },	 { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
		{ "URG", SIGURG },	 { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ },
		{ "VTALRM", SIGVTALRM }, { "PROF", SIGPROF }, { "WINCH", SIGWINCH },
		{ "IO", SIGIO },	 { "PWR", SIGPWR },   { "SYS", SIGSYS },
	};
	struct node *a = n->args;
	const char *s;
	int64_t v;

	if (a->kind == NODE_STR) {
		s = strncmp(a->str, "SIG", 3) ? a->str : a->str + 3;
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			if (!strcmp(s, sigs[i].name)) {
				a->kind = NODE_INT;
				a->num = (uint64_t)sigs[i].sig;
				a->type = type_int(8, true);
				return;
			}
		}
		sema_error(ctx, a->loc, "name it as SIGKILL, KILL or 9",
			   "signal(): unknown signal '%s'", a->str);
		return;
	}
	sema_expr(ctx, a);
	sema_need_int(ctx, a, "signal()");
	if (sema_const_int(a, &v) && (v < 1 || v > 64))
		sema_error(ctx, a->loc, NULL, "signal(): %" PRId64 " is no signal number", v);
}

/* reg("name"): a field of x86-64's struct pt_regs, offsets as the kernel lays it out. */
static void sema_reg(struct sema_ctx *ctx, struct node *n)
{
	static const char *const regs[] = {
		"r15", "r14", "r13", "r12", "bp",      "bx", "r11", "r10",   "r9", "r8", "ax",
		"cx",  "dx",  "si",  "di",  "orig_ax", "ip", "cs",  "flags", "sp", "ss",
	};
	const struct probe_type *lacking;

	if (!sema_need_literal(ctx, n, n->args, "register name"))
		return;
	if ((lacking = sema_probe_lacks(ctx, PB_REGS))) {
		sema_error(ctx, n->loc, NULL, "reg() is not available in %s probes", lacking->name);
		return;
	}
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		if (!strcmp(n->args->str, regs[i])) {
			n->field_off = (uint32_t)(i * 8);
			n->type = type_int(8, false);
			return;
		}
	}
	sema_error(ctx, n->args->loc,
		   "x86-64 registers: ip sp bp ax bx cx dx si di r8..r15 flags ...",
		   "reg(): unknown register '%s'", n->args->str);
}

static void sema_unsafe(struct sema_ctx *ctx, struct node *n)
{
	if (!ctx->prog->opts->unsafe)
		sema_error(ctx, n->loc, "run with --unsafe to allow it",
			   "%s() is an unsafe function", n->name);
}

/* ntop([af,] addr): an IPv4 address as an integer, or 4 or 16 bytes. */
static void sema_ntop(struct sema_ctx *ctx, struct node *n)
{
	struct node *addr = n->args->next ? n->args->next : n->args;
	const struct type *t = &addr->type;

	if (addr != n->args)
		sema_need_int(ctx, n->args, "the address family of ntop()");
	if (t->kind != TYPE_NONE && !sema_is_int(t) &&
	    !((t->kind == TYPE_STR || t->kind == TYPE_BUF) && (t->size == 4 || t->size == 16)))
		sema_error(ctx, addr->loc, "give an integer, or an array of 4 or 16 bytes",
			   "ntop() cannot take %s", type_name(ctx->a, t));
	n->type = type_buf(AOT_K_INET, 24, 0);
}

/* A value for print(), printf arguments and the like: neither an aggregation nor nothing. */
static void sema_need_value(struct sema_ctx *ctx, struct node *a, const char *what)
{
	if (a->type.kind == TYPE_VOID || type_is_agg(&a->type))
		sema_error(ctx, a->loc, NULL, "%s cannot take %s", what,
			   a->kind == NODE_CALL ? arena_printf(ctx->a, "%s()", a->name)
						: type_name(ctx->a, &a->type));
}

/* Functions with a value; the rest are statements. */
static bool sema_has_value(enum func id)
{
	switch (id) {
	case FN_PRINTF:
	case FN_EXIT:
	case FN_DELETE:
	case FN_CLEAR:
	case FN_ZERO:
	case FN_PRINT:
	case FN_TIME:
	case FN_JOIN:
	case FN_SYSTEM:
	case FN_CAT:
	case FN_SIGNAL:
	case FN_OVERRIDE:
		return false;
	default:
		return true;
	}
}

static void sema_aggregation(struct sema_ctx *ctx, struct node *n, const struct sema_func *f)
{
	static const enum type_kind kinds[] = {
		[FN_COUNT] = TYPE_COUNT, [FN_SUM] = TYPE_SUM,	  [FN_MIN] = TYPE_MIN,
		[FN_MAX] = TYPE_MAX,	 [FN_AVG] = TYPE_AVG,	  [FN_STATS] = TYPE_STATS,
		[FN_HIST] = TYPE_HIST,	 [FN_LHIST] = TYPE_LHIST,
	};

	sema_args(ctx, n->args);
	if (ctx->assign_rhs != n) {
		sema_error(ctx, n->loc, arena_printf(ctx->a, "write @name = %s(...)", f->name),
			   "%s() can only be assigned to a map", f->name);
		return;
	}
	if (n->args)
		sema_need_int(ctx, n->args, arena_printf(ctx->a, "%s()", f->name));
	if (f->id == FN_LHIST)
		sema_lhist(ctx, n);
	n->type.kind = kinds[f->id];
	n->type.size =
		f->id == FN_MIN || f->id == FN_MAX || f->id == FN_AVG || f->id == FN_STATS ? 16 : 8;
	n->type.is_signed = n->args ? n->args->type.is_signed : false;
}

/* printf-like calls: a literal format, its conversions matching the arguments. */
static void sema_formatted(struct sema_ctx *ctx, struct node *n)
{
	if (n->args->kind != NODE_STR) {
		sema_error(ctx, n->args->loc, "write the format as a string literal",
			   "%s() needs a literal format string", n->name);
		return;
	}
	n->args->type = type_str((uint32_t)n->args->str_len + 1);
	sema_args(ctx, n->args->next);
	if (ctx->report)
		sema_printf_check(ctx, n);
}

/* The checks of each function; args are evaluated here, since some are names, not values. */
static void sema_call_check(struct sema_ctx *ctx, struct node *n, const struct sema_func *f)
{
	struct node *a = n->args;
	int64_t v;

	switch (f->id) {
	case FN_COUNT:
	case FN_SUM:
	case FN_MIN:
	case FN_MAX:
	case FN_AVG:
	case FN_STATS:
	case FN_HIST:
	case FN_LHIST:
		sema_aggregation(ctx, n, f);
		return;
	case FN_PRINTF:
	case FN_CAT:
		sema_formatted(ctx, n);
		return;
	case FN_SYSTEM:
		sema_unsafe(ctx, n);
		sema_formatted(ctx, n);
		return;
	case FN_DELETE:
		if (a->kind != NODE_MAP || !a->args) {
			sema_error(ctx, a->loc, "write delete(@map[key])",
				   "delete() takes a map element");
			return;
		}
		sema_expr(ctx, a);
		return;
	case FN_CLEAR:
	case FN_ZERO:
		sema_whole_map(ctx, n);
		return;
	case FN_PRINT:
		if (sema_is_whole_map(a)) {
			sema_whole_map(ctx, n);
			sema_args(ctx, a->next);
			for (struct node *p = a->next; p; p = p->next)
				sema_need_int(ctx, p,
					      p == a->next ? "the top of print()"
							   : "the divisor of print()");
			return;
		}
		sema_args(ctx, a);
		if (a->next) {
			sema_error(ctx, a->next->loc, NULL,
				   "print() takes a top and a divisor only after a whole map");
			return;
		}
		sema_need_value(ctx, a, "print()");
		return;
	case FN_STR:
		if (a)
			sema_posparam_as_str(ctx, a);
		sema_args(ctx, a);
		if (a->type.kind == TYPE_STR) {
			n->type = a->type;
			return;
		}
		sema_need_int(ctx, a, "str()");
		if (a->next)
			sema_need_int(ctx, a->next, "the length of str()");
		n->is_user = a->is_user || a->type.is_user;
		n->type = type_str(ctx->prog->opts->strlen_max);
		return;
	case FN_TIME:
		if (a)
			sema_need_literal(ctx, n, a, "format");
		return;
	case FN_EXIT:
		/* exit(code): the status aotrace exits with */
		sema_args(ctx, a);
		if (a)
			sema_need_int(ctx, a, "the exit code of exit()");
		return;
	case FN_STRFTIME:
		if (!sema_need_literal(ctx, n, a, "format"))
			return;
		sema_args(ctx, a->next);
		sema_need_int(ctx, a->next, "the time of strftime()");
		/* the format goes into the metadata once; the walks share it through n->num */
		if (!n->num) {
			struct aot_fmt fmt = { .kind = AOT_FMT_TIME,
					       .fmt = a->str,
					       .args = { .kind = AOT_K_TUPLE } };
			int idx = aot_meta_add_fmt(ctx->prog->meta, &fmt);

			if (idx < 0)
				return;
			n->num = (uint64_t)idx + 1;
		}
		n->type = type_buf(AOT_K_TIMESTAMP, 8, (uint32_t)n->num - 1);
		return;
	case FN_BUF: {
		uint32_t size = ctx->prog->opts->strlen_max;

		sema_args(ctx, a);
		if (a->type.kind == TYPE_STR && !a->next) {
			size = a->type.size;
		} else {
			sema_need_int(ctx, a, "buf()");
			if (!a->next) {
				sema_error(ctx, n->loc, "write buf(pointer, length)",
					   "buf() of a pointer needs a length");
				return;
			}
			sema_need_int(ctx, a->next, "the length of buf()");
			if (sema_const_int(a->next, &v) && v >= 0 && (uint64_t)v < size)
				size = (uint32_t)v;
		}
		n->is_user = a->is_user;
		n->type = type_buf(AOT_K_BUF, 4 + size, 0);
		return;
	}
	case FN_KSYM:
	case FN_USYM:
		sema_args(ctx, a);
		sema_need_int(ctx, a, arena_printf(ctx->a, "%s()", n->name));
		n->type =
			f->id == FN_KSYM ? type_buf(AOT_K_KSYM, 8, 0) : type_buf(AOT_K_USYM, 16, 0);
		return;
	case FN_CGROUP_PATH:
		/* The id is resolved to a path by the runtime, in its cgroup2 hierarchy. */
		sema_args(ctx, a);
		sema_need_int(ctx, a, "cgroup_path()");
		if (a->next)
			sema_unsupported(ctx, a->next, "cgroup_path()'s filter argument");
		n->type = type_buf(AOT_K_CGROUP_PATH, 8, 0);
		return;
	case FN_KADDR:
		if (sema_need_literal(ctx, n, a, "symbol name"))
			sema_kaddr(ctx, n);
		return;
	case FN_UADDR:
		n->type = type_int(8, false); /* even if it fails: no errors that follow from it */
		if (sema_need_literal(ctx, n, a, "symbol name"))
			sema_uaddr(ctx, n);
		return;
	case FN_CGROUPID:
		if (sema_need_literal(ctx, n, a, "path"))
			sema_cgroupid(ctx, n);
		return;
	case FN_NTOP:
		sema_args(ctx, a);
		sema_ntop(ctx, n);
		return;
	case FN_JOIN:
		sema_expr(ctx, a);
		sema_need_int(ctx, a, "join()");
		if (a->next)
			sema_need_literal(ctx, n, a->next, "separator");
		n->is_user = true; /* argv arrays are in user memory */
		return;
	case FN_SIGNAL:
		sema_unsafe(ctx, n);
		sema_signal(ctx, n);
		return;
	case FN_OVERRIDE: {
		const struct probe_type *lacking = sema_probe_lacks(ctx, PB_OVERRIDE);

		sema_unsafe(ctx, n);
		if (lacking)
			sema_error(ctx, n->loc, NULL, "override() is not available in %s probes",
				   lacking->name);
		sema_args(ctx, a);
		sema_need_int(ctx, a, "override()");
		return;
	}
	case FN_PATH:
		sema_args(ctx, a);
		sema_need_int(ctx, a, "path()");
		n->type = type_str(ctx->prog->opts->strlen_max);
		return;
	case FN_MACADDR:
		sema_args(ctx, a);
		if (!((a->type.kind == TYPE_STR || a->type.kind == TYPE_BUF) && a->type.size == 6))
			sema_need_int(ctx, a, "macaddr()");
		n->is_user = a->is_user;
		n->type = type_buf(AOT_K_MACADDR, 6, 0);
		return;
	case FN_STRNCMP:
		sema_args(ctx, a);
		sema_need_str(ctx, a, "strncmp()");
		sema_need_str(ctx, a->next, "strncmp()");
		if (!sema_const_int(a->next->next, &v) || v < 0)
			sema_error(ctx, a->next->next->loc, NULL,
				   "strncmp(): the length must be a non-negative literal");
		n->type = type_int(8, false);
		return;
	case FN_SIZEOF:
		sema_sizeof(ctx, n);
		return;
	case FN_REG:
		sema_reg(ctx, n);
		return;
	case FN_KPTR:
	case FN_UPTR:
		sema_args(ctx, a);
		sema_need_int(ctx, a, arena_printf(ctx->a, "%s()", n->name));
		n->type = a->type;
		n->is_user = f->id == FN_UPTR;
		return;
	case FN_KSTACK:
	case FN_USTACK:
		sema_stack(ctx, n);
		return;
	case FN_BSWAP:
		sema_args(ctx, a);
		sema_need_int(ctx, a, "bswap()");
		n->type = type_int(a->type.kind == TYPE_INT ? a->type.size : 8, false);
		return;
	default:
		sema_args(ctx, a);
		return;
	}
}

void sema_call(struct sema_ctx *ctx, struct node *n, bool is_stmt)
{
	const struct sema_func *f = sema_func_find(n->name);
	int nargs = sema_nargs(n);

	n->type.kind = TYPE_VOID;
	if (!f) {
		sema_error(ctx, n->loc, "see aotrace(8) for the functions", "unknown function '%s'",
			   n->name);
		return;
	}
	n->func = f->id;
	if (f->unsupported) {
		sema_unsupported(ctx, n, arena_printf(ctx->a, "%s()", f->name));
		return;
	}
	if (f->id == FN_SIZEOF && n->cast_type) {
		sema_sizeof(ctx, n);
		return;
	}
	if (f->id == FN_OFFSETOF && n->cast_type && n->args && n->args->kind == NODE_STR) {
		uint64_t off;

		n->type = type_int(8, false); /* no second error about a void value */
		if (!sema_record_offsetof(ctx, n, &off))
			return;
		n->kind = NODE_INT;
		n->num = off;
		n->args = NULL;
		n->type = type_int(8, false);
		return;
	}
	if (nargs < f->min_args || nargs > f->max_args) {
		int limit = nargs < f->min_args ? f->min_args : f->max_args;

		sema_error(ctx, n->loc, NULL, "%s() takes %s%d argument%s, not %d", f->name,
			   f->min_args == f->max_args ? ""
			   : nargs < f->min_args      ? "at least "
						      : "at most ",
			   limit, limit == 1 ? "" : "s", nargs);
		return;
	}
	sema_call_check(ctx, n, f);
	if (!is_stmt && !sema_has_value(f->id))
		sema_error(ctx, n->loc, NULL, "%s() has no value", f->name);
}
