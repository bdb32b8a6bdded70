//! PDF reports: a conversation, one answer or one audit as a PDF a compliance officer can file —
//! title, date, profile, every question and answer, the findings table with severity, every
//! citation with its document, version, page and quote — written with lopdf in the standard
//! Helvetica fonts (nothing embedded, every PDF reader has them).
//!
//! Owns: the report's layout (lines wrapped by the fonts' glyph widths, a table, pages with
//! numbers), the text encoding those fonts take (WinAnsi; a letter they cannot show becomes
//! "?", a symbol such as an emoji is left out), and [`export`], the one dispatch of a thread's
//! export formats (Markdown, JSON, PDF) that the CLI and the app share. Must not: read stores or
//! decide what a thread holds (it renders a [`ThreadView`]).

use lopdf::content::{Content, Operation};
use lopdf::{Document, Object, Stream, StringFormat, dictionary};

use crate::Error;
use crate::agent::ThreadView;
use crate::agent::types::{Role, SourceType};

/// The formats a conversation (or one answer) is exported in.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// Markdown with citations.
    #[value(name = "md", alias = "markdown")]
    Markdown,
    /// The thread's full structure.
    Json,
    /// A PDF report (title, date, profile, answers, findings table, citations).
    Pdf,
}

/// `view` in `format`; `profile` names the profile on a PDF report.
pub fn export(view: &ThreadView, profile: &str, format: ExportFormat) -> Result<Vec<u8>, Error> {
    match format {
        ExportFormat::Markdown => Ok(crate::agent::render_markdown(view).into_bytes()),
        ExportFormat::Json => {
            serde_json::to_vec_pretty(view).map_err(|e| Error::Internal(e.to_string()))
        }
        ExportFormat::Pdf => thread_pdf(view, profile, &now()),
    }
}

/// A4 in points.
const PAGE_WIDTH: f32 = 595.0;
const PAGE_HEIGHT: f32 = 842.0;
const MARGIN: f32 = 56.0;
/// Body text size and line height (points).
const BODY: f32 = 10.0;
const LEADING: f32 = 1.3;

/// Helvetica's advance widths (1/1000 em) for the printable ASCII characters, from its AFM.
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
    556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667,
    611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
    667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500,
    222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];
/// Helvetica-Bold is at most this much wider than Helvetica for the same text.
const BOLD_FACTOR: f32 = 1.1;

/// The report of `view` as a PDF; `profile` and `exported_at` go in its header.
pub fn thread_pdf(view: &ThreadView, profile: &str, exported_at: &str) -> Result<Vec<u8>, Error> {
    let mut w = Writer::new();
    let title = if view.conversation.title.is_empty() {
        "Conversation"
    } else {
        &view.conversation.title
    };
    w.text(title, 16.0, true, 0.0);
    w.text(
        &format!("PolicyPal report · profile {profile} · exported {exported_at}"),
        8.5,
        false,
        0.0,
    );
    w.gap(10.0);
    for m in &view.messages {
        let who = if m.role == Role::User {
            "Question"
        } else {
            "Answer"
        };
        w.text(&format!("{who} — {}", when(&m.created_at)), 11.0, true, 0.0);
        w.text(&plain(&m.content), BODY, false, 0.0);
        if let Some(c) = &m.confidence {
            w.text(
                &format!("Confidence: {:?} ({:.2}) — {}", c.level, c.score, c.reason),
                8.5,
                false,
                0.0,
            );
        }
        if let Some(a) = &m.audit {
            w.gap(4.0);
            w.text(
                &format!(
                    "Audit: {} — {} finding(s)",
                    a.overall_status.label(),
                    a.findings.len()
                ),
                BODY,
                true,
                0.0,
            );
            if !a.findings.is_empty() {
                let widths = [62.0, 140.0, PAGE_WIDTH - 2.0 * MARGIN - 62.0 - 140.0];
                w.row(&["Severity", "Document, page", "Finding"], &widths, true);
                for f in &a.findings {
                    let place = format!(
                        "{}{}, p. {}",
                        f.target_doc_title,
                        if f.target.version.is_empty() {
                            String::new()
                        } else {
                            format!(" {}", f.target.version)
                        },
                        f.target.page
                    );
                    let mut finding = f.summary.clone();
                    if let Some(theme) = &f.theme {
                        finding.push_str(&format!("\nTheme: {theme}"));
                    }
                    finding.push_str(&format!("\nAudited text: “{}”", one_line(&f.source_quote)));
                    finding.push_str(&format!("\nClause: “{}”", one_line(&f.target.quote)));
                    if !f.suggestion.is_empty() {
                        finding.push_str(&format!("\nSuggestion: {}", f.suggestion));
                    }
                    w.row(&[f.severity.label(), &place, &finding], &widths, false);
                }
            }
        }
        if !m.citations.is_empty() {
            w.gap(4.0);
            w.text("Sources", BODY, true, 0.0);
            for (i, c) in m.citations.iter().enumerate() {
                let line = match c.source_type {
                    SourceType::Web => format!(
                        "[{}] {} — {}: “{}”",
                        i + 1,
                        c.title,
                        c.url.as_deref().unwrap_or_default(),
                        one_line(&c.quote)
                    ),
                    SourceType::Document => format!(
                        "[{}] {}{}, page {} ({}): “{}”",
                        i + 1,
                        c.title,
                        if c.version.is_empty() {
                            String::new()
                        } else {
                            format!(" {}", c.version)
                        },
                        c.page,
                        c.file_name,
                        one_line(&c.quote)
                    ),
                };
                w.text(&line, 9.0, false, 12.0);
            }
        }
        w.gap(12.0);
    }
    w.finish()
}

