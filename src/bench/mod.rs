//! Benchmarks: ingestion throughput per stage, the encoder's quality against f32, and
//! hybrid-search latency by library size; a local model's speed in [`generate`].
//!
//! Owns: measuring the real pipeline (real PDFs, the real model, real SQLite and LanceDB in a
//! throw-away data directory) and returning the numbers as plain data; the CLI prints them as
//! JSON. Must not: be used by tests as a timing assertion (speed targets live here only).

mod generate;

pub use generate::{GenerateBench, generate};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::config::{DataDir, EmbedderSettings, Settings};
use crate::embed::Embedder;
use crate::embed::minilm::{Arithmetic, MiniLm};
use crate::index::{ChunkIndex, ChunkRow, Scope};
use crate::{Error, Flow, IngestRequest, Library, Progress};

/// Throughput of one ingested file.
#[derive(Debug, Serialize)]
pub struct FileBench {
    /// File name.
    pub file: String,
    /// Physical pages.
    pub pages: i64,
    /// Chunks written.
    pub chunks: i64,
    /// Tokens embedded.
    pub tokens: usize,
    /// Wall time of the whole ingestion.
    pub total_s: f64,
    /// End-to-end pages per second.
    pub pages_per_s: f64,
    /// Per-stage seconds and rates.
    pub stages: StageRates,
}

/// Per-stage seconds and throughput.
#[derive(Debug, Serialize)]
pub struct StageRates {
    /// Extraction seconds.
    pub extract_s: f64,
    /// Pages extracted per second.
    pub extract_pages_per_s: f64,
    /// Clean-up + chunking seconds.
    pub chunk_s: f64,
    /// Chunks produced per second.
    pub chunk_chunks_per_s: f64,
    /// Embedding seconds.
    pub embed_s: f64,
    /// Chunks embedded per second.
    pub embed_chunks_per_s: f64,
    /// Tokens embedded per second.
    pub embed_tokens_per_s: f64,
    /// Index write + full-text refresh seconds.
    pub write_s: f64,
    /// Chunks written per second.
    pub write_chunks_per_s: f64,
    /// Share of the total spent embedding.
    pub embed_share: f64,
}

/// Result of `bench ingest`.
#[derive(Debug, Serialize)]
pub struct IngestBench {
    /// Arithmetic of the encoder's dense layers as run (`integer` falls back to `float` on a
    /// CPU without AVX2).
    pub arithmetic: &'static str,
    /// Seconds to load the embedding model (once, not part of any file).
    pub model_load_s: f64,
    /// Per file.
    pub files: Vec<FileBench>,
    /// Peak resident set size of the process in MB (Linux).
    pub peak_rss_mb: Option<f64>,
    /// CPU threads available.
    pub threads: usize,
}

