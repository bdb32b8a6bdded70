//! The document library: the one API the CLI and the desktop app call.
//!
//! Owns: coordinating the SQLite store, the LanceDB index, the embedder and ingestion, so that
//! the two stores stay consistent. A document is visible to search only once SQLite says it is
//! `ready`, which happens after all its chunks are written; a crash in between leaves a
//! `processing` row whose ingestion lock ([`crate::liveness`]) the OS has released: the next
//! [`Library::open`], or the next attempt to add the same file, marks it failed and removes its
//! chunks at once (a live ingestion's lock is held, so it is never touched). Must not: print, parse command lines, or know about Tauri.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use sha2::{Digest, Sha256};
use tokio::sync::{Mutex, OnceCell};

use crate::config::{DataDir, EmbedderSettings, Settings};
use crate::embed::minilm::MiniLm;
use crate::embed::openai::OpenAiEmbedder;
use crate::embed::{EmbedError, Embedder};
use crate::index::{ChunkIndex, ChunkRow, Hit, IndexError, Query, Scope, identifiers};
use crate::ingest::{self, IngestError, chunk};
use crate::liveness::IngestLock;
use crate::store::{
    DocSet, DocStatus, DocType, Document, InsertError, NewDocument, Profile, Store, StoreError,
};
use crate::{Error, secrets};

/// `meta` key holding the embedding model that built the index.
const META_EMBED_MODEL: &str = "embed_model";
/// The LanceDB table that holds the chunks ([`crate::index::TABLE`] until a reindex swaps in
/// another one).
const META_INDEX_TABLE: &str = "index_table";
/// The lock a reindex holds ([`crate::liveness`]).
const REINDEX_LOCK: &str = "reindex";
/// Held shared by every ingestion and delete while it writes to the live index, and
/// exclusively by a reindex, which replaces that index: neither can start while the other runs, in any process
/// (two separate checks left a window in which an ingestion's chunks went into the table a
/// reindex was about to replace). Recovery takes it too before it finishes interrupted deletes.
pub const INDEX_WRITERS_LOCK: &str = "index-writers";
/// Name ending of a stored PDF's copy while it is being written (`<document id>.pdf.partial`).
const PARTIAL_SUFFIX: &str = ".pdf.partial";
/// Chunks embedded per call of the embedder (progress is reported after each).
const EMBED_BATCH: usize = 64;
/// Longest title accepted.
const MAX_TITLE_CHARS: usize = 300;
/// Dimension of all-MiniLM-L6-v2.
const MINILM_DIMENSION: usize = 384;

/// A stage of ingesting one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Reading and checking the file.
    Reading,
    /// Extracting page text.
    Extracting,
    /// Reading scanned pages with OCR (`done` of `total` pages).
    Recognising,
    /// Cleaning and chunking.
    Chunking,
    /// Embedding chunks (`done` of `total` chunks).
    Embedding,
    /// Updating the full-text index.
    Indexing,
    /// Searchable.
    Done,
}

/// A progress report of one ingestion.
#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    /// The file being ingested.
    pub file: String,
    /// Current stage.
    pub stage: Stage,
    /// Units done in this stage (pages or chunks).
    pub done: usize,
    /// Units in this stage.
    pub total: usize,
}

/// What a progress callback wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Keep going.
    Continue,
    /// Stop this ingestion; nothing of it stays in the library.
    Cancel,
}

/// What to ingest and how to label it (also the desktop's IPC payload).
#[derive(Debug, Clone, serde::Deserialize)]
pub struct IngestRequest {
    /// The PDF.
    pub path: PathBuf,
    /// Title; default: the file name without extension.
    pub title: Option<String>,
    /// Version label.
    pub version: Option<String>,
    /// Regulatory or policy.
    pub doc_type: DocType,
    /// Set name (created if new).
    pub set: Option<String>,
    /// Id of the document this one replaces.
    pub supersedes: Option<String>,
}

impl IngestRequest {
    /// `path` as a regulatory document with the labels taken from the file.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            title: None,
            version: None,
            doc_type: DocType::Regulatory,
            set: None,
            supersedes: None,
        }
    }
}

/// Time and volume of each ingestion stage.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StageTimings {
    /// Reading, hashing and checking.
    pub read_s: f64,
    /// Text extraction.
    pub extract_s: f64,
    /// Clean-up and chunking.
    pub chunk_s: f64,
    /// Embedding.
    pub embed_s: f64,
    /// Writing chunks and refreshing the full-text index.
    pub write_s: f64,
    /// Tokens embedded.
    pub tokens: usize,
}

/// The outcome of one successful ingestion.
#[derive(Debug, Clone, Serialize)]
pub struct IngestReport {
    /// The new document (status `ready`).
    pub document: Document,
    /// Where the time went.
    pub timings: StageTimings,
}

/// Longest search query, in characters (a question, or a statement the agent searches for).
pub const MAX_QUERY_CHARS: usize = 4000;

/// What to search and where.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    /// The query text.
    pub query: String,
    /// Results wanted (1–100).
    pub k: usize,
    /// Restrict to these documents (named explicitly: disabled and superseded ones count).
    pub documents: Vec<String>,
    /// Restrict to a set (by name).
    pub set: Option<String>,
    /// Restrict to a kind of document.
    pub doc_type: Option<DocType>,
}

/// One search result with its document's labels.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResult {
    /// The physical page holding most of the chunk.
    pub page: u32,
    /// Document title.
    pub title: String,
    /// Document version.
    pub version: String,
    /// The chunk and its scores.
    #[serde(flatten)]
    pub hit: Hit,
}

/// Document details for `docs show`.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentDetails {
    /// The document.
    #[serde(flatten)]
    pub document: Document,
    /// Where its original PDF is kept.
    pub stored_file: PathBuf,
    /// Chunks in the index.
    pub indexed_chunks: usize,
    /// Pages per extractor (`pdf_extract`, `lopdf`, `ocr`, `none`).
    pub extractors: HashMap<String, usize>,
}

/// Metadata key of the profile in use when none is named (its id). The name dates from when
/// only the desktop app kept it; existing libraries keep their choice.
const META_ACTIVE_PROFILE: &str = "desktop.active_profile";

