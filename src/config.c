// SPDX-License-Identifier: GPL-2.0
/*
 * The config block (config = { key = value; ... }, bpftrace 0.23) applied after parsing: each
 * key of bpftrace 0.27 checked and set where the command line and the environment left it
 * unset, as 0.27 ranks them. Compile-time keys go into the compiler's options, run-time ones
 * into the object's metadata (aot_meta.settings), for the runtime wherever the object runs.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "meta.h"

enum config_kind {
	CFG_COMPILE,	  /* a number in struct aot_compile_opts at off */
	CFG_RUN,	  /* a number for the runtime: aot_meta.settings[set] */
	CFG_MISSING,	  /* missing_probes: both */
	CFG_STACK_MODE,	  /* stack_mode: the compiler's default mode of kstack and ustack */
	CFG_BOOL_RUN,	  /* true or false for the runtime: settings[set] 1 false, 2 true */
	CFG_TRAILER,	  /* str_trunc_trailer: text for the runtime, in aot_meta */
	CFG_FIXED,	  /* what aotrace always does: only that value (fixed) is accepted */
	CFG_LICENSE,	  /* the license section's string */
	CFG_UNSTABLE,	  /* unstable_*: gates features aotrace does not have */
	CFG_UNSTABLE_OPT, /* unstable_* of a feature aotrace has: enum aot_unstable at off */
	CFG_ENV_ONLY,	  /* bpftrace reads it from the environment only */
	CFG_DEPRECATED,	  /* 0.27 accepts and ignores it */
};

struct config_key {
	const char *name; /* as bpftrace 0.27 spells it */
	enum config_kind kind;
	size_t off;	     /* CFG_COMPILE */
	uint32_t set;	     /* CFG_RUN, CFG_BOOL_RUN: enum aot_setting */
	uint64_t min, max;   /* CFG_COMPILE, CFG_RUN */
	const char *fixed;   /* CFG_FIXED: the one value honoured; NULL: none yet */
	const char *renamed; /* a 0.17 name: the key it is now */
};

#define CFG_OPT(f) CFG_COMPILE, offsetof(struct aot_compile_opts, f)

static const struct config_key config_keys[] = {
	{ "max_strlen", CFG_OPT(strlen_max), 0, 1, AOT_STRLEN_LIMIT },
	{ "max_map_keys", CFG_OPT(map_keys_max), 0, 1, 1u << 24 },
	{ "max_probes", CFG_OPT(max_probes), 0, 1, UINT32_MAX },
	{ "on_stack_limit", CFG_OPT(on_stack_limit), 0, 0, UINT32_MAX },
	{ "str_trunc_trailer", CFG_TRAILER },
	{ "missing_probes", CFG_MISSING },
	{ "stack_mode", CFG_STACK_MODE },
	{ "perf_rb_pages", CFG_RUN, 0, AOT_SET_RB_PAGES, 1, AOT_RB_PAGES_MAX },
	{ "max_cat_bytes", CFG_RUN, 0, AOT_SET_CAT_MAX, 1, AOT_CAT_BYTES_MAX },
	{ "log_size", CFG_RUN, 0, AOT_SET_LOG_SIZE, AOT_LOG_SIZE_MIN, AOT_LOG_SIZE_MAX },
	{ "print_maps_on_exit", CFG_BOOL_RUN, 0, AOT_SET_PRINT_MAPS },
	{ "lazy_symbolication", CFG_BOOL_RUN, 0, AOT_SET_LAZY_SYMS },
	{ "license", CFG_LICENSE, offsetof(struct aot_compile_opts, license) },
	{ "cpp_demangle", CFG_FIXED, .fixed = "true" },
	{ "use_blazesym", CFG_FIXED, .fixed = "false" },
	{ "show_debug_info", CFG_FIXED, .fixed = "false" },
	{ "cache_user_symbols", CFG_FIXED },
	{ "max_bpf_progs", CFG_FIXED },
	{ "unstable_import_statement", CFG_UNSTABLE },
	{ "unstable_tseries", CFG_UNSTABLE_OPT,
	  offsetof(struct aot_compile_opts, unstable_tseries) },
	{ "unstable_typeinfo", CFG_UNSTABLE },
	{ "unstable_dw_ustack", CFG_UNSTABLE },
	{ "btf", CFG_ENV_ONLY },
	{ "kernel_build", CFG_ENV_ONLY },
	{ "kernel_source", CFG_ENV_ONLY },
	{ "vmlinux", CFG_ENV_ONLY },
	{ "symbol_source", CFG_DEPRECATED },
	{ "max_type_res_iterations", CFG_DEPRECATED },
	{ "unstable_addr", CFG_DEPRECATED },
	{ "unstable_import", CFG_DEPRECATED },
	{ "unstable_macro", CFG_DEPRECATED },
	{ "unstable_map_decl", CFG_DEPRECATED },
	{ "strlen", .renamed = "max_strlen" },
	{ "cat_bytes_max", .renamed = "max_cat_bytes" },
	{ "map_keys_max", .renamed = "max_map_keys" },
	{ "no_cpp_demangle", .renamed = "cpp_demangle" },
};
#define NKEYS (sizeof(config_keys) / sizeof(config_keys[0]))

