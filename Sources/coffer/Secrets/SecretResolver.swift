import CofferCore
import Foundation

/// Turns `coffer://NAME/FIELD` references into values through an `ItemVault` (the agent, or the
/// vault unlocked here), each item looked up once by the command line's own name rules.
struct SecretResolver {
    let vault: any ItemVault
    private var items: [String: Item] = [:]

    init(vault: any ItemVault) {
        self.vault = vault
    }

    /// The value `reference` names, or a `ReferenceFailure` naming `source` (a variable, a line)
    /// with the exit code the underlying error has (4 no such item, 6 ambiguous, 2 no such field).
    mutating func value(of reference: SecretReference, for source: String) async throws -> String {
        do {
            guard let selector = FieldSelector(name: reference.field) else {
                throw UsageError("there is no field “\(TerminalText.line(reference.field))”")
            }
            let item: Item
            if let known = items[reference.name] {
                item = known
            } else {
                item = try await vault.item(named: reference.name)
                items[reference.name] = item
            }
            return try await FieldOption.value(selector, of: item, in: vault)
        } catch {
            throw ReferenceFailure(source: source, underlying: error)
        }
    }

    /// Every reference's value, resolved in order; the first failure stops them all.
    mutating func values(of references: [(reference: SecretReference, source: String)]) async throws -> [SecretReference: String] {
        var values: [SecretReference: String] = [:]
        for (reference, source) in references where values[reference] == nil {
            values[reference] = try await value(of: reference, for: source)
        }
        return values
    }
}

/// A reference that could not be resolved, said with where it was written; its exit code is the
/// underlying error's (`ExitStatus.code(for:)`).
struct ReferenceFailure: Error, CustomStringConvertible {
    var source: String
    var underlying: any Error

    var description: String { "\(source): \(underlying)" }
}
