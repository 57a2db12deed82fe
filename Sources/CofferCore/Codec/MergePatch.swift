/// JSON Merge Patch (RFC 7386): how history entries record what an edit changed.
public enum MergePatch {
    /// Applies `patch` to `target` as RFC 7386 §2 defines.
    public static func apply(_ patch: JSONValue, to target: JSONValue) -> JSONValue {
        guard case .object(let patchMembers) = patch else { return patch }
        var result = target.objectValue ?? [:]
        for (name, value) in patchMembers {
            if value == .null {
                result.removeValue(forKey: name)
            } else {
                result[name] = apply(value, to: result[name] ?? .null)
            }
        }
        return .object(result)
    }

    /// The smallest patch that turns `source` into `target`: `apply(diff(a, b), to: a) == b`.
    ///
    /// Merge patches cannot express a `null` member value or a change inside an array; such
    /// values are replaced whole, which round-trips for every document without `null` members.
    public static func diff(from source: JSONValue, to target: JSONValue) -> JSONValue {
        guard case .object(let sourceMembers) = source, case .object(let targetMembers) = target else {
            return target
        }
        var patch: [String: JSONValue] = [:]
        for (name, sourceValue) in sourceMembers where targetMembers[name] == nil {
            _ = sourceValue
            patch[name] = .null
        }
        for (name, targetValue) in targetMembers {
            guard let sourceValue = sourceMembers[name] else {
                patch[name] = targetValue
                continue
            }
            if sourceValue == targetValue { continue }
            if case .object = sourceValue, case .object = targetValue {
                patch[name] = diff(from: sourceValue, to: targetValue)
            } else {
                patch[name] = targetValue
            }
        }
        return .object(patch)
    }
}
