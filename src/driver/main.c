// SPDX-License-Identifier: GPL-2.0
/*
 * aotrace's driver: the command line becomes the compiler's options, the compiler (aotcc.h) makes
 * an ELF object of the program, and the object is either written out (--emit-elf) or handed to
 * the runtime.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "aotcc.h"
#include "cache.h"
#include "cli.h"
#include "diag.h"
#include "probe.h"
#include "runtime.h"

#ifndef AOTRACE_VERSION
#define AOTRACE_VERSION "0.1.0"
#endif

/* Exit statuses, documented in aotrace(8). */
enum {
	EXIT_OK = 0,
	EXIT_PROGRAM = 1, /* the program has errors: diagnostics were printed */
	EXIT_USAGE = 2,	  /* bad command line */
	EXIT_KERNEL = 3,  /* the kernel refused it: load, verifier or attach */
};

struct cli {
	const char *prog_text; /* -e */
	const char *file;      /* script path or "-" */
	const char *emit_elf;  /* --emit-elf */
	bool list;	       /* -l [PATTERN] */
	bool no_cache;	       /* --no-cache */
	/* -I DIR, --include FILE (NULL-terminated): what compile.include_dirs/includes point at */
	const char **include_dirs, **includes;
	struct aot_compile_opts compile; /* the compiler's options, set where they are parsed */
	struct aot_cli_run run; /* -o -f -B -p -c -v -q --missing-probes --explain: runtime/cli.c */
};

/* "(default N, or VARIABLE)", N as aotcc.h decides it */
#define CLI_STR_(x) #x
#define CLI_DEFAULT(n, env) "(default " CLI_STR_(n) ", or " env ")"

/*
 * One table for getopt and --help, so the two cannot drift apart: the compiler's options here,
 * the run-time options aotrace-run has too in runtime/cli.c, then help and version.
 */
static const struct aot_cli_opt cli_opts[] = {
	{ "e", required_argument, 'e', "PROGRAM",
	  "compile and run PROGRAM given on the command line" },
	{ "emit-elf", required_argument, 'E', "FILE",
	  "write the BPF ELF object to FILE and do not run it" },
	{ "emit-llvm", required_argument, 274, "FILE",
	  "also write the LLVM IR to FILE.original.ll and FILE.optimized.ll" },
	{ "usdt-file-activation", no_argument, 275, NULL,
	  "accepted for bpftrace: the kernel sets USDT semaphores in every process probed" },
	{ "dump", required_argument, 'd', "STAGES",
	  "print the state after stages: ast, ir, ir-opt, asm, all (comma list)" },
	{ "debug", required_argument, 'd', "STAGES",
	  "the same, with bpftrace's names too: codegen (ir), codegen-opt (ir-opt), dis (asm)" },
	{ "list", no_argument, 'l', NULL,
	  "list probes matching the pattern given as FILE (all if none); with -v, their arguments" },
	{ "I", required_argument, 'I', "DIR", "look for the script's #include files in DIR too" },
	{ "include", required_argument, 272, "FILE",
	  "#include FILE before the script's own C definitions" },
	{ "warnings", no_argument, 'k', NULL,
	  "warn where a BPF helper fails (map update/delete, stacks, signal); -kk: reads and map "
	  "lookups too" },
	{ "unsafe", no_argument, 258, NULL,
	  "allow functions that act on the system: system(), signal(), override(); and uprobes "
	  "inside a function at an address (not at a source line, BINARY@FILE:LINE)" },
	{ "map-keys-max", required_argument, 259, "N",
	  "maps hold at most N keys " CLI_DEFAULT(AOT_MAP_KEYS_MAX_DEFAULT,
						  "BPFTRACE_MAX_MAP_KEYS") },
	{ "no-multi", no_argument, 257, NULL,
	  "one program per wildcard match instead of one program with a multi link" },
	{ "no-session", no_argument, 278, NULL,
	  "kprobe and kretprobe (uprobe, uretprobe) of one wildcard, kfunc and kretfunc of one "
	  "function, as two programs, two links" },
	{ "expand", required_argument, 270, "HOW",
	  "kfunc wildcards: auto, full (one function per match) or alias (one per body, cloned at load, "
	  "or one tracing multi link where the body reads no args)" },
	{ "no-cache", no_argument, 276, NULL,
	  "compile even if the object cache has the program, and keep nothing there" },
	{ "max-probes", required_argument, 271, "N",
	  "refuse to attach more than N probes " CLI_DEFAULT(AOT_MAX_PROBES_DEFAULT,
							     "BPFTRACE_MAX_PROBES") },
};
/*
 * bpftrace 0.27's options aotrace does not have: named in --help and the man page, and an error
 * that says so, never silently taken. getopt values from CLI_BPFTRACE_ONLY on, in this order.
 */
