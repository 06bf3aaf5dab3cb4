/* SPDX-License-Identifier: MIT */
/*
 * nasd-bench's SMB2/3 client (nb_smb2.c): one TCP connection per
 * struct nb_smb2, direct-TCP framing (MS-SMB2 §2.1), NEGOTIATE of dialect
 * 3.1.1 with preauth integrity and signing capabilities, SESSION_SETUP with
 * NTLMv2 inside SPNEGO, TREE_CONNECT, then any number of requests (single
 * or related compounds) in flight, as the server's credits allow.
 *
 * Asynchronous: nb_smb2_submit() queues a request and returns; the poll
 * loop calls nb_smb2_service() when nb_smb2_fd() is ready for
 * nb_smb2_events(). Requests wait in the connection until it holds the
 * credits their CreditCharge needs (MS-SMB2 §3.2.4.1.5); their message ids,
 * signatures and NetBIOS lengths are set as they leave. Each part of a
 * reply is handed to the request's callback (interim STATUS_PENDING
 * replies are not), with done set on the last one.
 *
 * Signing: the session signs when the client requires it (the default,
 * nb_smb2_opts.sign) or the server does (SecurityMode of its NEGOTIATE
 * reply); then every request is signed and every reply's signature
 * verified. The key is the 3.1.1 Session.SigningKey from NTLMSSP's session
 * key and the session's preauth hash (src/smb2/crypto.c).
 *
 * Ownership: the caller owns the struct nb_smb2 (nb_smb2_connect() to
 * nb_smb2_destroy()); a request's body is copied at submit, except the
 * @ext payload of a part, which must stay valid until the callback with
 * done set ran. Not thread-safe: one thread drives one connection.
 *
 * Wire constants and status values: nasd's own src/smb2/smb2_wire.h.
 */
#ifndef NASD_BENCH_NB_SMB2_H
#define NASD_BENCH_NB_SMB2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smb2/smb2_wire.h"

#define NB_SMB2_HDR		64
#define NB_SMB2_MAX_PARTS	4
#define NB_SMB2_FID_SIZE	16

struct nb_smb2;

/* Where a connection goes and how it logs on (from an smb:// URL). */
struct nb_smb2_opts {
	const char *host;
	int port;
	const char *user;
	const char *password;
	const char *domain;
	const char *share;
	bool sign;		/* the client requires signing */
	unsigned int credits;	/* credits to hold, at least 16 */
};

/* One part of a reply, as nb_smb2_submit()'s callback sees it. */
struct nb_smb2_reply {
	unsigned int part;	/* index in the request's parts */
	bool done;		/* every part of the request answered */
	uint32_t status;
	uint16_t command;
	const uint8_t *hdr;	/* the part's SMB2 header */
	const uint8_t *body;	/* after the header */
	size_t body_len;
};

typedef void nb_smb2_cb(void *priv, const struct nb_smb2_reply *r);

/*
 * One part of a request: the command, its body (copied), an optional
 * payload appended after the body without a copy (WRITE data; the last
 * part only), and the payload bytes it expects back (READ length, query
 * buffer), for the CreditCharge.
 */
struct nb_smb2_part {
	uint16_t command;
	const void *body;
	size_t body_len;
	const void *ext;
	size_t ext_len;
	size_t rsp_len;
};

int nb_smb2_parse_url(const char *url, struct nb_smb2_opts *o, char **buf);
int nb_smb2_connect(const struct nb_smb2_opts *o, struct nb_smb2 **out,
		    char *err, size_t errlen);
void nb_smb2_destroy(struct nb_smb2 *c);
int nb_smb2_fd(const struct nb_smb2 *c);
short nb_smb2_events(const struct nb_smb2 *c);
int nb_smb2_service(struct nb_smb2 *c, short revents);
int nb_smb2_submit(struct nb_smb2 *c, const struct nb_smb2_part *parts,
		   unsigned int n, nb_smb2_cb *cb, void *priv);
int nb_smb2_wait(struct nb_smb2 *c, const bool *done, int timeout_ms);
const char *nb_smb2_error(const struct nb_smb2 *c);
uint32_t nb_smb2_max_read(const struct nb_smb2 *c);
uint32_t nb_smb2_max_write(const struct nb_smb2 *c);
bool nb_smb2_signing(const struct nb_smb2 *c);
uint16_t nb_smb2_sign_alg(const struct nb_smb2 *c);

/* ---- request bodies (MS-SMB2 §2.2.13 ff.) ---- */

/* Largest CREATE body nb_smb2_create_body() writes (name of 255 units). */
#define NB_SMB2_CREATE_MAX	(56 + 512 + 8 + 24)

size_t nb_smb2_create_body(uint8_t *b, const char *path, uint32_t access,
			   uint32_t disposition, uint32_t options,
			   bool maximal_access);
size_t nb_smb2_fid_body(uint8_t *b, uint16_t command, const uint8_t *fid);
size_t nb_smb2_rw_body(uint8_t *b, bool write, const uint8_t *fid,
		       uint64_t off, uint32_t len, bool write_through);
size_t nb_smb2_query_info_body(uint8_t *b, const uint8_t *fid,
			       uint8_t info_class, uint32_t out_len);
size_t nb_smb2_set_basic_body(uint8_t *b, const uint8_t *fid,
			      uint32_t attributes);
size_t nb_smb2_query_dir_body(uint8_t *b, const uint8_t *fid,
			      uint8_t info_class, uint32_t out_len);
extern const uint8_t nb_smb2_related_fid[NB_SMB2_FID_SIZE];

#endif /* NASD_BENCH_NB_SMB2_H */
