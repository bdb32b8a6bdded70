//! The BERT encoder of all-MiniLM-L6-v2, written for CPU throughput.
//!
//! A crate of its own so that the development profile can optimise it (its GELU loop is our
//! code, and unoptimised it would cost more than the matrix products).
//!
//! Owns: the forward pass from token ids to the last hidden states, with the same weights and
//! arithmetic as the reference BERT, arranged for a 2-core CPU: the three attention
//! projections in one matrix product, the fused last-dimension softmax and layer norm of
//! candle-nn, and GELU (exact, erf-based) computed on all cores. candle's generic BERT spends
//! a quarter of its time in single-threaded element-wise steps (erf, exp) and in allocating
//! the intermediate tensors of each of them. Must not: tokenize, pool or normalise (the
//! embedder does), or load anything but the safetensors weights it is given.

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::{Linear, VarBuilder};

/// Shape of the model, read from its config.json.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
pub struct Shape {
    /// Width of the hidden states (384).
    pub hidden_size: usize,
    /// Attention heads per layer (12).
    pub num_attention_heads: usize,
    /// Encoder layers (6).
    pub num_hidden_layers: usize,
    /// Width of the feed-forward layer (1536).
    pub intermediate_size: usize,
    /// Layer-norm epsilon.
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
}

fn default_eps() -> f64 {
    1e-12
}

struct Norm {
    weight: Tensor,
    bias: Tensor,
}

impl Norm {
    fn load(vb: VarBuilder, size: usize) -> candle_core::Result<Self> {
        Ok(Self {
            weight: vb.get(size, "weight")?,
            bias: vb.get(size, "bias")?,
        })
    }

    fn forward(&self, x: &Tensor, eps: f32) -> candle_core::Result<Tensor> {
        candle_nn::ops::layer_norm(x, &self.weight, &self.bias, eps)
    }
}

struct Layer {
    qkv: Linear,
    out: Linear,
    norm1: Norm,
    up: Linear,
    down: Linear,
    norm2: Norm,
}

fn linear(vb: VarBuilder, inp: usize, out: usize) -> candle_core::Result<Linear> {
    Ok(Linear::new(
        vb.get((out, inp), "weight")?,
        Some(vb.get(out, "bias")?),
    ))
}

impl Layer {
    fn load(vb: VarBuilder, s: &Shape) -> candle_core::Result<Self> {
        let h = s.hidden_size;
        let att = vb.pp("attention");
        let sa = att.pp("self");
        let (q, k, v) = (
            linear(sa.pp("query"), h, h)?,
            linear(sa.pp("key"), h, h)?,
            linear(sa.pp("value"), h, h)?,
        );
        let bias = |l: &Linear| {
            l.bias()
                .cloned()
                .ok_or_else(|| candle_core::Error::Msg("bias".into()))
        };
        let qkv = Linear::new(
            Tensor::cat(&[q.weight(), k.weight(), v.weight()], 0)?,
            Some(Tensor::cat(&[bias(&q)?, bias(&k)?, bias(&v)?], 0)?),
        );
        Ok(Self {
            qkv,
            out: linear(att.pp("output").pp("dense"), h, h)?,
            norm1: Norm::load(att.pp("output").pp("LayerNorm"), h)?,
            up: linear(vb.pp("intermediate").pp("dense"), h, s.intermediate_size)?,
            down: linear(vb.pp("output").pp("dense"), s.intermediate_size, h)?,
            norm2: Norm::load(vb.pp("output").pp("LayerNorm"), h)?,
        })
    }
}

/// The encoder: embeddings and the transformer layers.
pub struct Encoder {
    words: Tensor,
    positions: Tensor,
    token_type: Tensor,
    norm: Norm,
    layers: Vec<Layer>,
    shape: Shape,
}

