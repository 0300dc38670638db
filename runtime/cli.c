// SPDX-License-Identifier: GPL-2.0
/*
 * The run-time options both binaries take (-o, -f, -v, -q, -p, -c, --missing-probes,
 * --explain, --metrics): their table, their parser, the help printer both binaries use, and the
 * step to struct aot_run_opts (opening -o, splitting -c into words).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <wordexp.h>

#include "cli.h"
#include "rt.h"

/* A number's constant as text in a help string. */
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

const struct aot_cli_opt aot_cli_run_opts[] = {
	{ "output", required_argument, 'o', "FILE", AOT_CLI_HELP_OUTPUT },
	{ "format", required_argument, 'f', "FORMAT", AOT_CLI_HELP_FORMAT },
	{ "pid", required_argument, 'p', "PID", AOT_CLI_HELP_PID },
	{ "cmd", required_argument, 'c', "CMD", AOT_CLI_HELP_CMD },
	{ "missing-probes", required_argument, AOT_CLI_MISSING_PROBES, "POLICY",
	  AOT_CLI_HELP_MISSING },
	{ "explain", no_argument, AOT_CLI_EXPLAIN, NULL, AOT_CLI_HELP_EXPLAIN },
	{ "dry-run", no_argument, AOT_CLI_DRY_RUN, NULL,
	  "load and attach the probes, then end: no BEGIN, no output (as bpftrace)" },
	{ "test", no_argument, AOT_CLI_TEST, NULL,
	  "run each test: probe once instead of attaching, and report it as bpftrace 0.27 does" },
	{ "bench", no_argument, AOT_CLI_BENCH, NULL,
	  "time each bench: probe instead of attaching: a table of ns per run, as bpftrace 0.27" },
	{ "B", required_argument, 'B', "MODE",
	  "output buffering: line, full or none (default: after each batch of events)" },
	{ "no-warnings", no_argument, AOT_CLI_NO_WARNINGS, NULL,
	  "print no warnings (errors and lost events are still reported)" },
	{ "metrics", required_argument, AOT_CLI_METRICS, "ADDR:PORT",
	  "serve the maps to Prometheus at http://ADDR:PORT/metrics while the program runs" },
	{ "metrics-prefix", required_argument, AOT_CLI_METRICS_PREFIX, "PREFIX",
	  "metric names begin with PREFIX (default " AOT_METRICS_PREFIX_DEFAULT ")" },
	{ "metrics-max-series", required_argument, AOT_CLI_METRICS_MAX_SERIES, "N",
	  "series of one map a scrape shows at most (default " CLI_STR(
		  AOT_METRICS_SERIES_DEFAULT) ")" },
	{ "metrics-maps", required_argument, AOT_CLI_METRICS_MAPS, "@A,@B",
	  "serve only these maps (default: every map whose values are numbers)" },
	{ "verbose", no_argument, 'v', NULL,
	  "say more: libbpf messages, verifier logs, the C parser's peak RSS" },
	{ "quiet", no_argument, 'q', NULL, "do not print the \"Attached N probes\" line" },
};
const size_t aot_cli_nrun_opts = sizeof(aot_cli_run_opts) / sizeof(aot_cli_run_opts[0]);

/* A missing-probes policy by name, as bpftrace 0.27 takes it (any case); -1 if none. */
static int cli_missing_policy(const char *s)
{
	static const char *const policies[] = {
		[AOT_MISSING_WARN] = "warn",
		[AOT_MISSING_ERROR] = "error",
		[AOT_MISSING_IGNORE] = "ignore",
	};

	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (!strcasecmp(s, policies[i]))
			return (int)i;
	return -1;
}

/* A true or false variable of bpftrace 0.27's as *out: 2 true, 1 false, left 0 when unset. */
static int cli_env_bool(const char *prog, const char *name, int *out)
{
	const char *v = getenv(name);

	if (!v)
		return 0;
	if (!strcasecmp(v, "true") || !strcmp(v, "1")) {
		*out = 2;
	} else if (!strcasecmp(v, "false") || !strcmp(v, "0")) {
		*out = 1;
	} else {
		fprintf(stderr, "%s: %s=%s: valid values are true, false, 1 or 0\n", prog, name, v);
		return -EINVAL;
	}
	return 0;
}

