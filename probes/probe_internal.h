/* SPDX-License-Identifier: GPL-2.0 */
/* What the probe types share among themselves and nobody else needs: the per-run source caches. */
#ifndef AOT_PROBE_INTERNAL_H
#define AOT_PROBE_INTERNAL_H

#include <linux/bpf.h> /* struct bpf_insn, enum bpf_attach_type */
#include <stdarg.h>

#include "arena.h"
#include "btf_funcs.h"
#include "kmods.h"
#include "probe.h"

struct probe_env {
	char *tracefs; /* "/sys/kernel/tracing", found on first use; NULL until then */
	int tracefs_err;
	char *btf_path;		 /* types of another kernel: probe_env__set_btf_path */
	struct btf *vmlinux_btf; /* parsed on first use */
	int vmlinux_btf_err;
	int tracing_multi;	  /* tracing multi links: 0 untried, 1 there, -errno not */
	struct btf_funcs funcs;	  /* vmlinux_btf's functions by name */
	struct probe_kmods kmods; /* the modules' BTF, read where a probe may name a module */
	/*
	 * kfunc:bpf: the BPF programs the run's probes have taken so far (bpfprog.c): a probe
	 * whose program is gone takes another of its function's name, not one already taken. A
	 * fixed array, so that the env needs nothing freed; past it, programs may be taken twice.
	 */
	uint32_t bpf_taken[64];
	size_t nbpf_taken;
	probe_srcline_fn *srcline; /* probe_env__set_srcline; NULL: no source lines */
};

/*
 * The kernel modules' BTF, read on first use (kmods.h); an empty set where the types are
 * another host's (probe_env__set_btf_path) or the kernel has no module BTF.
 */
struct probe_kmods *probe_env_kmods(struct probe_env *env);

/*
 * arg0..arg5 (or retval) from the x86-64 registers in struct pt_regs, as hidden args, and at
 * entry sarg0..sarg7 from the stack, which is user memory if user_stack, else the kernel's.
 */
int probe_regs_args(struct arena *a, bool is_return, bool user_stack, struct probe_arg **args,
		    uint32_t *nargs);

/* perf.c: perf-event probes, on every online CPU or on CPU 0 only. */
struct perf_event_attr;
int probe_perf_attach(const struct probe_plan *plan, uint32_t type, uint64_t config,
		      uint64_t period, bool all_cpus, struct probe_links *links,
		      struct probe_err *err);
int probe_perf_attach_attr(const struct probe_plan *plan, struct perf_event_attr *attr,
			   bool all_cpus, struct probe_links *links, struct probe_err *err);
char *probe_perf_section(struct arena *a, const char *target);
/*
 * The rate of interval and profile probes: UNIT:N (s, ms, us; hz: N a second), or one duration
 * as bpftrace 0.24 and later take it (1s, 100ms, 20us; a bare number is nanoseconds, at least
 * 1000). The period in nanoseconds, or for hz the frequency with *is_freq; 0 if malformed.
 */
uint64_t probe_perf_rate(const char *target, bool *is_freq);
/* A perf counter a probe target can name ("faults:100"); tables end with a NULL name. */
struct perf_counter {
	const char *name, *alias;
	uint64_t config;
	uint64_t default_count;
};
int probe_counter_match(const struct perf_counter *table, const char *type, struct arena *a,
			const char *pattern, char ***out, size_t *n, struct probe_err *err);
/* -l: "NAME:" for every event and alias the pattern matches, sorted; returns *n. */
int probe_counter_list(const struct perf_counter *table, struct arena *a, const char *pattern,
		       char ***out, size_t *n);
/* The units of interval and profile, hz first (ns 0: a frequency); ends with a NULL name. */
struct probe_time_unit {
	const char *name;
	uint64_t ns;
};
extern const struct probe_time_unit probe_time_units[];
/* -l of interval and profile: "UNIT:" for every unit the pattern matches. */
int probe_time_list(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		    size_t *n, struct probe_err *err);
int probe_counter_attach(const struct perf_counter *table, uint32_t type,
			 const struct probe_plan *plan, struct probe_links *links,
			 struct probe_err *err);
