/* SPDX-License-Identifier: MIT */
#ifndef NASD_VFS_BACKEND_H
#define NASD_VFS_BACKEND_H

/*
 * The vfs backend table: what a storage backend gives the vfs, and what
 * the vfs keeps for every backend.
 *
 * vfs.h is the API the protocols call. Its entry points (vfs.c) dispatch
 * through the table of an object's export; the generic layer keeps what
 * does not depend on where the bytes live:
 * - the wire handle envelope (handle.c): version, export id, the
 *   backend's handle bytes, a keyed MAC over all of it;
 * - the object cache (obj.c), keyed by (export, backend handle bytes),
 *   with its references, LRU and the per-object caches below;
 * - credentials as a value (cred.c: the calling thread's identity);
 * - what is built on the backend's extended attributes: the ctime-keyed
 *   caches of xattr names and known-absent xattrs (xattr.c) and the DOS
 *   attributes (dosattr.c);
 * - the io=auto memory policy (autoio.c) and the statistics.
 *
 * A backend embeds struct vfs_obj at the start of its object (and struct
 * vfs_export at the start of its export) and says how large they are;
 * the cache allocates them. Backends speak 0/-errno only.
 *
 * Stacking: the fault-injecting backend (fault.c) is a table whose every
 * entry counts the call against the rules, then calls the same entry of
 * the export's own backend. vfs_ops() returns it instead of the export's
 * table while any rule is set, so injection costs one predicted branch
 * when it is off and no backend knows of it (the local backend's data
 * path keeps two syscall-level hooks, vfs_sys_pread/pwrite, inside its
 * own retry loops: those faults test its loops).
 *
 * Versioning: @version is VFS_BACKEND_VERSION of the header the backend
 * was built with; an entry added later goes at the end with the version
 * bumped, and the vfs treats a NULL entry of an older table as "not
 * supported" (-EOPNOTSUPP, or false for a question).
 */

#include <pthread.h>
#include <stdatomic.h>

#include "vfs/fault.h"
#include "vfs/vfs.h"

#define VFS_BACKEND_VERSION 2

/*
 * The backend's part of a handle: at least VFS_BH_MIN bytes (the
 * envelope spends no length byte on the first four), at most
 * VFS_BH_MAX, opaque to the vfs. Equal bytes name the same file of the
 * export; the bytes must stay valid across restarts of the server.
 */
#define VFS_BH_MIN 5
#define VFS_BH_MAX (4 + 128)
struct vfs_bh {
	uint32_t len;
	uint8_t bytes[VFS_BH_MAX];
};

/* What a backend can do beyond the table (vfs_backend.caps). */
#define VFS_CAP_FILE_RANGE 0x1 /* READ payloads as file ranges (sendfile) */
#define VFS_CAP_DIRECT 0x2     /* io=direct / auto's O_DIRECT */
#define VFS_CAP_CLONE 0x4      /* vfs_clone_range may succeed */
/* a cluster: calls may wait on a network, and others change its files */
#define VFS_CAP_REMOTE 0x8
#define VFS_CAP_LOCKS 0x10     /* keeps byte-range locks other servers see */

struct vfs_backend;

/* Generic part of an export; a backend's export starts with it. */
struct vfs_export {
	const struct vfs_backend *be;
	uint32_t id;
	char *path;	      /* what vfs_export_path() shows; malloc'd */
	struct vfs_obj *root; /* pinned reference */
	atomic_int refs;      /* open ref + one per cached object */
	atomic_int opens;     /* vfs_export_open/reuse minus close */
	atomic_int io;	      /* enum vfs_io */
};

/* Generic part of an object; a backend's object starts with it. */
struct vfs_obj {
	/* Cache linkage: all protected by the shard lock (obj.c). */
	struct vfs_obj *hnext;
	struct vfs_obj *lru_prev, *lru_next; /* only while refs == 0 */
	uint32_t hash;
	unsigned int refs;
	bool doomed; /* unlinked by us: ask the backend at put */
	bool hashed;

	struct vfs_export *ex; /* holds a reference */
	enum vfs_ftype type;
	bool is_root;
	/* Kept DOS attributes (dosattr.c), cached while the ctime they
	 * were read under stays: every xattr change moves the ctime (by
	 * at least a nanosecond once it was read, with Linux 6.13's
	 * multigrain timestamps; within a clock tick before that, so an
	 * outside change may go unseen for that long). */
	pthread_mutex_t dos_mu;
	bool dos_valid;
	uint32_t dos_gen;	/* bumped by each of our own changes */
	struct timespec dos_ctime;
	struct vfs_dosattr dos;
	/* xattrs known absent (VFS_XSLOT_* bits, xattr.c), under dos_mu,
	 * while the ctime they were found absent under stays */
	uint32_t xabsent;
	uint32_t xgen;		/* bumped by each of our xattr changes */
	struct timespec xabsent_ctime;
	/* The xattr names (vfs_xattr_names), under dos_mu, while the ctime
	 * they were listed under stays: NULL with xnames_len 0 is none. */
	bool xnames_valid;
	char *xnames;
	size_t xnames_len;
	struct timespec xnames_ctime;
	struct vfs_bh bh; /* the cache key; the handle's backend bytes */
};

