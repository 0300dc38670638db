// SPDX-License-Identifier: GPL-2.0
/*
 * kfunc:[MODULE:]FUNC / kretfunc:[MODULE:]FUNC, also spelled fentry/fexit: BPF trampolines on
 * kernel functions. Targets are the FUNC entries of the kernel's BTF (parsed once per run, only
 * when such a probe appears) as "FUNC", and a module's as "MODULE:FUNC" (kmods.c); libbpf
 * resolves each "fentry/FUNC" section to its BTF id at load, in vmlinux or the one module that
 * has it. Targets "bpf:..." are functions of running BPF programs (bpfprog.c). `probe` names
 * them as bpftrace 0.27 does: fentry:vmlinux:FUNC, fentry:MODULE:FUNC, fexit:...
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "kmods.h"
#include "types.h"
#include "meta.h"
#include "probe_internal.h"

/* Target's BTF id, in *btf (vmlinux's or its module's), or -ENOENT. */
static int kfunc_find(struct probe_env *env, const char *target, const struct btf **btf)
{
	struct btf *vmlinux = probe_env_vmlinux_btf(env, NULL);
	struct probe_kmod *k;
	const char *func;
	char mod[64];

	*btf = vmlinux;
	if (!vmlinux)
		return -ENOENT;
	if (!probe_kmod_target(target, mod, sizeof(mod), &func))
		return btf_funcs_find(&env->funcs, vmlinux, target);
	k = probe_kmods_find(probe_env_kmods(env), mod);
	if (!k)
		return -ENOENT;
	*btf = k->btf;
	return btf_funcs_find(&k->funcs, k->btf, func);
}

/* The number of BTFs (vmlinux and the modules') with a function func; in *first, the first. */
static size_t kfunc_homes(struct probe_env *env, struct btf *vmlinux, const char *func,
			  const char **first)
{
	struct probe_kmods *m = probe_env_kmods(env);
	size_t n = 0;

	*first = NULL;
	if (btf_funcs_find(&env->funcs, vmlinux, func) > 0) {
		*first = "vmlinux";
		n++;
	}
	for (size_t i = 0; i < m->n; i++)
		if (btf_funcs_find(&m->v[i].funcs, m->v[i].btf, func) > 0 && !n++)
			*first = m->v[i].name;
	return n;
}

/*
 * Drops the functions ftrace cannot trace (init code freed after boot, notrace), which BTF
 * still lists: a trampoline on one fails the attach. Where available_filter_functions cannot
 * be read (no tracefs, or not allowed), the list stays as it is and attaching tells.
 */
static void kfunc_drop_untraceable(struct probe_env *env, char **names, size_t *n)
{
	const char *root = probe_env_tracefs(env, NULL);
	char path[160], line[512], name[256], mod[64];
	bool *ok;
	size_t kept = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/available_filter_functions",
		 root ? root : "/sys/kernel/tracing");
	f = fopen(path, "r");
	if (!f)
		return;
	ok = calloc(*n ? *n : 1, sizeof(*ok));
	if (!ok) {
		fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char **hit;

		/* "FUNC" for vmlinux, "FUNC [MODULE]" for a module's: targets FUNC, MODULE:FUNC */
		int got = sscanf(line, "%255s [%63[^]]]", name, mod);

		if (got < 1)
			continue;
		if (got == 2) {
			char key[330];

			snprintf(key, sizeof(key), "%s:%s", mod, name);
			hit = bsearch(&(const char *){ key }, names, *n, sizeof(char *),
				      probe_name_cmp);
			if (hit)
				ok[hit - names] = true;
			continue;
		}
		hit = bsearch(&(const char *){ name }, names, *n, sizeof(char *), probe_name_cmp);
		if (hit)
			ok[hit - names] = true;
	}
	fclose(f);
	for (size_t i = 0; i < *n; i++)
		if (ok[i])
			names[kept++] = names[i];
	*n = kept;
	free(ok);
}

/*
 * A parameter or return type a trampoline can carry (the kernel's btf_distill_func_proto): an
 * integer, enum or pointer, or as a parameter a struct or union of 1 to 16 bytes.
 */
static bool kfunc_slot_ok(const struct btf *btf, uint32_t type_id, bool is_return)
{
	int id = btf__resolve_type(btf, type_id);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;

	if (!type_id)
		return is_return; /* void; a parameter of type 0 is C's "..." */
	if (!t)
		return false;
	if (btf_is_int(t) || btf_is_any_enum(t) || btf_is_ptr(t))
		return true;
	return !is_return && (btf_is_struct(t) || btf_is_union(t)) && t->size && t->size <= 16;
}

