import CofferTestSupport

extension FaultProxy {
    /// The proxy in front of the sync tests' Kinto.
    convenience init(upstream: TestServer) throws {
        try self.init(upstream: upstream.url)
    }
}
