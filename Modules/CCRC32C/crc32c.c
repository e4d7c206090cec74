// CRC-32C for the page-checksum VFS. The checksum is linear: a lane misses an error only when the
// error is a multiple of the polynomial, so each lane detects every error of up to 3 bits and every
// burst of up to 32 bits within it, and the two lanes together miss a random error with probability
// 2^-64 (the 64-bit SipHash they replace also missed one with 2^-64, with no guarantee for small ones).

#include "hardtack_crc32c.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>
#endif

static uint32_t table[256];

static void make_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[n] = c;
    }
}

static uint32_t table_byte(uint32_t crc, uint8_t byte) {
    return table[(crc ^ byte) & 0xff] ^ (crc >> 8);
}

static uint32_t table_word(uint32_t crc, uint64_t word) {
    for (int k = 0; k < 8; k++) crc = table_byte(crc, (uint8_t)(word >> (8 * k)));
    return crc;
}

static uint64_t load_le64(const uint8_t *p) {
    uint64_t word;
    memcpy(&word, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    word = __builtin_bswap64(word);
#endif
    return word;
}

static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void ensure_table(void) { pthread_once(&table_once, make_table); }

uint64_t hardtack_page_checksum_portable(const void *page, size_t size, uint32_t page_number) {
    ensure_table();
    const uint8_t *p = page;
    uint32_t low = ~page_number, high = ~page_number;
    size_t words = size / 8;
    for (size_t i = 0; i + 1 < words; i += 2) {
        low = table_word(low, load_le64(p + 8 * i));
        high = table_word(high, load_le64(p + 8 * i + 8));
    }
    if (words % 2) low = table_word(low, load_le64(p + 8 * (words - 1)));
    for (size_t i = words * 8; i < size; i++) low = table_byte(low, p[i]);
    return ((uint64_t)~high << 32) | (uint64_t)~low;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint64_t hardware_page_checksum(
    const uint8_t *p, size_t size, uint32_t page_number) {
    uint64_t low = (uint32_t)~page_number, high = (uint32_t)~page_number;
    size_t words = size / 8;
    for (size_t i = 0; i + 1 < words; i += 2) {
        low = _mm_crc32_u64(low, load_le64(p + 8 * i));
        high = _mm_crc32_u64(high, load_le64(p + 8 * i + 8));
    }
    if (words % 2) low = _mm_crc32_u64(low, load_le64(p + 8 * (words - 1)));
    uint32_t low32 = (uint32_t)low;
    for (size_t i = words * 8; i < size; i++) low32 = _mm_crc32_u8(low32, p[i]);
    return ((uint64_t)~(uint32_t)high << 32) | (uint64_t)~low32;
}

static int has_hardware(void) {
    static int answer = -1;
    int known = __atomic_load_n(&answer, __ATOMIC_RELAXED);
    if (known < 0) {
        unsigned int eax, ebx, ecx = 0, edx;
        known = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSE4_2) ? 1 : 0;
        __atomic_store_n(&answer, known, __ATOMIC_RELAXED);
    }
    return known;
}
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
static uint64_t hardware_page_checksum(const uint8_t *p, size_t size, uint32_t page_number) {
    uint32_t low = ~page_number, high = ~page_number;
    size_t words = size / 8;
    for (size_t i = 0; i + 1 < words; i += 2) {
        low = __crc32cd(low, load_le64(p + 8 * i));
        high = __crc32cd(high, load_le64(p + 8 * i + 8));
    }
    if (words % 2) low = __crc32cd(low, load_le64(p + 8 * (words - 1)));
    for (size_t i = words * 8; i < size; i++) low = __crc32cb(low, p[i]);
    return ((uint64_t)~high << 32) | (uint64_t)~low;
}

static int has_hardware(void) { return 1; }
#endif

uint64_t hardtack_page_checksum(const void *page, size_t size, uint32_t page_number) {
#if defined(__x86_64__) || (defined(__aarch64__) && defined(__ARM_FEATURE_CRC32))
    if (has_hardware()) return hardware_page_checksum(page, size, page_number);
#endif
    return hardtack_page_checksum_portable(page, size, page_number);
}

uint32_t hardtack_crc32c(uint32_t crc, const void *bytes, size_t size) {
    ensure_table();
    const uint8_t *p = bytes;
    crc = ~crc;
    for (size_t i = 0; i < size; i++) crc = table_byte(crc, p[i]);
    return ~crc;
}
