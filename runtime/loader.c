// SPDX-License-Identifier: GPL-2.0
/*
 * Loader: finds and parses the metadata section in the ELF bytes, then opens and loads the
 * object with libbpf. libbpf's log goes through one callback, silent unless -v; a verifier
 * rejection is reported as the program's name and the end of its verifier log.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rt.h"

#define LOADER_LOG_SIZE (256 * 1024)	   /* plenty for the last lines */
#define LOADER_LOG_SIZE_VERBOSE (16 << 20) /* -v prints the whole log */

/*
 * libbpf's print callback takes no context, so its verbosity and where it reports (the run's
 * output, from rt_load to rt_unload) are the one piece of global mutable state in the runtime
 * (STYLE.md allows the log callback).
 */
static int loader_verbose;
static const struct output *loader_out;

static int loader_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!loader_verbose || (level == LIBBPF_DEBUG && loader_verbose < 2))
		return 0;
	rt_vreport(loader_out, RT_TEXT, fmt, ap);
	return 0;
}

/* Reads an ELF64 section header into sh; the image may be unaligned. */
static int loader_shdr(const uint8_t *elf, size_t size, const Elf64_Ehdr *eh, size_t i,
		       Elf64_Shdr *sh)
{
	uint64_t off = eh->e_shoff + (uint64_t)i * eh->e_shentsize;

	if (off > size || size - off < sizeof(*sh))
		return -EINVAL;
	memcpy(sh, elf + off, sizeof(*sh));
	return 0;
}

int rt_elf_section(const void *image, size_t size, const char *name, const void **data, size_t *len)
{
	const uint8_t *elf = image;
	Elf64_Shdr sh, strsh;
	Elf64_Ehdr eh;
	uint64_t shnum, shstrndx, i;
	size_t nlen = strlen(name);

	if (size < sizeof(eh))
		return -EINVAL;
	memcpy(&eh, elf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize < sizeof(Elf64_Shdr))
		return -EINVAL;
	shnum = eh.e_shnum;
	shstrndx = eh.e_shstrndx;
	/* Extended numbering keeps the real values in section header 0. */
	if (loader_shdr(elf, size, &eh, 0, &sh))
		return -EINVAL;
	if (shnum == 0)
		shnum = sh.sh_size;
	if (shstrndx == SHN_XINDEX)
		shstrndx = sh.sh_link;
	if (shnum > size / eh.e_shentsize || shstrndx >= shnum)
		return -EINVAL;
	if (loader_shdr(elf, size, &eh, shstrndx, &strsh) || strsh.sh_type == SHT_NOBITS ||
	    strsh.sh_offset > size || strsh.sh_size > size - strsh.sh_offset)
		return -EINVAL;
	for (i = 1; i < shnum; i++) {
		if (loader_shdr(elf, size, &eh, i, &sh))
			return -EINVAL;
		if (sh.sh_name >= strsh.sh_size || strsh.sh_size - sh.sh_name < nlen + 1 ||
		    memcmp(elf + strsh.sh_offset + sh.sh_name, name, nlen + 1))
			continue;
		if (sh.sh_type == SHT_NOBITS || sh.sh_offset > size ||
		    sh.sh_size > size - sh.sh_offset)
			return -EINVAL;
		*data = elf + sh.sh_offset;
		*len = sh.sh_size;
		return 0;
	}
	return -ENOENT;
}

const char *rt_elf_error(int err)
{
	return err == -ENOENT ? "no " AOT_META_SECTION " section: not built by aotrace?"
			      : "not a valid 64-bit little-endian ELF object";
}

int aot_object_check(const void *elf, size_t size, char *errbuf, size_t errlen)
{
	struct aot_meta *m = NULL;
	const void *sec;
	size_t len;
	int err = rt_elf_section(elf, size, AOT_META_SECTION, &sec, &len);

	if (err) {
		snprintf(errbuf, errlen, "%s", rt_elf_error(err));
		return -EINVAL;
	}
	err = aot_meta_read(sec, len, &m, errbuf, errlen);
	aot_meta_free(m);
	return err ? -EINVAL : 0;
}

/* Which probe a program belongs to, for messages. */
static const char *loader_probe_name(const struct rt *rt, const struct bpf_program *prog)
{
	for (uint32_t i = 0; i < rt->plan.n; i++)
		if (rt->plan.v[i].prog == prog && rt->plan.v[i].probe->name)
			return rt->plan.v[i].probe->name;
	return NULL;
}

/*
 * E2BIG from a map's creation: older kernels (5.10) refuse hash map keys longer than the BPF
 * stack (512 bytes), as a string key of the default max_strlen (1024) is. Tried with a map of
 * the same key size; true when reported.
 */
static bool loader_report_key_size(const struct rt *rt, int err)
{
	struct bpf_map *map;

	if (err != -E2BIG)
		return false;
	bpf_object__for_each_map(map, rt->obj)
	{
		uint32_t ksz = bpf_map__key_size(map);
		const char *name = bpf_map__name(map);
		int fd;

		if (ksz <= 512 || (bpf_map__type(map) != BPF_MAP_TYPE_HASH &&
				   bpf_map__type(map) != BPF_MAP_TYPE_PERCPU_HASH &&
				   bpf_map__type(map) != BPF_MAP_TYPE_LRU_HASH))
			continue;
		fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, ksz, 8, 1, NULL);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (errno != E2BIG)
			continue;
		for (uint32_t i = 0; i < rt->meta->nmaps; i++)
			if (rt->meta->maps[i].elf_name && !strcmp(rt->meta->maps[i].elf_name, name))
				name = rt->meta->maps[i].name;
		rt_report(
			&rt->out, RT_ERROR,
			"map %s has keys of %u bytes, and this kernel's hash maps take keys of at "
			"most 512 (the BPF stack's size)",
			name, ksz);
		rt_report(&rt->out, RT_HINT,
			  "a string key is max_strlen bytes (1024 by default): lower it "
			  "(BPFTRACE_MAX_STRLEN=256, or config = { max_strlen = 256 })");
		return true;
	}
	return false;
}