static const char *const config_hint = "keys: bpftrace's config variables (man aotrace, CONFIG)";

/* A key as 0.27 takes it: any case, BPFTRACE_ before it or not. */
static const struct config_key *config_find(const char *key)
{
	char low[64];
	size_t n = 0;

	for (; key[n] && n < sizeof(low) - 1; n++)
		low[n] = (char)tolower((unsigned char)key[n]);
	low[n] = 0;
	key = strncmp(low, "bpftrace_", 9) ? low : low + 9;
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(config_keys[i].name, key))
			return &config_keys[i];
	return NULL;
}

static const struct config_key *config_find_name(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(config_keys[i].name, name))
			return &config_keys[i];
	return NULL;
}

/* value as one of words (index into it), case as 0.27 ignores it; -1 when none. */
static int config_word(const char *value, const char *const *words, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcasecmp(value, words[i]))
			return i;
	return -1;
}

static int config_bool(const char *value)
{
	static const char *const words[] = { "false", "true", "0", "1" };
	int i = config_word(value, words, 4);

	return i < 0 ? -1 : i % 2;
}

static bool config_number(const char *value, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)value[0]))
		return false;
	errno = 0;
	v = strtoull(value, &end, 0);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

struct config_ctx {
	struct program *prog;
	const struct aot_compile_opts *given; /* what the command line and environment set */
	struct aot_compile_opts *opts;
	struct diags *d;
};

static void config_bad(struct config_ctx *c, const struct node *v, const char *hint,
		       const char *what)
{
	diag_error(c->d, v->loc, hint, "%s: %s, got %s", v->name, what, v->str);
}

static void config_set(struct config_ctx *c, const struct config_key *k, const struct node *v)
{
	static const char *const missing[] = {
		[AOT_MISSING_WARN] = "warn",
		[AOT_MISSING_ERROR] = "error",
		[AOT_MISSING_IGNORE] = "ignore",
	};
	uint32_t *field = (uint32_t *)((char *)c->opts + k->off);
	uint64_t num;
	char range[80];
	int i;

	snprintf(range, sizeof(range), "expecting a number from %llu to %llu",
		 (unsigned long long)k->min, (unsigned long long)k->max);
	switch (k->kind) {
	case CFG_COMPILE:
		if (!config_number(v->str, k->min, k->max, &num))
			config_bad(c, v, NULL, range);
		else if (!*(const uint32_t *)((const char *)c->given + k->off))
			/* a flag or the environment wins; 0 is "unset" in the field, and an
			 * on_stack_limit of 0 (nothing on the stack) is 1: no buffer has less */
			*field = num ? (uint32_t)num : 1;
		break;
	case CFG_RUN:
		if (!config_number(v->str, k->min, k->max, &num))
			config_bad(c, v, NULL, range);
		else
			c->prog->meta->settings[k->set] = (uint32_t)num;
		break;
	case CFG_BOOL_RUN:
		i = config_bool(v->str);
		if (i < 0)
			config_bad(c, v, NULL, "valid values are true, false, 1 or 0");
		else
			c->prog->meta->settings[k->set] = (uint32_t)i + 1;
		break;
	case CFG_TRAILER:
		if (strlen(v->str) > AOT_TRAILER_MAX) {
			snprintf(range, sizeof(range), "at most %d bytes", AOT_TRAILER_MAX);
			config_bad(c, v, NULL, range);
		} else if (aot_meta_set_trailer(c->prog->meta, v->str)) {
			diag_error(c->d, v->loc, NULL, "%s: out of memory", v->name);
		}
		break;
	case CFG_MISSING:
		i = config_word(v->str, missing, 3);
		if (i < 0) {
			config_bad(c, v, NULL, "valid values are ignore, warn, and error");
			break;
		}
		if (!c->given->missing_set)
			c->opts->missing = (enum aot_missing_policy)i;
		c->prog->meta->settings[AOT_SET_MISSING] = (uint32_t)i + 1;
		break;
	case CFG_STACK_MODE:
		i = config_word(v->str, aot_stack_mode_names, AOT_STACK_MODE_COUNT);
		if (i < 0)
			config_bad(c, v, NULL, "valid values are " AOT_STACK_MODE_LIST);
		else if (!c->given->stack_mode)
			c->opts->stack_mode = (uint32_t)i + 1;
		break;
	case CFG_LICENSE:
		if (!config_license(v->str))
			config_bad(c, v,
				   "the kernel lets only GPL-compatible programs call the helpers "
				   "aotrace uses",
				   "valid values are " CONFIG_LICENSES);
		else if (!c->given->license)
			c->opts->license = config_license(v->str);
		break;
	case CFG_FIXED:
		if (k->fixed && !strcasecmp(v->str, k->fixed))
			break;
		if (k->fixed)
			diag_error(c->d, v->loc, NULL,
				   "%s: aotrace only does %s = %s; other values are not supported "
				   "yet",
				   v->name, k->name, k->fixed);
		else
			diag_error(c->d, v->loc, "remove it to run with aotrace's behaviour",
				   "%s: not supported by aotrace yet", v->name);
		break;
	case CFG_UNSTABLE:
	case CFG_UNSTABLE_OPT:
		/* A CFG_UNSTABLE feature aotrace lacks: using one is an error of its own. */
		i = config_unstable(v->str);
		if (i < 0)
			config_bad(c, v, NULL, "valid values are enable, warn, and error");
		else if (k->kind == CFG_UNSTABLE_OPT &&
			 !*(const uint32_t *)((const char *)c->given + k->off))
			*field = (uint32_t)i; /* the environment wins */
		break;
	case CFG_ENV_ONLY:
		diag_error(c->d, v->loc, NULL, "%s: can only be set as an environment variable",
			   v->name);
		break;
	case CFG_DEPRECATED:
		diag_warn(c->d, v->loc, NULL, "%s: deprecated, it has no effect", v->name);
		break;
	}
}

