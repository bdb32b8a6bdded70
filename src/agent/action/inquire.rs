//! Inquire: answers a question from the passages retrieval ranks best, every sentence a verified
//! quote (or the model's answer grounded in them), and the catalogue questions ("which documents
//! …") from the library itself. Must not: judge confidence (the graph's check does).

use std::collections::{HashMap, HashSet};

use crate::Error;
use crate::agent::evidence::*;
use crate::agent::graph::{Node, Transition};
use crate::agent::model::{Generated, redactor_of};
use crate::agent::resolve;
use crate::agent::rules::{acronyms, extractive, grounding, text, value};
use crate::agent::types::*;
use crate::agent::{Agent, Emit};
use crate::index::{ChunkRow, Scope};
use crate::library::SearchRequest;
use crate::llm::LlmError;
use crate::store::{DocStatus, Document, Profile};

/// Passages retrieved per question (before the caps below).
const SEARCH_K: usize = 20;
/// Most passages of one document kept as evidence, so one long document cannot crowd out the
/// others (more finds more of one document, fewer keeps the others in view).
const PER_DOCUMENT: usize = 5;
/// Most passages kept as evidence in all: what sentence choice and confidence look at.
const MAX_EVIDENCE: usize = 12;
/// Adaptive k: a passage whose vector similarity is below this *and* that full text ranked
/// below [`MAX_TEXT_RANK`] (or not at all) is dropped as noise — unless it holds a clause
/// number the question names, which no similarity measures. Raising it drops more weak
/// paraphrases; lowering it lets unrelated passages into the evidence.
const MIN_VECTOR_SCORE: f32 = 0.2;
/// See [`MIN_VECTOR_SCORE`]: full-text ranks up to this keep a passage whatever its vector.
const MAX_TEXT_RANK: usize = 10;

/// A retrieved passage too weak to be evidence: a poor vector match that full text did not
/// rank high either, and that holds no clause number the question names (see
/// [`MIN_VECTOR_SCORE`]).
fn is_noise(hit: &crate::index::Hit) -> bool {
    hit.vector_score.unwrap_or(0.0) < MIN_VECTOR_SCORE
        && hit.text_rank.is_none_or(|r| r > MAX_TEXT_RANK)
        && !hit.holds_identifier
}

/// One candidate sentence of an extractive answer with the signals its score is made of.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SentenceSignals {
    /// Document id of its passage.
    pub document_id: String,
    /// Main page of its passage.
    pub page: u32,
    /// The sentence.
    pub text: String,
    /// What the scorer sees.
    pub signals: extractive::Signals,
}

/// An answer before confidence is judged: its text, its verified citations, and what judging
/// it needs.
#[derive(Debug)]
struct Draft {
    /// The answer's text.
    body: String,
    /// Verified citations, in the answer's order.
    citations: Vec<Citation>,
    /// Quotes cited only because retrieval ranks their page among its best
    /// (`Picked::ranked`): shown, but no evidence that the answer covers the question, so
    /// coverage leaves them out.
    rank_only: HashSet<String>,
    /// Quotes proposed (verified or not).
    proposed: usize,
    /// Share of a model's sentences that its verified quotes support (1 for quotes).
    grounded: f32,
}

impl Default for Draft {
    fn default() -> Self {
        Self {
            body: String::new(),
            citations: Vec::new(),
            rank_only: HashSet::new(),
            proposed: 0,
            grounded: 1.0,
        }
    }
}

