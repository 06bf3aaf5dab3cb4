/* SPDX-License-Identifier: MIT */
#ifndef NASD_RPC_RPCB_CLNT_H
#define NASD_RPC_RPCB_CLNT_H

/*
 * Registration with a running rpcbind (DESIGN.md §6): nasd adds what it
 * serves to the host's rpcbind and, on exit, removes what it added and
 * nothing else.
 *
 * Protocol: rpcbind v4 SET and UNSET (RFC 1833 §2.2.1), which name one
 * (program, version, netid) each and carry the universal address and an
 * owner; never portmap v2, whose UNSET drops every transport of a
 * (program, version), whoever registered it. DUMP shows what is there.
 *
 * Transport, and the owner rpcbind records: rpcbind ignores the owner in
 * the arguments and takes its own view of the caller (rpcbind 1.2.6,
 * rpcb_svc_com.c getowner(); checked against Debian 12's rpcbind):
 *  - the local socket /run/rpcbind.sock first (as libtirpc's rpcb_set()):
 *    the owner is the caller's uid from the socket, "superuser" for 0;
 *  - else TCP to 127.0.0.1:111, from a port below 1024 when we may bind
 *    one: owner "superuser"; from any other port: owner "unknown".
 * rpcbind lets "superuser" UNSET any entry and any other owner only its
 * own. So the owner does not tell nasd's entries from another root
 * server's: nasd keeps the list of what it registered itself.
 *
 * Rules, the same on the default port 2049 and on any other port or
 * address. Every (program, version, netid) of the registry (rpc/pmap.h)
 * but the port mapper's own is registered with the first address the
 * registry has for it (rpcbind keeps one address per tuple), unless
 * rpcbind already maps the tuple:
 *  - to the very address nasd would register: it points at nasd's own
 *    listener (which holds that address and port, so no other server
 *    can), left over from an earlier run; nasd takes it as its own;
 *  - to an address where nothing is bound any more (a bind() to it
 *    succeeds: its server is gone, e.g. an earlier nasd killed with -9
 *    on another port): stale; nasd UNSETs it and registers its own;
 *  - to anything else: another server's. nasd leaves it alone, logs one
 *    line, and does not register that tuple; it still serves it on its
 *    own port, where clients can name the port.
 * On exit nasd UNSETs each tuple it registered (or took as its own) for
 * which rpcbind still holds nasd's address; a tuple someone has since
 * mapped elsewhere is theirs and is left alone.
 */

/*
 * rpcb_register() - register the registry with the running rpcbind by
 * the rules above; one log line per tuple left alone or refused and a
 * summary line. Call once, after every listener is in the registry.
 * Returns 0 when rpcbind answered (whatever it kept), -ECONNREFUSED or
 * -ENOENT when no rpcbind listens (the caller may serve its own port
 * mapper), or another -errno when the exchange failed (what was
 * registered before the failure is still removed by rpcb_unregister()).
 */
int rpcb_register(void);

/*
 * rpcb_unregister() - UNSET what rpcb_register() registered, as said
 * above. Logs what it could not remove. Idempotent; a no-op when nothing
 * was registered.
 */
void rpcb_unregister(void);

#endif
