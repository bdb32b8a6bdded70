//! PDF → per-page text (run inside the extraction worker process, see `worker`).
//!
//! Owns: checking that bytes are a readable PDF (not encrypted, within the page limit) and
//! extracting each physical page's text. The primary is poppler's `pdftotext` (installed with
//! the app for OCR's renderer anyway): it places the words by their positions, as a PDF viewer
//! shows them, where `pdf-extract` glues the words of PDFs that position each word instead of
//! writing spaces ("hierarchyisdivided" in a groff manual) — quotes must be what a reader
//! sees. A page that holds a table is written from poppler's word boxes (`-bbox-layout`) with
//! each row on a line (see `grid`): its reading order gives a table cell by cell, often down
//! a column. A page of two columns that its reading order runs across is written from the
//! same boxes a column at a time (see `columns`). Another page whose content stream draws rows
//! of words that the reading order splits (a command's words set apart by wide spaces) is read
//! in drawing order (`-raw`) when that holds the same words on far fewer lines. A page
//! `pdftotext` leaves empty, or every page when it is missing or fails, is read with
//! `pdf-extract`, falling back to lopdf's own text extraction for a page that panics,
//! errors, or comes back suspiciously empty (pdf-extract silently drops the body text of some
//! Ghostscript-made PDFs). Those pages are shared out among one scoped thread per core, each
//! page under its own `catch_unwind`; what unwinding cannot catch (a stack overflow, memory
//! exhaustion, a hang) ends the worker, not the app; `pdftotext` runs as the worker's child,
//! under its limits. Must not: clean text, chunk, or touch any store.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pdf_extract::{Document, PlainTextOutput, output_doc_page};

use super::IngestError;

/// Which extractor produced a page's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Extractor {
    /// poppler's `pdftotext` (the primary).
    Poppler,
    /// `pdf-extract` (the first fallback).
    PdfExtract,
    /// lopdf's content-stream text extraction (the fallback).
    Lopdf,
    /// Neither produced text.
    None,
    /// Tesseract, on the rendered page (a scan).
    Ocr,
}

impl Extractor {
    /// Stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Poppler => "poppler",
            Self::PdfExtract => "pdf_extract",
            Self::Lopdf => "lopdf",
            Self::None => "none",
            Self::Ocr => "ocr",
        }
    }
}

/// Raw text of one physical page.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RawPage {
    /// 1-based physical page number.
    pub number: u32,
    /// Text as extracted (not yet cleaned).
    pub text: String,
    /// Who extracted it.
    pub extractor: Extractor,
    /// The page draws images (a scanned page without text needs OCR).
    pub has_images: bool,
}

impl RawPage {
    /// No extractor found text, and the page draws an image: a scan for OCR to read.
    pub fn needs_ocr(&self) -> bool {
        self.extractor == Extractor::None && self.has_images
    }
}

/// Pages with fewer non-space characters than this from pdf-extract are re-read by the
/// fallback extractor, and the longer result wins.
const SUSPICIOUS_CHARS: usize = 200;

/// Cheap structural check before anything is stored: magic bytes, parse, encryption and page
/// count. Returns the number of pages.
pub fn inspect(bytes: &[u8], max_pages: usize) -> Result<usize, IngestError> {
    if bytes.is_empty() {
        return Err(IngestError::EmptyFile);
    }
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(IngestError::NotPdf);
    }
    let doc = load(bytes)?;
    let pages = doc.get_pages().len();
    if pages == 0 {
        return Err(IngestError::Corrupt("the document has no pages".into()));
    }
    if pages > max_pages {
        return Err(IngestError::TooManyPages {
            pages,
            max: max_pages,
        });
    }
    Ok(pages)
}

fn load(bytes: &[u8]) -> Result<Document, IngestError> {
    let parsed = catch_unwind(AssertUnwindSafe(|| Document::load_mem(bytes)))
        .map_err(|_| IngestError::Corrupt("the PDF parser crashed on this file".into()))?;
    let mut doc = match parsed {
        Ok(doc) => doc,
        Err(e) => {
            let msg = e.to_string();
            // lopdf refuses encrypted files it cannot decrypt at load time in some versions.
            if msg.to_ascii_lowercase().contains("encrypt") || msg.contains("decrypt") {
                return Err(IngestError::Encrypted);
            }
            return Err(IngestError::Corrupt(if is_truncated(bytes) {
                format!("the file looks truncated ({msg})")
            } else {
                msg
            }));
        }
    };
    if doc.is_encrypted() {
        // Owner-password-only PDFs open with the empty user password; anything else is locked.
        let ok = catch_unwind(AssertUnwindSafe(|| doc.decrypt(""))).is_ok_and(|r| r.is_ok());
        if !ok {
            return Err(IngestError::Encrypted);
        }
    }
    Ok(doc)
}