/*
 * The table. Entries take and give what the vfs.h function of the same
 * name does, unless said otherwise; names arrive as the wire gave them
 * (vfs_name_check() validates and NUL-terminates them). Every entry runs
 * with the calling thread's credentials (cred.c) and enforces them.
 */
struct vfs_backend {
	unsigned int version; /* VFS_BACKEND_VERSION */
	const char *name;
	uint32_t caps;	      /* VFS_CAP_* */
	size_t obj_size;      /* sizeof the backend's object */

	/* Exports and objects. */
	void (*export_free)(struct vfs_export *ex); /* last reference */
	/* The object of handle bytes @bh, not in the cache: make it (the
	 * backend's object, vfs_obj_new) and vfs_obj_insert() it. -ESTALE
	 * when the file is gone. */
	int (*obj_resolve)(struct vfs_export *ex, const struct vfs_bh *bh,
			   struct vfs_obj **out);
	/* Release what the backend holds for @o (unhashed, unreferenced);
	 * the vfs frees the memory. */
	void (*obj_free)(struct vfs_obj *o);
	/* Has @o lost its last name? (A doomed object is dropped at its
	 * last put when it has.) */
	bool (*obj_unlinked)(struct vfs_obj *o);

	int (*getattr)(struct vfs_obj *o, struct vfs_attr *attr);
	int (*setattr)(struct vfs_obj *o, const struct vfs_sattr *sa);
	int (*mark_modified)(struct vfs_obj *o);
	int (*access)(struct vfs_obj *o, uint32_t want, bool ro,
		      uint32_t *granted);
	int (*check_lock)(struct vfs_obj *o);
	int (*statfs)(struct vfs_obj *o, struct vfs_statfs *st);

	int (*lookup)(struct vfs_obj *dir, const char *name, size_t len,
		      struct vfs_obj **out);
	ssize_t (*readlink)(struct vfs_obj *o, char *buf, size_t size);
	int (*create)(struct vfs_obj *dir, const char *name, size_t len,
		      enum vfs_createmode how, const struct vfs_sattr *sa,
		      const uint8_t verf[8], struct vfs_obj **out);
	int (*mkdir)(struct vfs_obj *dir, const char *name, size_t len,
		     const struct vfs_sattr *sa, struct vfs_obj **out);
	int (*symlink)(struct vfs_obj *dir, const char *name, size_t len,
		       const char *target, size_t tlen,
		       const struct vfs_sattr *sa, struct vfs_obj **out);
	int (*mknod)(struct vfs_obj *dir, const char *name, size_t len,
		     enum vfs_ftype type, uint32_t major, uint32_t minor,
		     const struct vfs_sattr *sa, struct vfs_obj **out);
	int (*remove)(struct vfs_obj *dir, const char *name, size_t len);
	int (*rmdir)(struct vfs_obj *dir, const char *name, size_t len);
	int (*rename)(struct vfs_obj *fdir, const char *fname, size_t flen,
		      struct vfs_obj *tdir, const char *tname, size_t tlen);
	int (*link)(struct vfs_obj *o, struct vfs_obj *dir, const char *name,
		    size_t len);
	int (*readdir)(struct vfs_obj *dir, uint64_t cookie,
		       vfs_readdir_cb emit, void *ctx, bool *eof);
	uint64_t (*dir_verifier)(struct vfs_obj *dir);
	/* Optional (NULL: -EOPNOTSUPP / false). */
	int (*subtree_init)(struct vfs_subtree *t, struct vfs_obj *dir);
	bool (*subtree_holds)(const struct vfs_subtree *t, struct vfs_obj *o);

	/* The data path. */
	ssize_t (*read_payload)(struct vfs_obj *o, uint64_t off, size_t len,
				unsigned int flags, struct vfs_read_res *res);
	bool (*read_goes_direct)(struct vfs_obj *o, uint64_t off, size_t len);
	ssize_t (*write)(struct vfs_obj *o, uint64_t off, const void *buf,
			 size_t len, enum vfs_stable stable);
	int (*commit)(struct vfs_obj *o, uint64_t off, uint64_t count);

