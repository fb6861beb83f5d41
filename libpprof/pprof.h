/*
 * pprof.h: read, transform and write CPU and memory profiles.
 *
 * One model (struct pprof_profile) is filled by a reader per format
 * (pprof profile.proto, V8 .cpuprofile and .heapprofile, folded stacks) and
 * read by every writer (folded stacks, ...).  The library never prints and
 * never exits: a function returns a status (PPROF_OK or an error) and leaves
 * a one-line message on the profile, read with pprof_profile_error().
 */
#ifndef PPROF_H
#define PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
enum pprof_status {
	PPROF_OK = 0,
	PPROF_EINPUT = 1, /* the input is malformed or unsupported */
	PPROF_ENOMEM = 2, /* out of memory, or a documented bound was passed */
	PPROF_EIO = 3,    /* reading or writing failed (errno kept) */
	PPROF_EUSAGE = 4, /* an argument is wrong: unknown sample type, ... */
};

/* Frame naming, as pprof's -functions, -filefunctions, -lines, -files,
 * -addresses. */
enum pprof_granularity {
	PPROF_G_FUNCTIONS = 0,
	PPROF_G_FILEFUNCTIONS,
	PPROF_G_LINES,
	PPROF_G_FILES,
	PPROF_G_ADDRESSES,
};

/* Input formats, as detected by the readers' bids. */
enum pprof_format {
	PPROF_FMT_UNKNOWN = 0,
	PPROF_FMT_PPROF,
	PPROF_FMT_CPUPROFILE,
	PPROF_FMT_HEAPPROFILE,
	PPROF_FMT_FOLDED,
};

struct pprof_profile;

/* A new, empty profile, or NULL when out of memory. */
struct pprof_profile *pprof_profile_new(void);
/* Frees the profile and everything read into it.  NULL is allowed. */
void pprof_profile_free(struct pprof_profile *p);

/* The message of the last failure ("truncated gzip stream (at byte 4096)"),
 * or "" when there was none.  Owned by the profile. */
const char *pprof_profile_error(const struct pprof_profile *p);

/* Warnings collected while reading and transforming (each distinct message
 * once, in the order first seen).  Owned by the profile. */
size_t pprof_profile_warning_count(const struct pprof_profile *p);
const char *pprof_profile_warning(const struct pprof_profile *p, size_t i);

/* Reading.  Several inputs read into one profile are summed; their sample
 * types must match by name and unit. */
struct pprof_read_options {
	/* Refuse input that inflates past this many bytes (0: the default,
	 * 4 GiB; see DESIGN.md for the ratio rule under it). */
	uint64_t max_input;
	/* Maximum JSON nesting depth (0: the default, 1,000,000). */
	uint32_t max_depth;
};

/* Reads the whole of FILE (a path, or NULL or "-" for standard input),
 * gzipped or not, in whatever format it is.  On failure the profile holds
 * the samples of earlier inputs only partly and should be dropped. */
int pprof_read_file(struct pprof_profile *p, const char *path,
		    const struct pprof_read_options *o);
/* The same for bytes in memory (not gzipped-detected twice; the buffer is
 * only borrowed for the call). */
int pprof_read_buffer(struct pprof_profile *p, const void *buf, size_t len,
		      const struct pprof_read_options *o);

/* The format of the last input read. */
enum pprof_format pprof_profile_format(const struct pprof_profile *p);
const char *pprof_format_name(enum pprof_format f);

/* Sample types: index i from 0 to count-1. */
size_t pprof_sample_type_count(const struct pprof_profile *p);
const char *pprof_sample_type_name(const struct pprof_profile *p, size_t i);
const char *pprof_sample_type_unit(const struct pprof_profile *p, size_t i);
/* The index chosen by a -i argument (a name, an inuse_-less name as pprof
 * matches it, or a decimal index), or by default (NULL or ""):
 * default_sample_type, else the last type.  Returns -1, with the message on
 * the profile, when it names no type. */
int pprof_sample_type_select(struct pprof_profile *p, const char *arg);

/* Granularity from its name ("functions", ...); -1 when unknown. */
int pprof_granularity_parse(const char *name);

/* Folded stacks: one line per distinct stack, "root;...;leaf VALUE",
 * bytewise sorted on the stack, zero values left out. */
struct pprof_folded_line {
	const char *stack; /* not NUL-terminated */
	size_t len;
	int64_t value;
};
struct pprof_folded {
	struct pprof_folded_line *lines;
	size_t n;
	int64_t total; /* sum of the values */
	/* private */
	char *buf;
	size_t buflen;
};
struct pprof_fold_options {
	int sample_index; /* from pprof_sample_type_select() */
	enum pprof_granularity granularity;
};
/* Builds the folded lines of P into *OUT (freed with pprof_folded_free()). */
int pprof_fold(struct pprof_profile *p, const struct pprof_fold_options *o,
	       struct pprof_folded **out);
void pprof_folded_free(struct pprof_folded *f);
/* Calls EMIT for each folded line in order, without keeping the lines; stops
 * at the first status EMIT returns other than PPROF_OK and returns it. */
int pprof_fold_each(struct pprof_profile *p, const struct pprof_fold_options *o,
		    int (*emit)(void *ctx, const char *stack, size_t len, int64_t value),
		    void *ctx);
/* Writes the folded lines of P to OUT as they are made. */
int pprof_fold_write(struct pprof_profile *p, const struct pprof_fold_options *o,
		     FILE *out);
/* Writes folded lines to OUT; PPROF_EIO (errno set) on a write error. */
int pprof_folded_write(const struct pprof_folded *f, FILE *out);

/* Version of the library, "MAJOR.MINOR.PATCH". */
const char *pprof_version(void);

#ifdef __cplusplus
}
#endif
#endif /* PPROF_H */
