// SPDX-License-Identifier: GPL-2.0
/*
 * usdt:BINARY:[PROVIDER:]NAME: statically defined user probes, found in the binary's
 * .note.stapsdt notes (read with libelf). Each location of a probe is one target and one
 * uprobe at the note's address, its semaphore counted up by the kernel (ref_ctr_offset); its
 * arguments ("-4@%edi", "8@-8(%rbp)", "-4@$5") become arg0..argN read by codegen/cg_usdt.c.
 */
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "types.h"
#include "meta.h"
#include "probe_internal.h"

#define USDT_HINT                                                                                  \
	"write it as usdt:/path/to/binary:provider:name (list them: aotrace -l 'usdt:/path/to/binary:*')"
#define NT_STAPSDT 3

/* One location of a probe, from its note. */
struct usdt_note {
	const char *provider, *name, *args;
	uint64_t pc;	    /* the probe's address in the file's address space */
	uint64_t off;	    /* its file offset: where the uprobe goes */
	uint64_t sem_off;   /* the semaphore's file offset; 0: none */
	uint32_t loc, nloc; /* location loc of nloc locations of provider:name */
};

struct usdt_file {
	char *path;
	struct usdt_note *v;
	size_t n;
	Elf *elf; /* open until usdt_close, for symbols of pc-relative arguments */
	int fd;
};

/* A virtual address to its file offset, through the section that holds it; 0 if none does. */
static uint64_t usdt_file_offset(Elf *elf, uint64_t addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		if (addr >= sh.sh_addr && addr < sh.sh_addr + sh.sh_size)
			return addr - sh.sh_addr + sh.sh_offset;
	}
	return 0;
}

static Elf_Scn *usdt_find_section(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

static int note_cmp(const void *x, const void *y)
{
	const struct usdt_note *a = x, *b = y;
	int c = strcmp(a->provider, b->provider);

	if (!c)
		c = strcmp(a->name, b->name);
	return c ? c : a->pc < b->pc ? -1 : a->pc > b->pc;
}

/* Reads every stapsdt note of the ELF file into f->v, sorted by provider, name and address. */
static int usdt_read_notes(struct arena *a, Elf *elf, struct usdt_file *f)
{
	Elf_Scn *scn = usdt_find_section(elf, ".note.stapsdt"), *base_scn;
	uint64_t base_addr = 0;
	size_t cap = 0, off = 0, name_off, desc_off;
	Elf_Data *data;
	GElf_Nhdr nh;
	GElf_Shdr sh;

	if (!scn || !(data = elf_getdata(scn, NULL)))
		return 0;
	/* prelink may move the code: .stapsdt.base says where the notes' addresses were made. */
	base_scn = usdt_find_section(elf, ".stapsdt.base");
	if (base_scn && gelf_getshdr(base_scn, &sh))
		base_addr = sh.sh_addr;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)data->d_buf + name_off;
		const char *desc = (const char *)data->d_buf + desc_off, *end = desc + nh.n_descsz;
		struct usdt_note *n;
		uint64_t w[3];

		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 || memcmp(name, "stapsdt", 8) ||
		    nh.n_descsz < sizeof(w) + 3)
			continue;
		memcpy(w, desc, sizeof(w));
		if (f->n == cap) {
			struct usdt_note *v = arena_alloc(a, (cap ? cap * 2 : 32) * sizeof(*v));

			if (f->n)
				memcpy(v, f->v, f->n * sizeof(*v));
			f->v = v;
			cap = cap ? cap * 2 : 32;
		}
		n = &f->v[f->n];
		memset(n, 0, sizeof(*n));
		n->pc = w[0];
		if (base_scn && w[1])
			n->pc += base_addr - w[1];
		n->off = usdt_file_offset(elf, n->pc);
		n->sem_off = w[2] ? usdt_file_offset(elf, w[2]) : 0;
		desc += sizeof(w);
		n->provider = arena_strndup(a, desc, strnlen(desc, (size_t)(end - desc)));
		desc += strlen(n->provider) + 1;
		n->name = desc < end ? arena_strndup(a, desc, strnlen(desc, (size_t)(end - desc)))
				     : "";
		desc += strlen(n->name) + 1;
		n->args = desc < end ? arena_strndup(a, desc, strnlen(desc, (size_t)(end - desc)))
				     : "";
		f->n++;
	}
	if (f->n)
		qsort(f->v, f->n, sizeof(*f->v), note_cmp);
	for (size_t i = 0, first = 0; i < f->n; i++) {
		if (strcmp(f->v[i].provider, f->v[first].provider) ||
		    strcmp(f->v[i].name, f->v[first].name))
			first = i;
		f->v[i].loc = (uint32_t)(i - first);
	}
	for (size_t i = f->n; i-- > 0;)
		f->v[i].nloc = i + 1 < f->n && f->v[i + 1].loc ? f->v[i + 1].nloc : f->v[i].loc + 1;
	return 0;
}

