// SPDX-License-Identifier: GPL-2.0
/*
 * Helper errors the programs count instead of reporting one by one: a map update refused
 * because the map is full (its key limit reached), other update failures, deletes of missing
 * keys. The programs add to a per-CPU array (AOT_ERRORS_MAP, layout in meta.h); at exit the
 * runtime folds the CPUs and warns once per map and kind, as bpftrace's -k does per event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "rt.h"

static void errors_text(const struct aot_meta *m, uint32_t map, uint32_t kind, uint64_t n,
			uint32_t max_keys, char *msg, size_t len)
{
	const char *name = map < m->nmaps && m->maps[map].name ? m->maps[map].name : "?";

	switch (kind) {
	case AOT_ERR_MAP_FULL:
		if (max_keys)
			snprintf(msg, len,
				 "map %s is full: %llu updates failed (its limit of %u keys was "
				 "reached; raise it with --map-keys-max)",
				 name, (unsigned long long)n, max_keys);
		else
			snprintf(msg, len,
				 "map %s is full: %llu updates failed (its key limit was reached; "
				 "raise it with --map-keys-max)",
				 name, (unsigned long long)n);
		break;
	case AOT_ERR_MAP_DELETE:
		snprintf(msg, len, "map %s: %llu deletes of keys that were not there", name,
			 (unsigned long long)n);
		break;
	default:
		snprintf(msg, len, "map %s: %llu updates failed", name, (unsigned long long)n);
		break;
	}
}

int rt_errors_report_fd(const struct aot_meta *m, int fd, const uint32_t *max_keys, bool all,
			struct output *out, uint64_t *seen)
{
	struct bpf_map_info info = { 0 };
	uint32_t info_len = sizeof(info), key, n;
	uint64_t *vals, total;
	int ncpus, i, err = 0;
	char msg[256];

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len))
		return -errno;
	/* The layout is ours, but the map comes from an ELF anyone may hand us: check it. */
	if (info.type != BPF_MAP_TYPE_PERCPU_ARRAY || info.key_size != 4 || info.value_size != 8)
		return -EINVAL;
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	n = info.max_entries;
	if (n > m->nmaps * AOT_ERR_NKINDS)
		n = m->nmaps * AOT_ERR_NKINDS;
	for (key = 0; key < n; key++) {
		if (bpf_map_lookup_elem(fd, &key, vals)) {
			err = -errno;
			break;
		}
		for (total = 0, i = 0; i < ncpus; i++)
			total += vals[i];
		/* seen (n entries, or NULL) holds what was reported before: report the growth. */
		if (seen) {
			uint64_t was = seen[key];

			seen[key] = total;
			total = total > was ? total - was : 0;
		}
		/* A delete of a missing key is common and mostly harmless: only when asked (-v). */
		if (!total || (!all && key % AOT_ERR_NKINDS == AOT_ERR_MAP_DELETE))
			continue;
		errors_text(m, key / AOT_ERR_NKINDS, key % AOT_ERR_NKINDS, total,
			    max_keys ? max_keys[key / AOT_ERR_NKINDS] : 0, msg, sizeof(msg));
		rt_report(out, RT_WARN, "%s", msg);
	}
	free(vals);
	return err;
}

void rt_errors_report(struct rt *rt)
{
	struct bpf_map *map = rt->obj ? bpf_object__find_map_by_name(rt->obj, AOT_ERRORS_MAP)
				      : NULL,
		       *um;
	uint32_t *max_keys, i;
	int err;

	if (!map || bpf_map__fd(map) < 0)
		return;
	/* Each map's own limit, for the message; 0 where the map cannot be found. */
	max_keys = calloc(rt->meta->nmaps ? rt->meta->nmaps : 1, sizeof(*max_keys));
	for (i = 0; max_keys && i < rt->meta->nmaps; i++) {
		um = bpf_object__find_map_by_name(rt->obj, rt->meta->maps[i].elf_name);
		max_keys[i] = um ? bpf_map__max_entries(um) : 0;
	}
	err = rt_errors_report_fd(rt->meta, bpf_map__fd(map), max_keys, rt->opts->verbose > 0,
				  &rt->out, NULL);
	free(max_keys);
	if (err == -EINVAL)
		rt_report(&rt->out, RT_WARN,
			  "the map " AOT_ERRORS_MAP " does not have the expected layout: ignored");
}
