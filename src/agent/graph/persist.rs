//! Persisting a finished turn and decoding a stored one.
//!
//! Owns: the assistant message row of a run (text, citations, confidence, status, options, usage,
//! audit), the cache entry, and turning a stored row back into a turn. Must not: change what the
//! run decided.

use crate::Error;
use crate::agent::Agent;
use crate::agent::evidence::*;
use crate::agent::thread::StoredMessage;
use crate::agent::types::*;
use crate::store::Profile;
use crate::store::{MessageRow, NewCheckpoint, NewMessage};
use serde::Serialize;

pub(in crate::agent) fn json<T: Serialize>(v: &T) -> Result<String, Error> {
    serde_json::to_string(v).map_err(|e| Error::Internal(format!("serialising: {e}")))
}

/// The checkpoint row of `state` about to run `node` (`state_json` is `state` serialised).
pub(in crate::agent) fn checkpoint_row<'a>(
    state: &'a RunState,
    node: &'a str,
    parent: Option<&'a str>,
    state_json: &'a str,
) -> NewCheckpoint<'a> {
    NewCheckpoint {
        run_id: &state.run_id,
        parent_id: parent,
        node,
        format_version: CHECKPOINT_FORMAT,
        state: state_json,
    }
}

impl Agent<'_> {
    /// Stores the run's answer and its final checkpoint (`end`: done, or interrupted with a
    /// question for the user) in one transaction: a crash leaves the run resumable or finished,
    /// never answered but resumable, nor finished without its answer.
    pub(in crate::agent) async fn persist(
        &self,
        profile: &Profile,
        state: &RunState,
        end: &str,
        parent: Option<&str>,
    ) -> Result<TurnResult, Error> {
        let mut answer = state
            .answer
            .clone()
            .unwrap_or_else(|| refusal("No answer was produced."));
        // The model's side calls of the run (routing, the follow-up rewrite) count with the
        // answer they led to, whatever the action.
        if let (Some(side), true) = (&state.rewrite_usage, end == super::DONE) {
            answer.usage.get_or_insert_with(Usage::default).add(side);
        }
        let retrieval = RetrievalInfo {
            question: state.question.clone(),
            standalone: state.standalone.clone().unwrap_or_default(),
            action: state.action,
            intent_reason: state.intent_reason.clone(),
            documents: state.documents.clone().unwrap_or_default(),
            mode: state.mode,
            evidence: state
                .evidence
                .iter()
                .map(|e| EvidenceScore {
                    chunk_id: e.chunk_id.clone(),
                    vector_score: e.vector_score,
                    score: e.score,
                })
                .collect(),
            cached_from: state.cached_from.clone(),
        };
        let turn = TurnResult {
            thread_id: state.thread_id.clone(),
            message_id: state.assistant_message_id.clone(),
            action: state.action,
            answer,
            retrieval,
            cached: state.cached_from.is_some(),
        };
        let stored = StoredTurn {
            status: turn.answer.status,
            options: turn.answer.options.clone(),
            usage: turn.answer.usage.clone(),
            info: turn.retrieval.clone(),
        };
        self.lib
            .store()
            .finish_turn(
                &profile.id,
                &NewMessage {
                    id: &turn.message_id,
                    conversation_id: &turn.thread_id,
                    role: Role::Assistant.as_str(),
                    content: &turn.answer.text,
                    action: turn.action.map(Action::as_str),
                    citations: &json(&turn.answer.citations)?,
                    confidence: turn
                        .answer
                        .confidence
                        .as_ref()
                        .map(json)
                        .transpose()?
                        .as_deref(),
                    audit: turn.answer.audit.as_ref().map(json).transpose()?.as_deref(),
                    usage: Some(&json(&stored)?),
                    retrieval: Some(&json(&turn.retrieval)?),
                },
                &checkpoint_row(state, end, parent, &json(state)?),
            )
            .await?;
        self.remember(profile, state, &turn).await?;
        Ok(turn)
    }

    pub(in crate::agent) fn stored_turn(&self, row: &MessageRow) -> Result<TurnResult, Error> {
        let m = StoredMessage::from_row(row)?;
        let stored: StoredTurn = row
            .usage
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| {
                Error::Internal(format!("message {} has a corrupt turn column: {e}", row.id))
            })?
            .ok_or_else(|| Error::Internal("stored answer without its metadata".into()))?;
        Ok(TurnResult {
            thread_id: row.conversation_id.clone(),
            message_id: row.id.clone(),
            action: m.action,
            answer: Answer {
                status: stored.status,
                text: row.content.clone(),
                citations: m.citations,
                confidence: m.confidence,
                options: stored.options,
                usage: stored.usage,
                audit: m.audit,
            },
            cached: stored.info.cached_from.is_some(),
            retrieval: stored.info,
        })
    }
}

/// What is stored with an assistant message besides text, citations and confidence.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub(in crate::agent) struct StoredTurn {
    pub(in crate::agent) status: Status,
    pub(in crate::agent) options: Vec<ChoiceOption>,
    pub(in crate::agent) usage: Option<Usage>,
    pub(in crate::agent) info: RetrievalInfo,
}
