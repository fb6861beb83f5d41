/*
 * sourcemap.h: read Source Map v3 (ECMA-426) and look up generated positions.
 *
 * A map (struct smap_map) is parsed from JSON, a regular map or an index
 * map with sections.  Parsing copies what it needs; the mappings are decoded
 * lazily, a generated line at a time, when a look-up first needs that line,
 * so a profile asking a few thousand positions of a 20 MB map pays little
 * more than reading it.
 *
 * Two modes.  By default a map loads leniently: a part that is not as
 * ECMA-426 wants it (a field of the wrong type, a bad segment) is skipped
 * and noted, and smap_map_warning() says what was skipped, once.  With
 * SMAP_STRICT the whole map is checked at load and any error ECMA-426 calls
 * an error makes the load fail with the reason (the `--validate` mode).
 *
 * Lines and columns are 0-based everywhere in this API, as in the format;
 * columns count UTF-16 code units, as in the format.
 *
 * The library never prints and never exits; a function returns a status
 * and leaves a one-line message on the map (smap_map_error()).  A map is
 * not safe to use from two threads at once: look-ups fill its caches.
 */
#ifndef SMAP_SOURCEMAP_H
#define SMAP_SOURCEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum smap_status {
	SMAP_OK = 0,
	SMAP_EINPUT = 1, /* not a source map, or (strict) an invalid one */
	SMAP_ENOMEM = 2, /* out of memory, or a size bound was passed */
	SMAP_EIO = 3,    /* reading a file failed (errno kept) */
	SMAP_EUSAGE = 4, /* a bad argument (an unusable URL, ...) */
	SMAP_NONE = 5,   /* a look-up found nothing at that position */
};

/* Flags for smap_map_parse() and smap_map_load_file(). */
enum smap_flags {
	/* Check the whole map against ECMA-426 while loading, and fail with
	 * the first error. */
	SMAP_STRICT = 1u << 0,
};

struct smap_map;

/* A new, empty map (no mappings), or NULL when out of memory. */
struct smap_map *smap_map_new(void);
/* Frees the map and every string it handed out.  NULL is allowed. */
void smap_map_free(struct smap_map *m);

/* Parses the JSON text of a map (a first line starting with ")]}'" is
 * skipped).  BUF is only borrowed for the call.  A map can be parsed into
 * once; a second call fails with SMAP_EUSAGE.  Leniently (flags 0), only
 * text that is not JSON, or JSON that is not an object, makes it fail.
 * After a failure the map answers nothing reliably: free it. */
int smap_map_parse(struct smap_map *m, const void *buf, size_t len,
		   unsigned flags);
/* The same for a file. */
int smap_map_load_file(struct smap_map *m, const char *path, unsigned flags);

/* The message of the last failure ("mappings: invalid base64 VLQ
 * character (at byte 1042)"), or "" when there was none.  Byte offsets
 * count from the start of the text given to smap_map_parse().  Owned by
 * the map. */
const char *smap_map_error(const struct smap_map *m);

/* In lenient mode, what was skipped so far: the first problem met, with
 * " (and N more)" when there were others; NULL when nothing was skipped.
 * Look-ups can add problems (a bad segment is only seen when its line is
 * decoded), so ask again after them.  Owned by the map, valid until the
 * next call on it. */
const char *smap_map_warning(struct smap_map *m);

/* The map's "file" field, or NULL. */
const char *smap_map_file(const struct smap_map *m);
/* Whether the map was an index map (with "sections"). */
bool smap_map_is_index(const struct smap_map *m);

/*
 * Sources.  An index map's sections each bring their own sources; they are
 * numbered one after the other, section by section (no merging).
 *
 * The resolved name (DESIGN.md, "Decisions") is sourceRoot joined to the
 * source with a "/" only when needed, "." and ".." segments folded and
 * leading "../" dropped: "../../src/transform.ts" gives "src/transform.ts";
 * a scheme and authority ("webpack://app/") are kept; a source that is an
 * absolute URL ignores sourceRoot.  It is not resolved against the map's
 * own location.
 */
size_t smap_map_source_count(const struct smap_map *m);
/* The resolved name of source I, or NULL when the source is null or I is
 * out of range. */
const char *smap_map_source(const struct smap_map *m, size_t i);
/* Source I as the map's "sources" wrote it (no sourceRoot), or NULL. */
const char *smap_map_source_raw(const struct smap_map *m, size_t i);
/* Its "sourcesContent" entry (not NUL-safe: *LEN tells the length; there is
 * a NUL after it), or NULL when there is none (or memory ran out).  LEN may
 * be NULL.  Decoded when first asked: a 20 MB map's sources cost nothing
 * until then. */
