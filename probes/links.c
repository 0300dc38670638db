// SPDX-License-Identifier: GPL-2.0
/*
 * The list of links a run made. Probe types add to it as they attach; the runtime destroys it
 * whole at exit, so a probe that fails halfway leaves nothing attached. What attaching leaves out
 * is reported through the runtime's reporter, which the list carries.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

int probe_links_add(struct probe_links *l, struct bpf_link *link)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		struct bpf_link **v = realloc(l->v, ncap * sizeof(*v));

		if (!v) {
			bpf_link__destroy(link);
			return -ENOMEM;
		}
		l->v = v;
		l->cap = ncap;
	}
	l->v[l->n++] = link;
	return 0;
}

void probe_links_warn(struct probe_links *l, const char *fmt, ...)
{
	va_list ap;

	if (!l->warn)
		return;
	va_start(ap, fmt);
	l->warn(l->warn_ctx, fmt, ap);
	va_end(ap);
}

int probe_links_add_result(struct probe_links *l, struct bpf_link *link, struct probe_err *err,
			   const char *hint, const char *what)
{
	int ret = libbpf_get_error(link);

	if (ret) {
		probe_err_set(err, hint, "cannot attach %s: %s", what, strerror(-ret));
		return ret;
	}
	return probe_links_add(l, link);
}

void probe_links_destroy(struct probe_links *l)
{
	for (size_t i = 0; i < l->n; i++)
		bpf_link__destroy(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
