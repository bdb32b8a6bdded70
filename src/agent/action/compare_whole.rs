//! Compare, whole versions: when a comparison of two versions of one document names no subject
//! of its own ("What changed between the 2023 and the 2025 policy?"), every sentence of the old
//! version is aligned with the new one (`rules::compare::diff_versions`) and the clauses amended,
//! added and removed are reported with their quotes, the amended ones side by side. Must not:
//! cite a sentence it has not verified, or answer a comparison that has a subject (that is
//! `compare`'s retrieval on the subject).

use crate::Error;
use crate::agent::evidence::*;
use crate::agent::graph::{Node, Transition};
use std::collections::HashSet;

use crate::agent::rules::compare::{self, Change};
use crate::agent::rules::{extractive, text};
use crate::agent::synthesis::Outcome;
use crate::agent::types::*;
use crate::agent::{Agent, Emit};
use crate::index::ChunkRow;
use crate::store::{Document, Profile};

/// Differences reported at most: a reader checks the first ones, and each costs two quotes.
const MAX_CHANGES: usize = 10;

/// Phrases renamed throughout reported at most (each with an amended clause quoted twice).
const MAX_RENAMED: usize = 3;

/// Lines of a document's opening read as its printed title: a title, a subtitle, a
/// reference and version line.
const TITLE_LINES: usize = 3;

/// A sentence of one version, where it stands.
struct Placed {
    evidence: Evidence,
    doc_char: u64,
    text: String,
}