const char *smap_map_source_content(const struct smap_map *m, size_t i,
				    size_t *len);
/* Whether source I has a "sourcesContent" entry (without decoding it). */
bool smap_map_has_source_content(const struct smap_map *m, size_t i);
/* Whether source I is on the map's "ignoreList" (or, when the map has none,
 * on "x_google_ignoreList"). */
bool smap_map_source_ignored(const struct smap_map *m, size_t i);

/* What a look-up found.  The strings are owned by the map. */
struct smap_mapping {
	const char *source;    /* resolved name; NULL when the source is null */
	size_t source_index;   /* for smap_map_source_*() (even when null) */
	uint32_t line, column; /* original position, 0-based */
	const char *name;      /* the segment's "names" entry, or NULL */
	bool ignored;          /* the source is on the ignore list */
	/* where the segment that was found starts in the generated code */
	uint32_t generated_line, generated_column;
};

/*
 * The original position of generated LINE:COLUMN, with the semantics of the
 * JS libraries (@jridgewell/trace-mapping): on the same generated line, the
 * segment with the greatest column at or before COLUMN; of several segments
 * at exactly COLUMN the first (in the map's order), of several at a smaller
 * column the last.  Nothing before the first segment of a line, and nothing
 * from an earlier line.  A segment with only a generated column (or whose
 * source index is invalid) means "unmapped".
 *
 * Returns SMAP_OK with *OUT filled, SMAP_NONE when the position is
 * unmapped, or SMAP_ENOMEM (message on the map).
 */
int smap_lookup(struct smap_map *m, uint32_t line, uint32_t column,
		struct smap_mapping *out);

/*
 * N look-ups at once: RC[I] and OUT[I] are what smap_lookup(M, LINES[I],
 * COLS[I], &OUT[I]) returns and fills, for each I, and the map says
 * afterwards what it would say after the N calls in that order (the same
 * warning).  The look-ups are done in the order of (line, column), so that
 * those next to each other touch neighbouring parts of the map: for many
 * positions of a big map, much less time than one call each in a random
 * order.  (Without memory for that order, or for an index map whose order
 * would change which problem is told first, the look-ups are done in the
 * caller's order.)  OUT must not overlap LINES or COLS: it is the sort's
 * scratch space before it is filled.  Returns SMAP_OK, or the first RC[I]
 * (by I) that is neither SMAP_OK nor SMAP_NONE; smap_map_error() then
 * holds the message of the last look-up that failed.
 */
int smap_lookup_many(struct smap_map *m, size_t n, const uint32_t *lines, const uint32_t *cols,
		     struct smap_mapping *out, int *rc);

/*
 * For positions without a column (a pprof Line without column): the
 * original source and line of generated LINE when all its mapped segments
 * agree on them (column and generated column of the first segment, no
 * name), SMAP_NONE when they disagree or the line has none.
 */
int smap_lookup_line(struct smap_map *m, uint32_t line,
		     struct smap_mapping *out);

/*
 * The name of the original function that encloses generated LINE:COLUMN,
 * from the map's "scopes" field (ECMA-426 scopes proposal): the innermost
 * generated range at the position whose original scope is a function
 * (an inlined function body counts); without generated ranges there, the
 * innermost original function scope around the mapped original position.
 * Returns SMAP_OK with *NAME set (NULL for an anonymous function), or
 * SMAP_NONE when the map has no scope information that says (no "scopes",
 * or the position is at a module's top level).
 */
int smap_lookup_function(struct smap_map *m, uint32_t line, uint32_t column,
			 const char **name);
/* Whether the map (or a section of it) has a usable "scopes" field. */
bool smap_map_has_scopes(struct smap_map *m);

/*
 * The original function a generated position is in (funcname.c).
 *
 * Give the generated script with smap_map_set_script() when it is at hand:
 * then the function starting at the position is found in it, and the
 * original function its body maps into; its name is the map's name at the
 * generated naming token (as DevTools does) when that token maps to the
 * original function's own naming token, else the name the original
 * source's tokens give it (sourcesContent).  Without the script, the
 * original function whose head holds the mapped position.  The map's
 * "scopes" come first.  Each text is tokenized once, when first needed, by
 * a strict tokenizer: a text it does not understand gives no names.
 */

