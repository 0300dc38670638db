// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe:BINARY:FUNC and uretprobe:BINARY:FUNC. BINARY is a path or a library name resolved like
 * bpftrace does ("libc" -> the libc.so.6 the system loader would pick); FUNC may be a wildcard,
 * matched against the binary's ELF symbol tables (read once per binary, with libelf).
 */
#include <bpf/libbpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "meta.h"
#include "probe_internal.h"

#define UPROBE_HINT "write it as uprobe:/path/to/binary:function or uprobe:libc:function"

/* Where the dynamic loader looks, in its order, for a library given by name. */
static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
};

/*
 * A name without '/' as bpftrace 0.27 finds it too: a library's file name (libc.so.6) in the
 * loader's folders, or an executable in $PATH (bash); NULL if neither.
 */
static char *uprobe_resolve_file(struct arena *a, const char *bin)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *env = getenv("PATH");
	char *dirs = arena_strdup(a, env ? env : "/usr/local/bin:/usr/bin:/bin"), *dir, *save;
	struct stat st;

	for (size_t i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", lib_dirs[i], bin);
		if (!stat(path, &st) && S_ISREG(st.st_mode) && realpath(path, real))
			return arena_strdup(a, real);
	}
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", dir, bin);
		if (!stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK) &&
		    realpath(path, real))
			return arena_strdup(a, real);
	}
	return NULL;
}

/*
 * "libc" or "c" -> "/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6" too, "bash" ->
 * "/usr/bin/bash" (from $PATH); a path is only made absolute.
 */
static char *uprobe_resolve(struct arena *a, const char *bin)
{
	char path[PATH_MAX], real[PATH_MAX], prefix[256], *file;
	size_t plen;

	if (strchr(bin, '/'))
		return realpath(bin, real) ? arena_strdup(a, real) : NULL;
	if (*bin && (file = uprobe_resolve_file(a, bin)))
		return file;
	snprintf(prefix, sizeof(prefix), "%s%s.so", strncmp(bin, "lib", 3) ? "lib" : "", bin);
	plen = strlen(prefix);
	for (size_t i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		DIR *d = opendir(lib_dirs[i]);
		struct dirent *e;
		char *found = NULL;

		if (!d)
			continue;
		/* Prefer the versioned runtime name (libc.so.6) over the linker's libc.so script.
		 */
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, prefix, plen) ||
			    (e->d_name[plen] && e->d_name[plen] != '.'))
				continue;
			if (!found ||
			    (e->d_name[plen] == '.' && strlen(e->d_name) < strlen(found)) ||
			    !strchr(found + plen, '.'))
				found = arena_strdup(a, e->d_name);
		}
		closedir(d);
		if (found) {
			snprintf(path, sizeof(path), "%s/%s", lib_dirs[i], found);
			return realpath(path, real) ? arena_strdup(a, real) : NULL;
		}
	}
	return NULL;
}

char *probe_resolve_binary(struct arena *a, const char *bin)
{
	return uprobe_resolve(a, bin);
}

/* Splits "BINARY:FUNC" at the last ':' (paths have none, but a function may have "+off"). */
static int uprobe_split(struct arena *a, const char *target, char **bin, char **func)
{
	const char *colon = strrchr(target, ':');

	if (!colon || colon == target || !colon[1])
		return -EINVAL;
	*bin = arena_strndup(a, target, (size_t)(colon - target));
	*func = arena_strdup(a, colon + 1);
	return 0;
}

/*
 * Whether `probe` names a binary as written: a path (./prog), as bpftrace does, but not a
 * library's name (libc), which it names by the path found, nor one with a wildcard.
 */
static bool uprobe_path_as_written(const char *bin)
{
	return strchr(bin, '/') && !probe_has_wildcard(bin);
}

struct uprobe_scan {
	struct arena *a;
	const char *bin, *pattern;
	struct probe_names *names;
};

/* Appends each defined function matching the pattern. */
static int uprobe_scan_sym(void *ctx, const struct probe_elf_sym *s)
{
	struct uprobe_scan *sc = ctx;

	if (s->type == STT_FUNC && s->value && probe_wildcard_match(sc->pattern, s->name))
		probe_names_add(sc->names, arena_printf(sc->a, "%s:%s", sc->bin, s->name));
	return 0;
}

