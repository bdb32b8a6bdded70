//! Multi-head self-attention of one sequence, with micro-kernels of our own.
//!
//! Owns: the scores, softmax and weighted values of every head of one sequence, from the
//! biased projections (queries already scaled) to the context rows the output projection
//! reads. The products run six query rows at a time (scores of six rows stay in L1 while
//! they are made, normalised and used), as 6 × 16 f32 FMA tiles on AVX2 + FMA, one thread per
//! sequence. They used to be ndarray's, whose matrixmultiply is built with threads (a feature
//! another dependency switches on): each product of ours, already one per core, was split
//! again across both cores, and the two cores waited on each other (≈ 1.5 s of the 25 s the
//! benchmark file's embedding took). Must not: spawn or join threads (the caller runs one
//! sequence per core), or read rows past the sequence's real tokens.
//!
//! [`sequence`] runs the kernels when the CPU has AVX2 + FMA and [`reference`], plain loops
//! in the same order, otherwise; the tests hold one against the other.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::__m256;
#[cfg(target_arch = "x86_64")]
use pulp::x86::V3;

/// Query rows per tile.
const MR: usize = 6;
/// Key columns (or value columns) per tile: two registers of eight f32.
const NR: usize = 16;

/// Shape of one sequence's attention.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dims {
    /// Real tokens of the sequence (rows of `src` used, rows of `out` written).
    pub n: usize,
    /// Attention heads.
    pub heads: usize,
    /// Width of one head (hidden / heads).
    pub head: usize,
}

impl Dims {
    fn hidden(&self) -> usize {
        self.heads * self.head
    }

    /// Width of a row of `src`: queries, keys and values side by side.
    fn width(&self) -> usize {
        3 * self.hidden()
    }
}

/// Context rows `out` (`[n, hidden]`, row-major) of one sequence from its projections `src`
/// (`[n, 3·hidden]`: queries scaled by 1/√head, keys, values; biases added). `mask`, when
/// given, is added to every row of scores before the softmax (BERT's −10,000 for padding).
pub(crate) fn sequence(src: &[f32], mask: Option<&[f32]>, dims: Dims, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if dims.head.is_multiple_of(NR)
        && let Some(simd) = V3::try_new()
    {
        simd.vectorize(Tiled {
            simd,
            src,
            mask,
            dims,
            out,
        });
        return;
    }
    reference(src, mask, dims, out);
}

/// Plain loops for CPUs without AVX2 + FMA: the same sums as the kernels, one at a time.
pub(crate) fn reference(src: &[f32], mask: Option<&[f32]>, dims: Dims, out: &mut [f32]) {
    let Dims { n, heads, head } = dims;
    let (hidden, width) = (dims.hidden(), dims.width());
    let mut scores = vec![0f32; n];
    for h in 0..heads {
        let (q0, k0, v0) = (h * head, hidden + h * head, 2 * hidden + h * head);
        for i in 0..n {
            let q = src
                .get(i * width + q0..i * width + q0 + head)
                .unwrap_or_default();
            for (j, s) in scores.iter_mut().enumerate() {
                let k = src
                    .get(j * width + k0..j * width + k0 + head)
                    .unwrap_or_default();
                *s = q.iter().zip(k).map(|(a, b)| a * b).sum::<f32>()
                    + mask.and_then(|m| m.get(j)).copied().unwrap_or(0.0);
            }
            let inv = softmax_unnormalised(&mut scores);
            let row = out
                .get_mut(i * hidden + h * head..i * hidden + (h + 1) * head)
                .unwrap_or_default();
            for (c, o) in row.iter_mut().enumerate() {
                let sum: f32 = scores
                    .iter()
                    .enumerate()
                    .map(|(j, p)| p * src.get(j * width + v0 + c).copied().unwrap_or(0.0))
                    .sum();
                *o = sum * inv;
            }
        }
    }
}

/// e^(s − max) over `row` in place; returns 1 / their sum (the normalisation is applied to
/// the context row, `head` values, rather than to the `n` scores).
#[inline(always)]
fn softmax_unnormalised(row: &mut [f32]) -> f32 {
    let max = crate::max_of(row);
    for x in row.iter_mut() {
        *x = crate::exp(*x - max);
    }
    1.0 / crate::sum_of(row)
}

/// The AVX2 attention of one sequence (see [`sequence`]).
#[cfg(target_arch = "x86_64")]
struct Tiled<'a> {
    simd: V3,
    src: &'a [f32],
    mask: Option<&'a [f32]>,
    dims: Dims,
    out: &'a mut [f32],
}