impl Agent<'_> {
    /// The clause-by-clause differences of two versions, old → new, as the answer; `None` when
    /// no difference could be quoted (the caller compares by retrieval instead).
    /// `old` and `new`: each version with its chunks.
    pub(in crate::agent) async fn compare_whole(
        &self,
        profile: &Profile,
        state: &mut RunState,
        (old, old_rows): (&Document, &[ChunkRow]),
        (new, new_rows): (&Document, &[ChunkRow]),
        emit: Emit<'_>,
    ) -> Result<Option<Transition>, Error> {
        emit(&Event::Status {
            message: format!("Aligning {} with {}", old.label(), new.label()),
        });
        let old_sentences = placed_sentences(old, old_rows);
        let new_sentences = placed_sentences(new, new_rows);
        let texts = |s: &[Placed]| s.iter().map(|p| p.text.clone()).collect::<Vec<_>>();
        let (old_texts, new_texts) = (texts(&old_sentences), texts(&new_sentences));
        let changes = compare::diff_versions(
            &old_texts.iter().map(String::as_str).collect::<Vec<_>>(),
            &new_texts.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let total = changes.len();
        let renames = self
            .renamed_lines(profile, &old_sentences, &new_sentences, &changes)
            .await?;
        let mut citations: Vec<Citation> = Vec::new();
        let (mut old_cited, mut new_cited) = (Vec::new(), Vec::new());
        let (mut amended, mut added, mut removed) = (Vec::new(), Vec::new(), Vec::new());
        let mut proposed = 0usize;
        for change in changes.into_iter().take(MAX_CHANGES) {
            match change {
                Change::Amended { old: i, new: j } => {
                    proposed += 2;
                    let (Some(a), Some(b)) = (
                        self.quote(profile, &old_sentences[i]).await?,
                        self.quote(profile, &new_sentences[j]).await?,
                    ) else {
                        continue;
                    };
                    let what = compare::differences(&a.quote, &b.quote)
                        .into_iter()
                        .map(|(x, y)| format!("{x} → {y}"))
                        .collect::<Vec<_>>()
                        .join("; ");
                    amended.push(format!(
                        "- {} → {}{}",
                        shown(&a),
                        shown(&b),
                        if what.is_empty() {
                            String::new()
                        } else {
                            format!(" — {what}")
                        }
                    ));
                    old_cited.push(a.clone());
                    new_cited.push(b.clone());
                    citations.extend([a, b]);
                }
                Change::Added(j) => {
                    proposed += 1;
                    if let Some(b) = self.quote(profile, &new_sentences[j]).await? {
                        added.push(format!("- {}", shown(&b)));
                        new_cited.push(b.clone());
                        citations.push(b);
                    }
                }
                Change::Removed(i) => {
                    proposed += 1;
                    if let Some(a) = self.quote(profile, &old_sentences[i]).await? {
                        removed.push(format!("- {}", shown(&a)));
                        old_cited.push(a.clone());
                        citations.push(a);
                    }
                }
            }
        }
        if citations.is_empty() {
            return Ok(None);
        }
        let mut usage: Option<Usage> = None;
        let mut grounded = 1.0;
        let mut body = format!(
            "Comparing **{}** → **{}** (versions of the same document, old → new), clause by clause:\n\n",
            old.label(),
            new.label()
        );
        if state.mode == Mode::Generative
            && let Some(model) = self.chat_model(profile)?
        {
            let per_doc = vec![(old.clone(), old_cited), (new.clone(), new_cited)];
            let (outcome, share) = self
                .written_comparison(profile, &model, &per_doc, None, &mut usage, emit)
                .await?;
            grounded = share;
            match outcome {
                Outcome::Written(w) => {
                    body.push_str(&w.text);
                    body.push_str("\n\n");
                }
                Outcome::Unusable(why) => body.push_str(&format!(
                    "_The model's comparison is not shown: {why}. The differences are listed below._\n\n"
                )),
            }
        }
        if let Some((section, cited)) = renames {
            body.push_str(&section);
            proposed += cited.len();
            citations.extend(cited);
        }
        for (title, lines) in [
            ("Amended".to_owned(), amended),
            (format!("Added in {}", new.label()), added),
            (
                format!(
                    "In {} only (no counterpart in {})",
                    old.label(),
                    new.label()
                ),
                removed,
            ),
        ] {
            if !lines.is_empty() {
                body.push_str(&format!("**{title}**\n\n{}\n\n", lines.join("\n")));
            }
        }
        if total > MAX_CHANGES {
            body.push_str(&format!(
                "_{} more differences are not listed; ask about a subject to see its clauses._\n",
                total - MAX_CHANGES
            ));
        }
        let verification = citations.len() as f32 / proposed.max(1) as f32;
        // The whole of both versions was read: nothing rests on retrieval's judgement.
        let mut confidence = Confidence::unjudged(1.0, 1.0, verification, Vec::new());
        confidence.grounding = grounded;
        state.answer = Some(answered(
            body.trim_end().to_owned(),
            citations,
            confidence,
            usage,
        ));
        Ok(Some(Transition::Next(Node::CheckConfidence)))
    }

    /// The phrases the new version says otherwise throughout (`rules::compare::renamed`), as a
    /// section of the answer with one amended clause of each quoted from both versions, and
    /// those quotes; `None` when nothing was renamed or no example could be quoted.
    pub(super) async fn renamed_section(
        &self,
        profile: &Profile,
        (old, old_rows): (&Document, &[ChunkRow]),
        (new, new_rows): (&Document, &[ChunkRow]),
    ) -> Result<Option<(String, Vec<Citation>)>, Error> {
        let old_sentences = placed_sentences(old, old_rows);
        let new_sentences = placed_sentences(new, new_rows);
        let old_texts: Vec<&str> = old_sentences.iter().map(|p| p.text.as_str()).collect();
        let new_texts: Vec<&str> = new_sentences.iter().map(|p| p.text.as_str()).collect();
        let changes = compare::diff_versions(&old_texts, &new_texts);
        self.renamed_lines(profile, &old_sentences, &new_sentences, &changes)
            .await
    }

    async fn renamed_lines(
        &self,
        profile: &Profile,
        old_sentences: &[Placed],
        new_sentences: &[Placed],
        changes: &[Change],
    ) -> Result<Option<(String, Vec<Citation>)>, Error> {
        let old_texts: Vec<&str> = old_sentences.iter().map(|p| p.text.as_str()).collect();
        let new_texts: Vec<&str> = new_sentences.iter().map(|p| p.text.as_str()).collect();
        let mut lines = Vec::new();
        let mut cited = Vec::new();
        for r in compare::renamed(&old_texts, &new_texts, changes)
            .into_iter()
            .take(MAX_RENAMED)
        {
            let Some(&(i, j)) = r.pairs.first() else {
                continue;
            };
            let (Some(a), Some(b)) = (
                self.quote(profile, &old_sentences[i]).await?,
                self.quote(profile, &new_sentences[j]).await?,
            ) else {
                continue;
            };
            lines.push(format!(
                "- “{}” → “{}”, in {} amended clauses; for one: {} → {}",
                r.old,
                r.new,
                r.pairs.len(),
                shown(&a),
                shown(&b)
            ));
            cited.extend([a, b]);
        }
        if lines.is_empty() {
            return Ok(None);
        }
        Ok(Some((
            format!("**Renamed throughout**\n\n{}\n\n", lines.join("\n")),
            cited,
        )))
    }

    /// A sentence of a version cited where it stands, if its page holds it.
    async fn quote(&self, profile: &Profile, p: &Placed) -> Result<Option<Citation>, Error> {
        self.cite(profile, &p.evidence, p.doc_char, &p.text).await
    }
}

