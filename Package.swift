// swift-tools-version: 6.0
import PackageDescription

// Module directions (architecture §1): coffer -> CofferTUI -> CofferSync -> CofferCore; CofferSystem (helper
// processes, clipboard, hardening) sits beside CofferSync, under the screen and the commands; CofferAgent (the
// agent: protocol, server, lifecycle, client) sits beside CofferTUI, -> CofferSync -> CofferCore, and knows no exit
// codes. CONTRIBUTING.md has the whole map, with the tool and test-support targets.
let package = Package(
    name: "Coffer",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "coffer", targets: ["coffer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV.git", exact: "0.10.0"),
    ],
    targets: [
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        // libcurl through dlopen, on the first request (Sources/CCurl/shim.h).
        .systemLibrary(name: "CCurl"),
        .systemLibrary(name: "CNcursesw", pkgConfig: "ncursesw",
                       providers: [.apt(["libncursesw5-dev"])]),
        // zxcvbn-c ships no pkg-config file: the module map links it by name.
        .systemLibrary(name: "CZxcvbn", providers: [.apt(["libzxcvbn-dev"])]),
        // zlib: the gzip inside KeePass XML exports (attachments).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libpng and zbar, loaded with dlopen when a QR code is first read (Sources/CQRCode/shim.h).
        .systemLibrary(name: "CQRCode", providers: [.apt(["libzbar-dev", "libpng-dev"])]),
        // libargon2, loaded with dlopen when a KDBX database first needs Argon2d/Argon2id (Sources/CArgon2/shim.h).
        .systemLibrary(name: "CArgon2", providers: [.apt(["libargon2-dev"])]),
        .target(
            name: "CofferCore",
            dependencies: [
                "CArgon2",
                "CQRCode",
                "CSodium",
                "CZlib",
                "CZxcvbn",
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA signing and AES-CTR, for SSH keys (issue 32).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the one setting GRDB has no call for (VaultDatabase+WAL.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
            ]
        ),
        .target(
            name: "CofferSync",
            dependencies: [
                "CofferCore",
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What a process does with the system around it, for the screen and the commands alike:
        // helper programs, the clipboard, hardening at start.
        .target(
            name: "CofferSystem",
            dependencies: ["CofferCore", "CSodium"]
        ),
        // The agent (`coffer unlock`): its socket protocol, server, lifecycle and client.
        .target(
            name: "CofferAgent",
            dependencies: ["CofferCore", "CofferSync", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "CofferTUI",
            dependencies: ["CofferSync", "CofferCore", "CofferSystem", "CNcursesw"]
        ),
        .executableTarget(
            name: "coffer",
            dependencies: [
                "CofferAgent", "CofferCore", "CofferSync", "CofferSystem", "CofferTUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "CofferBench", dependencies: ["CofferCore", .product(name: "GRDB", package: "GRDB.swift")],
                          path: "Sources/CofferBench"),
        // Tool and test code stays out of the product modules: the fuzz checks and their shared entry
        // (used by the fuzz executables and the tests), and what several test targets share.
        .target(
            name: "CofferFuzzChecks",
            dependencies: ["CofferCore", "CofferSync", "CofferAgent", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(name: "CofferTestSupport", path: "Tests/CofferTestSupport"),
        .executableTarget(name: "FuzzRecords", dependencies: ["CofferFuzzChecks"], path: "Sources/FuzzRecords"),
        .executableTarget(name: "FuzzEnvelope", dependencies: ["CofferFuzzChecks"], path: "Sources/FuzzEnvelope"),
        .executableTarget(name: "FuzzItemJSON", dependencies: ["CofferFuzzChecks"], path: "Sources/FuzzItemJSON"),
        .executableTarget(name: "FuzzImport", dependencies: ["CofferFuzzChecks"], path: "Sources/FuzzImport"),
        .executableTarget(name: "FuzzKintoResponses", dependencies: ["CofferFuzzChecks"],
                          path: "Sources/FuzzKintoResponses"),
        .executableTarget(name: "FuzzForeignImport", dependencies: ["CofferFuzzChecks"],
                          path: "Sources/FuzzForeignImport"),
        .executableTarget(name: "FuzzDeviceMessages", dependencies: ["CofferFuzzChecks"],
                          path: "Sources/FuzzDeviceMessages"),
        .executableTarget(name: "FuzzInvitations", dependencies: ["CofferFuzzChecks"], path: "Sources/FuzzInvitations"),
        .executableTarget(name: "FuzzRoster", dependencies: ["CofferFuzzChecks"], path: "Sources/FuzzRoster"),
        .executableTarget(name: "FuzzSSHAgent", dependencies: ["CofferFuzzChecks"], path: "Sources/FuzzSSHAgent"),
        .executableTarget(name: "FuzzConfig", dependencies: ["CofferFuzzChecks"], path: "Sources/FuzzConfig"),
        .testTarget(name: "CofferCoreTests", dependencies: ["CofferCore", "CofferSync", "CofferSystem", "CofferFuzzChecks", "CofferTestSupport"]),
        .testTarget(name: "CofferSyncTests", dependencies: ["CofferSync", "CofferCore", "CofferTestSupport"]),
        .testTarget(name: "CofferTUITests", dependencies: ["CofferTUI", "CofferSync", "CofferCore", "CofferSystem", "CofferTestSupport"],
                    exclude: ["Snapshots"]),
        .testTarget(name: "CofferAgentTests", dependencies: ["CofferAgent", "CofferCore", "CofferSync"]),
        .testTarget(name: "CofferCLITests", dependencies: ["CofferCore", "CofferSync", "CofferTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
