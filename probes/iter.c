// SPDX-License-Identifier: GPL-2.0
/*
 * iter:NAME[:PIN]: a BPF iterator (bpf_iter__NAME in the kernel's BTF), as bpftrace 0.27 has it:
 * a tracing program in section iter/NAME that the kernel runs once per object (task, file, vma)
 * and once more with no object at the end, while user space reads the iterator. ctx is the
 * kernel's struct bpf_iter__NAME; printf writes into the iterator with bpf_seq_printf, and the
 * runtime copies what it reads to its output after BEGIN, then ends the run; or it pins the link
 * where the probe names a pin, for `cat` to run later. Such a probe is the only one of its
 * program but for BEGIN and END.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "meta.h"
#include "probe_internal.h"
#include "types.h"

#define ITER_STRUCT "bpf_iter__"
#define ITER_FUNC "bpf_iter_"
/* Where a relative pin goes, as in bpftrace. */
#define ITER_PIN_DIR "/sys/fs/bpf/"
/* Why an iterator the kernel has may not load or attach: bpftrace gives it only -p's pid. */
#define ITER_MAP_HINT                                                                              \
	"an iterator of a map's elements (bpf_map_elem, bpf_sk_storage_map, sockmap) needs a "     \
	"map, iter:cgroup a cgroup, which iter probes cannot give them, as in bpftrace"

/* NAME of a target NAME[:PIN], arena-allocated. */
static char *iter_name(struct arena *a, const char *target)
{
	const char *colon = strchr(target, ':');

	return colon ? arena_strndup(a, target, (size_t)(colon - target)) : arena_strdup(a, target);
}

/*
 * Whether the running kernel loads an iterator program for NAME: 0 or -errno. Those of a map's
 * elements (bpf_map_elem, bpf_sk_storage_map, sockmap) are refused (EPERM on 6.18) and need a
 * map besides, which bpftrace's iter probes cannot give; bpftrace 0.27 leaves out what does not
 * load. A program compiled for another kernel's BTF (AOTRACE_BTF) is not tried here.
 */
static int iter_loads(struct probe_env *env, struct btf *btf, const char *func)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC), fd;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_ITER);

	if (env->btf_path)
		return 0;
	if (id < 0)
		return -ENOENT;
	opts.attach_btf_id = (uint32_t)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "aot_iter_try", "GPL", insns, 2, &opts);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * Every iterator of the kernel's BTF the pattern matches that the kernel loads (the kernel's own
 * variants of a context, bpf_iter__task__safe_trusted, are not iterators); a pin after the name
 * is kept on the target. Programs refuse wildcards (expand: probe_type.alone).
 */
static int iter_match(struct probe_env *env, struct arena *a, const char *pattern, char ***out,
		      size_t *n, struct probe_err *err)
{
	struct probe_names names = { .a = a };
	const char *pin = strchr(pattern, ':');
	char *name = iter_name(a, pattern);
	struct btf *btf;
	size_t kept = 0;

	*out = NULL;
	*n = 0;
	if (pin && (!pin[1] || probe_has_wildcard(pin + 1))) {
		probe_err_set(err, "write it as iter:NAME:PIN, PIN a file under " ITER_PIN_DIR,
			      "invalid pin '%s'", pin + 1);
		return -EINVAL;
	}
	btf = probe_env_vmlinux_btf(env, err);
	if (!btf)
		return -ENOENT;
	probe_btf_names(btf, 1, BTF_KIND_STRUCT, ITER_STRUCT, name, "", &names);
	for (size_t i = 0; i < names.n; i++) {
		size_t len = strlen(names.v[i]);
		int ret;

		if (len > 14 && !strcmp(names.v[i] + len - 14, "__safe_trusted"))
			continue;
		ret = iter_loads(env, btf, arena_printf(a, ITER_FUNC "%s", names.v[i]));
		if (ret && !probe_has_wildcard(name)) {
			probe_err_set(err, ITER_MAP_HINT,
				      "the kernel refuses an iterator program for %s: %s", name,
				      strerror(-ret));
			return ret;
		}
		if (!ret)
			names.v[kept++] =
				pin ? arena_printf(a, "%s%s", names.v[i], pin) : names.v[i];
	}
	names.n = kept;
	*n = probe_names_finish(&names, out);
	return (int)*n;
}

