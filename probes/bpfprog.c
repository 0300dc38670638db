// SPDX-License-Identifier: GPL-2.0
/*
 * kfunc:bpf:[ID:]NAME, also spelled fentry:bpf: (bpftrace 0.27): trampolines on a function of a
 * running BPF program, its main function or a subprogram. The kfunc type hands its "bpf:" targets
 * here: the compiler matches them against the programs running now, the runtime finds the
 * program again before load (by its id, else by the function's name) and sets its attach target.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "meta.h"
#include "probe_internal.h"
#include "types.h"

bool probe_bpf_target(const char *target)
{
	return target && !strncmp(target, "bpf:", 4);
}

/*
 * Splits "bpf:NAME", "bpf:ID:NAME" or "bpf:*:NAME" as bpftrace 0.27 does: *id 0 for any program.
 * 0, or -EINVAL with err set.
 */
static int bpfprog_parse(struct arena *a, const char *target, uint32_t *id, char **name,
			 struct probe_err *err)
{
	const char *rest = target + 4, *colon = strchr(rest, ':');
	char *end;
	unsigned long v;

	*id = 0;
	if (!colon) {
		*name = arena_strdup(a, rest);
	} else {
		*name = arena_strdup(a, colon + 1);
		if (strncmp(rest, "*:", 2)) {
			v = strtoul(rest, &end, 10);
			if (end != colon || rest == colon || *rest == '-' || v == 0 ||
			    v > UINT32_MAX) {
				probe_err_set(err,
					      "fentry:bpf:ID:NAME, fentry:bpf:*:NAME or "
					      "fentry:bpf:NAME",
					      "bpf program id must be a number or '*'");
				return -EINVAL;
			}
			*id = (uint32_t)v;
		}
	}
	if (!**name) {
		probe_err_set(err, "fentry:bpf:ID:NAME, fentry:bpf:*:NAME or fentry:bpf:NAME",
			      "the 'bpf' variant of this probe requires a bpf program name and "
			      "optional bpf program id");
		return -EINVAL;
	}
	if (strchr(*name, ':')) {
		probe_err_set(err, "fentry:bpf:ID:NAME, fentry:bpf:*:NAME or fentry:bpf:NAME",
			      "too many parts in '%s'", target);
		return -EINVAL;
	}
	return 0;
}

/*
 * One running program's functions: its BTF (shared by the programs of one object, so kept from
 * the program before where it is the same) and its func_info records, main function first.
 */
struct bpfprog {
	uint32_t id;
	int fd;
	struct bpf_prog_info info;
	struct btf *btf;
	uint32_t btf_id; /* btf's id: the next program may share it */
	struct bpf_func_info *funcs;
	uint32_t nfuncs;
	const char *name; /* a program without func_info: its (truncated) name */
};

static void bpfprog_release(struct bpfprog *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	free(p->funcs);
	p->funcs = NULL;
	p->nfuncs = 0;
}

static void bpfprog_end(struct bpfprog *p)
{
	bpfprog_release(p);
	btf__free(p->btf);
	p->btf = NULL;
	p->btf_id = 0;
}

/*
 * Reads program id into p (its fd and its functions), as bpftrace 0.27 lists them: only programs
 * with BTF, which a trampoline needs. 0, or -errno (gone, no BTF: -ENOENT).
 */
static int bpfprog_read(struct bpfprog *p, uint32_t id)
{
	uint32_t len = sizeof(p->info), n;

	bpfprog_release(p);
	p->id = id;
	p->fd = bpf_prog_get_fd_by_id(id);
	if (p->fd < 0)
		return -errno;
	memset(&p->info, 0, sizeof(p->info));
	if (bpf_prog_get_info_by_fd(p->fd, &p->info, &len) || !p->info.btf_id)
		goto gone;
	p->name = p->info.name;
	if (p->btf_id != p->info.btf_id) {
		btf__free(p->btf);
		p->btf = btf__load_from_kernel_by_id(p->info.btf_id);
		p->btf_id = p->btf ? p->info.btf_id : 0;
		if (!p->btf)
			goto gone;
	}
	n = p->info.nr_func_info;
	if (!n || p->info.func_info_rec_size < sizeof(struct bpf_func_info))
		return 0;
	p->funcs = calloc(n, p->info.func_info_rec_size);
	if (!p->funcs)
		return -ENOMEM;
	struct bpf_prog_info fi = {
		.nr_func_info = n,
		.func_info_rec_size = p->info.func_info_rec_size,
		.func_info = (uintptr_t)p->funcs,
	};
	len = sizeof(fi);
	if (bpf_prog_get_info_by_fd(p->fd, &fi, &len))
		goto gone;
	/* Records of the kernel's size, read as ours (the first fields). */
	if (p->info.func_info_rec_size != sizeof(struct bpf_func_info))
		for (uint32_t i = 0; i < n; i++)
			memmove(&p->funcs[i],
				(char *)p->funcs + (size_t)i * p->info.func_info_rec_size,
				sizeof(struct bpf_func_info));
	p->nfuncs = n;
	return 0;
gone:
	bpfprog_release(p);
	return -ENOENT;
}

