/* SPDX-License-Identifier: MIT */
#ifndef NASD_RPC_RPC_INT_H
#define NASD_RPC_RPC_INT_H

/* Private to src/rpc/: helpers shared by the dispatcher, DRC and pmap. */

#include "rpc/rpc.h"

/*
 * rpc_call_alloc_raw() - like rpc_call_alloc() but the memory is not
 * zeroed (reply buffers are written before they are read).
 */
void *rpc_call_alloc_raw(struct rpc_call *call, size_t n);

#endif