/*
 * Where a uprobe's FUNC part puts it, as bpftrace reads it: a function, FUNC+OFFSET, or an
 * address in the binary (0x... or decimal), at some offset into the function it falls in.
 */
struct uprobe_loc {
	struct arena *a;
	char *func;	   /* the function named or found; NULL: the address is in none */
	uint64_t off;	   /* into func */
	uint64_t size;	   /* func's size */
	bool is_addr;	   /* an address was given */
	uint64_t addr;	   /* that address */
	uint64_t file_off; /* where the kernel puts the uprobe: an offset into the file */
	Elf *elf;
};

/* "0x1f" or "123": an address or an offset; false for anything else. */
static bool uprobe_number(const char *s, uint64_t *v)
{
	bool hex = !strncmp(s, "0x", 2) || !strncmp(s, "0X", 2);
	const char *digits = s + (hex ? 2 : 0);
	char *end;

	if (!(hex ? isxdigit : isdigit)((unsigned char)*digits))
		return false;
	errno = 0;
	*v = strtoull(digits, &end, hex ? 16 : 10);
	return !errno && !*end;
}

/* Where address addr of code section shndx (0: whichever holds it) is in the file. */
static bool uprobe_file_off(Elf *elf, size_t shndx, uint64_t addr, uint64_t *off)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = shndx ? elf_getscn(elf, shndx) : elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (sh.sh_flags & SHF_EXECINSTR) && addr >= sh.sh_addr &&
		    addr - sh.sh_addr < sh.sh_size) {
			*off = addr - sh.sh_addr + sh.sh_offset;
			return true;
		}
		if (shndx)
			break;
	}
	return false;
}

/* The function named, or the one the address falls in (its start, if it has no size). */
static int uprobe_loc_sym(void *ctx, const struct probe_elf_sym *s)
{
	struct uprobe_loc *l = ctx;

	if (s->type != STT_FUNC || !s->value)
		return 0;
	if (l->is_addr
		    ? l->addr < s->value || (l->addr - s->value >= s->size && l->addr != s->value)
		    : strcmp(s->name, l->func))
		return 0;
	if (!uprobe_file_off(l->elf, s->shndx, s->value, &l->file_off))
		return 0;
	l->func = arena_strdup(l->a, s->name);
	if (l->is_addr)
		l->off = l->addr - s->value;
	l->size = s->size;
	l->file_off += l->off;
	return 1;
}

/*
 * Finds where spec (FUNC, FUNC+OFFSET or an address) is in the binary at path. 0, or -errno with
 * err set: no such function, an offset past its end, an address in no code.
 */
static int uprobe_locate(struct arena *a, const char *path, const char *spec, struct uprobe_loc *l,
			 struct probe_err *err)
{
	const char *plus = strrchr(spec, '+');
	int fd, ret;

	memset(l, 0, sizeof(*l));
	l->a = a;
	if (uprobe_number(spec, &l->addr)) {
		l->is_addr = true;
	} else if (plus) {
		l->func = arena_strndup(a, spec, (size_t)(plus - spec));
		if (!*l->func || probe_has_wildcard(l->func) || !uprobe_number(plus + 1, &l->off)) {
			probe_err_set(err, "write it as FUNC+OFFSET, e.g. main+16 or main+0x10",
				      "malformed function and offset '%s'", spec);
			return -EINVAL;
		}
	} else {
		l->func = arena_strdup(a, spec);
	}
	ret = probe_elf_open(path, &fd, &l->elf, err);
	if (ret)
		return ret;
	if (probe_elf_syms(l->elf, uprobe_loc_sym, l)) {
		if (!l->is_addr && l->off && l->off >= l->size) {
			probe_err_set(
				err, NULL,
				"offset %llu is outside function %s, which is %llu bytes long",
				(unsigned long long)l->off, l->func, (unsigned long long)l->size);
			ret = -EINVAL;
		}
	} else if (l->is_addr) {
		/* In no function: where it is in the code, for --unsafe. */
		l->func = NULL;
		if (!uprobe_file_off(l->elf, 0, l->addr, &l->file_off)) {
			probe_err_set(err, "give an address in its code, or a function",
				      "address %s is not in the code of %s", spec, path);
			ret = -ENOENT;
		}
	} else {
		probe_err_set(
			err,
			arena_printf(a, "list its functions with: aotrace -l 'uprobe:%s:*'", path),
			"%s has no function '%s'", path, l->func);
		ret = -ENOENT;
	}
	probe_elf_close(fd, l->elf);
	l->elf = NULL;
	return ret;
}

