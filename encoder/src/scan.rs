//! Exact nearest-neighbour scan over vectors held in memory as 16-bit integers.
//!
//! Owns: the compact copy of a set of embedding vectors (one i16 per dimension and one scale per
//! vector: half of f32's size, 772 bytes for 384 dimensions) and the scoring of a query
//! against all of them by cosine, on every core, compiled for AVX2 where the CPU has it. Lives
//! in this crate because the development profile optimises it (the core package is built
//! unoptimised there, and this loop would be 20× slower). Must not: know where the vectors come
//! from or what they mean (the chunk index does), or approximate beyond the 16-bit rounding
//! (relative error ≈ 1.5e-5 per value: rankings are those of f32 up to exact ties).

use rayon::prelude::*;

/// Rows scored per task.
const ROWS_PER_TASK: usize = 4096;
/// Largest magnitude of a stored value.
const LEVELS: f32 = 32_767.0;

/// Vectors of one dimension, quantised per vector.
#[derive(Debug, Clone, Default)]
pub struct QuantisedVectors {
    dimension: usize,
    values: Vec<i16>,
    /// Per vector: its quantisation step divided by its norm (so a dot product with the
    /// integers, times this, is the cosine with a unit query).
    scales: Vec<f32>,
}

impl QuantisedVectors {
    /// An empty set of `dimension`-long vectors.
    pub fn new(dimension: usize) -> Self {
        Self {
            dimension,
            values: Vec::new(),
            scales: Vec::new(),
        }
    }

    /// Vectors held.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// Whether no vector is held.
    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// Appends a vector; one of the wrong length is stored as zeros (it then scores 0 against
    /// every query) so that row numbers stay aligned with the caller's.
    pub fn push(&mut self, vector: &[f32]) {
        let max = vector.iter().fold(0f32, |m, v| m.max(v.abs()));
        let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
        if vector.len() != self.dimension || max == 0.0 || norm == 0.0 || !norm.is_finite() {
            self.values.extend(std::iter::repeat_n(0, self.dimension));
            self.scales.push(0.0);
            return;
        }
        let step = max / LEVELS;
        self.values
            .extend(vector.iter().map(|v| (v / step).round() as i16));
        self.scales.push(step / norm);
    }

    /// The `k` vectors most similar to `query` by cosine among the visible ones, best first, as
    /// (row, cosine). Vector `i` belongs to group `groups[i]` (a document, say) and is visible
    /// when `visible[groups[i]]` is true; vectors without a group, or in a group past the end
    /// of `visible`, are not. Ties go to the lower row.
    pub fn nearest(
        &self,
        query: &[f32],
        groups: &[u32],
        visible: &[bool],
        k: usize,
    ) -> Vec<(usize, f32)> {
        let dim = self.dimension;
        let norm = query.iter().map(|v| v * v).sum::<f32>().sqrt();
        if k == 0 || dim == 0 || query.len() != dim || norm == 0.0 || !norm.is_finite() {
            return Vec::new();
        }
        let query: Vec<f32> = query.iter().map(|v| v / norm).collect();
        let best: Vec<(usize, f32)> = self
            .values
            .par_chunks(dim * ROWS_PER_TASK)
            .zip(self.scales.par_chunks(ROWS_PER_TASK))
            .enumerate()
            .flat_map_iter(|(task, (values, scales))| {
                let first = task * ROWS_PER_TASK;
                let groups = groups.get(first..).unwrap_or_default();
                let scores = pulp::Arch::new().dispatch(Score {
                    query: &query,
                    values,
                    scales,
                    groups,
                    visible,
                    first,
                });
                top(scores, k)
            })
            .collect();
        top(best, k)
    }
}

/// Scores one task's rows (a struct, not a closure, so that pulp compiles its loop for the
/// CPU's instruction set: a borrowing closure's call shim stays out of line, and so does the
/// code inside it).
struct Score<'a> {
    query: &'a [f32],
    values: &'a [i16],
    scales: &'a [f32],
    groups: &'a [u32],
    visible: &'a [bool],
    first: usize,
}

