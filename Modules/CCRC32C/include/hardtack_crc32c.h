#ifndef HARDTACK_CRC32C_H
#define HARDTACK_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// CRC-32C (Castagnoli, the polynomial of iSCSI and ext4) of `size` bytes, continuing from `crc`
/// (0 to start): the standard form, with the register inverted before and after.
uint32_t hardtack_crc32c(uint32_t crc, const void *bytes, size_t size);

/// The page checksum of the store's page-checksum VFS: two CRC-32C lanes over the page's 8-byte
/// words (even-numbered words in the low lane, odd-numbered in the high one, any bytes past the
/// last whole word in the low lane), each lane's register starting from `page_number` so that a
/// page written at another place does not match. Uses the CPU's CRC-32C instruction where there is
/// one (SSE 4.2, ARMv8 CRC) and a table otherwise; both give the same value.
uint64_t hardtack_page_checksum(const void *page, size_t size, uint32_t page_number);

/// The same checksum computed with the table only, for tests that compare the two ways.
uint64_t hardtack_page_checksum_portable(const void *page, size_t size, uint32_t page_number);

#endif