#define CLI_BPFTRACE_ONLY (AOT_CLI_SHARED_END + 16)
#define CLI_NOT_YET "bpftrace's; not supported yet (an error)"
static const struct aot_cli_opt cli_bpftrace_only_opts[] = {
	{ "dwarf-pid", required_argument, CLI_BPFTRACE_ONLY, "PID", CLI_NOT_YET },
	{ "debuginfo", required_argument, CLI_BPFTRACE_ONLY + 1, "DIR", CLI_NOT_YET },
	{ "traceable-functions", required_argument, CLI_BPFTRACE_ONLY + 2, "FILE", CLI_NOT_YET },
	{ "no-feature", required_argument, CLI_BPFTRACE_ONLY + 3, "FEATURE", CLI_NOT_YET },
	{ "mode", required_argument, CLI_BPFTRACE_ONLY + 4, "MODE", CLI_NOT_YET },
	{ "probe-filter", required_argument, CLI_BPFTRACE_ONLY + 5, "REGEX", CLI_NOT_YET },
	{ "fmt", no_argument, CLI_BPFTRACE_ONLY + 6, NULL, CLI_NOT_YET },
};
#define NBPFTRACE_ONLY (sizeof(cli_bpftrace_only_opts) / sizeof(cli_bpftrace_only_opts[0]))

static const struct aot_cli_opt cli_info_opts[] = {
	{ "verify-llvm-ir", no_argument, 277, NULL,
	  "accepted for bpftrace: aotrace always checks the LLVM IR it makes" },
	{ "info", no_argument, 273, NULL,
	  "show what this kernel offers (BTF, kprobes, multi links, fentry...), each tried" },
	{ "help", no_argument, 'h', NULL, "show this help and exit" },
	{ "version", no_argument, 'V', NULL, "show the version and exit" },
};
#define NOPTS (sizeof(cli_opts) / sizeof(cli_opts[0]))
#define NINFO_OPTS (sizeof(cli_info_opts) / sizeof(cli_info_opts[0]))

static void cli_usage(FILE *f, const struct aot_cli_table *tables)
{
	fprintf(f,
		"usage: aotrace [OPTIONS] FILE|- [ARGS...] [-- [ARGS...] [--NAME[=VALUE]...]]\n"
		"       aotrace [OPTIONS] -e PROGRAM [ARGS...] [-- ...]\n"
		"       aotrace -l [-v] [PATTERN]\n\n"
		"Compile a bpftrace program ahead of time into a BPF ELF object, and run it.\n"
		"ARGS are its positional parameters ($1, ...); --NAME[=VALUE] after -- its named\n"
		"ones, for getopt(\"NAME\", DEFAULT); -- --help lists the script's.\n\n"
		"options:\n");
	aot_cli_help(f, tables);
	fprintf(f,
		"\nconfig:\n  a script may begin with config = { key = value; ... } (man aotrace, "
		"CONFIG);\n  each key is also an environment variable BPFTRACE_KEY, which ranks "
		"over the block\n");
	fprintf(f,
		"\nsignals:\n  SIGINT, SIGTERM, SIGHUP end the run (END, then the maps); SIGUSR1 "
		"runs the\n  self:signal:SIGUSR1 probes, or prints the maps where there is "
		"none\n");
	fprintf(f, "\nenvironment:\n  %-26s %s (default %u, at most %u)\n", "BPFTRACE_MAX_STRLEN",
		"bytes of a string value, including the NUL", AOT_STRLEN_DEFAULT, AOT_STRLEN_LIMIT);
	fprintf(f, "  %-26s %s (default %u)\n", "BPFTRACE_ON_STACK_LIMIT",
		"bytes of a buffer past which it lives in the scratch map",
		AOT_ON_STACK_LIMIT_DEFAULT);
	fprintf(f, "  %-26s %s\n", "XDG_CACHE_HOME",
		"compiled objects are kept in $XDG_CACHE_HOME/aotrace (~/.cache/aotrace)");
	aot_cli_help_env(f);
	fprintf(f, "\nexit status: 0 success, 1 errors in the program, 2 usage error,\n"
		   "             3 the kernel refused the program (load, verifier, attach)\n");
}

