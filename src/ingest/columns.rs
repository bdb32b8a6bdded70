//! Pages set in two columns of running text, read one column after the other, from the word
//! boxes of `pdftotext -bbox-layout` (parsed by `grid`).
//!
//! Owns: finding the gutter of such a page and writing its text column by column where
//! poppler's reading order runs across the gutter: a line of the left column joined to the
//! line beside it in the right one ("… read the contributing Zachary Pincus. The SC …"), or
//! the lines of the two columns taken in turn. Poppler does that when the columns share their
//! baselines and the gutter is narrow (LaTeX's `twocolumn`); a PDF viewer selects such text
//! a column at a time, and so must a quote. A line that runs across the gutter (a title, a
//! heading over both columns, a page number) closes the columns above it. Must not: run
//! programs, read tables (see `grid`), clean text, or decide anything about an answer.

use super::grid::{Line, Page};

/// The gutter is looked for between these shares of the text's width, from its left edge.
const MIDDLE: (f32, f32) = (0.3, 0.7);
/// Step of the search for the gutter, in points.
const STEP: f32 = 0.5;
/// Narrowest gutter, in points: wider than a space between words (which in justified text
/// varies from line to line and so never lines up down a page) and than the gaps of a table
/// of contents' dotted leaders, which do line up (about 4.5 points). LaTeX's narrowest
/// gutter is 10 points, which a line's overhang narrows to about 9.
const MIN_GUTTER: f32 = 7.0;
/// Share of a page's lines that may have a word in the gutter: a title, a heading set over
/// both columns, a centred page number. In a column of running text nearly every line has a
/// word at any point of its width.
const ACROSS: f32 = 0.15;
/// Fewest lines each column holds.
const MIN_COLUMN_LINES: usize = 8;
/// Running text fills its column: the median line of each column is at least this share of
/// the column's width (a form's labels and values, or a list of short items, do not).
const FILLED: f32 = 0.6;
/// A line further below the one before it than this multiple of its column's usual line
/// pitch starts a new paragraph (a blank line, as poppler prints blocks).
const PARAGRAPH_GAP: f32 = 1.5;

/// Where a line lies: in the left or right column, in both (poppler joined two lines across
/// the gutter), or across the gutter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Left,
    Right,
    Both,
    Across,
}

/// One column's piece of a line (or a whole line across the gutter).
#[derive(Debug, Clone, PartialEq)]
struct Piece {
    y0: f32,
    y1: f32,
    x0: f32,
    x1: f32,
    text: String,
}

/// The text of a page set in two columns of running text, the left column before the right
/// between the lines that run across both; `None` when the page is not set so, or when
/// poppler's reading order already reads it a column at a time (its plain text is then kept).
pub fn page_text(page: &Page) -> Option<String> {
    let lines: Vec<&Line> = page.flows.iter().flatten().collect();
    if lines.is_empty() || lines.iter().any(|l| l.words.is_empty()) {
        return None;
    }
    let (g0, g1) = gutter(&lines)?;
    let mid = (g0 + g1) / 2.0;
    let sides: Vec<Side> = lines.iter().map(|l| side(l, mid)).collect();
    if !misread(&sides) {
        return None;
    }
    let mut left: Vec<Piece> = Vec::new();
    let mut right: Vec<Piece> = Vec::new();
    let mut across: Vec<Piece> = Vec::new();
    for (line, side) in lines.iter().zip(&sides) {
        match side {
            Side::Across => across.push(whole(line)),
            _ => {
                let (l, r) = split(line, mid);
                left.extend(l);
                right.extend(r);
            }
        }
    }
    if left.len() < MIN_COLUMN_LINES
        || right.len() < MIN_COLUMN_LINES
        || !filled(&left, mid - min_x0(&left))
        || !filled(&right, max_x1(&right) - mid)
    {
        return None;
    }
    Some(write(left, right, across))
}

