//! Tables on a page, read across their rows, from the word boxes of `pdftotext -bbox-layout`.
//!
//! Owns: reading poppler's XHTML of positioned words into lines and flows, finding the grids
//! of a page (lines side by side in two or more columns over two or more rows), and writing
//! the text of a page that holds one with each table row on one line, its cells apart by a
//! tab. Poppler's reading order gives a table cell by cell, often down a column ("Invoices,
//! Payroll, CCTV footage" then "7 years, 6 years, 30 days"), while a row's meaning runs
//! across it. Must not: run programs, clean text or decide anything about an answer.

use std::borrow::Borrow;

/// A line of text on a page with its box (points from the page's top-left corner).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Left edge.
    pub x0: f32,
    /// Top edge.
    pub y0: f32,
    /// Right edge.
    pub x1: f32,
    /// Bottom edge.
    pub y1: f32,
    /// The line's words.
    pub text: String,
    /// Each word's left and right edge and the byte offset where it starts in `text` (empty
    /// when the boxes of the words are not known).
    pub words: Vec<(f32, f32, usize)>,
}

impl Line {
    fn height(&self) -> f32 {
        (self.y1 - self.y0).max(1.0)
    }
}

/// A page as poppler lays it out: its flows (runs of text read one after the other, printed
/// apart by a blank line), each a list of lines in reading order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    /// The flows in reading order.
    pub flows: Vec<Vec<Line>>,
}

/// Cell separator of a table row in page text.
pub const CELL: char = '\t';

/// Text from an extractor other than [`page_text`], with every [`CELL`] made a space: in
/// stored text a tab means a cell boundary and nothing else.
pub fn without_cells(text: &str) -> String {
    text.replace(CELL, " ")
}

/// The pages of `pdftotext -bbox-layout` output. A word closer to the one before it than
/// [`GLUE`] of the line's height is glued to it, as poppler's plain text glues them (a
/// footnote mark, a superscript).
pub fn parse(xhtml: &str) -> Vec<Page> {
    let mut pages: Vec<Page> = Vec::new();
    let mut line: Option<(Line, f32)> = None;
    let mut rest = xhtml;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..end];
        let name = tag.split_whitespace().next().unwrap_or("");
        match name {
            "page" => pages.push(Page::default()),
            "flow" => {
                if let Some(page) = pages.last_mut() {
                    page.flows.push(Vec::new());
                }
            }
            "line" => {
                line = Some((
                    Line {
                        x0: attr(tag, "xMin"),
                        y0: attr(tag, "yMin"),
                        x1: attr(tag, "xMax"),
                        y1: attr(tag, "yMax"),
                        text: String::new(),
                        words: Vec::new(),
                    },
                    f32::NEG_INFINITY,
                ));
            }
            "word" => {
                let close = rest.find("</word>").unwrap_or(rest.len());
                let word = unescape(rest.get(end + 1..close).unwrap_or(""));
                if let Some((l, last_x1)) = &mut line {
                    let x0 = attr(tag, "xMin");
                    let glued = !l.text.is_empty() && x0 - *last_x1 < GLUE * l.height();
                    if !l.text.is_empty() && !glued {
                        l.text.push(' ');
                    }
                    if !glued {
                        l.words.push((x0, attr(tag, "xMax"), l.text.len()));
                    } else if let Some(w) = l.words.last_mut() {
                        w.1 = attr(tag, "xMax");
                    }
                    l.text.push_str(&word);
                    *last_x1 = attr(tag, "xMax");
                }
            }
            "/line" => {
                if let Some((l, _)) = line.take()
                    && !l.text.trim().is_empty()
                    && let Some(flow) = pages.last_mut().and_then(|p| p.flows.last_mut())
                {
                    flow.push(l);
                }
            }
            _ => {}
        }
        rest = &rest[end.min(rest.len())..];
    }
    pages
}

/// Gap between two words, as a share of the line's height, below which poppler prints them
/// glued (measured against its plain text on every page of the development and probe corpora:
/// 0.05 matches it on all but pages where it drops a line-end dash).
const GLUE: f32 = 0.05;

