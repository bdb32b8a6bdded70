//! Expert review requests in SQLite (issue 18 §3).
//!
//! Owns: the `reviews` rows (a question a profile escalated, its candidate evidence and draft,
//! and the expert's answer once there is one) and the profiles' reviewer flag. A request moves
//! pending → answered or pending → withdrawn, once. Must not: verify an answer's citations
//! (the agent does, against the asking profile's documents) or resume the waiting run.

use serde::{Deserialize, Serialize};
use sqlx::FromRow;

use super::{Store, StoreError, now};

/// Where a request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewStatus {
    /// Waiting for an expert.
    Pending,
    /// An expert answered.
    Answered,
    /// The asker withdrew it.
    Withdrawn,
}

impl ReviewStatus {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Answered => "answered",
            Self::Withdrawn => "withdrawn",
        }
    }

    fn parse(s: &str) -> Result<Self, StoreError> {
        match s {
            "pending" => Ok(Self::Pending),
            "answered" => Ok(Self::Answered),
            "withdrawn" => Ok(Self::Withdrawn),
            other => Err(StoreError::Corrupt(format!("review status {other:?}"))),
        }
    }
}

/// A request to store.
#[derive(Debug, Clone)]
pub struct NewReview<'a> {
    /// The profile that asked.
    pub profile_id: &'a str,
    /// Its conversation.
    pub conversation_id: &'a str,
    /// The run that waits for the answer.
    pub run_id: &'a str,
    /// The assistant message that waits for the answer.
    pub message_id: &'a str,
    /// The question as asked (standalone).
    pub question: &'a str,
    /// What PolicyPal had drafted (may be empty).
    pub draft: &'a str,
    /// The candidate evidence (JSON, the agent's `ReviewEvidence` list).
    pub evidence: &'a str,
}

/// A stored request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Review {
    /// Id.
    pub id: String,
    /// The profile that asked.
    pub profile_id: String,
    /// Its conversation.
    pub conversation_id: String,
    /// The run that waits for the answer.
    pub run_id: String,
    /// The assistant message that waits for the answer.
    pub message_id: String,
    /// The question.
    pub question: String,
    /// PolicyPal's draft.
    pub draft: String,
    /// Candidate evidence (JSON).
    pub evidence: String,
    /// Where it stands.
    pub status: ReviewStatus,
    /// Who answered.
    pub reviewer: Option<String>,
    /// The expert's answer.
    pub answer: Option<String>,
    /// The answer's verified citations (JSON).
    pub citations: Option<String>,
    /// When it was asked (RFC 3339).
    pub created_at: String,
    /// When it was answered or withdrawn.
    pub answered_at: Option<String>,
}

#[derive(FromRow)]
struct ReviewRow {
    id: String,
    profile_id: String,
    conversation_id: String,
    run_id: String,
    message_id: String,
    question: String,
    draft: String,
    evidence: String,
    status: String,
    reviewer: Option<String>,
    answer: Option<String>,
    citations: Option<String>,
    created_at: String,
    answered_at: Option<String>,
}

impl TryFrom<ReviewRow> for Review {
    type Error = StoreError;
    fn try_from(r: ReviewRow) -> Result<Self, StoreError> {
        Ok(Self {
            status: ReviewStatus::parse(&r.status)?,
            id: r.id,
            profile_id: r.profile_id,
            conversation_id: r.conversation_id,
            run_id: r.run_id,
            message_id: r.message_id,
            question: r.question,
            draft: r.draft,
            evidence: r.evidence,
            reviewer: r.reviewer,
            answer: r.answer,
            citations: r.citations,
            created_at: r.created_at,
            answered_at: r.answered_at,
        })
    }
}

const COLUMNS: &str = "id, profile_id, conversation_id, run_id, message_id, question, draft, evidence, \
                       status, reviewer, answer, citations, created_at, answered_at";

impl Store {
    /// Stores a pending request; its id.
    pub async fn create_review(&self, r: &NewReview<'_>) -> Result<String, StoreError> {
        let id = uuid::Uuid::now_v7().to_string();
        sqlx::query(
            "INSERT INTO reviews(id, profile_id, conversation_id, run_id, message_id, question, draft, evidence, status, created_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
        )
        .bind(&id)
        .bind(r.profile_id)
        .bind(r.conversation_id)
        .bind(r.run_id)
        .bind(r.message_id)
        .bind(r.question)
        .bind(r.draft)
        .bind(r.evidence)
        .bind(now())
        .execute(&self.pool)
        .await?;
        Ok(id)
    }

