/*
 * harness.h: what the libFuzzer harnesses of libpprof share.
 *
 * A harness feeds its input to one reader, then folds the profile every way
 * a tool would and checks what DESIGN.md promises of the result: an error is
 * one non-empty line; folded lines are sorted bytewise, each stack once,
 * hold no CR or LF, and no value is zero.  A broken promise aborts, which
 * libFuzzer reports as a crash with the input that caused it.
 *
 * The bounds are smaller than the tools' so that the fuzzer spends its time
 * in the parsers rather than in memcpy: inputs inflate to at most 1 MiB.
 */
#ifndef FUZZ_HARNESS_H
#define FUZZ_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof_private.h"

#define FUZZ_MAX_INPUT ((uint64_t)1 << 20)

static const struct pprof_read_options fuzz_read_options = {
	.max_input = FUZZ_MAX_INPUT,
	.max_depth = 0,
};

static inline void fuzz_fail(const char *what, const char *detail, size_t len)
{
	fprintf(stderr, "fuzz: broken promise: %s: %.*s\n", what,
		(int)(len > 200 ? 200 : len), detail ? detail : "");
	abort();
}

/* A message is one line, not empty. */
static inline void fuzz_check_message(const char *msg)
{
	if (!msg || !*msg)
		fuzz_fail("error without a message", "", 0);
	if (strchr(msg, '\n') || strchr(msg, '\r'))
		fuzz_fail("message of more than one line", msg, strlen(msg));
}

/* After a failed read or fold. */
static inline void fuzz_check_error(struct pprof_profile *p)
{
	fuzz_check_message(pprof_profile_error(p));
}

struct fuzz_fold_check {
	char *prev;
	size_t prevlen, prevcap;
	size_t n;
};

static inline int fuzz_emit(void *ctx, const char *stack, size_t len, int64_t value)
{
	struct fuzz_fold_check *c = ctx;
	if (value == 0)
		fuzz_fail("folded line with value 0", stack, len);
	if (len == 0)
		fuzz_fail("folded line with an empty stack", "", 0);
	if (memchr(stack, '\n', len) || memchr(stack, '\r', len))
		fuzz_fail("folded stack with CR or LF", stack, len);
	if (c->n > 0) {
		size_t m = len < c->prevlen ? len : c->prevlen;
		int d = memcmp(c->prev, stack, m);
		if (d > 0 || (d == 0 && c->prevlen >= len))
			fuzz_fail("folded lines out of order or repeated", stack, len);
	}
	if (len > c->prevcap) {
		char *b = realloc(c->prev, len);
		if (!b)
			return PPROF_ENOMEM; /* not the library's fault */
		c->prev = b;
		c->prevcap = len;
	}
	memcpy(c->prev, stack, len);
	c->prevlen = len;
	c->n++;
	return PPROF_OK;
}

/* Folds sample type T at granularity G, checking the lines. */
static inline void fuzz_fold_one(struct pprof_profile *p, int t, enum pprof_granularity g)
{
	struct pprof_fold_options o = {t, g};
	struct fuzz_fold_check c = {NULL, 0, 0, 0};
	if (pprof_fold_each(p, &o, fuzz_emit, &c) != PPROF_OK)
		fuzz_check_error(p);
	free(c.prev);
}

/* Everything a tool would ask of a profile that was read. */
static inline void fuzz_fold_all(struct pprof_profile *p)
{
	size_t nt = pprof_sample_type_count(p);
	for (size_t i = 0; i < nt; i++) {
		const char *name = pprof_sample_type_name(p, i);
		const char *unit = pprof_sample_type_unit(p, i);
		if (!name || !unit)
			fuzz_fail("sample type without a name or unit", "", 0);
	}
	for (size_t i = 0; i < pprof_profile_warning_count(p); i++)
		fuzz_check_message(pprof_profile_warning(p, i));
	int dflt = pprof_sample_type_select(p, NULL);
	if (dflt < 0) {
		fuzz_check_error(p);
		return;
	}
	if ((size_t)dflt >= nt)
		fuzz_fail("default sample type out of range", "", 0);
	/* A type may be named "1": only that it answers is checked. */
	(void)pprof_sample_type_select(p, "1");
	(void)pprof_sample_type_select(p, "samples");
	for (int g = PPROF_G_FUNCTIONS; g <= PPROF_G_ADDRESSES; g++)
		fuzz_fold_one(p, dflt, (enum pprof_granularity)g);
	/* The other types at the default granularity, a few at most. */
	for (size_t i = 0; i < nt && i < 4; i++)
		if ((int)i != dflt)
			fuzz_fold_one(p, (int)i, PPROF_G_FUNCTIONS);
}

/* Reads DATA with READER (its bid asked too, as read.c would) and checks
 * the outcome. */
static inline void fuzz_reader(const struct pp_reader *reader, const uint8_t *data, size_t size)
{
	struct pprof_profile *p = pprof_profile_new();
	if (!p)
		return;
	(void)reader->bid(data, size);
	p->format = reader->format;
	if (reader->read(p, data, size, &fuzz_read_options) == PPROF_OK)
		fuzz_fold_all(p);
	else
		fuzz_check_error(p);
	pprof_profile_free(p);
}

#endif /* FUZZ_HARNESS_H */
