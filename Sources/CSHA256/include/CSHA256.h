// SHA-256's compression function on the CPU's SHA extensions (x86-64 SHA-NI), for the engine's
// SHA256 (Sources/RegisterEngine/Journal/SHA256.swift). Computation only: no I/O, no memory
// allocation, no state of its own.
#ifndef REGISTERD_CSHA256_H
#define REGISTERD_CSHA256_H

#include <stddef.h>
#include <stdint.h>

// 1 when this CPU has the SHA extensions and the SSSE3 and SSE4.1 instructions the compression
// also uses, else 0 (always 0 on a build for another architecture than x86-64).
int registerd_sha256_hardware(void);

// Compresses `blocks` consecutive 64-byte blocks at `data` (any alignment) into `state`, the
// eight working words H0…H7 in the CPU's native order. Call it only when
// registerd_sha256_hardware() is 1.
void registerd_sha256_blocks(uint32_t state[8], const void *data, size_t blocks);

#endif
