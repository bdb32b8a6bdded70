//! Expert review (spec 000's human escalation, for a desktop; issue 18 §3).
//!
//! A weak answer offers "Ask an expert": the run stores a review request (the question, the
//! candidate evidence, PolicyPal's draft) and pauses in a checkpointed `waiting_for_expert`
//! interrupt that survives restarts. A profile marked as reviewer answers it on this machine
//! ([`Agent::answer_review`]), or the request travels as a file ([`ReviewFile`]) to a colleague
//! whose filled-in reply is imported ([`Agent::import_review`]). Every citation of the answer is
//! verified on its page of the asking profile's documents before anything is stored; the waiting
//! run then resumes with the answer marked as an expert's, which the semantic cache then serves
//! for the same question.
//!
//! Owns: the request's evidence and file format, who may answer, and turning a reply into the
//! run's answer. Must not: store an unverified citation, or let one profile read another's
//! requests unless it is a reviewer.

use serde::{Deserialize, Serialize};

use crate::Error;
use crate::agent::evidence::refusal;
use crate::agent::graph::{ActiveGuard, Node, Transition};
use crate::agent::types::*;
use crate::agent::{Agent, Emit};
use crate::store::{NewReview, Profile, Review, ReviewStatus};

/// The option of a weak answer that escalates it.
pub(in crate::agent) const ASK_EXPERT: &str = "expert";
/// The option of a waiting run that withdraws its request.
pub(in crate::agent) const WITHDRAW: &str = "withdraw";
/// The choice that delivers an answered request to its waiting run.
pub(in crate::agent) const DELIVER: &str = "deliver";

/// What a review file says it is.
pub const REVIEW_FILE_FORMAT: &str = "policypal-review";
/// The version of the review file format.
pub const REVIEW_FILE_VERSION: u32 = 1;
/// Passages of candidate evidence a request carries.
const EVIDENCE_PASSAGES: usize = 8;

/// One passage of candidate evidence, as a reviewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewEvidence {
    /// Document id (in the asking profile's library).
    pub document_id: String,
    /// Its title and version, as a label.
    pub document: String,
    /// The page the passage starts on.
    pub page: u32,
    /// The passage.
    pub text: String,
}

/// A citation an expert gives: the document, the page and the exact words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpertCitation {
    /// Document id (from the request's evidence).
    pub document_id: String,
    /// Page.
    pub page: u32,
    /// The words, as printed on the page.
    pub quote: String,
}

/// An expert's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExpertReply {
    /// Who answers (a name or a role).
    #[serde(default)]
    pub reviewer: String,
    /// The expert's answer, as the asker will read it.
    #[serde(default)]
    pub answer: String,
    /// The passages it rests on (may be empty: an expert may answer from experience).
    #[serde(default)]
    pub citations: Vec<ExpertCitation>,
}

/// A request as a file for a colleague, and (its `reply` filled in) their answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewFile {
    /// Always [`REVIEW_FILE_FORMAT`].
    pub format: String,
    /// [`REVIEW_FILE_VERSION`].
    pub version: u32,
    /// The request.
    pub id: String,
    /// The profile that asked.
    pub asked_by: String,
    /// When (RFC 3339).
    pub asked_at: String,
    /// The question.
    pub question: String,
    /// PolicyPal's draft (what the evidence check did not let through).
    pub draft: String,
    /// Candidate evidence.
    pub evidence: Vec<ReviewEvidence>,
    /// For the expert to fill in.
    pub reply: ExpertReply,
}

