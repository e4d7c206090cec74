import BenchSupport
import Foundation

/// Runs generated inputs `0..<count` on `threads` threads at a time, input `index` made from a generator of its
/// own seeded by `seed` and `index` (``generator(seed:index:)``), so that any one input can be made again alone.
/// Returns when every input has run.
func runSeededInputs(
    count: Int, threads: Int, seed: UInt64, _ body: @escaping @Sendable (Int, inout SeededGenerator) -> Void
) {
    let next = Counter()
    let done = DispatchGroup()
    for _ in 0..<threads {
        done.enter()
        Thread {
            while true {
                let index = next.next() - 1
                guard index < count else { break }
                var random = SeededGenerator.generator(seed: seed, index: index)
                body(index, &random)
            }
            done.leave()
        }.start()
    }
    done.wait()
}

extension SeededGenerator {
    /// Input `index`'s own generator under `seed`.
    static func generator(seed: UInt64, index: Int) -> SeededGenerator {
        SeededGenerator(seed: seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
    }
}