/*
 * The functions the kernel's verifier refuses any tracing program on (its btf_id_deny set,
 * Linux 5.13 to 7.2): BPF trampolines call them themselves.
 */
static const char *const kfunc_denied[] = {
	"___migrate_enable", "migrate_disable",	  "migrate_enable",  "rcu_read_unlock_strict",
	"preempt_count_add", "preempt_count_sub", "__rcu_read_lock", "__rcu_read_unlock",
};

/*
 * The functions the verifier accepts and a trampoline on which takes the kernel down, each with
 * why: left out of wildcards, and refused when named.
 */
static const char *const kfunc_fatal[] = {
	/*
	 * Called by __rcu_read_unlock() when the task has a quiescent state to report, and so by
	 * the trampoline's own __bpf_prog_exit_recur(), after the recursion check: each call runs
	 * the trampoline again, until the stack overflows (7.2 guest: "BUG: TASK stack guard page
	 * was hit", a stack of rcu_read_unlock_special / __bpf_prog_exit_recur /
	 * bpf_trampoline_*; with one multi link or with a clone per function alike). It hung
	 * kfunc:rc* and kfunc:* there.
	 */
	"rcu_read_unlock_special",
};

static bool kfunc_listed(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

#define KFUNC_LISTED(name, list) kfunc_listed(name, list, sizeof(list) / sizeof(list[0]))

/*
 * Drops from a wildcard's functions those no trampoline attaches to, which the kernel refuses
 * (one of them fails a whole tracing multi link): more than the six arguments of the x86-64
 * registers (bpftrace 0.27 leaves these out of its list too), "...", a float, a struct of
 * more than 16 bytes by value, or a struct returned by value; and those the verifier refuses
 * or that take the kernel down.
 */
static void kfunc_drop_unattachable(struct probe_env *env, char **names, size_t *n)
{
	size_t kept = 0;

	for (size_t i = 0; i < *n; i++) {
		const struct btf *btf;
		int id = kfunc_find(env, names[i], &btf);
		const struct btf_type *fn = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
		const struct btf_type *proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
		const struct btf_param *params;
		const char *func;
		bool ok = proto && btf_is_func_proto(proto) && btf_vlen(proto) <= 6 &&
			  kfunc_slot_ok(btf, proto->type, true);

		params = ok ? btf_params(proto) : NULL;
		for (uint32_t j = 0; ok && j < btf_vlen(proto); j++)
			ok = kfunc_slot_ok(btf, params[j].type, false);
		probe_kmod_target(names[i], NULL, 0, &func);
		ok = ok && !KFUNC_LISTED(func, kfunc_denied) && !KFUNC_LISTED(func, kfunc_fatal);
		if (ok)
			names[kept++] = names[i];
	}
	*n = kept;
}

/*
 * A module function a generic loader (libbpf 1.4 reads "fentry/FUNC" alone) finds by its name:
 * one no other BTF has. 0, or -EINVAL with err set.
 */
static int kfunc_module_unique(struct probe_env *env, struct btf *vmlinux, const char *mod,
			       const char *func, struct probe_err *err)
{
	const char *first;

	if (kfunc_homes(env, vmlinux, func, &first) == 1)
		return 0;
	probe_err_set(err, "trace one of the same name in vmlinux: kfunc:vmlinux:FUNC",
		      "%s is in more than one kernel BTF (%s, %s): a trampoline on %s's is not "
		      "supported",
		      func, first, mod, mod);
	return -EINVAL;
}

/* Adds module k's functions that match func_pat and that no other BTF has, as "MODULE:FUNC". */
static void kfunc_module_names(struct probe_env *env, struct btf *vmlinux,
			       const struct probe_kmod *k, const char *func_pat,
			       struct probe_names *names)
{
	const char *first;

	/* the base's types are vmlinux's: a module's own come after them */
	for (uint32_t id = btf__type_cnt(vmlinux); id < btf__type_cnt(k->btf); id++) {
		const struct btf_type *t = btf__type_by_id(k->btf, id);
		const char *name = btf_is_func(t) ? btf__name_by_offset(k->btf, t->name_off) : NULL;

		if (name && *name && probe_wildcard_match(func_pat, name) &&
		    kfunc_homes(env, vmlinux, name, &first) == 1)
			probe_names_add(names, arena_printf(names->a, "%s:%s", k->name, name));
	}
}

/*
 * Patterns: FUNC (vmlinux's, else the one module's that has it), MODULE:FUNC, vmlinux:FUNC, and
 * wildcards of either part; a function pattern alone matches vmlinux and every module, as
 * bpftrace 0.27's fentry:*:FUNC.
 */
static int kfunc_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		       size_t *n, struct probe_err *err)
{
	struct btf *btf;
	struct probe_names names = { .a = a };
	const char *colon = strchr(pattern, ':'), *func_pat = colon ? colon + 1 : pattern, *first;
	char *mod_pat = colon ? arena_printf(a, "%.*s", (int)(colon - pattern), pattern) : "*";
	struct probe_kmods *mods;

	*out = NULL;
	*n = 0;
	/* fentry:bpf:[ID:]NAME, a running BPF program's function (bpfprog.c) */
	if (probe_bpf_target(pattern) || !strcmp(pattern, "bpf"))
		return probe_bpf_match(env, a, !strcmp(pattern, "bpf") ? "bpf:" : pattern, out, n,
				       err);
	btf = probe_env_vmlinux_btf(env, err);
	if (!btf)
		return -ENOENT;
	if (!probe_has_wildcard(pattern)) {
		const char *target = func_pat;

		if (colon && strcmp(mod_pat, "vmlinux")) {
			struct probe_kmod *k = probe_kmods_find(probe_env_kmods(env), mod_pat);

			if (!k || btf_funcs_find(&k->funcs, k->btf, func_pat) <= 0)
				return 0;
			if (kfunc_module_unique(env, btf, mod_pat, func_pat, err))
				return -EINVAL;
			target = pattern;
		} else if (btf_funcs_find(&env->funcs, btf, func_pat) < 0) {
			/* not vmlinux's: the one module's that has it */
			size_t homes = colon ? 0 : kfunc_homes(env, btf, func_pat, &first);

			if (!homes)
				return 0;
			if (homes > 1) {
				probe_err_set(err, "name the module: kfunc:MODULE:FUNC",
					      "%s is a function of more than one module", func_pat);
				return -EINVAL;
			}
			target = arena_printf(a, "%s:%s", first, func_pat);
		}
		/* named on its own too: the kernel accepts it, and then overflows its stack */
		if (KFUNC_LISTED(func_pat, kfunc_fatal)) {
			probe_err_set(err, "the trampoline itself calls it (see aotrace(8))",
				      "a kfunc probe on %s recurses until the kernel's stack "
				      "overflows (Linux 7.2): refused",
				      func_pat);
			return -EINVAL;
		}
		*out = arena_alloc(a, sizeof(char *));
		(*out)[0] = arena_strdup(a, target);
		*n = 1;
		return 1;
	}
	if (probe_wildcard_match(mod_pat, "vmlinux"))
		probe_btf_names(btf, 1, BTF_KIND_FUNC, "", func_pat, "", &names);
	/* the modules' BTF (every module's parsed) only where the pattern may name a module */
	mods = strcmp(mod_pat, "vmlinux") ? probe_env_kmods(env) : NULL;
	for (size_t i = 0; mods && i < mods->n; i++)
		if (probe_wildcard_match(mod_pat, mods->v[i].name))
			kfunc_module_names(env, btf, &mods->v[i], func_pat, &names);
	*n = probe_names_finish(&names, out);
	if (*n)
		kfunc_drop_untraceable(env, *out, n);
	if (*n)
		kfunc_drop_unattachable(env, *out, n);
	return (int)*n;
}

