/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compiler as one object: a program is made from source text and options, run through the
 * declared passes up to a named one (src/pipeline.c), and asked for what they produced. The
 * driver, aotrace -l, the unit tests and the fuzzers all compile through this header.
 */
#ifndef AOT_AOTCC_H
#define AOT_AOTCC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "policy.h"

struct diags;
struct probe_env;

/*
 * The defaults of the settings a program may leave unset, each decided here once. Plain
 * numbers: aotrace --help spells them out with the preprocessor.
 */
#define AOT_STRLEN_DEFAULT 1024 /* bytes of a string value (bpftrace 0.27's max_strlen) */
/*
 * The most a source may ask for. bpftrace 0.27 sets no bound; here a string past the stack
 * lives in the per-CPU scratch map, whose value holds 32 KiB: room for a few of these.
 */
#define AOT_STRLEN_LIMIT 8192
/*
 * Buffers of more bytes than this live in the scratch map from the start (on_stack_limit).
 * bpftrace 0.27's default is 32; aotrace keeps smaller buffers on the stack and moves them all
 * to the scratch map only for a program whose stack overflows, so only what can never fit (a
 * 1024-byte string) has to go there at once.
 */
#define AOT_ON_STACK_LIMIT_DEFAULT 256
#define AOT_MAP_KEYS_MAX_DEFAULT 4096 /* max_entries of a map */
#define AOT_MAX_PROBES_DEFAULT 512    /* probes a program may attach, as bpftrace's default */

/* The passes in pipeline order; aot_program__run() runs up to one of them. */
enum aot_pass {
	AOT_PASS_PARSE,
	AOT_PASS_EXPAND,
	AOT_PASS_SEMA,
	AOT_PASS_CODEGEN,
	AOT_PASS_ALL = AOT_PASS_CODEGEN,
};

/* --expand: how a wildcard becomes programs (multi links are chosen apart: no_multi). */
enum aot_expand {
	AOT_EXPAND_AUTO = 0, /* aliases where the run is ours and the kernel can, full otherwise */
	AOT_EXPAND_FULL,     /* one function per match: loadable by any libbpf loader */
	AOT_EXPAND_ALIAS,    /* one function per distinct body, an ELF alias per match */
};

/* -d: what to print, and where, as the passes go. */
enum aot_dump {
	AOT_DUMP_AST = 1 << 0,	  /* the tree after parsing */
	AOT_DUMP_IR = 1 << 1,	  /* LLVM IR before optimisation */
	AOT_DUMP_IR_OPT = 1 << 2, /* after optimisation */
	AOT_DUMP_ASM = 1 << 3,	  /* BPF assembly */
};

/*
 * What a compilation is asked for, as libbpf's opts: sz is sizeof(struct aot_compile_opts) as
 * the caller was built with (AOT_COMPILE_OPTS sets it), so the struct can grow. Zero means the
 * default for every field. Pointers are borrowed: what they point to must outlive the program.
 *
 * The settings (strlen_max, map_keys_max, max_probes, on_stack_limit, btf_path) have more than one
 * source: a source fills only what the ones before it left unset, so precedence is the order they
 * are applied in. The driver fills the command line's, then aot_compile_opts_from_env(); what is
 * still unset when the program is made gets its AOT_*_DEFAULT.
 */
/* What using an unstable feature of bpftrace 0.27 does (its unstable_* config keys). */
enum aot_unstable {
	AOT_UNSTABLE_DEFAULT = 0, /* not given: warn, bpftrace's default */
	AOT_UNSTABLE_WARN,	  /* a warning, once */
	AOT_UNSTABLE_ENABLE,
	AOT_UNSTABLE_ERROR,
};

