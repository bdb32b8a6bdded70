//! Integer matrix products for the dense layers, on AVX2.
//!
//! Owns: a dense layer's weights quantised once, at load, to 16-bit integers with one scale
//! per output column; the activations quantised per row ([`Acts`], row-major, so that the
//! quantisation is a contiguous pass); and their product accumulated exactly in i32 with
//! `vpmaddwd` (sixteen multiply-adds per instruction, against eight for an f32 FMA), then
//! scaled back to f32, task by task, each task handing its finished rows to the caller's
//! epilogue ([`QuantDense::product`]). On the 2-core test machine the products run
//! at ≈ 200–230 GFLOP/s-equivalent against 130–175 for gemm's f32 on the same shapes.
//!
//! Both sides get ⌊√(2³¹⁻¹ / k)⌋ levels (2,364 for k = 384, 1,182 for k = 1,536), so no sum
//! can overflow i32 whatever the input, and each value keeps 11–12 bits: far finer than int8,
//! which is why no calibration data is needed and the embeddings stay within cosine 0.9999 of
//! f32 (measured by the integration tests on real text). Must not: run without AVX2 + FMA
//! (`QuantDense::new` returns `None` there and the encoder keeps f32 weights) or add biases
//! (the caller's epilogue does).

use crate::ROUND;
use core::arch::x86_64::{__m256, __m256i};
use pulp::x86::V3;
use rayon::prelude::*;

/// Rows of the activations per micro-kernel call.
const MR: usize = 6;
/// Output columns per micro-kernel call (two registers of eight i32).
const NR: usize = 16;
/// Row panels handed to one task: the task's activations (≤ 150 KB) stay in L2 while every
/// weight panel streams past them.
const PANELS_PER_TASK: usize = 8;
/// Rows of the activations handed to one task of a product (and of its epilogue).
pub(crate) const TASK_ROWS: usize = MR * PANELS_PER_TASK;

/// Activations quantised for a product ([`QuantDense::quantise`]), kept between products so
/// that their memory is reused.
#[derive(Default)]
pub(crate) struct Acts {
    /// By panel of [`MR`] rows, pair by pair (`[panel][kp][row]`, each i32 two i16 as
    /// `vpmaddwd` pairs them): a step of the kernel reads its six broadcasts from 24 bytes.
    panels: Vec<[i32; MR]>,
    /// Scale of each row (activation = integer × scale).
    scales: Vec<f32>,
}

/// The part of [`Acts`] one task's rows quantise into.
pub(crate) struct ActsTask<'a> {
    panels: &'a mut [[i32; MR]],
    scales: &'a mut [f32],
}

/// A dense layer's weights, quantised and packed for [`QuantDense::forward`].
pub(crate) struct QuantDense {
    simd: V3,
    /// Input width.
    k: usize,
    /// Output width.
    n: usize,
    /// Per panel of [`NR`] output columns and per pair of input rows p, lane c holds
    /// (w[2p][c], w[2p+1][c]) as the two halves of an i32, as `vpmaddwd` pairs them.
    panels: Vec<[i16; 2 * NR]>,
    /// Per panel, the scale of each output column (weight = integer × scale).
    scales: Vec<[f32; NR]>,
    /// Levels of an activation (its row's largest magnitude maps to this).
    levels: f32,
}

impl QuantDense {
    /// Quantises `weight` (`[n, k]` row-major: output × input, as checkpoints store it), or
    /// `None` when this CPU has no AVX2 + FMA or the shape is empty or inconsistent.
    pub(crate) fn new(weight: &[f32], n: usize, k: usize) -> Option<Self> {
        let simd = V3::try_new()?;
        if n == 0 || k == 0 || weight.len() != n * k {
            return None;
        }
        let levels = ((f64::from(i32::MAX) / k as f64).sqrt().floor()).min(32_767.0) as f32;
        if levels < 1.0 {
            return None;
        }
        let kp = k.div_ceil(2);
        let panel_count = n.div_ceil(NR);
        let mut panels = vec![[0i16; 2 * NR]; panel_count * kp];
        let mut scales = vec![[1f32; NR]; panel_count];
        for (j, column) in weight.chunks_exact(k).enumerate() {
            let (panel, lane) = (j / NR, j % NR);
            let max = column.iter().fold(0f32, |m, w| m.max(w.abs()));
            let scale = if max > 0.0 { max / levels } else { 1.0 };
            if let Some(s) = scales.get_mut(panel).and_then(|s| s.get_mut(lane)) {
                *s = scale;
            }
            let packed = panels
                .get_mut(panel * kp..(panel + 1) * kp)
                .unwrap_or_default();
            for (pair, ws) in packed.iter_mut().zip(column.chunks(2)) {
                for (half, w) in ws.iter().enumerate() {
                    if let Some(slot) = pair.get_mut(2 * lane + half) {
                        *slot = (w / scale).round() as i16;
                    }
                }
            }
        }
        Some(Self {
            simd,
            k,
            n,
            panels,
            scales,
            levels,
        })
    }

