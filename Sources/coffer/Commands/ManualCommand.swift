import Foundation
import ArgumentParser

/// `coffer manual` (listed in `--help`, which names it): the man page, coffer(1), in roff, written from the command
/// definitions (each command's abstract, discussion and help) and `ExitStatus.meanings`, so it
/// cannot drift from the binary. `make install` runs it.
struct ManualCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "manual",
                                                    abstract: "Print the man page, coffer(1), in roff (`coffer manual | man -l -`).")

    func run() {
        print(ManualPage.roff(), terminator: "")
    }
}

enum ManualPage {
    static func roff() -> String {
        let root = Coffer.configuration
        var page = [
            ".TH COFFER 1 \"\" \"coffer \(CofferVersion.string)\" \"User Commands\"",
            ".SH NAME",
            "coffer \\- " + escaped(root.abstract),
            ".SH SYNOPSIS",
            ".B coffer",
            "[\\fB\\-\\-vault\\fR \\fIPATH\\fR] [\\fICOMMAND\\fR] [\\fIOPTIONS\\fR]",
            ".SH DESCRIPTION",
            escaped(root.abstract),
            ".PP",
            escaped(Coffer.overview),
            ".PP",
            "The vault path defaults to \\fB$COFFER_VAULT\\fR, then \\fB$XDG_DATA_HOME/coffer/vault.db\\fR "
                + "(\\fI~/.local/share/coffer/vault.db\\fR). A passphrase is read from the terminal without echo; "
                + "when stdin is not a terminal, from its first line; or from \\fB\\-\\-passphrase\\-file\\fR.",
            ".SH OPTIONS",
        ]
        // The overview is already the DESCRIPTION: the options start at the usage line.
        let rootHelp = Coffer.helpMessage(columns: 78)
        page += preformatted(rootHelp.range(of: "USAGE:").map { String(rootHelp[$0.lowerBound...]) } ?? rootHelp)
        page.append(".SH COMMANDS")
        for (name, command) in visibleCommands(of: Coffer.self, path: []) {
            page.append(".SS \"coffer \(name)\"")
            page += preformatted(Coffer.helpMessage(for: command, columns: 78))
        }
        page.append(".SH EXIT CODES")
        for (code, meaning) in ExitStatus.meanings {
            page += [".TP", ".B \(code)", escaped(meaning)]
        }
        page += [
            ".SH ENVIRONMENT",
            ".TP", ".B COFFER_VAULT", "The default vault path.",
            ".TP", ".B COFFER_LOG", "Log level on stderr (trace \\(en critical; default warning).",
            ".SH SEE ALSO",
            "README.md and docs/architecture.md in the Coffer source tree.",
        ]
        return page.joined(separator: "\n") + "\n"
    }

    /// Every displayed subcommand, depth first, with its path of names (`account signup`).
    static func visibleCommands(of command: ParsableCommand.Type, path: [String]) -> [(String, ParsableCommand.Type)] {
        command.configuration.subcommands.filter { $0.configuration.shouldDisplay }.flatMap { sub -> [(String, ParsableCommand.Type)] in
            let name = path + [sub._commandName]
            return [(name.joined(separator: " "), sub)] + visibleCommands(of: sub, path: name)
        }
    }

    /// Help text kept as laid out (no filling), each line escaped.
    static func preformatted(_ text: String) -> [String] {
        [".nf"] + text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) } + [".fi"]
    }

    /// Roff-safe text: backslashes and hyphens escaped, and a leading `.` or `'` made inert.
    static func escaped(_ text: String) -> String {
        let body = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return body.first == "." || body.first == "'" ? "\\&" + body : body
    }
}