static char *iter_section(struct arena *a, const char *target)
{
	return arena_printf(a, "iter/%s", iter_name(a, target));
}

static char *iter_ctx_type(struct arena *a, const char *target)
{
	return arena_printf(a, "struct " ITER_STRUCT "%s", iter_name(a, target));
}

/*
 * For -lv: the fields of the context after its meta, from the kernel's bpf_iter_NAME(meta, ...)
 * whose parameters are those fields in their slots, as bpftrace lists them. Scripts read them
 * as ctx->name.
 */
static int iter_args(struct probe_env *env, struct arena *a, const char *target,
		     struct probe_arg **args, uint32_t *nargs, struct probe_err *err)
{
	int ret = probe_btf_func_args(env, a, arena_printf(a, ITER_FUNC "%s", iter_name(a, target)),
				      args, nargs, err);

	if (ret)
		return ret;
	if (*nargs && !strcmp((*args)[0].name, "meta")) {
		(*args)++;
		(*nargs)--;
	}
	return 0;
}

static int iter_attach(const struct probe_plan *plan, struct probe_links *links,
		       struct probe_err *err)
{
	union bpf_iter_link_info info = { .task.pid = (uint32_t)links->pid };
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &info, .link_info_len = sizeof(info));
	struct bpf_link *link = bpf_program__attach_iter(plan->prog, links->pid ? &opts : NULL);
	int ret = probe_links_add_result(links, link, err, ITER_MAP_HINT, plan->probe->name);

	if (!ret) {
		links->iter = link;
		links->iter_probe = plan->probe;
	}
	return ret;
}

/* The pin of the run's iterator as bpftrace makes it absolute; NULL: none, read it. */
static char *iter_pin_path(struct arena *a, const char *target)
{
	const char *pin = strchr(target, ':');

	if (!pin)
		return NULL;
	pin++;
	return pin[0] == '/' ? arena_strdup(a, pin) : arena_printf(a, ITER_PIN_DIR "%s", pin);
}

int probe_iter_run(const struct probe_links *links, void *out_file, struct probe_err *err)
{
	FILE *out = out_file;
	struct arena *a;
	char buf[4096], *pin;
	ssize_t len;
	int fd, ret = 0;

	if (!links->iter)
		return 0;
	a = arena_new();
	if (!a)
		return -ENOMEM;
	pin = iter_pin_path(a, links->iter_probe->target);
	if (pin) {
		ret = bpf_link__pin(links->iter, pin);
		if (ret)
			probe_err_set(err, "pin it under a BPF file system (" ITER_PIN_DIR ")",
				      "cannot pin %s to %s: %s", links->iter_probe->name, pin,
				      strerror(-ret));
		else
			fprintf(out, "Program pinned to %s\n", pin);
		goto out;
	}
	fd = bpf_iter_create(bpf_link__fd(links->iter));
	if (fd < 0) {
		ret = -errno;
		probe_err_set(err, NULL, "cannot open iterator %s: %s", links->iter_probe->name,
			      strerror(errno));
		goto out;
	}
	/* What printf wrote with bpf_seq_printf, as it comes: bpftrace copies it to stdout. */
	while ((len = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)len, out);
	if (len < 0) {
		ret = -errno;
		probe_err_set(err, NULL, "reading iterator %s: %s", links->iter_probe->name,
			      strerror(errno));
	}
	fflush(out);
	close(fd);
out:
	arena_free(a);
	return ret;
}

const struct probe_type probe_iter = {
	.name = "iter",
	.spellings = (const char *const[]){ "it", NULL },
	.flags = AOT_PROBE_ITER,
	.has_target = true,
	.alone = true,
	.list_all = "*",
	.match = iter_match,
	.section = iter_section,
	.ctx_type_of = iter_ctx_type,
	.args = iter_args,
	.attach = iter_attach,
};