/// The gutter: the widest run of points in the middle of the text where at most [`ACROSS`]
/// of the lines have a word, at least [`MIN_GUTTER`] wide.
fn gutter(lines: &[&Line]) -> Option<(f32, f32)> {
    let words = || lines.iter().flat_map(|l| l.words.iter());
    let x_min = words().map(|w| w.0).fold(f32::INFINITY, f32::min);
    let x_max = words().map(|w| w.1).fold(f32::NEG_INFINITY, f32::max);
    let width = x_max - x_min;
    if !width.is_finite() || width <= 0.0 {
        return None;
    }
    let allowed = ACROSS * lines.len() as f32;
    // The points looked at, left to right, and how many lines have a word at each (one pass
    // over the words: a page is read once, not once per point).
    let end = x_min + MIDDLE.1 * width;
    let mut xs = Vec::new();
    let mut x = x_min + MIDDLE.0 * width;
    while x <= end {
        xs.push(x);
        x += STEP;
    }
    let mut crossing = vec![0usize; xs.len()];
    let mut counted_for = vec![usize::MAX; xs.len()];
    for (i, line) in lines.iter().enumerate() {
        for w in &line.words {
            let from = xs.partition_point(|x| *x < w.0);
            let to = xs.partition_point(|x| *x <= w.1);
            for k in from..to {
                if counted_for[k] != i {
                    counted_for[k] = i;
                    crossing[k] += 1;
                }
            }
        }
    }
    let mut best: Option<(f32, f32)> = None;
    let mut run: Option<f32> = None;
    for k in 0..=xs.len() {
        let free = crossing.get(k).is_some_and(|c| *c as f32 <= allowed);
        if free {
            run.get_or_insert(xs[k]);
        } else if let Some(start) = run.take() {
            let stop = xs[k - 1];
            if best.is_none_or(|(a, b)| stop - start > b - a) {
                best = Some((start, stop));
            }
        }
    }
    best.filter(|(a, b)| b - a >= MIN_GUTTER)
}

/// Which side of the gutter's middle `mid` a line's words are on. A line runs across when a
/// word covers the middle, or when the words either side of it are no wider apart than
/// [`MIN_GUTTER`] (a title's words, a space apart); a column's line may reach into the gutter's
/// edge (justified text overhangs by a hyphen or a point).
fn side(line: &Line, mid: f32) -> Side {
    if line.words.iter().any(|w| w.0 <= mid && mid <= w.1) {
        return Side::Across;
    }
    let last_left = line
        .words
        .iter()
        .filter(|w| w.1 < mid)
        .map(|w| w.1)
        .fold(None, |a: Option<f32>, x| Some(a.map_or(x, |a| a.max(x))));
    let first_right = line
        .words
        .iter()
        .filter(|w| w.0 > mid)
        .map(|w| w.0)
        .fold(None, |a: Option<f32>, x| Some(a.map_or(x, |a| a.min(x))));
    match (last_left, first_right) {
        (Some(a), Some(b)) if b - a < MIN_GUTTER => Side::Across,
        (Some(_), Some(_)) => Side::Both,
        (Some(_), None) => Side::Left,
        _ => Side::Right,
    }
}

/// Whether poppler's reading order runs across the columns: it joined two lines across the
/// gutter, or it turns from one column to the other more often than once between two lines
/// that run across both.
fn misread(sides: &[Side]) -> bool {
    if sides.contains(&Side::Both) {
        return true;
    }
    let across = sides.iter().filter(|s| **s == Side::Across).count();
    let columns: Vec<Side> = sides
        .iter()
        .copied()
        .filter(|s| *s != Side::Across)
        .collect();
    let turns = columns.windows(2).filter(|w| w[0] != w[1]).count();
    turns > across + 1
}

fn whole(line: &Line) -> Piece {
    Piece {
        y0: line.y0,
        y1: line.y1,
        x0: line.x0,
        x1: line.x1,
        text: line.text.trim().to_owned(),
    }
}

