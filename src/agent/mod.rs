//! The agent: a small typed state machine over the library, checkpointed after every node.
//!
//! Layout (each module says what it owns and must not):
//! - [`graph`]: the order of the steps, interrupts, checkpoints, resuming, persisting a turn;
//! - [`action`]: one file per action (inquire, summarize, compare, audit);
//! - [`evidence`]: search results as passages, verified quotes and citations, refusals;
//! - [`model`]: what a language model does in a run (rewrite, grounded generation);
//! - `synthesis`: a model's grounded write-up of verified quotes (generative Summarize, Compare);
//! - [`rules`]: the pure heuristics, with one copy of each word list;
//! - [`resolve`]: which action and which documents a message means;
//! - [`review`]: expert review: escalating a weak answer, answering it, the request file;
//! - [`thread`]: stored conversations as the user reviews and exports them;
//! - `cache`: the semantic answer cache.
//!
//! Must not: print, or answer from anything but retrieved passages.

pub mod action;
mod cache;
pub mod evidence;
mod graph;
mod model;
pub mod resolve;
pub mod review;
mod route;
pub mod rules;
mod synthesis;
mod thread;
pub mod types;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::Error;
use crate::config::ConfidenceSettings;
use crate::library::Library;
use crate::store::{Document, Profile};
use types::*;

pub use action::SentenceSignals;
pub use graph::Node;
pub use thread::{StoredMessage, ThreadView, render_markdown};

/// Sink for streamed events.
pub type Emit<'a> = &'a (dyn Fn(&Event) + Send + Sync);

/// The agent over one library.
pub struct Agent<'a> {
    lib: &'a Library,
    confidence: ConfidenceSettings,
    cancel: Arc<AtomicBool>,
    use_cache: bool,
}

impl<'a> Agent<'a> {
    /// An agent over `lib`.
    pub fn new(lib: &'a Library) -> Self {
        Self {
            lib,
            confidence: lib.settings().confidence,
            cancel: Arc::new(AtomicBool::new(false)),
            use_cache: lib.settings().cache.enabled,
        }
    }

    /// Neither serves nor stores cached answers (the evaluation measures the engine itself).
    pub fn without_cache(mut self) -> Self {
        self.use_cache = false;
        self
    }

    /// Uses other confidence thresholds.
    pub fn with_confidence(mut self, c: ConfidenceSettings) -> Self {
        self.confidence = c;
        self
    }

    /// The documents the run resolved, in order (ids in `state.documents.resolved`).
    async fn resolved_documents(
        &self,
        profile: &Profile,
        state: &RunState,
    ) -> Result<Vec<Document>, Error> {
        let mut docs = Vec::new();
        for id in evidence::resolved_ids(state) {
            docs.push(self.lib.store().document(&profile.id, &id).await?);
        }
        Ok(docs)
    }

    /// Every name of a document, stemmed: its title and file name
    /// (`extractive::name_stems`) and the title it prints atop its first page
    /// ([`Agent::printed_name`]).
    async fn document_names(
        &self,
        profile: &Profile,
        document: &Document,
    ) -> Result<HashSet<String>, Error> {
        let mut names = rules::extractive::name_stems(&document.title, &document.file_name);
        names.extend(self.printed_name(profile, &document.id).await?);
        Ok(names)
    }

    /// The stemmed words of the title a document prints atop its first page
    /// (`extractive::printed_title`; empty without one): a name of the document besides its
    /// title and file name ("Eclipse Public License" for "EPL-2.0.pdf").
    async fn printed_name(
        &self,
        profile: &Profile,
        document_id: &str,
    ) -> Result<HashSet<String>, Error> {
        let page = self
            .lib
            .store()
            .page_text(&profile.id, document_id, 1)
            .await?;
        Ok(page
            .as_deref()
            .and_then(rules::extractive::printed_title)
            .map(rules::extractive::stems)
            .unwrap_or_default())
    }

    /// A handle that cancels the current run when set.
    pub fn cancel_handle(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }
}