/// The current time in UTC as a report's header shows it ("2026-11-26 01:30 UTC").
pub fn now() -> String {
    let format = time::macros::format_description!("[year]-[month]-[day] [hour]:[minute] UTC");
    time::OffsetDateTime::now_utc()
        .format(&format)
        .unwrap_or_default()
}

/// A quote on one line: its line breaks are where the PDF's lines ended, not meaning.
fn one_line(quote: &str) -> String {
    quote.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Message text as the app shows it, without Markdown: emphasis and heading marks dropped, a
/// single line break inside a paragraph read as a space (they are where the PDF's lines of a
/// quote ended), list items and blank lines kept.
fn plain(text: &str) -> String {
    let mut out = String::new();
    for (n, para) in text.replace("**", "").split("\n\n").enumerate() {
        if n > 0 {
            out.push_str("\n\n");
        }
        for (i, line) in para.lines().enumerate() {
            let line = line.trim_start_matches('#').trim();
            let item = line.starts_with("- ")
                || line.starts_with("* ")
                || line
                    .split_once(". ")
                    .is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_digit()));
            if i > 0 {
                out.push(if item { '\n' } else { ' ' });
            }
            out.push_str(line);
        }
    }
    out
}

/// A stored time ("2026-11-26T01:34:57.854Z") as a reader wants it ("2026-11-26 01:34 UTC").
fn when(stamp: &str) -> String {
    match (stamp.get(..10), stamp.get(11..16)) {
        (Some(day), Some(time)) if stamp.ends_with('Z') => format!("{day} {time} UTC"),
        _ => stamp.to_owned(),
    }
}

/// The characters WinAnsi places in 0x80–0x9F (the rest of 0x20–0xFF is Latin-1).
const WINANSI_EXTRA: [(char, u8); 27] = [
    ('€', 0x80),
    ('‚', 0x82),
    ('ƒ', 0x83),
    ('„', 0x84),
    ('…', 0x85),
    ('†', 0x86),
    ('‡', 0x87),
    ('ˆ', 0x88),
    ('‰', 0x89),
    ('Š', 0x8A),
    ('‹', 0x8B),
    ('Œ', 0x8C),
    ('Ž', 0x8E),
    ('‘', 0x91),
    ('’', 0x92),
    ('“', 0x93),
    ('”', 0x94),
    ('•', 0x95),
    ('–', 0x96),
    ('—', 0x97),
    ('˜', 0x98),
    ('™', 0x99),
    ('š', 0x9A),
    ('›', 0x9B),
    ('œ', 0x9C),
    ('ž', 0x9E),
    ('Ÿ', 0x9F),
];

/// `c` in WinAnsi, the encoding of the standard fonts; `None` for a character they lack.
fn winansi(c: char) -> Option<u8> {
    match u32::from(c) {
        0x20..=0x7E | 0xA0..=0xFF => u8::try_from(u32::from(c)).ok(),
        _ => WINANSI_EXTRA.iter().find(|(s, _)| *s == c).map(|(_, b)| *b),
    }
}

