// SPDX-License-Identifier: GPL-2.0
/*
 * --explain: what an object would attach on this host and how, and what its metadata says,
 * without loading anything. The object is opened by libbpf (not loaded) and planned as a run
 * plans it (plan.c), so the strategy is the one a run would take; the plan lists every probe's
 * targets here, to count them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "probe.h"
#include "rt.h"

struct explain {
	const struct aot_meta *m;
	struct bpf_object *obj;
	struct rt_plan plan;
	struct rt_buf out;
	struct json_writer w;
	bool json;
};

/* The BPF map of a count() map's last-key cache (meta.h), or NULL: the object has none. */
static const char *explain_lastkey(const struct explain *e, const struct aot_map *mp)
{
	static char name[128];

	if (strncmp(mp->elf_name, "AT_", 3) ||
	    snprintf(name, sizeof(name), "%s%s", AOT_LASTKEY_PREFIX, mp->elf_name + 3) >=
		    (int)sizeof(name))
		return NULL;
	return bpf_object__find_map_by_name(e->obj, name) ? name : NULL;
}

/* A strategy as --explain names it (also the JSON value) and says it in a sentence. */
static const struct {
	const char *name, *how;
} explain_strategies[] = {
	[PROBE_BROKEN] = { "broken", NULL },
	[PROBE_RUN_ONCE] = { "run-once", NULL },
	[PROBE_MISSING] = { "missing",
			    "no such target on this kernel: skipped or an error, per --missing-probes" },
	[PROBE_SINGLE] = { "single", "one program, one link for its target" },
	/* A clone is one program of its own, as far as its links go. */
	[PROBE_CLONE] = { "single", "one program, one link for its target" },
	[PROBE_MULTI] = { "multi", "one program for every match, attached with one multi link" },
	[PROBE_FALLBACK] = { "fallback",
			     "one program for every match; no multi links here: one link per match" },
	[PROBE_SESSION] = { "session",
			    "one program for the entry and return probes below, attached with one "
			    "session link" },
	[PROBE_IN_SESSION] = { "in-session",
			       "served by its session program (not loaded), no link of its own" },
	[PROBE_NO_SESSION] = { "no-session",
			       "no session links here (or AOTRACE_SESSION_LINKS=0): not loaded, "
			       "its entry and return probes attach as they are" },
	[PROBE_TRACING_MULTI] = { "tracing-multi",
				  "one fentry/fexit multi program for every function of its alias "
				  "group (it reads no argument), attached with one tracing multi "
				  "link" },
};

static const char *explain_how(const struct probe_plan *pp)
{
	if (pp->strategy == PROBE_BROKEN)
		return pp->type ? "its program is not in the object" : "unknown probe type";
	if (pp->strategy == PROBE_RUN_ONCE && (pp->flags & AOT_PROBE_BEGIN))
		return "run once before the other probes start (BPF_PROG_TEST_RUN), no link";
	if (pp->strategy == PROBE_RUN_ONCE && (pp->flags & AOT_PROBE_SIGNAL))
		return "run each time aotrace gets SIGUSR1 (BPF_PROG_TEST_RUN), no link";
	if (pp->strategy == PROBE_RUN_ONCE && (pp->flags & AOT_PROBE_TEST))
		return "run once by --test (BPF_PROG_TEST_RUN of an XDP program), else left out";
	if (pp->strategy == PROBE_RUN_ONCE && (pp->flags & AOT_PROBE_BENCH))
		return "run and timed by --bench (BPF_PROG_TEST_RUN of an XDP program), else left "
		       "out";
	if (pp->strategy == PROBE_RUN_ONCE)
		return "run once when the run ends (BPF_PROG_TEST_RUN), no link";
	return explain_strategies[pp->strategy].how;
}

/*
 * The links a run would make for probe i here; -1 if it cannot tell. A tracing multi group's
 * one link counts at its first member: the members of a group share their function, and so its
 * section (the group's first target).
 */
static long explain_links(const struct explain *e, uint32_t i)
{
	const struct probe_plan *pp = &e->plan.v[i];

	if (pp->strategy == PROBE_TRACING_MULTI) {
		const char *sec = pp->prog ? bpf_program__section_name(pp->prog) : "";

		for (uint32_t j = 0; j < i; j++)
			if (e->plan.v[j].strategy == PROBE_TRACING_MULTI && e->plan.v[j].prog &&
			    !strcmp(bpf_program__section_name(e->plan.v[j].prog), sec))
				return 0;
		return 1;
	}
	if (pp->strategy == PROBE_BROKEN)
		return -1;
	if (pp->strategy == PROBE_RUN_ONCE || pp->strategy == PROBE_MISSING ||
	    pp->strategy == PROBE_IN_SESSION || pp->strategy == PROBE_NO_SESSION)
		return 0;
	if (pp->strategy == PROBE_FALLBACK)
		return pp->ntargets;
	/* One for a single target or a clone, one for all of a multi probe's targets. */
	return (pp->strategy == PROBE_MULTI || pp->strategy == PROBE_SESSION) && pp->ntargets < 0
		       ? -1
		       : 1;
}