/// The stems of the lines that open a document (at most [`TITLE_LINES`]), from its chunks: the
/// title it prints on its first page, which its file name may not carry ("DATA RETENTION AND
/// DISPOSAL STANDARD" in "retention-standard-1.1.pdf").
pub(super) fn printed_title(rows: &[ChunkRow]) -> HashSet<String> {
    let opening = rows
        .iter()
        .min_by_key(|r| r.char_start)
        .map(|r| {
            r.text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(TITLE_LINES)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    extractive::stems(&opening)
}

/// Every sentence of a document that states something, from its chunks, once each and in
/// reading order (chunks overlap: of two readings that start at one place, the longer).
fn placed_sentences(doc: &Document, rows: &[ChunkRow]) -> Vec<Placed> {
    let mut rows: Vec<&ChunkRow> = rows.iter().collect();
    rows.sort_by_key(|r| r.char_start);
    let mut placed: Vec<Placed> = Vec::new();
    for r in rows {
        let evidence = Evidence {
            document_id: doc.id.clone(),
            ..row_evidence(r)
        };
        for s in text::sentences(&r.text)
            .iter()
            .flat_map(|s| text::pieces(s, text::QUOTE_CHARS))
        {
            if text::looks_like_heading(&s.text)
                || is_fragment(&s)
                || s.text.split_whitespace().count() < 4
            {
                continue;
            }
            let doc_char = r.char_start + r.text[..s.start].chars().count() as u64;
            let end = doc_char + s.text.chars().count() as u64;
            // A reading that starts inside one already taken is a piece of it.
            let inside = placed.iter().any(|p| {
                let p_end = p.doc_char + p.text.chars().count() as u64;
                p.doc_char < doc_char && doc_char < p_end && end <= p_end
            });
            match placed.iter_mut().find(|p| p.doc_char == doc_char) {
                Some(p) if p.text.chars().count() < s.text.chars().count() => {
                    p.text = s.text.clone();
                    p.evidence = evidence.clone();
                }
                Some(_) => {}
                None if inside => {}
                None => placed.push(Placed {
                    evidence: evidence.clone(),
                    doc_char,
                    text: s.text.clone(),
                }),
            }
        }
    }
    placed.sort_by_key(|p| p.doc_char);
    placed
}

/// A quote as the answer shows it: its words and where it stands.
fn shown(c: &Citation) -> String {
    format!(
        "“{}” (📄 {}, p. {})",
        c.quote.replace('\n', " "),
        label(&c.title, &c.version),
        c.page
    )
}
