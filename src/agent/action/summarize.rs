//! Summarize: a stratified sample of a document's passages condensed into its main points, each a
//! verified quote; with a language model (generative mode), those quotes are written up as notes
//! per part and one summary (spec 002), every sentence grounded in the quotes it cites. Must
//! not: summarize a document from anything but its own passages.

use std::collections::HashSet;

use crate::Error;
use crate::agent::evidence::*;
use crate::agent::graph::{Node, Transition};
use crate::agent::resolve;
use crate::agent::rules::{extractive, summary, text};
use crate::agent::synthesis::{Outcome, QUOTES_PER_PART, Task};
use crate::agent::types::*;
use crate::agent::{Agent, Emit};
use crate::library::{MAX_QUERY_CHARS, SearchRequest};
use crate::store::Profile;

/// Fewest pages of a document whose summary on one subject ([`summary::focus`]) is read from
/// the search's [`FOCUS_PASSAGES`] best passages on it; a shorter one is read from a share of
/// its own ([`SHORT_FOCUS_SHARE`]), which reaches further from the subject (a short policy's
/// summary on "its rules for visitors" keeps more of the rest of it).
const FOCUS_MIN_PAGES: i64 = 20;

/// A short document's summary on one subject is read from this share of its passages (one in
/// `SHORT_FOCUS_SHARE`), the search's best on that subject, and at least from
/// `SHORT_FOCUS_LEAST` of them.
const SHORT_FOCUS_SHARE: usize = 2;
const SHORT_FOCUS_LEAST: usize = 4;

/// Passages a summary on one subject is read from: the search's best on that subject in the
/// document, in document order. More reaches further from the subject.
const FOCUS_PASSAGES: usize = 16;

