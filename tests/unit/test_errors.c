// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the helper-error report: a per-CPU array laid out as AOT_ERRORS_MAP, filled from user
 * space the way the programs fill it, must turn into one warning per map and kind, naming the
 * map and its key limit. Needs a kernel that lets us create maps (root); skipped otherwise.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>

#include "rt.h"

struct fixture {
	struct aot_meta *m;
	int fd, ncpus;
	char *text;
	size_t len;
	FILE *err;
	struct output out;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->m = aot_meta_new();
	aot_meta_add_map(f->m, &(struct aot_map){ .name = "@a", .elf_name = "AT_a" });
	aot_meta_add_map(f->m, &(struct aot_map){ .name = "@b", .elf_name = "AT_b" });
	f->ncpus = libbpf_num_possible_cpus();
	f->fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "aot_errors", 4, 8, 2 * AOT_ERR_NKINDS,
			       NULL);
	f->err = open_memstream(&f->text, &f->len);
	f->out = (struct output){ .ops = &output_text_ops, .f = stdout, .err = f->err };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->fd >= 0)
		close(f->fd);
	fclose(f->err);
	free(f->text);
	aot_meta_free(f->m);
	free(f);
	return 0;
}

/* Adds n to every CPU's copy of the counter at key, as that many programs would. */
static void bump(struct fixture *f, uint32_t key, uint64_t n)
{
	uint64_t *vals = calloc(f->ncpus, sizeof(*vals));

	assert_int_equal(bpf_map_lookup_elem(f->fd, &key, vals), 0);
	for (int i = 0; i < f->ncpus; i++)
		vals[i] += n;
	assert_int_equal(bpf_map_update_elem(f->fd, &key, vals, 0), 0);
	free(vals);
}

static void test_report(void **state)
{
	struct fixture *f = *state;
	uint32_t max_keys[2] = { 4096, 10 };
	char want[128];

	if (f->fd < 0)
		skip();
	bump(f, 1 * AOT_ERR_NKINDS + AOT_ERR_MAP_FULL, 3);
	bump(f, 0 * AOT_ERR_NKINDS + AOT_ERR_MAP_UPDATE, 1);
	bump(f, 0 * AOT_ERR_NKINDS + AOT_ERR_MAP_DELETE, 5);
	assert_int_equal(rt_errors_report_fd(f->m, f->fd, max_keys, false, &f->out, NULL), 0);
	fflush(f->err);
	snprintf(want, sizeof(want),
		 "WARNING: map @b is full: %d updates failed (its limit of 10 "
		 "keys was reached",
		 3 * f->ncpus);
	assert_non_null(strstr(f->text, want));
	snprintf(want, sizeof(want), "WARNING: map @a: %d updates failed\n", f->ncpus);
	assert_non_null(strstr(f->text, want));
	/* Deletes of missing keys only when asked for everything (-v). */
	assert_null(strstr(f->text, "deletes"));
	assert_int_equal(rt_errors_report_fd(f->m, f->fd, NULL, true, &f->out, NULL), 0);
	fflush(f->err);
	assert_non_null(strstr(f->text, "map @a: "));
	assert_non_null(strstr(f->text, "deletes of keys that were not there"));
	assert_non_null(strstr(f->text, "its key limit was reached"));
}

static void test_growth_only(void **state)
{
	struct fixture *f = *state;
	uint64_t seen[2 * AOT_ERR_NKINDS] = { 0 };

	if (f->fd < 0)
		skip();
	bump(f, AOT_ERR_MAP_FULL, 1);
	assert_int_equal(rt_errors_report_fd(f->m, f->fd, NULL, false, &f->out, seen), 0);
	fflush(f->err);
	assert_non_null(strstr(f->text, "map @a is full"));
	/* Nothing new: nothing said. */
	fseek(f->err, 0, SEEK_SET);
	f->text[0] = 0;
	assert_int_equal(rt_errors_report_fd(f->m, f->fd, NULL, false, &f->out, seen), 0);
	fflush(f->err);
	assert_int_equal(f->len, 0);
}

static void test_wrong_layout(void **state)
{
	struct fixture *f = *state;
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "aot_errors", 4, 8, 3, NULL);

	if (fd < 0)
		skip();
	assert_int_equal(rt_errors_report_fd(f->m, fd, NULL, true, &f->out, NULL), -EINVAL);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_growth_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_layout, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
