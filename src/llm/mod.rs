//! Chat models behind one [`ChatModel`]: OpenAI or any OpenAI-compatible server (Ollama,
//! llama.cpp's llama-server, vLLM) over HTTP ([`remote`]), or a GGUF file run in process by
//! llama.cpp ([`local`]), chosen per model name.
//!
//! Owns: model routing by action, which backend a model name runs on, redaction of what leaves
//! the machine, the time limit and token cost accounting. Must not: build prompts about
//! documents (the agent does) or log prompts or keys at info level.

pub mod local;
mod remote;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Token usage of a turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Model name.
    pub model: String,
    /// Prompt tokens.
    pub prompt_tokens: u32,
    /// Completion tokens.
    pub completion_tokens: u32,
    /// Estimated cost in USD.
    pub cost_usd: f64,
}

/// Errors of the chat model.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The server could not be reached, refused the request or failed.
    #[error("the language model at {url} failed: {message}")]
    Remote {
        /// Base URL.
        url: String,
        /// What happened.
        message: String,
    },
    /// Nothing came for the time limit (before the first piece of the reply or between two).
    #[error("the language model at {url} sent nothing for {seconds} s")]
    Timeout {
        /// Base URL.
        url: String,
        /// The limit.
        seconds: u64,
    },
    /// A local model file could not be read as a model.
    #[error("the model file {path} cannot be used: {message}")]
    LocalLoad {
        /// The GGUF file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The in-process model failed while answering.
    #[error("the local model {path} failed: {message}")]
    LocalRun {
        /// The GGUF file.
        path: PathBuf,
        /// What happened.
        message: String,
    },
    /// The answer did not follow the required format, even after a corrective retry.
    #[error("the language model's answer was malformed: {0}")]
    Malformed(String),
}

/// The actions a model can be routed to, as settings spell them.
pub const ACTIONS: [&str; 4] = ["inquire", "summarize", "compare", "audit"];

/// Model routing and prices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LlmSettings {
    /// Base URL (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`, …).
    pub base_url: String,
    /// Model per action (spec 002's map: routine work on the small model).
    pub models: HashMap<String, String>,
    /// Seconds one request may take.
    pub timeout_secs: u64,
    /// USD per million prompt and completion tokens, per model.
    pub prices: HashMap<String, (f64, f64)>,
    /// GGUF files run in process ([`local`]), by the model name `models` uses for them.
    pub local_models: BTreeMap<String, PathBuf>,
    /// Seconds a local model stays loaded without use.
    pub local_idle_secs: u64,
    /// The model reads which action and documents a message means (spec 002), where the
    /// message's own words leave it open; off: the deterministic resolver alone.
    pub route_with_model: bool,
}

impl Default for LlmSettings {
    fn default() -> Self {
        let models = [
            ("inquire", "gpt-4o-mini"),
            ("summarize", "gpt-4o-mini"),
            ("compare", "gpt-4o"),
            ("audit", "gpt-4o"),
        ]
        .into_iter()
        .map(|(a, m)| (a.to_owned(), m.to_owned()))
        .collect();
        let prices = [("gpt-4o-mini", (0.15, 0.60)), ("gpt-4o", (2.50, 10.0))]
            .into_iter()
            .map(|(m, p)| (m.to_owned(), p))
            .collect();
        Self {
            base_url: "https://api.openai.com/v1".into(),
            models,
            timeout_secs: 60,
            prices,
            local_models: BTreeMap::new(),
            local_idle_secs: local::IDLE_UNLOAD.as_secs(),
            route_with_model: true,
        }
    }
}

impl LlmSettings {
    /// The model for an action.
    /// `action` is the action's name as settings spell it ("inquire", "audit", …).
    pub fn model_for(&self, action: &str) -> String {
        self.models
            .get(action)
            .cloned()
            .unwrap_or_else(|| "gpt-4o-mini".to_owned())
    }

    /// The file of a model that runs in process, if `model` names one.
    pub fn local_model(&self, model: &str) -> Option<&Path> {
        self.local_models.get(model).map(PathBuf::as_path)
    }

    /// Registers a GGUF file as the local model `name` and makes it the model of every action
    /// (what `policypal models add` and the settings screen do).
    pub fn use_local_model(&mut self, name: &str, path: PathBuf) {
        self.local_models.insert(name.to_owned(), path);
        for action in ACTIONS {
            self.models.insert(action.to_owned(), name.to_owned());
        }
    }

    /// Cost in USD of a usage.
    pub fn cost(&self, model: &str, prompt: u32, completion: u32) -> f64 {
        self.prices.get(model).map_or(0.0, |(p, c)| {
            (f64::from(prompt) * p + f64::from(completion) * c) / 1_000_000.0
        })
    }
}

/// A chat message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// Instructions.
    System(String),
    /// The user's turn (passages and question).
    User(String),
    /// The model's own earlier reply (shown back to it with a correction).
    Assistant(String),
}

/// Most tokens one reply may have, on every backend: an answer with its quotes fits well
/// within it; a model that loops stops here instead of running until the time limit.
pub const MAX_REPLY_TOKENS: u32 = 1024;

