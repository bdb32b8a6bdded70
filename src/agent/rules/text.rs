//! Text utilities of the agent: sentences with offsets, content terms, and the normalisation
//! used to match a proposed quote against stored text.
//!
//! Owns: deterministic, language-light heuristics (English stop words, sentence boundaries).
//! Must not: call models or stores.

use std::collections::HashSet;
use std::sync::LazyLock;

use crate::ingest::text::is_rule_line;

/// A sentence of a passage: byte range in the passage and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// Byte offset of the first character in the passage.
    pub start: usize,
    /// Byte offset one past the end.
    pub end: usize,
    /// The sentence, verbatim.
    pub text: String,
}

/// Abbreviations whose full stop ends no sentence ("e.g.", "para.", "min." and "max." of a
/// table header such as "Min. width").
const ABBREVIATIONS: [&str; 16] = [
    "e.g", "i.e", "etc", "cf", "vs", "no", "sec", "art", "para", "fig", "mr", "dr", "inc", "st",
    "min", "max",
];

/// Bullet glyphs that open a list item.
pub const BULLETS: [char; 6] = ['•', '◦', '▪', '‣', '●', '○'];

/// Splits a passage into sentences. Boundaries: `.`, `!` or `?` followed by whitespace and an
/// upper-case letter, digit or quote; blank lines; a short title line followed by a new line
/// that starts upper-case; a new line that starts with a bullet. Abbreviations ("e.g.",
/// "para.") and numbers ("2.1") do not end a sentence.
pub fn sentences(passage: &str) -> Vec<Sentence> {
    let bytes = passage.as_bytes();
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut i = 0usize;
    let push = |out: &mut Vec<Sentence>, s: usize, e: usize| {
        let raw = &passage[s..e];
        let trimmed_start = s + (raw.len() - raw.trim_start().len());
        let trimmed_start = trimmed_start + glued_marker(&passage[trimmed_start..e]);
        let trimmed_end = e - (raw.len() - raw.trim_end().len());
        // A rule line ("-----") states nothing.
        if trimmed_end > trimmed_start
            && passage[trimmed_start..trimmed_end]
                .chars()
                .any(char::is_alphanumeric)
        {
            out.push(Sentence {
                start: trimmed_start,
                end: trimmed_end,
                text: passage[trimmed_start..trimmed_end].to_owned(),
            });
        }
    };
    let mut line_start = 0usize;
    let width = passage
        .lines()
        .map(|l| l.trim_end().chars().count())
        .max()
        .unwrap_or(0);
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            let next_upper = passage[i + 1..]
                .chars()
                .next()
                .is_some_and(char::is_uppercase);
            let line = passage[line_start..i].trim();
            // Not a line that stops on a function word, nor one the margin wrapped inside a
            // sentence: in a narrow column every line is short, and a capitalised word
            // ("notices from the Source Code of the Original⏎Work, as well as …") follows
            // many of them. A title opens with a capital or a number.
            let heading_like = line.chars().count() < 60
                && !line.ends_with(['.', ',', ';', ':', '-'])
                && line.chars().any(char::is_alphabetic)
                && !ends_a_sentence_inside(line)
                && !ends_mid_sentence(line, &passage[i + 1..])
                && (line.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit())
                    || ends_unwrapped(line, &passage[i + 1..], width));
            // A line that opens with a bullet is a list item of its own, whatever the line
            // before it ends with (the text of one item does not run into the next).
            let bullet = opens_list_item(&passage[i + 1..]);
            // A title's underline ("Scope" over "-----") ends the title, and the text after
            // the rule starts anew.
            let mut after = passage[i + 1..].lines();
            let (next_line, then) = (after.next().unwrap_or(""), after.next().unwrap_or(""));
            // ... and a line a rule underlines is a title of its own.
            let rule = is_rule_line(line)
                || is_rule_line(next_line)
                || (is_rule_line(then) && !next_line.trim().is_empty());
            // A numbered clause ("3.1 Employees may …", "7. Breaches") opens a sentence after a
            // title line, a line of no words ("(2023)") or a finished line; after a line that
            // stops mid-sentence ("… described in section") the number is a reference.
            let clause = opens_with_clause_number(&passage[i + 1..])
                && !ends_mid_sentence(line, &passage[i + 1..])
                && (heading_like
                    || line.ends_with(['.', ':', ';'])
                    || !line.chars().any(char::is_alphabetic));
            // A table row (cells apart by tabs, see `ingest::grid`) is a line of its own.
            let row = is_row(line) || passage[i + 1..].lines().next().is_some_and(is_row);
            // The last line of a list item with no full stop, when the paragraph after the
            // list starts on the next line ("• talks by maintainers\nIn addition, …").
            let item_ends = next_upper
                && opens_list_item(&passage[start..])
                && ends_unwrapped(line, &passage[i + 1..], width);
            // A line of symbols only (the "}" that closes a code example, "***") ends what
            // it closes: no sentence runs on through it.
            let symbols = next_upper
                && !line.chars().any(char::is_alphanumeric)
                && !line.starts_with(BULLETS)
                && line.chars().any(|c| !c.is_whitespace());
            if bytes.get(i + 1) == Some(&b'\n')
                || (next_upper && heading_like)
                || bullet
                || item_ends
                || symbols
                || clause
                || row
                || rule
            {
                // A blank line, a short title line followed by a new sentence, a bullet, a
                // numbered clause or a table row.
                push(&mut out, start, i);
                start = i + 1;
            }
            line_start = i + 1;
        } else if matches!(c, b'.' | b'!' | b'?')
            || (c == b')' && i > 0 && matches!(bytes[i - 1], b'.' | b'!' | b'?'))
        {
            let after = passage[i + 1..].trim_start();
            let at_end = i + 1 == bytes.len();
            let spaced = matches!(bytes.get(i + 1), Some(b' ' | b'\n'));
            let opens = after.chars().next().is_some_and(|ch| {
                ch.is_uppercase() || ch.is_ascii_digit() || matches!(ch, '"' | '(' | '“')
            });
            let abbreviation = c == b'.' && ends_with_abbreviation(&passage[start..i]);
            // "7. Breaches": the dot of a clause number ends no sentence.
            let number = passage[start..i]
                .trim()
                .chars()
                .all(|ch| ch.is_ascii_digit() || ch == '.');
            if (at_end || (spaced && opens)) && !abbreviation && !number {
                push(&mut out, start, i + 1);
                start = i + 1;
            }
        }
        i += 1;
    }
    push(&mut out, start, bytes.len());
    out
}

