/* Unit tests of the filters (filter.c): each option on small profiles
 * built from folded text or by hand (inlined runs, labels), the quirks of
 * pprof's show_from and prune_from inside a Location, tag ranges and
 * tag frames with pprof's unit scaling, renames, and the sample sequence. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "filter_private.h"

static char *fold_str(struct pprof_profile *p)
{
	struct pprof_fold_options o = {pprof_sample_type_select(p, NULL), PPROF_G_FUNCTIONS};
	struct pprof_folded *f = NULL;
	assert_int_equal(pprof_fold(p, &o, &f), PPROF_OK);
	struct pp_buf b;
	pp_buf_init(&b);
	for (size_t i = 0; i < f->n; i++) {
		pp_buf_add(&b, f->lines[i].stack, f->lines[i].len);
		pp_buf_addf(&b, " %lld\n", (long long)f->lines[i].value);
	}
	pprof_folded_free(f);
	char *s = strdup(b.s);
	pp_buf_release(&b);
	return s;
}

static struct pprof_profile *read_text(const char *text)
{
	struct pprof_profile *p = pprof_profile_new();
	assert_non_null(p);
	if (pprof_read_buffer(p, text, strlen(text), NULL) != PPROF_OK)
		fail_msg("read failed: %s", pprof_profile_error(p));
	return p;
}

/* Applies OPTS ("focus", "a|b", "hide", "x", ..., NULL) to folded IN and
 * checks the folded result. */
static void expect_v(const char *in, const char *want, va_list ap)
{
	struct pprof_filter *f = pprof_filter_new();
	const char *name;
	while ((name = va_arg(ap, const char *)) != NULL) {
		int o = pprof_filter_option_parse(name);
		assert_true(o >= 0);
		const char *v = va_arg(ap, const char *);
		if (pprof_filter_add(f, (enum pprof_filter_option)o, v) != PPROF_OK)
			fail_msg("%s", pprof_filter_error(f));
	}
	struct pprof_profile *p = read_text(in);
	if (pprof_filter_apply(f, p, NULL) != PPROF_OK)
		fail_msg("%s", pprof_profile_error(p));
	char *got = fold_str(p);
	assert_string_equal(got, want);
	free(got);
	pprof_profile_free(p);
	pprof_filter_free(f);
}

static void expect(const char *in, const char *want, ...)
{
	va_list ap;
	va_start(ap, want);
	expect_v(in, want, ap);
	va_end(ap);
}

static const char *const tree = "main;a;b 10\n"
				"main;a;c 20\n"
				"main;d 5\n"
				"main;a;b;a;b 1\n";

static const char *const tree_sorted = "main;a;b 10\n"
				       "main;a;b;a;b 1\n"
				       "main;a;c 20\n"
				       "main;d 5\n";

static void test_filter_focus_ignore(void **state)
{
	(void)state;
	expect(tree, "main;a;b 10\nmain;a;b;a;b 1\n", "focus", "^b$", NULL);
	expect(tree, "main;a;c 20\nmain;d 5\n", "ignore", "^b$", NULL);
	/* unanchored, and both together: focused and not ignored */
	expect(tree, "main;a;c 20\n", "focus", "a", "ignore", "b|d", NULL);
	/* repeated: any of them */
	expect(tree, "main;a;c 20\nmain;d 5\n", "focus", "^c", "focus", "^d", NULL);
}

static void test_filter_hide_show(void **state)
{
	(void)state;
	expect(tree, "main;b 10\nmain;b;b 1\nmain;c 20\nmain;d 5\n", "hide", "^a$", NULL);
	expect(tree, "a 20\na;b 10\na;b;a;b 1\n", "show", "^[ab]$", NULL);
	/* a stack emptied by hide goes */
	expect("x 3\nx;y 4\n", "y 4\n", "hide", "x", NULL);
}

static void test_filter_show_from_prune_from(void **state)
{
	(void)state;
	expect(tree, "a;b 10\na;b;a;b 1\na;c 20\n", "show-from", "^a$", NULL);
	expect(tree, "b 10\nb;a;b 1\n", "show_from", "^b$", NULL);
	/* the innermost match cuts what is below it */
	expect(tree, "main;a 30\nmain;a;b;a 1\nmain;d 5\n", "prune-from", "^a$", NULL);
	/* a match at the leaf leaves the stack as it is */
	expect(tree, tree_sorted, "prune-from", "^b$", NULL);
	/* prune_from matches the simplified name: no argument list */
	expect("f(int);g(char) 1\n", "f(int) 1\n", "prune-from", "^f$", NULL);
}

