//! The BERT encoder of all-MiniLM-L6-v2, written for CPU throughput.
//!
//! A crate of its own so that the development profile can optimise it (its GELU loop is our
//! code, and unoptimised it would cost more than the matrix products).
//!
//! Owns: the forward pass from token ids to the last hidden states, with the same weights and
//! arithmetic as the reference BERT, arranged for a 2-core CPU: the three attention
//! projections in one matrix product, candle-nn's fused layer norm, and our own passes for the
//! element-wise steps, each over all cores in branch-free f32 arithmetic that the compiler
//! vectorises: the attention softmax with its scaling and padding mask folded in, and the exact
//! (erf-based) GELU with the feed-forward bias folded in. candle's generic BERT spent a quarter
//! of its time in single-threaded element-wise steps (libm's erf and exp) and in allocating an
//! intermediate tensor for each of them. Must not: tokenize, pool or normalise (the
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
    /// The feed-forward expansion without its bias, which is added in the GELU pass.
    up: Linear,
    up_bias: Vec<f32>,
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
        let up = linear(vb.pp("intermediate").pp("dense"), h, s.intermediate_size)?;
        Ok(Self {
            qkv,
            out: linear(att.pp("output").pp("dense"), h, h)?,
            norm1: Norm::load(att.pp("output").pp("LayerNorm"), h)?,
            up: Linear::new(up.weight().clone(), None),
            up_bias: up
                .bias()
                .ok_or_else(|| candle_core::Error::Msg("intermediate bias".into()))?
                .to_vec1::<f32>()?,
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
        let bias: Vec<f32> = mask
            .flatten_all()?
            .to_vec1::<u32>()?
            .into_iter()
            .map(|m| if m == 0 { -10_000.0 } else { 0.0 })
            .collect();
        let scale = 1.0 / (head as f32).sqrt();
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
            let probs = attention_probs(&q.matmul(&k.t()?)?, &bias, scale, heads, len)?;
            let context = probs
                .matmul(&v)?
                .transpose(1, 2)?
                .reshape((rows * len, h))?;
            let attended = layer.out.forward(&context)?;
            x = layer.norm1.forward(&(attended + &x)?, eps)?;
            let up = gelu_with_bias(&layer.up.forward(&x)?, &layer.up_bias, device)?;
            let down = layer.down.forward(&up)?;
            x = layer.norm2.forward(&(down + &x)?, eps)?;
        }
        x.reshape((rows, len, h))
    }
}

/// GELU of `x + bias` (bias per column), x·Φ(x) with Φ from [`erf`], on every core.
fn gelu_with_bias(x: &Tensor, bias: &[f32], device: &Device) -> candle_core::Result<Tensor> {
    use rayon::prelude::*;
    let shape = x.shape().clone();
    let width = bias.len().max(1);
    let mut v = x.flatten_all()?.to_vec1::<f32>()?;
    v.par_chunks_mut(width).with_min_len(16).for_each(|row| {
        // One pass per step keeps each loop branch-free, so the compiler vectorises it.
        for (a, b) in row.iter_mut().zip(bias) {
            *a += b;
        }
        for a in row.iter_mut() {
            *a = 0.5 * *a * (1.0 + erf(*a * std::f32::consts::FRAC_1_SQRT_2));
        }
    });
    Tensor::from_vec(v, shape, device)
}

/// Softmax over the last dimension of raw attention scores `[rows, heads, len, len]`, after
/// scaling them and adding the padding bias of each row's sequence (`bias`: `[rows, len]`),
/// in one pass per row on every core.
fn attention_probs(
    raw: &Tensor,
    bias: &[f32],
    scale: f32,
    heads: usize,
    len: usize,
) -> candle_core::Result<Tensor> {
    use rayon::prelude::*;
    let shape = raw.shape().clone();
    let mut v = raw.flatten_all()?.to_vec1::<f32>()?;
    let per_sequence = heads * len;
    v.par_chunks_mut(len.max(1))
        .with_min_len(32)
        .enumerate()
        .for_each(|(i, row)| {
            let b = i / per_sequence.max(1);
            let mask = bias.get(b * len..(b + 1) * len).unwrap_or_default();
            for (x, m) in row.iter_mut().zip(mask) {
                *x = *x * scale + m;
            }
            let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            for x in row.iter_mut() {
                *x = exp(*x - max);
            }
            let sum: f32 = row.iter().sum();
            let inv = 1.0 / sum;
            for x in row.iter_mut() {
                *x *= inv;
            }
        });
    Tensor::from_vec(v, shape, raw.device())
}

/// e^x in f32 without branches or library calls (so loops over it vectorise): x = n·ln 2 + r
/// with |r| ≤ ln 2 / 2, e^r by its degree-6 Taylor polynomial (relative error < 1.3e-7), 2^n
/// built in the exponent bits. Inputs are clamped to the normal range of f32.
fn exp(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // Adding and subtracting 1.5·2^23 rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * std::f32::consts::LOG2_E + ROUND) - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    p * f32::from_bits(((n as i32 + 127) as u32) << 23)
}

/// The error function to within 1.5e-7 (Abramowitz and Stegun 7.1.26), in f32 and without
/// branches, so that the GELU loop vectorises.
fn erf(x: f32) -> f32 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_8 + t * (-1.453_152 + t * 1.061_405_4))));
    (1.0 - poly * exp(-z * z)).copysign(x)
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
    fn exp_matches_the_library_exp() {
        let mut x = -30.0f32;
        while x < 30.0 {
            let (got, want) = (exp(x), x.exp());
            assert!(
                ((got - want) / want).abs() < 3e-7,
                "exp({x}) = {got} not {want}"
            );
            x += 0.013;
        }
        assert_eq!(exp(-1000.0), exp(-87.0));
    }

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
                (erf(x) - want).abs() < 3e-7,
                "erf({x}) = {} not {want}",
                erf(x)
            );
        }
    }
}