/* A probe type whose pattern is its one target: returns it as the only match. */
int probe_perf_one_target(struct arena *a, const char *target, char ***out, size_t *n);

/* multi.c: multi links with a fallback to one link per target of the same program. */
/* A multi link: libbpf's, or a session's fd (libbpf 1.4 has no session links); -1 if none. */
struct probe_multi_link {
	struct bpf_link *link;
	int fd;
};
struct probe_multi_ops {
	/* One link for n targets (a session link for PROBE_SESSION); 0 or -errno. */
	int (*attach_multi)(void *ctx, const char **names, const uint64_t *cookies, size_t n,
			    struct probe_multi_link *link);
	/* One link for one target, added to links; 0 or -errno with err set. */
	int (*attach_one)(void *ctx, const char *name, uint64_t cookie, struct probe_links *links,
			  struct probe_err *err);
};
bool probe_kprobe_multi_supported(void);
bool probe_uprobe_multi_supported(void);
/* One program for every match of a pattern, by one multi link or one link per match. */
static inline bool probe_plan_multi(const struct probe_plan *plan)
{
	return plan->strategy == PROBE_MULTI || plan->strategy == PROBE_FALLBACK ||
	       plan->strategy == PROBE_SESSION;
}

/* Attach types of session links, newer than the UAPI headers of the build host. */
#define PROBE_KPROBE_SESSION 56 /* BPF_TRACE_KPROBE_SESSION, Linux 6.10 */
#define PROBE_UPROBE_SESSION 57 /* BPF_TRACE_UPROBE_SESSION, Linux 6.13 */
/*
 * BPF_TRACE_FSESSION (fentry + fexit on one function), Linux 7.2 UAPI. Its wildcard kind,
 * BPF_TRACE_FSESSION_MULTI (61), links there too (a tracing_multi link), but its verifier
 * refuses every context read as fentry multi's does ("func 'bpf_multi_func' doesn't have 1-th
 * argument"): no retval for a return half, so wildcards are not paired yet.
 */
#define PROBE_TRACE_FSESSION 58
/*
 * session.c: session links, made with bpf(BPF_LINK_CREATE) as libbpf 1.4 cannot; the
 * kprobe_multi and uprobe_multi layouts of link_create with the session attach type. Each
 * returns the link's fd, or -errno.
 */
int probe_session_kprobe_link(int prog_fd, uint32_t attach_type, const char **syms,
			      const uint64_t *cookies, size_t n);
int probe_session_uprobe_link(int prog_fd, uint32_t attach_type, const char *path,
			      const unsigned long *offsets, const uint64_t *cookies, size_t n,
			      int pid);
/* multi.c: a program of this multi attach type that returns 0, loaded; its fd or -errno. */
int probe_multi_test_prog(enum bpf_attach_type type);
/*
 * A prepare callback: a multi program becomes an ordinary one, attached once per target
 * (PROBE_FALLBACK), where multi links are missing; an error naming the helper when the
 * program calls one the kernel lacks (attach cookies, bpf_get_func_ip: 5.15).
 */
int probe_multi_prepare(struct probe_plan *plan, bool (*supported)(void), struct probe_err *err);
/*
 * Attaches names[0..n) (reordered and cut down to what the kernel accepts) with cookies
 * recorded in the names map as "TYPE:PREFIXname", by one multi link or, for PROBE_FALLBACK,
 * one link each. Once links->stop is set it stops trying and returns 0 with what it attached
 * so far.
 */
int probe_multi_attach(const struct probe_plan *plan, const struct probe_multi_ops *ops, void *ctx,
		       char **names, const char *prefix, size_t n, struct probe_links *links,
		       struct probe_err *err);

/* uprobe.c: "libc" -> "/usr/lib/x86_64-linux-gnu/libc.so.6"; a path made absolute. NULL: none. */
char *probe_resolve_binary(struct arena *a, const char *bin);