    /// Sizes `acts` for `m` rows of this product's input. Lanes past `m` in the last panel
    /// keep whatever they held: their products are computed and dropped.
    pub(crate) fn shape(&self, acts: &mut Acts, m: usize) {
        let panels = m.div_ceil(MR);
        acts.panels.resize(panels * self.k.div_ceil(2), [0; MR]);
        acts.scales.resize(panels * MR, 0.0);
    }

    /// The parts of `acts` (sized by [`QuantDense::shape`]) that the rows of one task
    /// ([`TASK_ROWS`]) quantise into, task by task, for [`QuantDense::quantise_task`].
    pub(crate) fn tasks<'a>(
        &self,
        acts: &'a mut Acts,
    ) -> impl IndexedParallelIterator<Item = ActsTask<'a>> + 'a {
        let kp = self.k.div_ceil(2);
        acts.panels
            .par_chunks_mut(kp * PANELS_PER_TASK)
            .zip(acts.scales.par_chunks_mut(TASK_ROWS))
            .map(|(panels, scales)| ActsTask { panels, scales })
    }

    /// Quantises one task's rows `x` (≤ [`TASK_ROWS`] rows of width k) into its part.
    pub(crate) fn quantise_task(&self, task: ActsTask<'_>, x: &[f32]) {
        self.simd.vectorize(Quantise {
            out: task.panels,
            scales: task.scales,
            x,
            k: self.k,
            levels: self.levels,
        });
    }

    /// Quantises `x` (`[m, k]`) into `acts`, sized here.
    pub(crate) fn quantise(&self, acts: &mut Acts, x: &[f32]) {
        self.shape(acts, x.len() / self.k);
        self.tasks(acts)
            .zip(x.par_chunks(self.k * TASK_ROWS))
            .for_each(|(task, x)| self.quantise_task(task, x));
    }

    /// `acts · W` into `out` (`[m, n]` row-major, every element overwritten), task by task;
    /// each task then runs `epilogue` on its rows of `out` (≤ [`TASK_ROWS`] rows) with its
    /// item of `extra` (one per task), while they are still in its core's cache.
    pub(crate) fn product<I, F>(&self, acts: &Acts, out: &mut [f32], extra: I, epilogue: F)
    where
        I: IndexedParallelIterator,
        F: Fn(&mut [f32], I::Item) + Sync + Send,
    {
        let kp = self.k.div_ceil(2);
        out.par_chunks_mut(self.n * TASK_ROWS)
            .zip(acts.panels.par_chunks(kp * PANELS_PER_TASK))
            .zip(acts.scales.par_chunks(TASK_ROWS))
            .zip(extra)
            .for_each(|(((c, a), s), item)| {
                self.simd.vectorize(Block {
                    dense: self,
                    c: &mut *c,
                    a,
                    s,
                });
                epilogue(c, item);
            });
    }

    /// `x · W` for `x` = `[m, k]` row-major; returns `[m, n]` row-major.
    #[cfg(test)]
    pub(crate) fn forward(&self, x: &[f32]) -> Vec<f32> {
        let mut acts = Acts::default();
        self.quantise(&mut acts, x);
        let mut out = vec![0f32; x.len() / self.k * self.n];
        self.product(
            &acts,
            &mut out,
            rayon::iter::repeat_n((), usize::MAX),
            |_, ()| {},
        );
        out
    }

    /// One task: row panels `a` (quantised, `[panel][kp][MR]`) with their scales `s`, into
    /// `c` (`[rows, n]`), one weight panel at a time across all the task's row panels.
    #[inline(always)]
    fn block(&self, c: &mut [f32], a: &[[i32; MR]], s: &[f32]) {
        let simd = self.simd;
        let (n, kp) = (self.n, self.k.div_ceil(2));
        let rows = c.len() / n;
        for (panel, (weights, col_scales)) in self.panels.chunks(kp).zip(&self.scales).enumerate() {
            let col_scales: [__m256; 2] = pulp::cast(*col_scales);
            let first_col = panel * NR;
            let width = NR.min(n - first_col);
            for ((row_panel, acts), scales) in a.chunks(kp).enumerate().zip(s.chunks(MR)) {
                let acc = micro_kernel(simd, acts, weights);
                let first_row = row_panel * MR;
                for (r, (acc, &scale)) in acc.iter().zip(scales).enumerate() {
                    if first_row + r >= rows {
                        break;
                    }
                    let row_scale = simd.avx._mm256_set1_ps(scale);
                    let scaled: [f32; NR] = pulp::cast([
                        simd.avx._mm256_mul_ps(
                            simd.avx
                                ._mm256_mul_ps(simd.avx._mm256_cvtepi32_ps(acc[0]), row_scale),
                            col_scales[0],
                        ),
                        simd.avx._mm256_mul_ps(
                            simd.avx
                                ._mm256_mul_ps(simd.avx._mm256_cvtepi32_ps(acc[1]), row_scale),
                            col_scales[1],
                        ),
                    ]);
                    let start = (first_row + r) * n + first_col;
                    // A whole panel (every width the model has) is one fixed-size store;
                    // a slice of run-time length would be a call to memmove.
                    if let Some(dst) = c
                        .get_mut(start..start + width)
                        .and_then(|d| <&mut [f32; NR]>::try_from(d).ok())
                    {
                        *dst = scaled;
                    } else if let (Some(dst), Some(src)) =
                        (c.get_mut(start..start + width), scaled.get(..width))
                    {
                        dst.copy_from_slice(src);
                    }
                }
            }
        }
    }
}