int aot_cli_run_env(const char *prog, struct aot_cli_run *r)
{
	const char *missing = getenv("BPFTRACE_MISSING_PROBES");
	int ret;

	if (missing && !r->missing_set) {
		int i = cli_missing_policy(missing);

		if (i < 0) {
			fprintf(stderr,
				"%s: BPFTRACE_MISSING_PROBES=%s: valid values are ignore, warn, and "
				"error\n",
				prog, missing);
			return -EINVAL;
		}
		r->missing = (enum aot_missing_policy)i;
		r->missing_set = true;
	}
	ret = cli_env_bool(prog, "BPFTRACE_PRINT_MAPS_ON_EXIT", &r->print_maps);
	return ret ?: cli_env_bool(prog, "BPFTRACE_LAZY_SYMBOLICATION", &r->lazy_syms);
}

int aot_cli_run_parse(const char *prog, int c, const char *optarg, struct aot_cli_run *r)
{
	static const char *const modes[] = {
		[AOT_BUF_LINE] = "line",
		[AOT_BUF_FULL] = "full",
		[AOT_BUF_NONE] = "none",
	};
	char *end;
	long v;

	switch (c) {
	case 'o':
		r->out_path = optarg;
		return 1;
	case 'f':
		if (!strcmp(optarg, "text")) {
			r->format = AOT_OUT_TEXT;
		} else if (!strcmp(optarg, "json")) {
			r->format = AOT_OUT_JSON;
		} else {
			fprintf(stderr, "%s: output format '%s' is not supported (text, json)\n",
				prog, optarg);
			return -EINVAL;
		}
		return 1;
	case 'v':
		r->verbose++;
		return 1;
	case 'q':
		r->quiet = true;
		return 1;
	case 'p':
		errno = 0;
		v = strtol(optarg, &end, 10);
		if (errno || end == optarg || *end || v <= 0 || v > AOT_PID_MAX) {
			fprintf(stderr, "%s: -p takes a process id from 1 to %d, not '%s'\n", prog,
				AOT_PID_MAX, optarg);
			return -EINVAL;
		}
		/* As bpftrace: a process that is not there is an error, not a silent empty run. */
		if (kill((pid_t)v, 0) && errno == ESRCH) {
			fprintf(stderr, "%s: -p %ld: no such process\n", prog, v);
			return -ESRCH;
		}
		r->pid = (int)v;
		return 1;
	case 'c':
		r->cmd = optarg;
		return 1;
	case 'B':
		for (size_t i = 1; i < sizeof(modes) / sizeof(modes[0]); i++) {
			if (!strcmp(optarg, modes[i])) {
				r->buffering = (enum aot_buffering)i;
				return 1;
			}
		}
		fprintf(stderr, "%s: -B takes line, full or none, not '%s'\n", prog, optarg);
		return -EINVAL;
	case AOT_CLI_EXPLAIN:
		r->explain = true;
		return 1;
	case AOT_CLI_DRY_RUN:
		r->dry_run = true;
		return 1;
	case AOT_CLI_TEST:
		r->mode = AOT_RUN_TEST;
		return 1;
	case AOT_CLI_BENCH:
		r->mode = AOT_RUN_BENCH;
		return 1;
	case AOT_CLI_NO_WARNINGS:
		r->no_warnings = true;
		return 1;
	case AOT_CLI_METRICS: {
		struct sockaddr_storage ss;
		unsigned int len;
		char err[160];

		if (rt_metrics_parse_addr(optarg, &ss, &len, err, sizeof(err))) {
			fprintf(stderr, "%s: --metrics %s: %s\n", prog, optarg, err);
			return -EINVAL;
		}
		r->metrics = optarg;
		return 1;
	}
	case AOT_CLI_METRICS_PREFIX:
		if (!output_metrics_prefix_ok(optarg)) {
			fprintf(stderr,
				"%s: --metrics-prefix '%s': a metric name has only letters, digits, "
				"_ and :, and no digit first\n",
				prog, optarg);
			return -EINVAL;
		}
		r->metrics_prefix = optarg;
		return 1;
	case AOT_CLI_METRICS_MAX_SERIES:
		errno = 0;
		v = strtol(optarg, &end, 10);
		if (errno || *end || end == optarg || v <= 0) {
			fprintf(stderr,
				"%s: --metrics-max-series takes a number above 0, not '%s'\n", prog,
				optarg);
			return -EINVAL;
		}
		r->metrics_max_series = (unsigned long)v;
		return 1;
	case AOT_CLI_METRICS_MAPS:
		r->metrics_maps = optarg;
		return 1;
	case AOT_CLI_MISSING_PROBES:
		if (cli_missing_policy(optarg) >= 0) {
			r->missing = (enum aot_missing_policy)cli_missing_policy(optarg);
			r->missing_set = true;
			return 1;
		}
		fprintf(stderr, "%s: --missing-probes takes error, warn or ignore, not '%s'\n",
			prog, optarg);
		return -EINVAL;
	default:
		return 0;
	}
}

