/// `Timestamp`'s ISO-8601 form read from and written to UTF-8 bytes, for the item codec: the same
/// text as `iso8601` / `init?(iso8601:)` without building a `String` or calling `gmtime`/`timegm`
/// (three timestamps per item, on every decrypt).
extension Timestamp {
    /// The first and last instants whose year has four digits (0000 and 9999).
    private static let fourDigitYears: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// Whether `iso8601` gives text `init?(iso8601:)` reads back: an item holding any other time
    /// could be sealed but never opened again.
    var isStorable: Bool { Timestamp.fourDigitYears.contains(milliseconds) }

    /// Appends `iso8601`'s bytes.
    func appendISO8601(to output: inout [UInt8]) {
        guard Timestamp.fourDigitYears.contains(milliseconds) else {
            // Outside years 0000–9999 keep the old text exactly, however odd.
            output.append(contentsOf: iso8601.utf8)
            return
        }
        let millis = milliseconds.floorMod(1000)
        let seconds = (milliseconds - millis) / 1000
        let secondOfDay = seconds.floorMod(86_400)
        let (year, month, day) = CivilDate.from(days: (seconds - secondOfDay) / 86_400)
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                output.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        output.append(UInt8(ascii: "-"))
        digits(month, 2)
        output.append(UInt8(ascii: "-"))
        digits(day, 2)
        output.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        output.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        output.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        output.append(UInt8(ascii: "."))
        digits(millis, 3)
        output.append(UInt8(ascii: "Z"))
    }

    /// Parses what `init?(iso8601:)` parses, with the same result, from UTF-8 bytes.
    init?(iso8601Bytes bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 20, bytes[bytes.count - 1] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61,
              day <= CivilDate.daysIn(month: month, year: year)
        else { return nil }
        var millis: Int64 = 0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count >= 22, bytes.count <= 30,
                  var fraction = number(20..<(bytes.count - 1)) else { return nil }
            // Milliseconds: truncate extra digits, pad missing ones.
            var digits = bytes.count - 21
            while digits > 3 { fraction /= 10; digits -= 1 }
            while digits < 3 { fraction *= 10; digits += 1 }
            millis = fraction
        } else if bytes.count != 20 {
            return nil
        }
        // A leap second (:60) rolls into the next minute, as timegm does.
        let seconds = CivilDate.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        // See init?(iso8601:): year 10000 would print with five digits and not parse back.
        guard seconds <= 253_402_300_799 else { return nil }
        self.init(milliseconds: seconds * 1000 + millis)
    }
}

/// Proleptic Gregorian calendar arithmetic on day counts since 1970-01-01 (valid for any year
/// this codec meets), after the well-known era/day-of-era decomposition (400-year eras).
enum CivilDate {
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a date; `month` 1...12.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year     // years start in March: leap day last
        let era = shiftedYear.floorDiv(400)
        let yearOfEra = shiftedYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01.
    static func from(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468                      // days since 0000-03-01
        let era = shifted.floorDiv(146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return self % divisor < 0 ? quotient - 1 : quotient
    }

    fileprivate func floorMod(_ divisor: Int64) -> Int64 {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
