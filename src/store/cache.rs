//! The semantic answer cache in SQLite.
//!
//! Owns: storing and listing cached answers per profile, and forgetting them when the library
//! changes. Every statement is scoped by profile. Must not: decide what counts as the same
//! question (the agent compares embeddings and anchors).

use sqlx::FromRow;

use super::{Store, StoreError, now};

/// A cached answer to add.
#[derive(Debug, Clone)]
pub struct NewCacheEntry<'a> {
    /// Action (`inquire`, `summarize`, …).
    pub action: &'a str,
    /// Scope key (mode, documents, set).
    pub scope: &'a str,
    /// The standalone question that was answered.
    pub question: &'a str,
    /// Its embedding.
    pub embedding: &'a [f32],
    /// The stored assistant message.
    pub message_id: &'a str,
    /// `[[document id, updated_at], …]` of the cited documents (JSON).
    pub documents: &'a str,
}

/// A cached answer.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheEntry {
    /// The question that was answered.
    pub question: String,
    /// Its embedding.
    pub embedding: Vec<f32>,
    /// The stored assistant message.
    pub message_id: String,
    /// `[[document id, updated_at], …]` of the cited documents (JSON).
    pub documents: String,
    /// When it was answered.
    pub created_at: String,
}

#[derive(FromRow)]
struct CacheRow {
    question: String,
    embedding: Vec<u8>,
    message_id: String,
    documents: String,
    created_at: String,
}

impl Store {
    /// Remembers an answer for the cache.
    pub async fn cache_answer(
        &self,
        profile_id: &str,
        e: &NewCacheEntry<'_>,
    ) -> Result<(), StoreError> {
        let blob: Vec<u8> = e.embedding.iter().flat_map(|x| x.to_le_bytes()).collect();
        sqlx::query(
            "INSERT INTO answer_cache(id, profile_id, action, scope, question, embedding, message_id, documents, created_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(profile_id)
        .bind(e.action)
        .bind(e.scope)
        .bind(e.question)
        .bind(blob)
        .bind(e.message_id)
        .bind(e.documents)
        .bind(now())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Cached answers of a profile for one action and scope, newest first.
    pub async fn cached_answers(
        &self,
        profile_id: &str,
        action: &str,
        scope: &str,
    ) -> Result<Vec<CacheEntry>, StoreError> {
        let rows = sqlx::query_as::<_, CacheRow>(
            "SELECT question, embedding, message_id, documents, created_at FROM answer_cache \
             WHERE profile_id = ? AND action = ? AND scope = ? ORDER BY created_at DESC LIMIT 500",
        )
        .bind(profile_id)
        .bind(action)
        .bind(scope)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| CacheEntry {
                question: r.question,
                embedding: r
                    .embedding
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect(),
                message_id: r.message_id,
                documents: r.documents,
                created_at: r.created_at,
            })
            .collect())
    }

    /// Number of cached answers of a profile.
    pub async fn cached_answer_count(&self, profile_id: &str) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT COUNT(*) FROM answer_cache WHERE profile_id = ?")
                .bind(profile_id)
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// Forgets every cached answer of a profile (the library changed).
    pub async fn forget_cached_answers(&self, profile_id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM answer_cache WHERE profile_id = ?")
            .bind(profile_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