void aot_cli_help(FILE *f, const struct aot_cli_table *t)
{
	for (; t->n; t++) {
		for (size_t i = 0; i < t->n; i++) {
			const struct aot_cli_opt *o = &t->opts[i];
			const char *sp = o->arg ? " " : "", *arg = o->arg ? o->arg : "";
			char left[64];

			if (strlen(o->name) == 1)
				snprintf(left, sizeof(left), "-%s%s%s", o->name, sp, arg);
			else if (o->val < 128)
				snprintf(left, sizeof(left), "-%c, --%s%s%s", o->val, o->name, sp,
					 arg);
			else
				snprintf(left, sizeof(left), "    --%s%s%s", o->name, sp, arg);
			fprintf(f, "  %-26s %s\n", left, o->help);
		}
	}
}

void aot_cli_help_env(FILE *f)
{
	fprintf(f, "  %-26s %s\n", "BPFTRACE_PERF_RB_PAGES",
		"event ring buffer pages (default 4096), as bpftrace 0.27's");
	fprintf(f, "  %-26s %s\n", "BPFTRACE_MISSING_PROBES",
		"error, warn or ignore, when --missing-probes is not given");
	fprintf(f, "  %-26s %s\n", "BPFTRACE_PRINT_MAPS_ON_EXIT",
		"true or false: whether the maps are printed at the end");
	fprintf(f, "  %-26s %s\n", "BPFTRACE_MAX_CAT_BYTES",
		"bytes of a file cat() prints at most (default 10240)");
	fprintf(f, "  %-26s %s\n", "BPFTRACE_LAZY_SYMBOLICATION",
		"true (the default) or false: user symbols read on demand or all at once");
	fprintf(f, "  %-26s %s\n", "BPFTRACE_STR_TRUNC_TRAILER",
		"printed after a string cut short at max_strlen (default \"" AOT_TRAILER_DEFAULT
		"\")");
	fprintf(f, "  %-26s %s\n", "BPFTRACE_LOG_SIZE",
		"bytes of a program's verifier log (default 256 KiB, 16 MiB with -v)");
}

int aot_cli_getopt(const struct aot_cli_table *t, void *longopts, char *shortopts)
{
	struct option *lo = longopts;
	size_t nl = 0, s = 0, n = 0;

	shortopts[s++] = '+';
	for (; t->n; t++) {
		n += t->n;
		if (n > AOT_CLI_MAX_OPTS)
			return -E2BIG;
		for (size_t i = 0; i < t->n; i++) {
			const struct aot_cli_opt *o = &t->opts[i];

			if (strlen(o->name) > 1)
				lo[nl++] = (struct option){ o->name, o->has_arg, NULL, o->val };
			if (o->val < 128) {
				shortopts[s++] = (char)o->val;
				if (o->has_arg)
					shortopts[s++] = ':';
			}
		}
	}
	shortopts[s] = 0;
	lo[nl] = (struct option){ 0 };
	return 0;
}