impl ReviewFile {
    /// Reads a review file (a colleague's filled-in reply); an unreadable file or anything but
    /// a review file is a typed error.
    pub fn read(path: &std::path::Path) -> Result<Self, Error> {
        let bytes = std::fs::read(path).map_err(|source| Error::File {
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_slice(&bytes).map_err(|e| {
            Error::InvalidInput(format!(
                "{} is not a PolicyPal review file: {e}",
                path.display()
            ))
        })
    }
}

/// A request in an inbox.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReviewSummary {
    /// The request.
    pub id: String,
    /// The profile that asked.
    pub asked_by: String,
    /// The question.
    pub question: String,
    /// PolicyPal's draft.
    pub draft: String,
    /// Candidate evidence.
    pub evidence: Vec<ReviewEvidence>,
    /// Where it stands.
    pub status: ReviewStatus,
    /// When it was asked.
    pub asked_at: String,
    /// Seconds since it was asked.
    pub age_secs: i64,
    /// Who answered.
    pub reviewer: Option<String>,
    /// The thread it came from (the asker's).
    pub thread_id: String,
}

impl Agent<'_> {
    /// Stores the review request of a run whose answer was too weak (the choice "Ask an
    /// expert"); the run then waits in [`Node::AwaitExpert`].
    pub(in crate::agent) async fn request_review(
        &self,
        profile: &Profile,
        state: &mut RunState,
    ) -> Result<(), Error> {
        let docs = self.lib.documents(profile).await?;
        let question = state
            .standalone
            .clone()
            .unwrap_or_else(|| state.question.clone());
        // The passages the answer was judged on; when retrieval kept none (all too weak), the
        // closest ones of the documents in scope, for the expert to start from.
        let searched;
        let candidates = if state.evidence.is_empty() {
            searched = self
                .lib
                .search(
                    profile,
                    &crate::library::SearchRequest {
                        query: question.clone(),
                        k: EVIDENCE_PASSAGES,
                        documents: crate::agent::evidence::resolved_ids(state),
                        set: state.set.clone(),
                        doc_type: None,
                    },
                )
                .await?
                .iter()
                .map(crate::agent::evidence::evidence_of)
                .collect::<Vec<_>>();
            &searched
        } else {
            &state.evidence
        };
        let evidence: Vec<ReviewEvidence> = candidates
            .iter()
            .take(EVIDENCE_PASSAGES)
            .map(|e| ReviewEvidence {
                document_id: e.document_id.clone(),
                document: docs
                    .iter()
                    .find(|d| d.id == e.document_id)
                    .map(|d| d.label())
                    .unwrap_or_default(),
                page: e.page,
                text: e.text.clone(),
            })
            .collect();
        let id = self
            .lib
            .store()
            .create_review(&NewReview {
                profile_id: &profile.id,
                conversation_id: &state.thread_id,
                run_id: &state.run_id,
                message_id: &state.assistant_message_id,
                question: &question,
                draft: state.draft.as_deref().unwrap_or_default(),
                evidence: &serde_json::to_string(&evidence)
                    .map_err(|e| Error::Internal(format!("serialising evidence: {e}")))?,
            })
            .await?;
        state.review_id = Some(id);
        Ok(())
    }

