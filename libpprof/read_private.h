/*
 * read_private.h: the read side of libpprof: the readers, the door that
 * decodes bytes and chooses a reader (read.c), the loader (input.c) and the
 * buffers a reader may keep.  Not installed; not for the tools.
 *
 * The door (read.c) owns the one table of readers and the whole decoding
 * of bytes: gzip (any number of members, inflated under DESIGN's bound,
 * judged as the output grows), a UTF-16 byte order mark (the text becomes
 * UTF-8), then the readers' bids.  input.c only loads bytes (mmap, read,
 * pipes) and asks the door whether the start of a pipe is claimed.
 *
 * A new reader is one file that defines a `struct pp_reader` and one line in
 * the table of read.c (plus its `extern` below).
 *
 * ---- For reader authors: reading a stream of chunks ----
 *
 * A reader that reads its input front to back once may set `read_stream`
 * (and leave `read` NULL, or set both).  The door then hands it the decoded
 * bytes chunk by chunk, inflating gzip as it goes, so the whole inflated
 * input is never in memory:
 *
 *	static int trace_read_stream(struct pprof_profile *p, struct pp_stream *s,
 *				     const struct pprof_read_options *o)
 *	{
 *		const unsigned char *c;
 *		size_t n;
 *		for (;;) {
 *			int st = pp_stream_next(s, &c, &n);
 *			if (st != PPROF_OK)
 *				return st;      // the error is set on P, at its byte
 *			if (n == 0)
 *				break;          // the end of the input
 *			... bytes c[0 .. n) start at pp_stream_offset(s) - n ...
 *		}
 *		...
 *	}
 *
 * With common/json.h, json_init_chunked() takes pp_stream_json_more as its
 * callback and the stream as its context: the parser pulls chunks as it
 * needs them, and its offsets are the input's.  When json fails with
 * "read error", the stream's own message is already on P: return
 * PPROF_EINPUT (or the stream's status, pp_stream_status()).
 *
 * Rules of the stream: a chunk is valid until the next call; chunks are
 * at most PP_STREAM_CHUNK bytes (except when the input is one buffer in
 * memory, which may come as one chunk); the byte order mark of UTF-8 text is
 * not removed (as with `read`).  The bid of a stream reader sees the first
 * PP_BID_PREFIX decoded bytes of a gzipped input (all of a plain one): it
 * must decide on them.  P's hold (p->hold), when not NULL, is the stream's
 * input: a reader done with the stream (it reads no more of it, nor
 * pp_stream_again()) may let it go with pp_hold_release().
 */
#ifndef PPROF_READ_PRIVATE_H
#define PPROF_READ_PRIVATE_H

#ifndef PPROF_INTERNAL
#error "read_private.h is private to libpprof"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pprof.h"

struct pprof_profile;

/* An input's buffer that the pprof reader may keep (read.c): PTR, LEN
 * bytes, is freed (or unmapped, when MAPPED) by whoever has it; the reader
 * takes it by copying it and setting PTR to NULL. */
struct pp_hold {
	void *ptr;
	size_t len;
	bool mapped;
};
/* Frees or unmaps H's buffer (if any) and sets its PTR to NULL. */
void pp_hold_release(struct pp_hold *h);

/* ---- the stream of decoded bytes ---- */
#define PP_STREAM_CHUNK ((size_t)1 << 20)
/* How much of a gzipped input the bids of stream readers see. */
#define PP_BID_PREFIX ((size_t)64 << 10)
struct pp_stream;
/* The next chunk of decoded bytes, *BUF / *LEN (valid until the next call);
 * *LEN is 0 at the end.  PPROF_OK, or an error set on the stream's profile
 * (then sticky). */
int pp_stream_next(struct pp_stream *s, const unsigned char **buf, size_t *len);
/* Decoded bytes handed out so far (the end of the last chunk). */
uint64_t pp_stream_offset(const struct pp_stream *s);
/* PPROF_OK, or the error the stream met. */
int pp_stream_status(const struct pp_stream *s);
/* A json_more callback (common/json.h) over a stream given as CTX. */
bool pp_stream_json_more(void *ctx, const void **buf, size_t *len);
/* A stream over IN (LEN bytes, kept by the caller while the stream lives):
 * gzip inflated, UTF-16 made UTF-8, as the door does.  NULL when out of
 * memory (error set on P).  Free it with pp_stream_free(). */
struct pp_stream *pp_stream_open(struct pprof_profile *p, const unsigned char *in, size_t len,
				 const struct pprof_read_options *o);
