//! Evidence: search results as passages, quotes verified against their page, citations, and the
//! shapes every action's answer shares (a refusal, a document label).
//!
//! Owns: `cite` (a quote becomes a citation only if it is found verbatim on its page),
//! `quote_on_page` (where a cited quote is on its page, for the page view), `evidence_of`,
//! `refusal`, `label`, `finish_last_sentence` (a passage cut inside a sentence, finished from
//! its page). Must not: decide what to answer (the actions do).

use crate::Error;

use crate::agent::Agent;
use crate::agent::rules::extractive;
use crate::agent::rules::text;
use crate::agent::types::*;
use crate::ingest::OcrWord;
use crate::library::{Library, SearchResult};
use crate::store::Profile;

/// A cited quote on its page, as the page view shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QuoteOnPage {
    /// Text before the quote (the whole page when the quote is not on it).
    pub before: String,
    /// The quote as stored on the page, if found.
    pub quote: Option<String>,
    /// Text after the quote.
    pub after: String,
    /// On a page read by OCR, the boxes of the quote's words on the scan (points from the
    /// page's top-left corner), so the view can mark it where it is printed.
    pub boxes: Vec<OcrWord>,
}

/// Finds `quote` on page `page` of a document with the same tolerant matcher that verified the
/// citation, and, on an OCR'd page, the boxes of its words.
pub async fn quote_on_page(
    lib: &Library,
    profile: &Profile,
    document_id: &str,
    page: u32,
    quote: &str,
) -> Result<QuoteOnPage, Error> {
    let store = lib.store();
    let d = store.document(&profile.id, document_id).await?;
    let text = store
        .page_text(&profile.id, &d.id, page)
        .await?
        .ok_or_else(|| Error::InvalidInput(format!("{} has no page {page}", d.label())))?;
    let Some((start, end)) = text::find_quote(&text, quote) else {
        return Ok(QuoteOnPage {
            before: text,
            quote: None,
            after: String::new(),
            boxes: Vec::new(),
        });
    };
    let boxes = store
        .ocr_words(&profile.id, &d.id, page, start..end)
        .await?;
    Ok(QuoteOnPage {
        before: text[..start].to_owned(),
        quote: Some(text[start..end].to_owned()),
        after: text[end..].to_owned(),
        boxes,
    })
}

impl Agent<'_> {
    /// Finishes a passage whose chunk stops inside its last sentence with the rest of that
    /// sentence from its page (`text::rest_of_last_sentence`): a rule read from the passage
    /// keeps the measure its end states. The passage is unchanged when its end is not on its
    /// main page.
    pub(in crate::agent) async fn finish_last_sentence(
        &self,
        profile: &Profile,
        e: &mut Evidence,
    ) -> Result<(), Error> {
        let Some(page) = self
            .lib
            .store()
            .page_text(&profile.id, &e.document_id, e.page)
            .await?
        else {
            return Ok(());
        };
        if let Some(rest) = text::rest_of_last_sentence(&e.text, &page) {
            e.text.push_str(rest);
        }
        Ok(())
    }

    /// Each candidate sentence's cosine similarity to the question (in the order of
    /// `extractive::candidates(evidence)`), from the library's embedder: the signal that a
    /// sentence answers in other words than the question's (measured by `eval --signals`; not
    /// part of the answer's score, see `extractive::score`).
    pub(in crate::agent) async fn sentence_similarity(
        &self,
        question: &str,
        evidence: &[Evidence],
    ) -> Result<Vec<f32>, Error> {
        let texts: Vec<String> = extractive::candidates(evidence)
            .into_iter()
            .map(|c| c.sentence.text)
            .collect();
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let q = self.lib.embed_query(question).await?;
        let embedder = self.lib.embedder().await?;
        let vectors = embedder.embed(&texts).await?.vectors;
        Ok(vectors
            .iter()
            .map(|v| v.iter().zip(&q).map(|(a, b)| a * b).sum())
            .collect())
    }

    /// [`Self::cite`], with the quote begun at the sentence before it when it points back at
    /// that sentence ("… must sign this register." after the sentence naming the register;
    /// see [`extractive::lead_start`]) and run on over the list it introduces (see
    /// [`extractive::list_end`]), read on the page so that a chunk's edge does not cut them
    /// apart. `quoted`: the citations made so far (a sentence one of them holds is
    /// not quoted twice).
    pub(in crate::agent) async fn cite_with_lead(
        &self,
        profile: &Profile,
        e: &Evidence,
        doc_char: u64,
        sentence: &str,
        quoted: &[Citation],
    ) -> Result<Option<Citation>, Error> {
        self.cite_placed(profile, e, doc_char, sentence, Some(quoted))
            .await
    }

    /// A citation for a sentence at `doc_char`, with the quote checked verbatim on its page.
    pub(in crate::agent) async fn cite(
        &self,
        profile: &Profile,
        e: &Evidence,
        doc_char: u64,
        sentence: &str,
    ) -> Result<Option<Citation>, Error> {
        self.cite_placed(profile, e, doc_char, sentence, None).await
    }

    /// [`Self::cite`] and [`Self::cite_with_lead`]: the page that holds `doc_char`, then
    /// [`Self::cite_on_page`].
    async fn cite_placed(
        &self,
        profile: &Profile,
        e: &Evidence,
        doc_char: u64,
        sentence: &str,
        lead: Option<&[Citation]>,
    ) -> Result<Option<Citation>, Error> {
        let store = self.lib.store();
        let starts = store.page_starts(&profile.id, &e.document_id).await?;
        let page = starts
            .iter()
            .rev()
            .find(|(_, s)| *s as u64 <= doc_char)
            .map_or(e.page, |(p, _)| *p);
        let quote = text::clip(sentence, text::QUOTE_CHARS);
        self.cite_on_page(profile, &e.document_id, page, &e.chunk_id, quote, lead)
            .await
    }

    /// A citation of `quote` on page `page` of a document of `profile`, if the page holds it
    /// (the tolerant matcher of `text::find_quote`; the quote as the page has it), begun at the
    /// sentence it points back at when `lead` holds the citations made so far (one read of the
    /// page either way). A document the profile does not have is an error.
    pub(in crate::agent) async fn cite_on_page(
        &self,
        profile: &Profile,
        document_id: &str,
        page: u32,
        chunk_id: &str,
        quote: &str,
        lead: Option<&[Citation]>,
    ) -> Result<Option<Citation>, Error> {
        let store = self.lib.store();
        let d = store.document(&profile.id, document_id).await?;
        let Some(page_text) = store.page_text(&profile.id, document_id, page).await? else {
            return Ok(None);
        };
        let span = if quote.trim().is_empty() {
            return Ok(None);
        } else if let Some(at) = page_text.find(quote) {
            (at, at + quote.len())
        } else if let Some(span) = text::find_quote(&page_text, quote) {
            span
        } else {
            return Ok(None);
        };
        let (mut start, mut end) = span;
        if let Some(quoted) = lead {
            let same_page: Vec<&str> = quoted
                .iter()
                .filter(|q| q.document_id == d.id && q.page == page)
                .map(|q| q.quote.as_str())
                .collect();
            start = extractive::lead_start(&page_text, start, end, &same_page);
            end = extractive::list_end(&page_text, start, end);
        }
        let ocr_confidence = store
            .ocr_confidence(&profile.id, &d.id, page)
            .await?
            .map(|c| c.clamp(0.0, 100.0).round() as u8);
        Ok(Some(Citation {
            source_type: SourceType::Document,
            document_id: d.id,
            title: d.title,
            version: d.version,
            file_name: d.file_name,
            page,
            chunk_id: chunk_id.to_owned(),
            quote: page_text[start..end].to_owned(),
            url: None,
            ocr_confidence,
        }))
    }
}

