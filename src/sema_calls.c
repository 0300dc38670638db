// SPDX-License-Identifier: GPL-2.0
/*
 * Sema of function calls: what every call passes through (the name, the number of arguments,
 * --unsafe, what the probe types provide: the row of src/funcs.c says), then the checks the rows
 * name: aggregations (only as a map's value), map functions, the functions whose arguments are
 * names rather than values (kstack(perf), reg("ip"), sizeof(uint32)), and those resolved while
 * compiling (kaddr, uaddr, cgroupid, signal names).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "arena.h"
#include "ctypes.h"
#include "probe.h"
#include "sema_record.h"
#include "sema_types.h"

/* the bytes of str_concat()'s string, as bpftrace 0.27 declares it (string[1024]) */
#define SEMA_CONCAT_LEN 1024

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

static void sema_fold_param(struct sema_ctx *ctx, struct node *a);

/* A string known when compiling: a literal, or $N's text where the parameters are known. */
static bool sema_need_literal(struct sema_ctx *ctx, struct node *call, struct node *a,
			      const char *what)
{
	sema_fold_param(ctx, a);
	if (a && a->kind == NODE_STR)
		return true;
	sema_error(ctx, a ? a->loc : call->loc,
		   ctx->prog->opts->emit_elf
			   ? "write it as a string literal: \"...\" (with --emit-elf, $N is only "
			     "known where the object runs)"
			   : "write it as a string literal: \"...\"",
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
void sema_fn_whole_map(struct sema_ctx *ctx, struct node *n)
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

/*
 * tseries(v, interval_ns, num_intervals[, fn]): p[] gets the interval, the count and the fold.
 * With report, says what is wrong in bpftrace 0.27.1's words; false if anything is.
 */
static bool sema_tseries_read(struct sema_ctx *ctx, struct node *n, int64_t p[3], bool report)
{
	static const char *const names[] = { "interval_ns", "num_intervals" };
	struct node *a = n->args->next;

	for (int i = 0; i < 2; i++, a = a->next) {
		if (!sema_const_int(a, &p[i]) || p[i] < 0) {
			if (report)
				sema_error(
					ctx, n->loc, "write it as a literal: 100ms, 10",
					"tseries: invalid %s value (must be non-negative literal)",
					names[i]);
			return false;
		}
		if (p[i] == 0) {
			if (report)
				sema_error(ctx, n->loc, NULL,
					   "tseries() %s must be >= 1 (0 provided)", names[i]);
			return false;
		}
	}
	if (p[1] > AOT_TSERIES_MAX_INTERVALS) {
		if (report)
			sema_error(ctx, n->loc, NULL,
				   "tseries() num_intervals must be < 1000000 (%" PRId64
				   " provided)",
				   p[1]);
		return false;
	}
	p[2] = AOT_TSERIES_LAST;
	if (!a)
		return true;
	if (a->kind != NODE_STR) {
		if (report)
			sema_error(ctx, a->loc, "write one of \"avg\", \"max\", \"min\", \"sum\"",
				   "tseries(): the aggregation function must be a string literal");
		return false;
	}
	for (int64_t f = AOT_TSERIES_AVG; f <= AOT_TSERIES__LAST; f++)
		if (!strcmp(a->str, aot_tseries_fn_name(f))) {
			p[2] = f;
			return true;
		}
	if (report)
		sema_error(
			ctx, n->loc, NULL,
			"tseries() expects one of the following aggregation functions: avg, max, "
			"min, sum (\"%s\" provided)",
			a->str);
	return false;
}

void sema_tseries_params(struct sema_ctx *ctx, struct map_info *m, struct node *call)
{
	int64_t p[3];

	if (!sema_tseries_read(ctx, call, p, false))
		return;
	if (!m->tseries_count) {
		m->tseries_interval = p[0];
		m->tseries_count = p[1];
		m->tseries_fn = p[2];
	} else if (m->tseries_interval != p[0] || m->tseries_count != p[1] ||
		   m->tseries_fn != p[2] ||
		   /* as in bpftrace 0.27, where the value's type is one of the bounds */
		   (m->value.kind == TYPE_TSERIES && m->value.is_signed != call->type.is_signed)) {
		sema_error(ctx, call->loc,
			   arena_printf(ctx->a,
					"%s was first given tseries(%s value, %" PRId64 ", %" PRId64
					"%s%s%s)",
					m->name, m->value.is_signed ? "a signed" : "an unsigned",
					m->tseries_interval, m->tseries_count,
					m->tseries_fn ? ", \"" : "",
					m->tseries_fn ? aot_tseries_fn_name(m->tseries_fn) : "",
					m->tseries_fn ? "\"" : ""),
			   "Different tseries bounds in a single map unsupported");
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
void sema_fn_sizeof(struct sema_ctx *ctx, struct node *n)
{
	uint64_t size = 0;
	struct type t;

	if (n->args && !n->args->next && n->args->kind == NODE_TYPE && n->args->type_expr) {
		/* sizeof(t) in a macro that was given typeof(x) for t */
		n->type_expr = n->args->type_expr;
		n->args = NULL;
	}
	/* sizeof(uint64_t): a name that is no builtin but a type (a kernel typedef), as 0.27 */
	if (n->args && !n->args->next && n->args->kind == NODE_BUILTIN &&
	    !func_find(n->args->name, FUNC_BARE)) {
		struct type probe;
		const char *missing;

		if (!ctypes_parse(ctypes_get(ctx->prog, ctx->env), n->args->name, &probe,
				  &missing)) {
			n->cast_type = n->args->name;
			n->args = NULL;
		}
	}
	if (n->type_expr) {
		/* sizeof(typeof(x)) */
		n->type = type_int(8, false);
		if (!sema_type_named(ctx, n, &t))
			return;
		size = t.kind == TYPE_BOOL ? 1 : t.size;
	} else if (n->cast_type) {
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
		t = sema_narrow(ctx, n->args);
		size = t.kind == TYPE_BOOL ? 1 : t.size;
		/* bpftrace 0.27 sizes a bool literal as the int64 it stands for */
		if (n->args->kind == NODE_BOOL)
			size = 8;
		if (n->args->kind == NODE_VAR && n->args->var) {
			struct sema_sizeof *s = arena_alloc(ctx->a, sizeof(*s));

			*s = (struct sema_sizeof){ n, n->args->var, ctx->sizeofs };
			ctx->sizeofs = s;
		}
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

void sema_sizeof_finish(struct sema_ctx *ctx)
{
	for (struct sema_sizeof *s = ctx->sizeofs; s; s = s->next) {
		const struct var_info *v = s->var;
		struct type t;

		if (v->type.kind == TYPE_NONE)
			continue;
		t = sema_narrow_of(ctx, &v->narrow, &v->type);
		s->n->num = t.kind == TYPE_BOOL ? 1 : t.size;
	}
}

/*
 * kstack, kstack(N), kstack(mode), kstack(mode, N); mode is bpftrace, perf, raw or build_id (ustack
 * only, as bpftrace 0.27: bare kstack under a default of build_id warns and prints raw).
 */
static void sema_stack(struct sema_ctx *ctx, struct node *n, bool user)
{
	uint32_t mode = ctx->prog->opts->stack_mode ? ctx->prog->opts->stack_mode - 1
						    : AOT_STACK_MODE_BPFTRACE,
		 limit = 0;
	struct node *a = n->args;
	bool named = false;
	int64_t v;

	if (a && a->kind == NODE_BUILTIN) {
		for (mode = 0; mode < AOT_STACK_MODE_COUNT; mode++)
			if (!strcmp(a->name, aot_stack_mode_names[mode]))
				break;
		if (mode == AOT_STACK_MODE_COUNT) {
			sema_error(ctx, a->loc, "modes: " AOT_STACK_MODE_LIST,
				   "%s(): unknown mode '%s'", n->name, a->name);
			mode = AOT_STACK_MODE_BPFTRACE;
		}
		named = true;
		a = a->next;
	}
	if (mode == AOT_STACK_MODE_BUILD_ID && !user) {
		if (n->kind == NODE_BUILTIN) {
			diag_warn(
				ctx->d, n->loc, NULL, "%s",
				"'build_id' stack mode can only be used for ustack; kstack prints "
				"in 'raw' mode");
			mode = AOT_STACK_MODE_RAW;
		} else {
			sema_error(ctx, named ? n->args->loc : n->loc,
				   named ? "build ids are of user-space files: ustack(build_id)"
					 : "the default mode (stack_mode, BPFTRACE_STACK_MODE) is "
					   "build_id: name kstack's, as in kstack(raw)",
				   "'build_id' stack mode can only be used for ustack");
			mode = AOT_STACK_MODE_RAW; /* typed still: no errors that follow from it */
		}
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
	/* ustack(build_id) has a stack map of its own (codegen makes it on first use) */
	if (mode == AOT_STACK_MODE_BUILD_ID)
		aot_meta_set_version(ctx->prog->meta, AOT_META_VERSION_BUILDID);
	else if (user)
		ctx->prog->uses_ustack = true;
	else
		ctx->prog->uses_kstack = true;
	n->type = type_buf(user ? AOT_K_USTACK : AOT_K_KSTACK, user ? 16 : 8, limit | mode << 16);
}

void sema_fn_kstack(struct sema_ctx *ctx, struct node *n)
{
	sema_stack(ctx, n, false);
}

void sema_fn_ustack(struct sema_ctx *ctx, struct node *n)
{
	sema_stack(ctx, n, true);
}

/* kaddr("sym"): the address from /proc/kallsyms, as bpftrace resolves it when compiling. */
static void sema_kaddr_lookup(struct sema_ctx *ctx, struct node *n)
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
static void sema_uaddr_lookup(struct sema_ctx *ctx, struct node *n)
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
static void sema_cgroupid_lookup(struct sema_ctx *ctx, struct node *n)
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
void sema_fn_signal(struct sema_ctx *ctx, struct node *n)
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

	sema_fold_param(ctx, a);
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
			   "%s(): unknown signal '%s'", n->name, a->str);
		return;
	}
	sema_expr(ctx, a);
	sema_need_int(ctx, a, arena_printf(ctx->a, "%s()", n->name));
	if (sema_const_int(a, &v) && (v < 1 || v > 64))
		sema_error(ctx, a->loc, NULL, "%s(): %" PRId64 " is no signal number", n->name, v);
}

/* reg("name"): a field of x86-64's struct pt_regs, offsets as the kernel lays it out. */
void sema_fn_reg(struct sema_ctx *ctx, struct node *n)
{
	static const char *const regs[] = {
		"r15", "r14", "r13", "r12", "bp",      "bx", "r11", "r10",   "r9", "r8", "ax",
		"cx",  "dx",  "si",  "di",  "orig_ax", "ip", "cs",  "flags", "sp", "ss",
	};

	if (!sema_need_literal(ctx, n, n->args, "register name"))
		return;
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

/* Whether VAR id lies in the kernel's per-CPU data section. */
static bool sema_btf_is_percpu(const struct btf *btf, int id)
{
	int ds = btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
	const struct btf_type *t = ds > 0 ? btf__type_by_id(btf, (uint32_t)ds) : NULL;
	const struct btf_var_secinfo *v = t ? btf_var_secinfos(t) : NULL;

	for (uint16_t i = 0; t && i < btf_vlen(t); i++)
		if (v[i].type == (uint32_t)id)
			return true;
	return false;
}

/* kaddr("sym"), uaddr("sym"), cgroupid("path"): a literal, looked up now. */
void sema_fn_kaddr(struct sema_ctx *ctx, struct node *n)
{
	n->type = type_int(8, false); /* even if it fails: no errors that follow from it */
	if (sema_need_literal(ctx, n, n->args, "symbol name"))
		sema_kaddr_lookup(ctx, n);
	ctx->prog->host_bound = true; /* this boot's value: not for the cache */
}

/*
 * percpu_kaddr("sym"[, cpu]), bpftrace 0.27's: a pointer to the kernel's per-CPU variable sym
 * (a VAR of the kernel's BTF in .data..percpu) on the current CPU or on cpu (NULL past the
 * last). n->idx is the variable's type id, which its pointer points at.
 */
void sema_fn_percpu_kaddr(struct sema_ctx *ctx, struct node *n)
{
	struct ctypes *ct = ctypes_get(ctx->prog, ctx->env);
	const struct btf *btf = ct ? ctypes_btf(ct, NULL) : NULL;
	const struct btf_type *var;
	struct type *pointee;
	int id;

	n->type = (struct type){ .kind = TYPE_PTR, .size = 8 };
	if (n->args->next) {
		sema_expr(ctx, n->args->next);
		if (n->args->next->type.kind != TYPE_INT)
			sema_error(ctx, n->args->next->loc, "the second argument is a CPU number",
				   "percpu_kaddr() takes an integer cpu, not %s",
				   type_name(ctx->a, &n->args->next->type));
	}
	if (!sema_need_literal(ctx, n, n->args, "per-CPU variable's name"))
		return;
	id = btf ? btf__find_by_name_kind(btf, n->args->str, BTF_KIND_VAR) : -1;
	if (id <= 0 || !sema_btf_is_percpu(btf, id)) {
		sema_error(
			ctx, n->args->loc,
			btf ? "per-CPU variables are in the kernel's BTF (bpftool btf dump file /sys/kernel/btf/vmlinux | grep -A1 .data..percpu)"
			    : "the kernel has no BTF",
			"percpu_kaddr(): no per-CPU kernel variable '%s'", n->args->str);
		return;
	}
	var = btf__type_by_id(btf, (uint32_t)id);
	n->idx = var->type;
	pointee = arena_alloc(ctx->a, sizeof(*pointee));
	*pointee = ctypes_from_btf(ct, var->type);
	if (pointee->kind != TYPE_NONE && pointee->kind != TYPE_VOID)
		n->type.pointee = pointee;
	else
		n->type.btf_id = var->type;
}

void sema_fn_uaddr(struct sema_ctx *ctx, struct node *n)
{
	n->type = type_int(8, false); /* even if it fails: no errors that follow from it */
	if (sema_need_literal(ctx, n, n->args, "symbol name"))
		sema_uaddr_lookup(ctx, n);
	ctx->prog->host_bound = true; /* this boot's value: not for the cache */
}

void sema_fn_cgroupid(struct sema_ctx *ctx, struct node *n)
{
	if (sema_need_literal(ctx, n, n->args, "path"))
		sema_cgroupid_lookup(ctx, n);
	ctx->prog->host_bound = true; /* this boot's value: not for the cache */
}

/* offsetof(struct r, a.b): the parser gives the type and the member path as a string. */
void sema_fn_offsetof(struct sema_ctx *ctx, struct node *n)
{
	uint64_t off;

	if (!n->cast_type || !n->args || n->args->kind != NODE_STR) {
		sema_args(ctx, n->args);
		return;
	}
	n->type = type_int(8, false); /* no second error about a void value */
	if (!sema_record_offsetof(ctx, n, &off))
		return;
	n->kind = NODE_INT;
	n->num = off;
	n->args = NULL;
	n->type = type_int(8, false);
}

/*
 * pton("addr"): the bytes of an IPv4 (with '.') or IPv6 (with ':') address, parsed now, as a
 * uint8[4] or uint8[16] value (n->str holds them for codegen).
 */
void sema_fn_pton(struct sema_ctx *ctx, struct node *n)
{
	unsigned char bytes[16];
	struct type *u8;
	int af;

	if (!sema_need_literal(ctx, n, n->args, "address"))
		return;
	af = strchr(n->args->str, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(af, n->args->str, bytes) != 1) {
		sema_error(ctx, n->args->loc, "write an IPv4 (1.2.3.4) or IPv6 (::1) address",
			   "pton(): '%s' is no %s address", n->args->str,
			   af == AF_INET ? "IPv4" : "IPv6");
		return;
	}
	u8 = arena_alloc(ctx->a, sizeof(*u8));
	*u8 = type_int(1, false);
	n->type = (struct type){ .kind = TYPE_ARRAY,
				 .size = af == AF_INET ? 4 : 16,
				 .nelems = af == AF_INET ? 4 : 16,
				 .pointee = u8 };
	n->str = arena_alloc(ctx->a, n->type.size);
	memcpy(n->str, bytes, n->type.size);
	n->str_len = n->type.size;
}

/* ntop([af,] addr): an IPv4 address as an integer, or 4 or 16 bytes. */
void sema_fn_ntop(struct sema_ctx *ctx, struct node *n)
{
	struct node *addr = n->args->next ? n->args->next : n->args;
	const struct type *t = &addr->type;

	sema_args(ctx, n->args);
	if (addr != n->args)
		sema_need_int(ctx, n->args, "the address family of ntop()");
	if (t->kind != TYPE_NONE && !sema_is_int(t) &&
	    !((t->kind == TYPE_STR || t->kind == TYPE_BUF || t->kind == TYPE_ARRAY) &&
	      (t->size == 4 || t->size == 16)))
		sema_error(ctx, addr->loc, "give an integer, or an array of 4 or 16 bytes",
			   "ntop() cannot take %s", type_name(ctx->a, t));
	n->type = func_defs[n->func].type;
}

/* A value for print(), printf arguments and the like: neither an aggregation nor nothing. */
static void sema_need_value(struct sema_ctx *ctx, struct node *a, const char *what)
{
	if (a->type.kind == TYPE_VOID || type_is_agg(&a->type))
		sema_error(ctx, a->loc, NULL, "%s cannot take %s", what,
			   a->kind == NODE_CALL ? arena_printf(ctx->a, "%s()", a->name)
						: type_name(ctx->a, &a->type));
}

/* An aggregation's arguments, where it may be; false (reported) if it is not a map's value. */
static bool sema_aggregate(struct sema_ctx *ctx, struct node *n)
{
	sema_args(ctx, n->args);
	if (ctx->assign_rhs != n) {
		sema_error(ctx, n->loc, arena_printf(ctx->a, "write @name = %s(...)", n->name),
			   "%s() can only be assigned to a map", n->name);
		return false;
	}
	if (n->args)
		sema_need_int(ctx, n->args, arena_printf(ctx->a, "%s()", n->name));
	return true;
}

/* The aggregation's value type is its row's, signed as its argument is. */
static void sema_aggregate_type(struct node *n)
{
	n->type = func_defs[n->func].type;
	n->type.is_signed = n->args ? n->args->type.is_signed : false;
}

void sema_fn_aggregation(struct sema_ctx *ctx, struct node *n)
{
	if (sema_aggregate(ctx, n))
		sema_aggregate_type(n);
}

/* hist(v, k): k a literal from 0 to 5, bpftrace 0.27's bits. */
void sema_fn_hist(struct sema_ctx *ctx, struct node *n)
{
	int64_t k;

	if (!sema_aggregate(ctx, n))
		return;
	if (n->args->next && !sema_const_int(n->args->next, &k))
		sema_error(ctx, n->args->next->loc, "hist(value, k) with k from 0 to 5",
			   "hist(): k must be an integer literal");
	else if (n->args->next && (k < 0 || k > 5))
		sema_error(ctx, n->args->next->loc, "hist(value, k) with k from 0 to 5",
			   "hist: bits %" PRId64 " must be 0..5", k);
	sema_aggregate_type(n);
}

void sema_hist_params(struct sema_ctx *ctx, struct map_info *m, struct node *call)
{
	int64_t k = 0;

	if (call->args->next && (!sema_const_int(call->args->next, &k) || k < 0 || k > 5))
		return;
	if (!m->hist_k_set) {
		m->hist_k = (uint32_t)k;
		m->hist_k_set = true;
	} else if (m->hist_k != (uint64_t)k) {
		sema_error(ctx, call->loc,
			   arena_printf(ctx->a, "%s was first given hist(..., %u)", m->name,
					m->hist_k),
			   "Different bits in a single hist unsupported");
	}
}

void sema_fn_lhist(struct sema_ctx *ctx, struct node *n)
{
	if (!sema_aggregate(ctx, n))
		return;
	sema_lhist(ctx, n);
	sema_aggregate_type(n);
}

/*
 * tseries is unstable in bpftrace 0.27: unstable_tseries = warn (the default) says so once,
 * error refuses each use, enable says nothing.
 */
static void sema_tseries_unstable(struct sema_ctx *ctx, struct node *n)
{
	uint32_t mode = ctx->prog->opts->unstable_tseries;

	if (!ctx->report)
		return;
	if (mode == AOT_UNSTABLE_ERROR) {
		sema_error(ctx, n->loc, "set unstable_tseries = enable in the config block",
			   "tseries feature is not enabled by default. To enable this unstable "
			   "feature, set the config flag to enable. unstable_tseries=enable");
	} else if (mode != AOT_UNSTABLE_ENABLE && !ctx->tseries_warned) {
		ctx->tseries_warned = true;
		diag_warn(
			ctx->d, (struct loc){ 0 }, NULL,
			"Script is using an unstable feature: tseries. To prevent this warning "
			"you must explicitly enable it in the config e.g. unstable_tseries=enable");
	}
}

void sema_fn_tseries(struct sema_ctx *ctx, struct node *n)
{
	int64_t p[3];

	sema_tseries_unstable(ctx, n);
	if (!sema_aggregate(ctx, n))
		return;
	sema_tseries_read(ctx, n, p, true);
	sema_aggregate_type(n);
}

/* printf-like calls: a literal format, its conversions matching the arguments. */
void sema_fn_formatted(struct sema_ctx *ctx, struct node *n)
{
	sema_fold_param(ctx, n->args);
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

/* debugf(fmt, args...): printf's check, within what bpf_trace_printk can do. */
void sema_fn_debugf(struct sema_ctx *ctx, struct node *n)
{
	sema_fn_formatted(ctx, n);
	if (ctx->report)
		diag_warn(ctx->d, n->loc,
			  "it writes to /sys/kernel/tracing/trace_pipe, not to aotrace's output",
			  "The debugf() builtin is not recommended for production use. For more "
			  "information see bpf_trace_printk in bpf-helpers(7).");
}

void sema_fn_int_arg(struct sema_ctx *ctx, struct node *n)
{
	sema_args(ctx, n->args);
	sema_need_int(ctx, n->args, arena_printf(ctx->a, "%s()", n->name));
	if (!(func_defs[n->func].flags & FUNC_VOID))
		n->type = func_defs[n->func].type;
}

/*
 * delete(@m[key]), delete(@m, key) (bpftrace 0.27's spelling, made the first), or delete(@x) of
 * a map without keys.
 */
void sema_fn_delete(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	n->type = func_defs[n->func].type;
	if (a->kind != NODE_MAP || (a->args && a->next)) {
		sema_error(ctx, a->loc, "write delete(@map[key]), or delete(@map) without keys",
			   "delete() takes a map element");
		return;
	}
	if (a->next) {
		a->args = a->next;
		a->next = NULL;
	}
	if (!a->args && sema_map(ctx, a)->nkeys && sema_map(ctx, a)->nkeys != UINT32_MAX) {
		sema_error(ctx, a->loc, arena_printf(ctx->a, "write delete(%s[key])", a->name),
			   "%s has keys: delete() takes one of its elements", a->name);
		return;
	}
	sema_expr(ctx, a);
}

/* print(value), or print(@map [, top [, divisor]]). */
void sema_fn_print(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	if (sema_is_whole_map(a)) {
		sema_fn_whole_map(ctx, n);
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
}

/*
 * str($N + k) or str(k + $N), as bpftrace allows: the text of $N from its k-th byte. Folded to
 * the string when $N is known; in an object compiled for later, $N's slot with the offset in
 * the call's field_off (cg_fn_str). true if n had that form.
 */
static bool sema_str_param_offset(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args, *p, *k;

	if (a->kind != NODE_BINOP || a->op != '+')
		return false;
	p = a->lhs->kind == NODE_POSPARAM ? a->lhs : a->rhs;
	k = p == a->lhs ? a->rhs : a->lhs;
	if (p->kind != NODE_POSPARAM || p->is_count || k->kind != NODE_INT)
		return false;
	sema_posparam_as_str(ctx, p);
	sema_expr(ctx, p);
	p->next = a->next;
	n->args = p;
	if (p->kind == NODE_STR) {
		/* as bpftrace; reported now (not by the last walk): the node is a literal after */
		if (k->num > p->str_len) {
			diag_error(ctx->d, a->loc,
				   arena_printf(ctx->a, "$%llu is \"%s\", %zu bytes",
						(unsigned long long)p->num, p->str, p->str_len),
				   "str($%llu + %llu) starts past the end of $%llu",
				   (unsigned long long)p->num, (unsigned long long)k->num,
				   (unsigned long long)p->num);
			k->num = p->str_len;
		}
		p->str += k->num;
		p->str_len -= k->num;
		p->type = type_str((uint32_t)p->str_len + 1);
	} else {
		n->field_off = k->num < AOT_PARAM_STR_MAX ? (uint32_t)k->num : AOT_PARAM_STR_MAX;
	}
	return true;
}

/* str(p [, len]): a string read at a pointer, or a string value as it is ($N's text). */
void sema_fn_str(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	n->type = type_str(ctx->prog->opts->strlen_max); /* also after an error */
	if (a->kind == NODE_POSPARAM && a->is_count) {
		sema_error(ctx, a->loc, "$# is a number: print it with %d", "str($#) is no string");
		return;
	}
	if (!sema_str_param_offset(ctx, n))
		sema_posparam_as_str(ctx, a);
	a = n->args;
	sema_args(ctx, a);
	if (a->type.kind == TYPE_INT && sema_is_literal(a)) {
		int64_t v;

		/* str(123) of a literal is its digits, as bpftrace 0.27 folds it */
		if (sema_const_int(a, &v)) {
			a->str = a->type.is_signed
					 ? arena_printf(ctx->a, "%lld", (long long)v)
					 : arena_printf(ctx->a, "%llu", (unsigned long long)v);
			a->str_len = strlen(a->str);
			a->kind = NODE_STR;
			a->lhs = a->rhs = NULL;
			a->type = type_str((uint32_t)a->str_len + 1);
		}
	}
	if (a->type.kind == TYPE_STR) {
		/* str($1) is a string[max_strlen], as any str() in bpftrace */
		if (a->kind == NODE_STR && a->type.size < n->type.size)
			a->type.size = n->type.size;
		/* a longer one (str(comm) of max_strlen 4) is cut short, as in bpftrace 0.27 */
		if (a->type.size <= n->type.size)
			n->type = a->type;
		if (a->next)
			sema_need_int(ctx, a->next, "the length of str()");
		return;
	}
	sema_need_int(ctx, a, "str()");
	if (a->next)
		sema_need_int(ctx, a->next, "the length of str()");
	n->is_user = a->is_user || a->type.is_user;
}

/*
 * An argument that must be known when compiling, written with a positional parameter: $N, or
 * str($N) (also str($N + k)), whose text bpftrace takes as a literal. Made the literal when the
 * parameters are known.
 */
static void sema_fold_param(struct sema_ctx *ctx, struct node *a)
{
	struct node *next;

	if (!a || ctx->prog->opts->emit_elf)
		return;
	if (a->kind == NODE_POSPARAM) {
		sema_expr(ctx, a);
		return;
	}
	if (a->kind != NODE_CALL || strcmp(a->name, "str") || !a->args || a->args->next ||
	    (a->args->kind != NODE_POSPARAM && a->args->kind != NODE_BINOP))
		return;
	sema_call(ctx, a, false);
	if (a->args && a->args->kind == NODE_STR) {
		next = a->next;
		*a = *a->args;
		a->next = next;
	}
}

/*
 * A format of kind with text str and no arguments (strftime's, skboutput's path), put into the
 * metadata once: the walks share it through n->num, its index + 1. false if it could not be.
 */
static bool sema_fmt_once(struct sema_ctx *ctx, struct node *n, enum aot_fmt_kind kind,
			  const char *str)
{
	if (!n->num) {
		struct aot_fmt fmt = { .kind = kind,
				       .fmt = (char *)str,
				       .args = { .kind = AOT_K_TUPLE } };
		int idx = aot_meta_add_fmt(ctx->prog->meta, &fmt);

		if (idx < 0)
			return false;
		n->num = (uint64_t)idx + 1;
	}
	return true;
}

void sema_fn_time(struct sema_ctx *ctx, struct node *n)
{
	if (n->args)
		sema_need_literal(ctx, n, n->args, "format");
}

/* exit(code): the status aotrace exits with */
void sema_fn_exit(struct sema_ctx *ctx, struct node *n)
{
	sema_args(ctx, n->args);
	if (n->args)
		sema_need_int(ctx, n->args, "the exit code of exit()");
}

void sema_fn_strftime(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	if (!sema_need_literal(ctx, n, a, "format"))
		return;
	sema_args(ctx, a->next);
	sema_need_int(ctx, a->next, "the time of strftime()");
	if (sema_fmt_once(ctx, n, AOT_FMT_TIME, a->str))
		n->type = type_buf(AOT_K_TIMESTAMP, 8, (uint32_t)n->num - 1);
}

/*
 * buf(p, len): len bytes at a pointer; buf(s) or buf(s, len): the bytes of a string value (a
 * literal, a char array, comm), all of them or the first len, never more than it holds.
 */
void sema_fn_buf(struct sema_ctx *ctx, struct node *n)
{
	uint32_t size = ctx->prog->opts->strlen_max;
	struct node *a = n->args;
	int64_t v;

	sema_args(ctx, a);
	if (a->type.kind == TYPE_STR) {
		size = a->type.size;
	} else {
		sema_need_int(ctx, a, "buf()");
		if (!a->next) {
			sema_error(ctx, n->loc, "write buf(pointer, length)",
				   "buf() of a pointer needs a length");
			return;
		}
	}
	if (a->next) {
		sema_need_int(ctx, a->next, "the length of buf()");
		if (sema_const_int(a->next, &v) && v < 0)
			sema_error(ctx, a->next->loc, NULL, "buf(): the length %lld is negative",
				   (long long)v);
		else if (sema_const_int(a->next, &v) && (uint64_t)v < size)
			size = (uint32_t)v;
	}
	n->is_user = a->is_user;
	n->type = type_buf(AOT_K_BUF, 4 + size, 0);
}

/* cgroup_path(id): the id is resolved to a path by the runtime, in its cgroup2 hierarchy. */
void sema_fn_cgroup_path(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	sema_args(ctx, a);
	sema_need_int(ctx, a, "cgroup_path()");
	if (a->next)
		sema_unsupported(ctx, a->next, "cgroup_path()'s filter argument");
	n->type = func_defs[n->func].type;
}

void sema_fn_join(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	sema_expr(ctx, a);
	sema_need_int(ctx, a, "join()");
	if (a->next)
		sema_need_literal(ctx, n, a->next, "separator");
	n->is_user = true; /* argv arrays are in user memory */
}

void sema_fn_path(struct sema_ctx *ctx, struct node *n)
{
	struct node *size = n->args ? n->args->next : NULL;
	uint32_t len = ctx->prog->opts->strlen_max;

	sema_args(ctx, n->args);
	/* path(file->f_path), the struct path itself (bpftrace 0.27's docs): its address */
	if (n->args->type.kind == TYPE_RECORD && n->args->kind == NODE_FIELD) {
		struct node *addr = node_new(ctx->a, NODE_UNOP, n->args->loc);

		addr->op = '&';
		addr->lhs = n->args;
		addr->next = n->args->next;
		n->args->next = NULL;
		n->args = addr;
		sema_expr(ctx, addr);
	}
	sema_need_int(ctx, n->args, "path()");
	/* path(p, size): the buffer bpf_d_path fills, a literal as bpftrace 0.27 requires */
	if (size && size->kind != NODE_INT)
		sema_error(ctx, n->loc, "give the size as a number, e.g. path(args.path, 64)",
			   "path: invalid size value, need non-negative literal");
	else if (size && size->num < len)
		len = size->num ? (uint32_t)size->num : 1;
	if (!sema_tracing_prog(ctx))
		sema_error(
			ctx, n->loc, "use it in kfunc (fentry), kretfunc (fexit) or iter probes",
			"The path function can only be used with 'fentry', 'fexit', 'iter' probes");
	n->type = type_str(len);
}

void sema_fn_macaddr(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	sema_args(ctx, a);
	if (!((a->type.kind == TYPE_STR || a->type.kind == TYPE_BUF) && a->type.size == 6))
		sema_need_int(ctx, a, "macaddr()");
	n->is_user = a->is_user;
	n->type = func_defs[n->func].type;
}

void sema_fn_strncmp(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;
	int64_t v;

	sema_args(ctx, a);
	sema_need_str(ctx, a, "strncmp()");
	sema_need_str(ctx, a->next, "strncmp()");
	if (!sema_const_int(a->next->next, &v) || v < 0)
		sema_error(ctx, a->next->next->loc, NULL,
			   "strncmp(): the length must be a non-negative literal");
	n->type = func_defs[n->func].type;
}

/*
 * write_user(dst, src, len): dst a user address (pointer or integer), src a value the program
 * holds (a string, buffer or array: the helper reads BPF memory), len a literal of at most its
 * size, so that the verifier sees the read in bounds.
 */
void sema_fn_write_user(struct sema_ctx *ctx, struct node *n)
{
	struct node *dst = n->args, *src = dst->next, *len = src->next;
	int64_t v;

	sema_args(ctx, dst);
	n->type = func_defs[n->func].type;
	if (dst->type.kind != TYPE_NONE && dst->type.kind != TYPE_PTR && dst->type.kind != TYPE_INT)
		sema_error(ctx, dst->loc, NULL,
			   "write_user(): the destination is a user address, not %s",
			   type_name(ctx->a, &dst->type));
	if (src->type.kind != TYPE_NONE && src->type.kind != TYPE_STR &&
	    src->type.kind != TYPE_BUF && src->type.kind != TYPE_ARRAY &&
	    src->type.kind != TYPE_TUPLE)
		sema_error(ctx, src->loc, "write a string, buf() or array variable there",
			   "write_user(): the source must be a value the program holds, not %s",
			   type_name(ctx->a, &src->type));
	else if (!sema_const_int(len, &v) || v <= 0 || (uint64_t)v > src->type.size)
		sema_error(
			ctx, len->loc, NULL,
			"write_user(): the length must be a literal from 1 to %u (the source's size)",
			src->type.size);
	else {
		len->kind = NODE_INT;
		len->num = (uint64_t)v;
	}
}

/* str_concat(a, b): two strings; the result is 1024 bytes, bpftrace 0.27's string[1024]. */
void sema_fn_str_concat(struct sema_ctx *ctx, struct node *n)
{
	sema_args(ctx, n->args);
	sema_need_str(ctx, n->args, "str_concat()");
	sema_need_str(ctx, n->args->next, "str_concat()");
	n->type = type_str(SEMA_CONCAT_LEN);
}

/* strcontains(haystack, needle), strstr(haystack, needle): two strings. */
void sema_fn_strcontains(struct sema_ctx *ctx, struct node *n)
{
	char what[32];

	sema_args(ctx, n->args);
	snprintf(what, sizeof(what), "%s()", func_defs[n->func].name);
	sema_need_str(ctx, n->args, what);
	sema_need_str(ctx, n->args->next, what);
	n->type = func_defs[n->func].type;
}

/* kptr(p), uptr(p): the value, read from kernel or user memory when dereferenced. */
static void sema_ptr_space(struct sema_ctx *ctx, struct node *n, bool user)
{
	sema_args(ctx, n->args);
	sema_need_int(ctx, n->args, arena_printf(ctx->a, "%s()", n->name));
	n->type = n->args->type;
	n->is_user = user;
}

void sema_fn_kptr(struct sema_ctx *ctx, struct node *n)
{
	sema_ptr_space(ctx, n, false);
}

void sema_fn_uptr(struct sema_ctx *ctx, struct node *n)
{
	sema_ptr_space(ctx, n, true);
}

/*
 * A call of an imported .bpf.c's function (n->idx): as many arguments as it has parameters, an
 * integer for an integer, a pointer for a pointer (to an integer of the same size, or to void);
 * its value is the return type's, as bpftrace 0.27 types it.
 */
void sema_fn_cfunc(struct sema_ctx *ctx, struct node *n)
{
	const struct cfunc *cf = &ctx->prog->cfuncs[n->idx];
	const char *hint = arena_printf(ctx->a, "%s() is %s's", cf->name, cf->from->path);
	uint32_t nargs = (uint32_t)sema_nargs(n), i = 0;

	sema_args(ctx, n->args);
	if (nargs != cf->nparams) {
		sema_error(ctx, n->loc, hint, "%s() takes %u argument%s, not %u", cf->name,
			   cf->nparams, cf->nparams == 1 ? "" : "s", nargs);
		n->type.kind = TYPE_NONE;
		return;
	}
	for (struct node *a = n->args; a; a = a->next, i++) {
		const struct type *p = &cf->params[i];
		bool ok;

		if (a->type.kind == TYPE_NONE)
			continue;
		if (p->kind == TYPE_NONE) {
			sema_error(ctx, a->loc, "aotrace passes integers and pointers to integers",
				   "cannot pass a %s to %s()", cf->param_types[i], cf->name);
			continue;
		}
		if (p->kind == TYPE_PTR)
			ok = a->type.kind == TYPE_PTR &&
			     (!p->pointee || !a->type.pointee ||
			      a->type.pointee->size == p->pointee->size);
		else
			ok = a->type.kind == TYPE_INT || a->type.kind == TYPE_BOOL;
		if (!ok)
			sema_error(ctx, a->loc, hint, "%s() takes %s for argument %u, not %s",
				   cf->name, cf->param_types[i], i + 1,
				   type_name(ctx->a, &a->type));
	}
	if (cf->ret_void) {
		n->type.kind = TYPE_VOID;
	} else if (cf->ret.kind == TYPE_NONE) {
		sema_error(ctx, n->loc, "aotrace takes integers and pointers to integers",
			   "cannot take the value %s() returns", cf->name);
		n->type.kind = TYPE_NONE;
	} else {
		n->type = cf->ret;
	}
}

/*
 * skboutput(path, skb, len, off): a literal path (a format of kind AOT_FMT_SKBOUTPUT, one per
 * call), a struct sk_buff pointer, integers; uint32, as bpftrace 0.27 types it. Only tracing
 * programs (kfunc, kretfunc, tp_btf) may call bpf_skb_output.
 */
void sema_fn_skboutput(struct sema_ctx *ctx, struct node *n)
{
	struct node *path = n->args, *skb = path->next, *len = skb->next, *off = len->next;
	const struct type *pt;

	n->type = type_int(4, false);
	if (!sema_need_literal(ctx, n, path, "pcap file"))
		return;
	sema_args(ctx, skb);
	sema_need_int(ctx, len, "the length of skboutput()");
	sema_need_int(ctx, off, "the offset of skboutput()");
	if (skb->type.kind == TYPE_NONE)
		return;
	pt = skb->type.kind == TYPE_PTR
		     ? ctypes_pointee(ctypes_get(ctx->prog, ctx->env), &skb->type)
		     : NULL;
	if (!pt || pt->kind != TYPE_RECORD || !pt->rec || strcmp(pt->rec->name, "sk_buff")) {
		sema_error(ctx, skb->loc, "pass a struct sk_buff pointer, e.g. args.skb",
			   "skboutput() writes a struct sk_buff's data, not %s",
			   skb->type.kind == TYPE_PTR ? ctypes_name(ctx->a, &skb->type)
						      : type_name(ctx->a, &skb->type));
		return;
	}
	if (!sema_tracing_prog(ctx)) {
		sema_error(ctx, n->loc, "use it in kfunc (fentry), kretfunc or tp_btf probes",
			   "skboutput() is not available in %s probes: the kernel gives "
			   "bpf_skb_output an skb only in tracing programs",
			   sema_probetype(ctx));
		return;
	}
	ctx->prog->uses_skboutput = true;
	sema_fmt_once(ctx, n, AOT_FMT_SKBOUTPUT, path->str);
}

/*
 * container_of(ptr, typeof(T), member), bpftrace 0.27's macro (stdlib/meta.bt): the T * whose
 * member is at ptr. The call becomes (T *)((uint64)ptr - offsetof(T, member)) and is checked as
 * that is; T is a type named in typeof(), as 0.27.1 takes it.
 */
void sema_fn_container_of(struct sema_ctx *ctx, struct node *n)
{
	struct node *ptr = n->args, *t = ptr->next, *m = t->next, *diff, *addr, *off;
	const char *hint = "write container_of($ptr, typeof(struct name), member)";
	const char *path = node_member_path(ctx->a, m);

	if (t->kind != NODE_TYPE || !t->type_expr || t->type_expr->kind != NODE_TYPE ||
	    !t->type_expr->cast_type) {
		n->type.kind = TYPE_NONE;
		sema_error(ctx, t->loc, hint, "container_of() takes the type as typeof(type)");
		return;
	}
	if (!path) {
		n->type.kind = TYPE_NONE;
		sema_error(ctx, m->loc, hint, "container_of() takes a member's name");
		return;
	}
	addr = node_new(ctx->a, NODE_CAST, ptr->loc);
	addr->cast_type = "uint64";
	addr->lhs = ptr;
	off = node_new(ctx->a, NODE_CALL, m->loc);
	off->name = "offsetof";
	off->cast_type = t->type_expr->cast_type;
	off->args = node_new(ctx->a, NODE_STR, m->loc);
	off->args->str = (char *)path;
	off->args->str_len = strlen(path);
	diff = node_new(ctx->a, NODE_BINOP, n->loc);
	diff->op = '-';
	diff->lhs = addr;
	diff->rhs = off;
	n->kind = NODE_CAST;
	n->cast_type = arena_printf(ctx->a, "%s *", t->type_expr->cast_type);
	n->lhs = diff;
	n->args = NULL;
	n->func = FN_NONE;
	sema_expr(ctx, n);
}

void sema_fn_bswap(struct sema_ctx *ctx, struct node *n)
{
	struct node *a = n->args;

	sema_args(ctx, a);
	sema_need_int(ctx, a, "bswap()");
	n->type = type_int(a->type.kind == TYPE_INT ? a->type.size : 8, false);
}

void sema_call(struct sema_ctx *ctx, struct node *n, bool is_stmt)
{
	enum func id = func_find(n->name, FUNC_CALL);
	const struct func_def *f = &func_defs[id];
	int nargs = sema_nargs(n);

	n->type.kind = TYPE_VOID;
	if (!id && cimport_find(ctx->prog, n->name)) {
		n->func = FN_CFUNC;
		n->idx = (uint32_t)(cimport_find(ctx->prog, n->name) - ctx->prog->cfuncs);
		sema_fn_cfunc(ctx, n);
		return;
	}
	if (!id && !strcmp(n->name, "dw_ustack")) {
		n->type.kind = TYPE_NONE;
		sema_dw_ustack(ctx, n);
		return;
	}
	if (!id) {
		/* no type: what takes the call as a value says nothing more */
		n->type.kind = TYPE_NONE;
		sema_error(
			ctx, n->loc,
			!strcmp(n->name, "typeof")
				? "typeof() names a type: in a cast (typeof(x))y, let $v: typeof(x), sizeof(typeof(x))"
			: !strcmp(n->name, "typeinfo")
				? "typeinfo() is unstable in bpftrace 0.27 (off unless config = { unstable_typeinfo = enable }) and not in aotrace; typeof(x) names the type"
				: "see aotrace(8) for the functions",
			"unknown function '%s'", n->name);
		return;
	}
	n->func = id;
	/* sizeof(struct x), offsetof(struct x, f): the type is no argument, the check counts */
	if (!(n->cast_type && (f->flags & FUNC_TYPE_ARG)) &&
	    (nargs < f->min_args || nargs > f->max_args)) {
		int limit = nargs < f->min_args ? f->min_args : f->max_args;

		sema_error(ctx, n->loc, NULL, "%s() takes %s%d argument%s, not %d", f->name,
			   f->min_args == f->max_args ? ""
			   : nargs < f->min_args      ? "at least "
						      : "at most ",
			   limit, limit == 1 ? "" : "s", nargs);
		return;
	}
	if (!sema_func_allowed(ctx, n, f))
		return;
	if (f->check)
		f->check(ctx, n);
	else
		sema_args(ctx, n->args);
	if (!is_stmt && (f->flags & FUNC_VOID))
		sema_error(ctx, n->loc, NULL, "%s() has no value", f->name);
}