/*
 * Whether a uprobe may go where l says, by bpftrace's rules: a uretprobe only on a function's
 * start; a uprobe at a function's start, or elsewhere in the code only with --unsafe (unsafe):
 * nothing here can check that an offset is the start of an instruction, and a breakpoint
 * inside one corrupts the traced process (bpftrace 0.27 disassembles to check; Debian's 0.17
 * refuses every offset, --unsafe or not). 0; 1 where it goes unchecked, with err saying so for
 * a warning; -EINVAL with err set where it may not go.
 */
static int uprobe_loc_check(const char *spec, const struct uprobe_loc *l, bool retprobe,
			    bool unsafe, struct probe_err *err)
{
	const char *hint = "compile with --unsafe to attach it unchecked, at the risk of "
			   "corrupting the traced process";

	if (retprobe && (!l->func || l->off)) {
		probe_err_set(err, "give the function's name or its first address",
			      "a uretprobe cannot go inside a function, as %s does", spec);
		return -EINVAL;
	}
	if (!l->func) {
		probe_err_set(
			err, unsafe ? NULL : hint,
			"address %s is in no function, so it is not checked to be the start of "
			"an instruction%s",
			spec, unsafe ? " (--unsafe)" : "");
		return unsafe ? 1 : -EINVAL;
	}
	if (l->off) {
		char at[300] = "";

		if (l->is_addr)
			snprintf(at, sizeof(at), " (%s+%llu)", l->func, (unsigned long long)l->off);
		probe_err_set(err, unsafe ? NULL : hint,
			      "%s%s is not checked to be the start of an instruction%s", spec, at,
			      unsafe ? " (--unsafe)" : "");
		return unsafe ? 1 : -EINVAL;
	}
	return 0;
}

/* FUNC+OFFSET or an address, not a function's name or a pattern. */
static bool uprobe_is_loc(const char *func)
{
	uint64_t v;

	return !probe_has_wildcard(func) && (strchr(func, '+') || uprobe_number(func, &v));
}

/* The '@' of BINARY@FILE:LINE[:COL], which comes before the first ':'; NULL if none. */
static const char *uprobe_src_at(const char *pattern)
{
	const char *at = strchr(pattern, '@'), *colon = strchr(pattern, ':');

	return at && (!colon || at < colon) ? at : NULL;
}

/* A decimal number of a source location, 1 or more. */
static bool uprobe_src_num(const char *s, size_t len, unsigned long *v)
{
	char buf[24], *end;

	if (!len || len >= sizeof(buf) || !isdigit((unsigned char)*s))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	*v = strtoul(buf, &end, 10);
	return !errno && !*end && *v;
}

/*
 * uprobe:BINARY@FILE:LINE[:COL]: one target, "PATH:ADDRESS" (decimal, which bpftrace's probe
 * name shows), the address of the line's first code in the binary's DWARF line table. The
 * address starts an instruction, so the probe may go inside a function without --unsafe
 * (AOT_PROBE_STMT). As in bpftrace, no wildcard and no uretprobe.
 */
static int uprobe_match_src(struct probe_env *env, struct arena *a, const char *pattern,
			    const char *at, bool retprobe, char ***out, size_t *n,
			    struct probe_err *err)
{
	const char *hint = "write it as uprobe:BINARY@FILE:LINE or uprobe:BINARY@FILE:LINE:COLUMN";
	const char *loc = at + 1, *c1 = strchr(loc, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char *bin = arena_strndup(a, pattern, (size_t)(at - pattern)), *file, *path;
	unsigned long line, col = 0;
	uint64_t addr;
	int ret;

	if (retprobe) {
		probe_err_set(err, "put a uprobe at the function's return instruction instead",
			      "a uretprobe cannot go at a source line");
		return -EINVAL;
	}
	if (probe_has_wildcard(bin) || probe_has_wildcard(loc)) {
		probe_err_set(err, hint, "a probe at a source line takes no wildcards");
		return -EINVAL;
	}
	if (!c1 || c1 == loc ||
	    !uprobe_src_num(c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1), &line) ||
	    (c2 && !uprobe_src_num(c2 + 1, strlen(c2 + 1), &col))) {
		probe_err_set(err, hint, "malformed source location '%s'", loc);
		return -EINVAL;
	}
	file = arena_strndup(a, loc, (size_t)(c1 - loc));
	path = uprobe_resolve(a, bin);
	if (!path) {
		probe_err_set(err, "give the full path of the binary or library",
			      "cannot find the binary or library '%s'", bin);
		return -ENOENT;
	}
	if (!env->srcline) {
		probe_err_set(err, "compile it with aotrace, which reads DWARF",
			      "source lines cannot be read here");
		return -EOPNOTSUPP;
	}
	ret = env->srcline(a, path, file, line, col, &addr, err);
	if (ret)
		return ret;
	*out = arena_alloc(a, sizeof(char *));
	(*out)[0] = arena_printf(a, "%s:%llu", path, (unsigned long long)addr);
	*n = 1;
	err->flags |= AOT_PROBE_STMT;
	return 1;
}