static int cli_parse_dump(const char *arg, unsigned *dump)
{
	static const struct {
		const char *name;
		unsigned bits;
	} stages[] = { { "ast", AOT_DUMP_AST },
		       { "ir", AOT_DUMP_IR },
		       { "ir-opt", AOT_DUMP_IR_OPT },
		       { "asm", AOT_DUMP_ASM },
		       { "all", AOT_DUMP_AST | AOT_DUMP_IR | AOT_DUMP_IR_OPT | AOT_DUMP_ASM },
		       /* bpftrace's --debug names */
		       { "codegen", AOT_DUMP_IR },
		       { "codegen-opt", AOT_DUMP_IR_OPT },
		       { "dis", AOT_DUMP_ASM } };
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
			if (strcmp(tok, stages[i].name) == 0)
				break;
		if (i == sizeof(stages) / sizeof(stages[0])) {
			fprintf(stderr,
				"aotrace: unknown dump stage '%s' (ast, ir, ir-opt, asm, all; "
				"bpftrace's codegen, codegen-opt, dis)\n",
				tok);
			ret = -EINVAL;
			break;
		}
		*dump |= stages[i].bits;
	}
	free(copy);
	return ret;
}

/* 0: go on; 1: done (help or version printed); -EINVAL: usage error, already reported. */
/*
 * The arguments after the script: "--name" and "--name=value" (only after "--") are named
 * parameters for getopt(), the rest positional ($1, ...). The first "--" is dropped where
 * getopt_long's reordering left it (after positional ones: `-e P 7 -- --n`). Reordered in
 * place, positional ones first, each kind in its order.
 */
static void cli_split_params(char **args, int n, struct aot_compile_opts *o)
{
	bool dashes = false;
	int npos = 0;

	for (int i = 0; i < n; i++) {
		char *a = args[i];

		if (!strcmp(a, "--") && !dashes) {
			dashes = true;
			memmove(args + i, args + i + 1, (size_t)(n - i - 1) * sizeof(*args));
			n--;
			i--;
			continue;
		}
		if (!strncmp(a, "--", 2) && a[2])
			continue;
		memmove(args + npos + 1, args + npos, (size_t)(i - npos) * sizeof(*args));
		args[npos++] = a;
	}
	o->params = args;
	o->nparams = npos;
	o->named = args + npos;
	o->nnamed = n - npos;
}

