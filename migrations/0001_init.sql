-- PolicyPal store, version 1. Every table that holds user data carries profile_id so every
-- query can be scoped by profile. Timestamps are RFC 3339 UTC text.

CREATE TABLE profiles (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL COLLATE NOCASE UNIQUE,
    industry    TEXT NOT NULL DEFAULT '',
    location    TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);

CREATE TABLE sets (
    id          TEXT PRIMARY KEY,
    profile_id  TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    name        TEXT NOT NULL COLLATE NOCASE,
    colour      TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    UNIQUE (profile_id, name)
);

CREATE TABLE documents (
    id            TEXT PRIMARY KEY,
    profile_id    TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    title         TEXT NOT NULL,
    version       TEXT NOT NULL DEFAULT '',
    doc_type      TEXT NOT NULL CHECK (doc_type IN ('regulatory', 'policy')),
    set_id        TEXT REFERENCES sets(id) ON DELETE SET NULL,
    file_name     TEXT NOT NULL,
    sha256        TEXT NOT NULL,
    page_count    INTEGER NOT NULL DEFAULT 0,
    chunk_count   INTEGER NOT NULL DEFAULT 0,
    empty_pages   TEXT NOT NULL DEFAULT '[]',
    status        TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'failed', 'disabled')),
    error         TEXT,
    supersedes    TEXT REFERENCES documents(id) ON DELETE SET NULL,
    embed_model   TEXT NOT NULL DEFAULT '',
    lease_until   TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    UNIQUE (profile_id, sha256)
);
CREATE INDEX documents_profile_status ON documents(profile_id, status);
CREATE INDEX documents_supersedes ON documents(supersedes);

CREATE TABLE conversations (
    id          TEXT PRIMARY KEY,
    profile_id  TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    title       TEXT NOT NULL DEFAULT '',
    archived    INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX conversations_profile_updated ON conversations(profile_id, updated_at);

CREATE TABLE messages (
    id               TEXT PRIMARY KEY,
    profile_id       TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    conversation_id  TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role             TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    content          TEXT NOT NULL,
    action           TEXT,
    citations        TEXT NOT NULL DEFAULT '[]',
    confidence       TEXT,
    audit            TEXT,
    usage            TEXT,
    retrieval        TEXT,
    created_at       TEXT NOT NULL
);
CREATE INDEX messages_conversation ON messages(conversation_id, created_at);

CREATE TABLE checkpoints (
    id               TEXT PRIMARY KEY,
    profile_id       TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    conversation_id  TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    run_id           TEXT NOT NULL,
    parent_id        TEXT REFERENCES checkpoints(id) ON DELETE CASCADE,
    node             TEXT NOT NULL,
    format_version   INTEGER NOT NULL,
    state            TEXT NOT NULL,
    created_at       TEXT NOT NULL
);
CREATE INDEX checkpoints_thread ON checkpoints(conversation_id, created_at);

-- Facts about the whole data directory (for example which embedding model built the index).
CREATE TABLE meta (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);

-- Cleaned text of every page of a document, so a quote can be verified against the exact page
-- and a chunk's character offsets mapped back to physical pages.
CREATE TABLE pages (
    profile_id   TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    document_id  TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    page         INTEGER NOT NULL,
    char_start   INTEGER NOT NULL,
    text         TEXT NOT NULL,
    extractor    TEXT NOT NULL,
    PRIMARY KEY (document_id, page)
);
CREATE INDEX pages_profile ON pages(profile_id, document_id);
