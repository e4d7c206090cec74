import CommandLineKit
import Testing

/// Mistakes are usage errors that say what is wrong, point at the right help, and never echo a value.
@Suite struct UsageErrorTests {
    @Test(arguments: [
        (["copy", "--bogus", "S"], "unknown option --bogus. See `tool copy --help`."),
        (["copy", "S", "--count"], "--count needs a value (--count N). See `tool copy --help`."),
        (["copy", "S", "--name", "a", "--name", "b"], "--name is given more than once. See `tool copy --help`."),
        (["copy", "S", "--verbose=yes"], "--verbose takes no value. See `tool copy --help`."),
        (["copy", "S", "--count", "11"], "--count takes a number from 1 to 10. See `tool copy --help`."),
        (["copy", "S", "--count", "x"], "--count takes a number from 1 to 10. See `tool copy --help`."),
        (["copy", "S", "--name", ""], "--name needs a non-empty value. See `tool copy --help`."),
        (["copy"], "copy takes SOURCE [DEST]. See `tool copy --help`."),
        (["copy", "a", "b", "c"], "copy takes SOURCE [DEST]. See `tool copy --help`."),
        (["remote", "add"], "-w SECRET is required. See `tool remote add --help`."),
        (["remote", "add", "-w", "x", "stray"],
         "add takes no arguments besides options; a value must follow its option. See `tool remote add --help`."),
        (["remote", "--store", "a", "add", "-w", "x", "--store", "b"],
         "--store is given more than once. See `tool remote add --help`."),
        (["remote", "-w", "x", "add"], "unknown option -w. See `tool remote --help`."),
        (["remote", "--store", "", "add", "-w", "x"], "--store needs a non-empty value. See `tool remote add --help`."),
        (["remote", "nope"], "unknown remote verb 'nope'. See `tool remote --help`."),
        (["nope"], "unknown command 'nope'. See `tool --help`."),
        (["copy", "-t"], "-t needs a value (-t TAG). See `tool copy --help`."),
    ])
    func mistakes(arguments: [String], message: String) {
        #expect(Parse.error(arguments)?.message == message)
    }

    @Test func aSecretShapedWordIsNeverEchoed() {
        let command = Parse.error(["Tr0ub4dor&3"])
        #expect(command?.message == "unknown command (not shown). See `tool --help`.")
        let option = Parse.error(["copy", "S", "--pass=Tr0ub4dor&3"])
        #expect(option?.problem == "unknown option --pass")
        let shaped = Parse.error(["copy", "S", "-Tr0ub4dor&3"])
        #expect(shaped?.problem == "unknown option -T (followed by text not shown)")
        let glued = Parse.error(["remote", "-wTr0ub4dor&3", "add"])
        #expect(glued?.problem == "unknown option -w (followed by text not shown)")
        #expect(Parse.error(["copy", "S", "-&x"])?.problem == "unknown option (not shown)")
    }

    @Test func aTypedValueIsNotEchoedWhenItFailsToConvert() {
        let error = Parse.error(["copy", "S", "--count", "hunter2"])
        #expect(error != nil)
        #expect(error?.message.contains("hunter2") == false)
    }
}
