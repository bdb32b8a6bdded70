//! The nodes between contextualize and format: each reads and writes the run state and says which
//! node comes next.
//!
//! Owns: rewriting a follow-up, choosing the action and the documents, validating the action's
//! requirements, dispatching to the action, the confidence check and the final text. Must not:
//! persist (see `persist`) or know one action's internals (see `action/`).

use std::collections::HashMap;

use super::{Node, Transition};
use crate::Error;
use crate::agent::evidence::*;
use crate::agent::resolve;
use crate::agent::types::*;
use crate::agent::{Agent, Emit};
use crate::library::SearchRequest;
use crate::store::{DocStatus, Document, Profile};

/// Weight of term coverage (the share of the question's terms the cited quotes hold) in the
/// confidence score: the strongest signal that the quotes answer *this* question; raising it
/// refuses more answers whose wording differs from the question's.
const WEIGHT_COVERAGE: f32 = 0.55;
/// Weight of the best passage's vector similarity: meaning without shared words; raising it
/// accepts more paraphrases and more near-misses.
const WEIGHT_RETRIEVAL: f32 = 0.3;
/// Weight of the share of proposed quotes that verified on their page: a model's answer whose
/// quotes mostly failed is trusted less.
const WEIGHT_VERIFICATION: f32 = 0.15;
/// When a specific term of the question (a code, a name) occurs in no passage, the score is
/// capped at this fraction of the medium threshold (a refusal): trades answering questions that
/// name something under another word for never answering about a thing the library lacks.
const MISSING_TERM_CAP: f32 = 0.5;
/// An answer to a question is weak evidence when its three relevance signals are all weak at
/// once: no quote is this close to the question in meaning (cosine, [`Confidence::closeness`]),
/// no passage either ([`WEAK_PASSAGE`]), and the quotes hold under [`WEAK_COVERAGE`] of the
/// question's terms. Each alone is common in a good answer — a paraphrase, a short policy
/// whose one chunk covers many subjects (passage cosine 0.32 for a question its quote answers
/// at 0.74), a long question — together they mostly mean the library is answering a question
/// it does not hold. Chosen on ObliQA fit questions scoped to one unrelated rulebook (21 of the
/// 45 answered ones caught; none of 117 scoped to their own rulebook lost); lower values catch
/// fewer, higher ones start refusing answerable questions.
const WEAK_CLOSENESS: f32 = 0.5;
/// See [`WEAK_CLOSENESS`]: the best passage's cosine to the question.
const WEAK_PASSAGE: f32 = 0.5;
/// See [`WEAK_CLOSENESS`]: the share of the question's terms the quotes hold.
const WEAK_COVERAGE: f32 = 0.5;
/// Below this, neither the quotes nor the passages are even loosely about the question in
/// meaning (both cosines), and the words they share with it are coincidence — the common words
/// of a question ("how many days each year") met in a document on something else — so term
/// coverage cannot carry the answer. Every answered item of the development set has a quote
/// or a passage at 0.46 or closer, every answered ObliQA question of the fit half (whole
/// library, or its own rulebook; 510) at 0.51 or closer.
const FAR_MEANING: f32 = 0.35;

/// Whether an answer's evidence is too weak to show: every relevance signal weak at once, or
/// nothing quoted or retrieved close to the question in meaning at all (see [`WEAK_CLOSENESS`],
/// [`FAR_MEANING`]). `closeness` is `None` for answers that are not to a question.
fn weak_evidence(closeness: Option<f32>, retrieval: f32, coverage: f32) -> bool {
    let Some(closeness) = closeness else {
        return false;
    };
    let all_weak =
        closeness < WEAK_CLOSENESS && retrieval < WEAK_PASSAGE && coverage < WEAK_COVERAGE;
    let far = closeness < FAR_MEANING && retrieval < FAR_MEANING;
    all_weak || far
}
/// Share of the score lost when none of a model's sentences were supported (in proportion to
/// the share left out): the answer shown holds only supported sentences, but a model that
/// wrote unsupported ones is trusted less for the rest. Higher refuses more such answers.
const UNGROUNDED_PENALTY: f32 = 0.5;

