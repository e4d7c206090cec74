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

/// The first 32 KiB region of the WAL-index (the `-shm` file) as SQLite itself has mapped it for `db`'s
/// main database, through the database file's own `xShmMap` (asked not to extend: only a region already
/// mapped is returned), or NULL when there is none (no WAL, or nothing read yet). No descriptor is opened or
/// closed, so none of the process's locks on the file is touched (closing any descriptor of a file lets go
/// of every POSIX lock the process holds on it). The mapping lasts while `db` is open.
static inline const void *hardtack_sqlite3_wal_index(sqlite3 *db) {
    sqlite3_file *file = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK) return 0;
    if (!file || !file->pMethods || file->pMethods->iVersion < 2 || !file->pMethods->xShmMap) return 0;
    void volatile *region = 0;
    if (file->pMethods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK) return 0;
    return (const void *)region;
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