static void test_filter_collapse_drop_idle(void **state)
{
	(void)state;
	expect("a;a;a;b;a 1\n(idle) 2\n(program) 3\nx;(program) 4\n(garbage collector) 5\n",
	       "(garbage collector) 5\na;b;a 1\n", "collapse-recursion", NULL, "drop-idle", NULL,
	       NULL);
}

/* A pprof-like profile by hand: locations as runs of frames, the inlined
 * ones flagged.  Stack: main | f [g inl, h inl] | leaf. */
static uint32_t frame(struct pprof_profile *p, const char *name, bool inl)
{
	struct pp_frame f;
	memset(&f, 0, sizeof(f));
	assert_int_equal(pp_intern_cstr(p, name, &f.name), PPROF_OK);
	f.flags = inl ? PP_FRAME_INLINED : 0;
	uint32_t id;
	assert_int_equal(pp_frame_intern(p, &f, &id), PPROF_OK);
	return id;
}

static struct pprof_profile *inline_profile(void)
{
	struct pprof_profile *p = pprof_profile_new();
	struct pp_sample_type t;
	assert_int_equal(pp_intern_cstr(p, "samples", &t.type), PPROF_OK);
	assert_int_equal(pp_intern_cstr(p, "count", &t.unit), PPROF_OK);
	assert_int_equal(pp_begin_input(p, &t, 1, -1), PPROF_OK);
	uint32_t fr[] = {frame(p, "main", false), frame(p, "f", false), frame(p, "g", true),
			 frame(p, "h", true), frame(p, "leaf", false)};
	uint32_t n = 0;
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(pp_node_child(p, n, fr[i], &n), PPROF_OK);
	int64_t v = 7;
	assert_int_equal(pp_add_sample(p, n, 0, &v, 0), PPROF_OK);
	return p;
}

static void expect_inline(const char *opt, const char *re, const char *want)
{
	struct pprof_filter *f = pprof_filter_new();
	assert_int_equal(pprof_filter_add(f, (enum pprof_filter_option)pprof_filter_option_parse(opt),
					  re),
			 PPROF_OK);
	struct pprof_profile *p = inline_profile();
	assert_int_equal(pprof_filter_apply(f, p, NULL), PPROF_OK);
	char *got = fold_str(p);
	assert_string_equal(got, want);
	free(got);
	pprof_profile_free(p);
	pprof_filter_free(f);
}

static void test_filter_inlined_runs(void **state)
{
	(void)state;
	/* show_from trims the matching location's outer lines */
	expect_inline("show-from", "^g$", "g;h;leaf 7\n");
	/* and in every matching location, even below the outermost one:
	 * main matches too, yet f goes from the f/g/h location */
	expect_inline("show-from", "^(main|g)$", "main;g;h;leaf 7\n");
	/* prune_from keeps a matching location's lines down to its innermost
	 * match and cuts the stack below the innermost matching location */
	expect_inline("prune-from", "^g$", "main;f;g 7\n");
	expect_inline("prune-from", "^(f|leaf)$", "main;f;leaf 7\n");
	/* hide removes lines; a location keeps the rest */
	expect_inline("hide", "^f$", "main;g;h;leaf 7\n");
	expect_inline("show", "^(h|leaf)$", "h;leaf 7\n");
}

static void test_filter_inlined_head_removed(void **state)
{
	(void)state;
	/* With f hidden, g becomes the head of its location: the frame that
	 * is left is no longer flagged inlined, so writers start a location
	 * there. */
	struct pprof_filter *f = pprof_filter_new();
	assert_int_equal(pprof_filter_add(f, PPROF_FILTER_HIDE, "^f$"), PPROF_OK);
	struct pprof_profile *p = inline_profile();
	assert_int_equal(pprof_filter_apply(f, p, NULL), PPROF_OK);
	uint32_t n = p->entries[0].node;
	const char *names[4];
	bool inl[4];
	int d = 0;
	for (; n && d < 4; n = p->nodes[n].parent, d++) {
		names[d] = pp_str(p, p->frames[p->nodes[n].frame].name);
		inl[d] = p->frames[p->nodes[n].frame].flags & PP_FRAME_INLINED;
	}
	assert_int_equal(d, 4);
	assert_string_equal(names[1], "h");
	assert_true(inl[1]);
	assert_string_equal(names[2], "g");
	assert_false(inl[2]);
	pprof_profile_free(p);
	pprof_filter_free(f);
}

/* Labels: a numeric "bytes" label (unit bytes) and a string "thread" on
 * main;alloc, and an unlabelled sample on alloc. */
