//! The BERT encoder of all-MiniLM-L6-v2, written for CPU throughput.
//!
//! A crate of its own so that the development profile can optimise it (its GELU loop is our
//! code, and unoptimised it would cost more than the matrix products).
//!
//! Owns: the forward pass from token ids to the last hidden states, with the same weights and
//! arithmetic as the reference BERT, arranged for a 2-core CPU. The dense layers are 16-bit
//! integer products on AVX2 ([`Arithmetic::Integer`], module `quant`, the default) or
//! candle's f32 matrix products (gemm, both cores; the reference, and the fallback on CPUs
//! without AVX2), with no bias in either. Every element-wise step is ours and follows a
//! product: the query/key/value biases with the query scaling, the feed-forward bias with the
//! exact (erf-based) GELU, and bias + residual + layer norm. In integer arithmetic each task
//! of a product runs them on its own rows and quantises the result for the next product while
//! the rows are in its cache, on buffers reused from layer to layer and batch to batch
//! ([`Encoder::forward_integer`]); in f32 they are in-place passes over candle tensors. The
//! attention runs one sequence per core with f32 tiles of our own (module `attention`; six
//! query rows at a time, padding skipped). The passes are compiled for AVX2 + FMA when the
//! CPU has them (pulp's runtime dispatch; the default x86-64 target assumes only SSE2) and
//! are written as branch-free loops that vectorise. Must not: tokenize, pool or normalise
//! (the embedder does), or load anything but the safetensors weights it is given.
//!
//! Also here, because the development profile optimises this crate and not the core package:
//! [`scan`], the exact nearest-neighbour scan the chunk index runs over vectors held in memory.

use candle_core::{CpuStorage, CustomOp1, DType, InplaceOp1, InplaceOp2, Layout, Tensor};
use candle_nn::VarBuilder;

mod attention;
#[cfg(target_arch = "x86_64")]
mod quant;
pub mod scan;

/// How the dense layers multiply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arithmetic {
    /// f32 products (candle's gemm): the reference arithmetic.
    Float,
    /// Weights and activations quantised to 16-bit integers with ≥ 11 significant bits,
    /// products accumulated exactly in i32 (AVX2 `vpmaddwd`): ≈ 1.4× the f32 products on the
    /// test machine, embeddings within cosine 0.9999 of [`Arithmetic::Float`]. Where the CPU
    /// has no AVX2 the encoder falls back to `Float` (see [`Encoder::arithmetic`]).
    Integer,
}

impl Arithmetic {
    /// The name benchmarks print: `float` or `integer`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Float => "float",
            Self::Integer => "integer",
        }
    }
}

/// A dense layer's weights (no bias) in the arithmetic chosen at load.
enum Dense {
    /// Transposed (`[in, out]`) for candle's matrix product.
    Float(Tensor),
    #[cfg(target_arch = "x86_64")]
    Integer(quant::QuantDense),
}

impl Dense {
    /// From a checkpoint weight (`[out, in]`).
    fn new(weight: Tensor, arithmetic: Arithmetic) -> candle_core::Result<Self> {
        #[cfg(target_arch = "x86_64")]
        if arithmetic == Arithmetic::Integer {
            let (out, inp) = weight.dims2()?;
            let values = weight.flatten_all()?.to_vec1::<f32>()?;
            if let Some(q) = quant::QuantDense::new(&values, out, inp) {
                return Ok(Self::Integer(q));
            }
        }
        let _ = arithmetic;
        Ok(Self::Float(weight.t()?))
    }

    /// The f32 product (integer layers run in [`Encoder::forward_integer`] instead).
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Self::Float(w) => x.matmul(w),
            #[cfg(target_arch = "x86_64")]
            Self::Integer(_) => Err(candle_core::Error::Msg(
                "an integer layer in the f32 forward pass".to_owned(),
            )),
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn integer(&self) -> Option<&quant::QuantDense> {
        match self {
            Self::Integer(q) => Some(q),
            Self::Float(_) => None,
        }
    }

    fn arithmetic(&self) -> Arithmetic {
        match self {
            Self::Float(_) => Arithmetic::Float,
            #[cfg(target_arch = "x86_64")]
            Self::Integer(_) => Arithmetic::Integer,
        }
    }
}

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

