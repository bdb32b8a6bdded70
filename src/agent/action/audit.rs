//! The Audit action: a source (text pasted in the message, a policy document, or an earlier
//! message of the thread) checked against 1–5 target documents.
//!
//! Owns: choosing the source and the targets, retrieval per source statement and target
//! (spec 002's short-source mode; a document source is sampled evenly first, its long-source
//! mode), the extractive rule pass of [`crate::agent::rules::audit`], and the report and its
//! Markdown; the pass with a model is [`super::audit_model`]. Must not: flag a
//! conflict that no rule or verified model finding supports, or cite an unverified quote.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::Error;
use crate::agent::evidence::{evidence_of, label, refusal};
use crate::agent::graph::{Node, Transition};
use crate::agent::resolve;
use crate::agent::rules::audit::{self, Deontic};
use crate::agent::rules::{extractive, text};
use crate::agent::types::*;
use crate::agent::{Agent, Emit};
use crate::library::{MAX_QUERY_CHARS, SearchRequest};
use crate::store::{DocType, Document, Profile};

/// Most statements of a source examined (a document source is sampled evenly down to this).
const MAX_STATEMENTS: usize = 40;
/// Passages retrieved per statement and target.
const PER_STATEMENT: usize = 8;
/// The longest rule read as one clause: a longer one is read in pieces cut at its clause
/// boundaries (`text::pieces`).
const MAX_CLAUSE_CHARS: usize = 600;

/// A clause of a target with where it came from.
pub(super) struct Candidate {
    pub(super) evidence: Evidence,
    sentence: String,
    doc_char: u64,
    clause: audit::Clause,
    /// For a row of a table, the row that names its columns: what the row's values are
    /// (see `text::table_header`).
    header: Option<String>,
    /// For such a row, the terms of the row itself (its case: "1 - Critical"), without its
    /// header's; empty for any other sentence.
    row_terms: HashSet<String>,
    /// Whether the clause is one case of a rule that sets a measure per case, or the whole of
    /// such a rule (see `audit::cases`).
    part: Part,
}

/// What part of its sentence a [`Candidate`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// The whole rule, which has no cases.
    Whole,
    /// The whole of a rule with cases (the own terms of each, in order): it binds by its
    /// loosest measure, for a statement in none of them (see `audit::case_of`).
    WholeOfCases(Arc<[HashSet<String>]>),
    /// Case `index` of a rule whose cases have these own terms, read as `reading`.
    Case {
        index: usize,
        owns: Arc<[HashSet<String>]>,
        reading: String,
    },
}

impl Part {
    /// Whether a statement with `terms` is held to this part of its rule: a rule without cases
    /// always, a case when the statement is in it, the whole of a rule with cases when the
    /// statement is in none.
    fn binds(&self, terms: &HashSet<String>) -> bool {
        let case_of =
            |owns: &[HashSet<String>]| audit::case_of(terms, &owns.iter().collect::<Vec<_>>());
        match self {
            Part::Whole => true,
            Part::WholeOfCases(owns) => case_of(owns).is_none(),
            Part::Case { index, owns, .. } => case_of(owns) == Some(*index),
        }
    }
}

impl Candidate {
    /// The text compared with a statement: the sentence, after the names of its columns
    /// when it is a table row ("Severity … First response" before "1 - Critical … Within 15
    /// minutes").
    fn compared(&self) -> String {
        match (&self.header, &self.part) {
            (_, Part::Case { reading, .. }) => reading.clone(),
            (Some(h), _) => format!("{h}\n{}", self.sentence),
            (None, _) => self.sentence.clone(),
        }
    }

    /// Which of its sentence's parts it is: 0 for the whole, 1 + its index for a case.
    fn part_key(&self) -> (u64, usize) {
        match &self.part {
            Part::Case { index, .. } => (self.doc_char, index + 1),
            _ => (self.doc_char, 0),
        }
    }
}

/// The audited text and where it came from.
pub(super) struct Source {
    pub(super) text: String,
    kind: AuditSource,
    document_id: Option<String>,
}