/* Collects btf_dump's output into one string. */
struct decl_buf {
	char text[256];
	size_t len;
};

static void decl_printf(void *ctx, const char *fmt, va_list ap)
{
	struct decl_buf *b = ctx;
	int n;

	if (b->len >= sizeof(b->text) - 1)
		return;
	n = vsnprintf(b->text + b->len, sizeof(b->text) - b->len, fmt, ap);
	if (n > 0)
		b->len = b->len + (size_t)n < sizeof(b->text) ? b->len + (size_t)n
							      : sizeof(b->text) - 1;
}

/*
 * A parameter as -lv lists it, as bpftrace 0.27 does: the type as btf_dump declares it without
 * a name, a space, the name ("struct file * file", "size_t count"); the name alone where the
 * type cannot be declared.
 */
static char *kfunc_decl(struct arena *a, struct btf_dump *dump, struct decl_buf *buf,
			uint32_t type_id, const char *name)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, dopts, .field_name = "");

	buf->len = 0;
	buf->text[0] = 0;
	if (!dump || btf_dump__emit_type_decl(dump, type_id, &dopts))
		return arena_strdup(a, name);
	return arena_printf(a, "%s %s", buf->text, name);
}

/* The kernel's struct or union of the name of btf's pointee type id, or 0. */
static uint32_t kfunc_kernel_pointee(const struct btf *btf, int id, const struct btf *kernel)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	int kid;

	if (!kernel || !name || !*name || !(btf_is_struct(t) || btf_is_union(t)))
		return 0;
	kid = btf__find_by_name_kind(kernel, name, btf_kind(t));
	return kid > 0 ? (uint32_t)kid : 0;
}