static int uprobe_match_common(struct probe_env *env, struct arena *a, const char *pattern,
			       bool retprobe, char ***out, size_t *n, struct probe_err *err)
{
	char *bin, *func, *path;
	struct probe_names names = { .a = a };
	struct uprobe_scan sc = { .a = a, .names = &names };
	const char *at = uprobe_src_at(pattern);
	Elf *elf;
	int fd, ret;

	*out = NULL;
	*n = 0;
	if (at)
		return uprobe_match_src(env, a, pattern, at, retprobe, out, n, err);
	if (uprobe_split(a, pattern, &bin, &func)) {
		probe_err_set(err, UPROBE_HINT, "a uprobe needs a binary and a function");
		return -EINVAL;
	}
	path = uprobe_resolve(a, bin);
	if (!path) {
		probe_err_set(err, "give the full path of the binary or library",
			      "cannot find the binary or library '%s'", bin);
		return -ENOENT;
	}
	/*
	 * An offset or address: where it is here. What --unsafe allows is decided where it
	 * attaches (probe flag AOT_PROBE_UNSAFE), on the host whose binary it goes into.
	 */
	if (uprobe_is_loc(func)) {
		struct uprobe_loc l;

		ret = uprobe_locate(a, path, func, &l, err);
		if (!ret && uprobe_loc_check(func, &l, retprobe, true, err) < 0)
			ret = -EINVAL;
		if (ret)
			return ret;
		*out = arena_alloc(a, sizeof(char *));
		(*out)[0] = arena_printf(a, "%s:%s", path, func);
		*n = 1;
		return 1;
	}
	ret = probe_elf_open(path, &fd, &elf, err);
	if (ret)
		return ret;
	sc.bin = path;
	sc.pattern = func;
	probe_elf_syms(elf, uprobe_scan_sym, &sc);
	probe_elf_close(fd, elf);
	/* .symtab and .dynsym list many functions twice, and aliases share names: one each. */
	*n = probe_names_finish(&names, out);
	if (!*n) {
		probe_err_set(
			err,
			arena_printf(a, "list its functions with: aotrace -l 'uprobe:%s:*'", path),
			"%s has no function matching '%s'", path, func);
		/* The library of another host may have it (libpthread of an older libc). */
		if (!probe_has_wildcard(func))
			err->missing = arena_printf(a, "%s:%s", path, func);
	}
	return (int)*n;
}

static int uprobe_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			size_t *n, struct probe_err *err)
{
	return uprobe_match_common(env, a, pattern, false, out, n, err);
}

static int uretprobe_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
			   size_t *n, struct probe_err *err)
{
	return uprobe_match_common(env, a, pattern, true, out, n, err);
}

static char *uprobe_section(struct arena *a, const char *target)
{
	return arena_printf(a, "uprobe/%s", target);
}

static char *uretprobe_section(struct arena *a, const char *target)
{
	return arena_printf(a, "uretprobe/%s", target);
}

static int uprobe_args(struct probe_env *env, struct arena *a, const char *target,
		       struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	(void)env, (void)target, (void)err;
	return probe_regs_args(a, false, true, args, nargs);
}

static int uretprobe_args(struct probe_env *env, struct arena *a, const char *target,
			  struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	(void)env, (void)target, (void)err;
	return probe_regs_args(a, true, true, args, nargs);
}

