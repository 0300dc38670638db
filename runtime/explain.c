// SPDX-License-Identifier: GPL-2.0
/*
 * --explain: what an object would attach on this host and how, and what its metadata says,
 * without loading anything. The object is opened by libbpf (not loaded) so that each probe
 * type's prepare callback can choose its strategy exactly as a run would (multi link or one
 * link per target); targets are counted by the probe types' own match on this host.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "arena.h"
#include "probe.h"
#include "rt.h"

/* What a run would do with one probe. */
struct explain_probe {
	const char *strategy; /* short word, also the JSON value */
	const char *how;      /* a sentence for the text form */
	long targets;	      /* targets on this host; -1 if it cannot tell */
	long links;	      /* links a run would make; -1 if unknown */
	char why[256];	      /* why targets is -1 */
};

struct explain {
	const struct aot_meta *m;
	struct bpf_object *obj;
	struct probe_env *env;
	struct explain_probe *probes;
	struct rt_buf out;
	struct json_writer w;
	bool json;
};

static const char *const explain_aggs[] = {
	[AOT_AGG_NONE] = "value",  [AOT_AGG_COUNT] = "count", [AOT_AGG_SUM] = "sum",
	[AOT_AGG_MIN] = "min",	   [AOT_AGG_MAX] = "max",     [AOT_AGG_AVG] = "avg",
	[AOT_AGG_STATS] = "stats", [AOT_AGG_HIST] = "hist",   [AOT_AGG_LHIST] = "lhist",
};

static const char *const explain_fmt_kinds[] = {
	[AOT_FMT_PRINTF] = "printf",
	[AOT_FMT_SYSTEM] = "system",
	[AOT_FMT_CAT] = "cat",
	[AOT_FMT_TIME] = "time",
	[AOT_FMT_PRINT_VALUE] = "print",
	[AOT_FMT_JOIN] = "join",
	[AOT_FMT_HELPER_ERROR] = "helper_error",
};

#define EXPLAIN_NAME(tab, i)                                                                       \
	((size_t)(i) < sizeof(tab) / sizeof(tab[0]) && (tab)[i] ? (tab)[i] : "?")

