/* SPDX-License-Identifier: MIT */
#ifndef NASD_CORE_ERR_H
#define NASD_CORE_ERR_H

#include <errno.h>

/*
 * Internal status values beyond errno, with the numbers the Linux kernel
 * uses internally for the same meanings (include/linux/errno.h). Layers
 * return 0 or -errno, or one of these negated; each protocol maps them to
 * its own status in one table.
 */
#define EBADHANDLE 521  /* handle is not one of ours (bad MAC, bad format) */
#define ENOTSYNC 522    /* SETATTR guard mismatch */
#define EBADCOOKIE 523  /* directory cookie no longer valid */
#define ENOTSUPP 524    /* operation not supported by the server */
#define ETOOSMALL 525   /* buffer too small for even one entry */
#define ESERVERFAULT 526
#define EBADTYPE 527    /* type not supported by the server */
#define EJUKEBOX 528    /* try again later (resource pressure) */

#endif
