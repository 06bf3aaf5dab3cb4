/* SPDX-License-Identifier: MIT */
#ifndef NASD_VFS_SIPHASH_H
#define NASD_VFS_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * siphash24() - SipHash-2-4 (Aumasson & Bernstein, "SipHash: a fast
 * short-input PRF", 2012) of @len bytes at @msg under the 16-byte @key.
 * The key and message are read as little-endian 64-bit words, as in the
 * paper; the result is the 64-bit value v0^v1^v2^v3 after finalization.
 */
uint64_t siphash24(const uint8_t key[16], const void *msg, size_t len);

#endif