static int cli_parse(int argc, char **argv, struct cli *cli)
{
	const struct aot_cli_table tables[] = {
		{ cli_opts, NOPTS },
		{ aot_cli_run_opts, aot_cli_nrun_opts },
		{ cli_info_opts, NINFO_OPTS },
		{ cli_bpftrace_only_opts, NBPFTRACE_ONLY },
		{ NULL, 0 },
	};
	struct option longopts[AOT_CLI_MAX_OPTS + 1];
	char shortopts[3 * AOT_CLI_MAX_OPTS + 2];
	size_t ninc = 0, ndirs = 0;
	int c;

	if (aot_cli_getopt(tables, longopts, shortopts))
		return -EINVAL;
	/* at most one of each per argument: room for them all, NULL-terminated */
	cli->include_dirs = calloc((size_t)argc + 1, sizeof(*cli->include_dirs));
	cli->includes = calloc((size_t)argc + 1, sizeof(*cli->includes));
	if (!cli->include_dirs || !cli->includes)
		return -ENOMEM;

	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			cli->prog_text = optarg;
			break;
		case 'E':
			cli->emit_elf = optarg;
			break;
		case 274:
			cli->compile.emit_llvm = optarg;
			break;
		case 276:
			cli->no_cache = true;
			break;
		case 275:
			break; /* what bpftrace's flag asks for is how USDT semaphores always work
				  here */
		case 'd':
			if (cli_parse_dump(optarg, &cli->compile.dump))
				return -EINVAL;
			break;
		case 'l':
			cli->list = true;
			break;
		case 'I':
			cli->include_dirs[ndirs++] = optarg;
			break;
		case 272:
			cli->includes[ninc++] = optarg;
			break;
		case 257:
			cli->compile.no_multi = true;
			break;
		case 278:
			cli->compile.no_session = true;
			break;
		case 258:
			cli->compile.unsafe = true;
			break;
		case 'k':
			if (cli->compile.helper_check < 2)
				cli->compile.helper_check++;
			break;
		case 259: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !v || v > (1ul << 24)) {
				fprintf(stderr,
					"aotrace: --map-keys-max takes a number from 1 to %lu\n",
					1ul << 24);
				return -EINVAL;
			}
			cli->compile.map_keys_max = (uint32_t)v;
			break;
		}
		case 270:
			if (!strcmp(optarg, "auto")) {
				cli->compile.expand = AOT_EXPAND_AUTO;
			} else if (!strcmp(optarg, "full")) {
				cli->compile.expand = AOT_EXPAND_FULL;
			} else if (!strcmp(optarg, "alias")) {
				cli->compile.expand = AOT_EXPAND_ALIAS;
			} else {
				fprintf(stderr, "aotrace: --expand takes auto, full or alias\n");
				return -EINVAL;
			}
			break;
		case 271: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !v || v > UINT32_MAX) {
				fprintf(stderr, "aotrace: --max-probes takes a positive number\n");
				return -EINVAL;
			}
			cli->compile.max_probes = (uint32_t)v;
			break;
		}
		case 273: {
			struct probe_env *env = probe_env__new();

			if (!env)
				return -ENOMEM;
			probe_info(env, stdout);
			probe_env__free(env);
			return 1;
		}
		case 'h':
			cli_usage(stdout, tables);
			return 1;
		case 277:
			break; /* codegen verifies every module */
		case CLI_BPFTRACE_ONLY ... CLI_BPFTRACE_ONLY + NBPFTRACE_ONLY - 1:
			fprintf(stderr,
				"aotrace: --%s is bpftrace's, and aotrace does not have it yet\n",
				cli_bpftrace_only_opts[c - CLI_BPFTRACE_ONLY].name);
			return -EINVAL;
		case 'V':
			printf("aotrace v%s\n", AOTRACE_VERSION);
			return 1;
		default:
			if (aot_cli_run_parse("aotrace", c, optarg, &cli->run) > 0)
				break;
			cli_usage(stderr, tables);
			return -EINVAL;
		}
	}
	if (cli->list) {
		/* -l PATTERN, -l SCRIPT [ARGS], -l -e PROGRAM [ARGS]: ARGS for $N in attach points
		 */
		if (!cli->prog_text)
			cli->file = optind < argc ? argv[optind++] : NULL;
	} else if (!cli->prog_text) {
		if (optind >= argc) {
			fprintf(stderr,
				"aotrace: no program given: a script FILE, '-' for stdin, or -e PROGRAM\n");
			cli_usage(stderr, tables);
			return -EINVAL;
		}
		cli->file = argv[optind++];
	}
	cli_split_params(argv + optind, argc - optind, &cli->compile);
	cli->compile.include_dirs = cli->include_dirs;
	cli->compile.includes = cli->includes;
	/* Run-time options the compiler also heeds: it expands probes and reports warnings. */
	if (aot_cli_run_env("aotrace", &cli->run))
		return -EINVAL;
	cli->compile.missing = cli->run.missing;
	cli->compile.missing_set = cli->run.missing_set;
	cli->compile.no_warnings = cli->run.no_warnings;
	cli->compile.emit_elf = cli->emit_elf != NULL;
	cli->compile.verbose = cli->run.verbose > 0;
	return 0;
}