/* uaddr("name"): a variable of the binary the target probes. */
static int uprobe_variable(struct arena *a, const char *target, const char *name, uint64_t *addr,
			   uint64_t *size, struct probe_err *err)
{
	char *bin, *func;

	if (uprobe_split(a, target, &bin, &func)) {
		probe_err_set(err, UPROBE_HINT, "malformed uprobe target '%s'", target);
		return -EINVAL;
	}
	return probe_elf_variable(a, bin, name, addr, size, err);
}

static int uprobe_attach_common(const struct probe_plan *plan, bool retprobe,
				struct probe_links *links, struct probe_err *err)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = retprobe);
	const struct aot_probe *p = plan->probe;
	const char *colon = strrchr(p->target, ':');
	char bin[PATH_MAX];
	size_t offset = 0;
	int ret;

	if (!colon || (size_t)(colon - p->target) >= sizeof(bin)) {
		probe_err_set(err, NULL, "malformed uprobe target '%s'", p->target);
		return -EINVAL;
	}
	snprintf(bin, sizeof(bin), "%.*s", (int)(colon - p->target), p->target);
	/* An offset or address is checked again here, in this host's binary. */
	if (uprobe_is_loc(colon + 1)) {
		struct arena *a = arena_new();
		struct uprobe_loc l;
		ret = a ? uprobe_locate(a, bin, colon + 1, &l, err) : -ENOMEM;
		if (!ret && !((plan->flags & AOT_PROBE_STMT) && l.func && !retprobe))
			ret = uprobe_loc_check(colon + 1, &l, retprobe,
					       plan->flags & AOT_PROBE_UNSAFE, err);
		arena_free(a);
		if (ret < 0)
			return ret;
		if (ret)
			probe_links_warn(links, "probe %s: %s", p->name, err->msg);
		offset = l.file_off;
	} else {
		opts.func_name = colon + 1;
	}
	ret = probe_links_add_result(links,
				     bpf_program__attach_uprobe_opts(plan->prog,
								     links->pid ? links->pid : -1,
								     bin, offset, &opts),
				     err, NULL, p->name);
	/* The binary is here and lacks the function: a missing target (--missing-probes). */
	if (ret == -ENOENT && opts.func_name && !access(bin, R_OK)) {
		probe_err_set(err, NULL, "%s has no function %s", bin, opts.func_name);
		err->missing = p->target;
	}
	return ret;
}

struct uprobe_func {
	const char *name;
	unsigned long offset;
};

struct uprobe_multi_ctx {
	struct bpf_program *prog;
	const char *path;
	bool retprobe;
	struct uprobe_func *funcs; /* sorted by name */
	size_t nfuncs;
	int pid;	  /* -1: every process */
	uint32_t session; /* a session link's attach type, or 0 */
};

static int func_cmp(const void *x, const void *y)
{
	return strcmp(((const struct uprobe_func *)x)->name, ((const struct uprobe_func *)y)->name);
}

struct uprobe_offsets {
	Elf *elf;
	struct uprobe_func *funcs; /* sorted by name */
	size_t n;
};

static int uprobe_offset_sym(void *ctx, const struct probe_elf_sym *s)
{
	struct uprobe_offsets *o = ctx;
	struct uprobe_func key = { .name = s->name }, *hit;
	GElf_Shdr tsh;

	if (s->type != STT_FUNC || !s->value)
		return 0;
	hit = bsearch(&key, o->funcs, o->n, sizeof(*o->funcs), func_cmp);
	if (hit && !hit->offset && gelf_getshdr(elf_getscn(o->elf, s->shndx), &tsh))
		hit->offset = s->value - tsh.sh_addr + tsh.sh_offset;
	return 0;
}

/*
 * File offsets of the named functions, from .symtab or .dynsym (libbpf 1.4 resolves symbol
 * lists from .symtab only, which stripped libraries such as libc do not have).
 */
static int uprobe_func_offsets(struct arena *a, const char *path, char **names, size_t n,
			       struct uprobe_func **out, struct probe_err *err)
{
	struct uprobe_offsets o = { .funcs = arena_alloc(a, (n ? n : 1) * sizeof(*o.funcs)),
				    .n = n };
	int fd, ret;

