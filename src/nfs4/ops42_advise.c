// SPDX-License-Identifier: MIT
/*
 * IO_ADVISE (RFC 7862 §15.5): the client's expected access pattern for a
 * range of the current file, passed to the kernel with posix_fadvise.
 * The reply lists the hints that were applied; hints with no kernel
 * equivalent (SEQUENTIAL_BACKWARDS, WILLNEED_OPPORTUNISTIC, READ, WRITE,
 * INIT_PROXIMITY) are not returned. Of contradictory hints only one is
 * applied: one access pattern (RANDOM over SEQUENTIAL over NORMAL), and
 * DONTNEED over WILLNEED.
 */
#include <errno.h>

#include "nfs4/compound.h"
#include "nfs4/nfs4_xdr.h"
#include "nfs4/ops42_int.h"
#include "nfs4/state/state.h"
#include "vfs/vfs.h"

/* IO_ADVISE_type4: bit numbers in a bitmap4 */
enum IO_ADVISE_type4 {
	IO_ADVISE4_NORMAL = 0,
	IO_ADVISE4_SEQUENTIAL = 1,
	IO_ADVISE4_SEQUENTIAL_BACKWARDS = 2,
	IO_ADVISE4_RANDOM = 3,
	IO_ADVISE4_WILLNEED = 4,
	IO_ADVISE4_WILLNEED_OPPORTUNISTIC = 5,
	IO_ADVISE4_DONTNEED = 6,
	IO_ADVISE4_NOREUSE = 7,
	IO_ADVISE4_READ = 8,
	IO_ADVISE4_WRITE = 9,
	IO_ADVISE4_INIT_PROXIMITY = 10,
};

struct IO_ADVISE4args {
	struct stateid4 iaa_stateid;
	uint64_t iaa_offset;
	uint64_t iaa_count;
	struct bitmap4 iaa_hints;
};

struct IO_ADVISE4resok {
	struct bitmap4 ior_hints;
};

static bool nfs4_dec_IO_ADVISE4args(struct xdr_buf *x, void *p)
{
	struct IO_ADVISE4args *a = p;

	return nfs4_dec_stateid4(x, &a->iaa_stateid) &&
	       xdr_dec_u64(x, &a->iaa_offset) &&
	       xdr_dec_u64(x, &a->iaa_count) &&
	       nfs4_dec_bitmap4(x, &a->iaa_hints);
}

static bool nfs4_enc_IO_ADVISE4resok(struct xdr_buf *x, uint32_t status,
				     const void *p)
{
	const struct IO_ADVISE4resok *r = p;

	return nfs4_enc_bitmap4(x, &r->ior_hints);
}

static bool hint_isset(const struct bitmap4 *b, uint32_t bit)
{
	return bit / 32 < b->len && bit / 32 < NFS4_BITMAP_WORDS &&
	       (b->map[bit / 32] & (1U << (bit % 32)));
}

/* Apply @advice; on success add @bit to the reply's hints. */
static int advise_one(struct vfs_obj *o, const struct IO_ADVISE4args *a,
		      enum vfs_advice advice, uint32_t bit, struct bitmap4 *out)
{
	int ret;

	ret = vfs_advise(o, a->iaa_offset, a->iaa_count, advice);
	if (ret < 0)
		return ret;
	out->map[0] |= 1U << bit;
	out->len = 1;
	return 0;
}

/*
 * nfs4_op_io_advise() - IO_ADVISE (RFC 7862 §15.5). The stateid is checked
 * as for READ (no lock conflict can arise from advice, so no range).
 */
static uint32_t nfs4_op_io_advise(struct nfs4_compound *c, void *args,
				  void *res)
{
	struct IO_ADVISE4args *a = args;
	struct IO_ADVISE4resok *r = res;
	const struct bitmap4 *h = &a->iaa_hints;
	struct vfs_obj *o;
	uint32_t st;
	int ret = 0;

	st = ops42_file(&c->cur, &o);
	if (st != NFS4_OK)
		return st;
	st = nfs4_state_check_io(c, &a->iaa_stateid, false, a->iaa_offset, 0);
	if (st != NFS4_OK)
		return st;
	r->ior_hints.len = 0;
	if (hint_isset(h, IO_ADVISE4_RANDOM))
		ret = advise_one(o, a, VFS_ADV_RANDOM, IO_ADVISE4_RANDOM,
				 &r->ior_hints);
	else if (hint_isset(h, IO_ADVISE4_SEQUENTIAL))
		ret = advise_one(o, a, VFS_ADV_SEQUENTIAL,
				 IO_ADVISE4_SEQUENTIAL, &r->ior_hints);
	else if (hint_isset(h, IO_ADVISE4_NORMAL))
		ret = advise_one(o, a, VFS_ADV_NORMAL, IO_ADVISE4_NORMAL,
				 &r->ior_hints);
	if (ret == 0 && hint_isset(h, IO_ADVISE4_DONTNEED))
		ret = advise_one(o, a, VFS_ADV_DONTNEED, IO_ADVISE4_DONTNEED,
				 &r->ior_hints);
	else if (ret == 0 && hint_isset(h, IO_ADVISE4_WILLNEED))
		ret = advise_one(o, a, VFS_ADV_WILLNEED, IO_ADVISE4_WILLNEED,
				 &r->ior_hints);
	if (ret == 0 && hint_isset(h, IO_ADVISE4_NOREUSE))
		ret = advise_one(o, a, VFS_ADV_NOREUSE, IO_ADVISE4_NOREUSE,
				 &r->ior_hints);
	if (ret < 0)
		return nfs4_status(OP_IO_ADVISE, ret);
	return NFS4_OK;
}

const struct nfs4_op nfs4_op_desc_io_advise = {
	.name = "IO_ADVISE",
	.minor_min = 2,
	.minor_max = 255,
	.flags = NFS4_OP_NEEDS_FH,
	.args_size = sizeof(struct IO_ADVISE4args),
	.res_size = sizeof(struct IO_ADVISE4resok),
	.decode = nfs4_dec_IO_ADVISE4args,
	.handle = nfs4_op_io_advise,
	.encode = nfs4_enc_IO_ADVISE4resok,
};
