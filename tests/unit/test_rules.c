/* Unit tests of the rules file (rules.c): the schema, source-map
 * associations and their paths, default filters and how options given
 * before override them, and every error with its line and column. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "filter_private.h"

static struct pprof_rules *load(const char *text, const char *base)
{
	struct pprof_rules *r = pprof_rules_new();
	assert_non_null(r);
	if (pprof_rules_read_buffer(r, text, strlen(text), base) != PPROF_OK)
		fail_msg("rules failed: %s", pprof_rules_error(r));
	return r;
}

static void expect_error(const char *text, const char *want)
{
	struct pprof_rules *r = pprof_rules_new();
	assert_int_equal(pprof_rules_read_buffer(r, text, strlen(text), NULL), PPROF_EINPUT);
	assert_string_equal(pprof_rules_error(r), want);
	/* nothing is kept from a bad file */
	size_t n;
	pprof_rules_sourcemaps(r, &n);
	assert_int_equal(n, 0);
	assert_int_equal(r->nrenames, 0);
	assert_int_equal(r->ndefaults, 0);
	pprof_rules_free(r);
}

static const char good[] = "# comment\n"
			   "version: 1\n"
			   "rename:\n"
			   "  - match: 'node_modules/((?:@[^/]+/)?[^/]+)/'\n"
			   "    in: file\n"
			   "    name: '[$1]'\n"
			   "    group: true\n"
			   "filters:\n"
			   "  drop-idle: true\n"
			   "  collapse-recursion: false\n"
			   "  hide: ['^\\(garbage collector\\)$', '^\\(program\\)$']\n"
			   "  focus: handler\n"
			   "  tagroot: worker\n"
			   "sourcemaps:\n"
			   "  - url: worker.js\n"
			   "    map: dist/worker.js.map\n"
			   "  - url-regex: '^https://example\\.com/(?<name>.*)\\.js$'\n"
			   "    map: 'maps/${name}.js.map'\n"
			   "  - url: 'file:///abs.js'\n"
			   "    map: /srv/abs.js.map\n";

static void test_rules_good(void **state)
{
	(void)state;
	struct pprof_rules *r = load(good, "conf/$x/");
	assert_int_equal(r->nrenames, 1);
	assert_true(r->renames[0].in_file);
	assert_true(r->renames[0].group);
	assert_string_equal(r->renames[0].name, "[$1]");
	assert_null(r->renames[0].file);
	/* collapse-recursion: false adds nothing */
	assert_int_equal(r->ndefaults, 5);
	assert_int_equal(r->defaults[0].opt, PPROF_FILTER_DROP_IDLE);
	assert_int_equal(r->defaults[1].opt, PPROF_FILTER_HIDE);
	assert_int_equal(r->defaults[2].opt, PPROF_FILTER_HIDE);
	assert_int_equal(r->defaults[2].line, 11);
	assert_string_equal(r->defaults[3].value, "handler");

	size_t n;
	const struct pprof_rules_sourcemap *m = pprof_rules_sourcemaps(r, &n);
	assert_int_equal(n, 3);
	assert_string_equal(m[0].url, "worker.js");
	assert_false(m[0].is_regex);
	assert_string_equal(m[0].map, "conf/$x/dist/worker.js.map");
	assert_true(m[1].is_regex);
	assert_string_equal(m[2].map, "/srv/abs.js.map");

	char *path;
	assert_int_equal(pprof_rules_sourcemap_for(r, "worker.js", &path), PPROF_OK);
	assert_string_equal(path, "conf/$x/dist/worker.js.map");
	free(path);
	/* the directory's '$' stays literal in a template */
	assert_int_equal(pprof_rules_sourcemap_for(r, "https://example.com/app/main.js", &path),
			 PPROF_OK);
	assert_string_equal(path, "conf/$x/maps/app/main.js.map");
	free(path);
	assert_int_equal(pprof_rules_sourcemap_for(r, "other.js", &path), PPROF_OK);
	assert_null(path);
	pprof_rules_free(r);
}

