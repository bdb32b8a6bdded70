//! OCR of pages that have no text layer (scans): each page is rendered by poppler's `pdftoppm`
//! and read by Tesseract, both started by the extraction worker (`worker`), so the worker's
//! memory limit applies to them and the parent's kill of the worker's process group ends them.
//!
//! Owns: the resolution a page is rendered at, running the two programs on one page, reading
//! Tesseract's TSV into page text with word boxes and confidences, and placing those boxes on
//! the cleaned page text. Must not: decide which pages need OCR, clean or store text.

use std::path::Path;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

/// Resolution pages are rendered at for recognition: Tesseract reads body text best at 300 dpi.
pub const TARGET_DPI: u32 = 300;

/// Most pixels a rendered page may have (an A0 poster at 150 dpi is ~35 M): a hostile page of
/// 200 × 200 inches is rendered at a lower resolution instead of exhausting memory.
const MAX_PIXELS: f64 = 40_000_000.0;

/// Below this resolution Tesseract reads next to nothing; a page that would need less is skipped.
const MIN_DPI: u32 = 50;

/// The Tesseract program (Debian: `tesseract-ocr`).
pub const TESSERACT: &str = "tesseract";

/// The page renderer (Debian: `poppler-utils`).
pub const PDFTOPPM: &str = "pdftoppm";

/// One recognised word: its place in the page text and on the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OcrWord {
    /// Byte offset of the word in the page text.
    pub start: usize,
    /// Byte offset just past the word.
    pub end: usize,
    /// Left edge in PDF points from the page's left edge.
    pub x: f32,
    /// Top edge in PDF points from the page's top edge.
    pub y: f32,
    /// Width in points.
    pub w: f32,
    /// Height in points.
    pub h: f32,
    /// Tesseract's confidence, 0–100.
    pub confidence: f32,
}

/// What OCR read on one page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OcrPage {
    /// 1-based physical page number.
    pub number: u32,
    /// The text, lines in reading order, paragraphs separated by a blank line.
    pub text: String,
    /// The words, in text order.
    pub words: Vec<OcrWord>,
    /// Mean word confidence, 0–100 (0 when no word was read).
    pub confidence: f32,
}

/// The resolution a page of `width` × `height` points is rendered at: [`TARGET_DPI`], less when
/// the page is so large that it would exceed [`MAX_PIXELS`]; `None` for a page too large or
/// too small (0 × 0) to be read.
pub fn dpi_for(width: f32, height: f32) -> Option<u32> {
    let (w, h) = (f64::from(width) / 72.0, f64::from(height) / 72.0);
    if !(w > 0.01 && h > 0.01) {
        return None;
    }
    let fit = (MAX_PIXELS / (w * h)).sqrt().floor();
    let dpi = fit.min(f64::from(TARGET_DPI));
    (dpi >= f64::from(MIN_DPI)).then_some(dpi as u32)
}

/// Renders page `number` of `pdf` at `dpi` into `dir` and reads it with Tesseract in
/// `language`. Runs in the worker; the programs inherit its limits.
pub fn recognise(
    pdf: &Path,
    dir: &Path,
    number: u32,
    dpi: u32,
    language: &str,
) -> Result<OcrPage, String> {
    let root = dir.join(format!("page-{number}"));
    let page = number.to_string();
    let rendered = Command::new(PDFTOPPM)
        .args(["-r", &dpi.to_string(), "-f", &page, "-l", &page])
        .args(["-singlefile", "-gray", "-png"])
        .arg(pdf)
        .arg(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("{PDFTOPPM} did not start: {e}"))?;
    let image = root.with_extension("png");
    if !rendered.status.success() || !image.exists() {
        return Err(format!(
            "{PDFTOPPM} could not render the page: {}",
            String::from_utf8_lossy(&rendered.stderr).trim()
        ));
    }
    let read = Command::new(TESSERACT)
        .arg(&image)
        .args(["stdout", "-l", language, "tsv"])
        // Tesseract's OpenMP threads spin on a busy machine (8 s of CPU became 24 s of wall
        // time here); pages are spread over the cores by the caller instead.
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("{TESSERACT} did not start: {e}"))?;
    let _ = std::fs::remove_file(&image);
    if !read.status.success() {
        return Err(format!(
            "{TESSERACT} could not read the page: {}",
            String::from_utf8_lossy(&read.stderr).trim()
        ));
    }
    let (text, words, confidence) =
        parse_tsv(&String::from_utf8_lossy(&read.stdout), 72.0 / dpi as f32);
    Ok(OcrPage {
        number,
        text,
        words,
        confidence,
    })
}

