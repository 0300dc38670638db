// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols for the renderers: kernel names from the ksyms index (created on the first kernel
 * address, or up front when the program renders kernel addresses), user names from libbcc's
 * per-process symbol caches (libbcc_bpf, no LLVM; it reads JIT perf maps /tmp/perf-PID.map
 * too), refreshed when a lookup misses since the process may have mapped new code, and stack
 * frames read from the programs' stack trace maps. The caches are shared by the event loop and
 * the metrics server's thread (map keys rendered for a scrape): one lock guards them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bcc/bcc_syms.h>
#include <bpf/bpf.h>

#include "ksyms.h"
#include "rt.h"

#define SYMS_REFRESH_NS 100000000ull /* a process's cache is rebuilt at most every 100 ms */

struct rt_usyms {
	int pid;
	void *cache;
	uint64_t refreshed_ns;
};

static uint64_t syms_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int syms_stack_read(struct rt_syms *s, bool user, int64_t id, uint64_t *ips)
{
	uint32_t key = (uint32_t)id;
	int fd = user ? s->ustack_fd : s->kstack_fd;

	if (fd < 0)
		return -ENOENT;
	return bpf_map_lookup_elem(fd, &key, ips) ? -errno : 0;
}

static int syms_stack_read_build_id(struct rt_syms *s, int64_t id, struct aot_stack_build_id *f)
{
	uint32_t key = (uint32_t)id;

	if (s->ustack_bid_fd < 0)
		return -ENOENT;
	return bpf_map_lookup_elem(s->ustack_bid_fd, &key, f) ? -errno : 0;
}

void rt_syms_init(struct rt_syms *s, const struct output *out, int verbose)
{
	*s = (struct rt_syms){ .kstack_fd = -1,
			       .ustack_fd = -1,
			       .ustack_bid_fd = -1,
			       .out = out,
			       .verbose = verbose };
	s->stack_read = syms_stack_read;
	s->stack_read_build_id = syms_stack_read_build_id;
	pthread_mutex_init(&s->lock, NULL);
}

void rt_syms_fini(struct rt_syms *s)
{
	size_t i;

	if (s->ksyms && s->verbose) {
		struct ksyms_stats st;

		ksyms__stats(s->ksyms, &st);
		rt_report(s->out, RT_TEXT,
			  "ksyms: read kallsyms %u time(s), %zu symbols, %zu BPF symbols, %llu "
			  "records, %llu lost\n",
			  st.scans, st.nsyms, st.nbpf, (unsigned long long)st.records,
			  (unsigned long long)st.lost);
	}
	ksyms__free(s->ksyms);
	for (i = 0; i < s->nusyms; i++)
		bcc_free_symcache(s->usyms[i].cache, s->usyms[i].pid);
	free(s->usyms);
	pthread_mutex_destroy(&s->lock);
	rt_syms_init(s, s->out, s->verbose);
}

/* rt_syms_kernel_open, with the lock held. */
static int syms_kernel_open(struct rt_syms *s)
{
	struct ksyms_opts o = { .sz = sizeof(o), .live = true };

	if (s->ksyms || s->ksyms_failed)
		return 0;
	s->ksyms = ksyms__new(&o);
	if (!s->ksyms) {
		/* Without a subscription, BPF programs loaded later will lack names. */
		rt_report(s->out, RT_WARN, "cannot follow kernel symbol changes (%s)",
			  strerror(errno));
		o.live = false;
		s->ksyms = ksyms__new(&o);
	}
	if (!s->ksyms) {
		s->ksyms_failed = true;
		return -ENOMEM;
	}
	return 0;
}

int rt_syms_kernel_open(struct rt_syms *s)
{
	int err;

	pthread_mutex_lock(&s->lock);
	err = syms_kernel_open(s);
	pthread_mutex_unlock(&s->lock);
	return err;
}

