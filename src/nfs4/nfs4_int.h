/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_NFS4_INT_H
#define NASD_NFS4_NFS4_INT_H

/*
 * Helpers shared by the NFSv4 operation files (any engineer's): current
 * filehandle checks, names, change_info4, the reply budget, and the
 * configuration set by nfs4_init().
 */

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "nfs4/compound.h"
#include "nfs4/nfs4.h"
#include "nfs4/nfs4_xdr.h"
#include "vfs/vfs.h"

/* Largest READ/WRITE payload (maxread/maxwrite attributes). */
#define NFS4_IO_MAX (1024 * 1024)

/*
 * A READ's data leaves as the reply's tail (not copied) only above this
 * size: such a reply is bigger than what a 4.1 slot keeps unasked
 * (NFS4_SLOT_CACHE_ALWAYS, 4096 bytes), so it is never cached (see
 * compound.c). A 4 KiB READ goes uncopied, as NFSv3's.
 */
#define NFS4_READ_TAIL_MIN 4095

/* Reply body limit of a 4.0 COMPOUND (and of 4.1 before SEQUENCE). */
#define NFS4_REPLY_MAX (NFS4_IO_MAX + 64 * 1024)

/* Longest COMPOUND tag accepted (utf8str_cs, RFC 8881 §16.2.1). */
#define NFS4_TAG_MAX 1024

/* nfs4_config_get() - the configuration given to nfs4_init(). */
const struct nfs4_config *nfs4_config_get(void);

/*
 * nfs4_compound_max_ops() - the server's limit on operations per
 * COMPOUND (--max-ops); CREATE_SESSION negotiates ca_maxoperations down
 * to it.
 */
uint32_t nfs4_compound_max_ops(void);

/*
 * nfs4_compound_room() - bytes left in the reply for the result of the
 * current operation (after its resop and status): what a READ or READDIR
 * may still fill without passing the reply limit of the request.
 */
uint32_t nfs4_compound_room(const struct nfs4_compound *c);

/*
 * nfs4_fh_ro() - true when nothing may be modified through @fh: a pseudo
 * node, or an export read-only for this client.
 */
bool nfs4_fh_ro(const struct nfs4_fh *fh);

/*
 * nfs4_fh_of() - the wire handle of @fh (pseudo node or object) into
 * @out. Returns 0 or -errno.
 */
int nfs4_fh_of(const struct nfs4_fh *fh, struct nfs_fh4 *out);

/*
 * nfs4_fh_put_wire() - make @c->cur name the file of wire handle @wire:
 * MAC check, pseudo node or export object, client admission. Returns
 * NFS4_OK, BADHANDLE (forged/malformed), STALE (gone, or an export the
 * client may not use) or WRONGSEC (secure export, unprivileged port).
 */
uint32_t nfs4_fh_put_wire(struct nfs4_compound *c,
			  const struct nfs_fh4 *wire);

/*
 * nfs4_fh_set_export_root() - make @fh name the root of export @e for
 * this client (a junction crossing, PUTROOTFH on an exported "/").
 * Returns NFS4_OK, NOENT (the client may not use @e), WRONGSEC (secure
 * export, unprivileged port) or the status of opening the root for @op.
 */
uint32_t nfs4_fh_set_export_root(struct nfs4_compound *c, uint32_t op,
				 struct nfs4_fh *fh, struct export *e);

/* nfs4_fh_set_pseudo() - make @fh name pseudo node @node. */
void nfs4_fh_set_pseudo(struct nfs4_fh *fh, struct nfs4_pseudo_node *node);

/*
 * nfs4_compound_pseudo() - the pseudo-filesystem of this request's
 * export table (taken on first use, given back at the end of the
 * compound). NULL only when out of memory.
 */
struct nfs4_pseudo *nfs4_compound_pseudo(struct nfs4_compound *c);

/*
 * nfs4_name_check() - RFC 8881 §14.2 / §18.x rules for a component4 that
 * names a directory entry: 0 or -EINVAL (empty or not UTF-8),
 * -ENAMETOOLONG, -EBADNAME ("." and "..", as knfsd), -EILSEQ (contains
 * '/' or NUL; nfs4_status maps it to BADCHAR).
 */
int nfs4_name_check(const struct nfs4_opaque *name);
#define EBADNAME 600 /* internal only: NFS4ERR_BADNAME */

/*
 * nfs4_status_allowed() - whether RFC 8881 §15.2 (RFC 7530, RFC 7862)
 * lists @status for operation @op (unit tests; nfs4_status uses it).
 */
bool nfs4_status_allowed(uint32_t op, uint32_t status);

/*
 * nfs4_dir_change() - the change attribute of @dir for change_info4 (a
 * directory; SETXATTR's file), 0 when it cannot be read.
 */
uint64_t nfs4_dir_change(struct vfs_obj *dir);

/*
 * nfs4_xattr_ok() - NFS4_OK when @fh's object may have its extended
 * attributes served (RFC 8276): an export's object, the export not
 * xattr=no, and with @probe its filesystem keeping user. attributes (a
 * syscall: for xattr_support); NOTSUPP otherwise (ops42_xattr.c).
 */
uint32_t nfs4_xattr_ok(const struct nfs4_fh *fh, bool probe);

/*
 * nfs4_cur_dir() - the current filehandle's object when it is a directory
 * of an export: NFS4_OK and *@out (borrowed), NOTDIR for other types,
 * ROFS when @modify and the fh is read-only (pseudo nodes always are).
 */
uint32_t nfs4_cur_dir(struct nfs4_compound *c, bool modify,
		      struct vfs_obj **out);

#endif