impl Agent<'_> {
    pub(in crate::agent) async fn contextualize(
        &self,
        profile: &Profile,
        state: &mut RunState,
    ) -> Result<Transition, Error> {
        let own = resolve::strip_tags(&state.question);
        let retry = state.context_retry == ContextRetry::Taken;
        let standalone = if retry || resolve::needs_context(&own) {
            match self.previous_standalone(profile, state).await? {
                Some(prev) if !prev.is_empty() => {
                    match self.rewrite_follow_up(profile, state, &own).await {
                        Some(rewritten) => rewritten,
                        None => format!("{own} (context: {prev})"),
                    }
                }
                _ => own,
            }
        } else {
            own
        };
        state.standalone = Some(standalone);
        Ok(Transition::Next(Node::ResolveIntent))
    }

    /// The action: tagged, else the model's reading (generative mode, spec 002), else the
    /// deterministic classifier. The model's documents are kept for `resolve_documents`.
    pub(in crate::agent) async fn resolve_intent(
        &self,
        profile: &Profile,
        state: &mut RunState,
    ) -> Result<Transition, Error> {
        let fully_tagged = state.explicit_action.is_some() && !state.explicit_documents.is_empty();
        let route = if fully_tagged {
            None
        } else {
            self.route_with_model(profile, state).await
        };
        // Words of the message that name an action beat a model's guess; the model decides
        // what the words leave open, within what the message's shape allows.
        let own = resolve::strip_tags(&state.question);
        let (cue, why) = resolve::classify_intent(&own);
        let titles_named = match &route {
            Some(r) if r.action == Action::Compare => {
                let docs = self.lib.documents(profile).await?;
                resolve::mentioned_titles(&own, &docs).len()
            }
            _ => 0,
        };
        let (action, reason) = match (state.explicit_action, &route) {
            (Some(a), _) => (a, "tagged explicitly".to_owned()),
            (None, Some(r))
                if why == resolve::NO_ACTION_WORDS
                    && resolve::open_to_model(&own, r.action, titles_named) =>
            {
                (r.action, format!("read by the model: {}", r.reason))
            }
            (None, _) => (cue, why.to_owned()),
        };
        // A reading the message's shape rules out is not used for its documents either.
        let kept = state.explicit_action.is_some()
            || why != resolve::NO_ACTION_WORDS
            || route.as_ref().is_some_and(|r| r.action == action);
        state.routed_documents = route.filter(|_| kept).map(|r| r.documents);
        state.action = Some(action);
        state.intent_reason = reason;
        Ok(Transition::Next(Node::ResolveDocuments))
    }

    pub(in crate::agent) async fn resolve_documents(
        &self,
        profile: &Profile,
        state: &mut RunState,
    ) -> Result<Transition, Error> {
        let store = self.lib.store();
        let mut explicit = Vec::new();
        for id in &state.explicit_documents {
            // Unknown ids and ids of other profiles are simply not found.
            let d = store.document(&profile.id, id).await?;
            if !matches!(d.status, DocStatus::Ready | DocStatus::Disabled) {
                return Err(Error::InvalidInput(format!(
                    "document {} is {} and cannot be used",
                    d.id,
                    d.status.as_str()
                )));
            }
            explicit.push(d.id);
        }
        let own = resolve::strip_tags(&state.question);
        let action = state.action.unwrap_or(Action::Inquire);
        let mut res = DocResolution {
            explicit: explicit.clone(),
            ..DocResolution::default()
        };
        let docs = self.lib.documents(profile).await?;
        let history = self.history_documents(profile, state).await?;
        // A message read on its own in a thread with earlier turns may be read again in their
        // light if alone it finds too little (see `check_confidence`).
        if state.context_retry == ContextRetry::Unavailable
            && !history.is_empty()
            && state.standalone.as_deref() == Some(own.as_str())
        {
            state.context_retry = ContextRetry::Possible;
        }
        // "it" in a first question is ordinary English, not a reference to earlier documents.
        // A follow-up that names no document ("And how fast must a misdirected one be
        // reported?"), or a message read again in the light of the previous turn (see
        // `check_confidence`), keeps that turn's documents, as one that refers to them does.
        let retry = state.context_retry == ContextRetry::Taken;
        let named = resolve::mentioned_titles(&own, &docs);
        // "And under the 2023 one?": another version of the previous turn's document.
        let siblings = match history.first() {
            Some(previous) if named.is_empty() && explicit.is_empty() => {
                let previous: Vec<&Document> = docs
                    .iter()
                    .filter(|d| previous.documents().contains(&d.id))
                    .collect();
                resolve::version_siblings(&own, &previous, &docs)
            }
            _ => Vec::new(),
        };
        let implicit = (retry || resolve::needs_context(&own)) && named.is_empty();
        let reference = resolve::reference(&own)
            .or(implicit.then_some(resolve::Reference::Several))
            .filter(|_| history.iter().any(|h| !h.documents().is_empty()));
        if !siblings.is_empty() {
            res.inferred = siblings;
            res.certainty = Some(Certainty::High);
            res.reasoning =
                "the message names another version of the previous turn's document".into();
        } else if let Some(r) = reference {
            let by_id: HashMap<&str, &Document> = docs.iter().map(|d| (d.id.as_str(), d)).collect();
            let newer_first = |ids: &[String]| {
                let mut v = ids.to_vec();
                v.sort_by(|a, b| {
                    let (da, db) = (by_id.get(a.as_str()), by_id.get(b.as_str()));
                    let key = |d: Option<&&Document>| {
                        d.map(|d| format!("{} {}", d.title, d.version))
                            .unwrap_or_default()
                    };
                    resolve::natural_cmp(&key(db), &key(da))
                });
                v
            };
            let (inferred, certainty, reasoning) =
                resolve::resolve_reference(r, &history, &newer_first);
            if explicit.is_empty() || !inferred.is_empty() {
                res.inferred = inferred
                    .into_iter()
                    .filter(|d| !explicit.contains(d))
                    .collect();
                res.certainty = Some(certainty);
                res.reasoning = match resolve::reference(&own) {
                    None if retry => "alone the message found too little: read as a follow-up of the previous turn, with its documents".into(),
                    None => "a follow-up that names no document: the previous turn's documents".into(),
                    Some(_) => reasoning,
                };
            }
        } else if explicit.is_empty() {
            // Titles the message names beat a model's guess; the model's documents come next.
            let routed = state.routed_documents.clone().unwrap_or_default();
            if !named.is_empty() {
                res.inferred = named;
                res.certainty = Some(Certainty::High);
                res.reasoning = "the message names these documents".into();
            } else if !routed.is_empty() {
                res.inferred = routed;
                res.certainty = Some(Certainty::High);
                res.reasoning = "the model read the message as being about these documents".into();
            } else if action != Action::Inquire && !docs.is_empty() {
                let (ids, certainty) = self.documents_by_retrieval(profile, &own, action).await?;
                res.certainty = Some(certainty);
                res.reasoning = "inferred from the passages that best match the message".into();
                res.inferred = ids;
            }
        }
        if explicit.is_empty() && res.inferred.is_empty() && res.certainty.is_none() {
            res.reasoning = if action == Action::Inquire {
                "no documents named: the whole library is searched".into()
            } else {
                "no documents named".into()
            };
        }
        res.resolved = union(&res.explicit, &res.inferred);
        let certainty = res.certainty;
        state.documents = Some(res.clone());
        let labels = |ids: &[String]| {
            ids.iter()
                .filter_map(|id| docs.iter().find(|d| &d.id == id))
                .map(Document::label)
                .collect::<Vec<_>>()
        };
        match certainty {
            Some(Certainty::Medium) => {
                let mut options = vec![ChoiceOption {
                    id: "confirm".into(),
                    label: format!("Use {}", labels(&res.inferred).join(" and ")),
                }];
                options.extend(
                    res.inferred
                        .iter()
                        .filter_map(|id| docs.iter().find(|d| &d.id == id))
                        .map(|d| ChoiceOption {
                            id: format!("doc:{}", d.id),
                            label: d.label(),
                        }),
                );
                Ok(Transition::Interrupt(
                    Interrupt {
                        kind: InterruptKind::ConfirmDocuments,
                        prompt: format!(
                            "I will proceed with {}. Please confirm.",
                            labels(&res.inferred).join(" and ")
                        ),
                        options,
                    },
                    Node::Validate,
                ))
            }
            Some(Certainty::Low) if res.resolved.is_empty() => {
                let mut options = vec![ChoiceOption {
                    id: "library".into(),
                    label: "Search the whole library".into(),
                }];
                options.extend(
                    docs.iter()
                        .filter(|d| d.status == DocStatus::Ready)
                        .take(5)
                        .map(|d| ChoiceOption {
                            id: format!("doc:{}", d.id),
                            label: d.label(),
                        }),
                );
                Ok(Transition::Interrupt(
                    Interrupt {
                        kind: InterruptKind::SpecifyDocuments,
                        prompt: "Please specify which document you would like to reference.".into(),
                        options,
                    },
                    Node::Validate,
                ))
            }
            _ => Ok(Transition::Next(Node::Validate)),
        }
    }

    pub(in crate::agent) async fn documents_by_retrieval(
        &self,
        profile: &Profile,
        message: &str,
        action: Action,
    ) -> Result<(Vec<String>, Certainty), Error> {
        let hits = self
            .lib
            .search(
                profile,
                &SearchRequest {
                    query: message.to_owned(),
                    k: 10,
                    ..SearchRequest::default()
                },
            )
            .await?;
        let mut counts: Vec<(String, usize)> = Vec::new();
        for h in &hits {
            match counts.iter_mut().find(|(d, _)| *d == h.hit.document_id) {
                Some((_, n)) => *n += 1,
                None => counts.push((h.hit.document_id.clone(), 1)),
            }
        }
        counts.sort_by_key(|c| std::cmp::Reverse(c.1));
        let want = if action == Action::Compare { 2 } else { 1 };
        let top: Vec<String> = counts.iter().take(want).map(|(d, _)| d.clone()).collect();
        let share = counts.iter().take(want).map(|(_, n)| *n).sum::<usize>() as f32
            / hits.len().max(1) as f32;
        let certainty = if share >= 0.6 && top.len() == want {
            Certainty::High
        } else {
            Certainty::Medium
        };
        Ok((top, certainty))
    }

    pub(in crate::agent) fn validate(&self, state: &mut RunState) -> Transition {
        let n = state.documents.as_ref().map_or(0, |d| d.resolved.len());
        // A comparison within one document ("Compare the governing law of the BeOpen and the
        // CNRI agreements" of a file that holds both): that document's passages on the
        // subject answer it, as a question to it. One with no subject ("Compare these")
        // asks for the other document.
        if state.action == Some(Action::Compare)
            && n == 1
            && crate::agent::rules::compare::has_subject(&resolve::strip_tags(&state.question))
        {
            state.action = Some(Action::Inquire);
        }
        let action = state.action.unwrap_or(Action::Inquire);
        let need = match action {
            Action::Inquire => 0,
            Action::Summarize | Action::Audit => 1,
            Action::Compare => 2,
        };
        let prompt = if state.web && action != Action::Inquire {
            Some(format!(
                "Web search answers questions; it cannot be combined with {}. Ask a question, or send the request without @web.",
                action.as_str()
            ))
        } else if n > MAX_DOCUMENTS {
            Some(format!(
                "An action can use at most {MAX_DOCUMENTS} documents; {n} were given. Please specify up to {MAX_DOCUMENTS}."
            ))
        } else if n < need {
            Some(match action {
                Action::Compare => "A comparison needs at least two documents. Please specify the documents to compare.".to_owned(),
                Action::Audit => "Please specify the documents to audit against.".to_owned(),
                _ => "Please specify which document you would like to summarize.".to_owned(),
            })
        } else {
            None
        };
        match prompt {
            Some(prompt) => Transition::Interrupt(
                Interrupt {
                    kind: InterruptKind::SpecifyDocuments,
                    prompt,
                    options: vec![ChoiceOption {
                        id: "library".into(),
                        label: "Search the whole library".into(),
                    }],
                },
                Node::Validate,
            ),
            None => Transition::Next(Node::Act),
        }
    }

    /// Act: a cached answer to the same question, else the action's own step.
    pub(in crate::agent) async fn act(
        &self,
        profile: &Profile,
        state: &mut RunState,
        emit: Emit<'_>,
    ) -> Result<Transition, Error> {
        if self.serve_cached(profile, state).await? {
            return Ok(Transition::Next(Node::Persist));
        }
        match state.action.unwrap_or(Action::Inquire) {
            Action::Inquire => self.inquire(profile, state, emit).await,
            Action::Summarize => self.summarize(profile, state, emit).await,
            Action::Compare => self.compare(profile, state, emit).await,
            Action::Audit => self.audit(profile, state, emit).await,
        }
    }

    /// Scores an answer's confidence from its signals and sets its level; `cited`: whether the
    /// answer cites anything. Returns whether the evidence is weak (see [`weak_evidence`]).
    fn score(&self, c: &mut Confidence, cited: bool) -> bool {
        c.score = if cited {
            WEIGHT_COVERAGE * c.coverage
                + WEIGHT_RETRIEVAL * c.retrieval.clamp(0.0, 1.0)
                + WEIGHT_VERIFICATION * c.verification
        } else {
            0.0
        };
        c.score *= 1.0 - UNGROUNDED_PENALTY * (1.0 - c.grounding.clamp(0.0, 1.0));
        if !c.missing.is_empty() {
            // The library never mentions a specific term of the question: no evidence.
            c.score = c.score.min(self.confidence.medium * MISSING_TERM_CAP);
        }
        let weak = weak_evidence(c.closeness, c.retrieval, c.coverage);
        if weak {
            c.score = c.score.min(self.confidence.medium * MISSING_TERM_CAP);
        }
        c.level = if c.score >= self.confidence.high {
            Level::High
        } else if c.score >= self.confidence.medium {
            Level::Medium
        } else {
            Level::Low
        };
        weak
    }

    /// Whether an answer judged as `c` (unscored), citing anything or not (`cited`), would be
    /// shown rather than refused by [`Self::check_confidence`].
    pub(in crate::agent) fn answers(&self, c: &Confidence, cited: bool) -> bool {
        let mut c = c.clone();
        self.score(&mut c, cited);
        c.level != Level::Low
    }

    pub(in crate::agent) fn check_confidence(&self, state: &mut RunState) -> Transition {
        let has_web = state.web_citations.as_ref().is_some_and(|w| !w.is_empty());
        let offer_web = self.lib.settings().web.enabled && !state.web;
        let Some(answer) = state.answer.as_mut() else {
            return Transition::Next(Node::Format);
        };
        if answer.status != Status::Answered
            || answer.citations.is_empty()
                && answer.confidence.as_ref().is_some_and(|c| c.score == 1.0)
        {
            return Transition::Next(Node::Format);
        }
        let cited = !answer.citations.is_empty();
        let Some(c) = answer.confidence.as_mut() else {
            return Transition::Next(Node::Format);
        };
        let weak = self.score(c, cited);
        c.reason = match c.level {
            Level::High => format!(
                "the cited passages cover {:.0}% of the question's terms",
                c.coverage * 100.0
            ),
            Level::Medium => format!(
                "partial evidence: the cited passages cover {:.0}% of the question's terms; verification with the source is recommended",
                c.coverage * 100.0
            ),
            Level::Low if !c.missing.is_empty() => {
                format!("the library does not mention {}", c.missing.join(", "))
            }
            Level::Low if weak => format!(
                "weak evidence: nothing quoted is close to the question in meaning, and the quotes cover {:.0}% of its terms",
                c.coverage * 100.0
            ),
            Level::Low => format!(
                "weak evidence: the best passages cover {:.0}% of the question's terms",
                c.coverage * 100.0
            ),
        };
        if c.grounding < 1.0 {
            c.reason.push_str(&format!(
                "; {:.0}% of the model's sentences were not found in your documents and were left out",
                (1.0 - c.grounding) * 100.0
            ));
        }
        // The model read the message as being about documents whose passages answer it too
        // weakly: a weak model's scope is set aside once for the deterministic resolver's
        // (titles named, else the whole library), as extractive mode would search. The
        // evidence decides, not the routing.
        if c.level == Level::Low
            && !state.continue_anyway
            && !state.route_set_aside
            && state.explicit_documents.is_empty()
            && state
                .routed_documents
                .as_ref()
                .is_some_and(|d| !d.is_empty())
        {
            state.route_set_aside = true;
            state.routed_documents = None;
            state.answer = None;
            state.evidence.clear();
            return Transition::Next(Node::ResolveDocuments);
        }
        // A question inside a thread that its own words answer too weakly is most often about
        // what the thread was about ("Who has to sign off before we take one on?" after "Which
        // document deals with politically exposed persons?"): asked once more in the light of
        // the previous turn, as a follow-up that names its reference is.
        if c.level == Level::Low
            && !state.continue_anyway
            && state.context_retry == ContextRetry::Possible
            && state.action == Some(Action::Inquire)
            && state.explicit_documents.is_empty()
        {
            state.context_retry = ContextRetry::Taken;
            state.answer = None;
            state.evidence.clear();
            return Transition::Next(Node::Contextualize);
        }
        if c.level == Level::Low && has_web && !state.continue_anyway {
            // The web section answers instead; the library part says plainly it has nothing.
            answer.text = "The library does not support an answer to this question.".into();
            answer.citations.clear();
            return Transition::Next(Node::Format);
        }
        if c.level == Level::Low && !state.continue_anyway {
            let confidence = c.clone();
            let mut options = vec![ChoiceOption {
                id: "tag_documents".into(),
                label: "📄 Tag specific documents".into(),
            }];
            if offer_web {
                options.push(ChoiceOption {
                    id: "web".into(),
                    label: "🌐 Search the web".into(),
                });
            }
            options.push(ChoiceOption {
                id: "continue".into(),
                label: "Continue anyway".into(),
            });
            options.push(ChoiceOption {
                id: crate::agent::review::ASK_EXPERT.into(),
                label: "👤 Ask an expert".into(),
            });
            // What was drafted is what an expert would start from.
            state.draft = Some(answer.text.clone());
            state.answer = Some(Answer {
                confidence: Some(confidence),
                usage: answer.usage.clone(),
                ..refusal("I don't have enough information in the library to answer that question.")
            });
            return Transition::Interrupt(
                Interrupt {
                    kind: InterruptKind::LowConfidence,
                    prompt: "I don't have enough information in the library to answer that question. You might try tagging the documents that cover it, or rephrasing the question.".into(),
                    options,
                },
                Node::Format,
            );
        }
        if c.level == Level::Low {
            answer.text = format!(
                "Limited information available. Verification with source documents recommended.\n\n{}",
                answer.text
            );
        }
        Transition::Next(Node::Format)
    }

    pub(in crate::agent) fn format(&self, state: &mut RunState) -> Transition {
        let web = state.web_citations.clone().unwrap_or_default();
        if let Some(a) = state.answer.as_mut() {
            if a.status == Status::Answered
                && !a.citations.is_empty()
                && !a.text.contains("**Sources:**")
            {
                let sources = a
                    .citations
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        format!(
                            "{}. {} — page {}",
                            i + 1,
                            label(&c.title, &c.version),
                            c.page
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                a.text = format!("{}\n\n**Sources:**\n{sources}", a.text);
            }
            if state.web
                && a.status != Status::NeedsClarification
                && !a.text.contains("**From the web")
            {
                web_section(a, &web);
            }
            if let Some(d) = &state.documents
                && d.certainty == Some(Certainty::High)
                && !d.inferred.is_empty()
                && a.status == Status::Answered
                && !a.text.starts_with("Using ")
            {
                a.text = format!(
                    "Using the documents in scope here ({}).\n\n{}",
                    d.reasoning, a.text
                );
            }
        } else {
            state.answer = Some(refusal(
                "I don't have enough information in the library to answer that question.",
            ));
        }
        Transition::Next(Node::Persist)
    }
}