/// Reads Tesseract's TSV output (level, page, block, paragraph, line, word, left, top, width,
/// height, confidence, text) into page text, word boxes scaled by `scale` (points per pixel)
/// and the mean word confidence. Words of a line are joined by a space, lines by a newline,
/// blocks and paragraphs are separated by a blank line.
pub fn parse_tsv(tsv: &str, scale: f32) -> (String, Vec<OcrWord>, f32) {
    let mut text = String::new();
    let mut words = Vec::new();
    let mut last: Option<(u32, u32, u32)> = None;
    for row in tsv.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        if f.len() < 12 || f[0] != "5" {
            continue;
        }
        let word = f[11].trim();
        if word.is_empty() {
            continue;
        }
        let n = |i: usize| f[i].parse::<f32>().unwrap_or(0.0);
        let id = |i: usize| f[i].parse::<u32>().unwrap_or(0);
        let line = (id(2), id(3), id(4));
        match last {
            None => {}
            Some(prev) if prev == line => text.push(' '),
            Some(prev) if (prev.0, prev.1) == (line.0, line.1) => text.push('\n'),
            Some(_) => text.push_str("\n\n"),
        }
        last = Some(line);
        let start = text.len();
        text.push_str(word);
        words.push(OcrWord {
            start,
            end: text.len(),
            x: n(6) * scale,
            y: n(7) * scale,
            w: n(8) * scale,
            h: n(9) * scale,
            confidence: n(10).clamp(0.0, 100.0),
        });
    }
    let confidence = if words.is_empty() {
        0.0
    } else {
        words.iter().map(|w| w.confidence).sum::<f32>() / words.len() as f32
    };
    (text, words, confidence)
}

/// Places recognised words on the cleaned version of their page's text: clean-up re-joins
/// words hyphenated at a line end and collapses spaces, so offsets are found again by reading
/// the cleaned text in order. A word not found near where the previous one ended keeps no box.
pub fn align(words: &[OcrWord], raw: &str, cleaned: &str) -> Vec<OcrWord> {
    /// How far past the previous word the next one is looked for (in bytes).
    const WINDOW: usize = 64;
    let mut out = Vec::with_capacity(words.len());
    let mut cursor = 0;
    for w in words {
        let Some(word) = raw.get(w.start..w.end) else {
            continue;
        };
        let word = word.trim_end_matches('-');
        if word.is_empty() {
            continue;
        }
        let end = cleaned.len().min(cursor + WINDOW + word.len());
        let Some(hay) = cleaned.get(cursor..end).or_else(|| cleaned.get(cursor..)) else {
            continue;
        };
        if let Some(at) = hay.find(word) {
            let start = cursor + at;
            out.push(OcrWord {
                start,
                end: start + word.len(),
                ..w.clone()
            });
            cursor = start + word.len();
        }
    }
    out
}

/// The languages Tesseract has data for (`tesseract --list-langs`), without its orientation
/// data `osd`; an error naming what is missing when Tesseract is not installed.
pub fn languages() -> Result<Vec<String>, String> {
    let out = Command::new(TESSERACT)
        .arg("--list-langs")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            format!(
                "{TESSERACT} is not installed ({e}); install tesseract-ocr and tesseract-ocr-eng"
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "{TESSERACT} --list-langs failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "osd")
        .map(str::to_owned)
        .collect())
}