/* Opens path's ELF; the caller ends it with usdt_close. */
static int usdt_open(struct arena *a, const char *bin, struct usdt_file *f, struct probe_err *err)
{
	int ret;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = probe_resolve_binary(a, bin);
	if (!f->path) {
		probe_err_set(err, "give the full path of the binary or library",
			      "cannot find the binary or library '%s'", bin);
		return -ENOENT;
	}
	ret = probe_elf_open(f->path, &f->fd, &f->elf, err);
	if (ret)
		return ret;
	return usdt_read_notes(a, f->elf, f);
}

static void usdt_close(struct usdt_file *f)
{
	probe_elf_close(f->fd, f->elf);
	f->elf = NULL;
	f->fd = -1;
}

/* "BINARY:PROVIDER:NAME" or "BINARY:NAME" (any provider); a trailing ":LOC" picks a location. */
static int usdt_split(struct arena *a, const char *target, bool with_loc, char **bin, char **prov,
		      char **name, long *loc)
{
	char *s = arena_strdup(a, target), *parts[4];
	int n = 0;

	*loc = -1;
	for (char *c = strrchr(s, ':'); c && n < 3; c = strrchr(s, ':')) {
		*c = 0;
		parts[n++] = c + 1;
	}
	if (n == 0 || !*s)
		return -EINVAL;
	*bin = s;
	if (with_loc && n == 3 && isdigit((unsigned char)parts[0][0])) {
		*loc = strtol(parts[0], NULL, 10);
		*name = parts[1];
		*prov = parts[2];
		return 0;
	}
	if (n == 3) { /* the binary had a ':' after all */
		parts[2][-1] = ':';
		n = 2;
	}
	*name = parts[0];
	*prov = n == 2 ? parts[1] : "*";
	return 0;
}

/* A note's target: "PATH:PROVIDER:NAME", with ":LOC" where the probe has several locations. */
static char *usdt_target(struct arena *a, const char *path, const struct usdt_note *n)
{
	if (n->nloc > 1)
		return arena_printf(a, "%s:%s:%s:%u", path, n->provider, n->name, n->loc);
	return arena_printf(a, "%s:%s:%s", path, n->provider, n->name);
}

static int usdt_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		      size_t *n, struct probe_err *err)
{
	struct usdt_file f;
	char *bin, *prov, *name;
	long loc;
	int ret;

	(void)env;
	*out = NULL;
	*n = 0;
	if (usdt_split(a, pattern, false, &bin, &prov, &name, &loc)) {
		probe_err_set(err, USDT_HINT, "a usdt probe needs a binary and a probe name");
		return -EINVAL;
	}
	ret = usdt_open(a, bin, &f, err);
	if (ret < 0)
		return ret;
	usdt_close(&f);
	*out = arena_alloc(a, (f.n ? f.n : 1) * sizeof(char *));
	for (size_t i = 0; i < f.n; i++)
		if (probe_wildcard_match(prov, f.v[i].provider) &&
		    probe_wildcard_match(name, f.v[i].name))
			(*out)[(*n)++] = usdt_target(a, f.path, &f.v[i]);
	return (int)*n;
}

