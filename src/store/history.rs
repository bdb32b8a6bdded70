//! Conversations, messages and agent checkpoints in SQLite.
//!
//! Owns: the SQL of the agent's memory. Every statement is scoped by profile. Messages have
//! caller-supplied ids (idempotency: the same id twice is one message). Must not: interpret
//! message content or checkpoint state (they are opaque JSON here).

use serde::{Deserialize, Serialize};
use sqlx::{FromRow, SqliteConnection};

use super::{Store, StoreError, now};

/// A conversation (thread).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromRow)]
pub struct Conversation {
    /// Thread id.
    pub id: String,
    /// Title (from the first message, or renamed).
    pub title: String,
    /// Archived threads are hidden from the default list.
    pub archived: bool,
    /// Creation time.
    pub created_at: String,
    /// Last activity.
    pub updated_at: String,
    /// First characters of the last message.
    pub preview: Option<String>,
}

/// A stored message; the structured fields are JSON documents owned by the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromRow)]
pub struct MessageRow {
    /// Message id (caller-supplied for user messages).
    pub id: String,
    /// Thread.
    pub conversation_id: String,
    /// `user`, `assistant` or `system`.
    pub role: String,
    /// Text shown.
    pub content: String,
    /// Action of the turn.
    pub action: Option<String>,
    /// Citations (JSON array).
    pub citations: String,
    /// Confidence (JSON).
    pub confidence: Option<String>,
    /// Audit findings (JSON).
    pub audit: Option<String>,
    /// Token usage and cost (JSON).
    pub usage: Option<String>,
    /// Retrieval metadata (JSON).
    pub retrieval: Option<String>,
    /// Creation time.
    pub created_at: String,
}

/// A message to store.
#[derive(Debug, Clone, Default)]
pub struct NewMessage<'a> {
    /// Id (idempotency key).
    pub id: &'a str,
    /// Thread.
    pub conversation_id: &'a str,
    /// Role.
    pub role: &'a str,
    /// Text.
    pub content: &'a str,
    /// Action.
    pub action: Option<&'a str>,
    /// Citations JSON.
    pub citations: &'a str,
    /// Confidence JSON.
    pub confidence: Option<&'a str>,
    /// Audit JSON.
    pub audit: Option<&'a str>,
    /// Usage JSON.
    pub usage: Option<&'a str>,
    /// Retrieval JSON.
    pub retrieval: Option<&'a str>,
}

/// A checkpoint to append.
#[derive(Debug, Clone, Copy)]
pub struct NewCheckpoint<'a> {
    /// Run it belongs to.
    pub run_id: &'a str,
    /// The checkpoint it follows.
    pub parent_id: Option<&'a str>,
    /// The node to run next.
    pub node: &'a str,
    /// Format version of `state`.
    pub format_version: i64,
    /// Serialised run state.
    pub state: &'a str,
}

/// A checkpoint row.
#[derive(Debug, Clone, FromRow)]
pub struct CheckpointRow {
    /// Checkpoint id.
    pub id: String,
    /// Run it belongs to.
    pub run_id: String,
    /// The node to run next.
    pub node: String,
    /// Format version of `state`.
    pub format_version: i64,
    /// Serialised run state.
    pub state: String,
}

const CONVERSATION_SELECT: &str = "SELECT c.id, c.title, c.archived != 0 AS archived, c.created_at, c.updated_at, \
     (SELECT substr(m.content, 1, 400) FROM messages m WHERE m.conversation_id = c.id AND m.profile_id = c.profile_id \
        ORDER BY m.created_at DESC, m.rowid DESC LIMIT 1) AS preview \
     FROM conversations c";

/// Most characters of a preview.
const PREVIEW_CHARS: usize = 120;

/// The preview as a reader sees the message: answers are stored as Markdown ("**Audit: …**",
/// tables), which a one-line preview must not show raw.
fn plain_preview(mut c: Conversation) -> Conversation {
    c.preview = c.preview.map(|p| {
        let text: String = p
            .lines()
            // Table rules ("|---|---|") carry nothing.
            .filter(|l| {
                !l.trim()
                    .chars()
                    .all(|ch| matches!(ch, '|' | '-' | ':' | ' '))
            })
            .map(|l| l.trim().trim_start_matches('#').trim_start_matches("- "))
            .collect::<Vec<_>>()
            .join(" ")
            .replace("**", "")
            .replace('|', " ");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match flat.char_indices().nth(PREVIEW_CHARS) {
            Some((i, _)) => format!("{}…", flat[..i].trim_end()),
            None => flat,
        }
    });
    c
}

