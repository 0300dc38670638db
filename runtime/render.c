// SPDX-License-Identifier: GPL-2.0
/*
 * Values as the user sees them: integers, strings, tuples, and the kinds only user space can
 * render (stacks, symbols, addresses, user names, timestamps, buffers, cgroup paths, probes),
 * laid out as meta.h says. Text follows bpftrace 0.17's text output; JSON wraps the same text
 * in strings where bpftrace quotes it. Shared by printf, print(value) and map printing.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

#define RENDER_STRFTIME_MAX 64 /* bpftrace's STRING_SIZE: longer results print as "(?)" */
static uint64_t render_get64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t rt_value_int(const struct aot_type *t, const void *data)
{
	const uint8_t *p = data;
	uint64_t v = 0;
	uint32_t i;

	if (t->kind != AOT_K_INT && t->kind != AOT_K_BOOL)
		return 0;
	/* Little-endian by contract, whatever the host. */
	for (i = 0; i < t->size && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (t->kind == AOT_K_INT && t->elems) { /* a bitfield: the reader checked its bits */
		uint32_t off = AOT_INT_BIT_OFF(t->elems), bits = AOT_INT_BIT_SIZE(t->elems);

		v >>= off;
		if (bits < 64 && t->is_signed && (v >> (bits - 1)) & 1)
			v |= ~(uint64_t)0 << bits;
		else if (bits < 64)
			v &= ~(~(uint64_t)0 << bits);
		return v;
	}
	if (t->kind == AOT_K_INT && t->is_signed && t->size < 8 && (v >> (8 * t->size - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * t->size);
	return v;
}

size_t rt_value_strlen(const struct aot_type *t, const void *data)
{
	const char *nul = memchr(data, 0, t->size);

	return nul ? (size_t)(nul - (const char *)data) : t->size;
}

void rt_value_str(struct rt_buf *out, const struct rt_render *r, const struct aot_type *t,
		  const void *data)
{
	size_t n = rt_value_strlen(t, data);

	rt_buf_add(out, data, n);
	if (n == t->size && n && r && r->trailer)
		rt_buf_add(out, r->trailer, strlen(r->trailer));
}

/* An address nothing could name: C++'s ostream << (void *) spelling, "0" for NULL. */
static void render_addr(struct rt_buf *out, uint64_t addr)
{
	if (addr)
		rt_buf_printf(out, "0x%" PRIx64, addr);
	else
		rt_buf_add(out, "0", 1);
}

/*
 * The function a probe's target names (AOT_FUNC_TAG): "vfs_read" of kprobe:vfs_read+4 and of
 * kfunc:vmlinux:vfs_read, as the address would print. False if idx is no such probe.
 */
static bool render_func_tag(struct rt_buf *out, const struct rt_render *r, uint64_t v)
{
	uint64_t idx = v & ~AOT_FUNC_TAG_MASK;
	const char *t, *colon;
	size_t len;

	if ((v & AOT_FUNC_TAG_MASK) != AOT_FUNC_TAG || !r->meta || idx >= r->meta->nprobes ||
	    !(t = r->meta->probes[idx].target))
		return false;
	colon = strrchr(t, ':');
	if (colon)
		t = colon + 1;
	len = strcspn(t, "+");
	rt_buf_add(out, t, len);
	return true;
}

static void render_ksym(struct rt_buf *out, const struct rt_render *r, uint64_t addr, bool offset)
{
	if (render_func_tag(out, r, addr))
		return;
	if (!r->syms || rt_syms_ksym(r->syms, addr, offset, out))
		render_addr(out, addr);
}

static void render_usym(struct rt_buf *out, const struct rt_render *r, int pid, uint64_t addr,
			bool offset, bool module)
{
	if (r->syms && !rt_syms_usym(r->syms, pid, addr, offset, module, out))
		return;
	render_addr(out, addr);
	if (module)
		rt_buf_add(out, " ([unknown])", 12);
}

/*
 * ustack(build_id), as bpftrace 0.27: a newline, then one frame per line, unindented: the build id
 * in hex, a space and 0x then the offset into the file (two digits at least); where the kernel
 * could not read the build id, the address in hex alone.
 */
static void render_stack_build_id(struct rt_buf *out, const struct rt_render *r, int64_t id,
				  uint32_t depth)
{
	struct aot_stack_build_id f[AOT_STACK_MAX_DEPTH];

	if (!r->syms->stack_read_build_id)
		return;
	memset(f, 0, sizeof(f));
	if (r->syms->stack_read_build_id(r->syms, id, f))
		return;
	rt_buf_add(out, "\n", 1);
	for (uint32_t i = 0; i < depth && f[i].status != AOT_BUILD_ID_EMPTY; i++) {
		if (f[i].status == AOT_BUILD_ID_VALID) {
			for (int j = 0; j < AOT_BUILD_ID_SIZE; j++)
				rt_buf_printf(out, "%02x", f[i].build_id[j]);
			rt_buf_printf(out, " 0x%02" PRIx64 "\n", f[i].offset_or_ip);
		} else {
			rt_buf_printf(out, "%" PRIx64 "\n", f[i].offset_or_ip);
		}
	}
}

/*
 * A stack: a newline, then one frame per line (8 spaces then symbol+offset; perf mode: a tab,
 * the address in hex and the symbol; raw mode: the address alone), up to the type's depth.
 */
static void render_stack(struct rt_buf *out, const struct rt_render *r, const struct aot_type *t,
			 const uint8_t *data)
{
	bool user = t->kind == AOT_K_USTACK;
	int64_t id = (int64_t)render_get64(data);
	int pid = user ? (int)render_get64(data + 8) : -1;
	uint64_t ips[AOT_STACK_MAX_DEPTH + 1];
	uint32_t i, depth = t->nelems ? t->nelems : AOT_STACK_MAX_DEPTH;

	/* A failed bpf_get_stackid (e.g. no user stack in a kernel thread) prints nothing. */
	if (id < 0 || !r->syms)
		return;
	if (t->elems == AOT_STACK_MODE_BUILD_ID) {
		render_stack_build_id(out, r, id, depth);
		return;
	}
	if (!r->syms->stack_read)
		return;
	memset(ips, 0, sizeof(ips));
	if (r->syms->stack_read(r->syms, user, id, ips))
		return;
	rt_buf_add(out, "\n", 1);
	for (i = 0; i < depth && i < AOT_STACK_MAX_DEPTH && ips[i]; i++) {
		switch (t->elems) {
		case AOT_STACK_MODE_PERF:
			rt_buf_printf(out, "\t%" PRIx64 " ", ips[i]);
			if (user)
				render_usym(out, r, pid, ips[i], true, true);
			else
				render_ksym(out, r, ips[i], true);
			break;
		case AOT_STACK_MODE_RAW:
			rt_buf_printf(out, "%" PRIx64, ips[i]);
			break;
		default:
			rt_buf_add(out, "        ", 8);
			if (user)
				render_usym(out, r, pid, ips[i], true, false);
			else
				render_ksym(out, r, ips[i], true);
			break;
		}
		rt_buf_add(out, "\n", 1);
	}
}

static void render_inet(struct rt_buf *out, const uint8_t *data)
{
	char s[INET6_ADDRSTRLEN];
	uint64_t af = render_get64(data);

	/* An unknown family prints as nothing, as bpftrace does. */
	if ((af == AF_INET || af == AF_INET6) && inet_ntop((int)af, data + 8, s, sizeof(s)))
		rt_buf_add(out, s, strlen(s));
}

/* The name of uid in /etc/passwd; nothing if it has none (as bpftrace). */
static void render_username(struct rt_buf *out, uint64_t uid)
{
	FILE *f = fopen("/etc/passwd", "re");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *name = line, *c1 = strchr(line, ':'), *c2, *end;

		if (!c1 || !(c2 = strchr(c1 + 1, ':')))
			continue;
		errno = 0;
		if (strtoull(c2 + 1, &end, 10) == uid && !errno && end != c2 + 1 && *end == ':') {
			rt_buf_add(out, name, c1 - name);
			break;
		}
	}
	fclose(f);
}

/* strftime of a bpf_ktime_get_ns() time: wall clock = now - monotonic now + ns. */
/*
 * bpftrace's extension of strftime(3): %f is the microseconds, six digits. Copies in into out
 * with each %f replaced by us (a %% stays for strftime); false if out is too small.
 */
static bool render_usecs(char *out, size_t size, const char *in, uint64_t us)
{
	size_t n = 0;

	for (; *in; in++) {
		if (in[0] == '%' && (in[1] == '%' || in[1] == 'f')) {
			if (n + 7 > size)
				return false;
			if (in[1] == 'f')
				n += (size_t)snprintf(out + n, size - n, "%06llu",
						      (unsigned long long)us % 1000000);
			else
				n += (size_t)snprintf(out + n, size - n, "%%%%");
			in++;
			continue;
		}
		if (n + 2 > size)
			return false;
		out[n++] = *in;
	}
	out[n] = '\0';
	return true;
}

static void render_timestamp(struct rt_buf *out, const struct rt_render *r,
			     const struct aot_type *t, uint64_t ns)
{
	struct timespec real, mono;
	char s[RENDER_STRFTIME_MAX], fmt[RENDER_STRFTIME_MAX];
	struct tm tm;
	int64_t boot_ns;
	time_t secs;

	if (t->elems >= r->meta->nfmts || clock_gettime(CLOCK_REALTIME, &real) ||
	    clock_gettime(CLOCK_MONOTONIC, &mono))
		goto fail;
	boot_ns = (int64_t)(real.tv_sec - mono.tv_sec) * 1000000000 + real.tv_nsec - mono.tv_nsec;
	secs = (time_t)((boot_ns + (int64_t)ns) / 1000000000);
	if (!localtime_r(&secs, &tm) ||
	    !render_usecs(fmt, sizeof(fmt), r->meta->fmts[t->elems].fmt,
			  (uint64_t)((boot_ns + (int64_t)ns) % 1000000000) / 1000) ||
	    !strftime(s, sizeof(s), fmt, &tm))
		goto fail;
	rt_buf_add(out, s, strlen(s));
	return;
fail:
	rt_buf_add(out, "(?)", 3);
}

/* buf(): printable ASCII as is, every other byte as \xNN. */
/* The length a buf value holds before its bytes, no more than its type has room for. */
static uint32_t render_buf_len(const struct aot_type *t, const uint8_t *p)
{
	uint32_t len = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;

	return len > t->size - 4 ? t->size - 4 : len;
}

void rt_buf_bytes(struct rt_buf *out, const struct aot_type *t, const void *data, char mode)
{
	const uint8_t *p = data;
	uint32_t len = render_buf_len(t, p);
	uint32_t i;

	for (i = 0; i < len; i++) {
		uint8_t c = p[4 + i];

		if (!mode && c >= 32 && c <= 126)
			rt_buf_add(out, (const char *)&c, 1);
		else if (mode == 'h')
			rt_buf_printf(out, i + 1 < len ? "%02x " : "%02x", c);
		else
			rt_buf_printf(out, "\\x%02x", c);
	}
}

/* Searches dir (a path under the cgroup2 root) for the cgroup whose id (inode) is id. */
static bool render_cgroup_find(char *path, size_t len, size_t cap, uint64_t id, int depth)
{
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (depth > 32 || !(d = opendir(path)))
		return false;
	while (!found && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + 1 + n + 1 > cap)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		if (de->d_ino == id)
			found = true;
		else
			found = render_cgroup_find(path, len + 1 + n, cap, id, depth + 1);
		if (!found)
			path[len] = '\0';
	}
	closedir(d);
	return found;
}

/* "name:path" of the cgroup with this id under one hierarchy mounted at mnt ("/" if none). */
static void render_cgroup_in(struct rt_buf *out, const char *name, const char *mnt, uint64_t id)
{
	char path[PATH_MAX];
	size_t root = (size_t)snprintf(path, sizeof(path), "%s", mnt);

	rt_buf_printf(out, "%s:", name);
	/* cgroup ids are the directories' inode numbers; the root's is 1. */
	if (id == 1 || root >= sizeof(path) ||
	    !render_cgroup_find(path, root, sizeof(path), id, 0)) {
		rt_buf_add(out, "/", 1);
		return;
	}
	rt_buf_add(out, path + root, strlen(path + root));
}

struct render_hier {
	char name[64], mnt[256];
};

static int render_hier_cmp(const void *a, const void *b)
{
	return strcmp(((const struct render_hier *)a)->name, ((const struct render_hier *)b)->name);
}

/*
 * cgroup_path(id), as bpftrace prints it: "unified:PATH" for cgroup2, then ",NAME:PATH" for each
 * cgroup v1 hierarchy mounted, by name (its controllers, or the name= of a named one); nothing
 * at all where no cgroup file system is mounted.
 */
static void render_cgroup_path(struct rt_buf *out, uint64_t id)
{
	struct render_hier h[32];
	char dev[64], mnt[256], type[32], opts[256];
	size_t n = 0;
	bool unified = false;
	FILE *f = fopen("/proc/mounts", "r");

	while (f && n < sizeof(h) / sizeof(h[0]) &&
	       fscanf(f, "%63s %255s %31s %255s %*d %*d", dev, mnt, type, opts) == 4) {
		char *save = NULL, *tok;

		if (!strcmp(type, "cgroup2") && !unified) {
			render_cgroup_in(out, "unified", mnt, id);
			unified = true;
			continue;
		}
		if (strcmp(type, "cgroup"))
			continue;
		h[n].name[0] = 0;
		snprintf(h[n].mnt, sizeof(h[n].mnt), "%s", mnt);
		for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			size_t len = strlen(h[n].name);
			bool named = !strncmp(tok, "name=", 5);

			/* Mount flags and other key=value options are not controllers. */
			if (!named &&
			    (strchr(tok, '=') || !strcmp(tok, "rw") || !strcmp(tok, "ro") ||
			     !strcmp(tok, "relatime") || !strncmp(tok, "no", 2)))
				continue;
			snprintf(h[n].name + len, sizeof(h[n].name) - len, "%s%s", len ? "," : "",
				 named ? tok + 5 : tok);
		}
		n += h[n].name[0] != 0;
	}
	if (f)
		fclose(f);
	qsort(h, n, sizeof(h[0]), render_hier_cmp);
	for (size_t i = 0; i < n; i++) {
		if (unified || i)
			rt_buf_add(out, ",", 1);
		render_cgroup_in(out, h[i].name, h[i].mnt, id);
	}
}