/// The ids of the documents a run resolved.
pub(in crate::agent) fn resolved_ids(state: &RunState) -> Vec<String> {
    state
        .documents
        .as_ref()
        .map(|d| d.resolved.clone())
        .unwrap_or_default()
}

/// Lower case with whitespace runs collapsed: two quotes are the same sentence when these match.
pub(in crate::agent) fn flat(t: &str) -> String {
    t.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The start of a passage cut mid-sentence by chunking ("automatically terminate your rights…"):
/// not a quote that stands on its own.
pub(in crate::agent) fn is_fragment(s: &text::Sentence) -> bool {
    s.start == 0 && s.text.starts_with(|c: char| c.is_lowercase())
}

/// A search result as a passage the agent reasons over.
pub(in crate::agent) fn evidence_of(h: &SearchResult) -> Evidence {
    Evidence {
        chunk_id: h.hit.chunk_id.clone(),
        document_id: h.hit.document_id.clone(),
        text: h.hit.text.clone(),
        char_start: h.hit.char_start,
        page: h.page,
        vector_score: h.hit.vector_score.unwrap_or(0.0),
        text_rank: h.hit.text_rank,
        score: h.hit.score,
        heading: h.hit.heading.clone(),
    }
}

/// A stored chunk of a document read whole (not found by a search: no scores) as evidence.
pub(in crate::agent) fn row_evidence(r: &crate::index::ChunkRow) -> Evidence {
    Evidence {
        chunk_id: r.chunk_id.clone(),
        document_id: r.document_id.clone(),
        text: r.text.clone(),
        char_start: r.char_start,
        page: r.page_start,
        vector_score: 0.0,
        text_rank: None,
        score: 0.0,
        heading: r.heading.clone(),
    }
}

/// An answer an action produced from verified citations, with its confidence measures.
pub(in crate::agent) fn answered(
    text: String,
    citations: Vec<Citation>,
    confidence: Confidence,
    usage: Option<Usage>,
) -> Answer {
    Answer {
        status: Status::Answered,
        text,
        citations,
        confidence: Some(confidence),
        options: Vec::new(),
        usage,
        audit: None,
    }
}

pub(in crate::agent) fn refusal(message: &str) -> Answer {
    Answer {
        status: Status::Refused,
        text: message.to_owned(),
        citations: Vec::new(),
        confidence: None,
        options: vec![
            ChoiceOption {
                id: "tag_documents".into(),
                label: "📄 Tag specific documents".into(),
            },
            ChoiceOption {
                id: "rephrase".into(),
                label: "Rephrase the question".into(),
            },
        ],
        usage: None,
        audit: None,
    }
}

pub(in crate::agent) fn label(title: &str, version: &str) -> String {
    if version.is_empty() {
        title.to_owned()
    } else {
        format!("{title} ({version})")
    }
}

pub(in crate::agent) fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for x in b {
        if !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}
