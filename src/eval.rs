//! The development-set runner: ingests a corpus once, plays every item of a questions file
//! (the format of `shared/eval/questions.jsonl`) through the agent and writes the result lines
//! that `shared/eval/score.py` scores.
//!
//! Owns: mapping eval items to agent requests and agent answers to result lines. Must not:
//! score (the Python scorer is the reference) or special-case any item.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::agent::Agent;
use crate::agent::types::{Action, AskRequest, Mode, Status, TurnResult};
use crate::store::{DocStatus, Profile};
use crate::{Error, Flow, IngestRequest, Library, Progress};

/// One item of the questions file (only the fields the runner needs).
#[derive(Debug, Clone, Deserialize)]
pub struct Item {
    /// Item id.
    pub id: String,
    /// `inquire`, `refuse`, `compare`, `summarize`, `audit`, `followup`.
    pub kind: String,
    /// Corpus file names in scope.
    #[serde(default)]
    pub docs: Vec<String>,
    /// The question.
    #[serde(default)]
    pub question: Option<String>,
    /// Audit text.
    #[serde(default)]
    pub text: Option<String>,
    /// Follow-up turns.
    #[serde(default)]
    pub turns: Vec<Turn>,
}

/// A turn of a follow-up item.
#[derive(Debug, Clone, Deserialize)]
pub struct Turn {
    /// Action of the turn.
    pub action: String,
    /// Text.
    pub text: String,
}

