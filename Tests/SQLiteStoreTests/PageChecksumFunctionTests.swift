import CCRC32C
import Testing

/// The page checksum's C code: CRC-32C's known answer, and the CPU's instruction giving the same value
/// as the table on every page shape the VFS uses.
@Suite struct PageChecksumFunctionTests {
    @Test func crc32cGivesItsKnownAnswer() {
        let check = Array("123456789".utf8)
        #expect(hardtack_crc32c(0, check, check.count) == 0xE306_9283)
    }

    @Test(arguments: [512, 1024, 4096, 65536])
    func theInstructionAndTheTableAgree(pageSize: Int) {
        var generator = SystemRandomNumberGenerator()
        for pageNumber in [1, 2, 3, 1000, UInt32.max] as [UInt32] {
            let page = (0..<pageSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for size in [pageSize - 8, pageSize - 3, pageSize] {
                #expect(
                    hardtack_page_checksum(page, size, pageNumber)
                        == hardtack_page_checksum_portable(page, size, pageNumber))
            }
        }
    }

    @Test func aPageElsewhereOrWithOneBitFlippedDoesNotMatch() {
        var page = [UInt8](repeating: 0, count: 4088)
        let sum = hardtack_page_checksum(page, page.count, 7)
        #expect(hardtack_page_checksum(page, page.count, 8) != sum)
        for bit in stride(from: 0, to: page.count * 8, by: 97) {
            page[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(hardtack_page_checksum(page, page.count, 7) != sum)
            page[bit / 8] ^= 1 << UInt8(bit % 8)
        }
    }
}
