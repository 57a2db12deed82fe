import CofferCore
import Logging

/// The stderr log handler behind a backstop: a log line can quote an error that quotes a server or
/// a file, so its message is shown through `TerminalText.lines` like everything else for people.
struct TerminalSafeLogHandler: LogHandler {
    private var stream: StreamLogHandler

    init(label: String) {
        stream = StreamLogHandler.standardError(label: label)
    }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { stream.metadata }
        set { stream.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { stream[metadataKey: key] }
        set { stream[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: TerminalText.lines(event.message.description))
        stream.log(event: event)
    }
}
