/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_STATE_STATE_H
#define NASD_NFS4_STATE_STATE_H

/*
 * NFSv4 state (RFC 8881 §8-§10, RFC 7530 §9): clients, leases, sessions,
 * open/lock/delegation stateids, share reservations, byte-range locks,
 * grace period. This is what the non-state operations (READ, WRITE,
 * SETATTR of size, REMOVE, RENAME ...) and the COMPOUND loop need from it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nfs4/compound.h"
#include "nfs4/nfs4.h"

/*
 * nfs4_state_init() - load client records from @state_dir, start grace
 * (@grace_time seconds; 0 = none) and the lease reaper. 0 or -errno.
 */
int nfs4_state_init(const char *state_dir, uint32_t lease_time,
		    uint32_t grace_time);
void nfs4_state_shutdown(void);

/*
 * nfs4_state_set_client_memory() - the memory that client records and
 * their sessions may take (RFC 7530 §9.1.1 leaves it to the server):
 * @bytes, or with 0 1/32 of the machine's memory within 32 MiB..1 GiB.
 * At the ceiling a new client takes the room of clients whose lease has
 * lapsed, then of the oldest unconfirmed ones; with none, SETCLIENTID
 * gets RESOURCE and EXCHANGE_ID / CREATE_SESSION DELAY.
 */
void nfs4_state_set_client_memory(uint64_t bytes);

/*
 * nfs4_bc_attach() - let the 4.1 back channel use the transport: send
 * callbacks on client connections, receive their answers (the RPC
 * layer's reply handler), unbind connections that close. Call once at
 * start-up, before transport_run().
 */
void nfs4_bc_attach(void);

/*
 * 4.0 clients by connection (identities only; client.c): _note() says the
 * 4.0 client @client's state came on @conn; _client() is the client last
 * noted on @conn, or NULL; _forget() drops @conn's entry, or every entry
 * of @client (either may be NULL). See nfs4_grant_key().
 */
void nfs4_conn40_note(const void *conn, const void *client);
const void *nfs4_conn40_client(const void *conn);
void nfs4_conn40_forget(const void *conn, const void *client);

uint32_t nfs4_lease_time(void);

/* nfs4_in_grace(): nfs4/nfs4.h (NLM asks it too). */

/*
 * nfs4_state_check_io() - validate @sid for READ (@write false) or WRITE /
 * SETATTR(size) on @c->cur: special stateids (anonymous, bypass), open,
 * lock and delegation stateids of the right file with the right access,
 * and share-deny conflicts with other opens (any protocol's) for
 * anonymous I/O; also mandatory byte-range locks of other protocols (SMB)
 * over [@off, @off + @len) (NFSv4's own locks are advisory). 4.1: a
 * seqid of 0 means "current". Renews the client's lease. Takes no global
 * lock: the stateid's shard lock and its client's mutex. Returns NFS4_OK
 * or BAD_STATEID, OLD_STATEID,
 * STALE_STATEID, EXPIRED, OPENMODE, LOCKED, GRACE, ADMIN_REVOKED...
 */
uint32_t nfs4_state_check_io(struct nfs4_compound *c,
			     const struct stateid4 *sid, bool write,
			     uint64_t off, uint64_t len);

/*
 * nfs4_state_file_removed() - @obj lost its last name: forget state that
 * pointed at it once closed (optional bookkeeping; may be a no-op).
 */
void nfs4_state_file_removed(struct vfs_obj *obj);

/*
 * nfs4_sequence_cache() - after the last op of a 4.1 compound that began
 * with SEQUENCE: keep the encoded reply in the slot for replay (or note
 * that it was not cached), and release the slot. @reply is the whole
 * COMPOUND4res. Called exactly once per successful SEQUENCE.
 */
void nfs4_sequence_cache(struct nfs4_compound *c, const uint8_t *reply,
			 size_t len);

/*
 * nfs4_compound_end() - release what the state ops took for the request
 * (session/slot references). Called once at the end of every compound.
 */
void nfs4_compound_end(struct nfs4_compound *c);

#endif
