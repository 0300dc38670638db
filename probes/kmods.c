// SPDX-License-Identifier: GPL-2.0
/* Kernel modules' BTF, read once per run where a probe may name a module (kmods.h). */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "kmods.h"

static int kmod_cmp(const void *x, const void *y)
{
	return strcmp(((const struct probe_kmod *)x)->name, ((const struct probe_kmod *)y)->name);
}

int probe_kmods_read(struct probe_kmods *m, const struct btf *vmlinux)
{
	DIR *d;
	struct dirent *e;
	size_t cap = 0;

	if (m->read)
		return 0;
	m->read = true;
	d = opendir("/sys/kernel/btf");
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[320];
		struct btf *btf;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", e->d_name);
		btf = btf__parse_split(path, (struct btf *)vmlinux);
		if (!btf)
			continue;
		if (m->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct probe_kmod *v = realloc(m->v, ncap * sizeof(*v));

			if (!v) {
				btf__free(btf);
				closedir(d);
				return -ENOMEM;
			}
			m->v = v;
			cap = ncap;
		}
		m->v[m->n] = (struct probe_kmod){ .name = strdup(e->d_name), .btf = btf, .fd = -1 };
		if (!m->v[m->n].name) {
			btf__free(btf);
			closedir(d);
			return -ENOMEM;
		}
		m->n++;
	}
	closedir(d);
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), kmod_cmp);
	return 0;
}

struct probe_kmod *probe_kmods_find(struct probe_kmods *m, const char *name)
{
	struct probe_kmod key = { .name = (char *)name };

	return m->n ? bsearch(&key, m->v, m->n, sizeof(*m->v), kmod_cmp) : NULL;
}

int probe_kmod_fd(struct probe_kmod *k)
{
	uint32_t id = 0;

	if (k->fd >= 0)
		return k->fd;
	while (!bpf_btf_get_next_id(id, &id)) {
		char name[64] = "";
		struct bpf_btf_info info = { .name = (uint64_t)(uintptr_t)name,
					     .name_len = sizeof(name) };
		uint32_t len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_btf_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(name, k->name)) {
			k->fd = fd;
			return fd;
		}
		close(fd);
	}
	return -ENOENT;
}

void probe_kmods_free(struct probe_kmods *m)
{
	for (size_t i = 0; i < m->n; i++) {
		btf_funcs_free(&m->v[i].funcs);
		btf__free(m->v[i].btf);
		free(m->v[i].name);
		if (m->v[i].fd >= 0)
			close(m->v[i].fd);
	}
	free(m->v);
	*m = (struct probe_kmods){ 0 };
}

bool probe_kmod_target(const char *target, char *mod, size_t modsz, const char **name)
{
	const char *colon = strchr(target, ':');

	*name = target;
	if (!colon || !strncmp(target, "bpf:", 4) || (mod && (size_t)(colon - target) >= modsz))
		return false;
	if (mod)
		snprintf(mod, modsz, "%.*s", (int)(colon - target), target);
	*name = colon + 1;
	return true;
}

char *probe_kmod_section(struct arena *a, const char *prefix, const char *target)
{
	const char *name;

	probe_kmod_target(target, NULL, 0, &name);
	return arena_printf(a, "%s/%s", prefix, name);
}