	for (size_t i = 0; i < n; i++)
		o.funcs[i].name = names[i];
	qsort(o.funcs, n, sizeof(*o.funcs), func_cmp);
	ret = probe_elf_open(path, &fd, &o.elf, err);
	if (ret)
		return ret;
	probe_elf_syms(o.elf, uprobe_offset_sym, &o);
	probe_elf_close(fd, o.elf);
	*out = o.funcs;
	return 0;
}

static unsigned long uprobe_func_offset(const struct uprobe_multi_ctx *ctx, const char *name)
{
	struct uprobe_func key = { .name = name }, *hit;

	hit = bsearch(&key, ctx->funcs, ctx->nfuncs, sizeof(key), func_cmp);
	return hit ? hit->offset : 0;
}

static int uprobe_multi_one(void *c, const char *name, uint64_t cookie, struct probe_links *links,
			    struct probe_err *err)
{
	struct uprobe_multi_ctx *ctx = c;
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = ctx->retprobe, .bpf_cookie = cookie);

	return probe_links_add_result(
		links,
		bpf_program__attach_uprobe_opts(ctx->prog, ctx->pid, ctx->path,
						uprobe_func_offset(ctx, name), &opts),
		err, NULL, name);
}

static int uprobe_multi_many(void *c, const char **names, const uint64_t *cookies, size_t n,
			     struct probe_multi_link *link)
{
	struct uprobe_multi_ctx *ctx = c;
	unsigned long *offsets = calloc(n ? n : 1, sizeof(*offsets));
	LIBBPF_OPTS(bpf_uprobe_multi_opts, opts, .offsets = offsets, .cnt = n,
		    .cookies = (const __u64 *)cookies, .retprobe = ctx->retprobe);
	int ret;

	if (!offsets)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		offsets[i] = uprobe_func_offset(ctx, names[i]);
	if (ctx->session) {
		link->fd = probe_session_uprobe_link(bpf_program__fd(ctx->prog), ctx->session,
						     ctx->path, offsets, cookies, n, ctx->pid);
		ret = link->fd < 0 ? link->fd : 0;
	} else {
		link->link = bpf_program__attach_uprobe_multi(ctx->prog, ctx->pid, ctx->path, NULL,
							      &opts);
		ret = libbpf_get_error(link->link);
		if (ret)
			link->link = NULL;
	}
	free(offsets);
	return ret;
}

static const struct probe_multi_ops uprobe_multi_ops = {
	.attach_multi = uprobe_multi_many,
	.attach_one = uprobe_multi_one,
};

/*
 * A multi program: every function of the binary the pattern matches, read on this host now (a
 * run's plan lists no user binary's functions).
 */
static int uprobe_attach_multi(const struct probe_plan *plan, bool retprobe,
			       struct probe_links *links, struct probe_err *err)
{
	const struct aot_probe *p = plan->probe;
	struct uprobe_multi_ctx ctx = {
		.prog = plan->prog,
		.retprobe = retprobe,
		.pid = links->pid ? links->pid : -1,
		.session = plan->strategy == PROBE_SESSION ? plan->type->session_attach : 0,
	};
	struct arena *a = arena_new();
	char **targets = NULL, *prefix, *bin, *func, *wbin, *wfunc;
	size_t n = 0;
	int ret;

	if (!a)
		return -ENOMEM;
	ret = uprobe_match(NULL, a, p->target, &targets, &n, err);
	if (ret < 0)
		goto out;
	if (!n) {
		probe_err_set(err, NULL, "no function matches %s on this host", p->name);
		ret = -ENOENT;
		goto out;
	}
	/* Every target is "PATH:FUNC" with the same resolved PATH. */
	uprobe_split(a, targets[0], &bin, &func);
	ctx.path = bin;
	prefix = arena_printf(a, "%s:", bin);
	for (size_t i = 0; i < n; i++)
		targets[i] += strlen(prefix);
	ctx.nfuncs = n;
	ret = uprobe_func_offsets(a, bin, targets, n, &ctx.funcs, err);
	if (ret)
		goto out;
	/* `probe` names the binary as written, as uprobe_name() does */
	if (!uprobe_split(a, p->target, &wbin, &wfunc) && uprobe_path_as_written(wbin))
		prefix = arena_printf(a, "%s:", wbin);
	ret = probe_multi_attach(plan, &uprobe_multi_ops, &ctx, targets, prefix, n, links, err);
out:
	arena_free(a);
	return ret;
}