/// Whether a message (lower case) asks about the library itself: one of
/// [`lexicon::CATALOGUE_QUESTIONS`] anywhere, or one of [`lexicon::CATALOGUE_REQUESTS`] as the
/// message's opening imperative. Phrases match whole words: "list them" is not "list the".
///
/// [`lexicon::CATALOGUE_QUESTIONS`]: crate::agent::rules::lexicon::CATALOGUE_QUESTIONS
/// [`lexicon::CATALOGUE_REQUESTS`]: crate::agent::rules::lexicon::CATALOGUE_REQUESTS
pub fn asks_for_catalogue(message: &str) -> bool {
    use crate::agent::rules::lexicon::{
        CATALOGUE_QUESTIONS, CATALOGUE_REQUESTS, LIBRARY_HOLDS, REQUEST_OPENERS, VERSION_QUESTIONS,
    };
    let words: Vec<&str> = message
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    fn phrase(p: &'static str) -> Vec<&'static str> {
        p.split(' ').collect()
    }
    let at = |i: usize, p: &[&str]| words.get(i..i + p.len()) == Some(p);
    let anywhere = |q: &'static str| (0..words.len()).any(|i| at(i, &phrase(q)));
    if CATALOGUE_QUESTIONS.iter().any(|q| anywhere(q))
        || (VERSION_QUESTIONS.iter().any(|q| anywhere(q))
            && LIBRARY_HOLDS.iter().any(|q| anywhere(q)))
    {
        return true;
    }
    let start = REQUEST_OPENERS
        .iter()
        .map(|o| phrase(o))
        .find(|o| at(0, o))
        .map_or(0, |o| o.len());
    CATALOGUE_REQUESTS.iter().any(|r| at(start, &phrase(r)))
}

/// Whether a line of stored page text is a row of a table: its cells apart by tabs, as
/// ingestion writes a table it reads across (see `ingest::grid`).
pub fn is_row(line: &str) -> bool {
    line.contains(crate::ingest::grid::CELL)
}

/// The first row of the table the row at `start` (the byte offset of its first character in
/// `passage`) belongs to, with its offset: a table's first row names its columns. `None` when
/// the passage does not show where the table starts (it begins with a row: a passage cut from
/// the middle of a table) or `start` is no row.
pub fn table_header(passage: &str, start: usize) -> Option<(usize, &str)> {
    let line_at = |at: usize| passage[at..].lines().next().unwrap_or("");
    if !is_row(line_at(start)) {
        return None;
    }
    let mut first = start;
    while first > 0 {
        let before = passage[..first - 1].rfind('\n').map_or(0, |i| i + 1);
        if !is_row(line_at(before)) {
            return Some((first, line_at(first)));
        }
        first = before;
    }
    None
}

/// Whether a line opens with a list item's mark: a bullet glyph ([`BULLETS`]), or the "* ",
/// "- " or "+ " that plain text (Markdown, reStructuredText, e-mail) marks items with, before
/// a word.
pub fn opens_list_item(text: &str) -> bool {
    let t = text.trim_start_matches([' ', '\t']);
    if t.starts_with(BULLETS) {
        return true;
    }
    let mut chars = t.chars();
    matches!(chars.next(), Some('*' | '-' | '+'))
        && chars.next() == Some(' ')
        && chars
            .next()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '"' | '“' | '('))
}

/// Whether `line`, in a text whose longest line has `width` characters, ends where its text
/// ends rather than where the page's margin wrapped it: the first word of the `next` text
/// would have fit on it (with [`WRAP_SLACK`] to spare), and it does not stop on a function
/// word ([`ends_mid_sentence`]). A wrapped line is full: the next word did not fit.
fn ends_unwrapped(line: &str, next: &str, width: usize) -> bool {
    let word = next.split_whitespace().next().unwrap_or("").chars().count();
    let needs = line.chars().count() + 1 + word;
    !ends_mid_sentence(line, next) && needs as f32 <= width as f32 * (1.0 - WRAP_SLACK)
}

/// The share of a text's widest line by which a line must fall short of it, its next word
/// added, to count as unwrapped ([`ends_unwrapped`]): characters stand in for widths, and in a
/// proportional font full lines differ in length by a few per cent. Higher keeps more items
/// glued to the paragraph after them, lower cuts more wrapped items at a capitalised word.
const WRAP_SLACK: f32 = 0.05;

/// Whether a line ends a sentence before its end ("Zachary Pincus. The SC membership is
/// revisited every"): a full stop, "!" or "?" after a word of two or more lower-case letters
/// that is no abbreviation, then a space and a capital. A title is one phrase, so such a line
/// is running text, however short the column that wrapped it ("Part I. General Provisions"
/// and "Art. 5 Scope" stay titles).
fn ends_a_sentence_inside(line: &str) -> bool {
    let line = line.trim_end();
    line.char_indices().any(|(i, c)| {
        if !matches!(c, '.' | '!' | '?') {
            return false;
        }
        let before = &line[..i];
        let after = &line[i + c.len_utf8()..];
        let word = before
            .rsplit(|ch: char| !ch.is_alphanumeric())
            .next()
            .unwrap_or("");
        word.chars().filter(|ch| ch.is_lowercase()).count() >= 2
            && !ends_with_abbreviation(before)
            && after.starts_with(' ')
            && after.trim_start().starts_with(char::is_uppercase)
    })
}

/// Whether a line stops where no heading or sentence can: on a function word ("… set out
/// in") or on the noun of a cross-reference ("… described in section") whose number opens
/// the `next` line. A reference noun before a line of words ends a title or a table's header
/// row ("Component Minimum version" over "Chart plotter 4.12.2").
fn ends_mid_sentence(line: &str, next: &str) -> bool {
    // Closing punctuation ends what a last word would leave open ("… lifted out:").
    if line.trim_end().ends_with(['.', ':', ';', '!', '?']) {
        return false;
    }
    let last = line
        .rsplit(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_lowercase();
    FUNCTION.contains(last.as_str())
        || (crate::agent::rules::lexicon::is_reference_noun(&last)
            && !next
                .trim_start()
                .starts_with(|c: char| c.is_alphabetic() && c.is_uppercase()))
}

/// Whether the text opens with a clause number and then a capitalised word: "3.1 Employees",
/// "7. Breaches", "12) Records". A number followed by a lower-case word ("30 days", "2.5 per
/// cent") is a quantity, and one without a dot or bracket ("2024 Budget") a year or an amount.
fn opens_with_clause_number(text: &str) -> bool {
    let t = text.trim_start_matches([' ', '\t']);
    without_clause_number(t).len() < t.len()
}

/// The text without the clause number that opens it ("1.1 This standard applies …" → "This
/// standard applies …"; see [`opens_with_clause_number`]): a clause's number is no value it
/// states.
pub fn without_clause_number(t: &str) -> &str {
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ')'))
        .unwrap_or(t.len());
    if digits == 0
        || !t.starts_with(|c: char| c.is_ascii_digit())
        || !t[..digits].contains(['.', ')'])
    {
        return t;
    }
    let rest = &t[digits..];
    let after = rest.trim_start_matches(' ');
    if after.len() < rest.len() && after.starts_with(char::is_uppercase) {
        after
    } else {
        t
    }
}

