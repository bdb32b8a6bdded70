//! Extractive comparison helpers: what changed between passages of two documents.
//!
//! Owns: extraction of the facts a compliance reader compares — quantities with their unit
//! ("10 days", "8 per cent", "EUR 5,000"), dates and years, and obligation words (must, shall,
//! should, may, must not) — and the list of differences between two sets of passages; the order
//! of documents (old → new). Pure functions; deterministic. Must not: call models or stores.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use super::extractive::stems;
use super::{Pattern, regex};
use super::{lexicon, text};
use std::sync::LazyLock;

// A number, optionally followed by a unit word, or a currency before it.
static QUANTITY: Pattern = LazyLock::new(|| {
    regex(
        r"(?ix)
        \b(?:(?:USD|EUR|GBP|RM|MYR|\$|€|£)\s?)?
        \d+(?:[.,]\d+)*
        (?:\s?(?:%|per\s?cent|percent|days?|weeks?|months?|years?|hours?|minutes?|business\s+days?|working\s+days?))?",
    )
});

static SPELLED: Pattern = LazyLock::new(|| {
    regex(&format!(
        r"(?i)\b({})[\s-](days?|weeks?|months?|years?|hours?|working days?|business days?)\b",
        lexicon::number_words()
    ))
});

/// Quantities in a text, normalised ("10 days", "8 per cent"), in order, without repeats.
pub fn quantities(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        // Section numbers ("4.2") and bare single digits are not facts worth comparing.
        let bare = s.chars().all(|c| c.is_ascii_digit() || c == '.');
        if !(bare && (s.contains('.') || s.len() < 2))
            && !out.iter().any(|o| o.eq_ignore_ascii_case(&s))
        {
            out.push(s);
        }
    };
    if let Some(re) = QUANTITY.as_ref() {
        for m in re.find_iter(text) {
            push(m.as_str().trim());
        }
    }
    if let Some(re) = SPELLED.as_ref() {
        for m in re.find_iter(text) {
            push(m.as_str().trim());
        }
    }
    out
}

/// Obligation words in a text, strongest reading first ("must not" before "must").
pub fn modals(text: &str) -> Vec<&'static str> {
    let lower = format!(" {} ", text.to_lowercase());
    let mut out: Vec<&'static str> = Vec::new();
    let mut rest = lower.clone();
    for m in lexicon::MODALS {
        let needle = format!(" {m} ");
        if rest.contains(&needle) {
            out.push(m);
            rest = rest.replace(&needle, " ");
        }
    }
    out
}

/// Differences between what two documents say: quantities and obligation words present in one
/// and not in the other. Each entry is (what the first says, what the second says).
pub fn differences(a: &str, b: &str) -> Vec<(String, String)> {
    let (qa, qb) = (quantities(a), quantities(b));
    let only_a: Vec<&String> = qa
        .iter()
        .filter(|x| !qb.iter().any(|y| y.eq_ignore_ascii_case(x)))
        .collect();
    let only_b: Vec<&String> = qb
        .iter()
        .filter(|x| !qa.iter().any(|y| y.eq_ignore_ascii_case(x)))
        .collect();
    let mut out = Vec::new();
    if !only_a.is_empty() || !only_b.is_empty() {
        let join = |v: &[&String]| {
            if v.is_empty() {
                "—".to_owned()
            } else {
                v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            }
        };
        out.push((join(&only_a), join(&only_b)));
    }
    let (ma, mb) = (modals(a), modals(b));
    if ma != mb && !(ma.is_empty() && mb.is_empty()) {
        let join = |v: &[&str]| {
            if v.is_empty() {
                "—".to_owned()
            } else {
                v.join(", ")
            }
        };
        out.push((join(&ma), join(&mb)));
    }
    out
}

