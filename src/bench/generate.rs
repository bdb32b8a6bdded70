//! `bench generate`: a local GGUF model's speed on a grounded prompt (passages from a real
//! PDF, the answer format of the agent's prompt), the way `llama-server` reports its own.
//!
//! Owns: building the prompt and timing runs. Must not: be a timing assertion in tests.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde::Serialize;

use super::{peak_rss_mb, round};
use crate::Error;
use crate::llm::{Message, local};

/// The numbers `bench generate` prints.
#[derive(Debug, Serialize)]
pub struct GenerateBench {
    /// The model file.
    pub model: PathBuf,
    /// Threads generation used (every core).
    pub threads: usize,
    /// Prompt tokens after the chat template.
    pub prompt_tokens: u32,
    /// Milliseconds to load the model (first run).
    pub load_ms: f64,
    /// Median over runs: prompt tokens read per second.
    pub prompt_tokens_per_s: f64,
    /// Median over runs: tokens generated per second.
    pub generated_tokens_per_s: f64,
    /// Median over runs: milliseconds from the request to the first generated token, the
    /// model already loaded.
    pub first_token_ms: f64,
    /// Tokens generated per run.
    pub generated_tokens: Vec<u32>,
    /// Peak resident memory of this process in MB.
    pub peak_rss_mb: Option<f64>,
}

/// Runs `runs` generations of at most `max_tokens` tokens on a prompt of about
/// `prompt_tokens` tokens whose passages are the text of `source`.
pub async fn generate(
    model: &Path,
    source: &Path,
    prompt_tokens: usize,
    max_tokens: u32,
    runs: usize,
) -> Result<GenerateBench, Error> {
    let bytes = std::fs::read(source).map_err(|e| Error::File {
        path: source.to_owned(),
        source: e,
    })?;
    let pages = tokio::task::spawn_blocking(move || crate::ingest::pdf::extract_blocking(&bytes))
        .await
        .map_err(|e| Error::Internal(e.to_string()))??;
    // About four characters per token of English text.
    let budget = prompt_tokens * 4;
    let mut passages = String::new();
    for (n, p) in pages.iter().enumerate() {
        let text: String = p.text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            continue;
        }
        let room = budget.saturating_sub(passages.len());
        if room < 200 {
            break;
        }
        let cut: String = text.chars().take(room.min(1500)).collect();
        passages.push_str(&format!("[{}] page {}\n{cut}\n\n", n + 1, p.number));
    }
    if passages.is_empty() {
        return Err(Error::InvalidInput("the source PDF has no text".into()));
    }
    let messages = vec![
        Message::System(
            "You are PolicyPal, a compliance assistant. Answer ONLY from the numbered passages. \
             If they do not answer the question, reply exactly NO_ANSWER. Write the answer (at \
             most 5 sentences), then a line containing only ---, then one JSON object: \
             {\"citations\": [{\"passage\": <number>, \"quote\": \"<exact words>\"}]}"
                .into(),
        ),
        Message::User(format!(
            "Passages:\n\n{passages}Question: What do these passages require, and of whom?"
        )),
    ];
    let mut stats = Vec::new();
    for _ in 0..runs.max(1) {
        let (m, msgs) = (model.to_owned(), messages.clone());
        let s = tokio::task::spawn_blocking(move || {
            local::generate(
                &m,
                local::IDLE_UNLOAD,
                &msgs,
                max_tokens,
                &|_: &str| {},
                &AtomicBool::new(false),
            )
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))??;
        stats.push(s);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    // The first run also loads the model; its first-token time is left out when others exist.
    let warm: Vec<&local::Stats> = if stats.len() > 1 {
        stats[1..].iter().collect()
    } else {
        stats.iter().collect()
    };
    Ok(GenerateBench {
        model: model.to_owned(),
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        prompt_tokens: stats[0].prompt_tokens,
        load_ms: round(stats[0].load_ms),
        prompt_tokens_per_s: round(median(
            stats
                .iter()
                .map(|s| f64::from(s.prompt_tokens) / (s.prompt_ms / 1000.0).max(1e-9))
                .collect(),
        )),
        generated_tokens_per_s: round(median(
            stats
                .iter()
                .map(|s| f64::from(s.completion_tokens) / (s.generate_ms / 1000.0).max(1e-9))
                .collect(),
        )),
        first_token_ms: round(median(warm.iter().map(|s| s.first_token_ms).collect())),
        generated_tokens: stats.iter().map(|s| s.completion_tokens).collect(),
        peak_rss_mb: peak_rss_mb(),
    })
}