#[cfg(target_arch = "x86_64")]
impl pulp::NullaryFnOnce for Tiled<'_> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        let Self {
            simd,
            src,
            mask,
            dims,
            out,
        } = self;
        let Dims { n, heads, head } = dims;
        let (hidden, width) = (dims.hidden(), dims.width());
        if n == 0 || head == 0 {
            return;
        }
        let blocks = n.div_ceil(NR);
        let padded = blocks * NR;
        let halves = head / NR;
        // Keys by column block, then head dimension: kt[b·head + d] = K[16b..16b+16][d].
        let mut kt = vec![[0f32; NR]; blocks * head];
        // Values by column half, then token: vs[c·n + j] = V[j][16c..16c+16].
        let mut vs = vec![[0f32; NR]; halves * n];
        // Six rows of scores, each `padded` long, and 1 / their softmax sums.
        let mut rows_of_scores = vec![0f32; MR * padded];
        let mut inv = [0f32; MR];
        for h in 0..heads {
            let (q0, k0, v0) = (h * head, hidden + h * head, 2 * hidden + h * head);
            for (j, row) in src.chunks_exact(width).take(n).enumerate() {
                let (b, lane) = (j / NR, j % NR);
                let keys = row.get(k0..k0 + head).unwrap_or_default();
                for (slot, &k) in kt.iter_mut().skip(b * head).zip(keys) {
                    if let Some(s) = slot.get_mut(lane) {
                        *s = k;
                    }
                }
                let values = row.get(v0..v0 + head).unwrap_or_default();
                for (c, chunk) in values.chunks_exact(NR).enumerate() {
                    if let (Some(slot), Ok(chunk)) =
                        (vs.get_mut(c * n + j), <&[f32; NR]>::try_from(chunk))
                    {
                        *slot = *chunk;
                    }
                }
            }
            for first in (0..n).step_by(MR) {
                let rows = MR.min(n - first);
                // Rows past the sequence repeat its last row; their results are dropped.
                let queries: [&[f32]; MR] = std::array::from_fn(|r| {
                    let i = first + r.min(rows - 1);
                    src.get(i * width + q0..i * width + q0 + head)
                        .unwrap_or_default()
                });
                for b in 0..blocks {
                    let keys = kt.get(b * head..(b + 1) * head).unwrap_or_default();
                    let tile: [[f32; NR]; MR] = pulp::cast(scores_tile(simd, queries, keys));
                    for (r, t) in tile.iter().enumerate() {
                        let start = r * padded + b * NR;
                        if let Some(dst) = rows_of_scores.get_mut(start..start + NR) {
                            dst.copy_from_slice(t);
                        }
                    }
                }
                // Softmax of each real row over the real tokens, left unnormalised.
                for (r, inv) in inv.iter_mut().enumerate().take(rows) {
                    let row = rows_of_scores
                        .get_mut(r * padded..r * padded + n)
                        .unwrap_or_default();
                    if let Some(mask) = mask {
                        for (s, m) in row.iter_mut().zip(mask) {
                            *s += m;
                        }
                    }
                    *inv = softmax_unnormalised(row);
                }
                let probabilities: [&[f32]; MR] = std::array::from_fn(|r| {
                    let start = r.min(rows - 1) * padded;
                    rows_of_scores.get(start..start + n).unwrap_or_default()
                });
                for c in 0..halves {
                    let values = vs.get(c * n..(c + 1) * n).unwrap_or_default();
                    let tile: [[f32; NR]; MR] =
                        pulp::cast(context_tile(simd, probabilities, values));
                    for (r, (t, inv)) in tile.iter().zip(inv).enumerate().take(rows) {
                        let start = (first + r) * hidden + h * head + c * NR;
                        if let Some(o) = out.get_mut(start..start + NR) {
                            for (o, t) in o.iter_mut().zip(t) {
                                *o = t * inv;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Scores of six query rows against sixteen keys (`keys[d]`): 6 × 16 sums over the head
/// dimension, in twelve registers.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn scores_tile(simd: V3, queries: [&[f32]; MR], keys: &[[f32; NR]]) -> [[__m256; 2]; MR] {
    tile(simd, queries, keys)
}

/// Six rows of probabilities times sixteen value columns (`values[j]`): 6 × 16 sums over the
/// tokens, in twelve registers.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn context_tile(simd: V3, probabilities: [&[f32]; MR], values: &[[f32; NR]]) -> [[__m256; 2]; MR] {
    tile(simd, probabilities, values)
}

/// Σ_t rows[r][t] · columns[t] for six rows, each step six broadcasts (one per row stream)
/// and twelve FMAs.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn tile(simd: V3, rows: [&[f32]; MR], columns: &[[f32; NR]]) -> [[__m256; 2]; MR] {
    let zero = simd.avx._mm256_setzero_ps();
    let mut acc = [[zero; 2]; MR];
    let [r0, r1, r2, r3, r4, r5] = rows;
    let steps = columns
        .iter()
        .zip(r0)
        .zip(r1)
        .zip(r2)
        .zip(r3)
        .zip(r4)
        .zip(r5);
    for ((((((c, &a0), &a1), &a2), &a3), &a4), &a5) in steps {
        let [c0, c1]: [__m256; 2] = pulp::cast(*c);
        for (acc, a) in acc.iter_mut().zip([a0, a1, a2, a3, a4, a5]) {
            let a = simd.avx._mm256_set1_ps(a);
            acc[0] = simd.fma._mm256_fmadd_ps(a, c0, acc[0]);
            acc[1] = simd.fma._mm256_fmadd_ps(a, c1, acc[1]);
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in [-2, 2): scores wide enough for a peaked softmax.
    fn values(count: usize, seed: u64) -> Vec<f32> {
        crate::test_values(count, seed)
            .into_iter()
            .map(|v| v * 4.0)
            .collect()
    }

    /// Softmax attention written the textbook way, in f64: the truth both paths are held to.
    fn textbook(src: &[f32], mask: Option<&[f32]>, dims: Dims) -> Vec<f32> {
        let Dims { n, heads, head } = dims;
        let (hidden, width) = (heads * head, 3 * heads * head);
        let mut out = vec![0f32; n * hidden];
        for h in 0..heads {
            for i in 0..n {
                let s: Vec<f64> = (0..n)
                    .map(|j| {
                        (0..head)
                            .map(|d| {
                                f64::from(src[i * width + h * head + d])
                                    * f64::from(src[j * width + hidden + h * head + d])
                            })
                            .sum::<f64>()
                            + mask.map_or(0.0, |m| f64::from(m[j]))
                    })
                    .collect();
                let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = s.iter().map(|x| (x - max).exp()).collect();
                let z: f64 = e.iter().sum();
                for c in 0..head {
                    let v: f64 = (0..n)
                        .map(|j| e[j] * f64::from(src[j * width + 2 * hidden + h * head + c]))
                        .sum();
                    out[i * hidden + h * head + c] = (v / z) as f32;
                }
            }
        }
        out
    }

    #[test]
    fn kernels_and_reference_match_the_textbook_on_ragged_lengths() {
        // Lengths that fill no tile evenly, one shorter than a tile, and the model's longest.
        for (n, seed) in [(1, 1), (5, 2), (17, 3), (50, 4), (233, 5), (256, 6)] {
            let dims = Dims {
                n,
                heads: 3,
                head: 32,
            };
            let src = values(n * dims.width(), seed);
            let want = textbook(&src, None, dims);
            let mut tiled = vec![f32::NAN; n * dims.hidden()];
            sequence(&src, None, dims, &mut tiled);
            let mut plain = vec![f32::NAN; n * dims.hidden()];
            reference(&src, None, dims, &mut plain);
            for (k, ((t, p), w)) in tiled.iter().zip(&plain).zip(&want).enumerate() {
                assert!((t - w).abs() < 1e-5, "n {n} [{k}]: tiled {t} vs {w}");
                assert!((p - w).abs() < 1e-5, "n {n} [{k}]: reference {p} vs {w}");
            }
        }
    }

    #[test]
    fn masked_tokens_get_no_weight() {
        let dims = Dims {
            n: 20,
            heads: 2,
            head: 32,
        };
        let src = values(dims.n * dims.width(), 9);
        let mut mask = vec![0f32; dims.n];
        mask[3] = -10_000.0;
        mask[17] = -10_000.0;
        let want = textbook(&src, Some(&mask), dims);
        let mut got = vec![0f32; dims.n * dims.hidden()];
        sequence(&src, Some(&mask), dims, &mut got);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-5, "{g} vs {w}");
        }
        // Changing a masked token's value changes nothing.
        let mut changed = src.clone();
        changed[3 * dims.width() + 2 * dims.hidden()] += 100.0;
        let mut again = vec![0f32; dims.n * dims.hidden()];
        sequence(&changed, Some(&mask), dims, &mut again);
        for (a, g) in again.iter().zip(&got) {
            assert!((a - g).abs() < 1e-5, "{a} vs {g}");
        }
    }
}