/// Ingests every PDF of `corpus` (already present files are kept) and returns file name → id.
pub async fn ingest_corpus(
    lib: &Library,
    profile: &Profile,
    corpus: &Path,
) -> Result<HashMap<String, String>, Error> {
    let mut files: Vec<_> = std::fs::read_dir(corpus)
        .map_err(|source| Error::File {
            path: corpus.to_path_buf(),
            source,
        })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("pdf")))
        .collect();
    files.sort();
    for f in &files {
        let req = IngestRequest::file(f);
        match lib
            .ingest(profile, &req, &|_: &Progress| Flow::Continue)
            .await
        {
            Ok(_) | Err(Error::Duplicate { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(lib
        .documents(profile)
        .await?
        .into_iter()
        .filter(|d| d.status == DocStatus::Ready)
        .map(|d| (d.file_name, d.id))
        .collect())
}

fn ids(names: &[String], by_name: &HashMap<String, String>) -> Result<Vec<String>, Error> {
    names
        .iter()
        .map(|n| {
            by_name.get(n).cloned().ok_or_else(|| {
                Error::InvalidInput(format!("corpus file {n} is not in the library"))
            })
        })
        .collect()
}

/// Runs one item and returns its result line.
pub async fn run_item(
    agent: &Agent<'_>,
    profile: &Profile,
    item: &Item,
    by_name: &HashMap<String, String>,
    mode: Mode,
) -> Value {
    let names: HashMap<&str, &str> = by_name
        .iter()
        .map(|(n, i)| (i.as_str(), n.as_str()))
        .collect();
    let result = play(agent, profile, item, by_name, mode).await;
    match result {
        Ok(turn) => line(&item.id, &turn, &names),
        Err(e) => {
            json!({"id": item.id, "status": "error", "answer": e.to_string(), "citations": []})
        }
    }
}

async fn play(
    agent: &Agent<'_>,
    profile: &Profile,
    item: &Item,
    by_name: &HashMap<String, String>,
    mode: Mode,
) -> Result<TurnResult, Error> {
    let docs = ids(&item.docs, by_name)?;
    let quiet = |_: &crate::agent::types::Event| {};
    let ask = |text: String,
               action: Option<Action>,
               documents: Vec<String>,
               thread: Option<String>| AskRequest {
        thread_id: thread,
        message_id: None,
        text,
        documents,
        set: None,
        action,
        mode: Some(mode),
        web: false,
    };
    match item.kind.as_str() {
        "followup" => {
            let mut thread = None;
            let mut last = None;
            for (i, t) in item.turns.iter().enumerate() {
                let documents = if i == 0 { docs.clone() } else { Vec::new() };
                let turn = agent
                    .ask(
                        profile,
                        ask(
                            t.text.clone(),
                            Action::parse(&t.action),
                            documents,
                            thread.clone(),
                        ),
                        &quiet,
                    )
                    .await?;
                thread = Some(turn.thread_id.clone());
                last = Some(turn);
            }
            last.ok_or_else(|| Error::InvalidInput("a follow-up item without turns".into()))
        }
        kind => {
            let action = match kind {
                "compare" => Some(Action::Compare),
                "summarize" => Some(Action::Summarize),
                "audit" => Some(Action::Audit),
                _ => Some(Action::Inquire),
            };
            let mut text = item.question.clone().unwrap_or_default();
            if let Some(t) = &item.text {
                text = format!("{text}\n\n{t}");
            }
            agent
                .ask(profile, ask(text, action, docs, None), &quiet)
                .await
        }
    }
}

/// The question of a whole-library inquire item (`None` for other items), with the corpus
/// file name of each document id.
fn whole_library_question<'a>(
    item: &'a Item,
    by_name: &'a HashMap<String, String>,
) -> Option<(&'a str, HashMap<&'a str, &'a str>)> {
    let question = item.question.as_deref()?;
    if item.kind != "inquire" || !item.docs.is_empty() {
        return None;
    }
    let names = by_name
        .iter()
        .map(|(n, i)| (i.as_str(), n.as_str()))
        .collect();
    Some((question, names))
}

/// The candidate sentences of a whole-library inquire item with their signals (`None` for
/// other items): `{"id", "candidates": [{"doc", "page", "text", "signals"}]}`.
pub async fn signals_line(
    agent: &Agent<'_>,
    profile: &Profile,
    item: &Item,
    by_name: &HashMap<String, String>,
) -> Result<Option<Value>, Error> {
    let Some((question, names)) = whole_library_question(item, by_name) else {
        return Ok(None);
    };
    let candidates: Vec<Value> = agent
        .sentence_signals(profile, question)
        .await?
        .into_iter()
        .map(|c| {
            json!({
                "doc": names.get(c.document_id.as_str()).copied().unwrap_or_default(),
                "page": c.page,
                "text": c.text,
                "signals": c.signals,
            })
        })
        .collect();
    Ok(Some(json!({"id": item.id, "candidates": candidates})))
}

/// The ranked hits of a hybrid search for a whole-library inquire item's question (`None`
/// for other items), 100 passages deep: `{"id", "hits": [{"doc", "page", "chunk", "vrank",
/// "trank", "vscore", "tscore"}]}` — each hit with both sides' ranks and scores, so a fusion
/// can be tried offline on them.
pub async fn hits_line(
    lib: &Library,
    profile: &Profile,
    item: &Item,
    by_name: &HashMap<String, String>,
) -> Result<Option<Value>, Error> {
    let Some((question, names)) = whole_library_question(item, by_name) else {
        return Ok(None);
    };
    let req = crate::library::SearchRequest {
        query: question.to_owned(),
        k: 100,
        documents: Vec::new(),
        set: None,
        doc_type: None,
    };
    let hits: Vec<Value> = lib
        .search(profile, &req)
        .await?
        .into_iter()
        .map(|h| {
            json!({
                "doc": names.get(h.hit.document_id.as_str()).copied().unwrap_or_default(),
                "page": h.page,
                "chunk": h.hit.chunk_index,
                "vrank": h.hit.vector_rank, "trank": h.hit.text_rank,
                "vscore": h.hit.vector_score, "tscore": h.hit.text_score,
            })
        })
        .collect();
    Ok(Some(json!({"id": item.id, "hits": hits})))
}

fn line(id: &str, turn: &TurnResult, names: &HashMap<&str, &str>) -> Value {
    let status = match turn.answer.status {
        Status::Answered => "answered",
        Status::Refused | Status::WaitingForExpert => "refused",
        Status::NeedsClarification => "needs_clarification",
        Status::NotAvailable => "error",
    };
    let citations: Vec<Value> = turn
        .answer
        .citations
        .iter()
        .map(|c| json!({"doc": names.get(c.document_id.as_str()).copied().unwrap_or(c.file_name.as_str()), "page": c.page, "quote": c.quote}))
        .collect();
    let doc = |c: &crate::agent::types::Citation| {
        names
            .get(c.document_id.as_str())
            .copied()
            .unwrap_or(c.file_name.as_str())
            .to_owned()
    };
    let mut out =
        json!({"id": id, "status": status, "answer": turn.answer.text, "citations": citations});
    // The measures the refusal was judged on (for calibrating it: scripts/fit-refusal.py).
    if let Some(c) = &turn.answer.confidence {
        out["confidence"] = json!(c);
    }
    if let Some(report) = &turn.answer.audit {
        let findings: Vec<Value> = report
            .findings
            .iter()
            .map(|f| {
                json!({
                    "summary": f.summary,
                    "severity": f.severity.label(),
                    "citations": [{"doc": doc(&f.target), "page": f.target.page, "quote": f.target.quote}],
                })
            })
            .collect();
        out["audit"] = json!({"status": report.overall_status.label(), "findings": findings});
    }
    out
}
