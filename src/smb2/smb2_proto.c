// SPDX-License-Identifier: MIT
/*
 * SMB2 over direct TCP (MS-SMB2 §2.1): the transport's protocol table of
 * SMB listeners. A message is one frame: a zero byte and a 24-bit
 * big-endian length; its length is checked against the connection's
 * limit (64 KiB until NEGOTIATE, then 8 MiB + 64 KiB) before anything is
 * allocated for it.
 */
#include "smb2/smb2_int.h"

#include <errno.h>

#include "transport/transport.h"

/* NetBIOS session service message types seen on port 445. */
#define NBSS_SESSION_MESSAGE 0x00
#define NBSS_KEEPALIVE 0x85

static int smb2_frame_parse(const uint8_t *hdr, uint32_t *len, bool *last)
{
	*last = true;
	*len = (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (hdr[0] == NBSS_KEEPALIVE && !*len)
		return 0; /* an empty message: dropped */
	if (hdr[0] != NBSS_SESSION_MESSAGE)
		return -EPROTO;
	return 0;
}

static void smb2_frame_build(uint8_t *hdr, uint32_t len)
{
	hdr[0] = NBSS_SESSION_MESSAGE;
	hdr[1] = (uint8_t)(len >> 16);
	hdr[2] = (uint8_t)(len >> 8);
	hdr[3] = (uint8_t)len;
}

static int smb2_conn_init_hook(struct conn *c, void **priv)
{
	struct smb2_conn *sc = smb2_conn_new(c, smb2_cfg());

	if (!sc)
		return -ENOMEM;
	*priv = sc;
	return 0;
}

static void smb2_conn_close_hook(struct conn *c, void *priv)
{
	(void)c;
	smb2_conn_close(priv);
}

static void smb2_conn_free_hook(void *priv)
{
	smb2_conn_free(priv);
}

static const struct transport_proto smb2_tcp = {
	.name = "smb2",
	.hdr_len = SMB2_DIRECT_HDR_LEN,
	.frame_parse = smb2_frame_parse,
	.frame_build = smb2_frame_build,
	.frame_max = SMB2_DIRECT_MAX,
	.max_msg = SMB2_MAX_MSG_UNNEGOTIATED,
	.align = smb2_write_align,
	/* Requests in processing per connection (credits may be more). */
	.max_inflight = SMB2_MAX_INFLIGHT,
	.may_inline = smb2_may_inline,
	.process = smb2_process,
	.release = smb2_release,
	.conn_init = smb2_conn_init_hook,
	.conn_close = smb2_conn_close_hook,
	.conn_free = smb2_conn_free_hook,
};

const struct transport_proto *smb2_transport_proto(void)
{
	return &smb2_tcp;
}