static const char *const explain_fmt_kinds[] = {
	[AOT_FMT_PRINTF] = "printf",
	[AOT_FMT_SYSTEM] = "system",
	[AOT_FMT_CAT] = "cat",
	[AOT_FMT_TIME] = "time",
	[AOT_FMT_PRINT_VALUE] = "print",
	[AOT_FMT_JOIN] = "join",
	[AOT_FMT_HELPER_ERROR] = "helper_error",
	[AOT_FMT_ERRORF] = "errorf",
	[AOT_FMT_WARNF] = "warnf",
	[AOT_FMT_SKBOUTPUT] = "skboutput",
};

#define EXPLAIN_NAME(tab, i)                                                                       \
	((size_t)(i) < sizeof(tab) / sizeof(tab[0]) && (tab)[i] ? (tab)[i] : "?")

/* A type as the language writes it: int64, string[64], (int64, string[16]), kstack. */
static void explain_type(struct rt_buf *b, const struct aot_meta *m, const struct aot_type *t,
			 int depth)
{
	switch (t->kind) {
	case AOT_K_INT:
		/* a bitfield by its bits, as C declares one, with the sign it is read with */
		if (t->elems)
			rt_buf_printf(b, "%sint:%u", t->is_signed ? "" : "u",
				      AOT_INT_BIT_SIZE(t->elems));
		else
			rt_buf_printf(b, "%sint%u", t->is_signed ? "" : "u", t->size * 8);
		return;
	case AOT_K_BOOL:
		rt_buf_printf(b, "bool");
		return;
	case AOT_K_STR:
		rt_buf_printf(b, "string[%u]", t->size);
		return;
	case AOT_K_TUPLE:
		rt_buf_printf(b, "(");
		for (uint32_t i = 0; i < t->nelems && depth < AOT_META_MAX_DEPTH; i++) {
			if (i)
				rt_buf_printf(b, ", ");
			explain_type(b, m, &m->elems[t->elems + i].type, depth + 1);
		}
		rt_buf_printf(b, ")");
		return;
	case AOT_K_RECORD:
		rt_buf_printf(b, "struct { ");
		for (uint32_t i = 0; i < t->nelems && depth < AOT_META_MAX_DEPTH; i++) {
			const struct aot_elem *e = &m->elems[t->elems + i];

			rt_buf_printf(b, "%s.%s ", i ? ", " : "", e->name ? e->name : "");
			explain_type(b, m, &e->type, depth + 1);
		}
		rt_buf_printf(b, " }");
		return;
	case AOT_K_ARRAY:
		explain_type(b, m, &m->elems[t->elems].type, depth + 1);
		rt_buf_printf(b, "[%u]", t->nelems);
		return;
	case AOT_K_NONE:
		rt_buf_printf(b, "none");
		return;
	default: {
		const char *name = aot_render_kind_name(t->kind);

		rt_buf_printf(b, "%s", name ? name : "?");
	}
	}
}

/* The type as a string, in a scratch buffer the caller frees. */
static char *explain_type_str(const struct aot_meta *m, const struct aot_type *t)
{
	struct rt_buf b = { 0 };

	explain_type(&b, m, t, 0);
	rt_buf_add(&b, "", 1);
	return b.s;
}

/* The config block's run-time keys, by enum aot_setting, as the script names them. */
static const char *const explain_setting_names[AOT_SET_N] = {
	[AOT_SET_MISSING] = "missing_probes",
	[AOT_SET_PRINT_MAPS] = "print_maps_on_exit",
	[AOT_SET_RB_PAGES] = "perf_rb_pages",
	[AOT_SET_CAT_MAX] = "max_cat_bytes",
	[AOT_SET_LOG_SIZE] = "log_size",
	[AOT_SET_TRAILER] = "str_trunc_trailer",
	[AOT_SET_LAZY_SYMS] = "lazy_symbolication",
};