void rt_key_text(struct rt_buf *out, const struct rt_render *r, const struct aot_type *t,
		 const void *data, const char *sep)
{
	const uint8_t *p = data;
	uint32_t i;

	if (t->kind != AOT_K_TUPLE) {
		rt_value_text(out, r, t, data, false);
		return;
	}
	/* The reader checked the element range and that each lies inside the tuple. */
	for (i = 0; i < t->nelems; i++) {
		const struct aot_elem *e = &r->meta->elems[t->elems + i];

		if (i)
			rt_buf_add(out, sep, strlen(sep));
		rt_value_text(out, r, &e->type, p + e->offset, false);
	}
}

void rt_value_text(struct rt_buf *out, const struct rt_render *r, const struct aot_type *t,
		   const void *data, bool bare)
{
	const uint8_t *p = data;
	const char *name;
	uint64_t v;

	switch (t->kind) {
	case AOT_K_INT:
		if (t->nelems >= AOT_INT_ENUM(0) &&
		    (name = aot_meta_enum_name(r->meta, t, (int64_t)rt_value_int(t, data))))
			rt_buf_printf(out, "%s", name);
		else if (t->nelems == AOT_INT_ADDRESS)
			rt_buf_printf(out, "0x%" PRIx64, rt_value_int(t, data));
		else if (t->is_signed)
			rt_buf_printf(out, "%" PRId64, (int64_t)rt_value_int(t, data));
		else
			rt_buf_printf(out, "%" PRIu64, rt_value_int(t, data));
		break;
	case AOT_K_BOOL:
		rt_buf_printf(out, "%s", p[0] ? "true" : "false");
		break;
	case AOT_K_STR:
		rt_value_str(out, r, t, data);
		break;
	case AOT_K_TUPLE:
		if (!bare)
			rt_buf_add(out, "(", 1);
		rt_key_text(out, r, t, data, ", ");
		if (!bare)
			rt_buf_add(out, ")", 1);
		break;
	case AOT_K_RECORD: /* as bpftrace: { .a = 1, .b = { .c = 2 } } */
		rt_buf_add(out, "{ ", 2);
		for (uint32_t i = 0; i < t->nelems; i++) {
			const struct aot_elem *e = &r->meta->elems[t->elems + i];

			rt_buf_printf(out, "%s.%s = ", i ? ", " : "", e->name ? e->name : "");
			rt_value_text(out, r, &e->type, p + e->offset, false);
		}
		rt_buf_add(out, " }", 2);
		break;
	case AOT_K_ARRAY: { /* as bpftrace: [1,2,3] */
		const struct aot_elem *e = &r->meta->elems[t->elems];

		rt_buf_add(out, "[", 1);
		for (uint32_t i = 0; i < t->nelems; i++) {
			if (i)
				rt_buf_add(out, ",", 1);
			rt_value_text(out, r, &e->type, p + (size_t)i * e->type.size, false);
		}
		rt_buf_add(out, "]", 1);
		break;
	}
	case AOT_K_KSTACK:
	case AOT_K_USTACK:
		render_stack(out, r, t, p);
		break;
	case AOT_K_KSYM:
		render_ksym(out, r, render_get64(p), false);
		break;
	case AOT_K_USYM:
		render_usym(out, r, (int)render_get64(p + 8), render_get64(p), false, false);
		break;
	case AOT_K_INET:
		render_inet(out, p);
		break;
	case AOT_K_MACADDR:
		rt_buf_printf(out, "%02X:%02X:%02X:%02X:%02X:%02X", p[0], p[1], p[2], p[3], p[4],
			      p[5]);
		break;
	case AOT_K_USERNAME:
		render_username(out, render_get64(p));
		break;
	case AOT_K_TIMESTAMP:
		render_timestamp(out, r, t, render_get64(p));
		break;
	case AOT_K_BUF:
		rt_buf_bytes(out, t, p, 0);
		break;
	case AOT_K_CGROUP_PATH:
		render_cgroup_path(out, render_get64(p));
		break;
	case AOT_K_PROBE:
		v = render_get64(p);
		if (v < r->meta->nprobes && r->meta->probes[v].name)
			rt_buf_add(out, r->meta->probes[v].name, strlen(r->meta->probes[v].name));
		break;
	case AOT_K_STRERROR:
		rt_buf_printf(out, "%s", strerror((int)render_get64(p)));
		break;
	case AOT_K_SIGNAL:
		/* as bpftrace 0.27: the C library's text up to SIGRTMAX (64), N/A beyond */
		v = render_get64(p);
		rt_buf_printf(out, "%s", v <= 64 ? strsignal((int)v) : "N/A");
		break;
	case AOT_K_SYSCALL:
		v = render_get64(p);
		rt_buf_printf(out, "%s",
			      v < rt_nsyscalls && rt_syscall_names[v] ? rt_syscall_names[v]
								      : "Unknown syscall");
		break;
	default:
		break;
	}
}

