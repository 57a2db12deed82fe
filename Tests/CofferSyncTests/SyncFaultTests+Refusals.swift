import CofferCore
@testable import CofferSync
import CofferTestSupport
import Foundation
import XCTest

// The fault matrix's refusal steps (issue 41): the server put garbage over an item or the
// keystore; B took it while locked, then syncs unlocked, refuses it, and its copy goes up over the
// garbage in a batch that meets the fault. Whatever the fault, nothing B could read is lost, and
// once the fault is gone the syncs put B's copy back on the server and both devices converge.
// `COFFER_FAULT_STEPS=refusals` (and `all`, `make reliability`); not in `make test`'s default set.
extension SyncFaultTests {
    func runRefusalScenario(_ kind: FaultProxy.Mode, at step: FaultStep, seed: Int, a: Device, b: Device,
                            proxy: FaultProxy) async throws {
        let scenario = "\(kind.rawValue) at the \(step.rawValue), seed \(seed)"
        let seconds = FaultMatrix.seconds(for: kind), clientTimeout = FaultMatrix.clientTimeout(for: kind)
        var passwords: [String: String] = [:]
        let target = try await a.add("Target (\(scenario))", password: "target")
        passwords[target.id] = "target"
        for index in 0..<(seed % 3) { passwords[try await a.add("More \(index) (\(scenario))", password: "p\(index)").id] = "p\(index)" }
        await a.syncExpectingSuccess()
        await b.syncExpectingSuccess()

        // The server's garbage, with a revision ahead of every real one.
        let raw = RawAccount(server: server, credentials: credentials)
        let (collection, id) = step == .itemsRefusal ? ("items", target.id) : ("keystores", CollectionName.keystoreID)
        var garbage = try await raw.record(collection, id)
        garbage["encrypted"] = SyncMaliciousKeystoreTests.envelopeOfRandomBytes(revisionAhead: 5_000)
        try await raw.put(collection, id, garbage)
        await b.lock()
        let locked = await b.sync()
        XCTAssertNil(locked.error, "\(scenario): a locked sync keeps the garbage beside ours: \(locked.message ?? "")")
        try await b.unlock()

        if clientTimeout != 5 { b.use(server: proxy.url, credentials: credentials, timeout: clientTimeout) }
        let logBefore = try await proxy.log().count
        try await proxy.setFault(kind, count: 1, match: step.match(), seconds: seconds)
        let report = await b.sync()
        XCTAssertEqual(report.refused, 1, "\(scenario): \(report.message ?? "")")
        XCTAssertEqual(report.error, Self.expectedError(kind, at: step) ?? .forged, "\(scenario): \(report.message ?? "")")
        if kind == .delay {
            try await Task.sleep(nanoseconds: UInt64((seconds + 0.5) * 1_000_000_000))
            b.use(server: proxy.url, credentials: credentials)
        }
        let faulted = try await proxy.log().dropFirst(logBefore).filter { $0.fault == kind.rawValue }
        XCTAssertEqual(faulted.count, 1, "\(scenario): the fault hit one request")
        if let hit = faulted.first {
            XCTAssertTrue(hit.path.contains(step.match()), "\(scenario): the fault hit \(hit.method) \(hit.path)")
        }
        try await proxy.setFault(.pass)
        // Nothing B could read is lost, whatever became of the batch.
        let onB = try await b.items()
        for (id, password) in passwords { XCTAssertEqual(onB[id]?.entry.password, password, scenario) }
        if FaultMatrix.leavesDeadline(kind, at: step) { b.clock.advance(seconds + 1) }

        var last: (SyncReport, SyncReport)?
        for _ in 0..<3 {
            let fromB = await b.sync()
            let fromA = await a.sync()
            last = (fromB, fromA)
        }
        if let (lastB, lastA) = last {
            XCTAssertNil(lastB.error, "\(scenario): B after recovery: \(lastB.message ?? "")")
            XCTAssertNil(lastA.error, "\(scenario): A after recovery: \(lastA.message ?? "")")
        }
        let onServer = try await raw.record(collection, id)
        XCTAssertNotEqual(onServer["encrypted"] as? String, garbage["encrypted"] as? String, "\(scenario): ours went back")
        for device in [a, b] {
            await device.lock()
            try await device.unlock()
            let items = try await device.items()
            for (id, password) in passwords { XCTAssertEqual(items[id]?.entry.password, password, "\(scenario), \(device.name)") }
            XCTAssertEqual(try device.status().allPendingChanges, 0, "\(scenario), \(device.name)")
        }
        try await assertConverged([a, b])
    }
}