/// Length in bytes of a footnote mark or clause number glued to the capitalised word that opens
/// a sentence ("6Then, anything …", "5.6.27New section …"): extraction lost the line break or
/// the superscript between them, so a PDF viewer shows them apart and the quote must start at
/// the word. Only digits and dots followed by an upper-case letter and then a lower-case one
/// count, so "3D printing" and "2FA" stay whole.
fn glued_marker(sentence: &str) -> usize {
    let digits = sentence
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(sentence.len());
    if digits == 0 || !sentence.starts_with(|c: char| c.is_ascii_digit()) {
        return 0;
    }
    let mut rest = sentence[digits..].chars();
    let word =
        rest.next().is_some_and(char::is_uppercase) && rest.next().is_some_and(char::is_lowercase);
    if word { digits } else { 0 }
}

/// Most characters taken from a page to finish a passage's last sentence
/// ([`rest_of_last_sentence`]): a longer rest is no sentence's end but a run-on text.
const REST_CHARS: usize = 400;

/// Fewest characters of a passage's end that must be found on its page to know where the
/// passage stops there ([`rest_of_last_sentence`]).
const TAIL_KEY_CHARS: usize = 20;

/// What finishes a passage's last sentence when the passage stops inside it (a chunk ends
/// where its size runs out, not where its sentence does: "… will be kept for a" and, on the
/// page, "minimum of six years after the berth is given up."): the page's text after the passage
/// up to the end of its first sentence, verbatim. `None` when the passage ends on a sentence's
/// end, its end is not found exactly once on `page`, a paragraph starts right after it, or
/// the rest runs longer than [`REST_CHARS`].
pub fn rest_of_last_sentence<'a>(passage: &str, page: &'a str) -> Option<&'a str> {
    let tail = passage.trim_end();
    if tail.ends_with(['.', '!', '?', ';', ':']) {
        return None;
    }
    let key_start = tail.char_indices().rev().nth(59).map_or(0, |(i, _)| i);
    let key = &tail[key_start..];
    if key.trim().chars().count() < TAIL_KEY_CHARS {
        return None;
    }
    let at = page.find(key)?;
    let rest = &page[at + key.len()..];
    if rest.contains(key) || rest.trim_start_matches([' ', '\t']).starts_with("\n\n") {
        return None;
    }
    let first = sentences(rest).into_iter().next()?;
    let ends = rest[..first.end].ends_with(['.', '!', '?', ';', ':']);
    (ends && first.end <= REST_CHARS).then(|| &rest[..first.end])
}

/// Like [`sentences`], but a sentence may also start lower-case after ". " (pasted notes often
/// begin one with a command or a name: "… notice it. frobnicate --help now opens …").
pub fn sentences_loose(passage: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    for s in sentences(passage) {
        let mut from = 0usize;
        let t = s.text.as_str();
        let mut search = 0usize;
        while let Some(i) = t[search..].find(". ") {
            let dot = search + i;
            search = dot + 2;
            let next = t[dot + 2..].chars().next();
            let words_before = t[from..dot].split_whitespace().count();
            if next.is_some_and(char::is_lowercase)
                && words_before >= 4
                && !ends_with_abbreviation(&t[from..dot])
            {
                let piece = &t[from..=dot];
                out.push(Sentence {
                    start: s.start + from,
                    end: s.start + dot + 1,
                    text: piece.to_owned(),
                });
                from = dot + 2;
            }
        }
        out.push(Sentence {
            start: s.start + from,
            end: s.end,
            text: t[from..].to_owned(),
        });
    }
    out
}

fn ends_with_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    if word.chars().count() == 1 && word.chars().all(char::is_alphabetic) {
        return true; // an initial: "J. Smith", "(a."
    }
    ABBREVIATIONS.contains(&word.trim_end_matches('.'))
}

/// A sentence in which a text says what it is about (`lexicon::SELF_NOUNS`,
/// `lexicon::DESCRIBING_VERBS`): "This document describes how decisions are made", "This
/// chapter sets out the rules for …", "The purpose of this policy is …", "This is the manual
/// followed by the committee".
static SELF_DESCRIPTION: super::Pattern = LazyLock::new(|| {
    let nouns = crate::agent::rules::lexicon::SELF_NOUNS.join("|");
    super::regex(&format!(
        r"(?i)^(?:(?:this|the\s+present)\s+(?:{nouns})\b(?:\s+[^\s.;:]+){{0,3}}?\s+(?:{verbs})\b|the\s+(?:purpose|aim|scope)\s+of\s+this\s+(?:{nouns})\b|this\s+is\s+(?:the|a|an)\s+(?:[a-z'’-]+\s+){{0,2}}(?:{nouns})\b)",
        verbs = crate::agent::rules::lexicon::DESCRIBING_VERBS
            .join("|")
            .replace(' ', r"\s+"),
    ))
});

/// Whether a sentence is the text saying what it is about ([`SELF_DESCRIPTION`]) — that it
/// covers a subject, not what it says on it.
pub fn describes_itself(sentence: &str) -> bool {
    let s = sentence
        .trim_start()
        .trim_start_matches(|c: char| !c.is_alphanumeric());
    super::matches(&SELF_DESCRIPTION, s)
}

/// A reference to a numbered part of the same text: "§4.2", "§7", "(see section 3.1)", "under
/// Rule 11.2.1" (the nouns of `lexicon::REFERENCE_NOUNS`). After a noun the number has parts: a
/// bare "chapter 4" or "paragraph 1" also opens lines of a table of contents and of lists.
static CLAUSE_REFERENCE: super::Pattern = LazyLock::new(|| {
    super::regex(&format!(
        r"(?i)§\s?(\d{{1,3}}(?:\.\d{{1,3}}){{0,5}})\b|\b(?:{})s?\s+(\d{{1,3}}(?:\.\d{{1,3}}){{1,5}})\b",
        crate::agent::rules::lexicon::REFERENCE_NOUNS.join("|")
    ))
});

/// The clause numbers a sentence refers to ([`CLAUSE_REFERENCE`]), in order, each once: a
/// reference "§4.2(3)" names "4.2".
pub fn clause_references(sentence: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let Some(re) = CLAUSE_REFERENCE.as_ref() else {
        return out;
    };
    for c in re.captures_iter(sentence) {
        if let Some(m) = c.get(1).or(c.get(2))
            && !out.iter().any(|o| o == m.as_str())
        {
            out.push(m.as_str().to_owned());
        }
    }
    out
}

/// Whether a heading path ("4 Members > 4.2. Procedure") holds the part numbered `number`.
pub fn heading_numbers(path: &str, number: &str) -> bool {
    path.split(" > ").any(|h| numbered(h, number))
}

/// Whether a line of `text` opens the part numbered `number` ("4.2. Procedure", "4.2 The
/// board …"; not "4.2.1 …").
pub fn opens_part(text: &str, number: &str) -> bool {
    text.lines().any(|l| numbered(l, number))
}

/// Whether `line` begins with the part number `number` as a whole.
fn numbered(line: &str, number: &str) -> bool {
    line.trim().strip_prefix(number).is_some_and(|rest| {
        rest.starts_with(['.', ' '])
            && !rest
                .trim_start_matches('.')
                .starts_with(|c: char| c.is_ascii_digit())
    })
}