/* The note of one target, or NULL with err set. */
static const struct usdt_note *usdt_find(struct arena *a, const char *target, struct usdt_file *f,
					 struct probe_err *err)
{
	char *bin, *prov, *name;
	long loc;

	if (usdt_split(a, target, true, &bin, &prov, &name, &loc)) {
		probe_err_set(err, USDT_HINT, "malformed usdt target '%s'", target);
		return NULL;
	}
	if (usdt_open(a, bin, f, err) < 0)
		return NULL;
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].provider, prov) && !strcmp(f->v[i].name, name) &&
		    f->v[i].loc == (loc < 0 ? 0 : (uint32_t)loc))
			return &f->v[i]; /* the file stays open: the caller closes it */
	usdt_close(f);
	probe_err_set(err, USDT_HINT, "%s has no USDT probe %s:%s", f->path, prov, name);
	return NULL;
}

/* x86-64 registers by every name of their parts, at their offsets in struct pt_regs. */
static const struct usdt_reg {
	const char *names[4];
	uint32_t offset;
} usdt_regs[] = {
	{ { "rax", "eax", "ax", "al" }, 80 },	   { { "rbx", "ebx", "bx", "bl" }, 40 },
	{ { "rcx", "ecx", "cx", "cl" }, 88 },	   { { "rdx", "edx", "dx", "dl" }, 96 },
	{ { "rsi", "esi", "si", "sil" }, 104 },	   { { "rdi", "edi", "di", "dil" }, 112 },
	{ { "rbp", "ebp", "bp", "bpl" }, 32 },	   { { "rsp", "esp", "sp", "spl" }, 152 },
	{ { "r8", "r8d", "r8w", "r8b" }, 72 },	   { { "r9", "r9d", "r9w", "r9b" }, 64 },
	{ { "r10", "r10d", "r10w", "r10b" }, 56 }, { { "r11", "r11d", "r11w", "r11b" }, 48 },
	{ { "r12", "r12d", "r12w", "r12b" }, 24 }, { { "r13", "r13d", "r13w", "r13b" }, 16 },
	{ { "r14", "r14d", "r14w", "r14b" }, 8 },  { { "r15", "r15d", "r15w", "r15b" }, 0 },
	{ { "rip", NULL, NULL, NULL }, 128 },
};

#define USDT_RIP_OFFSET 128

/* "%edi" (len bytes) -> its pt_regs offset; -1 if unknown. */
static int usdt_reg_offset(const char *s, size_t len)
{
	if (len < 2 || s[0] != '%')
		return -1;
	for (size_t i = 0; i < sizeof(usdt_regs) / sizeof(usdt_regs[0]); i++)
		for (int j = 0; j < 4 && usdt_regs[i].names[j]; j++)
			if (strlen(usdt_regs[i].names[j]) == len - 1 &&
			    !strncmp(usdt_regs[i].names[j], s + 1, len - 1))
				return (int)usdt_regs[i].offset;
	return -1;
}

struct usdt_sym {
	const char *name;
	size_t len;
	uint64_t addr;
};

static int usdt_sym_match(void *ctx, const struct probe_elf_sym *s)
{
	struct usdt_sym *u = ctx;

	if (strlen(s->name) != u->len || strncmp(s->name, u->name, u->len))
		return 0;
	u->addr = s->value;
	return 1;
}

/* The address of a symbol (len bytes of name) in the file's address space; 0 if it has none. */
static uint64_t usdt_symbol(Elf *elf, const char *name, size_t len)
{
	struct usdt_sym u = { .name = name, .len = len };

	probe_elf_syms(elf, usdt_sym_match, &u);
	return u.addr;
}

