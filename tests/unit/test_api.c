/* Unit tests of the public functions that neither the tools call nor other
 * tests reach (the list is in the commit that added this file): the
 * versions, the filter option names, pprof_folded_write(). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pprof.h"
#include "sourcemap.h"

static void test_versions(void **state)
{
	(void)state;
	assert_string_equal(pprof_version(), PACKAGE_VERSION);
	/* The two libraries ship in one package, under one version. */
	assert_string_equal(smap_version(), PACKAGE_VERSION);
}

static void test_filter_option_names(void **state)
{
	(void)state;
	for (int o = 0; o < PPROF_FILTER_NOPTIONS; o++) {
		const char *n = pprof_filter_option_name((enum pprof_filter_option)o);
		assert_non_null(n);
		assert_int_equal(pprof_filter_option_parse(n), o);
		/* pprof's spelling, '_' for '-', names the same option. */
		char u[64];
		snprintf(u, sizeof(u), "%s", n);
		for (char *c = u; *c; c++)
			if (*c == '-')
				*c = '_';
		assert_int_equal(pprof_filter_option_parse(u), o);
	}
	assert_string_equal(pprof_filter_option_name(PPROF_FILTER_SHOW_FROM), "show-from");
	assert_null(pprof_filter_option_name(PPROF_FILTER_NOPTIONS));
	assert_null(pprof_filter_option_name((enum pprof_filter_option)-1));
}

static void test_filter_has(void **state)
{
	(void)state;
	struct pprof_filter *f = pprof_filter_new();
	assert_non_null(f);
	for (int o = 0; o < PPROF_FILTER_NOPTIONS; o++)
		assert_false(pprof_filter_has(f, (enum pprof_filter_option)o));
	assert_int_equal(pprof_filter_add(f, PPROF_FILTER_FOCUS, "main"), PPROF_OK);
	assert_int_equal(pprof_filter_add(f, PPROF_FILTER_DROP_IDLE, NULL), PPROF_OK);
	assert_true(pprof_filter_has(f, PPROF_FILTER_FOCUS));
	assert_true(pprof_filter_has(f, PPROF_FILTER_DROP_IDLE));
	assert_false(pprof_filter_has(f, PPROF_FILTER_IGNORE));
	assert_false(pprof_filter_has(f, PPROF_FILTER_NOPTIONS));
	/* A bad regex is refused and not counted as given. */
	assert_int_equal(pprof_filter_add(f, PPROF_FILTER_HIDE, "("), PPROF_EUSAGE);
	assert_false(pprof_filter_has(f, PPROF_FILTER_HIDE));
	pprof_filter_free(f);
}

static void test_folded_write(void **state)
{
	(void)state;
	const char *text = "main;b 2\nmain;a 3\nmain;b 5\n";
	struct pprof_profile *p = pprof_profile_new();
	assert_non_null(p);
	assert_int_equal(pprof_read_buffer(p, text, strlen(text), NULL), PPROF_OK);
	struct pprof_fold_options o = {0, PPROF_G_FUNCTIONS};
	struct pprof_folded *f = NULL;
	assert_int_equal(pprof_fold(p, &o, &f), PPROF_OK);
	FILE *out = tmpfile();
	assert_non_null(out);
	assert_int_equal(pprof_folded_write(f, out), PPROF_OK);
	rewind(out);
	char got[128];
	size_t n = fread(got, 1, sizeof(got) - 1, out);
	got[n] = '\0';
	assert_string_equal(got, "main;a 3\nmain;b 7\n");
	fclose(out);

	/* A stream that cannot be written: PPROF_EIO. */
	FILE *ro = fopen("/dev/null", "r");
	if (ro) {
		assert_int_equal(pprof_folded_write(f, ro), PPROF_EIO);
		fclose(ro);
	}
	pprof_folded_free(f);
	pprof_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_filter_option_names),
		cmocka_unit_test(test_filter_has),
		cmocka_unit_test(test_folded_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
