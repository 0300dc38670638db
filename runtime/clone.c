// SPDX-License-Identifier: GPL-2.0
/*
 * Alias groups (AOT_PROBE_ALIAS): several ELF symbols share one program's code, and libbpf
 * relocates only one of them. Before load, the one libbpf relocates becomes the template (the
 * others are not loaded); after load, its final instructions are loaded again per other
 * target with that target's BTF id, and each clone is attached with its own attach cookie.
 * The plan (plan.c) has found each alias's program, and sends its attach here (PROBE_CLONE).
 * A group that reads no argument, on a kernel with tracing multi links (PROBE_TRACING_MULTI), is
 * instead one more copy, loaded as fentry/fexit multi, and one link to all its functions; where
 * the kernel refuses that copy or that link, the group goes back to clones.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf_funcs.h"
#include "kmods.h"
#include "rt.h"
#include "tracing_multi.h"

#define CLONE_LOG_SIZE (1 << 20)

/* One alias probe: its group's template program, and the clone made for it (if not it). */
struct rt_clone {
	uint32_t probe;		  /* index in meta->probes and rt->plan */
	struct bpf_program *prog; /* its own libbpf program (not loaded unless the template) */
	struct bpf_program *tmpl; /* the group's relocated program */
	uint64_t key;		  /* (section index << 32) | symbol value: its group */
	int fd, link;		  /* the clone (-1 for the template itself) and its link */
	/* the template's entry of a PROBE_TRACING_MULTI group: its multi program and link */
	int mfd, mlink;
};

struct rt_clones {
	struct rt_clone *v; /* in the order of their probes */
	size_t n;
	struct btf *vmlinux;
	struct btf_funcs funcs;	  /* vmlinux's functions by name */
	struct probe_kmods kmods; /* the modules' BTF, read for the first module target */
};

struct clone_syms {
	const Elf64_Sym *syms;
	const char *strs;
	size_t strsz;
};

/* Symbol j's name, or NULL if it does not end inside the string table. */
static const char *clone_sym_name(const struct clone_syms *t, uint32_t j)
{
	size_t at = t->syms[j].st_name;

	return at < t->strsz && memchr(t->strs + at, '\0', t->strsz - at) ? t->strs + at : NULL;
}

static int clone_sym_cmp(const void *x, const void *y, void *t)
{
	return strcmp(clone_sym_name(t, *(const uint32_t *)x),
		      clone_sym_name(t, *(const uint32_t *)y));
}

