/// The hexadecimal digits of π after "3.", as big-endian 32-bit words: Blowfish's initial P-array
/// and S-boxes are the first 1,042 of them. Computed (Machin's formula, π = 16·atan(1/5) −
/// 4·atan(1/239), in fixed point with 32-bit limbs) rather than written out: nothing to mistype.
enum PiWords {
    /// The first `count` words of π's fraction.
    static func fraction(count: Int) -> [UInt32] {
        // Limb 0 is the integer part; three more limbs absorb the rounding of the divisions.
        let limbs = count + 4
        var pi = arctangent(ofInverse: 5, limbs: limbs)
        multiply(&pi, by: 16)
        var second = arctangent(ofInverse: 239, limbs: limbs)
        multiply(&second, by: 4)
        subtract(second, from: &pi)
        return Array(pi[1...count])
    }

    /// atan(1/x) = 1/x − 1/(3x³) + 1/(5x⁵) − …, until the power underflows the precision.
    private static func arctangent(ofInverse x: UInt64, limbs: Int) -> [UInt32] {
        var power = [UInt32](repeating: 0, count: limbs)
        power[0] = 1
        var first = 0
        divide(&power, by: x, from: &first)
        var sum = power
        var term = power
        var k: UInt64 = 1
        while first < limbs {
            divide(&power, by: x * x, from: &first)
            quotient(of: power, by: 2 * k + 1, from: first, into: &term)
            if k % 2 == 1 { subtract(term, from: &sum) } else { add(term, to: &sum) }
            k += 1
        }
        return sum
    }

    /// `number /= divisor`; limbs before `first` are zero, and `first` moves past new zeros.
    private static func divide(_ number: inout [UInt32], by divisor: UInt64, from first: inout Int) {
        var remainder: UInt64 = 0
        for index in first..<number.count {
            let current = remainder << 32 | UInt64(number[index])
            number[index] = UInt32(current / divisor)
            remainder = current % divisor
        }
        while first < number.count && number[first] == 0 { first += 1 }
    }

    private static func quotient(of number: [UInt32], by divisor: UInt64, from first: Int, into result: inout [UInt32]) {
        var remainder: UInt64 = 0
        for index in 0..<first { result[index] = 0 }
        for index in first..<number.count {
            let current = remainder << 32 | UInt64(number[index])
            result[index] = UInt32(current / divisor)
            remainder = current % divisor
        }
    }

    private static func add(_ term: [UInt32], to sum: inout [UInt32]) {
        var carry: UInt64 = 0
        for index in stride(from: sum.count - 1, through: 0, by: -1) {
            let total = UInt64(sum[index]) + UInt64(term[index]) + carry
            sum[index] = UInt32(truncatingIfNeeded: total)
            carry = total >> 32
        }
    }

    private static func subtract(_ term: [UInt32], from sum: inout [UInt32]) {
        var borrow: Int64 = 0
        for index in stride(from: sum.count - 1, through: 0, by: -1) {
            var difference = Int64(sum[index]) - Int64(term[index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 1 << 32 }
            sum[index] = UInt32(difference)
        }
    }

    private static func multiply(_ number: inout [UInt32], by factor: UInt64) {
        var carry: UInt64 = 0
        for index in stride(from: number.count - 1, through: 0, by: -1) {
            let product = UInt64(number[index]) * factor + carry
            number[index] = UInt32(truncatingIfNeeded: product)
            carry = product >> 32
        }
    }
}
