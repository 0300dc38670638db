// SPDX-License-Identifier: GPL-2.0
/*
 * Verifier rejections made legible: from a program's verifier log, the probe, the script line
 * where the verifier stopped (the "; text @ file:line" comments it prints from the program's
 * BTF line info), the verifier's own last lines, and a hint for the common causes. The whole
 * log only with -v.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#define VERIFIER_TAIL 6	      /* the verifier's own last lines shown without -v */
#define VERIFIER_LINE_MAX 512 /* longest source line we quote */

/* Known verifier messages and what a script writer can do about them. */
static const struct verifier_hint {
	const char *needle;
	const char *hint;
} verifier_hints[] = {
	{ "infinite loop detected",
	  "the verifier sees a loop that may never end: give it a condition that changes, or use "
	  "unroll(N)" },
	{ "BPF program is too large",
	  "the program is too complex to verify: fewer loop iterations, or split the work over "
	  "several probes" },
	{ "processed 1000001 insns",
	  "the program is too complex to verify: fewer loop iterations, or split the work over "
	  "several probes" },
	{ "back-edge", "this kernel refuses loops: use unroll(N) instead of while" },
	{ "combined stack size", "too much stack: use fewer or smaller variables and strings "
				 "(BPFTRACE_STRLEN)" },
	{ "stack limit", "too much stack: use fewer or smaller variables and strings "
			 "(BPFTRACE_STRLEN)" },
	{ "unknown func", "this kernel lacks a BPF helper the program needs: a builtin or function "
			  "it uses is not available on this kernel" },
	/* before the next: the kernel offers it no program type when it is locked down */
	{ "cannot use helper bpf_probe_write_user",
	  "write_user(): this kernel refuses bpf_probe_write_user to every program (kernel "
	  "lockdown, or its LSM, forbids writing user memory)" },
	{ "program of this type cannot use helper",
	  "a builtin or function used here is not available in this probe type" },
	{ "cannot call GPL-restricted function", "the object's license must be GPL-compatible" },
	{ "failed to find the address for kernel symbol",
	  "the kernel's /proc/kallsyms has no address for that variable (a kernel built without "
	  "CONFIG_KALLSYMS_ALL lists no data symbols): percpu_kaddr() cannot reach it here" },
	{ "expected=sock_common",
	  "socket_cookie() needs the struct sock pointer as the kernel passed it to the function "
	  "(args.sk): one read from memory (args.sock->sk) is a plain number to the verifier" },
	{ "misaligned", "an unaligned access: a bug in aotrace's code generation, please report it "
			"with the output of -v" },
};

static const char *verifier_hint(const char *log)
{
	for (size_t i = 0; i < sizeof(verifier_hints) / sizeof(verifier_hints[0]); i++)
		if (strstr(log, verifier_hints[i].needle))
			return verifier_hints[i].hint;
	return "if the program looks valid, this may be a bug in aotrace: please report it with "
	       "the output of -v";
}

/* The last " @ " of a "; TEXT @ FILE:LINE" comment line [p, eol), or NULL if it is not one. */
static const char *verifier_linfo_at(const char *p, const char *eol)
{
	const char *at = NULL;

	if (eol - p < 2 || p[0] != ';' || p[1] != ' ')
		return NULL;
	for (const char *q = p; q + 3 <= eol; q++)
		if (!memcmp(q, " @ ", 3))
			at = q;
	return at && memchr(at, ':', eol - at) ? at : NULL;
}

/*
 * Finds the last "; TEXT @ FILE:LINE" comment of the log: the source line of the last
 * instruction the verifier looked at. Returns false if there is none (no line info).
 */
static bool verifier_last_linfo(const char *log, char *file, size_t filelen, unsigned *line,
				char *text, size_t textlen)
{
	const char *p = log, *eol, *found = NULL, *found_eol = NULL, *at = NULL, *colon, *a;

	for (; *p; p = *eol ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		a = verifier_linfo_at(p, eol);
		if (a) {
			found = p;
			found_eol = eol;
			at = a;
		}
	}
	if (!found)
		return false;
	colon = memrchr(at, ':', found_eol - at);
	snprintf(file, filelen, "%.*s", (int)(colon - (at + 3)), at + 3);
	*line = (unsigned)strtoul(colon + 1, NULL, 10);
	/* The text as the verifier quotes it (from BTF), trimmed. */
	p = found + 2;
	while (p < at && (*p == ' ' || *p == '\t'))
		p++;
	snprintf(text, textlen, "%.*s", (int)(at - p), p);
	return *line > 0;
}

/* Line n (1-based) of text into out, without its newline; false if there is no such line. */
static bool verifier_nth_line(const char *text, unsigned n, char *out, size_t outlen)
{
	const char *p = text, *eol;

	while (--n && p) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p || !*p)
		return false;
	eol = strchr(p, '\n');
	snprintf(out, outlen, "%.*s", (int)(eol ? eol - p : (long)strlen(p)), p);
	return true;
}

