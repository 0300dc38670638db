/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run-time options aotrace and aotrace-run share: one table of names, arguments and help
 * text, one parser for them, and the step from parsed options to struct aot_run_opts. Each
 * binary keeps its own table for the options only it has and asks this one for the rest.
 */
#ifndef AOT_CLI_H
#define AOT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "runtime.h"

/* getopt values of the shared long-only options; short options use their letter. */
enum {
	AOT_CLI_MISSING_PROBES = 300,
	AOT_CLI_EXPLAIN,
	AOT_CLI_NO_WARNINGS,
	AOT_CLI_METRICS,
	AOT_CLI_METRICS_PREFIX,
	AOT_CLI_METRICS_MAX_SERIES,
	AOT_CLI_METRICS_MAPS,
	AOT_CLI_DRY_RUN,
	AOT_CLI_TEST,
	AOT_CLI_BENCH,
	AOT_CLI_SHARED_END, /* the driver's long-only options start here */
};

/* One option: getopt's name/has_arg/val plus what --help shows. */
struct aot_cli_opt {
	const char *name; /* long name, or a single letter for a short-only option */
	int has_arg;
	int val;
	const char *arg, *help;
};

/* The shared run-time options, in --help order. */
extern const struct aot_cli_opt aot_cli_run_opts[];
extern const size_t aot_cli_nrun_opts;

/* Help text of the shared options, for a binary that lists them in its own table. */
#define AOT_CLI_HELP_OUTPUT "write the output to FILE instead of stdout"
#define AOT_CLI_HELP_FORMAT "output format: text or json"
#define AOT_CLI_HELP_PID                                                                           \
	"uprobes fire only in process PID, iter:task visits only it; the run ends when it exits"
#define AOT_CLI_HELP_CMD "run CMD with the probes attached; the run ends when it exits"
#define AOT_CLI_HELP_MISSING                                                                       \
	"a probe this kernel lacks: error, warn (skip it; the default) or ignore (skip silently)"
#define AOT_CLI_HELP_EXPLAIN                                                                       \
	"say what would be attached, how, and what the metadata holds; run nothing"

/* What the shared options set. Zero-initialised means: the defaults. */
struct aot_cli_run {
	const char *out_path; /* -o */
	enum aot_output_format format;
	int verbose;
	bool quiet;
	bool explain;
	bool dry_run;		/* --dry-run */
	enum aot_run_mode mode; /* --test, --bench */
	int pid;		/* -p */
	const char *cmd;	/* -c, as given: split into words by aot_cli_run_begin */
	enum aot_missing_policy missing;
	bool missing_set;	      /* --missing-probes or BPFTRACE_MISSING_PROBES */
	int print_maps;		      /* BPFTRACE_PRINT_MAPS_ON_EXIT: 0 unset, 1 no, 2 yes */
	int lazy_syms;		      /* BPFTRACE_LAZY_SYMBOLICATION: 0 unset, 1 no, 2 yes */
	enum aot_buffering buffering; /* -B */
	bool no_warnings;	      /* --no-warnings */
	const char *metrics;	      /* --metrics ADDRESS:PORT, checked */
	const char *metrics_prefix;   /* --metrics-prefix, checked */
	unsigned long metrics_max_series;
	const char *metrics_maps; /* --metrics-maps @a,@b */
};

/*
 * Handles getopt's result c (with optarg) if it is a shared option. 1: handled; 0: not a
 * shared option; -EINVAL: a bad argument, reported on stderr as "PROG: ...".
 */
int aot_cli_run_parse(const char *prog, int c, const char *optarg, struct aot_cli_run *r);

/*
 * The run-time settings of bpftrace 0.27's environment that the compiler heeds too
 * (BPFTRACE_MISSING_PROBES, BPFTRACE_PRINT_MAPS_ON_EXIT), into what the command line left unset.
 * 0, or -EINVAL reported on stderr as "PROG: ...".
 */
int aot_cli_run_env(const char *prog, struct aot_cli_run *r);

/* A binary's options: its tables in --help order, ended by one with n == 0. */
struct aot_cli_table {
	const struct aot_cli_opt *opts;
	size_t n;
};
#define AOT_CLI_MAX_OPTS 72 /* options of a binary, all its tables together */

/* Prints the options of the tables as --help shows them ("  -o, --output FILE   help"). */
void aot_cli_help(FILE *f, const struct aot_cli_table *t);
/* The --help lines of the environment variables the runtime reads. */
void aot_cli_help_env(FILE *f);

/*
 * Fills getopt_long's tables from the option tables (longopts needs AOT_CLI_MAX_OPTS + 1
 * entries; shortopts 3 * AOT_CLI_MAX_OPTS + 2 bytes). shortopts starts with '+': options stop
 * at the first operand. 0, or -E2BIG past AOT_CLI_MAX_OPTS options.
 */
int aot_cli_getopt(const struct aot_cli_table *t, void *longopts, char *shortopts);

/* What aot_cli_run_begin opened and allocated, released by aot_cli_run_end. */
struct aot_cli_state {
	FILE *out;
	void *words; /* wordexp_t */
};

/*
 * Fills ro's fields for the shared options: opens -o, splits -c into words the way a shell
 * would (quotes, no command substitution). 0, or -errno reported as "PROG: ...".
 */
int aot_cli_run_begin(const char *prog, const struct aot_cli_run *r, struct aot_run_opts *ro,
		      struct aot_cli_state *st);
void aot_cli_run_end(struct aot_cli_state *st);

#endif