/// The document library of one data directory.
pub struct Library {
    dir: DataDir,
    settings: Settings,
    store: Store,
    embedder: OnceCell<Arc<dyn Embedder>>,
    /// The process that extracts text from PDFs.
    worker: ingest::worker::Worker,
    /// The open chunks table (the one `meta.index_table` names); replaced when a reindex
    /// swaps in the table it built.
    index: tokio::sync::RwLock<Option<ChunkIndex>>,
    /// Serialises full-text index maintenance within this process.
    index_maintenance: Mutex<()>,
    /// Recent query embeddings: one question is embedded for the answer cache, for retrieval
    /// and for remembering the answer; the model runs once.
    recent_queries: std::sync::Mutex<VecDeque<(String, Vec<f32>)>>,
}

/// Query embeddings kept by [`Library::embed_query`].
const RECENT_QUERIES: usize = 16;

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("dir", &self.dir.root())
            .finish()
    }
}

impl Library {
    /// Opens (creating if needed) the library in a data directory and recovers ingestions that
    /// a crash interrupted.
    pub async fn open(dir: DataDir) -> Result<Self, Error> {
        dir.ensure()?;
        let settings = dir.load_settings()?;
        let store = Store::open(&dir.database()).await?;
        let worker = ingest::worker::Worker::new(settings.extract_worker.as_deref())?;
        let lib = Self {
            dir,
            settings,
            store,
            embedder: OnceCell::new(),
            worker,
            index: tokio::sync::RwLock::new(None),
            index_maintenance: Mutex::new(()),
            recent_queries: std::sync::Mutex::new(VecDeque::new()),
        };
        lib.recover().await?;
        Ok(lib)
    }

    /// Uses this embedder instead of the one the settings describe (the benchmark and tests
    /// share one loaded model between libraries).
    pub fn with_embedder(self, embedder: Arc<dyn Embedder>) -> Self {
        let cell = OnceCell::new();
        // A fresh cell cannot be full, so this cannot fail.
        let _ = cell.set(embedder);
        Self {
            embedder: cell,
            recent_queries: std::sync::Mutex::new(VecDeque::new()),
            ..self
        }
    }