struct aot_compile_opts {
	size_t sz;
	/* the program's inputs */
	char **params; /* positional parameters $1..$N */
	int nparams;
	/* named parameters for getopt(), "--name" or "--name=value", given after "--" */
	char **named;
	int nnamed;
	const char *const *include_dirs; /* -I DIR for the C definitions (NULL-terminated) */
	const char *const *includes;	 /* --include FILE, before the script's own C */
	/* settings */
	uint32_t strlen_max;   /* BPFTRACE_MAX_STRLEN: bytes of a string value */
	uint32_t map_keys_max; /* BPFTRACE_MAP_KEYS_MAX: max_entries of maps */
	uint32_t max_probes;   /* --max-probes, BPFTRACE_MAX_PROBES: more is an error */
	const char *btf_path;  /* AOTRACE_BTF: kernel types from this file, not the running one's */
	/* what to make */
	enum aot_expand expand;
	enum aot_missing_policy missing; /* --missing-probes: a probe this host lacks */
	uint32_t helper_check;		 /* -k: 1, warn when helpers fail; -kk: 2, reads too */
	bool no_multi;			 /* one program per wildcard match, never multi links */
	bool unsafe;			 /* system(), override(), signal() allowed */
	bool emit_elf;			 /* for other hosts: warn about what is not portable */
	bool no_warnings;		 /* --no-warnings: diagnostics leave warnings out */
	unsigned dump;			 /* enum aot_dump */
	FILE *dump_out;			 /* where dumps go; NULL: stdout */
	const char *emit_llvm; /* write the IR to PATH.original.ll and PATH.optimized.ll */
	/*
	 * What the probe types look up on this host (tracefs, kernel BTF), to share between
	 * programs: the fuzzers make thousands. NULL: the program has its own, with btf_path.
	 */
	struct probe_env *env;
	bool missing_set;    /* missing was given (a flag or BPFTRACE_MISSING_PROBES) */
	uint32_t stack_mode; /* stack_mode: AOT_STACK_MODE_* + 1; 0: not given (bpftrace) */
	/* BPFTRACE_ON_STACK_LIMIT: buffers of more bytes go to the scratch map at once */
	uint32_t on_stack_limit;
	bool no_session; /* --no-session: entry and return wildcards never share a program */
	bool verbose;	 /* -v: say on stderr what the compile did (the C parser's peak RSS) */
	/* unstable_tseries (BPFTRACE_UNSTABLE_TSERIES, the config block): enum aot_unstable */
	uint32_t unstable_tseries;
	/*
	 * Last-key caches of count() maps (cg_lastkey.c), AOTRACE_LASTKEY: AOT_LASTKEY_AUTO in
	 * programs aotrace runs but not in --emit-elf objects (whose maps other loaders read),
	 * _OFF never (0), _ON in every program (1)
	 */
	uint32_t lastkey;
	/* license (BPFTRACE_LICENSE, the config block): one of config_license's; NULL: GPL */
	const char *license;
	size_t : 0;
};

enum aot_lastkey { AOT_LASTKEY_AUTO, AOT_LASTKEY_OFF, AOT_LASTKEY_ON };

#define AOT_COMPILE_OPTS(name, ...)                                                                \
	struct aot_compile_opts name = { .sz = sizeof(struct aot_compile_opts), __VA_ARGS__ }

/*
 * The environment as one more source of settings (bpftrace's variables): fills those opts
 * leaves unset. The one place the compiler reads the environment. 0, or -EINVAL with the bad
 * variable named on err.
 */
int aot_compile_opts_from_env(struct aot_compile_opts *opts, FILE *err);
/*
 * Warns on err about each BPFTRACE_* variable of a bpftrace 0.27 config key that aotrace does
 * not honour yet (BPFTRACE_ON_STACK_LIMIT, ...), or only with one value, so that none is
 * silently ignored. The config block makes the same keys errors.
 */
void aot_config_env_check(FILE *err);

struct aot_program;

/*
 * A program of text (len bytes, copied; name is the file name diagnostics show) to compile
 * with opts (may be NULL: all defaults). NULL with errno set: ENOMEM, or EINVAL for options out
 * of range.
 */
struct aot_program *aot_program__new(const char *name, const char *text, size_t len,
				     const struct aot_compile_opts *opts);
void aot_program__free(struct aot_program *prog);

/*
 * Runs the passes not yet run, up to last; a later call goes on from there. The first pass
 * that reports an error stops the pipeline for good. 0, or -EINVAL once diagnostics say why,
 * or another -errno (then maybe without a diagnostic).
 */
int aot_program__run(struct aot_program *prog, enum aot_pass last);

/* Errors and warnings of the passes run so far (diags_print shows them). */
const struct diags *aot_program__diags(const struct aot_program *prog);
/* The BPF ELF object codegen made, owned by prog; NULL before. */
const void *aot_program__elf(const struct aot_program *prog, size_t *size);
/* The same, handed over: the caller frees it, and may free prog before running it. */
void *aot_program__take_elf(struct aot_program *prog, size_t *size);
/*
 * For an object cache, after codegen: whether the object holds values read from this boot's
 * state (kaddr, uaddr, cgroupid), so it must not be reused, and the files whose identity it
 * depends on (what the C definitions included, the binaries of uprobes and USDT probes).
 * deps is owned by prog; NULL with *n 0 when there are none, or when memory ran out.
 */
bool aot_program__host_bound(const struct aot_program *prog);
const char *const *aot_program__deps(struct aot_program *prog, size_t *n);
/*
 * aotrace -l with a program: every concrete probe its attach points stand for, one a line (with
 * their arguments when verbose). Needs AOT_PASS_EXPAND run. 0, or -errno.
 */
int aot_program__list(struct aot_program *prog, bool verbose, FILE *out);

#endif