impl Store {
    /// Starts a turn in one transaction: the conversation (created when new), the user's
    /// message and the run's first checkpoint. A crash leaves all three or none, never a thread
    /// whose question has no run to resume. `None` (nothing written) when the message id is
    /// already in use; otherwise the checkpoint's id.
    pub async fn begin_turn(
        &self,
        profile_id: &str,
        title: &str,
        message: &NewMessage<'_>,
        checkpoint: &NewCheckpoint<'_>,
    ) -> Result<Option<String>, StoreError> {
        let mut tx = self.pool.begin().await?;
        insert_conversation(&mut tx, profile_id, message.conversation_id, title).await?;
        if !write_message(&mut tx, profile_id, message, false).await? {
            tx.rollback().await?;
            return Ok(None);
        }
        let id =
            insert_checkpoint(&mut tx, profile_id, message.conversation_id, checkpoint).await?;
        tx.commit().await?;
        Ok(Some(id))
    }

    /// One conversation of a profile.
    pub async fn conversation(
        &self,
        profile_id: &str,
        id: &str,
    ) -> Result<Conversation, StoreError> {
        let sql = format!("{CONVERSATION_SELECT} WHERE c.profile_id = ? AND c.id = ?");
        sqlx::query_as::<_, Conversation>(&sql)
            .bind(profile_id)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .map(plain_preview)
            .ok_or_else(|| StoreError::ConversationNotFound(id.to_owned()))
    }

    /// Conversations newest first, `limit` at a time, after the cursor `(updated_at, id)`.
    pub async fn conversations(
        &self,
        profile_id: &str,
        include_archived: bool,
        before: Option<(&str, &str)>,
        limit: u32,
    ) -> Result<Vec<Conversation>, StoreError> {
        let sql = format!(
            "{CONVERSATION_SELECT} WHERE c.profile_id = ? AND (? OR c.archived = 0) \
             AND (? IS NULL OR c.updated_at < ? OR (c.updated_at = ? AND c.id < ?)) \
             ORDER BY c.updated_at DESC, c.id DESC LIMIT ?"
        );
        let (ts, id) = before.unzip();
        Ok(sqlx::query_as::<_, Conversation>(&sql)
            .bind(profile_id)
            .bind(include_archived)
            .bind(ts)
            .bind(ts)
            .bind(ts)
            .bind(id)
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?
            .into_iter()
            .map(plain_preview)
            .collect())
    }

