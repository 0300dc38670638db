// SPDX-License-Identifier: GPL-2.0
/*
 * The compiler's settings: one table of the numbers a program may leave unset, with where else
 * each comes from (bpftrace's environment variable), its range and its default. A source fills
 * only what the sources before it left unset (0): the caller's options, then the environment
 * (0.27's names first, then 0.17's), then the script's config block (src/config.c, after
 * parsing), then the defaults. bpftrace 0.27 ranks the environment over the config block too.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "frontend.h"
#include "meta.h"

struct setting {
	const char *env;     /* the environment variable, as bpftrace 0.27 names it */
	const char *env_old; /* as bpftrace 0.17 named it, still read; NULL: the same */
	uint32_t def;	     /* AOT_*_DEFAULT */
	uint32_t max;	     /* the largest a source may give; the least is 1 */
	size_t off;	     /* of the uint32_t in struct aot_compile_opts */
	bool zero_ok;	     /* 0 may be given too (on_stack_limit: nothing on the stack) */
};

static const struct setting settings[] = {
	{ "BPFTRACE_MAX_STRLEN", "BPFTRACE_STRLEN", AOT_STRLEN_DEFAULT, AOT_STRLEN_LIMIT,
	  offsetof(struct aot_compile_opts, strlen_max) },
	{ "BPFTRACE_MAX_MAP_KEYS", "BPFTRACE_MAP_KEYS_MAX", AOT_MAP_KEYS_MAX_DEFAULT, UINT32_MAX,
	  offsetof(struct aot_compile_opts, map_keys_max) },
	{ "BPFTRACE_MAX_PROBES", NULL, AOT_MAX_PROBES_DEFAULT, UINT32_MAX,
	  offsetof(struct aot_compile_opts, max_probes) },
	{ "BPFTRACE_ON_STACK_LIMIT", NULL, AOT_ON_STACK_LIMIT_DEFAULT, UINT32_MAX,
	  offsetof(struct aot_compile_opts, on_stack_limit), true },
};
#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

/* The caller's opts may be an older, shorter struct: only the fields it has are ours to set. */
static bool opts_has(const struct aot_compile_opts *opts, size_t off, size_t size)
{
	return off + size <= opts->sz;
}

static uint32_t *setting_field(struct aot_compile_opts *opts, const struct setting *s)
{
	return (uint32_t *)((char *)opts + s->off);
}

/* BPFTRACE_STACK_MODE: the mode of kstack and ustack when a call names none. */
static int settings_stack_mode(struct aot_compile_opts *opts, FILE *err)
{
	const char *env = getenv("BPFTRACE_STACK_MODE");

	if (!env)
		return 0;
	for (uint32_t i = 0; i < AOT_STACK_MODE_COUNT; i++) {
		if (!strcasecmp(env, aot_stack_mode_names[i])) {
			opts->stack_mode = i + 1;
			return 0;
		}
	}
	fprintf(err, "aotrace: BPFTRACE_STACK_MODE=%s: valid values are " AOT_STACK_MODE_LIST "\n",
		env);
	return -EINVAL;
}

/* BPFTRACE_UNSTABLE_TSERIES: as the config key unstable_tseries, which it overrides. */
static int settings_unstable_tseries(struct aot_compile_opts *opts, FILE *err)
{
	const char *env = getenv("BPFTRACE_UNSTABLE_TSERIES");
	int mode;

	if (!env)
		return 0;
	mode = config_unstable(env);
	if (mode < 0) {
		fprintf(err,
			"aotrace: BPFTRACE_UNSTABLE_TSERIES=%s: valid values are enable, warn, and "
			"error\n",
			env);
		return -EINVAL;
	}
	opts->unstable_tseries = (uint32_t)mode;
	return 0;
}

/* BPFTRACE_LICENSE: as the config key license, which it overrides. */
static int settings_license(struct aot_compile_opts *opts, FILE *err)
{
	const char *env = getenv("BPFTRACE_LICENSE");

	if (!env)
		return 0;
	opts->license = config_license(env);
	if (!opts->license) {
		fprintf(err, "aotrace: BPFTRACE_LICENSE=%s: valid values are %s\n", env,
			CONFIG_LICENSES);
		return -EINVAL;
	}
	return 0;
}

/* AOTRACE_LASTKEY: 0 or 1 (enum aot_lastkey). */
static int settings_lastkey(struct aot_compile_opts *opts, FILE *err)
{
	const char *env = getenv("AOTRACE_LASTKEY");

	if (!env)
		return 0;
	if (strcmp(env, "0") && strcmp(env, "1")) {
		fprintf(err, "aotrace: AOTRACE_LASTKEY=%s: valid values are 0 and 1\n", env);
		return -EINVAL;
	}
	opts->lastkey = *env == '0' ? AOT_LASTKEY_OFF : AOT_LASTKEY_ON;
	return 0;
}

int aot_compile_opts_from_env(struct aot_compile_opts *opts, FILE *err)
{
	const char *btf;

	for (size_t i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		uint32_t *field = setting_field(opts, s);
		const char *name = s->env, *env;
		unsigned long long v;
		char *end;

		if (!opts_has(opts, s->off, sizeof(*field)) || *field)
			continue;
		env = getenv(name);
		if (!env && s->env_old)
			env = getenv(name = s->env_old);
		if (!env)
			continue;
		errno = 0;
		v = strtoull(env, &end, 10);
		if (errno || end == env || *end || (!v && !s->zero_ok) || v > s->max) {
			fprintf(err, "aotrace: %s=%s: expected a number from %d to %u\n", name, env,
				!s->zero_ok, s->max);
			return -EINVAL;
		}
		/* 0 is "unset" in the field: on_stack_limit 0 (nothing on the stack) is 1 */
		*field = v ? (uint32_t)v : 1;
	}
	if (opts_has(opts, offsetof(struct aot_compile_opts, stack_mode), sizeof(uint32_t)) &&
	    !opts->stack_mode && settings_stack_mode(opts, err))
		return -EINVAL;
	if (opts_has(opts, offsetof(struct aot_compile_opts, license), sizeof(char *)) &&
	    !opts->license && settings_license(opts, err))
		return -EINVAL;
	if (opts_has(opts, offsetof(struct aot_compile_opts, unstable_tseries), sizeof(uint32_t)) &&
	    !opts->unstable_tseries && settings_unstable_tseries(opts, err))
		return -EINVAL;
	if (opts_has(opts, offsetof(struct aot_compile_opts, lastkey), sizeof(uint32_t)) &&
	    !opts->lastkey && settings_lastkey(opts, err))
		return -EINVAL;
	/*
	 * The kernel types of another host (a saved /sys/kernel/btf/vmlinux), to build an object
	 * for it: CO-RE relocations make it read right on others too. bpftrace's name second.
	 */
	btf = getenv("AOTRACE_BTF");
	if (!btf || !*btf)
		btf = getenv("BPFTRACE_BTF");
	if (opts_has(opts, offsetof(struct aot_compile_opts, btf_path), sizeof(btf)) &&
	    !opts->btf_path && btf && *btf)
		opts->btf_path = btf;
	return 0;
}

int aot_compile_opts_resolve(struct aot_compile_opts *opts)
{
	for (size_t i = 0; i < NSETTINGS; i++) {
		uint32_t *field = setting_field(opts, &settings[i]);

		if (!*field)
			*field = settings[i].def;
		else if (*field > settings[i].max)
			return -EINVAL;
	}
	if (opts->dump && !opts->dump_out)
		opts->dump_out = stdout;
	return 0;
}