/* Function i of p: its name, and its id in p->btf (0 for a program without func_info). */
static const char *bpfprog_func(const struct bpfprog *p, uint32_t i, uint32_t *type_id)
{
	const struct btf_type *t;

	*type_id = 0;
	if (!p->nfuncs)
		return i ? NULL : p->name;
	if (i >= p->nfuncs)
		return NULL;
	t = btf__type_by_id(p->btf, p->funcs[i].type_id);
	if (!t || !btf_is_func(t))
		return "";
	*type_id = p->funcs[i].type_id;
	return btf__name_by_offset(p->btf, t->name_off);
}

/* p's function name: its id in p->btf, or 0 if p has none of that name. */
static uint32_t bpfprog_find_func(const struct bpfprog *p, const char *name)
{
	const char *fn;
	uint32_t type_id;

	for (uint32_t i = 0; (fn = bpfprog_func(p, i, &type_id)); i++)
		if (type_id && !strcmp(fn, name))
			return type_id;
	return 0;
}

int probe_bpf_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		    size_t *n, struct probe_err *err)
{
	struct probe_names names = { .a = a };
	struct bpfprog p = { .fd = -1 };
	uint32_t want, id = 0, type_id;
	const char *fn;
	char *name;
	int ret;

	(void)env;
	*out = NULL;
	*n = 0;
	ret = bpfprog_parse(a, pattern, &want, &name, err);
	if (ret)
		return ret;
	while (!bpf_prog_get_next_id(id, &id)) {
		if (want && id != want)
			continue;
		ret = bpfprog_read(&p, id);
		if (ret == -ENOMEM)
			break;
		for (uint32_t i = 0; !ret && (fn = bpfprog_func(&p, i, &type_id)); i++)
			if (*fn && probe_wildcard_match(name, fn))
				probe_names_add(&names, arena_printf(a, "bpf:%u:%s", id, fn));
	}
	bpfprog_end(&p);
	if (ret == -ENOMEM)
		return ret;
	/*
	 * A program named with its id that is gone while another program has the function: the
	 * runtime attaches to that one (probe_bpf_prepare), so an object compiled earlier still
	 * runs; a target of this form is what the compiler wrote into it.
	 */
	if (!names.n && want && !probe_has_wildcard(name)) {
		id = 0;
		while (!bpf_prog_get_next_id(id, &id) && !names.n)
			if (!bpfprog_read(&p, id) && bpfprog_find_func(&p, name))
				probe_names_add(&names, arena_printf(a, "bpf:%u:%s", want, name));
		bpfprog_end(&p);
	}
	if (!names.n && want)
		probe_err_set(err, "running BPF programs with BTF: aotrace -l 'fentry:bpf:*'",
			      "no running BPF program has id %u and a function '%s'", want, name);
	else if (!names.n)
		probe_err_set(err, "running BPF programs with BTF: aotrace -l 'fentry:bpf:*'",
			      "no running BPF program has a function '%s'", name);
	*n = probe_names_finish(&names, out);
	return (int)*n;
}

/*
 * Where the kernel's trampoline puts the return value of function type_id of program p. The
 * verifier may not trust a BPF function's BTF prototype (its func_info_aux "unreliable", as it
 * finds aotrace's own main functions on 7.2): the trampoline then passes five u64 arguments and
 * the return value after them, not after the prototype's arguments. Told apart by loading an
 * fexit program that reads the slot after the prototype's return value, which only the
 * five-argument model allows. -1: cannot tell here (no trampolines: the prototype's place).
 */
