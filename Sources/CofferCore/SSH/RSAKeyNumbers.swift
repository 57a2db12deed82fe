import Foundation

/// The numbers of an RSA private key that OpenSSH stores (n, e, d, iqmp, p, q), read from the
/// PKCS #1 DER swift-crypto writes for a key it generated: a SEQUENCE of INTEGERs (version, n, e,
/// d, p, q, d mod p−1, d mod q−1, q⁻¹ mod p).
struct RSAKeyNumbers: Sendable {
    var n: Data
    var e: Data
    var d: Data
    var iqmp: Data
    var p: Data
    var q: Data

    init(n: Data, e: Data, d: Data, iqmp: Data, p: Data, q: Data) {
        (self.n, self.e, self.d, self.iqmp, self.p, self.q) = (n, e, d, iqmp, p, q)
    }

    init(pkcs1 der: Data) throws(SSHKeyError) {
        var outer = DERReader(der)
        var sequence = DERReader(try outer.element(tag: 0x30))
        try outer.expectEnd()
        var integers: [Data] = []
        while !sequence.isAtEnd { integers.append(try sequence.element(tag: 0x02)) }
        guard integers.count == 9 else { throw .malformed("an RSA key has \(integers.count) numbers, not 9") }
        let unsigned = integers.map { Data($0.drop { $0 == 0 }) }
        self.init(n: unsigned[1], e: unsigned[2], d: unsigned[3], iqmp: unsigned[8], p: unsigned[4], q: unsigned[5])
    }
}

/// Just enough DER to read the one structure above: definite lengths, no more.
private struct DERReader {
    private let data: Data
    private var offset: Int

    init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    var isAtEnd: Bool { offset == data.endIndex }

    func expectEnd() throws(SSHKeyError) {
        guard isAtEnd else { throw .malformed("bytes follow an RSA key") }
    }

    mutating func element(tag: UInt8) throws(SSHKeyError) -> Data {
        guard try next() == tag else { throw .malformed("an RSA key is not the DER it should be") }
        var length = Int(try next())
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count) else { throw .malformed("an RSA key has a bad DER length") }
            length = 0
            for _ in 0..<count { length = length << 8 | Int(try next()) }
        }
        guard length <= data.endIndex - offset else { throw .malformed("an RSA key's DER runs past its end") }
        defer { offset += length }
        return data.subdata(in: offset..<offset + length)
    }

    private mutating func next() throws(SSHKeyError) -> UInt8 {
        guard offset < data.endIndex else { throw .malformed("an RSA key's DER ends early") }
        defer { offset += 1 }
        return data[offset]
    }
}
