// SHA-256 (FIPS 180-4) compression on the x86-64 SHA extensions. The Swift SHA256 keeps the
// padding, the length and the pending partial block; this file only turns whole 64-byte blocks
// into new working words, and only when registerd_sha256_hardware() says the CPU can.
//
// The instructions (Intel SDM, "SHA Extensions"):
//   sha256rnds2 (_mm_sha256rnds2_epu32)  two rounds: takes the working variables split into
//                                        ABEF and CDGH registers, and W[t]+K[t] for the two
//                                        rounds in the low two lanes of a third register;
//                                        returns the new ABEF (the old ABEF is the new CDGH)
//   sha256msg1  (_mm_sha256msg1_epu32)   the σ0 half of the message schedule: W[t-16]+σ0(W[t-15])
//                                        for four t
//   sha256msg2  (_mm_sha256msg2_epu32)   the σ1 half: adds σ1(W[t-2]), where for the upper two
//                                        lanes W[t-2] is one of the words it is computing
// plus SSSE3's pshufb (the big-endian message words) and palignr (W[t-7]), and SSE4.1's pblendw
// (the state shuffle). Lane numbers below count 32-bit lanes from the least significant one.
#include "CSHA256.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

int registerd_sha256_hardware(void) {
  unsigned int eax = 0;
  unsigned int ebx = 0;
  unsigned int ecx = 0;
  unsigned int edx = 0;
  // Leaf 1: ECX bit 9 is SSSE3, bit 19 is SSE4.1.
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  if (!(ecx & (1u << 9)) || !(ecx & (1u << 19))) return 0;
  // Leaf 7 subleaf 0, if the CPU has leaf 7 at all: EBX bit 29 is the SHA extensions.
  if (__get_cpuid_max(0, NULL) < 7) return 0;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  return (ebx >> 29) & 1u;
}

// Every function that uses the instructions is compiled for them, so the target needs no
// global -m flags and the rest of the program runs on any x86-64.
#define SHA_TARGET __attribute__((target("sha,sse4.1,ssse3")))

// The 64 round constants K[0…63] (FIPS 180-4 4.2.2), four to a 16-byte load.
_Alignas(16) static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// Four message words W[4g…4g+3] of the block at `bytes` (big-endian in memory): one unaligned
// load, then pshufb reverses the bytes within each 32-bit lane, so lane i holds W[4g+i].
SHA_TARGET static inline __m128i load_words(const uint8_t *bytes) {
  const __m128i byte_swap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
  return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)bytes), byte_swap);
}

// Rounds 4g…4g+3 with message words `words` (lane i holds W[4g+i]). On entry and on exit
// *abef holds A, B, E, F (in lanes 3, 2, 1, 0) and *cdgh holds C, D, G, H.
SHA_TARGET static inline void four_rounds(__m128i *abef, __m128i *cdgh, __m128i words, int g) {
  const __m128i constants = _mm_load_si128((const __m128i *)&round_constants[4 * g]);
  __m128i schedule = _mm_add_epi32(words, constants);
  // Rounds 4g and 4g+1 use lanes 0 and 1. The result is the new ABEF; what was ABEF is now
  // the CDGH (two rounds move A, B to C, D and E, F to G, H), so the registers swap roles...
  *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, schedule);
  // ...and rounds 4g+2 and 4g+3 take lanes 2 and 3, moved down to 0 and 1, swapping them back.
  schedule = _mm_shuffle_epi32(schedule, 0x0E);
  *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, schedule);
}

// W[t…t+3] from the sixteen words before them: w16 holds W[t-16…t-13], w12 W[t-12…t-9],
// w8 W[t-8…t-5], w4 W[t-4…t-1]. FIPS 180-4 6.2.2 step 1:
//   W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]
SHA_TARGET static inline __m128i next_words(__m128i w16, __m128i w12, __m128i w8, __m128i w4) {
  // W[t-16] + σ0(W[t-15]), for the four t.
  __m128i sum = _mm_sha256msg1_epu32(w16, w12);
  // + W[t-7]: W[t-7…t-4] straddles two registers, lanes 1-3 of w8 and lane 0 of w4.
  sum = _mm_add_epi32(sum, _mm_alignr_epi8(w4, w8, 4));
  // + σ1(W[t-2]): W[t-2] and W[t-1] are in w4's lanes 2 and 3; W[t] and W[t+1], which
  // W[t+2] and W[t+3] need, are computed inside the instruction.
  return _mm_sha256msg2_epu32(sum, w4);
}

SHA_TARGET void registerd_sha256_blocks(uint32_t state[8], const void *data, size_t blocks) {
  // H0…H7 in memory are A B C D E F G H; in lanes (3 2 1 0) the two loads read D C B A and
  // H G F E. sha256rnds2 wants A B E F and C D G H.
  __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
  __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);  // swap lanes within each pair
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);  // reverse the four lanes
  // The high half of efgh (E F) becomes the low half, cdab's low half (A B) the high half.
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  // Lanes 0-1 (G H) from efgh, lanes 2-3 (C D) from cdab.
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

  const uint8_t *block = (const uint8_t *)data;
  for (size_t index = 0; index < blocks; index++, block += 64) {
    const __m128i abef_before = abef;
    const __m128i cdgh_before = cdgh;

    // Rounds 0-15 take the block's own sixteen words, four per register.
    __m128i w0 = load_words(block);
    __m128i w1 = load_words(block + 16);
    __m128i w2 = load_words(block + 32);
    __m128i w3 = load_words(block + 48);
    four_rounds(&abef, &cdgh, w0, 0);
    four_rounds(&abef, &cdgh, w1, 1);
    four_rounds(&abef, &cdgh, w2, 2);
    four_rounds(&abef, &cdgh, w3, 3);

    // Rounds 16-63: each new group of four words replaces the oldest, which it no longer
    // needs, so the four registers roll over the schedule (the loop runs three times; the
    // compiler unrolls it).
    for (int g = 4; g < 16; g += 4) {
      w0 = next_words(w0, w1, w2, w3);
      four_rounds(&abef, &cdgh, w0, g);
      w1 = next_words(w1, w2, w3, w0);
      four_rounds(&abef, &cdgh, w1, g + 1);
      w2 = next_words(w2, w3, w0, w1);
      four_rounds(&abef, &cdgh, w2, g + 2);
      w3 = next_words(w3, w0, w1, w2);
      four_rounds(&abef, &cdgh, w3, g + 3);
    }

    // H(i) = H(i-1) + the working variables, lane by lane, modulo 2^32.
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }

  // Back to A B C D / E F G H: the same shuffles in reverse.
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);  // lanes (3 2 1 0): F E B A
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);  // D C H G
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);      // D C B A
  hgfe = _mm_alignr_epi8(dchg, feba, 8);         // H G F E
  _mm_storeu_si128((__m128i *)&state[0], dcba);
  _mm_storeu_si128((__m128i *)&state[4], hgfe);
}

#else

int registerd_sha256_hardware(void) { return 0; }

// Never called: registerd_sha256_hardware() is 0 on this architecture, and the Swift side
// then compresses in Swift. A call anyway is a bug, and stops here rather than hash wrongly.
void registerd_sha256_blocks(uint32_t state[8], const void *data, size_t blocks) {
  (void)state;
  (void)data;
  (void)blocks;
  __builtin_trap();
}

#endif
