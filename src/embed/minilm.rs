//! all-MiniLM-L6-v2 run locally with candle on the CPU.
//!
//! Owns: loading the model files (safetensors, tokenizer.json, config.json) and mean-pooled,
//! normalised sentence embeddings with up to 256 tokens per text. The shipped tokenizer.json
//! fixes truncation and padding at 128 tokens; both are overridden here, or half of every
//! chunk would silently be ignored. Texts are sorted by length and batched so that padding
//! is only to the longest member of each batch. Must not: download anything.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use futures::future::BoxFuture;
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use super::{EmbedError, Embedder, Embeddings, normalise};
pub use policypal_encoder::Arithmetic;
use policypal_encoder::{Encoder, Shape, mean_pool};

/// Most tokens the model sees per text (its training limit; positions go to 512).
pub const MAX_TOKENS: usize = 256;
/// Texts per forward pass. Measured on two cores (fhs-3.0.pdf, tokens/s): 4 ≈ 2 > 8 > 16 ≈ 32.
/// Small batches keep the activations in cache, the matrix products (≈ 900 rows) stay
/// large enough, and the attention runs one sequence per core; peak RSS also falls with the
/// batch (314 MB at 4, 473 MB at 32).
pub const BATCH_SIZE: usize = 4;
/// Identifier recorded in the index.
pub const MODEL_ID: &str = "local:all-MiniLM-L6-v2";
/// Files the model directory must hold.
pub const REQUIRED_FILES: [&str; 3] = ["model.safetensors", "tokenizer.json", "config.json"];

struct Inner {
    model: Encoder,
    tokenizer: Tokenizer,
    device: Device,
    hidden: usize,
}

/// The local MiniLM embedder. Cheap to clone.
#[derive(Clone)]
pub struct MiniLm {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for MiniLm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLm")
            .field("hidden", &self.inner.hidden)
            .finish()
    }
}

impl MiniLm {
    /// Loads the model from a directory holding [`REQUIRED_FILES`], with the default
    /// arithmetic ([`Arithmetic::Integer`] where the CPU has AVX2).
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        Self::load_with(dir, Arithmetic::Integer)
    }

    /// Loads the model with the given arithmetic for its dense layers ([`Arithmetic::Float`]
    /// is the reference the benchmarks and tests compare against).
    pub fn load_with(dir: &Path, arithmetic: Arithmetic) -> Result<Self, EmbedError> {
        for f in REQUIRED_FILES {
            if !dir.join(f).is_file() {
                return Err(EmbedError::ModelMissing {
                    dir: dir.to_path_buf(),
                    missing: f,
                });
            }
        }
        let invalid = |reason: String| EmbedError::ModelInvalid {
            dir: dir.to_path_buf(),
            reason,
        };
        let config_bytes =
            std::fs::read(dir.join("config.json")).map_err(|e| invalid(e.to_string()))?;
        let shape: Shape = serde_json::from_slice(&config_bytes)
            .map_err(|e| invalid(format!("config.json: {e}")))?;
        let hidden = shape.hidden_size;
        let device = Device::Cpu;
        let weights =
            std::fs::read(dir.join("model.safetensors")).map_err(|e| invalid(e.to_string()))?;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)
            .map_err(|e| invalid(format!("model.safetensors: {e}")))?;
        let model = Encoder::load_with(vb, shape, arithmetic)
            .map_err(|e| invalid(format!("weights: {e}")))?;
        if model.max_positions() < MAX_TOKENS {
            return Err(invalid(format!(
                "the model knows {} positions, fewer than {MAX_TOKENS}",
                model.max_positions()
            )));
        }
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| invalid(format!("tokenizer.json: {e}")))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| invalid(format!("tokenizer truncation: {e}")))?;
        tokenizer.with_padding(None);
        Ok(Self {
            inner: Arc::new(Inner {
                model,
                tokenizer,
                device,
                hidden,
            }),
        })
    }

    /// The arithmetic the dense layers actually use (`Float` on CPUs without AVX2).
    pub fn arithmetic(&self) -> Arithmetic {
        self.inner.model.arithmetic()
    }

    /// Where the model is looked for when nothing is configured.
    pub fn default_dir(data_dir: &Path) -> PathBuf {
        data_dir.join("models").join(crate::config::MINILM_DIR_NAME)
    }

    /// Number of tokens (with special tokens, after truncation) a text costs.
    pub fn count_tokens(&self, text: &str) -> usize {
        self.inner
            .tokenizer
            .encode(text, true)
            .map(|e| e.get_ids().len())
            .unwrap_or(0)
    }

    /// Embeds texts on the calling thread (blocking).
    pub fn embed_blocking(&self, texts: &[String]) -> Result<Embeddings, EmbedError> {
        let inner = &self.inner;
        if texts.is_empty() {
            return Ok(Embeddings::default());
        }
        let encodings = inner
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Inference(format!("tokenizer: {e}")))?;
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut vectors = vec![Vec::new(); texts.len()];
        let mut tokens = 0usize;
        for batch in order.chunks(BATCH_SIZE) {
            let len = batch
                .iter()
                .map(|&i| encodings[i].get_ids().len())
                .max()
                .unwrap_or(0)
                .max(1);
            let mut ids = Vec::with_capacity(batch.len() * len);
            let mut mask = Vec::with_capacity(batch.len() * len);
            for &i in batch {
                let e = encodings[i].get_ids();
                tokens += e.len();
                ids.extend_from_slice(e);
                ids.extend(std::iter::repeat_n(0u32, len - e.len()));
                mask.extend(std::iter::repeat_n(1u32, e.len()));
                mask.extend(std::iter::repeat_n(0u32, len - e.len()));
            }
            let pooled = self
                .forward(ids, mask, batch.len(), len)
                .map_err(|e| EmbedError::Inference(e.to_string()))?;
            for (&i, mut v) in batch.iter().zip(pooled) {
                normalise(&mut v);
                vectors[i] = v;
            }
        }
        Ok(Embeddings { vectors, tokens })
    }

    fn forward(
        &self,
        ids: Vec<u32>,
        mask: Vec<u32>,
        rows: usize,
        len: usize,
    ) -> candle_core::Result<Vec<Vec<f32>>> {
        let inner = &self.inner;
        let ids = Tensor::from_vec(ids, (rows, len), &inner.device)?;
        let mask = Tensor::from_vec(mask, (rows, len), &inner.device)?;
        let hidden = inner.model.forward(&ids, &mask)?;
        mean_pool(&hidden, &mask)?.to_vec2::<f32>()
    }
}

impl Embedder for MiniLm {
    fn model_id(&self) -> String {
        MODEL_ID.to_owned()
    }

    fn dimension(&self) -> usize {
        self.inner.hidden
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Embeddings, EmbedError>> {
        let this = self.clone();
        let owned = texts.to_vec();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || this.embed_blocking(&owned))
                .await
                .map_err(|e| EmbedError::Inference(format!("embedding task failed: {e}")))?
        })
    }
}