fn attr(tag: &str, name: &str) -> f32 {
    let key = format!("{name}=\"");
    tag.find(&key)
        .and_then(|i| {
            let v = &tag[i + key.len()..];
            v[..v.find('"')?].parse().ok()
        })
        .unwrap_or(0.0)
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(semi) = rest.find(';').filter(|&j| j <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..semi];
        let c = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A table found on a page: the lines it is made of (indices into the page's lines in reading
/// order) and its rows of cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Indices of its lines, in reading order.
    pub lines: Vec<usize>,
    /// Rows, top to bottom; each row's cells left to right (empty cells, and cells of no
    /// letter or digit, left out).
    pub rows: Vec<Vec<String>>,
}

/// Lines of one band share a top within this share of their height: the cells of a row
/// printed side by side.
const SAME_TOP: f32 = 0.4;
/// Least horizontal gap between two lines of a band, in points, for them to be apart (two
/// cells or columns, not two words).
const APART: f32 = 3.0;
/// Narrowest gutter between two columns, in points.
const GUTTER: f32 = 3.0;
/// A single line below a table's last band continues one of its cells when the gap above it is
/// under this share of its height (a cell's wrapped text); a heading or paragraph after the
/// table stands further off.
const CONTINUES: f32 = 1.2;
/// A band further below the one before than this multiple of the table's smallest line pitch
/// opens a new row, when the table's pitches vary that much (rows set apart by padding).
const ROW_GAP: f32 = 1.3;

/// Bands: lines whose tops agree, top to bottom, each left to right (indices into `lines`).
fn bands<L: Borrow<Line>>(lines: &[L]) -> Vec<Vec<usize>> {
    let line = |i: usize| lines[i].borrow();
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|&a, &b| {
        line(a)
            .y0
            .total_cmp(&line(b).y0)
            .then(line(a).x0.total_cmp(&line(b).x0))
    });
    let mut bands: Vec<Vec<usize>> = Vec::new();
    for i in order {
        match bands.last_mut() {
            Some(band) if (line(band[0]).y0 - line(i).y0).abs() < SAME_TOP * line(i).height() => {
                band.push(i);
            }
            _ => bands.push(vec![i]),
        }
    }
    for band in &mut bands {
        band.sort_by(|&a, &b| line(a).x0.total_cmp(&line(b).x0));
    }
    bands
}

/// How many bands above and below a line may show the column edge it runs across (see
/// [`split_across_cells`]).
const EDGE_REACH: usize = 2;

/// Each line cut where it runs into the next cell of a table: poppler joins the words of two
/// cells into one line when the gap between them is narrow ("with a reading" + "room"). A line
/// is cut before a word that starts where two other lines of the bands near it start (a
/// column's left edge; a single line there may be a centred header cell) to the right of the
/// line's own start, when its band has other lines beside it. A line alone in its band (prose,
/// a title, a cell that spans the table) is left whole.
fn split_across_cells(page: &Page) -> Page {
    let lines: Vec<&Line> = page.flows.iter().flatten().collect();
    let mut pieces = cut_lines(&lines).into_iter();
    Page {
        flows: page
            .flows
            .iter()
            .map(|flow| {
                flow.iter()
                    .flat_map(|_| pieces.next().unwrap_or_default())
                    .collect()
            })
            .collect(),
    }
}

/// [`split_across_cells`] for the lines of a page in reading order: each line's pieces.
fn cut_lines(lines: &[&Line]) -> Vec<Vec<Line>> {
    let bands = bands(lines);
    let mut band_of = vec![0; lines.len()];
    for (b, band) in bands.iter().enumerate() {
        for &i in band {
            band_of[i] = b;
        }
    }
    lines
        .iter()
        .enumerate()
        .map(|(i, &l)| {
            let b = band_of[i];
            if bands[b].len() < 2 || l.words.len() < 2 {
                return vec![l.clone()];
            }
            let near = &bands[b.saturating_sub(EDGE_REACH)..(b + EDGE_REACH + 1).min(bands.len())];
            let starts: Vec<f32> = near
                .iter()
                .flatten()
                .filter(|&&j| j != i && lines[j].x0 > l.x0 + APART)
                .map(|&j| lines[j].x0)
                .collect();
            // An edge two lines start at: one line may be a centred header cell.
            let edges: Vec<f32> = starts
                .iter()
                .copied()
                .filter(|&e| starts.iter().filter(|&&x| (x - e).abs() <= ALIGN).count() >= 2)
                .collect();
            let mut out = Vec::new();
            let mut first = 0;
            for k in 1..=l.words.len() {
                let cut =
                    k == l.words.len() || edges.iter().any(|&e| (l.words[k].0 - e).abs() <= ALIGN);
                if !cut {
                    continue;
                }
                let from = l.words[first].2;
                let to = l.words.get(k).map_or(l.text.len(), |w| w.2);
                out.push(Line {
                    x0: l.words[first].0,
                    y0: l.y0,
                    x1: l.words[k - 1].1,
                    y1: l.y1,
                    text: l.text[from..to].trim_end().to_owned(),
                    words: l.words[first..k]
                        .iter()
                        .map(|&(a, z, at)| (a, z, at - from))
                        .collect(),
                });
                first = k;
            }
            out
        })
        .collect()
}

