//! Text → vectors.
//!
//! Owns: the [`Embedder`] trait and its two implementations, the local all-MiniLM-L6-v2 run
//! with candle ([`minilm::MiniLm`], the offline default) and any OpenAI-compatible embeddings
//! endpoint ([`openai::OpenAiEmbedder`]). Vectors are L2-normalised so a dot product is the
//! cosine similarity. Must not: know about documents, chunks or stores.

pub mod minilm;
pub mod openai;

use std::path::PathBuf;

use futures::future::BoxFuture;

/// Errors of embedding.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The local model files are not where they were expected.
    #[error(
        "embedding model not found in {dir}: missing {missing}. Run the README's setup command, or set POLICYPAL_MODEL_DIR to the folder holding model.safetensors, tokenizer.json and config.json"
    )]
    ModelMissing {
        /// The directory searched.
        dir: PathBuf,
        /// The first missing file.
        missing: &'static str,
    },
    /// The model files exist but could not be loaded.
    #[error("embedding model in {dir} could not be loaded: {reason}")]
    ModelInvalid {
        /// The model directory.
        dir: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The model failed while running.
    #[error("embedding failed: {0}")]
    Inference(String),
    /// The remote embedding service could not be reached or refused the request.
    #[error("embedding service error: {0}")]
    Remote(String),
    /// The remote service returned something unusable.
    #[error("embedding service returned an invalid response: {0}")]
    BadResponse(String),
}

/// Vectors for a batch of texts plus the number of tokens the model consumed.
#[derive(Debug, Clone, Default)]
pub struct Embeddings {
    /// One L2-normalised vector per input text, in input order.
    pub vectors: Vec<Vec<f32>>,
    /// Tokens processed (after truncation), for throughput accounting.
    pub tokens: usize,
}

/// Something that turns texts into fixed-size, L2-normalised vectors.
pub trait Embedder: Send + Sync {
    /// Stable identifier recorded in the index, e.g. `local:all-MiniLM-L6-v2`.
    fn model_id(&self) -> String;
    /// Vector dimension.
    fn dimension(&self) -> usize;
    /// Embeds passages (documents).
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Embeddings, EmbedError>>;
    /// Embeds one search query.
    fn embed_query<'a>(&'a self, query: &'a str) -> BoxFuture<'a, Result<Vec<f32>, EmbedError>> {
        Box::pin(async move {
            let texts = [query.to_owned()];
            let mut out = self.embed(&texts).await?;
            out.vectors
                .pop()
                .ok_or_else(|| EmbedError::Inference("no vector returned for the query".into()))
        })
    }
}

/// L2-normalises a vector in place (a zero vector stays zero).
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v {
            *x /= norm;
        }
    }
}

/// Cosine similarity of two vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}