/*
 * One argument spec of the x86-64 assembler forms sys/sdt.h emits: "[-]N@OPERAND" with
 * OPERAND one of $imm, %reg, disp(%reg), sym[+disp](%rip). Index forms are left unsupported.
 */
static void usdt_parse_arg(Elf *elf, const struct usdt_note *note, const char *spec, size_t len,
			   struct probe_arg *arg)
{
	const char *at = memchr(spec, '@', len), *op = spec, *end = spec + len, *paren;
	char *num_end;
	long size = 8;

	arg->loc = PROBE_ARG_UNSUPPORTED;
	if (at) {
		size = strtol(spec, &num_end, 10);
		if (num_end != at || !size || labs(size) > 8 || (labs(size) & (labs(size) - 1)))
			return;
		op = at + 1;
	}
	arg->loc_size = (int8_t)size;
	if (*op == '$') {
		arg->loc_value = strtoll(op + 1, &num_end, 0);
		if (num_end == end && num_end > op + 1)
			arg->loc = PROBE_ARG_CONST;
		return;
	}
	if (*op == '%') {
		int r = usdt_reg_offset(op, (size_t)(end - op));

		if (r >= 0) {
			arg->offset = (uint32_t)r;
			arg->loc = PROBE_ARG_REG;
		}
		return;
	}
	paren = memchr(op, '(', (size_t)(end - op));
	if (!paren || end[-1] != ')' || memchr(paren, ',', (size_t)(end - paren)))
		return;
	{
		int r = usdt_reg_offset(paren + 1, (size_t)(end - 1 - paren - 1));
		const char *plus;
		uint64_t sym;

		if (r < 0)
			return;
		arg->offset = (uint32_t)r;
		if (op == paren || isdigit((unsigned char)*op) || *op == '-' || *op == '+') {
			arg->loc_value = op == paren ? 0 : strtoll(op, &num_end, 0);
			if (op == paren || num_end == paren)
				arg->loc = r == USDT_RIP_OFFSET ? PROBE_ARG_UNSUPPORTED
								: PROBE_ARG_MEM;
			return;
		}
		/* sym[+-disp](%rip): a global, wherever the binary is loaded */
		if (r != USDT_RIP_OFFSET)
			return;
		for (plus = op; plus < paren && *plus != '+' && *plus != '-'; plus++)
			;
		sym = usdt_symbol(elf, op, (size_t)(plus - op));
		if (!sym)
			return;
		arg->loc_value = (int64_t)sym + (plus < paren ? strtoll(plus, NULL, 0) : 0);
		arg->loc_pc = note->pc;
		arg->loc = PROBE_ARG_PCREL;
	}
}

static const char *usdt_type_name(int size)
{
	switch (size) {
	case 1:
		return "u8";
	case -1:
		return "s8";
	case 2:
		return "u16";
	case -2:
		return "s16";
	case 4:
		return "u32";
	case -4:
		return "s32";
	case -8:
		return "s64";
	default:
		return "u64";
	}
}

/* arg0..argN of one location, from its note's argument specs. */
static int usdt_args(struct probe_env *env, struct arena *a, const char *target,
		     struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	struct usdt_file f;
	const struct usdt_note *note = usdt_find(a, target, &f, err);
	struct probe_arg *v;
	uint32_t n = 0, cap = 0;
	const char *s;

	(void)env;
	if (!note)
		return -ENOENT;
	for (s = note->args; *s;) {
		size_t len;

		s += strspn(s, " \t");
		len = strcspn(s, " \t");
		if (len)
			cap++;
		s += len;
	}
	v = arena_alloc(a, (cap ? cap : 1) * sizeof(*v));
	for (s = note->args; *s && n < cap;) {
		struct probe_arg *arg = &v[n];
		size_t len;

		s += strspn(s, " \t");
		len = strcspn(s, " \t");
		if (!len)
			break;
		memset(arg, 0, sizeof(*arg));
		usdt_parse_arg(f.elf, note, s, len, arg);
		arg->name = arena_printf(a, "arg%u", n);
		arg->decl = arena_printf(a, "%s %s (%.*s)%s", usdt_type_name(arg->loc_size),
					 arg->name, (int)len, s,
					 arg->loc == PROBE_ARG_UNSUPPORTED ? " unsupported" : "");
		arg->type = (struct type){ .kind = TYPE_INT, .size = 8 };
		arg->hidden = true;
		arg->is_user_ptr = true; /* a pointer argument points into the traced process */
		n++;
		s += len;
	}
	usdt_close(&f);
	*args = v;
	*nargs = n;
	return 0;
}