/// A line cut at the gutter's middle `mid` into its left and right pieces (either may be
/// missing).
fn split(line: &Line, mid: f32) -> (Option<Piece>, Option<Piece>) {
    let cut = line.words.iter().position(|w| w.1 > mid);
    let Some(cut) = cut else {
        return (Some(whole(line)), None);
    };
    if cut == 0 {
        return (None, Some(whole(line)));
    }
    let at = line.words[cut].2;
    let (Some(a), Some(b)) = (line.text.get(..at), line.text.get(at..)) else {
        return (Some(whole(line)), None);
    };
    let left = Piece {
        y0: line.y0,
        y1: line.y1,
        x0: line.words[0].0,
        x1: line.words[cut - 1].1,
        text: a.trim().to_owned(),
    };
    let right = Piece {
        y0: line.y0,
        y1: line.y1,
        x0: line.words[cut].0,
        x1: line.words.last().map_or(line.x1, |w| w.1),
        text: b.trim().to_owned(),
    };
    (Some(left), Some(right))
}

fn min_x0(pieces: &[Piece]) -> f32 {
    pieces.iter().map(|p| p.x0).fold(f32::INFINITY, f32::min)
}

fn max_x1(pieces: &[Piece]) -> f32 {
    pieces
        .iter()
        .map(|p| p.x1)
        .fold(f32::NEG_INFINITY, f32::max)
}

/// Whether a column's median line fills [`FILLED`] of its `width`.
fn filled(pieces: &[Piece], width: f32) -> bool {
    let mut widths: Vec<f32> = pieces.iter().map(|p| p.x1 - p.x0).collect();
    widths.sort_by(f32::total_cmp);
    widths
        .get(widths.len() / 2)
        .is_some_and(|m| width > 0.0 && *m >= FILLED * width)
}

/// The page's text: top to bottom, the columns between two lines that run across them the
/// left before the right, each line across them a paragraph of its own.
fn write(left: Vec<Piece>, right: Vec<Piece>, across: Vec<Piece>) -> String {
    let pitch_left = pitch(&visual_lines(&sorted(&left)));
    let pitch_right = pitch(&visual_lines(&sorted(&right)));
    let mut across = across;
    across.sort_by(|a, b| a.y0.total_cmp(&b.y0));
    let mut paragraphs: Vec<String> = Vec::new();
    let mut top = f32::NEG_INFINITY;
    let band = |pieces: &[Piece], from: f32, to: f32| -> Vec<Piece> {
        let mut v: Vec<Piece> = pieces
            .iter()
            .filter(|p| p.y0 >= from && p.y0 < to)
            .cloned()
            .collect();
        v.sort_by(|a, b| a.y0.total_cmp(&b.y0));
        v
    };
    let flush = |from: f32, to: f32, paragraphs: &mut Vec<String>| {
        let mut text = String::new();
        for (pieces, pitch) in [
            (band(&left, from, to), pitch_left),
            (band(&right, from, to), pitch_right),
        ] {
            let column = column_text(&pieces, pitch);
            if column.is_empty() {
                continue;
            }
            if text.is_empty() {
                text = column;
            } else {
                text.push_str(if continues(&text, &column) {
                    "\n"
                } else {
                    "\n\n"
                });
                text.push_str(&column);
            }
        }
        if !text.is_empty() {
            paragraphs.push(text);
        }
    };
    for line in &across {
        flush(top, line.y0, &mut paragraphs);
        paragraphs.push(line.text.clone());
        top = line.y0;
    }
    flush(top, f32::INFINITY, &mut paragraphs);
    paragraphs.join("\n\n")
}

/// The pieces top to bottom.
fn sorted(pieces: &[Piece]) -> Vec<Piece> {
    let mut v = pieces.to_vec();
    v.sort_by(|a, b| a.y0.total_cmp(&b.y0));
    v
}

/// The usual distance between the tops of two lines of a column (the median), in points.
fn pitch(pieces: &[Piece]) -> f32 {
    let mut tops: Vec<f32> = pieces.iter().map(|p| p.y0).collect();
    tops.sort_by(f32::total_cmp);
    let mut steps: Vec<f32> = tops
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0.5)
        .collect();
    steps.sort_by(f32::total_cmp);
    steps.get(steps.len() / 2).copied().unwrap_or(f32::INFINITY)
}