/* A setting's value as the script wrote it: a word for the two enumerations, else a number. */
static const char *explain_setting_word(const struct aot_meta *m, uint32_t i, uint32_t v)
{
	static const char *const missing[] = { "warn", "error", "ignore" };

	if (i == AOT_SET_TRAILER)
		return m->trailer ? m->trailer : "?";
	if (i == AOT_SET_MISSING)
		return v - 1 < 3 ? missing[v - 1] : "?";
	if (i == AOT_SET_PRINT_MAPS || i == AOT_SET_LAZY_SYMS)
		return v == 2 ? "true" : "false";
	return NULL;
}

/*
 * The run-time settings of the script's config block, which the runtime takes where the
 * command line and the environment give none.
 */
static void explain_settings(struct rt_buf *b, const struct aot_meta *m)
{
	bool any = false;

	for (uint32_t i = 0; i < AOT_SET_N; i++) {
		uint32_t v = m->settings[i];
		const char *word = explain_setting_word(m, i, v);

		if (!v)
			continue;
		rt_buf_printf(
			b, "%s  %s = ", any ? "" : "\nconfig block (under flags and BPFTRACE_*):\n",
			explain_setting_names[i]);
		any = true;
		if (i == AOT_SET_TRAILER)
			rt_buf_printf(b, "\"%s\"\n", word);
		else if (word)
			rt_buf_printf(b, "%s\n", word);
		else
			rt_buf_printf(b, "%u\n", v);
	}
}

static void explain_text(struct explain *e, const char *name)
{
	const struct aot_meta *m = e->m;
	struct rt_buf *b = &e->out;
	long links = 0;
	uint32_t progs = 0;
	bool links_known = true;
	char *ks, *vs;

	for (uint32_t i = 0; i < m->nprobes; i++) {
		long n = explain_links(e, i);
		bool first = true;

		for (uint32_t j = 0; j < i && first; j++)
			first = strcmp(m->probes[j].prog, m->probes[i].prog) != 0;
		progs += first;
		if (n < 0)
			links_known = false;
		else
			links += n;
	}
	rt_buf_printf(b, "%s: aotrace object, metadata version %u\n", name, m->version);
	rt_buf_printf(b, "\nprobes: %u, in %u programs; links on this host: ", m->nprobes, progs);
	if (links_known)
		rt_buf_printf(b, "%ld\n", links);
	else
		rt_buf_printf(b, "at least %ld (some targets cannot be listed here)\n", links);
	for (uint32_t i = 0; i < m->nprobes; i++) {
		const struct probe_plan *pp = &e->plan.v[i];
		const struct aot_probe *p = pp->probe;

		rt_buf_printf(b, "  %s\n", p->name ? p->name : p->type);
		rt_buf_printf(b, "    program %s, section %s\n", p->prog,
			      pp->prog ? bpf_program__section_name(pp->prog) : "?");
		rt_buf_printf(b, "    %s: %s\n", explain_strategies[pp->strategy].name,
			      explain_how(pp));
		if (p->flags & AOT_PROBE_MULTI) {
			if (pp->ntargets >= 0)
				rt_buf_printf(b, "    targets matching %s here: %ld\n", p->target,
					      pp->ntargets);
			else
				rt_buf_printf(b,
					      "    targets of %s: resolved when it attaches (%s)\n",
					      p->target, pp->why ? pp->why : "");
		}
	}
	rt_buf_printf(b, "\nmaps: %u\n", m->nmaps);
	for (uint32_t i = 0; i < m->nmaps; i++) {
		const struct aot_map *mp = &m->maps[i];
		struct bpf_map *map = bpf_object__find_map_by_name(e->obj, mp->elf_name);

		ks = mp->nkeys ? explain_type_str(m, &mp->key) : NULL;
		vs = explain_type_str(m, &mp->value);
		rt_buf_printf(b, "  %s  (BPF map %s, %s, up to %u keys)\n", mp->name, mp->elf_name,
			      map ? libbpf_bpf_map_type_str(bpf_map__type(map)) : "missing",
			      map ? bpf_map__max_entries(map) : 0);
		rt_buf_printf(b, "    key %s, ", ks ? ks : "none (scalar map)");
		if (mp->agg == AOT_AGG_COUNT && explain_lastkey(e, mp))
			rt_buf_printf(b, "count(), per-CPU last-key cache %s",
				      explain_lastkey(e, mp));
		else if (mp->agg == AOT_AGG_COUNT)
			rt_buf_printf(b, "count()");
		else if (mp->agg == AOT_AGG_NONE)
			rt_buf_printf(b, "value %s", vs ? vs : "?");
		else
			rt_buf_printf(b, "%s() of %s", aot_agg_name(mp->agg), vs ? vs : "?");
		if (mp->agg == AOT_AGG_HIST && mp->hist_k)
			rt_buf_printf(b, " (%u buckets per power of two)", 1u << mp->hist_k);
		if (mp->agg == AOT_AGG_LHIST)
			rt_buf_printf(b, " (min %lld, max %lld, step %lld)",
				      (long long)mp->lhist_min, (long long)mp->lhist_max,
				      (long long)mp->lhist_step);
		if (mp->agg == AOT_AGG_TSERIES)
			rt_buf_printf(b, " (%lld intervals of %lld ns, %s)",
				      (long long)mp->tseries_count, (long long)mp->tseries_interval,
				      aot_tseries_fn_name(mp->tseries_fn));
		rt_buf_printf(b, "\n");
		free(ks);
		free(vs);
	}
	rt_buf_printf(b, "\nformats: %u\n", m->nfmts);
	for (uint32_t i = 0; i < m->nfmts; i++) {
		const struct aot_fmt *f = &m->fmts[i];

		vs = explain_type_str(m, &f->args);
		rt_buf_printf(b, "  #%u %s \"", i, EXPLAIN_NAME(explain_fmt_kinds, f->kind));
		json_escape(b, f->fmt ? f->fmt : "", f->fmt ? strlen(f->fmt) : 0);
		rt_buf_printf(b, "\" args %s\n", vs ? vs : "?");
		free(vs);
	}
	rt_buf_printf(b, "\npositional parameters: ");
	if (bpf_object__find_map_by_name(e->obj, AOT_PARAMS_MAP))
		rt_buf_printf(b, "$1 to $%u (and $#), read at run time from the ARGS (map %s)\n",
			      m->nparams, AOT_PARAMS_MAP);
	else if (m->nparams)
		rt_buf_printf(b, "$1 to $%u, compiled in as constants\n", m->nparams);
	else
		rt_buf_printf(b, "none\n");
	explain_settings(b, m);
}

