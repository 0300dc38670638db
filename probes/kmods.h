/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel modules' BTF (/sys/kernel/btf/MODULE, split over vmlinux's): the functions of modules
 * that kfunc/kretfunc probes name as fentry:MODULE:FUNC, and their raw tracepoints
 * (rawtracepoint:MODULE:NAME), as bpftrace 0.27 does.
 */
#ifndef AOT_KMODS_H
#define AOT_KMODS_H

#include <stdbool.h>
#include <stddef.h>

#include "btf_funcs.h"

struct arena;
struct btf;

struct probe_kmod {
	char *name;
	struct btf *btf;	/* split over the vmlinux BTF the set was read with */
	struct btf_funcs funcs; /* its own functions by name */
	int fd;			/* its BTF object in the kernel: -1 until probe_kmod_fd */
};

struct probe_kmods {
	struct probe_kmod *v; /* by name */
	size_t n;
	bool read;
};

/*
 * Reads every module's BTF once, over vmlinux (which must outlive the set). A module whose BTF
 * cannot be parsed is left out; 0 or -ENOMEM. No modules (no /sys/kernel/btf, a BTF file of
 * another host) is an empty set.
 */
int probe_kmods_read(struct probe_kmods *m, const struct btf *vmlinux);
struct probe_kmod *probe_kmods_find(struct probe_kmods *m, const char *name);
/* The fd of the module's BTF object, for attach_btf_obj_fd; -errno if the kernel has none. */
int probe_kmod_fd(struct probe_kmod *k);
void probe_kmods_free(struct probe_kmods *m);

/*
 * The one split of a kfunc or rawtracepoint target: true for a module's, "MODULE:NAME", with
 * the module's name into mod (unless mod is NULL; false where it does not fit in modsz) and
 * *name at NAME. False for vmlinux's ("NAME") and a BPF program's ("bpf:..."), with *name at
 * target: *name - target is the length of the "MODULE:" prefix either way.
 */
bool probe_kmod_target(const char *target, char *mod, size_t modsz, const char **name);
/*
 * The ELF section "PREFIX/NAME" of target "MODULE:NAME" or "NAME" (libbpf looks NAME up in
 * vmlinux's BTF and the modules'); "PREFIX/bpf:..." for a BPF program's.
 */
char *probe_kmod_section(struct arena *a, const char *prefix, const char *target);

#endif