/// A column's lines top to bottom, a blank line where the gap above a line is wider than
/// [`PARAGRAPH_GAP`] pitches.
fn column_text(pieces: &[Piece], pitch: f32) -> String {
    let mut out = String::new();
    let mut above: Option<f32> = None;
    for p in &visual_lines(pieces) {
        if let Some(y) = above {
            out.push_str(if p.y0 - y > PARAGRAPH_GAP * pitch {
                "\n\n"
            } else {
                "\n"
            });
        }
        out.push_str(&p.text);
        above = Some(p.y0);
    }
    out
}

/// The pieces of a column (top to bottom) joined into the lines a reader sees: poppler splits a
/// line whose words stand far apart (a list item that LaTeX stretched around a long address)
/// into pieces whose tops differ by a point or two, and a piece whose middle lies within the
/// height of the line above it is that line's, placed by its left edge.
fn visual_lines(pieces: &[Piece]) -> Vec<Piece> {
    let mut lines: Vec<Vec<Piece>> = Vec::new();
    for p in pieces {
        let middle = (p.y0 + p.y1) / 2.0;
        match lines.last_mut() {
            Some(line) if line.iter().any(|q| q.y0 < middle && middle < q.y1) => {
                line.push(p.clone());
            }
            _ => lines.push(vec![p.clone()]),
        }
    }
    lines
        .into_iter()
        .filter_map(|mut line| {
            line.sort_by(|a, b| a.x0.total_cmp(&b.x0));
            let first = line.first()?.clone();
            Some(Piece {
                y0: line.iter().map(|p| p.y0).fold(first.y0, f32::min),
                y1: line.iter().map(|p| p.y1).fold(first.y1, f32::max),
                x0: first.x0,
                x1: line.iter().map(|p| p.x1).fold(first.x1, f32::max),
                text: line
                    .iter()
                    .map(|p| p.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            })
        })
        .collect()
}

/// Whether the text at the top of the next column goes on with the sentence the column before
/// it ends in: that ends without closing punctuation and the next begins in lower case.
fn continues(before: &str, next: &str) -> bool {
    let ends_open = before
        .trim_end()
        .chars()
        .last()
        .is_some_and(|c| !matches!(c, '.' | '!' | '?' | ':' | ';'));
    let lower = next
        .trim_start()
        .chars()
        .next()
        .is_some_and(char::is_lowercase);
    ends_open && lower
}

#[cfg(test)]
mod tests {
    use super::super::grid::joined;
    use super::*;

    /// A line of words boxed left to right from `x0`, each word `w` points a letter, one space
    /// (3 points) apart.
    fn boxed(x0: f32, y0: f32, text: &str) -> Line {
        let mut words = Vec::new();
        let mut x = x0;
        let mut at = 0;
        for word in text.split(' ') {
            let w = 5.0 * word.chars().count() as f32;
            words.push((x, x + w, at));
            x += w + 3.0;
            at += word.len() + 1;
        }
        Line {
            x0,
            y0,
            x1: x - 3.0,
            y1: y0 + 10.0,
            text: text.into(),
            words,
        }
    }

    /// A harbour notice set in two columns of nine lines (each about 150 points wide, the
    /// gutter from 210 to 220), as poppler reads it when the baselines agree: every line of
    /// the left column joined to the one beside it.
    fn harbour_page() -> (Page, Vec<&'static str>, Vec<&'static str>) {
        let left = vec![
            "Boats moored at the east",
            "pontoon must display the",
            "berth permit in a window",
            "that faces the quay. The",
            "harbour master may move",
            "a boat without a permit",
            "after giving two days of",
            "notice to the owner by",
            "letter or by a message.",
        ];
        let right = vec![
            "Fuel may be taken on at",
            "the fuel berth between",
            "eight in the morning and",
            "six in the evening. No",
            "fuel may be carried in",
            "open containers along",
            "the pontoons at any time",
            "and spills are reported",
            "to the office at once.",
        ];
        let mut lines = vec![boxed(
            60.0,
            40.0,
            "Harbour notice for berth holders and visitors",
        )];
        for (i, (l, r)) in left.iter().zip(&right).enumerate() {
            let y = 60.0 + 12.0 * i as f32;
            lines.push(joined(boxed(60.0, y, l), boxed(222.0, y, r)));
        }
        (Page { flows: vec![lines] }, left, right)
    }

    #[test]
    fn a_page_of_two_columns_joined_across_the_gutter_is_read_a_column_at_a_time() {
        let (page, left, right) = harbour_page();
        let text = page_text(&page).expect("two columns");
        let expected = format!(
            "Harbour notice for berth holders and visitors\n\n{}\n\n{}",
            left.join("\n"),
            right.join("\n")
        );
        assert_eq!(text, expected);
        assert!(text.contains("move\na boat without a permit\nafter giving two days of"));
    }

    #[test]
    fn a_column_read_right_already_is_left_to_poppler() {
        let (_, left, right) = harbour_page();
        let mut lines = Vec::new();
        for (i, l) in left.iter().enumerate() {
            lines.push(boxed(60.0, 60.0 + 12.0 * i as f32, l));
        }
        for (i, r) in right.iter().enumerate() {
            lines.push(boxed(222.0, 60.0 + 12.0 * i as f32, r));
        }
        let page = Page { flows: vec![lines] };
        assert_eq!(page_text(&page), None);
    }

    #[test]
    fn lines_of_the_two_columns_taken_in_turn_are_misread() {
        let sides = [Side::Left, Side::Right, Side::Left, Side::Right, Side::Left];
        assert!(misread(&sides));
        let read = [
            Side::Across,
            Side::Left,
            Side::Left,
            Side::Right,
            Side::Right,
            Side::Across,
        ];
        assert!(!misread(&read));
    }

    #[test]
    fn one_column_of_prose_has_no_gutter() {
        let text = [
            "The club lends its two rowing boats to members who have passed the safety",
            "course, for at most three hours at a time, and a member who returns a boat",
            "late may not borrow one again for a month. Keys are kept in the office and",
            "signed out in the book by the door, with the time the boat is taken out.",
            "Life jackets are worn on the water at all times, whatever the weather, and",
            "a boat is never taken out alone after dark or when the red flag is flying.",
            "Damage is reported to the secretary the same day, in writing or by email,",
            "and the member who reports it is not charged for ordinary wear and tear.",
            "Members under sixteen row with an adult member in the boat, and visitors",
            "row only as guests of a member who stays with them for the whole outing.",
        ];
        let lines: Vec<Line> = text
            .iter()
            .enumerate()
            .map(|(i, t)| boxed(60.0, 40.0 + 12.0 * i as f32, t))
            .collect();
        let page = Page {
            flows: vec![lines.clone()],
        };
        let refs: Vec<&Line> = lines.iter().collect();
        assert_eq!(gutter(&refs), None);
        assert_eq!(page_text(&page), None);
    }

    #[test]
    fn labels_and_values_in_two_columns_are_not_running_text() {
        // A form: a short label on the left and a short value far to the right, joined
        // across the middle.
        let mut lines = Vec::new();
        for i in 0..10 {
            let y = 40.0 + 12.0 * i as f32;
            lines.push(joined(boxed(60.0, y, "Berth"), boxed(300.0, y, "12")));
        }
        let page = Page { flows: vec![lines] };
        assert_eq!(page_text(&page), None);
    }

    #[test]
    fn pieces_of_one_line_whose_tops_differ_are_read_as_one_line() {
        // A list item stretched around a long address: poppler gives its words as pieces
        // whose tops differ by a point (the bullet's font sits higher).
        let piece = |x0: f32, y0: f32, text: &str| Piece {
            y0,
            y1: y0 + 10.0,
            x0,
            x1: x0 + 40.0,
            text: text.into(),
        };
        let pieces = vec![
            piece(120.0, 99.0, "Moss"),
            piece(60.0, 100.0, "• Ada"),
            piece(180.0, 100.5, "ada.moss@"),
            piece(60.0, 112.0, "harbour.example (chair)"),
        ];
        let lines = visual_lines(&pieces);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, ["• Ada Moss ada.moss@", "harbour.example (chair)"]);
    }

    #[test]
    fn a_sentence_goes_on_from_one_column_into_the_next() {
        assert!(continues(
            "notice to the owner by",
            "letter or by a message."
        ));
        assert!(!continues("to the office at once.", "letter"));
        assert!(!continues("Fuel berth", "Boats moored"));
    }
}