// The tasks are structs rather than closures: pulp inlines a task's `call` into its AVX2
// function only if nothing between them is left out of line, and the `FnOnce` shim of a
// borrowing closure was (its intrinsics then ran as calls, 80× slower).

/// One task of [`QuantDense::forward`]'s product, run by [`QuantDense::block`].
struct Block<'a> {
    dense: &'a QuantDense,
    c: &'a mut [f32],
    a: &'a [[i32; MR]],
    s: &'a [f32],
}

impl pulp::NullaryFnOnce for Block<'_> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        self.dense.block(self.c, self.a, self.s);
    }
}

/// One task of [`QuantDense::forward`]'s activation quantisation ([`quantise_rows`]).
struct Quantise<'a> {
    out: &'a mut [[i32; MR]],
    scales: &'a mut [f32],
    x: &'a [f32],
    k: usize,
    levels: f32,
}

impl pulp::NullaryFnOnce for Quantise<'_> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        quantise_rows(self.out, self.scales, self.x, self.k, self.levels);
    }
}

/// Six rows of activations (one panel, `[kp][MR]`) times one weight panel: 6 × 16 sums in
/// twelve registers, each step one broadcast pair per row and two `vpmaddwd` per row.
#[inline(always)]
fn micro_kernel(simd: V3, a: &[[i32; MR]], weights: &[[i16; 2 * NR]]) -> [[__m256i; 2]; MR] {
    let zero = simd.avx._mm256_setzero_si256();
    let mut acc = [[zero; 2]; MR];
    for (pairs, w) in a.iter().zip(weights) {
        let [w0, w1]: [__m256i; 2] = pulp::cast(*w);
        for (acc, &pair) in acc.iter_mut().zip(pairs) {
            let pair = simd.avx._mm256_set1_epi32(pair);
            acc[0] = simd
                .avx2
                ._mm256_add_epi32(acc[0], simd.avx2._mm256_madd_epi16(pair, w0));
            acc[1] = simd
                .avx2
                ._mm256_add_epi32(acc[1], simd.avx2._mm256_madd_epi16(pair, w1));
        }
    }
    acc
}