/// The learned scale and shift of a layer norm.
struct Affine {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

impl Affine {
    fn load(vb: VarBuilder, size: usize) -> candle_core::Result<Self> {
        Ok(Self {
            gamma: vb.get(size, "weight")?.to_vec1()?,
            beta: vb.get(size, "bias")?.to_vec1()?,
        })
    }
}

/// One transformer layer. Every bias is added by the pass that follows its product rather
/// than by a pass of its own.
struct Layer {
    /// Query, key and value projections side by side (`3·hidden` outputs).
    qkv: Dense,
    qkv_bias: Vec<f32>,
    out: Dense,
    out_bias: Vec<f32>,
    norm1: Affine,
    up: Dense,
    up_bias: Vec<f32>,
    down: Dense,
    down_bias: Vec<f32>,
    norm2: Affine,
}

/// Weight (`[out, in]`, as stored) and bias of a dense layer.
fn dense(vb: VarBuilder, inp: usize, out: usize) -> candle_core::Result<(Tensor, Vec<f32>)> {
    Ok((
        vb.get((out, inp), "weight")?,
        vb.get(out, "bias")?.to_vec1()?,
    ))
}

impl Layer {
    fn load(vb: VarBuilder, s: &Shape, arithmetic: Arithmetic) -> candle_core::Result<Self> {
        let h = s.hidden_size;
        let att = vb.pp("attention");
        let sa = att.pp("self");
        let (q, qb) = dense(sa.pp("query"), h, h)?;
        let (k, kb) = dense(sa.pp("key"), h, h)?;
        let (v, vb_) = dense(sa.pp("value"), h, h)?;
        let (out, out_bias) = dense(att.pp("output").pp("dense"), h, h)?;
        let (up, up_bias) = dense(vb.pp("intermediate").pp("dense"), h, s.intermediate_size)?;
        let (down, down_bias) = dense(vb.pp("output").pp("dense"), s.intermediate_size, h)?;
        Ok(Self {
            qkv: Dense::new(Tensor::cat(&[q, k, v], 0)?, arithmetic)?,
            qkv_bias: [qb, kb, vb_].concat(),
            out: Dense::new(out, arithmetic)?,
            out_bias,
            norm1: Affine::load(att.pp("output").pp("LayerNorm"), h)?,
            up: Dense::new(up, arithmetic)?,
            up_bias,
            down: Dense::new(down, arithmetic)?,
            down_bias,
            norm2: Affine::load(vb.pp("output").pp("LayerNorm"), h)?,
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
    /// Buffers of [`Encoder::forward_integer`] between calls, one per concurrent call.
    #[cfg(target_arch = "x86_64")]
    workspaces: std::sync::Mutex<Vec<Workspace>>,
}

/// The buffers of one integer forward pass, kept so that the next pass reuses their memory
/// (fresh pages would be zeroed by the kernel and faulted in, batch after batch).
#[cfg(target_arch = "x86_64")]
#[derive(Default)]
struct Workspace {
    qkv: Vec<f32>,
    context: Vec<f32>,
    product: Vec<f32>,
    up: Vec<f32>,
    ax: quant::Acts,
    a_context: quant::Acts,
    a_up: quant::Acts,
}

impl Encoder {
    /// Loads the weights (names as in the Hugging Face BERT checkpoint, with or without the
    /// `bert.` prefix) for the default arithmetic, [`Arithmetic::Integer`].
    pub fn load(vb: VarBuilder, shape: Shape) -> candle_core::Result<Self> {
        Self::load_with(vb, shape, Arithmetic::Integer)
    }

    /// Loads the weights for the given arithmetic (falling back to [`Arithmetic::Float`] where
    /// the CPU cannot do it).
    pub fn load_with(
        vb: VarBuilder,
        shape: Shape,
        arithmetic: Arithmetic,
    ) -> candle_core::Result<Self> {
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
            .map(|i| Layer::load(vb.pp(format!("encoder.layer.{i}")), &shape, arithmetic))
            .collect::<candle_core::Result<Vec<_>>>()?;
        Ok(Self {
            words,
            positions,
            token_type,
            norm,
            layers,
            shape,
            #[cfg(target_arch = "x86_64")]
            workspaces: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// The arithmetic the dense layers actually use.
    pub fn arithmetic(&self) -> Arithmetic {
        self.layers
            .first()
            .map_or(Arithmetic::Float, |l| l.qkv.arithmetic())
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
        let eps = s.layer_norm_eps as f32;
        let words = self.words.index_select(&ids.flatten_all()?, 0)?;
        let x = words
            .reshape((rows, len, h))?
            .broadcast_add(&self.positions.narrow(0, 0, len)?)?
            .broadcast_add(&self.token_type)?;
        let mut x = self.norm.forward(&x, eps)?.reshape((rows * len, h))?;
        // Padding gets a large negative score before the softmax, as in BERT.
        let padding: Vec<f32> = mask
            .flatten_all()?
            .to_vec1::<u32>()?
            .into_iter()
            .map(|m| if m == 0 { -10_000.0 } else { 0.0 })
            .collect();
        // Tokens after a sequence's last real one are padding: attention skips them.
        let lengths: Vec<usize> = padding
            .chunks(len.max(1))
            .map(|m| m.iter().rposition(|&b| b == 0.0).map_or(0, |i| i + 1))
            .collect();
        #[cfg(target_arch = "x86_64")]
        if self.arithmetic() == Arithmetic::Integer {
            let x = x.flatten_all()?.to_vec1::<f32>()?;
            let x = self.forward_integer(x, &padding, &lengths)?;
            return Tensor::from_vec(x, (rows, len, h), ids.device());
        }
        for layer in &self.layers {
            let qkv = layer.qkv.forward(&x)?;
            qkv.inplace_op1(&QkvBias {
                bias: &layer.qkv_bias,
                heads,
            })?;
            let context = qkv.apply_op1_no_bwd(&Attention {
                padding: &padding,
                lengths: &lengths,
                len,
                heads,
            })?;
            let attended = layer.out.forward(&context)?;
            attended.inplace_op2(
                &x,
                &ResidualNorm {
                    bias: &layer.out_bias,
                    norm: &layer.norm1,
                    eps,
                },
            )?;
            x = attended;
            let up = layer.up.forward(&x)?;
            up.inplace_op1(&Gelu {
                bias: &layer.up_bias,
            })?;
            let down = layer.down.forward(&up)?;
            down.inplace_op2(
                &x,
                &ResidualNorm {
                    bias: &layer.down_bias,
                    norm: &layer.norm2,
                    eps,
                },
            )?;
            x = down;
        }
        x.reshape((rows, len, h))
    }

    /// The transformer layers in integer arithmetic, on buffers of ours rather than candle
    /// tensors: each product's task finishes its rows with the pass that follows (biases,
    /// GELU, residual and layer norm) and quantises them for the next product while they are
    /// in its cache, and the buffers serve every layer, so nothing is allocated, zeroed or
    /// read again between products. `x` is the embeddings' output, `[rows·len, hidden]`; so is
    /// the result.
    #[cfg(target_arch = "x86_64")]
    fn forward_integer(
        &self,
        mut x: Vec<f32>,
        padding: &[f32],
        lengths: &[usize],
    ) -> candle_core::Result<Vec<f32>> {
        use quant::TASK_ROWS;
        use rayon::prelude::*;
        let s = &self.shape;
        let (h, heads, eps) = (
            s.hidden_size,
            s.num_attention_heads,
            s.layer_norm_eps as f32,
        );
        let m = x.len() / h.max(1);
        let scale = query_scale(h, heads);
        let mismatch = || candle_core::Error::Msg("integer forward: not an integer layer".into());
        let mut workspace = self
            .workspaces
            .lock()
            .ok()
            .and_then(|mut pool| pool.pop())
            .unwrap_or_default();
        let Workspace {
            qkv,
            context,
            product,
            up,
            ax,
            a_context,
            a_up,
        } = &mut workspace;
        // Every element is overwritten before it is read: resizing only zeroes growth.
        qkv.resize(m * 3 * h, 0.0);
        context.resize(m * h, 0.0);
        product.resize(m * h, 0.0);
        up.resize(m * s.intermediate_size, 0.0);
        let first = self
            .layers
            .first()
            .and_then(|l| l.qkv.integer())
            .ok_or_else(mismatch)?;
        first.quantise(ax, &x);
        for (i, layer) in self.layers.iter().enumerate() {
            let (Some(wqkv), Some(wout), Some(wup), Some(wdown)) = (
                layer.qkv.integer(),
                layer.out.integer(),
                layer.up.integer(),
                layer.down.integer(),
            ) else {
                return Err(mismatch());
            };
            let next = self.layers.get(i + 1).and_then(|l| l.qkv.integer());
            let bias = &layer.qkv_bias;
            wqkv.product(
                ax,
                qkv,
                rayon::iter::repeat_n((), usize::MAX),
                |rows, ()| {
                    rows_here(rows, 3 * h, |row| qkv_bias_row(row, bias, h, scale));
                },
            );
            attend(qkv, padding, lengths, heads, context);
            wout.quantise(a_context, context);
            // x ← LayerNorm(product + bias + x), quantised for the feed-forward layer.
            wup.shape(ax, m);
            let (out_bias, norm1) = (&layer.out_bias, &layer.norm1);
            wout.product(
                a_context,
                product,
                x.par_chunks_mut(h * TASK_ROWS).zip(wup.tasks(ax)),
                |rows, (x, task)| {
                    rows_and_residual(rows, x, h, |row, res| {
                        let (mean, inv) = residual_moments(row, res, out_bias, eps);
                        affine_into(row, res, mean, inv, norm1);
                    });
                    wup.quantise_task(task, x);
                },
            );
            // GELU(x·W + bias), quantised for the second feed-forward product.
            wdown.shape(a_up, m);
            let up_bias = &layer.up_bias;
            wup.product(ax, up, wdown.tasks(a_up), |rows, task| {
                rows_here(rows, s.intermediate_size, |row| gelu_row(row, up_bias));
                wdown.quantise_task(task, rows);
            });
            // x ← LayerNorm(product + bias + x), quantised for the next layer if any.
            let down_bias = &layer.down_bias;
            let norm = &layer.norm2;
            let finish = |rows: &mut [f32], x: &mut [f32]| {
                rows_and_residual(rows, x, h, |row, res| {
                    let (mean, inv) = residual_moments(row, res, down_bias, eps);
                    affine_into(row, res, mean, inv, norm);
                });
            };
            match next {
                Some(next) => {
                    next.shape(ax, m);
                    wdown.product(
                        a_up,
                        product,
                        x.par_chunks_mut(h * TASK_ROWS).zip(next.tasks(ax)),
                        |rows, (x, task)| {
                            finish(rows, x);
                            next.quantise_task(task, x);
                        },
                    );
                }
                None => wdown.product(a_up, product, x.par_chunks_mut(h * TASK_ROWS), finish),
            }
        }
        if let Ok(mut pool) = self.workspaces.lock() {
            pool.push(workspace);
        }
        Ok(x)
    }
}

/// Applies `f` to every `width`-long row of `rows` on this thread, compiled by [`simd`].
#[inline(always)]
fn rows_here(rows: &mut [f32], width: usize, f: impl Fn(&mut [f32])) {
    simd(
        #[inline(always)]
        || {
            for row in rows.chunks_mut(width.max(1)) {
                f(row);
            }
        },
    )
}

/// Applies `f` to every `width`-long row of `rows` with the same row of `residual`, on this
/// thread, compiled by [`simd`].
#[inline(always)]
fn rows_and_residual(
    rows: &mut [f32],
    residual: &mut [f32],
    width: usize,
    f: impl Fn(&mut [f32], &mut [f32]),
) {
    simd(
        #[inline(always)]
        || {
            let width = width.max(1);
            for (row, res) in rows.chunks_mut(width).zip(residual.chunks_mut(width)) {
                f(row, res);
            }
        },
    )
}

/// Rows handed to one task of the element-wise passes: enough work to amortise the task.
const ROWS_PER_TASK: usize = 16;

/// Runs `f` compiled for the best instruction set this CPU has (AVX2 + FMA on x86-64; the
/// default target only assumes SSE2), so that the plain loops inside it are vectorised eight
/// lanes wide. `f` and what it calls must be `#[inline(always)]` to be compiled that way.
#[inline(always)]
fn simd<R>(f: impl FnOnce() -> R) -> R {
    pulp::Arch::new().dispatch(f)
}

/// Applies `f` to every `width`-long row of `values`, on every core, compiled by [`simd`]
/// (`f` must be an `#[inline(always)]` closure to be vectorised with it).
fn rows_in_place(values: &mut [f32], width: usize, f: impl Fn(&mut [f32]) + Sync) {
    use rayon::prelude::*;
    let width = width.max(1);
    values
        .par_chunks_mut(width * ROWS_PER_TASK)
        .for_each(|block| {
            simd(
                #[inline(always)]
                || {
                    for row in block.chunks_mut(width) {
                        f(row);
                    }
                },
            )
        });
}

/// The contiguous f32 data of a tensor's storage.
fn data<'a>(storage: &'a CpuStorage, layout: &Layout, op: &str) -> candle_core::Result<&'a [f32]> {
    match (storage, layout.contiguous_offsets()) {
        (CpuStorage::F32(v), Some((a, b))) => v
            .get(a..b)
            .ok_or_else(|| candle_core::Error::Msg(format!("{op}: storage shorter than layout"))),
        _ => Err(candle_core::Error::Msg(format!(
            "{op}: needs a contiguous f32 tensor"
        ))),
    }
}

/// The contiguous f32 data of a tensor's storage, to be overwritten in place.
fn data_mut<'a>(
    storage: &'a mut CpuStorage,
    layout: &Layout,
    op: &str,
) -> candle_core::Result<&'a mut [f32]> {
    match (storage, layout.contiguous_offsets()) {
        (CpuStorage::F32(v), Some((a, b))) => v
            .get_mut(a..b)
            .ok_or_else(|| candle_core::Error::Msg(format!("{op}: storage shorter than layout"))),
        _ => Err(candle_core::Error::Msg(format!(
            "{op}: needs a contiguous f32 tensor"
        ))),
    }
}

/// Adds the query, key and value biases to the projections `[rows·len, 3·hidden]` and scales
/// the queries by 1/√head, in place (so the attention scores need no scaling).
struct QkvBias<'a> {
    bias: &'a [f32],
    heads: usize,
}

impl InplaceOp1 for QkvBias<'_> {
    fn name(&self) -> &'static str {
        "qkv-bias"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> candle_core::Result<()> {
        let values = data_mut(storage, layout, self.name())?;
        let width = self.bias.len().max(1);
        let hidden = width / 3;
        let scale = query_scale(hidden, self.heads);
        rows_in_place(
            values,
            width,
            #[inline(always)]
            |row| qkv_bias_row(row, self.bias, hidden, scale),
        );
        Ok(())
    }
}

/// 1/√head, the scale of the queries.
fn query_scale(hidden: usize, heads: usize) -> f32 {
    1.0 / ((hidden / heads.max(1)).max(1) as f32).sqrt()
}

/// One row of projections: biases added, queries (the first `hidden`) scaled.
#[inline(always)]
fn qkv_bias_row(row: &mut [f32], bias: &[f32], hidden: usize, scale: f32) {
    for (x, b) in row.iter_mut().zip(bias) {
        *x += b;
    }
    for x in row.iter_mut().take(hidden) {
        *x *= scale;
    }
}

/// Multi-head self-attention from the biased projections `[rows·len, 3·hidden]` (queries
/// scaled) to the context `[rows·len, hidden]`, token-major as the next matrix product wants
/// it: one sequence per core ([`attention::sequence`]), its padding after the last real token
/// (`lengths`) skipped, its context rows there left zero. The padding bias (`padding`,
/// `[rows, len]`) is applied only to a sequence with padding among its real tokens.
struct Attention<'a> {
    padding: &'a [f32],
    lengths: &'a [usize],
    len: usize,
    heads: usize,
}

