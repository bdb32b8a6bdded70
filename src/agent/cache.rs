//! The semantic answer cache (spec 000): a question that means the same as one answered
//! before, in the same scope, action and mode, gets the stored answer at once, marked cached.
//!
//! Owns: deciding what counts as the same question (embedding similarity *and* equal numbers,
//! codes and negations, so "2024" never gets the answer about "2025" and "must not" never the
//! one about "must"), checking that the cited documents have not changed, and remembering
//! answers. Must not: cache audits (their source text decides everything), web answers (they
//! age), refusals or interrupted turns. The store forgets a profile's cache whenever its library
//! changes.

use super::evidence::resolved_ids;
use super::graph::json;
use super::rules::{extractive, lexicon};
use super::*;
use crate::store::DocStatus;

/// Words that restrict a question's meaning besides negations ("all files except logs").
const EXCEPTIONS: [&str; 2] = ["except", "unless"];

/// What two questions must share exactly to be the same question: their anchors (acronyms,
/// codes, quoted phrases), numbers and negations.
pub(super) fn guard(question: &str) -> String {
    let lower = question.to_lowercase();
    let mut parts: Vec<String> = extractive::anchors(question)
        .into_iter()
        .map(|a| a.to_lowercase())
        .collect();
    for w in lower.split(|c: char| !c.is_alphanumeric() && c != '.' && c != '\'') {
        let w = w.trim_matches('.');
        if w.chars().any(|c| c.is_ascii_digit()) {
            parts.push(w.to_owned());
        }
        if lexicon::is_negation(w) || EXCEPTIONS.contains(&w) {
            parts.push("¬".to_owned());
        }
    }
    parts.sort();
    parts.join("|")
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

impl Agent<'_> {
    fn cacheable(&self, state: &RunState) -> bool {
        self.use_cache
            && !state.web
            && !state.continue_anyway
            && matches!(
                state.action.unwrap_or(Action::Inquire),
                Action::Inquire | Action::Summarize | Action::Compare
            )
    }

    /// The question as retrieval saw it (follow-ups rewritten to stand alone).
    fn cache_question(state: &RunState) -> String {
        state
            .standalone
            .clone()
            .unwrap_or_else(|| resolve::strip_tags(&state.question))
    }

    /// Mode, set and resolved documents: answers are only shared within one scope.
    fn cache_scope(state: &RunState) -> String {
        let mut docs = resolved_ids(state);
        docs.sort();
        format!(
            "{}|{}|{}",
            match state.mode {
                Mode::Extractive => "extractive",
                Mode::Generative => "generative",
            },
            state.set.as_deref().unwrap_or(""),
            docs.join(",")
        )
    }

    /// `[[id, updated_at], …]` of the documents an answer cites.
    async fn cited_fingerprint(
        &self,
        profile: &Profile,
        citations: &[Citation],
    ) -> Result<Vec<(String, String)>, Error> {
        let mut ids: Vec<&str> = citations
            .iter()
            .filter(|c| c.source_type == SourceType::Document)
            .map(|c| c.document_id.as_str())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let docs = self.lib.documents(profile).await?;
        Ok(ids
            .into_iter()
            .map(|id| {
                let stamp = docs
                    .iter()
                    .find(|d| d.id == id && d.status == DocStatus::Ready)
                    .map(|d| d.updated_at.clone())
                    .unwrap_or_default();
                (id.to_owned(), stamp)
            })
            .collect())
    }

    /// Serves the answer from the cache when an earlier question means the same; returns true
    /// when it did (the answer and its origin are in `state`).
    pub(super) async fn serve_cached(
        &self,
        profile: &Profile,
        state: &mut RunState,
    ) -> Result<bool, Error> {
        if !self.cacheable(state) {
            return Ok(false);
        }
        let action = state.action.unwrap_or(Action::Inquire).as_str();
        let store = self.lib.store();
        let entries = store
            .cached_answers(&profile.id, action, &Self::cache_scope(state))
            .await?;
        if entries.is_empty() {
            return Ok(false);
        }
        let question = Self::cache_question(state);
        let want = guard(&question);
        let candidates: Vec<_> = entries
            .into_iter()
            .filter(|e| guard(&e.question) == want)
            .collect();
        if candidates.is_empty() {
            return Ok(false);
        }
        let vector = self.lib.embed_query(&question).await?;
        let min = self.lib.settings().cache.min_similarity;
        let mut best: Option<(f32, crate::store::CacheEntry)> = None;
        for e in candidates {
            let sim = cosine(&vector, &e.embedding);
            if sim >= min && best.as_ref().is_none_or(|(b, _)| sim > *b) {
                best = Some((sim, e));
            }
        }
        let Some((similarity, entry)) = best else {
            return Ok(false);
        };
        let Some(row) = store.message(&profile.id, &entry.message_id).await? else {
            return Ok(false);
        };
        let earlier = self.stored_turn(&row)?;
        let then: Vec<(String, String)> =
            serde_json::from_str(&entry.documents).unwrap_or_default();
        if earlier.answer.status != Status::Answered
            || then
                != self
                    .cited_fingerprint(profile, &earlier.answer.citations)
                    .await?
        {
            // A cited document changed or went away since: answer afresh.
            return Ok(false);
        }
        state.answer = Some(earlier.answer);
        state.evidence.clear();
        state.cached_from = Some(CacheHit {
            message_id: entry.message_id,
            question: entry.question,
            similarity,
            answered_at: entry.created_at,
        });
        Ok(true)
    }

    /// Remembers an answered turn for the cache.
    pub(super) async fn remember(
        &self,
        profile: &Profile,
        state: &RunState,
        turn: &TurnResult,
    ) -> Result<(), Error> {
        if !self.cacheable(state)
            || state.cached_from.is_some()
            || turn.answer.status != Status::Answered
            // An expert's answer is kept even without citations (it is marked as theirs).
            || turn.answer.citations.is_empty() && state.review_id.is_none()
        {
            return Ok(());
        }
        let question = Self::cache_question(state);
        let vector = self.lib.embed_query(&question).await?;
        let documents = json(
            &self
                .cited_fingerprint(profile, &turn.answer.citations)
                .await?,
        )?;
        self.lib
            .store()
            .cache_answer(
                &profile.id,
                &crate::store::NewCacheEntry {
                    action: state.action.unwrap_or(Action::Inquire).as_str(),
                    scope: &Self::cache_scope(state),
                    question: &question,
                    embedding: &vector,
                    message_id: &turn.message_id,
                    documents: &documents,
                },
            )
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_separates_numbers_codes_and_negations() {
        let a = guard("What capital ratio must a bank hold in 2024?");
        assert_eq!(
            a,
            guard("In 2024, which capital ratio does a bank have to hold?")
        );
        assert_ne!(a, guard("What capital ratio must a bank hold in 2025?"));
        assert_ne!(
            guard("Which data may be sent abroad?"),
            guard("Which data may not be sent abroad?")
        );
        assert_ne!(
            guard("What does GDPR require?"),
            guard("What does CCPA require?")
        );
        assert_eq!(guard("What is required?"), guard("what is required"));
    }

    #[test]
    fn cosine_of_unit_vectors() {
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-6);
        assert!(cosine(&[1.0, 0.0], &[0.0, 1.0]).abs() < 1e-6);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }
}
