// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe:BINARY@FILE:LINE[:COL]: the address of a source statement, read from the binary's DWARF
 * line table with elfutils' libdw (the binary's own debug info, or a separate file that libdwfl
 * finds by build id or debuglink under /usr/lib/debug), the way bpftrace 0.26 and later find
 * it: the source file (of the first compilation unit that has it) whose path ends with FILE,
 * compared a whole path element at a time, unless files of two different paths do; then the
 * first row of that unit's line table at LINE (and COL, if given) whose code comes from that
 * file, not from another it includes. Only the compiler links libdw: the object
 * keeps the address, and the runtime attaches it as it attaches uprobe:BINARY:ADDRESS.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "frontend.h"
#include "probe.h"

/* Whether path ends with pattern, whole path elements only ("b/c.c" ends "/a/b/c.c", "c.c" not). */
static bool path_ends_with(const char *path, const char *pattern)
{
	size_t n = strlen(path), m = strlen(pattern);

	if (!m || m > n || strcmp(path + n - m, pattern))
		return false;
	return m == n || pattern[0] == '/' || path[n - m - 1] == '/';
}

/*
 * The first compilation unit with a source file (its own or one it includes) whose path, as the
 * line table gives it, ends with FILE, and that path; NULL with err set if none, or if files of
 * two different paths end with it.
 */
static Dwarf_Die *srcline_cu(struct arena *a, Dwfl *dwfl, const char *file, char **path,
			     struct probe_err *err)
{
	Dwarf_Die *cu = NULL, *found = NULL;
	Dwarf_Addr bias;

	while ((cu = dwfl_nextcu(dwfl, cu, &bias))) {
		Dwarf_Files *files;
		size_t nfiles;

		if (dwarf_getsrcfiles(cu, &files, &nfiles))
			continue;
		for (size_t i = 0; i < nfiles; i++) {
			const char *src = dwarf_filesrc(files, i, NULL, NULL);

			if (!src || !path_ends_with(src, file))
				continue;
			if (!found) {
				found = cu;
				*path = arena_strdup(a, src);
			} else if (strcmp(src, *path)) {
				probe_err_set(
					err,
					"give more of the file's path, up to a directory that "
					"tells them apart",
					"'%s' names more than one source file: %s, %s", file, *path,
					src);
				return NULL;
			}
		}
	}
	if (!found)
		probe_err_set(err, "give the file's path as the compiler saw it, or its last part",
			      "no source file of the binary is '%s'", file);
	return found;
}

int srcline_addr(struct arena *a, const char *bin, const char *file, unsigned long line,
		 unsigned long col, uint64_t *addr, struct probe_err *err)
{
	static char *debuginfo_path;
	static const Dwfl_Callbacks callbacks = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &debuginfo_path,
	};
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwarf_Addr bias;
	Dwarf_Lines *lines;
	Dwarf_Die *cu;
	char *cu_path = NULL;
	size_t nlines;
	int ret = -ENOENT;

	if (!dwfl)
		return -ENOMEM;
	if (!dwfl_report_offline(dwfl, bin, bin, -1) || dwfl_report_end(dwfl, NULL, NULL) ||
	    !dwfl_nextcu(dwfl, NULL, &bias)) {
		probe_err_set(
			err, "build it with -g, or install its debug symbols (the -dbgsym package)",
			"%s has no DWARF debug info, which a probe at a source line needs", bin);
		goto out;
	}
	cu = srcline_cu(a, dwfl, file, &cu_path, err);
	if (!cu) {
		ret = -ENOENT;
		goto out;
	}
	if (dwarf_getsrclines(cu, &lines, &nlines)) {
		probe_err_set(err, NULL, "cannot read the line table of %s in %s: %s", cu_path, bin,
			      dwarf_errmsg(-1));
		ret = -EINVAL;
		goto out;
	}
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		const char *src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
		bool end = false;
		int lineno, column;

		if (!src || dwarf_lineno(l, &lineno) || dwarf_linecol(l, &column) ||
		    dwarf_lineendsequence(l, &end) || end)
			continue;
		if ((unsigned long)lineno != line || (col && (unsigned long)column != col) ||
		    !path_ends_with(src, cu_path))
			continue;
		if (!dwarf_lineaddr(l, addr)) {
			ret = 0;
			goto out;
		}
	}
	if (col)
		probe_err_set(err, "give the line (and column) of a statement that has code",
			      "%s:%lu:%lu has no code in %s", file, line, col, bin);
	else
		probe_err_set(err, "give the line of a statement that has code",
			      "%s:%lu has no code in %s", file, line, bin);
out:
	dwfl_end(dwfl);
	return ret;
}
