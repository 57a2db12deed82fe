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
        let now = try await vault.now()
        let code = totp.code(at: now)
        let secondsLeft = totp.secondsLeft(at: now)
        if output.json {
            Output.line(try ItemExchange.text(["code": code, "secondsLeft": secondsLeft, "period": totp.period] as [String: Any]))
        } else {
            Output.line("\(code)  (\(secondsLeft) s left)")
        }
    }
}
