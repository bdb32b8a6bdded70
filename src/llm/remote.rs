//! An OpenAI-compatible chat endpoint over HTTP (async-openai): OpenAI, Ollama, llama.cpp's
//! llama-server, vLLM.
//!
//! Owns: the streamed request (with usage), redaction of what is sent and restoring it in the
//! reply, and keeping the key out of servers' error messages. Must not: choose models, apply the
//! time limit or price tokens (`llm` does).

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::{
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestUserMessage,
    ChatCompletionStreamOptions, CreateChatCompletionRequestArgs,
};
use futures::StreamExt;

use super::{Completion, LlmError, Message};

/// A client for one endpoint.
#[derive(Clone)]
pub(super) struct Remote {
    client: Client<OpenAIConfig>,
    url: String,
    /// The key the client sends (`""` for none), to hide it in servers' error messages.
    key: String,
}

impl Remote {
    pub(super) fn new(base_url: &str, api_key: String) -> Self {
        let config = OpenAIConfig::new()
            .with_api_base(base_url.trim_end_matches('/'))
            .with_api_key(api_key.clone());
        // Every request on a fresh connection: a server that closes an idle keep-alive
        // connection (llama.cpp's llama-server does, right after a long stream) races the
        // next request onto it — the corrective retry follows the reply at once — and that
        // request fails with "error sending request". A connection costs milliseconds beside a
        // model's seconds.
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .unwrap_or_default();
        Self {
            client: Client::with_config(config).with_http_client(http),
            url: base_url.to_owned(),
            key: api_key,
        }
    }

    /// Streams a completion of `model`; `on_token` sees each piece of the (restored) text.
    pub(super) async fn complete(
        &self,
        model: &str,
        messages: &[Message],
        on_token: &(dyn Fn(&str) + Send + Sync),
        redactor: Option<&crate::redact::Redactor>,
        max_tokens: u32,
    ) -> Result<Completion, LlmError> {
        let remote = |message: String| LlmError::Remote {
            url: self.url.clone(),
            message: crate::secrets::scrub(&message, &self.key),
        };
        // With redaction, personal data is replaced in what is sent and restored in the reply.
        let mut session = redactor.map(crate::redact::Redactor::session);
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
                Message::Assistant(s) => ChatCompletionRequestMessage::Assistant(
                    ChatCompletionRequestAssistantMessage::from(outgoing(s).as_str()),
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
            .max_completion_tokens(max_tokens)
            .stream(true)
            .stream_options(ChatCompletionStreamOptions {
                include_usage: true,
            })
            .build()
            .map_err(|e| remote(e.to_string()))?;
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
        Ok(out)
    }
}
