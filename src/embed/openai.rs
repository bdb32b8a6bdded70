//! Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama,
//! llama.cpp's llama-server, vLLM) through async-openai.
//!
//! Owns: the request, a time limit per request, and checking the response's shape (one vector
//! per input of the configured dimension). Must not: read the API key from anywhere itself (the
//! caller passes what the keychain holds) or log texts or keys.

use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::CreateEmbeddingRequestArgs;
use futures::future::BoxFuture;

use super::{EmbedError, Embedder, Embeddings, normalise};

/// Texts per request.
const BATCH: usize = 64;
/// Time limit of one request.
const TIMEOUT: Duration = Duration::from_secs(60);

/// An OpenAI-compatible embedder.
#[derive(Clone)]
pub struct OpenAiEmbedder {
    client: Client<OpenAIConfig>,
    /// The key the client sends (`""` for none), to hide it in servers' error messages.
    key: String,
    base_url: String,
    model: String,
    dimension: usize,
}

impl std::fmt::Debug for OpenAiEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the client: its config holds the key.
        f.debug_struct("OpenAiEmbedder")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .finish()
    }
}

impl OpenAiEmbedder {
    /// A client for `base_url` (e.g. `http://127.0.0.1:11434/v1`). `api_key` is what
    /// [`crate::secrets::key_for`] allows for this endpoint (`""` for none: set explicitly, so
    /// that async-openai never falls back to an `OPENAI_API_KEY` from the environment).
    pub fn new(base_url: &str, model: &str, dimension: usize, api_key: String) -> Self {
        let config = OpenAIConfig::new()
            .with_api_base(base_url.trim_end_matches('/'))
            .with_api_key(api_key.clone());
        Self {
            client: Client::with_config(config),
            key: api_key,
            base_url: base_url.to_owned(),
            model: model.to_owned(),
            dimension,
        }
    }

    async fn embed_batch(&self, texts: &[String]) -> Result<Embeddings, EmbedError> {
        let request = CreateEmbeddingRequestArgs::default()
            .model(self.model.clone())
            .input(texts.to_vec())
            .build()
            .map_err(|e| EmbedError::Remote(e.to_string()))?;
        let response = tokio::time::timeout(TIMEOUT, self.client.embeddings().create(request))
            .await
            .map_err(|_| {
                EmbedError::Remote(format!(
                    "{} did not answer within {} s",
                    self.base_url,
                    TIMEOUT.as_secs()
                ))
            })?
            .map_err(|e| {
                let said = crate::secrets::scrub(&e.to_string(), &self.key);
                EmbedError::Remote(format!("{}: {said}", self.base_url))
            })?;
        if response.data.len() != texts.len() {
            return Err(EmbedError::BadResponse(format!(
                "{} vectors for {} texts",
                response.data.len(),
                texts.len()
            )));
        }
        let mut vectors = vec![Vec::new(); texts.len()];
        for item in response.data {
            let i = usize::try_from(item.index).unwrap_or(usize::MAX);
            if i >= vectors.len() || item.embedding.len() != self.dimension {
                return Err(EmbedError::BadResponse(format!(
                    "vector {} has dimension {} (expected {})",
                    item.index,
                    item.embedding.len(),
                    self.dimension
                )));
            }
            let mut v = item.embedding;
            normalise(&mut v);
            vectors[i] = v;
        }
        if vectors.iter().any(Vec::is_empty) {
            return Err(EmbedError::BadResponse("a text got no vector".into()));
        }
        let tokens = usize::try_from(response.usage.prompt_tokens).unwrap_or(0);
        Ok(Embeddings { vectors, tokens })
    }
}

impl Embedder for OpenAiEmbedder {
    fn model_id(&self) -> String {
        format!("openai:{}@{}", self.model, self.dimension)
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Embeddings, EmbedError>> {
        Box::pin(async move {
            let mut out = Embeddings::default();
            for batch in texts.chunks(BATCH) {
                let e = self.embed_batch(batch).await?;
                out.vectors.extend(e.vectors);
                out.tokens += e.tokens;
            }
            Ok(out)
        })
    }
}
