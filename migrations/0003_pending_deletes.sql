-- The tombstone of a crash-safe delete: the document's row is removed in the same transaction
-- that writes this one, then its chunks and stored PDF are removed, then this row. A crash in
-- between leaves the tombstone, and the next start finishes the delete: a document is never
-- listed as ready with its chunks gone.
CREATE TABLE pending_deletes (
    profile_id   TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    document_id  TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (profile_id, document_id)
);
