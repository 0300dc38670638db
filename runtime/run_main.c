// SPDX-License-Identifier: GPL-2.0
/*
 * aotrace-run: runs a BPF ELF object that `aotrace --emit-elf` wrote, on a host with no
 * compiler. It is built from the runtime library alone (no LLVM, no libclang): read the file,
 * parse the shared run-time options, hand both to aot_run() or aot_explain().
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "runtime.h"

#ifndef AOTRACE_VERSION
#define AOTRACE_VERSION "0.1.0"
#endif

/* Exit statuses, as aotrace's (aotrace-run(8)). */
enum { RUN_OK = 0, RUN_FAILED = 1, RUN_USAGE = 2 };

static const struct aot_cli_opt run_own_opts[] = {
	{ "help", no_argument, 'h', NULL, "show this help and exit" },
	{ "version", no_argument, 'V', NULL, "show the version and exit" },
};
#define RUN_NOWN (sizeof(run_own_opts) / sizeof(run_own_opts[0]))

static void run_usage(FILE *f, const struct aot_cli_table *tables)
{
	fprintf(f, "usage: aotrace-run [OPTIONS] FILE.bpf.o [ARGS...]\n\n"
		   "Run a BPF ELF object compiled by `aotrace --emit-elf`. ARGS are the program's\n"
		   "positional parameters $1, $2, ...\n\n"
		   "options:\n");
	aot_cli_help(f, tables);
	fprintf(f, "\nenvironment:\n");
	aot_cli_help_env(f);
	fprintf(f,
		"\nexit status: 0 success, 1 the object could not be run (malformed, or refused\n"
		"             by the kernel: load, verifier, attach), 2 usage error (--metrics\n"
		"             cannot listen where it is told, among others)\n");
}

/* The whole file in memory: libbpf opens the object from memory, as aotrace's own. */
static int run_read_file(const char *path, void **buf, size_t *size)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	int ret = 0;

	*buf = NULL;
	if (!f)
		return -errno;
	if (fstat(fileno(f), &st)) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > (1l << 30)) {
		ret = -EINVAL;
		goto out;
	}
	*size = (size_t)st.st_size;
	*buf = malloc(*size);
	if (!*buf) {
		ret = -ENOMEM;
		goto out;
	}
	if (fread(*buf, 1, *size, f) != *size) {
		ret = ferror(f) ? -EIO : -EINVAL;
		free(*buf);
		*buf = NULL;
	}
out:
	fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	const struct aot_cli_table tables[] = {
		{ aot_cli_run_opts, aot_cli_nrun_opts },
		{ run_own_opts, RUN_NOWN },
		{ NULL, 0 },
	};
	struct option longopts[AOT_CLI_MAX_OPTS + 1];
	char shortopts[3 * AOT_CLI_MAX_OPTS + 2];
	struct aot_cli_run r = { 0 };
	struct aot_cli_state st = { 0 };
	int c, ret, status, exit_code = 0;
	struct aot_run_opts ro = { .sz = sizeof(ro), .exit_code = &exit_code };
	const char *path;
	void *elf = NULL;
	size_t size = 0;

	if (aot_cli_getopt(tables, longopts, shortopts))
		return RUN_USAGE;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		ret = aot_cli_run_parse("aotrace-run", c, optarg, &r);
		if (ret > 0)
			continue;
		if (ret < 0)
			return RUN_USAGE;
		if (c == 'h') {
			run_usage(stdout, tables);
			return RUN_OK;
		}
		if (c == 'V') {
			printf("aotrace-run v%s\n", AOTRACE_VERSION);
			return RUN_OK;
		}
		run_usage(stderr, tables);
		return RUN_USAGE;
	}
	if (optind >= argc) {
		fprintf(stderr, "aotrace-run: no object given\n");
		run_usage(stderr, tables);
		return RUN_USAGE;
	}
	path = argv[optind++];
	for (int i = optind; i < argc; i++) {
		/* getopt()'s values are literals of the object: a run cannot change them */
		if (!strncmp(argv[i], "--", 2) && argv[i][2]) {
			fprintf(stderr,
				"aotrace-run: %s: named parameters are fixed when the object is "
				"compiled: aotrace --emit-elf %s SCRIPT -- %s\n",
				argv[i], path, argv[i]);
			return RUN_USAGE;
		}
	}
	ret = run_read_file(path, &elf, &size);
	if (ret) {
		fprintf(stderr, "aotrace-run: cannot read %s: %s\n", path,
			ret == -EINVAL ? "not a regular, non-empty file" : strerror(-ret));
		return RUN_USAGE;
	}
	if (aot_cli_run_env("aotrace-run", &r) || aot_cli_run_begin("aotrace-run", &r, &ro, &st)) {
		free(elf);
		return RUN_USAGE;
	}
	ro.params = argv + optind;
	ro.nparams = argc - optind;
	ro.obj_name = path;
	if (r.explain)
		status = aot_explain(elf, size, &ro) ? RUN_FAILED : RUN_OK;
	else if ((ret = aot_run(elf, size, &ro)))
		status = ret == AOT_RUN_USAGE ? RUN_USAGE : RUN_FAILED;
	else
		status = exit_code;
	aot_cli_run_end(&st);
	free(elf);
	return status;
}
