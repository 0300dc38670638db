// SPDX-License-Identifier: GPL-2.0
/*
 * aotrace --info: what this kernel offers aotrace, found by trying it (loading a program,
 * opening an event, creating a link; uprobes by their tracefs file), never from the kernel's
 * version, so the answer is the one aotrace itself will meet when it attaches.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probe.h"
#include "probe_internal.h"
#include "tracing_multi.h"

/* One line: "  name: yes" or "  name: no (why)". */
static void info_line(FILE *f, const char *name, bool yes, const char *why)
{
	if (yes || !why || !*why)
		fprintf(f, "  %-22s %s\n", name, yes ? "yes" : "no");
	else
		fprintf(f, "  %-22s no (%s)\n", name, why);
}

/* A perf event opened on CPU 0 and closed at once. 0, or -errno. */
static int info_perf_open(struct perf_event_attr *attr)
{
	int fd = (int)syscall(__NR_perf_event_open, attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* A counting event of this type and config. */
static int info_perf(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.disabled = 1,
		.sample_period = 1000000,
	};

	return info_perf_open(&attr);
}

/* A kprobe on vfs_read through the kprobe PMU (as libbpf attaches one). */
static int info_kprobe(void)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .sample_period = 1 };
	FILE *t = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type = -1;

	if (!t)
		return -errno;
	if (fscanf(t, "%d", &type) != 1)
		type = -1;
	fclose(t);
	if (type < 0)
		return -EINVAL;
	attr.type = (uint32_t)type;
	attr.config1 = (uint64_t)(unsigned long)"vfs_read";
	return info_perf_open(&attr);
}

static unsigned int info_module_btfs(void)
{
	DIR *d = opendir("/sys/kernel/btf");
	struct dirent *e;
	unsigned int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' && strcmp(e->d_name, "vmlinux") != 0;
	closedir(d);
	return n;
}

int probe_info(struct probe_env *env, void *out_file)
{
	static const struct bpf_insn ret0[] = {
		{ .code = 0xb7, .dst_reg = 0 }, /* r0 = 0 */
		{ .code = 0x95 },		/* exit */
	};
	FILE *f = out_file;
	struct probe_err err = { 0 };
	struct utsname u;
	const char *tracefs;
	char path[160], why[192];
	bool btf, yes;
	int r;

	if (!uname(&u))
		fprintf(f, "System\n  %-22s %s %s\n  %-22s %s\n", "kernel:", u.sysname, u.release,
			"arch:", u.machine);
	fprintf(f, "  %-22s %ld online\n", "cpus:", sysconf(_SC_NPROCESSORS_ONLN));
	fprintf(f, "  %-22s libbpf %u.%u\n", "build:", libbpf_major_version(),
		libbpf_minor_version());

	fprintf(f, "\nKernel features (tried, not read from the version)\n");
	btf = probe_env_vmlinux_btf(env, &err) != NULL;
	snprintf(why, sizeof(why), "%u module BTFs", info_module_btfs());
	if (btf)
		fprintf(f, "  %-22s yes (vmlinux, %s)\n", "btf:", why);
	else
		info_line(f, "btf:", false, err.msg);

	err = (struct probe_err){ 0 };
	tracefs = probe_env_tracefs(env, &err);
	if (tracefs)
		fprintf(f, "  %-22s yes (%s)\n", "tracefs:", tracefs);
	else
		info_line(f, "tracefs:", false, err.msg);
	r = info_kprobe();
	snprintf(why, sizeof(why), "%s: %s",
		 r == -ENOENT ? "no kprobe PMU (CONFIG_KPROBE_EVENTS)" : "a kprobe on vfs_read",
		 strerror(-r));
	info_line(f, "kprobe:", !r, why);
	info_line(f, "kprobe_multi:", probe_kprobe_multi_supported(), "no kprobe_multi links");
	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs ? tracefs : "/sys/kernel/tracing");
	yes = tracefs && !access(path, F_OK);
	snprintf(why, sizeof(why), "no %s", path);
	info_line(f, "uprobe:", yes, why);
	info_line(f, "uprobe_multi:", probe_uprobe_multi_supported(), "no uprobe_multi links");
	info_line(f, "kprobe session:", probe_session_supported(env, probe_type_find("kprobe"), -1),
		  "no kprobe session links or no bpf_session_is_return (6.10)");
	info_line(f, "uprobe session:", probe_session_supported(env, probe_type_find("uprobe"), -1),
		  "no uprobe session links or no bpf_session_is_return (6.13)");
	info_line(f, "fentry session:", probe_session_supported(env, probe_type_find("kfunc"), -1),
		  "no fsession links (fentry + fexit, Linux 7.2 UAPI) or no bpf_session_is_return");
	r = probe_kfunc_try_load(env, BPF_TRACE_FENTRY, ret0, 2);
	info_line(f, "fentry:", !r, strerror(-r));
	r = probe_kfunc_try_load(env, BPF_TRACE_FEXIT, ret0, 2);
	info_line(f, "fexit:", !r, strerror(-r));
	info_line(f, "fentry attach cookies:", probe_kfunc_cookies_supported(env), NULL);
	info_line(f, "fentry multi links:", probe_tracing_multi_supported(env),
		  "no tracing multi links (fentry/fexit multi, Linux 7.2 UAPI)");
	info_line(f, "raw tracepoints:",
		  libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL) == 1, NULL);
	info_line(f, "ring buffer:", libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1,
		  NULL);
	info_line(f, "get_func_ip:",
		  libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_func_ip, NULL) == 1,
		  NULL);
	info_line(f, "for_each_map_elem:",
		  libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_for_each_map_elem,
					  NULL) == 1,
		  NULL);
	r = info_perf(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	info_line(f, "software perf events:", !r, strerror(-r));
	r = info_perf(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	info_line(f, "hardware perf events:", !r, strerror(-r));
	return 0;
}