impl CustomOp1 for Attention<'_> {
    fn name(&self) -> &'static str {
        "attention"
    }

    fn cpu_fwd(
        &self,
        storage: &CpuStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, candle_core::Shape)> {
        let name = self.name();
        let src = data(storage, layout, name)?;
        let (len, heads, rows) = (self.len.max(1), self.heads.max(1), self.lengths.len());
        let width = src.len() / (rows * len).max(1);
        let hidden = width / 3;
        let head = hidden / heads;
        if src.len() != rows * len * width
            || head * heads * 3 != width
            || head == 0
            || self.padding.len() != rows * len
        {
            return Err(candle_core::Error::Msg(format!("{name}: shape mismatch")));
        }
        let mut out = vec![0f32; rows * len * hidden];
        attend(src, self.padding, self.lengths, heads, &mut out);
        Ok((
            CpuStorage::F32(out),
            candle_core::Shape::from((rows * len, hidden)),
        ))
    }
}

/// The context `out` (`[rows·len, hidden]`) of the projections `src` (`[rows·len,
/// 3·hidden]`), one sequence per core; rows after a sequence's last real token are zero.
fn attend(src: &[f32], padding: &[f32], lengths: &[usize], heads: usize, out: &mut [f32]) {
    use rayon::prelude::*;
    let rows = lengths.len().max(1);
    let len = padding.len() / rows;
    let hidden = out.len() / (rows * len).max(1);
    let head = hidden / heads.max(1);
    out.par_chunks_mut(len * hidden)
        .zip(src.par_chunks(len * 3 * hidden))
        .zip(lengths.par_iter().zip(padding.par_chunks(len)))
        .for_each(|((out, src), (&n, mask))| {
            let mask = mask.get(..n).unwrap_or_default();
            let mask = mask.iter().any(|&m| m != 0.0).then_some(mask);
            attention::sequence(src, mask, attention::Dims { n, heads, head }, out);
            for x in out.iter_mut().skip(n * hidden) {
                *x = 0.0;
            }
        });
}