/* The (section, offset) of each alias probe's symbol: symbols at the same place are a group. */
static int clone_symbols(struct rt *rt, const void *elf, size_t size, struct rt_clones *c)
{
	const uint8_t *img = elf;
	const Elf64_Ehdr *eh = elf;
	const Elf64_Shdr *sh;
	const Elf64_Sym *syms = NULL;
	const char *strs = NULL;
	size_t nsyms = 0, strsz = 0;

	/* rt_load has validated the section headers (rt_elf_section) before we get here. */
	if (size < sizeof(*eh) || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return -EINVAL;
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (size_t i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
		    sh[sh[i].sh_link].sh_offset > size ||
		    sh[sh[i].sh_link].sh_size > size - sh[sh[i].sh_link].sh_offset)
			return -EINVAL;
		syms = (const Elf64_Sym *)(img + sh[i].sh_offset);
		nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
		strs = (const char *)img + sh[sh[i].sh_link].sh_offset;
		strsz = sh[sh[i].sh_link].sh_size;
	}
	if (!syms)
		return -EINVAL;
	/* The symbols by name, then each probe's found by bisection (kfunc:* has 50 000). */
	struct clone_syms t = { .syms = syms, .strs = strs, .strsz = strsz };
	uint32_t *order = malloc((nsyms ? nsyms : 1) * sizeof(*order));
	size_t n = 0;

	if (!order)
		return -ENOMEM;
	for (size_t j = 0; j < nsyms; j++)
		if (clone_sym_name(&t, (uint32_t)j))
			order[n++] = (uint32_t)j;
	qsort_r(order, n, sizeof(*order), clone_sym_cmp, &t);
	for (size_t k = 0; k < c->n; k++) {
		const char *name = rt->meta->probes[c->v[k].probe].prog;
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int cmp = strcmp(clone_sym_name(&t, order[mid]), name);

			if (!cmp) {
				const Elf64_Sym *sym = &syms[order[mid]];

				c->v[k].key =
					((uint64_t)sym->st_shndx << 32) | (uint32_t)sym->st_value;
				break;
			}
			if (cmp < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	free(order);
	return 0;
}

/*
 * The template of a group of BPF programs' functions whose own program is gone (PROBE_MISSING):
 * it loads for the first member's program that is here. 0, or -ENOENT reported where none is.
 */
static int clone_bpf_template(struct rt *rt, const struct rt_clone *cl)
{
	const struct rt_clones *c = rt->clones;
	const struct probe_plan *pp = &rt->plan.v[cl->probe];

	for (size_t j = 0; !pp->attach_prog_fd && j < c->n; j++)
		if (c->v[j].key == cl->key && rt->plan.v[c->v[j].probe].attach_prog_fd)
			pp = &rt->plan.v[c->v[j].probe];
	if (pp->attach_prog_fd) {
		const char *func = strrchr(pp->probe->target, ':') + 1;
		int err = bpf_program__set_attach_target(cl->prog, pp->attach_prog_fd, func);

		if (err)
			rt_report(&rt->out, RT_ERROR, "probe %s: %s", pp->probe->name,
				  strerror(-err));
		return err;
	}
	/* Nothing of its group is here: none of it loads (each was reported missing). */
	for (size_t j = 0; j < c->n; j++)
		if (c->v[j].key == cl->key)
			bpf_program__set_autoload(c->v[j].prog, false);
	return 0;
}

/*
 * Every alias is in its group, even one missing here (skipped, not loaded): the group's template
 * is the program libbpf relocates, whichever that is.
 */
int rt_clone_prepare(struct rt *rt, const void *elf, size_t size)
{
	const struct rt_plan *pl = &rt->plan;
	struct rt_clones *c;
	struct bpf_program *prog;
	const char *func;
	size_t n = 0;
	int err;

	for (uint32_t i = 0; i < pl->n; i++)
		n += !!(pl->v[i].probe->flags & AOT_PROBE_ALIAS);
	if (!n)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->v = calloc(n, sizeof(*c->v)))) {
		free(c);
		return -ENOMEM;
	}
	rt->clones = c;
	for (uint32_t i = 0; i < pl->n; i++)
		if (pl->v[i].probe->flags & AOT_PROBE_ALIAS)
			c->v[c->n++] = (struct rt_clone){
				.probe = i,
				.prog = pl->v[i].prog,
				.fd = -1,
				.link = -1,
				.mfd = -1,
				.mlink = -1,
			};
	err = clone_symbols(rt, elf, size, c);
	if (err) {
		rt_report(&rt->out, RT_ERROR, "%s: cannot read the symbol table",
			  rt->opts->obj_name);
		return err;
	}
	/*
	 * libbpf gives a relocation to the last program at its offset in its own order (the one
	 * bpf_object__for_each_program meets last), so that one is the group's template.
	 */
	bpf_object__for_each_program(prog, rt->obj)
	{
		size_t k;

		for (k = 0; k < c->n && c->v[k].prog != prog; k++)
			;
		if (k == c->n)
			continue;
		for (size_t j = 0; j < c->n; j++)
			if (c->v[j].key == c->v[k].key)
				c->v[j].tmpl = prog;
	}
	for (size_t k = 0; k < c->n; k++) {
		struct rt_clone *cl = &c->v[k];

		if (cl->prog != cl->tmpl) {
			bpf_program__set_autoload(cl->prog, false);
			continue;
		}
		/*
		 * A BPF program's function (kfunc:bpf:): prepare has set its target; where its
		 * program is gone, the template loads for another member's (not attached).
		 */
		if (probe_bpf_target(rt->meta->probes[cl->probe].target)) {
			err = clone_bpf_template(rt, cl);
			if (err)
				return err;
			continue;
		}
		/*
		 * Its section names the group's first target; it serves its own, which libbpf
		 * finds by its function's name (a module's is that module's only: kfunc.c).
		 */
		probe_kmod_target(rt->meta->probes[cl->probe].target, NULL, 0, &func);
		err = bpf_program__set_attach_target(cl->prog, 0, func);
		if (err) {
			rt_report(&rt->out, RT_ERROR, "probe %s: %s",
				  rt->meta->probes[cl->probe].name, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* The template's BTF, func and line info as the kernel holds them, for the clones' loads. */
struct clone_info {
	struct bpf_prog_info info;
	void *func_info, *line_info;
	int btf_fd;
};

static void clone_info_get(int fd, struct clone_info *ci)
{
	struct bpf_prog_info *in = &ci->info;
	uint32_t len = sizeof(*in);
	uint32_t nf, nl, fsz, lsz;

	memset(ci, 0, sizeof(*ci));
	ci->btf_fd = -1;
	if (bpf_prog_get_info_by_fd(fd, in, &len))
		return;
	nf = in->nr_func_info;
	nl = in->nr_line_info;
	fsz = in->func_info_rec_size;
	lsz = in->line_info_rec_size;
	if (!in->btf_id || !nf)
		return;
	ci->func_info = calloc(nf, fsz);
	ci->line_info = calloc(nl ? nl : 1, lsz ? lsz : 1);
	if (!ci->func_info || !ci->line_info)
		goto fail;
	memset(in, 0, sizeof(*in));
	in->nr_func_info = nf;
	in->func_info_rec_size = fsz;
	in->func_info = (uintptr_t)ci->func_info;
	in->nr_line_info = nl;
	in->line_info_rec_size = lsz;
	in->line_info = (uintptr_t)ci->line_info;
	len = sizeof(*in);
	if (bpf_prog_get_info_by_fd(fd, in, &len))
		goto fail;
	ci->btf_fd = bpf_btf_get_fd_by_id(in->btf_id);
	if (ci->btf_fd >= 0)
		return;
fail:
	free(ci->func_info);
	free(ci->line_info);
	ci->func_info = ci->line_info = NULL;
	in->nr_func_info = in->nr_line_info = 0;
}

/*
 * Loads the template's instructions again as attach type type, for BTF function id (0 for a
 * multi program, whose link names them): *fd, or -errno reported (as a warning if quiet_fail,
 * for a multi program the group can do without).
 */
static int clone_load_copy(struct rt *rt, const struct rt_clone *cl, const struct clone_info *ci,
			   int type, uint32_t id, int obj_fd, bool quiet_fail, int *fd)
{
	const struct aot_probe *p = &rt->meta->probes[cl->probe];
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type, .attach_btf_id = id);

	/* A module's function: id is in that module's BTF. */
	if (obj_fd > 0)
		opts.attach_btf_obj_fd = (uint32_t)obj_fd;

	/* A BPF program's function: id is in that program's BTF (kfunc:bpf:, prepare). */
	if (rt->plan.v[cl->probe].attach_prog_fd > 0 && id)
		opts.attach_prog_fd = (uint32_t)rt->plan.v[cl->probe].attach_prog_fd;

	/*
	 * The kernel hands back func and line info at offsets into its rewritten program, not
	 * into these instructions, so line info stays out. Func info is needed only where the
	 * program has callbacks (for loops), whose offsets the rewrites rarely move.
	 */
	if (ci->btf_fd >= 0 && ci->info.nr_func_info > 1) {
		opts.prog_btf_fd = ci->btf_fd;
		opts.func_info = ci->func_info;
		opts.func_info_cnt = ci->info.nr_func_info;
		opts.func_info_rec_size = ci->info.func_info_rec_size;
	}
	*fd = bpf_prog_load(bpf_program__type(cl->tmpl), p->prog, "GPL",
			    bpf_program__insns(cl->tmpl), bpf_program__insn_cnt(cl->tmpl), &opts);
	if (*fd < 0) {
		int err = -errno;
		char *log = calloc(1, CLONE_LOG_SIZE);
		const char *tail;

		rt_report(&rt->out, quiet_fail ? RT_WARN : RT_ERROR,
			  "probe %s: cannot load its %s of %s: %s", p->name,
			  quiet_fail ? "tracing multi program" : "copy",
			  bpf_program__name(cl->tmpl), strerror(-err));
		/* Again with a log, for the kernel's reason (the end of the log holds it). */
		if (log) {
			opts.log_buf = log;
			opts.log_size = CLONE_LOG_SIZE;
			opts.log_level = 1;
			bpf_prog_load(bpf_program__type(cl->tmpl), p->prog, "GPL",
				      bpf_program__insns(cl->tmpl), bpf_program__insn_cnt(cl->tmpl),
				      &opts);
			tail = log + strlen(log);
			for (int lines = 0; tail > log && lines < 4; tail--)
				lines += tail[-1] == '\n';
			if (*tail)
				rt_report(&rt->out, RT_TEXT, "%s", tail);
			free(log);
		}
		*fd = -1;
		return err;
	}
	return 0;
}

/* A kernel module's function, "MODULE:FUNC": its id in the module's BTF, and that BTF's fd. */
static int clone_module_func(struct rt_clones *c, const char *target, int *obj_fd)
{
	struct probe_kmod *k;
	const char *func;
	char mod[64];

	*obj_fd = 0;
	if (!probe_kmod_target(target, mod, sizeof(mod), &func))
		return btf_funcs_find(&c->funcs, c->vmlinux, target);
	if (probe_kmods_read(&c->kmods, c->vmlinux) || !(k = probe_kmods_find(&c->kmods, mod)))
		return -ENOENT;
	*obj_fd = probe_kmod_fd(k);
	return *obj_fd < 0 ? *obj_fd : btf_funcs_find(&k->funcs, k->btf, func);
}

static int clone_load_one(struct rt *rt, struct rt_clone *cl, const struct clone_info *ci)
{
	const struct aot_probe *p = &rt->meta->probes[cl->probe];
	const struct probe_plan *pp = &rt->plan.v[cl->probe];
	int id = (int)pp->attach_btf_id, obj_fd = 0;

	/* a kernel function, or a BPF program's, whose id prepare found (kfunc:bpf:) */
	if (pp->attach_prog_fd <= 0)
		id = clone_module_func(rt->clones, p->target, &obj_fd);

	if (id <= 0) {
		rt_report(&rt->out, RT_ERROR, "probe %s: the kernel's BTF has no function %s",
			  p->name, p->target);
		return -ENOENT;
	}
	return clone_load_copy(rt, cl, ci, bpf_program__expected_attach_type(cl->tmpl),
			       (uint32_t)id, obj_fd, false, &cl->fd);
}

static bool clone_is_multi(const struct rt *rt, const struct rt_clone *cl)
{
	return rt->plan.v[cl->probe].strategy == PROBE_TRACING_MULTI;
}

/* Every PROBE_TRACING_MULTI member of template t's group goes back to clones. */
static void clone_unmulti(struct rt *rt, const struct bpf_program *t)
{
	for (size_t k = 0; k < rt->clones->n; k++)
		if (rt->clones->v[k].tmpl == t && clone_is_multi(rt, &rt->clones->v[k]))
			rt->plan.v[rt->clones->v[k].probe].strategy = PROBE_CLONE;
}

/* The entry of template t itself: where its group's multi program and link are kept. */
static struct rt_clone *clone_group(struct rt_clones *c, const struct bpf_program *t)
{
	for (size_t k = 0; k < c->n; k++)
		if (c->v[k].prog == t)
			return &c->v[k];
	return NULL;
}

/*
 * One multi program per group of PROBE_TRACING_MULTI members; a group whose copy the kernel
 * refuses is loaded as clones instead (the warning says why).
 */
static void clone_load_multi(struct rt *rt)
{
	struct rt_clones *c = rt->clones;
	struct clone_info ci;

	for (size_t k = 0; k < c->n; k++) {
		struct rt_clone *cl = &c->v[k], *g;
		int type;

		if (!clone_is_multi(rt, cl) || !(g = clone_group(c, cl->tmpl)) || g->mfd >= 0)
			continue;
		type = probe_tracing_multi_type(bpf_program__expected_attach_type(cl->tmpl));
		clone_info_get(bpf_program__fd(cl->tmpl), &ci);
		if (clone_load_copy(rt, g, &ci, type, 0, 0, true, &g->mfd))
			clone_unmulti(rt, cl->tmpl);
		if (ci.btf_fd >= 0)
			close(ci.btf_fd);
		free(ci.func_info);
		free(ci.line_info);
	}
}

int rt_clone_load(struct rt *rt)
{
	struct rt_clones *c = rt->clones;
	struct bpf_program *last = NULL;
	struct clone_info ci = { .btf_fd = -1 };
	struct rt_progress progress;
	int err = 0;

	if (!c)
		return 0;
	c->vmlinux = btf__load_vmlinux_btf();
	if (!c->vmlinux) {
		err = -errno;
		rt_report(&rt->out, RT_ERROR, "cannot read the kernel's BTF: %s", strerror(-err));
		return err;
	}
	clone_load_multi(rt);
	rt_progress_start(&progress, &rt->out, "loading", "probe copies");
	for (size_t k = 0; k < c->n && !err && !atomic_load(&rt->interrupted); k++) {
		struct rt_clone *cl = &c->v[k];

		if (cl->prog == cl->tmpl || clone_is_multi(rt, cl))
			continue;
		rt_progress(&progress, (uint32_t)k, (uint32_t)c->n);
		if (cl->tmpl != last) {
			if (ci.btf_fd >= 0)
				close(ci.btf_fd);
			free(ci.func_info);
			free(ci.line_info);
			clone_info_get(bpf_program__fd(cl->tmpl), &ci);
			last = cl->tmpl;
		}
		err = clone_load_one(rt, cl, &ci);
	}
	if (ci.btf_fd >= 0)
		close(ci.btf_fd);
	free(ci.func_info);
	free(ci.line_info);
	return err;
}

static int clone_cmp(const void *key, const void *elem)
{
	uint32_t probe = *(const uint32_t *)key, other = ((const struct rt_clone *)elem)->probe;

	return probe < other ? -1 : probe > other;
}

/* A cookie unique in the run for probe p, with p's name in the names map at it (if any). */
static int clone_cookie(struct rt *rt, const struct aot_probe *p, uint64_t *cookie,
			struct probe_err *perr)
{
	char name[AOT_PROBE_NAME_MAX] = { 0 };

	*cookie = rt->links.next_cookie++;
	if (!rt->links.names_map)
		return 0;
	snprintf(name, sizeof(name), "%s", p->name ? p->name : p->prog);
	if (bpf_map__update_elem(rt->links.names_map, cookie, sizeof(*cookie), name, sizeof(name),
				 0)) {
		snprintf(perr->msg, sizeof(perr->msg), "cannot record the name of %s: %s", name,
			 strerror(errno));
		return -errno;
	}
	return 0;
}

/* The functions of one tracing multi link of a group, and each one's probe. */
struct clone_multi {
	struct rt *rt;
	struct rt_clone *g;
	int type;
	uint32_t *ids, *probes;
	uint64_t *cookies;
	uint32_t linked, refused; /* functions attached, and left out, so far */
	uint32_t tries;		  /* links asked for: each costs the kernel a pass over its ids */
};

/* The most links one group's splitting asks for before it gives up on a multi link. */
#define CLONE_MULTI_TRIES 64

/*
 * Links functions [from, from + n) of m. The kernel refuses a whole link for one function it
 * will not trampoline (a deny list of its own, types it cannot pass): with EINVAL the halves
 * are linked apart, down to the functions refused alone, which are left out with a warning. A
 * few bad functions cost a few links more, not one link per function. 0, or -errno of another
 * refusal (-E2BIG after CLONE_MULTI_TRIES links asked for).
 */
static int clone_multi_link(struct clone_multi *m, uint32_t from, uint32_t n)
{
	struct rt *rt = m->rt;
	int fd, ret;

	if (m->tries++ == CLONE_MULTI_TRIES)
		return -E2BIG;
	fd = probe_tracing_multi_link(m->g->mfd, m->type, m->ids + from, m->cookies + from, n);

	if (fd >= 0) {
		m->linked += n;
		if (m->g->mlink < 0) {
			m->g->mlink = fd;
			return 0;
		}
		return probe_links_add_fd(&rt->links, fd);
	}
	if (fd != -EINVAL)
		return fd;
	if (n == 1) {
		const struct aot_probe *p = &rt->meta->probes[m->probes[from]];

		if (m->refused++ < 8)
			rt_report(&rt->out, RT_WARN,
				  "probe %s: the kernel refuses a trampoline on %s (%s); it is "
				  "left out",
				  p->name, p->target, strerror(EINVAL));
		rt->plan.v[m->probes[from]].strategy = PROBE_MISSING;
		return 0;
	}
	ret = clone_multi_link(m, from, n / 2);
	return ret ? ret : clone_multi_link(m, from + n / 2, n - n / 2);
}

/*
 * The one link of cl's group: every PROBE_TRACING_MULTI member's function, each with its
 * cookie (more links where the kernel refuses some functions: clone_multi_link). 0 once linked
 * (or when the group already is); -EAGAIN when the kernel refuses the link, with the group
 * turned back to clones and the reason warned about.
 */
static int clone_attach_multi(struct rt *rt, const struct rt_clone *cl, struct probe_err *perr)
{
	struct rt_clones *c = rt->clones;
	struct rt_clone *g = clone_group(c, cl->tmpl);
	uint32_t *ids, *probes, n = 0;
	uint64_t *cookies;
	struct clone_multi m;
	size_t nfds = rt->links.nfds; /* the links before this group's */
	int ret = 0;

	/*
	 * Linked with the group's first member: nothing to do for the others, and nothing to
	 * allocate (three arrays of every clone for each of kfunc:*'s 43958 functions were most
	 * of its attach time under emulation).
	 */
	if (g && g->mlink >= 0)
		return 0;
	ids = calloc(c->n, sizeof(*ids));
	probes = calloc(c->n, sizeof(*probes));
	cookies = calloc(c->n, sizeof(*cookies));
	m = (struct clone_multi){
		.rt = rt,
		.g = g,
		.type = probe_tracing_multi_type(bpf_program__expected_attach_type(cl->tmpl)),
		.ids = ids,
		.probes = probes,
		.cookies = cookies,
	};
	if (!ids || !probes || !cookies || !g) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < c->n && !ret; k++) {
		const struct aot_probe *p = &rt->meta->probes[c->v[k].probe];
		int id;

		if (c->v[k].tmpl != cl->tmpl || !clone_is_multi(rt, &c->v[k]))
			continue;
		id = btf_funcs_find(&c->funcs, c->vmlinux, p->target);
		if (id < 0) {
			rt->plan.v[c->v[k].probe].strategy = PROBE_MISSING;
			continue;
		}
		ids[n] = (uint32_t)id;
		probes[n] = c->v[k].probe;
		ret = clone_cookie(rt, p, &cookies[n++], perr);
	}
	if (ret)
		goto out;
	ret = n ? clone_multi_link(&m, 0, n) : 0;
	if (m.refused > 8)
		rt_report(&rt->out, RT_WARN, "%u functions more the kernel refuses are left out",
			  m.refused - 8);
	/* Refused whole, or function by function: the kernel will not do it at all. */
	if (ret || (n && !m.linked)) {
		rt_report(&rt->out, RT_WARN,
			  "probe %s: the kernel refuses a tracing multi link to its %u functions "
			  "(%s); attaching one copy per function",
			  rt->meta->probes[cl->probe].name, n,
			  m.tries > CLONE_MULTI_TRIES ? "too many of them one by one"
						      : strerror(ret ? -ret : EINVAL));
		if (g->mlink >= 0)
			close(g->mlink);
		g->mlink = -1;
		while (rt->links.nfds > nfds)
			close(rt->links.fds[--rt->links.nfds]);
		for (uint32_t i = 0; i < n; i++)
			if (rt->plan.v[probes[i]].strategy == PROBE_MISSING)
				rt->plan.v[probes[i]].strategy = PROBE_TRACING_MULTI;
		clone_unmulti(rt, cl->tmpl);
		ret = -EAGAIN;
	}
out:
	free(ids);
	free(probes);
	free(cookies);
	return ret;
}

int rt_clone_attach(struct rt *rt, uint32_t probe, struct probe_err *perr)
{
	struct rt_clones *c = rt->clones;
	struct rt_clone *cl = c ? bsearch(&probe, c->v, c->n, sizeof(*c->v), clone_cmp) : NULL;
	const struct aot_probe *p = &rt->meta->probes[probe];
	LIBBPF_OPTS(bpf_link_create_opts, lopts);
	uint64_t cookie;
	int fd, err;

	if (!cl) {
		snprintf(perr->msg, sizeof(perr->msg), "%s is in no alias group", p->prog);
		return -EINVAL;
	}
	if (clone_is_multi(rt, cl)) {
		err = clone_attach_multi(rt, cl, perr);
		if (err != -EAGAIN)
			return err;
	}
	/* A group back from a refused multi link has its clones loaded as they are needed. */
	if (cl->fd < 0 && cl->prog != cl->tmpl) {
		struct clone_info ci;

		clone_info_get(bpf_program__fd(cl->tmpl), &ci);
		err = clone_load_one(rt, cl, &ci);
		if (ci.btf_fd >= 0)
			close(ci.btf_fd);
		free(ci.func_info);
		free(ci.line_info);
		if (err) {
			snprintf(perr->msg, sizeof(perr->msg), "cannot load its copy: %s",
				 strerror(-err));
			return err;
		}
	}
	fd = cl->fd >= 0 ? cl->fd : bpf_program__fd(cl->tmpl);
	probe_bpf_warn_moved(&rt->plan.v[probe], &rt->links);
	err = clone_cookie(rt, p, &cookie, perr);
	if (err)
		return err;
	if (rt->links.names_map)
		lopts.tracing.cookie = cookie;
	cl->link = bpf_link_create(fd, 0, bpf_program__expected_attach_type(cl->tmpl), &lopts);
	if (cl->link < 0) {
		err = -errno;
		cl->link = -1;
		snprintf(perr->msg, sizeof(perr->msg), "cannot attach %s: %s", p->name,
			 strerror(-err));
		snprintf(perr->hint, sizeof(perr->hint),
			 "--expand=full compiles one program per function%s",
			 rt->links.names_map ? " (this kernel may lack fentry attach cookies)"
					     : "");
		return err;
	}
	return 0;
}

const struct bpf_program *rt_clone_template(const struct rt *rt, uint32_t probe)
{
	for (size_t k = 0; rt->clones && k < rt->clones->n; k++)
		if (rt->clones->v[k].probe == probe)
			return rt->clones->v[k].tmpl;
	return NULL;
}

size_t rt_clone_count(const struct rt *rt)
{
	size_t n = 0;

	for (size_t k = 0; rt->clones && k < rt->clones->n; k++)
		n += (rt->clones->v[k].link >= 0) + (rt->clones->v[k].mlink >= 0);
	return n;
}

void rt_clone_close(struct rt *rt)
{
	struct rt_clones *c = rt->clones;

	if (!c)
		return;
	for (size_t k = 0; k < c->n; k++) {
		if (c->v[k].link >= 0)
			close(c->v[k].link);
		if (c->v[k].fd >= 0)
			close(c->v[k].fd);
		if (c->v[k].mlink >= 0)
			close(c->v[k].mlink);
		if (c->v[k].mfd >= 0)
			close(c->v[k].mfd);
	}
	btf_funcs_free(&c->funcs);
	probe_kmods_free(&c->kmods);
	btf__free(c->vmlinux);
	free(c->v);
	free(c);
	rt->clones = NULL;
}