/// A title without its version marks ("developers-reference-12.18" → "developers reference"),
/// so that versions of one document are recognised even when their titles carry the number.
pub fn base_title(title: &str) -> String {
    title
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .filter(|w| {
            let digits = w.trim_start_matches('v');
            !(digits.chars().all(|c| c.is_ascii_digit()))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Compares version labels the way people read them: "2.10" after "2.9", "13.20" after "12.18";
/// labels without a number ("draft", "final") say nothing of their order (`Equal`).
pub fn version_order(a: &str, b: &str) -> Ordering {
    let parts = |s: &str| -> Vec<u64> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty())
            .filter_map(|p| p.parse().ok())
            .collect()
    };
    let (pa, pb) = (parts(a), parts(b));
    if pa.is_empty() || pb.is_empty() {
        return Ordering::Equal;
    }
    pa.cmp(&pb)
}

/// What a document's version reads as: the version given when it was added, else its title,
/// whose numbers are the version when the file was named after it ("roadmap-1.14").
pub fn version_label<'a>(version: &'a str, title: &'a str) -> &'a str {
    if version.trim().is_empty() {
        title
    } else {
        version
    }
}

/// Words per shingle when telling changed sentences from unchanged ones.
const SHINGLE: usize = 5;

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn hash_words(w: &[String]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    w.hash(&mut h);
    h.finish()
}

/// Every run of five consecutive words of a text (hashed), ignoring case, punctuation, line
/// breaks and page furniture between them: the fingerprint of a whole document version.
pub fn shingles(text: &str) -> HashSet<u64> {
    let w = words(text);
    if w.len() < SHINGLE {
        return std::iter::once(hash_words(&w)).collect();
    }
    w.windows(SHINGLE).map(hash_words).collect()
}

/// The [`novelty`] from which a sentence counts as changed between versions: a fifth of its
/// five-word runs are new (one changed word in a sentence of twenty words is).
pub const CHANGED_NOVELTY: f32 = 0.2;

/// Share of a sentence's five-word runs that the other version does not have: 0.0 for a
/// sentence kept word for word (wherever it sits), 1.0 for one written anew.
pub fn novelty(sentence: &str, other: &HashSet<u64>) -> f32 {
    let grams = shingles(sentence);
    if grams.is_empty() {
        return 0.0;
    }
    grams.iter().filter(|g| !other.contains(g)).count() as f32 / grams.len() as f32
}

/// One difference between two versions of a document, by the index of the sentence in each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The same clause, amended: a sentence of the old version and its counterpart in the new.
    Amended {
        /// The sentence in the old version.
        old: usize,
        /// Its counterpart in the new version.
        new: usize,
    },
    /// A sentence of the new version with no counterpart in the old.
    Added(usize),
    /// A sentence of the old version with no counterpart in the new.
    Removed(usize),
}

/// Share of their words (see `text::token_similarity`) from which two changed sentences are one
/// clause amended rather than one removed and another added. "Gifts above £100 require the
/// approval of the line manager" and "Gifts above £50 require the approval of Compliance"
/// share about half; two different clauses of one policy rarely share more than a third.
pub const SAME_CLAUSE: f32 = 0.4;