/// GELU of `x + bias` (bias per column), x·Φ(x) with Φ from [`erf`], in place.
struct Gelu<'a> {
    bias: &'a [f32],
}

impl InplaceOp1 for Gelu<'_> {
    fn name(&self) -> &'static str {
        "bias-gelu"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> candle_core::Result<()> {
        let values = data_mut(storage, layout, self.name())?;
        let width = self.bias.len().max(1);
        rows_in_place(
            values,
            width,
            #[inline(always)]
            |row| gelu_row(row, self.bias),
        );
        Ok(())
    }
}

/// GELU of `x + bias` over one row, in place.
#[inline(always)]
fn gelu_row(row: &mut [f32], bias: &[f32]) {
    for (a, b) in row.iter_mut().zip(bias) {
        let x = *a + b;
        *a = 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// `LayerNorm(x + bias + residual)` per row, written over `x` (the output of a dense layer's
/// matrix product; `residual`, the layer's input, is the second operand).
struct ResidualNorm<'a> {
    bias: &'a [f32],
    norm: &'a Affine,
    eps: f32,
}

impl InplaceOp2 for ResidualNorm<'_> {
    fn name(&self) -> &'static str {
        "residual-norm"
    }

    fn cpu_fwd(
        &self,
        s1: &mut CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> candle_core::Result<()> {
        use rayon::prelude::*;
        let name = self.name();
        let residual = data(s2, l2, name)?;
        let values = data_mut(s1, l1, name)?;
        let width = self.bias.len().max(1);
        if values.len() != residual.len()
            || self.norm.gamma.len() != width
            || self.norm.beta.len() != width
        {
            return Err(candle_core::Error::Msg(format!("{name}: shape mismatch")));
        }
        values
            .par_chunks_mut(width * ROWS_PER_TASK)
            .zip(residual.par_chunks(width * ROWS_PER_TASK))
            .for_each(|(block, res)| {
                simd(
                    #[inline(always)]
                    || {
                        for (row, res) in block.chunks_mut(width).zip(res.chunks(width)) {
                            residual_norm_row(row, res, self.bias, self.norm, self.eps);
                        }
                    },
                )
            });
        Ok(())
    }
}