/// The tables of a page whose lines are `lines` (reading order).
pub fn tables(lines: &[Line]) -> Vec<Table> {
    let bands = bands(lines);
    let side_by_side = |band: &[usize]| side_by_side(lines, band);
    let mut out = Vec::new();
    let mut b = 0;
    while b < bands.len() {
        if !side_by_side(&bands[b]) {
            b += 1;
            continue;
        }
        let mut region: Vec<&[usize]> = vec![&bands[b]];
        let mut next = b + 1;
        while let Some(band) = bands.get(next) {
            if side_by_side(band) {
                region.push(band);
                next += 1;
                continue;
            }
            let l = &lines[band[0]];
            let above = region.last().map_or(l.y0, |r| {
                r.iter().map(|&i| lines[i].y1).fold(f32::MIN, f32::max)
            });
            let cols = columns(lines, &region);
            let inside = cols.iter().enumerate().any(|(c, &(x0, _))| {
                l.x0 >= x0 - 1.0 && cols.get(c + 1).is_none_or(|&(next_x0, _)| l.x1 < next_x0)
            });
            if band.len() == 1 && inside && l.y0 - above < CONTINUES * l.height() {
                region.push(band);
                next += 1;
                continue;
            }
            break;
        }
        b = next;
        let cols = columns(lines, &region);
        let wide = region.iter().filter(|band| side_by_side(band)).count();
        if cols.len() < 2
            || wide < 2
            || running_text(lines, &region, &cols)
            || !aligned(lines, &region, &cols)
            || !worded(lines, &region, &cols)
            || contents(lines, &region)
        {
            continue;
        }
        // Two rows of two cells or more at least: one line split at a wide space is no row.
        let rows = rows(lines, &region, &cols);
        if rows.iter().filter(|r| r.len() >= 2).count() < 2 {
            continue;
        }
        let mut members: Vec<usize> = region
            .iter()
            .flat_map(|band| band.iter().copied())
            .collect();
        members.sort_unstable();
        out.push(Table {
            lines: members,
            rows,
        });
    }
    out
}