    /// The embedding of a search query, reused when the same text was embedded just before.
    pub async fn embed_query(&self, query: &str) -> Result<Vec<f32>, Error> {
        let hit = self
            .recent_queries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(q, _)| q == query)
            .map(|(_, v)| v.clone());
        if let Some(v) = hit {
            return Ok(v);
        }
        let v = self.embedder().await?.embed_query(query).await?;
        let mut recent = self
            .recent_queries
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        recent.push_front((query.to_owned(), v.clone()));
        recent.truncate(RECENT_QUERIES);
        Ok(v)
    }

    /// The data directory.
    pub fn data_dir(&self) -> &DataDir {
        &self.dir
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The SQLite store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Closes the database cleanly.
    pub async fn close(&self) {
        self.store.close().await;
    }

    /// The embedder the settings select, loaded on first use.
    pub async fn embedder(&self) -> Result<Arc<dyn Embedder>, Error> {
        let e = self
            .embedder
            .get_or_try_init(|| async {
                let embedder: Arc<dyn Embedder> = match &self.settings.embedder {
                    EmbedderSettings::Local { .. } => {
                        let dir = self.dir.model_dir(&self.settings);
                        let model = tokio::task::spawn_blocking(move || MiniLm::load(&dir))
                            .await
                            .map_err(|e| Error::Internal(format!("model loading task: {e}")))??;
                        Arc::new(model)
                    }
                    EmbedderSettings::OpenAi {
                        base_url,
                        model,
                        dimension,
                    } => {
                        let key =
                            secrets::key_for(base_url, secrets::stored(secrets::EMBEDDINGS_KEY)?)?;
                        Arc::new(OpenAiEmbedder::new(base_url, model, *dimension, key))
                    }
                };
                Ok::<_, Error>(embedder)
            })
            .await?;
        Ok(e.clone())
    }

    fn configured_dimension(&self) -> usize {
        match &self.settings.embedder {
            EmbedderSettings::Local { .. } => MINILM_DIMENSION,
            EmbedderSettings::OpenAi { dimension, .. } => *dimension,
        }
    }

    /// The chunk index, opened on first use.
    pub async fn index(&self) -> Result<ChunkIndex, Error> {
        if let Some(i) = self.index.read().await.as_ref() {
            return Ok(i.clone());
        }
        let mut slot = self.index.write().await;
        if let Some(i) = slot.as_ref() {
            return Ok(i.clone());
        }
        let dimension = match self.embedder.get() {
            Some(e) => e.dimension(),
            None => self.configured_dimension(),
        };
        let name = self.active_table().await?;
        let index = self.open_table(&name, dimension).await?;
        *slot = Some(index.clone());
        Ok(index)
    }

    /// The name of the chunks table in use.
    async fn active_table(&self) -> Result<String, Error> {
        Ok(self
            .store
            .meta(META_INDEX_TABLE)
            .await?
            .unwrap_or_else(|| crate::index::TABLE.to_owned()))
    }

    async fn open_table(&self, name: &str, dimension: usize) -> Result<ChunkIndex, Error> {
        let uri = self.dir.lancedb().to_string_lossy().into_owned();
        Ok(ChunkIndex::open_named(&uri, name, dimension)
            .await?
            .with_ann_min_rows(self.settings.search.ann_min_rows)
            .with_ann_params(self.settings.search.ann()))
    }

    /// Fails when the index was built by another model than `embedder`.
    async fn check_model(&self, embedder: &dyn Embedder) -> Result<(), Error> {
        match self.store.meta(META_EMBED_MODEL).await? {
            Some(indexed) if indexed != embedder.model_id() => Err(IndexError::ModelMismatch {
                indexed,
                configured: embedder.model_id(),
            }
            .into()),
            _ => Ok(()),
        }
    }

    /// Marks failed every ingestion whose process is gone (its lock can be taken, see
    /// [`crate::liveness`]): at once, whatever its lease says, and never one that a live
    /// process (this one, another window, the CLI) is still running.
    async fn recover(&self) -> Result<(), Error> {
        // Tables a killed reindex left behind, unless a reindex is running in another process.
        if tokio::fs::try_exists(self.dir.lancedb())
            .await
            .unwrap_or(false)
            && let Some(_lock) =
                IngestLock::try_acquire_named(&self.dir, REINDEX_LOCK).map_err(self.lock_error())?
        {
            self.drop_unused_tables().await;
        }
        // Interrupted deletes write to the live index: not while another process reindexes,
        // whose swap could drop the table they write to. Their rows are gone, so the documents
        // are already out of every list and search; the next start finishes them.
        let tombstones = self.store.pending_deletes().await?;
        if !tombstones.is_empty() {
            match IngestLock::try_acquire_shared(&self.dir, INDEX_WRITERS_LOCK)
                .map_err(self.lock_error())?
            {
                Some(_writing) => {
                    for (profile_id, doc_id) in tombstones {
                        tracing::warn!(document = %doc_id, "finishing an interrupted delete");
                        self.finish_delete(&profile_id, &doc_id).await?;
                    }
                }
                None => tracing::info!(
                    deletes = tombstones.len(),
                    "the index is being rebuilt by another process; interrupted deletes wait for the next start"
                ),
            }
        }
        for (profile_id, doc_id, sha) in self.store.processing_documents().await? {
            let lock =
                IngestLock::try_acquire(&self.dir, &profile_id, &sha).map_err(self.lock_error())?;
            let Some(_lock) = lock else {
                tracing::debug!(document = %doc_id, "ingestion in progress in a live process");
                continue;
            };
            self.mark_interrupted(&profile_id, &doc_id).await?;
        }
        self.remove_partial_copies().await?;
        IngestLock::sweep(&self.dir).map_err(self.lock_error())?;
        Ok(())
    }

    /// Removes the `.partial` copies of stored PDFs that a killed ingestion left (a copy is
    /// written whole under that name, then renamed into place). A copy whose ingestion runs in
    /// a live process is kept: its row is still `processing` (dead ones were failed above, and
    /// a row is written before its copy).
    async fn remove_partial_copies(&self) -> Result<(), Error> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::File { path, source }
        };
        let files = self.dir.files_dir();
        let mut profiles = tokio::fs::read_dir(&files).await.map_err(io(&files))?;
        while let Some(profile) = profiles.next_entry().await.map_err(io(&files))? {
            let dir = profile.path();
            if !dir.is_dir() {
                continue;
            }
            let profile_id = profile.file_name().to_string_lossy().into_owned();
            let mut entries = tokio::fs::read_dir(&dir).await.map_err(io(&dir))?;
            while let Some(entry) = entries.next_entry().await.map_err(io(&dir))? {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(doc_id) = name.strip_suffix(PARTIAL_SUFFIX) else {
                    continue;
                };
                let live = match self.store.document(&profile_id, doc_id).await {
                    Ok(d) => d.status == DocStatus::Processing,
                    Err(StoreError::DocumentNotFound(_)) => false,
                    Err(e) => return Err(e.into()),
                };
                if !live {
                    tracing::warn!(file = %entry.path().display(), "removing a partial copy");
                    remove_if_present(entry.path()).await?;
                }
            }
        }
        Ok(())
    }

    /// An ingestion whose process is gone (the caller holds its lock): its partial chunks
    /// removed, its row failed.
    async fn mark_interrupted(&self, profile_id: &str, doc_id: &str) -> Result<(), Error> {
        tracing::warn!(document = %doc_id, "ingestion was interrupted; marking the document failed");
        if let Ok(index) = self.index().await
            && let Err(e) = index.delete_document(profile_id, doc_id).await
        {
            tracing::warn!(document = %doc_id, error = %e, "could not remove partial chunks");
        }
        self.store
            .mark_failed(
                profile_id,
                doc_id,
                "ingestion was interrupted (PolicyPal stopped before it finished); add the file again",
            )
            .await?;
        Ok(())
    }

    // ------------------------------------------------------------------ profiles

    /// The profile with this name or id.
    pub async fn profile(&self, name_or_id: &str) -> Result<Profile, Error> {
        Ok(self.store.profile(name_or_id).await?)
    }

    /// The profile in use when none is named: the one the app (or `profiles use`) made active
    /// last, else "default", else the first profile, else a new "default". The app and the
    /// CLI share it, so the library a user set up in the app's first run (which renames
    /// "default" to the user's name) is the CLI's library too.
    pub async fn active_profile(&self) -> Result<Profile, Error> {
        if let Some(id) = self.store.meta(META_ACTIVE_PROFILE).await?
            && let Ok(p) = self.store.profile(&id).await
        {
            return Ok(p);
        }
        match self.store.profile("default").await {
            Err(StoreError::ProfileNotFound(_)) => {}
            other => return Ok(other?),
        }
        match self.store.profiles().await?.into_iter().next() {
            Some(p) => Ok(p),
            None => self.ensure_profile("default").await,
        }
    }

    /// Makes `profile` the one in use when none is named (see [`Library::active_profile`]).
    pub async fn set_active_profile(&self, profile: &Profile) -> Result<(), Error> {
        Ok(self
            .store
            .set_meta(META_ACTIVE_PROFILE, &profile.id)
            .await?)
    }

    /// The profile with this name, created (with empty industry and location) if missing.
    pub async fn ensure_profile(&self, name: &str) -> Result<Profile, Error> {
        match self.store.profile(name).await {
            Err(StoreError::ProfileNotFound(_)) => {
                match self
                    .store
                    .create_profile(name, &crate::store::UserContext::default())
                    .await
                {
                    Err(StoreError::ProfileExists(_)) => Ok(self.store.profile(name).await?),
                    other => Ok(other?),
                }
            }
            other => Ok(other?),
        }
    }

    // ------------------------------------------------------------------ ingestion

    /// Ingests one PDF. `progress` is called at every stage and may cancel.
    pub async fn ingest(
        &self,
        profile: &Profile,
        req: &IngestRequest,
        progress: &(dyn Fn(&Progress) -> Flow + Send + Sync),
    ) -> Result<IngestReport, Error> {
        let file = req
            .path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| req.path.display().to_string());
        let report = |stage, done, total| {
            progress(&Progress {
                file: file.clone(),
                stage,
                done,
                total,
            })
        };
        let mut timings = StageTimings::default();
        let started = Instant::now();
        if report(Stage::Reading, 0, 1) == Flow::Cancel {
            return Err(Error::Cancelled);
        }
        let bytes = Arc::new(read_file(&req.path, self.settings.limits.max_file_bytes).await?);
        let page_count = ingest::check(bytes.clone(), &self.settings.limits, &self.worker).await?;
        let sha = hex::encode(Sha256::digest(bytes.as_slice()));
        // Held until this ingestion's row is final: while it is, no other ingestion of the
        // same file starts and no recovery takes this one for dead.
        let Some(_lock) =
            IngestLock::try_acquire(&self.dir, &profile.id, &sha).map_err(self.lock_error())?
        else {
            return Err(Error::IngestInProgress {
                file: file.clone(),
                by: IngestLock::ingestion_holder(&self.dir, &profile.id, &sha),
            });
        };
        // A reindex running in any process would swap in a table without this document; while
        // this is held, none can start.
        let Some(_writing) = IngestLock::try_acquire_shared(&self.dir, INDEX_WRITERS_LOCK)
            .map_err(self.lock_error())?
        else {
            return Err(Error::LibraryBusy(format!(
                "the library is being reindexed{}; add documents when it is done",
                by(IngestLock::holder(&self.dir, REINDEX_LOCK))
            )));
        };

        if let Some(existing) = self.store.document_by_hash(&profile.id, &sha).await? {
            if existing.status == DocStatus::Processing {
                // We hold the file's lock, so the process that was adding it is gone: the
                // attempt is recovered at once, not after its lease runs out.
                self.mark_interrupted(&profile.id, &existing.id).await?;
            }
            let existing = self.store.document(&profile.id, &existing.id).await?;
            if existing.status == DocStatus::Failed {
                // A failed attempt of the same file is replaced by this one.
                self.delete_document(profile, &existing.id).await?;
            } else {
                return Err(Error::Duplicate {
                    title: existing.label(),
                    id: existing.id,
                });
            }
        }
        let title = match &req.title {
            Some(t) => t.trim().to_owned(),
            None => Path::new(&file)
                .file_stem()
                .map(|s| s.to_string_lossy().trim().to_owned())
                .unwrap_or_default(),
        };
        if title.is_empty()
            || title.chars().count() > MAX_TITLE_CHARS
            || title.chars().any(char::is_control)
        {
            return Err(Error::InvalidInput(format!(
                "title {title:?} must be 1–{MAX_TITLE_CHARS} printable characters"
            )));
        }
        let version = req.version.as_deref().unwrap_or("").trim().to_owned();
        let supersedes = match &req.supersedes {
            Some(id) => Some(self.store.document(&profile.id, id).await?.id),
            None => match self.store.latest_with_title(&profile.id, &title).await? {
                Some(prev) if prev.version.eq_ignore_ascii_case(&version) => {
                    return Err(Error::TitleVersionExists {
                        id: prev.id,
                        title,
                        version,
                    });
                }
                Some(prev) => Some(prev.id),
                None => None,
            },
        };
        let set = match &req.set {
            Some(name) => Some(self.store.ensure_set(&profile.id, name).await?),
            None => None,
        };
        // Model and index before any row exists: a missing model leaves nothing behind.
        let embedder = self.embedder().await?;
        self.check_model(embedder.as_ref()).await?;
        let index = self.index().await?;
        timings.read_s = started.elapsed().as_secs_f64();

        let lease = Duration::from_secs(self.settings.limits.ingest_lease_secs.max(1));
        let doc_id = self
            .store
            .insert_document(&NewDocument {
                profile_id: &profile.id,
                title: &title,
                version: &version,
                doc_type: req.doc_type,
                set_id: set.as_ref().map(|s| s.id.as_str()),
                file_name: &file,
                sha256: &sha,
                supersedes: supersedes.as_deref(),
                embed_model: &embedder.model_id(),
                lease,
            })
            .await
            .map_err(|e| match e {
                InsertError::Duplicate(id) => Error::Duplicate {
                    id,
                    title: title.clone(),
                },
                InsertError::Store(e) => e.into(),
            })?;
        tracing::info!(document = %doc_id, pages = page_count, "ingesting");

        let body = IngestBody {
            profile,
            doc_id: &doc_id,
            set: set.as_ref(),
            doc_type: req.doc_type,
            bytes,
            page_count,
            embedder: embedder.as_ref(),
            index: &index,
            lease,
        };
        match self.ingest_body(body, &mut timings, &report).await {
            Ok(()) => {
                if self.store.meta(META_EMBED_MODEL).await?.is_none() {
                    self.store
                        .set_meta(META_EMBED_MODEL, &embedder.model_id())
                        .await?;
                }
                report(Stage::Done, 1, 1);
                Ok(IngestReport {
                    document: self.store.document(&profile.id, &doc_id).await?,
                    timings,
                })
            }
            Err(e) => {
                let _ = index.delete_document(&profile.id, &doc_id).await;
                let _ = tokio::fs::remove_file(self.dir.document_file(&profile.id, &doc_id)).await;
                if matches!(e, Error::Ingest(_) | Error::Cancelled) {
                    // Bad input or the user's choice: leave no trace.
                    if self
                        .store
                        .delete_document(&profile.id, &doc_id)
                        .await
                        .is_ok()
                    {
                        let _ = self.store.finish_delete(&profile.id, &doc_id).await;
                    }
                } else {
                    tracing::error!(document = %doc_id, error = %e, "ingestion failed");
                    let _ = self
                        .store
                        .mark_failed(&profile.id, &doc_id, &e.to_string())
                        .await;
                }
                Err(e)
            }
        }
    }

    async fn ingest_body(
        &self,
        b: IngestBody<'_>,
        timings: &mut StageTimings,
        report: &(dyn Fn(Stage, usize, usize) -> Flow + Send + Sync),
    ) -> Result<(), Error> {
        let profile_id = &b.profile.id;
        // Keep the original so citations can reopen it.
        let stored = self.dir.document_file(profile_id, b.doc_id);
        write_atomically(&stored, &b.bytes).await?;

        if report(Stage::Extracting, 0, b.page_count) == Flow::Cancel {
            return Err(Error::Cancelled);
        }
        let mut ocr_progress =
            |done, total| report(Stage::Recognising, done, total) == Flow::Continue;
        let prepared = ingest::prepare(
            b.bytes,
            &self.settings.limits,
            self.settings.chunking,
            &self.settings.ocr,
            &self.worker,
            &mut ocr_progress,
        )
        .await?
        .ok_or(Error::Cancelled)?;
        timings.extract_s = prepared.extract_time.as_secs_f64();
        timings.chunk_s = prepared.chunk_time.as_secs_f64();
        if report(
            Stage::Chunking,
            prepared.chunks.len(),
            prepared.chunks.len(),
        ) == Flow::Cancel
        {
            return Err(Error::Cancelled);
        }
        self.store
            .insert_pages(
                profile_id,
                b.doc_id,
                prepared
                    .pages
                    .iter()
                    .zip(&prepared.spans)
                    .map(|(p, s)| crate::store::PageRow {
                        page: p.number,
                        char_start: s.char_start,
                        text: &p.text,
                        extractor: p.extractor.as_str(),
                        ocr: p.ocr.as_ref(),
                    }),
            )
            .await?;
        self.store
            .set_pages(
                profile_id,
                b.doc_id,
                prepared.pages.len(),
                &prepared.empty_pages,
            )
            .await?;

        let total = prepared.chunks.len();
        let set_id = b.set.map(|s| s.id.clone()).unwrap_or_default();
        let mut done = 0;
        for batch in prepared.chunks.chunks(EMBED_BATCH) {
            if report(Stage::Embedding, done, total) == Flow::Cancel {
                return Err(Error::Cancelled);
            }
            let texts: Vec<String> = batch.iter().map(|c| c.text.clone()).collect();
            let t = Instant::now();
            let embedded = b.embedder.embed(&texts).await?;
            timings.embed_s += t.elapsed().as_secs_f64();
            timings.tokens += embedded.tokens;
            let t = Instant::now();
            let owner = RowOwner {
                profile_id,
                document_id: b.doc_id,
                set_id: &set_id,
                doc_type: b.doc_type,
            };
            let rows = owner.rows(batch, embedded.vectors);
            b.index.add(&rows).await?;
            self.store
                .renew_lease(profile_id, b.doc_id, b.lease)
                .await?;
            timings.write_s += t.elapsed().as_secs_f64();
            done += batch.len();
        }
        report(Stage::Embedding, done, total);
        if report(Stage::Indexing, 0, 1) == Flow::Cancel {
            return Err(Error::Cancelled);
        }
        let t = Instant::now();
        self.refresh_text_index(b.index).await;
        self.store.mark_ready(profile_id, b.doc_id, total).await?;
        timings.write_s += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// Merges new rows into the full-text index. A failure is not fatal: unindexed rows are
    /// still scanned by full-text search, and the next ingestion retries.
    async fn refresh_text_index(&self, index: &ChunkIndex) {
        let _guard = self.index_maintenance.lock().await;
        for attempt in 1..=3 {
            match index.refresh_text_index().await {
                Ok(()) => return,
                Err(e) => {
                    tracing::warn!(attempt, error = %e, "full-text index refresh failed");
                    tokio::time::sleep(Duration::from_millis(200 * attempt)).await;
                }
            }
        }
    }

    // ------------------------------------------------------------------ documents

    /// All documents of a profile, newest first.
    pub async fn documents(&self, profile: &Profile) -> Result<Vec<Document>, Error> {
        Ok(self.store.documents(&profile.id).await?)
    }

    /// One document with details.
    pub async fn document(&self, profile: &Profile, id: &str) -> Result<DocumentDetails, Error> {
        let document = self.store.document(&profile.id, id).await?;
        let indexed_chunks =
            if document.status == DocStatus::Processing || document.chunk_count == 0 {
                0
            } else {
                self.index()
                    .await?
                    .count(&profile.id, Some(&document.id))
                    .await?
            };
        let extractors = self
            .store
            .extractor_counts(&profile.id, &document.id)
            .await?;
        Ok(DocumentDetails {
            stored_file: self.dir.document_file(&profile.id, &document.id),
            document,
            indexed_chunks,
            extractors,
        })
    }

    /// Deletes a document: its chunks, its stored file and its row.
    pub async fn delete_document(&self, profile: &Profile, id: &str) -> Result<(), Error> {
        let doc = self.store.document(&profile.id, id).await?;
        // A reindex copying the live table now would keep this document's chunks as orphans.
        let Some(_writing) = IngestLock::try_acquire_shared(&self.dir, INDEX_WRITERS_LOCK)
            .map_err(self.lock_error())?
        else {
            return Err(Error::LibraryBusy(format!(
                "the library is being reindexed{}; delete when it is done",
                by(IngestLock::holder(&self.dir, REINDEX_LOCK))
            )));
        };
        // The row goes first (with its tombstone, in one transaction): from then on the
        // document is neither listed nor searchable, and a crash leaves the tombstone for the
        // next start to finish — never a `ready` row whose chunks are gone.
        self.store.delete_document(&profile.id, &doc.id).await?;
        self.finish_delete(&profile.id, &doc.id).await?;
        tracing::info!(document = %doc.id, "deleted");
        Ok(())
    }

    /// The rest of a delete whose row is gone: its chunks, its stored PDF, then its tombstone.
    async fn finish_delete(&self, profile_id: &str, doc_id: &str) -> Result<(), Error> {
        self.index()
            .await?
            .delete_document(profile_id, doc_id)
            .await?;
        remove_if_present(self.dir.document_file(profile_id, doc_id)).await?;
        Ok(self.store.finish_delete(profile_id, doc_id).await?)
    }

    /// Disables or re-enables a document.
    pub async fn set_enabled(
        &self,
        profile: &Profile,
        id: &str,
        enabled: bool,
    ) -> Result<Document, Error> {
        let doc = self.store.document(&profile.id, id).await?;
        if !matches!(doc.status, DocStatus::Ready | DocStatus::Disabled) {
            return Err(Error::InvalidInput(format!(
                "document {} is {} and cannot be {}",
                doc.id,
                doc.status.as_str(),
                if enabled { "enabled" } else { "disabled" }
            )));
        }
        Ok(self.store.set_enabled(&profile.id, id, enabled).await?)
    }

    // ------------------------------------------------------------------ sets

    /// Sets of a profile.
    pub async fn sets(&self, profile: &Profile) -> Result<Vec<DocSet>, Error> {
        Ok(self.store.sets(&profile.id).await?)
    }

    /// Creates a set with a colour of the palette ([`crate::store::PALETTE`]; without one, the
    /// next colour). A name the profile already uses is a typed `duplicate` error.
    pub async fn create_set(
        &self,
        profile: &Profile,
        name: &str,
        colour: Option<&str>,
    ) -> Result<DocSet, Error> {
        Ok(self.store.create_set(&profile.id, name, colour).await?)
    }

    /// Gives a set another colour of the palette ([`crate::store::PALETTE`]); any other colour
    /// is a typed `invalid_input` error and changes nothing.
    pub async fn recolor_set(
        &self,
        profile: &Profile,
        name: &str,
        colour: &str,
    ) -> Result<DocSet, Error> {
        Ok(self.store.recolor_set(&profile.id, name, colour).await?)
    }

    // ------------------------------------------------------------------ search

    /// Resolves which documents a request may search.
    pub async fn resolve_scope(
        &self,
        profile: &Profile,
        req: &SearchRequest,
    ) -> Result<Scope, Error> {
        let whole_profile = req.documents.is_empty() && req.set.is_none() && req.doc_type.is_none();
        // Searching everything searchable: the index filter can name the few documents to
        // leave out instead of the many to keep.
        let mut excluded = None;
        let mut ids = if req.documents.is_empty() {
            let (searchable, others) = self.store.ids_by_searchability(&profile.id).await?;
            if whole_profile {
                excluded = Some(others);
            }
            searchable
        } else {
            let mut ids = Vec::new();
            for id in &req.documents {
                let d = self.store.document(&profile.id, id).await?;
                if !matches!(d.status, DocStatus::Ready | DocStatus::Disabled) {
                    return Err(Error::InvalidInput(format!(
                        "document {} is {} and cannot be searched",
                        d.id,
                        d.status.as_str()
                    )));
                }
                ids.push(d.id);
            }
            ids
        };
        if req.set.is_some() || req.doc_type.is_some() {
            let set_id = match &req.set {
                Some(name) => Some(self.store.set_by_name(&profile.id, name).await?.id),
                None => None,
            };
            let docs: HashMap<String, Document> = self
                .store
                .documents(&profile.id)
                .await?
                .into_iter()
                .map(|d| (d.id.clone(), d))
                .collect();
            ids.retain(|id| {
                docs.get(id).is_some_and(|d| {
                    set_id.as_ref().is_none_or(|s| d.set_id.as_ref() == Some(s))
                        && req.doc_type.is_none_or(|t| d.doc_type == t)
                })
            });
        }
        Ok(Scope {
            profile_id: profile.id.clone(),
            document_ids: ids,
            excluded,
        })
    }

    /// Hybrid search over the profile's library.
    pub async fn search(
        &self,
        profile: &Profile,
        req: &SearchRequest,
    ) -> Result<Vec<SearchResult>, Error> {
        let query = req.query.trim();
        if query.is_empty() {
            return Err(Error::InvalidInput("the search query is empty".into()));
        }
        if query.chars().count() > MAX_QUERY_CHARS {
            return Err(Error::InvalidInput(
                "the search query is longer than 4,000 characters".into(),
            ));
        }
        if !(1..=100).contains(&req.k) {
            return Err(Error::InvalidInput(format!(
                "k must be between 1 and 100 (got {})",
                req.k
            )));
        }
        let scope = self.resolve_scope(profile, req).await?;
        if scope.document_ids.is_empty() {
            return Ok(Vec::new());
        }
        let embedder = self.embedder().await?;
        self.check_model(embedder.as_ref()).await?;
        let index = self.index().await?;
        let identifiers = self.clause_identifiers(profile, &scope, query).await?;
        let q = Query {
            text: query,
            identifiers: &identifiers,
        };
        let hits = index
            .hybrid_search(&scope, &q, self.embed_query(query), req.k)
            .await?;
        self.label_hits(profile, hits).await
    }

    /// The identifiers of `query` that may name a clause (see [`identifiers`]): those that
    /// appear in the title, version or file name of a document in scope name that document
    /// ("ISO 27001", "version 4.2"), not a clause, and are left out.
    async fn clause_identifiers(
        &self,
        profile: &Profile,
        scope: &Scope,
        query: &str,
    ) -> Result<Vec<String>, Error> {
        let mut ids = identifiers::identifiers(query);
        if ids.is_empty() {
            return Ok(ids);
        }
        let in_scope: HashSet<&String> = scope.document_ids.iter().collect();
        for d in self.store.documents(&profile.id).await? {
            if in_scope.contains(&d.id) {
                for name in [&d.title, &d.version, &d.file_name] {
                    ids.retain(|id| !identifiers::holds(name, id));
                }
            }
        }
        Ok(ids)
    }

    /// The error of a lock file that cannot be opened or locked (the folder is not writable).
    fn lock_error(&self) -> impl FnOnce(std::io::Error) -> Error + '_ {
        move |source| Error::File {
            path: self.dir.root().join("locks"),
            source,
        }
    }

    async fn label_hits(
        &self,
        profile: &Profile,
        hits: Vec<Hit>,
    ) -> Result<Vec<SearchResult>, Error> {
        let mut docs: HashMap<String, (Document, Vec<(u32, usize)>)> = HashMap::new();
        // Page texts read to finish sentences, once per page however many hits end on it.
        let mut pages: HashMap<(String, u32), Option<String>> = HashMap::new();
        let mut out = Vec::with_capacity(hits.len());
        for hit in hits {
            if !docs.contains_key(&hit.document_id) {
                let d = self.store.document(&profile.id, &hit.document_id).await?;
                let starts = self
                    .store
                    .page_starts(&profile.id, &hit.document_id)
                    .await?;
                docs.insert(hit.document_id.clone(), (d, starts));
            }
            let Some((doc, starts)) = docs.get(&hit.document_id) else {
                continue;
            };
            let mut hit = hit;
            self.finish_sentence(profile, starts, &mut pages, &mut hit)
                .await?;
            out.push(SearchResult {
                page: main_page(starts, &hit),
                title: doc.title.clone(),
                version: doc.version.clone(),
                hit,
            });
        }
        Ok(out)
    }

    /// Runs a passage that a chunk boundary cut mid-sentence on to that sentence's end, on the
    /// same page ([`sentence_rest`]): chunks end where their size runs out, and a quote that
    /// stops at "… you will receive a" is not what a reader sees, nor what the sentence says.
    /// The index is untouched; only the passage handed on is longer.
    async fn finish_sentence(
        &self,
        profile: &Profile,
        starts: &[(u32, usize)],
        pages: &mut HashMap<(String, u32), Option<String>>,
        hit: &mut Hit,
    ) -> Result<(), Error> {
        let end = usize::try_from(hit.char_end).unwrap_or(usize::MAX);
        let Some(&(page, page_start)) = starts.iter().rev().find(|(_, s)| *s < end) else {
            return Ok(());
        };
        if hit.text.trim_end().ends_with(SENTENCE_ENDS) {
            return Ok(());
        }
        let key = (hit.document_id.clone(), page);
        if !pages.contains_key(&key) {
            let text = self
                .store
                .page_text(&profile.id, &hit.document_id, page)
                .await?;
            pages.insert(key.clone(), text);
        }
        let Some(Some(page_text)) = pages.get(&key) else {
            return Ok(());
        };
        let at = end - page_start;
        let Some(rest) = sentence_rest(page_text, at, &hit.text) else {
            return Ok(());
        };
        hit.char_end += rest.chars().count() as u64;
        hit.text.push_str(rest);
        Ok(())
    }

    /// Re-embeds every document with the configured embedder (after switching models).
    pub async fn reindex(
        &self,
        progress: &(dyn Fn(&Progress) -> Flow + Send + Sync),
    ) -> Result<usize, Error> {
        let embedder = self.embedder().await?;
        // One reindex at a time, and none mistaken for leftovers while it runs (see recover).
        let Some(_lock) =
            IngestLock::try_acquire_named(&self.dir, REINDEX_LOCK).map_err(self.lock_error())?
        else {
            return Err(Error::LibraryBusy(format!(
                "another reindex of this library is running{}; wait for it to finish",
                by(IngestLock::holder(&self.dir, REINDEX_LOCK))
            )));
        };
        // An ingestion running now would write its chunks to the table being replaced; while
        // this is held, none can start.
        let writers = IngestLock::try_acquire_named(&self.dir, INDEX_WRITERS_LOCK)
            .map_err(self.lock_error())?;
        if writers.is_none() {
            // Held shared by an ingestion (named, when one is found) or a delete.
            let holder = self
                .store
                .processing_documents()
                .await?
                .into_iter()
                .find_map(|(profile_id, _, sha)| {
                    IngestLock::ingestion_holder(&self.dir, &profile_id, &sha)
                });
            return Err(Error::LibraryBusy(format!(
                "a document is being added to or deleted from the library{}; reindex when it is done",
                by(holder)
            )));
        }
        // A new table, filled while the live one keeps answering searches; swapped in by one
        // SQLite write at the end. A reindex that fails, is cancelled or is killed leaves the
        // live table as it was (its half-built table is dropped then, or by the next start).
        let name = format!("chunks_{}", uuid::Uuid::now_v7().simple());
        let fresh = self.open_table(&name, embedder.dimension()).await?;
        let built = self.fill(&fresh, embedder.as_ref(), progress).await;
        let count = match built {
            Ok(n) => n,
            Err(e) => {
                self.drop_unused_tables().await;
                return Err(e);
            }
        };
        self.refresh_text_index(&fresh).await;
        self.store
            .set_metas(&[
                (META_INDEX_TABLE, name.as_str()),
                (META_EMBED_MODEL, embedder.model_id().as_str()),
            ])
            .await?;
        *self.index.write().await = Some(fresh);
        self.drop_unused_tables().await;
        Ok(count)
    }

    /// Embeds every ready or disabled document of every profile into `index`; the number of
    /// documents.
    async fn fill(
        &self,
        index: &ChunkIndex,
        embedder: &dyn Embedder,
        progress: &(dyn Fn(&Progress) -> Flow + Send + Sync),
    ) -> Result<usize, Error> {
        let mut count = 0;
        for profile in self.store.profiles().await? {
            for doc in self.store.documents(&profile.id).await? {
                if !matches!(doc.status, DocStatus::Ready | DocStatus::Disabled) {
                    continue;
                }
                let pages = self.store.page_texts(&profile.id, &doc.id).await?;
                let (text, spans) = chunk::assemble(&pages);
                let chunks = chunk::chunk(&text, &spans, self.settings.chunking);
                let total = chunks.len();
                for (i, batch) in chunks.chunks(EMBED_BATCH).enumerate() {
                    if progress(&Progress {
                        file: doc.label(),
                        stage: Stage::Embedding,
                        done: i * EMBED_BATCH,
                        total,
                    }) == Flow::Cancel
                    {
                        return Err(Error::Cancelled);
                    }
                    let texts: Vec<String> = batch.iter().map(|c| c.text.clone()).collect();
                    let embedded = embedder.embed(&texts).await?;
                    let owner = RowOwner {
                        profile_id: &profile.id,
                        document_id: &doc.id,
                        set_id: doc.set_id.as_deref().unwrap_or(""),
                        doc_type: doc.doc_type,
                    };
                    let rows = owner.rows(batch, embedded.vectors);
                    index.add(&rows).await?;
                }
                count += 1;
            }
        }
        Ok(count)
    }

    /// Drops every chunks table but the one in use — unless a reindex (of any process) is
    /// building one right now. Best effort: a table left behind is dropped next time.
    async fn drop_unused_tables(&self) {
        let keep = match self.active_table().await {
            Ok(k) => k,
            Err(e) => {
                tracing::warn!(error = %e, "cannot tell which chunks table is in use");
                return;
            }
        };
        let uri = self.dir.lancedb().to_string_lossy().into_owned();
        match ChunkIndex::drop_tables_except(&uri, &keep).await {
            Ok(dropped) if !dropped.is_empty() => {
                tracing::info!(?dropped, "dropped chunks tables no longer in use");
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "could not drop unused chunks tables"),
        }
    }
}