void rt_syms_update(struct rt_syms *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->ksyms)
		ksyms__update(s->ksyms);
	pthread_mutex_unlock(&s->lock);
}

/* rt_syms_ksym, with the lock held: the name ksyms__lookup returns lasts until its next call. */
static int syms_ksym(struct rt_syms *s, uint64_t addr, bool offset, struct rt_buf *out)
{
	uint64_t off;
	const char *name;

	if (!s->ksyms && syms_kernel_open(s))
		return -ENOENT;
	if (!s->ksyms)
		return -ENOENT;
	name = ksyms__lookup(s->ksyms, addr, &off);
	if (!name)
		return -ENOENT;
	rt_buf_add(out, name, strlen(name));
	if (offset)
		rt_buf_printf(out, "+%llu", (unsigned long long)off);
	if (offset && s->verbose) {
		char line[256];

		/* Inside a BPF program with line info: where in its source (as perf shows). */
		if (!ksyms__srcline(s->ksyms, addr, line, sizeof(line)))
			rt_buf_printf(out, " [%s]", line);
	}
	return 0;
}

int rt_syms_ksym(struct rt_syms *s, uint64_t addr, bool offset, struct rt_buf *out)
{
	int err;

	pthread_mutex_lock(&s->lock);
	err = syms_ksym(s, addr, offset, out);
	pthread_mutex_unlock(&s->lock);
	return err;
}

static struct rt_usyms *syms_user_cache(struct rt_syms *s, int pid)
{
	struct bcc_symbol_option opt = {
		.use_debug_file = 1,
		.check_debug_file_crc = 1,
		.lazy_symbolize = !s->eager,
		.use_symbol_type = BCC_SYM_ALL_TYPES,
	};
	struct rt_usyms *u;
	size_t i;

	for (i = 0; i < s->nusyms; i++)
		if (s->usyms[i].pid == pid)
			return &s->usyms[i];
	if (s->nusyms == s->cap_usyms) {
		size_t cap = s->cap_usyms ? 2 * s->cap_usyms : 8;

		u = realloc(s->usyms, cap * sizeof(*u));
		if (!u)
			return NULL;
		s->usyms = u;
		s->cap_usyms = cap;
	}
	u = &s->usyms[s->nusyms];
	u->pid = pid;
	u->cache = bcc_symcache_new(pid, &opt);
	u->refreshed_ns = syms_now_ns();
	if (!u->cache)
		return NULL;
	s->nusyms++;
	return u;
}

static int syms_usym(struct rt_syms *s, int pid, uint64_t addr, bool offset, bool module,
		     struct rt_buf *out)
{
	struct rt_usyms *u = syms_user_cache(s, pid);
	struct bcc_symbol sym = {};
	const char *name;
	int err;

	if (!u)
		return -ENOENT;
	err = bcc_symcache_resolve(u->cache, addr, &sym);
	if (err && syms_now_ns() - u->refreshed_ns > SYMS_REFRESH_NS) {
		/* A miss may be code mapped since the cache was built (dlopen, a JIT). */
		bcc_symcache_refresh(u->cache);
		u->refreshed_ns = syms_now_ns();
		err = bcc_symcache_resolve(u->cache, addr, &sym);
	}
	if (err)
		return -ENOENT;
	name = sym.demangle_name ? sym.demangle_name : sym.name;
	rt_buf_add(out, name, strlen(name));
	if (offset)
		rt_buf_printf(out, "+%llu", (unsigned long long)sym.offset);
	if (module)
		rt_buf_printf(out, " (%s)", sym.module ? sym.module : "[unknown]");
	bcc_symbol_free_demangle_name(&sym);
	return 0;
}

int rt_syms_usym(struct rt_syms *s, int pid, uint64_t addr, bool offset, bool module,
		 struct rt_buf *out)
{
	int err;

	pthread_mutex_lock(&s->lock);
	err = syms_usym(s, pid, addr, offset, module, out);
	pthread_mutex_unlock(&s->lock);
	return err;
}