/// The bands of a region below its first, when two or more of them have lines side by side
/// (the first band is then a header row, whose cells may span or centre over columns), else
/// the whole region: one row under a first band does not show where the columns are.
fn body<'a>(lines: &[Line], region: &'a [&'a [usize]]) -> &'a [&'a [usize]] {
    let below = region.get(1..).unwrap_or_default();
    if below.iter().filter(|b| side_by_side(lines, b)).count() >= 2 {
        below
    } else {
        region
    }
}

fn side_by_side(lines: &[Line], band: &[usize]) -> bool {
    band.len() >= 2
        && band
            .windows(2)
            .all(|w| lines[w[0]].x1 < lines[w[1]].x0 - APART)
}

/// The columns of a region, left to right, as x ranges: the stretches between gutters, a
/// gutter being an x range at least [`GUTTER`] wide that no line of the [`body`] crosses.
fn columns(lines: &[Line], region: &[&[usize]]) -> Vec<(f32, f32)> {
    let members: Vec<&Line> = body(lines, region)
        .iter()
        .flat_map(|b| b.iter().map(|&i| &lines[i]))
        .collect();
    let Some(lo) = members.iter().map(|l| l.x0).reduce(f32::min) else {
        return Vec::new();
    };
    let hi = members.iter().map(|l| l.x1).fold(lo, f32::max);
    let width = (hi - lo).ceil() as usize + 1;
    let mut cover = vec![0u32; width.min(10_000)];
    for l in &members {
        let a = ((l.x0 - lo) as usize).min(cover.len() - 1);
        let z = ((l.x1 - lo) as usize).min(cover.len() - 1);
        for c in &mut cover[a..=z] {
            *c += 1;
        }
    }
    let mut cols = Vec::new();
    let mut current: Option<(usize, usize)> = None;
    let mut x = 0;
    while x < cover.len() {
        if cover[x] == 0 {
            let start = x;
            while x < cover.len() && cover[x] == 0 {
                x += 1;
            }
            if (x - start) as f32 >= GUTTER
                && x < cover.len()
                && let Some(c) = current.take()
            {
                cols.push(c);
            }
            continue;
        }
        let c = current.get_or_insert((x, x));
        c.1 = x;
        x += 1;
    }
    cols.extend(current);
    cols.into_iter()
        .map(|(a, z)| (lo + a as f32, lo + z as f32))
        .collect()
}

/// Two columns of running text (a two-column page), not a table: two columns of about the same
/// width ([`RUNNING_WIDTHS`]) whose lines mostly fill them with [`RUNNING_WORDS`] words or more
/// on average.
fn running_text(lines: &[Line], region: &[&[usize]], cols: &[(f32, f32)]) -> bool {
    let [(a0, a1), (b0, b1)] = cols else {
        return false;
    };
    let (wa, wb) = (a1 - a0, b1 - b0);
    if wa.min(wb) < RUNNING_WIDTHS * wa.max(wb) {
        return false;
    }
    let all: Vec<&Line> = region
        .iter()
        .flat_map(|b| b.iter().map(|&i| &lines[i]))
        .collect();
    let words: usize = all.iter().map(|l| l.text.split_whitespace().count()).sum();
    if words < RUNNING_WORDS * all.len() {
        return false;
    }
    let full = all
        .iter()
        .filter(|l| {
            let w = if l.x0 < *b0 - 1.0 { wa } else { wb };
            l.x1 - l.x0 >= 0.7 * w
        })
        .count();
    full * 5 >= all.len() * 3
}

/// Whether every column but the first starts the lines of the [`body`] at one x (within
/// [`ALIGN`]): a table's cells are set against the column's edge, while a line of running
/// text that poppler splits at a wide space (justified text, a tab in the source) splits
/// wherever the space falls. A table whose columns are centred or set right is left as
/// poppler reads it.
fn aligned(lines: &[Line], region: &[&[usize]], cols: &[(f32, f32)]) -> bool {
    (1..cols.len()).all(|c| {
        let starts: Vec<f32> = body(lines, region)
            .iter()
            .flat_map(|b| b.iter().map(|&i| &lines[i]))
            .filter(|l| column_of(cols, l) == c)
            .map(|l| l.x0)
            .collect();
        let lo = starts.iter().copied().fold(f32::MAX, f32::min);
        let hi = starts.iter().copied().fold(f32::MIN, f32::max);
        !starts.is_empty() && hi - lo <= ALIGN
    })
}

/// Whether two columns or more hold a letter or digit: a column of bullets, asterisks or
/// rules ("•", "*", "|") beside the text is decoration, not a column of a table.
fn worded(lines: &[Line], region: &[&[usize]], cols: &[(f32, f32)]) -> bool {
    let mut worded = vec![false; cols.len()];
    for l in body(lines, region)
        .iter()
        .flat_map(|b| b.iter().map(|&i| &lines[i]))
    {
        if l.text.chars().any(char::is_alphanumeric) {
            worded[column_of(cols, l)] = true;
        }
    }
    worded.iter().filter(|w| **w).count() >= 2
}

/// Whether a region is a table of contents: dot leaders (". . . ." or "....") run from its
/// titles to their page numbers. Its entries nest, and poppler reads them well enough.
fn contents(lines: &[Line], region: &[&[usize]]) -> bool {
    region
        .iter()
        .flat_map(|b| b.iter())
        .any(|&i| lines[i].text.contains(". . .") || lines[i].text.contains("...."))
}

/// The column a line starts in: the last whose left edge is at or before the line's.
fn column_of(cols: &[(f32, f32)], l: &Line) -> usize {
    cols.iter()
        .rposition(|&(x0, _)| x0 - 1.0 <= l.x0)
        .unwrap_or(0)
}

/// How far apart, in points, the left edges of one column's lines may be.
const ALIGN: f32 = 2.0;

/// The narrower of two columns of running text spans at least this share of the wider: the
/// columns of a page are as wide as each other, but the text of one may be indented (a quoted
/// letter, a list) on both sides. Lower reads more two-column tables as running text, higher
/// more two-column pages as tables.
const RUNNING_WIDTHS: f32 = 0.6;

/// Fewest words a line of running text holds on average; a table's cells hold a few.
const RUNNING_WORDS: usize = 5;

/// The rows of a region: a band opens a row when it stands off the one above by more than
/// [`ROW_GAP`] times the smallest pitch (rows set apart by padding), or, in a table whose lines
/// are evenly spaced, when it has a line in every column, not only lower-case ones, and not
/// both its first column's line carries on the first column's cell above (see [`wraps_on`])
/// and another of its lines goes on in lower case: the wrapped text of a cell goes on in lower
/// case ("contractor", "or night"), and in a table of narrow columns every cell of a row may
/// wrap at once.
fn rows(lines: &[Line], region: &[&[usize]], cols: &[(f32, f32)]) -> Vec<Vec<String>> {
    let tops: Vec<f32> = region.iter().map(|b| lines[b[0]].y0).collect();
    let pitches: Vec<f32> = tops.windows(2).map(|w| w[1] - w[0]).collect();
    let smallest = pitches.iter().copied().fold(f32::MAX, f32::min);
    let largest = pitches.iter().copied().fold(0.0, f32::max);
    let spaced = largest > ROW_GAP * smallest;
    let column = |l: &Line| column_of(cols, l);
    let first_column = |band: &[usize]| band.iter().find(|&&i| column(&lines[i]) == 0).copied();
    let widest = region
        .iter()
        .flat_map(|b| b.iter())
        .filter(|&&i| column(&lines[i]) == 0)
        .map(|&i| lines[i].x1 - lines[i].x0)
        .fold(0.0, f32::max);
    let mut rows: Vec<Vec<Vec<&str>>> = Vec::new();
    for (k, band) in region.iter().enumerate() {
        let opens = if spaced {
            k > 0 && tops[k] - tops[k - 1] > ROW_GAP * smallest
        } else {
            let mut used: Vec<usize> = band.iter().map(|&i| column(&lines[i])).collect();
            used.dedup();
            let carried = k > 0
                && first_column(band)
                    .zip(first_column(region[k - 1]))
                    .is_some_and(|(i, above)| wraps_on(&lines[above], &lines[i], widest))
                && band.iter().any(|&i| {
                    column(&lines[i]) > 0 && lines[i].text.starts_with(char::is_lowercase)
                });
            used.len() == cols.len()
                && !carried
                && !band
                    .iter()
                    .all(|&i| lines[i].text.starts_with(char::is_lowercase))
        };
        if rows.is_empty() || opens {
            rows.push(vec![Vec::new(); cols.len()]);
        }
        if let Some(row) = rows.last_mut() {
            for &i in *band {
                row[column(&lines[i])].push(&lines[i].text);
            }
        }
    }
    rows.into_iter()
        .map(|row| {
            row.into_iter()
                .map(|cell| join_cell(&cell))
                // A cell of no letter or digit is a rule or a bullet.
                .filter(|c| c.chars().any(char::is_alphanumeric))
                .collect()
        })
        .collect()
}

/// Whether `line` carries on the cell whose line just above it is `above`, in a column whose
/// widest line is `widest` points wide: it starts in lower case, and its first word would not
/// have fitted at the end of `above` (a typesetter wraps a cell only when the next word does not
/// fit; a lower-case word that would have fitted starts a cell of its own, as in a column of
/// command names).
fn wraps_on(above: &Line, line: &Line, widest: f32) -> bool {
    let text = line.text.trim();
    if !text.starts_with(char::is_lowercase) {
        return false;
    }
    let chars = text.chars().count().max(1) as f32;
    let first = text.split_whitespace().next().unwrap_or("").chars().count() as f32;
    let word = (line.x1 - line.x0) * first / chars;
    let space = 0.25 * above.height();
    (above.x1 - above.x0) + space + word > widest + 0.5
}

/// A cell's lines as one line: a word broken at a line end ("reintroduc-" + "ing") is
/// re-joined.
fn join_cell(parts: &[&str]) -> String {
    let mut out = String::new();
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        let broken = out
            .strip_suffix('-')
            .is_some_and(|head| head.ends_with(char::is_alphabetic))
            && p.starts_with(char::is_lowercase);
        if broken {
            out.pop();
        } else if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(p);
    }
    out
}