/* The script's line: from the source we were given, else from the file on disk. */
static bool verifier_source_line(const struct rt *rt, const char *file, unsigned line, char *out,
				 size_t outlen)
{
	char buf[VERIFIER_LINE_MAX];
	unsigned n = 0;
	FILE *f;

	if (rt->opts->source && rt->opts->obj_name && !strcmp(file, rt->opts->obj_name))
		return verifier_nth_line(rt->opts->source, line, out, outlen);
	if (!file[0] || !strcmp(file, "-e") || !strcmp(file, "stdin"))
		return false;
	f = fopen(file, "r");
	if (!f)
		return false;
	while (fgets(buf, sizeof(buf), f)) {
		size_t len = strlen(buf);
		bool whole = len && buf[len - 1] == '\n';

		if (++n == line) {
			if (whole)
				buf[len - 1] = 0;
			snprintf(out, outlen, "%s", buf);
			fclose(f);
			return true;
		}
		/* A line longer than the buffer: skip the rest of it. */
		while (!whole && fgets(buf, sizeof(buf), f)) {
			len = strlen(buf);
			whole = len && buf[len - 1] == '\n';
		}
	}
	fclose(f);
	return false;
}

/* Prints the last n lines of log, each prefixed. */
static void verifier_print_tail(const struct output *o, const char *log, int n)
{
	size_t len = strlen(log), start;
	int lines = 0;

	while (len && log[len - 1] == '\n')
		len--;
	start = len;
	while (start && lines < n) {
		start--;
		if (!start || log[start - 1] == '\n')
			lines++;
	}
	while (start < len) {
		const char *eol = memchr(log + start, '\n', len - start);
		size_t l = eol ? (size_t)(eol - (log + start)) : len - start;

		rt_report(o, RT_TEXT, "  verifier: %.*s\n", (int)l, log + start);
		start += l + 1;
	}
}

/*
 * Older kernels (6.1) quote the source line as "; TEXT" without " @ FILE:LINE": find the last
 * such comment and the script line that reads the same, to say where it is.
 */
static bool verifier_last_text(const struct rt *rt, const char *log, unsigned *line, char *text,
			       size_t textlen)
{
	const char *p = log, *eol, *found = NULL, *found_eol = NULL, *src = rt->opts->source;
	char cand[VERIFIER_LINE_MAX];

	for (; *p; p = *eol ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		if (eol - p > 2 && p[0] == ';' && p[1] == ' ') {
			found = p + 2;
			found_eol = eol;
		}
	}
	if (!found || !src)
		return false;
	while (found < found_eol && (*found == ' ' || *found == '\t'))
		found++;
	snprintf(text, textlen, "%.*s", (int)(found_eol - found), found);
	for (unsigned n = 1; verifier_nth_line(src, n, cand, sizeof(cand)); n++) {
		if (!strcmp(cand + strspn(cand, " \t"), text)) {
			*line = n;
			return true;
		}
	}
	return false;
}

void rt_verifier_report(const struct rt *rt, const char *prog, const char *probe, const char *log,
			int err)
{
	char file[256], text[VERIFIER_LINE_MAX], src[VERIFIER_LINE_MAX];
	const struct output *o = &rt->out;
	unsigned line = 0;

	/* ENOSPC: the log did not fit, which the kernel reports instead of its own error. */
	rt_report(o, RT_ERROR, "the kernel's verifier rejected probe %s%s%s%s: %s",
		  probe ? probe : prog, probe ? " (program " : "", probe ? prog : "",
		  probe ? ")" : "",
		  err == -ENOSPC ? "its log was cut short" : strerror(err < 0 ? -err : err));
	if (verifier_last_linfo(log, file, sizeof(file), &line, text, sizeof(text))) {
		const char *name = rt->opts->obj_name, *base = name ? strrchr(name, '/') : NULL;

		/* The compiler records the script's base name; say it as the user wrote it. */
		if (base && !strcmp(base + 1, file))
			snprintf(file, sizeof(file), "%s", name);
		if (verifier_source_line(rt, file, line, src, sizeof(src)))
			rt_report(o, RT_TEXT, "  %s:%u: %s\n", file, line,
				  src + strspn(src, " \t"));
		else if (text[0])
			rt_report(o, RT_TEXT, "  %s:%u: %s\n", file, line, text);
		else
			rt_report(o, RT_TEXT, "  at %s:%u\n", file, line);
	} else if (verifier_last_text(rt, log, &line, text, sizeof(text))) {
		rt_report(o, RT_TEXT, "  %s:%u: %s\n", rt->opts->obj_name ? rt->opts->obj_name : "",
			  line, text);
	}
	if (rt->opts->verbose) {
		rt_report(o, RT_TEXT, "the verifier's log:\n%s%s", log,
			  log[0] && log[strlen(log) - 1] != '\n' ? "\n" : "");
	} else {
		verifier_print_tail(o, log, VERIFIER_TAIL);
		rt_report(o, RT_TEXT, "  (-v shows the whole verifier log)\n");
	}
	rt_report(o, RT_HINT, "%s", verifier_hint(log));
	if (err == -ENOSPC)
		rt_report(o, RT_HINT,
			  "the verifier's log did not fit in %zu bytes: set BPFTRACE_LOG_SIZE "
			  "higher to see it whole",
			  rt->log_size);
}