impl Encoder {
    /// Loads the weights (names as in the Hugging Face BERT checkpoint, with or without the
    /// `bert.` prefix).
    pub fn load(vb: VarBuilder, shape: Shape) -> candle_core::Result<Self> {
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let e = vb.pp("embeddings");
        let h = shape.hidden_size;
        let words = e
            .pp("word_embeddings")
            .get_unchecked_dtype("weight", DType::F32)?;
        let positions = e
            .pp("position_embeddings")
            .get_unchecked_dtype("weight", DType::F32)?;
        let token_type = e
            .pp("token_type_embeddings")
            .get_unchecked_dtype("weight", DType::F32)?
            .narrow(0, 0, 1)?;
        let norm = Norm::load(e.pp("LayerNorm"), h)?;
        let layers = (0..shape.num_hidden_layers)
            .map(|i| Layer::load(vb.pp(format!("encoder.layer.{i}")), &shape))
            .collect::<candle_core::Result<Vec<_>>>()?;
        Ok(Self {
            words,
            positions,
            token_type,
            norm,
            layers,
            shape,
        })
    }

    /// Longest input the position table allows.
    pub fn max_positions(&self) -> usize {
        self.positions.dim(0).unwrap_or(0)
    }

    /// Last hidden states `[rows, len, hidden]` of `ids` (`[rows, len]`, u32) where `mask`
    /// (`[rows, len]`, u32, 1 = token, 0 = padding) marks the real tokens.
    pub fn forward(&self, ids: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let (rows, len) = ids.dims2()?;
        let s = &self.shape;
        let (h, heads) = (s.hidden_size, s.num_attention_heads);
        let head = h / heads;
        let eps = s.layer_norm_eps as f32;
        let device = ids.device();
        let words = self.words.index_select(&ids.flatten_all()?, 0)?;
        let x = words
            .reshape((rows, len, h))?
            .broadcast_add(&self.positions.narrow(0, 0, len)?)?
            .broadcast_add(&self.token_type)?;
        let mut x = self.norm.forward(&x, eps)?.reshape((rows * len, h))?;
        // Padding gets a large negative score before the softmax, as in BERT.
        let bias = ((mask.to_dtype(DType::F32)? - 1.0)? * 10_000.0)?.reshape((rows, 1, 1, len))?;
        let scale = 1.0 / (head as f64).sqrt();
        for layer in &self.layers {
            let qkv = layer
                .qkv
                .forward(&x)?
                .reshape((rows, len, 3, heads, head))?;
            let part = |i: usize| -> candle_core::Result<Tensor> {
                qkv.narrow(2, i, 1)?
                    .squeeze(2)?
                    .transpose(1, 2)?
                    .contiguous()
            };
            let (q, k, v) = (part(0)?, part(1)?, part(2)?);
            let scores = (q.matmul(&k.t()?)? * scale)?.broadcast_add(&bias)?;
            let probs = candle_nn::ops::softmax_last_dim(&scores)?;
            let context = probs
                .matmul(&v)?
                .transpose(1, 2)?
                .reshape((rows * len, h))?;
            let attended = layer.out.forward(&context)?;
            x = layer.norm1.forward(&(attended + &x)?, eps)?;
            let up = gelu(&layer.up.forward(&x)?, device)?;
            let down = layer.down.forward(&up)?;
            x = layer.norm2.forward(&(down + &x)?, eps)?;
        }
        x.reshape((rows, len, h))
    }
}

/// Exact GELU, x·Φ(x), on every core.
fn gelu(x: &Tensor, device: &Device) -> candle_core::Result<Tensor> {
    use rayon::prelude::*;
    let shape = x.shape().clone();
    let mut v = x.flatten_all()?.to_vec1::<f32>()?;
    v.par_chunks_mut(4096).for_each(|c| {
        for a in c {
            *a = 0.5 * *a * (1.0 + erf(*a * std::f32::consts::FRAC_1_SQRT_2));
        }
    });
    Tensor::from_vec(v, shape, device)
}

/// The error function, to within 1.2e-7 everywhere (W. J. Cody's rational approximations as
/// used by Numerical Recipes' `erfc`, evaluated in f64).
fn erf(x: f32) -> f32 {
    let z = f64::from(x).abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    let e = 1.0 - r;
    (if x >= 0.0 { e } else { -e }) as f32
}

/// Mean of the hidden states over the real tokens.
pub fn mean_pool(hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
    let counts = mask.sum(1)?;
    summed.broadcast_div(&counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-1.0, -0.842_700_8),
            (2.0, 0.995_322_3),
            (-3.5, -0.999_999_3),
        ] {
            assert!(
                (erf(x) - want).abs() < 2e-7,
                "erf({x}) = {} not {want}",
                erf(x)
            );
        }
    }
}