/// `LayerNorm(row + bias + residual)`, written over `row`.
#[inline(always)]
fn residual_norm_row(row: &mut [f32], residual: &[f32], bias: &[f32], norm: &Affine, eps: f32) {
    let (mean, inv) = residual_moments(row, residual, bias, eps);
    for ((x, g), b) in row.iter_mut().zip(&norm.gamma).zip(&norm.beta) {
        *x = (*x - mean) * inv * g + b;
    }
}

/// Adds `bias` and `residual` to `row` and returns the mean and 1/σ of the sum (variance
/// from the centred values, as the reference does).
#[inline(always)]
fn residual_moments(row: &mut [f32], residual: &[f32], bias: &[f32], eps: f32) -> (f32, f32) {
    let n = row.len().max(1) as f32;
    for ((x, b), r) in row.iter_mut().zip(bias).zip(residual) {
        *x += b + r;
    }
    let mean = sum_of(row) / n;
    let var = sum_of_centred_squares(row, mean) / n;
    (mean, 1.0 / (var + eps).sqrt())
}

/// The layer norm of `row` (with its [`residual_moments`]) written to `out`.
#[inline(always)]
fn affine_into(row: &[f32], out: &mut [f32], mean: f32, inv: f32, norm: &Affine) {
    for (((o, x), g), b) in out.iter_mut().zip(row).zip(&norm.gamma).zip(&norm.beta) {
        *o = (x - mean) * inv * g + b;
    }
}