static int read_stream(FILE *f, char **text, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap), *nbuf;

	if (!buf)
		return -ENOMEM;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n - 1 == 0) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

static int load_source(const struct cli *cli, struct source *src)
{
	FILE *f;
	int ret;

	if (cli->prog_text) {
		src->name = strdup("-e");
		src->text = strdup(cli->prog_text);
		src->len = strlen(cli->prog_text);
		return src->name && src->text ? 0 : -ENOMEM;
	}
	if (strcmp(cli->file, "-") == 0) {
		src->name = strdup("stdin");
		ret = read_stream(stdin, &src->text, &src->len);
		return src->name ? ret : -ENOMEM;
	}
	f = fopen(cli->file, "r");
	if (!f) {
		ret = -errno;
		fprintf(stderr, "aotrace: cannot open %s: %s\n", cli->file, strerror(errno));
		return ret;
	}
	src->name = strdup(cli->file);
	ret = read_stream(f, &src->text, &src->len);
	fclose(f);
	return src->name ? ret : -ENOMEM;
}

static int write_file(const char *path, const void *buf, size_t size)
{
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f || fwrite(buf, 1, size, f) != size)
		ret = -errno;
	if (f && fclose(f) && !ret)
		ret = -errno;
	if (ret)
		fprintf(stderr, "aotrace: cannot write %s: %s\n", path, strerror(-ret));
	return ret;
}

/*
 * The program of src compiled up to pass last, with the environment's settings under the
 * command line's, and its diagnostics printed. NULL with *status set when it did not compile.
 */
static struct aot_program *compile(struct cli *cli, const struct source *src, enum aot_pass last,
				   int *status, char **diag_text)
{
	struct aot_program *prog;
	size_t diag_len;
	FILE *df;
	int ret;

	if (aot_compile_opts_from_env(&cli->compile, stderr)) {
		*status = EXIT_USAGE;
		return NULL;
	}
	prog = aot_program__new(src->name, src->text, src->len, &cli->compile);
	if (!prog) {
		fprintf(stderr, "aotrace: cannot compile: %s\n", strerror(errno));
		*status = EXIT_PROGRAM;
		return NULL;
	}
	ret = aot_program__run(prog, last);
	/* the diagnostics as text too, for a cache entry to say them again on a hit */
	df = diag_text ? open_memstream(diag_text, &diag_len) : NULL;
	diags_print(aot_program__diags(prog), df ? df : stderr);
	if (df && !fclose(df))
		fputs(*diag_text, stderr);
	else if (df)
		diags_print(aot_program__diags(prog), stderr);
	if (ret) {
		if (!aot_program__diags(prog)->nerrors)
			fprintf(stderr, "aotrace: %s failed: %s\n", "compilation", strerror(-ret));
		aot_program__free(prog);
		*status = EXIT_PROGRAM;
		return NULL;
	}
	return prog;
}

/* The object handed to the runtime: run, or explained with --explain. */
static int run_object(struct cli *cli, const struct source *src, const void *elf, size_t size)
{
	int status, ret, exit_code = 0;
	struct aot_run_opts ro = {
		.sz = sizeof(ro),
		.params = cli->compile.params,
		.nparams = cli->compile.nparams,
		.obj_name = src->name,
		.source = src->text,
		.exit_code = &exit_code,
	};
	struct aot_cli_state cst;

	if (aot_cli_run_begin("aotrace", &cli->run, &ro, &cst))
		return EXIT_USAGE;
	if (cli->run.explain)
		status = aot_explain(elf, size, &ro) ? EXIT_PROGRAM : EXIT_OK;
	else if ((ret = aot_run(elf, size, &ro)))
		status = ret == AOT_RUN_USAGE ? EXIT_USAGE : EXIT_KERNEL;
	else
		status = exit_code;
	aot_cli_run_end(&cst);
	return status;
}

