@testable import CommandLineKit
import Testing

/// Arguments that are not valid UTF-8 are refused, never repaired.
@Suite struct ArgumentBytesTests {
    @Test func validUTF8PassesUnchanged() throws {
        let arguments = [Array("copy".utf8), Array("naïve ☃".utf8), []]
        #expect(try ArgumentBytes.strings(arguments).get() == ["copy", "naïve ☃", ""])
    }

    @Test(arguments: [
        [0xFF], [0xC3], [0x61, 0x80], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80],
    ] as [[UInt8]])
    func invalidSequencesAreRefused(bytes: [UInt8]) {
        let result = ArgumentBytes.strings([Array("copy".utf8), bytes])
        guard case .failure(let error) = result else {
            Issue.record("accepted \(bytes)")
            return
        }
        #expect(error.position == 2)
    }

    @Test func theProgramRefusesWithAUsageErrorThatDoesNotEchoTheArgument() async {
        let sink = OutputSink()
        let status = await Parse.program.run(
            argumentBytes: [Array("copy".utf8), [0x73, 0x65, 0x63, 0xFF]], environment: [:], output: sink.output)
        #expect(status == 2)
        #expect(sink.errors == ["argument 2 is not valid UTF-8; it is refused rather than changed. See `tool --help`."])
        #expect(sink.lines.isEmpty)
    }

    @Test func theProgramRunsValidBytes() async {
        let sink = OutputSink()
        let status = await Parse.program.run(argumentBytes: [Array("--version".utf8)], environment: [:], output: sink.output)
        #expect(status == 0)
        #expect(sink.lines == ["tool 1.2.3"])
    }
}
