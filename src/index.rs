//! The LanceDB chunk index: one `chunks` table, vector + BM25 full-text search (over each
//! passage's text and heading path), fused.
//!
//! Owns: the table schema, writing and deleting a document's chunks, keeping the full-text
//! indices current, and hybrid search. Every read takes a [`Scope`] (profile + the documents the
//! caller may see) and turns it into a filter, so no query can cross profiles; ids in filters
//! are checked to be UUIDs, user text never reaches a filter string. Vector searches are exact,
//! over the searched profile's vectors held in memory (`resident`) and read again after every
//! write; profiles too large for that use LanceDB's IVF-PQ index. Must not: decide which
//! documents are visible (the caller resolves that from SQLite) or embed text.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_array::{
    Array, FixedSizeListArray, Float32Array, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use futures::TryStreamExt;
use lancedb::index::Index;
use lancedb::index::scalar::{BitmapIndexBuilder, FtsIndexBuilder, FullTextSearchQuery};
use lancedb::index::vector::IvfPqIndexBuilder;
use lancedb::query::{ExecutableQuery, QueryBase, Select};
use lancedb::table::{OptimizeAction, OptimizeOptions};
use lancedb::{Connection, DistanceType, Table};

pub mod identifiers;
mod resident;
pub mod spelling;

use resident::Resident;

/// Name of the chunks table.
pub const TABLE: &str = "chunks";
/// Weight of the vector similarity in a hybrid score; the rest goes to the BM25 score relative
/// to the query's best. A convex combination of the two scores, not of their ranks: a passage
/// far ahead on one side keeps its lead, where rank fusion flattens it to one place (Bruch et
/// al., "An Analysis of Fusion Functions for Hybrid Retrieval", 2023). Chosen on the ObliQA fit
/// half among 0.4 / 0.5 / 0.6 (all within 0.01 of each other); more trusts paraphrase, less
/// trusts the question's own words.
const VECTOR_WEIGHT: f32 = 0.5;
/// Added to the fused score of a passage that holds an identifier of the query verbatim (a
/// clause number such as "6.8.2", see [`identifiers`]): the clause itself or a rule that
/// refers to it. Chosen on the ObliQA fit half among 0.1 / 0.2 / 0.3 (0.2 and 0.3 the same;
/// on its 45 questions that name a clause, search hit@1 0.76 → 0.87); more lets any passage naming the clause
/// outrank a better-worded one, less leaves the number to the tokenizer, which loses it.
const IDENTIFIER_BOOST: f32 = 0.2;
/// Weight of a passage's heading path in its full-text score, against 1.0 for its text (each
/// column has its own full-text index): a passage under "3.2.1 Naming & Versioning" is about
/// naming whatever words its rules use ("The library package name must be prefixed with lib").
/// Chosen among 0.5 / 1.0 / 2.0: at 0.5 no answer of any set changed; at 2.0 headings shared
/// by many passages outranked their text (ObliQA fit cited hit@5 0.897 → 0.830, eight
/// answerable questions refused instead of two); at 1.0 ObliQA moved by one question each way
/// and two Debian policy probes gained a comparison side and an audit finding.
const HEADING_WEIGHT: f32 = 1.0;
/// Most passages an identifier lookup returns (in table order, before the boost ranks them).
const IDENTIFIER_CANDIDATES: usize = 200;

/// Errors of the chunk index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// LanceDB failed.
    #[error("vector index error: {0}")]
    Lance(#[from] lancedb::Error),
    /// Arrow data could not be built or read.
    #[error("vector index data error: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// The index was built by another embedding model than the one configured.
    #[error(
        "the library was indexed with {indexed} but {configured} is configured; re-index it (`policypal reindex`) or switch the embedder back"
    )]
    ModelMismatch {
        /// Model recorded in the index.
        indexed: String,
        /// Model configured now.
        configured: String,
    },
    /// An id that should be a UUID is not one (never put into a filter).
    #[error("invalid id {0:?}")]
    InvalidId(String),
    /// A result column is missing or has an unexpected type.
    #[error("unexpected index schema: {0}")]
    Schema(String),
}

/// A chunk as stored in the index.
#[derive(Debug, Clone)]
pub struct ChunkRow {
    /// `<document id>:<chunk index>`.
    pub chunk_id: String,
    /// Owning profile.
    pub profile_id: String,
    /// Owning document.
    pub document_id: String,
    /// Set id or "".
    pub set_id: String,
    /// `regulatory` or `policy`.
    pub doc_type: String,
    /// First page.
    pub page_start: u32,
    /// Last page.
    pub page_end: u32,
    /// Position in the document.
    pub chunk_index: u32,
    /// Character offset in the document text.
    pub char_start: u64,
    /// End character offset.
    pub char_end: u64,
    /// Heading path.
    pub heading: String,
    /// Chunk text.
    pub text: String,
    /// Embedding.
    pub vector: Vec<f32>,
}

/// Which rows a search may see.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The profile; always part of the filter.
    pub profile_id: String,
    /// The documents allowed (already resolved from SQLite: status, set, type, supersedes).
    /// Every hit is checked against them, whatever the filter said.
    pub document_ids: Vec<String>,
    /// When every searchable document of the profile is in scope: the profile's other
    /// documents (processing, failed, disabled, superseded). The filter then names what to
    /// leave out, which in a large library is far shorter than what to keep (at 100k chunks in
    /// 1,000 documents, the list of 1,000 ids cost 13 ms per vector search).
    pub excluded: Option<Vec<String>>,
}

/// One search result.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Hit {
    /// Chunk id.
    pub chunk_id: String,
    /// Document id.
    pub document_id: String,
    /// First page.
    pub page_start: u32,
    /// Last page.
    pub page_end: u32,
    /// Position in the document.
    pub chunk_index: u32,
    /// Character offsets in the document text.
    pub char_start: u64,
    /// End character offset.
    pub char_end: u64,
    /// Heading path.
    pub heading: String,
    /// The chunk's text.
    pub text: String,
    /// Cosine similarity to the query (when the vector search found it).
    pub vector_score: Option<f32>,
    /// BM25 score (when the full-text search found it).
    pub text_score: Option<f32>,
    /// Rank in the vector list (1-based).
    pub vector_rank: Option<usize>,
    /// Rank in the full-text list (1-based).
    pub text_rank: Option<usize>,
    /// Fused score (see [`fuse`]); higher is better.
    pub score: f32,
    /// It holds verbatim an identifier (clause number) the query names (see [`fuse`]).
    pub holds_identifier: bool,
}

/// Handle to the LanceDB chunks table.
#[derive(Clone)]
pub struct ChunkIndex {
    table: Table,
    dimension: usize,
    ann_min_rows: usize,
    ann: AnnParams,
    /// The last searched profile's vectors in memory (shared by clones; one profile at a time).
    resident: Arc<tokio::sync::Mutex<Option<Arc<Resident>>>>,
}

