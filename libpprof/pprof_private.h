/*
 * pprof_private.h: all of libpprof's private model at once, for the files
 * that use several parts of it.  A file that needs one part includes it
 * alone:
 *   buf_private.h    the arena, pp_buf, pp_grow(), pp_hash_bytes();
 *   model_private.h  the profile: strings, frames, tree, labels, samples,
 *                    errors, units and naming (includes buf_private.h);
 *   read_private.h   the read side: readers, the door (read.c), the
 *                    loader (input.c), held buffers, streams;
 *   walk_private.h   the stack walks of read_pprof.c, profile.c and top.c,
 *                    the shares (profile_share.c) and the deferred samples.
 * Not installed; not for the tools.
 */
#ifndef PPROF_PRIVATE_H
#define PPROF_PRIVATE_H

#ifndef PPROF_INTERNAL
#error "pprof_private.h is private to libpprof"
#endif

#include "model_private.h"
#include "read_private.h"
#include "walk_private.h"

#endif /* PPROF_PRIVATE_H */
