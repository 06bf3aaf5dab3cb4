// SPDX-License-Identifier: MIT
/*
 * SipHash-2-4, written from the description in the SipHash paper: four
 * 64-bit state words initialised from the key and the constants
 * "somepseudorandomlygeneratedbytes", two SipRounds per 8-byte message
 * word, the last word carrying the message length in its top byte, and
 * four SipRounds after v2 ^= 0xff.
 */
#include "vfs/siphash.h"

static inline uint64_t rotl64(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

struct sip_state {
	uint64_t v0, v1, v2, v3;
};

static inline void sip_round(struct sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = rotl64(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl64(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl64(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl64(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl64(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl64(s->v2, 32);
}

static inline void sip_compress(struct sip_state *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t siphash24(const uint8_t key[16], const void *msg, size_t len)
{
	const uint8_t *p = msg;
	uint64_t k0 = load_le64(key);
	uint64_t k1 = load_le64(key + 8);
	struct sip_state s = {
		.v0 = k0 ^ 0x736f6d6570736575ULL,
		.v1 = k1 ^ 0x646f72616e646f6dULL,
		.v2 = k0 ^ 0x6c7967656e657261ULL,
		.v3 = k1 ^ 0x7465646279746573ULL,
	};
	size_t left = len;
	uint64_t last;

	for (; left >= 8; left -= 8, p += 8)
		sip_compress(&s, load_le64(p));

	/* Final word: remaining bytes little-endian, length mod 256 on top. */
	last = (uint64_t)(len & 0xff) << 56;
	for (size_t i = 0; i < left; i++)
		last |= (uint64_t)p[i] << (8 * i);
	sip_compress(&s, last);

	s.v2 ^= 0xff;
	for (int i = 0; i < 4; i++)
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