/* A member whose value is a literal: null, true, false. */
static void explain_kv_raw(struct json_writer *w, const char *k, const char *v)
{
	json_key(w, k, strlen(k));
	rt_buf_add(w->b, v, strlen(v));
	w->after_key = false;
}

static void explain_kv_str(struct json_writer *w, const char *k, const char *v)
{
	if (!v) {
		explain_kv_raw(w, k, "null");
		return;
	}
	json_key(w, k, strlen(k));
	json_string(w, v, strlen(v));
}

static void explain_kv_int(struct json_writer *w, const char *k, int64_t v)
{
	json_key(w, k, strlen(k));
	json_int(w, v);
}

static void explain_kv_type(struct explain *e, const char *k, const struct aot_type *t)
{
	char *s = explain_type_str(e->m, t);

	explain_kv_str(&e->w, k, s ? s : "?");
	free(s);
}

static void explain_json(struct explain *e, const char *name)
{
	const struct aot_meta *m = e->m;
	struct json_writer *w = &e->w;

	json_init(w, &e->out);
	json_object_begin(w);
	explain_kv_str(w, "type", "explain");
	json_key(w, "data", 4);
	json_object_begin(w);
	explain_kv_str(w, "object", name);
	explain_kv_int(w, "version", m->version);
	json_key(w, "probes", 6);
	json_array_begin(w, false);
	for (uint32_t i = 0; i < m->nprobes; i++) {
		const struct probe_plan *pp = &e->plan.v[i];
		const struct aot_probe *p = pp->probe;

		json_object_begin(w);
		explain_kv_str(w, "name", p->name);
		explain_kv_str(w, "probe_type", p->type);
		explain_kv_str(w, "target", p->target);
		explain_kv_str(w, "program", p->prog);
		explain_kv_str(w, "section", pp->prog ? bpf_program__section_name(pp->prog) : NULL);
		explain_kv_str(w, "strategy", explain_strategies[pp->strategy].name);
		explain_kv_int(w, "targets", pp->ntargets);
		explain_kv_int(w, "links", explain_links(e, i));
		json_object_end(w);
	}
	json_array_end(w);
	json_key(w, "maps", 4);
	json_array_begin(w, false);
	for (uint32_t i = 0; i < m->nmaps; i++) {
		const struct aot_map *mp = &m->maps[i];

		json_object_begin(w);
		explain_kv_str(w, "name", mp->name);
		explain_kv_str(w, "elf_name", mp->elf_name);
		explain_kv_str(w, "aggregation", aot_agg_name(mp->agg));
		if (mp->nkeys)
			explain_kv_type(e, "key", &mp->key);
		else
			explain_kv_str(w, "key", NULL);
		explain_kv_type(e, "value", &mp->value);
		if (mp->agg == AOT_AGG_COUNT)
			explain_kv_str(w, "last_key_cache", explain_lastkey(e, mp));
		if (mp->agg == AOT_AGG_HIST)
			explain_kv_int(w, "hist_k", mp->hist_k);
		if (mp->agg == AOT_AGG_LHIST) {
			explain_kv_int(w, "lhist_min", mp->lhist_min);
			explain_kv_int(w, "lhist_max", mp->lhist_max);
			explain_kv_int(w, "lhist_step", mp->lhist_step);
		}
		if (mp->agg == AOT_AGG_TSERIES) {
			explain_kv_int(w, "tseries_interval_ns", mp->tseries_interval);
			explain_kv_int(w, "tseries_intervals", mp->tseries_count);
			explain_kv_str(w, "tseries_fn", aot_tseries_fn_name(mp->tseries_fn));
		}
		json_object_end(w);
	}
	json_array_end(w);
	json_key(w, "formats", 7);
	json_array_begin(w, false);
	for (uint32_t i = 0; i < m->nfmts; i++) {
		json_object_begin(w);
		explain_kv_str(w, "kind", EXPLAIN_NAME(explain_fmt_kinds, m->fmts[i].kind));
		explain_kv_str(w, "format", m->fmts[i].fmt);
		explain_kv_type(e, "args", &m->fmts[i].args);
		json_object_end(w);
	}
	json_array_end(w);
	explain_kv_int(w, "params", m->nparams);
	explain_kv_raw(w, "params_at_run_time",
		       bpf_object__find_map_by_name(e->obj, AOT_PARAMS_MAP) ? "true" : "false");
	json_key(w, "config", 6);
	json_object_begin(w);
	for (uint32_t i = 0; i < AOT_SET_N; i++) {
		const char *word = explain_setting_word(m, i, m->settings[i]);

		if (!m->settings[i])
			continue;
		if (i == AOT_SET_PRINT_MAPS || i == AOT_SET_LAZY_SYMS)
			explain_kv_raw(w, explain_setting_names[i], word);
		else if (word)
			explain_kv_str(w, explain_setting_names[i], word);
		else
			explain_kv_int(w, explain_setting_names[i], m->settings[i]);
	}
	json_object_end(w);
	json_object_end(w);
	json_object_end(w);
	rt_buf_add(&e->out, "\n", 1);
}