struct IngestBody<'a> {
    profile: &'a Profile,
    doc_id: &'a str,
    set: Option<&'a DocSet>,
    doc_type: DocType,
    bytes: Arc<Vec<u8>>,
    page_count: usize,
    embedder: &'a dyn Embedder,
    index: &'a ChunkIndex,
    lease: Duration,
}

/// Whose chunks are being written: turns chunks and their vectors into index rows.
struct RowOwner<'a> {
    profile_id: &'a str,
    document_id: &'a str,
    set_id: &'a str,
    doc_type: DocType,
}

impl RowOwner<'_> {
    fn rows(&self, chunks: &[chunk::Chunk], vectors: Vec<Vec<f32>>) -> Vec<ChunkRow> {
        chunks
            .iter()
            .zip(vectors)
            .map(|(c, vector)| ChunkRow {
                chunk_id: format!("{}:{}", self.document_id, c.index),
                profile_id: self.profile_id.to_owned(),
                document_id: self.document_id.to_owned(),
                set_id: self.set_id.to_owned(),
                doc_type: self.doc_type.as_str().to_owned(),
                page_start: c.page_start,
                page_end: c.page_end,
                chunk_index: c.index,
                char_start: c.char_start as u64,
                char_end: c.char_end as u64,
                heading: c.heading.clone(),
                text: c.text.clone(),
                vector,
            })
            .collect()
    }
}

