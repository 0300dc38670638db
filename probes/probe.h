/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe types: one struct of callbacks per type, one file per type, one registry table. The
 * compiler asks a probe type to match and describe targets; the runtime asks it to attach.
 * Nothing outside probes/ switches on the probe type.
 */
#ifndef AOT_PROBE_H
#define AOT_PROBE_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct bpf_program;
struct bpf_link;
struct aot_probe;
struct probe_match;
struct probe_arg;
struct probe_links;
struct probe_plan;

/* Lazily read, per-run caches of the kernel's probe sources (tracefs, BTF, kallsyms). */
struct probe_env;
struct probe_env *probe_env__new(void);
void probe_env__free(struct probe_env *env);
/*
 * Kernel types from this BTF file (a copy of another host's /sys/kernel/btf/vmlinux) instead of
 * the running kernel's, for a compiler building an object for that host (AOTRACE_BTF); path
 * may be NULL. Before the first lookup. 0 or -ENOMEM.
 */
int probe_env__set_btf_path(struct probe_env *env, const char *path);
/*
 * The running kernel's BTF (or the file probe_env__set_btf_path named), parsed once per run;
 * NULL with err set if it has none.
 */
struct btf;
struct probe_err;
struct btf *probe_env_vmlinux_btf(struct probe_env *env, struct probe_err *err);
/*
 * Where line (and column col; 0: any) of file in the source of the binary at bin is: the address
 * of the first code there, from the binary's DWARF line table (uprobe:BINARY@FILE:LINE[:COL]).
 * The compiler provides it (src/srcline.c, with libdw); a probe environment without it refuses
 * such probes. 0, or -errno with err set.
 */
struct arena;
typedef int probe_srcline_fn(struct arena *a, const char *bin, const char *file, unsigned long line,
			     unsigned long col, uint64_t *addr, struct probe_err *err);
void probe_env__set_srcline(struct probe_env *env, probe_srcline_fn *fn);

/* A reason a probe type cannot do something, with a hint for the user. */
struct probe_err {
	char msg[256];
	char hint[256];
	/*
	 * Set where the target is missing on this host but may exist on another (a function a
	 * library here lacks): the target as an object keeps it; --missing-probes decides.
	 */
	const char *missing;
	/*
	 * Set by a match: enum aot_probe_flags that every target it returned gets
	 * (AOT_PROBE_STMT for a uprobe at a source line).
	 */
	uint32_t flags;
};

