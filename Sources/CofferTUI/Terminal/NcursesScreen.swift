import CNcursesw
import Foundation

/// The real terminal, through ncursesw. The only type that touches ncurses.
///
/// It keeps the last frame and writes only the cells that changed. Every cell is written at its own
/// position, so a terminal that disagrees with us about a character's width garbles one cell,
/// never the rest of the row.
@MainActor
final class NcursesScreen: Screen {
    enum StartError: Error, CustomStringConvertible {
        case notATerminal
        case termMissing
        case termUnknown(String)

        var description: String {
            switch self {
            case .notATerminal:
                return "The screen needs a terminal: run coffer with a command (coffer list, coffer show …) in scripts."
            case .termMissing:
                return "TERM is not set, so the screen cannot start; set it to your terminal's type (for example TERM=xterm-256color)."
            case .termUnknown(let name):
                return "The terminal type \"\(name)\" (TERM) is unknown here; set TERM to one this system knows, "
                    + "such as xterm-256color."
            }
        }
    }

    private let terminal: OpaquePointer
    private let window: UnsafeMutablePointer<WINDOW>
    private let usesColor: Bool
    private var previous: Grid?
    private var isStopped = false
    /// The wake pipe signals write to (set on the first wait).
    private var signalWake: Int32 = -1