impl Usage {
    /// Adds another call's tokens and cost (the model name stays; taken from `other` when
    /// there is none yet).
    pub fn add(&mut self, other: &Usage) {
        if self.model.is_empty() {
            self.model.clone_from(&other.model);
        }
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.cost_usd += other.cost_usd;
    }
}

/// A finished completion.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    /// Full text.
    pub text: String,
    /// Tokens and cost.
    pub usage: Usage,
}

/// A chat model client: each model name runs on the backend settings give it.
#[derive(Clone)]
pub struct ChatModel {
    remote: remote::Remote,
    settings: LlmSettings,
    redactor: Option<crate::redact::Redactor>,
}

impl std::fmt::Debug for ChatModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatModel")
            .field("base_url", &self.settings.base_url)
            .field("local_models", &self.settings.local_models)
            .finish()
    }
}

impl ChatModel {
    /// A client. `api_key` is what [`crate::secrets::key_for`] allows for this endpoint (`""`
    /// for none: set explicitly, so that async-openai never falls back to an `OPENAI_API_KEY`
    /// from the environment). Local models never see it.
    pub fn new(settings: LlmSettings, api_key: String) -> Self {
        Self {
            remote: remote::Remote::new(&settings.base_url, api_key),
            settings,
            redactor: None,
        }
    }

    /// Redacts personal data in every message sent off the machine, and restores it in the
    /// reply (the profile's privacy setting). A local model runs in this process: nothing is
    /// sent anywhere, so nothing is redacted for it.
    pub fn with_redactor(mut self, redactor: Option<crate::redact::Redactor>) -> Self {
        self.redactor = redactor;
        self
    }

    /// The settings.
    pub fn settings(&self) -> &LlmSettings {
        &self.settings
    }

    /// Streams a completion; `on_token` sees each piece of text as it arrives. The time limit
    /// is on silence, not on the whole reply: progress (a piece of the reply; for a local model
    /// also each batch of the prompt read) must come within `timeout_secs`, so a slow but
    /// steady model on a workstation's CPU is not cut off, and [`MAX_REPLY_TOKENS`] bounds the
    /// length.
    pub async fn complete(
        &self,
        model: &str,
        messages: &[Message],
        on_token: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<Completion, LlmError> {
        self.complete_at_most(model, messages, on_token, MAX_REPLY_TOKENS)
            .await
    }

    /// [`Self::complete`] with a reply of at most `max_tokens` (a short structured reply: a
    /// model that rambles is cut early instead of after [`MAX_REPLY_TOKENS`]).
    pub async fn complete_at_most(
        &self,
        model: &str,
        messages: &[Message],
        on_token: &(dyn Fn(&str) + Send + Sync),
        max_tokens: u32,
    ) -> Result<Completion, LlmError> {
        let max_tokens = max_tokens.clamp(1, MAX_REPLY_TOKENS);
        let limit = Duration::from_secs(self.settings.timeout_secs.max(1));
        let progress = std::sync::Mutex::new(Instant::now());
        // Every piece is progress; an empty one (a local model reading its prompt) is only that.
        let watched = |t: &str| {
            *progress.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            if !t.is_empty() {
                on_token(t);
            }
        };
        let local = self.settings.local_model(model);
        let source = local.map_or_else(
            || self.settings.base_url.clone(),
            |p| p.display().to_string(),
        );
        let work = async {
            match local {
                Some(path) => {
                    let idle = Duration::from_secs(self.settings.local_idle_secs);
                    local::complete(path, idle, messages, &watched, max_tokens).await
                }
                None => {
                    self.remote
                        .complete(
                            model,
                            messages,
                            &watched,
                            self.redactor.as_ref(),
                            max_tokens,
                        )
                        .await
                }
            }
        };
        let mut out = until_silent(work, &progress, limit)
            .await
            .ok_or(LlmError::Timeout {
                url: source,
                seconds: limit.as_secs(),
            })??;
        out.usage.model = model.to_owned();
        out.usage.cost_usd = if local.is_some() {
            0.0
        } else {
            self.settings
                .cost(model, out.usage.prompt_tokens, out.usage.completion_tokens)
        };
        Ok(out)
    }
}

/// Runs `work` until it ends, or until `limit` has passed since the last progress (`None`;
/// `work` is dropped, which stops it).
async fn until_silent<T>(
    work: impl std::future::Future<Output = T>,
    progress: &std::sync::Mutex<Instant>,
    limit: Duration,
) -> Option<T> {
    tokio::pin!(work);
    loop {
        let silent = progress.lock().unwrap_or_else(|e| e.into_inner()).elapsed();
        if silent >= limit {
            return None;
        }
        tokio::select! {
            out = &mut work => return Some(out),
            () = tokio::time::sleep(limit - silent) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_time_limit_is_on_silence_not_on_a_steady_reply() {
        let limit = Duration::from_millis(300);
        let progress = std::sync::Mutex::new(Instant::now());
        // A reply that keeps coming for twice the limit is not cut.
        let steady = async {
            for _ in 0..6 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                *progress.lock().unwrap() = Instant::now();
            }
            "done"
        };
        assert_eq!(until_silent(steady, &progress, limit).await, Some("done"));
        // One that goes silent is.
        *progress.lock().unwrap() = Instant::now();
        let silent = async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            "late"
        };
        let started = Instant::now();
        assert_eq!(until_silent(silent, &progress, limit).await, None);
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}
