import Foundation
import ProcessIdentity
import Testing

/// Owner ids of refresh claims, and telling when their process has died (found by the torture bench:
/// a process killed mid-refresh held the others back for the whole lease).
@Suite struct LocalProcessIdentityTests {
    @Test func thisProcessIsNotGone() {
        let owner = LocalProcessIdentity.ownerID()
        #expect(owner.hasPrefix("pid\(getpid())@"))
        #expect(!LocalProcessIdentity.isGone(owner))
        #expect(LocalProcessIdentity.ownerID() != owner)
    }

    @Test func aProcessThatExitedIsGone() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "exit 0"]
        try child.run()
        child.waitUntilExit()
        let own = LocalProcessIdentity.ownerID()
        let theirs = own.replacingOccurrences(of: "pid\(getpid())@", with: "pid\(child.processIdentifier)@")
        #expect(LocalProcessIdentity.isGone(theirs))
    }

    @Test(arguments: ["", "pid", "pidx@a/b/c", "pid0@a/b/c", "p1@x", "someone else"])
    func malformedOwnersAreNeverGone(owner: String) {
        #expect(!LocalProcessIdentity.isGone(owner))
    }

    @Test func anOwnerFromAnotherBootOrNamespaceIsNotKnownToBeGone() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "exit 0"]
        try child.run()
        child.waitUntilExit()
        let parts = LocalProcessIdentity.ownerID().split(separator: "/", omittingEmptySubsequences: false)
        let pidAndBoot = parts[0].split(separator: "@")
        let dead = "pid\(child.processIdentifier)@"
        #expect(!LocalProcessIdentity.isGone(dead + "another-boot/\(parts[1])/\(parts[2])"))
        #expect(!LocalProcessIdentity.isGone(dead + "\(pidAndBoot[1])/999/\(parts[2])"))
    }
}