static int uprobe_attach(const struct probe_plan *plan, struct probe_links *links,
			 struct probe_err *err)
{
	if (probe_plan_multi(plan))
		return uprobe_attach_multi(plan, false, links, err);
	return uprobe_attach_common(plan, false, links, err);
}

static int uretprobe_attach(const struct probe_plan *plan, struct probe_links *links,
			    struct probe_err *err)
{
	if (probe_plan_multi(plan))
		return uprobe_attach_multi(plan, true, links, err);
	return uprobe_attach_common(plan, true, links, err);
}

static int uprobe_prepare(struct probe_env *env, struct probe_plan *plan, struct probe_err *err)
{
	(void)env;
	return probe_multi_prepare(plan, probe_uprobe_multi_supported, err);
}

/* libbpf's "uprobe.multi/PATH:PATTERN" wants the binary's path, not a library name. */
static char *uprobe_multi_sec(struct arena *a, const char *kind, const char *pattern)
{
	char *bin, *func, *path;

	if (uprobe_split(a, pattern, &bin, &func))
		return arena_printf(a, "%s/%s", kind, pattern);
	path = uprobe_resolve(a, bin);
	return arena_printf(a, "%s/%s:%s", kind, path ? path : bin, func);
}

static char *uprobe_multi_section(struct arena *a, const char *pattern)
{
	return uprobe_multi_sec(a, "uprobe.multi", pattern);
}

static char *uretprobe_multi_section(struct arena *a, const char *pattern)
{
	return uprobe_multi_sec(a, "uretprobe.multi", pattern);
}

/*
 * As bpftrace prints it: the binary as the attach point wrote it (uprobe:./prog:f; see
 * uprobe_path_as_written), with the function each target found.
 */
static char *uprobe_name(struct arena *a, const char *type, const char *written, const char *target)
{
	char *wbin, *wfunc, *bin, *func;

	if (uprobe_split(a, target, &bin, &func))
		return arena_printf(a, "%s:%s", type, target);
	if (uprobe_src_at(written))
		wbin = arena_strndup(a, written, (size_t)(uprobe_src_at(written) - written));
	else if (uprobe_split(a, written, &wbin, &wfunc))
		wbin = NULL;
	if (wbin && uprobe_path_as_written(wbin))
		bin = wbin;
	/* FUNC+0 is FUNC, as bpftrace 0.27 names it */
	if (strlen(func) > 2 && !strcmp(func + strlen(func) - 2, "+0"))
		func[strlen(func) - 2] = 0;
	return arena_printf(a, "%s:%s:%s", type, bin, func);
}

static char *uprobe_probe_name(struct arena *a, const char *written, const char *target)
{
	return uprobe_name(a, "uprobe", written, target);
}

static char *uretprobe_probe_name(struct arena *a, const char *written, const char *target)
{
	return uprobe_name(a, "uretprobe", written, target);
}

const struct probe_type probe_uprobe = {
	.name = "uprobe",
	.ctx_type = "struct pt_regs",
	.spellings = (const char *const[]){ "u", NULL },
	.has_target = true,
	.newest_first = true,
	.builtins = PB_ARGN | PB_FUNC | PB_USER | PB_REGS,
	.match = uprobe_match,
	.section = uprobe_section,
	.multi_section = uprobe_multi_section,
	.session_return = "uretprobe",
	.session_attach = PROBE_UPROBE_SESSION,
	.args = uprobe_args,
	.variable = uprobe_variable,
	.attach = uprobe_attach,
	.prepare = uprobe_prepare,
	.probe_name = uprobe_probe_name,
};

const struct probe_type probe_uretprobe = {
	.name = "uretprobe",
	.ctx_type = "struct pt_regs",
	.spellings = (const char *const[]){ "ur", NULL },
	.has_target = true,
	.newest_first = true,
	.builtins = PB_RETVAL | PB_FUNC | PB_USER | PB_REGS,
	.match = uretprobe_match,
	.section = uretprobe_section,
	.multi_section = uretprobe_multi_section,
	.args = uretprobe_args,
	.variable = uprobe_variable,
	.attach = uretprobe_attach,
	.prepare = uprobe_prepare,
	.probe_name = uretprobe_probe_name,
};
