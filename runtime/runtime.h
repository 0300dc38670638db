/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runtime's public face: it starts from the bytes of a BPF ELF object with an aotrace
 * metadata section, and loads, attaches, runs BEGIN, polls events, runs END, prints the maps,
 * and detaches. It never links LLVM: aotrace and aotrace-run both call it.
 */
#ifndef AOT_RUNTIME_H
#define AOT_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "policy.h"

enum aot_output_format { AOT_OUT_TEXT = 0, AOT_OUT_JSON };

/* -B: when the program output is written out. */
enum aot_buffering {
	AOT_BUF_DEFAULT = 0, /* after each batch of events the ring buffer hands over */
	AOT_BUF_LINE,	     /* after each line */
	AOT_BUF_FULL,	     /* when the buffer is full, and at the end */
	AOT_BUF_NONE,	     /* at once */
};

#define AOT_CAT_BYTES_DEFAULT 10240 /* bytes cat() prints at most, as bpftrace */
/* The largest process id Linux has (PID_MAX_LIMIT on 64-bit), which -p checks as bpftrace does. */
#define AOT_PID_MAX (4 * 1024 * 1024)

/* What a run does: attach and trace, or run the test: or bench: probes (bpftrace 0.26). */
enum aot_run_mode {
	AOT_RUN_TRACE = 0,
	AOT_RUN_TEST,
	AOT_RUN_BENCH,
};

struct aot_run_opts {
	size_t sz; /* sizeof(struct aot_run_opts), so the struct can grow */
	FILE *out; /* -o FILE or stdout */
	enum aot_output_format format;
	int verbose;   /* -v */
	bool quiet;    /* -q: no "Attached N probes" line */
	char **params; /* positional parameters $1..$N */
	int nparams;
	const char *obj_name; /* for messages: the script or ELF name */
	const char *source;   /* the script's text, to quote lines in verifier errors; NULL:
			       * read the file the BTF line info names, if it exists */
	int pid;	      /* -p PID: uprobes and USDT only in this process, and the run ends
			       * when it exits; 0: all */
	char *const *cmd;     /* -c CMD: run it (argv, NULL-terminated), probes attached
			       * before it starts, the run ends when it exits; NULL: none */
	enum aot_missing_policy missing; /* --missing-probes */
	int *exit_code; /* out, if not NULL: the code of exit(code) after a normal end, else 0 */
	enum aot_buffering buffering; /* -B */
	bool no_warnings;	      /* --no-warnings */
	unsigned long rb_pages; /* ring buffer pages per CPU (BPFTRACE_PERF_RB_PAGES); 0: 64 */
	unsigned long cat_max;	/* bytes cat() prints at most (BPFTRACE_CAT_BYTES_MAX); 0: 10240 */
	/* --metrics: serve the maps to Prometheus at http://ADDRESS:PORT/metrics; NULL: not */
	const char *metrics_addr;
	const char *metrics_prefix;	  /* metric names begin with it; NULL: the default */
	unsigned long metrics_max_series; /* series per map a scrape shows; 0: the default */
	const char *metrics_maps; /* "@a,@b": serve only these; NULL: every map of numbers */
	/* bytes of a program's verifier log (BPFTRACE_LOG_SIZE); 0: 256 KiB, 16 MiB with -v */
	unsigned long log_size;
	/* missing was given (--missing-probes, BPFTRACE_MISSING_PROBES): over a config block's */
	bool missing_set;
	/* print_maps_on_exit: 0 as the object's config block says (default yes), 1 no, 2 yes */
	int print_maps;
	bool dry_run; /* --dry-run: load and attach, then end without BEGIN or output */
	/* lazy_symbolication: 0 as the object says (default yes), 1 no, 2 yes */
	int lazy_syms;
	/* after a string cut short (BPFTRACE_STR_TRUNC_TRAILER); NULL: the object's, or ".." */
	const char *trailer;
	enum aot_run_mode mode; /* --test, --bench: run those probes, attach nothing */
};

/* Series of one map a scrape shows at most, by default (--metrics-max-series). */
#define AOT_METRICS_SERIES_DEFAULT 10000
/* What metric names begin with, by default (--metrics-prefix). */
#define AOT_METRICS_PREFIX_DEFAULT "aotrace_"

/*
 * Runs an object until exit() or a signal (SIGINT/SIGTERM/SIGHUP). Returns 0 on a normal end
 * (the status to exit with is then *opts->exit_code), 1 on a load or attach failure,
 * AOT_RUN_USAGE when an option cannot be honoured (--metrics: its address cannot be listened on,
 * --metrics-maps names no map of numbers); the failures are reported on stderr.
 */
#define AOT_RUN_USAGE 2
int aot_run(const void *elf, size_t size, const struct aot_run_opts *opts);

/*
 * --explain: prints, as text or JSON (opts->format) on opts->out, what the object would attach
 * and how (probes, programs, strategy, links) and what its metadata holds (maps, formats,
 * parameters). Loads nothing. Returns 0, or 1 if the object is unreadable (reported).
 */
int aot_explain(const void *elf, size_t size, const struct aot_run_opts *opts);

/*
 * Whether bytes from elsewhere (a cache entry) are an object the runtime can read: the checks
 * aot_run makes of the ELF and its metadata before it loads anything. 0, or -EINVAL with the
 * reason in err.
 */
int aot_object_check(const void *elf, size_t size, char *err, size_t errlen);

#endif
