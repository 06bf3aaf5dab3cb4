// SPDX-License-Identifier: MIT
/*
 * CephFS exports: one libcephfs mount each (ceph.h).
 *
 * Restart: libcephfs names this client's session with a uuid; when a
 * server is killed, its session (and the caps and locks it holds) stays
 * until the MDS's session timeout (about a minute), and other clients of
 * the files it had open wait for it. A new mount that first reclaims the
 * old uuid with CEPH_RECLAIM_RESET has the MDS evict the dead session at
 * once. The uuid is this server's stable instance id (STATE_DIR) and the
 * export id, so each export's mount reclaims its own predecessor and two
 * gateways with their own state directories never evict each other. The
 * order matters (measured): reclaim, finish it, then set the uuid and
 * mount; a uuid set first makes the reclaim EINVAL and the mount EPERM
 * while the old session lives.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "vfs/ceph/ceph.h"

void cfs_export_free(struct vfs_export *ex)
{
	struct ceph_export *cx = CX(ex);

	if (cx->cm) {
		ceph_unmount(cx->cm);
		ceph_release(cx->cm);
	}
	free(cx);
}

static const char *or_default(const char *s, const char *def)
{
	return s && *s ? s : def;
}

/* "nasd-" + the instance id in hex + "-" + the export id. */
static void session_uuid(uint32_t id, char *buf, size_t size)
{
	uint8_t inst[16];
	char hex[33];

	vfs_instance_id(inst);
	for (int i = 0; i < 16; i++)
		(void)snprintf(hex + 2 * i, 3, "%02x", inst[i]);
	(void)snprintf(buf, size, "nasd-%s-%u", hex, id);
}

/*
 * The debug subsystems a libcephfs client uses. Each has a level it logs
 * at and a higher one it gathers at in memory (debug_client "0/5": logs
 * nothing, keeps level-5 messages in a ring for a crash dump), and
 * formatting what it gathers is not free: it cost nasd 28 % of its CPU
 * per operation in the SWBUILD mix (0.100 -> 0.071 CPU-ms per operation,
 * ops/s 6850 -> 8710, medians of three alternating runs).
 */
static const char *const debug_subsys[] = {
	"client", "ms", "objecter", "objectcacher", "monc", "mgrc", "auth",
	"finisher", "context", "perfcounter", "rados", "asok", "crypto",
	"timer", "throttle", "buffer", "striper", "filer", "journaler",
	"none", "lockdep", "tp", "optracker", "heartbeatmap",
};
#define N_DEBUG (sizeof(debug_subsys) / sizeof(debug_subsys[0]))

static void debug_levels(struct ceph_mount_info *cm, char (*v)[24])
{
	char name[40];

	for (size_t i = 0; i < N_DEBUG; i++) {
		(void)snprintf(name, sizeof(name), "debug_%s",
			       debug_subsys[i]);
		if (ceph_conf_get(cm, name, v[i], sizeof(v[i])) < 0)
			v[i][0] = '\0';
	}
}

/*
 * Gather no more than is logged ("L/G" becomes "L/L") for every subsystem
 * whose levels the configuration file left as they were (@before), unless
 * CEPH_ARGS sets debug levels: what an administrator set stays.
 */
static void quiet_gathering(struct ceph_mount_info *cm,
			    char (*before)[24])
{
	const char *env = getenv("CEPH_ARGS");
	char now[N_DEBUG][24], name[40], val[48], *end;
	unsigned long lvl, gather;

	if (env && strstr(env, "debug"))
		return;
	debug_levels(cm, now);
	for (size_t i = 0; i < N_DEBUG; i++) {
		if (strcmp(now[i], before[i]) != 0)
			continue;
		lvl = strtoul(now[i], &end, 10);
		if (end == now[i] || *end != '/')
			continue;
		gather = strtoul(end + 1, &end, 10);
		if (*end != '\0' || gather <= lvl)
			continue;
		(void)snprintf(name, sizeof(name), "debug_%s",
			       debug_subsys[i]);
		(void)snprintf(val, sizeof(val), "%lu/%lu", lvl, lvl);
		(void)ceph_conf_set(cm, name, val);
	}
}