/// English function words: articles, pronouns, auxiliaries, modals, prepositions and
/// conjunctions. A line that stops on one stops mid-sentence ([`ends_mid_sentence`]).
const FUNCTION_WORDS: &str = "a about above after again against all also am an and any are as \
     at be because been before being below between both but by can could did do does doing down \
     during each few for from further had has have having he her here hers herself him himself \
     his how i if in into is it its itself just me more most my myself no nor not now of off on \
     once only or other our ours ourselves out over own same she should so some such than that \
     the their theirs them themselves then there these they this those through to too under \
     until up very was we were what when where which while who whom why will with would you \
     your yours yourself yourselves may must shall might within without per according whether \
     either neither upon via onto whose";

static FUNCTION: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| FUNCTION_WORDS.split_whitespace().collect());

/// The words of a question that are no terms: [`FUNCTION_WORDS`], and the vocabulary of asking
/// about documents ("tell", "say", "document", "version", "policy", "kind of").
pub(crate) static STOP_WORDS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    "tell say says said give gives given get gets please document documents doc version versions \
     library policy policies regulation regulations what's which's does do done make makes made \
     use used using one two many much kind kinds sort thing things way ways"
        .split_whitespace()
        .chain(FUNCTION.iter().copied())
        .collect()
});

/// Lower-cased content words of a text (stop words and 1-letter tokens removed, a capital
/// letter standing alone kept: it names something), in order,
/// de-duplicated. Hyphenated, slashed and dotted tokens ("risk-weighted", "/etc/opt",
/// "login.defs", "2.5") stay whole and also contribute their parts (a number's parts excepted).
pub fn content_terms(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for raw in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ',' | ';' | ':' | '(' | ')' | '?' | '!' | '"' | '“' | '”' | '[' | ']' | '{' | '}'
            )
    }) {
        let trimmed = raw
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '_')
            .trim_end_matches('.');
        // A capital letter standing alone names something ("Q is half of …", "Schedule B",
        // "option C"); "A" and "I" are words.
        let symbol = trimmed.len() == 1 && trimmed.chars().all(|c| c.is_ascii_uppercase());
        let symbol = symbol && !matches!(trimmed, "A" | "I");
        let token = trimmed.to_lowercase().replace(['’', '‘'], "'");
        let token = token.strip_suffix("'s").unwrap_or(&token).to_owned();
        let mut candidates = vec![token.clone()];
        // A compound gives its parts, and so does a setting written with its value
        // ("tide=high", "mode=strict": the setting and the value).
        if token.contains(['-', '/', '=']) {
            candidates.extend(token.split(['-', '/', '=']).map(str::to_owned));
        }
        // A dotted name made of words ("shutdown.allow", "/etc/login.defs") also gives its
        // words; a dotted number ("2.5", "4.2.1") stays whole.
        if token.contains('.') {
            let words: Vec<String> = candidates
                .iter()
                .filter(|c| !c.contains('/'))
                .flat_map(|c| c.split('.'))
                .filter(|w| w.chars().any(char::is_alphabetic))
                .map(str::to_owned)
                .collect();
            if words.len() > 1 {
                candidates.extend(words);
            }
        }
        for t in candidates {
            if t.chars().count() < 2 && !t.chars().all(|c| c.is_ascii_digit()) && !symbol {
                continue;
            }
            if t.is_empty() || STOP_WORDS.contains(t.as_str()) {
                continue;
            }
            if seen.insert(t.clone()) {
                out.push(t);
            }
        }
    }
    out
}

/// A crude English stem so "retained"/"retention"/"retains" and "penalties"/"penalty" meet,
/// the British and American spellings of a word ([`spelling::american`]), and an irregular
/// form and its base (a verb's past, "kept"/"keep", `lexicon::IRREGULAR_FORMS`; a noun's
/// plural, "people"/"person", `lexicon::IRREGULAR_PLURALS`).
///
/// [`spelling::american`]: crate::index::spelling::american
pub fn stem(word: &str) -> String {
    let w = crate::index::spelling::american(&word.to_lowercase());
    // "sent"/"send", "kept"/"keep", "people"/"person": an irregular form meets its base.
    let w = match crate::agent::rules::lexicon::irregular_base(&w) {
        Some(base) => base.to_owned(),
        None => w,
    };
    // "file"/"files", "notice"/"notices"/"noticed" and "change"/"changed" meet without the e.
    let base = strip_suffixes(&w);
    let base = match base.strip_suffix('e') {
        Some(b) if b.chars().count() >= 3 => b.to_owned(),
        _ => base,
    };
    // "violated"/"violation", "terminate"/"termination" meet at "viol", "termin".
    match base.strip_suffix("at") {
        Some(b) if base.chars().count() >= 6 => b.to_owned(),
        _ => base,
    }
}

fn strip_suffixes(w: &str) -> String {
    let w = w.to_owned();
    // "-ion" after s or t goes when five letters stay (Porter's rule): "collection" and
    // "collected", "expression" and "expressed" meet; "portion" and "port", "mission" and "miss",
    // "version" and "verse" stay apart. "-ation" is the loop's.
    if let Some(base) = w.strip_suffix("ions").or_else(|| w.strip_suffix("ion"))
        && base.ends_with(['s', 't'])
        && !base.ends_with("at")
        && base.chars().count() >= 5
    {
        return base.to_owned();
    }
    for suffix in [
        "ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "ly", "s",
    ] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.chars().count() >= 3
        {
            return match suffix {
                "ies" | "ied" => format!("{base}y"),
                // "trustees"/"trustee", "employees"/"employee": the plural of a word in -ee
                // loses its "s" only.
                "es" if base.ends_with('e') => format!("{base}e"),
                // "typesetting"/"typeset", "submitted"/"submit": the doubled consonant goes
                // (but "called", "passed" keep theirs).
                "ing" | "ings" | "ed" => {
                    let mut chars: Vec<char> = base.chars().collect();
                    let n = chars.len();
                    if n >= 4
                        && chars[n - 1] == chars[n - 2]
                        && !matches!(chars[n - 1], 'l' | 's' | 'z' | 'e' | 'o' | 'a' | 'i' | 'u')
                    {
                        chars.pop();
                    }
                    chars.into_iter().collect()
                }
                _ => base.to_owned(),
            };
        }
    }
    w
}