/// The share of a page's lines (cut where they run into the next cell) that its tables hold:
/// 0 for a page without one.
pub fn table_share(page: &Page) -> f32 {
    let page = split_across_cells(page);
    let lines: Vec<Line> = page.flows.iter().flatten().cloned().collect();
    let held: usize = tables(&lines).iter().map(|t| t.lines.len()).sum();
    held as f32 / lines.len().max(1) as f32
}

/// The text of a page that holds a table, each row on a line of its own with its cells apart
/// by [`CELL`] and the table set off by blank lines; `None` when the page holds none (its text
/// is then poppler's plain reading). Lines of a flow are joined by a line break, flows by a
/// blank line, as poppler prints them.
pub fn page_text(page: &Page) -> Option<String> {
    let page = split_across_cells(page);
    let lines: Vec<Line> = page.flows.iter().flatten().cloned().collect();
    let tables = tables(&lines);
    if tables.is_empty() {
        return None;
    }
    let mut owner = vec![None; lines.len()];
    for (t, table) in tables.iter().enumerate() {
        for &i in &table.lines {
            owner[i] = Some(t);
        }
    }
    let mut written = vec![false; tables.len()];
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut index = 0;
    for flow in &page.flows {
        for line in flow {
            match owner[index] {
                Some(t) => {
                    if !written[t] {
                        written[t] = true;
                        if !current.is_empty() {
                            paragraphs.push(std::mem::take(&mut current));
                        }
                        let rows: Vec<String> = tables[t]
                            .rows
                            .iter()
                            .map(|r| r.join(&CELL.to_string()))
                            .collect();
                        paragraphs.push(rows.join("\n"));
                    }
                }
                None => {
                    if !current.is_empty() {
                        current.push('\n');
                    }
                    current.push_str(&line.text);
                }
            }
            index += 1;
        }
        if !current.is_empty() {
            paragraphs.push(std::mem::take(&mut current));
        }
    }
    Some(paragraphs.join("\n\n"))
}

