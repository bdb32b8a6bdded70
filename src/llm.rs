//! Chat models over async-openai: OpenAI or any OpenAI-compatible server (Ollama,
//! llama.cpp's llama-server, vLLM).
//!
//! Owns: the request (streaming, with usage), a time limit, model routing by action, and token
//! cost accounting. Must not: build prompts about documents (the agent does) or log prompts or
//! keys at info level.

use std::collections::HashMap;
use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::{
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestUserMessage, ChatCompletionStreamOptions, CreateChatCompletionRequestArgs,
};
use futures::StreamExt;
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
    /// No answer within the time limit.
    #[error("the language model at {url} did not answer within {seconds} s")]
    Timeout {
        /// Base URL.
        url: String,
        /// The limit.
        seconds: u64,
    },
    /// The answer did not follow the required format, even after a corrective retry.
    #[error("the language model's answer was malformed: {0}")]
    Malformed(String),
}

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
}

/// A finished completion.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    /// Full text.
    pub text: String,
    /// Tokens and cost.
    pub usage: Usage,
}

/// A chat model client.
#[derive(Clone)]
pub struct ChatModel {
    client: Client<OpenAIConfig>,
    /// The key the client sends (`""` for none), to hide it in servers' error messages.
    key: String,
    settings: LlmSettings,
    redactor: Option<crate::redact::Redactor>,
}

impl std::fmt::Debug for ChatModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatModel")
            .field("base_url", &self.settings.base_url)
            .finish()
    }
}

impl ChatModel {
    /// A client. `api_key` is what [`crate::secrets::key_for`] allows for this endpoint (`""`
    /// for none: set explicitly, so that async-openai never falls back to an `OPENAI_API_KEY`
    /// from the environment).
    pub fn new(settings: LlmSettings, api_key: String) -> Self {
        let config = OpenAIConfig::new()
            .with_api_base(settings.base_url.trim_end_matches('/'))
            .with_api_key(api_key.clone());
        Self {
            client: Client::with_config(config),
            key: api_key,
            settings,
            redactor: None,
        }
    }

    /// Redacts personal data in every message sent, and restores it in the reply (the profile's
    /// privacy setting).
    pub fn with_redactor(mut self, redactor: Option<crate::redact::Redactor>) -> Self {
        self.redactor = redactor;
        self
    }

    /// The settings.
    pub fn settings(&self) -> &LlmSettings {
        &self.settings
    }

    /// Streams a completion; `on_token` sees each piece of text as it arrives.
    pub async fn complete(
        &self,
        model: &str,
        messages: &[Message],
        on_token: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<Completion, LlmError> {
        let url = self.settings.base_url.clone();
        let remote = |message: String| LlmError::Remote {
            url: url.clone(),
            message: crate::secrets::scrub(&message, &self.key),
        };
        // With redaction, personal data is replaced in what is sent and restored in the reply.
        let mut session = self.redactor.as_ref().map(crate::redact::Redactor::session);
        let mut outgoing = |s: &str| match session.as_mut() {
            Some(x) => x.redact(s),
            None => s.to_owned(),
        };
        let msgs: Vec<ChatCompletionRequestMessage> = messages
            .iter()
            .map(|m| match m {
                Message::System(s) => ChatCompletionRequestMessage::System(
                    ChatCompletionRequestSystemMessage::from(outgoing(s)),
                ),
                Message::User(s) => ChatCompletionRequestMessage::User(
                    ChatCompletionRequestUserMessage::from(outgoing(s)),
                ),
            })
            .collect();
        if let Some(n) = session.as_ref().map(|x| x.redacted()).filter(|n| *n > 0) {
            tracing::debug!(values = n, "personal data redacted");
        }
        let restorer = session.as_ref().map(|x| std::sync::Mutex::new(x.stream()));
        let request = CreateChatCompletionRequestArgs::default()
            .model(model)
            .messages(msgs)
            .temperature(0.0)
            .stream(true)
            .stream_options(ChatCompletionStreamOptions {
                include_usage: true,
            })
            .build()
            .map_err(|e| remote(e.to_string()))?;
        let limit = Duration::from_secs(self.settings.timeout_secs.max(1));
        let work = async {
            let mut stream = self
                .client
                .chat()
                .create_stream(request)
                .await
                .map_err(|e| remote(e.to_string()))?;
            let mut out = Completion::default();
            out.usage.model = model.to_owned();
            while let Some(item) = stream.next().await {
                let chunk = item.map_err(|e| remote(e.to_string()))?;
                for choice in &chunk.choices {
                    if let Some(t) = &choice.delta.content {
                        let shown = match &restorer {
                            Some(r) => r.lock().unwrap_or_else(|e| e.into_inner()).push(t),
                            None => t.clone(),
                        };
                        if !shown.is_empty() {
                            on_token(&shown);
                        }
                        out.text.push_str(t);
                    }
                }
                if let Some(u) = chunk.usage {
                    out.usage.prompt_tokens = u.prompt_tokens;
                    out.usage.completion_tokens = u.completion_tokens;
                }
            }
            if let (Some(r), Some(x)) = (&restorer, &session) {
                let rest = r.lock().unwrap_or_else(|e| e.into_inner()).finish();
                if !rest.is_empty() {
                    on_token(&rest);
                }
                out.text = x.restore(&out.text);
            }
            out.usage.cost_usd =
                self.settings
                    .cost(model, out.usage.prompt_tokens, out.usage.completion_tokens);
            Ok(out)
        };
        tokio::time::timeout(limit, work)
            .await
            .map_err(|_| LlmError::Timeout {
                url: self.settings.base_url.clone(),
                seconds: limit.as_secs(),
            })?
    }
}