int config_unstable(const char *value)
{
	static const char *const words[] = {
		[AOT_UNSTABLE_WARN] = "warn",
		[AOT_UNSTABLE_ENABLE] = "enable",
		[AOT_UNSTABLE_ERROR] = "error",
	};
	int i = config_word(value, words + 1, 3);

	if (i >= 0)
		return i + 1;
	i = config_bool(value);
	return i < 0 ? -1 : i ? AOT_UNSTABLE_ENABLE : AOT_UNSTABLE_ERROR;
}

const char *config_license(const char *value)
{
	static const char *const licenses[] = { "Dual MIT/GPL", "Dual BSD/GPL",
						"Dual MPL/GPL", "GPL and additional rights",
						"GPL v2",	"GPL" };

	for (size_t i = 0; i < sizeof(licenses) / sizeof(licenses[0]); i++)
		if (!strcmp(value, licenses[i]))
			return licenses[i];
	return NULL;
}

/* config: the block's keys, each once. */
static void config_block(struct config_ctx *c, const struct node *block)
{
	const struct config_key *seen[NKEYS] = { 0 };
	size_t nseen = 0;

	for (const struct node *v = block->args; v; v = v->next) {
		const struct config_key *k = config_find(v->name);

		if (!k) {
			diag_error(c->d, v->loc, config_hint,
				   "%s: not a known configuration option", v->name);
			continue;
		}
		if (k->renamed) {
			diag_warn(c->d, v->loc, NULL, "%s has been renamed, please use %s", v->name,
				  k->renamed);
			k = config_find_name(k->renamed);
		}
		for (size_t i = 0; i < nseen; i++)
			if (seen[i] == k) {
				diag_error(c->d, v->loc, NULL, "%s: set twice in the config block",
					   v->name);
				k = NULL;
				break;
			}
		if (!k)
			continue;
		seen[nseen++] = k;
		config_set(c, k, v);
	}
}

int config_apply(struct program *prog, const struct aot_compile_opts *given,
		 struct aot_compile_opts *opts, struct diags *d)
{
	struct config_ctx c = { .prog = prog, .given = given, .opts = opts, .d = d };
	size_t before = d->nerrors;
	bool other = false, block = false;

	for (const struct node *n = prog->root->body; n; n = n->next) {
		if (n->kind != NODE_CONFIG) {
			/* C definitions may come first; a probe or a declaration may not. */
			other = other || (n->kind != NODE_CDEF && n->kind != NODE_INCLUDE);
			continue;
		}
		if (block || other) {
			diag_error(d, n->loc, "one config block, before any probe",
				   block ? "a second config block"
					 : "the config block comes after "
					   "a probe or declaration");
			continue;
		}
		block = true;
		config_block(&c, n);
	}
	return d->nerrors > before ? -EINVAL : 0;
}

void aot_config_env_check(FILE *err)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const struct config_key *k = &config_keys[i];
		char name[64] = "BPFTRACE_";
		const char *v;
		size_t n = strlen(name);

		if (k->kind != CFG_FIXED)
			continue;
		for (const char *c = k->name; *c && n < sizeof(name) - 1; c++)
			name[n++] = (char)toupper((unsigned char)*c);
		name[n] = 0;
		v = getenv(name);
		if (!v || (k->fixed && !strcasecmp(v, k->fixed)))
			continue;
		if (k->fixed)
			fprintf(err, "aotrace: warning: %s=%s: aotrace only does %s; ignored\n",
				name, v, k->fixed);
		else
			fprintf(err,
				"aotrace: warning: %s is not supported by aotrace yet; ignored\n",
				name);
	}
}