/// Normalises text for tolerant quote matching: NFKC-like ligatures, curly quotes and dashes,
/// soft hyphens, line-end hyphenation, case and whitespace. Returns the normalised string and,
/// for every normalised byte, the byte offset in the original it came from.
pub fn normalise_for_match(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut map = Vec::with_capacity(text.len());
    let mut last_space = true;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (pos, c) = chars[i];
        // "regu-\nlation" → "regulation"
        if c == '-'
            && i + 1 < chars.len()
            && chars[i + 1].1 == '\n'
            && i > 0
            && chars[i - 1].1.is_alphabetic()
        {
            i += 2;
            while i < chars.len() && chars[i].1.is_whitespace() {
                i += 1;
            }
            continue;
        }
        let mapped: Option<&str> = match c {
            '\u{00AD}' => Some(""),
            '’' | '‘' | '`' | '´' => Some("'"),
            '“' | '”' => Some("\""),
            '–' | '—' | '‐' | '‑' => Some("-"),
            'ﬁ' => Some("fi"),
            'ﬂ' => Some("fl"),
            'ﬀ' => Some("ff"),
            'ﬃ' => Some("ffi"),
            'ﬄ' => Some("ffl"),
            _ => None,
        };
        if c.is_whitespace() {
            if !last_space {
                out.push(' ');
                map.push(pos);
                last_space = true;
            }
        } else if let Some(m) = mapped {
            for b in m.chars() {
                out.push(b);
                for _ in 0..b.len_utf8() {
                    map.push(pos);
                }
            }
            last_space = false;
        } else {
            for lc in c.to_lowercase() {
                out.push(lc);
                for _ in 0..lc.len_utf8() {
                    map.push(pos);
                }
            }
            last_space = false;
        }
        i += 1;
    }
    while out.ends_with(' ') {
        out.pop();
        map.pop();
    }
    (out, map)
}

/// Finds `quote` in `haystack` tolerating whitespace, case, curly quotes and line-end
/// hyphenation; returns the byte range of the exact stored text.
pub fn find_quote(haystack: &str, quote: &str) -> Option<(usize, usize)> {
    let (nq, _) = normalise_for_match(
        quote
            .trim()
            .trim_matches(|c| c == '"' || c == '“' || c == '”'),
    );
    if nq.chars().count() < 8 {
        return None;
    }
    let (nh, map) = normalise_for_match(haystack);
    let at = nh.find(&nq)?;
    let start = *map.get(at)?;
    let last = *map.get(at + nq.len() - 1)?;
    let end = last + haystack[last..].chars().next().map_or(1, char::len_utf8);
    Some((start, end))
}

/// Longest quote a citation holds, in characters (longer sentences are clipped with [`clip`]
/// or cut into [`pieces`]): enough for one clause of a rule, short enough to read at a glance.
pub const QUOTE_CHARS: usize = 300;

/// Cuts a quote to at most `max` characters at a word boundary (never mid-word).
pub fn clip(text: &str, max: usize) -> &str {
    if text.chars().count() <= max {
        return text;
    }
    let cut = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let head = &text[..cut];
    match head.rfind(char::is_whitespace) {
        Some(ws) if ws > cut / 2 => head[..ws].trim_end_matches([',', ';', ':']),
        _ => head,
    }
}

/// The last clause boundary of `window` ("; ", ", ", " and ", " or ", whichever whitespace
/// surrounds them: a PDF's text wraps its lines anywhere, "directly or⏎indirectly"), as the
/// byte offset of the whitespace after it.
fn clause_break(window: &str) -> Option<usize> {
    window
        .char_indices()
        .rev()
        .find(|&(i, c)| {
            let before = &window[..i];
            c.is_whitespace()
                && (before.ends_with([';', ','])
                    || ["and", "or"].iter().any(|w| {
                        before
                            .strip_suffix(w)
                            .is_some_and(|b| b.ends_with(char::is_whitespace))
                    }))
        })
        .map(|(i, _)| i)
}

/// A sentence longer than `max` characters cut into verbatim pieces at clause boundaries
/// ("; ", ", ", " and "), each at most `max` characters, so a long clause can be quoted whole
/// in parts instead of clipped. Shorter sentences come back as they are.
pub fn pieces(s: &Sentence, max: usize) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let text = s.text.as_str();
    while text[start..].chars().count() > max {
        let window_end = text[start..]
            .char_indices()
            .nth(max)
            .map_or(text.len(), |(i, _)| start + i);
        let window = &text[start..window_end];
        let cut = clause_break(window).filter(|&i| i > window.len() / 3);
        let Some(cut) = cut else {
            break;
        };
        let piece = text[start..start + cut].trim();
        if !piece.is_empty() {
            let lead = text[start..].len() - text[start..].trim_start().len();
            out.push(Sentence {
                start: s.start + start + lead,
                end: s.start + start + lead + piece.len(),
                text: piece.to_owned(),
            });
        }
        start += cut;
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        let lead = text[start..].len() - text[start..].trim_start().len();
        out.push(Sentence {
            start: s.start + start + lead,
            end: s.start + start + lead + rest.len(),
            text: rest.to_owned(),
        });
    }
    out
}

/// True for a line that reads as a heading or a table-of-contents entry rather than a sentence:
/// no closing punctuation or colon, at most eight words, mostly capitalised or numbered.
pub fn looks_like_heading(text: &str) -> bool {
    let t = text.trim();
    // Dot leaders: a table-of-contents line ("7.5.4 Handling new maintainer applications . . .").
    if t.contains(". . . .") {
        return true;
    }
    // A title may end with a bracketed year or version ("Travel Policy (2024)"); a sentence
    // ends with a bracketed remark ("… as agreed (see rule 3)").
    let bracketed_tag = t
        .strip_suffix(')')
        .and_then(|x| x.rsplit_once('('))
        .is_some_and(|(_, tag)| !tag.is_empty() && !tag.contains(char::is_whitespace));
    if t.ends_with(['.', '!', '?', ';', ',', ')']) && !t.ends_with("s)") && !bracketed_tag
        || t.contains(':')
    {
        return false;
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.is_empty() || words.len() > 8 {
        return false;
    }
    // A numbered section title ("6.8.9.2 Manual -dbg packages").
    if words.len() > 1
        && words[0].contains('.')
        && words[0].chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        return true;
    }
    // A table-of-contents entry: a capitalised title followed by its page number
    // ("Best practices for debian/changelog 59").
    if words.len() > 1
        && words[0].starts_with(|c: char| c.is_uppercase())
        && words
            .last()
            .is_some_and(|w| w.len() <= 4 && w.chars().all(|c| c.is_ascii_digit()))
    {
        return true;
    }
    let marked = words
        .iter()
        .filter(|w| {
            w.chars()
                .find(|c| c.is_alphanumeric())
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        })
        .count();
    marked * 2 > words.len()
}

/// Share of the word tokens (lower-cased letters and digits) two texts have in common
/// (Jaccard); numbers count, so "10 days" and "15 days" differ by one token.
pub fn token_similarity(a: &str, b: &str) -> f32 {
    jaccard(&tokens(a), &tokens(b))
}

