/* SPDX-License-Identifier: MIT */
/*
 * nasd-bench's NFSv4.1 client (nb_nfs41.c): one TCP connection per
 * struct nb_nfs41, ONC RPC with record marking and AUTH_SYS (RFC 5531),
 * one client (EXCHANGE_ID) and one session (CREATE_SESSION with as many
 * fore-channel slots as requests in flight, no back channel: the server
 * grants it no delegation), RECLAIM_COMPLETE, then any number of
 * COMPOUNDs in flight, each SEQUENCE + the caller's operations on a slot
 * of its own (RFC 8881 §2.10.6).
 *
 * Asynchronous like nb_smb2.h: nb_nfs41_submit() queues a COMPOUND; the
 * poll loop calls nb_nfs41_service() when nb_nfs41_fd() is ready for
 * nb_nfs41_events(). A COMPOUND waits in the connection until a slot is
 * free; its xid, slot and sequence id are set as it leaves. Its reply
 * goes to the callback with the results after SEQUENCE's.
 *
 * Ownership: the caller owns the struct nb_nfs41 (nb_nfs41_connect() to
 * nb_nfs41_destroy()); the operations are copied at submit, except the
 * @ext payload (WRITE data), which must stay valid until the callback
 * ran. Not thread-safe: one thread drives
 * one connection.
 */
#ifndef NASD_BENCH_NB_NFS41_H
#define NASD_BENCH_NB_NFS41_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdr/xdr.h"

#define NB_NFS41_FH_MAX 128	/* NFS4_FHSIZE */
#define NB_NFS41_STATEID 16
/* Largest operations part of a COMPOUND (its payload apart). */
#define NB_NFS41_OPS_MAX 4096

struct nb_nfs41;

/* Where a connection goes (from an nfs://HOST[:PORT]/PATH?version=4.1
 * URL). */
struct nb_nfs41_opts {
	const char *host;
	int port;
	const char *path;          /* the export, walked from the root */
	unsigned int slots;        /* fore-channel slots to ask for */
	uint32_t max_io;           /* READ/WRITE payload to allow for */
};

/* A COMPOUND's reply, as the callback sees it. */
struct nb_nfs41_reply {
	uint32_t status;           /* the COMPOUND's (SEQUENCE's when it
				    * failed) */
	uint32_t nres;             /* results after SEQUENCE's */
	struct xdr_buf res;        /* at the first of them */
};

typedef void nb_nfs41_cb(void *priv, struct nb_nfs41_reply *r);

int nb_nfs41_parse_url(const char *url, struct nb_nfs41_opts *o,
		       char **buf);
int nb_nfs41_connect(const struct nb_nfs41_opts *o, struct nb_nfs41 **out,
		     char *err, size_t errlen);
void nb_nfs41_destroy(struct nb_nfs41 *c);
int nb_nfs41_fd(const struct nb_nfs41 *c);
short nb_nfs41_events(const struct nb_nfs41 *c);
int nb_nfs41_service(struct nb_nfs41 *c, short revents);
/*
 * nb_nfs41_submit() - queue SEQUENCE + @nops operations: @ops (@len
 * bytes), then @ext (@ext_len payload bytes, not copied, padded here;
 * the opaque's length ends @ops), then @tail (@tail_len bytes of the
 * operations after the payload, copied). @cb gets the reply. 0, or -errno
 * when the connection has failed.
 */
int nb_nfs41_submit(struct nb_nfs41 *c, const uint8_t *ops, size_t len,
		    uint32_t nops, const void *ext, size_t ext_len,
		    const uint8_t *tail, size_t tail_len, nb_nfs41_cb *cb,
		    void *priv);
int nb_nfs41_wait(struct nb_nfs41 *c, const bool *done, int timeout_ms);
const char *nb_nfs41_error(const struct nb_nfs41 *c);
/* The export's root handle (walked at connect). */
const uint8_t *nb_nfs41_root(const struct nb_nfs41 *c, uint32_t *len);
uint32_t nb_nfs41_max_read(const struct nb_nfs41 *c);
uint32_t nb_nfs41_max_write(const struct nb_nfs41 *c);
/* A client id of this connection's (its open owners name it). */
uint64_t nb_nfs41_clientid(const struct nb_nfs41 *c);

/* ---- operation encoders (RFC 8881 §18) ---- */

/* The 4.1 current stateid (§16.2.3.1.2): what the last OPEN set. */
extern const uint8_t nb_nfs41_current_stateid[NB_NFS41_STATEID];
/* The anonymous stateid (all zeros). */
extern const uint8_t nb_nfs41_anon_stateid[NB_NFS41_STATEID];

#define NB_OPEN_READ 1u
#define NB_OPEN_WRITE 2u
#define NB_OPEN_BOTH 3u

bool nb_enc_putfh(struct xdr_buf *x, const uint8_t *fh, uint32_t len);
bool nb_enc_op(struct xdr_buf *x, uint32_t op);
bool nb_enc_lookup(struct xdr_buf *x, const char *name);
bool nb_enc_getattr(struct xdr_buf *x, uint32_t w0, uint32_t w1);
/* OPEN by @name (CLAIM_NULL; created UNCHECKED4 when @create) or of the
 * current filehandle (CLAIM_FH, @name NULL), share @access, deny none,
 * owner (@clientid, @owner) */
bool nb_enc_open(struct xdr_buf *x, uint32_t access, uint64_t clientid,
		 uint64_t owner, const char *name, bool create);
bool nb_enc_close(struct xdr_buf *x, const uint8_t *stateid);
bool nb_enc_read(struct xdr_buf *x, const uint8_t *stateid, uint64_t off,
		 uint32_t count);
/* WRITE's arguments up to its data's length: @len bytes must follow
 * (with XDR padding). */
bool nb_enc_write_head(struct xdr_buf *x, const uint8_t *stateid,
		       uint64_t off, bool sync, uint32_t len);
bool nb_enc_commit(struct xdr_buf *x);
bool nb_enc_remove(struct xdr_buf *x, const char *name);
bool nb_enc_mkdir(struct xdr_buf *x, const char *name);
bool nb_enc_access(struct xdr_buf *x, uint32_t mask);
bool nb_enc_setattr_mode(struct xdr_buf *x, uint32_t mode);
bool nb_enc_readdir(struct xdr_buf *x, uint32_t maxcount);

/* ---- result decoders: each reads one result (opnum, status, body) ---- */

/* The next result's status (and opnum); false when it does not parse. */
bool nb_dec_res(struct xdr_buf *x, uint32_t *op, uint32_t *status);
/* Skip the body of a result of @op with @status OK (the ops above). */
bool nb_dec_skip(struct xdr_buf *x, uint32_t op);
bool nb_dec_open(struct xdr_buf *x, uint8_t *stateid);
bool nb_dec_getfh(struct xdr_buf *x, uint8_t *fh, uint32_t *len);
bool nb_dec_rw(struct xdr_buf *x, uint32_t op, uint32_t *count);
/* GETATTR of size (bit 4) alone. */
bool nb_dec_size(struct xdr_buf *x, uint64_t *size);

#endif /* NASD_BENCH_NB_NFS41_H */
