/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_PSEUDO_H
#define NASD_NFS4_PSEUDO_H

/*
 * The NFSv4 pseudo-filesystem (RFC 8881 §7.3, RFC 7530 §7.3): read-only
 * directories from "/" down to every export, built from one export
 * table. An export appears at its own path (as with knfsd) or at its
 * `pseudo=` path; its node is a junction to the export's root. Nodes
 * have MAC'd opaque handles derived from their path, so they are stable
 * across rebuilds and restarts.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "export/export.h"
#include "nfs4/nfs4_xdr.h"

struct nfs4_pseudo;
struct nfs4_pseudo_node;

/*
 * nfs4_pseudo_get() - the pseudo-filesystem of export table @t, built on
 * first use and shared until the live table changes. The caller owns one
 * reference (nfs4_pseudo_put) and must hold its reference on @t while
 * using the tree. Returns 0 or -ENOMEM.
 */
int nfs4_pseudo_get(struct export_table *t, struct nfs4_pseudo **out);
void nfs4_pseudo_put(struct nfs4_pseudo *p);

/* nfs4_pseudo_flush() - drop the cached tree (shutdown). */
void nfs4_pseudo_flush(void);

/* nfs4_pseudo_build() - build a tree for @t (tests; owned by the caller). */
int nfs4_pseudo_build(struct export_table *t, struct nfs4_pseudo **out);

struct nfs4_pseudo_node *nfs4_pseudo_root(struct nfs4_pseudo *p);

/* nfs4_pseudo_export() - the export whose root this node is, or NULL. */
struct export *nfs4_pseudo_export(const struct nfs4_pseudo_node *n);

/* nfs4_pseudo_parent() - the parent node; NULL for the root. */
struct nfs4_pseudo_node *nfs4_pseudo_parent(const struct nfs4_pseudo_node *n);

/* nfs4_pseudo_path() - the node's absolute pseudo path ("/" for root). */
const char *nfs4_pseudo_path(const struct nfs4_pseudo_node *n);

/* nfs4_pseudo_fileid() - stable fileid of the node (a hash of its path). */
uint64_t nfs4_pseudo_fileid(const struct nfs4_pseudo_node *n);

/* nfs4_pseudo_change() - change attribute: when the tree was built. */
uint64_t nfs4_pseudo_change(const struct nfs4_pseudo *p);

/*
 * nfs4_pseudo_visible() - whether client @peer may see @n: it is an
 * export the client may use, or leads to one.
 */
bool nfs4_pseudo_visible(const struct nfs4_pseudo_node *n,
			 const struct sockaddr *peer);

/* nfs4_pseudo_nchildren() / nfs4_pseudo_child() - the children, sorted
 * by name (index @i from 0), visible or not. */
uint32_t nfs4_pseudo_nchildren(const struct nfs4_pseudo_node *n);
struct nfs4_pseudo_node *nfs4_pseudo_child(const struct nfs4_pseudo_node *n,
					   uint32_t i);
const char *nfs4_pseudo_name(const struct nfs4_pseudo_node *n);

/*
 * nfs4_pseudo_lookup() - the child @name (@len bytes) of @dir that @peer
 * may see. 0 and *@out, or -ENOENT.
 */
int nfs4_pseudo_lookup(const struct nfs4_pseudo_node *dir, const char *name,
		       size_t len, const struct sockaddr *peer,
		       struct nfs4_pseudo_node **out);

/*
 * nfs4_pseudo_of_export() - the junction node of export @e, or NULL
 * (the export is hidden by another at the same place).
 */
struct nfs4_pseudo_node *nfs4_pseudo_of_export(struct nfs4_pseudo *p,
					       const struct export *e);

/* nfs4_pseudo_fh() - the node's wire handle. 0 or -errno. */
int nfs4_pseudo_fh(const struct nfs4_pseudo_node *n, struct nfs_fh4 *fh);

/*
 * nfs4_pseudo_from_fh() - the node a wire handle names: 0 and *@out,
 * -EBADHANDLE (not a pseudo handle, or forged), -ESTALE (a pseudo handle
 * of a node that no longer exists).
 */
int nfs4_pseudo_from_fh(struct nfs4_pseudo *p, const void *fh, size_t len,
			struct nfs4_pseudo_node **out);

/* nfs4_pseudo_is_fh() - whether @fh is a (well-formed) pseudo handle. */
bool nfs4_pseudo_is_fh(const void *fh, size_t len);

#endif