/// The word tokens of a text: lower-cased runs of letters and digits.
pub fn tokens(t: &str) -> HashSet<String> {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Share of two token sets' union that both hold (0 for two empty sets).
pub fn jaccard(x: &HashSet<String>, y: &HashSet<String>) -> f32 {
    let union = x.union(y).count();
    if union == 0 {
        return 0.0;
    }
    x.intersection(y).count() as f32 / union as f32
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_text_saying_what_it_is_about_describes_itself() {
        assert!(crate::agent::rules::all_compile(&[
            &super::SELF_DESCRIPTION
        ]));
        for meta in [
            "This handbook describes how berths are allocated and how disputes are settled.",
            "This chapter sets out the rules for winter storage.",
            "The purpose of this policy is to keep the slipway safe.",
            "This is the manual followed by the harbour committee.",
            "- This part of the bylaws explains how fees are set.",
            "This draft describes a set of practices for the boatyard's crane operators.",
        ] {
            assert!(super::describes_itself(meta), "{meta}");
        }
        for rule in [
            "This policy applies to every berth holder.",
            "This policy provides that fees are paid in advance.",
            "The harbour master describes each incident in the log within two days.",
            "Disputes are settled by a simple majority of the committee.",
            "This section's fees are reviewed each March.",
        ] {
            assert!(!super::describes_itself(rule), "{rule}");
        }
    }

    #[test]
    fn a_short_line_that_ends_a_sentence_inside_it_is_no_title() {
        // A narrow column wraps "The boat is lifted every⏎March." after a sentence's end.
        let t = "The yard is run by Ada Moss. The boat is lifted every\nMarch. Owners who miss the lift pay the yard's fee.";
        let texts: Vec<String> = super::sentences(t).into_iter().map(|s| s.text).collect();
        assert_eq!(texts[1], "The boat is lifted every\nMarch.");
        assert!(super::ends_a_sentence_inside(
            "Ada Moss. The boat is lifted every"
        ));
        assert!(!super::ends_a_sentence_inside("Part I. General Provisions"));
        assert!(!super::ends_a_sentence_inside("Art. 5 Scope"));
        assert!(!super::ends_a_sentence_inside("Winter storage"));
    }

    #[test]
    fn a_catalogue_request_is_an_opening_imperative_and_list_inside_a_question_is_not() {
        use super::asks_for_catalogue;
        assert!(asks_for_catalogue("list the regulatory documents"));
        assert!(asks_for_catalogue("please list all policies"));
        assert!(asks_for_catalogue(
            "which versions of the harbour bylaws do i have?"
        ));
        assert!(asks_for_catalogue("what's in my library?"));
        // Versions a page speaks of are no question about the library.
        assert!(!asks_for_catalogue(
            "which versions of the chart plotter are supported?"
        ));
        // Regression: "list them" matched "list the" and a question on the harbour's unlisted
        // berths was answered with the catalogue.
        assert!(!asks_for_catalogue(
            "what fee applies to berths when the tariff does not list them?"
        ));
        assert!(!asks_for_catalogue(
            "who keeps boats when the register does not list the owner?"
        ));
    }

    #[test]
    fn a_numbered_clause_opens_its_own_sentence_after_its_heading() {
        let page = "Travel rules.\n\n2. Booking\n2.1 Trains are booked in standard class.\n\
                    Flights over\n2.5 Million air miles are rare.\n(2019)\n3. Hotels\n3.1 Rooms \
                    are booked as described in section\n4.2 Taxis below.";
        let texts: Vec<String> = super::sentences(page).into_iter().map(|s| s.text).collect();
        assert!(texts.contains(&"2. Booking".to_owned()), "{texts:?}");
        assert!(texts.contains(&"2.1 Trains are booked in standard class.".to_owned()));
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with("3.1 Rooms") && t.ends_with("4.2 Taxis below."))
        );
        assert!(texts.iter().any(|t| t.starts_with("3. Hotels")));
        // A lead that ends on a particle and a colon ends before its first item.
        let steps = "Before a boat is lifted out:\n1. Book the crane.\n2. Empty the bilge.";
        let texts: Vec<String> = super::sentences(steps)
            .into_iter()
            .map(|s| s.text)
            .collect();
        assert_eq!(texts[0], "Before a boat is lifted out:");
        assert_eq!(texts[1], "1. Book the crane.");
        assert!(super::opens_with_clause_number("12) Records are kept"));
        assert!(!super::opens_with_clause_number("2024 Budget"));
        assert!(!super::opens_with_clause_number("30 days"));
        assert_eq!(
            super::without_clause_number("4.2 Taxis wait."),
            "Taxis wait."
        );
        assert_eq!(super::without_clause_number("4.2 per cent"), "4.2 per cent");
    }

    use super::*;

    #[test]
    fn a_footnote_mark_glued_to_a_sentence_is_left_out_of_it() {
        let passage = "Backups run nightly. 7Then, the operator checks the log.\n\n4.2.1Retention applies to all tapes.";
        let texts: Vec<String> = sentences(passage).into_iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            [
                "Backups run nightly.",
                "Then, the operator checks the log.",
                "Retention applies to all tapes."
            ]
        );
        for s in sentences(passage) {
            assert_eq!(&passage[s.start..s.end], s.text);
        }
        let kept: Vec<String> = sentences("3D printing is allowed. 2FA is required.")
            .into_iter()
            .map(|s| s.text)
            .collect();
        assert_eq!(kept, ["3D printing is allowed.", "2FA is required."]);
    }

    #[test]
    fn each_bulleted_line_is_a_sentence_of_its_own() {
        let passage = "The lists are:\n• alerts@example.org, for outages. Everyone reads it.\n• chat@example.org, for anything else\n  that does not fit.";
        let texts: Vec<String> = sentences(passage).into_iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            [
                "The lists are:",
                "• alerts@example.org, for outages.",
                "Everyone reads it.",
                "• chat@example.org, for anything else\n  that does not fit."
            ]
        );
    }

    #[test]
    fn a_list_item_or_a_code_example_ends_where_its_last_line_does() {
        let passage = "Members of the sailing club get:\n\
                       • a key to the boathouse and the use of the slipway in the summer season\n\
                       • a locker\n\
                       Guests pay a fee for each visit, and the harbour master keeps the list of all\n\
                       guests of the day.\n\
                       • a berth for one boat, with water and power, paid for by the month to the\n\
                       Harbour Office\n\
                       Boats left over winter are moved to the yard.";
        let texts: Vec<String> = sentences(passage).into_iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            [
                "Members of the sailing club get:",
                "• a key to the boathouse and the use of the slipway in the summer season",
                "• a locker",
                "Guests pay a fee for each visit, and the harbour master keeps the list of all\nguests of the day.",
                // Wrapped before a name: the line stops on "the".
                "• a berth for one boat, with water and power, paid for by the month to the\nHarbour Office",
                "Boats left over winter are moved to the yard."
            ]
        );
        // The brace that closes a code example ends it.
        let code = "Set the flag:\nif (late) {\n  warn();\n}\nLate entries are refused.";
        let texts: Vec<String> = sentences(code).into_iter().map(|s| s.text).collect();
        assert_eq!(
            texts.last().map(String::as_str),
            Some("Late entries are refused.")
        );
        // A full line wrapped before a capitalised word stays with its item.
        let full = "• the keys to every locker are kept at the office of the Harbour\n\
                    Master, who signs them out to members on request.\n\
                    Guests sign the visitors' book, which the harbour master keeps.";
        let texts: Vec<String> = sentences(full).into_iter().map(|s| s.text).collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
    }

    #[test]
    fn plain_text_list_marks_and_rule_lines_bound_sentences() {
        let passage = "Fees\n----\nThe club charges:\n* 20 euros a year for members,\n- 5 euros a visit for guests.\n+ 2 euros for a locker\nValues - such as 3 - stay inside.";
        let texts: Vec<String> = sentences(passage).into_iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            [
                "Fees",
                "The club charges:",
                "* 20 euros a year for members,",
                "- 5 euros a visit for guests.",
                "+ 2 euros for a locker",
                "Values - such as 3 - stay inside."
            ]
        );
        let titled = "Dogs are welcome.\nOpening hours\n=============\nThe hall opens at 9.";
        let texts: Vec<String> = sentences(titled).into_iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            ["Dogs are welcome.", "Opening hours", "The hall opens at 9."]
        );
        assert!(!opens_list_item("-5 degrees"));
        assert!(!opens_list_item("** bold"));
    }

    #[test]
    fn a_short_line_of_a_narrow_column_is_no_title() {
        let column = "Members' Duties. Every member must keep, in the\nLogbook of any Boat that the member\nsails, all Safety Notices from the Harbour\nOffice, as well as any notices of repair.\nMooring\nBoats moor at the north pontoon.";
        let ss: Vec<String> = sentences(column).into_iter().map(|s| s.text).collect();
        assert!(
            ss.iter()
                .any(|s| s.starts_with("Every member must keep")
                    && s.ends_with("notices of repair.")),
            "{ss:?}"
        );
        // A title the next line's first word would have fitted after is one.
        assert!(ss.iter().any(|s| s == "Mooring"), "{ss:?}");
    }

    /// The pieces of the second sentence of `passage`, checked: two or more, each at most
    /// `max` characters and verbatim where it stands.
    fn verbatim_pieces(passage: &str, max: usize) -> Vec<Sentence> {
        let s = &sentences(passage)[1];
        let ps = pieces(s, max);
        assert!(ps.len() >= 2, "{ps:?}");
        for p in &ps {
            assert!(p.text.chars().count() <= max, "{}", p.text);
            assert_eq!(&passage[p.start..p.end], p.text);
        }
        ps
    }

    #[test]
    fn a_long_sentence_is_cut_where_its_wrapped_lines_put_the_boundary() {
        // Every "or" and "and" of the clause ends a printed line: the text holds
        // "or\n" and "\nand", never " or ".
        let passage = "Rules. A member who lodges a complaint against the harbour master or\na steward (the harbour master or\nsteward named in it is the \"Respondent\") alleging that the Respondent acted unfairly towards the member or\nthe member's guests loses every mooring right granted by the Respondent upon 14 days notice from the Respondent\nand the right lapses at the end of that period.";
        let ps = verbatim_pieces(passage, 200);
        assert!(ps.iter().any(|p| p.text.contains("14 days")));
    }

    #[test]
    fn long_sentences_split_into_verbatim_pieces() {
        let passage = "Intro. However, if you cease all violation of this License, then your license from a particular copyright holder is reinstated (a) provisionally, unless and until the copyright holder explicitly and finally terminates your license, and (b) permanently, if the copyright holder fails to notify you of the violation by some reasonable means prior to 60 days after the cessation.";
        let ps = verbatim_pieces(passage, 200);
        assert!(ps.last().unwrap().text.contains("60 days"));
        let short = &sentences("A bank must hold 8 per cent.")[0];
        assert_eq!(pieces(short, 300), vec![short.clone()]);
        assert!(token_similarity("Other NMUs: 10 days", "Other NMUs: 15 days") > 0.5);
        assert!(
            token_similarity(
                "Other NMUs: 10 days",
                "Fixing cosmetic issues is discouraged"
            ) < 0.2
        );
    }

    #[test]
    fn a_quote_of_a_table_row_written_with_spaces_is_found_on_its_page() {
        // A model, or a user, writes a row's cells apart by spaces; the page keeps its tabs.
        let page =
            "Berth class\tSeason fee\nResident\t900 crowns for the season\nKeys are returned.";
        let (start, end) = find_quote(page, "Resident 900 crowns for the season").unwrap();
        assert_eq!(&page[start..end], "Resident\t900 crowns for the season");
    }

    #[test]
    fn a_table_row_is_a_sentence_and_its_table_s_first_row_is_found() {
        let page = "Moorings are paid in advance.\n\nBerth class\tSeason fee\tMin. Stay\nVisitor\t40 crowns a night\t1 night\nResident\t900 crowns\t6 months\nKeys are returned at the end of the stay.";
        let texts: Vec<String> = sentences(page).into_iter().map(|s| s.text).collect();
        assert_eq!(
            texts,
            vec![
                "Moorings are paid in advance.",
                "Berth class\tSeason fee\tMin. Stay",
                "Visitor\t40 crowns a night\t1 night",
                "Resident\t900 crowns\t6 months",
                "Keys are returned at the end of the stay.",
            ]
        );
        let at = |t: &str| page.find(t).unwrap();
        let header = Some((at("Berth class"), "Berth class\tSeason fee\tMin. Stay"));
        assert_eq!(table_header(page, at("Resident")), header);
        assert_eq!(table_header(page, at("Berth class")), header);
        assert_eq!(table_header(page, at("Keys")), None);
        // A passage that begins inside a table does not show its first row.
        let cut = &page[at("Visitor")..];
        assert_eq!(table_header(cut, cut.find("Resident").unwrap()), None);
    }

    #[test]
    fn sentences_keep_offsets_and_skip_abbreviations_and_numbers() {
        let p = "A bank must hold 8 per cent. See para. 2.1 for details, e.g. the ratio.\n\nNew paragraph here";
        let s = sentences(p);
        assert_eq!(s.len(), 3, "{s:?}");
        assert_eq!(s[0].text, "A bank must hold 8 per cent.");
        assert_eq!(s[1].text, "See para. 2.1 for details, e.g. the ratio.");
        for x in &s {
            assert_eq!(&p[x.start..x.end], x.text);
        }
    }

    #[test]
    fn a_setting_written_with_its_value_gives_both_words() {
        assert_eq!(
            content_terms("Set tide=high in the harbour file"),
            vec!["set", "tide=high", "tide", "high", "harbour", "file"]
        );
    }

    #[test]
    fn content_terms_drop_stop_words_and_keep_compounds() {
        assert_eq!(
            content_terms("What is the minimum risk-weighted capital ratio in /etc/opt?"),
            vec![
                "minimum",
                "risk-weighted",
                "risk",
                "weighted",
                "capital",
                "ratio",
                "/etc/opt",
                "etc",
                "opt"
            ]
        );
        assert_eq!(
            content_terms("Edit /etc/login.defs per section 4.2.1, not 2.5"),
            vec![
                "edit",
                "/etc/login.defs",
                "etc",
                "login.defs",
                "login",
                "defs",
                "section",
                "4.2.1",
                "2.5"
            ]
        );
    }

    #[test]
    fn quotes_match_across_whitespace_case_and_hyphenation() {
        let page = "The file must consist of the process identifier in ASCII-encoded deci-\nmal, followed by a newline.";
        let (s, e) = find_quote(
            page,
            "the process identifier in ascii-encoded decimal, followed",
        )
        .unwrap_or((0, 0));
        assert_eq!(
            &page[s..e],
            "the process identifier in ASCII-encoded deci-\nmal, followed"
        );
        assert!(find_quote(page, "the process number in hexadecimal").is_none());
        assert_eq!(
            find_quote("It’s “quoted”", "it's \"quoted\""),
            Some((0, 16))
        );
    }

    #[test]
    fn clip_cuts_at_a_word_boundary() {
        assert_eq!(clip("alpha beta gamma", 12), "alpha beta");
        assert_eq!(clip("short", 300), "short");
    }

    #[test]
    fn british_and_american_spellings_meet_in_stems() {
        // The rules are `index::spelling`'s; the stemmer folds through them.
        assert_eq!(stem("licences"), stem("licenses"));
        assert_eq!(stem("organisation"), stem("organization"));
        assert_eq!(stem("cancelled"), stem("canceled"));
        assert_eq!(stem("hours"), stem("hour"));
    }

    #[test]
    fn a_sentence_names_the_clauses_it_refers_to_and_a_heading_path_holds_them() {
        assert!(crate::agent::rules::all_compile(&[
            &CLAUSE_REFERENCE,
            &SELF_DESCRIPTION
        ]));
        assert_eq!(
            clause_references(
                "The fee is as for a berth (§3.1), see also section 7.2 and §3.1(2)."
            ),
            ["3.1", "7.2"]
        );
        // A bare number after a noun is no reference to follow (a contents line opens it too).
        assert!(clause_references("See Chapter 4, Packed lunches.").is_empty());
        assert!(clause_references("Fees rose by 4.2 per cent in 2024.").is_empty());
        assert!(heading_numbers("3. Berths > 3.1. Fees", "3.1"));
        assert!(heading_numbers("7 Moorings", "7"));
        assert!(!heading_numbers("3. Berths > 3.10. Repairs", "3.1"));
        assert!(!heading_numbers("3. Berths > 3.1.2. Winter fees", "3.1"));
        assert!(opens_part(
            "Berths are let yearly.\n3.1. Fees\nA berth costs …",
            "3.1"
        ));
        assert!(!opens_part("as set out in 3.1 above", "3.1"));
    }

    #[test]
    fn a_capital_letter_standing_alone_is_a_term_and_a_lower_case_one_is_not() {
        let terms = content_terms("Where is the figure R defined in Annex B (see item (c))?");
        assert!(terms.contains(&"r".to_owned()) && terms.contains(&"b".to_owned()));
        assert!(!terms.contains(&"c".to_owned()));
        assert!(
            content_terms("A person or I may ask.")
                .iter()
                .all(|t| t.len() > 1)
        );
    }

    #[test]
    fn a_noun_in_ion_meets_its_verb() {
        assert_eq!(stem("collection"), stem("collected"));
        assert_eq!(stem("corrections"), stem("corrected"));
        assert_eq!(stem("deletion"), stem("delete"));
        assert_eq!(stem("inspection"), stem("inspects"));
        // Short stems would meet unrelated words.
        assert_ne!(stem("portion"), stem("port"));
        assert_ne!(stem("mission"), stem("miss"));
        assert_ne!(stem("version"), stem("verse"));
        assert_eq!(stem("violation"), stem("violated"));
    }

    #[test]
    fn stems_meet() {
        assert_eq!(stem("penalties"), stem("penalty"));
        assert_eq!(stem("retained"), stem("retain"));
        assert_eq!(stem("violated"), stem("violation"));
        assert_eq!(stem("terminate"), stem("termination"));
        assert_eq!(stem("typesetting"), stem("typeset"));
        assert_eq!(stem("submitted"), stem("submit"));
        assert_eq!(stem("called"), "call");
        // Irregular forms meet their base: a verb's past, a noun's plural.
        assert_eq!(stem("kept"), stem("keep"));
        assert_eq!(stem("people"), stem("person"));
        assert_eq!(stem("children"), stem("child"));
        // A noun in -ee meets its plural.
        assert_eq!(stem("trustees"), stem("trustee"));
        assert_eq!(stem("referees"), stem("referee"));
        assert_eq!(stem("agrees"), stem("agree"));
    }

    #[test]
    fn loose_sentences_may_start_lower_case() {
        let t = "It exits with status 1, so that scripts notice it. frobnicate --help opens a browser. See e.g. the manual.";
        let s: Vec<String> = sentences_loose(t).into_iter().map(|s| s.text).collect();
        assert_eq!(
            s,
            vec![
                "It exits with status 1, so that scripts notice it.",
                "frobnicate --help opens a browser.",
                "See e.g. the manual."
            ]
        );
        for x in sentences_loose(t) {
            assert_eq!(&t[x.start..x.end], x.text);
        }
    }

    #[test]
    fn headings_are_told_from_sentences() {
        assert!(looks_like_heading("Non-Maintainer Uploads (NMUs) 51"));
        assert!(looks_like_heading("5.11.3 Using the DELAYED/ queue"));
        assert!(looks_like_heading("6.8.9.2 Manual -dbg packages"));
        assert!(!looks_like_heading("• Other NMUs: 10 days"));
        assert!(!looks_like_heading("A bank must hold 8 per cent."));
        assert!(looks_like_heading("Best practices for debian/changelog 59"));
        assert!(!looks_like_heading("Records are kept for 7 years."));
        assert!(looks_like_heading("Canteen Opening Hours (2024)"));
        assert!(!looks_like_heading("Canteen Opens At Noon (see rule 3)"));
        assert!(looks_like_heading(
            "81 7.5.4 Handling new maintainer applications . . . . . . . . ."
        ));
    }
    #[test]
    fn a_passage_cut_inside_its_last_sentence_is_finished_from_its_page() {
        let page = "Harbour records.\nMooring logs of every berth will be kept for a\nminimum of six years after the season ends. Fuel receipts stay on file a season.";
        let passage = "Harbour records.\nMooring logs of every berth will be kept for a";
        assert_eq!(
            rest_of_last_sentence(passage, page),
            Some("\nminimum of six years after the season ends.")
        );
        // A passage that ends its sentence, or is not on the page, is left as it is.
        assert_eq!(
            rest_of_last_sentence("Mooring logs of every berth are kept on board.", page),
            None
        );
        assert_eq!(
            rest_of_last_sentence("Dinghy permits of the harbour are renewed every", page),
            None
        );
        // A paragraph after the passage is no rest of its sentence.
        let titled = "Mooring logs of every berth and their keepers\n\nFuel receipts are kept.";
        assert_eq!(
            rest_of_last_sentence("Mooring logs of every berth and their keepers", titled),
            None
        );
    }
}
