import Foundation

/// Whether an invitation's rendezvous account is still on a Kinto server, asked with curl:
/// URLSession waits forever on the 401 that answers the credentials of an account that is gone.
public enum RendezvousProbe {
    /// The HTTP status of listing the rendezvous with its credentials: 200 while it is there,
    /// 401 once it is gone; -1 when curl gives no status.
    public static func status(server: URL, user: String, password: String) throws -> Int {
        let url = server.appendingPathComponent("buckets/default/collections/rendezvous/records").absoluteString
        let (_, output) = try ToolProcess.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "10",
                                                                "-u", "\(user):\(password)", url])
        return Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The ids of the rendezvous records, sorted; empty once the account is gone (or when curl
    /// gets no listing), so that a test asking after a removal fails instead of waiting forever.
    public static func recordIDs(server: URL, user: String, password: String) throws -> [String] {
        let url = server.appendingPathComponent("buckets/default/collections/rendezvous/records").absoluteString
        let (_, output) = try ToolProcess.run("/usr/bin/curl", ["-s", "-m", "10", "-w", "\n%{http_code}",
                                                                "-u", "\(user):\(password)", url])
        guard let end = output.range(of: "\n", options: .backwards), output[end.upperBound...] == "200",
              let listing = try JSONSerialization.jsonObject(with: Data(output[..<end.lowerBound].utf8)) as? [String: Any],
              let records = listing["data"] as? [[String: Any]] else {
            return []
        }
        return records.compactMap { $0["id"] as? String }.sorted()
    }
}