/// The bytes the fonts show for `text`: a letter or digit they lack becomes "?", any other
/// character they lack (an emoji, a symbol) is left out; tabs become spaces.
fn encode(text: &str) -> Vec<u8> {
    text.chars()
        .filter_map(|c| {
            let c = if c == '\t' { ' ' } else { c };
            winansi(c).or_else(|| c.is_alphanumeric().then_some(b'?'))
        })
        .collect()
}

/// Width of encoded text in points.
fn width(bytes: &[u8], size: f32, bold: bool) -> f32 {
    let units: f32 = bytes
        .iter()
        .map(|b| match b {
            0x20..=0x7E => f32::from(HELVETICA[usize::from(b - 0x20)]),
            _ => 600.0,
        })
        .sum();
    units / 1000.0 * size * if bold { BOLD_FACTOR } else { 1.0 }
}

/// Splits `text` into lines no wider than `max` points (a word longer than a line is cut).
fn wrap(text: &str, size: f32, bold: bool, max: f32) -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    for para in text.split('\n') {
        let mut line: Vec<u8> = Vec::new();
        for word in para.split(' ').filter(|w| !w.is_empty()) {
            let mut word = encode(word);
            loop {
                let candidate = if line.is_empty() {
                    word.clone()
                } else {
                    [line.as_slice(), b" ", word.as_slice()].concat()
                };
                if width(&candidate, size, bold) <= max {
                    line = candidate;
                    break;
                }
                if !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                    continue;
                }
                // One word wider than the line: cut it where it fills the line.
                let mut cut = word.len();
                while cut > 1 && width(&word[..cut], size, bold) > max {
                    cut -= 1;
                }
                lines.push(word[..cut].to_vec());
                word = word[cut..].to_vec();
                if word.is_empty() {
                    break;
                }
            }
        }
        lines.push(line);
    }
    lines
}

/// Lays text out top to bottom, page after page.
struct Writer {
    pages: Vec<Vec<Operation>>,
    y: f32,
}

impl Writer {
    fn new() -> Self {
        Self {
            pages: vec![Vec::new()],
            y: PAGE_HEIGHT - MARGIN,
        }
    }

    /// Room for `height` more points on this page, else a new page.
    fn room(&mut self, height: f32) {
        if self.y - height < MARGIN {
            self.pages.push(Vec::new());
            self.y = PAGE_HEIGHT - MARGIN;
        }
    }

    fn gap(&mut self, height: f32) {
        self.y -= height;
    }

    fn line_at(&mut self, x: f32, bytes: Vec<u8>, size: f32, bold: bool) {
        let ops = self.pages.last_mut();
        if let Some(ops) = ops {
            ops.extend([
                Operation::new("BT", vec![]),
                Operation::new(
                    "Tf",
                    vec![if bold { "F2" } else { "F1" }.into(), size.into()],
                ),
                Operation::new("Td", vec![x.into(), self.y.into()]),
                Operation::new("Tj", vec![Object::String(bytes, StringFormat::Literal)]),
                Operation::new("ET", vec![]),
            ]);
        }
    }

    /// A paragraph, wrapped to the page, `indent` points in.
    fn text(&mut self, text: &str, size: f32, bold: bool, indent: f32) {
        let max = PAGE_WIDTH - 2.0 * MARGIN - indent;
        for line in wrap(text, size, bold, max) {
            self.room(size * LEADING);
            self.y -= size * LEADING;
            self.line_at(MARGIN + indent, line, size, bold);
        }
    }