    /// Withdraws the run's pending request (an answered one stays answered).
    pub(in crate::agent) async fn withdraw(&self, state: &RunState) -> Result<(), Error> {
        let Some(id) = &state.review_id else {
            return Ok(());
        };
        match self.lib.store().close_review(id, None).await {
            Ok(_) | Err(crate::store::StoreError::ReviewClosed { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// The node of a run waiting for an expert: waits while the request is pending, then
    /// answers with the expert's reply (or says it was withdrawn).
    pub(in crate::agent) async fn await_expert(
        &self,
        state: &mut RunState,
    ) -> Result<Transition, Error> {
        let id = state
            .review_id
            .clone()
            .ok_or_else(|| Error::Internal("a run waits for an expert without a request".into()))?;
        let r = self.lib.store().review(&id).await?;
        match r.status {
            ReviewStatus::Pending => Ok(Transition::Interrupt(
                Interrupt {
                    kind: InterruptKind::WaitingForExpert,
                    prompt: format!(
                        "Waiting for an expert's answer (request {}, asked {}). A reviewer profile on this computer can answer it from its review inbox, or the request can be exported as a file for a colleague and their reply imported.",
                        short(&r.id),
                        day(&r.created_at)
                    ),
                    options: vec![ChoiceOption {
                        id: WITHDRAW.into(),
                        label: "Withdraw the request".into(),
                    }],
                },
                Node::AwaitExpert,
            )),
            ReviewStatus::Withdrawn => {
                state.answer = Some(refusal(
                    "The question was not answered: its request to an expert was withdrawn.",
                ));
                Ok(Transition::Next(Node::Format))
            }
            ReviewStatus::Answered => {
                let citations: Vec<Citation> = r
                    .citations
                    .as_deref()
                    .map(serde_json::from_str)
                    .transpose()
                    .map_err(|e| Error::Internal(format!("review {id} citations: {e}")))?
                    .unwrap_or_default();
                let reviewer = r.reviewer.clone().unwrap_or_default();
                let text = format!(
                    "👤 **Expert answer** ({reviewer}, {}):\n\n{}",
                    day(r.answered_at.as_deref().unwrap_or_default()),
                    r.answer.clone().unwrap_or_default().trim()
                );
                let usage = state.answer.as_ref().and_then(|a| a.usage.clone());
                state.answer = Some(Answer {
                    status: Status::Answered,
                    text,
                    confidence: Some(Confidence::certain(if citations.is_empty() {
                        format!("answered by an expert ({reviewer}), without citations")
                    } else {
                        format!(
                            "answered by an expert ({reviewer}); each citation was verified on its page"
                        )
                    })),
                    citations,
                    options: Vec::new(),
                    usage,
                    audit: None,
                });
                Ok(Transition::Next(Node::Format))
            }
        }
    }

    /// The requests `profile` sees, oldest first: its own, and every profile's when it is a
    /// reviewer; pending ones only unless `all`.
    pub async fn reviews(&self, profile: &Profile, all: bool) -> Result<Vec<ReviewSummary>, Error> {
        let store = self.lib.store();
        let rows = store
            .reviews((!profile.reviewer).then_some(profile.id.as_str()), all)
            .await?;
        let names: std::collections::HashMap<String, String> = store
            .profiles()
            .await?
            .into_iter()
            .map(|p| (p.id, p.name))
            .collect();
        rows.into_iter()
            .map(|r| summary(r, &names))
            .collect::<Result<Vec<_>, _>>()
    }

    /// One request as a file for a colleague (its reply left for them to fill in).
    pub async fn review_file(&self, profile: &Profile, id: &str) -> Result<ReviewFile, Error> {
        let r = self.visible_review(profile, id).await?;
        let asker = self.lib.store().profile(&r.profile_id).await?;
        Ok(ReviewFile {
            format: REVIEW_FILE_FORMAT.into(),
            version: REVIEW_FILE_VERSION,
            id: r.id.clone(),
            asked_by: asker.name,
            asked_at: r.created_at.clone(),
            question: r.question.clone(),
            draft: r.draft.clone(),
            evidence: evidence_of(&r)?,
            reply: ExpertReply::default(),
        })
    }

    /// A reviewer profile answers a request: the citations are verified on their pages of the
    /// asking profile's documents (one that is not there refuses the whole reply, nothing is
    /// stored), the request is closed, and the waiting run resumes with the answer; the asking
    /// profile's turn.
    pub async fn answer_review(
        &self,
        reviewer: &Profile,
        id: &str,
        reply: &ExpertReply,
        emit: Emit<'_>,
    ) -> Result<TurnResult, Error> {
        if !reviewer.reviewer {
            return Err(Error::InvalidInput(format!(
                "profile {:?} is not a reviewer: mark it as one first (policypal profiles reviewer {:?} on)",
                reviewer.name, reviewer.name
            )));
        }
        let reply = ExpertReply {
            reviewer: if reply.reviewer.trim().is_empty() {
                reviewer.name.clone()
            } else {
                reply.reviewer.clone()
            },
            ..reply.clone()
        };
        self.deliver(id, &reply, emit).await
    }

    /// A colleague's reply, filled into an exported [`ReviewFile`], answers its request (see
    /// [`Agent::answer_review`]).
    pub async fn import_review(
        &self,
        file: &ReviewFile,
        emit: Emit<'_>,
    ) -> Result<TurnResult, Error> {
        if file.format != REVIEW_FILE_FORMAT || file.version != REVIEW_FILE_VERSION {
            return Err(Error::InvalidInput(format!(
                "not a PolicyPal review file of version {REVIEW_FILE_VERSION} (format {:?}, version {})",
                file.format, file.version
            )));
        }
        if file.reply.reviewer.trim().is_empty() {
            return Err(Error::InvalidInput(
                "the reply does not say who answered (reply.reviewer is empty)".into(),
            ));
        }
        self.deliver(&file.id, &file.reply, emit).await
    }

    /// The asking profile withdraws its request; its turn (the run ends with a note).
    pub async fn withdraw_review(
        &self,
        profile: &Profile,
        id: &str,
        emit: Emit<'_>,
    ) -> Result<TurnResult, Error> {
        let r = self.lib.store().review(id).await?;
        if r.profile_id != profile.id {
            return Err(crate::store::StoreError::ReviewNotFound(id.to_owned()).into());
        }
        self.lib.store().close_review(id, None).await?;
        self.resume_waiting(&r, DELIVER, emit).await
    }

    async fn deliver(
        &self,
        id: &str,
        reply: &ExpertReply,
        emit: Emit<'_>,
    ) -> Result<TurnResult, Error> {
        if reply.answer.trim().is_empty() {
            return Err(Error::InvalidInput("the expert's answer is empty".into()));
        }
        let store = self.lib.store();
        let r = store.review(id).await?;
        if r.status != ReviewStatus::Pending {
            return Err(crate::store::StoreError::ReviewClosed {
                id: id.to_owned(),
                status: r.status.as_str(),
            }
            .into());
        }
        let asker = store.profile(&r.profile_id).await?;
        let mut citations = Vec::new();
        for c in &reply.citations {
            let cited = self
                .cite_on_page(&asker, &c.document_id, c.page, "", &c.quote, None)
                .await?;
            let Some(cited) = cited else {
                let d = store.document(&asker.id, &c.document_id).await?;
                return Err(Error::InvalidInput(format!(
                    "the quote “{}” is not on page {} of {}: copy the words as they are printed there",
                    crate::agent::rules::text::clip(&c.quote, 80),
                    c.page,
                    d.label()
                )));
            };
            citations.push(cited);
        }
        let citations = serde_json::to_string(&citations)
            .map_err(|e| Error::Internal(format!("serialising citations: {e}")))?;
        let r = store
            .close_review(
                id,
                Some((reply.reviewer.trim(), reply.answer.trim(), &citations)),
            )
            .await?;
        self.resume_waiting(&r, DELIVER, emit).await
    }

    /// Resumes the run that waits for request `r` (also when later runs followed it in the
    /// thread): its answer replaces the waiting message.
    async fn resume_waiting(
        &self,
        r: &Review,
        choice: &str,
        emit: Emit<'_>,
    ) -> Result<TurnResult, Error> {
        let store = self.lib.store();
        let asker = store.profile(&r.profile_id).await?;
        let _guard = ActiveGuard::take(&r.conversation_id)?;
        let cp = store
            .latest_checkpoint_of_run(&asker.id, &r.run_id)
            .await?
            .ok_or_else(|| Error::Internal(format!("the run of review {} is gone", r.id)))?;
        self.continue_from(&asker, cp, Some(choice), emit).await
    }

    /// A request `profile` may see: its own, or any when it is a reviewer.
    async fn visible_review(&self, profile: &Profile, id: &str) -> Result<Review, Error> {
        let r = self.lib.store().review(id).await?;
        if r.profile_id != profile.id && !profile.reviewer {
            return Err(crate::store::StoreError::ReviewNotFound(id.to_owned()).into());
        }
        Ok(r)
    }
}

fn evidence_of(r: &Review) -> Result<Vec<ReviewEvidence>, Error> {
    serde_json::from_str(&r.evidence)
        .map_err(|e| Error::Internal(format!("review {} has corrupt evidence: {e}", r.id)))
}

fn summary(
    r: Review,
    names: &std::collections::HashMap<String, String>,
) -> Result<ReviewSummary, Error> {
    let evidence = evidence_of(&r)?;
    let age_secs = time::OffsetDateTime::parse(
        &r.created_at,
        &time::format_description::well_known::Rfc3339,
    )
    .map(|t| (time::OffsetDateTime::now_utc() - t).whole_seconds().max(0))
    .unwrap_or(0);
    Ok(ReviewSummary {
        asked_by: names.get(&r.profile_id).cloned().unwrap_or_default(),
        id: r.id,
        question: r.question,
        draft: r.draft,
        evidence,
        status: r.status,
        asked_at: r.created_at,
        age_secs,
        reviewer: r.reviewer,
        thread_id: r.conversation_id,
    })
}

/// The first block of a request id, as people read it out.
fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// The date of an RFC 3339 timestamp.
fn day(ts: &str) -> &str {
    ts.get(..10).unwrap_or(ts)
}