static void test_rules_defaults_yield_to_options(void **state)
{
	(void)state;
	struct pprof_rules *r = load(good, NULL);
	struct pprof_filter *f = pprof_filter_new();
	/* focus given before: the file's focus is not added */
	assert_int_equal(pprof_filter_add(f, PPROF_FILTER_FOCUS, "^main$"), PPROF_OK);
	assert_int_equal(pprof_filter_use_rules(f, r), PPROF_OK);
	struct pprof_profile *p = pprof_profile_new();
	static const char in[] = "main;handler 1\nmain 2\n(idle) 4\nx;(garbage collector) 8\n";
	assert_int_equal(pprof_read_buffer(p, in, strlen(in), NULL), PPROF_OK);
	assert_int_equal(pprof_filter_apply(f, p, NULL), PPROF_OK);
	struct pprof_fold_options o = {0, PPROF_G_FUNCTIONS};
	struct pprof_folded *fo;
	assert_int_equal(pprof_fold(p, &o, &fo), PPROF_OK);
	/* tagroot worker: no labels, an empty frame at the root */
	assert_int_equal(fo->n, 2);
	assert_int_equal(fo->lines[0].value, 2);
	assert_int_equal(fo->lines[1].value, 1);
	assert_memory_equal(fo->lines[1].stack, "<unknown>;main;handler", fo->lines[1].len);
	pprof_folded_free(fo);
	pprof_profile_free(p);
	pprof_filter_free(f);
	pprof_rules_free(r);
}

static void test_rules_errors(void **state)
{
	(void)state;
	expect_error("", "empty rules file: it needs at least 'version: 1'");
	expect_error("rename: []\n", "missing 'version: 1' (at line 1, column 1)");
	expect_error("version: 2\n",
		     "unsupported rules version '2' (this program reads version 1) (at line 1, column 10)");
	expect_error("version: 1\nextra: 1\n",
		     "unknown key 'extra' (version, rename, filters, sourcemaps) (at line 2, column 1)");
	expect_error("version: 1\nrename:\n  - match: '('\n    name: x\n",
		     "bad match regular expression '(': missing closing parenthesis at offset 1 "
		     "(at line 3, column 12)");
	expect_error("version: 1\nrename:\n  - match: '(a)'\n    name: '$2'\n",
		     "replacement '$2' refers to group 2; the regex has 1 (at line 4, column 11)");
	expect_error("version: 1\nrename:\n  - match: a\n    name: '${nope}'\n",
		     "replacement '${nope}' refers to no group named 'nope' (at line 4, column 11)");
	expect_error("version: 1\nrename:\n  - match: a\n",
		     "a rename rule needs 'name', 'file' or 'group: true' (at line 3, column 5)");
	expect_error("version: 1\nrename:\n  - match: a\n    in: url\n    name: b\n",
		     "in must be 'name' or 'file', not 'url' (at line 4, column 9)");
	expect_error("version: 1\nfilters:\n  focus: '['\n",
		     "bad focus regular expression '[': missing terminating ] for character class "
		     "at offset 1 (at line 3, column 10)");
	expect_error("version: 1\nfilters:\n  drop-idle: maybe\n",
		     "drop-idle must be true or false (at line 3, column 14)");
	expect_error("version: 1\nfilters:\n  nope: 1\n", "unknown filter 'nope' (at line 3, column 3)");
	expect_error("version: 1\nfilters:\n  hide: [a, {b: c}]\n",
		     "hide must be a string (at line 3, column 13)");
	expect_error("version: 1\nsourcemaps:\n  - url: a.js\n",
		     "a sourcemaps entry needs 'url' (or 'url-regex') and 'map' (at line 3, column 5)");
	expect_error("version: 1\nsourcemaps:\n  - url: a.js\n    url-regex: b\n    map: m\n",
		     "give one of 'url' and 'url-regex' (at line 4, column 5)");
	expect_error("version: 1\nrename: [\n", "while parsing a flow node did not find expected node content (at line 3, column 1)");
	expect_error("version: 1\n---\nversion: 1\n", "more than one YAML document (at line 3, column 1)");
	expect_error("version: 1\nversion: 1\n", "'version' given twice (at line 2, column 1)");
	/* a value with a line break is quoted on one line */
	expect_error("version: 1\nrename:\n  - match: \"(\\n\"\n    name: x\n",
		     "bad match regular expression '(\\n': missing closing parenthesis at offset 2 "
		     "(at line 3, column 12)");
	expect_error("version: 1\n\"a\\rb\": 1\n",
		     "unknown key 'a\\rb' (version, rename, filters, sourcemaps) (at line 2, column 1)");
	expect_error("- 1\n",
		     "a rules file is a mapping (version, rename, filters, sourcemaps) (at line 1, column 1)");
}

static void test_rules_file(void **state)
{
	(void)state;
	struct pprof_rules *r = pprof_rules_new();
	assert_int_equal(pprof_rules_read_file(r, "/nonexistent/rules.yaml"), PPROF_EIO);
	assert_string_equal(pprof_rules_error(r), "No such file or directory");
	pprof_rules_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_good),
		cmocka_unit_test(test_rules_defaults_yield_to_options),
		cmocka_unit_test(test_rules_errors),
		cmocka_unit_test(test_rules_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
