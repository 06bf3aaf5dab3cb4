/* SPDX-License-Identifier: MIT */
#ifndef NASD_NFS4_STATE_OPS_H
#define NASD_NFS4_STATE_OPS_H

/*
 * The state operations' handlers (RFC 7530 §16, RFC 8881 §18). Each has
 * its table row `nfs4_op_desc_<op>` beside it; the prototypes are here
 * for -Wmissing-prototypes and the unit tests.
 */

#include <stdint.h>

#include "nfs4/compound.h"

uint32_t nfs4_op_setclientid(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_setclientid_confirm(struct nfs4_compound *c, void *args,
				     void *res);
uint32_t nfs4_op_renew(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_exchange_id(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_create_session(struct nfs4_compound *c, void *args,
				void *res);
uint32_t nfs4_op_destroy_session(struct nfs4_compound *c, void *args,
				 void *res);
uint32_t nfs4_op_bind_conn_to_session(struct nfs4_compound *c, void *args,
				      void *res);
uint32_t nfs4_op_backchannel_ctl(struct nfs4_compound *c, void *args,
				 void *res);
uint32_t nfs4_op_destroy_clientid(struct nfs4_compound *c, void *args,
				  void *res);
uint32_t nfs4_op_reclaim_complete(struct nfs4_compound *c, void *args,
				  void *res);
uint32_t nfs4_op_sequence(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_free_stateid(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_test_stateid(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_delegpurge(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_delegreturn(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_open(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_open_confirm(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_open_downgrade(struct nfs4_compound *c, void *args,
				void *res);
uint32_t nfs4_op_close(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_lock(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_lockt(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_locku(struct nfs4_compound *c, void *args, void *res);
uint32_t nfs4_op_release_lockowner(struct nfs4_compound *c, void *args,
				   void *res);

#endif