impl Agent<'_> {
    /// Summarize: key points spread over each resolved document, each quoted verbatim with its
    /// page, in document order; in generative mode the model writes them up (see
    /// [`Agent::written_summary`]), the quoted key points staying where it cannot.
    pub(in crate::agent) async fn summarize(
        &self,
        profile: &Profile,
        state: &mut RunState,
        emit: Emit<'_>,
    ) -> Result<Transition, Error> {
        let model = match state.mode {
            Mode::Generative => self.chat_model(profile)?,
            Mode::Extractive => None,
        };
        let mut usage: Option<Usage> = None;
        let mut grounded: Vec<f32> = Vec::new();
        let ids = resolved_ids(state);
        let index = self.lib.index().await?;
        let per_doc = if ids.len() <= 1 {
            12
        } else {
            (14 / ids.len()).max(4)
        };
        let mut body = String::new();
        let mut citations = Vec::new();
        let mut evidence = Vec::new();
        let mut proposed = 0usize;
        let request = resolve::strip_tags(&state.question);
        let mut focused: Vec<String> = Vec::new();
        for id in &ids {
            let d = self.lib.store().document(&profile.id, id).await?;
            let rows = index.rows(&profile.id, &d.id).await?;
            let passages: Vec<summary::Passage<'_>> = rows
                .iter()
                .map(|r| summary::Passage {
                    text: &r.text,
                    heading: &r.heading,
                    char_start: r.char_start,
                })
                .collect();
            // A document summarized on one part of it ("… advice on winter storage") is read
            // where the search finds that part (a short one from half its passages); a part
            // most of it is about is read whole, which covers it.
            let names = self.document_names(profile, &d).await?;
            let part = summary::focus(&request, &names)
                .filter(|part| !summary::covers_most(&passages, part, &names));
            let k = if d.page_count >= FOCUS_MIN_PAGES {
                FOCUS_PASSAGES
            } else {
                (rows.len() / SHORT_FOCUS_SHARE).clamp(SHORT_FOCUS_LEAST, FOCUS_PASSAGES)
            };
            // The rows read, by index, in document order.
            let mut read: Vec<usize> = (0..rows.len()).collect();
            if let Some(part) = &part {
                // The document's own name says which text, not which part of it: "what the
                // Harbour Code does not cover" is searched as "what … does not cover", or the
                // name's every mention outranks the part. A part always keeps a word of its
                // own (`summary::focus` names none otherwise).
                let query = extractive::without_names(part, &names);
                let hits = self
                    .lib
                    .search(
                        profile,
                        &SearchRequest {
                            query: text::clip(&query, MAX_QUERY_CHARS).to_owned(),
                            k,
                            documents: vec![d.id.clone()],
                            ..SearchRequest::default()
                        },
                    )
                    .await?;
                let on_it: HashSet<&str> = hits.iter().map(|h| h.hit.chunk_id.as_str()).collect();
                if !on_it.is_empty() {
                    read.retain(|&i| on_it.contains(rows[i].chunk_id.as_str()));
                    focused.push(part.clone());
                }
            }
            let chosen: Vec<summary::Passage<'_>> = read.iter().map(|&i| passages[i]).collect();
            let points = summary::key_points(&chosen, per_doc);
            let before = citations.len();
            let mut points_text = String::new();
            for p in points {
                proposed += 1;
                let Some(r) = read.get(p.passage).and_then(|&i| rows.get(i)) else {
                    continue;
                };
                let e = Evidence {
                    chunk_id: r.chunk_id.clone(),
                    document_id: d.id.clone(),
                    text: r.text.clone(),
                    char_start: r.char_start,
                    page: r.page_start,
                    vector_score: 0.0,
                    text_rank: None,
                    score: p.score,
                    heading: r.heading.clone(),
                };
                if let Some(c) = self.cite(profile, &e, p.doc_char, &p.sentence.text).await? {
                    points_text.push_str(&format!(
                        "- “{}” (📄 {}, p. {})\n",
                        c.quote,
                        label(&c.title, &c.version),
                        c.page
                    ));
                    citations.push(c);
                    evidence.push(e);
                }
            }
            let heading = if ids.len() > 1 {
                format!("### {}\n\n", d.label())
            } else {
                String::new()
            };
            let key_points = if ids.len() > 1 {
                String::new()
            } else {
                let on = part
                    .as_ref()
                    .map(|part| format!(" on “{part}”"))
                    .unwrap_or_default();
                format!(
                    "Key points of **{}** ({} pages){on}, in document order:\n\n",
                    d.label(),
                    d.page_count
                )
            };
            body.push_str(&heading);
            if citations.len() == before {
                body.push_str(&key_points);
                body.push_str("_No passage of this document could be quoted as a key point._\n\n");
                continue;
            }
            let Some(model) = &model else {
                body.push_str(&key_points);
                body.push_str(&points_text);
                body.push('\n');
                continue;
            };
            let quotes = citations[before..].to_vec();
            match self
                .written_summary(
                    profile,
                    model,
                    &d,
                    part.as_deref(),
                    &quotes,
                    &mut usage,
                    emit,
                )
                .await?
            {
                Outcome::Written(w) => {
                    grounded.push(w.grounding);
                    if ids.len() == 1 {
                        body.push_str(&format!(
                            "Summary of **{}** ({} pages):\n\n",
                            d.label(),
                            d.page_count
                        ));
                    }
                    body.push_str(&w.text);
                    body.push_str("\n\n");
                }
                Outcome::Unusable(why) => {
                    body.push_str(&format!(
                        "_The model's summary is not shown: {why}. The key points are quoted instead._\n\n"
                    ));
                    body.push_str(&key_points);
                    body.push_str(&points_text);
                    body.push('\n');
                }
            }
        }
        state.evidence = evidence;
        if citations.is_empty() {
            state.answer = Some(refusal(
                "None of these documents has text that can be quoted in a summary (they may be scanned, empty or still being processed).",
            ));
            return Ok(Transition::Next(Node::Format));
        }
        let verification = citations.len() as f32 / proposed.max(1) as f32;
        let confidence = Confidence {
            level: if verification >= 0.8 {
                Level::High
            } else {
                Level::Medium
            },
            score: verification,
            reason: match focused.first() {
                Some(part) => format!(
                    "{} key points quoted verbatim from the passages on “{part}”",
                    citations.len()
                ),
                None => format!(
                    "{} key points quoted verbatim, spread from the beginning to the end of {} document{}",
                    citations.len(),
                    ids.len(),
                    if ids.len() == 1 { "" } else { "s" }
                ),
            },
            retrieval: 1.0,
            coverage: 1.0,
            verification,
            missing: Vec::new(),
            grounding: if grounded.is_empty() {
                1.0
            } else {
                grounded.iter().sum::<f32>() / grounded.len() as f32
            },
            closeness: None,
        };
        state.answer = Some(answered(
            body.trim_end().to_owned(),
            citations,
            confidence,
            usage,
        ));
        Ok(Transition::Next(Node::Format))
    }

    /// Spec 002's generative summary of one document from its quoted key points: a short
    /// document's quotes are summarized at once; a longer one's are read in parts of
    /// [`QUOTES_PER_PART`], each written up as notes, and the summary is written from the notes
    /// and the quotes they cite. Every step is grounded; a part whose notes are unusable leaves
    /// its quotes to the summary step. `part`: the part of the document the request asks
    /// about ([`summary::focus`]), which the summary is written on.
    #[allow(clippy::too_many_arguments)]
    async fn written_summary(
        &self,
        profile: &Profile,
        model: &crate::llm::ChatModel,
        d: &crate::store::Document,
        part: Option<&str>,
        quotes: &[Citation],
        usage: &mut Option<Usage>,
        emit: Emit<'_>,
    ) -> Result<Outcome, Error> {
        let summary_task = match part {
            Some(part) => format!(
                "Summarize what {} says on “{part}” in at most 6 sentences: its main rules and advice on it (who must do what, with the numbers and time limits it sets).",
                d.label()
            ),
            None => format!(
                "Summarize {} in at most 6 sentences: its purpose and scope, then its main rules and obligations (who must do what, with the numbers and time limits it sets).",
                d.label()
            ),
        };
        if quotes.len() <= QUOTES_PER_PART {
            emit(&Event::Status {
                message: format!("Summarizing {}", d.label()),
            });
            let task = Task {
                action: Action::Summarize,
                instruction: &summary_task,
                notes: "",
                stream: true,
            };
            return self
                .write_up(profile, model, &task, quotes, usage, emit)
                .await;
        }
        let parts: Vec<&[Citation]> = quotes.chunks(QUOTES_PER_PART).collect();
        let mut notes = String::new();
        let mut sources: Vec<Citation> = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            emit(&Event::Status {
                message: format!("Reading part {} of {} of {}", i + 1, parts.len(), d.label()),
            });
            let instruction = format!(
                "Write notes on this part of {} (part {} of {}): at most 3 sentences on what these passages require or state.",
                d.label(),
                i + 1,
                parts.len()
            );
            let task = Task {
                action: Action::Summarize,
                instruction: &instruction,
                notes: "",
                stream: false,
            };
            match self
                .write_up(profile, model, &task, part, usage, emit)
                .await?
            {
                Outcome::Written(w) => {
                    notes.push_str(&format!(
                        "- Part {}: {}\n",
                        i + 1,
                        w.supported.replace('\n', " ")
                    ));
                    sources.extend(w.cited);
                }
                Outcome::Unusable(_) => sources.extend(part.iter().cloned()),
            }
        }
        emit(&Event::Status {
            message: format!("Summarizing {}", d.label()),
        });
        let task = Task {
            action: Action::Summarize,
            instruction: &summary_task,
            notes: &notes,
            stream: true,
        };
        self.write_up(profile, model, &task, &sources, usage, emit)
            .await
    }
}
