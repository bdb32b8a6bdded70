//! Compare: the passages of each document that best answer the question side by side (versions
//! of one document ordered old → new), with changed quantities and obligation words called out;
//! in generative mode the model first writes the comparison from those verified quotes (themes,
//! then how the documents differ on each), grounded sentence by sentence. Must not: cite a
//! passage it has not verified.

use std::collections::{HashMap, HashSet};

use super::compare_whole;
use crate::Error;
use crate::agent::evidence::*;
use crate::agent::graph::{Node, Transition};
use crate::agent::resolve;
use crate::agent::rules::{Pattern, acronyms, compare, extractive, regex, text, value};
use crate::agent::synthesis::{Outcome, Task};
use crate::agent::types::*;
use crate::agent::{Agent, Emit};
use crate::library::SearchRequest;
use crate::store::{Document, Profile};
use std::sync::LazyLock;

impl Agent<'_> {
    /// Compare: the passages of each document that best answer the question, side by side
    /// (versions of one document ordered old → new), with changed quantities and obligation
    /// words called out; in generative mode the model's grounded comparison comes first.
    pub(in crate::agent) async fn compare(
        &self,
        profile: &Profile,
        state: &mut RunState,
        emit: Emit<'_>,
    ) -> Result<Transition, Error> {
        let mut docs = self.resolved_documents(profile, state).await?;
        let same_title = docs
            .windows(2)
            .all(|w| compare::base_title(&w[0].title) == compare::base_title(&w[1].title));
        let chained = docs.iter().any(|d| {
            d.supersedes
                .as_ref()
                .is_some_and(|s| docs.iter().any(|o| &o.id == s))
        });
        let versions = same_title || chained;
        if versions {
            docs.sort_by(|a, b| {
                compare::version_order(
                    compare::version_label(&a.version, &a.title),
                    compare::version_label(&b.version, &b.title),
                )
                .then_with(|| a.created_at.cmp(&b.created_at))
            });
        }
        // Each document's name words and the head nouns of its title and file name: neither
        // says anything about the subject, nor does the name spelled out in lower case.
        let mut named: Vec<(HashSet<String>, Vec<String>)> = docs
            .iter()
            .map(|d| {
                let heads = [
                    compare::title_head(&d.file_name),
                    compare::title_head(&d.title),
                ];
                (
                    extractive::name_stems(&d.title, &d.file_name),
                    heads.into_iter().flatten().collect(),
                )
            })
            .collect();
        // … and the title it prints atop its first page ("Apple Public Source License" for
        // "APSL-2.0.pdf").
        for (d, (name, _)) in docs.iter().zip(named.iter_mut()) {
            name.extend(self.printed_name(profile, &d.id).await?);
        }
        let spelled: Vec<(HashSet<String>, String)> = named
            .iter()
            .filter_map(|(name, heads)| Some((name.clone(), heads.first()?.clone())))
            .collect();
        let asked = resolve::strip_tags(&state.question);
        let own = compare::without_spelled_names(&asked, &spelled);
        let query = state.standalone.clone().unwrap_or(asked);
        // The documents' own names and the vocabulary of comparing say nothing about the
        // subject, and would pick running headers ("Reference, Release 12.18").
        let mut names = HashSet::new();
        let mut heads: HashSet<String> = HashSet::new();
        for (d, (name, head)) in docs.iter().zip(&named) {
            names.extend(name.iter().cloned());
            names.extend(extractive::stems(&d.version));
            heads.extend(head.iter().cloned());
        }
        // A name's version code ("…-v2") reads as "version 2" in a question.
        let numbers: Vec<String> = names
            .iter()
            .filter_map(|n| compare::version_number(n).map(str::to_owned))
            .collect();
        names.extend(numbers);
        let subject_of = |text: &str| -> String {
            let mut previous = None;
            let mut kept = Vec::new();
            for w in text.split_whitespace() {
                if !(compare::names_or_compares(w, &names)
                    || compare::names_by_head(previous, w, &heads))
                {
                    kept.push(w);
                }
                previous = Some(w);
            }
            kept.join(" ")
        };
        let own_subject = subject_of(&own);
        let mut terms = extractive::question_terms(&own_subject, "");
        // Each document is searched for the subject alone: the names of the documents compared
        // would pull up the passages that name them (another policy's definitions that
        // mention "the Records Act, Version 3.0") instead of the ones on the subject.
        let unnamed = compare::without_spelled_names(&query, &spelled);
        let subject = subject_of(&unnamed);
        let subject = if extractive::stems(&subject).is_empty() {
            query.clone()
        } else {
            subject
        };
        // "Apart from termination and relicensing, …": what the reader sets aside is not
        // the subject, and passages about it come last.
        let set_aside = compare::excluded(&own)
            .map(|x| extractive::stems(&x))
            .unwrap_or_default();
        terms.retain(|t, _| !set_aside.contains(t));
        // What the cited passages must cover for confidence: the question's own terms, not
        // the acronyms guessed from them.
        let coverage_terms = terms.clone();
        // "What changed between the 2023 and the 2025 policy?": two versions and no subject
        // beyond the document's own name (its file name, or the title printed at its top), so
        // the whole texts are aligned clause by clause.
        // Between versions, the whole text of every version, read once.
        let mut whole: Vec<Vec<crate::index::ChunkRow>> = Vec::new();
        if versions {
            let index = self.lib.index().await?;
            for d in &docs {
                whole.push(index.rows(&profile.id, &d.id).await?);
            }
        }
        let whole_versions = versions
            && docs.len() == 2
            && (terms.keys().all(|t| names.contains(t)) || {
                let printed = compare_whole::printed_title(&whole[0]);
                let printed_too = compare_whole::printed_title(&whole[1]);
                terms
                    .keys()
                    .all(|t| names.contains(t) || (printed.contains(t) && printed_too.contains(t)))
            });
        if whole_versions
            && let Some(next) = self
                .compare_whole(
                    profile,
                    state,
                    (&docs[0], &whole[0]),
                    (&docs[1], &whole[1]),
                    emit,
                )
                .await?
        {
            return Ok(next);
        }
        // "Non-maintainer upload" in the question, "NMU" in the documents.
        for a in acronyms::initials(&own) {
            terms.entry(text::stem(&a)).or_insert(1.0);
        }
        // The values the comparison asks for ("Compare how long …"), which each side gives.
        let wanted = value::asks(compare::framed_ask(&own));
        let mut citations: Vec<Citation> = Vec::new();
        let mut evidence_all = Vec::new();
        let mut per_doc: Vec<(Document, Vec<Citation>)> = Vec::new();
        let mut proposed = 0usize;
        let mut found: Vec<Vec<Evidence>> = Vec::new();
        // "What did 1.3 add", "new rules in 13.20 that 12.18 did not have": the newest version
        // is searched wider, since its additions are the answer.
        let additions = versions
            && ADDITIONS
                .as_ref()
                .is_some_and(|re| re.is_match(&own.to_lowercase()));
        for (di, d) in docs.iter().enumerate() {
            let newest = di + 1 == docs.len();
            let mut hits = self
                .lib
                .search(
                    profile,
                    &SearchRequest {
                        query: subject.clone(),
                        k: if additions && newest { 16 } else { 8 },
                        documents: vec![d.id.clone()],
                        ..SearchRequest::default()
                    },
                )
                .await?;
            // Alignment by meaning: the passages of this document closest to the first
            // document's best passage (between versions, the same clause as amended).
            if let Some(anchor) = found.first().and_then(|ev| ev.first()) {
                for h in self
                    .lib
                    .search(
                        profile,
                        &SearchRequest {
                            query: anchor.text.clone(),
                            k: 3,
                            documents: vec![d.id.clone()],
                            ..SearchRequest::default()
                        },
                    )
                    .await?
                {
                    if !hits.iter().any(|x| x.hit.chunk_id == h.hit.chunk_id) {
                        hits.push(h);
                    }
                }
            }
            let evidence: Vec<Evidence> = hits.iter().map(evidence_of).collect();
            found.push(evidence);
        }
        // Between versions, the whole text of every version: a sentence is changed only if the
        // other versions do not have it anywhere (not merely outside the retrieved passages),
        // and the passages closest to the question in meaning are read whole-document wide.
        let removals = versions && compare::asks_removals(&own);
        let mut question_vector = Vec::new();
        if versions {
            question_vector = self.lib.embed_query(&query).await?;
        }
        let grams: Vec<HashSet<u64>> = whole
            .iter()
            .map(|rows| {
                compare::shingles(
                    &rows
                        .iter()
                        .map(|r| r.text.as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                )
            })
            .collect();
        // The other versions' retrieved passages, flattened: the fallback quotes (not the
        // changed clauses) are ordered by whether these hold them word for word. Ordering them
        // by the whole versions instead was tried and cost two compare points (0.852 → 0.815).
        let texts: Vec<String> = found
            .iter()
            .map(|ev| {
                flat(
                    &ev.iter()
                        .map(|e| e.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            })
            .collect();
        for (i, (d, mut evidence)) in docs.iter().zip(found).enumerate() {
            // Two different documents: each side is answered like a question (citing what its
            // retrieval ranks best); versions choose what differs, not what ranks first.
            let mut picks = if versions {
                extractive::pick(&terms, &evidence, 8)
            } else {
                extractive::pick_side(&terms, &evidence, 3, &wanted)
            };
            // Headings name a topic; they say nothing about what changed.
            picks.retain(|p| {
                !text::looks_like_heading(&p.sentence.text) && !is_fragment(&p.sentence)
            });
            if versions {
                let other: HashSet<u64> = grams
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .flat_map(|(_, g)| g.iter().copied())
                    .collect();
                // A sentence the other versions have word for word, wherever, is not what changed.
                let unchanged =
                    |text: &str| compare::novelty(text, &other) < compare::CHANGED_NOVELTY;
                // The chunks of this version nearest the question, beyond those retrieved; wider
                // for the version that holds the answer ("what did 1.3 add": the newest;
                // "which statement was dropped": the oldest).
                let wide = (additions && i + 1 == docs.len()) || (removals && i == 0);
                let mut ranked: Vec<(f32, &crate::index::ChunkRow)> = whole[i]
                    .iter()
                    .map(|r| {
                        let sim = r
                            .vector
                            .iter()
                            .zip(&question_vector)
                            .map(|(a, b)| a * b)
                            .sum::<f32>();
                        (sim, r)
                    })
                    .collect();
                ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
                for (sim, r) in ranked.into_iter().take(if wide { 24 } else { 8 }) {
                    if !evidence.iter().any(|e| e.chunk_id == r.chunk_id) {
                        evidence.push(Evidence {
                            chunk_id: r.chunk_id.clone(),
                            document_id: d.id.clone(),
                            text: r.text.clone(),
                            char_start: r.char_start,
                            page: r.page_start,
                            vector_score: sim,
                            text_rank: None,
                            score: 0.0,
                            heading: r.heading.clone(),
                        });
                    }
                }
                let headings: HashMap<&str, HashSet<String>> = whole[i]
                    .iter()
                    .map(|r| (r.chunk_id.as_str(), extractive::stems(&r.heading)))
                    .collect();
                // Sentences on the question's subject (or under a heading on it) that the other
                // versions do not contain: the amended and added clauses themselves.
                let mut changed: Vec<extractive::Picked> = Vec::new();
                let mut cand_stems: Vec<HashSet<String>> = Vec::new();
                for (ei, e) in evidence.iter().enumerate() {
                    let heading = headings.get(e.chunk_id.as_str());
                    // A long clause is quoted in whole pieces, never clipped mid-thought.
                    for sentence in text::sentences(&e.text)
                        .iter()
                        .flat_map(|s| text::pieces(s, text::QUOTE_CHARS))
                    {
                        let stems = extractive::stems(&sentence.text);
                        let on_subject = |t: &String| {
                            stems.contains(t) || heading.is_some_and(|h| h.contains(t))
                        };
                        if !terms.keys().any(on_subject)
                            || sentence.text.chars().filter(|c| c.is_alphabetic()).count() < 8
                            // "Package: eg-tools": a field of an example, not a statement.
                            || sentence.text.split_whitespace().count() < 4
                            || text::looks_like_heading(&sentence.text)
                            || is_fragment(&sentence)
                        {
                            continue;
                        }
                        // What changes between versions is mostly numbers, dates and durations.
                        let quantified = if compare::quantities(&sentence.text).is_empty() {
                            0.0
                        } else {
                            0.5
                        };
                        if unchanged(&sentence.text) {
                            continue;
                        }
                        let set_aside_penalty = if stems.iter().any(|t| set_aside.contains(t)) {
                            2.0
                        } else {
                            0.0
                        };
                        if changed.iter().any(|c| c.sentence.text == sentence.text) {
                            continue;
                        }
                        let doc_char =
                            e.char_start + e.text[..sentence.start].chars().count() as u64;
                        let mut with_heading = stems.clone();
                        if let Some(h) = heading {
                            with_heading.extend(h.iter().cloned());
                        }
                        cand_stems.push(with_heading);
                        changed.push(extractive::Picked {
                            evidence: ei,
                            sentence,
                            doc_char,
                            // Closeness in meaning breaks ties between equally worded clauses.
                            score: quantified + e.vector_score.max(0.0) - set_aside_penalty,
                            ranked: false,
                        });
                    }
                }
                // Shared terms weighted by rarity among the candidates: the question's specific
                // words ("debian/changelog") count more than its common ones ("upload").
                let n = cand_stems.len().max(1) as f32;
                for (c, st) in changed.iter_mut().zip(&cand_stems) {
                    c.score += terms
                        .keys()
                        .filter(|t| st.contains(*t))
                        .map(|t| {
                            let df = cand_stems.iter().filter(|x| x.contains(t)).count() as f32;
                            (1.0 + n / (1.0 + df)).ln()
                        })
                        .sum::<f32>();
                }
                changed.sort_by(|a, b| b.score.total_cmp(&a.score));
                changed.truncate(4);
                picks.sort_by_key(|p| {
                    let t = flat(&p.sentence.text);
                    texts
                        .iter()
                        .enumerate()
                        .any(|(j, other)| j != i && other.contains(&t))
                });
                // A fallback quote the other versions have word for word is context: it stays
                // only when it is on the question's subject (holds one of its terms).
                picks.retain(|p| {
                    let context = unchanged(&p.sentence.text)
                        && !extractive::stems(&p.sentence.text)
                            .iter()
                            .any(|t| terms.contains_key(t));
                    !context
                        && !changed.iter().any(|c| {
                            c.evidence == p.evidence && c.sentence.start == p.sentence.start
                        })
                });
                changed.extend(picks);
                picks = changed;
                picks.truncate(5);
            }
            let mut cited = Vec::new();
            for p in picks {
                proposed += 1;
                if let Some(c) = self
                    .cite(profile, &evidence[p.evidence], p.doc_char, &p.sentence.text)
                    .await?
                    && !cited.iter().any(|x: &Citation| x.quote == c.quote)
                {
                    cited.push(c);
                }
            }
            citations.extend(cited.iter().cloned());
            evidence_all.extend(evidence);
            per_doc.push((d.clone(), cited));
        }
        // Side by side: for each quoted passage, the closest sentence of the other document (the
        // same clause as amended: "Other NMUs: 10 days" ↔ "Other NMUs: 15 days").
        let mut aligned: Vec<(usize, Citation, usize, Citation)> = Vec::new();
        if per_doc.len() >= 2 && per_doc.iter().all(|(_, c)| !c.is_empty()) {
            let mut directions = Vec::new();
            for j in 1..per_doc.len() {
                directions.push((0, j));
                directions.push((j, 0));
            }
            for (a, b) in directions {
                let quotes: Vec<Citation> = per_doc[a].1.iter().take(5).cloned().collect();
                for c in quotes {
                    if aligned
                        .iter()
                        .any(|(_, x, _, y)| x.quote == c.quote || y.quote == c.quote)
                    {
                        continue;
                    }
                    let Some((e, doc_char, sentence)) = self
                        .counterpart(profile, &per_doc[b].0.id, &c.quote)
                        .await?
                    else {
                        continue;
                    };
                    let Some(c2) = self.cite(profile, &e, doc_char, &sentence).await? else {
                        continue;
                    };
                    if !per_doc[b].1.iter().any(|x| x.quote == c2.quote) {
                        per_doc[b].1.insert(0, c2.clone());
                        citations.push(c2.clone());
                    }
                    if !evidence_all
                        .iter()
                        .any(|x: &Evidence| x.chunk_id == e.chunk_id)
                    {
                        evidence_all.push(e);
                    }
                    if a == 0 {
                        aligned.push((a, c, b, c2));
                    } else {
                        aligned.push((b, c2, a, c));
                    }
                }
            }
        }
        // Between versions a side with nothing of its own is an answer ("which statement was
        // dropped": the newer version has none); only when no version has anything is there
        // nothing to compare.
        let nothing = if versions {
            per_doc.iter().all(|(_, c)| c.is_empty())
        } else {
            per_doc.iter().any(|(_, c)| c.is_empty())
        };
        if nothing {
            let missing: Vec<String> = per_doc
                .iter()
                .filter(|(_, c)| c.is_empty())
                .map(|(d, _)| d.label())
                .collect();
            state.evidence = evidence_all;
            state.answer = Some(refusal(&format!(
                "The library does not support this comparison: nothing in {} addresses the question.",
                missing.join(" or ")
            )));
            return Ok(Transition::Next(Node::Format));
        }
        let mut usage: Option<Usage> = None;
        let mut grounded = 1.0;
        let written = match state.mode {
            Mode::Generative => match self.chat_model(profile)? {
                Some(model) => {
                    // Focused on the question's subject when it names one, else holistic.
                    let focus = (!terms.is_empty()).then_some(own.as_str());
                    let (outcome, share) = self
                        .written_comparison(profile, &model, &per_doc, focus, &mut usage, emit)
                        .await?;
                    grounded = share;
                    Some(outcome)
                }
                None => None,
            },
            Mode::Extractive => None,
        };
        let mut body = format!(
            "Comparing {}{}:\n\n",
            per_doc
                .iter()
                .map(|(d, _)| format!("**{}**", d.label()))
                .collect::<Vec<_>>()
                .join(if versions { " → " } else { " and " }),
            if versions {
                " (versions of the same document, old → new)"
            } else {
                ""
            }
        );
        // Between two versions, a name changed throughout is part of any answer on them.
        if versions
            && docs.len() == 2
            && let Some((section, cited)) = self
                .renamed_section(profile, (&docs[0], &whole[0]), (&docs[1], &whole[1]))
                .await?
        {
            body.push_str(&section);
            proposed += cited.len();
            citations.extend(cited);
        }
        match written {
            Some(Outcome::Written(w)) => {
                body.push_str(&w.text);
                body.push_str("\n\n**The quoted passages**\n\n");
            }
            Some(Outcome::Unusable(why)) => body.push_str(&format!(
                "_The model's comparison is not shown: {why}. The passages are compared below._\n\n"
            )),
            None => {}
        }
        for (d, cited) in &per_doc {
            body.push_str(&format!("**{}**\n\n", d.label()));
            if cited.is_empty() {
                body.push_str(
                    "- Nothing on this that the other version does not have word for word.\n",
                );
            }
            for c in cited {
                body.push_str(&format!(
                    "- “{}” (📄 {}, p. {})\n",
                    c.quote,
                    label(&c.title, &c.version),
                    c.page
                ));
            }
            body.push('\n');
        }
        if !aligned.is_empty() {
            body.push_str("**Side by side** (the closest passages of each document):\n\n");
            body.push_str(&format!(
                "| {} | Other document | What differs |\n|---|---|---|\n",
                per_doc[0].0.label().replace('|', "/")
            ));
            for (_, x, b, y) in &aligned {
                let diff = compare::differences(&x.quote, &y.quote)
                    .into_iter()
                    .map(|(p, q)| format!("{p} → {q}"))
                    .collect::<Vec<_>>()
                    .join("; ");
                let cell = |c: &Citation| {
                    format!(
                        "“{}” (p. {})",
                        c.quote.replace('|', "/").replace('\n', " "),
                        c.page
                    )
                };
                body.push_str(&format!(
                    "| {} | {}: {} | {} |\n",
                    cell(x),
                    per_doc[*b].0.label().replace('|', "/"),
                    cell(y),
                    if diff.is_empty() {
                        "wording".to_owned()
                    } else {
                        diff
                    }
                ));
            }
            body.push('\n');
        }
        // Differences between the first document and each other one.
        let text_of = |cs: &[Citation]| {
            cs.iter()
                .map(|c| c.quote.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let base = &per_doc[0];
        // Between versions, a quote the other version has word for word changed nothing, so
        // its numbers are not differences ("rule 828 → —").
        let changed_only = |cs: &[Citation], other: usize| -> Vec<Citation> {
            match grams.get(other) {
                Some(g) => cs
                    .iter()
                    .filter(|c| compare::novelty(&c.quote, g) >= compare::CHANGED_NOVELTY)
                    .cloned()
                    .collect(),
                None => cs.to_vec(),
            }
        };
        let mut rows = Vec::new();
        for (k, other) in per_doc.iter().enumerate().skip(1) {
            for (a, b) in compare::differences(
                &text_of(&changed_only(&base.1, k)),
                &text_of(&changed_only(&other.1, 0)),
            ) {
                rows.push(format!(
                    "| {} | {} | {} |",
                    other.0.label().replace('|', "/"),
                    a.replace('|', "/"),
                    b.replace('|', "/")
                ));
            }
        }
        if rows.is_empty() {
            body.push_str("No changed number, duration or obligation word was found between the quoted passages; compare their wording above.");
        } else {
            // Between versions the numbers changed; between two documents they differ.
            let title = if versions {
                "What changed"
            } else {
                "Numbers and obligation words that differ"
            };
            body.push_str(&format!(
                "**{title}** (from {}):\n\n| Compared with | {} | Other document |\n|---|---|---|\n{}",
                base.0.label(),
                base.0.label().replace('|', "/"),
                rows.join("\n")
            ));
        }
        // A quote stands under its section heading ("1. Definitions"), which is part of what it
        // says.
        let mut cited_text = text_of(&citations);
        for r in whole.iter().flatten() {
            if !r.heading.is_empty() && citations.iter().any(|c| c.chunk_id == r.chunk_id) {
                cited_text.push('\n');
                cited_text.push_str(&r.heading);
            }
        }
        let coverage = extractive::coverage(&coverage_terms, &cited_text);
        let retrieval = evidence_all
            .iter()
            .map(|e| e.vector_score)
            .fold(0.0f32, f32::max);
        let verification = citations.len() as f32 / proposed.max(1) as f32;
        state.evidence = evidence_all;
        let mut confidence = Confidence::unjudged(retrieval, coverage, verification, Vec::new());
        confidence.grounding = grounded;
        state.answer = Some(answered(
            body.trim_end().to_owned(),
            citations,
            confidence,
            usage,
        ));
        Ok(Transition::Next(Node::CheckConfidence))
    }

    /// The model's comparison of the documents from their verified quotes (spec 002): the
    /// themes both address, then how they differ on each — on the question's subject when it
    /// names one (focused), else overall (holistic). Returns the outcome and the share of its
    /// sentences that were grounded (1 when it is unusable: nothing of it is shown).
    pub(super) async fn written_comparison(
        &self,
        profile: &Profile,
        model: &crate::llm::ChatModel,
        per_doc: &[(Document, Vec<Citation>)],
        focus: Option<&str>,
        usage: &mut Option<Usage>,
        emit: Emit<'_>,
    ) -> Result<(Outcome, f32), Error> {
        let names = per_doc
            .iter()
            .map(|(d, _)| d.label())
            .collect::<Vec<_>>()
            .join(" and ");
        emit(&Event::Status {
            message: format!("Comparing {names}"),
        });
        let focus = match focus {
            Some(question) => format!("on what this asks: {question}"),
            None => "overall: purpose, scope, obligations, numbers and time limits".to_owned(),
        };
        let instruction = format!(
            "Compare {names} {focus}. First name the themes the passages of both address; then, theme by theme, say what each document requires and how they differ (a number, a time limit, who must act, must versus may), citing passages of each document. At most 8 sentences."
        );
        let sources: Vec<Citation> = per_doc
            .iter()
            .flat_map(|(_, c)| c.iter().cloned())
            .collect();
        let task = Task {
            action: Action::Compare,
            instruction: &instruction,
            notes: "",
            stream: true,
        };
        let outcome = self
            .write_up(profile, model, &task, &sources, usage, emit)
            .await?;
        let share = match &outcome {
            Outcome::Written(w) => w.grounding,
            Outcome::Unusable(_) => 1.0,
        };
        Ok((outcome, share))
    }

    /// The sentence of document `doc_id` closest in wording to `quote` (at least half of their
    /// words shared, and not word for word the same): the passage as the other document has it.
    pub(in crate::agent) async fn counterpart(
        &self,
        profile: &Profile,
        doc_id: &str,
        quote: &str,
    ) -> Result<Option<(Evidence, u64, String)>, Error> {
        let hits = self
            .lib
            .search(
                profile,
                &SearchRequest {
                    query: quote.to_owned(),
                    k: 4,
                    documents: vec![doc_id.to_owned()],
                    ..SearchRequest::default()
                },
            )
            .await?;
        let mut best: Option<(f32, Evidence, u64, String)> = None;
        for h in &hits {
            let e = evidence_of(h);
            for sentence in text::sentences(&e.text)
                .iter()
                .flat_map(|s| text::pieces(s, text::QUOTE_CHARS))
            {
                if text::looks_like_heading(&sentence.text) || is_fragment(&sentence) {
                    continue;
                }
                // A sentence that runs on from a page header or heading is cut to where the
                // quoted one begins.
                let mut sentence = sentence;
                let lead: String = quote
                    .split_whitespace()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_ascii_lowercase();
                if lead.len() >= 8
                    && let Some(at) = sentence.text.to_ascii_lowercase().find(&lead)
                    && at > 0
                    && sentence.text.is_char_boundary(at)
                {
                    sentence = text::Sentence {
                        start: sentence.start + at,
                        end: sentence.end,
                        text: sentence.text[at..].to_owned(),
                    };
                }
                if flat(&sentence.text) == flat(quote) {
                    // The other document says it word for word: nothing changed here.
                    return Ok(None);
                }
                let sim = text::token_similarity(quote, &sentence.text);
                if sim < 0.5 {
                    continue;
                }
                if best.as_ref().is_none_or(|(b, ..)| sim > *b) {
                    let doc_char = e.char_start + e.text[..sentence.start].chars().count() as u64;
                    best = Some((sim, e.clone(), doc_char, sentence.text.clone()));
                }
            }
        }
        Ok(best.map(|(_, e, d, t)| (e, d, t)))
    }
}

/// A question asking what a version added: "what is new", "what did 3.0 add", "but not in".
static ADDITIONS: Pattern = LazyLock::new(|| {
    regex(
        r"\b(new|adds?|added|introduces?|introduced)\b|\bbut not in\b|\bdid not have\b|\bdidn't have\b",
    )
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert!(crate::agent::rules::all_compile(&[&ADDITIONS]));
    }
}
