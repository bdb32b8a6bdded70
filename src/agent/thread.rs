//! Threads as the user reviews them: the stored messages of a conversation decoded into typed
//! messages, the documents of earlier turns, and the Markdown export.
//!
//! Owns: `ThreadView`, `StoredMessage`, history lookups for follow-ups, `render_markdown`. Must not:
//! run the graph. A stored row that does not decode is an error, never silently dropped.

use crate::Error;
use crate::agent::Agent;
use crate::agent::evidence::*;
use crate::agent::graph::StoredTurn;
use crate::agent::resolve;
use crate::agent::types::*;
use crate::store::MessageRow;
use crate::store::Profile;
use serde::Serialize;

/// A turn of a thread as shown when the thread is reopened.
#[derive(Debug, Clone, Serialize)]
pub struct ThreadView {
    /// The conversation.
    pub conversation: crate::store::Conversation,
    /// Its messages in order, with their stored structure.
    pub messages: Vec<StoredMessage>,
    /// The thread's last run stopped before its end (its process died, or it failed) and is
    /// not running now: `resume` continues it from its last checkpoint.
    pub unfinished: bool,
}

/// A stored message, decoded.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct StoredMessage {
    /// Id.
    pub id: String,
    /// Who wrote it.
    pub role: Role,
    /// Text.
    pub content: String,
    /// The action of the turn (assistant messages).
    pub action: Option<Action>,
    /// Citations.
    pub citations: Vec<Citation>,
    /// Confidence.
    pub confidence: Option<Confidence>,
    /// How the answer was retrieved (assistant messages).
    pub retrieval: Option<RetrievalInfo>,
    /// Outcome of an assistant message.
    pub status: Option<Status>,
    /// Options the assistant offered (clarification, low confidence, refusal).
    pub options: Vec<ChoiceOption>,
    /// Token usage and cost when an LLM wrote the answer.
    pub usage: Option<Usage>,
    /// The structured report of an audit.
    pub audit: Option<AuditReport>,
    /// When.
    pub created_at: String,
}

/// Decodes one optional JSON column of a message row; a value that does not decode is an
/// error naming the message and the column, never silently dropped.
fn column<T: serde::de::DeserializeOwned>(
    r: &MessageRow,
    name: &str,
    value: Option<&str>,
) -> Result<Option<T>, Error> {
    value
        .map(|v| {
            serde_json::from_str(v).map_err(|e| {
                Error::Internal(format!("message {} has a corrupt {name} column: {e}", r.id))
            })
        })
        .transpose()
}

impl StoredMessage {
    /// Decodes a stored row; a corrupt row is an error.
    pub(in crate::agent) fn from_row(r: &MessageRow) -> Result<Self, Error> {
        let turn: Option<StoredTurn> = column(r, "turn", r.usage.as_deref())?;
        let role = Role::parse(&r.role).ok_or_else(|| {
            Error::Internal(format!("message {} has an unknown role {:?}", r.id, r.role))
        })?;
        let action = r
            .action
            .as_deref()
            .map(|a| {
                Action::parse(a).ok_or_else(|| {
                    Error::Internal(format!("message {} has an unknown action {a:?}", r.id))
                })
            })
            .transpose()?;
        Ok(Self {
            id: r.id.clone(),
            role,
            content: r.content.clone(),
            action,
            citations: column(r, "citations", Some(&r.citations))?.unwrap_or_default(),
            confidence: column(r, "confidence", r.confidence.as_deref())?,
            retrieval: column(r, "retrieval", r.retrieval.as_deref())?,
            status: turn.as_ref().map(|t| t.status),
            options: turn.as_ref().map(|t| t.options.clone()).unwrap_or_default(),
            usage: turn.and_then(|t| t.usage),
            audit: column(r, "audit", r.audit.as_deref())?,
            created_at: r.created_at.clone(),
        })
    }
}

