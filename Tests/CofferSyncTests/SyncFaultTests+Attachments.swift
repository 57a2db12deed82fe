import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

// The fault matrix's file steps (issue 30): a chunk going up, the chunks' listing, a chunk coming
// down, each with one fault on B's request; then both devices hold both files, byte for byte.
extension SyncFaultTests {
    /// What B must report when `kind` hits a file request.
    static func expectedAttachmentError(_ kind: FaultProxy.Mode, at step: FaultStep) -> SyncErrorName? {
        switch kind {
        case .status401: return .syncAuth
        // Success with a Backoff header, and a body without sub-responses: nothing to report.
        case .backoffHeader, .batch409: return nil
        // A listing answered 404 is an empty collection (the client's rule); the files stay owed
        // and are listed at the next sync.
        case .status404 where step == .attachmentsList: return nil
        // A chunk's PUT is answered with the record's timestamp in its ETag, which is all the
        // upload reads: a garbled echo of the record costs nothing, and the chunk is there.
        case .garbledJSON where step == .attachmentUpload: return nil
        default: return .network
        }
    }

    /// A has a file of two chunks on the server; B adds one of its own (the upload step) or syncs
    /// to receive A's (the listing and download steps) through the fault.
    func runAttachmentScenario(_ kind: FaultProxy.Mode, at step: FaultStep, seed: Int) async throws {
        let scenario = "\(kind.rawValue) at the \(step.rawValue), seed \(seed)"
        let clock = TestClock()
        let a = try await Device.create("a", in: directory, server: server.url, credentials: credentials, clock: clock)
        await a.syncExpectingSuccess()
        let b = try await Device.join("b", in: directory, server: server.url, credentials: credentials, clock: clock)
        let proxy = try FaultProxy(upstream: server)
        self.proxy = proxy
        b.use(server: proxy.url, credentials: credentials, timeout: FaultMatrix.clientTimeout(for: kind))

        let onA = try await a.add("Files from A (\(scenario))")
        let fileA = Data((0..<(600_000 + seed)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ seed) })
        var fileB: (id: String, bytes: Data)?
        if step == .attachmentUpload {
            // B has A's file already: its sync's first chunk request is its own upload.
            await b.syncExpectingSuccess()
            let onB = try await b.add("Files from B (\(scenario))")
            let bytes = Data((0..<(300_000 + seed)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) })
            try await b.vault.attach(bytes, named: "b.bin", to: onB.id)
            fileB = (onB.id, bytes)
        }
        try await a.vault.attach(fileA, named: "a.bin", to: onA.id)
        await a.syncExpectingSuccess()

        let seconds = FaultMatrix.seconds(for: kind)
        let logBefore = try await proxy.log().count
        try await proxy.setFault(kind, count: 1, match: step.match(), seconds: seconds)
        let report = await b.sync()
        let expected = Self.expectedAttachmentError(kind, at: step)
        XCTAssertEqual(report.error, expected, "\(scenario): \(report.message ?? "no message")")
        if kind == .delay {
            try await Task.sleep(nanoseconds: UInt64((seconds + 0.5) * 1_000_000_000))
        }
        let faulted = try await proxy.log().dropFirst(logBefore).filter { $0.fault == kind.rawValue }
        XCTAssertEqual(faulted.count, 1, "\(scenario): the fault hit one request")
        if let hit = faulted.first {
            XCTAssertTrue(hit.path.contains(step.match()), "\(scenario): the fault hit \(hit.method) \(hit.path)")
        }
        try await proxy.setFault(.pass)
        b.use(server: proxy.url, credentials: credentials)
        if FaultMatrix.leavesDeadline(kind, at: step) { clock.advance(seconds + 1) }

        // No half file is ever visible: B has A's file whole or not at all.
        let itemsOnB = try await b.items()
        if let seen = itemsOnB[onA.id], let partial = try? await b.vault.attachmentData("a.bin", of: seen) {
            XCTAssertEqual(partial.1, fileA, "\(scenario): a file B shows is whole")
        }

        for _ in 0..<3 {
            let fromB = await b.sync()
            let fromA = await a.sync()
            XCTAssertNil(fromB.error, "\(scenario): B after recovery: \(fromB.message ?? "")")
            XCTAssertNil(fromA.error, "\(scenario): A after recovery: \(fromA.message ?? "")")
        }
        try await assertConverged([a, b])
        for device in [a, b] {
            let items = try await device.items()
            let holder = try XCTUnwrap(items[onA.id], "\(scenario): \(device.name) lacks A's item")
            let (_, bytes) = try await device.vault.attachmentData("a.bin", of: holder)
            XCTAssertEqual(bytes, fileA, "\(scenario): A's file on \(device.name)")
            if let fileB {
                let holderB = try XCTUnwrap(items[fileB.id], "\(scenario): \(device.name) lacks B's item")
                let (_, bytesB) = try await device.vault.attachmentData("b.bin", of: holderB)
                XCTAssertEqual(bytesB, fileB.bytes, "\(scenario): B's file on \(device.name)")
            }
            XCTAssertEqual(try device.status().allPendingChanges, 0, "\(scenario): \(device.name)")
        }
    }
}