/// How an approximate vector search trades speed for recall (used only once the IVF-PQ index
/// exists; `bench search` reports the recall against the exact scan).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnnParams {
    /// IVF partitions probed per query.
    pub nprobes: usize,
    /// Candidates re-ranked with the exact vectors, as a multiple of the limit.
    pub refine_factor: u32,
}

impl Default for AnnParams {
    fn default() -> Self {
        Self {
            nprobes: 32,
            refine_factor: 10,
        }
    }
}

/// Candidates each retriever contributes to a hybrid search of `limit` results.
pub fn hybrid_candidates(limit: usize) -> usize {
    (limit * 4).max(20)
}

/// Rows from which the vector column gets an approximate (IVF-PQ) index; below it an exact scan
/// is fast enough and exact.
pub const DEFAULT_ANN_MIN_ROWS: usize = 20_000;

impl std::fmt::Debug for ChunkIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkIndex")
            .field("dimension", &self.dimension)
            .finish()
    }
}

fn schema(dimension: usize) -> SchemaRef {
    let dim = i32::try_from(dimension).unwrap_or(i32::MAX);
    Arc::new(Schema::new(vec![
        Field::new("chunk_id", DataType::Utf8, false),
        Field::new("profile_id", DataType::Utf8, false),
        Field::new("document_id", DataType::Utf8, false),
        Field::new("set_id", DataType::Utf8, false),
        Field::new("doc_type", DataType::Utf8, false),
        Field::new("page_start", DataType::UInt32, false),
        Field::new("page_end", DataType::UInt32, false),
        Field::new("chunk_index", DataType::UInt32, false),
        Field::new("char_start", DataType::UInt64, false),
        Field::new("char_end", DataType::UInt64, false),
        Field::new("heading", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, false),
        Field::new(
            "vector",
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float32, true)), dim),
            false,
        ),
    ]))
}

const RESULT_COLUMNS: [&str; 10] = [
    "chunk_id",
    "document_id",
    "page_start",
    "page_end",
    "chunk_index",
    "char_start",
    "char_end",
    "heading",
    "text",
    "profile_id",
];

/// Checks that an id is a UUID before it is put into a filter expression.
pub fn checked_id(id: &str) -> Result<&str, IndexError> {
    if uuid::Uuid::parse_str(id).is_ok() {
        Ok(id)
    } else {
        Err(IndexError::InvalidId(id.to_owned()))
    }
}

fn scope_filter(scope: &Scope) -> Result<String, IndexError> {
    let profile = checked_id(&scope.profile_id)?;
    let quoted = |ids: &[String]| -> Result<String, IndexError> {
        Ok(ids
            .iter()
            .map(|d| checked_id(d).map(|d| format!("'{d}'")))
            .collect::<Result<Vec<_>, _>>()?
            .join(", "))
    };
    match &scope.excluded {
        Some(excluded) if excluded.len() < scope.document_ids.len() => {
            if excluded.is_empty() {
                Ok(format!("profile_id = '{profile}'"))
            } else {
                Ok(format!(
                    "profile_id = '{profile}' AND document_id NOT IN ({})",
                    quoted(excluded)?
                ))
            }
        }
        _ => Ok(format!(
            "profile_id = '{profile}' AND document_id IN ({})",
            quoted(&scope.document_ids)?
        )),
    }
}

/// Keeps the hits of the scope's documents only: a document whose first chunks were written
/// after the scope was resolved is in neither list, and must stay invisible.
fn in_scope(mut hits: Vec<Hit>, scope: &Scope) -> Vec<Hit> {
    if scope.excluded.is_some() {
        let allowed: HashSet<&str> = scope.document_ids.iter().map(String::as_str).collect();
        hits.retain(|h| allowed.contains(h.document_id.as_str()));
    }
    hits
}

impl ChunkIndex {
    /// Opens the chunks table at `uri` (a directory, or an object-store URI), creating it with
    /// vectors of `dimension` if it does not exist.
    pub async fn open(uri: &str, dimension: usize) -> Result<Self, IndexError> {
        Self::open_named(uri, TABLE, dimension).await
    }

