//! Acronyms a document defines where it first uses them ("harbour-master notices (HM
//! notices)", "Boat Safety Scheme (BSS)"): a sentence that writes the acronym ("an HM notice
//! must …") speaks of what a question spells out ("harbour-master notice"), and a sentence that
//! spells it out speaks of what a question abbreviates.
//!
//! Owns: reading definitions from text ([`defined`]), the words a sentence says through them
//! ([`said_through`]), and the acronyms a question may spell out with no definition at hand
//! ([`initials`]). Must not: decide what to quote (the extractive scorer does), call
//! models or stores.

use std::collections::HashSet;
use std::sync::LazyLock;

use super::text::{STOP_WORDS, stem};
use super::{Pattern, lexicon, regex};

/// An acronym and the stems of the words it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acronym {
    /// As written, in capitals ("HM", "BSS").
    pub letters: String,
    /// Stems of the words it stands for, in order ("harbour", "master").
    pub stands_for: Vec<String>,
}

/// An opening bracket and an acronym: two to eight letters, at least two of them capitals,
/// starting and ending with one, optionally plural ("(BSS)", "(HM notices)", "(“AML”)").
static DEFINITION: Pattern =
    LazyLock::new(|| regex(r#"\(\s*["“']?([A-Z][A-Za-z&]{0,6}[A-Z])s?\b"#));

/// How many words before the bracket a definition may reach back.
const REACH: usize = 10;

/// The acronyms `text` defines: each bracketed acronym whose letters are the initials of a run
/// of the words (and hyphenated parts) right before the bracket, the last of them at most
/// two words before it ("harbour-master notices (HM notices)").
pub fn defined(text: &str) -> Vec<Acronym> {
    let Some(re) = DEFINITION.as_ref() else {
        return Vec::new();
    };
    let mut out: Vec<Acronym> = Vec::new();
    for c in re.captures_iter(text) {
        let (Some(all), Some(acronym)) = (c.get(0), c.get(1)) else {
            continue;
        };
        let letters: String = acronym
            .as_str()
            .chars()
            .filter(|ch| ch.is_uppercase())
            .collect();
        if letters.chars().count() < 2 {
            continue;
        }
        let tokens: Vec<&str> = text[..all.start()]
            .split_whitespace()
            .rev()
            .take(REACH)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .map(|w| w.trim_matches(|ch: char| !ch.is_alphanumeric() && ch != '&'))
            .filter(|w| !w.is_empty())
            .collect();
        // Each part ("harbour", "master" of "harbour-master") with its word's index.
        let parts: Vec<(&str, usize)> = tokens
            .iter()
            .enumerate()
            .flat_map(|(i, w)| w.split(['-', '/']).map(move |p| (p, i)))
            .filter(|(p, _)| !p.is_empty())
            .collect();
        let words: Vec<&str> = parts.iter().map(|(p, _)| *p).collect();
        let Some((start, end)) = spelled(&words, &letters) else {
            continue;
        };
        if out.iter().any(|a| a.letters == letters) {
            continue;
        }
        let mut stands_for: Vec<String> = words[start..end]
            .iter()
            .filter(|w| !left_out(w))
            .map(|w| stem(&w.to_lowercase()))
            .collect();
        // A hyphenated word the run spells whole is one of its words too.
        let (first, last) = (parts[start].1, parts[end - 1].1);
        for (i, w) in tokens.iter().enumerate().take(last + 1).skip(first) {
            let whole = parts.iter().filter(|(_, t)| *t == i).count();
            let inside = parts[start..end].iter().filter(|(_, t)| *t == i).count();
            if whole > 1 && whole == inside {
                stands_for.push(stem(&w.to_lowercase()));
            }
        }
        out.push(Acronym {
            letters,
            stands_for,
        });
    }
    out
}

/// The run of `words` (start and end) whose initials spell `letters` (the short words of
/// [`left_out`] may be left out), ending at most two words before the end.
fn spelled(words: &[&str], letters: &str) -> Option<(usize, usize)> {
    let want: Vec<char> = letters.to_lowercase().chars().collect();
    let n = words.len();
    for end in (n.saturating_sub(2)..=n).rev() {
        for start in (0..end).rev() {
            let run = &words[start..end];
            let firsts = |skip: bool| -> Vec<char> {
                run.iter()
                    .filter(|w| !(skip && left_out(w)))
                    .filter_map(|w| w.chars().next())
                    .flat_map(char::to_lowercase)
                    .collect()
            };
            if firsts(false) == want || firsts(true) == want {
                return Some((start, end));
            }
            if run.len() > want.len() * 2 {
                break;
            }
        }
    }
    None
}

/// A short word an acronym may leave out of its letters ([`lexicon::LEFT_OUT_OF_ACRONYMS`]).
fn left_out(word: &str) -> bool {
    lexicon::LEFT_OUT_OF_ACRONYMS.contains(&word.to_lowercase().as_str())
}

/// The stems `sentence` says through `acronyms` beyond its own (`own`), each acronym with
/// whether the question writes it (`true`: "What is an HM notice?") or spells it out: a
/// question that spells it out meets a sentence that writes it through the words it stands
/// for, and one that writes it meets a sentence that spells it out through the acronym. A
/// sentence that writes the acronym the question writes already shares it, and is not also
/// given its words ("the HM notice procedure" would count "notice" twice).
pub fn said_through(
    sentence: &str,
    own: &HashSet<String>,
    acronyms: &[(Acronym, bool)],
) -> Vec<String> {
    let mut out = Vec::new();
    for (a, asked_short) in acronyms {
        if *asked_short {
            let short = stem(&a.letters.to_lowercase());
            if !own.contains(&short) && spells_out(sentence, a) {
                out.push(short);
            }
            continue;
        }
        let written = sentence
            .split(|ch: char| !ch.is_alphanumeric())
            .any(|w| w == a.letters || w.strip_suffix('s') == Some(a.letters.as_str()));
        if written {
            out.extend(a.stands_for.iter().filter(|t| !own.contains(*t)).cloned());
        }
    }
    out
}

/// Whether `sentence` writes the words an acronym stands for one after the other (the short
/// words of [`left_out`] aside): "the harbour master signs" spells out "HM", "the master of the
/// harbour" does not.
fn spells_out(sentence: &str, a: &Acronym) -> bool {
    let parts: Vec<&String> = a
        .stands_for
        .iter()
        .filter(|t| !t.contains(['-', '/']))
        .collect();
    let words: Vec<String> = sentence
        .split(|ch: char| !(ch.is_alphanumeric() || ch == '&'))
        .filter(|w| !w.is_empty() && !left_out(w))
        .map(|w| stem(&w.to_lowercase()))
        .collect();
    !parts.is_empty()
        && words
            .windows(parts.len())
            .any(|w| w.iter().zip(&parts).all(|(x, y)| x == *y))
}

/// Acronyms a question may be spelled out in ("hull survey certificate" → "hsc"): the initials
/// of every run of three or four consecutive content words within one clause, lower-cased.
/// Documents often use only the short form ("HSCs"), which shares no word with the long one.
pub fn initials(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for clause in text.split([',', ';', ':', '?', '.', '!', '(', ')']) {
        let mut run: Vec<char> = Vec::new();
        let mut flush = |run: &mut Vec<char>| {
            for n in 3..=4 {
                for w in run.windows(n) {
                    let a: String = w.iter().collect();
                    if !out.contains(&a) {
                        out.push(a);
                    }
                }
            }
            run.clear();
        };
        for word in clause.split(|c: char| c.is_whitespace() || c == '-' || c == '/') {
            let lower = word.to_lowercase();
            let letters =
                !lower.is_empty() && lower.chars().all(|c| c.is_alphabetic() || c == '\'');
            if letters && !STOP_WORDS.contains(lower.as_str()) {
                if let Some(c) = lower.chars().next() {
                    run.push(c);
                }
            } else {
                flush(&mut run);
            }
        }
        flush(&mut run);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::rules::all_compile;

    #[test]
    fn acronyms_of_spelled_out_names() {
        let a =
            initials("Which repairs call for a hull-survey certificate, per the boatyard code?");
        assert!(a.contains(&"hsc".to_owned()), "{a:?}");
        // Two words make no acronym, and a comma ends a run.
        assert!(!a.iter().any(|x| x.len() < 3), "{a:?}");
        assert!(initials("capital, ratio, bank").is_empty());
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(all_compile(&[&DEFINITION]));
    }

    #[test]
    fn an_acronym_is_defined_by_the_initials_of_the_words_before_it() {
        let text = "Every boat needs a valid Boat Safety Scheme (BSS) certificate. \
                    Harbour-master notices (HM notices) are posted at the slipway. \
                    The Department of Harbours (DH) keeps the register (see page 4).";
        let found = defined(text);
        let letters: Vec<&str> = found.iter().map(|a| a.letters.as_str()).collect();
        assert_eq!(letters, ["BSS", "HM", "DH"]);
        assert_eq!(found[0].stands_for, ["boat", "safety", "scheme"].map(stem));
        assert_eq!(
            found[1].stands_for,
            ["harbour", "master", "harbour-master"].map(stem)
        );
        assert_eq!(found[2].stands_for, ["department", "harbours"].map(stem));
        // A bracket that holds no acronym of the words before it defines nothing.
        assert!(defined("Fees are paid monthly (UK residents only).").is_empty());
        assert!(defined("See the tide table (page 4).").is_empty());
    }

    #[test]
    fn a_sentence_says_the_words_of_an_acronym_it_writes() {
        let defined = defined("Harbour-master notices (HM notices) are posted weekly.");
        let own = |s: &str| -> HashSet<String> {
            s.split_whitespace()
                .map(|w| stem(&w.to_lowercase().replace('.', "")))
                .collect()
        };
        // A question that spells it out ("harbour master notice"): a sentence that writes
        // "HM" says its words.
        let spelled = [(defined[0].clone(), false)];
        let s = "An HM notice must be answered within 7 days.";
        let said = said_through(s, &own(s), &spelled);
        assert!(said.contains(&stem("harbour")) && said.contains(&stem("master")));
        let s = "The harbour master signs every notice.";
        assert!(said_through(s, &own(s), &spelled).is_empty());
        // A question that writes "HM": a sentence that spells it out says "HM".
        let written = [(defined[0].clone(), true)];
        assert_eq!(said_through(s, &own(s), &written), [stem("hm")]);
        let s = "An HM notice must be answered within 7 days.";
        assert!(said_through(s, &own(s), &written).is_empty());
        let s = "The master of the west harbour signs every notice.";
        assert!(said_through(s, &own(s), &written).is_empty());
        let s = "Berths are let by the month.";
        assert!(said_through(s, &own(s), &spelled).is_empty());
    }
}