fn is_truncated(bytes: &[u8]) -> bool {
    let tail = &bytes[bytes.len().saturating_sub(2048)..];
    !tail.windows(5).any(|w| w == b"%%EOF")
}

/// poppler's text extractor.
pub const PDFTOTEXT: &str = "pdftotext";

/// How long `pdftotext` may take when the caller sets no limit ([`extract_blocking`]): poppler
/// reads ~100 pages a second, so only a file built to make it loop gets near this.
const PDFTOTEXT_SECS: u64 = 120;

/// Seconds `pdftotext` always has, whatever the page count.
const POPPLER_BASE_SECS: u64 = 10;
/// The slowest reading `pdftotext` is given time for beyond [`POPPLER_BASE_SECS`], in pages a
/// second (it reads ~100): 1,500 pages get 310 s, 50 pages 20 s.
const POPPLER_MIN_PAGES_PER_SEC: u64 = 5;

/// What `pdftotext` is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Poppler {
    /// Plain text in reading order, a form feed after each page.
    Text,
    /// Plain text in the order the page's content stream draws it (`-raw`).
    Drawn,
    /// The XHTML of every word's box, in flows, blocks and lines (`-bbox-layout`).
    Boxes,
}

/// `pdftotext`'s output for the whole file (UTF-8), `None` when the program is missing, fails
/// or runs over `secs` (it is then stopped, and the pages go to the built-in extractors).
fn poppler_run(bytes: &[u8], secs: u64, mode: Poppler) -> Option<String> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let mut args = vec!["-enc", "UTF-8", "-q"];
    match mode {
        Poppler::Text => {}
        Poppler::Drawn => args.push("-raw"),
        Poppler::Boxes => args.push("-bbox-layout"),
    }
    args.extend(["-", "-"]);
    let mut child = Command::new(PDFTOTEXT)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // The PDF goes in and the text comes out on threads of their own, so neither pipe fills
    // up while this one watches the clock.
    let mut stdin = child.stdin.take()?;
    let mut stdout = child.stdout.take()?;
    let input = bytes.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).map(|_| out)
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            _ => {
                // Over time (or unwaitable): stopped, and the pages go to the fallback.
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let fed = feeder.join().ok().is_some_and(|r| r.is_ok());
    let out = reader.join().ok()?.ok()?;
    if !fed || !status?.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// Every page's text as `pdftotext` reads it (reading order, or drawing order with
/// [`Poppler::Drawn`]), `None` when it cannot be read (see [`poppler_run`]) or does not come as
/// one text per page (`pages`).
fn poppler_pages(bytes: &[u8], pages: usize, secs: u64, mode: Poppler) -> Option<Vec<String>> {
    let text = poppler_run(bytes, secs, mode)?;
    // One form feed after each page.
    let mut texts: Vec<String> = text.split('\u{c}').map(str::to_owned).collect();
    if texts.last().is_some_and(|t| t.trim().is_empty()) && texts.len() == pages + 1 {
        texts.pop();
    }
    (texts.len() == pages).then_some(texts)
}

/// Share of a page's lines a table must hold for the page to be read as a table rather than
/// as two columns of running text when it reads as both (see `extract_with`).
const MOSTLY_TABLE: f32 = 0.5;

/// Fewest one-to-three-word lines (a table's cells, one per line) a page's reading order must
/// have before its drawing order is considered (see [`rows_kept`]).
const MIN_CELL_LINES: usize = 6;

/// Whether `drawn` (a page in drawing order) keeps rows that `read` (the same page in reading
/// order) splits into columns: the same letters and digits (line breaks and hyphenation
/// aside), and at most half as many lines of one to three words, of which `read` has at least
/// [`MIN_CELL_LINES`]. Prose reads the same both ways.
fn rows_kept(read: &str, drawn: &str) -> bool {
    let cells = |t: &str| {
        t.lines()
            .filter(|l| (1..=3).contains(&l.split_whitespace().count()))
            .count()
    };
    fn letters(t: &str) -> Vec<char> {
        let mut c: Vec<char> = t.chars().filter(|c| c.is_alphanumeric()).collect();
        c.sort_unstable();
        c
    }
    let (a, b) = (cells(read), cells(drawn));
    a >= MIN_CELL_LINES && 2 * b <= a && letters(read) == letters(drawn)
}

/// Extracts every page's text, `pdftotext` first (given [`PDFTOTEXT_SECS`]).
pub fn extract_blocking(bytes: &[u8]) -> Result<Vec<RawPage>, IngestError> {
    extract_with(bytes, PDFTOTEXT_SECS)
}

/// Extracts every page's text (in the extraction worker: see `worker`): `pdftotext` first when
/// `poppler_secs` is not 0, for at most that long, else the built-in extractors alone.
pub fn extract_with(bytes: &[u8], poppler_secs: u64) -> Result<Vec<RawPage>, IngestError> {
    let doc = load(bytes)?;
    let mut pages: Vec<(u32, pdf_extract::ObjectId)> = doc.get_pages().into_iter().collect();
    let mut read: Vec<RawPage> = Vec::new();
    // Poppler reads ~100 pages a second: far slower than the slowest speed allowed here is a
    // file built to stall it (a decompression bomb), which the built-in extractors then
    // refuse quickly.
    let budget =
        poppler_secs.min(POPPLER_BASE_SECS + pages.len() as u64 / POPPLER_MIN_PAGES_PER_SEC);
    let started = std::time::Instant::now();
    let poppler = (poppler_secs > 0)
        .then(|| poppler_pages(bytes, pages.len(), budget, Poppler::Text))
        .flatten();
    // The word boxes and the drawing order get what is left of the same budget, so poppler's
    // runs together never take longer than one was allowed to. A page that holds a table is
    // written from the word boxes, row by row (see `grid`), a page of two columns of running
    // text that the reading order runs across a column at a time (see `columns`; a page that
    // reads as both is a table when a table holds most of its lines). Else a page whose
    // drawing order holds the same words on far fewer lines (a row of words set apart by wide
    // spaces, which the reading order splits into one word per line) is read in that order
    // ([`rows_kept`]).
    let left = || budget.saturating_sub(started.elapsed().as_secs());
    let poppler = poppler.map(|mut texts| {
        // A tab is the cell separator of the rows written here, nothing else.
        for text in &mut texts {
            *text = super::grid::without_cells(text);
        }
        let boxes = (left() > 0)
            .then(|| poppler_run(bytes, left(), Poppler::Boxes))
            .flatten()
            .map(|xhtml| super::grid::parse(&xhtml))
            .filter(|laid_out| laid_out.len() == texts.len());
        let mut tabled = vec![false; texts.len()];
        for ((text, page), done) in texts
            .iter_mut()
            .zip(boxes.iter().flatten())
            .zip(&mut tabled)
        {
            // A page of two columns of running text is read a column at a time, unless most
            // of its lines are a table's: a table of two columns of wrapped prose has a
            // gutter too, and its rows must stay together, while a column that holds a short
            // list beside the other column's prose only looks like a table's cells.
            let tabled_page = super::grid::page_text(page);
            let columns = super::columns::page_text(page);
            let chosen = match (tabled_page, columns) {
                (Some(_), Some(c)) if super::grid::table_share(page) < MOSTLY_TABLE => Some(c),
                (Some(rows), _) => Some(rows),
                (None, columns) => columns,
            };
            if let Some(chosen) = chosen {
                *text = chosen;
                *done = true;
            }
        }
        if let Some(drawn) = (left() > 0)
            .then(|| poppler_pages(bytes, pages.len(), left(), Poppler::Drawn))
            .flatten()
        {
            for ((text, drawn), done) in texts.iter_mut().zip(drawn).zip(&tabled) {
                if !done && rows_kept(text, &drawn) {
                    *text = super::grid::without_cells(&drawn);
                }
            }
        }
        texts
    });
    if let Some(texts) = poppler {
        // Pages in page-number order, as `pdftotext` writes them.
        pages.sort_by_key(|(number, _)| *number);
        let mut rest = Vec::new();
        for ((number, id), text) in pages.into_iter().zip(texts) {
            if visible_chars(&text) > 0 {
                read.push(RawPage {
                    number,
                    text,
                    extractor: Extractor::Poppler,
                    has_images: false,
                });
            } else {
                rest.push((number, id));
            }
        }
        pages = rest;
    }
    // Pages are independent: one thread per core, pages dealt out in turn so that long and
    // short pages spread evenly (the benchmark file: 0.53 s on one core).
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .clamp(1, pages.len().max(1));
    let mut out = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|first| {
                let (doc, pages) = (&doc, &pages);
                scope.spawn(move || {
                    pages
                        .iter()
                        .skip(first)
                        .step_by(threads)
                        .map(|&(number, page_id)| extract_page(doc, number, page_id))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().try_fold(Vec::new(), |mut all, worker| {
            all.extend(
                worker
                    .join()
                    .map_err(|_| IngestError::Corrupt("text extraction crashed".into()))?,
            );
            Ok::<_, IngestError>(all)
        })
    })?;
    out.extend(read);
    out.sort_by_key(|p| p.number);
    Ok(out)
}

/// One page's text: pdf-extract's, or lopdf's when pdf-extract's is missing or suspiciously
/// short and lopdf's is longer. Panics in either extractor are contained here.
fn extract_page(doc: &Document, number: u32, page_id: pdf_extract::ObjectId) -> RawPage {
    let primary = catch_unwind(AssertUnwindSafe(|| {
        let mut s = String::new();
        let mut output = PlainTextOutput::new(&mut s);
        output_doc_page(doc, &mut output, number).map(|()| s)
    }))
    .ok()
    .and_then(Result::ok);
    let primary_len = primary.as_deref().map_or(0, visible_chars);
    let (text, extractor) = if primary_len >= SUSPICIOUS_CHARS {
        (primary.unwrap_or_default(), Extractor::PdfExtract)
    } else {
        let fallback = catch_unwind(AssertUnwindSafe(|| doc.extract_text(&[number])))
            .ok()
            .and_then(Result::ok);
        let fallback_len = fallback.as_deref().map_or(0, visible_chars);
        if fallback_len > primary_len {
            (fallback.unwrap_or_default(), Extractor::Lopdf)
        } else if primary_len > 0 {
            (primary.unwrap_or_default(), Extractor::PdfExtract)
        } else {
            (String::new(), Extractor::None)
        }
    };
    let has_images = extractor == Extractor::None && page_has_images(doc, page_id);
    RawPage {
        number,
        text: super::grid::without_cells(&text),
        extractor,
        has_images,
    }
}

/// The size of every page in points (width, height) by page number, from its crop box or
/// media box (inherited from the page tree when the page has none); a page without either is
/// taken as US Letter.
pub fn page_sizes(
    bytes: &[u8],
) -> Result<std::collections::BTreeMap<u32, (f32, f32)>, IngestError> {
    let doc = load(bytes)?;
    Ok(doc
        .get_pages()
        .into_iter()
        .map(|(number, id)| (number, page_size(&doc, id).unwrap_or((612.0, 792.0))))
        .collect())
}

fn page_size(doc: &Document, id: pdf_extract::ObjectId) -> Option<(f32, f32)> {
    let mut node = doc.get_dictionary(id).ok()?;
    // A page tree deeper than this is hostile; its pages get the default size.
    for _ in 0..32 {
        for key in [b"CropBox".as_slice(), b"MediaBox"] {
            if let Some(rect) = node.get(key).ok().and_then(|o| rect(doc, o)) {
                return Some(rect);
            }
        }
        let parent = node.get(b"Parent").ok()?.as_reference().ok()?;
        node = doc.get_dictionary(parent).ok()?;
    }
    None
}

fn rect(doc: &Document, o: &pdf_extract::Object) -> Option<(f32, f32)> {
    let o = match o.as_reference() {
        Ok(id) => doc.get_object(id).ok()?,
        Err(_) => o,
    };
    let n: Vec<f32> = o
        .as_array()
        .ok()?
        .iter()
        .filter_map(|v| {
            v.as_float()
                .ok()
                .or_else(|| v.as_i64().ok().map(|i| i as f32))
        })
        .collect();
    let [x0, y0, x1, y1] = n[..] else { return None };
    Some(((x1 - x0).abs(), (y1 - y0).abs()))
}

fn visible_chars(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

fn page_has_images(doc: &Document, page_id: pdf_extract::ObjectId) -> bool {
    if doc.get_page_images(page_id).is_ok_and(|v| !v.is_empty()) {
        return true;
    }
    // Inline images (BI … ID … EI) do not show up as XObjects.
    doc.get_page_content(page_id)
        .is_ok_and(|c| c.windows(3).any(|w| w == b"BI "))
        || page_resources_have_xobject(doc, page_id)
}

fn page_resources_have_xobject(doc: &Document, page_id: pdf_extract::ObjectId) -> bool {
    let Ok((res, ids)) = doc.get_page_resources(page_id) else {
        return false;
    };
    let has = |d: &pdf_extract::Dictionary| d.get(b"XObject").is_ok();
    res.is_some_and(has) || ids.iter().any(|id| doc.get_dictionary(*id).is_ok_and(has))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_whose_drawing_order_keeps_table_rows_is_read_that_way() {
        let read = "The schedule below lists the periods for the archive.\nItem\nBadges\nKeys\nLogs\n\nPeriod\n1 year\n5 years\n2 years\n";
        let drawn = "The schedule below lists the periods for the archive.\nItem Period\nBadges 1 year\nKeys 5 years\nLogs 2 years\n";
        assert!(rows_kept(read, drawn));
        // Prose reads the same both ways.
        let prose = "Badges expire after one year.\nKeys are kept for five years.\n";
        assert!(!rows_kept(prose, prose));
        // Other words (a drawing order that loses or repeats text) never replace the page.
        assert!(!rows_kept(
            read,
            "The schedule below.\nItem Period\nBadges 1 year\n"
        ));
        // Hyphenation at a line end is the same text.
        let hyphenated = read.replace("The schedule", "The sche-\ndule");
        assert!(rows_kept(&hyphenated, drawn));
    }
}