/// What ends a sentence, or a line that needs no continuation (a list's introduction, a
/// quotation, a bracket).
const SENTENCE_ENDS: [char; 8] = ['.', '!', '?', ':', ';', '"', '”', ')'];

/// How far past a chunk's end its unfinished sentence is looked for; further, the chunk is
/// left as it is (a table or a list without full stops).
const FINISH_CHARS: usize = 300;

/// The rest of the sentence a passage ending at character `at` of `page` leaves unfinished:
/// the page's text from there to the first full stop, question or exclamation mark followed by
/// a space or the page's end, within [`FINISH_CHARS`]; `None` when the page does not continue
/// `passage` there (its last words are not the page's before `at`), a blank line comes first
/// (a paragraph ends without a stop), or no end is that near.
fn sentence_rest<'a>(page: &'a str, at: usize, passage: &str) -> Option<&'a str> {
    let at_byte = page.char_indices().nth(at).map(|(i, _)| i)?;
    let tail: String = passage.trim_end().chars().rev().take(20).collect();
    let before: String = page[..at_byte].trim_end().chars().rev().take(20).collect();
    if tail.is_empty() || tail != before {
        return None;
    }
    let rest = &page[at_byte..];
    let mut last = '\n';
    for (i, c) in rest.char_indices() {
        if i > FINISH_CHARS || (c == '\n' && last == '\n' && i > 0) {
            return None;
        }
        let after = &rest[i + c.len_utf8()..];
        if matches!(c, '.' | '!' | '?') && after.chars().next().is_none_or(char::is_whitespace) {
            // A dot after a space, or before another one, leads to a page number in a table
            // of contents ("Pristine source . . . 70"): no sentence ends there.
            let leader = last.is_whitespace() || after.trim_start().starts_with('.');
            return (!leader).then(|| &rest[..i + c.len_utf8()]);
        }
        last = c;
    }
    None
}