/* A whole number from min to max in the environment variable name, or 0 when it is not set. */
static int cli_env_num(const char *prog, const char *name, unsigned long long min,
		       unsigned long long max, unsigned long *out)
{
	const char *env = getenv(name);
	unsigned long long v;
	char *end;

	if (!env)
		return 0;
	errno = 0;
	v = strtoull(env, &end, 10);
	if (errno || end == env || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s=%s: expected a number from %llu to %llu\n", prog, name, env,
			min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* -p, --missing-probes, the BPFTRACE_* variables the runtime reads, and -c split into words. */
static int cli_run_rest(const char *prog, const struct aot_cli_run *r, struct aot_run_opts *ro,
			struct aot_cli_state *st)
{
	wordexp_t *we;
	int ret;

	ro->pid = r->pid;
	ro->missing = r->missing;
	ro->missing_set = r->missing_set;
	ro->print_maps = r->print_maps;
	ro->lazy_syms = r->lazy_syms;
	if ((r->metrics_prefix || r->metrics_max_series || r->metrics_maps) && !r->metrics) {
		fprintf(stderr,
			"%s: --metrics-prefix, --metrics-max-series and --metrics-maps "
			"need --metrics\n",
			prog);
		return -EINVAL;
	}
	ro->metrics_addr = r->metrics;
	ro->metrics_prefix = r->metrics_prefix;
	ro->metrics_max_series = r->metrics_max_series;
	ro->metrics_maps = r->metrics_maps;
	ret = cli_env_num(prog, "BPFTRACE_PERF_RB_PAGES", 1, AOT_RB_PAGES_MAX, &ro->rb_pages)
		      ?: cli_env_num(prog, "BPFTRACE_CAT_BYTES_MAX", 1, AOT_CAT_BYTES_MAX,
				     &ro->cat_max)
		      ?: cli_env_num(prog, "BPFTRACE_MAX_CAT_BYTES", 1, AOT_CAT_BYTES_MAX,
				     &ro->cat_max)
		      ?: cli_env_num(prog, "BPFTRACE_LOG_SIZE", AOT_LOG_SIZE_MIN, AOT_LOG_SIZE_MAX,
				     &ro->log_size);
	if (ret)
		return ret;
	ro->trailer = getenv("BPFTRACE_STR_TRUNC_TRAILER");
	if (ro->trailer && strlen(ro->trailer) > AOT_TRAILER_MAX) {
		fprintf(stderr, "%s: BPFTRACE_STR_TRUNC_TRAILER: at most %d bytes\n", prog,
			AOT_TRAILER_MAX);
		return -EINVAL;
	}
	if (!r->cmd)
		return 0;
	we = calloc(1, sizeof(*we));
	if (!we)
		return -ENOMEM;
	st->words = we;
	/* Shell quoting, no command substitution: -c is a command line, not a script. */
	ret = wordexp(r->cmd, we, WRDE_NOCMD);
	if (ret || !we->we_wordc) {
		if (!ret)
			wordfree(we);
		free(we);
		st->words = NULL;
		fprintf(stderr, "%s: -c: cannot split '%s' into a command and its arguments\n",
			prog, r->cmd);
		return -EINVAL;
	}
	ro->cmd = we->we_wordv;
	return 0;
}

int aot_cli_run_begin(const char *prog, const struct aot_cli_run *r, struct aot_run_opts *ro,
		      struct aot_cli_state *st)
{
	int ret;

	memset(st, 0, sizeof(*st));
	ro->format = r->format;
	ro->verbose = r->verbose;
	ro->quiet = r->quiet;
	ro->dry_run = r->dry_run;
	ro->mode = r->mode;
	ro->buffering = r->buffering;
	ro->no_warnings = r->no_warnings;
	ro->out = stdout;
	if (r->out_path) {
		st->out = fopen(r->out_path, "w");
		if (!st->out) {
			ret = -errno;
			fprintf(stderr, "%s: cannot open %s: %s\n", prog, r->out_path,
				strerror(errno));
			return ret;
		}
		ro->out = st->out;
	}
	ret = cli_run_rest(prog, r, ro, st);
	if (ret)
		aot_cli_run_end(st);
	return ret;
}

void aot_cli_run_end(struct aot_cli_state *st)
{
	if (st->out)
		fclose(st->out);
	if (st->words) {
		wordfree(st->words);
		free(st->words);
	}
	memset(st, 0, sizeof(*st));
}
