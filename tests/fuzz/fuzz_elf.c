// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what aotrace-run does with a file before libbpf sees it: the loader's ELF
 * section walker (rt_elf_section) finds the metadata section in untrusted bytes, and
 * aot_meta_read() parses it. Seeds are whole ELF objects from aotrace --emit-elf.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "meta.h"
#include "rt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aot_meta *m = NULL;
	const void *sec;
	size_t len;
	char err[256];

	/* An exact-size copy, so ASan sees any read past the end of the image. */
	uint8_t *img = malloc(size ? size : 1);

	if (!img)
		return 0;
	memcpy(img, data, size);
	if (!rt_elf_section(img, size, AOT_META_SECTION, &sec, &len)) {
		if ((const uint8_t *)sec < img || len > size ||
		    (const uint8_t *)sec - img > (ptrdiff_t)(size - len))
			abort();
		if (!aot_meta_read(sec, len, &m, err, sizeof(err)))
			aot_meta_free(m);
	}
	/* Another name, so the walk over every header runs to the end. */
	rt_elf_section(img, size, ".BTF.ext", &sec, &len);
	free(img);
	return 0;
}