/// The page holding the larger part of a chunk.
fn main_page(starts: &[(u32, usize)], hit: &Hit) -> u32 {
    let (s, e) = (hit.char_start as usize, hit.char_end as usize);
    let mut best = (hit.page_start, 0usize);
    for (i, &(page, start)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(usize::MAX, |&(_, next)| next);
        let overlap = e.min(end).saturating_sub(s.max(start));
        if overlap > best.1 {
            best = (page, overlap);
        }
    }
    best.0
}

async fn read_file(path: &Path, max: u64) -> Result<Vec<u8>, Error> {
    let file_err = |source| Error::File {
        path: path.to_path_buf(),
        source,
    };
    let meta = tokio::fs::metadata(path).await.map_err(file_err)?;
    if !meta.is_file() {
        return Err(Error::InvalidInput(format!(
            "{} is not a file",
            path.display()
        )));
    }
    if meta.len() > max {
        return Err(IngestError::TooLarge {
            bytes: meta.len(),
            max,
        }
        .into());
    }
    tokio::fs::read(path).await.map_err(file_err)
}

async fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let err = |source| Error::File {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        tokio::fs::create_dir_all(parent).await.map_err(err)?;
    }
    let tmp = path.with_extension(&PARTIAL_SUFFIX[1..]);
    tokio::fs::write(&tmp, bytes).await.map_err(err)?;
    tokio::fs::rename(&tmp, path).await.map_err(err)
}