/* elfsyms.c: the symbols of a binary (libelf's Elf, opened and ended here). */
struct Elf;
struct probe_elf_sym {
	const char *name; /* never empty */
	uint64_t value, size;
	unsigned type;	/* STT_FUNC, STT_OBJECT, ... */
	unsigned shndx; /* the section that defines it (never SHN_UNDEF) */
};
/* 0, or -errno (-EINVAL: not ELF) with err set and nothing left open. */
int probe_elf_open(const char *path, int *fd, struct Elf **elf, struct probe_err *err);
void probe_elf_close(int fd, struct Elf *elf);
/*
 * Calls fn with each named, defined symbol of .symtab and .dynsym (in section order) until it
 * returns non-zero, and returns that; 0 once every symbol was seen.
 */
int probe_elf_syms(struct Elf *elf, int (*fn)(void *ctx, const struct probe_elf_sym *s), void *ctx);
/*
 * The address (in the file, no load bias) and size of the first symbol named name that is not
 * a function and has an address, in the binary or library bin: uaddr(). 0 or -errno, err set.
 */
int probe_elf_variable(struct arena *a, const char *bin, const char *name, uint64_t *addr,
		       uint64_t *size, struct probe_err *err);

/* kfunc.c: loads a tracing program of this type (fentry, fexit) for vfs_read. 0 or -errno. */
int probe_kfunc_try_load(struct probe_env *env, enum bpf_attach_type type,
			 const struct bpf_insn *insns, size_t n);
/* kfunc.c: the parameters of a kernel function from BTF, as kfunc args (slot i at 8 * i). */
int probe_btf_func_args(struct probe_env *env, struct arena *a, const char *func,
			struct probe_arg **args, uint32_t *nargs, struct probe_err *err);

/*
 * kfunc.c: the parameters of function func_id of btf as kfunc args (slot i at 8 * i; with_retval:
 * retval after them), pointers typed by their pointee in kernel (by name where btf is not
 * kernel's). 0, or -ENOENT if func_id is no function.
 */
int probe_btf_proto_args(struct arena *a, const struct btf *btf, uint32_t func_id,
			 const struct btf *kernel, bool with_retval, struct probe_arg **args,
			 uint32_t *nargs);

/* bpfprog.c: kfunc:bpf:[ID:]NAME, a running BPF program's function (also probe.h). */
/* "bpf:ID:NAME" for each function of a running program the pattern matches. */
int probe_bpf_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		    size_t *n, struct probe_err *err);
/* The function's parameters from its program's BTF (the program of its id, else of its name). */
int probe_bpf_args(struct probe_env *env, struct arena *a, const char *target, bool with_retval,
		   struct probe_arg **args, uint32_t *nargs, struct probe_err *err);
/*
 * Before load: finds the target's program again (by id, else the first of the function's name
 * no other probe took) and makes it the program's attach target (plan->attach_prog_*);
 * PROBE_MISSING where none has it. 0 or -errno with err set.
 */
int probe_bpf_prepare(struct probe_env *env, struct probe_plan *plan, struct probe_err *err);

/* names.c: the target lists match callbacks return. */
struct probe_names {
	struct arena *a;
	char **v;
	size_t n, cap;
};
int probe_name_cmp(const void *x, const void *y); /* for char * arrays */
/* name must already live in l->a. */
void probe_names_add(struct probe_names *l, char *name);
/* Sorts, drops duplicates, hands the array over; returns the count. */
size_t probe_names_finish(struct probe_names *l, char ***out);
struct btf;
/*
 * Adds the BTF types of one kind from id first on (1: all; a module's own: from its base's
 * btf__type_cnt) whose names start with strip and match pattern after it: the rest of the
 * name, after prefix ("MODULE:", or "").
 */
void probe_btf_names(const struct btf *btf, uint32_t first, unsigned kind, const char *strip,
		     const char *pattern, const char *prefix, struct probe_names *l);

/* The tracefs mount point, looked up once per run; NULL with err set if there is none. */
const char *probe_env_tracefs(struct probe_env *env, struct probe_err *err);

#endif