/// Lanes of the reductions below: eight partial results, so that they vectorise without
/// reordering a single chain of floating-point operations.
const LANES: usize = 8;

#[inline(always)]
pub(crate) fn max_of(v: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; LANES];
    let chunks = v.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a = if x > *a { x } else { *a };
        }
    }
    acc.iter()
        .chain(rest)
        .fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m })
}

#[inline(always)]
pub(crate) fn sum_of(v: &[f32]) -> f32 {
    let mut acc = [0f32; LANES];
    let chunks = v.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a += x;
        }
    }
    acc.iter().chain(rest).sum()
}

#[inline(always)]
fn sum_of_centred_squares(v: &[f32], mean: f32) -> f32 {
    let mut acc = [0f32; LANES];
    let chunks = v.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a += (x - mean) * (x - mean);
        }
    }
    acc.iter().sum::<f32>() + rest.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>()
}

/// Adding 1.5·2^23 to a float of magnitude below 2^22 rounds it to the nearest integer, which
/// then sits in the low bits of the sum (every float in [2^23, 2^24) is one unit apart): a
/// float-to-int conversion without the conversion (used by [`exp`] for 2^n and by the
/// quantisation of activations).
pub(crate) const ROUND: f32 = 12_582_912.0;

/// e^x in f32 without branches or library calls (so loops over it vectorise): x = n·ln 2 + r
/// with |r| ≤ ln 2 / 2, e^r by its degree-6 Taylor polynomial (relative error < 1.3e-7), 2^n
/// built in the exponent bits. Inputs are clamped to the normal range of f32.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    let x = x.clamp(-87.0, 88.0);
    let shifted = x * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    let exponent = shifted
        .to_bits()
        .wrapping_sub(ROUND.to_bits())
        .wrapping_add(127);
    p * f32::from_bits(exponent << 23)
}

/// The error function to within 1.5e-7 (Abramowitz and Stegun 7.1.26), in f32 and without
/// branches, so that the GELU loop vectorises.
#[inline(always)]
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

/// Deterministic values in [-0.5, 0.5) for the unit tests.
#[cfg(test)]
pub(crate) fn test_values(count: usize, seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect()
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
    fn lane_reductions_match_plain_folds() {
        for n in [0usize, 1, 7, 8, 9, 230, 384] {
            let v: Vec<f32> = (0..n)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.1)
                .collect();
            let max = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(max_of(&v), max, "max of {n}");
            let sum: f32 = v.iter().sum();
            assert!((sum_of(&v) - sum).abs() < 1e-3, "sum of {n}");
            let mean = sum / n.max(1) as f32;
            let squares: f32 = v.iter().map(|x| (x - mean) * (x - mean)).sum();
            assert!(
                (sum_of_centred_squares(&v, mean) - squares).abs() < 1e-2,
                "squares of {n}"
            );
        }
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