    /// Opens (creating if needed) the chunks table called `name` at `uri`.
    pub async fn open_named(uri: &str, name: &str, dimension: usize) -> Result<Self, IndexError> {
        let db: Connection = lancedb::connect(uri).execute().await?;
        let table = match db.open_table(name).execute().await {
            Ok(t) => t,
            Err(lancedb::Error::TableNotFound { .. }) => {
                match db
                    .create_empty_table(name, schema(dimension))
                    .execute()
                    .await
                {
                    Ok(t) => t,
                    // Another process created it between our two calls.
                    Err(lancedb::Error::TableAlreadyExists { .. }) => {
                        db.open_table(name).execute().await?
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Err(e) => return Err(e.into()),
        };
        let stored = table.schema().await?;
        let stored_dim = match stored
            .field_with_name("vector")
            .map(|f| f.data_type().clone())
        {
            Ok(DataType::FixedSizeList(_, d)) => usize::try_from(d).unwrap_or(0),
            _ => return Err(IndexError::Schema("no vector column".into())),
        };
        if stored_dim != dimension {
            return Err(IndexError::ModelMismatch {
                indexed: format!("a {stored_dim}-dimensional model"),
                configured: format!("a {dimension}-dimensional model"),
            });
        }
        Ok(Self {
            table,
            dimension,
            ann_min_rows: DEFAULT_ANN_MIN_ROWS,
            ann: AnnParams::default(),
            resident: Arc::default(),
        })
    }

    /// Drops every table at `uri` except `keep` (what a reindex that was killed, or whose swap
    /// was cut short, left behind). Returns the names dropped.
    pub async fn drop_tables_except(uri: &str, keep: &str) -> Result<Vec<String>, IndexError> {
        let db: Connection = lancedb::connect(uri).execute().await?;
        let mut dropped = Vec::new();
        for name in db.table_names().execute().await? {
            if name != keep {
                db.drop_table(&name, &[]).await?;
                dropped.push(name);
            }
        }
        Ok(dropped)
    }

    /// Vector dimension of the table.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Appends chunks (of any number of documents).
    pub async fn add(&self, rows: &[ChunkRow]) -> Result<(), IndexError> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut flat = Vec::with_capacity(rows.len() * self.dimension);
        for r in rows {
            if r.vector.len() != self.dimension {
                return Err(IndexError::Schema(format!(
                    "vector of dimension {} for a {}-dimensional index",
                    r.vector.len(),
                    self.dimension
                )));
            }
            flat.extend_from_slice(&r.vector);
        }
        let strings = |f: fn(&ChunkRow) -> &str| {
            Arc::new(StringArray::from_iter_values(rows.iter().map(f))) as Arc<dyn Array>
        };
        let dim = i32::try_from(self.dimension).unwrap_or(i32::MAX);
        let vectors = FixedSizeListArray::try_new(
            Arc::new(Field::new("item", DataType::Float32, true)),
            dim,
            Arc::new(Float32Array::from(flat)),
            None,
        )?;
        let batch = RecordBatch::try_new(
            schema(self.dimension),
            vec![
                strings(|r| &r.chunk_id),
                strings(|r| &r.profile_id),
                strings(|r| &r.document_id),
                strings(|r| &r.set_id),
                strings(|r| &r.doc_type),
                Arc::new(UInt32Array::from_iter_values(
                    rows.iter().map(|r| r.page_start),
                )),
                Arc::new(UInt32Array::from_iter_values(
                    rows.iter().map(|r| r.page_end),
                )),
                Arc::new(UInt32Array::from_iter_values(
                    rows.iter().map(|r| r.chunk_index),
                )),
                Arc::new(UInt64Array::from_iter_values(
                    rows.iter().map(|r| r.char_start),
                )),
                Arc::new(UInt64Array::from_iter_values(
                    rows.iter().map(|r| r.char_end),
                )),
                strings(|r| &r.heading),
                strings(|r| &r.text),
                Arc::new(vectors),
            ],
        )?;
        self.table.add(batch).execute().await?;
        Ok(())
    }

    /// Uses another row count from which the vector column is indexed approximately.
    pub fn with_ann_min_rows(mut self, rows: usize) -> Self {
        self.ann_min_rows = rows.max(256);
        self
    }

    /// Uses other approximate-search parameters.
    pub fn with_ann_params(mut self, ann: AnnParams) -> Self {
        self.ann = AnnParams {
            nprobes: ann.nprobes.max(1),
            refine_factor: ann.refine_factor.max(1),
        };
        self
    }

    /// True when the vector column has an approximate index.
    pub async fn has_vector_index(&self) -> Result<bool, IndexError> {
        Ok(self
            .table
            .list_indices()
            .await?
            .iter()
            .any(|i| i.columns.iter().any(|c| c == "vector")))
    }

    /// Brings the indices up to date with everything written so far: the full-text index
    /// (created on first use), and from [`DEFAULT_ANN_MIN_ROWS`] rows an IVF-PQ vector index
    /// (cosine; searches re-rank its candidates with the exact vectors). Afterwards new rows
    /// are merged into both; rows not yet merged are still searched exactly.
    pub async fn refresh_text_index(&self) -> Result<(), IndexError> {
        let indices = self.table.list_indices().await?;
        let has = |col: &str| indices.iter().any(|i| i.columns.iter().any(|c| c == col));
        let rows = self.table.count_rows(None).await?;
        if has("text") || has("vector") {
            self.table
                .optimize(OptimizeAction::Index(OptimizeOptions::default()))
                .await?;
        }
        for col in ["text", "heading"] {
            if !has(col) && rows > 0 {
                self.table
                    .create_index(&[col], Index::FTS(FtsIndexBuilder::default()))
                    .execute()
                    .await?;
            }
        }
        // Every search is prefiltered by profile and documents; in a large table an index on
        // those columns spares a scan of both for each query.
        if rows >= self.ann_min_rows {
            for col in ["profile_id", "document_id"] {
                if !has(col) {
                    self.table
                        .create_index(&[col], Index::Bitmap(BitmapIndexBuilder::default()))
                        .execute()
                        .await?;
                }
            }
        }
        if !has("vector") && rows >= self.ann_min_rows {
            // About √n partitions; 8 dimensions per PQ sub-vector when the dimension allows.
            let partitions = ((rows as f64).sqrt() as u32).clamp(1, 4096);
            let mut builder = IvfPqIndexBuilder::default()
                .distance_type(DistanceType::Cosine)
                .num_partitions(partitions);
            if self.dimension.is_multiple_of(8) {
                builder = builder.num_sub_vectors(u32::try_from(self.dimension / 8).unwrap_or(1));
            }
            self.table
                .create_index(&["vector"], Index::IvfPq(builder))
                .execute()
                .await?;
        }
        Ok(())
    }

    /// Deletes every chunk of a document.
    pub async fn delete_document(
        &self,
        profile_id: &str,
        document_id: &str,
    ) -> Result<(), IndexError> {
        let filter = format!(
            "profile_id = '{}' AND document_id = '{}'",
            checked_id(profile_id)?,
            checked_id(document_id)?
        );
        self.table.delete(filter.as_str()).await?;
        Ok(())
    }

    /// Number of chunks of a document (or of the whole profile).
    pub async fn count(
        &self,
        profile_id: &str,
        document_id: Option<&str>,
    ) -> Result<usize, IndexError> {
        let mut filter = format!("profile_id = '{}'", checked_id(profile_id)?);
        if let Some(d) = document_id {
            filter.push_str(&format!(" AND document_id = '{}'", checked_id(d)?));
        }
        Ok(self.table.count_rows(Some(filter)).await?)
    }

    /// Every stored row of a document, vectors included, in chunk order.
    pub async fn rows(
        &self,
        profile_id: &str,
        document_id: &str,
    ) -> Result<Vec<ChunkRow>, IndexError> {
        let filter = format!(
            "profile_id = '{}' AND document_id = '{}'",
            checked_id(profile_id)?,
            checked_id(document_id)?
        );
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .only_if(filter)
            .execute()
            .await?
            .try_collect()
            .await?;
        let mut out = Vec::new();
        for b in &batches {
            let s = |name| column::<StringArray>(b, name);
            let (chunk_id, profile, document, set, doc_type, heading, text) = (
                s("chunk_id")?,
                s("profile_id")?,
                s("document_id")?,
                s("set_id")?,
                s("doc_type")?,
                s("heading")?,
                s("text")?,
            );
            let u32s = |name| column::<UInt32Array>(b, name);
            let (page_start, page_end, chunk_index) =
                (u32s("page_start")?, u32s("page_end")?, u32s("chunk_index")?);
            let char_start = column::<UInt64Array>(b, "char_start")?;
            let char_end = column::<UInt64Array>(b, "char_end")?;
            let vectors = column::<FixedSizeListArray>(b, "vector")?;
            for i in 0..b.num_rows() {
                let v = vectors.value(i);
                let v = v
                    .as_any()
                    .downcast_ref::<Float32Array>()
                    .ok_or_else(|| IndexError::Schema("vector items".into()))?;
                out.push(ChunkRow {
                    chunk_id: chunk_id.value(i).to_owned(),
                    profile_id: profile.value(i).to_owned(),
                    document_id: document.value(i).to_owned(),
                    set_id: set.value(i).to_owned(),
                    doc_type: doc_type.value(i).to_owned(),
                    page_start: page_start.value(i),
                    page_end: page_end.value(i),
                    chunk_index: chunk_index.value(i),
                    char_start: char_start.value(i),
                    char_end: char_end.value(i),
                    heading: heading.value(i).to_owned(),
                    text: text.value(i).to_owned(),
                    vector: v.values().to_vec(),
                });
            }
        }
        out.sort_by_key(|r| r.chunk_index);
        Ok(out)
    }

    /// Nearest chunks by cosine similarity.
    pub async fn vector_search(
        &self,
        scope: &Scope,
        vector: &[f32],
        limit: usize,
    ) -> Result<Vec<Hit>, IndexError> {
        self.nearest(scope, vector, limit, false).await
    }

    /// Nearest chunks by an exact scan even when an approximate index exists (to measure the
    /// approximate search's recall).
    pub async fn vector_search_exact(
        &self,
        scope: &Scope,
        vector: &[f32],
        limit: usize,
    ) -> Result<Vec<Hit>, IndexError> {
        self.nearest(scope, vector, limit, true).await
    }

    async fn nearest(
        &self,
        scope: &Scope,
        vector: &[f32],
        limit: usize,
        exact: bool,
    ) -> Result<Vec<Hit>, IndexError> {
        if scope.document_ids.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        if !exact && let Some(hits) = self.nearest_in_memory(scope, vector, limit).await? {
            return Ok(hits);
        }
        let mut query = self
            .table
            .query()
            .nearest_to(vector)?
            .distance_type(DistanceType::Cosine)
            // Used only when the vector index exists: probe enough partitions, and re-rank the
            // approximate candidates with the exact vectors.
            .nprobes(self.ann.nprobes)?
            .refine_factor(self.ann.refine_factor);
        if exact {
            query = query.bypass_vector_index();
        }
        let batches: Vec<RecordBatch> = query
            .only_if(scope_filter(scope)?)
            .limit(limit)
            .select(Select::columns(&RESULT_COLUMNS))
            .execute()
            .await?
            .try_collect()
            .await?;
        let mut hits = in_scope(read_hits(&batches, &scope.profile_id)?, scope);
        for (rank, h) in hits.iter_mut().enumerate() {
            h.vector_rank = Some(rank + 1);
        }
        Ok(hits)
    }

    /// The profile's vectors in memory, read again if the table changed since (or `None` when
    /// the profile is too large for it, [`resident::MAX_ROWS`]).
    async fn resident(&self, profile_id: &str) -> Result<Option<Arc<Resident>>, IndexError> {
        let profile = checked_id(profile_id)?;
        let version = self.table.version().await?;
        let mut slot = self.resident.lock().await;
        if let Some(r) = slot.as_ref()
            && r.profile_id == profile
            && r.version == version
        {
            return Ok((!r.is_too_large()).then(|| r.clone()));
        }
        // Free the old copy before reading the new one.
        *slot = None;
        let filter = format!("profile_id = '{profile}'");
        if self.table.count_rows(Some(filter.clone())).await? > resident::MAX_ROWS {
            *slot = Some(Arc::new(Resident::too_large(profile, version)));
            return Ok(None);
        }
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .only_if(filter)
            .select(Select::columns(&[
                "chunk_id",
                "document_id",
                "profile_id",
                "vector",
            ]))
            .with_row_id()
            .execute()
            .await?
            .try_collect()
            .await?;
        let dimension = self.dimension;
        let owned = profile.to_owned();
        let read = tokio::task::spawn_blocking(move || {
            Resident::read(&owned, version, dimension, &batches)
        })
        .await
        .map_err(|e| IndexError::Schema(format!("reading vectors: {e}")))??;
        tracing::debug!(
            rows = read.len(),
            version,
            "vectors of a profile read into memory"
        );
        let read = Arc::new(read);
        *slot = Some(read.clone());
        Ok(Some(read))
    }

    /// Exact vector search over the profile's vectors in memory; the rows found are read back
    /// from LanceDB by row id. `None` (the caller searches LanceDB instead) when the profile is
    /// too large, or when a row id no longer holds the chunk it held (the table changed under
    /// the copy; it is dropped and read again next time).
    async fn nearest_in_memory(
        &self,
        scope: &Scope,
        vector: &[f32],
        limit: usize,
    ) -> Result<Option<Vec<Hit>>, IndexError> {
        let Some(ranked) = self.ranked_in_memory(scope, vector, limit).await? else {
            return Ok(None);
        };
        self.fetch(scope, &ranked).await
    }

    /// The in-memory ranking alone: (row id, chunk id, cosine), best first; `None` when the
    /// profile is too large to be held.
    async fn ranked_in_memory(
        &self,
        scope: &Scope,
        vector: &[f32],
        limit: usize,
    ) -> Result<Option<Vec<Ranked>>, IndexError> {
        let Some(resident) = self.resident(&scope.profile_id).await? else {
            return Ok(None);
        };
        let (query, scope) = (vector.to_vec(), scope.clone());
        let ranked = tokio::task::spawn_blocking(move || {
            resident
                .nearest(&scope, &query, limit)
                .into_iter()
                .map(|(row_id, chunk, score)| Ranked {
                    row_id,
                    chunk_id: chunk.to_owned(),
                    score,
                })
                .collect()
        })
        .await
        .map_err(|e| IndexError::Schema(format!("vector scan: {e}")))?;
        Ok(Some(ranked))
    }

    /// Reads `ranked` rows back from LanceDB by row id, in order, with their rank and score;
    /// `None` (and the copy in memory dropped) when a row id no longer holds its chunk.
    async fn fetch(
        &self,
        scope: &Scope,
        ranked: &[Ranked],
    ) -> Result<Option<Vec<Hit>>, IndexError> {
        if ranked.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let taken = self
            .table
            .take_row_ids(ranked.iter().map(|r| r.row_id).collect())
            .select(Select::columns(&RESULT_COLUMNS))
            .execute()
            .await;
        let batches: Vec<RecordBatch> = match taken {
            Ok(stream) => stream.try_collect().await?,
            Err(e) => {
                tracing::debug!("row ids of the vectors in memory are stale: {e}");
                *self.resident.lock().await = None;
                return Ok(None);
            }
        };
        let mut rows: HashMap<String, Hit> = read_hits(&batches, &scope.profile_id)?
            .into_iter()
            .map(|h| (h.chunk_id.clone(), h))
            .collect();
        let mut hits = Vec::with_capacity(ranked.len());
        for (rank, r) in ranked.iter().enumerate() {
            let Some(mut hit) = rows.remove(&r.chunk_id) else {
                tracing::debug!("a row id of the vectors in memory holds another chunk now");
                *self.resident.lock().await = None;
                return Ok(None);
            };
            hit.vector_score = Some(r.score);
            hit.vector_rank = Some(rank + 1);
            hits.push(hit);
        }
        Ok(Some(in_scope(hits, scope)))
    }

    /// Best chunks by BM25 over the full-text index (rows not yet indexed are scanned too).
    pub async fn text_search(
        &self,
        scope: &Scope,
        query: &str,
        limit: usize,
    ) -> Result<Vec<Hit>, IndexError> {
        if scope.document_ids.is_empty() || limit == 0 || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let indices = self.table.list_indices().await?;
        let has = |col: &str| indices.iter().any(|i| i.columns.iter().any(|c| c == col));
        if !has("text") {
            return Ok(Vec::new());
        }
        let words = spelling::with_other_spellings(query);
        // The heading's index is made with the text's (`refresh_text_index`); a library whose
        // text index is older searches the text alone until its next refresh.
        let query = if has("heading") {
            let multi = lancedb::index::scalar::MultiMatchQuery::try_new(
                words,
                vec!["text".to_owned(), "heading".to_owned()],
            )
            .and_then(|m| m.try_with_boosts(vec![1.0, HEADING_WEIGHT]))
            .map_err(lancedb::Error::from)?;
            FullTextSearchQuery::new_query(multi.into())
        } else {
            FullTextSearchQuery::new(words)
                .with_column("text".to_owned())
                .map_err(lancedb::Error::from)?
        };
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .full_text_search(query)
            .only_if(scope_filter(scope)?)
            .limit(limit)
            .select(Select::columns(&RESULT_COLUMNS))
            .execute()
            .await?
            .try_collect()
            .await?;
        let mut hits = in_scope(read_hits(&batches, &scope.profile_id)?, scope);
        for (rank, h) in hits.iter_mut().enumerate() {
            h.text_rank = Some(rank + 1);
        }
        Ok(hits)
    }

    /// The passages in scope that hold one of `ids` verbatim (see [`identifiers::holds`]), at
    /// most [`IDENTIFIER_CANDIDATES`].
    async fn identifier_search(
        &self,
        scope: &Scope,
        ids: &[String],
    ) -> Result<Vec<Hit>, IndexError> {
        if ids.is_empty() || scope.document_ids.is_empty() {
            return Ok(Vec::new());
        }
        // Identifiers are letters, digits and dots only (see `identifiers`): safe in a literal.
        let like = ids
            .iter()
            .map(|id| format!("text LIKE '%{id}%'"))
            .collect::<Vec<_>>()
            .join(" OR ");
        let batches: Vec<RecordBatch> = self
            .table
            .query()
            .only_if(format!("({}) AND ({like})", scope_filter(scope)?))
            .limit(IDENTIFIER_CANDIDATES)
            .select(Select::columns(&RESULT_COLUMNS))
            .execute()
            .await?
            .try_collect()
            .await?;
        Ok(in_scope(read_hits(&batches, &scope.profile_id)?, scope)
            .into_iter()
            .filter(|h| ids.iter().any(|id| identifiers::holds(&h.text, id)))
            .collect())
    }

    /// Hybrid search: the full-text search runs while `vector` (the query's embedding, still
    /// being computed) resolves and is searched; [`fuse`] merges both lists.
    pub async fn hybrid_search<E: From<IndexError>>(
        &self,
        scope: &Scope,
        query: &Query<'_>,
        vector: impl std::future::Future<Output = Result<Vec<f32>, E>>,
        limit: usize,
    ) -> Result<Vec<Hit>, E> {
        let candidates = hybrid_candidates(limit);
        let (query, ids) = (query.text, query.identifiers);
        let (vector_side, text_hits, id_hits) = futures::try_join!(
            async {
                let v = vector.await?;
                Ok::<_, E>(match self.ranked_in_memory(scope, &v, candidates).await? {
                    Some(ranked) => VectorSide::Ranked(ranked, v),
                    None => VectorSide::Hits(self.vector_search(scope, &v, candidates).await?),
                })
            },
            async { Ok::<_, E>(self.text_search(scope, query, candidates).await?) },
            async { Ok::<_, E>(self.identifier_search(scope, ids).await?) }
        )?;
        let holding: HashSet<String> = id_hits.iter().map(|h| h.chunk_id.clone()).collect();
        let (ranked, v) = match vector_side {
            VectorSide::Hits(vector_hits) => {
                return Ok(fuse(vector_hits, text_hits, id_hits, &holding, limit));
            }
            VectorSide::Ranked(ranked, v) => (ranked, v),
        };
        // Fuse on scores alone, then read from LanceDB only the winners the full-text and
        // identifier searches did not already return (a take costs per row).
        let outline: Vec<Hit> = ranked
            .iter()
            .enumerate()
            .map(|(rank, r)| Hit::outline(&r.chunk_id, r.score, rank + 1))
            .collect();
        let mut full: HashMap<String, Hit> = text_hits
            .iter()
            .chain(&id_hits)
            .map(|h| (h.chunk_id.clone(), h.clone()))
            .collect();
        let fused = fuse(outline, text_hits, id_hits, &holding, limit);
        let wanted: Vec<Ranked> = ranked
            .into_iter()
            .filter(|r| {
                !full.contains_key(&r.chunk_id) && fused.iter().any(|h| h.chunk_id == r.chunk_id)
            })
            .collect();
        let Some(fetched) = self.fetch(scope, &wanted).await? else {
            // The copy in memory went stale under us: search LanceDB instead.
            let vector_hits = self.vector_search(scope, &v, candidates).await?;
            let (text_hits, id_hits): (Vec<Hit>, Vec<Hit>) =
                full.into_values().partition(|h| h.text_score.is_some());
            return Ok(fuse(vector_hits, text_hits, id_hits, &holding, limit));
        };
        full.extend(fetched.into_iter().map(|h| (h.chunk_id.clone(), h)));
        Ok(fused
            .into_iter()
            .filter_map(|h| {
                let data = full.remove(&h.chunk_id)?;
                Some(Hit {
                    vector_score: h.vector_score,
                    text_score: h.text_score,
                    vector_rank: h.vector_rank,
                    text_rank: h.text_rank,
                    score: h.score,
                    holds_identifier: h.holds_identifier,
                    ..data
                })
            })
            .collect())
    }
}

/// What a hybrid search looks for.
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    /// The words, for the full-text search (the caller embeds them for the vector search).
    pub text: &'a str,
    /// Identifiers (clause numbers) a passage should hold verbatim, see [`identifiers`]; the
    /// caller leaves out those that name a document rather than a clause.
    pub identifiers: &'a [String],
}

/// A row the in-memory vector search ranked.
#[derive(Debug, Clone)]
struct Ranked {
    row_id: u64,
    chunk_id: String,
    score: f32,
}

/// What the vector half of a hybrid search produced.
enum VectorSide {
    /// Ranked in memory (rows not read yet), with the query vector for a fallback.
    Ranked(Vec<Ranked>, Vec<f32>),
    /// Searched by LanceDB (rows read).
    Hits(Vec<Hit>),
}

impl Hit {
    /// A vector hit known only by its chunk id, score and rank (for fusing before reading).
    fn outline(chunk_id: &str, score: f32, rank: usize) -> Self {
        Self {
            chunk_id: chunk_id.to_owned(),
            document_id: String::new(),
            page_start: 0,
            page_end: 0,
            chunk_index: 0,
            char_start: 0,
            char_end: 0,
            heading: String::new(),
            text: String::new(),
            vector_score: Some(score),
            text_score: None,
            vector_rank: Some(rank),
            text_rank: None,
            score: 0.0,
            holds_identifier: false,
        }
    }
}

/// Merges a vector and a full-text result list by a convex combination of their scores:
/// [`VECTOR_WEIGHT`] × cosine similarity + the rest × BM25 / the best BM25 of the query. A
/// passage only one side returned gets the other side's lowest returned score (it ranked below
/// all of them there). The passages in `holding` (they hold an identifier of the query) get
/// [`IDENTIFIER_BOOST`] more; `id_hits`, the identifier lookup's passages, join the candidates
/// like the other two lists. Ties are broken by chunk id for determinism.
pub fn fuse(
    vector_hits: Vec<Hit>,
    text_hits: Vec<Hit>,
    id_hits: Vec<Hit>,
    holding: &HashSet<String>,
    limit: usize,
) -> Vec<Hit> {
    let lowest = |xs: Vec<f32>| xs.into_iter().reduce(f32::min).unwrap_or(0.0);
    let vector_floor = lowest(vector_hits.iter().filter_map(|h| h.vector_score).collect());
    let text_scores: Vec<f32> = text_hits.iter().filter_map(|h| h.text_score).collect();
    let text_best = text_scores.iter().copied().fold(0.0f32, f32::max);
    let text_floor = lowest(text_scores);
    let mut by_id: HashMap<String, Hit> = HashMap::new();
    for h in vector_hits.into_iter().chain(text_hits).chain(id_hits) {
        match by_id.get_mut(&h.chunk_id) {
            Some(existing) => {
                existing.text_score = existing.text_score.or(h.text_score);
                existing.text_rank = existing.text_rank.or(h.text_rank);
                existing.vector_score = existing.vector_score.or(h.vector_score);
                existing.vector_rank = existing.vector_rank.or(h.vector_rank);
            }
            None => {
                by_id.insert(h.chunk_id.clone(), h);
            }
        }
    }
    let mut hits: Vec<Hit> = by_id
        .into_values()
        .map(|mut h| {
            let text = if text_best > 0.0 {
                h.text_score.unwrap_or(text_floor) / text_best
            } else {
                0.0
            };
            let vector = h.vector_score.unwrap_or(vector_floor);
            h.holds_identifier = holding.contains(&h.chunk_id);
            let boost = if h.holds_identifier {
                IDENTIFIER_BOOST
            } else {
                0.0
            };
            h.score = VECTOR_WEIGHT * vector + (1.0 - VECTOR_WEIGHT) * text + boost;
            h
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.chunk_id.cmp(&b.chunk_id))
    });
    hits.truncate(limit);
    hits
}

