import CofferCore
import Foundation

/// The Devices page: one row per device of the account, ★ for this one.
extension Render {
    static func drawDevices(_ state: ScreenState, page: DevicesState, body: Body, into grid: inout Grid) {
        let header = Style(isBold: true, isUnderlined: true)
        grid.fill(y: body.top, style: header)
        let columns = [4, max(24, body.width / 2)]
        grid.write("Device", x: columns[0], y: body.top, style: header)
        grid.write("Last seen", x: columns[1], y: body.top, style: header)
        drawInvitation(page.invitation, state: state, body: body, into: &grid)
        guard let devices = page.devices else {
            grid.write("Listing the account's devices…", x: 2, y: body.top + 2, style: .dimmed)
            return
        }
        for (index, device) in devices.enumerated().prefix(max(0, body.bottom - body.top - 1)) {
            let y = body.top + 1 + index
            let isCursor = index == page.cursor
            let style = isCursor ? Style.reversed : .plain
            if isCursor { grid.fill(y: y, style: style) }
            grid.write(isCursor ? "▸" : " ", x: 1, y: y, style: style)
            grid.write(device.isCurrent ? "★" : " ", x: 2, y: y, style: style)
            let name = device.name ?? "⚠ unverified \(device.id.prefix(8))"
            grid.write(name, x: columns[0], y: y, style: device.isVerified ? style : (isCursor ? style : .warning),
                       maxWidth: columns[1] - columns[0] - 1)
            let seen = Format.dateTime(device.lastSeen.date, in: state.settings.timeZone)
            grid.write(seen + (device.isCurrent ? "  (this device)" : ""), x: columns[1], y: y, style: style,
                       maxWidth: body.width - columns[1] - 1)
        }
    }

    /// The open invitation at the foot of the page: the code to type on the new device.
    private static func drawInvitation(_ invitation: DeviceInvitation?, state: ScreenState, body: Body, into grid: inout Grid) {
        guard let invitation else { return }
        let lines: [String]
        switch invitation.stage {
        case .opening:
            lines = ["Opening an invitation on the sync server…"]
        case .waiting(let code, let expires, let server):
            lines = ["Invitation code: \(code)   (once, until \(Format.clockTime(expires, in: state.settings.timeZone)))",
                     "On the new device: coffer join --code \(code) --server \(server)"]
        case .answering:
            lines = ["Answering the new device…"]
        }
        for (offset, line) in lines.enumerated() {
            let y = body.bottom - lines.count + offset
            guard y > body.top else { continue }
            grid.write(line, x: 2, y: y, style: offset == 0 ? .bold : .plain, maxWidth: body.width - 4)
        }
    }
}