/// The differences between two versions, sentence by sentence (a general alignment, not a
/// list of what to look for): a sentence the other version holds word for word, wherever, is
/// unchanged ([`novelty`]); of the rest, the pairs sharing at least [`SAME_CLAUSE`] of their
/// words are amended clauses (closest pairs first, each sentence in one pair), and what is left
/// was added or removed. Ordered by what a reader checks first: amendments that change a
/// number, duration or obligation word; then what is added or removed with a concept only its
/// version has ([`distinct_vocabulary`], the most distinctive first); then the other
/// additions, removals, and amendments of wording only — within each of these, spread over the
/// document ([`STRETCHES`]), the start of an added or removed passage first.
pub fn diff_versions(old: &[&str], new: &[&str]) -> Vec<Change> {
    let old_grams = shingles(&old.join("\n"));
    let new_grams = shingles(&new.join("\n"));
    let old_left: Vec<usize> = (0..old.len())
        .filter(|&i| novelty(old[i], &new_grams) >= CHANGED_NOVELTY)
        .collect();
    let new_left: Vec<usize> = (0..new.len())
        .filter(|&j| novelty(new[j], &old_grams) >= CHANGED_NOVELTY)
        .collect();
    // A changed sentence may pair with one the other version kept word for word: a clause
    // extended ("… and its subsidiaries" → "… and its subsidiaries, and to agents") keeps all
    // of the old words.
    let old_tokens: Vec<HashSet<String>> = old.iter().map(|t| text::tokens(t)).collect();
    let new_tokens: Vec<HashSet<String>> = new.iter().map(|t| text::tokens(t)).collect();
    let (old_changed, new_changed): (HashSet<usize>, HashSet<usize>) = (
        old_left.iter().copied().collect(),
        new_left.iter().copied().collect(),
    );
    let mut pairs: Vec<(f32, usize, usize)> = Vec::new();
    for (i, x) in old_tokens.iter().enumerate() {
        for (j, y) in new_tokens.iter().enumerate() {
            if !old_changed.contains(&i) && !new_changed.contains(&j) {
                continue;
            }
            let sim = text::jaccard(x, y);
            if sim >= SAME_CLAUSE {
                pairs.push((sim, i, j));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let (mut old_used, mut new_used) = (HashSet::new(), HashSet::new());
    let mut out: Vec<(u8, usize, Change)> = Vec::new();
    for (_, i, j) in pairs {
        if old_used.contains(&i) || new_used.contains(&j) {
            continue;
        }
        old_used.insert(i);
        new_used.insert(j);
        // A value replaced by another ("4.8 → 9.x", "must → may") is what a reader checks
        // first; numbers only dropped or only added are as often a note's or reference's
        // mark ("(UCRT)12" → "[UCRT]") as a value, and come with the additions.
        let diffs = differences(old[i], new[j]);
        let rank = if diffs.is_empty() {
            4
        } else if diffs.iter().any(|(a, b)| a != "—" && b != "—") {
            0
        } else {
            2
        };
        out.push((rank, j, Change::Amended { old: i, new: j }));
    }
    let added: HashSet<usize> = new_left
        .iter()
        .copied()
        .filter(|j| !new_used.contains(j))
        .collect();
    let removed: HashSet<usize> = old_left
        .iter()
        .copied()
        .filter(|i| !old_used.contains(i))
        .collect();
    // (Sorted below.) What one version adds or drops with a concept of its own comes first,
    // the most distinctive first ([`distinct_vocabulary`]); the rest after it.
    let (old_vocab, new_vocab) = (vocabulary(old), vocabulary(new));
    let mut novel: Vec<(f32, usize, Change)> = Vec::new();
    let sides = added
        .iter()
        .map(|&j| (2, j, Change::Added(j), new[j], &new_vocab, &old_vocab))
        .chain(
            removed
                .iter()
                .map(|&i| (3, i, Change::Removed(i), old[i], &old_vocab, &new_vocab)),
        );
    for (rank, at, change, sentence, own, other) in sides {
        match distinct_vocabulary(sentence, own, other) {
            score if score > 0.0 => novel.push((score, at, change)),
            _ => out.push((rank, at, change)),
        }
    }
    novel.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    // Within each rank, spread over the document: the first difference of each stretch of
    // it, then the second of each, and so on; and of added or removed sentences, those that
    // open a run (a new or dropped passage begins there) before the ones inside it. A long
    // revision otherwise shows only what changed on its first pages.
    let opens_run = |c: &Change| match *c {
        Change::Added(j) => j == 0 || !added.contains(&(j - 1)),
        Change::Removed(i) => i == 0 || !removed.contains(&(i - 1)),
        Change::Amended { .. } => true,
    };
    let len = |c: &Change| match c {
        Change::Removed(_) => old.len(),
        _ => new.len(),
    };
    out.sort_by_key(|(rank, at, _)| (*rank, *at));
    // (rank, inside a run, round, stretch, place): the order shown.
    type Key = (u8, bool, usize, usize, usize);
    let mut keyed: Vec<(Key, Change)> = Vec::new();
    let mut seen: HashMap<(u8, bool, usize), usize> = HashMap::new();
    for (rank, at, c) in out {
        let stretch = at * STRETCHES / len(&c).max(1);
        let inside = !opens_run(&c);
        let round = seen.entry((rank, inside, stretch)).or_default();
        keyed.push(((rank, inside, *round, stretch, at), c));
        *round += 1;
    }
    keyed.extend(
        novel
            .into_iter()
            .enumerate()
            .map(|(n, (_, at, c))| ((1, false, n, 0, at), c)),
    );
    keyed.sort_by_key(|(k, _)| *k);
    keyed.into_iter().map(|(_, c)| c).collect()
}

/// For each stem, how many sentences of a version hold it.
fn vocabulary(sentences: &[&str]) -> HashMap<String, usize> {
    let mut out: HashMap<String, usize> = HashMap::new();
    for s in sentences {
        for t in stems(s) {
            *out.entry(t).or_default() += 1;
        }
    }
    out
}

/// How much of a sentence's vocabulary is a concept of its own version (`own`) that the
/// other version (`other`) never uses: over its stems (numbers aside: a changed number is an
/// amendment) that recur in its own version (two sentences or more) and stand nowhere in the
/// other, the sum of ln(1 + how many sentences hold them). A licence's new "Secondary
/// License" recurs in one version and is absent from the other; a reworded sentence's new
/// words seldom recur.
fn distinct_vocabulary(
    sentence: &str,
    own: &HashMap<String, usize>,
    other: &HashMap<String, usize>,
) -> f32 {
    stems(sentence)
        .iter()
        .filter(|t| !other.contains_key(*t) && !t.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .filter_map(|t| own.get(t).filter(|&&n| n >= 2))
        .map(|&n| (1.0 + n as f32).ln())
        .sum()
}

/// A phrase of the old version that the new one says otherwise in several amended clauses: a
/// body, a role or a term renamed throughout ("the review board" → "the oversight panel").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renamed {
    /// The old phrase (lower case).
    pub old: String,
    /// The new phrase (lower case).
    pub new: String,
    /// The amended clauses that rename it, as (old, new) sentence indexes, in the order of
    /// the changes given.
    pub pairs: Vec<(usize, usize)>,
}

/// How many amended clauses must say a phrase otherwise before it is reported as renamed
/// throughout: one or two are amendments of their own, a name changes everywhere it stands.
pub const RENAMED_MIN: usize = 3;

/// The longest phrase, in words, read as a name.
const NAME_WORDS: usize = 4;

/// The phrases renamed throughout between two versions: of each amended clause (`changes`,
/// from [`diff_versions`]), the runs of words the new sentence puts in place of the old one's
/// (a word-level alignment, [`replaced_runs`]) that are short, hold a content word each and no
/// number (a changed number is an amendment of value), counted once per clause; those found
/// in at least [`RENAMED_MIN`] clauses, the most frequent first.
pub fn renamed(old: &[&str], new: &[&str], changes: &[Change]) -> Vec<Renamed> {
    let mut found: Vec<Renamed> = Vec::new();
    for c in changes {
        let Change::Amended { old: i, new: j } = *c else {
            continue;
        };
        let (Some(a), Some(b)) = (old.get(i), new.get(j)) else {
            continue;
        };
        let mut here: HashSet<(String, String)> = HashSet::new();
        for (x, y) in replaced_runs(&words(a), &words(b)) {
            let named = |r: &[String]| {
                (1..=NAME_WORDS).contains(&r.len())
                    && !r.iter().any(|w| w.chars().any(|c| c.is_ascii_digit()))
                    && !text::content_terms(&r.join(" ")).is_empty()
            };
            if !named(&x) || !named(&y) {
                continue;
            }
            let key = (x.join(" "), y.join(" "));
            if !here.insert(key.clone()) {
                continue;
            }
            match found
                .iter_mut()
                .find(|r| (&r.old, &r.new) == (&key.0, &key.1))
            {
                Some(r) => r.pairs.push((i, j)),
                None => found.push(Renamed {
                    old: key.0,
                    new: key.1,
                    pairs: vec![(i, j)],
                }),
            }
        }
    }
    // Renamed throughout: the old name is gone from the new version and the new one was
    // nowhere in the old (a list that moves on by one, "12, bookworm; 13, trixie" → "13,
    // trixie; 14, forky", renames nothing).
    let holds = |version: &[&str], phrase: &str| {
        let want: Vec<&str> = phrase.split(' ').collect();
        version.iter().any(|s| {
            words(s)
                .windows(want.len())
                .any(|w| w.iter().eq(want.iter()))
        })
    };
    found.retain(|r| r.pairs.len() >= RENAMED_MIN && !holds(new, &r.old) && !holds(old, &r.new));
    found.sort_by_key(|r| std::cmp::Reverse(r.pairs.len()));
    found
}

/// The runs of `a` that `b` replaces, each with its replacement, from the longest common
/// subsequence of the two word lists (a run only one side has is left out).
fn replaced_runs(a: &[String], b: &[String]) -> Vec<(Vec<String>, Vec<String>)> {
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u16; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    let (mut x, mut y): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    let mut flush = |x: &mut Vec<String>, y: &mut Vec<String>| {
        if !x.is_empty() && !y.is_empty() {
            out.push((std::mem::take(x), std::mem::take(y)));
        }
        x.clear();
        y.clear();
    };
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            flush(&mut x, &mut y);
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            y.push(b[j].clone());
            j += 1;
        } else {
            x.push(a[i].clone());
            i += 1;
        }
    }
    flush(&mut x, &mut y);
    out
}

/// Stretches a version is cut into for [`diff_versions`]' order: each stretch's first
/// difference of a rank comes before any stretch's second. More spreads the differences shown
/// thinner over the document, fewer keeps them together.
const STRETCHES: usize = 10;

// "Apart from termination and relicensing, what did 1.3 add": what the reader already knows.
static EXCLUDED: Pattern = LazyLock::new(|| {
    regex(r"(?i)\b(?:apart from|other than|aside from|besides|except for|excluding)\s+([^,;?.]+)")
});

/// The part of a question the reader sets aside ("apart from X", "other than X"), if any.
pub fn excluded(question: &str) -> Option<String> {
    EXCLUDED
        .as_ref()?
        .captures(question)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().trim().to_owned())
}