/* A type as the language writes it: int64, string[64], (int64, string[16]), kstack. */
static void explain_type(struct rt_buf *b, const struct aot_meta *m, const struct aot_type *t,
			 int depth)
{
	switch (t->kind) {
	case AOT_K_INT:
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

/* Decides, as a run would, how one probe attaches and how many links it makes here. */
static void explain_plan(struct explain *e, uint32_t i)
{
	const struct aot_probe *p = &e->m->probes[i];
	const struct probe_type *pt = probe_type_find(p->type);
	struct bpf_program *prog = bpf_object__find_program_by_name(e->obj, p->prog);
	struct explain_probe *x = &e->probes[i];
	struct probe_err perr = { 0 };
	enum bpf_attach_type at;
	struct arena *a;
	char **targets;
	size_t n = 0;
	int ret;

	x->targets = x->links = -1;
	if (!pt || !prog) {
		x->strategy = "broken";
		x->how = pt ? "its program is not in the object" : "unknown probe type";
		return;
	}
	if ((p->flags | pt->flags) & (AOT_PROBE_BEGIN | AOT_PROBE_END)) {
		x->strategy = "run-once";
		x->how =
			(p->flags | pt->flags) & AOT_PROBE_BEGIN
				? "run once before the other probes start (BPF_PROG_TEST_RUN), no link"
				: "run once when the run ends (BPF_PROG_TEST_RUN), no link";
		x->targets = 1;
		x->links = 0;
		return;
	}
	a = arena_new();
	if (a && pt->match && pt->has_target && p->target) {
		if (!e->env)
			e->env = probe_env__new();
		ret = e->env ? pt->match(e->env, a, p->target, &targets, &n, &perr) : -ENOMEM;
		if (ret >= 0)
			x->targets = (long)n;
		else
			snprintf(x->why, sizeof(x->why), "%s",
				 perr.msg[0] ? perr.msg : strerror(-ret));
	} else if (!pt->has_target) {
		x->targets = 1;
	}
	arena_free(a);
	if (x->targets == 0) {
		x->strategy = "missing";
		x->how = "no such target on this kernel: skipped or an error, per --missing-probes";
		x->links = 0;
		return;
	}
	if (!(p->flags & AOT_PROBE_MULTI)) {
		x->strategy = "single";
		x->how = "one program, one link for its target";
		x->links = 1;
		return;
	}
	/* The probe type's own choice: it keeps the multi attach type only where it works. */
	if (pt->prepare)
		pt->prepare(prog, p, &perr);
	at = bpf_program__expected_attach_type(prog);
	if (at == BPF_TRACE_KPROBE_MULTI || at == BPF_TRACE_UPROBE_MULTI) {
		x->strategy = "multi";
		x->how = "one program for every match, attached with one multi link";
		x->links = x->targets < 0 ? -1 : 1;
	} else {
		x->strategy = "fallback";
		x->how = "one program for every match; no multi links here: one link per match";
		x->links = x->targets;
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
		bool first = true;

		for (uint32_t j = 0; j < i && first; j++)
			first = strcmp(m->probes[j].prog, m->probes[i].prog) != 0;
		progs += first;
		if (e->probes[i].links < 0)
			links_known = false;
		else
			links += e->probes[i].links;
	}
	rt_buf_printf(b, "%s: aotrace object, metadata version %u\n", name, m->version);
	rt_buf_printf(b, "\nprobes: %u, in %u programs; links on this host: ", m->nprobes, progs);
	if (links_known)
		rt_buf_printf(b, "%ld\n", links);
	else
		rt_buf_printf(b, "at least %ld (some targets cannot be listed here)\n", links);
	for (uint32_t i = 0; i < m->nprobes; i++) {
		const struct aot_probe *p = &m->probes[i];
		const struct explain_probe *x = &e->probes[i];
		struct bpf_program *prog = bpf_object__find_program_by_name(e->obj, p->prog);

		rt_buf_printf(b, "  %s\n", p->name ? p->name : p->type);
		rt_buf_printf(b, "    program %s, section %s\n", p->prog,
			      prog ? bpf_program__section_name(prog) : "?");
		rt_buf_printf(b, "    %s: %s\n", x->strategy, x->how);
		if (p->flags & AOT_PROBE_MULTI) {
			if (x->targets >= 0)
				rt_buf_printf(b, "    targets matching %s here: %ld\n", p->target,
					      x->targets);
			else
				rt_buf_printf(b,
					      "    targets of %s: resolved when it attaches (%s)\n",
					      p->target, x->why);
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
		if (mp->agg == AOT_AGG_COUNT)
			rt_buf_printf(b, "count()");
		else if (mp->agg == AOT_AGG_NONE)
			rt_buf_printf(b, "value %s", vs ? vs : "?");
		else
			rt_buf_printf(b, "%s() of %s", EXPLAIN_NAME(explain_aggs, mp->agg),
				      vs ? vs : "?");
		if (mp->agg == AOT_AGG_LHIST)
			rt_buf_printf(b, " (min %lld, max %lld, step %lld)",
				      (long long)mp->lhist_min, (long long)mp->lhist_max,
				      (long long)mp->lhist_step);
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
		const struct aot_probe *p = &m->probes[i];
		const struct explain_probe *x = &e->probes[i];
		struct bpf_program *prog = bpf_object__find_program_by_name(e->obj, p->prog);

		json_object_begin(w);
		explain_kv_str(w, "name", p->name);
		explain_kv_str(w, "probe_type", p->type);
		explain_kv_str(w, "target", p->target);
		explain_kv_str(w, "program", p->prog);
		explain_kv_str(w, "section", prog ? bpf_program__section_name(prog) : NULL);
		explain_kv_str(w, "strategy", x->strategy);
		explain_kv_int(w, "targets", x->targets);
		explain_kv_int(w, "links", x->links);
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
		explain_kv_str(w, "aggregation", EXPLAIN_NAME(explain_aggs, mp->agg));
		if (mp->nkeys)
			explain_kv_type(e, "key", &mp->key);
		else
			explain_kv_str(w, "key", NULL);
		explain_kv_type(e, "value", &mp->value);
		if (mp->agg == AOT_AGG_LHIST) {
			explain_kv_int(w, "lhist_min", mp->lhist_min);
			explain_kv_int(w, "lhist_max", mp->lhist_max);
			explain_kv_int(w, "lhist_step", mp->lhist_step);
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
		fprintf(stderr, "ERROR: %s: %s\n", name,
			err == -ENOENT ? "no " AOT_META_SECTION " section: not built by aotrace?"
				       : "not a valid 64-bit little-endian ELF object");
		return 1;
	}
	if (aot_meta_read(sec, len, &m, msg, sizeof(msg))) {
		fprintf(stderr, "ERROR: %s: %s\n", name, msg);
		return 1;
	}
	e.m = m;
	if (!opts->verbose)
		libbpf_set_print(explain_libbpf_quiet);
	e.obj = bpf_object__open_mem(elf, size, &oopts);
	if (!e.obj) {
		fprintf(stderr, "ERROR: %s: could not open the BPF object: %s\n", name,
			strerror(errno));
		goto out;
	}
	e.probes = calloc(m->nprobes ? m->nprobes : 1, sizeof(*e.probes));
	if (!e.probes)
		goto out;
	for (uint32_t i = 0; i < m->nprobes; i++)
		explain_plan(&e, i);
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
	free(e.probes);
	probe_env__free(e.env);
	bpf_object__close(e.obj);
	aot_meta_free(m);
	return status;
}
