import GRDB

/// The vault's tables (architecture §3), as versioned migrations from the first schema on.
enum VaultSchema {
    /// Written in `meta` so a random SQLite file is not mistaken for a vault.
    static let formatName = "coffer-vault"

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-tables") { db in
            // Stable item records, as last agreed with the server; columns so a list needs no JSON parsing.
            try db.execute(sql: """
                CREATE TABLE items (
                    id TEXT PRIMARY KEY NOT NULL,
                    last_modified INTEGER NOT NULL,
                    active INTEGER NOT NULL,
                    origins TEXT NOT NULL,
                    tags TEXT NOT NULL,
                    encrypted TEXT NOT NULL
                );
                CREATE TABLE keystores (
                    id TEXT PRIMARY KEY NOT NULL,
                    last_modified INTEGER NOT NULL,
                    record TEXT NOT NULL
                );
                CREATE TABLE pending (
                    key INTEGER PRIMARY KEY AUTOINCREMENT,
                    collection TEXT NOT NULL CHECK (collection IN ('items', 'keystores')),
                    id TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('local', 'remote')),
                    action TEXT NOT NULL CHECK (action IN ('add', 'update', 'remove')),
                    last_modified INTEGER NOT NULL,
                    record TEXT NOT NULL,
                    UNIQUE (source, collection, id)
                );
                CREATE INDEX pending_by_target ON pending (collection, id);
                CREATE TABLE markers (
                    collection TEXT PRIMARY KEY NOT NULL,
                    etag TEXT NOT NULL
                );
                CREATE TABLE meta (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2-reviews") { db in
            // Items merged on unlock and not yet reviewed (the ⚑ badge). `sealed` holds the
            // local, remote and chosen values, encrypted under the item's key: they are secrets too.
            try db.execute(sql: """
                CREATE TABLE reviews (
                    id TEXT PRIMARY KEY NOT NULL,
                    created INTEGER NOT NULL,
                    sealed TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3-pending-by-action") { db in
            // Counting the items of a never-synced vault (every item a pending add) from this
            // index takes milliseconds; from the table it read every pending record's JSON.
            try db.execute(sql: "CREATE INDEX pending_by_action ON pending (source, collection, action)")
        }
        migrator.registerMigration("v5-devices") { db in
            // architecture §9. `devices`: the registry as last listed (the server's JSON). `outbox`:
            // sealed messages not yet on the server. `inbox`: messages listed for this device,
            // `done` once handled (or refused) and waiting for their deletion on the server.
            // `handled`: ids already applied, so a replay or a re-listing is only deleted.
            try db.execute(sql: """
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY NOT NULL,
                    last_modified INTEGER NOT NULL,
                    record TEXT NOT NULL
                );
                CREATE TABLE outbox (
                    id TEXT PRIMARY KEY NOT NULL,
                    record TEXT NOT NULL
                );
                CREATE TABLE inbox (
                    id TEXT PRIMARY KEY NOT NULL,
                    record TEXT NOT NULL,
                    done INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE handled (
                    id TEXT PRIMARY KEY NOT NULL,
                    expires INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v6-search-index") { db in
            // The sealed search index, a chunk a row (`SearchIndex`): a cache that never syncs.
            try db.execute(sql: """
                CREATE TABLE search_index (
                    id INTEGER PRIMARY KEY,
                    sealed BLOB NOT NULL
                );
                """)
        }
        migrator.registerMigration("v7-attachments") { db in
            // architecture §4, attachments. `attachments`: each file's sealed bytes (NULL once
            // removed here), how many chunk records it takes on the server, and what sync still
            // owes the server: `upload`, `remove` (its chunks deleted), nothing (`stable`), or
            // `loose`: the server deleted its chunks; kept until an unlocked sync sees whether an
            // item still names it (then it goes up again) or not (then it goes).
            // `attachment_chunks`: chunks of a download in progress, as versions before
            // 2026-11-27 kept them (a download now gathers a file's chunks in memory and stores
            // it whole); only emptied now.
            try db.execute(sql: """
                CREATE TABLE attachments (
                    id TEXT PRIMARY KEY NOT NULL,
                    sealed BLOB,
                    chunks INTEGER NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('stable', 'upload', 'remove', 'loose'))
                );
                CREATE TABLE attachment_chunks (
                    attachment TEXT NOT NULL,
                    idx INTEGER NOT NULL,
                    count INTEGER NOT NULL,
                    data BLOB NOT NULL,
                    PRIMARY KEY (attachment, idx)
                );
                """)
        }
        migrator.registerMigration("v8-mirror") { db in
            // architecture §4, "The mirror" (issue 41): the stable item a record from the server
            // replaced before an unlocked sync could authenticate it, kept until one did. A version
            // before 2026-12-07 opens the vault as before (GRDB skips a migration it does not know)
            // and never writes this table.
            try db.execute(sql: """
                CREATE TABLE mirror (
                    collection TEXT NOT NULL,
                    id TEXT NOT NULL,
                    record TEXT NOT NULL,
                    PRIMARY KEY (collection, id)
                );
                """)
        }
        migrator.registerMigration("v9-item-signatures") { db in
            // Issue 42: a shared vault's stable item keeps its writer's signature, so a version
            // this device sends again (put back over a forgery, re-uploaded) is still a member's.
            // A version before 2026-12-08 never reads the column; it writes NULL there on INSERT
            // OR REPLACE, and its merge (an upsert) leaves a stale one, which only a re-upload
            // sends and every device judges by the ciphertext it already holds.
            try db.execute(sql: "ALTER TABLE items ADD COLUMN signature TEXT")
        }
        return migrator
    }
}