    /// One request, whichever profile asked it (an id is a UUID: it names one request).
    pub async fn review(&self, id: &str) -> Result<Review, StoreError> {
        let row: Option<ReviewRow> =
            sqlx::query_as(&format!("SELECT {COLUMNS} FROM reviews WHERE id = ?"))
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        row.ok_or_else(|| StoreError::ReviewNotFound(id.to_owned()))?
            .try_into()
    }

    /// Requests, oldest first: of one profile, or of every profile (a reviewer's inbox);
    /// pending ones only unless `all`.
    pub async fn reviews(
        &self,
        profile_id: Option<&str>,
        all: bool,
    ) -> Result<Vec<Review>, StoreError> {
        let rows: Vec<ReviewRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM reviews WHERE (? IS NULL OR profile_id = ?) \
             AND (? OR status = 'pending') ORDER BY created_at"
        ))
        .bind(profile_id)
        .bind(profile_id)
        .bind(all)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(Review::try_from).collect()
    }

    /// Closes a pending request with an answer (`Some((reviewer, text, citations JSON))`) or
    /// as withdrawn (`None`); a request closed already is an error and stays as it was.
    pub async fn close_review(
        &self,
        id: &str,
        answer: Option<(&str, &str, &str)>,
    ) -> Result<Review, StoreError> {
        let (status, reviewer, text, citations) = match answer {
            Some((who, text, citations)) => (
                ReviewStatus::Answered,
                Some(who),
                Some(text),
                Some(citations),
            ),
            None => (ReviewStatus::Withdrawn, None, None, None),
        };
        let done = sqlx::query(
            "UPDATE reviews SET status = ?, reviewer = ?, answer = ?, citations = ?, answered_at = ? \
             WHERE id = ? AND status = 'pending'",
        )
        .bind(status.as_str())
        .bind(reviewer)
        .bind(text)
        .bind(citations)
        .bind(now())
        .bind(id)
        .execute(&self.pool)
        .await?;
        let r = self.review(id).await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::ReviewClosed {
                id: id.to_owned(),
                status: r.status.as_str(),
            });
        }
        Ok(r)
    }

    /// Marks a profile as a reviewer (or not).
    pub async fn set_reviewer(&self, profile_id: &str, reviewer: bool) -> Result<(), StoreError> {
        let r = sqlx::query("UPDATE profiles SET reviewer = ? WHERE id = ?")
            .bind(reviewer)
            .bind(profile_id)
            .execute(&self.pool)
            .await?;
        if r.rows_affected() == 0 {
            return Err(StoreError::ProfileNotFound(profile_id.to_owned()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_closes_once_and_the_database_refuses_an_unknown_status() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().join("db.sqlite3")).await.unwrap();
        let p = store
            .create_profile("asker", &crate::store::UserContext::default())
            .await
            .unwrap();
        let new = NewReview {
            profile_id: &p.id,
            conversation_id: "c",
            run_id: "r",
            message_id: "m",
            question: "q?",
            draft: "",
            evidence: "[]",
        };
        let id = store.create_review(&new).await.unwrap();
        let other = store.create_review(&new).await.unwrap();
        assert_eq!(store.reviews(Some(&p.id), false).await.unwrap().len(), 2);
        assert_eq!(store.reviews(Some("nobody"), false).await.unwrap().len(), 0);
        let r = store
            .close_review(
                &id,
                Some(("Dr Expert", "Records stay for seven years.", "[]")),
            )
            .await
            .unwrap();
        assert_eq!(r.status, ReviewStatus::Answered);
        assert_eq!(r.reviewer.as_deref(), Some("Dr Expert"));
        let again = store.close_review(&id, None).await.unwrap_err();
        assert!(matches!(
            again,
            StoreError::ReviewClosed {
                status: "answered",
                ..
            }
        ));
        assert_eq!(
            store.review(&id).await.unwrap().status,
            ReviewStatus::Answered
        );
        assert_eq!(store.reviews(None, false).await.unwrap().len(), 1);
        assert_eq!(store.reviews(None, true).await.unwrap().len(), 2);
        assert!(matches!(
            store.review("missing").await.unwrap_err(),
            StoreError::ReviewNotFound(_)
        ));
        sqlx::query("UPDATE reviews SET status = 'lost' WHERE id = ?")
            .bind(&other)
            .execute(&store.pool)
            .await
            .unwrap_err(); // the CHECK constraint refuses it
        store.set_reviewer(&p.id, true).await.unwrap();
        assert!(store.profile(&p.id).await.unwrap().reviewer);
    }
}
