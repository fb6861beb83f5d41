/*
 * filter_private.h: what filter.c, rules.c and write_pprof.c share: the
 * compiled rename rules of a rules file, and PCRE2 helpers.  Private to
 * libpprof.
 */
#ifndef PP_FILTER_PRIVATE_H
#define PP_FILTER_PRIVATE_H

#ifndef PPROF_INTERNAL
#error "filter_private.h is private to libpprof"
#endif

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "pprof_private.h"

/* A rename rule: when RE matches the frame's name (or file, IN_FILE), the
 * name becomes the NAME template and the file the FILE template (NULL:
 * unchanged).  A GROUP rule makes a frame of the name alone (and the file
 * when FILE is set): no line, column or address, never inlined, and a run
 * of equal grouped frames becomes one. */
struct pp_rename {
	pcre2_code *re;
	bool in_file;
	bool group;
	char *name;
	char *file;
};

/* A default filter of the rules file: option and value, in file order. */
struct pp_rule_default {
	enum pprof_filter_option opt;
	char *value;
	unsigned long line, column; /* 1-based, for messages */
};

struct pprof_rules {
	struct pp_rename *renames;
	size_t nrenames;
	struct pp_rule_default *defaults;
	size_t ndefaults;
	struct pprof_rules_sourcemap *maps;
	pcre2_code **map_re; /* per association, NULL when exact */
	size_t nmaps;
	struct pp_buf error;
};

/* Appends S to B as one line of a message: CR and LF as \r and \n, other
 * control bytes as '?'.  False when out of memory. */
bool pp_buf_add_line(struct pp_buf *b, const char *s, size_t n);

/* Compiles PATTERN as the filters match (unanchored, UTF with invalid
 * sequences tolerated, JIT when available).  NULL on error, with the
 * message and offset in *ERR and *ERROFF. */
pcre2_code *pp_re_compile(const char *pattern, size_t len, int *err, size_t *erroff);
/* Whether RE matches S[0..N) (MD from pcre2_match_data_create_from_pattern
 * or any match data with room for group 0). */
bool pp_re_match(const pcre2_code *re, const char *s, size_t n, pcre2_match_data *md);
/* Checks that the $N, ${N}, ${name} references of a replacement template
 * name groups of RE; false with a message in MSG (SIZE bytes) otherwise. */
bool pp_re_template_ok(const pcre2_code *re, const char *tmpl, char *msg, size_t size);
/* The replacement TMPL for the first match of RE in S[0..N), appended to
 * OUT; 0 when RE does not match, 1 when it did, -1 when out of memory. */
int pp_re_expand(const pcre2_code *re, const char *s, size_t n, const char *tmpl,
		 struct pp_buf *out);

#endif /* PP_FILTER_PRIVATE_H */
