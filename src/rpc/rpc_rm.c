// SPDX-License-Identifier: MIT
/*
 * Record marking (RFC 5531 §11): the header of one fragment of an RPC
 * record over a byte stream. The transport's frame decoder assembles the
 * fragments of a record (transport/frame.c) through these two functions,
 * which are all that RPC over TCP adds to the framing.
 */
#include "rpc/rpc.h"

#include "core/be.h"

int rpc_rm_parse(const uint8_t *hdr, uint32_t *len, bool *last)
{
	uint32_t v = get_be32(hdr);

	*len = v & RPC_RM_LEN_MASK;
	*last = (v & RPC_RM_LAST_FRAG) != 0;
	return 0;
}

void rpc_rm_build(uint8_t *hdr, uint32_t len)
{
	/* Replies go as one fragment. */
	put_be32(hdr, RPC_RM_LAST_FRAG | (len & RPC_RM_LEN_MASK));
}
