//! The graph: the only place that knows the order of the steps.
//!
//! Owns: the nodes' names and order (contextualize → resolve intent → resolve documents →
//! validate → act → check confidence → format → persist), one active run per thread, interrupts
//! and resuming them (also after a restart), checkpoints after every node, cancellation. Must not:
//! answer, cite or judge evidence itself (the nodes and actions do).

mod nodes;
mod persist;

pub(in crate::agent) use persist::{StoredTurn, checkpoint_row, json};

use std::collections::HashSet;

use crate::Error;
use crate::agent::evidence::*;
use crate::agent::resolve;
use crate::agent::types::*;
use crate::agent::{Agent, Emit};
use crate::store::NewMessage;
use crate::store::Profile;
use serde::Serialize;
use std::sync::atomic::Ordering;
use std::sync::{LazyLock, Mutex};

/// The graph's nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Node {
    /// Rewrite a follow-up into a standalone question.
    Contextualize,
    /// Choose the action.
    ResolveIntent,
    /// Choose the documents.
    ResolveDocuments,
    /// Check the action's requirements.
    Validate,
    /// Retrieve and answer.
    Act,
    /// Judge the evidence.
    CheckConfidence,
    /// Build the text and Sources block.
    Format,
    /// Store the assistant message.
    Persist,
    /// Wait for the expert a weak answer was escalated to (issue 18 §3).
    AwaitExpert,
}

impl Node {
    fn as_str(self) -> &'static str {
        match self {
            Self::Contextualize => "contextualize",
            Self::ResolveIntent => "resolve_intent",
            Self::ResolveDocuments => "resolve_documents",
            Self::Validate => "validate",
            Self::Act => "act",
            Self::CheckConfidence => "check_confidence",
            Self::Format => "format",
            Self::Persist => "persist",
            Self::AwaitExpert => "await_expert",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        [
            Self::Contextualize,
            Self::ResolveIntent,
            Self::ResolveDocuments,
            Self::Validate,
            Self::Act,
            Self::CheckConfidence,
            Self::Format,
            Self::Persist,
            Self::AwaitExpert,
        ]
        .into_iter()
        .find(|n| n.as_str() == s)
    }

    fn status(self) -> &'static str {
        match self {
            Self::Contextualize => "Reading the conversation",
            Self::ResolveIntent => "Identifying the request",
            Self::ResolveDocuments => "Identifying the documents",
            Self::Validate => "Checking the request",
            Self::Act => "Searching the library",
            Self::CheckConfidence => "Checking the evidence",
            Self::Format => "Preparing the answer",
            Self::Persist => "Saving",
            Self::AwaitExpert => "Asking an expert",
        }
    }
}

/// Checkpoint node names that are not graph nodes.
pub(in crate::agent) const DONE: &str = "done";

pub(in crate::agent) const INTERRUPTED: &str = "interrupted";

/// What a node asks the runner to do next.
pub(in crate::agent) enum Transition {
    Next(Node),
    Interrupt(Interrupt, Node),
}

/// Threads with a run in progress in this process.
static ACTIVE: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(|| Mutex::new(HashSet::new()));

/// Marks a thread as running until dropped (one active run per thread).
pub(in crate::agent) struct ActiveGuard(String);

impl ActiveGuard {
    pub(in crate::agent) fn take(thread: &str) -> Result<Self, Error> {
        let mut set = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
        if !set.insert(thread.to_owned()) {
            return Err(Error::Busy(thread.to_owned()));
        }
        Ok(Self(thread.to_owned()))
    }
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        ACTIVE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.0);
    }
}