static char *usdt_section(struct arena *a, const char *target)
{
	return arena_printf(a, "usdt/%s", target);
}

/* What `probe` prints: every location of a probe has the probe's one name. */
static char *usdt_probe_name(struct arena *a, const char *written, const char *target)
{
	char *bin, *prov, *name;
	long loc;

	(void)written;
	(void)written;
	if (usdt_split(a, target, true, &bin, &prov, &name, &loc))
		return arena_printf(a, "usdt:%s", target);
	return arena_printf(a, "usdt:%s:%s:%s", bin, prov, name);
}

/* uaddr("name"): a variable of the binary the probe is in. */
static int usdt_variable(struct arena *a, const char *target, const char *name, uint64_t *addr,
			 uint64_t *size, struct probe_err *err)
{
	char *bin, *prov, *probe;
	long loc;

	if (usdt_split(a, target, true, &bin, &prov, &probe, &loc)) {
		probe_err_set(err, USDT_HINT, "malformed usdt target '%s'", target);
		return -EINVAL;
	}
	return probe_elf_variable(a, bin, name, addr, size, err);
}

static int usdt_attach(const struct probe_plan *plan, struct probe_links *links,
		       struct probe_err *err)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts);
	const struct aot_probe *p = plan->probe;
	struct bpf_program *prog = plan->prog;
	struct arena *a = arena_new();
	const struct usdt_note *note;
	struct bpf_link *link;
	struct usdt_file f;
	int ret;

	if (!a)
		return -ENOMEM;
	note = usdt_find(a, p->target, &f, err);
	if (!note) {
		ret = -ENOENT;
		goto out;
	}
	usdt_close(&f);
	if (!note->off) {
		probe_err_set(err, NULL, "the address of %s is in no section of %s", p->name,
			      f.path);
		ret = -ENOENT;
		goto out;
	}
	/*
	 * The kernel counts the semaphore up in every process that maps the file, now and later.
	 * libbpf loads a "usdt/" program for uprobe_multi links where the kernel has them.
	 */
	if (bpf_program__expected_attach_type(prog) == BPF_TRACE_UPROBE_MULTI) {
		unsigned long off = note->off, ref = note->sem_off;
		LIBBPF_OPTS(bpf_uprobe_multi_opts, mopts, .offsets = &off, .cnt = 1,
			    .ref_ctr_offsets = ref ? &ref : NULL);

		link = bpf_program__attach_uprobe_multi(prog, links->pid > 0 ? links->pid : -1,
							f.path, NULL, &mopts);
	} else {
		opts.ref_ctr_offset = note->sem_off;
		link = bpf_program__attach_uprobe_opts(prog, links->pid > 0 ? links->pid : -1,
						       f.path, note->off, &opts);
	}
	ret = probe_links_add_result(links, link, err, NULL, p->name);
out:
	arena_free(a);
	return ret;
}

const struct probe_type probe_usdt = {
	.name = "usdt",
	.ctx_type = "struct pt_regs",
	.spellings = (const char *const[]){ "U", NULL },
	.has_target = true,
	.newest_first = true,
	.builtins = PB_ARGN | PB_USER | PB_REGS,
	.match = usdt_match,
	.section = usdt_section,
	.probe_name = usdt_probe_name,
	.args = usdt_args,
	.variable = usdt_variable,
	.attach = usdt_attach,
};
