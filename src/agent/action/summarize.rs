//! Summarize: a stratified sample of a document's passages condensed into its main points, each a
//! verified quote. Must not: summarize a document from anything but its own passages.

use crate::Error;
use crate::agent::Agent;
use crate::agent::evidence::*;
use crate::agent::graph::{Node, Transition};
use crate::agent::rules::summary;
use crate::agent::types::*;
use crate::store::Profile;

impl Agent<'_> {
    /// Summarize: key points spread over each resolved document, each quoted verbatim with its
    /// page, in document order (extractive in both modes for now).
    pub(in crate::agent) async fn summarize(
        &self,
        profile: &Profile,
        state: &mut RunState,
    ) -> Result<Transition, Error> {
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
            let points = summary::key_points(&passages, per_doc);
            if ids.len() > 1 {
                body.push_str(&format!("### {}\n\n", d.label()));
            } else {
                body.push_str(&format!(
                    "Key points of **{}** ({} pages), in document order:\n\n",
                    d.label(),
                    d.page_count
                ));
            }
            let before = citations.len();
            for p in points {
                proposed += 1;
                let r = &rows[p.passage];
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
                    body.push_str(&format!(
                        "- “{}” (📄 {}, p. {})\n",
                        c.quote,
                        label(&c.title, &c.version),
                        c.page
                    ));
                    citations.push(c);
                    evidence.push(e);
                }
            }
            if citations.len() == before {
                body.push_str("_No passage of this document could be quoted as a key point._\n");
            }
            body.push('\n');
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
            reason: format!(
                "{} key points quoted verbatim, spread from the beginning to the end of {} document{}",
                citations.len(),
                ids.len(),
                if ids.len() == 1 { "" } else { "s" }
            ),
            retrieval: 1.0,
            coverage: 1.0,
            verification,
            missing: Vec::new(),
            grounding: 1.0,
            closeness: None,
        };
        state.answer = Some(answered(
            body.trim_end().to_owned(),
            citations,
            confidence,
            None,
        ));
        Ok(Transition::Next(Node::Format))
    }
}