static int bpfprog_retval_slot(const struct bpfprog *p, uint32_t type_id, uint32_t nparams)
{
	const struct bpf_insn insns[] = {
		{ .code = 0x79, .dst_reg = 0, .src_reg = 1, .off = (int16_t)(8 * (nparams + 1)) },
		{ .code = 0xb7, .dst_reg = 0 }, /* r0 = 0 */
		{ .code = 0x95 },		/* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FEXIT,
		    .attach_prog_fd = (uint32_t)p->fd, .attach_btf_id = type_id);
	int fd;

	if (nparams >= 5)
		return (int)nparams;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "aot_try", "GPL", insns, 3, &opts);
	if (fd >= 0) {
		close(fd);
		return 5;
	}
	return errno == EACCES || errno == EINVAL ? (int)nparams : -1;
}

int probe_bpf_args(struct probe_env *env, struct arena *a, const char *target, bool with_retval,
		   struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	struct bpfprog p = { .fd = -1 };
	uint32_t id, type_id = 0;
	char *name;
	int ret = bpfprog_parse(a, target, &id, &name, err);

	if (ret)
		return ret;
	if (id && !bpfprog_read(&p, id))
		type_id = bpfprog_find_func(&p, name);
	/* The program of that id is gone: the types of another with the function. */
	for (id = 0; !type_id && !bpf_prog_get_next_id(id, &id);)
		if (!bpfprog_read(&p, id))
			type_id = bpfprog_find_func(&p, name);
	if (!type_id) {
		probe_err_set(err, NULL, "no running BPF program has a function '%s'", name);
		ret = -ENOENT;
	} else {
		/* Pointers to structs are typed as the kernel's of the same name, if any. */
		ret = probe_btf_proto_args(a, p.btf, type_id, probe_env_vmlinux_btf(env, NULL),
					   with_retval, args, nargs);
	}
	if (!ret && with_retval && *nargs && !strcmp((*args)[*nargs - 1].name, "retval")) {
		const struct btf_type *fn = btf__type_by_id(p.btf, type_id);
		int slot = bpfprog_retval_slot(&p, type_id,
					       btf_vlen(btf__type_by_id(p.btf, fn->type)));

		if (slot >= 0)
			(*args)[*nargs - 1].offset = 8 * (uint32_t)slot;
	}
	bpfprog_end(&p);
	return ret;
}

/* Whether the run has already attached a probe to program id (env->bpf_taken). */
static bool bpfprog_taken(const struct probe_env *env, uint32_t id)
{
	for (size_t i = 0; i < env->nbpf_taken; i++)
		if (env->bpf_taken[i] == id)
			return true;
	return false;
}

int probe_bpf_prepare(struct probe_env *env, struct probe_plan *plan, struct probe_err *err)
{
	struct arena *a = arena_new();
	struct bpfprog p = { .fd = -1 };
	uint32_t want, id = 0, type_id = 0;
	char *name;
	int ret;

	if (!a)
		return -ENOMEM;
	ret = bpfprog_parse(a, plan->probe->target, &want, &name, err);
	if (ret)
		goto out;
	if (want && !bpfprog_read(&p, want))
		type_id = bpfprog_find_func(&p, name);
	/*
	 * Its program is gone (an object run later, or elsewhere): the first program with the
	 * function that no other probe of this run has taken, so that the probes of two programs
	 * of one name find two programs again.
	 */
	while (!type_id && !bpf_prog_get_next_id(id, &id))
		if (!bpfprog_taken(env, id) && !bpfprog_read(&p, id))
			type_id = bpfprog_find_func(&p, name);
	if (!type_id) {
		plan->strategy = PROBE_MISSING;
		plan->why = "no running BPF program (of its id, or another) has its function";
		goto out;
	}
	if (env->nbpf_taken < sizeof(env->bpf_taken) / sizeof(env->bpf_taken[0]))
		env->bpf_taken[env->nbpf_taken++] = p.id;
	/* A tracing multi link takes kernel functions only: each program is a clone. */
	if (plan->strategy == PROBE_TRACING_MULTI)
		plan->strategy = PROBE_CLONE;
	ret = bpf_program__set_attach_target(plan->prog, p.fd, name);
	if (ret) {
		probe_err_set(err, NULL, "cannot attach to %s of BPF program %u: %s", name, p.id,
			      strerror(-ret));
		goto out;
	}
	/* Held until the plan is freed: libbpf loads with it (rt_plan_free closes it). */
	plan->attach_prog_fd = p.fd;
	plan->attach_prog_id = p.id;
	plan->attach_btf_id = type_id;
	p.fd = -1;
out:
	bpfprog_end(&p);
	arena_free(a);
	return ret;
}

void probe_bpf_warn_moved(const struct probe_plan *plan, struct probe_links *links)
{
	const char *target = plan->probe->target;
	unsigned long want;

	if (!plan->attach_prog_id || !probe_bpf_target(target))
		return;
	want = strtoul(target + 4, NULL, 10);
	if (want && want != plan->attach_prog_id)
		probe_links_warn(links,
				 "probe %s: BPF program %lu is gone; attached to program %u, "
				 "which has the same function",
				 plan->probe->name, want, plan->attach_prog_id);
}