/*
 * A parameter or return value as a 64-bit context slot read as its own integer width; a pointer
 * typed by its pointee in kernel (kfunc_kernel_pointee where btf is not kernel).
 */
static bool kfunc_slot_type(const struct btf *btf, uint32_t type_id, const struct btf *kernel,
			    struct type *t)
{
	const struct btf_type *bt = btf__type_by_id(btf, btf__resolve_type(btf, type_id));

	if (!bt)
		return false;
	if (btf_is_ptr(bt)) {
		int pointee = btf__resolve_type(btf, bt->type);

		/* A typed pointer, so args->file->f_path works; sema resolves the pointee by id. */
		*t = (struct type){ .kind = TYPE_PTR, .size = 8 };
		if (btf == kernel)
			t->btf_id = pointee > 0 ? (uint32_t)pointee : 0;
		else
			t->btf_id = kfunc_kernel_pointee(btf, pointee, kernel);
		return true;
	}
	if (btf_is_int(bt) || btf_is_any_enum(bt)) {
		uint32_t size = bt->size;

		if (size != 1 && size != 2 && size != 4 && size != 8)
			return false;
		*t = (struct type){ .kind = TYPE_INT,
				    .size = size,
				    .is_signed = btf_is_int(bt) ? (btf_int_encoding(bt) &
								   BTF_INT_SIGNED) != 0
								: btf_kflag(bt) };
		return true;
	}
	return false;
}

/*
 * The parameters of function func_id of btf as trampoline context slots (slot i at 8 * i), and
 * with_retval the return value after them. Pointers are typed by their pointee's id in the
 * kernel's BTF: btf's own where btf is the kernel's, else the kernel's struct or union of the
 * same name (a BPF program's "struct pt_regs *"), or none.
 */
int probe_btf_proto_args(struct arena *a, const struct btf *btf, uint32_t func_id,
			 const struct btf *kernel, bool with_retval, struct probe_arg **args,
			 uint32_t *nargs)
{
	const struct btf_type *fn = btf__type_by_id(btf, func_id), *proto;
	const struct btf_param *params;
	struct btf_dump *dump;
	struct decl_buf buf;
	struct probe_arg *v;
	uint32_t n = 0, vlen;

	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return -ENOENT;
	vlen = btf_vlen(proto);
	params = btf_params(proto);
	dump = btf_dump__new(btf, decl_printf, &buf, NULL);
	v = arena_alloc(a, (vlen + 1) * sizeof(*v));
	for (uint32_t i = 0; i < vlen; i++) {
		const char *name = btf__name_by_offset(btf, params[i].name_off);

		/* A parameter passed by value in several registers has no one slot to read. */
		if (!name || !*name || !kfunc_slot_type(btf, params[i].type, kernel, &v[n].type))
			continue;
		v[n].name = arena_strdup(a, name);
		v[n].offset = 8 * i;
		v[n].decl = kfunc_decl(a, dump, &buf, params[i].type, name);
		n++;
	}
	if (with_retval && proto->type && kfunc_slot_type(btf, proto->type, kernel, &v[n].type)) {
		v[n].name = arena_strdup(a, "retval");
		v[n].decl = kfunc_decl(a, dump, &buf, proto->type, "retval");
		v[n].offset = 8 * vlen;
		v[n].type.is_signed = v[n].type.is_signed || v[n].type.size < 8;
		v[n].hidden = true;
		n++;
	}
	btf_dump__free(dump);
	*args = v;
	*nargs = n;
	return 0;
}

static int kfunc_args_common(struct probe_env *env, struct arena *a, const char *target,
			     bool with_retval, struct probe_arg **args, uint32_t *nargs,
			     struct probe_err *err)
{
	const struct btf *btf;
	struct btf *vmlinux;
	int id;

	if (probe_bpf_target(target))
		return probe_bpf_args(env, a, target, with_retval, args, nargs, err);
	vmlinux = probe_env_vmlinux_btf(env, err);
	if (!vmlinux)
		return -ENOENT;
	/* a module's pointers are typed by the kernel's struct of the same name, or not at all */
	id = kfunc_find(env, target, &btf);
	if (id < 0 ||
	    probe_btf_proto_args(a, btf, (uint32_t)id, vmlinux, with_retval, args, nargs)) {
		probe_err_set(err, NULL, "the kernel's BTF has no function %s", target);
		return -ENOENT;
	}
	return 0;
}