static struct pprof_profile *label_profile(void)
{
	struct pprof_profile *p = pprof_profile_new();
	struct pp_sample_type t;
	assert_int_equal(pp_intern_cstr(p, "samples", &t.type), PPROF_OK);
	assert_int_equal(pp_intern_cstr(p, "count", &t.unit), PPROF_OK);
	assert_int_equal(pp_begin_input(p, &t, 1, -1), PPROF_OK);
	uint32_t fmain = frame(p, "main", false), falloc = frame(p, "alloc", false);
	uint32_t n1, leaf, lone;
	assert_int_equal(pp_node_child(p, 0, fmain, &n1), PPROF_OK);
	assert_int_equal(pp_node_child(p, n1, falloc, &leaf), PPROF_OK);
	assert_int_equal(pp_node_child(p, 0, falloc, &lone), PPROF_OK);
	static const struct {
		int64_t bytes;
		const char *thread;
		int64_t value;
	} s[] = {{100, "main", 1}, {1536, "io", 10}, {3 << 20, "io", 100}, {0, NULL, 1000}};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		struct pp_label l[2];
		uint32_t n = 0, set;
		memset(l, 0, sizeof(l));
		if (s[i].thread) {
			assert_int_equal(pp_intern_cstr(p, "bytes", &l[0].key), PPROF_OK);
			assert_int_equal(pp_intern_cstr(p, "bytes", &l[0].unit), PPROF_OK);
			l[0].num = s[i].bytes;
			assert_int_equal(pp_intern_cstr(p, "thread", &l[1].key), PPROF_OK);
			assert_int_equal(pp_intern_cstr(p, s[i].thread, &l[1].str), PPROF_OK);
			n = 2;
		}
		assert_int_equal(pp_labelset_intern(p, l, n, &set), PPROF_OK);
		assert_int_equal(pp_add_sample(p, s[i].thread ? leaf : lone, set, &s[i].value, 0),
				 PPROF_OK);
	}
	return p;
}

static void expect_labels(const char *opt, const char *v, const char *want)
{
	struct pprof_filter *f = pprof_filter_new();
	int o = pprof_filter_option_parse(opt);
	if (pprof_filter_add(f, (enum pprof_filter_option)o, v) != PPROF_OK)
		fail_msg("%s", pprof_filter_error(f));
	struct pprof_profile *p = label_profile();
	assert_int_equal(pprof_filter_apply(f, p, NULL), PPROF_OK);
	char *got = fold_str(p);
	assert_string_equal(got, want);
	free(got);
	pprof_profile_free(p);
	pprof_filter_free(f);
}

static void test_filter_tagfocus(void **state)
{
	(void)state;
	expect_labels("tagfocus", "thread=io", "main;alloc 110\n");
	expect_labels("tagfocus", "thread=main,x", "main;alloc 1\n");
	expect_labels("tagignore", "thread=io", "alloc 1000\nmain;alloc 1\n");
	/* without a key, regexes match "key:value" */
	expect_labels("tagfocus", "thread:m", "main;alloc 1\n");
	/* ranges, in the label's unit scaled to the range's */
	expect_labels("tagfocus", "bytes=1kb:2mb", "main;alloc 10\n");
	expect_labels("tagfocus", "bytes=1kb:", "main;alloc 110\n");
	expect_labels("tagfocus", "bytes=:1kb", "main;alloc 1\n");
	expect_labels("tagfocus", "bytes=100b", "main;alloc 1\n");
	expect_labels("tagfocus", "bytes=3mb", "main;alloc 100\n");
	/* a number without a unit is not in bytes: nothing matches */
	expect_labels("tagfocus", "bytes=100", "");
	expect_labels("tagignore", "1kb:", "alloc 1000\nmain;alloc 1\n");
}

static void test_filter_tagroot_tagleaf(void **state)
{
	(void)state;
	expect_labels("tagroot", "thread",
		      "<unknown>;alloc 1000\nio;main;alloc 110\nmain;main;alloc 1\n");
	expect_labels("tagleaf", "bytes",
		      "alloc;<unknown> 1000\nmain;alloc;1.50kB 10\nmain;alloc;100B 1\nmain;alloc;3MB 100\n");
	expect_labels("tagroot", "bytes,thread",
		      "1.50kB;io;main;alloc 10\n100B;main;main;alloc 1\n3MB;io;main;alloc 100\n"
		      "<unknown>;<unknown>;alloc 1000\n");
}