void pp_stream_free(struct pp_stream *s);
/* A new stream over S's input from its start (an error's byte looked up
 * again), or NULL when out of memory. */
struct pp_stream *pp_stream_again(const struct pp_stream *s, const struct pprof_read_options *o);
/* S's whole input when S hands it on as it is (plain UTF-8 in memory) and
 * nothing was read yet, else NULL: a reader that has READ too may read it
 * whole (P's hold then is that buffer, as with READ). */
const unsigned char *pp_stream_plain(const struct pp_stream *s, size_t *len);

/* ---- readers: a bid on the first bytes, and the reader ----
 * The bid: 0 = no, higher wins; -1 = not decided on these bytes, more
 * may decide (the folded bid on an unfinished first line: the door reads
 * on while a pipe's first line is valid text).  A reader sets READ (the
 * whole decoded input in memory), READ_STREAM (chunk by chunk), or both
 * (then the stream is used for what is to be decoded, gzip or UTF-16, and
 * READ for an input that is in memory as it is). */
struct pp_reader {
	enum pprof_format format;
	const char *name;
	int (*bid)(const unsigned char *buf, size_t len);
	int (*read)(struct pprof_profile *p, const unsigned char *buf, size_t len,
		    const struct pprof_read_options *o);
	int (*read_stream)(struct pprof_profile *p, struct pp_stream *s,
			   const struct pprof_read_options *o);
};
extern const struct pp_reader pp_reader_pprof;
extern const struct pp_reader pp_reader_cpuprofile;
extern const struct pp_reader pp_reader_heapprofile;
extern const struct pp_reader pp_reader_folded;
extern const struct pp_reader pp_reader_heapsnapshot;
extern const struct pp_reader pp_reader_trace;

/* ---- the door (read.c) ---- */
/* The reader whose bid on the decoded bytes [B, LEN) is highest (ties: the
 * first in the table), or NULL when none bids; *BID its bid. */
const struct pp_reader *pp_best_reader(const unsigned char *b, size_t len, int *bid);
/* The door over another table of readers (for tests): pprof_read_buffer()
 * with TABLE[0 .. N). */
int pp_read_with(struct pprof_profile *p, const struct pp_reader *const *table, size_t n,
		 const void *buf, size_t len, const struct pprof_read_options *o);
/* The decoding alone: gzip members inflated (nested once) under the bound,
 * UTF-16 text with a byte order mark made UTF-8.  *OUT / *OUTLEN are IN
 * itself when there was nothing to decode (HELD->ptr is then NULL), else a
 * buffer held in *HELD (let go with pp_hold_release()). */
int pp_decode(struct pprof_profile *p, const unsigned char *in, size_t len,
	      const struct pprof_read_options *o, const unsigned char **out, size_t *outlen,
	      struct pp_hold *held);
/* UTF-16 text with a byte order mark (IN starts with FF FE or FE FF) as
 * UTF-8 in a malloc'd *OUT; an unpaired surrogate or an odd length is an
 * error at its byte. */
int pp_utf16_to_utf8(struct pprof_profile *p, const unsigned char *in, size_t len,
		     unsigned char **out, size_t *outlen);
bool pp_is_utf16(const unsigned char *buf, size_t len);
/* The length of a UTF-8 byte order mark at BUF (3), or 0. */
size_t pp_utf8_bom(const unsigned char *buf, size_t len);
bool pp_is_gzip(const unsigned char *buf, size_t len);
/* Is the start of a pipe, [B, LEN), a profile?  PP_CLAIMED, PP_REFUSED (the
 * error set on P, the one the whole read would give), or PP_MORE (read on;
 * ask again with more). */
enum { PP_CLAIMED, PP_REFUSED, PP_MORE };
int pp_claims(struct pprof_profile *p, const unsigned char *b, size_t len,
	      const struct pprof_read_options *o);
/* Inflates a gzip buffer (one or more members) into a malloc'd buffer,
 * under the bound. */
int pp_gunzip(struct pprof_profile *p, const unsigned char *in, size_t inlen,
	      const struct pprof_read_options *o, unsigned char **out, size_t *outlen);

/* ---- input (input.c): loading only ---- */
/* Loads PATH (NULL or "-": stdin) as it is; *BUF is malloc'd (free it), or
 * mmapped when *MAPPED is set (munmap it with *LEN).  A pipe is read while
 * the door says its start may be a profile (pp_claims()). */
int pp_input_load_raw(struct pprof_profile *p, const char *path,
		      const struct pprof_read_options *o, unsigned char **buf, size_t *len,
		      bool *mapped);

#endif /* PPROF_READ_PRIVATE_H */