// "Which statement was dropped", "what did 13.20 remove": the older version holds the answer.

/// Whether a question asks what a newer version no longer has.
pub fn asks_removals(question: &str) -> bool {
    let lower = question.to_lowercase();
    ["no longer", "left out", "taken out"]
        .iter()
        .any(|p| lower.contains(p))
        || lower
            .split(|c: char| !c.is_alphanumeric())
            .any(lexicon::is_removal)
}

/// The vocabulary of comparing: what a comparison question says besides its subject, with the
/// verbs of saying that frame it ("compare what the two charters *say* about guests").
const COMPARING: &str = "compare comparison differ difference differences change changed changes \
     version versions between document documents old new previous latest release edition add \
     adds added introduce introduces introduced drop dropped remove removed delete deleted omit \
     omitted apart aside besides except excluding say says said describe describes described \
     explain explains explained";

/// Whether a word of a comparison question says which documents are compared or that they are
/// compared, not what about: a word of comparing, or a word of a compared document's name
/// (`names`: the stems of their titles, versions and file names) written as a name —
/// capitalised, hyphenated or numbered ("Debian Policy Manual", "copyright-format", "GPL-1").
/// In lower case a name's word is the subject ("… require of a package's copyright file").
pub fn names_or_compares(word: &str, names: &HashSet<String>) -> bool {
    static VOCABULARY: LazyLock<HashSet<String>> = LazyLock::new(|| stems(COMPARING));
    let s = stems(word);
    let named = word.starts_with(char::is_uppercase)
        || word.contains(|c: char| c == '-' || c.is_ascii_digit());
    !s.is_empty()
        && s.iter()
            .all(|t| VOCABULARY.contains(t) || (named && names.contains(t)))
}

