#if HARDTACK_FUZZ
    import Foundation

    /// libFuzzer's entry point: runs the target named by `HARDTACK_FUZZ_TARGET` on one input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func hardtackFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        FuzzTargets.run(input)
        return 0
    }
#else
    /// `hardtack-fuzz` built without libFuzzer does nothing: it exists so that a normal build compiles
    /// the harness's package layout. `Tools/torture --long` builds it with `--sanitize=fuzzer`.
    @main
    enum FuzzEntry {
        static func main() {
            print(
                "hardtack-fuzz: libFuzzer targets; build with --sanitize=fuzzer -Xswiftc -DHARDTACK_FUZZ (Tools/torture --long does)"
            )
        }
    }
#endif