    /// Renames a conversation.
    pub async fn rename_conversation(
        &self,
        profile_id: &str,
        id: &str,
        title: &str,
    ) -> Result<(), StoreError> {
        let n = sqlx::query("UPDATE conversations SET title = ? WHERE id = ? AND profile_id = ?")
            .bind(title.trim())
            .bind(id)
            .bind(profile_id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::ConversationNotFound(id.to_owned()));
        }
        Ok(())
    }

    /// Archives or restores a conversation.
    pub async fn archive_conversation(
        &self,
        profile_id: &str,
        id: &str,
        archived: bool,
    ) -> Result<(), StoreError> {
        let n =
            sqlx::query("UPDATE conversations SET archived = ? WHERE id = ? AND profile_id = ?")
                .bind(archived)
                .bind(id)
                .bind(profile_id)
                .execute(&self.pool)
                .await?
                .rows_affected();
        if n == 0 {
            return Err(StoreError::ConversationNotFound(id.to_owned()));
        }
        Ok(())
    }

    /// Ends a turn in one transaction: its answer (replacing an earlier one with the same id,
    /// which a resumed run completes) and the run's final checkpoint; returns the checkpoint's
    /// id.
    pub async fn finish_turn(
        &self,
        profile_id: &str,
        message: &NewMessage<'_>,
        checkpoint: &NewCheckpoint<'_>,
    ) -> Result<String, StoreError> {
        let mut tx = self.pool.begin().await?;
        write_message(&mut tx, profile_id, message, true).await?;
        let id =
            insert_checkpoint(&mut tx, profile_id, message.conversation_id, checkpoint).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// One message of a profile.
    pub async fn message(
        &self,
        profile_id: &str,
        id: &str,
    ) -> Result<Option<MessageRow>, StoreError> {
        Ok(sqlx::query_as::<_, MessageRow>(
            "SELECT id, conversation_id, role, content, action, citations, confidence, audit, usage, retrieval, created_at \
             FROM messages WHERE profile_id = ? AND id = ?",
        )
        .bind(profile_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Messages of a thread in order.
    pub async fn messages(
        &self,
        profile_id: &str,
        conversation_id: &str,
    ) -> Result<Vec<MessageRow>, StoreError> {
        Ok(sqlx::query_as::<_, MessageRow>(
            "SELECT id, conversation_id, role, content, action, citations, confidence, audit, usage, retrieval, created_at \
             FROM messages WHERE profile_id = ? AND conversation_id = ? ORDER BY created_at, rowid",
        )
        .bind(profile_id)
        .bind(conversation_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Appends a checkpoint to a thread.
    pub async fn save_checkpoint(
        &self,
        profile_id: &str,
        conversation_id: &str,
        c: &NewCheckpoint<'_>,
    ) -> Result<String, StoreError> {
        let mut conn = self.pool.acquire().await?;
        insert_checkpoint(&mut conn, profile_id, conversation_id, c).await
    }

    /// The newest checkpoint of a thread.
    pub async fn latest_checkpoint(
        &self,
        profile_id: &str,
        conversation_id: &str,
    ) -> Result<Option<CheckpointRow>, StoreError> {
        self.newest_checkpoint(profile_id, Of::Thread(conversation_id))
            .await
    }

    /// The last checkpoint of one run (a later run of the same thread may have followed it).
    pub async fn latest_checkpoint_of_run(
        &self,
        profile_id: &str,
        run_id: &str,
    ) -> Result<Option<CheckpointRow>, StoreError> {
        self.newest_checkpoint(profile_id, Of::Run(run_id)).await
    }

    async fn newest_checkpoint(
        &self,
        profile_id: &str,
        of: Of<'_>,
    ) -> Result<Option<CheckpointRow>, StoreError> {
        let (column, value) = match of {
            Of::Thread(id) => ("conversation_id", id),
            Of::Run(id) => ("run_id", id),
        };
        Ok(sqlx::query_as::<_, CheckpointRow>(&format!(
            "SELECT id, run_id, node, format_version, state FROM checkpoints \
             WHERE profile_id = ? AND {column} = ? ORDER BY id DESC LIMIT 1"
        ))
        .bind(profile_id)
        .bind(value)
        .fetch_optional(&self.pool)
        .await?)
    }
}

/// Whose checkpoints: a thread's or one run's.
enum Of<'a> {
    Thread(&'a str),
    Run(&'a str),
}

/// Creates a conversation with this id unless it exists.
async fn insert_conversation(
    conn: &mut SqliteConnection,
    profile_id: &str,
    id: &str,
    title: &str,
) -> Result<(), StoreError> {
    let ts = now();
    sqlx::query(
        "INSERT INTO conversations(id, profile_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?) \
         ON CONFLICT(id) DO NOTHING",
    )
    .bind(id)
    .bind(profile_id)
    .bind(title)
    .bind(&ts)
    .bind(&ts)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Stores a message (replacing one with the same id in the same thread when `replace`) and
/// marks its thread as active; false when nothing was written.
async fn write_message(
    conn: &mut SqliteConnection,
    profile_id: &str,
    m: &NewMessage<'_>,
    replace: bool,
) -> Result<bool, StoreError> {
    let ts = now();
    let conflict = if replace {
        "ON CONFLICT(id) DO UPDATE SET content = excluded.content, action = excluded.action, \
         citations = excluded.citations, confidence = excluded.confidence, audit = excluded.audit, \
         usage = excluded.usage, retrieval = excluded.retrieval \
         WHERE messages.profile_id = excluded.profile_id AND messages.conversation_id = excluded.conversation_id"
    } else {
        "ON CONFLICT(id) DO NOTHING"
    };
    let sql = format!(
        "INSERT INTO messages(id, profile_id, conversation_id, role, content, action, citations, confidence, audit, usage, retrieval, created_at) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) {conflict}"
    );
    let n = sqlx::query(&sql)
        .bind(m.id)
        .bind(profile_id)
        .bind(m.conversation_id)
        .bind(m.role)
        .bind(m.content)
        .bind(m.action)
        .bind(m.citations)
        .bind(m.confidence)
        .bind(m.audit)
        .bind(m.usage)
        .bind(m.retrieval)
        .bind(&ts)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    sqlx::query("UPDATE conversations SET updated_at = ? WHERE id = ? AND profile_id = ?")
        .bind(&ts)
        .bind(m.conversation_id)
        .bind(profile_id)
        .execute(&mut *conn)
        .await?;
    Ok(n > 0)
}

/// Appends a checkpoint; returns its id.
async fn insert_checkpoint(
    conn: &mut SqliteConnection,
    profile_id: &str,
    conversation_id: &str,
    c: &NewCheckpoint<'_>,
) -> Result<String, StoreError> {
    let id = uuid::Uuid::now_v7().to_string();
    sqlx::query(
        "INSERT INTO checkpoints(id, profile_id, conversation_id, run_id, parent_id, node, format_version, state, created_at) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&id)
    .bind(profile_id)
    .bind(conversation_id)
    .bind(c.run_id)
    .bind(c.parent_id)
    .bind(c.node)
    .bind(c.format_version)
    .bind(c.state)
    .bind(now())
    .execute(&mut *conn)
    .await?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_turn_is_written_whole_or_not_at_all() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().join("db.sqlite3")).await.unwrap();
        let p = store
            .create_profile("alice", &crate::store::UserContext::default())
            .await
            .unwrap();
        let message = |id, thread| NewMessage {
            id,
            conversation_id: thread,
            role: "user",
            content: "What is the notice period?",
            citations: "[]",
            ..NewMessage::default()
        };
        let checkpoint = NewCheckpoint {
            run_id: "run",
            parent_id: None,
            node: "contextualize",
            format_version: 1,
            state: "{}",
        };
        let first = store
            .begin_turn(&p.id, "Notice", &message("m1", "t1"), &checkpoint)
            .await
            .unwrap();
        let latest = store.latest_checkpoint(&p.id, "t1").await.unwrap().unwrap();
        assert_eq!(Some(latest.id), first);
        assert_eq!(store.messages(&p.id, "t1").await.unwrap().len(), 1);
        // The same message id in a new thread: nothing of that turn is written, not even the
        // thread.
        let again = store
            .begin_turn(&p.id, "Other", &message("m1", "t2"), &checkpoint)
            .await
            .unwrap();
        assert_eq!(again, None);
        assert!(matches!(
            store.conversation(&p.id, "t2").await,
            Err(StoreError::ConversationNotFound(_))
        ));
        assert!(
            store
                .latest_checkpoint(&p.id, "t2")
                .await
                .unwrap()
                .is_none()
        );
    }

    fn with_preview(p: &str) -> Conversation {
        Conversation {
            id: "t".into(),
            title: "t".into(),
            archived: false,
            created_at: String::new(),
            updated_at: String::new(),
            preview: Some(p.into()),
        }
    }

    #[test]
    fn previews_of_markdown_answers_read_as_plain_text() {
        let c = plain_preview(with_preview(
            "**Audit: Leave policy** against **Capital Guidelines (2024)**\n\n| Severity | Finding |\n|---|---|\n| high | 6 per cent |",
        ));
        assert_eq!(
            c.preview.as_deref(),
            Some(
                "Audit: Leave policy against Capital Guidelines (2024) Severity Finding high 6 per cent"
            )
        );
        let long = plain_preview(with_preview(&"word ".repeat(80)));
        let p = long.preview.unwrap_or_default();
        assert!(
            p.ends_with('…') && p.chars().count() <= PREVIEW_CHARS + 1,
            "{p}"
        );
    }
}