static void test_filter_bad_values(void **state)
{
	(void)state;
	struct pprof_filter *f = pprof_filter_new();
	assert_int_equal(pprof_filter_add(f, PPROF_FILTER_FOCUS, "("), PPROF_EUSAGE);
	assert_non_null(strstr(pprof_filter_error(f), "bad focus regular expression"));
	assert_int_equal(pprof_filter_add(f, PPROF_FILTER_TAGFOCUS, "k=a,("), PPROF_EUSAGE);
	assert_int_equal(pprof_filter_add(f, PPROF_FILTER_TAGFOCUS, "k=99999999999999999999kb"),
			 PPROF_EUSAGE);
	assert_true(pprof_filter_is_empty(f));
	assert_int_equal(pprof_filter_option_parse("show_from"), PPROF_FILTER_SHOW_FROM);
	assert_int_equal(pprof_filter_option_parse("show-from"), PPROF_FILTER_SHOW_FROM);
	assert_int_equal(pprof_filter_option_parse("show-fro"), -1);
	assert_int_equal(pprof_filter_option_parse("tagroots"), -1);
	pprof_filter_free(f);
}

static void test_filter_warns_no_match(void **state)
{
	(void)state;
	struct pprof_filter *f = pprof_filter_new();
	assert_int_equal(pprof_filter_add(f, PPROF_FILTER_FOCUS, "nothing"), PPROF_OK);
	struct pprof_profile *p = read_text(tree);
	assert_int_equal(pprof_filter_apply(f, p, NULL), PPROF_OK);
	assert_int_equal(pprof_profile_warning_count(p), 1);
	assert_string_equal(pprof_profile_warning(p, 0), "focus expression matched no samples");
	char *got = fold_str(p);
	assert_string_equal(got, "");
	free(got);
	pprof_profile_free(p);
	pprof_filter_free(f);
}

static void test_filter_sequence_follows(void **state)
{
	(void)state;
	static const char cpu[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\","
		"\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2,3]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"(idle)\",\"scriptId\":\"0\",\"url\":\"\","
		"\"lineNumber\":-1,\"columnNumber\":-1}},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"work\",\"scriptId\":\"1\",\"url\":\"a.js\","
		"\"lineNumber\":0,\"columnNumber\":0}}],"
		"\"startTime\":0,\"endTime\":40,\"samples\":[2,3,2,3],\"timeDeltas\":[10,10,10,10]}";
	struct pprof_profile *p = read_text(cpu);
	assert_int_equal(p->nseq, 4);
	struct pprof_filter *f = pprof_filter_new();
	assert_int_equal(pprof_filter_add(f, PPROF_FILTER_DROP_IDLE, NULL), PPROF_OK);
	assert_int_equal(pprof_filter_apply(f, p, NULL), PPROF_OK);
	assert_int_equal(p->nseq, 2);
	for (size_t i = 0; i < p->nseq; i++)
		assert_string_equal(pp_str(p, p->frames[p->nodes[p->seq[i].node].frame].name),
				    "work");
	assert_int_equal(p->seq[0].time, 20000);
	assert_int_equal(p->seq[1].time, 40000);
	pprof_profile_free(p);
	pprof_filter_free(f);
}

static void test_filter_rename_group(void **state)
{
	(void)state;
	static const char rules[] = "version: 1\n"
				    "rename:\n"
				    "  - match: '^lib_(\\w+)_'\n"
				    "    name: '[$1]'\n"
				    "    group: true\n"
				    "  - match: '^(get|set) (.*)$'\n"
				    "    name: '${2}.$1'\n";
	struct pprof_rules *r = pprof_rules_new();
	if (pprof_rules_read_buffer(r, rules, strlen(rules), NULL) != PPROF_OK)
		fail_msg("%s", pprof_rules_error(r));
	struct pprof_filter *f = pprof_filter_new();
	assert_int_equal(pprof_filter_use_rules(f, r), PPROF_OK);
	assert_false(pprof_filter_is_empty(f));
	struct pprof_profile *p = read_text("main;lib_x_a;lib_x_b;get name;lib_x_c 1\n"
					    "main;lib_y_a;lib_x_b 2\n");
	assert_int_equal(pprof_filter_apply(f, p, NULL), PPROF_OK);
	char *got = fold_str(p);
	assert_string_equal(got, "main;[x];name.get;[x] 1\nmain;[y];[x] 2\n");
	free(got);
	pprof_profile_free(p);
	pprof_filter_free(f);
	pprof_rules_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_focus_ignore),
		cmocka_unit_test(test_filter_hide_show),
		cmocka_unit_test(test_filter_show_from_prune_from),
		cmocka_unit_test(test_filter_collapse_drop_idle),
		cmocka_unit_test(test_filter_inlined_runs),
		cmocka_unit_test(test_filter_inlined_head_removed),
		cmocka_unit_test(test_filter_tagfocus),
		cmocka_unit_test(test_filter_tagroot_tagleaf),
		cmocka_unit_test(test_filter_bad_values),
		cmocka_unit_test(test_filter_warns_no_match),
		cmocka_unit_test(test_filter_sequence_follows),
		cmocka_unit_test(test_filter_rename_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
