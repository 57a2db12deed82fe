import ArgumentParser
import CofferCore
import Foundation

struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Report weak, reused, old and (with --breached) breached passwords.",
        discussion: """
            Weak: zxcvbn estimates fewer than \(PassphraseStrength.weakBelowBits) bits. Reused: the same password \
            in several items. Old: unchanged for over a year. Breached: listed in FILE, a local Pwned Passwords \
            SHA-1 file ordered by hash (HASH:COUNT lines), searched without reading it whole. \
            Findings are not errors: the exit code is 0 when the check ran.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(name: .customLong("breached"), help: ArgumentHelp("Check against this Pwned Passwords SHA-1 file.", valueName: "file"))
    var breachList: String?
    @OptionGroup var output: OutputOptions

    func run() async throws {
        // Opened first: a wrong path fails before the passphrase is asked for.
        let breaches = try breachList.map(BreachList.init(path:))
        let vault = try await global.itemVault()
        let listed = try await vault.items(.everything)
        let items = listed.compactMap(\.item)
        let report = try HealthReport.check(items, now: Timestamp(try await vault.now()), breaches: breaches)
        if output.json {
            Output.line(try ItemExchange.text(HealthOutput.json(report, breachesChecked: breaches != nil)))
        } else {
            for line in HealthOutput.text(report, breachList: breachList) { Output.line(line) }
        }
        let unread = listed.count - items.count
        if unread > 0 { Terminal.write("\(unread) item(s) could not be read and were not checked.\n") }
    }
}