static int mount_fs(struct ceph_export *cx, const struct vfs_ceph_spec *spec,
		    uint32_t id)
{
	const char *conf = or_default(spec->conf, NULL);
	struct ceph_mount_info *cm;
	char uuid[64], debug_before[N_DEBUG][24];
	int ret;

	ret = ceph_create(&cm, or_default(spec->id, NULL));
	if (ret < 0)
		return ret;
	cx->cm = cm;
	debug_levels(cm, debug_before);
	ret = ceph_conf_read_file(cm, conf);
	if (ret < 0) {
		log_err("vfs: ceph: cannot read %s: %s",
			conf ? conf : "the default ceph.conf", strerror(-ret));
		return ret;
	}
	/* Several exports (and tools) share one client name: no admin
	 * socket, whose path would collide. */
	(void)ceph_conf_set(cm, "admin_socket", "");
	quiet_gathering(cm, debug_before);
	ret = ceph_init(cm);
	if (ret < 0)
		return ret;
	session_uuid(id, uuid, sizeof(uuid));
	ret = ceph_start_reclaim(cm, uuid, CEPH_RECLAIM_RESET);
	if (ret == 0)
		log_info("vfs: ceph: reclaimed the session of a previous run "
			 "(%s)", uuid);
	else if (ret != -ENOENT)
		log_warn("vfs: ceph: reclaiming session %s: %s", uuid,
			 strerror(-ret));
	ceph_finish_reclaim(cm);
	ceph_set_uuid(cm, uuid);
	if (spec->fs && *spec->fs) {
		ret = ceph_select_filesystem(cm, spec->fs);
		if (ret < 0)
			return ret;
	}
	ret = ceph_mount(cm, or_default(spec->subdir, "/"));
	if (ret < 0)
		return ret;
	cx->fscid = (uint64_t)ceph_get_fs_cid(cm);
	return 0;
}

/*
 * mount_fs() with every signal blocked: libcephfs starts its threads
 * there, and they inherit the mask. The server may open exports before
 * it blocks SIGTERM for its signal thread; a libcephfs thread that took
 * SIGTERM would end the process at once, without the unmount that
 * closes the session (another gateway would then wait for its caps
 * until the session timed out).
 */
static int mount_fs_masked(struct ceph_export *cx,
			   const struct vfs_ceph_spec *spec, uint32_t id)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = mount_fs(cx, spec, id);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int nasd_ceph_export_open(const char *name, const struct vfs_ceph_spec *spec,
			  uint32_t id, struct vfs_export **out)
{
	struct ceph_export *cx;
	struct vfs_export *ex;
	struct vfs_obj *root;
	struct ceph_statx x;
	struct Inode *in;
	int ret;

	cx = calloc(1, sizeof(*cx));
	if (!cx)
		return -ENOMEM;
	ex = &cx->ex;
	ret = vfs_export_init(ex, &vfs_ceph_backend, id, name);
	if (ret < 0)
		goto out_put;
	ret = mount_fs_masked(cx, spec, id);
	if (ret < 0) {
		log_err("vfs: ceph: %s: mounting %s:%s: %s", name,
			or_default(spec->fs, "(default)"),
			or_default(spec->subdir, "/"), strerror(-ret));
		goto out_put;
	}
	ret = ceph_ll_lookup_root(cx->cm, &in);
	if (ret < 0)
		goto out_put;
	ret = ceph_ll_getattr(cx->cm, in, &x, CEPH_WANT, AT_SYMLINK_NOFOLLOW,
			      cfs_root_perms(ex));
	if (ret == 0 && !S_ISDIR(x.stx_mode))
		ret = -ENOTDIR;
	if (ret < 0) {
		ceph_ll_put(cx->cm, in);
		goto out_put;
	}
	ret = cfs_obj_adopt(ex, in, &x, &root);
	if (ret < 0)
		goto out_put;
	root->is_root = true;
	ex->root = root;
	log_info("vfs: %s: CephFS %s:%s (fscid %llu)", name,
		 or_default(spec->fs, "(default)"),
		 or_default(spec->subdir, "/"),
		 (unsigned long long)cx->fscid);
	*out = ex;
	return 0;

out_put:
	vfs_export_put(ex);
	return ret;
}