/// Appends the web results to an answer: a section of their own, after the library's answer
/// and its Sources block, with numbered web sources that continue the citation numbering.
pub(in crate::agent) fn web_section(a: &mut Answer, web: &[Citation]) {
    if web.is_empty() {
        a.text = format!(
            "{}\n\n**From the web:** the web search found nothing relevant.",
            a.text
        );
        return;
    }
    let first = a.citations.len();
    let quotes = web
        .iter()
        .map(|c| format!("“{}” (🌐 {})", c.quote, c.title))
        .collect::<Vec<_>>()
        .join("\n\n");
    let sources = web
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "{}. 🌐 {} — {}",
                first + i + 1,
                c.title,
                c.url.as_deref().unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    a.text = format!(
        "{}\n\n**From the web** (not from your library; verify before relying on it):\n\n{quotes}\n\n**Web sources:**\n{sources}",
        a.text
    );
    a.citations.extend(web.iter().cloned());
    if a.status == Status::Refused {
        a.status = Status::Answered;
        a.options.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_far_from_the_question_in_meaning_is_weak_whatever_words_it_shares() {
        // A paraphrase answered by its quote (quote close, passage far) is not weak.
        assert!(!weak_evidence(Some(0.74), 0.32, 0.3));
        // Every signal weak at once is.
        assert!(weak_evidence(Some(0.45), 0.45, 0.4));
        // Half the terms met by common words, nothing close in meaning: weak.
        assert!(weak_evidence(Some(0.22), 0.06, 0.5));
        // Good coverage with moderate meaning stays an answer.
        assert!(!weak_evidence(Some(0.41), 0.58, 0.33));
        // Not an answer to a question: not judged here.
        assert!(!weak_evidence(None, 0.0, 0.0));
    }
}