/// Whether `code` has the shape of Tesseract language codes (`eng`, `chi_sim`, `deu+eng`):
/// it becomes a program argument, so nothing else is accepted.
pub fn is_language_code(code: &str) -> bool {
    code.split('+').all(|l| {
        !l.is_empty() && l.len() <= 32 && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Whether OCR in `language` can run here: Tesseract with that language's data, and the
/// page renderer. The installed languages when it can, the reason when it cannot.
pub fn check(language: &str) -> Result<Vec<String>, String> {
    if !is_language_code(language) {
        return Err(format!("{language:?} is not a Tesseract language code"));
    }
    let installed = languages()?;
    if !language
        .split('+')
        .all(|l| installed.iter().any(|i| i == l))
    {
        return Err(format!(
            "Tesseract has no data for \"{language}\" (installed: {}); install tesseract-ocr-{language}",
            installed.join(", ")
        ));
    }
    Command::new(PDFTOPPM)
        .arg("-v")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{PDFTOPPM} is not installed ({e}); install poppler-utils"))?;
    Ok(installed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two paragraphs of one block and a second block, as Tesseract 5 writes them (a page, a
    /// block, a paragraph and a line row before the words; confidences as it prints them).
    const TSV: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
1\t1\t0\t0\t0\t0\t0\t0\t2480\t3508\t-1\t
2\t1\t1\t0\t0\t0\t300\t300\t900\t200\t-1\t
3\t1\t1\t1\t0\t0\t300\t300\t900\t100\t-1\t
4\t1\t1\t1\t1\t0\t300\t300\t900\t40\t-1\t
5\t1\t1\t1\t1\t1\t300\t300\t150\t40\t96.5\tInvoices
5\t1\t1\t1\t1\t2\t470\t300\t60\t40\t91\tare
5\t1\t1\t1\t2\t1\t300\t350\t120\t40\t88\tkept
5\t1\t1\t1\t2\t2\t430\t350\t120\t40\t90.5\tseven
5\t1\t1\t2\t1\t1\t300\t420\t120\t40\t70\tyears.
5\t1\t1\t2\t1\t2\t430\t420\t10\t40\t95\t 
5\t1\t2\t1\t1\t1\t300\t600\t200\t40\t64\tArchive-
5\t1\t2\t1\t2\t1\t300\t650\t100\t40\t80\tkeeping
";

    #[test]
    fn tesseract_rows_become_lines_paragraphs_and_word_boxes() {
        let (text, words, confidence) = parse_tsv(TSV, 72.0 / 300.0);
        assert_eq!(
            text,
            "Invoices are\nkept seven\n\nyears.\n\nArchive-\nkeeping"
        );
        assert_eq!(words.len(), 7, "the blank word is not a word");
        assert_eq!(&text[words[3].start..words[3].end], "seven");
        let first = &words[0];
        assert!((first.x - 72.0).abs() < 1e-3 && (first.y - 72.0).abs() < 1e-3);
        assert!((first.w - 36.0).abs() < 1e-3 && (first.h - 9.6).abs() < 1e-3);
        let mean = (96.5 + 91.0 + 88.0 + 90.5 + 70.0 + 64.0 + 80.0) / 7.0;
        assert!((confidence - mean).abs() < 1e-3);
        assert_eq!(parse_tsv("level\tpage_num\n", 1.0).0, "");
    }

    #[test]
    fn word_boxes_follow_the_words_into_the_cleaned_text() {
        let (raw, words, _) = parse_tsv(TSV, 1.0);
        let cleaned = crate::ingest::text::clean_page(&raw);
        assert_eq!(
            cleaned,
            "Invoices are\nkept seven\n\nyears.\n\nArchivekeeping"
        );
        let aligned = align(&words, &raw, &cleaned);
        let texts: Vec<&str> = aligned.iter().map(|w| &cleaned[w.start..w.end]).collect();
        assert_eq!(
            texts,
            [
                "Invoices", "are", "kept", "seven", "years.", "Archive", "keeping"
            ]
        );
        assert_eq!(aligned[6].y, 650.0, "the box stays the word's own");
    }

    #[test]
    fn language_codes_are_codes_and_nothing_else() {
        for ok in ["eng", "chi_sim", "deu+eng", "frk"] {
            assert!(is_language_code(ok), "{ok}");
        }
        for bad in ["", "eng+", "eng; rm -rf /", "-l", "../x", "eng eng"] {
            assert!(!is_language_code(bad), "{bad}");
        }
    }

    #[test]
    fn huge_pages_are_rendered_coarser_and_empty_pages_not_at_all() {
        assert_eq!(dpi_for(595.0, 842.0), Some(TARGET_DPI), "A4");
        let poster = dpi_for(7_200.0, 7_200.0).unwrap_or(0);
        assert!((MIN_DPI..TARGET_DPI).contains(&poster), "{poster}");
        assert_eq!(dpi_for(0.0, 0.0), None);
        assert_eq!(dpi_for(f32::NAN, 842.0), None);
        assert_eq!(dpi_for(200_000.0, 200_000.0), None, "too large to read");
    }
}
