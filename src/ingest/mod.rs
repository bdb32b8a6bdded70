//! Ingestion of one PDF into pages and chunks.
//!
//! Owns: validation of the bytes, text extraction (`pdf`, tables read row by row by `grid`) in
//! a separate process (`worker`), OCR
//! of scanned pages (`ocr`, in the same kind of process), clean-up (`text`), removal of running
//! headers and footers (`furniture`) and chunking with
//! page spans and headings (`chunk`). The result is plain data; the `library`
//! module decides when it is stored, embedded and made visible. Must not: touch SQLite, LanceDB
//! or the embedder.

pub mod chunk;
pub mod columns;
pub mod furniture;
pub mod grid;
pub mod ocr;
pub mod pdf;
pub mod text;
pub mod worker;

use std::sync::Arc;
use std::time::{Duration, Instant};

pub use chunk::{Chunk, PageSpan};
pub use ocr::OcrWord;
pub use pdf::Extractor;

use crate::config::{ChunkSettings, Limits, OcrSettings};

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
    /// No page has a text layer (a scan or images only), and OCR read nothing either.
    #[error(
        "no page of this PDF has a text layer ({pages} pages look scanned or are images), and {ocr}"
    )]
    NoTextLayer {
        /// Number of pages.
        pages: usize,
        /// What OCR did ("OCR recognised no text on them", or why it did not run).
        ocr: String,
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
    /// What OCR read, for a scanned page.
    pub ocr: Option<OcrLayer>,
}

/// The recognition behind an OCR'd page's text.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrLayer {
    /// Mean word confidence, 0–100.
    pub confidence: f32,
    /// The words with their boxes, offsets into the page's cleaned text.
    pub words: Vec<OcrWord>,
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

/// Extracts (in the worker), recognises scanned pages (OCR, in a worker, when `ocr` allows;
/// `progress(done, total)` after each page, `false` to cancel), cleans and chunks a PDF.
/// `None`: cancelled.
pub async fn prepare(
    bytes: Arc<Vec<u8>>,
    limits: &Limits,
    chunking: ChunkSettings,
    ocr: &OcrSettings,
    worker: &worker::Worker,
    progress: &mut (dyn FnMut(usize, usize) -> bool + Send),
) -> Result<Option<Prepared>, IngestError> {
    let started = Instant::now();
    let raw = worker.extract(bytes.clone(), limits).await?;
    let scanned: Vec<u32> = raw
        .iter()
        .filter(|p| p.needs_ocr())
        .map(|p| p.number)
        .collect();
    let mut read = Vec::new();
    let mut why_not = None;
    if !scanned.is_empty() && !ocr.enabled {
        why_not = Some("OCR is turned off (settings: ocr.enabled)".to_owned());
    } else if !scanned.is_empty() {
        let language = ocr.language.clone();
        let available = tokio::task::spawn_blocking(move || ocr::check(&language))
            .await
            .unwrap_or_else(|e| Err(format!("the OCR check failed: {e}")));
        if let Err(why) = available {
            why_not = Some(format!("OCR is not available: {why}"));
        } else {
            match worker
                .recognise(bytes, &scanned, &ocr.language, limits, progress)
                .await?
            {
                Some(pages) => read = pages,
                None => return Ok(None),
            }
        }
    }
    let extract_time = started.elapsed();
    prepare_pages(raw, read, chunking, extract_time, why_not).map(Some)
}

/// Cleans and chunks extracted pages, a page's OCR text standing in for a scanned page's
/// missing text layer. `why_no_ocr`: why scanned pages were not recognised.
pub fn prepare_pages(
    raw: Vec<pdf::RawPage>,
    ocr: Vec<ocr::OcrPage>,
    chunking: ChunkSettings,
    extract_time: Duration,
    why_no_ocr: Option<String>,
) -> Result<Prepared, IngestError> {
    let started = Instant::now();
    let mut ocr: std::collections::HashMap<u32, ocr::OcrPage> =
        ocr.into_iter().map(|p| (p.number, p)).collect();
    let mut pages: Vec<Page> = raw
        .into_iter()
        .map(|p| {
            let read = ocr.remove(&p.number).filter(|_| p.needs_ocr());
            let (cleaned, extractor, layer) = match read {
                Some(read) => {
                    let cleaned = text::clean_page(&read.text);
                    let words = ocr::align(&read.words, &read.text, &cleaned);
                    let layer = OcrLayer {
                        confidence: read.confidence,
                        words,
                    };
                    (cleaned, Extractor::Ocr, Some(layer))
                }
                None if p.extractor == Extractor::Lopdf => (
                    text::clean_page(&text::tidy_positioned(&p.text)),
                    p.extractor,
                    None,
                ),
                None => (text::clean_page(&p.text), p.extractor, None),
            };
            // A page with only a stray mark is treated as having no text at all, everywhere.
            let keep = text::visible_len(&cleaned) >= EMPTY_PAGE_CHARS;
            Page {
                number: p.number,
                text: if keep { cleaned } else { String::new() },
                extractor: if keep { extractor } else { Extractor::None },
                ocr: layer.filter(|_| keep),
            }
        })
        .collect();
    // OCR'd pages keep their text: their words hold offsets into it.
    furniture::strip(
        &mut pages
            .iter_mut()
            .map(|p| p.ocr.is_none().then_some(&mut p.text))
            .collect::<Vec<_>>(),
    );
    let empty_pages: Vec<u32> = pages
        .iter()
        .filter(|p| p.text.is_empty())
        .map(|p| p.number)
        .collect();
    if empty_pages.len() == pages.len() {
        return Err(IngestError::NoTextLayer {
            pages: pages.len(),
            ocr: why_no_ocr.unwrap_or_else(|| "OCR recognised no text on them".to_owned()),
        });
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