/* Fills err: the message from fmt, and the hint (NULL: none). */
void probe_err_set(struct probe_err *err, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Builtins a probe type provides beyond those every probe has. */
enum probe_builtins {
	PB_ARGS = 1 << 0, /* args->field */
	PB_RETVAL = 1 << 1,
	PB_FUNC = 1 << 2,
	PB_ARGN = 1 << 3,     /* arg0..argN */
	PB_USER = 1 << 4,     /* probes a user-space function: func is a user symbol (usym) */
	PB_REGS = 1 << 5,     /* the context is the traced task's struct pt_regs: reg("ip") */
	PB_OVERRIDE = 1 << 6, /* override(rc) (bpf_override_return): kprobe */
};

struct probe_type {
	const char *name;	      /* canonical: "tracepoint" */
	const char *const *spellings; /* other names and short aliases: {"t", NULL} */
	uint32_t flags;		      /* enum aot_probe_flags for every probe of this type */
	uint32_t builtins;	      /* enum probe_builtins */
	bool has_target;	      /* false for BEGIN/END */
	/* the C type `ctx` points at ("struct pt_regs"); NULL: the type has no ctx builtin */
	const char *ctx_type;
	/* Or the C type ctx points at for a concrete target, where it depends on it (iter). */
	char *(*ctx_type_of)(struct arena *a, const char *target);
	/*
	 * Its probe is the only one of a program but for BEGIN and END, with one target and no
	 * wildcard (iter, whose run reads the one iterator and ends).
	 */
	bool alone;
	bool can_alias;	      /* matches may share one program cloned per target (fentry/fexit) */
	const char *list_all; /* the pattern -l uses to list every target; NULL: unlisted */
	/*
	 * The kernel runs the programs on one event of this type newest first: a kprobe's or
	 * uprobe's handler list, a BPF trampoline's, a software event's perf list (measured on
	 * 6.1, 6.12 and 6.18). The runtime attaches these probes in reverse script order so that
	 * they run in script order, as bpftrace does; the others run oldest first. This is each
	 * plan's default (struct probe_plan.newest_first); prepare may say otherwise for a link
	 * kind whose order changed between kernels (kretprobe_multi on 6.14).
	 */
	bool newest_first;

	/*
	 * Expands a target pattern ("syscalls:sys_enter_open*") into *n concrete targets in *out
	 * (arena-owned), sorted. Returns *n (0: none matched), or -errno with err set.
	 */
	int (*match)(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		     size_t *n, struct probe_err *err);
	/*
	 * Optional, for -l, where what to list is not the match's targets: the names a pattern
	 * lists, sorted, as match returns them (software:faults: with its count left to write,
	 * interval:s:). Probe types that list this way refuse wildcards in programs.
	 */
	int (*list)(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		    size_t *n, struct probe_err *err);
	/* Canonical libbpf ELF section for a concrete target, arena-allocated. */
	char *(*section)(struct arena *a, const char *target);
	/*
	 * Multi-capable types: the section of one program for a whole wildcard pattern
	 * ("kprobe.multi/vfs_*"); NULL if the type has no multi links.
	 */
	char *(*multi_section)(struct arena *a, const char *pattern);
	/*
	 * Entry types with session links: the return type whose wildcard probe joins one of this
	 * type's on the same pattern in one session program ("kretprobe"), and the link's attach
	 * type (BPF_TRACE_KPROBE_SESSION); NULL and 0 for the others.
	 */
	const char *session_return;
	uint32_t session_attach;
	/* args->field for a concrete target; NULL if the type has no args. */
	int (*args)(struct probe_env *env, struct arena *a, const char *target,
		    struct probe_arg **args, uint32_t *nargs, struct probe_err *err);

	/*
	 * Optional, for uaddr(): the address and size of a variable in the binary a concrete
	 * target probes. The address is the file's, without the load bias of a position
	 * independent binary, as bpftrace has it. 0 or -errno with err set.
	 */
	int (*variable)(struct arena *a, const char *target, const char *name, uint64_t *addr,
			uint64_t *size, struct probe_err *err);

	/*
	 * Run time: attach a loaded program as its plan says, adding every link it makes (one
	 * per CPU for profile, say) to links, which the runtime destroys at exit even after a
	 * failure. NULL for BEGIN/END, which the runtime runs itself.
	 */
	int (*attach)(const struct probe_plan *plan, struct probe_links *links,
		      struct probe_err *err);
	/*
	 * Optional, while the runtime plans, before the object is loaded: adapt the program to
	 * what the running kernel can do, and say so in the plan (a multi program falls back to
	 * one link per target, PROBE_FALLBACK, where multi links are missing, and the order its
	 * links run in, newest_first).
	 */
	int (*prepare)(struct probe_env *env, struct probe_plan *plan, struct probe_err *err);
	/*
	 * Optional: what `probe` prints for a concrete target, arena-allocated, where it is not
	 * "TYPE:TARGET" (the locations of one USDT probe are several targets of one name; a
	 * uprobe's binary as written is its pattern's, not the resolved path). written: the
	 * pattern the target matched, as the attach point wrote it.
	 */
	char *(*probe_name)(struct arena *a, const char *written, const char *target);
};

/* How a probe attaches on this kernel, decided once per run (runtime/plan.c, and prepare). */
enum probe_strategy {
	PROBE_BROKEN,	  /* its program or its probe type is not there: it cannot attach */
	PROBE_RUN_ONCE,	  /* BEGIN/END: run once with BPF_PROG_TEST_RUN, no link */
	PROBE_MISSING,	  /* no target on this kernel: skipped, or an error (--missing-probes) */
	PROBE_SINGLE,	  /* the probe type's attach: one target, one link (one per CPU for perf) */
	PROBE_CLONE,	  /* an alias: a copy of its group's template, attached to its own target */
	PROBE_MULTI,	  /* one program for every match, attached with one multi link */
	PROBE_FALLBACK,	  /* a multi program where the kernel lacks multi links: a link per match */
	PROBE_SESSION,	  /* a session program: one session link for its entry and return probes */
	PROBE_IN_SESSION, /* an entry or return probe its session program serves: not loaded */
	PROBE_NO_SESSION, /* a session program where the kernel lacks session links: not loaded */
	/*
	 * An alias reading no argument (AOT_PROBE_NO_ARGS) where the kernel has tracing multi
	 * links: its whole group is one fentry/fexit multi program and one link (clone.c).
	 */
	PROBE_TRACING_MULTI,
};

/*
 * One probe of an object resolved once per run, before load: what attach, BEGIN/END and
 * --explain read instead of working it out again. Made and owned by the runtime.
 */
struct probe_plan {
	const struct aot_probe *probe; /* its metadata */
	const struct probe_type *type; /* NULL: unknown here (PROBE_BROKEN) */
	struct bpf_program *prog;      /* NULL: not in the object (PROBE_BROKEN) */
	enum probe_strategy strategy;
	uint32_t flags; /* enum aot_probe_flags of the probe and of its type */
	/*
	 * The targets its pattern matches here, where the plan listed them (a run lists only
	 * kernel targets, --explain every one); NULL: attach lists them itself.
	 */
	char **targets;
	long ntargets;	 /* -1: not listed */
	const char *why; /* why they could not be listed, or NULL */
	/* its links run newest first on an event: attached after the others, last to first */
	bool newest_first;
	/*
	 * kfunc:bpf: targets (a BPF program's function), set by prepare: the program found
	 * again here, by its fd (held until the plan is freed; 0: none, as libbpf's
	 * attach_prog_fd), its id, and the function's id in that program's BTF.
	 */
	int attach_prog_fd;
	uint32_t attach_prog_id;
	uint32_t attach_btf_id;
};

/*
 * A perf event timer (interval, profile, software:cpu-clock) whose period starts over when the
 * probes start, so that its first tick comes a whole period after BEGIN, as in bpftrace, which
 * attaches after BEGIN; and ticks of several probes come in script order.
 */
struct probe_timer {
	int fd;			       /* the perf event, owned by its link */
	uint64_t period_ns;	       /* its period */
	const struct aot_probe *probe; /* its probe: restarted in the metadata's order */
};

/* The links of a run and what attaching shares across probes, owned by the runtime. */
struct probe_links {
	struct bpf_link **v;
	size_t n, cap;
	struct probe_timer *timers;
	size_t ntimers, cap_timers;
	int *fds; /* links made with bpf(BPF_LINK_CREATE) where libbpf 1.4 cannot (sessions) */
	size_t nfds, cap_fds;
	uint64_t next_cookie;	   /* multi probes: the first attach cookie not yet handed out */
	size_t multi_targets;	   /* targets multi probes attached (a link each or one for all) */
	struct bpf_map *names_map; /* AOT_PROBE_NAMES_MAP, if the object has it */
	int verbose;		   /* say what was skipped */
	int pid;		   /* -p PID: uprobes fire only in this process; 0: in every one */
	/* Tells the user what attaching left out (the runtime's reporter, as a warning). */
	void (*warn)(void *ctx, const char *fmt, va_list ap);
	void *warn_ctx;
	/* Set when the run is interrupted (a first Ctrl-C): stop attaching, keep what is. */
	const atomic_bool *stop;
	/* The watchpoints, by address, for unwatch(): each an index into v. */
	struct probe_watch {
		size_t link;
		uint64_t addr;
	} * watches;
	size_t nwatches, cap_watches;
	/* The run's iterator (iter:), one of v, and its probe: probe_iter_run reads it. */
	struct bpf_link *iter;
	const struct aot_probe *iter_probe;
};

/*
 * iter: probes (iter.c), after BEGIN: reads the run's iterator to its end, copying what its
 * program wrote (printf: bpf_seq_printf) to out_file (a FILE *), or pins its link where the
 * probe names a pin and says so. Nothing without an iterator. 0 or -errno with err set.
 */
int probe_iter_run(const struct probe_links *links, void *out_file, struct probe_err *err);

/* Takes ownership of a link libbpf has no object for (a session's fd). 0 or -ENOMEM. */
int probe_links_add_fd(struct probe_links *l, int fd);
/* Takes ownership of link (destroying it if the list cannot grow). 0 or -ENOMEM. */
int probe_links_add(struct probe_links *l, struct bpf_link *link);
/* A warning about what attaching left out, through links->warn. */
void probe_links_warn(struct probe_links *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Adds a libbpf result: a link or an error pointer. 0, or the error with err set to msg. */
int probe_links_add_result(struct probe_links *l, struct bpf_link *link, struct probe_err *err,
			   const char *hint, const char *what);
void probe_links_destroy(struct probe_links *l);
/* unwatch(addr): destroys the watchpoints at addr (their entries in v become NULL); how many. */
size_t probe_links_unwatch(struct probe_links *l, uint64_t addr);
/* Records a perf event timer to restart at start (its link must be in the list). 0 or -ENOMEM. */
int probe_links_add_watch(struct probe_links *l, size_t from, uint64_t addr);
int probe_links_add_timer(struct probe_links *l, int fd, uint64_t period_ns,
			  const struct aot_probe *probe);
/*
 * Restarts every timer with a whole period, in the order of the probes in the metadata, while
 * the programs are still inert. 0, or the first -errno (the others are restarted anyway).
 */
int probe_links_start_timers(struct probe_links *l);

/*
 * Whether the running kernel gives fentry/fexit programs attach cookies (tried with a small
 * program on vmlinux's vfs_read): alias groups name their targets by cookie.
 */
bool probe_kfunc_cookies_supported(struct probe_env *env);

/*
 * Sessions (session.c). The arguments of bpf_session_is_return in btf (the kernel's: how to
 * call it; an object's: how it calls it; no argument before 7.x kernels, ctx since); -1: none.
 */
int probe_session_kfunc_args(const struct btf *btf);
/*
 * Whether the kernel has session links of pt's kind and the kfunc
 * bpf_session_is_return with kfunc_args arguments (-1: any), as a session program calls it.
 */
bool probe_session_supported(struct probe_env *env, const struct probe_type *pt, int kfunc_args);
/*
 * Plans a session program (AOT_PROBE_SESSION) before load: PROBE_SESSION where the kernel has
 * its links and its kfunc as the object calls it, else PROBE_NO_SESSION and not loaded (also
 * for AOTRACE_SESSION_LINKS=0). Its members are the runtime's to plan. 0 or -errno, err set.
 */
int probe_session_prepare(struct probe_env *env, struct probe_plan *plan, int kfunc_args,
			  struct probe_err *err);

/*
 * Whether kprobe programs may call bpf_get_attach_cookie (5.15; tried): without it a multi
 * program's fallback of one link per target cannot tell its targets apart, so a wildcard
 * compiled here is one program per match. And bpf_get_func_ip (5.15 too): without it `func`
 * is a constant of its program, which must then have one target.
 */
bool probe_attach_cookie_helper(void);
bool probe_func_ip_helper(void);
/*
 * Whether bpf_get_func_ip in a uprobe or uretprobe program gives the probed function's address
 * (Linux 6.6, with uprobe_multi links, whose support stands for it): older kernels give 0 there.
 */
bool probe_uprobe_func_ip(void);

/*
 * kfunc:bpf: (bpfprog.c). Whether a kfunc or kretfunc target is a running BPF program's function
 * ("bpf:ID:NAME"), whose plan prepare fills (attach_prog_fd...), for the runtime's clones.
 */
bool probe_bpf_target(const char *target);
/* At attach: a warning where the plan's program is not the one of the target's id (gone). */
void probe_bpf_warn_moved(const struct probe_plan *plan, struct probe_links *links);

/* Finds a probe type by canonical name or any spelling; NULL if unknown. */
const struct probe_type *probe_type_find(const char *name);
/* NULL-terminated list of every probe type, for -l and help text. */
extern const struct probe_type *const probe_types[];

/*
 * aotrace -l [PATTERN]: prints every probe matching "type:target-pattern" (or every probe), one a
 * line, sorted, with args when verbose. 0 or -errno; nothing matched is -ENOENT.
 */
int probe_list(struct probe_env *env, const char *pattern, bool verbose, void *out_file);

/* aotrace --info (info.c): the system, and each kernel feature aotrace uses, tried. 0. */
int probe_info(struct probe_env *env, void *out_file);

/*
 * aotrace -l with a script: prints one concrete probe an attach point expanded to (a multi
 * program's targets one by one), with args when verbose. *prev is the name printed last (NULL
 * at first): a probe named as the one before it is not printed again.
 */
void probe_list_match(struct probe_env *env, struct arena *a, const struct probe_match *m,
		      bool verbose, const char **prev, void *out_file);

/* Shell-style wildcard match ('*', '?', '[...]'), as bpftrace matches probe names. */
bool probe_wildcard_match(const char *pattern, const char *s);
bool probe_has_wildcard(const char *s);

#endif