/* libbpf's messages only with -v: opening is not loading, its warnings are noise here. */
static int explain_libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

int aot_explain(const void *elf, size_t size, const struct aot_run_opts *opts)
{
	const char *name = opts->obj_name ? opts->obj_name : "<memory>";
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .object_name = name);
	FILE *out = opts->out ? opts->out : stdout;
	struct explain e = { .json = opts->format == AOT_OUT_JSON };
	struct aot_meta *m = NULL;
	const void *sec;
	char msg[256];
	size_t len;
	int err, status = 1;

	err = rt_elf_section(elf, size, AOT_META_SECTION, &sec, &len);
	if (err) {
		rt_report(NULL, RT_ERROR, "%s: %s", name, rt_elf_error(err));
		return 1;
	}
	if (aot_meta_read(sec, len, &m, msg, sizeof(msg))) {
		rt_report(NULL, RT_ERROR, "%s: %s", name, msg);
		return 1;
	}
	e.m = m;
	if (!opts->verbose)
		libbpf_set_print(explain_libbpf_quiet);
	e.obj = bpf_object__open_mem(elf, size, &oopts);
	if (!e.obj) {
		rt_report(NULL, RT_ERROR, "%s: could not open the BPF object: %s", name,
			  strerror(errno));
		goto out;
	}
	if (rt_plan_init(&e.plan, m, e.obj, true))
		goto out;
	/* A probe that cannot be resolved is shown as far as it got: broken, or its targets. */
	for (uint32_t i = 0; i < m->nprobes; i++)
		rt_plan_resolve(&e.plan, i, &(struct probe_err){ 0 });
	if (e.json)
		explain_json(&e, name);
	else
		explain_text(&e, name);
	if (e.out.oom)
		goto out;
	fwrite(e.out.s, 1, e.out.len, out);
	fflush(out);
	status = 0;
out:
	rt_buf_free(&e.out);
	rt_plan_free(&e.plan);
	bpf_object__close(e.obj);
	aot_meta_free(m);
	return status;
}