impl Agent<'_> {
    /// Documents of earlier turns, newest first (resolved scope, else cited documents).
    pub(in crate::agent) async fn history_documents(
        &self,
        profile: &Profile,
        state: &RunState,
    ) -> Result<Vec<resolve::EarlierTurn>, Error> {
        let rows = self
            .lib
            .store()
            .messages(&profile.id, &state.thread_id)
            .await?;
        let mut out = Vec::new();
        for r in rows.iter().rev() {
            if r.role != Role::Assistant.as_str() || r.id == state.assistant_message_id {
                continue;
            }
            let m = StoredMessage::from_row(r)?;
            let resolved = m
                .retrieval
                .as_ref()
                .map(|r| r.documents.resolved.clone())
                .unwrap_or_default();
            let mut cited: Vec<String> = Vec::new();
            for c in &m.citations {
                if !cited.contains(&c.document_id) {
                    cited.push(c.document_id.clone());
                }
            }
            out.push(resolve::EarlierTurn {
                scope: resolved,
                answer_cites: cited,
            });
        }
        Ok(out)
    }

    pub(in crate::agent) async fn previous_standalone(
        &self,
        profile: &Profile,
        state: &RunState,
    ) -> Result<Option<String>, Error> {
        let rows = self
            .lib
            .store()
            .messages(&profile.id, &state.thread_id)
            .await?;
        for r in rows.iter().rev() {
            if r.role == Role::Assistant.as_str()
                && r.id != state.assistant_message_id
                && let Some(info) = StoredMessage::from_row(r)?.retrieval
            {
                return Ok(Some(info.standalone));
            }
        }
        Ok(None)
    }

    /// A thread with all its messages, decoded (works offline: no model, no index needed).
    pub async fn thread(&self, profile: &Profile, thread_id: &str) -> Result<ThreadView, Error> {
        let store = self.lib.store();
        let conversation = store.conversation(&profile.id, thread_id).await?;
        let messages = store
            .messages(&profile.id, thread_id)
            .await?
            .iter()
            .map(StoredMessage::from_row)
            .collect::<Result<_, _>>()?;
        Ok(ThreadView {
            conversation,
            messages,
            unfinished: self.unfinished(profile, thread_id).await?,
        })
    }

    /// One turn of a thread: the assistant message `message_id` (an answer or an audit) and the
    /// user message it answers, for exporting a single result.
    pub async fn turn_view(
        &self,
        profile: &Profile,
        thread_id: &str,
        message_id: &str,
    ) -> Result<ThreadView, Error> {
        let mut v = self.thread(profile, thread_id).await?;
        let Some(i) = v
            .messages
            .iter()
            .position(|m| m.id == message_id && m.role == Role::Assistant)
        else {
            return Err(Error::InvalidInput(format!(
                "message {message_id} is not an answer in thread {thread_id}; see `policypal threads show {thread_id} --json` for message ids"
            )));
        };
        let start = v.messages[..i]
            .iter()
            .rposition(|m| m.role == Role::User)
            .unwrap_or(i);
        v.messages = v.messages[start..=i].to_vec();
        Ok(v)
    }

    /// A thread as Markdown: every message with its confidence, findings and citations.
    pub async fn export_markdown(
        &self,
        profile: &Profile,
        thread_id: &str,
    ) -> Result<String, Error> {
        Ok(render_markdown(&self.thread(profile, thread_id).await?))
    }
}

/// Markdown of a thread view (whole thread or one turn).
pub fn render_markdown(v: &ThreadView) -> String {
    let mut out = format!(
        "# {}\n\n",
        if v.conversation.title.is_empty() {
            "Conversation"
        } else {
            &v.conversation.title
        }
    );
    for m in &v.messages {
        let who = if m.role == Role::User {
            "You"
        } else {
            "PolicyPal"
        };
        out.push_str(&format!("## {who} — {}\n\n{}\n\n", m.created_at, m.content));
        if let Some(hit) = m.retrieval.as_ref().and_then(|r| r.cached_from.as_ref()) {
            out.push_str(&format!(
                "Served from the answer cache (same question answered on {}).\n\n",
                hit.answered_at
            ));
        }
        if let Some(c) = &m.confidence {
            out.push_str(&format!(
                "Confidence: {:?} ({:.2}) — {}\n\n",
                c.level, c.score, c.reason
            ));
        }
        if let Some(a) = &m.audit
            && !a.findings.is_empty()
        {
            out.push_str(&format!(
                "Findings ({}):\n\n| Severity | Document | Page | Finding | Source quote | Required by |\n|---|---|---|---|---|---|\n",
                a.overall_status.label()
            ));
            let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
            for f in &a.findings {
                out.push_str(&format!(
                    "| {} | {} | {} | {} | “{}” | “{}” |\n",
                    f.severity.label(),
                    cell(&f.target_doc_title),
                    f.target.page,
                    cell(&f.summary),
                    cell(&f.source_quote),
                    cell(&f.target.quote)
                ));
            }
            out.push('\n');
        }
        for (i, c) in m.citations.iter().enumerate() {
            match c.source_type {
                SourceType::Web => out.push_str(&format!(
                    "[{}] 🌐 {} — {}: “{}”\n",
                    i + 1,
                    c.title,
                    c.url.as_deref().unwrap_or_default(),
                    c.quote
                )),
                SourceType::Document => out.push_str(&format!(
                    "[{}] {}, page {} ({}): “{}”\n",
                    i + 1,
                    label(&c.title, &c.version),
                    c.page,
                    c.file_name,
                    c.quote
                )),
            }
        }
        if !m.citations.is_empty() {
            out.push('\n');
        }
    }
    out
}