/*
 * An integer as bpftrace 0.27 writes one in JSON: a number where a double holds it exactly (JSON
 * numbers are doubles, RFC 8259), else its decimal digits as a string: 9007199254740993 and an
 * address such as 18446612687850292768 are quoted, 2^63 is not.
 */
static void render_json_int(struct json_writer *w, uint64_t v, bool is_signed)
{
	char text[24];
	double d = is_signed ? (double)(int64_t)v : (double)v;
	bool exact;

	/* The bounds are powers of two, exact as doubles: the casts back are defined. */
	if (is_signed)
		exact = d >= -0x1p63 && d < 0x1p63 && (int64_t)d == (int64_t)v;
	else
		exact = d < 0x1p64 && (uint64_t)d == v;
	if (exact && is_signed) {
		json_int(w, (int64_t)v);
	} else if (exact) {
		json_uint(w, v);
	} else {
		if (is_signed)
			snprintf(text, sizeof(text), "%" PRId64, (int64_t)v);
		else
			snprintf(text, sizeof(text), "%" PRIu64, v);
		json_string(w, text, strlen(text));
	}
}

void rt_value_json(struct json_writer *w, const struct rt_render *r, const struct aot_type *t,
		   const void *data)
{
	const uint8_t *p = data;
	struct rt_buf tmp = { 0 };
	uint32_t i;

	switch (t->kind) {
	case AOT_K_INT:
		/* an address is unsigned (older objects marked pointer members signed) */
		render_json_int(w, rt_value_int(t, data),
				t->is_signed && t->nelems != AOT_INT_ADDRESS);
		break;
	case AOT_K_BOOL: /* the language's bool; a C _Bool member is an INT of one byte */
		json_bool(w, p[0] != 0);
		break;
	case AOT_K_TUPLE:
		json_array_begin(w, true);
		for (i = 0; i < t->nelems; i++) {
			const struct aot_elem *e = &r->meta->elems[t->elems + i];

			rt_value_json(w, r, &e->type, p + e->offset);
		}
		json_array_end(w);
		break;
	case AOT_K_RECORD: /* as bpftrace 0.27: {"a": 1, "b": {"c": 2}} */
		json_object_begin(w);
		for (i = 0; i < t->nelems; i++) {
			const struct aot_elem *e = &r->meta->elems[t->elems + i];

			json_key(w, e->name ? e->name : "", e->name ? strlen(e->name) : 0);
			rt_value_json(w, r, &e->type, p + e->offset);
		}
		json_object_end(w);
		break;
	case AOT_K_ARRAY:
		json_array_begin(w, true);
		for (i = 0; i < t->nelems; i++) {
			const struct aot_elem *e = &r->meta->elems[t->elems];

			rt_value_json(w, r, &e->type, p + (size_t)i * e->type.size);
		}
		json_array_end(w);
		break;
	case AOT_K_BUF:
		/* bpftrace 0.27 writes a buffer as its bytes, signed: [104,-117,71,4] */
		json_array_begin(w, true);
		for (i = 0; i < render_buf_len(t, p); i++)
			json_int(w, (int8_t)p[4 + i]);
		json_array_end(w);
		break;
	case AOT_K_MACADDR:
	case AOT_K_TIMESTAMP:
		/* Neither is quoted by bpftrace 0.17; quoting keeps the line valid JSON. */
	default:
		rt_value_text(&tmp, r, t, data, false);
		json_string(w, tmp.s ? tmp.s : "", tmp.len);
		break;
	}
	rt_buf_free(&tmp);
}