impl Agent<'_> {
    /// Inquire: retrieval into evidence, the best sentences (or the model's answer) cited with
    /// verified quotes, and what confidence needs to judge them.
    pub(in crate::agent) async fn inquire(
        &self,
        profile: &Profile,
        state: &mut RunState,
        emit: Emit<'_>,
    ) -> Result<Transition, Error> {
        let own = resolve::strip_tags(&state.question);
        if let Some(answer) = self.catalogue_answer(profile, &own).await? {
            state.answer = Some(answer);
            return Ok(Transition::Next(Node::Format));
        }
        let resolved = resolved_ids(state);
        let req = SearchRequest {
            query: state.standalone.clone().unwrap_or_else(|| own.clone()),
            k: SEARCH_K,
            documents: resolved,
            set: state.set.clone(),
            doc_type: None,
        };
        let scope: Scope = self.lib.resolve_scope(profile, &req).await?;
        if scope.document_ids.is_empty() {
            let empty = self
                .lib
                .documents(profile)
                .await?
                .iter()
                .all(|d| d.status != DocStatus::Ready);
            state.answer = Some(refusal(if empty {
                "The library is empty. Add a PDF to the library, then ask again."
            } else {
                "No searchable document is in scope for this question."
            }));
            if state.web && state.web_citations.is_none() {
                let terms = extractive::question_terms(&own, "");
                state.web_citations = Some(self.web_citations(profile, state, &terms).await?);
            }
            return Ok(Transition::Next(Node::Format));
        }
        state.evidence = self.retrieve(profile, &req).await?;
        // Words borrowed from earlier turns: the deterministic rewrite marks them, a rewrite by
        // the model is the whole standalone question.
        let context = match state.standalone.as_deref() {
            Some(s) if s.contains("(context: ") => s
                .split_once("(context: ")
                .map(|(_, c)| c.to_owned())
                .unwrap_or_default(),
            Some(s) if s != own => s.to_owned(),
            _ => String::new(),
        };
        // A follow-up's names may come from the conversation and its documents from the
        // previous turn: only a question that stands alone is held to the names it writes. A
        // yes-or-no question names the case it asks a rule about ("May I moor overnight at
        // Tobermory?"), which the rule answers without writing it; a question for a fact about
        // a named thing ("Which harbour office in Tobermory …?") needs a passage that writes
        // the name.
        let unwritten = if context.is_empty() && !extractive::asks_yes_or_no(&own) {
            self.unwritten_names(profile, &own, &state.evidence, &scope)
                .await?
        } else {
            Vec::new()
        };
        let mut terms = extractive::question_terms(&own, &context);
        // The values the question asks for: the answer looks for them and refuses without them.
        let asks = value::asks_in_thread(&own, &context);
        if extractive::asks_which_document(&own) {
            let names = self
                .lib
                .documents(profile)
                .await?
                .into_iter()
                .map(|d| {
                    let name = extractive::name_stems(&d.title, &d.file_name);
                    (d.id, name)
                })
                .collect();
            extractive::by_name(&mut state.evidence, &names, &terms);
        }
        // The name of a document the question is scoped to says nothing about the answer
        // ("Under the Harbour Code, what may …" must not pick the title line), nor does its
        // version, read as the question writes it ("version 1" for "…-v1").
        for doc in self.resolved_documents(profile, state).await? {
            let name = resolve::versions(&format!(
                "{} {}",
                doc.title.replace(['-', '_'], " "),
                doc.version
            ));
            let name_terms = extractive::stems(&format!("{} {} {name}", doc.title, doc.version));
            if terms.keys().any(|t| !name_terms.contains(t)) {
                terms.retain(|t, _| !name_terms.contains(t));
            }
        }
        // The extractive answer, in every mode: what the evidence answers. In generative mode it
        // also decides whether to answer at all — the model writes, the evidence judges, so a
        // model refuses neither more nor less than extractive mode — and stands in for a reply
        // of the model that cannot be shown.
        let model = match state.mode {
            Mode::Generative => self.chat_model(profile)?,
            Mode::Extractive => None,
        };
        let quotes = self
            .quoted_answer(
                profile,
                state,
                &terms,
                &asks,
                model.is_none().then_some(emit),
            )
            .await?;
        let mut confidence = self
            .judge_answer(
                profile, state, &own, &terms, &asks, &req.query, &unwritten, &quotes,
            )
            .await?;
        let mut usage = None;
        let answerable = self.answers(&confidence, !quotes.citations.is_empty());
        let mut draft = quotes;
        if let Some(model) = model
            && answerable
        {
            // Why the model's reply is not shown, if it is not (never an error for the user).
            let why = match self.generate(profile, state, &model, emit).await {
                Ok(g) => {
                    usage = Some(g.usage.clone());
                    match self.written(profile, state, g).await? {
                        Ok(written) => {
                            let judged = self
                                .judge_answer(
                                    profile, state, &own, &terms, &asks, &req.query, &unwritten,
                                    &written,
                                )
                                .await?;
                            if self.answers(&judged, !written.citations.is_empty()) {
                                draft = written;
                                confidence = judged;
                                None
                            } else {
                                Some("your documents support too little of it".to_owned())
                            }
                        }
                        Err(why) => Some(why),
                    }
                }
                Err(Error::Llm(LlmError::Malformed(why))) => {
                    tracing::warn!(%why, "the model's answer was malformed: answering extractively");
                    Some(why)
                }
                Err(e) => return Err(e),
            };
            // `draft` is still the quotes then.
            if let Some(why) = why
                && !draft.citations.is_empty()
            {
                draft.body = format!(
                    "_The model's answer could not be used ({why}); these are the passages of your documents that answer it._\n\n{}",
                    draft.body
                );
            }
        }
        if state.web && state.web_citations.is_none() {
            state.web_citations = Some(self.web_citations(profile, state, &terms).await?);
        }
        let (body, citations) = (draft.body, draft.citations);
        state.answer = Some(answered(body, citations, confidence, usage));
        Ok(Transition::Next(Node::CheckConfidence))
    }

    /// The extractive answer: the best sentences (see `extractive::pick_answer`), each cited
    /// with a quote verified on its page and streamed through `emit` (when given) as soon as it
    /// is; the quotes cited only for their page's rank come under [`RANKED_HEADING`].
    async fn quoted_answer(
        &self,
        profile: &Profile,
        state: &RunState,
        terms: &HashMap<String, f32>,
        asks: &value::Asks,
        emit: Option<Emit<'_>>,
    ) -> Result<Draft, Error> {
        let mut draft = Draft::default();
        let picks = extractive::pick_answer(terms, &state.evidence, 3, asks);
        for p in &picks {
            draft.proposed += 1;
            let Some(c) = self
                .cite_with_lead(
                    profile,
                    &state.evidence[p.evidence],
                    p.doc_char,
                    &p.sentence.text,
                    &draft.citations,
                )
                .await?
            else {
                continue;
            };
            // A sentence an earlier quote took in (a list's item after the line that
            // introduces the list) is not quoted again.
            let inside = flat(&c.quote);
            if draft.citations.iter().any(|q| {
                q.document_id == c.document_id
                    && q.page == c.page
                    && flat(&q.quote).contains(&inside)
            }) {
                draft.proposed -= 1;
                continue;
            }
            if let Some(emit) = emit {
                let line = quoted(&c);
                let text = if draft.citations.is_empty() {
                    line
                } else if p.ranked && draft.rank_only.is_empty() {
                    format!("\n\n{RANKED_HEADING}\n\n{line}")
                } else {
                    format!("\n\n{line}")
                };
                emit(&Event::Token { text });
            }
            if p.ranked {
                draft.rank_only.insert(c.quote.clone());
            }
            draft.citations.push(c);
        }
        // The clause an answer's own quote defers to ("the same as for … (§4.2)") says what it
        // defers: its sentence follows the answer's own quotes (the first such reference).
        let mut referred = None;
        // Each document's chunks are read once, whichever quotes refer into it.
        let mut rows: HashMap<String, Vec<ChunkRow>> = HashMap::new();
        for p in picks.iter().filter(|p| !p.ranked) {
            referred = self
                .referred_citation(
                    profile,
                    state,
                    terms,
                    p,
                    (&draft.citations, &draft.rank_only),
                    &mut rows,
                )
                .await?;
            if referred.is_some() {
                break;
            }
        }
        if let Some(c) = referred {
            if let Some(emit) = emit {
                emit(&Event::Token {
                    text: format!("\n\n{}", quoted(&c)),
                });
            }
            // Cited already for its page's rank only, it moves up among the answer's own quotes.
            if draft.rank_only.remove(&c.quote) {
                draft.citations.retain(|x| x.quote != c.quote);
            } else {
                draft.proposed += 1;
            }
            let own = draft
                .citations
                .iter()
                .take_while(|x| !draft.rank_only.contains(&x.quote))
                .count();
            draft.citations.insert(own, c);
        }
        let mut lines: Vec<String> = Vec::new();
        for c in &draft.citations {
            if draft.rank_only.contains(&c.quote)
                && !lines.is_empty()
                && !lines.iter().any(|l| l == RANKED_HEADING)
            {
                lines.push(RANKED_HEADING.to_owned());
            }
            lines.push(quoted(c));
        }
        draft.body = lines.join("\n\n");
        Ok(draft)
    }

    /// A citation of the sentence that a clause referred to by a quote (`lead`; "§4.2",
    /// "section 7") gives on what the quote defers to it (`extractive::referred_sentence`), when
    /// the quote's document has a part with that number (a passage under that heading, or one
    /// with a line that opens it) and the sentence is not among the answer's own quotes yet
    /// (`cited`, less those `ranked` cites only for their page's rank). `rows` keeps the chunks
    /// of the documents read so far.
    async fn referred_citation(
        &self,
        profile: &Profile,
        state: &RunState,
        terms: &HashMap<String, f32>,
        lead: &extractive::Picked,
        (cited, ranked): (&[Citation], &HashSet<String>),
        rows: &mut HashMap<String, Vec<ChunkRow>>,
    ) -> Result<Option<Citation>, Error> {
        let references = text::clause_references(&lead.sentence.text);
        let Some(e) = state.evidence.get(lead.evidence) else {
            return Ok(None);
        };
        if references.is_empty() {
            return Ok(None);
        }
        if !rows.contains_key(&e.document_id) {
            let read = self
                .lib
                .index()
                .await?
                .rows(&profile.id, &e.document_id)
                .await?;
            rows.insert(e.document_id.clone(), read);
        }
        let rows = rows.get(&e.document_id).map_or(&[][..], Vec::as_slice);
        for number in references {
            // A clause's reference to itself names nothing else.
            if text::heading_numbers(&e.heading, &number) {
                continue;
            }
            let passages: Vec<Evidence> = rows
                .iter()
                .filter(|r| {
                    text::heading_numbers(&r.heading, &number) || text::opens_part(&r.text, &number)
                })
                .map(row_evidence)
                .collect();
            let Some(p) = extractive::referred_sentence(terms, &lead.sentence.text, &passages)
            else {
                continue;
            };
            if let Some(c) = self
                .cite(profile, &passages[p.evidence], p.doc_char, &p.sentence.text)
                .await?
                && (!cited.iter().any(|x| x.quote == c.quote) || ranked.contains(&c.quote))
            {
                return Ok(Some(c));
            }
        }
        Ok(None)
    }

    /// The model's reply as an answer: its quotes verified on their pages, and only the
    /// sentences those quotes support (see `rules::grounding`). `Err` says why there is nothing
    /// of it to show.
    async fn written(
        &self,
        profile: &Profile,
        state: &RunState,
        g: Generated,
    ) -> Result<Result<Draft, String>, Error> {
        let mut draft = Draft {
            proposed: g.proposed,
            ..Draft::default()
        };
        for (i, doc_char, quote) in g.quotes {
            if let Some(c) = self
                .cite(profile, &state.evidence[i], doc_char, &quote)
                .await?
                && !draft.citations.iter().any(|x| x.quote == c.quote)
            {
                draft.citations.push(c);
            }
        }
        if g.no_answer {
            return Ok(Err("the model found no answer in the passages".into()));
        }
        let quotes: Vec<&str> = draft.citations.iter().map(|c| c.quote.as_str()).collect();
        let grounded = grounding::ground(&g.text, &quotes);
        if draft.citations.is_empty()
            || grounded.claims > 0 && grounded.unsupported.len() == grounded.claims
        {
            return Ok(Err("nothing it wrote was found in your documents".into()));
        }
        draft.grounded = grounded.share();
        draft.body = crate::agent::synthesis::left_out(&grounded);
        Ok(Ok(draft))
    }

    /// What confidence needs to judge an answer (`check_confidence` scores it): the question
    /// terms its quotes cover, the best retrieval similarity, the share of proposed quotes that
    /// verified, the question's anchors or asked-for values no passage or quote holds, how
    /// close the closest quote is in meaning, and the share of a model's sentences grounded.
    #[allow(clippy::too_many_arguments)]
    async fn judge_answer(
        &self,
        profile: &Profile,
        state: &RunState,
        own: &str,
        terms: &HashMap<String, f32>,
        asks: &value::Asks,
        query: &str,
        unwritten: &[String],
        draft: &Draft,
    ) -> Result<Confidence, Error> {
        let (citations, rank_only) = (&draft.citations, &draft.rank_only);
        let cited_text: String = citations
            .iter()
            .filter(|c| !rank_only.contains(&c.quote))
            .map(|c| c.quote.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        // The quotes cover what they say through an acronym the evidence defines too.
        let defined = extractive::defined_acronyms(terms, &state.evidence);
        let mut have = extractive::stems(&cited_text);
        have.extend(acronyms::said_through(&cited_text, &have, &defined));
        let coverage = extractive::coverage_of(terms, &have);
        let retrieval = state
            .evidence
            .iter()
            .map(|e| e.vector_score)
            .fold(0.0f32, f32::max);
        let evidence_texts: Vec<&str> = state.evidence.iter().map(|e| e.text.as_str()).collect();
        let mut missing = extractive::missing_anchors(own, &evidence_texts);
        let mut numbers = extractive::missing_named_numbers(own, &evidence_texts);
        let mut unwritten = unwritten.to_vec();
        // A term that names a document the evidence comes from ("GPL" for "GPL-1") is about
        // which document, not about its content.
        if !missing.is_empty() || !numbers.is_empty() || !unwritten.is_empty() {
            let mut names = String::new();
            for id in state
                .evidence
                .iter()
                .map(|e| e.document_id.as_str())
                .collect::<HashSet<_>>()
            {
                if let Ok(d) = self.lib.store().document(&profile.id, id).await {
                    names.push_str(&format!(" {} {} ", d.title, d.file_name));
                }
            }
            let names = names.to_lowercase();
            missing.retain(|a| !extractive::names_anchor(&names, a));
            numbers.retain(|a| !extractive::names_anchor(&names, a));
            unwritten.retain(|a| !extractive::names_anchor(&names, a));
        }
        // "Which encryption algorithm …": the thing the question asks which one of, named in
        // no retrieved passage.
        if let Some(noun) = value::asked_noun(own) {
            let wanted = text::stem(&noun);
            if !state
                .evidence
                .iter()
                .any(|e| extractive::stems(&e.text).contains(&wanted))
            {
                missing.push(noun);
            }
        }
        // A quote as close in meaning as [`extractive::SAID_OTHERWISE`] says what the missing
        // term names in other words ("security camera footage" for "CCTV footage").
        let named: HashSet<String> = citations
            .iter()
            .flat_map(|c| extractive::name_stems(&c.title, &c.file_name))
            .collect();
        // Read without its documents' names, by any of them: file name, title, or the title
        // printed atop the first page ("Eclipse Public License" for "EPL-2.0.pdf").
        let mut names = named.clone();
        let cited: HashSet<&str> = citations.iter().map(|c| c.document_id.as_str()).collect();
        for id in cited {
            names.extend(self.printed_name(profile, id).await?);
        }
        let closeness = self.closeness(query, &names, citations, rank_only).await?;
        if closeness >= extractive::SAID_OTHERWISE {
            missing.clear();
        }
        // A version or clause number or a name has no other words: one the question names and
        // no passage holds stays missing however close the quotes come.
        missing.extend(numbers);
        missing.extend(unwritten);
        // A question whose every ask wants a value ("within how many hours", "how often") is
        // not answered by quotes that hold none of that kind.
        let quotes: Vec<&str> = citations
            .iter()
            .filter(|c| !rank_only.contains(&c.quote))
            .map(|c| c.quote.as_str())
            .collect();
        let subject: HashSet<String> = terms
            .iter()
            .filter(|(t, w)| **w >= 1.0 && !named.contains(*t))
            .map(|(t, _)| t.clone())
            .collect();
        if !citations.is_empty()
            && let Some(kind) = asks.unmet_in(&quotes, &subject)
        {
            missing.push(kind.describe().to_owned());
        }
        let verification = if draft.proposed == 0 {
            0.0
        } else {
            citations.len() as f32 / draft.proposed as f32
        };
        let mut confidence = Confidence::unjudged(retrieval, coverage, verification, missing);
        confidence.grounding = draft.grounded;
        confidence.closeness = Some(closeness);
        Ok(confidence)
    }

    /// The question's proper names ([`extractive::unwritten_names`]) that neither the evidence
    /// nor any page of a document in scope writes, each joined into one phrase. A name the
    /// passages leave out may be written elsewhere in their documents (the search ranked other
    /// passages first, or a glossary defines it): only a name no document in scope writes says
    /// the question is outside the library.
    async fn unwritten_names(
        &self,
        profile: &Profile,
        own: &str,
        evidence: &[Evidence],
        scope: &Scope,
    ) -> Result<Vec<String>, Error> {
        let texts: Vec<&str> = evidence.iter().map(|e| e.text.as_str()).collect();
        let store = self.lib.store();
        let mut out = Vec::new();
        'names: for name in extractive::unwritten_names(own, &texts) {
            for word in &name {
                let mut written = false;
                for spelling in extractive::spellings(&text::stem(word)) {
                    if store
                        .pages_write(&profile.id, &scope.document_ids, &spelling, |page| {
                            extractive::writes_stem(page, &spelling)
                        })
                        .await?
                    {
                        written = true;
                        break;
                    }
                }
                if !written {
                    out.push(name.join(" "));
                    continue 'names;
                }
            }
        }
        Ok(out)
    }

    /// The best cosine similarity between a quote cited for what it says (not only for its
    /// rank) and the question (0 when there is none); see [`Confidence::closeness`]. A
    /// question that names the cited document ("… govern EPL 1.0?") is also read without the
    /// name's words (`named`, stemmed), which say which document, not what it says: the
    /// closer of the two readings counts.
    async fn closeness(
        &self,
        question: &str,
        named: &HashSet<String>,
        citations: &[Citation],
        rank_only: &HashSet<String>,
    ) -> Result<f32, Error> {
        let quotes: Vec<String> = citations
            .iter()
            .filter(|c| !rank_only.contains(&c.quote))
            .map(|c| c.quote.clone())
            .collect();
        if quotes.is_empty() {
            return Ok(0.0);
        }
        let mut readings = vec![self.lib.embed_query(question).await?];
        let unnamed = extractive::without_names(question, named);
        if unnamed != question && !extractive::stems(&unnamed).is_empty() {
            readings.push(self.lib.embed_query(&unnamed).await?);
        }
        let vectors = self.lib.embedder().await?.embed(&quotes).await?.vectors;
        Ok(readings
            .iter()
            .flat_map(|q| {
                vectors
                    .iter()
                    .map(move |v| v.iter().zip(q).map(|(a, b)| a * b).sum::<f32>())
            })
            .fold(0.0, f32::max))
    }

    /// Retrieval into evidence: the search's passages, at most [`PER_DOCUMENT`] of one document
    /// (more when the question is scoped to fewer documents than [`MAX_EVIDENCE`] needs: there
    /// are no others to keep in view) and [`MAX_EVIDENCE`] in all, weak vector matches that full
    /// text did not find dropped.
    async fn retrieve(
        &self,
        profile: &Profile,
        req: &SearchRequest,
    ) -> Result<Vec<Evidence>, Error> {
        let hits = self.lib.search(profile, req).await?;
        let per_document = if req.documents.is_empty() {
            PER_DOCUMENT
        } else {
            MAX_EVIDENCE.div_ceil(req.documents.len()).max(PER_DOCUMENT)
        };
        let mut per_doc: HashMap<String, usize> = HashMap::new();
        let mut evidence = Vec::new();
        for h in hits {
            let n = per_doc.entry(h.hit.document_id.clone()).or_default();
            if *n >= per_document || evidence.len() >= MAX_EVIDENCE {
                continue;
            }
            if is_noise(&h.hit) {
                continue;
            }
            *n += 1;
            evidence.push(evidence_of(&h));
        }
        Ok(evidence)
    }

    /// What the extractive answer of a whole-library, single-turn question chooses from: every
    /// candidate sentence with its signals, for fitting and checking the sentence scorer
    /// (`policypal eval --signals`; `scripts/fit-scorer.py`). Same retrieval, candidates and
    /// signals as [`Self::inquire`].
    pub async fn sentence_signals(
        &self,
        profile: &Profile,
        question: &str,
    ) -> Result<Vec<SentenceSignals>, Error> {
        let req = SearchRequest {
            query: question.to_owned(),
            k: SEARCH_K,
            documents: Vec::new(),
            set: None,
            doc_type: None,
        };
        let evidence = self.retrieve(profile, &req).await?;
        let terms = extractive::question_terms(question, "");
        let mut cands = extractive::candidates(&evidence);
        extractive::credit_values(&terms, &mut cands);
        extractive::credit_acronyms(&terms, &evidence, &mut cands);
        let similarity = self.sentence_similarity(question, &evidence).await?;
        let signals = extractive::signals(&terms, &evidence, &cands, &similarity);
        Ok(cands
            .into_iter()
            .zip(signals)
            .map(|(c, signals)| {
                let e = &evidence[c.evidence];
                SentenceSignals {
                    document_id: e.document_id.clone(),
                    page: e.page,
                    text: c.sentence.text,
                    signals,
                }
            })
            .collect())
    }

    /// Searches the web for the question and keeps the best sentences of the results as web
    /// citations (verbatim from the returned extracts, at most three).
    pub(in crate::agent) async fn web_citations(
        &self,
        profile: &Profile,
        state: &RunState,
        terms: &HashMap<String, f32>,
    ) -> Result<Vec<Citation>, Error> {
        let own = resolve::strip_tags(&state.question);
        let query = state.standalone.clone().unwrap_or(own);
        let query = query
            .split_once(" (context: ")
            .map_or(query.as_str(), |(q, _)| q)
            .to_owned();
        let results = crate::web::search(
            &self.lib.settings().web,
            &query,
            redactor_of(profile).as_ref(),
        )
        .await?;
        let pseudo: Vec<Evidence> = results
            .iter()
            .map(|r| Evidence {
                chunk_id: r.url.clone(),
                document_id: String::new(),
                text: r.content.clone(),
                char_start: 0,
                page: 0,
                vector_score: r.score,
                text_rank: None,
                score: r.score,
                heading: String::new(),
            })
            .collect();
        let mut out: Vec<Citation> = Vec::new();
        for p in extractive::pick(terms, &pseudo, 3) {
            let r = &results[p.evidence];
            let quote = text::clip(&p.sentence.text, text::QUOTE_CHARS).to_owned();
            if !r.content.contains(&quote) || out.iter().any(|c| c.quote == quote) {
                continue;
            }
            out.push(Citation {
                source_type: SourceType::Web,
                document_id: String::new(),
                title: if r.title.is_empty() {
                    r.url.clone()
                } else {
                    r.title.clone()
                },
                version: String::new(),
                file_name: String::new(),
                page: 0,
                chunk_id: String::new(),
                quote,
                url: Some(r.url.clone()),
                ocr_confidence: None,
            });
        }
        Ok(out)
    }

    pub(in crate::agent) async fn catalogue_answer(
        &self,
        profile: &Profile,
        own: &str,
    ) -> Result<Option<Answer>, Error> {
        let m = own.to_lowercase();
        if !text::asks_for_catalogue(&m) {
            return Ok(None);
        }
        let docs = self.lib.documents(profile).await?;
        let want_type = if m.contains("regulat") {
            Some(crate::store::DocType::Regulatory)
        } else if m.contains("polic") && !m.contains("regulat") {
            Some(crate::store::DocType::Policy)
        } else {
            None
        };
        let terms: Vec<String> = text::content_terms(&m)
            .into_iter()
            .filter(|t| {
                ![
                    "versions",
                    "list",
                    "documents",
                    "regulatory",
                    "policies",
                    "library",
                    "have",
                    "my",
                    "all",
                ]
                .contains(&t.as_str())
            })
            .collect();
        let mut rows: Vec<&Document> = docs
            .iter()
            .filter(|d| matches!(d.status, DocStatus::Ready | DocStatus::Disabled))
            .filter(|d| want_type.is_none_or(|t| d.doc_type == t))
            .filter(|d| {
                !m.contains("versions")
                    || terms.is_empty()
                    || terms
                        .iter()
                        .any(|t| d.title.to_lowercase().contains(t.as_str()))
            })
            .collect();
        rows.sort_by(|a, b| {
            a.title
                .to_lowercase()
                .cmp(&b.title.to_lowercase())
                .then(resolve::natural_cmp(&a.version, &b.version))
        });
        let text = if rows.is_empty() {
            "The library holds no matching documents.".to_owned()
        } else {
            rows.iter()
                .map(|d| {
                    let mut l = format!(
                        "- {} — {}, {} pages",
                        d.label(),
                        d.doc_type.as_str(),
                        d.page_count
                    );
                    if d.superseded_by.is_some() {
                        l.push_str(", superseded");
                    }
                    if d.status == DocStatus::Disabled {
                        l.push_str(", disabled");
                    }
                    l
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        Ok(Some(Answer {
            status: Status::Answered,
            text: format!("From the document catalogue:\n\n{text}"),
            citations: Vec::new(),
            confidence: Some(Confidence::certain("answered from the document catalogue")),
            options: Vec::new(),
            usage: None,
            audit: None,
        }))
    }
}

/// Set above the quotes of an extractive answer that are cited because retrieval ranks their
/// page among its best, not because they cover the question's words (`Picked::ranked`): the
/// reader sees which quotes answer and which are further reading.
const RANKED_HEADING: &str = "**Also ranked high by the search:**";

/// An extractive answer's line for one verified quote.
fn quoted(c: &Citation) -> String {
    format!(
        "“{}” (📄 {}, p. {})",
        c.quote,
        label(&c.title, &c.version),
        c.page
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(
        vector: Option<f32>,
        text_rank: Option<usize>,
        holds_identifier: bool,
    ) -> crate::index::Hit {
        crate::index::Hit {
            chunk_id: "d:1".into(),
            document_id: "d".into(),
            page_start: 1,
            page_end: 1,
            chunk_index: 1,
            char_start: 0,
            char_end: 10,
            heading: String::new(),
            text: "4.2.7 A firm must notify the supervisor.".into(),
            vector_score: vector,
            text_score: None,
            vector_rank: None,
            text_rank,
            score: 0.2,
            holds_identifier,
        }
    }

    #[test]
    fn a_passage_found_only_by_its_clause_number_is_evidence_not_noise() {
        // Regression: the identifier lookup's passages have no vector or full-text score; they
        // were dropped here and the clause number was then reported missing from the library.
        assert!(!is_noise(&hit(None, None, true)));
        assert!(is_noise(&hit(None, None, false)));
        assert!(is_noise(&hit(Some(0.1), Some(MAX_TEXT_RANK + 1), false)));
        assert!(!is_noise(&hit(Some(0.1), Some(3), false)));
        assert!(!is_noise(&hit(Some(0.5), None, false)));
    }
}