	/* Extended attributes, the primitives: the name is checked, the
	 * type is a regular file or a directory. */
	ssize_t (*xattr_get)(struct vfs_obj *o, const char *name, void *buf,
			     size_t size);
	int (*xattr_set)(struct vfs_obj *o, const char *name, const void *val,
			 size_t len, enum vfs_xattr_how how);
	ssize_t (*xattr_list)(struct vfs_obj *o, char *buf, size_t size);
	int (*xattr_remove)(struct vfs_obj *o, const char *name);
	int (*xattr_probe)(struct vfs_obj *o);

	/* Space and server-side data operations. */
	int (*allocate)(struct vfs_obj *o, uint64_t off, uint64_t len);
	int (*deallocate)(struct vfs_obj *o, uint64_t off, uint64_t len);
	int (*seek)(struct vfs_obj *o, uint64_t off, enum vfs_seek_what what,
		    uint64_t *pos, uint64_t *size);
	ssize_t (*copy_range)(struct vfs_obj *src, uint64_t soff,
			      struct vfs_obj *dst, uint64_t doff,
			      uint64_t count, uint64_t max,
			      enum vfs_stable stable);
	int (*clone_range)(struct vfs_obj *src, uint64_t soff,
			   struct vfs_obj *dst, uint64_t doff, uint64_t count);
	int (*clone_blksize)(struct vfs_obj *o, uint32_t *blksize);
	int (*advise)(struct vfs_obj *o, uint64_t off, uint64_t len,
		      enum vfs_advice advice);

	/* Version 2: locks shared with other servers (VFS_CAP_LOCKS; vfs.h
	 * vfs_lock_set). Never stacked: the fault backend has none. */
	int (*lock_set)(struct vfs_obj *o, uint64_t owner, uint64_t start,
			uint64_t end, enum vfs_lock_type type);
	int (*lock_test)(struct vfs_obj *o, uint64_t owner, uint64_t start,
			 uint64_t end, bool excl, struct vfs_lock_conflict *c);
	void (*lock_release)(struct vfs_obj *o);
};

/* The backends built in. */
extern const struct vfs_backend vfs_local_backend;
extern const struct vfs_backend vfs_fault_backend;

/* vfs_ops() - the table calls on @ex go through (see above). */
static inline const struct vfs_backend *vfs_ops(const struct vfs_export *ex)
{
	if (__builtin_expect(atomic_load_explicit(&vfs_faults_on,
						  memory_order_relaxed), 0))
		return &vfs_fault_backend;
	return ex->be;
}

/*
 * For backends (obj.c, handle.c, vfs.c).
 *
 * vfs_export_init() - set up the generic part of a new export @ex of
 * backend @be (refs and opens 1, io=auto); @path is copied.
 * vfs_export_init_root() - make the object of @bh the export's pinned
 * root (by obj_resolve, after the export is otherwise ready).
 * vfs_obj_new() - a zeroed backend object of @ex for @bh (type @type):
 * not yet visible; give it to vfs_obj_insert() or vfs_obj_discard().
 * vfs_obj_insert() - make @n visible and return a reference in *@out: @n
 * itself, or the object already cached for its handle (another thread
 * won the race: @n is then released through the backend's obj_free).
 * vfs_obj_find() - a new reference to the cached object of @bh, or
 * -ENOENT.
 * vfs_obj_doom() - the file of @bh lost a name through us: drop its
 * cached object once unused if the backend says no name is left.
 */
int vfs_export_init(struct vfs_export *ex, const struct vfs_backend *be,
		    uint32_t id, const char *path);
int vfs_export_init_root(struct vfs_export *ex, const struct vfs_bh *bh);
struct vfs_obj *vfs_obj_new(struct vfs_export *ex, const struct vfs_bh *bh,
			    enum vfs_ftype type);
void vfs_obj_discard(struct vfs_obj *n);
int vfs_obj_insert(struct vfs_obj *n, struct vfs_obj **out);
int vfs_obj_find(struct vfs_export *ex, const struct vfs_bh *bh,
		 struct vfs_obj **out);
void vfs_obj_doom(struct vfs_export *ex, const struct vfs_bh *bh);

/*
 * vfs_access_from_checks() - vfs_access()'s answer from @check, the
 * backend's own "may the caller R_OK/W_OK/X_OK @o" (0 or -errno), as
 * NFSv3 ACCESS composes it: changing a directory's entries needs write
 * and search on it.
 */
int vfs_access_from_checks(struct vfs_obj *o, uint32_t want, bool ro,
			   int (*check)(struct vfs_obj *o, int mode),
			   uint32_t *granted);

/*
 * vfs_access_compose() - the same answer for a file of @type from what
 * the caller may do: read (@r), write (@w), search or execute (@x).
 */
uint32_t vfs_access_compose(enum vfs_ftype type, uint32_t want, bool ro,
			    bool r, bool w, bool x);

#endif
