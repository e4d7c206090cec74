/// One edit of the PostgreSQL store's `items` rows behind the store's back, made through SQL by a
/// role that can write the rows but does not hold the store's key: byte flips in ciphertexts and index
/// cells, ciphertexts and cells swapped or copied between rows, rows deleted, moved to another access
/// group or class, or given another row id.
enum PGTamperEdit {
    /// XOR byte `offset` (modulo the cell's length) of `column` in row `row` with `mask`.
    case flip(row: Int64, column: String, offset: Int, mask: UInt8)
    /// Exchange `columns` between rows `row` and `other`.
    case swap(row: Int64, other: Int64, columns: [String])
    /// Copy `columns` of row `from` over those of row `row`.
    case copy(row: Int64, from: Int64, columns: [String])
    /// Delete row `row`.
    case delete(row: Int64)
    /// Give row `row` the access-group cell of row `from` (an item of another group).
    case moveGroup(row: Int64, from: Int64)
    /// Change the class code of row `row` (generic to internet password and back).
    case reclass(row: Int64)
    /// Give row `row` another row id.
    case renumber(row: Int64, to: Int64)

    /// The ciphertext cells an edit may touch: a joint row's one (its `attrs` cell is empty; an `attrs`
    /// cell given to a joint row is the SQLite swap scenario's and RowFormatTests').
    static let ciphertexts = ["data"]
    /// The blind-index cells.
    static let indexCells = ["grp", "uniq", "prim"]

    /// A short name for tallies.
    var name: String {
        switch self {
        case .flip(_, let column, _, _): "flip \(column)"
        case .swap(_, _, let columns): "swap \(columns.joined(separator: "+"))"
        case .copy(_, _, let columns): "copy \(columns.joined(separator: "+"))"
        case .delete: "delete row"
        case .moveGroup: "move to another group"
        case .reclass: "change class"
        case .renumber: "change row id"
        }
    }

    /// The rows whose items the edit touches.
    var touchedRows: [Int64] {
        switch self {
        case .flip(let row, _, _, _), .copy(let row, _, _), .delete(let row), .moveGroup(let row, _),
            .reclass(let row), .renumber(let row, _):
            [row]
        case .swap(let row, let other, _): [row, other]
        }
    }

    /// The SQL that makes the edit on the tables of `schema`, whose rows are still those of the table
    /// `public.pristine`.
    func sql(_ schema: String) -> String {
        let items = "\(schema).items"
        switch self {
        case .flip(let row, let column, let offset, let mask):
            let at = "(\(offset) % length(\(column)))"
            return "UPDATE \(items) SET \(column) = set_byte(\(column), \(at), get_byte(\(column), \(at)) # \(mask)) "
                + "WHERE id = \(row)"
        case .swap(let row, let other, let columns):
            // From the pristine copy, one row at a time, with the first row's unique-key cell moved out
            // of the way first: the unique constraint is checked row by row.
            let sets = columns.map { "\($0) = p.\($0)" }.joined(separator: ", ")
            return "BEGIN; UPDATE \(items) SET uniq = uniq || '\\x00'::bytea WHERE id = \(row); "
                + "UPDATE \(items) a SET \(sets) FROM public.pristine p WHERE a.id = \(other) AND p.id = \(row); "
                + "UPDATE \(items) a SET \(sets)"
                + (columns.contains("uniq") ? "" : ", uniq = substring(a.uniq FROM 1 FOR length(a.uniq) - 1)")
                + " FROM public.pristine p WHERE a.id = \(row) AND p.id = \(other); COMMIT"
        case .copy(let row, let from, let columns):
            let sets = columns.map { "\($0) = b.\($0)" }.joined(separator: ", ")
            return "UPDATE \(items) a SET \(sets) FROM \(items) b WHERE a.id = \(row) AND b.id = \(from)"
        case .delete(let row):
            return "DELETE FROM \(items) WHERE id = \(row)"
        case .moveGroup(let row, let from):
            return "UPDATE \(items) a SET grp = b.grp FROM \(items) b WHERE a.id = \(row) AND b.id = \(from)"
        case .reclass(let row):
            return "UPDATE \(items) SET class = CASE WHEN class = 1 THEN 2 ELSE 1 END WHERE id = \(row)"
        case .renumber(let row, let to):
            return "UPDATE \(items) SET id = \(to) WHERE id = \(row)"
        }
    }
}