static void loader_report_failure(const struct rt *rt, int err)
{
	struct bpf_program *prog;

	if (loader_report_key_size(rt, err))
		return;

	/*
	 * Only the rejected program wrote the log (libbpf asks for one only when a load fails),
	 * and libbpf stops there: the first program to load that has no fd.
	 */
	bpf_object__for_each_program(prog, rt->obj)
	{
		if (!rt->logbuf || !rt->logbuf[0])
			break;
		if (!bpf_program__autoload(prog) || bpf_program__fd(prog) >= 0)
			continue;
		rt_verifier_report(rt, bpf_program__name(prog), loader_probe_name(rt, prog),
				   rt->logbuf, err);
		return;
	}
	/* Root and still EPERM, with no verifier log: some kernels refuse BPF trampolines. */
	if (err == -EPERM && geteuid() == 0) {
		bpf_object__for_each_program(prog, rt->obj)
		{
			const char *probe;

			if (bpf_program__type(prog) != BPF_PROG_TYPE_TRACING)
				continue;
			probe = loader_probe_name(rt, prog);
			rt_report(&rt->out, RT_ERROR, "the kernel refused to load probe %s: %s",
				  probe ? probe : bpf_program__name(prog), strerror(-err));
			rt_report(&rt->out, RT_HINT,
				  "this kernel does not allow BPF trampolines (kfunc/kretfunc, "
				  "fentry/fexit) here; trace the same function with kprobe: or "
				  "kretprobe: instead");
			return;
		}
	}
	rt_report(&rt->out, RT_ERROR, "%s: could not load the BPF object: %s%s", rt->opts->obj_name,
		  strerror(-err), err == -EPERM ? " (are you root?)" : "");
}

/*
 * The runtime reads and writes struct aot_state whole: an object whose state is larger was
 * compiled by a newer aotrace, and its fields past ours would be read from beyond our struct.
 */
static int loader_check_state(struct rt *rt)
{
	struct bpf_map *map = bpf_object__find_map_by_name(rt->obj, AOT_STATE_SECTION);

	if (!map)
		map = bpf_object__find_map_by_name(rt->obj, AOT_STATE_MAP);
	if (!map || bpf_map__value_size(map) <= sizeof(struct aot_state))
		return 0;
	rt_report(&rt->out, RT_ERROR,
		  "%s: compiled by a newer aotrace (its run state is %u bytes, this runtime knows "
		  "%zu): run it with that aotrace-run, or compile it again with this one",
		  rt->opts->obj_name, bpf_map__value_size(map), sizeof(struct aot_state));
	return -EPROTO;
}

int rt_load(struct rt *rt, const void *elf, size_t size)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .object_name = rt->opts->obj_name);
	size_t logsize;
	struct bpf_program *prog;
	const void *sec;
	char msg[256];
	size_t len;
	int err;

	loader_verbose = rt->opts->verbose;
	loader_out = &rt->out;
	libbpf_set_print(loader_libbpf_print);

	err = rt_elf_section(elf, size, AOT_META_SECTION, &sec, &len);
	if (err) {
		rt_report(&rt->out, RT_ERROR, "%s: %s", rt->opts->obj_name, rt_elf_error(err));
		return err;
	}
	err = aot_meta_read(sec, len, &rt->meta, msg, sizeof(msg));
	if (err) {
		rt_report(&rt->out, RT_ERROR, "%s: %s", rt->opts->obj_name, msg);
		return err;
	}
	/* BPFTRACE_LOG_SIZE over the script's config block, over ours */
	logsize = rt->opts->log_size			 ? rt->opts->log_size
		  : rt->meta->settings[AOT_SET_LOG_SIZE] ? rt->meta->settings[AOT_SET_LOG_SIZE]
		  : rt->opts->verbose			 ? LOADER_LOG_SIZE_VERBOSE
							 : LOADER_LOG_SIZE;
	rt->obj = bpf_object__open_mem(elf, size, &oopts);
	if (!rt->obj) {
		err = -errno;
		rt_report(&rt->out, RT_ERROR, "%s: could not open the BPF object: %s",
			  rt->opts->obj_name, strerror(-err));
		return err;
	}
	rt->logbuf = calloc(1, logsize);
	if (!rt->logbuf)
		return -ENOMEM;
	rt->log_size = logsize;
	/* One byte short, so the log always ends in a NUL of ours. */
	bpf_object__for_each_program(prog, rt->obj)
		bpf_program__set_log_buf(prog, rt->logbuf, logsize - 1);
	err = loader_check_state(rt);
	if (!err)
		err = rt_prepare(rt);
	if (!err)
		err = rt_events_size(rt);
	if (!err)
		err = rt_clone_prepare(rt, elf, size);
	if (err)
		return err;
	err = bpf_object__load(rt->obj);
	if (err) {
		loader_report_failure(rt, err);
		return err;
	}
	return rt_clone_load(rt);
}

void rt_unload(struct rt *rt)
{
	loader_out = NULL;
	rt_plan_free(&rt->plan);
	bpf_object__close(rt->obj);
	rt->obj = NULL;
	free(rt->logbuf);
	rt->logbuf = NULL;
	free(rt->zeroed);
	rt->zeroed = NULL;
	aot_meta_free(rt->meta);
	rt->meta = NULL;
}
