/* SPDX-License-Identifier: MIT */
#ifndef NASD_RPC_RPC_CLNT_H
#define NASD_RPC_RPC_CLNT_H

/*
 * A blocking ONC RPC client over TCP (RFC 5531 §9, record marking §11),
 * for the calls the server makes itself on a thread that may block: NLM
 * GRANTED and *_RES callbacks to a client's lockd, NSM SM_NOTIFY to a
 * client's statd, and the port mapper GETPORT (RFC 1833 §3.2) that finds
 * them. One connection per call; nothing is kept between calls.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Longest reply body rpc_clnt_call() keeps. */
#define RPC_CLNT_REPLY_MAX 4096

/*
 * rpc_clnt_call() - call (@prog, @vers, @proc) at @addr (its port set)
 * with the XDR arguments @args (@alen bytes, copied), AUTH_SYS as uid 0
 * with this host's name. The connect, the send and the reply each get
 * @timeout_ms. On success the reply's results (after accept_stat
 * SUCCESS) are copied to @res (at most @resmax bytes, *@reslen set).
 * Returns 0; -ETIMEDOUT, -ECONNREFUSED or another socket -errno;
 * -EPROTO for a reply that makes no sense or is not SUCCESS; -EACCES
 * when the call was denied; -EMSGSIZE when the reply is too long.
 */
int rpc_clnt_call(const struct sockaddr_storage *addr, uint32_t prog,
		  uint32_t vers, uint32_t proc, const uint8_t *args,
		  size_t alen, uint8_t *res, size_t resmax, size_t *reslen,
		  int timeout_ms);

/*
 * rpc_clnt_getport() - ask the port mapper at @addr, port @pmap_port
 * (PMAPPROC_GETPORT, RFC 1833 §3.2) for (@prog, @vers) over @prot
 * (6 = TCP, 17 = UDP). Returns the port (1..65535), -ENOENT when it maps
 * none, or rpc_clnt_call()'s -errno.
 */
int rpc_clnt_getport(const struct sockaddr_storage *addr, uint16_t pmap_port,
		     uint32_t prog, uint32_t vers, uint32_t prot,
		     int timeout_ms);

#endif