fn column<'a, T: 'static>(batch: &'a RecordBatch, name: &str) -> Result<&'a T, IndexError> {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| IndexError::Schema(format!("column {name}")))
}

fn read_hits(batches: &[RecordBatch], profile_id: &str) -> Result<Vec<Hit>, IndexError> {
    let mut out = Vec::new();
    for b in batches {
        let chunk_id = column::<StringArray>(b, "chunk_id")?;
        let document_id = column::<StringArray>(b, "document_id")?;
        let profile = column::<StringArray>(b, "profile_id")?;
        let page_start = column::<UInt32Array>(b, "page_start")?;
        let page_end = column::<UInt32Array>(b, "page_end")?;
        let chunk_index = column::<UInt32Array>(b, "chunk_index")?;
        let char_start = column::<UInt64Array>(b, "char_start")?;
        let char_end = column::<UInt64Array>(b, "char_end")?;
        let heading = column::<StringArray>(b, "heading")?;
        let text = column::<StringArray>(b, "text")?;
        let distance = b
            .column_by_name("_distance")
            .and_then(|c| c.as_any().downcast_ref::<Float32Array>());
        let score = b
            .column_by_name("_score")
            .and_then(|c| c.as_any().downcast_ref::<Float32Array>());
        for i in 0..b.num_rows() {
            // Defence in depth: the filter already scopes by profile.
            if profile.value(i) != profile_id {
                continue;
            }
            out.push(Hit {
                chunk_id: chunk_id.value(i).to_owned(),
                document_id: document_id.value(i).to_owned(),
                page_start: page_start.value(i),
                page_end: page_end.value(i),
                chunk_index: chunk_index.value(i),
                char_start: char_start.value(i),
                char_end: char_end.value(i),
                heading: heading.value(i).to_owned(),
                text: text.value(i).to_owned(),
                vector_score: distance.map(|d| 1.0 - d.value(i)),
                text_score: score.map(|s| s.value(i)),
                vector_rank: None,
                text_rank: None,
                score: 0.0,
                holds_identifier: false,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(id: &str, vector: Option<f32>, text: Option<f32>) -> Hit {
        let mut h = Hit::outline(id, vector.unwrap_or(0.0), 1);
        h.vector_score = vector;
        h.vector_rank = vector.map(|_| 1);
        h.text_score = text;
        h.text_rank = text.map(|_| 1);
        h
    }

    #[test]
    fn fusion_keeps_a_clear_lead_on_one_side_that_rank_fusion_would_flatten() {
        // "lead": far ahead on full text (the question's own words), a little behind by vector.
        // "middling": second on both sides. Rank fusion puts "middling" (2nd + 2nd) level with
        // "lead" (1st + 3rd) or ahead; the scores say "lead" is the better passage.
        let vector = vec![
            scored("other", Some(0.62), None),
            scored("middling", Some(0.60), None),
            scored("lead", Some(0.58), None),
        ];
        let text = vec![
            scored("lead", None, Some(30.0)),
            scored("middling", None, Some(9.0)),
            scored("tail", None, Some(8.0)),
        ];
        let fused = fuse(vector, text, Vec::new(), &HashSet::new(), 10);
        let order: Vec<&str> = fused.iter().map(|h| h.chunk_id.as_str()).collect();
        assert_eq!(order[0], "lead", "{order:?}");
        // A passage only one side returned takes the other side's lowest score, so it is
        // neither dropped nor promoted: "other" (vector only) keeps 8/30 of the text best.
        let other = fused.iter().find(|h| h.chunk_id == "other").unwrap();
        let want = VECTOR_WEIGHT * 0.62 + (1.0 - VECTOR_WEIGHT) * 8.0 / 30.0;
        assert!(
            (other.score - want).abs() < 1e-6,
            "{} vs {want}",
            other.score
        );
        assert_eq!(fused.len(), 4);
    }

    #[test]
    fn fusion_without_full_text_hits_orders_by_vector_similarity() {
        let vector = vec![scored("b", Some(0.4), None), scored("a", Some(0.7), None)];
        let fused = fuse(vector, Vec::new(), Vec::new(), &HashSet::new(), 10);
        let order: Vec<&str> = fused.iter().map(|h| h.chunk_id.as_str()).collect();
        assert_eq!(order, ["a", "b"]);
    }

    /// An empty index in a temporary directory (kept alive by the returned guard).
    async fn temp_index(dim: usize) -> (tempfile::TempDir, ChunkIndex) {
        let tmp = tempfile::tempdir().unwrap();
        let uri = tmp.path().join("lancedb").to_string_lossy().into_owned();
        let index = ChunkIndex::open(&uri, dim).await.unwrap();
        (tmp, index)
    }

    /// A deterministic unit vector per seed (no model needed to test the index itself).
    fn vector(seed: u64, dim: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut v: Vec<f32> = (0..dim)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2001) as f32 / 1000.0 - 1.0
            })
            .collect();
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.iter_mut().for_each(|a| *a /= n);
        v
    }

    fn row(profile: &str, doc: &str, i: u64, v: Vec<f32>) -> ChunkRow {
        ChunkRow {
            chunk_id: format!("{doc}:{i}"),
            profile_id: profile.to_owned(),
            document_id: doc.to_owned(),
            set_id: String::new(),
            doc_type: "regulatory".into(),
            page_start: 1,
            page_end: 1,
            chunk_index: u32::try_from(i).unwrap(),
            char_start: 0,
            char_end: 10,
            heading: String::new(),
            text: format!("passage number {i}"),
            vector: v,
        }
    }

    #[tokio::test]
    async fn full_text_search_finds_a_passage_by_the_words_of_its_heading() {
        let dim = 16;
        let (_tmp, index) = temp_index(dim).await;
        let (p, d) = (
            uuid::Uuid::new_v4().to_string(),
            uuid::Uuid::new_v4().to_string(),
        );
        let mut under_heading = row(&p, &d, 0, vector(0, dim));
        under_heading.heading = "4 Moorings > 4.2 Winter storage".into();
        under_heading.text = "Boats stay ashore on cradles from November to March.".into();
        let mut other = row(&p, &d, 1, vector(1, dim));
        other.heading = "5 Fees".into();
        other.text = "Berth fees are paid every quarter in advance.".into();
        index.add(&[under_heading, other]).await.unwrap();
        index.refresh_text_index().await.unwrap();
        let scope = Scope {
            profile_id: p.clone(),
            document_ids: vec![d.clone()],
            excluded: None,
        };
        let hits = index
            .text_search(&scope, "winter storage", 5)
            .await
            .unwrap();
        assert_eq!(
            hits.first().map(|h| h.chunk_id.as_str()),
            Some(format!("{d}:0").as_str()),
            "the passage under the heading that names the query: {hits:?}"
        );
        // The text is still searched: "quarter" is in the fees passage only.
        let hits = index.text_search(&scope, "quarter", 5).await.unwrap();
        assert_eq!(
            hits.first().map(|h| h.chunk_id.as_str()),
            Some(format!("{d}:1").as_str())
        );
    }

    #[tokio::test]
    async fn past_the_threshold_vectors_get_an_ann_index_that_keeps_scope_and_exact_matches() {
        let dim = 64;
        let (_tmp, index) = temp_index(dim).await;
        let index = index.with_ann_min_rows(1000);
        let (a, b) = (
            uuid::Uuid::new_v4().to_string(),
            uuid::Uuid::new_v4().to_string(),
        );
        let (doc_a, doc_b) = (
            uuid::Uuid::new_v4().to_string(),
            uuid::Uuid::new_v4().to_string(),
        );
        let mut rows: Vec<ChunkRow> = (0..900)
            .map(|i| row(&a, &doc_a, i, vector(i, dim)))
            .collect();
        // Profile b holds exact copies of some of a's vectors: it must never leak into a's results.
        rows.extend((0..300).map(|i| row(&b, &doc_b, i, vector(i, dim))));
        index.add(&rows[..600]).await.unwrap();
        index.refresh_text_index().await.unwrap();
        assert!(
            !index.has_vector_index().await.unwrap(),
            "600 rows: exact search"
        );
        index.add(&rows[600..]).await.unwrap();
        index.refresh_text_index().await.unwrap();
        assert!(
            index.has_vector_index().await.unwrap(),
            "1,200 rows: ANN index"
        );
        // Rows added after the index was built are still found (merged or scanned).
        index
            .add(&[row(&a, &doc_a, 5000, vector(5000, dim))])
            .await
            .unwrap();
        let scope_a = Scope {
            profile_id: a.clone(),
            document_ids: vec![doc_a.clone()],
            excluded: None,
        };
        for seed in [3u64, 150, 299, 899, 5000] {
            let hits = index
                .vector_search(&scope_a, &vector(seed, dim), 5)
                .await
                .unwrap();
            assert_eq!(hits[0].chunk_id, format!("{doc_a}:{seed}"), "seed {seed}");
            assert!(hits.iter().all(|h| h.document_id == doc_a));
        }
        // The whole profile in scope, filtered by what to leave out: profile b still never
        // shows, and a document of a that is in neither list (written after the scope was
        // resolved) stays invisible.
        let late = uuid::Uuid::new_v4().to_string();
        index
            .add(&[row(&a, &late, 7000, vector(7000, dim))])
            .await
            .unwrap();
        let whole_a = Scope {
            excluded: Some(Vec::new()),
            ..scope_a.clone()
        };
        assert_eq!(
            scope_filter(&whole_a).unwrap(),
            format!("profile_id = '{a}'")
        );
        for seed in [3u64, 7000] {
            let hits = index
                .vector_search(&whole_a, &vector(seed, dim), 5)
                .await
                .unwrap();
            assert!(!hits.is_empty());
            assert!(hits.iter().all(|h| h.document_id == doc_a), "seed {seed}");
        }
        let hidden = Scope {
            excluded: Some(vec![doc_b.clone()]),
            document_ids: vec![doc_a.clone(), late.clone(), "x".repeat(8)],
            ..scope_a.clone()
        };
        assert!(scope_filter(&hidden).unwrap().contains("NOT IN"));
        let hits = index
            .vector_search(&hidden, &vector(7000, dim), 5)
            .await
            .unwrap();
        assert_eq!(hits[0].chunk_id, format!("{late}:7000"));
    }

    #[tokio::test]
    async fn vectors_in_memory_match_lances_exact_scan_follow_writes_and_keep_profiles_apart() {
        let dim = 48;
        let (_tmp, index) = temp_index(dim).await;
        let id = || uuid::Uuid::new_v4().to_string();
        let (a, b) = (id(), id());
        let docs_a: Vec<String> = (0..4).map(|_| id()).collect();
        let doc_b = id();
        let mut rows: Vec<ChunkRow> = (0..2000)
            .map(|i| row(&a, &docs_a[(i % 4) as usize], i, vector(i, dim)))
            .collect();
        // Profile b holds exact copies of a's first vectors.
        rows.extend((0..500).map(|i| row(&b, &doc_b, i, vector(i, dim))));
        index.add(&rows).await.unwrap();
        let scope_a = Scope {
            profile_id: a.clone(),
            document_ids: docs_a.clone(),
            excluded: None,
        };
        let scope_b = Scope {
            profile_id: b.clone(),
            document_ids: vec![doc_b.clone()],
            excluded: None,
        };
        for seed in [7u64, 100, 1999, 31_337] {
            let query = vector(seed, dim);
            let fast = index.vector_search(&scope_a, &query, 10).await.unwrap();
            let exact = index
                .vector_search_exact(&scope_a, &query, 10)
                .await
                .unwrap();
            let ids = |h: &[Hit]| h.iter().map(|h| h.chunk_id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&fast), ids(&exact), "seed {seed}");
            for (f, e) in fast.iter().zip(&exact) {
                let (fs, es) = (f.vector_score.unwrap(), e.vector_score.unwrap());
                assert!((fs - es).abs() < 1e-4, "seed {seed}: {fs} vs {es}");
                assert_eq!(f.text, e.text);
                assert_eq!(f.vector_rank, e.vector_rank);
            }
        }
        // A hybrid search fuses the in-memory ranking before reading rows: the same result as
        // fusing LanceDB's exact vector hits with the full-text hits.
        index.refresh_text_index().await.unwrap();
        for (seed, text) in [
            (7u64, "passage number 7"),
            (1500, "number 1500"),
            (3, "nothing"),
        ] {
            let query = vector(seed, dim);
            let hybrid = index
                .hybrid_search(
                    &scope_a,
                    &Query {
                        text,
                        identifiers: &[],
                    },
                    async { Ok::<_, IndexError>(query.clone()) },
                    5,
                )
                .await
                .unwrap();
            let candidates = hybrid_candidates(5);
            let want = fuse(
                index
                    .vector_search_exact(&scope_a, &query, candidates)
                    .await
                    .unwrap(),
                index.text_search(&scope_a, text, candidates).await.unwrap(),
                Vec::new(),
                &HashSet::new(),
                5,
            );
            assert_eq!(hybrid.len(), want.len(), "{text}");
            for (h, w) in hybrid.iter().zip(&want) {
                assert_eq!(
                    (
                        &h.chunk_id,
                        &h.text,
                        h.vector_rank,
                        h.text_rank,
                        h.page_start
                    ),
                    (
                        &w.chunk_id,
                        &w.text,
                        w.vector_rank,
                        w.text_rank,
                        w.page_start
                    ),
                    "{text}"
                );
                // The fused score holds the cosine itself, which memory and LanceDB compute
                // in a different order (the last digits of an f32 differ).
                assert!(
                    (h.score - w.score).abs() < 1e-4,
                    "{} vs {}",
                    h.score,
                    w.score
                );
            }
        }
        // The searches above ran in memory, on a's rows only.
        let held = index.resident.lock().await.clone().unwrap();
        assert_eq!((held.profile_id.as_str(), held.len()), (a.as_str(), 2000));
        // Profile b's search replaces the copy and sees b only, though a holds the same vectors.
        let hits = index
            .vector_search(&scope_b, &vector(7, dim), 5)
            .await
            .unwrap();
        assert_eq!(hits[0].chunk_id, format!("{doc_b}:7"));
        assert!(hits.iter().all(|h| h.document_id == doc_b));
        // A document left out of the scope, then deleted, then new rows: each write is seen.
        let without_first = Scope {
            excluded: Some(vec![docs_a[0].clone()]),
            ..scope_a.clone()
        };
        let hits = index
            .vector_search(&without_first, &vector(8, dim), 5)
            .await
            .unwrap();
        assert!(hits.iter().all(|h| h.document_id != docs_a[0]));
        index.delete_document(&a, &docs_a[1]).await.unwrap();
        let hits = index
            .vector_search(&scope_a, &vector(9, dim), 5)
            .await
            .unwrap();
        assert!(!hits.is_empty());
        assert!(
            hits.iter().all(|h| h.document_id != docs_a[1]),
            "deleted rows found"
        );
        index
            .add(&[row(&a, &docs_a[2], 9000, vector(9000, dim))])
            .await
            .unwrap();
        let hits = index
            .vector_search(&scope_a, &vector(9000, dim), 1)
            .await
            .unwrap();
        assert_eq!(hits[0].chunk_id, format!("{}:9000", docs_a[2]));
    }

    #[tokio::test]
    async fn stale_row_ids_of_vectors_in_memory_fall_back_to_lancedb() {
        use lancedb::table::CompactionOptions;
        let dim = 16;
        let (_tmp, index) = temp_index(dim).await;
        let a = uuid::Uuid::new_v4().to_string();
        let docs: Vec<String> = (0..2).map(|_| uuid::Uuid::new_v4().to_string()).collect();
        // Two writes, so two fragments, each with rows of both documents: deleting the first
        // document leaves holes that compaction closes by renumbering.
        for part in 0..2u64 {
            let rows: Vec<ChunkRow> = (0..300u64)
                .flat_map(|i| {
                    let i = part * 300 + i;
                    [0u64, 1].map(|d| {
                        row(
                            &a,
                            &docs[d as usize],
                            d * 1000 + i,
                            vector(d * 1000 + i, dim),
                        )
                    })
                })
                .collect();
            index.add(&rows).await.unwrap();
        }
        index.delete_document(&a, &docs[0]).await.unwrap();
        let scope = Scope {
            profile_id: a.clone(),
            document_ids: docs.clone(),
            excluded: None,
        };
        index
            .vector_search(&scope, &vector(1005, dim), 3)
            .await
            .unwrap();
        // Compaction renumbers the rows; pretend the copy in memory was read after it.
        let held = index.resident.lock().await.take().unwrap();
        let mut stale = Arc::try_unwrap(held).unwrap();
        index
            .table
            .optimize(OptimizeAction::Compact {
                options: CompactionOptions {
                    target_rows_per_fragment: 100_000,
                    ..Default::default()
                },
                remap_options: None,
            })
            .await
            .unwrap();
        stale.version = index.table.version().await.unwrap();
        *index.resident.lock().await = Some(Arc::new(stale));
        for (n, seed) in [1005u64, 1599, 1100].into_iter().enumerate() {
            let hits = index
                .vector_search(&scope, &vector(seed, dim), 3)
                .await
                .unwrap();
            assert_eq!(
                hits[0].chunk_id,
                format!("{}:{seed}", docs[1]),
                "seed {seed}"
            );
            assert!(hits.iter().all(|h| h.document_id == docs[1]));
            // The first search found the row ids stale and dropped the copy; the next one
            // read it again.
            assert_eq!(index.resident.lock().await.is_none(), n == 0, "search {n}");
        }
    }
}
