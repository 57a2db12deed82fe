import CofferCore
import Foundation

/// What `coffer` with no command prints until the screen is wired in: status and the commands.
enum OverviewCommand {
    static func printOverview(global: GlobalOptions) async throws {
        let path = global.vaultPath
        if let vault = try? Vault.open(at: path), let status = try? vault.database.status() {
            print(StatusCommand.describe(status, path: path))
        } else {
            print("No vault at \(path). Create one with `coffer init`.")
        }
        print("")
        print(Coffer.helpMessage())
    }
}