impl pulp::WithSimd for Score<'_> {
    type Output = Vec<(usize, f32)>;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> Self::Output {
        let dim = self.query.len().max(1);
        let mut scores = Vec::with_capacity(self.scales.len());
        for (row, ((v, scale), group)) in self
            .values
            .chunks_exact(dim)
            .zip(self.scales)
            .zip(self.groups)
            .enumerate()
        {
            if self.visible.get(*group as usize).copied().unwrap_or(false) {
                scores.push((self.first + row, dot(self.query, v) * scale));
            }
        }
        scores
    }
}

/// The `k` best of `scores` (highest cosine first, then lowest row).
fn top(mut scores: Vec<(usize, f32)>, k: usize) -> Vec<(usize, f32)> {
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if scores.len() > k {
        scores.select_nth_unstable_by(k, order);
        scores.truncate(k);
    }
    scores.sort_unstable_by(order);
    scores
}

/// Σ q·v in eight lanes, so that it vectorises (the integers widen to f32 on the way).
#[inline(always)]
fn dot(query: &[f32], v: &[i16]) -> f32 {
    let mut acc = [0f32; 8];
    let (q8, q_rest) = query.split_at(query.len() - query.len() % 8);
    let (v8, v_rest) = v.split_at(v.len() - v.len() % 8);
    for (q, v) in q8.chunks_exact(8).zip(v8.chunks_exact(8)) {
        for ((a, q), v) in acc.iter_mut().zip(q).zip(v) {
            *a += q * f32::from(*v);
        }
    }
    let rest: f32 = q_rest
        .iter()
        .zip(v_rest)
        .map(|(q, v)| q * f32::from(*v))
        .sum();
    acc.iter().sum::<f32>() + rest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(seed: u64, dim: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..dim)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2001) as f32 / 1000.0 - 1.0
            })
            .collect()
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        let d: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        d / (n(a) * n(b))
    }

    #[test]
    fn nearest_matches_an_f32_scan_and_hides_invisible_groups() {
        let dim = 37; // not a multiple of the lanes
        let rows: Vec<Vec<f32>> = (0..9000).map(|i| vector(i + 1, dim)).collect();
        let mut set = QuantisedVectors::new(dim);
        for r in &rows {
            set.push(r);
        }
        assert_eq!(set.len(), rows.len());
        // Three groups; the first is hidden.
        let groups: Vec<u32> = (0..rows.len()).map(|i| (i % 3) as u32).collect();
        let allowed: Vec<bool> = (0..rows.len()).map(|i| i % 3 != 0).collect();
        let query = vector(424_242, dim);
        let got = set.nearest(&query, &groups, &[false, true, true], 10);
        let mut want: Vec<(usize, f32)> = rows
            .iter()
            .enumerate()
            .filter(|(i, _)| allowed[*i])
            .map(|(i, r)| (i, cosine(&query, r)))
            .collect();
        want.sort_by(|a, b| b.1.total_cmp(&a.1));
        assert_eq!(got.len(), 10);
        for ((gi, gs), (wi, ws)) in got.iter().zip(&want) {
            assert_eq!(gi, wi);
            assert!((gs - ws).abs() < 1e-4, "{gs} vs {ws}");
        }
        // Nothing visible, nothing found; rows without a group or with a group past the end of
        // `visible` stay hidden.
        assert!(set.nearest(&query, &groups, &[], 5).is_empty());
        assert!(
            set.nearest(&query, &groups[..3], &[true; 3], 5)
                .iter()
                .all(|(i, _)| *i < 3)
        );
        assert!(
            set.nearest(&query, &groups, &[true], 5)
                .iter()
                .all(|(i, _)| i % 3 == 0)
        );
    }

    #[test]
    fn degenerate_vectors_and_queries_are_harmless() {
        let mut set = QuantisedVectors::new(4);
        set.push(&[0.0; 4]);
        set.push(&[1.0, 0.0]); // wrong length
        set.push(&[f32::NAN, 1.0, 0.0, 0.0]);
        set.push(&[0.0, 1.0, 0.0, 0.0]);
        assert_eq!(set.len(), 4);
        let groups = [0u32; 4];
        let hits = set.nearest(&[0.0, 2.0, 0.0, 0.0], &groups, &[true], 1);
        assert_eq!(hits.first().map(|h| h.0), Some(3));
        assert!((hits[0].1 - 1.0).abs() < 1e-4);
        assert!(set.nearest(&[0.0; 4], &groups, &[true], 3).is_empty());
        assert!(set.nearest(&[1.0; 3], &groups, &[true], 3).is_empty());
    }
}