/* Copies TEXT as the generated script the map belongs to. */
int smap_map_set_script(struct smap_map *m, const void *text, size_t len);
/* The same with the script read from file PATH (mapped, not copied, where
 * it can be).  SMAP_EIO when it cannot be read (the map keeps what script
 * it had), SMAP_ENOMEM. */
int smap_map_load_script(struct smap_map *m, const char *path);

/* Where the original sources are when the map has no "sourcesContent" for
 * them (a tool's --source-path): source NAME is read from DIR/NAME, NAME
 * its resolved name without a scheme and authority ("webpack://app/src/
 * a.ts" is DIR/src/a.ts, "file:///app/src/a.ts" DIR/app/src/a.ts), else
 * from DIR/ and the name as "sources" wrote it when that has no ".."
 * segment; nothing outside DIR is read.  A file is read once, when a name
 * is first asked of it, and at most 64 MiB.  DIR is copied; NULL turns it
 * off.  SMAP_ENOMEM, or SMAP_OK. */
int smap_map_set_source_dir(struct smap_map *m, const char *dir);

/* Where the map was read from (its file, or the script that holds it in a
 * data: URL): a source without "sourcesContent" that the source directory
 * does not supply is then read from the file its URL names relative to it,
 * as a browser fetches it against the map's URL: sourceRoot and the source
 * joined with a "/" when needed, a relative URL against PATH's directory, a
 * "file:" URL as its path; other schemes ("webpack://") name no file.  A
 * file read so is used only when it is the text the map was made from:
 * bundlers map to the first character of a token, so at most 1 in 10 of
 * the positions mapped into it may lie off its lines, on white space or
 * inside a word (in a file edited since the build, most do); else it is
 * left unused and smap_map_source_file() says so.
 * Read once, when a name is first asked of the source, and at most 64 MiB.
 * PATH is copied; NULL turns it off.  SMAP_ENOMEM, or SMAP_OK. */
int smap_map_set_location(struct smap_map *m, const char *path);

enum smap_source_file {
	SMAP_FILE_NONE = 0, /* no file found from the location (or not asked) */
	SMAP_FILE_USED,     /* found, fits, and read for names */
	SMAP_FILE_STALE     /* found, but not the text the map was made from */
};
/* What smap_map_set_location() found for source I so far: *PATH the file
 * (valid while the map lives), *BAD of the *CHECKED positions mapped into
 * it that lie off its lines, on white space or inside a word.  Each file
 * once: a source
 * of the same name as an earlier one in an index map says SMAP_FILE_NONE.
 * Any out-parameter may be NULL. */
enum smap_source_file smap_map_source_file(struct smap_map *m, size_t i, const char **path,
					   unsigned *bad, unsigned *checked);

enum smap_name_from {
	SMAP_FROM_NONE = 0, /* nothing known: keep the name the profile has */
	SMAP_FROM_SCOPES,   /* the map's "scopes" */
	SMAP_FROM_SCRIPT,   /* the mapping's name at the generated naming token */
	SMAP_FROM_SOURCE,   /* the original source's tokens */
};

struct smap_function {
	/* The function's name as V8 names it in an unminified build
	 * ("busyLoop", "get size", "registry.encodeAll", "Matrix" for a
	 * constructor, and for a default constructor: V8's position on the
	 * "class" keyword of "class Matrix"), "" for an anonymous function,
	 * NULL when not known.  Owned by the map. */
	const char *name;
	int from; /* enum smap_name_from */
	/* Whether V8's position is a function start: in the generated script
	 * when given, else at the mapped position of the original source: 1
	 * yes, 0 no, -1 not known (neither text at hand, or a "class" keyword
	 * in the script: V8 puts there the default constructor of a class
	 * without one of its own). */
	int start;
	/* Whether the map agrees at a function start: the mapped position of
	 * V8's position lies on the head of a function of the original source
	 * (sourcesContent), or without it a segment starts in the
	 * function's head, at a token, and no more than one of the
	 * function's first tokens in the script has a segment starting
	 * inside it (another build's segments start where its own tokens
	 * were): 1 yes, 0 no, -1 not known (no function start, or no text to
	 * judge by). */
	int mapped;
	/* With the script, whether the script and map are another build's
	 * than V8 ran there: the script starts no function at V8's position
	 * (START 0; then NAME is NULL), or of its first 16 tokens of the
	 * function (on its line; template pieces aside) 4 or more have a
	 * segment of the map starting inside them, where the map's build had
	 * other tokens, or the function is async and the original function
	 * its body maps into is not: 1 yes, 0 no (or no script). */
	int foreign;
	/* With the script, how many of those 16 tokens have a segment
	 * starting inside them (0 without the script).  Right maps of most
	 * bundlers have none anywhere, swc's many; a later build's map,
	 * where a function was added just before this one, 2 or 3 with
	 * MAPPED 0: the caller weighs it against the map's other
	 * functions. */
	int inside;
	/* With the script: the name the generated code gives the function
	 * starting there ("P", "f.encodeAll", "get size"), "" for an
	 * anonymous one; NULL when no function starts there. */
	const char *token;
};