/// Quantises each `k`-long row of `x` to ±`levels` (its own scale, written to `scales`) as
/// pairs of i16 packed into i32, into row panels (`out`, `[panel][kp][MR]`; an odd last value
/// pairs with zero). Each row is quantised into a contiguous buffer first (a pass that
/// vectorises), then dealt into its lane of the panel.
#[inline(always)]
fn quantise_rows(out: &mut [[i32; MR]], scales: &mut [f32], x: &[f32], k: usize, levels: f32) {
    let kp = k.div_ceil(2);
    let mut packed = vec![0i32; kp];
    for (r, (row, scale)) in x.chunks(k).zip(scales.iter_mut()).enumerate() {
        let max = abs_max(row);
        *scale = if max > 0.0 { max / levels } else { 1.0 };
        let inv = 1.0 / *scale;
        // |x·inv| ≤ levels < 2^15, so the low 16 bits of the rounded sum are the integer.
        let quantise = |x: f32| (x * inv + ROUND).to_bits() & 0xFFFF;
        let pairs = row.chunks_exact(2);
        let odd = pairs.remainder().first().map(|&v| quantise(v) as i32);
        for (o, p) in packed.iter_mut().zip(pairs) {
            if let &[low, high] = p {
                *o = (quantise(low) | (quantise(high) << 16)) as i32;
            }
        }
        if let (Some(odd), Some(last)) = (odd, packed.last_mut()) {
            *last = odd;
        }
        let (panel, lane) = (r / MR, r % MR);
        let panel = out
            .get_mut(panel * kp..(panel + 1) * kp)
            .unwrap_or_default();
        for (o, &v) in panel.iter_mut().zip(&packed) {
            if let Some(o) = o.get_mut(lane) {
                *o = v;
            }
        }
    }
}

/// Largest magnitude in `v`, eight lanes at a time so that it vectorises.
#[inline(always)]
fn abs_max(v: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let chunks = v.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            let x = x.abs();
            *a = if x > *a { x } else { *a };
        }
    }
    acc.iter()
        .chain(rest)
        .fold(0f32, |m, x| if x.abs() > m { x.abs() } else { m })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_values as values;

    #[test]
    fn integer_product_matches_f32_on_ragged_shapes() {
        // Odd k, rows that fill no panel evenly, columns that fill no panel evenly.
        for (m, k, n) in [(1, 5, 3), (13, 384, 40), (50, 1536, 16), (7, 385, 17)] {
            let x = values(m * k, 1);
            let w = values(n * k, 2);
            let Some(q) = QuantDense::new(&w, n, k) else {
                // No AVX2: the encoder uses f32 and nothing here runs.
                return;
            };
            let got = q.forward(&x);
            assert_eq!(got.len(), m * n);
            for i in 0..m {
                for j in 0..n {
                    let want: f32 = (0..k).map(|t| x[i * k + t] * w[j * k + t]).sum();
                    let g = got[i * n + j];
                    // Each side keeps ≥ 11 bits: the rounding errors of the k terms (≤ 2e-4
                    // each) add up like a random walk; a wrong kernel is off by ≈ 0.08·√k.
                    let tolerance = (k as f32).sqrt() * 1e-3;
                    assert!(
                        (g - want).abs() < tolerance,
                        "({m},{k},{n}) [{i},{j}]: {g} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn extreme_inputs_do_not_overflow() {
        // Every activation and weight at the largest level: the sum is k·levels², the most
        // the level choice allows, and must come back exactly.
        let (m, k, n) = (6, 1536, 16);
        let x = vec![3.0f32; m * k];
        let mut w = vec![-2.0f32; n * k];
        w[5] = 2.0;
        let Some(q) = QuantDense::new(&w, n, k) else {
            return;
        };
        let got = q.forward(&x);
        let want = -6.0 * k as f32 + 12.0;
        assert!(
            (got[0] - want).abs() < 1e-2 * k as f32,
            "{} vs {want}",
            got[0]
        );
        assert!(
            got.iter()
                .skip(1)
                .all(|&v| (v + 6.0 * k as f32).abs() < 1e-2 * k as f32)
        );
    }

    #[test]
    fn zero_rows_and_columns_stay_zero() {
        let (m, k, n) = (3, 8, 4);
        let x = vec![0f32; m * k];
        let w = values(n * k, 3);
        let Some(q) = QuantDense::new(&w, n, k) else {
            return;
        };
        assert!(q.forward(&x).iter().all(|&v| v == 0.0));
        assert!(q.forward(&[]).is_empty());
    }
}