int probe_btf_func_args(struct probe_env *env, struct arena *a, const char *func,
			struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	return kfunc_args_common(env, a, func, false, args, nargs, err);
}

static int kfunc_args(struct probe_env *env, struct arena *a, const char *target,
		      struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	return kfunc_args_common(env, a, target, false, args, nargs, err);
}

static int kretfunc_args(struct probe_env *env, struct arena *a, const char *target,
			 struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	return kfunc_args_common(env, a, target, true, args, nargs, err);
}

/*
 * "fentry/bpf:ID:NAME" for a BPF program's function: the runtime sets its target before load; a
 * generic libbpf loader reads "bpf" as a module name, finds none and fails rather than attach to
 * a kernel function of that name.
 */
static char *kfunc_section(struct arena *a, const char *target)
{
	return probe_kmod_section(a, "fentry", target);
}

static char *kretfunc_section(struct arena *a, const char *target)
{
	return probe_kmod_section(a, "fexit", target);
}

/* As bpftrace 0.27 names them: fentry:vmlinux:FUNC, fentry:MODULE:FUNC, fentry:bpf:ID:NAME. */
static char *kfunc_name(struct arena *a, const char *type, const char *target)
{
	const char *func;

	if (probe_bpf_target(target) || probe_kmod_target(target, NULL, 0, &func))
		return arena_printf(a, "%s:%s", type, target);
	return arena_printf(a, "%s:vmlinux:%s", type, target);
}

static char *kfunc_probe_name(struct arena *a, const char *written, const char *target)
{
	(void)written;
	return kfunc_name(a, "fentry", target);
}

static char *kretfunc_probe_name(struct arena *a, const char *written, const char *target)
{
	(void)written;
	return kfunc_name(a, "fexit", target);
}

static int kfunc_attach(const struct probe_plan *plan, struct probe_links *links,
			struct probe_err *err)
{
	probe_bpf_warn_moved(plan, links);
	return probe_links_add_result(
		links, bpf_program__attach_trace(plan->prog), err,
		"a kprobe on the same function may work where trampolines do not",
		plan->probe->name);
}

int probe_kfunc_try_load(struct probe_env *env, enum bpf_attach_type type,
			 const struct bpf_insn *insns, size_t n)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);
	struct btf *btf = probe_env_vmlinux_btf(env, NULL);
	int id, fd;

	if (!btf || (id = btf__find_by_name_kind(btf, "vfs_read", BTF_KIND_FUNC)) < 0)
		return -ENOENT;
	opts.attach_btf_id = (uint32_t)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "aot_try", "GPL", insns, n, &opts);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Before load: a "bpf:" target's program is found again, and is the program's attach target. */
static int kfunc_prepare(struct probe_env *env, struct probe_plan *plan, struct probe_err *err)
{
	return probe_bpf_target(plan->probe->target) ? probe_bpf_prepare(env, plan, err) : 0;
}

bool probe_kfunc_cookies_supported(struct probe_env *env)
{
	/* r0 = bpf_get_attach_cookie(ctx); r0 = 0; exit: a kernel without them rejects the call. */
	const struct bpf_insn insns[] = {
		{ .code = 0x85, .imm = 174 }, /* call bpf_get_attach_cookie (r1 = ctx) */
		{ .code = 0xb7, .dst_reg = 0 },
		{ .code = 0x95 },
	};

	return !probe_kfunc_try_load(env, BPF_TRACE_FENTRY, insns, 3);
}

const struct probe_type probe_kfunc = {
	.name = "kfunc",
	.spellings = (const char *const[]){ "fentry", "f", NULL },
	.has_target = true,
	.newest_first = true,
	.can_alias = true,
	.builtins = PB_ARGS | PB_FUNC,
	.list_all = "*",
	.session_return = "kretfunc",
	.session_attach = PROBE_TRACE_FSESSION,
	.match = kfunc_match,
	.section = kfunc_section,
	.args = kfunc_args,
	.attach = kfunc_attach,
	.prepare = kfunc_prepare,
	.probe_name = kfunc_probe_name,
};

const struct probe_type probe_kretfunc = {
	.name = "kretfunc",
	.spellings = (const char *const[]){ "fexit", "fr", NULL },
	.has_target = true,
	.newest_first = true,
	.can_alias = true,
	.builtins = PB_ARGS | PB_RETVAL | PB_FUNC,
	.match = kfunc_match,
	.section = kretfunc_section,
	.args = kretfunc_args,
	.attach = kfunc_attach,
	.prepare = kfunc_prepare,
	.probe_name = kretfunc_probe_name,
};
