import ArgumentParser
import CofferCore
import Foundation

struct TotpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "totp", abstract: "Print an item's current TOTP code and how many seconds it stays valid.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: ItemNameArgument
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let vault = try await global.itemVault()
        let item = try await target.item(in: vault)
        guard let totp = try item.totpGenerator() else { throw CommandFailure("“\(item.title)” has no TOTP secret.") }
        let (now, warning) = try await vault.totpTime()
        let code = totp.code(at: now)
        let secondsLeft = totp.secondsLeft(at: now)
        if let warning { Terminal.write("Warning: \(warning).\n") }
        if output.json {
            var object: [String: Any] = ["code": code, "secondsLeft": secondsLeft, "period": totp.period]
            if let warning { object["clockWarning"] = warning }
            Output.line(try ItemExchange.text(object))
        } else {
            Output.line("\(code)  (\(secondsLeft) s left)")
        }
    }
}