/*
 * The object cache stands for the compiler where only the object matters: not for
 * --emit-elf, -d or --emit-llvm, which are asked of the compiler itself.
 */
static struct aot_cache *cache_for(struct cli *cli, const struct source *src)
{
	if (cli->no_cache || cli->emit_elf || cli->compile.dump || cli->compile.emit_llvm)
		return NULL;
	if (aot_compile_opts_from_env(&cli->compile, stderr))
		return NULL; /* compile() reports it */
	return aot_cache__new(src->name, src->text, src->len, &cli->compile, cli->run.verbose > 0);
}

static int compile_and_run(struct cli *cli, const struct source *src)
{
	int status = EXIT_OK;
	struct aot_cache *cache = cache_for(cli, src);
	struct aot_program *prog;
	char *diags = NULL;
	size_t size;
	void *elf;

	if (cache && !aot_cache__load(cache, &elf, &size, &diags)) {
		fputs(diags, stderr);
		free(diags);
		aot_cache__free(cache);
		status = run_object(cli, src, elf, size);
		free(elf);
		return status;
	}
	prog = compile(cli, src, AOT_PASS_ALL, &status, cache ? &diags : NULL);
	if (!prog) {
		free(diags);
		aot_cache__free(cache);
		return status;
	}
	/* The compiler's memory is not needed while the program runs. */
	elf = aot_program__take_elf(prog, &size);
	if (cache)
		aot_cache__store(cache, prog, elf, size, diags);
	free(diags);
	aot_cache__free(cache);
	aot_program__free(prog);
	if (cli->emit_elf)
		status = write_file(cli->emit_elf, elf, size) ? EXIT_USAGE : EXIT_OK;
	else if (!cli->compile.dump)
		status = run_object(cli, src, elf, size);
	free(elf);
	return status;
}

/* aotrace -l with a program (-e or a script file): its probes after expansion, one a line. */
static int list_script(struct cli *cli)
{
	struct source src = { 0 };
	struct aot_program *prog = NULL;
	int status = EXIT_PROGRAM;

	if (!load_source(cli, &src))
		prog = compile(cli, &src, AOT_PASS_EXPAND, &status, NULL);
	if (prog && !aot_program__list(prog, cli->run.verbose > 0, stdout))
		status = EXIT_OK;
	aot_program__free(prog);
	free(src.name);
	free(src.text);
	return status;
}

static int list_probes(struct cli *cli)
{
	struct probe_env *env;
	struct stat st;
	int ret;

	if (cli->prog_text || (cli->file && !stat(cli->file, &st) && S_ISREG(st.st_mode)))
		return list_script(cli);
	env = probe_env__new();
	if (!env)
		return EXIT_PROGRAM;
	ret = probe_list(env, cli->file, cli->run.verbose > 0, stdout);
	probe_env__free(env);
	if (ret == -ENOENT && cli->file)
		fprintf(stderr, "aotrace: no probe matches '%s'\n", cli->file);
	else if (ret && ret != -ENOENT)
		fprintf(stderr, "aotrace: cannot list probes: %s\n", strerror(-ret));
	return ret ? EXIT_PROGRAM : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct cli cli = { .compile = { .sz = sizeof(struct aot_compile_opts) } };
	struct source src = { 0 };
	int status;

	status = cli_parse(argc, argv, &cli);
	if (!status && !cli.run.no_warnings)
		aot_config_env_check(stderr);
	if (status)
		status = status > 0 ? EXIT_OK : EXIT_USAGE;
	else if (cli.list)
		status = list_probes(&cli);
	else if (load_source(&cli, &src))
		status = EXIT_USAGE;
	else
		status = compile_and_run(&cli, &src);
	free(src.name);
	free(src.text);
	free(cli.include_dirs);
	free(cli.includes);
	return status;
}