    /// A table row: each cell wrapped in its column, a rule above it.
    fn row(&mut self, cells: &[&str], widths: &[f32], bold: bool) {
        let size = 9.0;
        let gutter = 6.0;
        let wrapped: Vec<Vec<Vec<u8>>> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| wrap(c, size, bold, w - gutter))
            .collect();
        let lines = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        // A row taller than a page is split across pages line by line.
        self.room((lines.min(8) as f32 + 1.0) * size * LEADING);
        self.rule();
        for i in 0..lines {
            self.room(size * LEADING);
            self.y -= size * LEADING;
            let mut x = MARGIN;
            for (col, w) in wrapped.iter().zip(widths) {
                if let Some(l) = col.get(i) {
                    self.line_at(x, l.clone(), size, bold);
                }
                x += w;
            }
        }
        self.y -= 3.0;
    }

    /// A thin line across the text width.
    fn rule(&mut self) {
        self.y -= 3.0;
        if let Some(ops) = self.pages.last_mut() {
            ops.extend([
                Operation::new("w", vec![0.5.into()]),
                Operation::new("m", vec![MARGIN.into(), self.y.into()]),
                Operation::new("l", vec![(PAGE_WIDTH - MARGIN).into(), self.y.into()]),
                Operation::new("S", vec![]),
            ]);
        }
    }

    /// The PDF: every page numbered "n / N" at its foot.
    fn finish(mut self) -> Result<Vec<u8>, Error> {
        let total = self.pages.len();
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font = |name: &str| {
            dictionary! {
                "Type" => "Font",
                "Subtype" => "Type1",
                "BaseFont" => name.to_owned(),
                "Encoding" => "WinAnsiEncoding",
            }
        };
        let regular = doc.add_object(font("Helvetica"));
        let bold = doc.add_object(font("Helvetica-Bold"));
        let resources = doc.add_object(dictionary! {
            "Font" => dictionary! { "F1" => regular, "F2" => bold },
        });
        let mut kids = Vec::new();
        for (n, mut ops) in std::mem::take(&mut self.pages).into_iter().enumerate() {
            let foot = format!("{} / {total}", n + 1);
            let foot = encode(&foot);
            let x = PAGE_WIDTH - MARGIN - width(&foot, 8.0, false);
            ops.extend([
                Operation::new("BT", vec![]),
                Operation::new("Tf", vec!["F1".into(), 8.0.into()]),
                Operation::new("Td", vec![x.into(), (MARGIN / 2.0).into()]),
                Operation::new("Tj", vec![Object::String(foot, StringFormat::Literal)]),
                Operation::new("ET", vec![]),
            ]);
            let body = Content { operations: ops }
                .encode()
                .map_err(|e| Error::Internal(format!("PDF report: {e}")))?;
            let content = doc.add_object(Stream::new(dictionary! {}, body));
            kids.push(Object::from(doc.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "Contents" => content,
            })));
        }
        let count = i64::try_from(kids.len()).unwrap_or(i64::MAX);
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages",
                "Kids" => kids,
                "Count" => count,
                "Resources" => resources,
                "MediaBox" => vec![0.into(), 0.into(), PAGE_WIDTH.into(), PAGE_HEIGHT.into()],
            }),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog);
        doc.compress();
        let mut out = Vec::new();
        doc.save_to(&mut out)
            .map_err(|e| Error::Internal(format!("PDF report: {e}")))?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_encoded_for_the_standard_fonts() {
        assert_eq!(encode("“Fee” – 5 €"), b"\x93Fee\x94 \x96 5 \x80".to_vec());
        // A letter the fonts lack shows as "?", an emoji is left out.
        assert_eq!(encode("📄 Zürich Ω"), b" Z\xfcrich ?".to_vec());
    }

    #[test]
    fn message_text_reads_as_the_app_shows_it() {
        assert_eq!(
            plain(
                "### Bank\n\n“A bank must hold 8 per\ncent.” (p. 1)\n\n**Sources:**\n1. Bank — page 1\n- note"
            ),
            "Bank\n\n“A bank must hold 8 per cent.” (p. 1)\n\nSources:\n1. Bank — page 1\n- note"
        );
        assert_eq!(when("2026-11-26T01:34:57.854Z"), "2026-11-26 01:34 UTC");
        assert_eq!(when("yesterday"), "yesterday");
    }

    #[test]
    fn lines_fit_the_width_and_long_words_are_cut() {
        let max = 100.0;
        let lines = wrap(
            "A licensed bank must hold a capital conservation buffer of 2.5 per cent.",
            BODY,
            false,
            max,
        );
        assert!(lines.len() > 2);
        assert!(lines.iter().all(|l| width(l, BODY, false) <= max));
        let long = wrap(&"x".repeat(200), BODY, false, max);
        assert!(long.len() > 1 && long.iter().all(|l| width(l, BODY, false) <= max));
        assert_eq!(
            long.concat().len(),
            200,
            "nothing is lost when a word is cut"
        );
        // A blank line stays a line.
        assert_eq!(wrap("a\n\nb", BODY, false, max).len(), 3);
    }
}
