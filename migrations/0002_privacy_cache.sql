-- Per-profile PII redaction (what is sent to a remote model or the web) and the semantic
-- answer cache. Both carry profile_id so every query is scoped by profile.

ALTER TABLE profiles ADD COLUMN redact_pii INTEGER NOT NULL DEFAULT 0;
-- JSON array of person names to redact besides the patterns (emails, phones, IBANs, cards, ids).
ALTER TABLE profiles ADD COLUMN redact_names TEXT NOT NULL DEFAULT '[]';

-- One row per answered question that may be served again. `scope` is the action's scope key
-- (mode, resolved documents, set); `documents` is a JSON array of [document id, updated_at] of
-- the documents the answer cites, so a changed document is never served from the cache.
CREATE TABLE answer_cache (
    id           TEXT PRIMARY KEY,
    profile_id   TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    action       TEXT NOT NULL,
    scope        TEXT NOT NULL,
    question     TEXT NOT NULL,
    embedding    BLOB NOT NULL,
    message_id   TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    documents    TEXT NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE INDEX answer_cache_lookup ON answer_cache(profile_id, action, scope);
