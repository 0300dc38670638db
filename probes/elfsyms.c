// SPDX-License-Identifier: GPL-2.0
/*
 * The symbols of a binary's .symtab and .dynsym, read with libelf: the one walk that uprobe
 * targets, USDT arguments and uaddr() share.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "probe_internal.h"

int probe_elf_open(const char *path, int *fd, Elf **elf, struct probe_err *err)
{
	int ret;

	elf_version(EV_CURRENT);
	*elf = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		ret = -errno;
		probe_err_set(err, NULL, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		if (*elf)
			elf_end(*elf);
		*elf = NULL;
		close(*fd);
		*fd = -1;
		probe_err_set(err, NULL, "%s is not an ELF file", path);
		return -EINVAL;
	}
	return 0;
}

void probe_elf_close(int fd, Elf *elf)
{
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

int probe_elf_syms(Elf *elf, int (*fn)(void *ctx, const struct probe_elf_sym *s), void *ctx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			struct probe_elf_sym s;
			GElf_Sym sym;
			int ret;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !(s.name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !*s.name)
				continue;
			s.value = sym.st_value;
			s.size = sym.st_size;
			s.type = GELF_ST_TYPE(sym.st_info);
			s.shndx = sym.st_shndx;
			ret = fn(ctx, &s);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct elfsyms_var {
	const char *name;
	uint64_t addr, size;
};

/* bcc's rule, which bpftrace's uaddr() follows: any named symbol but a function, with an address.
 */
static int elfsyms_var_match(void *ctx, const struct probe_elf_sym *s)
{
	struct elfsyms_var *v = ctx;

	if (s->type == STT_FUNC || !s->value || strcmp(s->name, v->name))
		return 0;
	v->addr = s->value;
	v->size = s->size;
	return 1;
}

int probe_elf_variable(struct arena *a, const char *bin, const char *name, uint64_t *addr,
		       uint64_t *size, struct probe_err *err)
{
	struct elfsyms_var v = { .name = name };
	char *path = probe_resolve_binary(a, bin);
	Elf *elf;
	int fd, ret;

	if (!path) {
		probe_err_set(err, "give the full path of the binary or library",
			      "cannot find the binary or library '%s'", bin);
		return -ENOENT;
	}
	ret = probe_elf_open(path, &fd, &elf, err);
	if (ret)
		return ret;
	ret = probe_elf_syms(elf, elfsyms_var_match, &v);
	probe_elf_close(fd, elf);
	if (!ret) {
		probe_err_set(err, "only variables count, not functions, as in bpftrace",
			      "%s has no symbol '%s'", path, name);
		return -ENOENT;
	}
	*addr = v.addr;
	*size = v.size;
	return 0;
}
