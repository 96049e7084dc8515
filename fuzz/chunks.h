/* SPDX-License-Identifier: MIT */
/*
 * How the protocol fuzzers cut one input into records: each chunk is a tag
 * byte (which client, or which connection), a little-endian u16 length, and
 * that many bytes (fewer if the input ends first). Seed corpora are written
 * in this form by tools/fuzz-corpus.py from captured traffic.
 */
#ifndef DLHAL_FUZZ_CHUNKS_H
#define DLHAL_FUZZ_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

struct chunk {
	uint8_t tag;
	const uint8_t *data;
	size_t len;
};

/* The next chunk of @in (advanced); 0 when there is none. */
static inline int chunk_next(const uint8_t **in, size_t *left, struct chunk *c)
{
	size_t len;

	if (*left < 3)
		return 0;
	c->tag = (*in)[0];
	len = (size_t)(*in)[1] | (size_t)(*in)[2] << 8;
	*in += 3;
	*left -= 3;
	if (len > *left)
		len = *left;
	c->data = *in;
	c->len = len;
	*in += len;
	*left -= len;
	return 1;
}

#endif