/// Whether a word is a compared document's head noun standing for the document (`heads`: the
/// stems of those nouns, see [`title_head`]): "how do the charter and the bylaws differ" names
/// the two by their heads. After an indefinite article it names no particular document and is
/// the subject: "which repairs call for a survey" asks about surveys even when one of the
/// documents is "Survey rules".
pub fn names_by_head(previous: Option<&str>, word: &str, heads: &HashSet<String>) -> bool {
    let s = stems(word);
    !s.is_empty()
        && s.iter().all(|t| heads.contains(t))
        && !previous.is_some_and(|p| lexicon::INDEFINITE.contains(&p.to_lowercase().as_str()))
}

/// The question a comparison frames, when it frames one: "Do the rowing club and the sailing
/// club disagree on how many guests each member may bring?" asks each document "how many guests
/// each member may bring?" — the frame ("Do … disagree on") asks nothing of its own. An
/// interrogative after the first word, right after a preposition, opens the framed question;
/// the question itself otherwise.
pub fn framed_ask(question: &str) -> &str {
    const FRAMING: [&str; 5] = ["in", "on", "about", "regarding", "as"];
    const INTERROGATIVES: [&str; 5] = ["how", "what", "which", "when", "who"];
    // Each word with its offset (a word is a slice of the question).
    let words: Vec<(usize, &str)> = question
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - question.as_ptr() as usize, w))
        .collect();
    words
        .get(1..)
        .unwrap_or_default()
        .windows(2)
        .find(|pair| {
            FRAMING.contains(&pair[0].1.to_lowercase().as_str())
                && INTERROGATIVES.contains(&pair[1].1.to_lowercase().as_str())
        })
        .map_or(question, |pair| &question[pair[1].0..])
}

/// Whether a comparison says what it compares beyond comparing and pointing ("Compare the
/// governing law of the two agreements" does, "Compare these" does not).
pub fn has_subject(question: &str) -> bool {
    let none = HashSet::new();
    question
        .split_whitespace()
        .any(|w| !stems(w).is_empty() && !names_or_compares(w, &none))
}

/// The head noun of a document's name, stemmed: its last word of letters ("agreement" of
/// "Master Services Agreement", "addendum" of "data-processing-addendum-v2"). Written in lower
/// case in a comparison ("how do the agreement and the addendum differ"), it names the document
/// like its capitalised words do.
pub fn title_head(name: &str) -> Option<String> {
    name.trim_end_matches(".pdf")
        .split(|c: char| !c.is_alphabetic())
        .rfind(|w| w.chars().count() >= 3)
        .map(|w| text::stem(&w.to_lowercase()))
}