/* Does now what the first look-ups would do first (indexing the lines of
 * the mappings and passing those before any problem), so that it can be
 * done ahead of them (on another thread, before the map is handed over).
 * Nothing it does changes what the map answers or says.  SMAP_OK, or
 * SMAP_ENOMEM. */
int smap_map_prepare(struct smap_map *m);

/* Tokenizes the generated script given (smap_map_load_script(),
 * smap_map_set_script()), as the first smap_function_at() would.  It
 * touches nothing else of M: while it runs on one thread, another may
 * call smap_map_load_file() or smap_map_parse() (the script may be given
 * before the map is read), smap_map_set_source_dir(), smap_map_prepare(),
 * smap_map_prepare_functions(), smap_lookup(), smap_map_file(),
 * smap_map_generated_lines(), smap_map_set_location() and the questions
 * about sources on M (nothing else, smap_function_at() above all), once
 * M has a script.  Nothing it does changes what the map answers or says.
 * SMAP_OK. */
int smap_map_prepare_script(struct smap_map *m);

/* Before smap_function_at() is asked of the NPOS positions LINES:COLS (in
 * the order it will be asked of them): the original sources they map
 * into are tokenized now, half of them on a second thread.  Only those, and
 * each once: what smap_function_at() would do first at them, in less time;
 * nothing it answers or says changes.  Nothing is done for a map with
 * "scopes".  SMAP_OK, or SMAP_ENOMEM. */
int smap_map_prepare_functions(struct smap_map *m, const uint32_t *lines, const uint32_t *cols,
			       size_t npos);

/* The function that starts at generated LINE:COLUMN, V8's position of a
 * function (0-based; the column in UTF-16 units).  SMAP_OK with *OUT
 * filled (possibly with nothing known), or SMAP_ENOMEM. */
int smap_function_at(struct smap_map *m, uint32_t line, uint32_t column,
		     struct smap_function *out);

/* The number of generated lines the map has segments for: a position at
 * or past it cannot be of the script the map was made for. */
uint32_t smap_map_generated_lines(struct smap_map *m);

/*
 * Finding a map for a script.
 */

/* The URL of the script's trailing "//# sourceMappingURL=" (or "//@")
 * comment, found as ECMA-426 does without parsing JavaScript: only
 * comment and blank lines may follow it.  Returns a pointer into SCRIPT
 * and its length in *LEN, or NULL. */
const char *smap_script_find_url(const void *script, size_t len,
				 size_t *url_len);

/* Whether URL is a "data:" URL. */
bool smap_url_is_data(const char *url, size_t len);

/* Decodes a "data:" URL (base64 or percent-encoded; any media type and
 * parameters, such as "application/json;charset=utf-8;base64").  *OUT is
 * malloc'd and NUL-terminated, for the caller to free.  SMAP_EINPUT when it
 * is not a well-formed data URL, SMAP_ENOMEM. */
int smap_data_url_decode(const char *url, size_t len, char **out,
			 size_t *out_len);

/* The file path a map URL found in the script at SCRIPT_PATH stands for:
 * a relative URL against the script's directory, a "file://" URL as its
 * path, percent-escapes decoded, query and fragment dropped.  malloc'd;
 * NULL for URLs that are not local files (http:, data:, ...) or when out
 * of memory. */
char *smap_url_to_path(const char *script_path, const char *url,
		       size_t url_len);

/* Loads the map that a sourceMappingURL names for the script at
 * SCRIPT_PATH (a data: URL decoded in place, anything else through
 * smap_url_to_path()).  SMAP_EUSAGE when the URL names no local file. */
int smap_map_load_url(struct smap_map *m, const char *script_path,
		      const char *url, size_t url_len, unsigned flags);

/* Version of the library, "MAJOR.MINOR.PATCH". */
const char *smap_version(void);

#ifdef __cplusplus
}
#endif
#endif /* SMAP_SOURCEMAP_H */
