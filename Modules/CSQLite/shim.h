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

/// Copies the WAL-index header at the start of a mapped `-shm` file to `out` (48 bytes), as SQLite's own
/// readers do (walIndexTryHdr): the first of its two copies, a barrier, then the second, which a writer
/// writes first. Returns 1 when the two are equal, so that `out` is a header as a writer left it, and 0
/// when a writer was between them (read again).
static inline int hardtack_sqlite3_wal_index_header(const void *shm, unsigned char out[48]) {
    const volatile unsigned char *copies = (const volatile unsigned char *)shm;
    unsigned char second[48];
    for (int i = 0; i < 48; i++) out[i] = copies[i];
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < 48; i++) second[i] = copies[48 + i];
    int equal = 1;
    for (int i = 0; i < 48; i++) equal &= out[i] == second[i];
    return equal;
}