impl Agent<'_> {
    /// Answers one user message (a new run), or returns the stored answer when this message id
    /// was answered before, or finishes the run a crash interrupted.
    pub async fn ask(
        &self,
        profile: &Profile,
        req: AskRequest,
        emit: Emit<'_>,
    ) -> Result<TurnResult, Error> {
        let text = req.text.trim().to_owned();
        if text.is_empty() {
            return Err(Error::InvalidInput("the message is empty".into()));
        }
        if text.chars().count() > MAX_QUESTION_CHARS {
            return Err(Error::InvalidInput(format!(
                "the message is longer than {MAX_QUESTION_CHARS} characters; shorten it or split it into several questions"
            )));
        }
        let mode = match req.mode {
            Some(Mode::Generative) if self.lib.settings().llm.is_none() => {
                return Err(Error::InvalidInput(
                    "generative mode needs a language model: add \"llm\" to settings.json, or use --mode extractive".into(),
                ));
            }
            Some(m) => m,
            None if self.lib.settings().llm.is_some() => Mode::Generative,
            None => Mode::Extractive,
        };
        let store = self.lib.store();
        let message_id = req
            .message_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
        let reply_id = format!("{message_id}:reply");
        if let Some(existing) = store.message(&profile.id, &message_id).await? {
            // Idempotency: the same message id is one answer.
            if let Some(reply) = store.message(&profile.id, &reply_id).await? {
                return self.stored_turn(&reply);
            }
            return self
                .resume(profile, &existing.conversation_id, None, emit)
                .await;
        }
        let thread_id = match &req.thread_id {
            Some(t) => store.conversation(&profile.id, t).await?.id,
            None => uuid::Uuid::now_v7().to_string(),
        };
        let _guard = ActiveGuard::take(&thread_id)?;
        let tags = resolve::tags(&text);
        let mut explicit = req.documents.clone();
        for d in tags.documents {
            if !explicit.contains(&d) {
                explicit.push(d);
            }
        }
        let state = RunState {
            format: CHECKPOINT_FORMAT,
            run_id: uuid::Uuid::now_v7().to_string(),
            thread_id: thread_id.clone(),
            profile_id: profile.id.clone(),
            user_message_id: message_id,
            assistant_message_id: reply_id,
            question: text,
            mode,
            explicit_documents: explicit,
            set: req.set.clone(),
            explicit_action: req.action.or(tags.action),
            standalone: None,
            action: None,
            intent_reason: String::new(),
            documents: None,
            evidence: Vec::new(),
            answer: None,
            pending: None,
            choice: None,
            continue_anyway: false,
            context_retry: ContextRetry::Unavailable,
            route_set_aside: false,
            web: req.web || tags.web,
            web_citations: None,
            cached_from: None,
            rewrite_usage: None,
            routed_documents: None,
            draft: None,
            review_id: None,
        };
        // The thread, the question and the run's first checkpoint are written together: a
        // crash leaves a run to resume or nothing, never a question without a run.
        let parent = store
            .begin_turn(
                &profile.id,
                &resolve::thread_title(&state.question),
                &NewMessage {
                    id: &state.user_message_id,
                    conversation_id: &thread_id,
                    role: Role::User.as_str(),
                    content: &state.question,
                    citations: "[]",
                    ..NewMessage::default()
                },
                &checkpoint_row(&state, Node::Contextualize.as_str(), None, &json(&state)?),
            )
            .await?
            .ok_or_else(|| {
                Error::InvalidInput(format!(
                    "message id {:?} is already in use; send a new id",
                    state.user_message_id
                ))
            })?;
        emit(&Event::Started {
            thread_id,
            run_id: state.run_id.clone(),
        });
        self.run(profile, state, Node::Contextualize, Some(parent), emit)
            .await
    }

    /// Whether the thread's last run stopped before its end (its process died, or it failed)
    /// and does not run in this process now: [`Self::resume`] would continue it.
    pub(in crate::agent) async fn unfinished(
        &self,
        profile: &Profile,
        thread_id: &str,
    ) -> Result<bool, Error> {
        if ACTIVE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(thread_id)
        {
            return Ok(false);
        }
        let cp = self
            .lib
            .store()
            .latest_checkpoint(&profile.id, thread_id)
            .await?;
        Ok(cp.is_some_and(|cp| {
            cp.format_version == CHECKPOINT_FORMAT && cp.node != DONE && cp.node != INTERRUPTED
        }))
    }

    /// Continues a thread's last run: answers its open question with `choice`, or finishes a run
    /// that a crash interrupted.
    pub async fn resume(
        &self,
        profile: &Profile,
        thread_id: &str,
        choice: Option<&str>,
        emit: Emit<'_>,
    ) -> Result<TurnResult, Error> {
        let store = self.lib.store();
        store.conversation(&profile.id, thread_id).await?;
        let _guard = ActiveGuard::take(thread_id)?;
        let Some(cp) = store.latest_checkpoint(&profile.id, thread_id).await? else {
            return Err(Error::InvalidInput(
                "this thread has no run to resume".into(),
            ));
        };
        self.continue_from(profile, cp, choice, emit).await
    }

    /// Continues a run from its checkpoint `cp` (with the user's `choice` when it waits for
    /// one). The caller holds the thread's [`ActiveGuard`].
    pub(in crate::agent) async fn continue_from(
        &self,
        profile: &Profile,
        cp: crate::store::CheckpointRow,
        choice: Option<&str>,
        emit: Emit<'_>,
    ) -> Result<TurnResult, Error> {
        if cp.format_version != CHECKPOINT_FORMAT {
            return Err(Error::InvalidInput(format!(
                "the thread's last run was saved in checkpoint format {} and cannot be resumed by this version",
                cp.format_version
            )));
        }
        let mut state: RunState = serde_json::from_str(&cp.state)
            .map_err(|e| Error::Internal(format!("checkpoint: {e}")))?;
        emit(&Event::Started {
            thread_id: state.thread_id.clone(),
            run_id: state.run_id.clone(),
        });
        match cp.node.as_str() {
            DONE => Err(Error::InvalidInput(
                "the thread's last run is finished; there is nothing to resume".into(),
            )),
            INTERRUPTED => {
                let pending = state
                    .pending
                    .clone()
                    .ok_or_else(|| Error::Internal("interrupted run without a question".into()))?;
                let ids = pending
                    .options
                    .iter()
                    .map(|o| o.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                let Some(choice) = choice else {
                    return Err(Error::InvalidInput(format!(
                        "the run is waiting for a choice: {ids}"
                    )));
                };
                // An expert's answer arrives as the choice "answered" (see `agent::review`).
                let delivered = pending.kind == InterruptKind::WaitingForExpert
                    && choice == crate::agent::review::DELIVER;
                if !delivered && !pending.options.iter().any(|o| o.id == choice) {
                    return Err(Error::InvalidInput(format!(
                        "{choice:?} is not one of the options: {ids}"
                    )));
                }
                let next = self
                    .apply_choice(profile, &mut state, &pending, choice)
                    .await?;
                let parent = self.checkpoint(&state, next.as_str(), Some(&cp.id)).await?;
                self.run(profile, state, next, Some(parent), emit).await
            }
            other => {
                let node = Node::parse(other)
                    .ok_or_else(|| Error::Internal(format!("unknown checkpoint node {other}")))?;
                self.run(profile, state, node, Some(cp.id), emit).await
            }
        }
    }

    pub(in crate::agent) async fn apply_choice(
        &self,
        profile: &Profile,
        state: &mut RunState,
        pending: &Interrupt,
        choice: &str,
    ) -> Result<Node, Error> {
        state.choice = Some(choice.to_owned());
        state.pending = None;
        let mut docs = state.documents.clone().unwrap_or_default();
        match pending.kind {
            InterruptKind::ConfirmDocuments | InterruptKind::SpecifyDocuments => {
                if let Some(id) = choice.strip_prefix("doc:") {
                    let d = self.lib.store().document(&profile.id, id).await?;
                    docs.inferred = vec![d.id];
                } else if choice == "library" {
                    docs.inferred.clear();
                }
                // "confirm" keeps the inferred documents.
                docs.resolved = union(&docs.explicit, &docs.inferred);
                docs.certainty = Some(Certainty::High);
                docs.reasoning = format!("{} (confirmed by the user)", docs.reasoning);
                state.documents = Some(docs);
                Ok(Node::Validate)
            }
            InterruptKind::LowConfidence if choice == crate::agent::review::ASK_EXPERT => {
                self.request_review(profile, state).await?;
                Ok(Node::AwaitExpert)
            }
            InterruptKind::WaitingForExpert => {
                if choice == crate::agent::review::WITHDRAW {
                    self.withdraw(state).await?;
                }
                Ok(Node::AwaitExpert)
            }
            InterruptKind::LowConfidence => {
                if choice == "web" {
                    state.web = true;
                    state.answer = None;
                    Ok(Node::Act)
                } else if choice == "continue" {
                    state.continue_anyway = true;
                    Ok(Node::CheckConfidence)
                } else {
                    Ok(Node::Format)
                }
            }
        }
    }

    pub(in crate::agent) async fn checkpoint(
        &self,
        state: &RunState,
        node: &str,
        parent: Option<&str>,
    ) -> Result<String, Error> {
        Ok(self
            .lib
            .store()
            .save_checkpoint(
                &state.profile_id,
                &state.thread_id,
                &checkpoint_row(state, node, parent, &json(state)?),
            )
            .await?)
    }

    pub(in crate::agent) async fn run(
        &self,
        profile: &Profile,
        mut state: RunState,
        mut node: Node,
        mut parent: Option<String>,
        emit: Emit<'_>,
    ) -> Result<TurnResult, Error> {
        // Whether any answer text streamed (a model's tokens, an extractive answer's verified
        // quotes): the text streamed is a draft, and the answer as stored comes with `Done`.
        let streamed = std::sync::atomic::AtomicBool::new(false);
        let tracking = |e: &Event| {
            if matches!(e, Event::Token { .. }) {
                streamed.store(true, Ordering::SeqCst);
            }
            emit(e);
        };
        let emit: Emit<'_> = &tracking;
        loop {
            if self.cancel.swap(false, Ordering::SeqCst) {
                return Err(Error::Cancelled);
            }
            emit(&Event::Status {
                message: node.status().to_owned(),
            });
            let transition = match node {
                Node::Contextualize => self.contextualize(profile, &mut state).await?,
                Node::ResolveIntent => self.resolve_intent(profile, &mut state).await?,
                Node::ResolveDocuments => self.resolve_documents(profile, &mut state).await?,
                Node::Validate => self.validate(&mut state),
                Node::Act => self.act(profile, &mut state, emit).await?,
                Node::CheckConfidence => self.check_confidence(&mut state),
                Node::Format => self.format(&mut state),
                Node::AwaitExpert => self.await_expert(&mut state).await?,
                Node::Persist => {
                    let turn = self
                        .persist(profile, &state, DONE, parent.as_deref())
                        .await?;
                    if let Some(c) = &turn.answer.confidence {
                        emit(&Event::Confidence {
                            confidence: c.clone(),
                        });
                    }
                    if !streamed.load(Ordering::SeqCst) {
                        // An answer nothing streamed of arrives whole.
                        emit(&Event::Token {
                            text: turn.answer.text.clone(),
                        });
                    }
                    emit(&Event::Sources {
                        citations: turn.answer.citations.clone(),
                    });
                    emit(&Event::Done {
                        message: Box::new(turn.clone()),
                    });
                    return Ok(turn);
                }
            };
            match transition {
                Transition::Next(next) => {
                    parent = Some(
                        self.checkpoint(&state, next.as_str(), parent.as_deref())
                            .await?,
                    );
                    node = next;
                }
                Transition::Interrupt(interrupt, _resume_at) => {
                    state.pending = Some(interrupt.clone());
                    let answer = Answer {
                        status: match interrupt.kind {
                            InterruptKind::LowConfidence => Status::Refused,
                            InterruptKind::WaitingForExpert => Status::WaitingForExpert,
                            InterruptKind::ConfirmDocuments | InterruptKind::SpecifyDocuments => {
                                Status::NeedsClarification
                            }
                        },
                        text: interrupt.prompt.clone(),
                        citations: Vec::new(),
                        confidence: state.answer.as_ref().and_then(|a| a.confidence.clone()),
                        options: interrupt.options.clone(),
                        // Tokens a model spent on the draft this replaces are still counted.
                        usage: state.answer.as_ref().and_then(|a| a.usage.clone()),
                        audit: None,
                    };
                    state.answer = Some(answer);
                    let turn = self
                        .persist(profile, &state, INTERRUPTED, parent.as_deref())
                        .await?;
                    emit(&Event::Clarification { interrupt });
                    emit(&Event::Done {
                        message: Box::new(turn.clone()),
                    });
                    return Ok(turn);
                }
            }
        }
    }
}