    /// Opens the terminal: UTF-8 locale, no echo, keypad keys, Esc without delay, colours unless
    /// `NO_COLOR` is set. Signals are caught from here on.
    static func start(environment: [String: String] = ProcessInfo.processInfo.environment,
                      colors: ScreenColors = ScreenColors()) throws -> NcursesScreen {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw StartError.notATerminal }
        setlocale(LC_ALL, "")
        // Without a UTF-8 locale wide characters come out garbled; C.UTF-8 exists everywhere glibc does.
        if coffer_is_utf8_locale() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }
        guard let name = environment["TERM"], !name.isEmpty else { throw StartError.termMissing }
        // Before newterm, so ncurses keeps our handlers instead of installing its own.
        coffer_install_signal_handlers()
        // newterm, unlike initscr, returns nil for an unknown TERM instead of exiting.
        guard let terminal = newterm(nil, coffer_stdout(), coffer_stdin()) else { throw StartError.termUnknown(name) }
        set_term(terminal)
        coffer_restore_terminal_at_exit()
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return NcursesScreen(terminal: terminal, window: coffer_stdscr(), usesColor: !noColor && colors.isEnabled && has_colors(),
                             palette: colors.palette)
    }

    private init(terminal: OpaquePointer, window: UnsafeMutablePointer<WINDOW>, usesColor: Bool, palette: [Style.Color: Int16]) {
        self.terminal = terminal
        self.window = window
        self.usesColor = usesColor
        cbreak()
        noecho()
        nonl()
        intrflush(window, false)
        keypad(window, true)
        set_escdelay(25)
        curs_set(0)
        if usesColor {
            start_color()
            use_default_colors()
            // Each slot's pair takes the configured colour (`ScreenColors`: curses numbers, -1 the terminal's own).
            for (color, value) in palette { init_pair(Int16(color.rawValue), value, -1) }
        }
    }

    var size: Size {
        Size(width: Int(getmaxx(window)), height: Int(getmaxy(window)))
    }

    func draw(_ grid: Grid) {
        if previous?.size != grid.size {
            werase(window)
            previous = nil
        }
        for y in 0..<grid.size.height {
            for x in 0..<grid.size.width {
                let cell = grid[x, y]
                if cell.isContinuation || previous?[x, y] == cell { continue }
                write(cell, x: x, y: y)
            }
        }
        if let cursor = grid.cursor {
            curs_set(1)
            wmove(window, Int32(cursor.y), Int32(cursor.x))
        } else {
            curs_set(0)
        }
        wrefresh(window)
        previous = grid
    }

    private func write(_ cell: Cell, x: Int, y: Int) {
        var attributes = coffer_a_normal()
        if cell.style.isBold { attributes |= coffer_a_bold() }
        if cell.style.isReversed { attributes |= coffer_a_reverse() }
        if cell.style.isDimmed { attributes |= coffer_a_dim() }
        if cell.style.isUnderlined { attributes |= coffer_a_underline() }
        let pair = usesColor ? Int16(cell.style.color?.rawValue ?? 0) : 0
        wattr_set(window, attributes, pair, nil)
        // The first visible scalar and the marks that combine with it: a sequence that ncurses
        // would spread over several cells (an emoji joined by ZWJ) is cut to its first glyph.
        var scalars: [wchar_t] = []
        for scalar in cell.text.unicodeScalars {
            if !scalars.isEmpty, DisplayWidth.of(scalar) > 0 { break }
            scalars.append(wchar_t(bitPattern: scalar.value))
        }
        mvwaddnwstr(window, Int32(y), Int32(x), scalars, Int32(scalars.count))
    }

    func nextInput(waitingAtMost milliseconds: Int, wakingOn wake: Int32) -> ScreenInput? {
        if let signal = takeSignal() { return signal }
        // What ncurses already read (keys typed ahead, a resize it noted) comes first.
        if let input = readKey(waitingAtMost: 0) { return input }
        guard milliseconds > 0 else { return nil }
        if wake != signalWake {
            coffer_wake_on_signals(wake)
            signalWake = wake
        }
        // Sleep in poll rather than in ncurses, so a wake-up from background work ends the wait.
        // A signal (Ctrl-C, a resize) ends it too, with EINTR.
        var descriptors = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&descriptors, wake >= 0 ? 2 : 1, Int32(milliseconds))
        if let signal = takeSignal() { return signal }
        // The rest of an escape sequence may still be on its way: ncurses waits ESCDELAY for it.
        return readKey(waitingAtMost: ready > 0 && descriptors[0].revents != 0 ? 25 : 0)
    }

    private func readKey(waitingAtMost milliseconds: Int) -> ScreenInput? {
        wtimeout(window, Int32(milliseconds))
        var character: wint_t = 0
        let status = wget_wch(window, &character)
        if let signal = takeSignal() { return signal }
        if status == coffer_key_code_yes() {
            return functionKey(Int32(bitPattern: character))
        }
        guard status == OK else { return nil }
        return textKey(character).map(ScreenInput.key)
    }

    private func takeSignal() -> ScreenInput? {
        let number = coffer_take_signal()
        return number == 0 ? nil : .signal(number)
    }

    private func functionKey(_ code: Int32) -> ScreenInput? {
        switch code {
        case coffer_key_resize():
            previous = nil
            return .resized(size)
        case coffer_key_up(): return .key(.up)
        case coffer_key_down(): return .key(.down)
        case coffer_key_left(): return .key(.left)
        case coffer_key_right(): return .key(.right)
        case coffer_key_home(): return .key(.home)
        case coffer_key_end(): return .key(.end)
        case coffer_key_ppage(): return .key(.pageUp)
        case coffer_key_npage(): return .key(.pageDown)
        case coffer_key_backspace(): return .key(.backspace)
        case coffer_key_dc(): return .key(.delete)
        case coffer_key_enter(): return .key(.enter)
        case coffer_key_btab(): return .key(.backTab)
        default:
            for number in 1...12 where code == coffer_key_f(Int32(number)) { return .key(.function(number)) }
            return nil
        }
    }

    private func textKey(_ code: wint_t) -> Key? {
        switch code {
        case 27: return .escape
        case 13: return .enter
        case 9: return .tab
        case 8, 127: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(96 + code))))
        default:
            guard let scalar = Unicode.Scalar(code), scalar.properties.generalCategory != .control else { return nil }
            return .character(Character(scalar))
        }
    }

    func send(_ sequence: String) {
        fputs(sequence, coffer_stdout())
        fflush(coffer_stdout())
    }

    func invalidate() {
        previous = nil
        coffer_clear_whole_screen()
    }

    /// Gives the terminal back as it was: cursor shown, modes restored. Safe to call twice.
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        curs_set(1)
        endwin()
        delscreen(terminal)
    }
}