/// The text without the runs of words that spell a compared document's name out in lower case
/// ("the master services agreement": every word a word of the name, the last its head noun,
/// see [`title_head`], or a noun a text uses for itself, `lexicon::SELF_NOUNS`: "the database
/// application guidelines"); `docs` holds each document's name stems and head. "Compare the
/// notice periods in the master services agreement and the data processing addendum" asks
/// about notice periods, not about "data" or "processing".
pub fn without_spelled_names(text: &str, docs: &[(HashSet<String>, String)]) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut drop = vec![false; words.len()];
    for (name, head) in docs {
        let in_name = |w: &str| {
            let s = stems(w);
            !s.is_empty() && s.iter().all(|t| name.contains(t))
        };
        for end in 0..words.len() {
            if !stems(words[end]).contains(head) && !lexicon::is_self_noun(words[end]) {
                continue;
            }
            let mut start = end;
            while start > 0 && in_name(words[start - 1]) {
                start -= 1;
            }
            if end > start {
                drop[start..=end].iter_mut().for_each(|d| *d = true);
            }
        }
    }
    words
        .iter()
        .zip(&drop)
        .filter(|(_, d)| !**d)
        .map(|(w, _)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The number of a version code as a name carries it: "v2" → "2", "v1.3" → "1.3"; `None` for
/// any other word.
pub fn version_number(word: &str) -> Option<&str> {
    let n = word.strip_prefix('v').or_else(|| word.strip_prefix('V'))?;
    (n.starts_with(|c: char| c.is_ascii_digit())
        && n.chars().all(|c| c.is_ascii_digit() || c == '.'))
    .then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_code_gives_its_number() {
        assert_eq!(version_number("v2"), Some("2"));
        assert_eq!(version_number("V1.3"), Some("1.3"));
        assert_eq!(version_number("vessel"), None);
        assert_eq!(version_number("v"), None);
    }

    #[test]
    fn a_name_spelled_out_in_lower_case_is_no_subject() {
        let docs = [
            (stems("Harbour Towage Contract"), stem_of("contract")),
            (stems("crew-welfare-charter"), stem_of("charter")),
        ];
        assert_eq!(
            without_spelled_names(
                "Compare the towing fees in the harbour towage contract and the crew welfare charter.",
                &docs
            ),
            "Compare the towing fees in the and the"
        );
        // A name's word standing alone is the subject.
        assert_eq!(
            without_spelled_names("What does each say about crew welfare?", &docs),
            "What does each say about crew welfare?"
        );
        // … and so is a run that ends in a noun a text uses for itself.
        assert_eq!(
            without_spelled_names(
                "How do the towage guidelines and the crew welfare charter treat night shifts?",
                &docs
            ),
            "How do the and the treat night shifts?"
        );
    }

    fn stem_of(w: &str) -> String {
        crate::agent::rules::text::stem(w)
    }

    #[test]
    fn a_document_is_named_by_the_head_of_its_title() {
        assert_eq!(
            title_head("Tenancy Deposit Scheme"),
            Some(crate::agent::rules::text::stem("scheme"))
        );
        assert_eq!(
            title_head("boat-hire-contract-v2.pdf"),
            title_head("Contract")
        );
    }

    #[test]
    fn two_versions_differ_by_amended_added_and_removed_sentences() {
        let old = [
            "Bicycles may be parked in the courtyard for up to 3 days.",
            "Helmets are stored in the locker room.",
            "Visitors sign the bicycle book at reception.",
        ];
        let new = [
            "Bicycles may be parked in the courtyard for up to 7 days.",
            "Helmets are stored in the locker room.",
            "Electric bicycles must be charged in the basement only.",
        ];
        assert_eq!(
            diff_versions(&old, &new),
            vec![
                Change::Amended { old: 0, new: 0 },
                Change::Added(2),
                Change::Removed(2)
            ]
        );
        assert!(diff_versions(&old, &old).is_empty());
        // A clause extended keeps every old word: it is amended, not added.
        let longer = [
            "Bicycles may be parked in the courtyard for up to 3 days.",
            "Helmets are stored in the locker room, and gloves in the drawer beside it.",
            "Visitors sign the bicycle book at reception.",
        ];
        assert_eq!(
            diff_versions(&old, &longer),
            vec![Change::Amended { old: 1, new: 1 }]
        );
    }

    #[test]
    fn a_value_replaced_comes_before_a_mark_dropped() {
        let old = [
            "Moorings follow the harbour byelaws (HB)12 in every season.",
            "Hulls are painted at least every 4 years.",
        ];
        let new = [
            "Moorings follow the harbour byelaws [HB] in every season.",
            "Hulls are painted at least every 3 years.",
        ];
        assert_eq!(
            diff_versions(&old, &new),
            vec![
                Change::Amended { old: 1, new: 1 },
                Change::Amended { old: 0, new: 0 }
            ]
        );
    }

    #[test]
    fn a_phrase_said_otherwise_in_several_clauses_is_renamed_throughout() {
        let old = [
            "The review board appoints the stewards of the harbour.",
            "A steward may not sit on the review board at the same time.",
            "The review board meets every month in the harbour office.",
            "Fees are paid to the harbour master within 30 days.",
        ];
        let new = [
            "The oversight panel appoints the stewards of the harbour.",
            "A steward may not sit on the oversight panel at the same time.",
            "The oversight panel meets every month in the harbour office.",
            "Fees are paid to the harbour master within 14 days.",
        ];
        let changes = diff_versions(&old, &new);
        let r = renamed(&old, &new, &changes);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(
            (r[0].old.as_str(), r[0].new.as_str()),
            ("review board", "oversight panel")
        );
        assert_eq!(r[0].pairs.len(), 3);
        // Where the new version still uses the old name, it was not renamed throughout.
        let mut kept = new.to_vec();
        kept.push("The review board of the harbour is dissolved.");
        let changes = diff_versions(&old, &kept);
        assert!(renamed(&old, &kept, &changes).is_empty());
        // A number changed in one clause is no name, and a phrase changed in fewer than
        // three clauses is an amendment of its own.
        assert!(renamed(&old[..2], &new[..2], &diff_versions(&old[..2], &new[..2])).is_empty());
    }

    #[test]
    fn the_first_differences_of_a_long_revision_come_from_all_over_it() {
        let old: Vec<String> = (0..40)
            .map(|i| format!("Rule {i} says the pump number {i} is checked by the crew."))
            .collect();
        // The new version adds a run of three sentences near the start and one sentence near
        // the end.
        let mut new = old.clone();
        new.insert(
            36,
            "Divers must log every descent in the harbour book.".to_owned(),
        );
        for (k, t) in [
            "Visitors wear a yellow vest on the quay.",
            "Children are accompanied by an adult at all times.",
            "Dogs stay on a lead beside the water.",
        ]
        .into_iter()
        .enumerate()
        {
            new.insert(2 + k, t.to_owned());
        }
        let (old, new): (Vec<&str>, Vec<&str>) = (
            old.iter().map(String::as_str).collect(),
            new.iter().map(String::as_str).collect(),
        );
        let first_two: Vec<Change> = diff_versions(&old, &new).into_iter().take(2).collect();
        // The opening of the run near the start, then the sentence near the end, before the
        // rest of the run.
        assert_eq!(first_two, vec![Change::Added(2), Change::Added(39)]);
    }

    #[test]
    fn a_comparison_has_a_subject_beyond_comparing_and_pointing() {
        assert!(has_subject("Compare the mooring fees of the two harbours."));
        assert!(!has_subject("Compare these"));
        assert!(!has_subject("What are the differences between them?"));
        assert!(!has_subject("Compare what they say."));
        let none = HashSet::new();
        assert!(names_or_compares("describes", &none));
        assert!(!names_or_compares("guests", &none));
    }

    #[test]
    fn what_a_version_adds_or_drops_with_a_concept_of_its_own_comes_first() {
        let old = [
            "Members moor at the north pontoon.",
            "Disputes are settled under the law of Norway.",
            "Fees are paid in March.",
            "The gate closes at ten.",
        ];
        let new = [
            "Members moor at the north pontoon.",
            "The clubhouse opens on Sundays too.",
            "Fees are paid in March.",
            "A guest berth may be booked by any member for a visitor.",
            "The gate closes at ten.",
            "A guest berth is free for the first night.",
            "Visitors leave the guest berth by noon.",
        ];
        let changes = diff_versions(&old, &new);
        // The sentences that bring the guest berth, a concept the old rules never name,
        // before the one-off addition about the clubhouse.
        let clubhouse = changes.iter().position(|c| *c == Change::Added(1)).unwrap();
        let berth = changes.iter().position(|c| *c == Change::Added(3)).unwrap();
        assert!(berth < clubhouse, "{changes:?}");
        assert_eq!(changes.first(), Some(&Change::Added(3)));
    }

    #[test]
    fn a_document_is_named_by_its_capitalised_words_and_the_subject_stays() {
        let names = stems("Harbour Safety Code harbour-safety-code");
        let q = "Compare what the Harbour Safety Code and the fire-code say about safety drills.";
        let subject: Vec<&str> = q
            .split_whitespace()
            .filter(|w| !names_or_compares(w, &names))
            .collect();
        assert_eq!(
            subject.join(" "),
            "what the and the fire-code say about safety drills."
        );
    }

    #[test]
    fn quantities_keep_units_and_skip_section_numbers() {
        let q = quantities(
            "Section 4.2: other NMUs wait 10 days; banks hold 8 per cent and pay EUR 5,000 within thirty days.",
        );
        assert!(q.contains(&"10 days".to_owned()), "{q:?}");
        assert!(q.contains(&"8 per cent".to_owned()), "{q:?}");
        assert!(q.contains(&"EUR 5,000".to_owned()), "{q:?}");
        assert!(
            q.iter().any(|x| x.eq_ignore_ascii_case("thirty days")),
            "{q:?}"
        );
        assert!(!q.contains(&"4.2".to_owned()), "{q:?}");
    }

    #[test]
    fn modal_verbs_read_negations_first() {
        assert_eq!(
            modals("Staff must not share keys and should report loss."),
            vec!["must not", "should"]
        );
        assert_eq!(modals("The bank must hold capital."), vec!["must"]);
    }

    #[test]
    fn differences_call_out_changed_numbers_and_obligations() {
        let d = differences(
            "Other NMUs: 10 days. Uploads must be signed.",
            "Other NMUs: 15 days. Uploads should be signed.",
        );
        assert_eq!(d[0], ("10 days".to_owned(), "15 days".to_owned()));
        assert_eq!(d[1], ("must".to_owned(), "should".to_owned()));
        assert!(differences("Keep 7 years.", "Keep 7 years.").is_empty());
    }

    #[test]
    fn titles_of_versions_share_a_base() {
        assert_eq!(
            base_title("developers-reference-12.18"),
            base_title("Developers Reference 13.20")
        );
        assert_eq!(base_title("Policy v2"), "policy");
        assert_ne!(base_title("GFDL-1.2"), base_title("GPL-1"));
    }

    #[test]
    fn a_head_noun_after_an_indefinite_article_is_the_subject() {
        let heads: HashSet<String> = ["survey", "rule"].iter().map(|w| text::stem(w)).collect();
        // "the survey" stands for "Survey rules"; "a survey" is what the question asks about.
        assert!(names_by_head(Some("the"), "survey", &heads));
        assert!(names_by_head(None, "rules", &heads));
        assert!(!names_by_head(Some("a"), "survey", &heads));
        assert!(!names_by_head(Some("Any"), "rules", &heads));
        assert!(!names_by_head(Some("the"), "repairs", &heads));
    }

    #[test]
    fn a_comparison_asks_each_side_the_question_it_frames() {
        assert_eq!(
            framed_ask(
                "Do the rowing club and the sailing club disagree on how many guests each \
                 member may bring?"
            ),
            "how many guests each member may bring?"
        );
        assert_eq!(
            framed_ask("Set the charters side by side regarding which berths are kept free."),
            "which berths are kept free."
        );
        let plain = "Put both charters side by side: what may guests bring?";
        assert_eq!(framed_ask(plain), plain);
    }

    #[test]
    fn versions_order_numerically() {
        assert_eq!(version_order("12.18", "13.20"), Ordering::Less);
        assert_eq!(version_order("2.10", "2.9"), Ordering::Greater);
        assert_eq!(version_order("2024", "2025"), Ordering::Less);
        assert_eq!(version_order("draft", "final"), Ordering::Equal);
    }

    #[test]
    fn versions_without_a_version_field_are_read_from_their_titles() {
        // Lexically "1.14" sorts before "1.9"; as versions it comes after.
        let (old, new) = (
            version_label("", "harbour-tariff-1.9"),
            version_label("", "harbour-tariff-1.14"),
        );
        assert_eq!(version_order(old, new), Ordering::Less);
        assert_eq!(version_label("2025", "harbour-tariff-1.9"), "2025");
    }
    #[test]
    fn novelty_tells_kept_sentences_from_new_ones() {
        let old = shingles(
            "The \"Title Page\" means, for a printed book, the title page itself.\nA section \"Entitled XYZ\" means a named subunit of the Document.",
        );
        // Kept word for word, across a different line break: not new.
        assert_eq!(
            novelty(
                "A section \"Entitled XYZ\"\nmeans a named subunit of the Document.",
                &old
            ),
            0.0
        );
        assert!(
            novelty(
                "The \"publisher\" means any person or entity that distributes copies of the Document to the public.",
                &old
            ) > 0.9
        );
    }

    #[test]
    fn set_aside_parts_and_removals_are_read_from_the_question() {
        assert_eq!(
            excluded("Apart from termination and relicensing, what did GFDL 1.3 add?").as_deref(),
            Some("termination and relicensing")
        );
        assert_eq!(excluded("What did GFDL 1.3 add?"), None);
        assert!(asks_removals(
            "which statement about the manual was dropped"
        ));
        assert!(!asks_removals("what was added"));
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(crate::agent::rules::all_compile(&[
            &QUANTITY, &SPELLED, &EXCLUDED
        ]));
    }
}