/// Two lines as poppler joins them into one (tests here and in `columns`).
#[cfg(test)]
pub(crate) fn joined(a: Line, b: Line) -> Line {
    let at = a.text.len() + 1;
    Line {
        x1: b.x1,
        text: format!("{} {}", a.text, b.text),
        words: a
            .words
            .iter()
            .copied()
            .chain(b.words.iter().map(|&(x0, x1, i)| (x0, x1, i + at)))
            .collect(),
        ..a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(x0: f32, y0: f32, x1: f32, text: &str) -> Line {
        Line {
            x0,
            y0,
            x1,
            y1: y0 + 10.0,
            text: text.into(),
            words: Vec::new(),
        }
    }

    /// A line whose words are boxed: each word `w` wide, one point apart.
    fn boxed(x0: f32, y0: f32, text: &str, w: f32) -> Line {
        let mut words = Vec::new();
        let mut at = 0;
        let mut x = x0;
        for word in text.split(' ') {
            words.push((x, x + w, at));
            at += word.len() + 1;
            x += w + 1.0;
        }
        Line {
            x0,
            y0,
            x1: x - 1.0,
            y1: y0 + 10.0,
            text: text.into(),
            words,
        }
    }

    fn one_flow(lines: Vec<Line>) -> Page {
        Page { flows: vec![lines] }
    }

    #[test]
    fn a_page_that_is_all_table_has_a_table_share_of_one() {
        let mut lines = Vec::new();
        for (i, (a, b)) in [
            ("Invoices", "7 years"),
            ("Payroll", "6 years"),
            ("CCTV footage", "30 days"),
        ]
        .iter()
        .enumerate()
        {
            let y = 40.0 + 14.0 * i as f32;
            lines.push(line(60.0, y, 150.0, a));
            lines.push(line(250.0, y, 300.0, b));
        }
        let table = one_flow(lines);
        assert!((table_share(&table) - 1.0).abs() < 1e-6);
        let prose = one_flow(vec![line(
            60.0,
            40.0,
            500.0,
            "Records are kept as the schedule says.",
        )]);
        assert_eq!(table_share(&prose), 0.0);
    }

    #[test]
    fn a_table_read_down_its_columns_is_written_row_by_row() {
        // A kennel's fee table, read by poppler down the first column, then the second.
        let page = one_flow(vec![
            line(50.0, 20.0, 300.0, "Boarding fees are paid on arrival."),
            line(50.0, 40.0, 90.0, "Dog size"),
            line(50.0, 52.0, 80.0, "Small"),
            line(50.0, 64.0, 80.0, "Large"),
            line(150.0, 40.0, 200.0, "Fee per night"),
            line(150.0, 52.0, 190.0, "20 crowns"),
            line(150.0, 64.0, 190.0, "35 crowns"),
            line(50.0, 90.0, 300.0, "Collars are returned on departure."),
        ]);
        let text = page_text(&page).unwrap();
        assert_eq!(
            text,
            "Boarding fees are paid on arrival.\n\nDog size\tFee per night\nSmall\t20 crowns\nLarge\t35 crowns\n\nCollars are returned on departure."
        );
    }

    #[test]
    fn a_cell_that_wraps_stays_in_its_row() {
        // Rows set apart by padding: the second line of a cell is closer than the next row.
        let page = one_flow(vec![
            line(50.0, 40.0, 90.0, "Level"),
            line(150.0, 40.0, 220.0, "Who signs"),
            line(50.0, 60.0, 80.0, "Minor"),
            line(150.0, 60.0, 260.0, "The duty"),
            line(150.0, 71.0, 260.0, "harbour master"),
            line(50.0, 90.0, 80.0, "Major"),
            line(150.0, 90.0, 260.0, "The port captain"),
        ]);
        let t = tables(&page.flows[0]);
        assert_eq!(t.len(), 1);
        assert_eq!(
            t[0].rows,
            vec![
                vec!["Level".to_owned(), "Who signs".into()],
                vec!["Minor".into(), "The duty harbour master".into()],
                vec!["Major".into(), "The port captain".into()],
            ]
        );
        // Evenly spaced lines: a band with a line in every column opens a row, a band of
        // lower-case continuations does not.
        let even = one_flow(vec![
            line(50.0, 40.0, 90.0, "Crew"),
            line(150.0, 40.0, 220.0, "Drill"),
            line(50.0, 52.0, 90.0, "Deck hands and"),
            line(150.0, 52.0, 220.0, "Fire drill"),
            line(50.0, 64.0, 90.0, "cooks"),
            line(50.0, 76.0, 90.0, "Officers"),
            line(150.0, 76.0, 220.0, "Abandon ship"),
        ]);
        let t = tables(&even.flows[0]);
        assert_eq!(t[0].rows[1], vec!["Deck hands and cooks", "Fire drill"]);
        assert_eq!(t[0].rows.len(), 3);
    }

    #[test]
    fn a_row_whose_every_cell_wraps_stays_one_row() {
        // Narrow columns, evenly spaced: the second line of a row fills every column, and only
        // its first column shows it goes on ("sheets" would not have fitted after "Timber").
        let wrapped = one_flow(vec![
            line(50.0, 40.0, 100.0, "Cargo"),
            line(150.0, 40.0, 200.0, "Stowage"),
            line(250.0, 40.0, 300.0, "Checked by"),
            line(50.0, 52.0, 100.0, "Timber"),
            line(150.0, 52.0, 200.0, "Lashed on"),
            line(250.0, 52.0, 300.0, "First"),
            line(50.0, 64.0, 90.0, "sheets"),
            line(150.0, 64.0, 200.0, "deck"),
            line(250.0, 64.0, 300.0, "Officer"),
            line(50.0, 76.0, 100.0, "Grain bulk"),
            line(150.0, 76.0, 200.0, "Holds 2-4"),
            line(250.0, 76.0, 300.0, "Master"),
        ]);
        let t = tables(&wrapped.flows[0]);
        assert_eq!(
            t[0].rows[1],
            vec!["Timber sheets", "Lashed on deck", "First Officer"]
        );
        assert_eq!(t[0].rows.len(), 3);
        // A lower-case name that would have fitted on the line above starts a row: a column
        // of command names.
        let commands = one_flow(vec![
            line(50.0, 40.0, 100.0, "Command"),
            line(150.0, 40.0, 300.0, "What it does"),
            line(50.0, 52.0, 62.0, "ls"),
            line(150.0, 52.0, 300.0, "Lists a directory"),
            line(50.0, 64.0, 62.0, "cp"),
            line(150.0, 64.0, 300.0, "Copies files"),
        ]);
        let t = tables(&commands.flows[0]);
        assert_eq!(t[0].rows.len(), 3, "{:?}", t[0].rows);
        assert_eq!(t[0].rows[2], vec!["cp", "Copies files"]);
    }

    #[test]
    fn a_line_that_runs_into_the_next_cell_is_cut_at_the_column_edge() {
        // Narrow columns: poppler joined "with a pass" (column 2) and "room" (column 3).
        let page = one_flow(vec![
            boxed(50.0, 40.0, "Seat", 20.0),
            boxed(120.0, 40.0, "Who may", 20.0),
            boxed(200.0, 40.0, "Where", 20.0),
            boxed(50.0, 52.0, "Window", 20.0),
            boxed(120.0, 52.0, "Holders", 20.0),
            boxed(200.0, 52.0, "The reading", 20.0),
            boxed(50.0, 64.0, "seat", 20.0),
            joined(
                boxed(120.0, 64.0, "with a pass", 20.0),
                boxed(200.0, 64.0, "room", 20.0),
            ),
            boxed(50.0, 76.0, "Aisle", 20.0),
            boxed(120.0, 76.0, "Anyone", 20.0),
            boxed(200.0, 76.0, "The hall", 20.0),
        ]);
        let text = page_text(&page).unwrap();
        assert!(
            text.contains("Window seat\tHolders with a pass\tThe reading room"),
            "{text}"
        );
        // A centred header cell starts where no column does: a word under it is no edge.
        let centred = one_flow(vec![
            boxed(50.0, 40.0, "Seat", 20.0),
            boxed(160.0, 40.0, "Who", 20.0),
            boxed(50.0, 52.0, "Window", 20.0),
            joined(
                boxed(120.0, 52.0, "Holders of", 38.0),
                boxed(160.0, 52.0, "a pass", 20.0),
            ),
            boxed(50.0, 64.0, "Aisle", 20.0),
            boxed(120.0, 64.0, "Anyone", 20.0),
        ]);
        let lines: Vec<&Line> = centred.flows[0].iter().collect();
        assert_eq!(cut_lines(&lines)[3].len(), 1);
        // A line alone in its band is never cut, wherever its words fall.
        let prose = one_flow(vec![
            boxed(50.0, 20.0, "Seats are free", 20.0),
            boxed(
                50.0,
                40.0,
                "Every seat in the reading room may be booked",
                15.0,
            ),
            boxed(136.0, 60.0, "Staff", 20.0),
        ]);
        let lines: Vec<&Line> = prose.flows[0].iter().collect();
        assert_eq!(cut_lines(&lines)[1].len(), 1);
    }

    #[test]
    fn prose_and_two_columns_of_running_text_are_no_table() {
        let prose = one_flow(vec![
            line(
                50.0,
                20.0,
                500.0,
                "The harbour closes at dusk and opens at dawn every day",
            ),
            line(
                50.0,
                32.0,
                480.0,
                "of the year, storms and public holidays included.",
            ),
        ]);
        assert!(page_text(&prose).is_none());
        // Two columns of a newsletter, eight lines each: the right one spans `right`.
        let columns = |left: &str, right: (f32, f32), text: &str| {
            let mut lines = Vec::new();
            for k in 0..8 {
                let y = 40.0 + 12.0 * k as f32;
                lines.push(line(50.0, y, 290.0, left));
                lines.push(line(right.0, y, right.1, text));
            }
            one_flow(lines)
        };
        // Lines fill their columns.
        let newsletter = columns(
            "words of the left column run on and on",
            (310.0, 548.0),
            "words of the right column run on too",
        );
        assert!(page_text(&newsletter).is_none());
        // ... also when one column quotes a letter, indented on both sides.
        let letter = columns(
            "Words of the left column run on and on",
            (340.0, 498.0),
            "The quoted letter runs on as well",
        );
        assert!(page_text(&letter).is_none());
        // A single band side by side (a running header and its page number) is no table.
        let header = one_flow(vec![
            line(50.0, 10.0, 200.0, "Chapter 2: Moorings"),
            line(500.0, 10.0, 520.0, "14"),
            line(
                50.0,
                30.0,
                520.0,
                "Every mooring is inspected once a year by the harbour master.",
            ),
        ]);
        assert!(page_text(&header).is_none());
    }

    #[test]
    fn poppler_word_boxes_are_read_into_lines_and_flows() {
        let xhtml = r#"<doc><page width="595" height="842"><flow><block xMin="1" yMin="2" xMax="3" yMax="4">
<line xMin="50" yMin="20" xMax="120" yMax="30"><word xMin="50" yMin="20" xMax="80" yMax="30">Fish&amp;chips</word><word xMin="84" yMin="20" xMax="100" yMax="30">stall</word><word xMin="100.2" yMin="20" xMax="104" yMax="30">2</word></line>
</block></flow><flow><block><line xMin="50" yMin="40" xMax="90" yMax="50"><word xMin="50" yMin="40" xMax="90" yMax="50">&lt;closed&gt;</word></line></block></flow></page>
<page width="595" height="842"></page></doc>"#;
        let pages = parse(xhtml);
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0].flows.len(), 2);
        // A mark printed against the word before it is glued to it, as poppler prints it.
        assert_eq!(pages[0].flows[0][0].text, "Fish&chips stall2");
        // Each word's box and where it starts in the line; a glued mark widens its word.
        assert_eq!(
            pages[0].flows[0][0].words,
            vec![(50.0, 80.0, 0), (84.0, 104.0, 11)]
        );
        assert_eq!(pages[0].flows[1][0].text, "<closed>");
        assert!(pages[1].flows.is_empty());
        assert_eq!(unescape("a &#233; &#x41; & b"), "a é A & b");
    }
}
