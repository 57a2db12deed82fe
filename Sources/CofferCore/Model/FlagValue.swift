import Foundation

/// A yes-or-no field of a kind (`KindField.Format.flag`: an SSH key's "Confirm each use"), stored
/// as text in `entry.fields` like every kind field.
///
/// Its meaning once depended on a spelling: the screen took any text, and the agent confirmed only
/// for `yes`, `true` or `1`, so a user who typed `y` believed every signature was confirmed. Now the
/// screen shows a checkbox, the command line refuses any spelling but those below, and what is
/// stored is read failing safe: any text but an "off" spelling is on.
public enum FlagValue {
    /// What this version writes for on. An older version shows it as the field's text, and its
    /// agent confirms for it (it confirmed for `yes`, `true` and `1`).
    public static let on = "yes"
    /// Off is no value: the field is absent, as it was before anyone set it.
    public static let off = ""

    /// The spellings the command line takes for on, and for off (case-insensitive).
    public static let onSpellings = ["yes", "y", "true", "on", "1"]
    public static let offSpellings = ["no", "n", "false", "off", "0"]

    /// Whether a stored value means on: any spelling an older version wrote or a person typed for
    /// yes, and any other text but an off spelling (an older screen stored free text: a value
    /// that says neither is taken as the safer answer, which for "Confirm each use" is to ask).
    public static func isOn(_ stored: String?) -> Bool {
        let value = (stored ?? "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return !value.isEmpty && !offSpellings.contains(value)
    }

    /// The value to store for what was given on the command line (`on` or `off`); nil when it is
    /// none of the accepted spellings, which the caller refuses.
    public static func normalized(_ given: String) -> String? {
        let value = given.trimmingCharacters(in: .whitespaces).lowercased()
        if onSpellings.contains(value) { return on }
        if offSpellings.contains(value) || value.isEmpty { return off }
        return nil
    }
}
