//! Ingestion of one PDF into pages and chunks.
//!
//! Owns: validation of the bytes, text extraction (`pdf`) in a separate process (`worker`), clean-up (`text`) and
//! chunking with page spans and headings (`chunk`). The result is plain data; the `library`
//! module decides when it is stored, embedded and made visible. Must not: touch SQLite, LanceDB
//! or the embedder.

pub mod chunk;
pub mod pdf;
pub mod text;
pub mod worker;

use std::sync::Arc;
use std::time::{Duration, Instant};

pub use chunk::{Chunk, PageSpan};
pub use pdf::Extractor;

use crate::config::{ChunkSettings, Limits};

/// Why a file cannot be ingested. All are problems of the input, not of PolicyPal.
#[derive(Debug, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum IngestError {
    /// The file has zero bytes.
    #[error("the file is empty (0 bytes)")]
    EmptyFile,
    /// The file is larger than the configured limit.
    #[error(
        "the file is {bytes} bytes, more than the limit of {max} bytes (settings: limits.max_file_bytes)"
    )]
    TooLarge {
        /// Size of the file.
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// The bytes do not start like a PDF.
    #[error("not a PDF file (no %PDF- header)")]
    NotPdf,
    /// The PDF is damaged or truncated.
    #[error("the PDF is damaged and cannot be read: {0}")]
    Corrupt(String),
    /// The PDF needs a password to open.
    #[error("the PDF is password-protected; remove the password and add it again")]
    Encrypted,
    /// More pages than the configured limit.
    #[error("the PDF has {pages} pages, more than the limit of {max} (settings: limits.max_pages)")]
    TooManyPages {
        /// Pages in the file.
        pages: usize,
        /// The limit.
        max: usize,
    },
    /// No page has a text layer (a scan or images only).
    #[error(
        "no page of this PDF has a text layer ({pages} pages look scanned or are images); OCR is not supported yet"
    )]
    NoTextLayer {
        /// Number of pages.
        pages: usize,
    },
    /// Extraction took longer than the time budget.
    #[error(
        "text extraction did not finish within {seconds} s (settings: limits.extract_timeout_secs)"
    )]
    ExtractionTimeout {
        /// The budget.
        seconds: u64,
    },
    /// Extraction needed more memory than its process may use.
    #[error(
        "text extraction needed more than {limit_mb} MiB of memory and was stopped (settings: limits.extract_memory_mb)"
    )]
    OutOfMemory {
        /// The limit.
        limit_mb: u64,
    },
    /// The PDF yields more text than allowed (a text bomb, or a corpus in one file).
    #[error("the PDF holds more than {max} characters of text (settings: limits.max_text_chars)")]
    TooMuchText {
        /// The limit.
        max: usize,
    },
    /// The extraction process died (a crash in a PDF library on this file).
    #[error("text extraction crashed on this PDF ({reason}); the file is damaged or hostile")]
    ExtractorCrashed {
        /// How it ended (signal, exit status).
        reason: String,
    },
}

/// A cleaned page.
#[derive(Debug, Clone)]
pub struct Page {
    /// 1-based physical page number.
    pub number: u32,
    /// Cleaned text (possibly empty).
    pub text: String,
    /// Who extracted it.
    pub extractor: Extractor,
}

/// A PDF turned into pages and chunks.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Every physical page, cleaned.
    pub pages: Vec<Page>,
    /// Where each page sits in the document text.
    pub spans: Vec<PageSpan>,
    /// The chunks, in document order.
    pub chunks: Vec<Chunk>,
    /// Pages (1-based) without a text layer.
    pub empty_pages: Vec<u32>,
    /// Time spent extracting.
    pub extract_time: Duration,
    /// Time spent cleaning and chunking.
    pub chunk_time: Duration,
}

/// Pages with fewer visible characters than this are reported as having no text layer.
const EMPTY_PAGE_CHARS: usize = 3;

/// Checks size and structure without extracting (structure in the worker); the page count.
pub async fn check(
    bytes: Arc<Vec<u8>>,
    limits: &Limits,
    worker: &worker::Worker,
) -> Result<usize, IngestError> {
    let len = bytes.len() as u64;
    if len > limits.max_file_bytes {
        return Err(IngestError::TooLarge {
            bytes: len,
            max: limits.max_file_bytes,
        });
    }
    if bytes.is_empty() {
        return Err(IngestError::EmptyFile);
    }
    worker.inspect(bytes, limits).await
}

/// Extracts (in the worker), cleans and chunks a PDF.
pub async fn prepare(
    bytes: Arc<Vec<u8>>,
    limits: &Limits,
    chunking: ChunkSettings,
    worker: &worker::Worker,
) -> Result<Prepared, IngestError> {
    let started = Instant::now();
    let raw = worker.extract(bytes, limits).await?;
    let extract_time = started.elapsed();
    prepare_pages(raw, chunking, extract_time)
}

/// Cleans and chunks extracted pages.
pub fn prepare_pages(
    raw: Vec<pdf::RawPage>,
    chunking: ChunkSettings,
    extract_time: Duration,
) -> Result<Prepared, IngestError> {
    let started = Instant::now();
    let pages: Vec<Page> = raw
        .into_iter()
        .map(|p| {
            let cleaned = if p.extractor == Extractor::Lopdf {
                text::clean_page(&text::tidy_positioned(&p.text))
            } else {
                text::clean_page(&p.text)
            };
            // A page with only a stray mark is treated as having no text at all, everywhere.
            let keep = text::visible_len(&cleaned) >= EMPTY_PAGE_CHARS;
            Page {
                number: p.number,
                text: if keep { cleaned } else { String::new() },
                extractor: if keep { p.extractor } else { Extractor::None },
            }
        })
        .collect();
    let empty_pages: Vec<u32> = pages
        .iter()
        .filter(|p| p.text.is_empty())
        .map(|p| p.number)
        .collect();
    if empty_pages.len() == pages.len() {
        return Err(IngestError::NoTextLayer { pages: pages.len() });
    }
    let numbered: Vec<(u32, String)> = pages.iter().map(|p| (p.number, p.text.clone())).collect();
    let (doc_text, spans) = chunk::assemble(&numbered);
    let chunks = chunk::chunk(&doc_text, &spans, chunking);
    Ok(Prepared {
        pages,
        spans,
        chunks,
        empty_pages,
        extract_time,
        chunk_time: started.elapsed(),
    })
}