/// True when `e` means the embedding model is not installed.
pub fn is_model_missing(e: &Error) -> bool {
    matches!(e, Error::Embed(EmbedError::ModelMissing { .. }))
}

/// Removes a file; one that is already gone is fine.
async fn remove_if_present(path: PathBuf) -> Result<(), Error> {
    match tokio::fs::remove_file(&path).await {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::File { path, source }),
    }
}

/// " (by policypal, process 4242)" for a busy message, or nothing when the holder is unknown.
fn by(holder: Option<String>) -> String {
    holder.map(|h| format!(" (by {h})")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::sentence_rest;

    #[test]
    fn a_passage_cut_mid_sentence_runs_on_to_the_sentence_end() {
        let page = "Members pay dues each spring.\nLate payers are reminded by the treasurer, who may\ncharge a fee of ten crowns. Dues fund the hall.\n";
        let cut = page
            .find("who may")
            .map(|i| i + "who may".len())
            .unwrap_or(0);
        let at = page[..cut].chars().count();
        let passage = &page[..cut];
        assert_eq!(
            sentence_rest(page, at, passage),
            Some("\ncharge a fee of ten crowns.")
        );
        // A passage the page does not continue there is left alone.
        assert_eq!(sentence_rest(page, at, "something else entirely"), None);
        // A line of a table of contents has no sentence to finish.
        let toc = "6.8 Sources\n6.8.1 Pristine source . . . . . . 70\n";
        let at = "6.8 Sources\n6.8.1 Pristine".chars().count();
        assert_eq!(sentence_rest(toc, at, "6.8 Sources\n6.8.1 Pristine"), None);
        // A paragraph that ends without a stop is not run into the next one.
        let list = "Bring these items\n\nA towel. A cap.";
        let at = "Bring these items".chars().count();
        assert_eq!(sentence_rest(list, at, "Bring these items"), None);
    }
}
