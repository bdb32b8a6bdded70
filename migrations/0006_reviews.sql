-- Expert review (issue 18 §3): a profile marked as reviewer answers the questions other
-- profiles escalate, and a request can travel to a colleague as a file. A request belongs to
-- the profile that asked (its run waits for it); the answer is verified against that profile's
-- documents before it enters the conversation.
ALTER TABLE profiles ADD COLUMN reviewer INTEGER NOT NULL DEFAULT 0;

CREATE TABLE reviews (
    id               TEXT PRIMARY KEY,
    profile_id       TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    conversation_id  TEXT NOT NULL,
    run_id           TEXT NOT NULL,
    message_id       TEXT NOT NULL,
    question         TEXT NOT NULL,
    draft            TEXT NOT NULL,
    evidence         TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'answered', 'withdrawn')),
    reviewer         TEXT,
    answer           TEXT,
    citations        TEXT,
    created_at       TEXT NOT NULL,
    answered_at      TEXT
);
CREATE INDEX reviews_by_status ON reviews(status, created_at);
CREATE INDEX reviews_by_profile ON reviews(profile_id, created_at);
CREATE INDEX checkpoints_run ON checkpoints(run_id);
