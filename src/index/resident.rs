//! One profile's vectors held in memory, for an exact vector search without LanceDB's scan.
//!
//! Owns: a copy of the `vector` column of one profile's rows (16-bit integers, ≈ 0.8 KB per
//! chunk, scored by `policypal_encoder::scan`), with each row's LanceDB row id, chunk id and
//! document, tagged with the table version it was read at. LanceDB stays the only store: any
//! write bumps the table version and the copy is read again before the next search, and the
//! chunk index fetches every result back from LanceDB by row id and checks its chunk id.
//! Must not: hold rows of another profile than the one it was read for (rows of any other
//! profile are skipped while reading, and the index only uses a copy whose profile matches the
//! search's), or be the source of any text, page or offset (those come from LanceDB).

use arrow_array::{Array, FixedSizeListArray, Float32Array, RecordBatch, StringArray, UInt64Array};
use policypal_encoder::scan::QuantisedVectors;

use super::{IndexError, Scope, column};

/// Profiles with more chunks than this are searched by LanceDB's IVF-PQ index instead
/// (the copy would take more than ≈ 200 MB).
pub const MAX_ROWS: usize = 250_000;

/// The copy of one profile's vectors at one table version.
#[derive(Debug)]
pub struct Resident {
    /// Profile the rows belong to.
    pub profile_id: String,
    /// Table version the rows were read at.
    pub version: u64,
    /// Per row: LanceDB row id (valid for `version`).
    row_ids: Vec<u64>,
    /// Per row: chunk id, to check what LanceDB returns for a row id.
    chunk_ids: Vec<String>,
    /// Per row: index into `documents`.
    document_of: Vec<u32>,
    /// Distinct document ids.
    documents: Vec<String>,
    vectors: QuantisedVectors,
    /// The profile had more than [`MAX_ROWS`] rows at `version`: nothing is held, and LanceDB
    /// searches it (remembered so that each search does not count the rows again).
    too_large: bool,
}

impl Resident {
    /// Builds the copy from batches holding `_rowid`, `chunk_id`, `document_id`, `profile_id`
    /// and `vector` (rows of other profiles are skipped).
    pub fn read(
        profile_id: &str,
        version: u64,
        dimension: usize,
        batches: &[RecordBatch],
    ) -> Result<Self, IndexError> {
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        let mut out = Self {
            profile_id: profile_id.to_owned(),
            version,
            row_ids: Vec::with_capacity(rows),
            chunk_ids: Vec::with_capacity(rows),
            document_of: Vec::with_capacity(rows),
            documents: Vec::new(),
            vectors: QuantisedVectors::new(dimension),
            too_large: false,
        };
        let mut document_index = std::collections::HashMap::<String, u32>::new();
        for b in batches {
            let row_id = column::<UInt64Array>(b, "_rowid")?;
            let chunk_id = column::<StringArray>(b, "chunk_id")?;
            let document_id = column::<StringArray>(b, "document_id")?;
            let profile = column::<StringArray>(b, "profile_id")?;
            let vectors = column::<FixedSizeListArray>(b, "vector")?;
            for i in 0..b.num_rows() {
                if profile.value(i) != profile_id {
                    continue;
                }
                let values = vectors.value(i);
                let values = values
                    .as_any()
                    .downcast_ref::<Float32Array>()
                    .ok_or_else(|| IndexError::Schema("vector values".into()))?;
                let next = u32::try_from(out.documents.len()).unwrap_or(u32::MAX);
                let doc = *document_index
                    .entry(document_id.value(i).to_owned())
                    .or_insert_with(|| {
                        out.documents.push(document_id.value(i).to_owned());
                        next
                    });
                out.row_ids.push(row_id.value(i));
                out.chunk_ids.push(chunk_id.value(i).to_owned());
                out.document_of.push(doc);
                out.vectors.push(values.values());
            }
        }
        Ok(out)
    }

    /// The marker of a profile too large to hold at `version`.
    pub fn too_large(profile_id: &str, version: u64) -> Self {
        Self {
            profile_id: profile_id.to_owned(),
            version,
            row_ids: Vec::new(),
            chunk_ids: Vec::new(),
            document_of: Vec::new(),
            documents: Vec::new(),
            vectors: QuantisedVectors::default(),
            too_large: true,
        }
    }

    /// Whether this is the marker of a profile too large to hold.
    pub fn is_too_large(&self) -> bool {
        self.too_large
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.row_ids.len()
    }

    /// The `limit` rows nearest `query` by cosine among the scope's documents, best first:
    /// (row id, chunk id, cosine). Blocking (a few milliseconds per 100k rows).
    pub fn nearest(&self, scope: &Scope, query: &[f32], limit: usize) -> Vec<(u64, &str, f32)> {
        // The same documents `scope_filter` + `in_scope` let through: listed, and not excluded.
        let listed: std::collections::HashSet<&str> =
            scope.document_ids.iter().map(String::as_str).collect();
        let excluded: std::collections::HashSet<&str> = scope
            .excluded
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let visible: Vec<bool> = self
            .documents
            .iter()
            .map(|d| listed.contains(d.as_str()) && !excluded.contains(d.as_str()))
            .collect();
        self.vectors
            .nearest(query, &self.document_of, &visible, limit)
            .into_iter()
            .filter_map(|(row, score)| {
                Some((
                    *self.row_ids.get(row)?,
                    self.chunk_ids.get(row)?.as_str(),
                    score,
                ))
            })
            .collect()
    }
}
