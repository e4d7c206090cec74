#include <sqlite3.h>

/// Hardens a connection to a file that may have been written by someone else: defensive mode (no
/// writable schema, no direct writes to shadow tables) and an untrusted schema (triggers and views in
/// the file may not call SQL functions with side effects). sqlite3_db_config is variadic, which Swift
/// cannot call, hence this wrapper. Returns SQLITE_OK or the first failure.
static inline int hardtack_sqlite3_harden(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
}