fn rate(n: f64, s: f64) -> f64 {
    if s > 0.0 { n / s } else { 0.0 }
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Peak RSS (VmHWM) in MB, read from `/proc/self/status`.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(round(kb / 1024.0))
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Result<Self, Error> {
        let p =
            std::env::temp_dir().join(format!("policypal-bench-{tag}-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&p).map_err(|source| Error::File {
            path: p.clone(),
            source,
        })?;
        Ok(Self(p))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn temp_library(
    model: Arc<dyn Embedder>,
    model_dir: &Path,
) -> Result<(TempDir, Library), Error> {
    let tmp = TempDir::new("lib")?;
    let dir = DataDir::at(&tmp.0);
    dir.ensure()?;
    dir.save_settings(&Settings {
        embedder: EmbedderSettings::Local {
            model_dir: Some(model_dir.to_path_buf()),
        },
        ..Settings::default()
    })?;
    let lib = Library::open(dir).await?.with_embedder(model);
    Ok((tmp, lib))
}

async fn load_model(model_dir: &Path, arithmetic: Arithmetic) -> Result<(Arc<MiniLm>, f64), Error> {
    let started = Instant::now();
    let dir = model_dir.to_path_buf();
    let model = tokio::task::spawn_blocking(move || MiniLm::load_with(&dir, arithmetic))
        .await
        .map_err(|e| Error::Internal(e.to_string()))??;
    Ok((Arc::new(model), started.elapsed().as_secs_f64()))
}

/// Ingests `files` into a throw-away library and measures each stage, with the encoder's
/// dense layers in `arithmetic`.
pub async fn ingest(
    model_dir: &Path,
    files: &[PathBuf],
    arithmetic: Arithmetic,
) -> Result<IngestBench, Error> {
    let (model, model_load_s) = load_model(model_dir, arithmetic).await?;
    let arithmetic = model.arithmetic().name();
    let (_tmp, lib) = temp_library(model, model_dir).await?;
    let profile = lib.ensure_profile("bench").await?;
    let mut out = Vec::new();
    for path in files {
        let started = Instant::now();
        let report = lib
            .ingest(&profile, &IngestRequest::file(path), &|_: &Progress| {
                Flow::Continue
            })
            .await?;
        let total_s = started.elapsed().as_secs_f64();
        let t = &report.timings;
        let d = &report.document;
        let (pages, chunks) = (d.page_count as f64, d.chunk_count as f64);
        out.push(FileBench {
            file: d.file_name.clone(),
            pages: d.page_count,
            chunks: d.chunk_count,
            tokens: t.tokens,
            total_s: round(total_s),
            pages_per_s: round(rate(pages, total_s)),
            stages: StageRates {
                extract_s: round(t.extract_s),
                extract_pages_per_s: round(rate(pages, t.extract_s)),
                chunk_s: round(t.chunk_s),
                chunk_chunks_per_s: round(rate(chunks, t.chunk_s)),
                embed_s: round(t.embed_s),
                embed_chunks_per_s: round(rate(chunks, t.embed_s)),
                embed_tokens_per_s: round(rate(t.tokens as f64, t.embed_s)),
                write_s: round(t.write_s),
                write_chunks_per_s: round(rate(chunks, t.write_s)),
                embed_share: round(rate(t.embed_s, total_s)),
            },
        });
    }
    lib.close().await;
    Ok(IngestBench {
        arithmetic,
        model_load_s: round(model_load_s),
        files: out,
        peak_rss_mb: peak_rss_mb(),
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
    })
}

/// Result of `bench quality`: the default arithmetic's embeddings against the f32
/// reference over the real chunks of the given files.
#[derive(Debug, Serialize)]
pub struct QualityBench {
    /// Arithmetic measured (`float` when the CPU has no AVX2, which makes the comparison void).
    pub arithmetic: &'static str,
    /// Chunks compared.
    pub chunks: usize,
    /// Lowest cosine between a chunk's two embeddings.
    pub worst_cosine: f64,
    /// First percentile of those cosines.
    pub p1_cosine: f64,
    /// Median of those cosines.
    pub median_cosine: f64,
    /// Mean share of each chunk's 10 nearest chunks that both arithmetics agree on.
    pub top10_overlap: f64,
    /// Chunks whose nearest other chunk is the same under both.
    pub same_nearest: usize,
    /// Largest score gap, under f32, between the f32 nearest chunk and the one the measured
    /// arithmetic picked instead (0 when they all agree): how close the disagreements are.
    pub worst_nearest_gap: f64,
    /// Seconds embedding with the measured arithmetic and with f32.
    pub embed_s: [f64; 2],
}

/// Embeds the chunks of `files` with `arithmetic` and with f32 and compares them.
pub async fn quality(
    model_dir: &Path,
    files: &[PathBuf],
    arithmetic: Arithmetic,
) -> Result<QualityBench, Error> {
    let mut texts = Vec::new();
    for path in files {
        let bytes = std::fs::read(path).map_err(|source| Error::File {
            path: path.clone(),
            source,
        })?;
        // The benchmark's own files: extracted in this process, without the worker.
        let raw = tokio::task::spawn_blocking(move || crate::ingest::pdf::extract_blocking(&bytes))
            .await
            .map_err(|e| Error::Internal(format!("extraction task: {e}")))??;
        let prepared = crate::ingest::prepare_pages(
            raw,
            Vec::new(),
            crate::config::ChunkSettings::default(),
            std::time::Duration::ZERO,
            None,
        )?;
        texts.extend(prepared.chunks.into_iter().map(|c| c.text));
    }
    let (measured, _) = load_model(model_dir, arithmetic).await?;
    let (float, _) = load_model(model_dir, Arithmetic::Float).await?;
    let mut vectors = Vec::new();
    let mut embed_s = [0.0; 2];
    for (model, seconds) in [measured.clone(), float].into_iter().zip(&mut embed_s) {
        let texts = texts.clone();
        let started = Instant::now();
        let embedded = tokio::task::spawn_blocking(move || model.embed_blocking(&texts))
            .await
            .map_err(|e| Error::Internal(e.to_string()))??;
        *seconds = round(started.elapsed().as_secs_f64());
        vectors.push(embedded.vectors);
    }
    let (a, b) = (&vectors[0], &vectors[1]);
    let dot =
        |x: &[f32], y: &[f32]| -> f64 { x.iter().zip(y).map(|(p, q)| f64::from(p * q)).sum() };
    let mut cosines: Vec<f64> = a.iter().zip(b).map(|(x, y)| dot(x, y)).collect();
    cosines.sort_by(f64::total_cmp);
    let at = |q: f64| {
        cosines
            .get(((cosines.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or(0.0)
    };
    // Neighbours of each chunk among the others, best first.
    let neighbours = |v: &[Vec<f32>], i: usize| -> Vec<(usize, f64)> {
        let mut n: Vec<(usize, f64)> = v
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(j, y)| (j, dot(&v[i], y)))
            .collect();
        n.sort_by(|x, y| y.1.total_cmp(&x.1));
        n.truncate(10);
        n
    };
    let (mut overlap, mut same_nearest, mut worst_gap) = (0.0, 0, 0.0f64);
    for i in 0..a.len() {
        let (na, nb) = (neighbours(a, i), neighbours(b, i));
        let shared = na
            .iter()
            .filter(|(j, _)| nb.iter().any(|(k, _)| k == j))
            .count();
        overlap += shared as f64 / na.len().max(1) as f64;
        match (na.first(), nb.first()) {
            (Some(&(ja, _)), Some(&(jb, best))) if ja != jb => {
                worst_gap = worst_gap.max(best - dot(&b[i], &b[ja]));
            }
            (Some(_), Some(_)) => same_nearest += 1,
            _ => {}
        }
    }
    Ok(QualityBench {
        arithmetic: measured.arithmetic().name(),
        chunks: a.len(),
        worst_cosine: cosines.first().copied().unwrap_or(0.0),
        p1_cosine: at(0.01),
        median_cosine: at(0.5),
        top10_overlap: round(rate(overlap, a.len() as f64)),
        same_nearest,
        worst_nearest_gap: worst_gap,
        embed_s,
    })
}

/// Latency figures of one library size.
#[derive(Debug, Serialize)]
pub struct SearchSize {
    /// Chunks in the library.
    pub chunks: usize,
    /// Documents the chunks belong to.
    pub documents: usize,
    /// Seconds to write the chunks and build the full-text index.
    pub build_s: f64,
    /// The first hybrid search after the library was written, milliseconds: it also reads
    /// the profile's vectors into memory (as the first search after any write does).
    pub first_search_ms: f64,
    /// Query embedding alone, milliseconds.
    pub embed_ms: Percentiles,
    /// Vector search alone (embedding excluded), milliseconds.
    pub vector_ms: Percentiles,
    /// Full-text search alone, milliseconds.
    pub text_ms: Percentiles,
    /// A whole hybrid search as `Library::search` runs it (query embedding and vector search
    /// beside the full-text search, then fusion), milliseconds.
    pub hybrid_total_ms: Percentiles,
    /// The same hybrid search for a query that names a clause number ("4.2.1"): the lookup of
    /// passages holding it verbatim scans the text column, so this grows with the library.
    pub hybrid_with_clause_number_ms: Percentiles,
    /// When LanceDB's approximate vector index exists: share of the exact top 10 (LanceDB's
    /// exhaustive scan) that the search returns in its top 10 (in memory, exact, up to 250k
    /// chunks a profile; IVF-PQ beyond).
    pub ann_recall_at_10: Option<f64>,
}

/// p50 / p95 / max.
#[derive(Debug, Serialize)]
pub struct Percentiles {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// Maximum.
    pub max: f64,
}

fn percentiles(mut v: Vec<Duration>) -> Percentiles {
    v.sort();
    let at = |q: f64| {
        let i = ((v.len() as f64 - 1.0) * q).round() as usize;
        v.get(i).map_or(0.0, |d| round(d.as_secs_f64() * 1000.0))
    };
    Percentiles {
        p50: at(0.5),
        p95: at(0.95),
        max: at(1.0),
    }
}

/// Result of `bench search`.
#[derive(Debug, Serialize)]
pub struct SearchBench {
    /// Real chunks the synthetic libraries are built from.
    pub seed_chunks: usize,
    /// Queries per size.
    pub queries: usize,
    /// One entry per size.
    pub sizes: Vec<SearchSize>,
    /// Peak RSS in MB.
    pub peak_rss_mb: Option<f64>,
}

/// Questions asked at every size (about the Debian Reference, the benchmark file).
const QUERIES: [&str; 10] = [
    "how do I configure the network interface",
    "which command lists installed packages",
    "how to set up a firewall",
    "mount a USB drive",
    "change the default shell of a user",
    "schedule a job with cron",
    "backup and restore of the home directory",
    "upgrade to a new Debian release",
    "configure the X window system keyboard",
    "what is the purpose of /etc/fstab",
];

/// Builds libraries of the given sizes from the real chunks of `source` (vectors jittered and
/// re-normalised so no two rows are identical) and times searches over each, with the data
/// directory's search settings (approximate index threshold and parameters).
pub async fn search(
    model_dir: &Path,
    source: &Path,
    sizes: &[usize],
    queries: usize,
    search: crate::config::SearchSettings,
) -> Result<SearchBench, Error> {
    let (model, _) = load_model(model_dir, Arithmetic::Integer).await?;
    let embedder: Arc<dyn Embedder> = model.clone();
    let (_tmp, lib) = temp_library(embedder.clone(), model_dir).await?;
    let profile = lib.ensure_profile("bench").await?;
    let report = lib
        .ingest(&profile, &IngestRequest::file(source), &|_: &Progress| {
            Flow::Continue
        })
        .await?;
    let seed = lib
        .index()
        .await?
        .rows(&profile.id, &report.document.id)
        .await?;
    lib.close().await;
    if seed.is_empty() {
        return Err(Error::InvalidInput(
            "the source PDF produced no chunks".into(),
        ));
    }
    let mut out = Vec::new();
    for &n in sizes {
        out.push(search_size(embedder.as_ref(), &seed, n, queries, search).await?);
    }
    Ok(SearchBench {
        seed_chunks: seed.len(),
        queries,
        sizes: out,
        peak_rss_mb: peak_rss_mb(),
    })
}

/// A tiny deterministic generator (xorshift) so runs are comparable.
struct Jitter(u64);

impl Jitter {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) - 0.5
    }
}

async fn search_size(
    embedder: &dyn Embedder,
    seed: &[ChunkRow],
    n: usize,
    queries: usize,
    search: crate::config::SearchSettings,
) -> Result<SearchSize, Error> {
    const PER_DOC: usize = 100;
    let tmp = TempDir::new("search")?;
    let uri = tmp.0.join("lancedb").to_string_lossy().into_owned();
    let index = ChunkIndex::open(&uri, embedder.dimension())
        .await?
        .with_ann_min_rows(search.ann_min_rows)
        .with_ann_params(search.ann());
    let profile_id = uuid::Uuid::new_v4().to_string();
    let doc_ids: Vec<String> = (0..n.div_ceil(PER_DOC))
        .map(|_| uuid::Uuid::new_v4().to_string())
        .collect();
    let mut jitter = Jitter(0x9E37_79B9_7F4A_7C15);
    let started = Instant::now();
    let mut batch = Vec::with_capacity(5000);
    for i in 0..n {
        let s = &seed[i % seed.len()];
        let mut vector: Vec<f32> = s.vector.iter().map(|x| x + 0.02 * jitter.next()).collect();
        crate::embed::normalise(&mut vector);
        let doc = &doc_ids[i / PER_DOC];
        batch.push(ChunkRow {
            chunk_id: format!("{doc}:{}", i % PER_DOC),
            profile_id: profile_id.clone(),
            document_id: doc.clone(),
            vector,
            chunk_index: (i % PER_DOC) as u32,
            ..s.clone()
        });
        if batch.len() == 5000 {
            index.add(&batch).await?;
            batch.clear();
        }
    }
    index.add(&batch).await?;
    index.refresh_text_index().await?;
    let build_s = round(started.elapsed().as_secs_f64());
    let scope = Scope {
        profile_id,
        document_ids: doc_ids.clone(),
        // Every document of the profile is searchable, as in a library searched whole.
        excluded: Some(Vec::new()),
    };
    let approximate = index.has_vector_index().await?;
    let (mut embed, mut vector, mut text, mut total, mut clause) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let clause_number = ["4.2.1".to_owned()];
    let (mut found, mut wanted) = (0usize, 0usize);
    let mut first_search_ms = 0.0;
    let candidates = crate::index::hybrid_candidates(10);
    for i in 0..queries + 3 {
        let q = QUERIES[i % QUERIES.len()];
        // As `Library::search` does it.
        let t0 = Instant::now();
        index
            .hybrid_search(
                &scope,
                &crate::index::Query {
                    text: q,
                    identifiers: &[],
                },
                async { Ok::<_, Error>(embedder.embed_query(q).await?) },
                10,
            )
            .await?;
        let t1 = Instant::now();
        let v = embedder.embed_query(q).await?;
        let t2 = Instant::now();
        let approx = index.vector_search(&scope, &v, candidates).await?;
        let t3 = Instant::now();
        index.text_search(&scope, q, candidates).await?;
        let t4 = Instant::now();
        index
            .hybrid_search(
                &scope,
                &crate::index::Query {
                    text: q,
                    identifiers: &clause_number,
                },
                async { Ok::<_, Error>(v.clone()) },
                10,
            )
            .await?;
        let t5 = Instant::now();
        if approximate {
            let exact = index.vector_search_exact(&scope, &v, 10).await?;
            wanted += exact.len();
            found += exact
                .iter()
                .filter(|e| approx.iter().take(10).any(|a| a.chunk_id == e.chunk_id))
                .count();
        }
        if i == 0 {
            first_search_ms = (t1 - t0).as_secs_f64() * 1000.0;
        }
        if i >= 3 {
            // The first queries warm caches and are not counted.
            total.push(t1 - t0);
            embed.push(t2 - t1);
            vector.push(t3 - t2);
            text.push(t4 - t3);
            // The query is embedded already here: add the embedding time for a like-for-like
            // total.
            clause.push((t5 - t4) + (t2 - t1));
        }
    }
    Ok(SearchSize {
        chunks: n,
        documents: doc_ids.len(),
        build_s,
        first_search_ms: round(first_search_ms),
        embed_ms: percentiles(embed),
        vector_ms: percentiles(vector),
        text_ms: percentiles(text),
        hybrid_total_ms: percentiles(total),
        hybrid_with_clause_number_ms: percentiles(clause),
        ann_recall_at_10: approximate.then(|| round(found as f64 / wanted.max(1) as f64)),
    })
}

/// Result of `bench actions`.
#[derive(Debug, Serialize)]
pub struct ActionsBench {
    /// Documents in scope (up to 5 ready ones, largest first).
    pub documents: usize,
    /// Their pages together.
    pub pages: i64,
    /// Runs per action.
    pub runs: usize,
    /// Summarize over all of them, milliseconds.
    pub summarize_ms: Percentiles,
    /// Compare over all of them, milliseconds.
    pub compare_ms: Percentiles,
    /// Audit of a 5-sentence text against all of them, milliseconds.
    pub audit_ms: Percentiles,
    /// Peak resident memory of the process, MB.
    pub peak_rss_mb: Option<f64>,
}

/// Times the multi-document actions in extractive mode on the profile's own library (the
/// embedding model is loaded before timing starts). Each run is a new thread.
pub async fn actions(
    lib: &Library,
    profile: &crate::store::Profile,
    runs: usize,
) -> Result<ActionsBench, Error> {
    use crate::agent::Agent;
    use crate::agent::types::{Action, AskRequest, Event, Mode};
    let mut docs: Vec<_> = lib
        .documents(profile)
        .await?
        .into_iter()
        .filter(|d| d.status == crate::store::DocStatus::Ready)
        .collect();
    docs.sort_by_key(|d| std::cmp::Reverse(d.page_count));
    docs.truncate(5);
    if docs.len() < 2 {
        return Err(Error::InvalidInput(
            "bench actions needs at least 2 ready documents in the profile".into(),
        ));
    }
    let ids: Vec<String> = docs.iter().map(|d| d.id.clone()).collect();
    lib.embedder().await?;
    let agent = Agent::new(lib).without_cache();
    let quiet = |_: &Event| {};
    let text = "Audit this text against the documents.\n\nAll files are kept for at least 30 days. \
        Staff must not share passwords. The maintainer keeps a change log. \
        Copies are distributed without the licence notice. Reports are sent within 14 days.";
    let mut times: [Vec<Duration>; 3] = Default::default();
    for _ in 0..runs.max(1) {
        for (i, (action, message)) in [
            (Action::Summarize, "Summarize these documents"),
            (
                Action::Compare,
                "Compare these documents on their obligations",
            ),
            (Action::Audit, text),
        ]
        .into_iter()
        .enumerate()
        {
            let start = Instant::now();
            agent
                .ask(
                    profile,
                    AskRequest {
                        text: message.to_owned(),
                        documents: ids.clone(),
                        action: Some(action),
                        mode: Some(Mode::Extractive),
                        ..AskRequest::default()
                    },
                    &quiet,
                )
                .await?;
            times[i].push(start.elapsed());
        }
    }
    let [s, c, a] = times;
    Ok(ActionsBench {
        documents: docs.len(),
        pages: docs.iter().map(|d| d.page_count).sum(),
        runs: runs.max(1),
        summarize_ms: percentiles(s),
        compare_ms: percentiles(c),
        audit_ms: percentiles(a),
        peak_rss_mb: peak_rss_mb(),
    })
}

/// Result of `bench ask`.
#[derive(Debug, Serialize)]
pub struct AskBench {
    /// Ready documents of the profile.
    pub documents: usize,
    /// Their pages together.
    pub pages: i64,
    /// Chunks in the profile's index.
    pub chunks: i64,
    /// Questions asked (each in a new thread, cache bypassed).
    pub questions: usize,
    /// Time to the first streamed event (the run has started), milliseconds.
    pub first_event_ms: Percentiles,
    /// Time to the first text of the answer, milliseconds.
    pub first_text_ms: Percentiles,
    /// Time to the complete, stored answer, milliseconds.
    pub answer_ms: Percentiles,
    /// Answered / refused among the questions.
    pub answered: usize,
    /// Peak resident memory of the process, MB.
    pub peak_rss_mb: Option<f64>,
}

/// Questions the ask benchmark uses when none are given: a mix of answerable and
/// out-of-library questions over a general technical library.
const ASK_QUESTIONS: &[&str] = &[
    "How long may a non-maintainer upload stay in the DELAYED queue?",
    "Where should host-specific configuration files be installed?",
    "What must the --version option print?",
    "Which directory holds variable state information?",
    "How do I become a Debian developer?",
    "What is the maximum administrative fine under the GDPR?",
    "Should executables be stripped when they are installed?",
    "What does the package pool contain?",
    "How are security issues handled before they are public?",
    "What salary does the FSF pay maintainers?",
];

/// Times Inquire in extractive mode on the profile's whole library: the first streamed event,
/// the first answer text and the complete stored answer (the embedding model is loaded before
/// timing starts; every question is a new thread and the cache is bypassed).
pub async fn ask(
    lib: &Library,
    profile: &crate::store::Profile,
    questions: &[String],
    runs: usize,
) -> Result<AskBench, Error> {
    use crate::agent::Agent;
    use crate::agent::types::{AskRequest, Event, Mode, Status};
    use std::sync::Mutex;
    let docs: Vec<_> = lib
        .documents(profile)
        .await?
        .into_iter()
        .filter(|d| d.status == crate::store::DocStatus::Ready)
        .collect();
    if docs.is_empty() {
        return Err(Error::InvalidInput(
            "bench ask needs ready documents in the profile".into(),
        ));
    }
    let questions: Vec<String> = if questions.is_empty() {
        ASK_QUESTIONS.iter().map(|q| (*q).to_owned()).collect()
    } else {
        questions.to_vec()
    };
    lib.embedder().await?;
    // Warm the index (the first LanceDB query opens files).
    lib.search(
        profile,
        &crate::SearchRequest {
            query: "warm up".into(),
            k: 5,
            ..crate::SearchRequest::default()
        },
    )
    .await?;
    let agent = Agent::new(lib).without_cache();
    let (mut first, mut text, mut total) = (Vec::new(), Vec::new(), Vec::new());
    let mut answered = 0;
    for _ in 0..runs.max(1) {
        for q in &questions {
            let start = Instant::now();
            let seen: Mutex<(Option<Duration>, Option<Duration>)> = Mutex::new((None, None));
            let turn = agent
                .ask(
                    profile,
                    AskRequest {
                        text: q.clone(),
                        mode: Some(Mode::Extractive),
                        ..AskRequest::default()
                    },
                    &|e: &Event| {
                        let mut s = seen.lock().unwrap_or_else(|e| e.into_inner());
                        if s.0.is_none() {
                            s.0 = Some(start.elapsed());
                        }
                        if s.1.is_none() && matches!(e, Event::Token { .. }) {
                            s.1 = Some(start.elapsed());
                        }
                    },
                )
                .await?;
            let elapsed = start.elapsed();
            let (f, t) = *seen.lock().unwrap_or_else(|e| e.into_inner());
            first.push(f.unwrap_or(elapsed));
            text.push(t.unwrap_or(elapsed));
            total.push(elapsed);
            if turn.answer.status == Status::Answered {
                answered += 1;
            }
        }
    }
    let chunks = docs.iter().map(|d| d.chunk_count).sum();
    Ok(AskBench {
        documents: docs.len(),
        pages: docs.iter().map(|d| d.page_count).sum(),
        chunks,
        questions: total.len(),
        first_event_ms: percentiles(first),
        first_text_ms: percentiles(text),
        answer_ms: percentiles(total),
        answered,
        peak_rss_mb: peak_rss_mb(),
    })
}