impl Agent<'_> {
    /// Runs the Audit action (both modes) and leaves the answer in `state`.
    pub(in crate::agent) async fn audit(
        &self,
        profile: &Profile,
        state: &mut RunState,
        emit: Emit<'_>,
    ) -> Result<Transition, Error> {
        let docs = self.resolved_documents(profile, state).await?;
        let Some(source) = self.audit_source(profile, state, &docs).await? else {
            state.answer = Some(refusal(
                "There is no text to audit. Paste it after your request (on a new line), or tag the policy document to audit followed by the documents to audit it against.",
            ));
            return Ok(Transition::Next(Node::Format));
        };
        let targets: Vec<Document> = docs
            .into_iter()
            .filter(|d| Some(&d.id) != source.document_id.as_ref())
            .collect();
        if targets.is_empty() {
            state.answer = Some(refusal(
                "Tag the documents to audit against (1 to 5), for example a regulation of your library.",
            ));
            return Ok(Transition::Next(Node::Format));
        }
        let every_statement = audit::statements(&source.text);
        let mut statements = every_statement.clone();
        if statements.len() > MAX_STATEMENTS {
            // Spread evenly over the source (long policies: every part is represented).
            let n = statements.len();
            statements = (0..MAX_STATEMENTS)
                .filter_map(|i| statements.get(i * n / MAX_STATEMENTS).cloned())
                .collect();
        }
        if statements.is_empty() {
            state.answer = Some(refusal(
                "The text to audit has no complete sentence to check. Paste the full text after your request.",
            ));
            return Ok(Transition::Next(Node::Format));
        }
        emit(&Event::Status {
            message: format!(
                "Checking {} statements against {} document{}",
                statements.len(),
                targets.len(),
                if targets.len() == 1 { "" } else { "s" }
            ),
        });
        // Per target: the clauses that bear on each statement (direct retrieval per statement).
        let mut per_target: Vec<(Document, Vec<Candidate>)> = Vec::new();
        let mut evidence_all = Vec::new();
        // Each retrieved passage's text with its cut last sentence finished, by chunk id.
        let mut finished: HashMap<String, String> = HashMap::new();
        for t in &targets {
            let mut found: Vec<Candidate> = Vec::new();
            let mut framed_at: HashSet<u64> = HashSet::new();
            for s in &statements {
                // The statement, and each of its clauses when it has several ("… links to
                // shared headers, and every directory in it is mode 777").
                let mut queries = vec![s.text.clone()];
                if s.parts.len() > 1 {
                    queries.extend(
                        s.parts
                            .iter()
                            .filter(|p| p.text.split_whitespace().count() >= 4)
                            .map(|p| p.text.clone()),
                    );
                }
                // Names a rule is written about: options ("--help"), paths ("/etc/opt"), modes.
                let marked: Vec<&str> = s
                    .text
                    .split_whitespace()
                    .map(|w| {
                        w.trim_matches(|c: char| {
                            matches!(c, ',' | '.' | ';' | ':' | '"' | '(' | ')')
                        })
                    })
                    .filter(|w| {
                        (w.starts_with("--") && w.len() > 3) || (w.starts_with('/') && w.len() > 2)
                    })
                    .collect();
                if !marked.is_empty() {
                    queries.push(format!("{} option directory", marked.join(" ")));
                }
                let mut hits = Vec::new();
                for q in queries {
                    hits.extend(
                        self.lib
                            .search(
                                profile,
                                &SearchRequest {
                                    // A run-on "statement" (a paragraph without full stops)
                                    // is searched by its beginning.
                                    query: text::clip(&q, MAX_QUERY_CHARS).to_owned(),
                                    k: PER_STATEMENT,
                                    documents: vec![t.id.clone()],
                                    ..SearchRequest::default()
                                },
                            )
                            .await?,
                    );
                }
                for h in &hits {
                    let mut e = evidence_of(h);
                    // A passage several statements retrieve is finished from its page once.
                    match finished.get(&e.chunk_id) {
                        Some(text) => e.text.clone_from(text),
                        None => {
                            self.finish_last_sentence(profile, &mut e).await?;
                            finished.insert(e.chunk_id.clone(), e.text.clone());
                        }
                    }
                    // The line that introduces a list lends its words to the list's items,
                    // as a table's header row to its rows.
                    let ss = text::sentences(&e.text);
                    let leads = extractive::list_leads(&ss);
                    for (sentence, lead) in ss.iter().zip(leads) {
                        let header = text::table_header(&e.text, sentence.start)
                            .filter(|(at, _)| *at != sentence.start)
                            .map(|(_, h)| h.to_owned())
                            .or(lead.map(|l| l.text.clone()));
                        // A rule too long to read as one clause (a licence's run-on list
                        // item) is read in pieces cut at its clause boundaries.
                        let rules = audit::rule_pieces(&sentence.text).into_iter().flat_map(
                            |r: audit::RulePiece<'_>| {
                                if r.text.chars().count() <= MAX_CLAUSE_CHARS {
                                    return vec![(r.offset, r.text, r.reading)];
                                }
                                let whole = text::Sentence {
                                    start: r.offset,
                                    end: r.offset + r.text.len(),
                                    text: r.text.to_owned(),
                                };
                                text::pieces(&whole, MAX_CLAUSE_CHARS)
                                    .into_iter()
                                    .map(|p| {
                                        let at = p.start - r.offset;
                                        let piece = &r.text[at..at + p.text.len()];
                                        (p.start, piece, piece.to_owned())
                                    })
                                    .collect()
                            },
                        );
                        let frame = lead.map(|l| l.text.as_str());
                        for (offset, piece, reading) in rules {
                            let framed = frame.and_then(|l| audit::framed_item(l, &reading));
                            let is_framed = framed.is_some();
                            let reading = if let Some(framed) = framed {
                                framed
                            } else if header.is_some() {
                                audit::item_reading(&reading)
                            } else {
                                reading
                            };
                            let at = sentence.start + offset;
                            let doc_char = e.char_start + e.text[..at].chars().count() as u64;
                            // Passages overlap: a list item is read once, with its lead when
                            // some passage holds the lead (one that starts inside the list
                            // does not).
                            if found.iter().any(|c| c.doc_char == doc_char) {
                                if !is_framed || framed_at.contains(&doc_char) {
                                    continue;
                                }
                                found.retain(|c| c.doc_char != doc_char);
                            }
                            if is_framed {
                                framed_at.insert(doc_char);
                            }
                            let candidate = |mut clause: audit::Clause, part| {
                                if let Some(h) = &header {
                                    clause.terms.extend(audit::terms(h));
                                }
                                Candidate {
                                    evidence: e.clone(),
                                    sentence: piece.to_owned(),
                                    doc_char,
                                    clause,
                                    row_terms: if header.is_some() {
                                        audit::terms(piece)
                                    } else {
                                        HashSet::new()
                                    },
                                    header: header.clone(),
                                    part,
                                }
                            };
                            // A rule with one measure per case is read whole (by its loosest
                            // measure, when it binds as one line) and case by case — when
                            // every case reads as a rule, so that a case's index is its place.
                            let terms = audit::terms(&reading);
                            let cases: Vec<(audit::Case, audit::Clause)> = audit::cases(&reading)
                                .into_iter()
                                .map(|case| {
                                    let mut clause = audit::clause(&case.reading)?;
                                    clause.terms.extend(terms.iter().cloned());
                                    Some((case, clause))
                                })
                                .collect::<Option<_>>()
                                .unwrap_or_default();
                            let owns: Arc<[HashSet<String>]> =
                                cases.iter().map(|(case, _)| case.own.clone()).collect();
                            let whole_part = if cases.len() < 2 {
                                Part::Whole
                            } else {
                                Part::WholeOfCases(owns.clone())
                            };
                            if let Some(clause) = audit::clause(&reading) {
                                found.push(candidate(clause, whole_part.clone()));
                            }
                            if whole_part != Part::Whole {
                                for (index, (case, clause)) in cases.into_iter().enumerate() {
                                    found.push(candidate(
                                        clause,
                                        Part::Case {
                                            index,
                                            owns: owns.clone(),
                                            reading: case.reading,
                                        },
                                    ));
                                }
                            }
                        }
                    }
                    if !evidence_all
                        .iter()
                        .any(|x: &Evidence| x.chunk_id == e.chunk_id)
                    {
                        evidence_all.push(e);
                    }
                }
            }
            per_target.push((t.clone(), found));
        }
        state.evidence = evidence_all;
        let generative = match state.mode {
            Mode::Generative => self.chat_model(profile)?,
            Mode::Extractive => None,
        };
        let (findings, checked, usage, themes) = match generative {
            Some(model) => {
                let m = self
                    .audit_with_model(
                        profile,
                        state,
                        &model,
                        super::audit_model::Audited {
                            source: &source,
                            statements: &every_statement,
                            per_target: &per_target,
                        },
                        emit,
                    )
                    .await?;
                // The model judges, but never below the offline checks: a conflict they find
                // (a quantity, a modality, a negation against its clause) stays a finding
                // whatever a weak model replied (the 0.5 B model found 1 of the development
                // set's 18 required findings on its own).
                let (offline, _) = self
                    .audit_extractive(profile, &statements, &per_target)
                    .await?;
                // One conflict once: the model quotes part of a statement and of a clause.
                let overlap = |a: &str, b: &str| {
                    let (a, b) = (
                        text::normalise_for_match(a).0,
                        text::normalise_for_match(b).0,
                    );
                    a.contains(&b) || b.contains(&a)
                };
                let mut findings = m.findings;
                for f in offline {
                    if !findings.iter().any(|g| {
                        g.target.document_id == f.target.document_id
                            && overlap(&g.target.quote, &f.target.quote)
                            && overlap(&g.source_quote, &f.source_quote)
                    }) {
                        findings.push(f);
                    }
                }
                (findings, Vec::new(), Some(m.usage), m.themes)
            }
            None => {
                let (f, c) = self
                    .audit_extractive(profile, &statements, &per_target)
                    .await?;
                (f, c, None, None)
            }
        };
        let mut report = report(findings, checked, &targets, &source, statements.len());
        report.themes_analyzed = themes;
        let mut citations: Vec<Citation> = Vec::new();
        for c in report
            .findings
            .iter()
            .map(|f| &f.target)
            .chain(report.checked.iter().map(|c| &c.target))
        {
            if !citations.iter().any(|x| x.quote == c.quote) {
                citations.push(c.clone());
            }
        }
        let verification = if citations.is_empty() { 0.0 } else { 1.0 };
        let level = if report.findings.is_empty() && report.checked.is_empty() {
            Level::Medium
        } else {
            Level::High
        };
        state.answer = Some(Answer {
            status: Status::Answered,
            text: markdown(&report),
            confidence: Some(Confidence {
                level,
                score: if level == Level::High { 0.8 } else { 0.5 },
                reason: if level == Level::High {
                    format!(
                        "{} statements checked against the clauses of {} document{} that bear on them; every quote verified on its page",
                        report.statements_checked,
                        report.targets_checked,
                        if report.targets_checked == 1 { "" } else { "s" }
                    )
                } else {
                    "No clause of the targets bears directly on the text: no conflict was found, but little was checked".into()
                },
                retrieval: state
                    .evidence
                    .iter()
                    .map(|e| e.vector_score)
                    .fold(0.0, f32::max),
                coverage: 1.0,
                verification,
                missing: Vec::new(),
                grounding: 1.0,
                closeness: None,
            }),
            citations,
            options: Vec::new(),
            usage,
            audit: Some(report),
        });
        Ok(Transition::Next(Node::Format))
    }

    /// The source: pasted text, else a policy document among several tagged ones, else the
    /// text of an earlier message of the thread ("audit this email against those two").
    async fn audit_source(
        &self,
        profile: &Profile,
        state: &RunState,
        docs: &[Document],
    ) -> Result<Option<Source>, Error> {
        let own = resolve::strip_tags_keep_lines(&state.question);
        if let Some(text) = audit::pasted_source(&own) {
            return Ok(Some(Source {
                text,
                kind: AuditSource::Message,
                document_id: None,
            }));
        }
        if docs.len() >= 2 {
            let policy = docs.iter().find(|d| d.doc_type == DocType::Policy);
            let regulatory = docs.iter().any(|d| d.doc_type == DocType::Regulatory);
            let src = match policy {
                Some(p) if regulatory => Some(p),
                _ if own.to_lowercase().contains(" against ") => docs.first(),
                _ => None,
            };
            if let Some(d) = src {
                let pages = self.lib.store().page_texts(&profile.id, &d.id).await?;
                let text = pages
                    .into_iter()
                    .map(|(_, t)| t)
                    .collect::<Vec<_>>()
                    .join("\n\n");
                return Ok(Some(Source {
                    text,
                    kind: AuditSource::Document {
                        document_id: d.id.clone(),
                        title: d.label(),
                    },
                    document_id: Some(d.id.clone()),
                }));
            }
        }
        // An earlier message: the last pasted text of a user message, else the last answer.
        let rows = self
            .lib
            .store()
            .messages(&profile.id, &state.thread_id)
            .await?;
        for r in rows.iter().rev() {
            if r.id == state.user_message_id || r.id == state.assistant_message_id {
                continue;
            }
            let candidate = if r.role == Role::User.as_str() {
                audit::pasted_source(&resolve::strip_tags_keep_lines(&r.content))
            } else {
                None
            };
            if let Some(text) = candidate {
                return Ok(Some(Source {
                    text,
                    kind: AuditSource::EarlierMessage {
                        message_id: r.id.clone(),
                    },
                    document_id: None,
                }));
            }
        }
        Ok(rows
            .iter()
            .rev()
            .find(|r| r.role == Role::Assistant.as_str() && r.id != state.assistant_message_id)
            .map(|r| Source {
                text: r.content.clone(),
                kind: AuditSource::EarlierMessage {
                    message_id: r.id.clone(),
                },
                document_id: None,
            }))
    }

    /// The rule pass: each statement against the clauses retrieved for it.
    async fn audit_extractive(
        &self,
        profile: &Profile,
        statements: &[audit::Statement],
        per_target: &[(Document, Vec<Candidate>)],
    ) -> Result<(Vec<Finding>, Vec<CheckedClause>), Error> {
        let embedder = self.lib.embedder().await?;
        let mut findings = Vec::new();
        let mut checked = Vec::new();
        // The act each statement does, read as a rule reads it ("may be introduced in …" does
        // "introduce"); a statement with no modal names none.
        let own_acts: Vec<HashSet<String>> = statements
            .iter()
            .map(|s| audit::clause(&s.text).map(|c| c.act).unwrap_or_default())
            .collect();
        for (t, all) in per_target {
            // A statement that names the document it is checked against ("… licensed under the
            // Harbour Licence") refers to it: the words of that name say which document, not
            // what the statement does, and are read out of the statement for this document.
            let names = self.document_names(profile, t).await?;
            let own: Vec<audit::Statement> = statements
                .iter()
                .map(|s| match audit::without_document_name(&s.text, &names) {
                    Some(rest) => audit::Statement {
                        text: s.text.clone(),
                        ..audit::statement(&rest)
                    },
                    None => s.clone(),
                })
                .collect();
            let statements = own.as_slice();
            // A clause sharing no term with any statement can meet no rule: not embedded.
            let candidates: Vec<&Candidate> = all
                .iter()
                .filter(|c| {
                    statements
                        .iter()
                        .any(|s| audit::shared(&s.terms, &c.clause.terms) >= 1)
                })
                .collect();
            if candidates.is_empty() {
                continue;
            }
            let mut texts: Vec<String> = statements.iter().map(|s| s.text.clone()).collect();
            texts.extend(candidates.iter().map(|c| c.compared()));
            let vectors = embedder.embed(&texts).await?.vectors;
            let (sv, cv) = vectors.split_at(statements.len().min(vectors.len()));
            let mut flagged: HashMap<(u64, usize), (usize, f32)> = HashMap::new();
            let mut hits: Vec<(usize, usize, audit::Conflict, f32)> = Vec::new();
            let mut consistent: Vec<(usize, usize, f32)> = Vec::new();
            for (si, s) in statements.iter().enumerate() {
                let sims: Vec<f32> = cv
                    .iter()
                    .map(|c| sv.get(si).map_or(0.0, |v| dot(v, c)))
                    .collect();
                // An explicit permission that fits the statement clearly better than a rule
                // does ("you may offer warranty protection for a fee") clears it — only a
                // permission about what the rule is about (one clause of a long statement must
                // not clear the rule another clause breaks). A statement that itself grants
                // something ("a member may also serve as …") is backed only by a permission of
                // the act it grants ("a member may be removed" backs nothing of what a member
                // may serve as).
                let grants = audit::permits(&s.text);
                // A permission that allows less than the rule still bounds what it allows
                // (`audit::beyond_permission`): it clears no number beyond its own, and one about
                // another act or measure clears none (`audit::allows_range`).
                let permitted = |rule: &audit::Clause, out_of_range: bool| {
                    candidates
                        .iter()
                        .zip(&sims)
                        .filter(|(c, _)| {
                            c.clause.deontic == Deontic::Permission
                                && !(out_of_range && audit::beyond_permission(s, rule, &c.sentence))
                                && (!out_of_range || audit::allows_range(rule, &c.clause))
                                && audit::shared(&s.terms, &c.clause.terms) >= 2
                                && audit::shared(&rule.terms, &c.clause.terms) >= 1
                                && (!grants
                                    || c.clause.act.is_empty()
                                    || c.clause.act.iter().any(|a| s.terms.contains(a)))
                        })
                        .map(|(_, sim)| *sim)
                        .fold(0.0f32, f32::max)
                };
                // A rule with one measure per case holds the statement to its case, else to
                // the whole rule (its loosest measure).
                let eligible = |c: &Candidate| c.part.binds(&s.terms);
                // The bound that governs a number of the statement is the one in the clause
                // closest to it among those that measure the same thing ("submit the return
                // within 14 days", not "notify the supervisor within 2 business days"; a
                // recurrence by the clause that sets a recurrence). Rows of one table differ by
                // their case ("1 - Critical", "4 - Low"), which similarity hardly weighs: a row
                // that shares fewer of the statement's words than `row` does is not closer to
                // it than `row` whatever its similarity.
                let governing = |dims: &[audit::Dimension], row: &Candidate| {
                    let own = |c: &Candidate| audit::shared(&s.terms, &c.row_terms);
                    candidates
                        .iter()
                        .zip(&sims)
                        .filter(|(c, _)| {
                            eligible(c)
                                && c.clause.bounds.iter().any(|b| dims.contains(&b.dimension))
                        })
                        .filter(|(c, _)| {
                            row.header.is_none() || c.header != row.header || own(c) >= own(row)
                        })
                        .map(|(_, sim)| *sim)
                        .fold(0.0f32, f32::max)
                };
                let permissions: Vec<bool> = candidates
                    .iter()
                    .map(|c| c.clause.deontic == Deontic::Permission)
                    .collect();
                let narrow: Vec<bool> = candidates
                    .iter()
                    .map(|c| c.clause.without_polarity)
                    .collect();
                let acting: Vec<bool> = candidates
                    .iter()
                    .map(|c| c.clause.act.iter().any(|a| own_acts[si].contains(a)))
                    .collect();
                let measuring: Vec<bool> = candidates
                    .iter()
                    .map(|c| !audit::measured_alike(s, &c.clause).is_empty())
                    .collect();
                let governs = audit::governing(&sims, &permissions, &narrow, &acting, &measuring);
                // The clauses that govern the statement and are eligible for it.
                let ruled: Vec<bool> = candidates
                    .iter()
                    .enumerate()
                    .map(|(ci, c)| governs.get(ci).copied().unwrap_or(false) && eligible(c))
                    .collect();
                let ruling: Vec<&audit::Clause> = candidates
                    .iter()
                    .zip(&ruled)
                    .filter(|(_, r)| **r)
                    .map(|(c, _)| &c.clause)
                    .collect();
                // A location one governing rule allows: the others' locations are not held
                // against the statement (`audit::location_met`).
                // So is a name one governing rule allows (`audit::name_met`).
                let located = audit::location_met(s, &ruling);
                let named = audit::name_met(s, &ruling);
                let mut mine = Vec::new();
                for (ci, c) in candidates.iter().enumerate() {
                    let sim = sims.get(ci).copied().unwrap_or(0.0);
                    if !ruled[ci] {
                        continue;
                    }
                    let drop_location = located && !c.clause.required_paths.is_empty();
                    let drop_name = named && !c.clause.required_names.is_empty();
                    let held_to_less;
                    let clause = if drop_location || drop_name {
                        held_to_less = audit::Clause {
                            required_paths: if drop_location {
                                Vec::new()
                            } else {
                                c.clause.required_paths.clone()
                            },
                            required_names: if drop_name {
                                Vec::new()
                            } else {
                                c.clause.required_names.clone()
                            },
                            ..c.clause.clone()
                        };
                        &held_to_less
                    } else {
                        &c.clause
                    };
                    match audit::check(s, clause, sim) {
                        Some(conflict)
                            if conflict.rule == AuditRule::OutOfRange
                                && sim < governing(&audit::measured_alike(s, &c.clause), c) => {}
                        Some(conflict)
                            if sim + 0.05
                                >= permitted(&c.clause, conflict.rule == AuditRule::OutOfRange) =>
                        {
                            mine.push((ci, conflict, sim));
                        }
                        Some(_) => {}
                        None if c.clause.deontic != Deontic::Permission
                            && sim >= 0.5
                            && audit::shared(&s.terms, &c.clause.terms) >= 2 =>
                        {
                            consistent.push((si, ci, sim));
                        }
                        None => {}
                    }
                }
                mine.sort_by(|a, b| b.2.total_cmp(&a.2));
                mine.truncate(3);
                tracing::debug!(statement = si, kept = ?mine.iter().map(|m| (m.0, m.2)).collect::<Vec<_>>(), "audit statement");
                for (ci, conflict, sim) in mine {
                    let key = candidates[ci].part_key();
                    // One finding per clause: the statement that fits it best.
                    match flagged.get(&key) {
                        Some((_, best)) if *best >= sim => continue,
                        _ => {
                            flagged.insert(key, (si, sim));
                        }
                    }
                    hits.retain(|(_, c, _, _)| candidates[*c].part_key() != key);
                    hits.push((si, ci, conflict, sim));
                }
            }
            for (si, ci, conflict, sim) in hits {
                let c = &candidates[ci];
                let Some(cite) = self
                    .cite(profile, &c.evidence, c.doc_char, &c.sentence)
                    .await?
                else {
                    tracing::debug!(clause = %text::clip(&c.sentence, 80), "finding dropped: quote not verified");
                    continue;
                };
                let strong = c.clause.strong;
                findings.push(Finding {
                    target_doc_id: t.id.clone(),
                    target_doc_title: t.label(),
                    theme: None,
                    severity: conflict.severity,
                    rule: conflict.rule,
                    // Quoted clause words keep the PDF's line breaks; a summary is one line.
                    summary: conflict
                        .summary
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                    consequence: format!(
                        "{} of {} (p. {}).",
                        if strong {
                            "Breaches a mandatory requirement"
                        } else {
                            "Departs from a recommendation"
                        },
                        t.label(),
                        cite.page
                    ),
                    source_quote: statements[si].text.clone(),
                    target: cite,
                    suggestion: conflict
                        .suggestion
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                    confidence_score: (0.5 + sim / 2.0).clamp(0.0, 0.95),
                });
            }
            consistent.sort_by(|a, b| b.2.total_cmp(&a.2));
            let mut shown = 0;
            for (si, ci, _) in consistent {
                if shown >= 4
                    || flagged.keys().any(|k| k.0 == candidates[ci].doc_char)
                    || findings
                        .iter()
                        .any(|f| f.source_quote == statements[si].text)
                    || checked
                        .iter()
                        .any(|x: &CheckedClause| x.source_quote == statements[si].text)
                {
                    continue;
                }
                let c = &candidates[ci];
                if let Some(cite) = self
                    .cite(profile, &c.evidence, c.doc_char, &c.sentence)
                    .await?
                {
                    checked.push(CheckedClause {
                        source_quote: statements[si].text.clone(),
                        target: cite,
                    });
                    shown += 1;
                }
            }
        }
        Ok((findings, checked))
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Orders findings (target, then severity) and sets the verdict.
fn report(
    mut findings: Vec<Finding>,
    checked: Vec<CheckedClause>,
    targets: &[Document],
    source: &Source,
    statements: usize,
) -> AuditReport {
    let order: HashMap<&str, usize> = targets
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    findings.sort_by(|a, b| {
        order
            .get(a.target_doc_id.as_str())
            .cmp(&order.get(b.target_doc_id.as_str()))
            .then(a.severity.cmp(&b.severity))
            .then(a.target.page.cmp(&b.target.page))
    });
    let status = AuditStatus::of(&findings);
    let summary = if findings.is_empty() {
        format!(
            "No conflict found between the text and {}.",
            targets
                .iter()
                .map(Document::label)
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        let mut per: Vec<String> = Vec::new();
        for t in targets {
            let n = findings.iter().filter(|f| f.target_doc_id == t.id).count();
            if n > 0 {
                per.push(format!(
                    "{n} finding{} against {}",
                    if n == 1 { "" } else { "s" },
                    t.label()
                ));
            }
        }
        per.join("; ")
    };
    AuditReport {
        overall_status: status,
        findings,
        checked,
        summary,
        targets_checked: targets.len(),
        source: source.kind.clone(),
        statements_checked: statements,
        themes_analyzed: None,
    }
}

/// The report as Markdown: verdict, findings per target by severity, then the clauses checked.
fn markdown(r: &AuditReport) -> String {
    let icon = match r.overall_status {
        AuditStatus::Compliant => "✅",
        AuditStatus::MinorIssues => "⚠️",
        AuditStatus::MajorViolations => "🔴",
    };
    let from = match &r.source {
        AuditSource::Message => "the text in your message".to_owned(),
        AuditSource::EarlierMessage { .. } => "the text of an earlier message".to_owned(),
        AuditSource::Document { title, .. } => format!("**{title}**"),
    };
    let mut out = format!(
        "{icon} **Audit: {}** — {} ({} statement{} of {from} checked against {} document{}).\n\n",
        r.overall_status.label(),
        r.summary,
        r.statements_checked,
        if r.statements_checked == 1 { "" } else { "s" },
        r.targets_checked,
        if r.targets_checked == 1 { "" } else { "s" }
    );
    if let Some(n) = r.themes_analyzed {
        out.push_str(&format!(
            "The source was read by theme: {n} theme{} checked one by one.\n\n",
            if n == 1 { "" } else { "s" }
        ));
    }
    let mut current = "";
    for f in &r.findings {
        if f.target_doc_id != current {
            out.push_str(&format!("### {}\n\n", f.target_doc_title));
            current = &f.target_doc_id;
        }
        // Optional lines: a theme (long sources), and what the model's description kept.
        let line = |name: &str, value: Option<&String>| {
            value
                .filter(|v| !v.trim().is_empty())
                .map(|v| format!("- {name}: {v}\n"))
                .unwrap_or_default()
        };
        out.push_str(&format!(
            "**{}** — {}\n\n{}- Source: “{}”\n- Clause: “{}” (📄 {}, p. {})\n{}{}\n",
            f.severity.label(),
            f.summary,
            line("Theme", f.theme.as_ref()),
            text::clip(&f.source_quote, text::QUOTE_CHARS),
            f.target.quote,
            label(&f.target.title, &f.target.version),
            f.target.page,
            line("Consequence", Some(&f.consequence)),
            line("Suggestion", Some(&f.suggestion)),
        ));
    }
    if !r.checked.is_empty() {
        out.push_str("**Checked without conflict**\n\n");
        for c in &r.checked {
            out.push_str(&format!(
                "- “{}” ↔ “{}” (📄 {}, p. {})\n",
                text::clip(&c.source_quote, 200),
                c.target.quote,
                label(&c.target.title, &c.target.version),
                c.target.page
            ));
        }
    }
    out.trim_end().to_owned()
}
